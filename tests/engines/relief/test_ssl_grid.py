"""The SSL-Relief tuning grid (``relief.tune._ssl_grid``, kernel ``ext/relief/_ssl_grid.pyx``)
against a frozen plain-numpy reference: the one-pass grid as first written (per-pair weight
matrix of six monomials x (1, dc) per fold, times each k's slot-class weights, summed by
matrix products). The kernel must give the same importances (to 1e-12 of their scale), the
same held-out losses and so the same chosen (w0, w1, k) and final ranking; the kernel itself
must not depend on ``jobs``.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.synthetic import planted_ssl
from tests.conftest import need_kernel

need_kernel("frcli._ext.relief._ssl_grid")

from frcli.engines.relief import tune as RT  # noqa: E402
from frcli.engines.relief.common import TargetDistance, kernel  # noqa: E402
from frcli.engines.relief.relief import (class_weights, estimate,  # noqa: E402
                                         influence_position, kernel_search, prepare)
from tests.helpers.relief import small  # noqa: E402


def reference_grid(K_, ds, lab_f, fmeta, Xc, rows, nbrs, search, points, neighbours, sigma,
                   distance, w0, weight_aggregate, jobs):
    """Frozen plain-numpy reference of ``RT._ssl_grid`` (its first, matrix-product form)."""
    nbr, dist, cnt = nbrs
    nbr, dist, cnt = nbr[:, 0, :], dist[:, 0, :], cnt[:, 0]
    m, kmax = nbr.shape
    valid = nbr >= 0
    avail_vals = np.unique(cnt)
    klass = (np.searchsorted(avail_vals, cnt)[:, None] * kmax + np.arange(kmax)[None, :])
    ra = np.repeat(rows, kmax).reshape(m, kmax)[valid]
    rb = nbr[valid].astype(np.int64)
    dx = dist[valid]
    kc = klass[valid]                                   # each pair's slot class
    chans = []
    for lf in lab_f:
        # influence ω = a + w1 b + w0 c: a = 1 labeled; b = 1 - t, c = t unlabeled
        t = influence_position(search, lf)
        t = np.zeros(lf.size) if t is None else t
        a = lf.astype(np.float64)
        b = np.where(lf, 0.0, 1.0 - t)
        c = np.where(lf, 0.0, t)
        ar, br, cr, an, bn, cn = a[ra], b[ra], c[ra], a[rb], b[rb], c[rb]
        mono = np.stack([ar * an, ar * bn + br * an, ar * cn + cr * an, br * bn,
                         br * cn + cr * bn, cr * cn], axis=1)          # (pairs, 6)
        both = lf[ra] & lf[rb]
        dc = dx.copy()
        if both.any():   # d_Y between labeled pairs (ranges of this fold's labels), d_X else
            td = TargetDistance(ds, distance, w0, weight_aggregate, False, np.flatnonzero(lf))
            fa, fb = ra[both], rb[both]
            vals = np.zeros(fa.size)
            step = max(1, 4_000_000 // max(1, ds.Y.shape[1]))
            for s0 in range(0, fa.size, step):
                vals[s0:s0 + step] = td(fa[s0:s0 + step], fb[s0:s0 + step], jobs)[0]
            dc[both] = vals
        chans += [mono, mono * dc[:, None]]
    W = np.concatenate(chans, axis=1)                                  # (pairs, folds*12)
    Q = W.shape[1]
    F = Xc.shape[0]
    nk = len(neighbours)
    # every k's slot-class weights folded into the pair weightings: one matrix product per
    # block of pairs gives every (k, fold, weighting) sum (many small per-class products are
    # slow, above all with a multi-threaded BLAS on a loaded machine)
    pwT = np.ascontiguousarray(
        np.stack([class_weights(avail_vals, kmax, k, sigma) for k in neighbours])[:, kc].T)
    acc = np.zeros((Q, nk * F))
    tot = np.zeros((Q, nk))
    pa, pb = ra.astype(np.int32), rb.astype(np.int32)
    step = max(1, RT._BLOCK // max(1, nk * F, Q))
    for s0 in range(0, ra.size, step):
        s1 = min(ra.size, s0 + step)
        D = K_.pair_distances(Xc, fmeta.kind, fmeta.mn, fmeta.rg, fmeta.nm, pa[s0:s1], pb[s0:s1])
        Dk = (D[:, None, :] * pwT[s0:s1, :, None]).reshape(s1 - s0, nk * F)
        acc += W[s0:s1].T @ Dk
        tot += W[s0:s1].T @ pwT[s0:s1]
    folds = len(lab_f)
    out = {}
    for ki, k in enumerate(neighbours):
        A = acc[:, ki * F:(ki + 1) * F].reshape(folds, 2, 6, F)
        Tt = tot[:, ki].reshape(folds, 2, 6)
        for p in points:
            fa_, fn_ = p
            mu = np.array([1.0, fn_, fa_, fn_ * fn_, fa_ * fn_, fa_ * fa_])
            dF = mu @ A[:, 0].transpose(1, 0, 2).reshape(6, -1)
            dFdT = mu @ A[:, 1].transpose(1, 0, 2).reshape(6, -1)
            S = Tt[:, 0] @ mu
            T = Tt[:, 1] @ mu
            dF = dF.reshape(folds, F)
            dFdT = dFdT.reshape(folds, F)
            for f in range(folds):
                out[(f, p, k)] = estimate(dFdT[f], dF[f], float(T[f]), float(S[f]))
    return out


def _grid_inputs(ds, seed=3, folds=3, kmax=30):
    K_ = kernel("_relief")
    prep = prepare(ds, "auto")
    rows = np.random.default_rng(seed).permutation(ds.n_examples)
    search = kernel_search(K_, prep, 1, ds)
    nbrs = search(rows, np.zeros(ds.n_examples, np.int32), 1, kmax)
    lab = np.flatnonzero(ds.labeled)
    masks = [ds.labeled & ~np.isin(np.arange(ds.n_examples), lab[f::folds])
             for f in range(folds)]
    return K_, prep, rows, search, nbrs, masks


@pytest.mark.parametrize("task", ["classification", "regression", "mlc"])
@pytest.mark.parametrize("sigma", [0.0, 0.5])
@pytest.mark.parametrize("block", [None, 200])    # 200: per-k columns, several pair blocks
def test_grid_equals_the_frozen_reference(task, sigma, block, monkeypatch):
    ds = small(task, seed=1, n=120)
    K_, prep, rows, search, nbrs, masks = _grid_inputs(ds)
    dist = "hamming" if task == "mlc" else None
    args = (K_, ds, masks, prep[0], prep[1], rows, nbrs, search, list(RT.INFLUENCE_GRID[1:]),
            [15, 20, 30], sigma, dist, 0.75, "sum", 1)
    want = reference_grid(*args)
    if block:
        monkeypatch.setattr(RT, "_BLOCK", block)
    got = RT._ssl_grid(*args)
    assert got.keys() == want.keys()
    for key, w in want.items():
        scale = max(np.abs(w).max(), 1e-300)
        np.testing.assert_allclose(got[key], w, rtol=0, atol=1e-12 * scale, err_msg=str(key))


@pytest.mark.parametrize("case", [("classification", 0, 0.0), ("regression", 0, 0.0),
                                  ("mlc", 1, 0.5), ("regression", 2, 0.5)])
def test_tuning_chooses_as_with_the_reference_grid(case, monkeypatch):
    """Same losses, the same chosen point and the same final ranking as the reference."""
    task, seed, sigma = case
    ds = small(task, seed, n=150)
    kw = {"distance": "hamming"} if task == "mlc" else {}
    r_new, t_new = RT.tune_relief(ds, sigma=sigma, **kw)
    monkeypatch.setattr(RT, "_ssl_grid", reference_grid)
    r_ref, t_ref = RT.tune_relief(ds, sigma=sigma, **kw)
    assert (t_new.influence, t_new.neighbours) == (t_ref.influence, t_ref.neighbours)
    assert t_new.losses.keys() == t_ref.losses.keys()
    for c, v in t_ref.losses.items():
        assert t_new.losses[c] == pytest.approx(v, rel=1e-12, abs=1e-300), c
    np.testing.assert_array_equal(r_new.importances, r_ref.importances)


@pytest.mark.parametrize("task,want", [("classification", ((0.0, 0.0), 15)),
                                       ("regression", ((0.0, 0.5), 30))])
def test_benchmark_choices_are_frozen(task, want):
    """The choices of the benchmark's planted sets (bench/bench_ssl.py) as the reference
    grid made them: a change to the grid's sums must not move them."""
    ds = planted_ssl(task=task, holds=True, seed=0)[0]
    _, t = RT.tune_relief(ds)
    assert (t.influence, t.neighbours) == want


