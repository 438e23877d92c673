"""The fast split search grows exactly the trees of the plain one.

``GrowParams(presort=False)`` is the reference path: every node gathers and sorts its
values. The default path presorts numeric features once per forest and partitions the row
lists with the nodes, visits only the rows off a nominal feature's common value in the
sparse 0/1 mode, and keeps each child's statistics from its parent's split. Every array of
every tree (features, thresholds, subsets, weights, h*, prototypes) and every score must be
bit-identical, for every task, storage mode, ensemble, and with ties and missing values.
``bench/tree_identity.py`` makes the same comparison against another build (e.g. main).
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from tests.conftest import need_kernel
from tests.helpers.pct import _grow, _assert_identical

_presort = need_kernel("frcli._ext.pct._presort")


def _data(kind: str, n: int = 1500, seed: int = 0) -> Dataset:
    rng = np.random.default_rng([seed, n, len(kind)])
    F = 12
    X = rng.uniform(0, 1, (n, F))
    lin = X[:, 0] + 2 * X[:, 1] * X[:, 2] - X[:, 3] + 0.5 * np.sin(6 * X[:, 4])
    nominal: tuple[int, ...] = ()
    labeled = None
    semi = False
    if kind in ("ties", "ties1", "ties1int", "mlc-ties"):
        X[:, :6] = np.round(X[:, :6], 2)
        X[:, 6] = (X[:, 6] > 0.7).astype(float)
        X[:, 11] = np.round(X[:, 11], 5)     # a few ties: presorted, some nodes sort themselves
    if kind in ("missing", "ssl", "capped"):
        for j in (0, 3, 8):
            X[rng.random(n) < 0.05, j] = np.nan
    if kind == "capped":        # Mars Express's "time since" features: few values, most at
        for j in (5, 6, 7, 11):  # the cap; below a test with missing values, fractional weights
            X[:, j] = np.minimum(rng.geometric(0.02 + 0.01 * j, n) * 60.0, 1440.0)
        X[:, 2] = np.round(X[:, 2], 2)      # a common minimum too
    if kind in ("mlc", "missing", "ties", "ties1", "ties1int", "mlc-ties"):
        X[:, 9] = rng.integers(0, 3, n)
        X[:, 10] = (rng.random(n) < 0.1).astype(float)
        nominal = (9, 10)
    if kind == "sparse":        # bibtex-like: many sparse binary features, some dense
        B = (rng.random((n, 30)) < np.linspace(0.01, 0.7, 30)).astype(float)
        B[:, 0] = rng.integers(0, 4, n) * (rng.random(n) < 0.2)     # 4 values, mostly 0
        B[:, 1] = np.where(rng.random(n) < 0.9, 2, rng.integers(0, 3, n))  # common value 2
        X = np.column_stack([X, B])
        lin = lin + B[:, 2] + B[:, 5] - B[:, 20] + 0.5 * B[:, 0]
        nominal = tuple(range(F, F + 30))
        F += 30
    feats = [Attribute(f"x{j}", "nominal", tuple(str(v) for v in range(int(X[:, j].max()) + 1)))
             if j in nominal else Attribute(f"x{j}", "numeric") for j in range(F)]
    if kind in ("mlc", "sparse", "mlc-ties"):
        Z = lin[:, None] + rng.standard_normal((n, 10)) * np.linspace(0.1, 1, 10)
        q = 0.8 if kind != "sparse" else np.linspace(0.85, 0.995, 10)   # sparse: rare labels
        Y = (Z > np.quantile(Z, q, axis=0).diagonal() if kind == "sparse"
             else Z > np.quantile(Z, q, axis=0)).astype(np.uint8)
        targets = [Attribute(f"l{j}", "nominal", ("0", "1")) for j in range(10)]
        return Dataset(kind, X, feats, "mlc", Y, targets)
    if kind == "counts":        # P-UNS's text sets: sparse counts, unsupervised (K = F)
        Xc = rng.poisson(np.linspace(0.02, 0.6, 40), (n, 40)).astype(float)
        Xc[:, :3] = rng.integers(0, 256, (n, 3))     # some dense columns (byte codes)
        feats = [Attribute(f"x{j}", "numeric") for j in range(40)]
        return Dataset(kind, Xc, feats, "unsupervised")
    if kind == "class":
        y = np.digitize(lin + 0.2 * rng.standard_normal(n), [0.3, 0.8, 1.3]).astype(float)
        return Dataset(kind, X, feats, "classification", y[:, None],
                       [Attribute("y", "nominal", ("a", "b", "c", "d"))])
    if kind in ("ties1", "ties1int"):   # one numeric target: the kernels' loops for one
        y = lin + 0.1 * rng.standard_normal(n)    # column; integers 0..255: read as bytes
        if kind == "ties1int":
            y = np.clip(np.round(40 * y + 60), 0, 255)
        return Dataset(kind, X, feats, "regression", y[:, None], [Attribute("y", "numeric")])
    Y = np.column_stack([lin, X[:, 5] * lin]) + 0.1 * rng.standard_normal((n, 2))
    if kind == "missing":
        Y[rng.random((n, 2)) < 0.1] = np.nan
    if kind == "ssl":
        labeled = rng.random(n) < 0.4
        Y[~labeled] = np.nan
        semi = True
    targets = [Attribute(f"y{j}", "numeric") for j in range(2)]
    return Dataset(kind, X, feats, "mtr", Y, targets, labeled=labeled, semi_supervised=semi)


CASES = [("plain", "rf", None), ("plain", "bagging", None), ("ties", "rf", 4),
         ("ties1", "rf", 4), ("ties1", "bagging", None), ("ties1int", "rf", 4),
         ("mlc-ties", "rf", 4),
         ("mlc-ties", "bagging", None),
         ("missing", "bagging", 0.5), ("class", "rf", None), ("mlc", "rf", 0.5),
         ("mlc", "bagging", None), ("ssl", "rf", None), ("plain", "et", None),
         ("sparse", "rf", 0.3), ("sparse", "bagging", None), ("sparse", "et", 0.5),
         ("ties", "et", 4), ("counts", "et", "log2"), ("capped", "rf", 0.5),
         ("capped", "bagging", None)]


@pytest.mark.parametrize("kind,ensemble,mf", CASES)
@pytest.mark.parametrize("min_rows", [None, 2])
def test_fast_path_grows_the_reference_trees(monkeypatch, kind, ensemble, mf, min_rows):
    ds = _data(kind)
    kw = {"trees": 3, "seed": 5, "max_features": mf}
    if kind == "counts":         # P-UNS: fully grown, bootstrapped (screened candidates)
        kw.update(min_leaf=1.0, bootstrap=True)
    if kind == "ssl":
        kw["w"] = 0.5
    ref = _grow(monkeypatch, ds, ensemble, kw, presort=False)
    fast = _grow(monkeypatch, ds, ensemble, kw, presort_min_rows=min_rows)
    _assert_identical(ref, fast)


def test_the_fast_paths_are_taken():
    """Guards the test above against comparing the reference path with itself."""
    ds = _data("ties")
    Xt = np.ascontiguousarray(ds.X.T)
    ncat = np.where(ds.nominal_mask, ds.n_categories, 0).astype(np.int32)
    order, slot, min_rows = _presort.presort_plan(Xt, ncat, 4, False, None)
    # every numeric feature without missing values, tied or not (x9/x10 are nominal); the
    # rounded x0..x5, the binary x6 and x11 (a few ties) are swept by runs of equal values
    assert sorted(np.flatnonzero(slot >= 0)) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 11]
    assert order.shape == (10, ds.n_examples) and 2 <= min_rows <= 64
    assert 0 < np.sum(np.diff(np.sort(Xt[11])) == 0) < ds.n_examples / 16
    plain = order.copy()
    tied = _presort.presort_runs(Xt, order, slot)
    assert list(tied) == [1, 1, 1, 1, 1, 1, 1, 0, 0, 1]       # x7, x8: no ties
    for k, f in enumerate(np.flatnonzero(slot >= 0)):
        # the rows kept; a run start (the high bit) exactly where the value grows
        assert np.array_equal(order[k] & 0x7FFFFFFF, plain[k])
        v = Xt[f, plain[k]]
        starts = np.concatenate([[True], np.diff(v) > 0])
        assert np.array_equal(order[k] < 0, starts if tied[k] else np.zeros_like(starts))
        order[k] = plain[k]
    for k, f in enumerate(np.flatnonzero(slot >= 0)):
        assert np.all(np.diff(Xt[f, order[k]]) >= 0)
    assert _presort.presort_plan(Xt, ncat, 4, True, None)[0].shape[0] == 0   # extra trees
    miss = _data("missing")
    Xm = np.ascontiguousarray(miss.X.T)
    _, slot_m, _ = _presort.presort_plan(Xm, ncat, 4, False, None)
    assert slot_m[0] < 0 and slot_m[3] < 0 and slot_m[1] >= 0      # missing values: no lists
    ptr, rows, default = _presort.nominal_default_rows(Xt, ncat)
    assert list(np.flatnonzero(default >= 0)) == [9, 10] and default[10] == 0
    assert np.array_equal(rows[ptr[10]:ptr[11]], np.flatnonzero(Xt[10] != 0))
    sp = _data("sparse")
    sp_ncat = np.where(sp.nominal_mask, sp.n_categories, 0).astype(np.int32)
    _, _, sp_default = _presort.nominal_default_rows(np.ascontiguousarray(sp.X.T), sp_ncat)
    assert list(np.flatnonzero(sp_default >= 0)) == list(range(12, 42)) and sp_default[13] == 2
    val, rptr, feat, rval = _presort.nominal_row_lists(Xt, ptr, rows)
    nnz = ptr[-1]
    assert rptr[-1] == nnz and np.all(np.diff(rptr) >= 0)
    for r in (0, 7, ds.n_examples - 1):       # row r's entries: its features off the default
        fs = feat[rptr[r]:rptr[r + 1]]
        assert list(fs) == [f for f in (9, 10) if Xt[f, r] != default[f]]
        assert np.array_equal(rval[rptr[r]:rptr[r + 1]], Xt[fs, r])
    assert np.array_equal(val[:nnz], np.concatenate([Xt[f, rows[ptr[f]:ptr[f + 1]]]
                                                     for f in range(len(default))]))


def test_auto_min_rows():
    assert _presort.auto_min_rows(40, 7) == 5                  # the scaling benchmark
    assert _presort.auto_min_rows(40, 40) == 2                 # bagging: every node
    assert _presort.auto_min_rows(411, 21) == 227              # atp1d (337 rows): the root
    assert _presort.auto_min_rows(4000, 10) == 1 << 62         # wide: no presorting
