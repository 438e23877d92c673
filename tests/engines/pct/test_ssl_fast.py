"""Semi-supervised forests grow the same trees on the fast path as on the plain one.

Semi-supervised clustering columns are in the missing mode (unlabelled rows have unknown
targets). On nominal data (one-hot feature columns, class labels) every sum of a node is an
exact integer, and the fast path (``GrowParams(presort=True)``, the default) sums a nominal
test's subset from the smaller side, the other side being the node's total minus it
(``_splitter._random_nominal_int``, ``_best_nominal_int``), and a feature's most common value
in the greedy search likewise (``_category_stats_int``); a node with fractional weights
(missing feature values upstream) keeps the plain sums. ``presort=False`` is the reference:
every array of every tree and every score must be bit-identical. ``bench/tree_identity.py``
compares the vectorised missing-mode kernels (``_criterion.pxd``) with another build on
P-DS's data sets.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.columns import clustering_spec
from tests.helpers.pct import _assert_identical, _grow
from tests.conftest import need_kernel

_forest = need_kernel("frcli._ext.pct._forest")


def _nominal_ssl(n: int = 700, seed: int = 0, missing: bool = False) -> Dataset:
    """tic-tac-toe-like: nominal features with 2-4 values, a class from some of them, 25 %
    of the rows labelled; ``missing`` adds unknown feature values (fractional weights)."""
    rng = np.random.default_rng([seed, n])
    k = np.array([2, 3, 3, 4, 2, 3, 2, 4, 3, 2])
    X = np.column_stack([rng.integers(0, kj, n) for kj in k]).astype(float)
    X[:, 1] = np.where(rng.random(n) < 0.8, 0, X[:, 1])          # a dominant value
    y = ((X[:, 0] + X[:, 2] + (X[:, 3] > 1)) % 3).astype(float)
    y = np.where(rng.random(n) < 0.1, rng.integers(0, 3, n), y)
    if missing:
        for j in (2, 5):
            X[rng.random(n) < 0.05, j] = np.nan
    feats = [Attribute(f"x{j}", "nominal", tuple(str(v) for v in range(kj)))
             for j, kj in enumerate(k)]
    labeled = rng.random(n) < 0.25
    Y = y[:, None].copy()
    Y[~labeled] = np.nan
    return Dataset("nominal-ssl", X, feats, "classification", Y,
                   [Attribute("y", "nominal", ("a", "b", "c"))], labeled=labeled,
                   semi_supervised=True)


def _mixed_ssl(n: int = 700, seed: int = 1) -> Dataset:
    """Numeric (tied) and nominal features: centred numeric columns, no integer sums."""
    ds = _nominal_ssl(n, seed)
    rng = np.random.default_rng(seed)
    X = np.column_stack([ds.X, np.round(rng.uniform(0, 1, (n, 3)), 1)])
    feats = list(ds.features) + [Attribute(f"z{j}", "numeric") for j in range(3)]
    return Dataset("mixed-ssl", X, feats, "classification", ds.Y, ds.targets,
                   labeled=ds.labeled, semi_supervised=True)


CASES = [(kind, ens, w) for kind in ("nominal", "missing", "mixed")
         for ens in ("rf", "bagging", "et") for w in (0.3, 0.8)]


@pytest.mark.parametrize("kind,ensemble,w", CASES)
def test_ssl_fast_path_grows_the_reference_trees(monkeypatch, kind, ensemble, w):
    ds = _mixed_ssl() if kind == "mixed" else _nominal_ssl(missing=kind == "missing")
    kw = {"trees": 3, "seed": 4, "min_leaf": 1.0, "w": w}
    ref = _grow(monkeypatch, ds, ensemble, kw, presort=False)
    fast = _grow(monkeypatch, ds, ensemble, kw)
    _assert_identical(ref, fast)


def test_integer_sums_is_on_where_it_should_be():
    """Guards the test above against comparing the plain path with itself: the nominal data
    has integer clustering values (the fast path is on), the mixed data has not."""
    for ds, expect in ((_nominal_ssl(), True), (_nominal_ssl(missing=True), True),
                       (_mixed_ssl(), False)):
        spec = clustering_spec(ds, w=0.5)
        assert spec.mode == 2                                   # the missing mode
        assert _forest.integer_sums(spec.C, ds.n_examples) is expect
    C = np.array([[0.0, 1.0], [np.nan, 3.0]])
    assert _forest.integer_sums(C, 10)
    assert not _forest.integer_sums(C + 0.5, 10)
    assert not _forest.integer_sums(C * 2.0 ** 30, 2 ** 10)      # y^2 sums beyond 2^52


def test_missing_mode_terms_of_the_dispatched_kernel_are_var_sels_bit_for_bit():
    """``gain_missing``'s terms come from a C kernel cloned for AVX2 (``_criterion.pxd``):
    they must equal the plain ``var_sel`` arithmetic bit for bit, on sums like a sweep's
    (integer weights, centred values, unknown-value counts below 2, empty sides)."""
    from frcli._ext.pct import _criterion

    rng = np.random.default_rng(7)
    for _ in range(300):
        K = int(rng.integers(1, 90))
        y = rng.normal(size=(40, K)) * rng.choice([1e-3, 1.0, 1e3], K)
        y[rng.random(y.shape) < 0.6] = np.nan
        w = rng.integers(0, 4, 40).astype(float)
        cut = int(rng.integers(0, 41))

        def sums(rows):
            k = np.where(np.isnan(y[rows]), 0.0, y[rows])
            ww = w[rows, None]
            return ((ww * k).sum(0), (ww * k * k).sum(0),
                    (ww * ~np.isnan(y[rows])).sum(0), float(w[rows].sum()))
        s1, s2, nk, WS = sums(slice(0, cut))
        t1, t2, tk, WT = sums(slice(0, 40))
        a, est = rng.random(K), rng.random(K)
        TQ = rng.random(K) * WT
        fast, plain = _criterion._gain_missing_terms_check(a, TQ, est, s1, s2, nk, t1, t2, tk,
                                                           WS, WT - WS)
        assert np.array_equal(fast.view(np.uint64), plain.view(np.uint64))


def test_missing_mode_row_sums_of_the_dispatched_kernel_are_the_plain_loops():
    """``add_missing`` / ``sub_missing`` run a C loop cloned for AVX2 (``_criterion.pxd``):
    its sums must equal the plain loop's bit for bit (unknown values, fractional weights)."""
    from frcli._ext.pct import _criterion

    rng = np.random.default_rng(3)
    for _ in range(100):
        n, K = int(rng.integers(1, 30)), int(rng.integers(1, 40))
        Y = rng.normal(size=(n, K)) * rng.choice([1e-3, 1.0, 1e3], K)
        Y[rng.random(Y.shape) < 0.4] = np.nan
        w = rng.choice([1.0, 2.0, 0.37, 1 / 3], n)
        for sub in (False, True):
            o = _criterion._add_missing_check(Y, w, sub)
            assert np.array_equal(o[:3].view(np.uint64), o[3:].view(np.uint64))


