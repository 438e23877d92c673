"""Every fenced code block of README.md runs as written.

The blocks run in order, verbatim, in one fresh folder that looks like a checkout (a copy of
``configs/`` and ``datasets/synthetic/``), with this installation's ``frcli`` first on PATH:
``bash`` blocks under ``bash -euo pipefail``, ``python`` blocks with this interpreter; each
must exit 0. Any other kind of block is an error: a README block is either runnable or not
a block. The switches (the README's "About the examples" says the same):

* ``FRCLI_SMOKE=1``: experiment configs run as smoke runs (``frcli/experiment/smoke.py``);
* ``make``: a shim that answers ``install`` and ``test`` with ``make -n`` (the target exists
  and says what it would do) plus, for ``install``, a check that ``frcli`` is imported from
  this checkout with its kernels built. CI runs both for real in a fresh environment
  (``.ci/run``, checked below); here they would reinstall the package under test or run the
  suite inside itself. Other targets run for real.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, need_program, need_shared

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)
KINDS = {"bash": "bash", "sh": "bash", "shell": "bash", "python": "python", "py": "python"}


def readme_blocks(text: str) -> list[tuple[int, str, str]]:
    """(line, kind, code) of every fenced block, in order."""
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append((line, m.group(1).strip().lower(), m.group(2)))
    return out


BLOCKS = readme_blocks((REPO / "README.md").read_text(encoding="utf-8"))

MAKE_SHIM = f"""#!/usr/bin/env bash
# test_readme.py's make: install/test are checked, not run (see the module docstring)
set -euo pipefail
real=$(PATH="${{FRCLI_REAL_PATH}}" command -v make)
case "${{1:-}}" in
  install)
    "$real" -n -C "{REPO}" "$@" PYTHON="{sys.executable}" >/dev/null
    "{sys.executable}" -c 'import frcli, frcli._ext.pct._forest, frcli._ext.relief._relief
import pathlib, sys
p = pathlib.Path(frcli.__file__).resolve().parents[1]
sys.exit(0 if p == pathlib.Path("{REPO}") else f"frcli is imported from {{p}}, not {REPO}")'
    ;;
  test|test-all)
    # captured first: grep -q stopping at its first match would SIGPIPE make (exit 141)
    plan=$("$real" -n -C "{REPO}" "$@" PYTHON="{sys.executable}")
    grep -q pytest <<<"$plan"
    ;;
  *)
    exec "$real" "$@"
    ;;
esac
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A fresh folder like a checkout, and the environment the blocks run in."""
    need_shared("datasets")          # the README's examples read the shared data
    need_program("make")
    root = tmp_path_factory.mktemp("readme")
    shutil.copytree(REPO / "configs", root / "configs")
    shutil.copytree(REPO / "datasets" / "synthetic", root / "datasets" / "synthetic")
    shim = root / ".shims"
    shim.mkdir()
    (shim / "make").write_text(MAKE_SHIM)
    (shim / "make").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRCLI_")}
    env.update(
        PATH=os.pathsep.join([str(shim), str(Path(sys.executable).parent),
                              env.get("PATH", "")]),
        FRCLI_REAL_PATH=env.get("PATH", ""),
        FRCLI_SMOKE="1",
        MPLBACKEND="Agg",
        COLUMNS="100",
    )
    return root, env


def test_every_block_is_runnable_code():
    assert len(BLOCKS) >= 8
    bad = [(line, kind) for line, kind, _ in BLOCKS if kind not in KINDS]
    assert not bad, f"README blocks that are neither bash nor python (line, kind): {bad}"
    for line, _, code in BLOCKS:
        commands = re.sub(r"(^|\s)#.*", "", code)          # comments are prose
        for placeholder in ("DATA ", "URL", "METHOD", "data.arff", "FILE.xml"):
            assert placeholder not in commands, f"README line {line}: placeholder {placeholder!r}"


def test_ci_runs_the_setup_commands_for_real():
    ci = (REPO / ".ci" / "run").read_text()
    assert "make install" in ci and "make test" in ci


@pytest.mark.parametrize("line,kind,code", BLOCKS, ids=[f"line{b[0]}" for b in BLOCKS])
def test_readme_block_runs(workdir, line, kind, code):
    root, env = workdir
    if KINDS.get(kind) == "python":
        cmd = [sys.executable, "-c", code]
    else:
        cmd = ["bash", "-euo", "pipefail", "-c", code]
    res = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, (f"README.md line {line} ({kind}) exited {res.returncode}\n"
                                 f"--- code\n{code}--- stdout\n{res.stdout[-3000:]}"
                                 f"--- stderr\n{res.stderr[-3000:]}")
