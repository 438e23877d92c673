"""Run starts of the presorted lists with ties, against plain numpy.

A presorted feature with ties carries, in the high bit of each list entry, whether the
entry's value is above the previous entry's (``_presort.presort_runs`` marks the forest's
value orders; ``presort_init`` keeps the marks for a tree's bag and ``presort_partition``
for each child). The split sweep reads only these marks to find the cuts between distinct
values, so a wrong mark moves a cut: the lists and their marks are checked here entry by
entry after random partitions, on columns with 256, 257, 65,536 and 65,537 distinct values,
both signs of zero and long runs, and forests grown on such columns must equal the plain
path's (every node gathers and sorts) bit for bit. A feature with few ties in the complete
mode has no marks (``_sweep_tiefree`` with ``fewties`` checks the values of the cuts that
could matter): the multi-target forests below take that path for their last column.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frcli.data.dataset import Attribute, Dataset
from tests.conftest import need_kernel
from tests.helpers.pct import _assert_identical, _grow

_presort = need_kernel("frcli._ext.pct._presort")

ROW = 0x7FFFFFFF


def column(rng, distinct: int, n: int) -> np.ndarray:
    """n values with exactly ``distinct`` distinct ones (as compared by ==): 3-digit-like
    values, both signs of zero (one value), the rest of the rows repeating them."""
    pool = np.round(np.sort(rng.choice(10 ** 6, size=distinct - 1, replace=False))
                    / 1000.0 + 0.001, 3)
    vals = np.concatenate([pool, [0.0]])
    rest = vals[rng.integers(0, distinct, n - distinct)]
    rest[rest == 0.0] = np.where(rng.random(int((rest == 0.0).sum())) < 0.5, -0.0, 0.0)
    if rest.size:
        rest[0] = -0.0          # both signs of zero whenever a value repeats
    x = np.concatenate([vals, rest])[rng.permutation(n)]
    assert np.unique(x).size == distinct
    assert np.signbit(x[x == 0.0]).any() == (n > distinct)
    return x


def ref_starts(v: np.ndarray) -> np.ndarray:
    """Entry j starts a run: its value is above entry j - 1's (entry 0: True)."""
    return np.concatenate([[True], v[1:] > v[:-1]])


def ref_lists(plain_lists: np.ndarray, splits) -> np.ndarray:
    """The lists after the partitions: each segment stably [rows going right | the rest]."""
    out = plain_lists.copy()
    for s, e, right in splits:
        for k in range(out.shape[0]):
            seg = out[k, s:e]
            g = right[seg].astype(bool)
            out[k, s:e] = np.concatenate([seg[g], seg[~g]])
    return out


def tree_of_splits(rng, rows: np.ndarray, n: int, depth: int):
    """Random nested splits of the bag rows (their segment bounds from the rows that go
    right, as in the builder) and the resulting leaf segments."""
    splits, leaves = [], []
    sets = [(0, rows.size, rows, 0)]
    while sets:
        s, e, members, d = sets.pop()
        if d == depth or e - s < 2 or rng.random() < 0.15:
            leaves.append((s, e))
            continue
        right = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.uint8)
        splits.append((s, e, right))
        g = right[members].astype(bool)
        nr = int(g.sum())
        sets.append((s, s + nr, members[g], d + 1))
        sets.append((s + nr, e, members[~g], d + 1))
    return splits, leaves


def check_lists(X: np.ndarray, seed: int, depth: int = 6):
    """presort_runs' marks, then a tree's lists after random partitions, against numpy."""
    rng = np.random.default_rng(seed)
    n, F = X.shape
    Xt = np.ascontiguousarray(X.T)
    ncat = np.zeros(F, np.int32)
    order, slot, _ = _presort.presort_plan(Xt, ncat, F, False, 2)
    assert order.shape[0] == F
    plain = order.copy()
    for k in range(F):      # the value order: ascending, equal values by row
        assert np.array_equal(plain[k], np.argsort(Xt[k], kind="stable"))
    tied = _presort.presort_runs(Xt, order, slot)
    for k in range(F):
        v = Xt[k, plain[k]]
        has_ties = np.unique(v).size < n
        assert tied[k] == has_ties
        assert np.array_equal(order[k] & ROW, plain[k])
        assert np.array_equal(order[k] < 0, ref_starts(v) & has_ties)
    # a bag: distinct rows with counts, each list its rows in value order
    bag = np.sort(rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False))
    wt = rng.integers(1, 4, bag.size).astype(np.float64)
    inbag = np.zeros(n, bool)
    inbag[bag] = True
    start = np.array([p[inbag[p]] for p in plain])
    splits, leaves = tree_of_splits(rng, bag.astype(np.int32), n, depth)
    got = _presort._partitioned_lists(order, slot, tied, bag.astype(np.int32), wt, splits)
    want = ref_lists(start, splits)
    assert np.array_equal(got & ROW, want)      # the rows: a stable partition
    for k in range(F):
        if not tied[k]:
            assert (got[k] >= 0).all()          # no marks on a tie-free list
            continue
        for s, e in leaves:                     # each node: a mark where its value grows
            if e - s > 1:
                v = Xt[k, want[k, s:e]]
                assert np.array_equal(got[k, s + 1:e] < 0, ref_starts(v)[1:]), (k, s, e)
    return tied


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(distinct=st.sampled_from([4, 255, 256, 257, 1000]), extra=st.integers(0, 800),
       seed=st.integers(0, 2 ** 32 - 1))