def test_sweep_screen_bound_holds_and_is_far_below_the_tie_band():
    """The missing mode's sweeps skip a cut when its division-free h (``frcli_screen_terms``)
    plus the bound 4 (K + 32) u (sum_c a_c (|TQ_c| + 2 s2_T,c)) stays below the best test's
    band (``_splitter._screened_out``). The exact terms (``_gain_missing_terms_check``'s
    dispatched kernel, summed in column order) must lie within that bound, on sums like a
    sweep's: uncentred columns, a constant column, tiny and large sides. The bound must
    also stay far below CLUS's tie band (1e-6), or the screen would skip nothing."""
    from frcli._ext.pct import _criterion

    u = 2.0 ** -53
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(400):
        K = int(rng.integers(1, 80))
        n = int(rng.integers(2, 400))
        y = rng.normal(size=(n, K)) * rng.choice([1e-3, 1.0, 30.0], K) + rng.choice(
            [0.0, 5.0, 1e3], K)
        y[:, 0] = 7.0                       # a constant column: variances of 0, cancelling
        w = rng.integers(1, 4, n).astype(float)
        cut = int(rng.integers(1, n))

        def sums(rows):
            return ((w[rows, None] * y[rows]).sum(0), (w[rows, None] * y[rows] ** 2).sum(0),
                    np.full(K, w[rows].sum()), float(w[rows].sum()))
        s1, s2, nk, WS = sums(slice(0, cut))
        t1, t2, tk, WT = sums(slice(0, n))
        a = 1.0 / np.maximum(y.var(0), 1e-3)
        TQ = WT * np.maximum(t2 / WT - (t1 / WT) ** 2, 0.0)
        terms, _ = _criterion._gain_missing_terms_check(a, TQ, np.zeros(K), s1, s2, nk, t1, t2,
                                                        tk, WS, WT - WS)
        exact = 0.0
        for t in terms:                     # in column order, as gain_missing sums them
            exact += t
        fast = _criterion._screen_terms_check(a, TQ, s1, s2, t1, t2, WS, WT - WS)
        bound = 4.0 * (K + 32) * u * float((a * (np.abs(TQ) + 2.0 * np.abs(t2))).sum())
        assert abs(fast - exact) <= bound, (K, n, cut, fast, exact, bound)
        worst = max(worst, abs(fast - exact) / bound)
    assert worst < 0.5                      # the bound's factor of two to spare
    # a P-DS-sized node: 1000 rows, 20 columns of unit variance around 5
    y = rng.normal(size=(1000, 20)) + 5.0
    t2 = (y ** 2).sum(0)
    TQ = 1000.0 * y.var(0)
    assert 4.0 * (20 + 32) * u * float((TQ + 2.0 * t2).sum()) < 1e-7


