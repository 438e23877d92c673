"""Dense references and data shared by the spectral baselines' and NDFS's tests."""
from __future__ import annotations

import numpy as np


def dense_knn_graph(Z, k):
    """Brute force: i ~ j if either is among the other's k nearest; heat kernel with t =
    the mean squared distance of a point to its k nearest neighbours."""
    n = Z.shape[0]
    D2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
    A = np.zeros((n, n))
    for i in range(n):
        order = [j for j in np.argsort(D2[i], kind="stable") if j != i][:k]
        A[i, order] = 1.0
    t = D2[A > 0].mean()
    A = np.maximum(A, A.T)
    return A * np.exp(-D2 / t)


def data(n=60, F=5, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    X = rng.normal(size=(n, F))
    X[:, 0] += 3 * g          # cluster structure in the first two features
    X[:, 1] -= 2 * g
    return X
