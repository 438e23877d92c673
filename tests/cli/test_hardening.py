"""Hardening, one regression test per case: no bad input, huge value, killed process or damaged
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


# -- §2/§3: data readers ------------------------------------------------------------------------

def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_long_csv_field_reads_and_runaway_quote_is_one_line(tmp_path, capsys, monkeypatch):
    p = _write(tmp_path, "long.csv", "a,b,t\n" + "x" * 140_000 + ",1,2\n1,2,3\n2,5,1\n")
    assert main(["rank", p, "--targets", "t", "--method", "random"]) == 0
    from frcli.data import csvio

    monkeypatch.setattr(csvio, "FIELD_LIMIT", 1000)
    line = _one_error(capsys, main(["rank", p, "--targets", "t", "--method", "random"]))
    assert "long.csv:2" in line and "field larger than field limit" in line


def test_all_unknown_target_is_one_clear_error(tmp_path, capsys):
    p = _write(tmp_path, "q.arff", "@relation r\n@attribute a numeric\n@attribute b numeric\n"
               "@attribute t numeric\n@data\n" + "".join(f"{i},{i % 3},?\n" for i in range(20)))
    for m in ("genie3-rf", "relief", "rf-rf", "genie3-rf-str", "relief-str"):
        line = _one_error(capsys, main(["rank", p, "--targets", "t", "--method", m]))
        assert "q.arff" in line and "no row has a known target" in line, line
    cfg = _write(tmp_path, "c.yaml", f"name: x\noutput: {tmp_path / 'o'}\ndatasets: [{{name: m, "
                 f"path: {p}, targets: t}}]\nprotocol: {{type: holdout, repeats: 2}}\n"
                 f"rankers: [genie3-rf, relief]\n")
    line = _one_error(capsys, main(["experiment", cfg]))
    assert "datasets[0]" in line and "no row has a known target" in line
    # semi-supervised Relief without a single label is URelief (spec-ssl-unsup §3.3)
    assert main(["rank", p, "--targets", "t", "--method", "relief", "--semi-supervised"]) == 0


ALLQ_FEATURE = ("@relation r\n@attribute a numeric\n@attribute q numeric\n@attribute n {x,y}\n"
                "@attribute t numeric\n@data\n" +
                "".join(f"{i},?,?,{2 * i + (i % 3)}\n" for i in range(30)))


@pytest.mark.parametrize("method", ["genie3-rf", "rf-rf", "symbolic-et", "relief"])
def test_all_unknown_feature_is_a_constant_feature_in_rank_and_experiment(
        tmp_path, capsys, method):
    """Importance 0, one warning naming the columns, no numpy warning; the same in an
    experiment (which used to fail in every task with a memoryview TypeError)."""
    import csv

    p = _write(tmp_path, "f.arff", ALLQ_FEATURE)
    out = tmp_path / "r.csv"
    assert main(["rank", p, "--targets", "t", "--method", method, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "no known value: q, n" in err, err
    rows = {r["feature"]: float(r["importance"]) for r in csv.DictReader(open(out))}
    assert rows["q"] == 0.0 and rows["n"] == 0.0 and rows["a"] > 0
    cfg = _write(tmp_path, "c.yaml", f"name: x\noutput: {tmp_path / 'o'}\ndatasets: [{{name: m, "
                 f"path: {p}, targets: t}}]\nprotocol: {{type: holdout, repeats: 2}}\n"
                 f"rankers: [{method}]\n")
    assert main(["experiment", cfg, "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "Mean of empty" not in err, err


def test_text_in_a_numeric_csv_column_is_named(tmp_path, capsys):
    """In a target, one text value among numbers is a typo: an error naming the line and the
    value (read as nominal it would turn a regression into a many-class problem)."""
    p = _write(tmp_path, "m.csv", "a,b,t\n" + "".join(f"{i},{i % 3},{i * 1.5}\n"
                                                     for i in range(10)) + "11,1,high\n")
    assert main(["rank", p, "--targets", "t", "--method", "random"]) == 2
    err = capsys.readouterr().err
    assert "m.csv:12" in err and "'t'" in err and "'high'" in err and "nominal" in err
    assert main(["rank", p, "--targets", "t", "--method", "random", "--nominal", "t"]) == 0
    assert "warning" not in capsys.readouterr().err


MULAN = ("@relation r\n@attribute a numeric\n@attribute l1 numeric\n@attribute l2 {0,1}\n"
         "@attribute l3 {a,b,c}\n@data\n")


def test_mulan_labels_must_be_binary(tmp_path, capsys):
    xml = _write(tmp_path, "l.xml", '<labels xmlns="http://mulan.sourceforge.net/labels">'
                 '<label name="l1"/><label name="l2"/></labels>')
    xml3 = _write(tmp_path, "l3.xml", '<labels xmlns="http://mulan.sourceforge.net/labels">'
                  '<label name="l2"/><label name="l3"/></labels>')
    ok = _write(tmp_path, "ok.arff", MULAN + "".join(f"{i},{i % 2},{(i // 2) % 2},a\n"
                                                     for i in range(10)))
    bad = _write(tmp_path, "bad.arff", MULAN + "".join(f"{i},{i * 0.7},{(i // 2) % 2},b\n"
                                                       for i in range(10)))
    from frcli.data import load_dataset

    assert load_dataset(ok, labels=xml).task == "mlc"       # numeric 0/1 labels are labels
    line = _one_error(capsys, main(["rank", bad, "--labels", xml, "--method", "random"]))
    assert "bad.arff:8" in line and "'l1'" in line and "0.7" in line and "binary" in line
    line = _one_error(capsys, main(["rank", ok, "--labels", xml3, "--method", "random"]))
    assert "'l3'" in line and "nominal with 3 values" in line


def test_hierarchical_feature_values_must_be_declared(tmp_path, capsys):
    p = _write(tmp_path, "h.arff", "@relation r\n@attribute h hierarchical a,b,a/c\n"
               "@attribute a numeric\n@attribute t numeric\n@data\n" +
               "".join(f"a/c,{i},{i}\n" for i in range(5)) + "3.5,1,2\n")
    line = _one_error(capsys, main(["rank", p, "--targets", "t", "--method", "random"]))
    assert "h.arff:11" in line and "'3.5'" in line


# -- §3: huge values, degenerate rankings, JSON --------------------------------------------------

def _regression(tmp_path, name, fx=1.0, ft=1.0, n=80, classes=False):
    """A CSV with 4 features (a planted in a and b, a scaled to at most ``fx``) and a target
    t: numeric scaled to at most ``ft``, or with ``classes`` "p"/"q"."""
    import numpy as np

    rng = np.random.default_rng(1 if classes else 0)
    X = rng.normal(size=(n, 4))
    if classes:
        y = np.where(2 * X[:, 0] + X[:, 1] > 0, "p", "q")
    else:
        y = 3 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=n)
        y = y / np.abs(y).max() * ft
    X[:, 0] = X[:, 0] / np.abs(X[:, 0]).max() * fx
    p = tmp_path / name
    with open(p, "w") as fh:
        fh.write("a,b,c,d,t\n")
        for r, t in zip(X, y):
            fh.write(",".join(repr(float(v)) for v in r) + f",{t if classes else repr(float(t))}\n")
    return str(p)


MAXF = 1.7976931348623157e308


@pytest.mark.parametrize("method", ["genie3-rf", "symbolic-et", "rf-bagging", "relief"])
def test_huge_finite_values_rank_as_their_scaled_copy(tmp_path, method):
    """Targets near 1e300 and a feature spanning ±1.7e308 give the ranking of the same data
    divided by an exact power of two (they used to give all zeros)."""
    import numpy as np

    from frcli.api import rank_all

    def imp(path):
        return rank_all(path, method, targets="t", seed=3)[0].importances

    small = imp(_regression(tmp_path, "s.csv", fx=MAXF / 2.0**1000, ft=MAXF / 2.0**1000))
    huge = imp(_regression(tmp_path, "h.csv", fx=MAXF, ft=MAXF))
    assert np.all(np.isfinite(huge)) and huge[0] > 0
    np.testing.assert_array_equal(huge, small)
    tiny = imp(_regression(tmp_path, "t.csv", ft=2.0**-40))
    unit = imp(_regression(tmp_path, "u.csv", ft=1.0))
    np.testing.assert_array_equal(tiny, unit)


def test_huge_values_give_finite_scores_in_an_experiment(tmp_path, capsys):
    import yaml

    p = _regression(tmp_path, "h.csv", fx=MAXF, ft=1e300)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({
        "name": "x", "output": str(tmp_path / "o"),
        "datasets": [{"name": "h", "path": p, "targets": "t"}],
        "protocol": {"type": "holdout", "repeats": 2},
        "rankers": ["uniform", "relief", "genie3-rf"]}))
    assert main(["experiment", str(cfg), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["results", "export", str(tmp_path / "o" / "x")]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    values = [float(line.split(",")[-3]) for line in lines]
    assert len(values) == 6 and all(0 < v < 10 for v in values), lines


@pytest.mark.parametrize("text, method, why", [
    ("a,b,t\n1,2,3\n4,5,6\n", "genie3-rf", "only 2 row(s)"),
    ("a,b,t\n1,2,3\n4,5,6\n", "relief", "every feature got importance 1"),
    ("a,b,t\n1,2,3\n4,5,6\n2,2,1\n", "relief", "only 3 row(s)"),
    ("a,b,t\n" + "1,2,3\n" * 20, "genie3-rf", "every feature is constant"),
    ("a,b,t\n" + "".join(f"1,2,{i}\n" for i in range(20)), "relief", "every feature is constant"),
    ("a,b,t\n" + "".join(f"{i},{i % 3},5\n" for i in range(20)), "relief",
     "the targets are constant"),
    ("a,b,t\n" + "".join(f"{i},{i % 3},5\n" for i in range(20)), "rf-rf",
     "the targets are constant"),
])
def test_degenerate_rankings_warn_once_saying_why(tmp_path, capsys, text, method, why):
    p = _write(tmp_path, "d.csv", text)
    assert main(["rank", p, "--targets", "t", "--method", method]) == 0
    warns = [w for w in capsys.readouterr().err.splitlines() if w.startswith("warning:")]
    assert len(warns) == 1 and "degenerate ranking" in warns[0] and why in warns[0], warns


def test_no_degenerate_warning_on_ordinary_data_or_baselines(tmp_path, capsys):
    p = _regression(tmp_path, "n.csv")
    for m in ("genie3-rf", "relief", "uniform", "random"):
        assert main(["rank", p, "--targets", "t", "--method", m]) == 0
        assert "warning" not in capsys.readouterr().err


def test_stats_json_is_json_and_missing_values_are_reported(tmp_path, capsys):
    rows = ["dataset,method,split,rrmse"]
    for d in ("d1", "d2", "d3"):
        for s in (0, 1):
            rows += [f"{d},a,{s},0.5", f"{d},b,{s},0.7"]
    rows[-1] = "d3,b,1,nan"
    p = _write(tmp_path, "s.csv", "\n".join(rows) + "\n")
    assert main(["stats", p, "--json"]) == 0
    out, err = capsys.readouterr()
    json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON token {c}"))
    assert "s.csv" in err and "1 missing value" in err and "d3" in err
    bad = _write(tmp_path, "i.csv", "\n".join(rows[:-1] + ["d3,b,1,inf"]) + "\n")
    line = _one_error(capsys, main(["stats", bad]))
    assert "i.csv:13" in line and "not finite" in line
    from frcli.jsonio import dumps

    assert dumps({"a": float("inf"), "b": [float("nan"), 1.0]}) == '{"a": null, "b": [null, 1.0]}'


# -- the rankers added since (ReliefE, MultiSURF, mutual information) --------------------------

def _classes(tmp_path, name, fx=1.0, n=60):
    """``_regression``'s data with a class target ("p"/"q")."""
    return _regression(tmp_path, name, fx=fx, n=n, classes=True)


