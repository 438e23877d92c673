"""MultiSURF / MultiSURF* agree with scikit-rebate (deterministic: every instance is used), find
planted features and do not depend on --jobs; mutual-info is scikit-learn's estimate."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.api import dataset_from_arrays, rank
from frcli.engines.relief.multisurf import multisurf

skrebate = pytest.importorskip("skrebate")


def _data(case: str, n: int = 90, F: int = 9, classes: int = 2, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, F))
    if case in ("mixed", "discrete"):
        k = F if case == "discrete" else 4
        X[:, :k] = rng.integers(0, 3, (n, k))
    y = rng.integers(0, classes, n)
    y[:classes] = np.arange(classes)
    return X, y


@pytest.mark.parametrize("case", ["continuous", "mixed", "discrete"])
@pytest.mark.parametrize("classes", [2, 4])
@pytest.mark.parametrize("star", [False, True])
def test_multisurf_equals_scikit_rebate(case, classes, star):
    X, y = _data(case, classes=classes, seed=classes)
    ours, meta = multisurf(dataset_from_arrays(X, y), star=star)
    cls = skrebate.MultiSURFstar if star else skrebate.MultiSURF
    theirs = cls(label_type="binary" if classes == 2 else "multiclass").fit(
        X.copy(), y).feature_importances_
    assert meta["ramp"] == (case == "mixed")
    assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-15)


def test_multisurf_declared_types_only():
    X, y = _data("mixed", seed=3)
    ours, meta = multisurf(dataset_from_arrays(X, y), discrete_limit=0)
    theirs = skrebate.MultiSURF(categorical_features=[]).fit(X.copy(), y).feature_importances_
    assert meta["discrete_features"] == 0
    assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-15)


@pytest.mark.shared
def test_multisurf_star_equals_scikit_rebate_on_lung_discrete(shared_data):
    from frcli.data import catalog

    ds = catalog.load("lung_discrete")
    ours, _ = multisurf(ds, star=True, jobs=2)
    theirs = skrebate.MultiSURFstar(label_type="multiclass").fit(
        ds.X.copy(), ds.Y[:, 0]).feature_importances_
    assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-15)


def test_multisurf_planted_features_and_jobs_invariance():
    rng = np.random.default_rng(4)
    X = rng.random((150, 10))
    y = (X[:, 2] + X[:, 7] > 1).astype(int)
    ds = dataset_from_arrays(X, y)
    for method in ("multisurf", "multisurf-star"):
        r1 = rank(ds, method, jobs=1)
        r2 = rank(ds, method, jobs=2)
        assert np.array_equal(r1.importances, r2.importances)
        assert set(r1.order()[:2]) == {2, 7}


def test_mutual_info_planted_features_seeded_and_multilabel():
    rng = np.random.default_rng(5)
    X = rng.random((200, 6))
    y = (X[:, 1] > 0.5).astype(int)
    ds = dataset_from_arrays(X, y)
    a, b = rank(ds, "mutual-info", seed=1), rank(ds, "mutual-info", seed=1)
    assert np.array_equal(a.importances, b.importances) and a.order()[0] == 1
    Y = np.c_[X[:, 0] > 0.5, X[:, 3] > 0.5].astype(np.uint8)
    r = rank(dataset_from_arrays(X, Y, task="mlc"), "mutual-info")
    assert set(r.order()[:2]) == {0, 3} and r.per_target.shape == (2, 6)


def test_multisurf_counts_its_instances_for_progress_without_changing_scores():
    from frcli.engines.progress import Counter, tracking

    X, y = _data("mixed", classes=3)
    ds = dataset_from_arrays(X, y)
    plain = rank(ds, "multisurf", jobs=2).importances
    c = Counter()
    with tracking(c):
        counted = rank(ds, "multisurf", jobs=2).importances
    assert (c.expected, c.done, c.unit) == (90, 90, "MultiSURF instances")
    assert np.array_equal(plain, counted)
