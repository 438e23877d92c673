"""The semi-supervised weight w, chosen by internal cross-validation over the labeled rows
(``w="auto"``; docs/design/pct.md)."""
from __future__ import annotations

from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.scaling import exponents
from frcli.engines.pct.model import PCTForest

W_GRID = tuple(round(0.1 * i, 1) for i in range(11))


def cv_loss(ds: Dataset, model: PCTForest, rows: np.ndarray) -> float:
    """Held-out loss (lower is better): relative MSE of numeric targets and error rate of
    nominal ones (averaged over targets), 1 - pooled average precision for mlc/hmlc
    (docs/design/pct.md, "Semi-supervised w")."""
    pred = model.predict_targets(ds.X[rows])
    if ds.is_label_task:
        y = ds.Y[rows].astype(np.float64).ravel()
        order = np.argsort(-pred.ravel(), kind="stable")
        y = y[order]
        if y.sum() == 0:
            return 0.0
        prec = np.cumsum(y) / np.arange(1, y.size + 1)
        return 1.0 - float((prec * y).sum() / y.sum())
    losses = []
    for j in range(ds.n_targets):
        y = ds.Y[rows, j]
        known = ~np.isnan(y)
        if not known.any():
            continue
        nominal = ds.task == "classification" or (
            j < len(ds.targets) and ds.targets[j].is_nominal)
        if nominal:
            losses.append(float(np.mean(pred[known, j] != y[known])))
        else:   # in the target's power-of-two scale: no overflow for huge values
            e = int(exponents(ds.Y[ds.labeled][:, [j]])[0])
            var = float(np.nanvar(np.ldexp(ds.Y[ds.labeled, j], -e)))
            mse = float(np.mean((np.ldexp(pred[known, j], -e) - np.ldexp(y[known], -e)) ** 2))
            losses.append(mse / (var if var > 1e-12 else 1.0))
    return float(np.mean(losses)) if losses else 0.0


def choose_w(ds: Dataset, *, ensemble: str, trees: int, max_features: Any, min_leaf: float,
             bootstrap: bool | None, w0: float, seed: int, jobs: int, ties: str = "share",
             folds: int = 4,
             grid: tuple[float, ...] = W_GRID) -> tuple[float, dict[float, float]]:
    """Pick w by K-fold CV over the labeled rows (unlabeled rows join every training part,
    except for w = 1); ties go to the larger w (docs/design/pct.md, "Semi-supervised w")."""
    lab = np.flatnonzero(ds.labeled)
    unl = np.flatnonzero(~ds.labeled)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(lab)
    k = max(2, min(folds, lab.size))
    parts = np.array_split(perm, k)
    losses: dict[float, float] = {}
    for w in grid:
        total = 0.0
        for i in range(k):
            test = parts[i]
            train_lab = np.concatenate([parts[j] for j in range(k) if j != i])
            train = train_lab if w >= 1.0 else np.concatenate([train_lab, unl])
            sub = ds.subset(np.sort(train))
            # these forests only predict: "share" grows "first"'s trees, without the ties
            model = PCTForest(ensemble, trees=trees, max_features=max_features,
                              min_leaf=min_leaf, bootstrap=bootstrap,
                              w=w if w < 1.0 else None, w0=w0,
                              ties="first" if ties == "share" else ties, seed=seed + i,
                              jobs=jobs)
            model.fit(sub, predict_only=ds.X[test])
            total += cv_loss(ds, model, test)
        losses[w] = total
    best = min(losses.items(), key=lambda kv: (kv[1], -kv[0]))[0]
    return best, losses
