"""Shared fixtures: where ../shared is, and the ``slow`` marker (run with FRCLI_SLOW=1)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SHARED_DATA = SHARED / "datasets"


def pytest_collection_modifyitems(config, items):
    if os.environ.get("FRCLI_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow test: set FRCLI_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/datasets``; tests that need it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO
