"""Under CI (FRCLI_CI=1) a missing compiled kernel or missing shared data fails the run;
elsewhere it skips (tests/conftest.py: ``missing`` and the ``need_*`` helpers).

The runs in child processes hide the kernels (an import hook refuses ``frcli._ext.*``) or
point FRCLI_SHARED at an empty folder, and run one real test module each."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, missing

HIDE_KERNELS = """
import sys
from importlib.abc import MetaPathFinder

class NoKernels(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("frcli._ext."):
            raise ImportError(f"{name} hidden: a checkout without a build")
        return None

sys.meta_path.insert(0, NoKernels())
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def _pytest(module: str, env: dict[str, str], hide_kernels: bool = False):
    env = {k: v for k, v in os.environ.items() if k not in ("FRCLI_CI", "FRCLI_SHARED")} | env
    code = HIDE_KERNELS if hide_kernels else \
        "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, "-q", "-p", "no:cacheprovider",
                           "-o", "addopts=", "-rs", module], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)


def test_missing_skips_here_and_fails_under_ci(monkeypatch):
    monkeypatch.delenv("FRCLI_CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        missing("a thing", "why")
    monkeypatch.setenv("FRCLI_CI", "1")
    with pytest.raises(pytest.fail.Exception, match="a thing is missing under CI"):
        missing("a thing", "why")


def test_ci_fails_when_the_kernels_are_not_built():
    module = "tests/engines/relief/test_urelief_exclude_self.py"
    ci = _pytest(module, {"FRCLI_CI": "1"}, hide_kernels=True)
    assert ci.returncode != 0, ci.stdout
    assert "frcli._ext.relief._relief is missing under CI" in ci.stdout, ci.stdout
    here = _pytest(module, {}, hide_kernels=True)      # a module skipped whole: exit code 5
    assert here.returncode in (0, 5) and "1 skipped" in here.stdout, here.stdout
    built = _pytest(module, {"FRCLI_CI": "1"})
    assert built.returncode == 0 and "passed" in built.stdout and "skipped" not in \
        built.stdout, built.stdout


def test_ci_fails_without_the_shared_data(tmp_path):
    module = "tests/engines/relief/test_relief_clus.py"
    ci = _pytest(module, {"FRCLI_CI": "1", "FRCLI_SHARED": str(tmp_path)})
    assert ci.returncode != 0 and "missing under CI" in ci.stdout, ci.stdout
    here = _pytest(module, {"FRCLI_SHARED": str(tmp_path)})
    assert here.returncode == 0 and "skipped" in here.stdout, here.stdout
