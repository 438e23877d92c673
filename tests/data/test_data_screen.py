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
    """A user's case: a sample_id (unique strings) beside a real driver of y, plus the
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


def test_given_split_takes_the_training_files_screen(tmp_path, monkeypatch, capsys):
    """Train and test files of a catalog entry keep the same features, even when the rule
    cannot tell on the test file (fewer than MIN_ROWS rows): the training rows decide."""
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


@pytest.mark.parametrize("kind", ["array", "series"])
def test_numbers_with_a_typo_are_no_classes_without_a_task(kind):
    """Without ``task``, a 1-D object ``y`` of numbers with a typo is refused as the file's
    column is (row and value named), not read as classes by scikit-learn's convention; a
    nominal ``y``, an object ``y`` of numbers only, and numbers with many text values stay
    classes (the last with the file's warning). ``frcli.rank`` on arrays says the same."""
    import pandas as pd

    import frcli
    from frcli.api import FeatureRanker, dataset_from_arrays

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.round(3 * X[:, 0], 2).astype(object)
    y[6] = "n/a"
    if kind == "series":
        y = pd.Series(y, name="y")
    with pytest.raises(ValueError, match=r"data:7: target 'y' holds numbers and the text "
                                         r"'n/a': fix the value, or use NaN"):
        FeatureRanker("genie3", trees=3).fit(X, y)
    with pytest.raises(DataError, match=r"Y:7: target 'Y' holds numbers and the text 'n/a'"):
        frcli.rank((X, np.asarray(y)), method="genie3", trees=3)
    with pytest.raises(DataError, match="'n/a'"):
        dataset_from_arrays(X, np.asarray(y))
    for classes in (np.array(["lo", "mid", "hi", "mid"] * 10, dtype=object),
                    np.array([0, 1, 2, 1] * 10, dtype=object)):
        got = FeatureRanker("genie3", trees=3).fit(X, classes).ranking_
        assert got.meta["task"] == "classification"
        assert dataset_from_arrays(X, classes).task == "classification"
    many = np.array(["a", "b", 1, 2.5] * 10, dtype=object)
    with pytest.warns(UserWarning, match="read as nominal"):
        got = FeatureRanker("genie3", trees=3).fit(X, many).ranking_
    assert got.meta["task"] == "classification"


# -- a pandas export: the row index under an empty header -------------------------------------
def _pandas_csv(path, index):
    """What ``DataFrame.to_csv`` writes: the index first, its header cell empty."""
    rng = np.random.default_rng(5)
    drv = rng.normal(size=len(index))
    rows = [(ix, f"{d:.4f}", f"{rng.normal():.4f}", f"{2 * d + 0.1 * rng.normal():.4f}")
            for ix, d in zip(index, drv)]
    return _csv(path, ["", "driver", "noise", "y"], rows)


@pytest.mark.parametrize("index", [list(range(N)), [f"S{i}" for i in range(N)]],
                         ids=["integers", "names"])
def test_a_pandas_index_is_an_identifier(tmp_path, capsys, index):
    f = _pandas_csv(tmp_path / "export.csv", index)
    assert main(["rank", str(f), "--targets", "y", "-m", "uniform", "-f", "csv"]) == 0
    out, err = capsys.readouterr()
    assert [r["feature"] for r in csv.DictReader(io.StringIO(out))] == ["driver", "noise"]
    (note,) = _notes(err)
    assert "column 'Unnamed: 0' is an identifier (the row index of a pandas export" in note
    assert "--keep 'Unnamed: 0' keeps it" in note           # quoted as a shell needs it
    assert main(["rank", str(f), "--targets", "y", "-m", "uniform", "-f", "csv",
                 "--keep", "Unnamed: 0"]) == 0
    assert "Unnamed: 0" in _features(capsys)
    with pytest.warns(Notice, match=r"'Unnamed: 0' is an identifier .*keep='Unnamed: 0'"):
        r = frcli.rank(f, targets="y", method="uniform")
    assert r.feature_names == ["driver", "noise"]
    r = frcli.rank(f, targets="y", method="uniform", keep=["Unnamed: 0"])
    assert "Unnamed: 0" in r.feature_names


def test_a_pandas_index_written_back_by_name_and_a_repeated_index(tmp_path, capsys):
    """Read by pandas and written with index=False, the index is a column 'Unnamed: 0': the
    same identifier. An index with repeats (frames concatenated) is not one."""
    f = _pandas_csv(tmp_path / "again.csv", list(range(N)))
    f.write_text("Unnamed: 0" + f.read_text())
    assert main(["rank", str(f), "--targets", "y", "-m", "uniform", "-f", "csv"]) == 0
    assert _features(capsys) == ["driver", "noise"]
    g = _pandas_csv(tmp_path / "concat.csv", [i % (N // 2) for i in range(N)])
    assert main(["rank", str(g), "--targets", "y", "-m", "uniform", "-f", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "Unnamed: 0" in out and not _notes(err)


def test_other_empty_column_names_stay_errors(tmp_path, capsys):
    f = _csv(tmp_path / "gap.csv", ["a", "", "y"], [(i, i, i) for i in range(30)])
    assert main(["rank", str(f), "--targets", "y"]) == 2
    assert "empty column name in the header (column 2)" in capsys.readouterr().err


# -- the estimator's typo message speaks of arrays ----------------------------------------------
def test_the_estimators_typo_message_names_its_own_remedies():
    """No ``nominal=`` (FeatureRanker has no such parameter) and no file to write ``?`` in:
    NaN for a missing value, a categorical y for classes, which then fits."""
    import pandas as pd

    from frcli.api import FeatureRanker

    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    y = pd.Series([f"{v:.3f}" for v in rng.normal(size=40)], dtype=object, name="y")
    y[5] = "n/a"
    with pytest.raises(ValueError) as e:
        FeatureRanker("uniform", task="regression").fit(X, y)
    msg = str(e.value)
    assert "use NaN for a missing one" in msg and "y.astype('category')" in msg
    assert "nominal=" not in msg and "write ?" not in msg
    assert FeatureRanker("uniform").fit(X, y.astype("category")).ranking_ is not None
    Xt = X.astype(object)
    Xt.loc[3, "a"] = "1.2.3"
    with pytest.warns(UserWarning) as w:
        FeatureRanker("uniform").fit(Xt, X["b"])
    (m,) = [str(x.message) for x in w if "1.2.3" in str(x.message)]
    assert "nominal=" not in m and "categorical column" in m
    # files keep their own advice (frcli.rank reads a file: nominal= is its parameter)


# -- experiments: keep:, the screen in the run's definition, train and test files -------------
def _experiment(tmp_path, entry: str, name: str = "scr") -> str:
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(f"name: {name}\noutput: {tmp_path / 'out'}\ndatasets:\n  - {entry}\n"
                   "protocol: {type: holdout, repeats: 1, seed: 0}\nrankers: [uniform]\n"
                   "evaluation: {knn: 3}\n")
    return str(cfg)


def _stored_features(tmp_path, name: str = "scr") -> list[str]:
    from frcli.results.store import Store

    with Store(tmp_path / "out" / name, create=False) as st:
        return json.loads(st.dataset_rows()[0][3])


def _definitions(tmp_path, name: str = "scr") -> list[dict]:
    import sqlite3

    con = sqlite3.connect(tmp_path / "out" / name / "results.sqlite")
    try:
        return [json.loads(d) for (d,) in con.execute("SELECT definition FROM runs")]
    finally:
        con.close()


def test_experiment_keep_key(ids, tmp_path, capsys):
    cfg = _experiment(tmp_path, f"{{name: d, path: {ids}, targets: y, keep: [sample_id]}}")
    assert main(["experiment", cfg, "--no-progress"]) == 0
    assert _stored_features(tmp_path) == ["sample_id", "step", "driver", "noise"]
    (d,) = _definitions(tmp_path)
    assert d["dataset"]["keep"] == ["sample_id"] and d["dataset"]["screened"] == ["patient_no"]


@pytest.mark.parametrize("entry,message", [
    ("{name: d, path: IDS, targets: y, keep: [sampel_id]}",
     "datasets[0] (d): keep: no attribute named 'sampel_id' in IDS (did you mean 'sample_id'?)"),
    ("{name: d, path: IDS, targets: y, keep: sample_id, drop: [sample_id]}",
     "datasets[0] (d): column 'sample_id' is in both drop and keep"),
    ("{name: d, path: IDS, targets: y, keep: {a: 1}}",
     "datasets[0].keep: expected a string or a list of strings"),
])
def test_experiment_keep_errors(ids, tmp_path, capsys, entry, message):
    from frcli.experiment.config import load_config
    from frcli.experiment.executor import run_experiment

    cfg = _experiment(tmp_path, entry.replace("IDS", str(ids)))
    assert main(["experiment", cfg]) == 2
    err = capsys.readouterr().err
    assert message.replace("IDS", str(ids)) in err and len(err.strip().splitlines()) == 1
    with pytest.raises(ConfigError, match=re.escape(message.replace("IDS", str(ids)))):
        run_experiment(load_config(cfg), progress=False)
    assert not (tmp_path / "out" / "scr").exists()


def test_a_changed_screen_does_not_reuse_stored_runs(ids, tmp_path, capsys):
    """The columns the screen left out are part of each run's definition: when the file
    changes so that a column is no longer an identifier (a repeated value), the stored runs,
    ranked without it, are not taken for the new data's."""
    from frcli.experiment.config import load_config
    from frcli.experiment.executor import run_experiment

    cfg = _experiment(tmp_path, f"{{name: d, path: {ids}, targets: y}}")
    with pytest.warns(Notice):
        run_experiment(load_config(cfg), progress=False)
    (d,) = _definitions(tmp_path)
    assert d["dataset"]["screened"] == ["sample_id", "patient_no"]
    lines = ids.read_text().splitlines()
    lines[2] = lines[1].split(",")[0] + "," + lines[2].split(",", 1)[1]   # a repeated name
    ids.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match=r"different definition.*\(dataset changed\)"):
        with pytest.warns(Notice):
            run_experiment(load_config(cfg), progress=False)
    assert main(["experiment", cfg, "--no-progress"]) == 2
    assert "different definition" in capsys.readouterr().err


def test_unscreened_data_keep_their_fingerprints():
    """Without keep: and with nothing screened, a data set's definition has exactly the keys
    it had before either existed, so stored runs (the reproductions') keep their hashes."""
    from frcli.experiment.config import DatasetSpec

    d = DatasetSpec(name="d", path=("x.csv",), targets="y").definition()
    assert set(d) == {"name", "path", "test", "labels", "task", "targets", "hierarchy",
                      "drop", "nominal"}
    c = DatasetSpec(name="synth-mtr", catalog=True).definition()
    assert "keep" not in c and "screened" not in c
    s = DatasetSpec(name="d", path=("x.csv",), screened=("id",))
    assert s == DatasetSpec(name="d", path=("x.csv",)) and s.definition()["screened"] == ["id"]


@pytest.mark.parametrize("test_rows", ["few", "repeated"])
def test_a_test_file_takes_the_training_files_screen(tmp_path, capsys, test_rows):
    """Screened alone, a test file could keep a column its training file loses: too few
    rows to be screened, or a repeated name. It takes the training file's screen, so both
    have the same features (before: 'features differ')."""
    rng = np.random.default_rng(4)

    def rows(names):
        return [(nm, f"{rng.normal():.4f}", f"{rng.normal():.4f}") for nm in names]

    tr = _csv(tmp_path / "tr.csv", ["sample_id", "x", "y"], rows(f"tr{i}" for i in range(60)))
    te_names = [f"te{i}" for i in range(8)] if test_rows == "few" else \
        [f"te{i // 2}" for i in range(40)]
    te = _csv(tmp_path / "te.csv", ["sample_id", "x", "y"], rows(te_names))
    cfg = tmp_path / "given.yaml"
    cfg.write_text(f"name: given\noutput: {tmp_path / 'out'}\ndatasets:\n"
                   f"  - {{name: d, path: {tr}, test: {te}, targets: y}}\n"
                   "protocol: {type: given}\nrankers: [uniform]\nevaluation: {knn: 3}\n")
    assert main(["experiment", str(cfg), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert len(_notes(err)) == 1 and str(tr) in _notes(err)[0]
    assert _stored_features(tmp_path, "given") == ["x"]
