"""The Cython Relief engine against a plain-numpy brute-force Relief, for every variant.

The reference below is written straight from the specs (verified-conventions.md, spec-core
§1.4/§5, spec-ssl-unsup §3-4): one instance at a time, a full distance row, a stable sort for
neighbours, weights normalised per iteration and the estimator accumulated iteration by
iteration. It shares no code with ``frcli.engines.relief`` except the sampling contract (a
``numpy.random.default_rng(seed).permutation`` prefix).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset, Hierarchy
from tests.conftest import need_kernel

need_kernel("frcli._ext.relief._relief")

from frcli.engines.relief.relief import relief  # noqa: E402
from tests.helpers.relief import (GRID_CASES, make_X, ref_dx, ref_feature_dist,  # noqa: E402
                                  ref_rows, ref_weights)

# -- reference ------------------------------------------------------------------------------


def ref_relieff(X, nominal, nvals, y, k, sigma, rows):
    n, F = X.shape
    classes = np.unique(y[~np.isnan(y)])
    prior = {c: np.mean(y[~np.isnan(y)] == c) for c in classes}
    w = np.zeros(F)
    for r in rows:
        D = ref_feature_dist(X, nominal, nvals, r)
        dx = ref_dx(D)
        for c in classes:
            cand = np.flatnonzero((y == c) & (np.arange(n) != r))
            nb = cand[np.argsort(dx[cand], kind="stable")][:k]
            if nb.size == 0:
                continue
            ws = ref_weights(nb.size, sigma)
            contrib = (ws[:, None] * D[nb]).sum(axis=0)
            if c == y[r]:
                w -= contrib
            else:
                w += prior[c] / (1 - prior[y[r]]) * contrib
    return w / len(rows)


def ref_rrelieff(X, nominal, nvals, k, sigma, rows, dY, pair_weight=None, labeled=None,
                 cand_mask=None):
    """dY(r, j) -> target distance; SSL when pair_weight/labeled are given (Alg. 3.2).
    ``cand_mask``: rows allowed as neighbours (default all)."""
    n, F = X.shape
    dT = 0.0
    dF = np.zeros(F)
    dFdT = np.zeros(F)
    S = 0.0
    for r in rows:
        D = ref_feature_dist(X, nominal, nvals, r)
        dx = ref_dx(D)
        cand = np.array([j for j in range(n) if j != r
                         and (cand_mask is None or cand_mask[j])])
        nb = cand[np.argsort(dx[cand], kind="stable")][:k]
        ws = ref_weights(nb.size, sigma)
        for wl, j in zip(ws, nb):
            if pair_weight is not None:
                wl = wl * pair_weight[r] * pair_weight[j]
                dc = dY(r, j) if labeled[r] and labeled[j] else dx[j]
            else:
                dc = dY(r, j)
            S += wl
            dT += wl * dc
            dF += wl * D[j]
            dFdT += wl * D[j] * dc
    t1 = dFdT / dT if dT > 0 else 0 * dF
    t2 = (dF - dFdT) / (S - dT) if S - dT > 0 else 0 * dF
    return t1 - t2


def ref_target_dist_mean(Y, nominal_t, nvals_t):
    """Mean per-target distance with the descriptive conventions (numeric/nominal/missing)."""
    cache = {}

    def d(r, j):
        if r not in cache:
            cache[r] = ref_feature_dist(Y, nominal_t, nvals_t, r)
        return cache[r][j].mean()
    return d


def ref_mlc_dist(Y, kind, w=None):
    w = np.ones(Y.shape[1]) if w is None else w

    def d(r, j):
        a, b = Y[r].astype(bool), Y[j].astype(bool)
        if kind == "hamming":
            return w[a != b].sum() / w.sum()
        if kind == "subset":
            return float((a != b).any())
        inter = w[a & b].sum()
        if kind == "accuracy":
            union = w[a | b].sum()
            return 0.0 if union == 0 else 1 - inter / union
        tot = w[a].sum() + w[b].sum()
        return 0.0 if tot == 0 else 1 - 2 * inter / tot
    return d


# -- random data ----------------------------------------------------------------------------


@pytest.mark.parametrize("missing,ties", [(0.0, False), (0.15, False), (0.0, True)])
def test_rrelieff_mtr_mixed_targets(missing, ties):
    rng = np.random.default_rng(1)
    n = 30
    X, nominal, nvals, feats = make_X(rng, n, missing=missing, ties=ties)
    Y = np.column_stack([X[:, 0] + rng.normal(size=n) * 0.1 if not ties else rng.normal(size=n),
                         rng.integers(0, 3, n).astype(float), rng.normal(size=n)])
    Y[rng.random(Y.shape) < missing] = np.nan
    Y[np.all(np.isnan(Y), axis=1), 0] = 0.5
    targets = [Attribute("t0", "numeric"), Attribute("t1", "nominal", ("a", "b", "c")),
               Attribute("t2", "numeric")]
    ds = Dataset("r", X, feats, "mtr", Y=Y, targets=targets)
    nt, nvt = np.array([False, True, False]), np.array([0, 3, 0])
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], seed=3, per_target=True,
                     nominal_targets="shared")[0]
        rows = ref_rows(n, frac, 3)
        want = ref_rrelieff(X, nominal, nvals, k, sg, rows, ref_target_dist_mean(Y, nt, nvt))
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)
        for t in range(3):
            want_t = ref_rrelieff(X, nominal, nvals, k, sg, rows,
                                  ref_target_dist_mean(Y[:, [t]], nt[[t]], nvt[[t]]))
            np.testing.assert_allclose(got.per_target[t], want_t, rtol=0, atol=1e-12)
        assert got.importances[-1] == 0.0 or missing   # constant feature


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_relieff_classification(missing):
    rng = np.random.default_rng(2)
    n = 40
    X, nominal, nvals, feats = make_X(rng, n, missing=missing)
    y = (X[:, 0] > 0).astype(float) + (rng.random(n) < 0.3)
    y[:2] = 2.0                              # a tiny class: fewer than k neighbours
    y[5] = np.nan                            # unknown class: neither sampled nor neighbour
    ds = Dataset("c", X, feats, "classification", Y=y[:, None],
                 targets=[Attribute("y", "nominal", ("a", "b", "c"))])
    eligible = np.flatnonzero(~np.isnan(y))
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], seed=5, unlabeled="ignore")[0]
        want = ref_relieff(X, nominal, nvals, y, k, sg, ref_rows(n, frac, 5, eligible))
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("dist", ["hamming", "accuracy", "f1", "subset"])
def test_mlc_distances(dist):
    rng = np.random.default_rng(3)
    n = 28
    X, nominal, nvals, feats = make_X(rng, n)
    Y = (rng.random((n, 5)) < 0.3).astype(np.uint8)
    Y[:3] = 0                                # empty label sets (spec-core §5.5)
    ds = Dataset("m", X, feats, "mlc", Y=Y, targets=[Attribute(f"l{j}", "numeric")
                                                      for j in range(5)])
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], distance=dist, seed=7)[0]
        want = ref_rrelieff(X, nominal, nvals, k, sg, ref_rows(n, frac, 7),
                            ref_mlc_dist(Y, dist))
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)


def _toy_hierarchy(dag: bool):
    # labels in topological order; in the DAG, label 4 has parents 1 and 2
    parents = [[], [0], [0], [], [1, 2] if dag else [1], [3], [5]]
    return Hierarchy([f"h{j}" for j in range(7)], parents, "dag" if dag else "tree")


def _ref_hmlc_weights(h, w0, agg):
    w = np.zeros(h.n_labels)
    for j, p in enumerate(h.parents):
        if len(p) == 0:
            w[j] = w0 if agg == "sum" else 1.0
        else:
            w[j] = w0 * (w[p].sum() if agg == "sum" else w[p].mean())
    return w


def _ref_U(h, Y, w):
    def closure(j):
        s, todo = set(), [j]
        while todo:
            x = todo.pop()
            if x not in s:
                s.add(x)
                todo.extend(h.parents[x].tolist())
        return s
    sets = [closure(j) for j in np.flatnonzero(Y.any(axis=0))] + [set()]
    best = max(sum(w[list(a ^ b)]) for a in sets for b in sets)
    return best if best > 0 else 1.0


@pytest.mark.parametrize("dag", [False, True])
@pytest.mark.parametrize("dist", ["clus", "euclidean", "hamming", "f1"])
def test_hmlc(dag, dist):
    rng = np.random.default_rng(4)
    n = 26
    X, nominal, nvals, feats = make_X(rng, n)
    h = _toy_hierarchy(dag)
    Y = h.ancestors_closure((rng.random((n, 7)) < 0.25).astype(np.uint8))
    Y[:, 6] = 0                               # a label that never occurs (not in U)
    ds = Dataset("h", X, feats, "hmlc", Y=Y, hierarchy=h)
    agg = "sum" if dist in ("clus", "euclidean") else "mean"
    w = _ref_hmlc_weights(h, 0.75, agg)
    U = _ref_U(h, Y, w)
    if dist in ("clus", "euclidean"):
        def dY(r, j):
            v = w[Y[r] != Y[j]].sum() / U
            return np.sqrt(v) if dist == "euclidean" else v
    else:
        dY = ref_mlc_dist(Y, dist, w)
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], distance=dist, weight_aggregate=agg, seed=9)[0]
        if dist == "clus":
            assert got.meta["hmlc_U"] == pytest.approx(U, abs=1e-14)
        want = ref_rrelieff(X, nominal, nvals, k, sg, ref_rows(n, frac, 9), dY)
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)


def _ref_influence(X, nominal, nvals, labeled, lo, hi):
    unl = np.flatnonzero(~labeled)
    delta = np.array([ref_dx(ref_feature_dist(X, nominal, nvals, u))[labeled].min()
                      for u in unl])
    om = np.ones(len(labeled))
    if delta.max() - delta.min() <= 1e-12:
        om[unl] = (lo + hi) / 2
    else:
        om[unl] = hi + (lo - hi) * (delta - delta.min()) / (delta.max() - delta.min())
    return om


@pytest.mark.parametrize("task", ["regression", "classification", "mlc"])
def test_ssl_relief(task):
    rng = np.random.default_rng(5)
    n = 30
    X, nominal, nvals, feats = make_X(rng, n, missing=0.05)
    labeled = rng.random(n) < 0.5
    labeled[:2] = True
    if task == "mlc":
        Y = (rng.random((n, 3)) < 0.4).astype(np.uint8)
        ds = Dataset("s", X, feats, task, Y=Y, labeled=labeled, semi_supervised=True,
                     targets=[Attribute(f"l{j}", "numeric") for j in range(3)])
        dY = ref_mlc_dist(Y, "hamming")
        kw = {"distance": "hamming"}
    else:
        y = X[:, 1] * 2 + rng.normal(size=n) if task == "regression" else \
            rng.integers(0, 2, n).astype(float)
        y = np.where(np.isnan(y), 0.0, y)
        y[~labeled] = np.nan
        nom = task == "classification"
        ds = Dataset("s", X, feats, task, Y=y[:, None], semi_supervised=True,
                     targets=[Attribute("y", "nominal" if nom else "numeric",
                                        ("0", "1") if nom else ())])
        assert (ds.labeled == labeled).all()
        dY = ref_target_dist_mean(y[:, None], np.array([nom]), np.array([2 if nom else 0]))
        kw = {}
    om = _ref_influence(X, nominal, nvals, labeled, 0.25, 0.75)
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], influence=(0.25, 0.75), seed=11, **kw)[0]
        assert got.meta["variant"] == "ssl"
        want = ref_rrelieff(X, nominal, nvals, k, sg, ref_rows(n, frac, 11), dY,
                            pair_weight=om, labeled=labeled)
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)


def test_urelief():
    rng = np.random.default_rng(6)
    n = 30
    X, nominal, nvals, feats = make_X(rng, n, missing=0.05)
    ds = Dataset("u", X, feats, "unsupervised")
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], seed=13)[0]
        assert got.meta["variant"] == "urelief"
        ones = np.ones(n)
        want = ref_rrelieff(X, nominal, nvals, k, sg, ref_rows(n, frac, 13), None,
                            pair_weight=ones, labeled=np.zeros(n, bool))
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)


def test_closed_form_k1_sigma0():
    """spec-core §5.3: w_i = m/(tau (m - tau)) * sum_t (tau_t - tau/m) alpha_t."""
    rng = np.random.default_rng(7)
    n = 60
    X = rng.random((n, 5))
    y = X[:, 0] + 0.3 * rng.random(n)
    ds = Dataset("cf", X, [Attribute(f"f{i}", "numeric") for i in range(5)], "regression",
                 Y=y[:, None], targets=[Attribute("y", "numeric")])
    got = relief(ds, [1.0], [1], [0.0])[0].importances
    rngX = X.max(0) - X.min(0)
    D = np.abs(X[:, None, :] - X[None, :, :]) / rngX
    dx = D.mean(axis=2)
    np.fill_diagonal(dx, np.inf)
    nb = np.argmin(dx, axis=1)
    tau_t = np.abs(y - y[nb]) / (y.max() - y.min())
    alpha = D[np.arange(n), nb]
    m, tau = n, tau_t.sum()
    want = m / (tau * (m - tau)) * ((tau_t - tau / m)[:, None] * alpha).sum(axis=0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert np.argmax(got) == 0                     # the planted feature wins


def test_grid_in_one_pass_equals_separate_runs():
    rng = np.random.default_rng(8)
    n = 50
    X, _, _, feats = make_X(rng, n, missing=0.05)
    Y = np.column_stack([X[:, 0] + rng.normal(size=n), rng.normal(size=n)])
    Y = np.nan_to_num(Y)
    ds = Dataset("g", X, feats, "mtr", Y=Y,
                 targets=[Attribute("a", "numeric"), Attribute("b", "numeric")])
    its, ks, sgs = [0.2, 1.0, 0.5], [1, 7, 3], [0.0, 0.5]
    grid = relief(ds, its, ks, sgs, seed=2, per_target=True)
    assert [(g.iterations, g.neighbours, g.sigma) for g in grid] == \
        list(itertools.product(its, ks, sgs))
    for g in grid:
        one = relief(ds, [g.iterations], [g.neighbours], [g.sigma], seed=2,
                     per_target=True)[0]
        np.testing.assert_allclose(g.importances, one.importances, rtol=0, atol=1e-13)
        np.testing.assert_allclose(g.per_target, one.per_target, rtol=0, atol=1e-13)


@pytest.mark.parametrize("task", ["mtr", "classification", "ssl", "unsupervised"])
def test_jobs_do_not_change_results(task):
    rng = np.random.default_rng(9)
    n = 700                              # several search blocks and feature blocks
    X, _, _, feats = make_X(rng, n, n_num=12, n_nom=3, missing=0.02)
    if task == "mtr":
        ds = Dataset("j", X, feats, "mtr", Y=rng.normal(size=(n, 2)),
                     targets=[Attribute("a", "numeric"), Attribute("b", "numeric")])
    elif task == "classification":
        ds = Dataset("j", X, feats, task, Y=rng.integers(0, 3, (n, 1)).astype(float),
                     targets=[Attribute("y", "nominal", ("a", "b", "c"))])
    elif task == "ssl":
        y = rng.normal(size=n)
        y[rng.random(n) < 0.5] = np.nan
        ds = Dataset("j", X, feats, "regression", Y=y[:, None], semi_supervised=True,
                     targets=[Attribute("y", "numeric")])
    else:
        ds = Dataset("j", X, feats, "unsupervised")
    a = relief(ds, [0.3, 1.0], [1, 10], [0.0, 0.2], seed=1, jobs=1)
    b = relief(ds, [0.3, 1.0], [1, 10], [0.0, 0.2], seed=1, jobs=2)
    for x, y_ in zip(a, b):
        assert np.array_equal(x.importances, y_.importances)


def test_fewer_candidates_than_k():
    rng = np.random.default_rng(10)
    n = 6
    X, nominal, nvals, feats = make_X(rng, n)
    y = rng.normal(size=n)
    ds = Dataset("f", X, feats, "regression", Y=y[:, None], targets=[Attribute("y", "numeric")])
    got = relief(ds, [1.0], [10, 3], [0.5])
    assert got[0].meta["insufficient_neighbours"] == n
    dY = ref_target_dist_mean(y[:, None], np.array([False]), np.array([0]))
    for g, k in zip(got, [10, 3]):
        want = ref_rrelieff(X, nominal, nvals, k, 0.5, ref_rows(n, 1.0, 0), dY)
        np.testing.assert_allclose(g.importances, want, rtol=0, atol=1e-12)


def test_planted_feature_ranks_first_in_every_variant():
    rng = np.random.default_rng(11)
    n = 300
    X = rng.random((n, 6))
    feats = [Attribute(f"f{i}", "numeric") for i in range(6)]
    dsets = [
        Dataset("r", X, feats, "regression", Y=(3 * X[:, 2] + 0.1 * rng.random(n))[:, None],
                targets=[Attribute("y", "numeric")]),
        Dataset("c", X, feats, "classification", Y=(X[:, 2] > 0.5).astype(float)[:, None],
                targets=[Attribute("y", "nominal", ("0", "1"))]),
        Dataset("m", X, feats, "mlc", Y=np.column_stack([X[:, 2] > 0.5, X[:, 2] > 0.3])
                .astype(np.uint8), targets=[Attribute("a", "numeric"),
                                            Attribute("b", "numeric")]),
    ]
    for ds in dsets:
        imp = relief(ds, [1.0], [10], [0.0])[0].importances
        assert np.argmax(imp) == 2, ds.task


def test_ranker_params_and_errors():
    from frcli.errors import ConfigError
    from frcli.rankers.registry import get_ranker

    rng = np.random.default_rng(12)
    X = rng.random((40, 3))
    feats = [Attribute(f"f{i}", "numeric") for i in range(3)]
    ds = Dataset("p", X, feats, "mtr", Y=rng.random((40, 2)),
                 targets=[Attribute("a", "numeric"), Attribute("b", "numeric")])
    rk = get_ranker("relief-str").rank(ds, {"neighbours": "5", "sigma": [0, "0.1"]})
    assert len(rk) == 2 and rk[0].per_target.shape == (2, 3)
    np.testing.assert_allclose(rk[0].importances, rk[0].per_target.mean(axis=0))
    assert rk[1].params["sigma"] == 0.1
    with pytest.raises(ConfigError, match="iterations"):
        get_ranker("relief").rank(ds, {"iterations": 2.5})
    with pytest.raises(ConfigError, match="neighbours"):
        get_ranker("relief").rank(ds, {"neighbours": 0})
    with pytest.raises(ConfigError, match="distance"):
        get_ranker("relief").rank(ds, {"distance": "f1"})
    with pytest.raises(ConfigError, match="distance"):
        get_ranker("relief").rank(ds, {"distance": "manhattan"})


@pytest.mark.parametrize("k,sparse", [(1, False), (7, False), (7, True)])
def test_search_neighbours_exact_with_ties(k, sparse):
    """Many exact ties and ranges with inexact inverses (3, 7, 0.3): the kernel's
    approximate first pass must not change the neighbours or the tie order."""
    from frcli._ext.relief import _relief

    from frcli.engines.relief.common import column_meta

    rng = np.random.default_rng(13)
    n = 530                                    # several candidate blocks, 530 % 4 != 0
    X = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 8, n) * 1.0,
                         rng.integers(0, 4, n) * 0.1, rng.integers(0, 2, n) * 1e-310,
                         rng.integers(0, 3, n)]).astype(float)   # col 3: 1/range overflows
    X[rng.random(n) < 0.05, 1] = np.nan
    nominal = np.array([False, False, False, False, True])
    nvals = np.array([0, 0, 0, 0, 3])
    meta = column_meta(X, nominal, nvals)
    group = rng.integers(-1, 3, n).astype(np.int32)
    rows = rng.permutation(n)[:101].astype(np.int32)
    Xc = np.ascontiguousarray(X.T)
    sp = _relief.sparse_columns(Xc)[:-1] if sparse else None
    nbr, dist, cnt = _relief.search(Xc, meta.kind, meta.mn, meta.rg, meta.nm, rows, group,
                                    3, k, 2, sp)
    for t, r in enumerate(rows):
        dx = ref_dx(ref_feature_dist(X, nominal, nvals, r))
        for g in range(3):
            cand = np.flatnonzero((group == g) & (np.arange(n) != r))
            want = cand[np.argsort(dx[cand], kind="stable")][:k]
            assert cnt[t, g] == len(want)
            assert nbr[t, g, :len(want)].tolist() == want.tolist()
            assert np.array_equal(dist[t, g, :len(want)], dx[want])


def test_unlabeled_ignore_leaves_rows_out():
    rng = np.random.default_rng(14)
    n = 40
    X, nominal, nvals, feats = make_X(rng, n, missing=0.05)
    y = X[:, 1] + 0.2 * rng.normal(size=n)
    y = np.where(np.isnan(y), 0.0, y)
    y[rng.random(n) < 0.3] = np.nan
    ds = Dataset("i", X, feats, "regression", Y=y[:, None], targets=[Attribute("y", "numeric")])
    known = ~np.isnan(y)
    dY = ref_target_dist_mean(y[:, None], np.array([False]), np.array([0]))
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], unlabeled="ignore", seed=4)[0]
        assert got.meta["variant"] == "rrelieff" and got.n_iterations <= known.sum()
        want = ref_rrelieff(X, nominal, nvals, k, sg, ref_rows(n, frac, 4, np.flatnonzero(known)),
                            dY, cand_mask=known)
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)


def test_unlabeled_rows_need_semi_supervised():
    """Rows without targets make Relief semi-supervised only when asked for; otherwise
    they are left out (as ``unlabeled="ignore"``) with a warning."""
    import dataclasses

    rng = np.random.default_rng(14)
    n = 40
    X, _, _, feats = make_X(rng, n)
    y = X[:, 1] + 0.2 * rng.normal(size=n)
    y = np.where(np.isnan(y), 0.0, y)
    y[rng.random(n) < 0.3] = np.nan
    ds = Dataset("i", X, feats, "regression", Y=y[:, None], targets=[Attribute("y", "numeric")])
    with pytest.warns(UserWarning, match="without known targets"):
        plain = relief(ds, [1.0], [3], [0.0], seed=4)[0]
    assert plain.meta["variant"] == "rrelieff"
    ign = relief(ds, [1.0], [3], [0.0], seed=4, unlabeled="ignore")[0]
    assert np.array_equal(plain.importances, ign.importances)
    ssl = relief(dataclasses.replace(ds, semi_supervised=True), [1.0], [3], [0.0], seed=4)[0]
    assert ssl.meta["variant"] == "ssl"


def test_sparse_first_pass_gives_identical_results():
    """Mostly-zero data (the bibtex/delicious shape): the O(nnz) search gives exactly the
    dense search's neighbours, hence bit-identical importances, and matches the reference."""
    from frcli._ext.relief import _relief

    rng = np.random.default_rng(15)
    n, F = 300, 40
    X = (rng.random((n, F)) < 0.06).astype(float)
    X[:, :5] *= rng.integers(1, 5, (n, 5))           # numeric counts, mostly 0
    X[rng.random((n, F)) < 0.01] = np.nan
    X[:, 6] = 2.0                                    # constant, non-zero default
    feats = [Attribute(f"f{i}", "numeric" if i < 5 else "nominal",
                       () if i < 5 else ("0", "1", "2")) for i in range(F)]
    Y = (rng.random((n, 4)) < 0.2).astype(np.uint8)
    Y[:, 0] = np.nan_to_num(X[:, 7]) > 0
    ds = Dataset("s", X, feats, "mlc", Y=Y, targets=[Attribute(f"l{j}", "numeric")
                                                      for j in range(4)])
    assert _relief.sparse_columns(np.ascontiguousarray(X.T))[-1] < 0.12
    a = relief(ds, [0.5, 1.0], [1, 10], [0.0, 0.3], sparse="yes", jobs=2, per_target=True)
    b = relief(ds, [0.5, 1.0], [1, 10], [0.0, 0.3], sparse="no", per_target=True)
    assert a[0].meta["sparse_search"] and not b[0].meta["sparse_search"]
    for x, y in zip(a, b):
        assert np.array_equal(x.importances, y.importances)
        assert np.array_equal(x.per_target, y.per_target)
    small = ds.subset(np.arange(60))
    got = relief(small, [1.0], [5], [0.0], distance="f1", sparse="yes")[0]
    want = ref_rrelieff(small.X, np.arange(F) >= 5, np.array([0] * 5 + [3] * (F - 5)), 5,
                        0.0, ref_rows(60, 1.0, 0), ref_mlc_dist(small.Y, "f1"))
    np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)


