"""Why our clustering check differs from P-DS's on tic-tac-toe (paper 0.70, ours near 0): the
P-DS check (k-means with k = the number of classes, median adjusted Rand index of 10 runs
against the classes, T:6641-6653) under the feature encodings a reader might have used, and
with the class itself among the clustered columns.

The thesis says only that scikit-learn's k-means with its defaults clustered the data
(T:7411-7417); it names no encoding of nominal features and does not say whether the target
was left out. frcli clusters the features alone (``frcli.data.hypothesis``: range-scaled
numeric, one-hot nominal). Cheap (seconds per set), deterministic (seeded runs)."""
from __future__ import annotations

import numpy as np

# (name, how the features are encoded, whether the class's one-hot columns are appended)
ENCODINGS = (("one-hot (frcli)", "onehot", False),
             ("value codes", "codes", False),
             ("one-hot with the class", "onehot", True),
             ("value codes with the class", "codes", True))
RUNS = 10


def _matrix(ds, how: str) -> np.ndarray:
    """The features as k-means sees them: frcli's design (range-scaled numeric, one-hot
    nominal) or each nominal value's code (its position in the declared domain)."""
    from frcli.data.encode import design

    if how == "onehot":
        return design(ds).Z
    X = np.asarray(ds.X, dtype=np.float64).copy()
    for j in range(X.shape[1]):
        col = X[:, j]
        if np.isnan(col).any():
            col[np.isnan(col)] = np.nanmean(col) if (~np.isnan(col)).any() else 0.0
    return X


def encodings_ari(ds, runs: int = RUNS, seed: int = 0) -> dict[str, float]:
    """{encoding: median ARI of ``runs`` k-means runs (k = classes, one initialisation each,
    as frcli's check)} on a classification data set."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    y = np.asarray(ds.Y[:, 0])
    keep = ~np.isnan(y)
    ds = ds.subset(np.flatnonzero(keep))
    y = y[keep].astype(np.intp)
    classes, yc = np.unique(y, return_inverse=True)
    k = max(2, classes.size)
    rng = np.random.default_rng(seed)
    seeds = [int(rng.integers(2**31)) for _ in range(runs)]
    out = {}
    for name, how, with_class in ENCODINGS:
        Z = _matrix(ds, how)
        if with_class:
            Z = np.hstack([Z, np.eye(k)[yc]])
        s = [adjusted_rand_score(yc, KMeans(n_clusters=k, n_init=1, random_state=r)
                                 .fit_predict(Z)) for r in seeds]
        out[name] = float(np.median(s))
    return out