SCREEN_CASES = [(ens, w) for ens in ("rf", "bagging") for w in (0.0, 0.3, 0.9)]


@pytest.mark.parametrize("ensemble,w", SCREEN_CASES)
def test_screened_sweeps_grow_the_reference_trees(monkeypatch, ensemble, w):
    """With ties="first" (the SSL configs' rule; "share" turns the screen off) the numeric
    sweeps of the missing mode screen their cuts (``GrowParams(presort=True)``); the plain
    path computes every cut's h. Numeric tied and untied features, uncentred columns, and
    w = 0 (target columns of weight 0): every tree bit-identical."""
    ds = _mixed_ssl(n=600, seed=5)
    rng = np.random.default_rng(5)
    X = np.column_stack([ds.X, 100.0 + rng.normal(size=ds.n_examples),
                         np.round(rng.uniform(10, 20, ds.n_examples), 2)])
    feats = list(ds.features) + [Attribute("u0", "numeric"), Attribute("u1", "numeric")]
    ds = Dataset("mixed-ssl-uncentred", X, feats, "classification", ds.Y, ds.targets,
                 labeled=ds.labeled, semi_supervised=True)
    kw = {"trees": 3, "seed": 2, "min_leaf": 1.0, "w": w, "ties": "first"}
    ref = _grow(monkeypatch, ds, ensemble, kw, presort=False)
    fast = _grow(monkeypatch, ds, ensemble, kw)
    _assert_identical(ref, fast)


def test_node_variances_and_prototypes_of_the_dispatched_kernels_are_the_plain_loops():
    """A node's variances (``node_estimates``) and prototype run C loops cloned for AVX2:
    the same values bit for bit as ``var_known`` and the plain division, with unknown-value
    counts of 0, 1 and below W (the ancestor's estimate) and constant columns."""
    from frcli._ext.pct import _criterion

    rng = np.random.default_rng(5)
    for _ in range(200):
        K = int(rng.integers(1, 60))
        W = float(rng.integers(1, 50))
        nk = np.minimum(rng.choice([0.0, 1.0, 2.0, 3.0, W], K), W)
        s1 = rng.normal(size=K) * nk
        s2 = s1 ** 2 / np.maximum(nk, 1.0) + rng.random(K) * rng.choice([0.0, 1.0], K)
        est = rng.random(K)
        o = _criterion._node_kernels_check(s1, s2, nk, W, est)
        assert np.array_equal(o[0].view(np.uint64), o[1].view(np.uint64))
        assert np.array_equal(o[2].view(np.uint64), o[3].view(np.uint64))


def test_missing_mode_row_lists_sum_as_row_by_row_adds():
    """``add_missing_rows`` (one kernel call for a list of rows: extra trees' sides, a
    nominal subset's rows) must give add_missing's / sub_missing's sums row after row, bit
    for bit: unknown values, fractional weights, repeated rows."""
    from frcli._ext.pct import _criterion

    rng = np.random.default_rng(9)
    for _ in range(100):
        n, K = int(rng.integers(1, 30)), int(rng.integers(1, 40))
        Y = rng.normal(size=(n, K)) * rng.choice([1e-3, 1.0, 1e3], K)
        Y[rng.random(Y.shape) < 0.4] = np.nan
        rows = rng.integers(0, n, int(rng.integers(1, 50))).astype(np.int32)
        w = rng.choice([1.0, 2.0, 0.37, 1 / 3], rows.size)
        for neg in (False, True):
            o = _criterion._add_missing_rows_check(Y, rows, w, neg)
            assert np.array_equal(o[0].view(np.uint64), o[1].view(np.uint64))


