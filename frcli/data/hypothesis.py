"""How well the clustering hypothesis holds: P-ML's estimate CH (spec-ssl-unsup §5.2,
T:7404-7437), so that users can judge whether unlabelled rows may help a ranking.

k-means (scikit-learn's defaults, imported lazily) clusters the labelled rows' features
(``frcli.data.encode``: range-scaled numeric, one-hot nominal), k = the number of classes for
classification and 8 otherwise; the best of 5 runs is reported:

* classification: CH = the adjusted Rand index of the clusters and the classes;
* other tasks: v_j = Σ_c p(c) Var(c, y_j) / Var(D, y_j) per target (p(c) = |c|/|D|, known
  values only), v their mean (HMLC: weighted by the label weights), CH = 1 - v.

Near 0: the clusters of the features say nothing about the targets; near 1: they are the
targets' structure. For classification the P-DS check is reported too: the median ARI of 10
runs (T:6641-6650).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.encode import design
from frcli.errors import UserError

RUNS = 5
K_OTHER = 8


def _kmeans():
    try:
        from sklearn.cluster import KMeans
        from sklearn.metrics import adjusted_rand_score
    except ImportError:
        raise UserError("the clustering-hypothesis estimate needs scikit-learn (pip install "
                        "scikit-learn)") from None
    return KMeans, adjusted_rand_score


def _variance_share(clusters: np.ndarray, Y: np.ndarray, weights: np.ndarray) -> float:
    """1 - weighted mean over targets of Σ_c p(c) Var(c, y_j) / Var(D, y_j)."""
    v, w = [], []
    for j in range(Y.shape[1]):
        y = Y[:, j]
        ok = ~np.isnan(y)
        var = float(y[ok].var()) if ok.any() else 0.0
        if var <= 1e-12:
            continue
        within = 0.0
        for c in np.unique(clusters[ok]):
            yc = y[ok & (clusters == c)]
            within += yc.size / ok.sum() * float(yc.var())
        v.append(within / var)
        w.append(weights[j])
    if not v:
        return float("nan")
    return 1.0 - float(np.average(v, weights=w))


def clustering_hypothesis(dataset: Dataset, *, runs: int = RUNS, seed: int = 0,
                          max_rows: int = 20000) -> dict[str, Any]:
    """{"ch": CH, "k": clusters, "runs": runs, "rows": rows used, ["ari_median": P-DS check]}
    over the labelled rows (a seeded sample of ``max_rows`` beyond that)."""
    if dataset.task == "unsupervised" or dataset.Y is None:
        raise UserError(f"{dataset.name}: the clustering hypothesis concerns targets; the "
                        "data set has none")
    KMeans, ari = _kmeans()
    rows = np.flatnonzero(dataset.labeled)
    if dataset.task == "classification":
        rows = rows[~np.isnan(dataset.Y[rows, 0])]
    rng = np.random.default_rng(seed)
    if rows.size > max_rows:
        rows = np.sort(rng.choice(rows, max_rows, replace=False))
    if rows.size < 2:
        raise UserError(f"{dataset.name}: fewer than 2 labelled rows")
    ds = dataset.subset(rows)
    Z = design(ds).Z
    Y = ds.Y.astype(np.float64)
    if ds.task == "classification":
        y = Y[:, 0].astype(np.intp)
        k = max(2, int(np.unique(y).size))
    else:
        k = K_OTHER
    k = min(k, rows.size)
    weights = np.ones(Y.shape[1])
    if ds.task == "hmlc" and ds.hierarchy is not None:
        weights = ds.hierarchy.weights(0.75)
    n_runs = max(runs, 10) if ds.task == "classification" else runs
    scores = []
    for r in range(n_runs):
        km = KMeans(n_clusters=k, n_init=1, random_state=int(rng.integers(2**31)))
        lab = km.fit_predict(Z)
        scores.append(float(ari(y, lab)) if ds.task == "classification"
                      else _variance_share(lab, Y, weights))
    out: dict[str, Any] = {"ch": float(np.nanmax(scores[:runs])), "k": k, "runs": runs,
                           "rows": int(rows.size)}
    if ds.task == "classification":
        out["ari_median"] = float(np.median(scores[:10]))
    return out
