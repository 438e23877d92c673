"""The presorted lists' value orders (``_presort.value_order``, a radix sort of the values'
bit patterns) are those of a stable comparison sort: ascending values, equal values by row,
-0.0 equal to 0.0. The lists' rows in a run of equal values decide the order in which the
sweep adds them, so any other order could change a tree."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from frcli._ext.pct import _presort


def _reference(x):
    return np.argsort(x, kind="stable").astype(np.int32)


@pytest.mark.parametrize("x", [
    np.array([]),
    np.zeros(7),
    np.array([0.0, -0.0, 1.0, -1.0, 0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 1e308,
              -1e308, 2.0 ** -1022, -(2.0 ** -1022)]),
    np.round(np.random.default_rng(0).normal(size=5000), 1),          # runs of ties
    np.random.default_rng(1).uniform(size=3000),                      # no ties
    np.random.default_rng(2).integers(-3, 3, 10000).astype(float),    # few values
], ids=["empty", "constant", "specials", "rounded", "uniform", "integers"])
def test_value_order_is_the_stable_sort(x):
    assert np.array_equal(_presort.value_order(x), _reference(x))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False), max_size=300), st.integers(0, 3))
def test_value_order_on_any_doubles(values, digits):
    x = np.asarray(values, dtype=float)
    if digits and x.size:       # ties: the values rounded
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.round(x, digits)
        x = np.where(np.isfinite(r), r, x)
    assert np.array_equal(_presort.value_order(x), _reference(x))


def test_a_wrong_order_would_be_caught():
    """The comparison above sees an order that breaks ties by anything but the row."""
    x = np.array([1.0, 0.0, 1.0, -0.0])
    assert list(_presort.value_order(x)) == [1, 3, 0, 2]
    wrong = np.array([3, 1, 2, 0], dtype=np.int32)      # sorted values, ties reversed
    assert np.array_equal(x[wrong], x[_reference(x)])
    assert not np.array_equal(wrong, _reference(x))


def test_the_plans_use_it():
    """count_plan's codes and presort_plan's lists come out as with numpy's sorts, the
    orders computed once (count_plan hands the uncoded features' orders to presort_plan)."""
    rng = np.random.default_rng(3)
    n = 2000
    X = np.column_stack([rng.integers(0, 5, n), np.round(rng.uniform(size=n), 3),
                         rng.uniform(size=n), np.zeros(n), rng.integers(0, 5, n),
                         np.round(rng.normal(size=n), 1)]).astype(float)
    X[::7, 1] = -0.0
    X[5, 4] = np.nan                                    # missing values: no codes, no list
    X[::3, 5] = -0.0
    Xt = np.ascontiguousarray(X.T)
    ncat = np.zeros(6, np.int32)
    orders = {}
    cslot, codes, values = _presort.count_plan(Xt, ncat, orders)
    assert list(cslot) == [0, -1, -1, -2, -1, 1] and sorted(orders) == [1, 2]
    for f, c in ((0, 0), (5, 1)):
        u = np.unique(X[:, f])
        assert np.array_equal(codes[:, c], np.searchsorted(u, X[:, f]))
        assert np.array_equal(values[c, :u.size], u) and not values[c, u.size:].any()
    order, slot, _ = _presort.presort_plan(Xt, ncat, 2, False, 2, cslot != -1, orders)
    assert list(np.flatnonzero(slot >= 0)) == [1, 2] and orders == {}
    for k, f in enumerate([1, 2]):
        assert np.array_equal(order[k], _reference(Xt[f]))


def _codes_reference(x):
    """count_plan's codes and values by numpy: the distinct values ascending, each as the
    first row holding it (-0.0 and 0.0 are one value), and each row's index among them."""
    o = np.argsort(x, kind="stable")
    xs = x[o]
    start = np.concatenate([[True], xs[1:] != xs[:-1]])
    vals = xs[start]
    return np.searchsorted(vals, x).astype(np.uint8), vals


def _plan_one(x):
    orders = {}
    plan = _presort.count_plan(np.ascontiguousarray(x[None, :]), np.zeros(1, np.int32), orders)
    return plan, orders


@pytest.mark.parametrize("x", [
    np.array([0.0, -0.0, 1.0, -0.0, 0.0, 2.0]),
    np.array([-0.0, 0.0, 1.0, 0.0, -0.0, 2.0]),
    np.array([np.inf, -np.inf, 5e-324, -5e-324, 1e308, -1e308, 0.0, 3.0] * 5),
    np.random.default_rng(4).permutation(np.arange(256) * 0.1 - 7),         # 256 values
    np.round(np.random.default_rng(5).normal(size=4000), 1),
    np.random.default_rng(6).integers(0, 3, 5000).astype(float) * 1e-300,
], ids=["zero-first", "negzero-first", "specials", "256", "rounded", "tiny"])
def test_count_plan_codes_are_numpys(x):
    (cslot, codes, values), orders = _plan_one(x)
    ref_codes, ref_vals = _codes_reference(x)
    assert cslot[0] == 0 and orders == {}
    assert np.array_equal(codes[:, 0], ref_codes)
    # bit for bit: the sign of a zero is that of its first row (thresholds are these doubles)
    assert np.array_equal(values[0, :ref_vals.size].view(np.uint64), ref_vals.view(np.uint64))
    assert not values[0, ref_vals.size:].any()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=2, max_size=400), st.integers(0, 2))
def test_count_plan_on_any_doubles(values, digits):
    x = np.asarray(values, dtype=float)
    if digits:
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.round(x, digits)
        x = np.where(np.isfinite(r), r, x)
    plan, orders = _plan_one(x)
    ref_codes, ref_vals = _codes_reference(x)
    if ref_vals.size == 1:
        assert plan[0][0] == -2
    elif ref_vals.size <= 256:
        cslot, codes, vals = plan
        assert cslot[0] == 0
        assert np.array_equal(codes[:, 0], ref_codes)
        assert np.array_equal(vals[0, :ref_vals.size].view(np.uint64), ref_vals.view(np.uint64))
    else:
        assert plan is None and np.array_equal(orders[0], _reference(x))


def test_count_plan_limits():
    """257 values: no codes, the value order instead; a missing value: neither."""
    x = np.random.default_rng(7).permutation(np.arange(257.0))
    plan, orders = _plan_one(x)
    assert plan is None and np.array_equal(orders[0], _reference(x))
    x = np.arange(300.0) % 5
    x[150] = np.nan
    plan, orders = _plan_one(x)
    assert plan is None and orders == {}
    plan, orders = _plan_one(np.full(50, -0.0))
    assert plan[0][0] == -2 and orders == {}
