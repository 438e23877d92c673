"""ARFF reader/writer: hand-written cases, every error, and hypothesis round trips."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frcli.data.arff import (ArffAttribute, ArffTable, read_arff, read_names, write_arff,
                             write_table)
from frcli.errors import DataError

from tests.conftest import SHARED_DATA as SHARED


def _write(tmp_path, text, name="t.arff"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_dense_sparse_quotes_missing_comments(tmp_path):
    p = _write(tmp_path, """% a comment
@RELATION 'my data'

@Attribute num NUMERIC
@attribute 'a name' {red, 'dark blue', "x,y"}
@ATTRIBUTE i integer
@attribute r REAL
@attribute s string
@data
% comment inside data
1.5, red, 3, -2e-3, hello

?,'dark blue',?,0,'a b'
{0 7, 1 "x,y", 4 zz}
{}
{2 ?,1 ?}
""")
    t = read_arff(p)
    assert t.relation == "my data"
    assert t.names == ["num", "a name", "i", "r", "s"]
    assert [a.type for a in t.attributes] == ["numeric", "nominal", "numeric", "numeric", "string"]
    assert t.attributes[1].values == ("red", "dark blue", "x,y")
    V = t.values
    np.testing.assert_array_equal(V[0, :4], [1.5, 0, 3, -2e-3])
    assert math.isnan(V[1, 0]) and V[1, 1] == 1 and math.isnan(V[1, 2]) and V[1, 3] == 0
    # sparse: omitted numeric = 0, omitted nominal = first value (code 0)
    np.testing.assert_array_equal(V[2, :4], [7, 2, 0, 0])
    np.testing.assert_array_equal(V[3, :4], [0, 0, 0, 0])
    assert V[4, 0] == 0 and math.isnan(V[4, 1]) and math.isnan(V[4, 2])
    assert t.strings[4] == ["hello", "a b", "zz", "", ""]
    assert list(t.lines) == [11, 13, 14, 15, 16]
    assert t.sparse


def test_quoted_question_mark_is_a_value(tmp_path):
    p = _write(tmp_path, "@relation r\n@attribute c {'?',a}\n@data\n'?'\na\n?\n")
    v = read_arff(p).values[:, 0]
    assert v[0] == 0 and v[1] == 1 and math.isnan(v[2])


def test_escaped_quote_and_tabs(tmp_path):
    p = _write(tmp_path, "@relation r\n@attribute\t'it\\'s'\t{'it\\'s', b}\n@data\n'it\\'s'\n"
                         " b \n")
    t = read_arff(p)
    assert t.names == ["it's"] and t.attributes[0].values == ("it's", "b")
    np.testing.assert_array_equal(t.values[:, 0], [0, 1])


def test_read_names_reads_header_only(tmp_path):
    p = _write(tmp_path, "@relation r\n@attribute a numeric\n@attribute b {x}\n@data\n"
                         "not,parsed,x\n")
    assert read_names(p) == ["a", "b"]


ERRORS = [
    ("@relation r\n@attribute a numeric\n1\n", "expected @relation", 3),
    ("@relation r\n@attribute a numeric\n", "no @data", None),
    ("@relation r\n@data\n1\n", "@data before any @attribute", 2),
    ("@relation r\n@attribute a blob\n@data\n", "unknown type 'blob'", 2),
    ("@relation r\n@attribute a\n@data\n", "has no type", 2),
    ("@relation r\n@attribute a {x,y\n@data\n", "must end with '}'", 2),
    ("@relation r\n@attribute a {x,x}\n@data\n", "repeated nominal value", 2),
    ("@relation r\n@attribute a relational\n@data\n", "relational", 2),
    ("@relation r\n@attribute a numeric\n@attribute a numeric\n@data\n", "declared twice", 3),
    ("@relation r\n@attrib a numeric\n@data\n", "unknown header keyword", 2),
    ("@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2\n1\n",
     "row has 1 values, expected 2", 6),
    ("@relation r\n@attribute a numeric\n@data\n1\n1.2.3\n", "bad number '1.2.3'", 5),
    ("@relation r\n@attribute a {x,y}\n@data\nx\n\nz\n", "unknown value 'z' for nominal", 6),
    ("@relation r\n@attribute a numeric\n@data\n{0 1\n", "must end with '}'", 4),
    ("@relation r\n@attribute a numeric\n@data\n{3 1}\n", "sparse index 3 out of range", 4),
    ("@relation r\n@attribute a numeric\n@data\n{x 1}\n", "sparse index 'x'", 4),
    ("@relation r\n@attribute a numeric\n@data\n{0}\n", "not 'index value'", 4),
    ("@relation r\n@attribute a {x}\n@data\n'x\n", "unterminated quote", 4),
    ("@relation r\n@attribute a hierarchical\n@data\n", "declares no values", 2),
]


@pytest.mark.parametrize("text,msg,line", ERRORS)
def test_errors_name_file_and_line(tmp_path, text, msg, line):
    p = _write(tmp_path, text)
    with pytest.raises(DataError) as ei:
        read_arff(p)
    assert msg in str(ei.value)
    assert ei.value.path == str(p)
    assert ei.value.line == line
    assert str(p) in str(ei.value)


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        read_arff(tmp_path / "nope.arff")


# -- hypothesis: random files in every syntax variant, read back exactly ----------------------
_word = st.text(alphabet="abcXYZ019 _-,'.", min_size=1, max_size=6).filter(
    lambda s: s.strip() == s and s not in ("?",))
_attr = st.one_of(
    st.tuples(st.just("numeric"), st.sampled_from(["numeric", "NUMERIC", "real", "Integer"])),
    st.tuples(st.just("nominal"), st.lists(_word, min_size=1, max_size=4, unique=True)),
)
_num = st.floats(allow_nan=False, allow_infinity=False, width=64,
                 min_value=-1e12, max_value=1e12)


@st.composite
def tables(draw):
    attrs = draw(st.lists(_attr, min_size=1, max_size=5))
    n = draw(st.integers(0, 6))
    rows = []
    for _ in range(n):
        row = []
        for kind, spec in attrs:
            if draw(st.integers(0, 5)) == 0:
                row.append(None)
            elif kind == "numeric":
                row.append(draw(st.one_of(_num, st.just(0.0))))
            else:
                row.append(draw(st.integers(0, len(spec) - 1)))
        rows.append((row, draw(st.booleans())))  # (values, written sparse?)
    return attrs, rows


def _q(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _render(attrs, rows, draw_case) -> str:
    out = ["% generated", "@RELATION test", ""]
    for k, (kind, spec) in enumerate(attrs):
        kw = "@ATTRIBUTE" if draw_case else "@attribute"
        if kind == "numeric":
            out.append(f"{kw} a{k} {spec}")
        else:
            out.append(f"{kw} 'attr {k}' {{{', '.join(_q(v) for v in spec)}}}")
    out += ["@DATA" if draw_case else "@data", "% rows follow"]
    for vals, sparse in rows:
        toks = []
        for (kind, spec), v in zip(attrs, vals):
            if v is None:
                toks.append("?")
            elif kind == "numeric":
                toks.append(repr(float(v)))
            else:
                toks.append(_q(spec[v]) if (" " in spec[v] or "," in spec[v] or "'" in spec[v])
                            else spec[v])
        if sparse:
            items = [f"{j} {t}" for j, (t, v) in enumerate(zip(toks, vals)) if v not in (0, 0.0)]
            out.append("{" + ", ".join(items) + "}")
        else:
            out.append(", ".join(toks))
        out.append("")
    return "\n".join(out)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tables(), st.booleans())
def test_random_files_read_back(tmp_path, tab, upper):
    attrs, rows = tab
    p = _write(tmp_path, _render(attrs, rows, upper), "h.arff")
    t = read_arff(p)
    assert t.n_rows == len(rows)
    for (kind, spec), a in zip(attrs, t.attributes):
        assert a.type == kind
        if kind == "nominal":
            assert list(a.values) == spec
    for i, (vals, _) in enumerate(rows):
        for j, v in enumerate(vals):
            got = t.values[i, j]
            if v is None:
                assert math.isnan(got)
            else:
                assert got == float(v)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tables(), st.booleans())
def test_writer_round_trip(tmp_path, tab, sparse):
    attrs, rows = tab
    aa = [ArffAttribute(f"x {k}" if kind == "nominal" else f"x{k}", kind,
                        tuple(spec) if kind == "nominal" else ())
          for k, (kind, spec) in enumerate(attrs)]
    V = np.array([[np.nan if v is None else float(v) for v in vals] for vals, _ in rows],
                 dtype=float).reshape(len(rows), len(attrs))
    p = tmp_path / "w.arff"
    write_table(ArffTable("r", aa, V), p, sparse=sparse, comment="hello\nworld")
    t = read_arff(p)
    assert [a.values for a in t.attributes] == [a.values for a in aa]
    np.testing.assert_array_equal(t.values, V)


def test_write_dataset_every_task(tmp_path):
    from frcli.data.dataset import Attribute, Dataset, Hierarchy
    from frcli.data.load import load_dataset

    X = np.array([[1.0, 0], [np.nan, 1], [2.5, 0]])
    feats = [Attribute("x", "numeric"), Attribute("c", "nominal", ("p", "q"))]
    h = Hierarchy(["a", "a/b", "c"], [[], [0], []], "tree")
    cases = [
        Dataset("r", X, feats, "mtr", Y=np.array([[1.0, 2], [np.nan, np.nan], [3, 4]]),
                targets=[Attribute("t1", "numeric"), Attribute("t2", "numeric")]),
        Dataset("m", X, feats, "mlc", Y=np.array([[1, 0], [0, 0], [1, 1]], np.uint8),
                targets=[Attribute("l1", "numeric"), Attribute("l2", "numeric")],
                labeled=np.array([True, False, True])),
        Dataset("h", X, feats, "hmlc", Y=np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1]], np.uint8),
                hierarchy=h),
    ]
    for ds in cases:
        p = tmp_path / f"{ds.name}.arff"
        write_arff(ds, p)
        back = load_dataset(p, targets="3-4" if ds.task != "hmlc" else None,
                            semi_supervised=True)
        assert back.task == ds.task
        np.testing.assert_array_equal(back.X, ds.X)
        np.testing.assert_array_equal(back.labeled, ds.labeled)
        if ds.Y.dtype == np.uint8:
            np.testing.assert_array_equal(back.Y[ds.labeled], ds.Y[ds.labeled])
        else:
            np.testing.assert_array_equal(back.Y, ds.Y)
        assert back.target_names == ds.target_names


@pytest.mark.shared("datasets")
@pytest.mark.parametrize("rel", ["mlc/emotions/emotions-train.arff",
                                 "mlc/medical/medical-train.arff", "mtr/scpf.arff",
                                 "mlc/birds/birds-test.arff"])
def test_agrees_with_liac_arff(rel):
    arff = pytest.importorskip("arff")
    with open(SHARED / rel) as fh:
        sparse = "medical" in rel
        ref = arff.load(fh, return_type=arff.COO if sparse else arff.DENSE)
    t = read_arff(SHARED / rel)
    # liac-arff keeps the backslash of birds' 'Swainson\'s Thrush'; the Mulan XML (and we) do not
    names = [a[0].replace("\\'", "'") for a in ref["attributes"]]
    assert names == t.names
    if sparse:
        vals, r, c = ref["data"]
        M = np.zeros_like(t.values, dtype=object)
        for v, i, j in zip(vals, r, c):
            M[i, j] = v
        ref_rows = M.tolist()
    else:
        ref_rows = ref["data"]
    for j, (name, typ) in enumerate(ref["attributes"]):
        col = [row[j] for row in ref_rows]
        if isinstance(typ, list):
            want = [np.nan if v is None else float(typ.index(v)) if v != 0 else 0.0 for v in col]
        else:
            want = [np.nan if v is None else float(v) for v in col]
        np.testing.assert_array_equal(t.values[:, j], np.array(want, dtype=float), err_msg=name)
