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


# -- §2: bounds, memory, planning ------------------------------------------------------------

SYNTH = "datasets/synthetic/synth-mtr.arff"


@pytest.fixture()
def synth(repo):
    return str(repo / SYNTH)


@pytest.mark.parametrize("args, words", [
    (["--seed", "-1", "--method", "random"], ["seed -1", "0..2**63-1"]),
    (["--seed", "-1", "--method", "genie3-rf"], ["seed -1"]),
    (["--method", "genie3-rf", "-p", "trees=1000000000000"], ["trees", "1..100000"]),
    (["--method", "genie3-rf", "-p", "trees=100000000"], ["trees", "1..100000"]),
    (["--method", "relief", "-p", "neighbours=1000000000"], ["neighbours", "1..100000"]),
    (["--method", "random", "--jobs", "100000"], ["jobs", "1..256"]),
    (["--method", "relief", "-p", "neighbours=" + ",".join(map(str, range(1, 101))),
      "-p", "sigma=" + ",".join(str(i / 10) for i in range(101))], ["combinations"]),
])
def test_rank_counts_are_bounded(synth, capsys, args, words):
    line = _one_error(capsys, main(["rank", synth, "--targets", "last:3", *args]))
    for w in words:
        assert w in line, line


def test_memory_is_estimated_before_growing(synth, capsys, monkeypatch):
    """A forest that cannot fit is refused at once: "needs ≈ X GiB, the machine has Y"."""
    from frcli.engines import memory

    monkeypatch.setattr(memory, "machine_memory", lambda: (1 << 30, 1 << 30))
    line = _one_error(capsys, main(["rank", synth, "--targets", "last:3", "--method",
                                    "genie3-rf", "-p", "trees=50000"]))
    assert "needs ≈" in line and "the machine has 1.0 GiB" in line and "trees=50000" in line
    line = _one_error(capsys, main(["rank", synth, "--targets", "last:3", "--method",
                                    "relief", "-p", "neighbours=90000"]))
    assert "needs ≈" in line and "neighbours=90000" in line
    # a run that fits in memory but not in what is free now: a warning, and it runs
    monkeypatch.setattr(memory, "machine_memory", lambda: (1 << 40, 1 << 10))
    assert main(["rank", synth, "--targets", "last:3", "--method", "genie3-rf",
                 "-p", "trees=2"]) == 0
    assert "free now" in capsys.readouterr().err


def test_real_machine_memory_is_read():
    from frcli.engines.memory import machine_memory

    total, avail = machine_memory()
    if sys.platform.startswith("linux"):
        assert total and total > 1 << 26 and avail and 0 < avail <= total


def _exp(tmp_path, synth, **over):
    import yaml

    doc = {"name": "x", "output": str(tmp_path / "out"),
           "datasets": [{"name": "m", "path": synth, "targets": "last:3"}],
           "protocol": {"type": "holdout", "repeats": 2}, "rankers": ["uniform"]}
    for k, v in over.items():
        doc[k] = v
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


@pytest.mark.parametrize("over, words", [
    ({"protocol": {"type": "holdout", "repeats": 1000000000}}, ["protocol.repeats", "1..1000"]),
    ({"protocol": {"type": "cv", "folds": 100000}}, ["protocol.folds", "2..1000"]),
    ({"protocol": {"type": "holdout", "seed": -1}}, ["protocol.seed", "0..2**63-1"]),
    ({"protocol": {"type": "holdout", "folds": 5}}, ["protocol.folds", "does not apply",
                                                     "'holdout'"]),
    ({"protocol": {"type": "cv", "repeats": 5}}, ["protocol.repeats", "does not apply"]),
    ({"protocol": {"type": "holdout", "labeled": list(range(1, 200))}}, ["labeled", "at most"]),
    ({"evaluation": {"knn": 10**12}}, ["evaluation.knn"]),
    ({"name": "t\0x"}, ["NUL"]),
    ({"name": "x" * 300}, ["plain folder name"]),
    ({"rankers": [{"method": "relief", "params": {"neighbours": list(range(1, 101)),
                                                  "sigma": [i / 10 for i in range(101)]}}]},
     ["combinations"]),
])
def test_config_counts_and_keys_are_checked(tmp_path, synth, capsys, over, words):
    cfg = _exp(tmp_path, synth, **over)
    line = _one_error(capsys, main(["experiment", str(cfg), "--no-progress"]))
    for w in words:
        assert w in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, words", [
    ("name: a\nname: b\n", [":2:", "'name' appears twice", "line 1"]),
    ("name: x\nprotocol: {repeats: " + "9" * 5000 + "}\n", [":2:", "far too large"]),
    ('name: "t\\0x"\n', [":1:", "NUL"]),
    ("name: [\n", ["invalid YAML"]),
])
def test_yaml_traps_are_one_line(tmp_path, capsys, text, words):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    line = _one_error(capsys, main(["experiment", str(p)]))
    for w in words:
        assert w in line, line


def test_large_plan_starts_at_once_and_skips_correctly(tmp_path, synth, monkeypatch):
    """1000 repeats x 50 grid values = 50,000 runs: the dry run counts them without building
    them, and the runner checks the stored runs against the plan without walking it."""
    import time

    from frcli.experiment.config import load_config
    from frcli.experiment.plan import build_plan

    cfg = _exp(tmp_path, synth, protocol={"type": "holdout", "repeats": 1000},
               rankers=[{"method": "random", "params": {}},
                        {"method": "relief", "params": {"neighbours": list(range(1, 50))}}])
    c = load_config(cfg)
    t0 = time.perf_counter()
    plan = build_plan(c)
    assert plan.runs == 1000 * 50 and len(plan) == 2000
    first = next(iter(plan))
    assert time.perf_counter() - t0 < 5
    # the expected hash of a stored key equals the task's, and foreign keys are None
    key = first.run_keys()[0]
    assert plan.expected_hash(key) == first.hashes[0]
    assert plan.expected_hash(("m", 1000, 0, key[3], key[4])) is None
    assert plan.expected_hash(("other", 0, 0, key[3], key[4])) is None
    assert sum(1 for _ in plan.run_keys()) == plan.runs
