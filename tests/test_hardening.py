"""Regression tests of issue 9 (hardening): no bad input, huge value, killed process or damaged
store ends in a traceback, a hang or lost results. Each test names the case it pins down.

Part of CI's second environment (``make test-plain``: a plain ``pip install .``, no extras).
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from frcli.cli import main


def _one_error(capsys, rc, expected_rc=2) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == expected_rc, err
    errors = [line for line in err if line.startswith("error: ")]
    assert len(errors) == 1 and errors == err[-1:], err
    assert "Traceback" not in "\n".join(err)
    return errors[0]


# -- §1: usage errors need no undeclared module ----------------------------------------------

USAGE = [["rank", "x.arff", "--nosuch"], ["rank", "x.arff", "--method"], ["experiment"],
         ["nosuchcmd"], ["rank", "x.arff", "--seed", "abc"]]


def test_usage_errors_in_a_clean_interpreter(tmp_path):
    """``python -I`` from an empty folder: the installed package alone (in CI's plain
    environment: no extras, so no click) gives one line and exit 2 for every usage error."""
    script = textwrap.dedent(f"""\
        import contextlib, io, json
        from frcli.cli import main
        out = []
        for args in {USAGE!r}:
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = main(args)
            out.append([rc, err.getvalue()])
        print(json.dumps(out))
        """)
    res = subprocess.run([sys.executable, "-I", "-c", script], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    for args, (rc, err) in zip(USAGE, json.loads(res.stdout)):
        lines = err.strip().splitlines()
        assert rc == 2 and len(lines) == 1 and lines[0].startswith("error: "), (args, err)


def test_internal_error_is_one_line_exit_1(tmp_path, capsys, monkeypatch):
    import frcli.api

    def boom(*a, **k):
        raise RuntimeError("kaput")

    monkeypatch.setattr(frcli.api, "rank_all", boom)
    p = tmp_path / "d.csv"
    p.write_text("a,t\n1,2\n3,4\n")
    rc = main(["rank", str(p), "--targets", "t"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1 and err[0].startswith("internal error: RuntimeError: kaput")
