"""Integer counting of 0/1 clustering columns (``ext/pct/_count01``) against plain numpy sums.

On semi-supervised nominal data (one-hot feature columns, class labels with unknown values)
every sum of the missing mode is an exact integer, so the splitter and the builder may take
a side's sums from integer counts: only the counts that the others do not determine (a
one-hot block's last column is the weight less the others; an always-known column's known
weight is the side's weight), in 16-bit lanes flushed before they can overflow. These
tests compare every double, bit for bit, with numpy's sums of w y, w y^2 and w [known];
the forests that use the counts are compared with the plain path in ``test_ssl_fast.py``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.conftest import need_kernel

_c01 = need_kernel("frcli._ext.pct._count01")


def _onehot_C(rng, n: int, ks=(2, 3, 2, 4), n_free: int = 2, p_unknown: float = 0.4):
    """One-hot blocks of nominal features, free 0/1 columns, and a class block with unknown
    values in whole rows (unlabelled rows)."""
    cols = []
    for k in ks:
        v = rng.integers(0, k, n)
        cols.append(np.eye(k)[v])
    cols.append(rng.integers(0, 2, (n, n_free)).astype(float))
    y = np.eye(3)[rng.integers(0, 3, n)]
    y[rng.random(n) < p_unknown] = np.nan
    cols.append(y)
    return np.hstack(cols)


def _ref(C, rows, w):
    y = C[rows]
    k = np.where(np.isnan(y), 0.0, y)
    ww = np.asarray(w, float)[:, None]
    return (float(np.sum(w)), (ww * k).sum(0), (ww * k * k).sum(0),
            (ww * ~np.isnan(y)).sum(0))


def _same(a, b):
    assert a[0] == b[0]
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(np.asarray(x).view(np.uint64), np.asarray(y).view(np.uint64))


def test_plan_finds_the_onehot_blocks_and_counts_only_what_it_needs():
    rng = np.random.default_rng(0)
    C = _onehot_C(rng, 200)
    B, one_src, known_src, grp, ngroups = _c01.count01_plan(C)
    assert ngroups == 4                       # the four features; not the class (unknowns)
    assert (one_src == -1).sum() == 4         # one column of each block is derived
    assert (known_src >= 0).sum() == 3        # only the class columns count known values
    assert B.shape == (200, 16) and B.dtype == np.uint8     # 11 + 3 counts, padded to 16
    assert _c01.count01_plan(C + 0.5) is None
    assert _c01.count01_plan(np.where(np.isnan(C), np.nan, 2.0 * C)) is None


@pytest.mark.parametrize("neg", [False, True])
def test_subset_sums_equal_numpy_sums(neg):
    rng = np.random.default_rng(1)
    for trial in range(60):
        n = int(rng.integers(1, 300))
        C = _onehot_C(rng, n, p_unknown=rng.choice([0.0, 0.5, 1.0]))
        rows = rng.choice(n, int(rng.integers(0, n + 1)), replace=False)
        w = rng.integers(0, 5, rows.size).astype(float)
        got = _c01.subset_sums01(C, rows, w, neg, _ref(C, np.arange(n), np.ones(n))
                                 if neg else None)
        ref = _ref(C, rows, w)
        if neg:
            tot = _ref(C, np.arange(n), np.ones(n))
            ref = tuple(t - r for t, r in zip(tot, ref))
        _same(got, ref)


def test_lanes_are_flushed_before_they_overflow():
    """Weights summing far past 65535 (a 16-bit lane) in one call, and the largest weight."""
    rng = np.random.default_rng(2)
    C = _onehot_C(rng, 50)
    rows = np.repeat(np.arange(50), 40)
    for w in (rng.integers(60000, 65536, rows.size).astype(float),
              np.full(rows.size, 65535.0)):
        _same(_c01.subset_sums01(C, rows, w), _ref(C, rows, w))


def test_weights_it_cannot_count_are_refused():
    C = _onehot_C(np.random.default_rng(3), 20)
    rows = np.arange(20)
    for bad in (0.5, 65536.0, -1.0, np.nan):
        w = np.ones(20)
        w[7] = bad
        assert _c01.subset_sums01(C, rows, w) is None


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 120), seed=st.integers(0, 2 ** 32 - 1), wmax=st.integers(1, 9),
       free=st.integers(0, 4))
def test_subset_sums_property(n, seed, wmax, free):
    rng = np.random.default_rng(seed)
    C = _onehot_C(rng, n, ks=tuple(rng.integers(1, 5, rng.integers(0, 4))), n_free=free)
    rows = rng.integers(0, n, rng.integers(0, 2 * n))
    w = rng.integers(0, wmax + 1, rows.size).astype(float)
    _same(_c01.subset_sums01(C, rows, w), _ref(C, rows, w))


def test_cross_counts_equal_numpy_sums_per_feature():
    """``frcli_cross01_rows``: one pass over a node's rows gives, per two-valued feature, the
    sums of the rows holding its listed value (the rarer one in the data)."""
    rng = np.random.default_rng(4)
    for trial in range(40):
        n = int(rng.integers(2, 250))
        C = _onehot_C(rng, n)
        X = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n),
                             (rng.random(n) < 0.1).astype(int), rng.integers(0, 2, n),
                             rng.normal(size=n)]).astype(float)
        X[rng.random(n) < 0.2, 3] = np.nan                     # not counted: unknown values
        X[0, 3] = np.nan
        ncat = np.array([2, 3, 2, 2, 0], dtype=np.int32)
        Xt = np.ascontiguousarray(X.T)
        fv, rptr, rfeat = _c01.cross01_plan(Xt, ncat)
        assert list(np.flatnonzero(fv != 255)) == [0, 2]
        rows = rng.choice(n, int(rng.integers(1, n + 1)), replace=False).astype(np.int32)
        # small weights, and weights whose sum overflows a 16-bit lane many times
        w = (rng.integers(0, 4, rows.size) if trial % 2 else
             rng.integers(60000, 65536, rows.size)).astype(float)
        got = _c01.cross_sums01(C, Xt, ncat, rows, w)
        assert [g[0] for g in got] == [0, 2]
        for f, v, *sums in got:
            assert v == (1 if 2 * (X[:, f] == 1).sum() <= n else 0)
            pick = X[rows, f] == v
            _same(tuple(sums), _ref(C, rows[pick], w[pick]))
        w[0] = 0.5
        assert _c01.cross_sums01(C, Xt, ncat, rows, w) is None


def test_the_forests_of_test_ssl_fast_use_the_counts():
    """Guards ``test_ssl_fast``'s comparison with the plain path: its nominal data has a
    counting plan and two-valued features to count per node."""
    from frcli.engines.pct.columns import clustering_spec
    from tests.engines.pct.test_ssl_fast import _nominal_ssl

    for missing in (False, True):
        ds = _nominal_ssl(missing=missing)
        C = clustering_spec(ds, w=0.5).C
        assert _c01.count01_plan(C) is not None
        Xt = np.ascontiguousarray(ds.X.T)
        ncat = np.array([len(a.categories) if a.is_nominal else 0 for a in ds.features],
                        dtype=np.int32)
        assert _c01.cross01_plan(Xt, ncat) is not None