def test_properties_hold_on_arbitrary_small_data():
    """Hypothesis: with every instance visited, RReliefF importances lie in [-1, 1], do not
    depend on the seed (the visiting order) beyond rounding, nor on the thread count."""
    pytest.importorskip("hypothesis")
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra.numpy import arrays

    values = st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5), st.just(np.nan))

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(arrays(np.float64, st.tuples(st.integers(3, 25), st.integers(1, 5)),
                  elements=values),
           st.integers(1, 6), st.sampled_from([0.0, 0.5]))
    def check(X, k, sigma):
        n, F = X.shape
        y = np.nan_to_num(X[:, 0]) + np.arange(n) % 3
        ds = Dataset("h", X, [Attribute(f"f{i}", "numeric") for i in range(F)],
                     "regression", Y=y[:, None], targets=[Attribute("y", "numeric")])
        a = relief(ds, [1.0], [k], [sigma], seed=0)[0].importances
        b = relief(ds, [1.0], [k], [sigma], seed=99, jobs=2)[0].importances
        assert np.all(np.abs(a) <= 1 + 1e-12)
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)

    check()


def test_per_target_relieff_leaves_out_rows_missing_that_target():
    """Mixed MTR, a nominal target unknown in some (otherwise labelled) rows: its per-target
    column is ReliefF without those rows (CLUS), not SSL-Relief through the descriptive
    space (the engine's SSL default leaked into the per-target pass before)."""
    rng = np.random.default_rng(21)
    n = 60
    X, _, _, feats = make_X(rng, n)
    num = X[:, 0] + 0.1 * rng.normal(size=n)
    cls = (X[:, 1] > 0).astype(float)
    cls[rng.random(n) < 0.25] = np.nan
    targets = [Attribute("num", "numeric"), Attribute("cls", "nominal", ("0", "1"))]
    ds = Dataset("m", X, feats, "mtr", Y=np.column_stack([num, cls]), targets=targets)
    assert ds.labeled.all()
    got = relief(ds, [1.0], [5], [0.0], per_target=True, seed=2)[0]
    sub = Dataset("c", X, feats, "classification", Y=cls[:, None], targets=[targets[1]])
    want = relief(sub, [1.0], [5], [0.0], unlabeled="ignore", seed=2)[0]
    assert want.meta["variant"] == "relieff"
    np.testing.assert_allclose(got.per_target[1], want.importances, rtol=0, atol=1e-12)