NEW_RANKERS = [("reliefe", {"embed": "none", "neighbours": 5}), ("multisurf", {}),
               ("multisurf-star", {}), ("mutual-info", {})]


@pytest.mark.parametrize("method, params", NEW_RANKERS)
def test_new_rankers_rank_huge_features_as_their_scaled_copy(tmp_path, capsys, method, params):
    """A feature spanning ±1.7e308 (its range and mean overflow) ranks as the same data
    divided by a power of two, with no numpy overflow warning (it used to get 0)."""
    import warnings

    import numpy as np

    pytest.importorskip("sklearn")
    from frcli.api import rank_all

    def imp(path):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            return rank_all(path, method, targets="t", seed=3, **params)[0].importances

    small = imp(_classes(tmp_path, "s.csv", fx=MAXF / 2.0**1000))
    huge = imp(_classes(tmp_path, "h.csv", fx=MAXF))
    assert np.all(np.isfinite(huge)) and huge[0] != 0
    np.testing.assert_array_equal(huge, small)


@pytest.mark.parametrize("args, words", [
    (["--method", "reliefe", "-p", "neighbours=1000000000000"], ["neighbours", "1..100000"]),
    (["--method", "mutual-info", "-p", "neighbours=100000000000"], ["neighbours", "1..100000"]),
])
def test_new_rankers_counts_are_bounded(tmp_path, capsys, args, words):
    p = _classes(tmp_path, "c.csv")
    line = _one_error(capsys, main(["rank", p, "--targets", "t", *args]))
    for w in words:
        assert w in line, line


