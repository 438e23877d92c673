"""A user's own data: identifier columns left out (``--keep``), ``--drop``, nominal features
of very many categories, a typo in a numeric target, and the default method; each through the
command line and the Python API. Runs in the plain-install environment too (Makefile
PLAIN_TESTS)."""
from __future__ import annotations

import csv
import io
import json
import re
import warnings

import numpy as np
import pytest

import frcli
from frcli.cli import main
from frcli.data.load import load_dataset
from frcli.data.screen import MIN_ROWS, high_cardinality, id_like_name, identifiers
from frcli.errors import ConfigError, DataError, Notice, UserError
from frcli.rankers.registry import DEFAULT_METHOD

N = 300


def _csv(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                      for r in rows))
    return path


@pytest.fixture()
def ids(tmp_path):
    """The issue's case: a sample_id (unique strings) beside a real driver of y, plus the
    columns a rule must not mistake for identifiers: distinct floats (a measurement),
    consecutive integers without an identifier's name (a time step), and a sparse integer
    key named as one."""
    rng = np.random.default_rng(3)
    drv = rng.normal(size=N)
    y = 2 * drv + 0.3 * rng.normal(size=N)
    keys = rng.choice(np.arange(10_000, 99_999), size=N, replace=False)
    rows = [(f"S{rng.integers(10**6):06d}-{i}", keys[i], i, f"{drv[i]:.6f}",
             f"{rng.normal():.6f}", f"{y[i]:.4f}") for i in range(N)]
    return _csv(tmp_path / "ids.csv", ["sample_id", "patient_no", "step", "driver", "noise",
                                      "y"], rows)


def _features(capsys) -> list[str]:
    out = capsys.readouterr().out
    return [r["feature"] for r in csv.DictReader(io.StringIO(out))]


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("note:")]


# -- identifiers ------------------------------------------------------------------------------
def test_identifiers_are_left_out_with_one_note(ids, capsys):
    assert main(["rank", str(ids), "--targets", "y", "-m", "uniform", "-f", "csv"]) == 0
    out, err = capsys.readouterr()
    feats = [r["feature"] for r in csv.DictReader(io.StringIO(out))]
    assert feats == ["step", "driver", "noise"]
    notes = _notes(err)
    assert len(notes) == 1 and "warning" not in err, err
    assert "'sample_id'" in notes[0] and "'patient_no'" in notes[0] and "--keep" in notes[0]
    assert str(ids) in notes[0]


def test_keep_keeps_an_identifier(ids, capsys):
    assert main(["rank", str(ids), "--targets", "y", "-m", "uniform", "-f", "csv",
                 "--keep", "sample_id"]) == 0
    out, err = capsys.readouterr()
    assert [r["feature"] for r in csv.DictReader(io.StringIO(out))] == [
        "sample_id", "step", "driver", "noise"]
    notes = _notes(err)
    assert len(notes) == 1 and "'patient_no'" in notes[0] and "sample_id" not in notes[0]
    # a kept identifier is not flagged as a many-category feature either
    assert "categories" not in err


