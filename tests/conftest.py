"""Shared fixtures and helpers: where ../shared is, the ``slow`` marker (run with
FRCLI_SLOW=1), and the one way a test states a prerequisite.

A test that needs something the checkout may lack (a compiled kernel, the shared data, a
bundled file, a program such as make) asks for it here: ``need_kernel``, ``need_shared``,
``need_file``, ``need_program`` (module level, or the ``need`` fixture), or the marker
``@pytest.mark.shared("datasets/clus-reference")``. When it is absent the test is skipped on
a developer's machine, and fails under CI (``FRCLI_CI=1``, set by .ci/run): a CI run that
skipped the kernels or the CLUS agreement would be green without testing them.
"""
from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[1]
# FRCLI_SHARED points a checkout elsewhere at the shared folder (and lets a test hide it)
SHARED = Path(os.environ.get("FRCLI_SHARED") or REPO.parent / "shared")
SHARED_DATA = SHARED / "datasets"


def ci() -> bool:
    """Whether this is a CI run (FRCLI_CI set and not 0)."""
    return os.environ.get("FRCLI_CI", "") not in ("", "0")


def missing(what: str, hint: str) -> None:
    """``what`` is absent: skip the test (or the module), or fail it under CI."""
    if ci():
        pytest.fail(f"{what} is missing under CI (FRCLI_CI=1): {hint}", pytrace=False)
    pytest.skip(f"{what} is missing: {hint}", allow_module_level=True)


def need_kernel(name: str) -> ModuleType:
    """The compiled kernel module ``name`` (``frcli._ext.pct._forest``, ...)."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        missing(f"the compiled kernel {name}", f"build it with `make build` ({e})")


def need_shared(rel: str = "datasets") -> Path:
    """``../shared/<rel>`` (a folder or a file)."""
    path = SHARED / rel
    if not path.exists():
        missing(f"shared data {path}", "the tests read ../shared next to the checkout "
                "(or FRCLI_SHARED)")
    return path


def need_file(path: Path, what: str = "") -> Path:
    """A file the repository itself provides (e.g. the bundled synthetic sets)."""
    if not Path(path).exists():
        missing(f"{what or 'the file'} {path}", "it belongs to the repository")
    return Path(path)


def need_program(name: str) -> str:
    """The path of program ``name`` (make, chromium)."""
    path = shutil.which(name)
    if path is None:
        missing(f"the program {name}", "install it (CI installs what it runs)")
    return path


@pytest.fixture(scope="session")
def need() -> SimpleNamespace:
    """The helpers above, for tests that cannot import this module (CI's plain environment
    runs with --import-mode=importlib and -I, where ``tests`` is no package)."""
    return SimpleNamespace(kernel=need_kernel, shared=need_shared, file=need_file,
                           program=need_program, missing=missing)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("FRCLI_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow test: set FRCLI_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_setup(item):
    """``@pytest.mark.shared(*paths)``: each path under ../shared must exist."""
    for mark in item.iter_markers("shared"):
        for rel in mark.args or ("datasets",):
            need_shared(rel)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/datasets`` (see ``need_shared``)."""
    return need_shared("datasets")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO
