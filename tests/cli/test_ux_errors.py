"""What a user stumbles on: every bad input gives ONE line ``error: ...`` naming the file, line,
key or value, and exit code 2 (never a traceback); a bad experiment config leaves no store
behind; warnings are one ``warning: ...`` line; progress only on a terminal; a fast start."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from frcli.cli import main
from tests.helpers.tty import run_on_pty

REPO = Path(__file__).resolve().parents[2]
SYNTH_MTR = REPO / "datasets" / "synthetic" / "synth-mtr.arff"

HEAD = "@relation r\n@attribute a numeric\n@attribute b {x,y}\n@attribute t numeric\n"
FILES = {
    "ok.arff": HEAD + "@data\n1,x,2\n3,y,4\n5,x,6\n7,y,8\n",
    "ok.csv": "a,b,t\n1,x,3\n4,y,6\n",
    "empty.arff": "",
    "empty.csv": "",
    "nodata.arff": HEAD,
    "trunc.arff": HEAD + "@data\n1,x,2\n3,y\n",
    "badnom.arff": HEAD + "@data\n1,x,2\n3,z,4\n",
    "badnum.arff": HEAD + "@data\n1,x,2\nabc,y,4\n",
    "badtype.arff": "@relation r\n@attribute a foo\n@attribute t numeric\n@data\n1,2\n",
    "badhdr.arff": HEAD.replace("{x,y}", "{x,y") + "@data\n1,x,2\n",
    "badsparse.arff": HEAD + "@data\n{0 1, 2 3}\n{0 1, 7 3}\n",
    "badsparse2.arff": HEAD + "@data\n{0 1, 2 3}\n{0 1, x 3}\n",
    "dup.arff": "@relation r\n@attribute a numeric\n@attribute a numeric\n"
                "@attribute t numeric\n@data\n1,2,3\n",
    "ragged.csv": "a,b,t\n1,2,3\n4,5\n",
    "ragged2.csv": "a,b,t\n1,2,3\n4,5,6,7\n",
    "dupcol.csv": "a,a,t\n1,2,3\n4,5,6\n",
    "zerorows.arff": HEAD + "@data\n",
    "headeronly.csv": "a,b,t\n",
    "sparsedup.arff": HEAD + "@data\n{0 1, 2 3}\n{0 1, 0 2}\n",
    "inf.arff": HEAD + "@data\n1,x,2\n3,y,1e999\n",
    "nan.arff": HEAD + "@data\n1,x,2\nnan,y,1\n",
    "inf.csv": "a,b,t\n1,x,3\n4,y,-inf\n",
    "onlytarget.arff": "@relation r\n@attribute t numeric\n@data\n1\n2\n",
    "bad.xml": '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="t">\n',
    "unk.xml": '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="zz"/></labels>',
}


@pytest.fixture()
def files(tmp_path, monkeypatch):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "adir.arff").mkdir()
    (tmp_path / "cfgdir.yaml").mkdir()
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00name")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _one_error(capsys, rc, expected_rc=2):
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == expected_rc, err
    errors = [line for line in err if line.startswith("error: ")]
    assert len(errors) == 1 and errors == err[-1:], err
    assert "Traceback" not in "\n".join(err)
    return errors[0]


RANK = ["rank", "--method", "uniform"]

RANK_CASES = [
    (["missing.arff"], ["missing.arff", "no such file"]),
    (["adir.arff"], ["adir.arff", "directory"]),
    (["empty.arff", "--targets", "last:1"], ["empty.arff", "@data"]),
    (["empty.csv", "--targets", "t"], ["empty.csv", "header"]),
    (["nodata.arff", "--targets", "last:1"], ["nodata.arff", "@data"]),
    (["trunc.arff", "--targets", "last:1"], ["trunc.arff:7", "2 values"]),
    (["badnom.arff", "--targets", "last:1"], ["badnom.arff:7", "'z'", "allowed: x, y"]),
    (["badnum.arff", "--targets", "last:1"], ["badnum.arff:7", "'abc'"]),
    (["badtype.arff", "--targets", "last:1"], ["badtype.arff:2", "'foo'", "allowed"]),
    (["badhdr.arff", "--targets", "last:1"], ["badhdr.arff:3", "'b'"]),
    (["badsparse.arff", "--targets", "last:1"], ["badsparse.arff:7", "index 7"]),
    (["badsparse2.arff", "--targets", "last:1"], ["badsparse2.arff:7", "'x'"]),
    (["dup.arff", "--targets", "last:1"], ["dup.arff:3", "'a'", "twice"]),
    (["ragged.csv", "--targets", "t"], ["ragged.csv:3", "2 values"]),
    (["ragged2.csv", "--targets", "t"], ["ragged2.csv:3", "4 values"]),
    (["dupcol.csv", "--targets", "t"], ["dupcol.csv:1", "'a'"]),
    (["ok.csv", "--targets", "zz"], ["'zz'", "ok.csv"]),
    (["ok.arff", "--targets", "last:0"], ["last:0", "ok.arff"]),
    (["ok.arff", "--targets", "last:999"], ["last:999", "ok.arff"]),
    (["ok.arff", "--targets", "9-12"], ["out of range"]),
    (["ok.csv"], ["no targets", "--targets last:1", "CSV"]),   # an ARFF's last attribute
    (["ok.arff", "--labels", "missing.xml"], ["missing.xml", "not found"]),
    (["ok.arff", "--labels", "bad.xml"], ["bad.xml", "Mulan"]),
    (["ok.arff", "--labels", "unk.xml"], ["'zz'", "unk.xml"]),
    (["ok.arff", "--labels", "adir.arff"], ["adir.arff", "directory"]),  # was IsADirectoryError
    (["ok.arff", "--targets", "last:1", "--task", "foo"], ["'foo'", "allowed: classification"]),
    (["ok.arff", "--targets", "last:1", "--task", "mlc"], ["mlc", "binary"]),
    (["ok.arff", "--targets", "last:1", "--hierarchy", "x"], ["'x'", "tree, dag"]),
    (["ok.arff", "--targets", "last:1", "--nominal", "zz"], ["'zz'"]),
    (["ok.arff", "--targets", "last:1", "--jobs", "0"], ["--jobs"]),
    (["ok.arff", "--targets", "last:1", "--which", "3"], ["--which 3"]),
    (["ok.arff", "--targets", "last:1", "--format", "xml"], ["'xml'", "allowed: table"]),
    (["ok.arff", "--targets", "last:1", "--method", "nosuch"], ["'nosuch'", "allowed: uniform"]),
    (["ok.arff", "--targets", "last:1", "-p", "foo=1"], ["'foo'", "uniform"]),
    (["ok.arff", "--targets", "last:1", "-p", "seed"], ["key=value"]),
    # an unwritable or impossible --output was an internal error (exit 1)
    (["ok.arff", "--targets", "last:1", "-o", "ok.arff/nope/r.csv"], ["ok.arff/nope"]),
    (["ok.arff", "--targets", "last:1", "-o", "adir.arff", "-f", "csv"],
     ["adir.arff", "directory"]),
    (["ok.arff", "--targets", "last:1", "-o", "r.xlsx"], ["r.xlsx", "--format"]),
    (["nosuchname"], ["nosuchname", "catalog"]),
    # --plot and --stability: said before the ranking is computed
    (["ok.arff", "--plot", "ok.arff/nope/r.png"], ["ok.arff", "not a directory"]),
    (["ok.arff", "--plot", "r.jpg"], ["r.jpg", ".png"]),
    (["ok.arff", "--stability", "1"], ["--stability 1", "2..1000"]),
    (["ok.arff", "--stability", "3", "--resample", "cols"], ["'cols'", "rows, seeds"]),
    (["ok.arff", "--stability", "3", "-p", "trees=5,10"], ["one method"]),
    (["ok.arff", "--sort", "name"], ["'name'", "rank, columns"]),
    # were accepted silently (duplicate sparse entries, inf/nan parsed by Python's float) or
    # crashed an engine (zero rows: relief's ValueError), or gave 'need 1 <= N < 1'
    (["zerorows.arff", "--targets", "last:1", "--method", "relief"], ["zerorows.arff", "rows"]),
    (["headeronly.csv", "--targets", "t"], ["headeronly.csv", "rows"]),
    (["sparsedup.arff", "--targets", "last:1"], ["sparsedup.arff:7", "index 0 given twice"]),
    (["inf.arff", "--targets", "last:1"], ["inf.arff:7", "'1e999'", "finite"]),
    (["nan.arff", "--targets", "last:1"], ["nan.arff:7", "'nan'", "?"]),
    (["inf.csv", "--targets", "t"], ["inf.csv:3", "'-inf'"]),
    (["onlytarget.arff", "--targets", "last:1"], ["only 1 attribute"]),
    (["ok.arff", "--targets", "1-3"], ["no features left"]),
    ([], ["missing DATA"]),
    (["synth-mtr", "--targets", "nope"], ["'nope'"]),
]


@pytest.mark.parametrize("args, expected", RANK_CASES, ids=[" ".join(a) for a, _ in RANK_CASES])
def test_rank_bad_input_is_one_line_exit_2(files, capsys, args, expected):
    line = _one_error(capsys, main(RANK + args))
    for part in expected:
        assert part in line, line


DATASETS_CASES = [
    (["info", "missing.arff"], ["missing.arff", "not found"]),
    (["info", "adir.arff"], ["adir.arff", "directory"]),
    (["info", "nosuchset"], ["'nosuchset'", "datasets list"]),
    (["info", "trunc.arff", "--targets", "last:1"], ["trunc.arff:7"]),
    (["info", "ok.arff", "--labels", "adir.arff"], ["adir.arff", "directory"]),
    (["info", "synth-mtr", "--targets", "nope"], ["'nope'"]),
    (["list", "--group", "zz"], ["'zz'", "allowed"]),
    (["fetch"], ["--all"]),
    (["fetch", "nosuchset", "--mirror", "http://127.0.0.1:1"], ["'nosuchset'"]),
    (["fetch", "synth-mtr", "--mirror", "http://127.0.0.1:1"], ["make-synthetic"]),
    (["fetch", "atp1d", "--mirror", "notaurl", "--dest", "f"], ["'notaurl'", "URL"]),
    (["fetch", "atp1d", "--mirror", "http://127.0.0.1:1", "--dest", "f"], ["download failed"]),
    (["fetch", "atp1d", "--mirror", "http://127.0.0.1:1", "--dest", "ok.arff/nope"],
     ["ok.arff/nope"]),
    (["make-synthetic", "--output", "ok.arff/nope"], ["ok.arff/nope"]),
    (["make-synthetic", "--dest", "ok.arff"], ["ok.arff"]),
]


@pytest.mark.parametrize("args, expected", DATASETS_CASES,
                         ids=[" ".join(a) for a, _ in DATASETS_CASES])
def test_datasets_bad_input_is_one_line_exit_2(files, capsys, args, expected):
    line = _one_error(capsys, main(["datasets", *args]))
    for part in expected:
        assert part in line, line


def test_results_export_bad_input(files, capsys):
    (files / "garbage").mkdir()
    (files / "garbage" / "results.sqlite").write_text("not sqlite")
    (files / "foreign").mkdir()
    sqlite3.connect(files / "foreign" / "results.sqlite").execute("CREATE TABLE x (a)")
    for args, part in [(["missingdir"], "no such folder"), (["ok.arff"], "not a result folder"),
                       (["garbage"], "not a usable"), (["foreign"], "not a usable"),
                       (["garbage", "--format", "xls"], "allowed: csv, parquet")]:
        line = _one_error(capsys, main(["results", "export", *args]))
        assert part in line


USAGE_CASES = [  # typer >= 0.20 vendors click: these were "internal error: ..." with exit 1
    (["rank", "ok.arff", "--nosuch"], ["--nosuch", "frcli rank --help"]),
    (["rank", "ok.arff", "--seed", "abc"], ["--seed"]),
    (["experiment", "c.yaml", "--jobs", "0"], ["--jobs"]),
    (["nosuchcommand"], ["nosuchcommand"]),
    (["datasets", "nosuch"], ["nosuch"]),
    (["results", "export"], ["DIRECTORY"]),
]


@pytest.mark.parametrize("args, expected", USAGE_CASES, ids=[" ".join(a) for a, _ in USAGE_CASES])
def test_usage_errors_are_one_line_exit_2(files, capsys, args, expected):
    line = _one_error(capsys, main(args))
    for part in expected:
        assert part.lower() in line.lower(), line


def test_debug_works_after_the_command(files):
    with pytest.raises(Exception, match="unknown method 'zz'"):
        main(["rank", "ok.arff", "--targets", "last:1", "--method", "zz", "--debug"])


# -- experiment configs ----------------------------------------------------------------------

GOOD = {"name": "x", "output": "out", "datasets": ["synth-mtr"],
        "protocol": {"type": "holdout", "repeats": 2}, "rankers": ["uniform"],
        "evaluation": {"knn": 3}}


def _cfg(**change):
    doc = {**GOOD, **change}
    return {k: v for k, v in doc.items() if v is not None}


DS = {"name": "m", "path": str(SYNTH_MTR), "targets": "last:3"}
CONFIG_CASES = [
    ("top key", _cfg(bogus=1), ["'bogus'", "allowed: name"]),
    ("dataset key", _cfg(datasets=[{**DS, "colour": 1}]), ["datasets[0].colour", "allowed"]),
    ("protocol key", _cfg(protocol={"repeat": 2}), ["protocol.repeat", "repeats"]),
    ("ranker key", _cfg(rankers=[{"method": "uniform", "param": {}}]), ["rankers[0].param"]),
    ("evaluation key", _cfg(evaluation={"k": 3}), ["evaluation.k", "knn"]),
    ("datasets str", _cfg(datasets="synth-mtr"), ["'datasets'", "list"]),
    ("rankers str", _cfg(rankers="uniform"), ["'rankers'", "list"]),
    ("params str", _cfg(rankers=[{"method": "relief", "params": "k"}]), ["rankers[0].params"]),
    ("measures int", _cfg(evaluation={"measures": 5}), ["evaluation.measures"]),
    ("labeled str", _cfg(protocol={"labeled": "50"}), ["protocol.labeled"]),
    ("knn str", _cfg(evaluation={"knn": "five"}), ["evaluation.knn", "'five'"]),
    ("name int", _cfg(name=5), ["name = 5", "string"]),
    ("unknown dataset", _cfg(datasets=["nosuchset"]), ["datasets[0]", "'nosuchset'"]),
    ("unknown method", _cfg(rankers=["nosuch"]), ["rankers[0]", "'nosuch'", "uniform"]),
    ("unknown param", _cfg(rankers=[{"method": "random", "params": {"sed": 1}}]),
     ["rankers[0] (random)", "'sed'"]),
    ("bad param", _cfg(rankers=[{"method": "uniform"}, {"method": "relief",
                                                        "params": {"neighbours": [1, "a"]}}]),
     ["rankers[1] (relief)", "'neighbours'"]),
    ("unknown measure", _cfg(evaluation={"measures": ["rmsee"]}), ["'rmsee'", "rrmse"]),
    ("missing path", _cfg(datasets=[{**DS, "path": "nope.arff"}]),
     ["datasets[0] (m)", "nope.arff", "not found"]),
    ("bad targets", _cfg(datasets=[{**DS, "targets": "last:999"}]),
     ["datasets[0] (m)", "last:999"]),
    ("unknown target", _cfg(datasets=[{**DS, "targets": ["y1", "zz"]}]),
     ["datasets[0] (m)", "'y1'"]),
    ("task mismatch", _cfg(datasets=[{**DS, "task": "mlc"}]), ["datasets[0] (m)", "mlc"]),
    ("duplicate dataset", _cfg(datasets=["synth-mtr", "synth-mtr"]), ["twice"]),
]


@pytest.mark.parametrize("doc, expected", [(d, e) for _, d, e in CONFIG_CASES],
                         ids=[c[0] for c in CONFIG_CASES])
def test_bad_config_is_one_line_and_creates_no_store(files, capsys, doc, expected):
    import yaml

    (files / "c.yaml").write_text(yaml.safe_dump(doc))
    line = _one_error(capsys, main(["experiment", "c.yaml", "--no-progress"]))
    assert line.startswith("error: c.yaml") or "c.yaml" in line, line
    for part in expected:
        assert part in line, line
    assert not (files / "out").exists(), "an invalid config must not create a store"


@pytest.mark.parametrize("name, text, part", [
    ("missing.yaml", None, "not found"), ("cfgdir.yaml", None, "directory"),
    ("binary.yaml", None, "UTF-8"), ("blank.yaml", "", "empty"),
    ("broken.yaml", "name: a\ndatasets: [x\nrankers: [y]\n", "broken.yaml:3"),
    ("list.yaml", "- a\n- b\n", "mapping"),
])
def test_unreadable_config_files(files, capsys, name, text, part):
    if text is not None:
        (files / name).write_text(text)
    line = _one_error(capsys, main(["experiment", name]))
    assert name in line and part in line, line


def test_unwritable_output_is_a_user_error(files, capsys):
    import yaml

    (files / "c.yaml").write_text(yaml.safe_dump(_cfg(output="ok.arff/nope")))
    line = _one_error(capsys, main(["experiment", "c.yaml", "--no-progress"]))
    assert "ok.arff/nope" in line


def test_labeled_sizes_and_knn_larger_than_the_data_warn(files, capsys):
    import yaml

    ds = {"name": "o", "path": "ok.arff", "targets": "last:1"}
    (files / "c.yaml").write_text(yaml.safe_dump(_cfg(
        datasets=[ds], protocol={"repeats": 1, "labeled": [1, 50]}, evaluation={"knn": 9})))
    assert main(["experiment", "c.yaml", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "warning: c.yaml: protocol.labeled [50]" in err
    assert "warning: c.yaml: evaluation.knn = 9" in err


def test_results_export_to_a_bad_output(files, capsys):
    import yaml

    (files / "c.yaml").write_text(yaml.safe_dump(_cfg()))
    assert main(["experiment", "c.yaml", "--no-progress"]) == 0
    capsys.readouterr()
    for out, part in [("ok.arff/nope/x.csv", "ok.arff/nope"), (".", "directory")]:
        line = _one_error(capsys, main(["results", "export", "out/x", "-o", out]))
        assert part in line
    assert main(["results", "export", "out/x", "-o", "new/dir/x.csv"]) == 0
    assert (files / "new" / "dir" / "x.csv").read_text().startswith("dataset,")


def test_invalid_config_leaves_existing_store_untouched(files, capsys):
    """A finished store is not modified by a later invalid config; a valid rerun resumes."""
    import yaml

    (files / "c.yaml").write_text(yaml.safe_dump(_cfg()))
    assert main(["experiment", "c.yaml", "--no-progress"]) == 0
    db = files / "out" / "x" / "results.sqlite"
    before = db.read_bytes()
    (files / "c.yaml").write_text(yaml.safe_dump(_cfg(rankers=["uniform", {
        "method": "random", "params": {"sed": 1}}])))
    _one_error(capsys, main(["experiment", "c.yaml", "--no-progress"]))
    assert db.read_bytes() == before
    (files / "c.yaml").write_text(yaml.safe_dump(_cfg(rankers=["uniform", "random"])))
    capsys.readouterr()
    assert main(["experiment", "c.yaml", "--no-progress"]) == 0
    assert "2 computed, 2 already stored" in capsys.readouterr().out.replace("\n", " ")


def test_failed_tasks_keep_the_successful_runs(files, capsys, monkeypatch):
    """One failing task: a clear 'failed:' line, exit 1 for an internal error (2 for a user
    error), the other runs stored, and a rerun retries only the failed task."""
    import yaml

    from frcli.experiment import executor
    from frcli.errors import UserError

    real = executor._run_task
    mode = {"exc": RuntimeError("engine exploded")}

    def flaky(task, jobs, forests):
        if task.ranker.method == "random" and task.split == 1 and mode["exc"] is not None:
            raise mode["exc"]
        return real(task, jobs, forests)

    monkeypatch.setattr(executor, "_run_task", flaky)
    (files / "c.yaml").write_text(yaml.safe_dump(_cfg(rankers=["uniform", "random"])))
    rc = main(["experiment", "c.yaml", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "failed: synth-mtr split 1 random: RuntimeError: engine exploded" in err
    assert "1 of 4 task(s) failed" in err and "Traceback" not in err
    con = sqlite3.connect(files / "out" / "x" / "results.sqlite")
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 3
    con.close()
    mode["exc"] = UserError("bad data in split 1")
    assert main(["experiment", "c.yaml", "--no-progress"]) == 2
    assert "bad data in split 1" in capsys.readouterr().err
    mode["exc"] = None
    assert main(["experiment", "c.yaml", "--no-progress"]) == 0
    assert "1 computed, 3 already stored" in capsys.readouterr().out.replace("\n", " ")


# -- warnings, degenerate data ---------------------------------------------------------------

DEGENERATE = ("@relation r\n@attribute a numeric\n@attribute c numeric\n@attribute m numeric\n"
              "@attribute s string\n@attribute t numeric\n@data\n"
              "1,5,?,x,2\n3,5,?,y,4\n5,5,?,z,6\n7,5,?,w,8\n2,5,?,v,?\n4,5,?,u,3\n")
EMPTY_LABELS = ("@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute l1 {0,1}\n"
                "@attribute l2 {0,1}\n@data\n" + "".join(f"{i},{i % 3},0,0\n" for i in range(8)))


@pytest.mark.parametrize("method", ["uniform", "random"])
def test_constant_and_all_missing_columns_warn_in_one_line(files, capsys, method):
    (files / "d.arff").write_text(DEGENERATE)
    assert main(["rank", "d.arff", "--targets", "last:1", "--method", method,
                 "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    rows = out.strip().splitlines()[1:]
    assert [r.split(",")[0] for r in rows] == ["a", "c", "m"]
    assert all("nan" not in r.lower() for r in rows)
    lines = err.strip().splitlines()
    assert all(line.startswith("warning: ") for line in lines), lines
    assert any("no known value: m" in line for line in lines)
    assert any("string" in line for line in lines)
    assert any("--semi-supervised" in line for line in lines)   # not a non-existent --ssl


@pytest.mark.parametrize("method", ["relief", "genie3-rf"])
def test_engines_on_degenerate_columns_give_finite_importances(files, capsys, method, need):
    from frcli.rankers import registry

    if not registry.available(method):
        need.missing(f"the {method} engine", "its kernel is not built (make build)")
    (files / "d.arff").write_text(DEGENERATE)
    assert main(["rank", "d.arff", "--targets", "last:1", "--semi-supervised", "--method",
                 method, "--format", "csv", "-p", "trees=5" if method != "relief"
                 else "neighbours=2"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()[1:]
    imp = {r.split(",")[0]: float(r.split(",")[1]) for r in rows}
    assert all(v == v for v in imp.values()), imp          # no NaN
    assert imp["m"] == 0 and imp["c"] == 0                  # nothing to learn from them


def test_csv_nan_and_na_cells_are_missing(files, capsys):
    (files / "n.csv").write_text("a,b,t\n1,NaN,3\n4,NA,6\n5,2,7\n")
    assert main(["datasets", "info", "n.csv", "--targets", "t", "--json"]) == 0
    import json

    info = json.loads(capsys.readouterr().out)
    assert info["numeric_features"] == 2 and abs(info["missing_percent"] - 100 / 3) < 1e-2


def test_list_methods_needs_no_data_and_shows_parameter_help(capsys):
    assert main(["rank", "--list-methods"]) == 0
    out = capsys.readouterr().out
    assert "uniform" in out and "relief" in out and "neighbours=" in out


def test_all_empty_label_sets_warn(files, capsys):
    (files / "e.arff").write_text(EMPTY_LABELS)
    assert main(["rank", "e.arff", "--targets", "last:2", "--method", "uniform"]) == 0
    err = capsys.readouterr().err
    assert "warning: " in err and "every label set is empty" in err


# -- progress: a bar on a terminal, silence in a pipe ----------------------------------------

def _quick_config(tmp_path) -> Path:
    import yaml

    cfg = tmp_path / "q.yaml"
    cfg.write_text(yaml.safe_dump({**GOOD, "output": str(tmp_path / "out"),
                                   "rankers": ["uniform"]}))
    return cfg


def test_progress_bar_on_a_terminal_only(tmp_path):
    cfg = _quick_config(tmp_path)
    cmd = [sys.executable, "-m", "frcli.cli", "experiment", str(cfg), "--force"]
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    piped = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert piped.returncode == 0, piped.stderr
    assert "ETA" not in piped.stderr and "━" not in piped.stderr and "\x1b[" not in piped.stderr

    # stderr (the bar's stream) on a pseudo-terminal
    code, text = run_on_pty(cmd, env, timeout=60)
    assert code == 0, text
    assert "ETA" in text and "2/2" in text, text


# -- fast start ------------------------------------------------------------------------------

HEAVY = ("pandas", "matplotlib", "scipy", "sklearn", "dask", "pyarrow")


@pytest.mark.parametrize("argv", [
    ["--help"], ["rank", "--help"],
    ["rank", "{ok}", "--targets", "last:1", "--method", "uniform"],
    ["rank", "synth-mtr", "--method", "uniform", "--format", "csv"],
])
def test_help_and_rank_do_not_import_heavy_libraries(files, argv):
    argv = [a.replace("{ok}", str(files / "ok.arff")) for a in argv]
    code = textwrap.dedent(f"""
        import sys
        from frcli.cli import main
        rc = main({argv!r})
        heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))
        print('HEAVY=' + ','.join(heavy), 'RC=' + str(rc))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, timeout=60)
    assert "RC=0" in out.stdout, out.stderr
    assert "HEAVY= " in out.stdout, out.stdout[-300:]