def _regression_ssl(n: int = 500, seed: int = 3, missing: bool = False) -> Dataset:
    """Numeric features (skewed, tied, uncentred), a numeric target known on 30 % of the
    rows: its sums are not integers, so a screened extra-trees test takes the target's
    left sums row by row; ``missing`` adds unknown feature values (fractional weights)."""
    rng = np.random.default_rng([seed, n])
    X = np.column_stack([rng.exponential(1.0, n), np.round(rng.uniform(0, 1, n), 1),
                         100.0 + rng.normal(size=n), rng.integers(0, 4, n).astype(float),
                         rng.lognormal(0.0, 2.0, n)])
    y = X[:, 0] * 3.0 + X[:, 1] + 0.1 * rng.normal(size=n)
    if missing:
        X[rng.random(n) < 0.1, 1] = np.nan
    labeled = rng.random(n) < 0.3
    Y = y[:, None].copy()
    Y[~labeled] = np.nan
    feats = [Attribute(f"x{j}", "numeric") for j in range(X.shape[1])]
    return Dataset("regression-ssl", X, feats, "regression", Y, [Attribute("y", "numeric")],
                   labeled=labeled, semi_supervised=True)


ET_CASES = [(kind, w) for kind in ("mixed", "regression", "regression-missing")
            for w in (0.0, 0.4, 0.9)]


@pytest.mark.parametrize("kind,w", ET_CASES)
def test_screened_extra_trees_grow_the_reference_trees(monkeypatch, kind, w):
    """Extra trees in the missing mode judge a test whose right side is the smaller from
    that side (``_splitter._random_screened_out``: left = total - right, within a proven
    bound) and score it exactly only when it may win; the plain path
    (``GrowParams(presort=False)``) scores every test from its left side. Class targets
    (integer sums: total - right is exact), a numeric target (its left sums row by row),
    fractional weights below missing feature values: every tree bit-identical."""
    if kind == "mixed":
        ds = _mixed_ssl(n=600, seed=7)
    else:
        ds = _regression_ssl(missing=kind == "regression-missing")
    kw = {"trees": 4, "seed": 3, "min_leaf": 1.0, "w": w, "ties": "first"}
    ref = _grow(monkeypatch, ds, "et", kw, presort=False)
    fast = _grow(monkeypatch, ds, "et", kw)
    _assert_identical(ref, fast)


def test_screened_extra_trees_bound_covers_the_left_sums_from_the_right():
    """The bound of ``_random_screened_out``, written out here: h' from S' = T - R (the
    right side's sums taken from the node's) against the exact path's h from the left
    side's own sums, on the columns with no unknown value. h' and h differ in their last
    bits (a skip without the bound's perturbation part would be over-eager), and always by
    less than the bound."""
    from frcli._ext.pct import _criterion

    u = 2.0 ** -53
    rng = np.random.default_rng(17)
    differ = 0
    for _ in range(300):
        K = int(rng.integers(1, 40))
        m = int(rng.integers(4, 600))
        y = rng.normal(size=(m, K)) * rng.choice([1e-2, 1.0, 30.0], K) + rng.choice(
            [0.0, 5.0, 1e3], K)
        w = rng.integers(1, 4, m).astype(float)
        left = rng.random(m) < rng.uniform(0.5, 0.99)
        left[0], left[-1] = True, False

        def seq(rows):          # sums in node order, one row after another, as the kernels
            wy = w[rows, None] * y[rows]
            s1 = np.cumsum(wy, axis=0)[-1]
            s2 = np.cumsum(wy * y[rows], axis=0)[-1]
            return s1, s2, float(np.cumsum(w[rows])[-1])
        t1, t2, WT = seq(np.arange(m))
        l1, l2, WL = seq(np.flatnonzero(left))
        r1, r2, _ = seq(np.flatnonzero(~left))
        WR = WT - WL
        a = 1.0 / np.maximum(y.var(0), 1e-3)
        TQ = WT * np.maximum(t2 / WT - (t1 / WT) ** 2, 0.0)
        terms, _ = _criterion._gain_missing_terms_check(a, TQ, np.zeros(K), l1, l2,
                                                        np.full(K, WL), t1, t2, np.full(K, WT),
                                                        WL, WR)
        exact = 0.0
        for t in terms:
            exact += t
        screened = _criterion._screen_terms_check(a, TQ, t1 - r1, t2 - r2, t1, t2, WL, WR)
        e = float((a * (np.abs(TQ) + 2.0 * np.abs(t2))).sum())
        k = 2.0 * (m + 6.0) * u
        bound = (4.0 * (K + 32) * u * e
                 + k * e * (2.0 + 2.0 * (np.sqrt(WT / WL) + np.sqrt(WT / WR))
                            + k * WT * (1.0 / WL + 1.0 / WR)))
        assert abs(screened - exact) <= bound, (K, m, screened, exact, bound)
        differ += screened != exact
    assert differ > 0


