"""NDFS, nonnegative discriminative feature selection (Li, Yang, Liu, Zhou & Lu, AAAI 2012),
a P-UNS baseline (scikit-feature's defaults, as the paper ran it).

NDFS learns nonnegative cluster indicators F (n x c) that are smooth on the data's kNN graph
and predictable from the features by a row-sparse linear model W (C x c):

    min_{F >= 0, W}  Tr(Fᵀ L F) + α (‖X W − F‖²_F + β ‖W‖_{2,1}) + γ/2 ‖Fᵀ F − I‖²_F

with L the normalised Laplacian I − D^-½ S D^-½ of the heat-kernel kNN graph (the one the
Laplacian score and MCFS use here, ``spectral.knn_graph``). Li et al.'s Algorithm 1, from
D = I:

    M   = L + α (I − X (XᵀX + β D)⁻¹ Xᵀ)
    F  ← F ⊙ (γ F) / (M F + γ F Fᵀ F)               (multiplicative, keeps F >= 0)
    W   = (XᵀX + β D)⁻¹ Xᵀ F                          (iteratively reweighted least squares
    D   = diag(1 / (2 ‖w_i‖))                          of the l2,1 term, Nie et al. 2010)

until the objective changes by less than ``tol`` (relative) or ``updates`` rounds; feature
i scores ‖w_i‖₂ (higher = better).

M is never formed. M F = L F + α (F − X P) with P = (XᵀX + β D)⁻¹ XᵀF, the ridge solution
that W also is; the one system per round is solved in whichever of the two spaces is
smaller (Li et al.'s algorithm needs one of them): C x C with XᵀX cached when C <= n, else
n x n by the push-through identity (XᵀX + A)⁻¹Xᵀ = A⁻¹Xᵀ(I + X A⁻¹ Xᵀ)⁻¹, A = β D, whose
A⁻¹ = diag(2‖w_i‖ / β) also keeps rows that went to 0 exactly at 0. Memory: that one
min(n, C)² matrix, X, and the sparse graph.

X is the design (range-scaled, one-hot) centred per column: the model XW ≈ F has no
intercept, so an uncentred, nearly constant column would act as one and rank first;
centring makes the scores invariant to shifting a feature (as MCFS's regressions here).
F starts, as in scikit-feature, from k-means (scikit-learn, ``seed``) indicators Y(YᵀY)^-½
plus 0.02.
"""
from __future__ import annotations

import numpy as np

from frcli.errors import UserError

EPS = 1e-16          # ‖w_i‖ floor of the reweighting (scikit-feature's)


def dense_bytes(n: int, C: int, clusters: int) -> float:
    """Upper bound of the arrays NDFS holds: the min(n, C)² system (and its factor), the
    centred X, XᵀX or X A⁻¹ copies, and a few n x c / C x c iterates."""
    m = min(n, C)
    return 8.0 * (3 * m * m + 2 * n * C + 8 * (n + C) * clusters)


def _kmeans_start(X: np.ndarray, clusters: int, seed: int) -> np.ndarray:
    try:
        from sklearn.cluster import KMeans
    except ImportError:
        raise UserError("method 'ndfs' needs scikit-learn (pip install scikit-learn)") from None
    n = X.shape[0]
    labels = KMeans(n_clusters=clusters, n_init=10, random_state=seed % (2**32)).fit(X).labels_
    Y = np.zeros((n, clusters))
    Y[np.arange(n), labels] = 1.0
    size = Y.sum(axis=0)
    return Y / np.sqrt(np.where(size > 0, size, 1.0)) + 0.02


def normalised_laplacian(Z: np.ndarray, k: int, jobs: int = 1):
    """L = I − D^-½ S D^-½ of ``spectral.knn_graph`` (sparse; isolated rows keep L_ii = 1)."""
    import scipy.sparse as sp

    from frcli.engines.spectral import knn_graph

    S, _ = knn_graph(Z, k, jobs=jobs)
    d = np.asarray(S.sum(axis=1)).ravel()
    dh = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
    return (sp.identity(Z.shape[0], format="csr") - sp.diags(dh) @ S @ sp.diags(dh)).tocsr()


