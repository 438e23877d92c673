"""Relief with approximate neighbours (``search=approximate``).

The groups here are made larger than ``EXACT_BELOW`` by lowering it, so NN-descent runs on
small data; agreement and speed at scale are measured by ``bench/bench_scaling.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.relief import ann as relief_ann
from frcli.engines.relief.common import column_distances, column_meta, kernel
from frcli.engines.relief.relief import relief
from frcli.errors import ConfigError

pytest.importorskip("pynndescent")
from tests.conftest import need_kernel

need_kernel("frcli._ext.relief._relief")


def _data(n=700, task="mtr", seed=1, missing=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 10))
    X[:, 9] = rng.integers(0, 3, n)
    if missing:
        X[rng.random(n) < 0.05, 2] = np.nan
    feats = [Attribute(f"x{j}", "numeric") for j in range(9)] + \
        [Attribute("c", "nominal", ("a", "b", "c"))]
    y1 = 3 * X[:, 0] + 2 * X[:, 1] + (X[:, 9] == 1)
    if task == "classification":
        y = (y1 > np.median(y1)).astype(float)[:, None]
        return Dataset("ann", X, feats, task, y, [Attribute("y", "nominal", ("n", "p"))])
    Y = np.column_stack([y1, X[:, 2] - X[:, 0]]) + 0.05 * rng.standard_normal((n, 2))
    return Dataset("ann", X, feats, task, Y, [Attribute(f"y{j}", "numeric") for j in range(2)])


@pytest.fixture
def small_groups(monkeypatch):
    monkeypatch.setattr(relief_ann, "EXACT_BELOW", 50)


def test_coordinates_give_the_relief_distance():
    ds = _data(50)
    meta = column_meta(ds.X, ds.nominal_mask, ds.n_categories)
    Z = relief_ann.coordinates(ds.X, meta.kind, meta.mn, meta.rg, ds.n_categories)
    a, b = np.arange(25), np.arange(25, 50)
    exact = column_distances(ds.X[a], ds.X[b], meta).mean(axis=1)
    np.testing.assert_allclose(np.abs(Z[a] - Z[b]).sum(axis=1) / ds.n_features, exact,
                               rtol=1e-5)


@pytest.mark.parametrize("task", ["mtr", "classification"])
def test_approximate_relief_agrees_with_exact(small_groups, task):
    ds = _data(task=task)
    e = relief(ds, [1.0], [10], [0.0], seed=0)[0]
    a = relief(ds, [1.0], [10], [0.0], search="approximate", seed=0)[0]
    assert a.meta["search"] == "approximate" and e.meta["search"] == "exact"
    assert np.corrcoef(a.importances, e.importances)[0, 1] > 0.95
    top = set(np.argsort(-e.importances)[:3])
    assert set(np.argsort(-a.importances)[:3]) == top
    # deterministic, and the same for any number of jobs
    b = relief(ds, [1.0], [10], [0.0], search="approximate", seed=0, jobs=2)[0]
    assert np.array_equal(a.importances, b.importances)


def test_found_neighbours_are_mostly_the_exact_ones(small_groups):
    from frcli.engines.relief.relief import _search, prepare
    ds = _data()
    rows = np.arange(0, ds.n_examples, 7, dtype=np.int32)
    group = np.zeros(ds.n_examples, dtype=np.int32)
    K_ = kernel("_relief")
    ne, de, _ = _search(K_, ds, prepare(ds, "auto", "exact"), rows, group, 1, 10, 1, 0)
    na, da, ca = _search(K_, ds, prepare(ds, "auto", "approximate"), rows, group, 1, 10, 1,
                         0)
    assert (ca == 10).all()
    recall = np.mean([len(set(x) & set(y)) / 10 for x, y in zip(ne[:, 0], na[:, 0])])
    assert recall > 0.9
    assert np.all(np.diff(da[:, 0], axis=1) >= 0)          # ordered by the exact d_X
    assert np.all(da[:, 0, 0] >= de[:, 0, 0] - 1e-12)       # never nearer than the truth


def test_missing_values_and_bad_values_are_clear_errors(small_groups):
    with pytest.raises(ConfigError, match="missing values"):
        relief(_data(missing=True), [1.0], [5], [0.0], search="approximate")
    with pytest.raises(ConfigError, match="search"):
        relief(_data(60), [1.0], [5], [0.0], search="fast")


def test_ranker_parameter(small_groups):
    from frcli.rankers.registry import get_ranker
    r = get_ranker("relief").rank(_data(), {"search": "approximate", "neighbours": 5},
                                  seed=0)[0]
    e = get_ranker("relief").rank(_data(), {"neighbours": 5}, seed=0)[0]
    assert r.meta["search"] == "approximate" and r.params["search"] == "approximate"
    assert set(np.argsort(-r.importances)[:3]) == set(np.argsort(-e.importances)[:3])