def test_marks_follow_the_partitions(distinct, extra, seed):
    rng = np.random.default_rng(seed)
    n = distinct + extra
    X = np.column_stack([column(rng, distinct, n), rng.normal(size=n),
                         np.where(rng.random(n) < 0.9, 0.0, rng.normal(size=n))])
    tied = check_lists(X, seed)
    assert list(tied) == [extra > 0, 0, 1]


@pytest.mark.parametrize("distinct", [65536, 65537])
@pytest.mark.parametrize("extra", [0, 3000])
def test_marks_with_many_values(distinct, extra):
    rng = np.random.default_rng([distinct, extra])
    n = distinct + extra
    X = np.column_stack([column(rng, distinct, n), column(rng, 257, n)])
    assert list(check_lists(X, distinct + extra, depth=4)) == [extra > 0, 1]


def test_a_lost_mark_would_be_caught():
    """The reference comparison above fails for a list whose marks are not the runs."""
    rng = np.random.default_rng(1)
    x = column(rng, 257, 900)
    v = np.sort(x)
    starts = ref_starts(v)
    wrong = starts.copy()
    wrong[np.flatnonzero(~starts)[0]] = True     # a cut inside a run of equal values
    assert not np.array_equal(wrong, starts)
    zero = np.array([-0.0, 0.0, 0.0, 1.0])
    assert list(ref_starts(zero)) == [True, False, False, True]   # -0.0 == 0.0: one run


def _forest_data(kind: str, n: int = 2500, seed: int = 0) -> Dataset:
    rng = np.random.default_rng([seed, n, len(kind)])
    X = np.column_stack([column(rng, 257, n), column(rng, 1000, n), column(rng, 256, n),
                         np.where(rng.random(n) < 0.85, 0.0, np.round(rng.normal(size=n), 3)),
                         rng.uniform(0, 1, n), column(rng, 2000, n), column(rng, 2400, n)])
    lin = (np.abs(X[:, 0]) - X[:, 1] + 2 * (X[:, 3] > 0) + X[:, 4] * X[:, 5]
           + 0.3 * rng.standard_normal(n))
    feats = [Attribute(f"x{j}", "numeric") for j in range(X.shape[1])]
    if kind == "class":
        y = np.digitize(lin, np.quantile(lin, [0.3, 0.6])).astype(float)
        return Dataset(kind, X, feats, "classification", y[:, None],
                       [Attribute("y", "nominal", ("a", "b", "c"))])
    Y = np.column_stack([lin, X[:, 2] - lin]) + 0.1 * rng.standard_normal((n, 2))
    return Dataset(kind, X, feats, "mtr", Y, [Attribute(f"y{j}", "numeric") for j in range(2)])


@pytest.mark.parametrize("kind,ensemble,mf", [("mtr", "rf", 3), ("mtr", "bagging", None),
                                               ("class", "rf", 2)])
@pytest.mark.parametrize("min_rows", [None, 2])
def test_forests_on_runs_equal_the_plain_path(monkeypatch, kind, ensemble, mf, min_rows):
    ds = _forest_data(kind)
    Xt = np.ascontiguousarray(ds.X.T)
    ncat = np.zeros(ds.n_features, np.int32)
    cslot = _presort.count_plan(Xt, ncat)[0]
    assert list(cslot >= 0) == [False, False, True, False, False, False, False]  # 256: counted
    order, slot, _ = _presort.presort_plan(Xt, ncat, 2, False, 2, cslot != -1)
    # marked runs (1), except where 4 % of the rows are tied (2: checked values, the
    # complete mode with two or more columns only), x4 tie-free (0)
    assert list(_presort.presort_runs(Xt, order, slot, 0.125)) == [1, 1, 1, 0, 1, 2]
    kw = {"trees": 3, "seed": 4, "max_features": mf, "min_leaf": 1.0}
    ref = _grow(monkeypatch, ds, ensemble, kw, presort=False)
    fast = _grow(monkeypatch, ds, ensemble, kw, presort_min_rows=min_rows)
    _assert_identical(ref, fast)
