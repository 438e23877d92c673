"""How the semi-supervised papers summarise cross-validated runs (docs/design/experiment.md):
P-DS adds up the folds' confusion matrices before computing its measures; P-ML averages
the folds weighted by their size; both compare rankings by the area under the curve of a
measure over the numbers of labelled examples L (trapezoid, unit spacing).

Every function works on result tables (``frcli.results.store.tidy_frame``: one row per
dataset, split, labeled, method, params, measure, value; ``n_test`` merged in where needed),
so it serves any store whose runs recorded ``cm:<true>:<predicted>`` counts
(``evaluation: {confusion: true}``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from frcli.evaluate.curves import curve_area

KEYS = ["dataset", "labeled", "method", "params"]


def confusion_measures(cm: np.ndarray) -> dict[str, float]:
    """Accuracy, Cohen's kappa, macro one-vs-rest F1 and MCC of a (C, C) matrix (rows: true
    classes, columns: predicted), over the classes that occur in it (P-DS, T:6529-6541)."""
    cm = np.asarray(cm, dtype=np.float64)
    n = cm.sum()
    if n <= 0:
        return {"accuracy": float("nan"), "kappa": float("nan"), "macro_f1": float("nan"),
                "macro_mcc": float("nan")}
    tp = np.diag(cm)
    t = cm.sum(axis=1)
    p = cm.sum(axis=0)
    acc = tp.sum() / n
    pe = float((t * p).sum()) / (n * n)
    kappa = (acc - pe) / (1 - pe) if pe < 1 else 0.0
    present = (t + p) > 0
    f1, mcc = [], []
    for c in np.flatnonzero(present):
        fp, fn = p[c] - tp[c], t[c] - tp[c]
        tn = n - tp[c] - fp - fn
        f1.append(2 * tp[c] / (2 * tp[c] + fp + fn) if tp[c] + fp + fn > 0 else 0.0)
        den = np.sqrt((tp[c] + fp) * (tp[c] + fn) * (tn + fp) * (tn + fn))
        mcc.append((tp[c] * tn - fp * fn) / den if den > 0 else 0.0)
    return {"accuracy": float(acc), "kappa": float(kappa), "macro_f1": float(np.mean(f1)),
            "macro_mcc": float(np.mean(mcc))}


def pooled_confusion(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, labeled, method, params): the measures of the summed confusion matrices
    of its splits. ``frame``: a tidy frame with ``cm:<t>:<p>`` rows."""
    cm = frame[frame["measure"].str.startswith("cm:")].copy()
    if cm.empty:
        return pd.DataFrame(columns=KEYS + ["accuracy", "kappa", "macro_f1", "macro_mcc"])
    parts = cm["measure"].str.split(":", expand=True)
    cm["t"], cm["p"] = parts[1].astype(int), parts[2].astype(int)
    rows = []
    for key, g in cm.groupby(KEYS, sort=True, dropna=False):
        C = int(max(g["t"].max(), g["p"].max())) + 1
        m = np.zeros((C, C))
        np.add.at(m, (g["t"].to_numpy(), g["p"].to_numpy()), g["value"].to_numpy())
        rows.append({**dict(zip(KEYS, key)), **confusion_measures(m)})
    return pd.DataFrame(rows)


def weighted_over_splits(frame: pd.DataFrame, runs: pd.DataFrame,
                         measure: str) -> pd.Series:
    """Per (dataset, labeled, method, params): the mean of ``measure`` over the splits,
    weighted by the test-fold sizes (P-ML, T:7576-7577)."""
    f = frame[frame["measure"] == measure]
    f = f.merge(runs[["dataset", "split", "labeled", "method", "params", "n_test"]],
                on=["dataset", "split", "labeled", "method", "params"])
    f = f.assign(w=f["value"] * f["n_test"])
    g = f.groupby(KEYS, sort=True, dropna=False)
    return g["w"].sum() / g["n_test"].sum()


def area_over_labeled(values: pd.Series) -> pd.Series:
    """Area under the (L, value) curve per (dataset, method, params): trapezoid with unit
    spacing over the ordered L values; index levels as ``weighted_over_splits``."""
    out = {}
    for key, s in values.groupby(level=["dataset", "method", "params"], sort=True):
        s = s.droplevel(["dataset", "method", "params"]).sort_index()
        out[key] = curve_area(s.to_numpy())
    res = pd.Series(out)
    res.index.names = ["dataset", "method", "params"]
    return res
