"""Splits: partitions, stratification, determinism, nested SSL label thinning (spec A18)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frcli.data import splits as S
from frcli.data.dataset import Attribute, Dataset
from frcli.errors import DataError, UserError


def _is_partition(train, test, n):
    both = np.concatenate([train, test])
    return len(both) == n and np.array_equal(np.sort(both), np.arange(n))


def test_holdout_defaults_and_determinism():
    sp = S.holdout_splits(90)
    assert len(sp) == 10
    for tr, te in sp:
        assert len(te) == 30 and _is_partition(tr, te, 90)
    again = S.holdout_splits(90)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(sp, again))
    assert not np.array_equal(sp[0][1], sp[1][1])
    # repeat r does not depend on the number of repeats; another seed differs
    assert np.array_equal(S.holdout_splits(90, repeats=3)[2][1], sp[2][1])
    assert not np.array_equal(S.holdout_splits(90, seed=1)[0][1], sp[0][1])
    with pytest.raises(UserError):
        S.holdout_splits(2, test_size=0.1)
    with pytest.raises(UserError):
        S.holdout_splits(10, test_size=1.5)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 80), st.integers(2, 10), st.integers(0, 5), st.integers(1, 5))
def test_kfold_partitions_and_stratification(n, k, seed, n_classes):
    k = min(k, n)
    y = np.random.default_rng(seed).integers(0, n_classes, n).astype(float)
    if n > 3:
        y[0] = np.nan
    for yy in (None, y):
        folds = S.kfold_splits(n, k, seed, yy)
        tests = np.concatenate([te for _, te in folds])
        assert np.array_equal(np.sort(tests), np.arange(n))
        sizes = [len(te) for _, te in folds]
        assert max(sizes) - min(sizes) <= 1
        for tr, te in folds:
            assert _is_partition(tr, te, n)
        if yy is not None:
            for c in np.unique(y[~np.isnan(y)]):
                counts = [int((y[te] == c).sum()) for _, te in folds]
                assert max(counts) - min(counts) <= 1


def test_kfold_deterministic_and_errors():
    a = S.kfold_assign(50, 5, seed=3)
    assert np.array_equal(a, S.kfold_assign(50, 5, seed=3))
    assert not np.array_equal(a, S.kfold_assign(50, 5, seed=4))
    with pytest.raises(UserError):
        S.kfold_splits(5, 6)
    with pytest.raises(UserError):
        S.kfold_splits(5, 1)


@settings(max_examples=40, deadline=None)
@given(st.integers(30, 300), st.integers(2, 10), st.integers(0, 3))
def test_cv_label_thinning_counts_and_nesting(n, x, seed):
    folds = S.kfold_splits(n, x, seed)
    tests = [te for _, te in folds]
    sizes = [5, 12, 20, 35]
    lab = S.thin_cv_labels(tests, sizes, seed)
    for L in sizes:
        base, r = divmod(L, x - 1)
        for i, (tr, te) in enumerate(folds):
            li = lab[L][i]
            assert np.isin(li, tr).all()  # only training examples are labelled
            want = sum(min(base + (j < r), len(tests[j])) for j in range(x) if j != i)
            assert len(li) == want
            if all(len(t) >= base + 1 for t in tests):
                assert len(li) == L - (1 if i < r else 0)  # spec A18
    for a, b in zip(sizes, sizes[1:]):
        for i in range(x):
            assert np.isin(lab[a][i], lab[b][i]).all()  # nested across L
    again = S.thin_cv_labels(tests, sizes, seed)
    assert all(np.array_equal(again[L][i], lab[L][i]) for L in sizes for i in range(x))


def test_spec_example_l50_ten_folds():
    tests = [te for _, te in S.kfold_splits(1000, 10, 0)]
    lab = S.thin_cv_labels(tests, [50], 0)[50]
    assert [len(v) for v in lab] == [49] * 5 + [50] * 5


def test_fixed_train_thinning_nested():
    train = np.arange(10, 110)
    lab = S.thin_labels(train, [50, 20, 100, 200], seed=1)
    assert [len(lab[L]) for L in (20, 50, 100, 200)] == [20, 50, 100, 100]
    assert np.isin(lab[20], lab[50]).all() and np.isin(lab[50], lab[100]).all()
    assert np.isin(lab[100], train).all()
    with pytest.raises(UserError):
        S.thin_labels(train, [0])


def _ds(n, task="mtr"):
    X = np.arange(n * 2, dtype=float).reshape(n, 2)
    f = [Attribute("a", "numeric"), Attribute("b", "numeric")]
    if task == "mlc":
        return Dataset("d", X, f, "mlc", Y=(X[:, :1] % 2 == 0).astype(np.uint8),
                       targets=[Attribute("l", "numeric")])
    return Dataset("d", X, f, "mtr", Y=X[:, :1] * 10, targets=[Attribute("t", "numeric")])


def test_hide_labels_and_concat():
    ds = _ds(10)
    tr = np.arange(2, 10)
    sub = S.hide_labels(ds, tr, np.array([3, 5]))
    assert sub.n_examples == 8
    np.testing.assert_array_equal(np.flatnonzero(sub.labeled), [1, 3])
    assert np.isnan(sub.Y[0, 0]) and sub.Y[1, 0] == 60
    m = S.hide_labels(_ds(10, "mlc"), tr, np.array([3]))
    assert m.labeled.sum() == 1 and m.Y.dtype == np.uint8
    both = S.concat(ds, _ds(4))
    assert both.n_examples == 14 and S.given_split(10, 4)[0][1].tolist() == [10, 11, 12, 13]
    with pytest.raises(DataError, match="targets differ"):
        S.concat(ds, _ds(4, "mlc"))
