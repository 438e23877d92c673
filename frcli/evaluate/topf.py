"""Top-f learner curves: how well a learner does on the f best-ranked features (the ReliefE
paper's evaluation; docs/design/experiment.md, "Evaluation").

For every f of a grid, a scikit-learn learner is trained on the training part restricted to the
f top-ranked features (ties: the data set's feature order, as ``Ranking.order``) and scored on
the test part by F1; rF1(f) = F1(f) / F1(all features), and AUrF1 = the Simpson-rule integral of
rF1 over the grid points taken as equally spaced, divided by the number of points (the paper's
"normalised by the number of considered top f rankings"; ``curves.curve_area``).

Learners (``learner=auto``): LogisticRegression for classification, RandomForestClassifier
(multi-output) for mlc, scikit-learn's defaults as in the paper, except: ``random_state=0`` (the
same learner for every ranking of a split, so comparisons are paired), ``max_iter=1000`` for
the logistic regression (the reference code sets 100000; the default 100 often stops before
convergence), and the features min-max scaled by the training part's range (``scale=minmax``;
without it, unscaled expression values such as TOX_171's 0-34000 keep lbfgs from converging).
F1: micro-averaged (for multi-class equal to accuracy, the reference code's choice; for mlc the
paper's measure) and macro-averaged.

Scores of a run: ``f1`` and ``f1_macro`` (all features), ``f1@f``, ``rf1@f``, ``rf1_macro@f``
per grid point, ``aurf1``, ``aurf1_macro``, and over the grid ``f1_max``, ``f1_mean``,
``rf1_max`` (the paper's "maximum and mean F1" and its "top ranking" per fold).
"""
from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np

from frcli.data.dataset import Dataset
from frcli.errors import ConfigError, UserError
from frcli.evaluate import curves

LEARNERS = ("auto", "logistic", "random-forest")
SCALES = ("minmax", "none")
TASKS = ("classification", "mlc")


def grid(n_features: int, curve: Sequence[int] | str | None) -> list[int]:
    """The f values: ``pow2`` (1, 2, 4, ..., F; the default) or a list clipped to F."""
    if curve is None or curve == "pow2":
        return curves.powers_of_two(n_features)
    return sorted({min(int(f), n_features) for f in curve if int(f) >= 1})


def make_learner(task: str, name: str = "auto"):
    """A fresh scikit-learn estimator (imported lazily)."""
    try:
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise UserError("the top-f evaluation needs scikit-learn (pip install "
                        "scikit-learn)") from None
    if name not in LEARNERS:
        raise ConfigError(f"unknown learner {name!r}; allowed: {', '.join(LEARNERS)}")
    if name == "auto":
        name = "logistic" if task == "classification" else "random-forest"
    if name == "logistic":
        if task != "classification":
            raise ConfigError("learner 'logistic' is for classification; mlc uses "
                              "random-forest")
        return LogisticRegression(max_iter=1000, random_state=0)
    return RandomForestClassifier(random_state=0, n_jobs=1)


def _labels(ds: Dataset) -> np.ndarray:
    if ds.task == "classification":
        return ds.Y[:, 0].astype(np.int64)
    return np.asarray(ds.Y, dtype=np.uint8)


def _f1(task: str, y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    from sklearn.metrics import f1_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # labels without positives: sklearn's 0 is used
        return (float(f1_score(y, p, average="micro", zero_division=0)),
                float(f1_score(y, p, average="macro", zero_division=0)))


def _fit_predict(task: str, learner: str, Xtr, ytr, Xte) -> np.ndarray:
    est = make_learner(task, learner)
    if task == "classification" and np.unique(ytr).size < 2:
        return np.full(Xte.shape[0], ytr[0] if ytr.size else 0)   # one class: predict it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # convergence notes of lbfgs
        est.fit(Xtr, ytr)
        return np.asarray(est.predict(Xte))


def evaluate_topf(train: Dataset, test: Dataset, importances: np.ndarray, *,
                  curve: Sequence[int] | str | None = "pow2", learner: str = "auto",
                  scale: str = "minmax") -> dict[str, float]:
    """Scores of one ranking on one split (see the module docstring)."""
    task = train.task
    if task not in TASKS:
        raise ConfigError(f"the top-f evaluation is for classification and mlc, not {task}")
    if scale not in SCALES:
        raise ConfigError(f"unknown scale {scale!r}; allowed: {', '.join(SCALES)}")
    tr = train.subset(train.labeled) if not train.labeled.all() else train
    te = test.subset(test.labeled) if not test.labeled.all() else test
    if task == "classification":
        tr = tr.subset(~np.isnan(tr.Y[:, 0]))
        te = te.subset(~np.isnan(te.Y[:, 0]))
    Xtr, Xte = _impute_like(tr.X, te.X)
    if scale == "minmax":
        lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
        rg = np.where(hi > lo, hi - lo, 1.0)
        Xtr, Xte = (Xtr - lo) / rg, (Xte - lo) / rg
    ytr, yte = _labels(tr), _labels(te)
    imp = np.asarray(importances, dtype=np.float64)
    key = np.where(np.isnan(imp), -np.inf, imp)
    order = np.argsort(-key, kind="stable")
    F = Xtr.shape[1]
    fs = grid(F, curve)
    full = _f1(task, yte, _fit_predict(task, learner, Xtr, ytr, Xte))
    out: dict[str, float] = {"f1": full[0], "f1_macro": full[1]}
    micro, macro = [], []
    for f in fs:
        cols = order[:f]
        if f == F:
            s = full
        else:
            s = _f1(task, yte, _fit_predict(task, learner, Xtr[:, cols], ytr, Xte[:, cols]))
        micro.append(s[0])
        macro.append(s[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        r_micro = np.array(micro) / full[0] if full[0] > 0 else np.full(len(fs), np.nan)
        r_macro = np.array(macro) / full[1] if full[1] > 0 else np.full(len(fs), np.nan)
    for f, a, b, c in zip(fs, micro, r_micro, r_macro):
        out[f"f1@{f}"] = a
        out[f"rf1@{f}"] = float(b)
        out[f"rf1_macro@{f}"] = float(c)
    out["aurf1"] = curves.curve_area(r_micro, rule="simpson", normalise=True)
    out["aurf1_macro"] = curves.curve_area(r_macro, rule="simpson", normalise=True)
    out["f1_max"] = float(np.max(micro))
    out["f1_mean"] = float(np.mean(micro))
    out["rf1_max"] = float(np.max(r_micro))
    return out


def _impute_like(Xtr: np.ndarray, Xte: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Missing values -> the training mean (learners need complete data)."""
    if not (np.isnan(Xtr).any() or np.isnan(Xte).any()):
        return Xtr, Xte
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean = np.nan_to_num(np.nanmean(Xtr, axis=0))
    return (np.where(np.isnan(Xtr), mean, Xtr), np.where(np.isnan(Xte), mean, Xte))
