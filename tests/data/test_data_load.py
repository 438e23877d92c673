"""load_dataset: target specs, task inference, Mulan labels, SSL rows, CSV/TSV, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from frcli.data import load_dataset
from frcli.data.load import parse_targets
from frcli.errors import ConfigError, DataError, UserError

HEADER = """@relation r
@attribute n1 numeric
@attribute c1 {u,v,w}
@attribute n2 numeric
@attribute 'lab one' {1,0}
@attribute lab2 {0,1}
@attribute cls {x,y}
@attribute s string
@data
1,u,10,1,0,x,hello
2,v,?,0,1,y,world
3,w,30,1,1,?,'a b'
"""


@pytest.fixture
def arff(tmp_path):
    p = tmp_path / "d.arff"
    p.write_text(HEADER)
    return p


def test_parse_targets_forms():
    names = ["a", "b", "c", "d", "3", "e-f"]
    assert parse_targets("last:2", names) == [4, 5]
    assert parse_targets("1,3-4", names) == [0, 2, 3]
    assert parse_targets("b, e-f", names) == [1, 5]
    assert parse_targets("3", names) == [2]  # a number is an index, not the name "3"
    assert parse_targets("2,b,1-2", names) == [1, 0]  # duplicates removed, order kept
    assert parse_targets([1, "d"], names) == [0, 3]
    for bad, msg in [("zz", "unknown target attribute 'zz'"), ("B", "did you mean 'b'"),
                     ("7", "out of range 1..6"), ("4-2", "empty"), ("last:6", "1 <= N < 6"),
                     (",", "")]:
        if bad == ",":
            assert parse_targets(bad, names) == []
            continue
        with pytest.raises(UserError, match=msg):
            parse_targets(bad, names)


def test_task_inference(arff):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert load_dataset(arff, targets="n2").task == "regression"
        assert load_dataset(arff, targets="cls").task == "classification"
        ds = load_dataset(arff, targets="4-5")
        assert ds.task == "mlc" and ds.Y.dtype == np.uint8
        assert load_dataset(arff, targets="n1,cls").task == "mtr"
        ds = load_dataset(arff, targets="n2", task="unsupervised")
        assert ds.task == "unsupervised" and ds.Y is None and "n2" not in ds.feature_names
        assert load_dataset(arff, task="unsupervised").n_features == 6  # string ignored


def test_mulan_positive_value_regardless_of_declaration_order(arff):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(arff, targets="lab one,lab2")
    # 'lab one' declared {1,0}: value "1" has code 0 but must become label 1
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [1, 1]])
    assert ds.target_names == ["lab one", "lab2"]


def test_mixed_mtr_keeps_codes_and_missing(arff):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(arff, targets="n2,cls")
    assert [t.kind for t in ds.targets] == ["numeric", "nominal"]
    assert ds.targets[1].categories == ("x", "y")
    np.testing.assert_array_equal(ds.Y[:, 1][:2], [0, 1])
    assert np.isnan(ds.Y[1, 0]) and np.isnan(ds.Y[2, 1])
    assert ds.labeled.all()


def test_string_attribute_ignored_with_warning(arff):
    with pytest.warns(UserWarning, match="ignoring 1 string/date"):
        ds = load_dataset(arff, targets="n2", semi_supervised=True)
    assert "s" not in ds.feature_names
    assert ds.feature_names == ["n1", "c1", "lab one", "lab2", "cls"]
    assert ds.features[1].categories == ("u", "v", "w")
    with pytest.raises(DataError, match="target 's' is a string attribute"):
        load_dataset(arff, targets="s")


def test_task_override_is_checked(arff):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(UserError, match="task 'regression' needs exactly one numeric"):
            load_dataset(arff, targets="cls", task="regression")
        with pytest.raises(UserError, match="task 'mlc' needs binary nominal"):
            load_dataset(arff, targets="n1,n2", task="mlc")
        assert load_dataset(arff, targets="4-5", task="mtr").Y.dtype == np.float64
        with pytest.raises(ConfigError, match="unknown task 'foo'"):
            load_dataset(arff, targets="n1", task="foo")
        with pytest.raises(ConfigError, match="unknown hierarchy type"):
            load_dataset(arff, targets="n1", hierarchy="graph")


def test_no_targets_and_unknown_names(arff):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(UserError, match="no targets"):
            load_dataset(arff)
        with pytest.raises(UserError, match="unknown target attribute 'nope'"):
            load_dataset(arff, targets="n1,nope")
        with pytest.raises(UserError, match="drop: no attribute named 'zz'"):
            load_dataset(arff, targets="n1", drop=["zz"])
        ds = load_dataset(arff, targets="n1", drop=["c1"])
        assert "c1" not in ds.feature_names


def test_labels_xml(tmp_path, arff):
    xml = tmp_path / "d.xml"
    xml.write_text('<?xml version="1.0"?><labels xmlns="http://mulan.sourceforge.net/labels">'
                   '<label name="lab2"></label><label name="lab one"></label></labels>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(arff, labels=xml)
    assert ds.task == "mlc" and ds.target_names == ["lab2", "lab one"]
    np.testing.assert_array_equal(ds.Y[:, 1], [1, 0, 1])
    bad = tmp_path / "bad.xml"
    bad.write_text('<labels><label name="zzz"/></labels>')
    with pytest.raises(UserError, match="label 'zzz' from .* is not an attribute"):
        load_dataset(arff, labels=bad)
    broken = tmp_path / "broken.xml"
    broken.write_text("<labels><label")
    with pytest.raises(DataError, match="not a Mulan label XML"):
        load_dataset(arff, labels=broken)
    # nested Mulan labels form a hierarchy
    nested = tmp_path / "n.xml"
    nested.write_text('<labels><label name="lab2"><label name="lab one"/></label></labels>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(arff, labels=nested)
    assert ds.task == "hmlc" and ds.hierarchy.labels == ["lab2", "lab one"]
    np.testing.assert_array_equal(ds.Y, [[1, 1], [1, 0], [1, 1]])  # closed upwards


def test_semi_supervised_rows(tmp_path):
    p = tmp_path / "s.arff"
    p.write_text("@relation r\n@attribute x numeric\n@attribute t1 numeric\n@attribute t2 numeric"
                 "\n@attribute l1 {0,1}\n@attribute l2 {0,1}\n@data\n1,1,2,1,0\n2,?,?,?,?\n"
                 "3,?,5,0,?\n")
    ds = load_dataset(p, targets="t1,t2", semi_supervised=True)
    np.testing.assert_array_equal(ds.labeled, [True, False, True])
    with pytest.warns(UserWarning, match="1 of 3 rows have no known target"):
        load_dataset(p, targets="t1,t2")
    with pytest.warns(UserWarning, match="some unknown labels"):
        ds = load_dataset(p, targets="l1,l2", semi_supervised=True)
    np.testing.assert_array_equal(ds.labeled, [True, False, True])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 0], [0, 0]])


def test_csv_tsv_txt(tmp_path):
    (tmp_path / "a.csv").write_text("x,kind,y\n1.5,a,1\n?,b,0\n3,a,\n")
    ds = load_dataset(tmp_path / "a.csv", targets="y", semi_supervised=True)
    assert ds.task == "regression" and ds.features[1].categories == ("a", "b")
    assert np.isnan(ds.X[1, 0]) and np.isnan(ds.Y[2, 0])
    ds = load_dataset(tmp_path / "a.csv", targets="y", nominal=["y"], semi_supervised=True)
    assert ds.task == "classification" and ds.targets[0].categories == ("0", "1")
    (tmp_path / "b.tsv").write_text("x\tz y\n1\t2\n3\t4\n")
    assert load_dataset(tmp_path / "b.tsv", targets="z y").X.ravel().tolist() == [1, 3]
    (tmp_path / "c.txt").write_text("x\ty\n1\t2\n")
    assert load_dataset(tmp_path / "c.txt", targets="last:1").n_features == 1
    (tmp_path / "d.csv").write_text("x,y\n1,2\n3\n")
    with pytest.raises(DataError, match=r"d.csv:3: row has 1 values, expected 2"):
        load_dataset(tmp_path / "d.csv", targets="y")
    (tmp_path / "e.csv").write_text("x,x\n1,2\n")
    with pytest.raises(DataError, match="appears twice"):
        load_dataset(tmp_path / "e.csv", targets="2")
    with pytest.raises(UserError, match="no column named 'q'"):
        load_dataset(tmp_path / "a.csv", targets="y", nominal=["q"])


def test_nominal_forcing_on_arff(arff):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(arff, targets="cls", nominal=["n2"])
    f = ds.features[ds.feature_names.index("n2")]
    assert f.kind == "nominal" and f.categories == ("10", "30")


def test_unknown_extension_and_missing_file(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        load_dataset(tmp_path / "none.arff", targets="1")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(DataError, match="unknown data file extension '.json'"):
        load_dataset(tmp_path / "x.json", targets="1")