def test_reliefe_memory_is_estimated(tmp_path, capsys, monkeypatch):
    from frcli.engines import memory

    monkeypatch.setattr(memory, "machine_memory", lambda: (1 << 20, 1 << 20))
    p = _classes(tmp_path, "c.csv", n=2000)
    line = _one_error(capsys, main(["rank", p, "--targets", "t", "--method", "reliefe",
                                    "-p", "embed=none", "-p", "neighbours=2000"]))
    assert "needs ≈" in line and "neighbours=2000" in line and "the machine has" in line


@pytest.mark.parametrize("text", ["a,b,t\n1,2,p\n4,5,q\n", "a,b,t\n1,2,3\n4,5,6\n"])
def test_mutual_info_on_two_rows_or_many_neighbours(tmp_path, capsys, text):
    """scikit-learn's estimators refuse k >= the rows (a traceback): 2 rows give a degenerate
    warning; k beyond the rows takes every other row."""
    pytest.importorskip("sklearn")
    p = _write(tmp_path, "m.csv", text)
    assert main(["rank", p, "--targets", "t", "--method", "mutual-info"]) == 0
    warns = [w for w in capsys.readouterr().err.splitlines() if w.startswith("warning:")]
    assert len(warns) == 1 and "only 2 row(s)" in warns[0], warns
    p = _regression(tmp_path, "r.csv", n=30)
    assert main(["rank", p, "--targets", "t", "--method", "mutual-info",
                 "-p", "neighbours=500"]) == 0


