"""Graph-spectral feature scores: the Laplacian score (He, Cai & Niyogi 2005) and its
semi-supervised variant (Doquire & Verleysen 2013), SPEC (Zhao & Liu 2007) and MCFS (Cai, Zhang &
He 2010), the baselines of P-ML (STR) and P-UNS.

Input space (every method): nominal features one-hot encoded, numeric features divided by
their range (frcli's distance convention), missing values imputed with the column mean or
mode (the methods need complete data). Scores are per input column; ``per_feature`` sums a
nominal feature's one-hot scores (P-ML's adaptation, T:7619-7624).

Graphs are sparse where the method needs a neighbourhood graph (kNN via scikit-learn, n·k
edges); SPEC's similarity is the full RBF kernel by definition, and it is never stored: its
products with the feature matrix are formed in row blocks (O(block·n) memory).

Laplacian score of column f on a graph with weights S, degrees d (D = diag d), L = D - S:
    f~ = f - (fᵀd / 1ᵀd) 1,    LS(f) = f~ᵀ L f~ / f~ᵀ D f~    (lower = better; He et al. eq. 4)
which needs only Sf, so it costs one sparse product. SPEC's φ2 (Zhao & Liu §4, f̂ = D½f/‖D½f‖,
ξ1 = D½1/‖D½1‖) is f̂ᵀ𝓛f̂ / (1 - (f̂ᵀξ1)²) = the same ratio on the RBF graph; φ1 = f̂ᵀ𝓛f̂;
φ3 = Σ_{j=2..k} (2 - λ_j)(f̂ᵀξ_j)² needs the k smallest eigenpairs of 𝓛 (higher = better).
"""
from __future__ import annotations

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.encode import Design, design
from frcli.errors import ConfigError, UserError

_BLOCK = 1 << 22     # doubles per block of a dense kernel row slab (32 MB)


def inputs(dataset: Dataset) -> Design:
    """The design matrix the methods work on (``frcli.data.encode.design``)."""
    return design(dataset)


def _sklearn():
    try:
        from sklearn.neighbors import NearestNeighbors
    except ImportError:
        raise UserError("the spectral baselines need scikit-learn (pip install "
                        "scikit-learn)") from None
    return NearestNeighbors


def knn_graph(Z: np.ndarray, k: int, t: float | str = "auto", *, binary: bool = False,
              jobs: int = 1):
    """Symmetric kNN graph (i ~ j if either is among the other's k nearest, Euclidean; no
    self loops), heat-kernel weights exp(-‖xi - xj‖² / t) or 1 (``binary``). ``t="auto"``:
    the mean squared distance of a point to its k nearest neighbours (He et al. leave t to
    the user). Sparse CSR."""
    import scipy.sparse as sp

    n = Z.shape[0]
    if n < 2:
        return sp.csr_matrix((n, n)), 1.0
    kk = min(k, n - 1)
    nn = _sklearn()(n_neighbors=kk + 1, n_jobs=jobs).fit(Z)
    dist, idx = nn.kneighbors(Z)
    other = idx != np.arange(n)[:, None]              # the point itself is not an edge
    keep = (other & (np.cumsum(other, axis=1) <= kk)).ravel()   # (nor is an extra one)
    rows = np.repeat(np.arange(n), kk + 1)
    r, c, d2 = rows[keep], idx.ravel()[keep], dist.ravel()[keep] ** 2
    tt = float(np.mean(d2)) if t == "auto" else float(t)
    tt = tt if tt > 0 else 1.0
    w = np.ones_like(d2) if binary else np.exp(-d2 / tt)
    A = sp.csr_matrix((w, (r, c)), shape=(n, n))
    return A.maximum(A.T).tocsr(), tt