# -- degenerate targets and empty data (QA audit) -------------------------------------------

def _degenerate(task, n=30, F=4):
    """Random features with targets that carry no information."""
    rng = np.random.default_rng(5)
    X = rng.random((n, F))
    feats = [Attribute(f"x{i}", "numeric") for i in range(F)]
    if task in ("mlc", "hmlc"):                     # every label set empty
        h = _toy_hierarchy(True) if task == "hmlc" else None
        L = h.n_labels if h else 3
        return Dataset(task, X, feats, task, np.zeros((n, L), np.uint8),
                       [Attribute(f"l{j}", "numeric") for j in range(L)] if not h else [],
                       hierarchy=h)
    if task == "classification":                    # one class only
        return Dataset(task, X, feats, task, np.ones((n, 1)),
                       [Attribute("c", "nominal", ("a", "b"))])
    T = 2 if task == "mtr" else 1                   # constant numeric targets
    return Dataset(task, X, feats, task, np.full((n, T), 3.0),
                   [Attribute(f"y{j}", "numeric") for j in range(T)])


@pytest.mark.parametrize("task", ["mlc", "hmlc", "mtr", "regression", "classification"])
def test_targets_without_information_give_zero_importances_and_warn(task):
    """Every neighbour pair with the same target (P(diff y) = 0): the estimate is undefined
    and is 0 with a warning, not -P(diff x) (was -0.556 on all-empty label sets)."""
    ds = _degenerate(task)
    with pytest.warns(UserWarning, match="same target value"):
        out = relief(ds, [1.0, 0.5], [3, 5], [0.0, 1.0], per_target=True, seed=2)
    for r in out:
        assert np.array_equal(r.importances, np.zeros(ds.n_features)), r.importances
        if r.per_target is not None:
            assert np.array_equal(r.per_target, np.zeros_like(r.per_target))
        assert r.meta["constant_targets"]