# -- frcli tree: trees as deep as the data set has rows ------------------------------------------

def _chain(n):
    """A fitted-forest stand-in holding one chain tree over x = 0..n-1: internal node 2j tests
    x > n-2-j, its "yes" (right) child 2j+1 is the leaf of row n-1-j, its "no" child the next
    test (depth n-1: far beyond Python's recursion limit)."""
    import numpy as np

    nodes = 2 * n - 1
    t = {"feature": np.full(nodes, -1, np.int32), "threshold": np.zeros(nodes),
         "left": np.full(nodes, -1, np.int32), "right": np.full(nodes, -1, np.int32),
         "weight": np.zeros(nodes), "depth": np.zeros(nodes, np.int32),
         "hstar": np.zeros(nodes), "p_left": np.zeros(nodes),
         "offset": np.zeros(nodes, np.int64), "cats": np.zeros(0, np.uint8)}
    for j in range(n - 1):
        i = 2 * j
        t["feature"][i], t["threshold"][i] = 0, n - 2 - j
        t["right"][i], t["left"][i] = i + 1, i + 2
        t["weight"][i], t["p_left"][i] = n - j, (n - j - 1) / (n - j)
        t["depth"][i] = t["depth"][i + 1] = j
        t["weight"][i + 1] = 1.0
    t["depth"][nodes - 1], t["weight"][nodes - 1] = n - 1, 1.0

    from types import SimpleNamespace

    class Model:               # a tree's arrays as attributes, as ``_tree.Tree`` holds them
        trees_ = [SimpleNamespace(**t)]
    return Model()


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_tree_deeper_than_the_recursion_limit_is_printed(tmp_path, capsys, monkeypatch, fmt):
    """A chain of one-row splits (e.g. a one-hot target per row) used to end in
    'internal error: RecursionError'; traversal, text and JSON now use explicit stacks."""
    import frcli.engines.pct.view as pv

    n = 3000
    p = _write(tmp_path, "c.csv", "x,t\n" + "".join(f"{i},{i * i}\n" for i in range(n)))
    monkeypatch.setattr(pv, "grow_tree", lambda ds, **kw: (_chain(n), ds))
    assert main(["tree", p, "--targets", "t", "--format", fmt]) == 0
    out, err = capsys.readouterr()
    assert f"{2 * n - 1} nodes, {n} leaves, depth {n}" in err, err
    if fmt == "json":                  # Python's own parser needs a higher limit to read it
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(4 * n)
        try:
            doc = json.loads(out)
        finally:
            sys.setrecursionlimit(old)
        assert doc["size"] == {"nodes": 2 * n - 1, "leaves": n, "depth": n}
        assert doc["tree"]["yes"]["prototype"] == [float((n - 1) ** 2)]
    else:
        lines = out.splitlines()
        assert len(lines) == 2 * n - 1 and lines[0] == f"x > {n - 2}.0", lines[:2]
        assert lines[-1].strip() == "+--no:  [0]: 1"


