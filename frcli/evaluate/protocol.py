"""Judge one ranking on one split: weighted kNN → predictions → measures (→ top-f curve)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.evaluate import curves
from frcli.evaluate.knn import knn_predict
from frcli.evaluate.measures import evaluate


@dataclass(frozen=True)
class EvalSpec:
    """How rankings are judged (the ``evaluation:`` block of an experiment config).

    knn: neighbours; measures: None = every measure of the task; weighted: importances as
    weights (False: only ``top`` selects features, P-UNS); top: keep the top-f features only;
    variance: RRMSE normaliser ("train" the MTR paper, "test" P-ML); pr: PR-area method;
    curve: f values (or "pow2") to also report ``<measure>@<f>`` and ``<measure>_area``.
    kind: "knn" (the above) or "topf" (a scikit-learn ``learner`` on the top-f features, f on
    ``curve``, features scaled by ``scale``: ``frcli.evaluate.topf``, the ReliefE paper).
    extra_knn: more kNN sizes, reported as ``<measure>_k<k>`` (P-ML's k = 20 beside 40).
    confusion: classification also stores the confusion matrix of the (first) kNN as counts
    ``cm:<true>:<predicted>`` (class codes), so that studies can pool the folds' matrices
    before computing accuracy and F1 (P-DS, T:6529-6541).
    """

    knn: int = 5
    measures: tuple[str, ...] | None = None
    weighted: bool = True
    top: int | None = None
    variance: str = "train"
    pr: str = "step"
    curve: tuple[int, ...] | str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    kind: str = "knn"
    learner: str = "auto"
    scale: str = "minmax"
    extra_knn: tuple[int, ...] = ()
    confusion: bool = False

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "topf":   # (knn runs keep their earlier fingerprint)
            return {"kind": "topf", "learner": self.learner, "scale": self.scale,
                    "curve": self.curve if isinstance(self.curve, str) or self.curve is None
                    else list(self.curve)}
        d = {"knn": self.knn, "measures": list(self.measures) if self.measures else None,
             "weighted": self.weighted, "top": self.top, "variance": self.variance,
             "pr": self.pr, "curve": self.curve if isinstance(self.curve, str)
             else (list(self.curve) if self.curve else None)}
        if self.extra_knn:       # (absent: earlier runs keep their fingerprint)
            d["extra_knn"] = list(self.extra_knn)
        if self.confusion:
            d["confusion"] = True
        return d


def confusion_counts(y: np.ndarray, votes: np.ndarray) -> dict[str, float]:
    """``cm:<true>:<predicted>`` counts of the nonzero cells (the predicted class is the
    largest vote share, ties to the lower code, as ``measures``)."""
    from frcli.evaluate.measures import _class_pred

    known = ~np.isnan(y)
    t = y[known].astype(np.intp)
    p = np.asarray(_class_pred(votes))[known]
    cells: dict[str, float] = {}
    for a, b in zip(t, p):
        key = f"cm:{a}:{int(b)}"
        cells[key] = cells.get(key, 0.0) + 1.0
    return dict(sorted(cells.items()))


def _truth(test: Dataset) -> np.ndarray:
    return test.X if test.task == "unsupervised" or test.Y is None else test.Y


def evaluate_ranking(train: Dataset, test: Dataset, importances: np.ndarray,
                     spec: EvalSpec) -> dict[str, float]:
    """{measure: value} of the kNN weighted by ``importances`` (trained on ``train``), or of
    the top-f learners (``spec.kind == "topf"``)."""
    if spec.kind == "topf":
        from frcli.evaluate.topf import evaluate_topf

        return evaluate_topf(train, test, importances, curve=spec.curve or "pow2",
                             learner=spec.learner, scale=spec.scale)
    names = None
    if spec.measures:   # a config may mix tasks: keep the measures that apply to this one
        from frcli.evaluate.measures import default_measures

        names = [m for m in spec.measures if m in default_measures(test.task)]

    def score(top: int | None, k: int = spec.knn, confusion: bool = False) -> dict[str, float]:
        pred = knn_predict(train, test.X, importances, k, weighted=spec.weighted, top=top)
        Yt = _truth(test)
        if test.is_label_task and not test.labeled.all():
            pred, Yt = pred[test.labeled], Yt[test.labeled]
        res = evaluate(test.task, Yt, pred, names, train_Y=train.Y, variance=spec.variance,
                       pr_method=spec.pr)
        if confusion and test.task == "classification":
            res.update(confusion_counts(Yt[:, 0], pred))
        return res

    out = score(spec.top, confusion=spec.confusion)
    for k in spec.extra_knn:
        out.update({f"{m}_k{k}": v for m, v in score(spec.top, k).items()})
    if spec.curve:
        F = train.n_features
        fs = curves.powers_of_two(F) if spec.curve == "pow2" else \
            sorted({min(int(f), F) for f in spec.curve})
        per_f = [score(f) for f in fs]
        for m in per_f[0]:
            vals = [d[m] for d in per_f]
            for f, v in zip(fs, vals):
                out[f"{m}@{f}"] = v
            out[f"{m}_area"] = curves.curve_area(vals, normalise=True)
    return out