def test_an_identifier_would_win_the_ranking(ids, capsys):
    """Why the rule exists: kept, the identifier outranks the real driver."""
    assert main(["rank", str(ids), "--targets", "y", "-f", "csv", "-p", "trees=20",
                 "--keep", "sample_id"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    top = min(rows, key=lambda r: int(r["rank"]))["feature"]
    assert top == "sample_id"
    assert main(["rank", str(ids), "--targets", "y", "-f", "csv", "-p", "trees=20"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert min(rows, key=lambda r: int(r["rank"]))["feature"] == "driver"


def test_small_files_keep_their_features(tmp_path, capsys):
    rows = [(f"s{i}", f"c{i}", i, i * 0.5) for i in range(MIN_ROWS - 1)]
    p = _csv(tmp_path / "small.csv", ["name", "colour", "id", "y"], rows)
    assert main(["rank", str(p), "--targets", "y", "-m", "uniform", "-f", "csv"]) == 0
    out, err = capsys.readouterr()
    assert [r["feature"] for r in csv.DictReader(io.StringIO(out))] == ["name", "colour", "id"]
    assert err == ""


def test_targets_are_never_screened(tmp_path, capsys):
    rows = [(f"{i * 0.1:.1f}", 1000 + 7 * i) for i in range(40)]
    p = _csv(tmp_path / "t.csv", ["x", "record_id"], rows)
    assert main(["rank", str(p), "--targets", "record_id", "-m", "uniform", "-f", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["features"][0]["feature"] == "x" and "note" not in err


def test_missing_values_and_repeats_are_not_identifiers():
    from frcli.data.dataset import Attribute, Dataset

    n = 40
    cats = tuple(f"u{i}" for i in range(n))
    X = np.column_stack([np.arange(n), np.r_[np.arange(n - 1), 0], np.arange(n) + 0.5,
                         np.r_[np.arange(n - 1), np.nan], np.arange(n) * 3.0])
    ds = Dataset("d", X, [Attribute("u", "nominal", cats), Attribute("id", "numeric"),
                          Attribute("row_id", "numeric"), Attribute("key", "numeric"),
                          Attribute("SampleID", "numeric")], "unsupervised")
    # a repeat, a fraction, a missing value: none is an identifier; SampleID is
    assert identifiers(ds) == {"u": f"a distinct value in each of its {n} rows",
                               "SampleID": f"a distinct integer in each of its {n} rows"}


@pytest.mark.parametrize("name, expected", [
    ("id", True), ("ID", True), ("sample_id", True), ("SampleID", True), ("patient no", True),
    ("serial_number", True), ("row", True), ("RowIndex", True), ("idea", False),
    ("paid", False), ("width", False), ("key_size", False), ("n_rows", False)])
def test_identifier_names(name, expected):
    assert id_like_name(name) is expected


def test_a_measurement_with_a_typo_is_not_an_identifier(tmp_path, capsys):
    """Distinct floats made nominal by one stray value keep today's warning only: not an
    identifier, not a many-category feature."""
    rng = np.random.default_rng(0)
    rows = [(f"{v:.5f}" if i != 7 else "1.2.3", f"{rng.normal():.3f}")
            for i, v in enumerate(rng.normal(size=60))]
    p = _csv(tmp_path / "f.csv", ["a", "y"], rows)
    assert main(["rank", str(p), "--targets", "y", "-m", "uniform", "-f", "csv"]) == 0
    out, err = capsys.readouterr()
    assert [r["feature"] for r in csv.DictReader(io.StringIO(out))] == ["a"]
    assert err.count("warning:") == 1 and "f.csv:9" in err and "'1.2.3'" in err, err
    assert "note" not in err


# -- --drop and --keep ------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["rank", "-m", "uniform", "-f", "csv"],
                                     ["tree", "-f", "json"], ["datasets", "info", "--json"]])
def test_drop_on_every_data_command(ids, capsys, command):
    args = command[:1] + ([command[1]] if command[0] == "datasets" else []) + [str(ids)] + \
        (command[2:] if command[0] == "datasets" else command[1:])
    assert main(args + ["--targets", "y", "--drop", "noise,step"]) == 0
    out = capsys.readouterr().out
    if command[0] == "rank":
        assert [r["feature"] for r in csv.DictReader(io.StringIO(out))] == ["driver"]
    else:
        assert json.loads(out)["features"] == 1


@pytest.mark.parametrize("option, value, hint", [
    ("--drop", "nosie", "did you mean 'noise'"), ("--keep", "sampleid", "'sample_id'"),
    ("--drop", "zzz", "the columns are 'sample_id', 'patient_no'")])
@pytest.mark.parametrize("command", ["rank", "tree", "info"])
def test_unknown_columns_are_one_line_and_exit_2(ids, capsys, option, value, hint, command):
    args = (["datasets", "info"] if command == "info" else [command]) + [str(ids), "-t", "y"]
    assert main(args + [option, value]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"error: {option}: no attribute named")
    assert str(ids) in err and hint in err


def test_drop_and_keep_the_same_column_or_a_target(ids, capsys):
    assert main(["rank", str(ids), "-t", "y", "--drop", "step", "--keep", "step"]) == 2
    assert "both --drop and --keep" in capsys.readouterr().err
    assert main(["rank", str(ids), "-t", "y", "--drop", "y"]) == 2
    assert "'y' cannot be both a target and dropped" in capsys.readouterr().err


def test_drop_adds_to_a_catalog_entry(capsys):
    assert main(["rank", "synth-mtr", "-m", "uniform", "-f", "csv", "--drop", "f01,f12"]) == 0
    feats = _features(capsys)
    assert len(feats) == 10 and "f01" not in feats and "f12" not in feats
    assert main(["rank", "synth-mtr", "--drop", "f13"]) == 2
    assert "no attribute named 'f13'" in capsys.readouterr().err


def test_datasets_info_says_what_was_left_out(ids, capsys):
    assert main(["datasets", "info", str(ids), "-t", "y"]) == 0
    out, err = capsys.readouterr()
    assert re.search(r"features\s+3 \(3 numeric, 0 nominal\)", out), out
    assert len(_notes(err)) == 1 and "'sample_id', 'patient_no'" in err
    assert main(["datasets", "info", str(ids), "-t", "y", "--keep", "sample_id,patient_no"]) == 0
    out, err = capsys.readouterr()
    assert re.search(r"features\s+5 \(4 numeric, 1 nominal\)", out) and "note" not in err


def test_given_split_is_screened_once_on_all_rows(tmp_path, monkeypatch, capsys):
    """Train and test files of a catalog entry keep the same features, even when the rule
    could only tell on one of them (a test file of fewer than MIN_ROWS rows)."""
    from frcli.data import catalog as C

    names = [f"tr{i}" for i in range(60)] + [f"te{i}" for i in range(8)]
    head = f"@relation d\n@attribute name {{{','.join(names)}}}\n@attribute x numeric\n" \
           "@attribute y numeric\n@data\n"
    for part, rows in (("tr", names[:60]), ("te", names[60:])):
        (tmp_path / f"{part}.arff").write_text(head + "".join(f"{nm},{i % 5},{i % 2}\n"
                                                              for i, nm in enumerate(rows)))
    cat = tmp_path / "configs" / "datasets.yaml"
    cat.parent.mkdir()
    cat.write_text(f"roots: [{tmp_path}]\ndatasets:\n  d:\n    group: mcc\n    task: regression"
                   "\n    train: tr.arff\n    test: te.arff\n    targets: y\n"
                   "    split: {kind: given}\n")
    monkeypatch.setenv("FRCLI_CATALOG", str(cat))
    with pytest.warns(Notice, match="data set 'd': column 'name' is an identifier"):
        ds, splits = C.load_with_splits("d")
    assert ds.feature_names == ["x"] and len(splits[0][1]) == 8
    assert main(["datasets", "info", "d"]) == 0
    assert len(_notes(capsys.readouterr().err)) == 1


# -- many categories --------------------------------------------------------------------------
def test_many_categories_are_flagged_not_dropped(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = [(f"city{rng.integers(40)}", f"k{i % 4}", f"{rng.normal():.3f}") for i in range(60)]
    p = _csv(tmp_path / "c.csv", ["city", "kind", "y"], rows)
    assert main(["rank", str(p), "-t", "y", "-m", "uniform", "-f", "csv"]) == 0
    out, err = capsys.readouterr()
    assert [r["feature"] for r in csv.DictReader(io.StringIO(out))] == ["city", "kind"]
    lines = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(lines) == 1 and "'city'" in lines[0] and "in 60 rows" in lines[0]
    assert "impurity-based" in lines[0] and "--drop city" in lines[0] and "kind" not in lines[0]
    assert main(["rank", str(p), "-t", "y", "-m", "uniform", "--drop", "city"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_many_categories_counts_rows_with_a_value():
    from frcli.data.dataset import Attribute, Dataset

    col = np.full(100, np.nan)
    col[:30] = np.arange(30) % 20             # 20 categories in the 30 rows that have one
    ds = Dataset("d", col[:, None], [Attribute("c", "nominal", tuple(map(str, range(20))))],
                 "unsupervised")
    assert high_cardinality(ds) == {"c": (20, 30)}


# -- a typo in a numeric target ---------------------------------------------------------------
@pytest.mark.parametrize("token", ["n/a", "?x", "1.2.3"])
def test_a_typo_in_a_numeric_target_is_an_error(tmp_path, capsys, token):
    rows = [(i, f"{i * 0.37:.2f}" if i != 17 else token) for i in range(49)]
    p = _csv(tmp_path / "t.csv", ["x", "y"], rows)
    assert main(["rank", str(p), "--targets", "y"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {p}:19: target 'y' holds numbers and the text {token!r}: fix the "
                   "value, or write ? (or nothing) for a missing one; --nominal y reads the "
                   "column as classes")
    assert main(["tree", str(p), "--targets", "y"]) == 2
    assert f"{p}:19" in capsys.readouterr().err
    with pytest.raises(DataError, match=f"{p}:19: target 'y' .*; nominal='y' reads"):
        frcli.rank(str(p), targets="y")


def test_a_few_is_a_tenth_of_the_values(tmp_path, capsys):
    """5 text values in 50 are typos (an error); 6 are categories (nominal, a warning)."""
    for k, rc in ((5, 2), (6, 0)):
        rows = [(i, f"{i}.5" if i >= k else "n/a") for i in range(50)]
        p = _csv(tmp_path / f"t{k}.csv", ["x", "y"], rows)
        assert main(["rank", str(p), "-t", "y", "-m", "uniform"]) == rc
        err = capsys.readouterr().err
        assert ("5 of its 50 values are not numbers" in err) if rc else \
            ("is read as nominal" in err and "error" not in err)


def test_a_typo_in_a_feature_keeps_the_warning(tmp_path, capsys):
    rows = [(f"{i * 0.37:.2f}" if i != 17 else "n/a", i) for i in range(49)]
    p = _csv(tmp_path / "t.csv", ["x", "y"], rows)
    assert main(["rank", str(p), "--targets", "y", "-m", "uniform"]) == 0
    err = capsys.readouterr().err
    assert f"{p}:19: column 'x' holds numbers and the text 'n/a'" in err
    with pytest.warns(UserWarning, match="column 'x' holds numbers"):
        load_dataset(p, targets="y")


# -- the default method -----------------------------------------------------------------------
def test_the_default_method_is_a_real_ranker(ids, capsys):
    assert DEFAULT_METHOD == "genie3"
    assert main(["rank", str(ids), "--targets", "y", "-p", "trees=20"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"# {DEFAULT_METHOD}(") and "the default method" in out[0]
    assert out[3].split()[1] == "driver"
    assert main(["rank", str(ids), "--targets", "y", "-p", "trees=20", "-m", "genie3"]) == 0
    assert "default" not in capsys.readouterr().out
    assert main(["rank", "--help"]) == 0
    assert f"default: {DEFAULT_METHOD}" in re.sub(r"[\s│]+", " ", capsys.readouterr().out)
    r = frcli.rank(str(ids), targets="y", trees=20)
    assert r.method == DEFAULT_METHOD and r.feature_names[int(np.argmax(r.importances))] == \
        "driver"


# -- the API ----------------------------------------------------------------------------------
def test_api_drop_keep_and_notice(ids):
    with pytest.warns(Notice, match="'sample_id', 'patient_no'.*keep='sample_id,patient_no'"):
        r = frcli.rank(str(ids), method="uniform", targets="y", drop=["noise"])
    assert r.feature_names == ["step", "driver"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = frcli.rank(str(ids), method="uniform", targets="y", drop="noise",
                       keep=["sample_id", "patient_no"])
    assert r.feature_names == ["sample_id", "patient_no", "step", "driver"]
    with pytest.raises(UserError, match="drop: no attribute named 'nosie'.*did you mean"):
        frcli.rank(str(ids), method="uniform", targets="y", drop=["nosie"])
    with pytest.raises(UserError, match="keep: no attribute named 'x'"):
        frcli.rank(str(ids), method="uniform", targets="y", keep="x")


def test_api_drop_on_loaded_data(ids):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(ids, targets="y")
    r = frcli.rank(ds, method="uniform", drop=["step"])
    assert r.feature_names == ["driver", "noise"]
    X = np.random.default_rng(0).normal(size=(30, 3))
    assert frcli.rank((X, X[:, 0]), method="uniform", drop="x2").feature_names == ["x1", "x3"]
    with pytest.raises(ConfigError, match="keep= applies when data is a file"):
        frcli.rank(ds, method="uniform", keep=["step"])
    with pytest.raises(UserError, match="drop: no attribute named 'x9'"):
        frcli.rank((X, X[:, 0]), method="uniform", drop="x9")


def test_load_dataset_screen_switch(ids):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = load_dataset(ids, targets="y", screen=False)
    assert ds.n_features == 5
    assert set(identifiers(ds)) == {"sample_id", "patient_no"}


def test_a_dataframe_typo_is_treated_as_a_files():
    """The estimator reads DataFrames through the CSV road: a text value among the numbers of
    a regression target is refused, among a feature's numbers warned about, as in a file
    (without a task, text targets are classes, scikit-learn's convention)."""
    import pandas as pd

    from frcli.api import FeatureRanker

    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    y = pd.Series([f"{v:.3f}" for v in rng.normal(size=40)], dtype=object, name="y")
    y[5] = "n/a"
    with pytest.raises(ValueError, match=r"data:6: target 'y' holds numbers and the text 'n/a'"):
        FeatureRanker("uniform", task="regression").fit(X, y)
    Xt = X.astype(object)
    Xt.loc[3, "a"] = "1.2.3"
    with pytest.warns(UserWarning, match=r"column 'a' holds numbers and the text '1.2.3'"):
        FeatureRanker("uniform").fit(Xt, X["b"])