def laplacian_scores(S, Z: np.ndarray) -> np.ndarray:
    """LS of every column of Z on graph S (lower = better); constant columns get +inf."""
    d = np.asarray(S.sum(axis=1)).ravel()
    SZ = S @ Z
    tot = d.sum()
    if tot <= 0:
        return np.full(Z.shape[1], np.inf)
    fd = d @ Z                                       # fᵀd
    fDf = np.einsum("i,ij,ij->j", d, Z, Z)
    fSf = np.einsum("ij,ij->j", Z, SZ)
    den = fDf - fd * fd / tot
    num = fDf - fSf                                  # fᵀLf (L1 = 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 1e-12 * np.maximum(fDf, 1e-300), num / den, np.inf)
    return out


def flip(scores: np.ndarray) -> np.ndarray:
    """Lower-is-better scores as importances: max + min - s (P-ML, T:7622); +inf (constant
    columns) -> 0."""
    s = np.asarray(scores, dtype=np.float64)
    fin = np.isfinite(s)
    if not fin.any():
        return np.zeros_like(s)
    out = np.zeros_like(s)
    out[fin] = s[fin].max() + s[fin].min() - s[fin]
    return out


def ssl_graph(Z: np.ndarray, targets: np.ndarray | None, labeled: np.ndarray, k: int,
              w: float, jobs: int = 1):
    """The semi-supervised Laplacian graph (P-ML does not describe its graph; this follows
    Doquire & Verleysen 2013): the kNN heat-kernel graph in X, and among
    the labeled rows the kNN graph of the targets (range-scaled), each normalised to total
    weight 1 and mixed as (1 - w) X-graph + w target-graph. Without targets: the X-graph."""
    Sx, _ = knn_graph(Z, k, jobs=jobs)
    lab = np.flatnonzero(labeled)
    if targets is None or lab.size < 2 or w <= 0:
        return Sx
    import scipy.sparse as sp

    Y = np.asarray(targets, dtype=np.float64)[lab]
    Y = np.where(np.isnan(Y), np.nanmean(Y, axis=0), Y)
    rg = Y.max(axis=0) - Y.min(axis=0)
    Y = (Y - Y.min(axis=0)) / np.where(rg > 0, rg, 1.0)
    Sy_l, _ = knn_graph(Y, k, jobs=jobs)
    Sy_l = Sy_l.tocoo()
    n = Z.shape[0]
    Sy = sp.csr_matrix((Sy_l.data, (lab[Sy_l.row], lab[Sy_l.col])), shape=(n, n))
    tx, ty = Sx.sum(), Sy.sum()
    if ty <= 0:
        return Sx
    return ((1.0 - w) / tx) * Sx + (w / ty) * Sy


# -- SPEC -----------------------------------------------------------------------------------

def rbf_gamma(Z: np.ndarray) -> float:
    """1 / (2 σ²) with σ² the mean squared distance of all pairs, 2 Σ_c Var(c) (exact, O(nC))."""
    s2 = 2.0 * float(Z.var(axis=0).sum())
    return 1.0 / s2 if s2 > 0 else 1.0