def test_informative_targets_do_not_warn():
    import warnings

    ds = _degenerate("mtr")
    ds.Y[:, 0] = ds.X[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = relief(ds, [1.0], [3], [0.0], seed=2)[0]
    assert r.importances[0] > 0 and "constant_targets" not in r.meta


def test_empty_data_set_is_a_data_error():
    from frcli.api import rank
    from frcli.errors import DataError

    ds = _degenerate("mtr").subset(np.zeros(30, dtype=bool))
    assert ds.n_examples == 0
    with pytest.raises(DataError, match="no data rows"):
        relief(ds)
    for method in ("relief", "relief-str"):
        with pytest.raises(DataError, match="no data rows"):
            rank(ds, method)


def test_column_kinds_are_the_kernels():
    """column_meta labels each column with the kernel's own FeatureKind (defined only in
    ext/relief/_distance.pxd), and for every kind the kernel's distance is the one the numpy
    column_distances computes: a kind the two read differently would fail here."""
    from frcli._ext.relief import _distance
    from frcli.engines.relief.common import (column_distances, column_meta, feature_kinds,
                                             kernel)

    FK = feature_kinds()
    assert FK is _distance.FeatureKind
    assert sorted(int(k) for k in FK) == [0, 1, 2, 3]
    nan = np.nan
    X = np.array([[0.0, 1.0, 0.0, 2.0], [1.0, nan, 1.0, nan], [3.0, 2.0, 2.0, 1.0],
                  [2.0, nan, 1.0, 0.0]])
    meta = column_meta(X, np.array([False, False, True, True]), np.array([0, 0, 3, 3]))
    assert list(meta.kind) == [FK.K_NUM, FK.K_NUM_MISS, FK.K_NOM, FK.K_NOM_MISS]
    assert meta.has_missing() and not column_meta(X[:, [0, 2]], np.array([False, True]),
                                                  np.array([0, 3])).has_missing()
    a, b = np.meshgrid(np.arange(4, dtype=np.int32), np.arange(4, dtype=np.int32))
    a, b = a.ravel().copy(), b.ravel().copy()
    D = kernel("_relief").pair_distances(np.ascontiguousarray(X.T), meta.kind, meta.mn,
                                         meta.rg, meta.nm, a, b)
    np.testing.assert_array_equal(D, column_distances(X[a], X[b], meta))
