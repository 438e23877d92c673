"""Weighted kNN against a brute-force reference of spec-core §6.1 / §1.4."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from frcli.data.dataset import Attribute, Dataset
from frcli.evaluate.knn import knn_predict, knn_weights, neighbours


def brute_distance2(a, b, lo, rng, nominal, n_cat, w):
    d2 = 0.0
    for i in range(len(a)):
        if w[i] == 0:
            continue
        x, y = a[i], b[i]
        if nominal[i]:
            if np.isnan(x) or np.isnan(y):
                d = 1.0 - 1.0 / n_cat[i]
            else:
                d = float(x != y)
        else:
            if np.isnan(x) and np.isnan(y):
                d = 1.0
            elif np.isnan(x) or np.isnan(y):
                t = ((y if np.isnan(x) else x) - lo[i]) / rng[i]
                d = max(t, 1 - t)
            else:
                d = abs(x - y) / rng[i]
        d2 += w[i] * d * d
    return d2


def brute_neighbours(Xtr, Xte, nominal, n_cat, w, k):
    lo = np.nanmin(Xtr, axis=0)
    hi = np.nanmax(Xtr, axis=0)
    rng = np.where(hi > lo, hi - lo, 1.0)
    out = []
    for a in Xte:
        d = np.array([brute_distance2(a, b, lo, rng, nominal, n_cat, w) for b in Xtr])
        out.append(np.argsort(d, kind="stable")[:k])
    return np.array(out), lo, rng


def make_X(rng, n, F, nominal, n_cat, p_missing):
    X = rng.random((n, F))
    for i in np.flatnonzero(nominal):
        X[:, i] = rng.integers(0, n_cat[i], n)
    X[rng.random((n, F)) < p_missing] = np.nan
    # keep at least two known training values per numeric feature
    X[0, ~nominal] = 0.0
    X[1, ~nominal] = 1.0
    return X


@pytest.mark.parametrize("p_missing", [0.0, 0.15])
def test_neighbours_match_brute_force(p_missing):
    rng = np.random.default_rng(1)
    F = 7
    nominal = np.array([0, 1, 0, 0, 1, 0, 0], bool)
    n_cat = np.array([0, 3, 0, 0, 4, 0, 0])
    Xtr = make_X(rng, 60, F, nominal, n_cat, p_missing)
    Xte = make_X(rng, 25, F, nominal, n_cat, p_missing) * np.where(nominal, 1, 1.3)
    w = knn_weights(rng.normal(size=F))
    got = neighbours(Xtr, Xte, nominal, n_cat, w, 5)
    ref, _, _ = brute_neighbours(Xtr, Xte, nominal, n_cat, w, 5)
    np.testing.assert_array_equal(got, ref)


def test_ties_broken_by_training_index():
    # all-nominal data with integer weights: many exact ties
    rng = np.random.default_rng(3)
    Xtr = rng.integers(0, 2, (40, 5)).astype(float)
    Xte = rng.integers(0, 2, (15, 5)).astype(float)
    nominal = np.ones(5, bool)
    n_cat = np.full(5, 2)
    w = np.array([1.0, 2.0, 1.0, 3.0, 1.0])
    got = neighbours(Xtr, Xte, nominal, n_cat, w, 7)
    ref, _, _ = brute_neighbours(Xtr, Xte, nominal, n_cat, w, 7)
    np.testing.assert_array_equal(got, ref)


def test_blocks_do_not_change_result(monkeypatch):
    import frcli.evaluate.knn as knn

    rng = np.random.default_rng(4)
    Xtr, Xte = rng.random((50, 4)), rng.random((33, 4))
    nominal, n_cat, w = np.zeros(4, bool), np.zeros(4, int), np.ones(4)
    full = neighbours(Xtr, Xte, nominal, n_cat, w, 3)
    monkeypatch.setattr(knn, "_BLOCK_CELLS", 120)   # blocks of 2 rows
    np.testing.assert_array_equal(neighbours(Xtr, Xte, nominal, n_cat, w, 3), full)


def test_weights():
    np.testing.assert_array_equal(knn_weights([-1, 0.5, np.nan]), [0, 0.5, 0])
    np.testing.assert_array_equal(knn_weights([-1, 0, -3]), [1, 1, 1])


def _ds(X, Y, task, nominal=None, targets=None):
    F = X.shape[1]
    nominal = np.zeros(F, bool) if nominal is None else nominal
    feats = [Attribute(f"x{i}", "nominal" if nominal[i] else "numeric",
                       ("a", "b", "c") if nominal[i] else ()) for i in range(F)]
    return Dataset("t", X, feats, task, Y=Y, targets=targets or [])


def test_predictions_per_task():
    rng = np.random.default_rng(5)
    X = rng.random((30, 3))
    Xte = rng.random((8, 3))
    imp = np.array([1.0, 0.2, -1.0])
    idx = neighbours(X, Xte, np.zeros(3, bool), np.zeros(3, int), knn_weights(imp), 4)
    # mtr with a missing target value
    Y = rng.random((30, 2))
    Y[idx[0, 0], 1] = np.nan
    P = knn_predict(_ds(X, Y, "mtr"), Xte, imp, 4)
    np.testing.assert_allclose(P, np.nanmean(Y[idx], axis=1))
    # mlc: label probabilities
    L = rng.integers(0, 2, (30, 3)).astype(np.uint8)
    P = knn_predict(_ds(X, L, "mlc"), Xte, imp, 4)
    np.testing.assert_allclose(P, L[idx].mean(axis=1))
    # classification: vote shares
    c = rng.integers(0, 3, 30).astype(float)[:, None]
    tgt = [Attribute("class", "nominal", ("p", "q", "r"))]
    P = knn_predict(_ds(X, c, "classification", targets=tgt), Xte, imp, 4)
    ref = np.stack([(c[idx, 0] == j).mean(axis=1) for j in range(3)], axis=1)
    np.testing.assert_allclose(P, ref)
    # unsupervised: mean raw feature vectors of the neighbours (top-2 features only, unweighted)
    P = knn_predict(_ds(X, None, "unsupervised"), Xte, imp, 1, weighted=False, top=2)
    idx1 = neighbours(X, Xte, np.zeros(3, bool), np.zeros(3, int), np.array([1., 1., 0.]), 1)
    np.testing.assert_allclose(P, X[idx1[:, 0]])


def test_label_task_ignores_unlabeled_training_rows():
    rng = np.random.default_rng(6)
    X = rng.random((20, 2))
    L = rng.integers(0, 2, (20, 2)).astype(np.uint8)
    ds = _ds(X, L, "mlc")
    mask = np.zeros(20, bool)
    mask[::2] = True
    thin = ds.with_unlabeled(mask)
    P = knn_predict(thin, X[:5], np.ones(2), 3)
    keep = ~mask
    idx = neighbours(X[keep], X[:5], np.zeros(2, bool), np.zeros(2, int), np.ones(2), 3)
    np.testing.assert_allclose(P, L[keep][idx].mean(axis=1))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(1, 9))
def test_property_matches_brute_force(seed, F, k):
    rng = np.random.default_rng(seed)
    nominal = rng.random(F) < 0.3
    n_cat = np.where(nominal, rng.integers(2, 5, F), 0)
    Xtr = make_X(rng, 15, F, nominal, n_cat, 0.1)
    Xte = make_X(rng, 6, F, nominal, n_cat, 0.1)
    w = knn_weights(rng.normal(size=F))
    got = neighbours(Xtr, Xte, nominal, n_cat, w, k)
    ref, _, _ = brute_neighbours(Xtr, Xte, nominal, n_cat, w, k)
    # compare distance profiles (robust to exact ties straddling the quantisation grid)
    lo = np.nanmin(Xtr, axis=0)
    hi = np.nanmax(Xtr, axis=0)
    rg = np.where(hi > lo, hi - lo, 1.0)
    for a, g, r in zip(Xte, got, ref):
        dg = [brute_distance2(a, Xtr[j], lo, rg, nominal, n_cat, w) for j in g]
        dr = [brute_distance2(a, Xtr[j], lo, rg, nominal, n_cat, w) for j in r]
        np.testing.assert_allclose(dg, dr, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("k", [1, 5, 15, 40])
def test_select_wide_blocks_with_ties(k):
    from frcli.evaluate.knn import _select

    rng = np.random.default_rng(k)
    n = 40_000                                           # wide: the candidate-bound path
    for D in (np.rint(rng.random((20, n)) * 500),         # many exact ties
              rng.random((20, n)),
              np.sort(rng.random((20, n)), axis=1)[:, ::-1].copy()):   # nearest columns last
        np.testing.assert_array_equal(_select(D, k), np.argsort(D, axis=1, kind="stable")[:, :k])
