"""The tie-aware split kernels against the plain-numpy reference of ``test_tree_split``.

Features with ties (integers, binary, rounded values, a constant) are split by three kernels:
the gathered sort (``path="plain"``), the presorted lists swept by runs of equal values
(``"lists"``: ``_splitter._sweep_runs``; tie-free features by ``_sweep_tiefree``; with the
runs unmarked, ``"fewties"``: ``_sweep_tiefree(fewties)``, complete mode) and the
per-value sums of features with at most 256 values (``"counts"``: ``_sweep_values``). Each
must choose the reference's test (feature, threshold) with its h and branch weights, which
``ref_candidates`` finds by recomputing every cut between two distinct values from scratch.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.columns import MODE_COMPLETE, MODE_SPARSE01, clustering_spec
from tests.conftest import need_kernel
from tests.helpers.pct import dense_C, ncat_of, ref_candidates, ref_gain, ref_select

_tree = need_kernel("frcli._ext.pct._tree")
_presort = need_kernel("frcli._ext.pct._presort")

PATHS = ("plain", "lists", "fewties", "counts")


def tied_features(rng, n):
    """Binary, small integers, 3-digit values, many ties near a few values, a constant, one
    full-precision column (tie-free), 300 distinct integers (too many for the counts)."""
    X = np.column_stack([
        rng.integers(0, 2, n),
        rng.integers(0, 7, n),
        np.round(rng.uniform(0, 1, n), 2),
        np.where(rng.random(n) < 0.8, 0.0, rng.integers(1, 4, n)),
        np.full(n, 3.0),
        rng.normal(size=n),
        rng.permutation(np.arange(n) % 300),
    ]).astype(float)
    return X, [Attribute(f"x{j}", "numeric") for j in range(X.shape[1])]


def kernel(X, ncat, spec, rows, w, path, min_leaf):
    Xt = np.ascontiguousarray(X.T)
    return _tree._split_node(Xt, ncat, spec.C, spec.a, spec.mode, spec.indptr, spec.indices,
                             spec.est0, rows.astype(np.int32), w.astype(np.float64),
                             X.shape[1], min_leaf, False, 1, path)


def dataset(rng, n, task):
    X, feats = tied_features(rng, n)
    signal = X[:, 1] + 2 * X[:, 3] - X[:, 2] + 0.5 * X[:, 0]
    if task == "classification":
        y = np.digitize(signal + 0.3 * rng.normal(size=n), [1.0, 2.5, 4.0]).astype(float)
        return Dataset("c", X, feats, task, y[:, None],
                       [Attribute("y", "nominal", ("a", "b", "c", "d"))])
    if task == "classes9":          # nine classes: the sparse 0/1 mode
        y = np.digitize(signal + 0.3 * rng.normal(size=n), np.linspace(0.0, 5.0, 8))
        return Dataset("c9", X, feats, "classification", y[:, None].astype(float),
                       [Attribute("y", "nominal", tuple("abcdefghi"))])
    if task == "regression":        # one clustering column (the kernels' K = 1 loops)
        y = signal + rng.normal(size=n)
        return Dataset("r1", X, feats, task, y[:, None], [Attribute("y", "numeric")])
    Y = np.column_stack([signal, -signal * 0.3]) + rng.normal(size=(n, 2))
    return Dataset("r", X, feats, "mtr", Y, [Attribute(f"y{j}", "numeric") for j in range(2)])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("task", ["mtr", "classification", "regression", "classes9"])
@pytest.mark.parametrize("seed", range(6))
def test_tied_features_choose_the_reference_test(seed, task, path):
    rng = np.random.default_rng([seed, len(task)])
    n = 600
    ds = dataset(rng, n, task)
    spec = clustering_spec(ds)
    assert spec.mode == (MODE_SPARSE01 if task == "classes9" else MODE_COMPLETE)
    ncat = ncat_of(ds)
    # a node: distinct rows with bag counts (the lists and counts paths need integer weights)
    rows = np.sort(rng.choice(n, size=int(rng.integers(30, n)), replace=False))
    w = rng.integers(1, 4, rows.size).astype(float)
    min_leaf = float(rng.integers(1, 6))
    X = ds.X
    C = dense_C(spec, n)[rows]
    # only the numeric candidates; the reference evaluates the features in index order
    cands = ref_candidates(X[rows], ncat, C, spec.a, w, spec.est0, min_leaf)
    chosen = ref_select(cands)
    got = kernel(X, ncat, spec, rows, w, path, min_leaf)
    if chosen is None:
        assert got is None
        return
    f, thr, h, WL, WR, _ = got
    assert (f, thr) == (chosen[0], chosen[1])
    assert h == pytest.approx(chosen[2], rel=1e-9, abs=1e-12)
    x = X[rows, f]
    assert ref_gain(C, spec.a, w, spec.est0, x <= thr, x > thr) == pytest.approx(h, rel=1e-9)
    assert (WL, WR) == (w[x <= thr].sum(), w[x > thr].sum())      # integer counts: exact


def test_the_kernels_under_test_are_taken():
    """The count tables and run starts exist for the features the test above relies on."""
    rng = np.random.default_rng(0)
    X, _ = tied_features(rng, 600)
    Xt = np.ascontiguousarray(X.T)
    ncat = np.zeros(X.shape[1], np.int32)
    cslot, codes, values = _presort.count_plan(Xt, ncat)
    assert list(cslot) == [0, 1, 2, 3, -2, -1, -1]        # constant: -2; >256 values: none
    for f in range(4):
        u = np.unique(X[:, f])
        assert np.array_equal(values[cslot[f], :u.size], u)
        assert np.array_equal(u[codes[:, cslot[f]]], X[:, f])
    order, slot, _ = _presort.presort_plan(Xt, ncat, 7, False, 2, cslot != -1)
    assert list(np.flatnonzero(slot >= 0)) == [5, 6]
    assert list(_presort.presort_runs(Xt, order, slot)) == [0, 1]   # x5 tie-free, x6 by runs


def test_a_flipped_threshold_would_be_caught():
    """The reference check above fails for a test that is not the best (it can fail)."""
    rng = np.random.default_rng(3)
    ds = dataset(rng, 300, "mtr")
    spec = clustering_spec(ds)
    rows = np.arange(300)
    w = np.ones(300)
    cands = ref_candidates(ds.X, ncat_of(ds), spec.C, spec.a, w, spec.est0, 2.0)
    best = ref_select(cands)
    got = kernel(ds.X, ncat_of(ds), spec, rows, w, "counts", 2.0)
    assert (got[0], got[1]) == (best[0], best[1])
    worse = [c for c in cands if c[0] == best[0] and c[1] != best[1]]
    assert worse and all(c[2] < best[2] for c in worse)
