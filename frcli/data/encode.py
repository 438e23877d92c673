"""A complete numeric design matrix of a data set: numeric features divided by their range
(frcli's distance convention), nominal features one-hot, missing values imputed with the
column mean or mode. For methods that need plain vectors (graph-spectral scores, k-means)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from frcli.data.dataset import Dataset


@dataclass
class Design:
    """The matrix and which original feature each column encodes."""

    Z: np.ndarray           # (n, C)
    owner: np.ndarray       # (C,) original feature index
    n_features: int

    def per_feature(self, col_scores: np.ndarray) -> np.ndarray:
        """Sum of each original feature's column scores (one-hot columns of a nominal)."""
        return np.bincount(self.owner, weights=col_scores, minlength=self.n_features)


def imputed(dataset: Dataset) -> tuple[np.ndarray, int]:
    """X with missing values replaced (numeric: the column mean; nominal: the most frequent
    code; a column with no known value: 0) and the number of values replaced."""
    X = dataset.X
    miss = np.isnan(X)
    if not miss.any():
        return X, 0
    X = X.copy()
    nominal = dataset.nominal_mask
    for f in np.flatnonzero(miss.any(axis=0)):
        col = X[:, f]
        known = col[~np.isnan(col)]
        if known.size == 0:
            fill = 0.0
        elif nominal[f]:
            vals, cnt = np.unique(known, return_counts=True)
            fill = vals[np.argmax(cnt)]
        else:
            fill = float(known.mean())
        col[np.isnan(col)] = fill
    return X, int(miss.sum())


def design(dataset: Dataset) -> Design:
    """Range-scaled numeric columns and one-hot nominal columns (missing values imputed)."""
    X, _ = imputed(dataset)
    cols, owner = [], []
    for i, attr in enumerate(dataset.features):
        x = X[:, i]
        if attr.is_nominal:
            k = max(len(attr.categories), int(np.nanmax(x)) + 1 if x.size else 1)
            for c in range(k):
                cols.append((x == c).astype(np.float64))
                owner.append(i)
        else:
            lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
            cols.append((x - lo) / (hi - lo) if hi > lo else np.zeros_like(x))
            owner.append(i)
    Z = np.column_stack(cols) if cols else np.zeros((dataset.n_examples, 0))
    return Design(np.ascontiguousarray(Z), np.asarray(owner, dtype=np.intp), dataset.n_features)
