"""NDFS (Li et al. 2012) against a plain dense transcription of its Algorithm 1 (M formed, the
(XᵀX + βD) system inverted), on both sides of the rows/features switch; planted clusters,
a non-increasing objective, seeds and --jobs."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines import ndfs as engine
from frcli.errors import ConfigError
from frcli.rankers.registry import get_ranker

pytest.importorskip("sklearn")

from tests.helpers.spectral import data, dense_knn_graph  # noqa: E402


def ref_ndfs(Z, F, alpha, beta, gamma, k, updates):
    """Li et al.'s Algorithm 1 verbatim (dense), with unit F columns after each update."""
    X = Z - Z.mean(axis=0)
    n, C = X.shape
    S = dense_knn_graph(Z, k)
    dh = 1.0 / np.sqrt(S.sum(axis=1))
    L = np.eye(n) - dh[:, None] * S * dh[None, :]
    D = np.eye(C)
    objs = []
    for _ in range(updates):
        T = np.linalg.inv(X.T @ X + beta * D)
        M = L + alpha * (np.eye(n) - X @ T @ X.T)
        F = F * (gamma * F) / (M @ F + gamma * F @ F.T @ F)
        F = F / np.linalg.norm(F, axis=0)
        W = T @ X.T @ F
        D = np.diag(0.5 / np.linalg.norm(W, axis=1))
        O = F.T @ F - np.eye(F.shape[1])
        objs.append(np.trace(F.T @ L @ F) + alpha * (np.linalg.norm(X @ W - F) ** 2
                    + beta * np.linalg.norm(W, axis=1).sum()) + gamma / 2 * (O ** 2).sum())
    return np.linalg.norm(W, axis=1), np.array(objs)


@pytest.mark.parametrize("n,C", [(40, 6), (12, 30)])       # C x C and n x n systems
def test_ndfs_equals_the_dense_algorithm(n, C):
    Z = np.random.default_rng(n).random((n, C))
    Z[:, 0] += np.repeat([0.0, 2.0], n // 2)
    F0 = np.random.default_rng(1).random((n, 3)) + 0.1
    kw = dict(alpha=0.7, beta=0.3, gamma=50.0, k=4, updates=15)
    want, wobj = ref_ndfs(Z, F0.copy(), **kw)
    got, trace = engine.ndfs(Z, 3, tol=0.0, F0=F0, **kw)
    assert trace["updates"] == 15 and not trace["converged"]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(trace["objective"], wobj, rtol=1e-10)


@pytest.mark.parametrize("shape", [(90, 8), (30, 60)])
def test_ndfs_objective_never_increases_and_converges(shape):
    Z = data(n=shape[0], F=shape[1], seed=4)
    Z = (Z - Z.min(0)) / (Z.max(0) - Z.min(0))
    _, trace = engine.ndfs(Z, 3, tol=1e-6, seed=0)
    obj = np.array(trace["objective"])
    assert trace["converged"] and trace["updates"] < 1000
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1])), obj


def _unsupervised(X):
    feats = [Attribute(f"f{i}", "numeric") for i in range(X.shape[1])]
    return Dataset("u", X, feats, "unsupervised")


def planted(n=150, F=8, seed=1):
    """Three well separated clusters in f0 and f1 (k-means finds them), noise elsewhere."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    X = rng.normal(size=(n, F))
    X[:, 0] += 6 * g
    X[:, 1] -= 5 * g
    return X


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ndfs_ranks_the_cluster_features_first_and_is_deterministic(seed):
    X = planted(seed=seed)
    ranker = get_ranker("ndfs")
    r = ranker.rank(_unsupervised(X), {"clusters": 3}, seed=5)[0]
    assert set(r.order()[:2]) == {0, 1}, r.importances
    assert r.meta["converged"]
    again = ranker.rank(_unsupervised(X), {"clusters": 3}, seed=5)[0]
    np.testing.assert_array_equal(r.importances, again.importances)
    jobs2 = ranker.rank(_unsupervised(X), {"clusters": 3}, seed=5, jobs=2)[0]
    np.testing.assert_array_equal(r.importances, jobs2.importances)


def test_ndfs_refuses_more_clusters_than_rows():
    X = data(n=6, F=3)
    with pytest.raises(ConfigError, match="more rows than clusters"):
        get_ranker("ndfs").rank(_unsupervised(X), {"clusters": 6})
    with pytest.raises(ConfigError, match="gamma"):
        get_ranker("ndfs").rank(_unsupervised(X), {"gamma": 0})
    assert engine.dense_bytes(100, 10_000, 5) < engine.dense_bytes(10_000, 10_000, 5)