def test_kernel_is_the_plain_sum_and_independent_of_jobs():
    """Direct check of ``accumulate``: the monomials and sums as defined, for 1 and 2 threads
    over several feature blocks (bitwise equal)."""
    from frcli._ext.relief import _ssl_grid as G

    rng = np.random.default_rng(0)
    n, P, F, folds, ncol = 40, 300, 150, 3, 2
    ra = rng.integers(0, n, P).astype(np.int32)
    rb = rng.integers(0, n, P).astype(np.int32)
    col = rng.integers(-1, ncol, P).astype(np.int32)
    pw = rng.random(P)
    lab = (rng.random((folds, n)) < 0.3).astype(np.uint8)
    t = np.where(lab, 0.0, rng.random((folds, n)))
    dc = rng.random((folds, P))
    D = rng.random((P, F))
    outs = []
    for jobs in (1, 2):
        acc = np.zeros((ncol, folds, 2, 6, F))
        tot = np.zeros((ncol, folds, 2, 6))
        G.accumulate(D, ra, rb, col, pw, lab, t, dc, acc, tot, jobs)
        outs.append((acc, tot))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    a, b, c = lab.astype(float), np.where(lab, 0, 1 - t), np.where(lab, 0, t)
    want = np.zeros((ncol, folds, 2, 6, F))
    wtot = np.zeros((ncol, folds, 2, 6))
    for p in range(P):
        if col[p] < 0:
            continue
        r, s = ra[p], rb[p]
        for f in range(folds):
            m = np.array([a[f, r] * a[f, s], a[f, r] * b[f, s] + b[f, r] * a[f, s],
                          a[f, r] * c[f, s] + c[f, r] * a[f, s], b[f, r] * b[f, s],
                          b[f, r] * c[f, s] + c[f, r] * b[f, s], c[f, r] * c[f, s]]) * pw[p]
            want[col[p], f, 0] += m[:, None] * D[p]
            want[col[p], f, 1] += (m * dc[f, p])[:, None] * D[p]
            wtot[col[p], f, 0] += m
            wtot[col[p], f, 1] += m * dc[f, p]
    np.testing.assert_allclose(outs[0][0], want, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(outs[0][1], wtot, rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError):
        G.accumulate(D, ra, rb, np.full(P, ncol, np.int32), pw, lab, t, dc,
                     np.zeros((ncol, folds, 2, 6, F)), np.zeros((ncol, folds, 2, 6)))


def test_nearest_member_layer_equals_the_kernel_search():
    """``add_nearest`` reads the nearest member off the K-lists (searching the rows whose
    list holds none): the kernel's own answer, ties included, for sparse and dense members
    and for a K-list layer of only some rows."""
    rng = np.random.default_rng(2)
    n = 150
    X = rng.integers(0, 3, size=(n, 4)).astype(float)        # many exact ties
    from frcli.data.dataset import Attribute, Dataset
    ds = Dataset("t", X, [Attribute(f"f{i}", "numeric") for i in range(4)], "unsupervised")
    K_ = kernel("_relief")
    prep = prepare(ds, "auto")
    plain = kernel_search(K_, prep, 1, ds)
    for frac, some in [(0.02, False), (0.15, False), (0.6, True), (0.0, False)]:
        member = rng.random(n) < frac
        shared = RT.SharedSearch(K_, prep, 1, ds)
        rows = rng.permutation(n)[:90] if some else np.arange(n)
        shared.add(rows, np.zeros(n, np.int32), 1, 8)
        shared.add_nearest(member)
        q = np.arange(n, dtype=np.int32)
        group = np.where(member, 0, -1).astype(np.int32)
        for got, want in zip(shared(q, group, 1, 1), plain(q, group, 1, 1)):
            np.testing.assert_array_equal(got, want)
    # several masks at once (the tuner's folds): the rows without a listed member are
    # searched once, over the rows grouped by which masks hold them
    for some in (False, True):
        members = [rng.random(n) < frac for frac in (0.05, 0.3, 0.3, 0.0, 0.8)]
        members[2] &= ~members[1]
        shared = RT.SharedSearch(K_, prep, 1, ds)
        rows = rng.permutation(n)[:90] if some else np.arange(n)
        shared.add(rows, np.zeros(n, np.int32), 1, 3)
        shared.add_nearest(*members)
        q = np.arange(n, dtype=np.int32)
        for member in members:
            group = np.where(member, 0, -1).astype(np.int32)
            for got, want in zip(shared(q, group, 1, 1), plain(q, group, 1, 1)):
                np.testing.assert_array_equal(got, want)