def _rbf_times(Z: np.ndarray, M: np.ndarray, gamma: float) -> np.ndarray:
    """K @ M for the RBF kernel K_ij = exp(-gamma ‖zi - zj‖²), K never stored."""
    n = Z.shape[0]
    sq = np.einsum("ij,ij->i", Z, Z)
    out = np.empty((n,) + M.shape[1:])
    step = max(1, _BLOCK // max(1, n))
    for s in range(0, n, step):
        e = min(n, s + step)
        D2 = sq[s:e, None] + sq[None, :] - 2.0 * (Z[s:e] @ Z.T)
        np.maximum(D2, 0.0, out=D2)
        out[s:e] = np.exp(-gamma * D2) @ M
    return out


def spec_scores(Z: np.ndarray, style: str = "phi2", k: int = 5,
                gamma: float | None = None) -> np.ndarray:
    """SPEC's φ1, φ2 (lower = better) or φ3 with k - 1 eigenpairs (higher = better) of every
    column of Z on the full RBF graph (Zhao & Liu 2007)."""
    g = rbf_gamma(Z) if gamma is None else float(gamma)
    n = Z.shape[0]
    d = _rbf_times(Z, np.ones(n), g)                    # degrees
    SZ = _rbf_times(Z, Z, g)
    fDf = np.einsum("i,ij,ij->j", d, Z, Z)
    fSf = np.einsum("ij,ij->j", Z, SZ)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi1 = np.where(fDf > 0, 1.0 - fSf / fDf, np.inf)
        if style == "phi1":
            return phi1
        if style == "phi2":
            cos2 = (d @ Z) ** 2 / (fDf * d.sum())
            return np.where((fDf > 0) & (cos2 < 1 - 1e-12), phi1 / (1.0 - cos2), np.inf)
    if style != "phi3":
        raise ConfigError(f"bad value {style!r} for parameter 'score' (phi1, phi2, phi3)")
    from scipy.sparse.linalg import LinearOperator, eigsh

    dh = np.sqrt(d)
    op = LinearOperator((n, n), dtype=np.float64,
                        matvec=lambda v: _rbf_times(Z, np.asarray(v).ravel() / dh, g) / dh)
    kk = min(k, n - 1)
    # the largest eigenvalues of D^-½ S D^-½ are 1 - λ for the smallest λ of 𝓛
    vals, vecs = eigsh(op, k=kk, which="LA", v0=np.full(n, 1.0 / np.sqrt(n)))
    order = np.argsort(-vals)
    lam = 1.0 - vals[order]
    xi = vecs[:, order]
    F = dh[:, None] * Z
    norm = np.linalg.norm(F, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        Fh = np.where(norm > 0, F / norm, 0.0)
    a2 = (xi[:, 1:].T @ Fh) ** 2                           # (k-1, C)
    return ((2.0 - lam[1:])[:, None] * a2).sum(axis=0)


# -- MCFS -----------------------------------------------------------------------------------

def mcfs_scores(Z: np.ndarray, clusters: int, nonzero: int, k: int = 5, seed: int = 0,
                jobs: int = 1) -> np.ndarray:
    """MCFS (Cai et al. 2010): the ``clusters`` leading nontrivial eigenvectors y of
    S y = λ D y (kNN graph, heat kernel), one LARS regression of each on the columns of Z
    stopped at ``nonzero`` coefficients (scikit-learn's Lars), score = max_k |a_kj|."""
    from scipy.sparse.linalg import eigsh

    try:
        from sklearn.linear_model import Lars
    except ImportError:
        raise UserError("method 'mcfs' needs scikit-learn (pip install scikit-learn)") from None
    n, C = Z.shape
    S, _ = knn_graph(Z, k, jobs=jobs)
    d = np.asarray(S.sum(axis=1)).ravel()
    dh = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
    import scipy.sparse as sp

    Nrm = sp.diags(dh) @ S @ sp.diags(dh)
    kk = min(clusters + 1, n - 1)
    rng = np.random.default_rng(seed)
    if kk >= n - 1 or n < 50:
        vals, vecs = np.linalg.eigh(Nrm.toarray())
        order = np.argsort(-vals)[:kk]
        vals, vecs = vals[order], vecs[:, order]
    else:
        vals, vecs = eigsh(Nrm, k=kk, which="LA", v0=rng.random(n))
        order = np.argsort(-vals)
        vecs = vecs[:, order]
    Y = dh[:, None] * vecs[:, 1:]                         # drop the trivial D½1 direction
    Zc = Z - Z.mean(axis=0)
    scores = np.zeros(C)
    nz = max(1, min(nonzero, C))
    import warnings

    for j in range(Y.shape[1]):
        y = Y[:, j] - Y[:, j].mean()
        lars = Lars(fit_intercept=False, n_nonzero_coefs=nz)
        with warnings.catch_warnings():   # early stops on collinear columns are expected
            warnings.simplefilter("ignore")
            lars.fit(Zc, y)
        scores = np.maximum(scores, np.abs(lars.coef_))
    return scores