class _Ridge:
    """(XᵀX + β diag(q))⁻¹ Xᵀ R for one q, in the smaller of the two spaces."""

    def __init__(self, X: np.ndarray, G: np.ndarray | None, q: np.ndarray, beta: float):
        from scipy.linalg import cho_factor

        self.X = X
        if G is not None:                                   # C <= n: C x C
            self.primal = True
            self.fac = cho_factor(G + np.diag(beta * q), lower=True)
        else:                                               # n < C: n x n
            self.primal = False
            self.a = 1.0 / (beta * q)
            K = (X * self.a) @ X.T
            K[np.diag_indices_from(K)] += 1.0
            self.fac = cho_factor(K, lower=True)

    def solve(self, R: np.ndarray) -> np.ndarray:
        from scipy.linalg import cho_solve

        if self.primal:
            return cho_solve(self.fac, self.X.T @ R)
        return self.a[:, None] * (self.X.T @ cho_solve(self.fac, R))


def objective(L, X: np.ndarray, F: np.ndarray, W: np.ndarray, alpha: float, beta: float,
              gamma: float) -> float:
    """Li et al.'s objective with the orthogonality penalty (the quantity the updates lower)."""
    c = F.shape[1]
    R = X @ W - F
    O = F.T @ F - np.eye(c)
    return float(np.einsum("ij,ij->", F, L @ F)
                 + alpha * (np.einsum("ij,ij->", R, R) + beta * np.linalg.norm(W, axis=1).sum())
                 + 0.5 * gamma * np.einsum("ij,ij->", O, O))


def ndfs(Z: np.ndarray, clusters: int, *, alpha: float = 1.0, beta: float = 1.0,
         gamma: float = 1e8, k: int = 5, updates: int = 1000, tol: float = 1e-6,
         seed: int = 0, jobs: int = 1, F0: np.ndarray | None = None,
         L=None) -> tuple[np.ndarray, dict]:
    """Feature scores ‖w_i‖₂ of NDFS on the columns of Z, and a trace (``objective`` per
    round, ``updates`` done, ``converged``). ``F0``/``L`` replace the k-means start and the
    graph (tests)."""
    Z = np.asarray(Z, dtype=np.float64)
    n, C = Z.shape
    X = Z - Z.mean(axis=0)
    if L is None:
        L = normalised_laplacian(Z, k, jobs=jobs)
    F = _kmeans_start(X, clusters, seed) if F0 is None else np.array(F0, dtype=np.float64)
    G = X.T @ X if C <= n else None
    q = np.ones(C)                                          # D_1 = I
    W = np.zeros((C, F.shape[1]))
    objs: list[float] = []
    converged = False
    for _ in range(updates):
        ridge = _Ridge(X, G, q, beta)
        MF = L @ F + alpha * (F - X @ ridge.solve(F))
        den = MF + gamma * (F @ (F.T @ F))
        with np.errstate(divide="ignore", invalid="ignore"):
            F = np.where(den > 0, F * (gamma * F) / den, 0.0)
        F /= np.maximum(np.linalg.norm(F, axis=0), EPS)     # unit columns (Li et al.'s code)
        W = ridge.solve(F)
        q = 0.5 / np.maximum(np.linalg.norm(W, axis=1), EPS)
        objs.append(objective(L, X, F, W, alpha, beta, gamma))
        if len(objs) > 1 and abs(objs[-2] - objs[-1]) <= tol * max(abs(objs[-2]), 1e-300):
            converged = True
            break
    return np.linalg.norm(W, axis=1), {"objective": objs, "updates": len(objs),
                                       "converged": converged}
