"""CLUS hierarchies: building trees/DAGs, closing label sets, weights, reference files."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frcli.data.hierarchy import (build_hierarchy, declared_values, encode_label_sets,
                                  label_set_strings, looks_like_dag)
from frcli.data.load import load_dataset
from frcli.errors import DataError

from tests.conftest import SHARED_DATA

CLUS = SHARED_DATA / "clus-reference"
needs_clus = pytest.mark.shared("datasets/clus-reference")


def _is_topological(h):
    return all(all(p < j for p in par) for j, par in enumerate(h.parents))


def test_tree_adds_missing_prefixes_and_orders_parents_first():
    h = build_hierarchy(["b/x", "a", "a/1/z", "b"], "tree")
    assert set(h.labels) == {"b", "b/x", "a", "a/1", "a/1/z"}
    assert _is_topological(h)
    par = {lab: [h.labels[p] for p in h.parents[j]] for j, lab in enumerate(h.labels)}
    assert par == {"b": [], "b/x": ["b"], "a": [], "a/1": ["a"], "a/1/z": ["a/1"]}
    assert h.labels[:2] == ["b", "b/x"]  # declaration order among ready labels


def test_dag_edges_root_and_cycles():
    h = build_hierarchy(["root/A", "A/B", "C/B", "B/D", "root/C", "E/F"], "dag")
    par = {lab: sorted(h.labels[p] for p in h.parents[j]) for j, lab in enumerate(h.labels)}
    assert par == {"A": [], "C": [], "B": ["A", "C"], "D": ["B"], "E": [], "F": ["E"]}
    assert "root" not in h.labels and _is_topological(h)
    with pytest.raises(DataError, match="cycle"):
        build_hierarchy(["root/a", "a/b", "b/c", "c/b"], "dag")
    with pytest.raises(DataError, match="not a parent/child edge"):
        build_hierarchy(["01/02/03"], "dag")
    with pytest.raises(DataError, match="unknown hierarchy type"):
        build_hierarchy(["a"], "graph")


def test_encode_closes_upwards_and_handles_empty_and_unknown():
    h = build_hierarchy(["root/A", "A/B", "C/B", "root/C", "B/D"], "dag")
    Y, known = encode_label_sets(["D", "", "?", None, "C@root"], h)
    col = {lab: j for j, lab in enumerate(h.labels)}
    assert {h.labels[j] for j in np.flatnonzero(Y[0])} == {"A", "B", "C", "D"}
    assert Y[1].sum() == 0 and known[1]
    assert not known[2] and not known[3]
    assert Y[4, col["C"]] == 1 and Y[4].sum() == 1
    with pytest.raises(DataError, match="label 'Z' is not declared") as ei:
        encode_label_sets(["A", "Z"], h, path="f.arff", lines=[7, 8])
    assert ei.value.line == 8


def test_looks_like_dag():
    assert looks_like_dag(["root/A", "A/B"])
    assert not looks_like_dag(["01", "01/02"])
    assert not looks_like_dag(["root", "root/a"])  # a tree whose top label is called root


def test_weights_tree_and_dag():
    h = build_hierarchy(["a", "a/b", "a/b/c"], "tree")
    np.testing.assert_allclose(h.weights(0.75), [0.75, 0.75 ** 2, 0.75 ** 3])
    np.testing.assert_allclose(h.weights(0.75, top="one"), [1, 0.75, 0.75 ** 2])
    d = build_hierarchy(["root/A", "root/C", "A/B", "C/B"], "dag")
    w = dict(zip(d.labels, d.weights(0.5, aggregate="sum")))
    assert w == {"A": 0.5, "C": 0.5, "B": 0.5 * (0.5 + 0.5)}
    w = dict(zip(d.labels, d.weights(0.5, aggregate="mean", top="one")))
    assert w == {"A": 1, "C": 1, "B": 0.5}


def test_hierarchy_feature_and_default_target(tmp_path):
    p = tmp_path / "h.arff"
    p.write_text("@relation r\n@attribute f hierarchical a,a/b\n@attribute x numeric\n"
                 "@attribute c hierarchical a,a/b,c\n@data\na/b,1,a/b@c\na,2,\n?,3,?\n")
    ds = load_dataset(p, semi_supervised=True)
    assert ds.task == "hmlc" and ds.hierarchy.labels == ["a", "a/b", "c"]
    np.testing.assert_array_equal(ds.Y[:2], [[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(ds.labeled, [True, True, False])
    # the other hierarchical attribute is a nominal feature over its row strings
    assert ds.features[0].kind == "nominal" and ds.features[0].categories == ("a", "a/b")
    np.testing.assert_array_equal(ds.X[:, 0], [1, 0, np.nan])


# -- hypothesis: random trees / DAGs written as CLUS ARFF and read back ----------------------
@st.composite
def hierarchies(draw):
    m = draw(st.integers(1, 12))
    dag = draw(st.booleans())
    parents = []
    for i in range(m):
        if i == 0 or draw(st.integers(0, 3)) == 0:
            parents.append([])
        elif dag:
            parents.append(sorted(set(draw(st.lists(st.integers(0, i - 1), min_size=1,
                                                    max_size=3)))))
        else:
            parents.append([draw(st.integers(0, i - 1))])
    sets = draw(st.lists(st.one_of(st.none(), st.sets(st.integers(0, m - 1), max_size=4)),
                         max_size=8))
    seed = draw(st.integers(0, 10 ** 6))
    return dag, parents, sets, seed


def _closure(parents, s):
    out, stack = set(), list(s)
    while stack:
        v = stack.pop()
        if v not in out:
            out.add(v)
            stack.extend(parents[v])
    return out


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hierarchies())
def test_random_hierarchies_read_back_closed(tmp_path, case):
    dag, parents, sets, seed = case
    rnd = random.Random(seed)
    m = len(parents)
    if dag:
        names = [f"n{i}" for i in range(m)]
        decl = [f"root/{names[i]}" for i in range(m) if not parents[i]]
        decl += [f"{names[p]}/{names[i]}" for i in range(m) for p in parents[i]]
    else:
        def path(i):
            return str(i) if not parents[i] else path(parents[i][0]) + "/" + str(i)
        names = [path(i) for i in range(m)]
        decl = list(names)
    rnd.shuffle(decl)
    rows = ["?" if s is None else "@".join(names[i] for i in sorted(s)) for s in sets]
    p = tmp_path / "r.arff"
    p.write_text("@relation r\n@attribute x numeric\n@attribute class hierarchical "
                 + ",".join(decl) + "\n@data\n" + "".join(f"{k},{r}\n" for k, r in enumerate(rows)))
    ds = load_dataset(p, hierarchy="dag" if dag else "tree", semi_supervised=True)
    h = ds.hierarchy
    assert sorted(h.labels) == sorted(names) and _is_topological(h)
    col = {lab: j for j, lab in enumerate(h.labels)}
    for j, lab in enumerate(h.labels):
        assert {h.labels[q] for q in h.parents[j]} == {names[q] for q in parents[names.index(lab)]}
    for r, s in enumerate(sets):
        assert ds.labeled[r] == (s is not None)
        if s is not None:
            want = {col[names[i]] for i in _closure(parents, s)}
            assert set(np.flatnonzero(ds.Y[r])) == want
    # writer form: declared values + most specific labels rebuild the same matrix
    h2 = build_hierarchy(declared_values(h), h.kind)
    assert h2.labels == h.labels
    Y2, _ = encode_label_sets(label_set_strings(h, ds.Y), h2)
    np.testing.assert_array_equal(Y2[ds.labeled], ds.Y[ds.labeled])


# -- CLUS reference files ---------------------------------------------------------------------
@needs_clus
def test_clus_tree_reference():
    ds = load_dataset(CLUS / "testTreeHMLC.arff")  # tar2 (the last hierarchical) is the target
    h = ds.hierarchy
    assert ds.task == "hmlc" and h.kind == "tree" and h.n_labels == 16
    assert ds.feature_names == ["feat1", "feat2", "feat3", "tar1", "tar3"]
    rows = [set(h.labels[j] for j in np.flatnonzero(y)) for y in ds.Y]
    assert rows[0] == {"1", "1/1", "1/1/1", "1/1/1/1", "1/1/1/1/1", "1/1/1/1/1/1"}
    assert rows[4] == {"1", "1/2"}
    assert h.depths().max() == 6
    w = dict(zip(h.labels, h.weights(0.9)))
    assert w["1/1/1/2/1/1"] == pytest.approx(0.9 ** 6)


@needs_clus
def test_clus_dag_reference_closure_and_weights():
    ds = load_dataset(CLUS / "testDagHMLC-RealWorld.arff", hierarchy="dag")
    h = ds.hierarchy
    assert (ds.n_examples, ds.n_features, h.n_labels) == (440, 1251, 626)
    assert _is_topological(h) and sum(len(p) > 1 for p in h.parents) > 0
    for j, par in enumerate(h.parents):  # every row is closed upwards
        rows = ds.Y[:, j] == 1
        for p in par:
            assert ds.Y[rows, p].all()
    # independent weights from the declared edges: w = w0 * sum(parent weights), top = w0
    text = (CLUS / "testDagHMLC-RealWorld.arff").read_text()
    decl = next(line for line in text.splitlines() if "hierarchical" in line).split()[-1]
    par: dict[str, list[str]] = {}
    for e in decl.split(","):
        a, b = e.split("/")
        par.setdefault(b, [])
        if a != "root":
            par[b].append(a)
            par.setdefault(a, [])
    memo: dict[str, float] = {}

    def w(v):
        if v not in memo:
            memo[v] = 0.75 if not par[v] else 0.75 * sum(w(p) for p in par[v])
        return memo[v]

    got = dict(zip(h.labels, h.weights(0.75, aggregate="sum")))
    assert set(got) == set(par)
    for v in par:
        assert got[v] == pytest.approx(w(v), rel=1e-12)


@needs_clus
def test_tree_reading_of_dag_file_is_detected():
    ds = load_dataset(CLUS / "testDagHMLC-RealWorld.arff")  # no type given: detected
    assert ds.hierarchy.kind == "dag"
    assert "root" not in ds.hierarchy.labels