def test_jsonio_equals_json_dumps_with_nulls():
    import math

    pytest.importorskip("hypothesis")     # CI's plain environment has no extras
    from hypothesis import given, settings, strategies as st

    from frcli.jsonio import dumps

    def fin(o):
        if isinstance(o, float):
            return o if math.isfinite(o) else None
        if isinstance(o, dict):
            return {k: fin(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [fin(v) for v in o]
        return o

    values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                          lambda c: st.lists(c) | st.tuples(c) | st.dictionaries(
                              st.text() | st.integers(), c), max_leaves=20)

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(values, st.sampled_from([None, 0, 1, 2]))
    def check(obj, indent):
        assert dumps(obj, indent=indent) == json.dumps(fin(obj), indent=indent)

    check()


def test_mutual_info_gives_constant_features_and_targets_zero(tmp_path):
    """scikit-learn's estimator jitters every continuous column, so a constant feature got
    1e-16 (ranked above an informative-but-zero one) and identical rows got 0.1; they get 0
    like an all-? feature does."""
    import numpy as np

    pytest.importorskip("sklearn")
    from frcli.api import rank_all

    rng = np.random.default_rng(4)
    rows = "".join(f"1,{a},{b},{b + 0.1 * c}\n" for a, b, c in rng.normal(size=(40, 3)))
    p = _write(tmp_path, "c.csv", "k,a,b,t\n" + rows)
    imp = rank_all(p, "mutual-info", targets="t", seed=1)[0].importances
    assert imp[0] == 0.0 and imp[2] > 0.1, imp
    p = _write(tmp_path, "i.csv", "k,a,t\n" + "1,2,3\n" * 8)
    with pytest.warns(UserWarning, match="degenerate"):
        imp = rank_all(p, "mutual-info", targets="t", seed=1)[0].importances
    assert not imp.any(), imp


@pytest.mark.parametrize("text", [
    "a,b,c,t\nx,x,0.5,1\n2,y,0.1,2\n3,z,0.9,3\n4,x,0.5,4\n5,y,,5\n6,z,0.3,6\n7,x,0.8,7\n",
    "a,b,t\n1,2,p\n2,3,q\n3,1,r\n4,4,s\n"])
def test_mutual_info_on_categories_seen_once(tmp_path, capsys, text):
    """A nominal feature (regression) or a class (classification) whose every category occurs
    once left scikit-learn's estimator no rows ('Found array with 0 sample(s)', a traceback
    found by the fuzz suite's slow profile): such a pair scores 0."""
    pytest.importorskip("sklearn")
    p = _write(tmp_path, "m.csv", text)
    assert main(["rank", p, "--targets", "t", "--method", "mutual-info"]) == 0
    assert "error" not in capsys.readouterr().err


# -- relational folders (frcli.data.relational's readers) ---------------------------------

_SCHEMA = ("target: {table: movies, column: genre}\ntables:\n  movies: {key: id}\n"
           "  ratings: {key: [user, movie], foreign_keys: {user: users, movie: movies}}\n"
           "  users: {key: id}\n")


@pytest.mark.parametrize("schema, movies, words", [
    (_SCHEMA, "id,genre\n", ["schema.yaml", "movies.genre has no known value"]),
    (_SCHEMA.replace("tables:\n", ""), "id,genre\na,x\nb,y\n", ["schema.yaml:2: invalid YAML"]),
    (_SCHEMA + "target: {table: movies, column: id}\n", "id,genre\na,x\nb,y\n",
     ["schema.yaml:6: key 'target' appears twice"]),
])
def test_relational_schema_errors_are_one_line(tmp_path, capsys, schema, movies, words):
    """Found by the fuzz suite: a table with a header and no rows gave a KeyError traceback;
    PyYAML's several-line messages and duplicate keys now go through the strict loader."""
    f = tmp_path / "rel"
    f.mkdir()
    (f / "schema.yaml").write_text(schema)
    (f / "movies.csv").write_text(movies)
    (f / "ratings.csv").write_text("user,movie,stars\nana,a,8\nbob,b,3\n")
    (f / "users.csv").write_text("id,age\nana,20\nbob,30\n")
    line = _one_error(capsys, main(["rank", str(f), "--method", "genie3-tree"]))
    for w in words:
        assert w in line, line


@pytest.mark.parametrize("users", ["id,age\nana,\nbob,\n", "id,\n"])
def test_relational_column_without_known_values_is_an_empty_relation(tmp_path, capsys, users):
    """Found by the fuzz suite's slow profile: a feature column with no known value (or an
    unnamed empty one) gave 'KeyError: numeric:users.age'; it is a relation with no facts."""
    f = tmp_path / "rel"
    f.mkdir()
    (f / "schema.yaml").write_text(_SCHEMA)
    (f / "movies.csv").write_text("id,genre\na,x\nb,y\nc,x\nd,y\n")
    (f / "ratings.csv").write_text("user,movie,stars\nana,a,8\nbob,b,3\nana,c,9\nbob,d,2\n")
    (f / "users.csv").write_text(users)
    assert main(["rank", str(f), "--method", "genie3-tree", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("feature,importance,rank") and "ratings.stars" in out, out