@pytest.mark.parametrize("kind", ["nominal", "missing", "mixed", "regression-missing"])
def test_forests_grown_for_their_predictions_predict_as_the_whole_forests(kind):
    """``fit(predict_only=X)`` (the internal CV of w) leaves unsplit the nodes no row of X
    reaches, where the trees draw nothing while they grow (bagging, ties to the first):
    X's predictions must be the whole forest's bit for bit, test rows with unknown values
    following both branches (routing them one way only would change them). Random
    forests and extra trees draw per node: their trees are grown whole."""
    from frcli.engines.pct.model import PCTForest

    if kind == "regression-missing":
        ds = _regression_ssl(missing=True)
    elif kind == "mixed":
        ds = _mixed_ssl()
    else:
        ds = _nominal_ssl(missing=kind == "missing")
    rng = np.random.default_rng(1)
    lab = np.flatnonzero(ds.labeled)
    unknown = lab[np.isnan(ds.X[lab]).any(axis=1)][:8]          # some with unknown values
    test = np.union1d(unknown, rng.choice(np.setdiff1d(lab, unknown), 32, replace=False))
    train = np.setdiff1d(np.arange(ds.n_examples), test)
    if kind in ("missing", "regression-missing"):
        assert np.isnan(ds.X[test]).any()
    sub = ds.subset(train)
    for ens, w in (("bagging", 0.5), ("bagging", 0.0), ("bagging", None), ("rf", 0.5),
                   ("et", 0.5)):
        kw = {"trees": 4, "seed": 2, "min_leaf": 1.0, "w": w, "ties": "first"}
        whole = PCTForest(ens, **kw).fit(sub)
        part = PCTForest(ens, **kw).fit(sub, predict_only=ds.X[test])
        for f in ("prototypes", "predict_targets"):
            pa, pb = getattr(whole, f)(ds.X[test]), getattr(part, f)(ds.X[test])
            assert pa.tobytes() == pb.tobytes(), (ens, w, f)
        nodes = [sum(len(t["feature"]) for t in m.trees_) for m in (whole, part)]
        assert nodes[1] < nodes[0] if ens == "bagging" else nodes[1] == nodes[0], (ens, nodes)


def test_growing_for_given_rows_refuses_trees_that_draw_while_they_grow():
    ds = _nominal_ssl()
    spec = clustering_spec(ds, w=0.5)
    cols = _forest.Columns(spec.C, spec.a, spec.mode, spec.indptr, spec.indices, spec.est0,
                           spec.col_group, len(spec.group_names), None, None)
    Xt = np.ascontiguousarray(ds.X.T)
    ncat = ds.n_categories.astype(np.int32)
    seeds = np.arange(2, dtype=np.uint64)
    F = ds.n_features
    for params in (_forest.GrowParams(max_features=F, min_leaf=1.0, extra=True),
                   _forest.GrowParams(max_features=3, min_leaf=1.0),
                   _forest.GrowParams(max_features=F, min_leaf=1.0, random_ties=True)):
        with pytest.raises(ValueError, match="draw nothing"):
            _forest.grow_forest(Xt, ncat, seeds, cols, params, reach=ds.X[:5])
    res = _forest.grow_forest(Xt, ncat, seeds, cols,
                              _forest.GrowParams(max_features=F, min_leaf=1.0),
                              reach=ds.X[:0])
    assert all(len(t["feature"]) == 1 for t in res["trees"])     # no row to predict: a leaf
