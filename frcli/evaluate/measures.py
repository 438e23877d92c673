"""Evaluation measures of the papers, each with its direction (docs/design/experiment.md,
"Evaluation").

Every measure takes the true targets of the test part and the kNN's predictions (mean target
vectors, label probabilities or class-vote shares, see ``knn.knn_predict``) and returns one
float. ``MEASURES[name].direction`` ("lower" or "higher" is better) is what the statistics reuse.

Conventions where the papers are silent (recorded here and in docs):
* MLC label set Z_i = {ℓ : p̂_iℓ ≥ 0.5} (the papers state no threshold).
* ML precision with Z_i = ∅: 1 if Y_i = ∅ too, else 0. ML recall with Y_i = ∅: 1 if Z_i = ∅,
  else 0. ML accuracy and ML F1: 0/0 := 1. Micro precision/recall/F1: 0/0 := 1 (nothing to
  find and nothing predicted).
* one error: ties for the top score go to the first label index. coverage: rank of a label =
  number of labels scoring ≥ it (ties take the pessimistic rank, as scikit-learn), minus 1;
  Y_i = ∅ gives 0. ranking loss: pairs with p̂_a ≤ p̂_b count; Y_i or Ȳ_i empty gives 0.
* Per-label AUPRC/AUROC skip labels without positives (AUROC also without negatives).
* PR area: ``pr_area(..., method="step")`` (default; average precision over all distinct
  thresholds) or ``"interpolated"`` (Davis–Goadrich interpolation between the points, trapezoid
  area, as Vens et al. / CLUS).
* RRMSE divides by the target's variance on the *training* part (the MTR paper);
  ``variance="test"`` gives P-ML's reading (its Table 4 divides by the test part's).
  Population variance (ddof 0) over known values; targets with zero variance or no known
  test value are skipped.
* macro-F1: one-vs-rest F1 averaged over the classes that occur in the truth or the predictions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np

from frcli.data.scaling import exponents, scale
from frcli.errors import choices_error

Direction = Literal["lower", "higher"]


@dataclass(frozen=True)
class Measure:
    name: str
    direction: Direction
    tasks: tuple[str, ...]
    fn: Callable[..., float]
    help: str = ""

    def better(self, a: float, b: float) -> bool:
        """Whether value ``a`` is strictly better than ``b``."""
        return a < b if self.direction == "lower" else a > b


# -- regression ---------------------------------------------------------------------------

def rrmse(Y: np.ndarray, P: np.ndarray, var: np.ndarray) -> float:
    """(1/T) Σ_j sqrt(mean_test (y_j − ŷ_j)² / var_j) over targets with var_j > 0."""
    Y = np.asarray(Y, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    known = ~np.isnan(Y)
    se = np.where(known, (Y - np.where(known, P, 0.0)) ** 2, 0.0)
    cnt = known.sum(axis=0)
    var = np.asarray(var, dtype=np.float64)
    ok = (cnt > 0) & (var > 0) & np.isfinite(var)
    if not ok.any():
        return float("nan")
    return float(np.mean(np.sqrt(se.sum(axis=0)[ok] / cnt[ok] / var[ok])))


def target_variance(Y: np.ndarray) -> np.ndarray:
    """Per-target population variance over known values."""
    Y = np.asarray(Y, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.array([np.var(c[~np.isnan(c)]) if np.any(~np.isnan(c)) else np.nan
                         for c in Y.T])


# -- multi-label: example- and micro-based -----------------------------------------------

def _sets(Y, P, threshold=0.5):
    Yb = np.asarray(Y).astype(bool)
    Zb = np.asarray(P, dtype=np.float64) >= threshold
    return Yb, Zb


def _ratio(num, den, empty):
    """num/den elementwise with ``empty`` where den == 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.asarray(empty, dtype=np.float64) * np.ones_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def hamming_loss(Y, P):
    Yb, Zb = _sets(Y, P)
    return float(np.mean(Yb ^ Zb)) if Yb.size else float("nan")


def subset_accuracy(Y, P):
    Yb, Zb = _sets(Y, P)
    return float(np.mean(np.all(Yb == Zb, axis=1)))


def ml_accuracy(Y, P):
    Yb, Zb = _sets(Y, P)
    return float(np.mean(_ratio((Yb & Zb).sum(1), (Yb | Zb).sum(1), 1.0)))


def ml_precision(Y, P):
    Yb, Zb = _sets(Y, P)
    empty = (Yb.sum(1) == 0).astype(np.float64)
    return float(np.mean(_ratio((Yb & Zb).sum(1), Zb.sum(1), empty)))


def ml_recall(Y, P):
    Yb, Zb = _sets(Y, P)
    empty = (Zb.sum(1) == 0).astype(np.float64)
    return float(np.mean(_ratio((Yb & Zb).sum(1), Yb.sum(1), empty)))


def ml_f1(Y, P):
    Yb, Zb = _sets(Y, P)
    return float(np.mean(_ratio(2 * (Yb & Zb).sum(1), Yb.sum(1) + Zb.sum(1), 1.0)))


def _micro(Y, P):
    Yb, Zb = _sets(Y, P)
    tp = float((Yb & Zb).sum())
    fp = float((~Yb & Zb).sum())
    fn = float((Yb & ~Zb).sum())
    return tp, fp, fn


def micro_precision(Y, P):
    tp, fp, fn = _micro(Y, P)
    return tp / (tp + fp) if tp + fp > 0 else 1.0


def micro_recall(Y, P):
    tp, fp, fn = _micro(Y, P)
    return tp / (tp + fn) if tp + fn > 0 else 1.0


def micro_f1(Y, P):
    tp, fp, fn = _micro(Y, P)
    den = 2 * tp + fp + fn
    return 2 * tp / den if den > 0 else 1.0


# -- multi-label: ranking-based ----------------------------------------------------------

def one_error(Y, P):
    Yb = np.asarray(Y).astype(bool)
    top = np.argmax(np.asarray(P, dtype=np.float64), axis=1)   # first index on ties
    return float(np.mean(~Yb[np.arange(len(Yb)), top]))


def coverage(Y, P):
    Yb = np.asarray(Y).astype(bool)
    P = np.asarray(P, dtype=np.float64)
    # worst rank among true labels = #labels scoring >= the lowest-scoring true label
    lowest = np.where(Yb, P, np.inf).min(axis=1)
    rank = (P >= lowest[:, None]).sum(axis=1)
    return float(np.mean(np.where(Yb.any(axis=1), rank - 1, 0)))


def ranking_loss(Y, P):
    Yb = np.asarray(Y).astype(bool)
    P = np.asarray(P, dtype=np.float64)
    n, L = P.shape
    bad = np.zeros(n)
    step = max(1, (1 << 22) // max(L * L, 1))      # blocks of rows, (b, L, L) comparisons
    for s in range(0, n, step):
        y, p = Yb[s:s + step], P[s:s + step]
        # pairs (a relevant, b irrelevant) with p_b >= p_a
        ge = p[:, None, :] >= p[:, :, None]                    # [i, a, b] = p_b >= p_a
        bad[s:s + step] = np.einsum("ia,iab,ib->i", y.astype(np.float64),
                                    ge.astype(np.float64), (~y).astype(np.float64))
    n_rel = Yb.sum(axis=1)
    return float(np.mean(_ratio(bad, n_rel * (L - n_rel), 0.0)))


def _pr_points(y: np.ndarray, s: np.ndarray):
    """Cumulative (TP, FP) at each distinct score threshold, from highest to lowest."""
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), len(s) - 1]
    tp = np.cumsum(y)[last].astype(np.float64)
    fp = (last + 1 - tp).astype(np.float64)
    return tp, fp


def pr_area(y_true, scores, method: str = "step") -> float:
    """Area under the precision–recall curve of binary ``y_true`` ranked by ``scores``.

    ``step``: Σ (R_t − R_{t−1}) P_t over distinct thresholds (average precision).
    ``interpolated``: Davis–Goadrich interpolation between consecutive points (precision along
    the line in (TP, FP) space, one point per extra true positive), trapezoid area, with the
    curve starting at recall 0 with the first point's precision.
    NaN when there are no positives.
    """
    y = np.asarray(y_true).astype(bool).ravel()
    s = np.asarray(scores, dtype=np.float64).ravel()
    pos = y.sum()
    if pos == 0:
        return float("nan")
    tp, fp = _pr_points(y, s)
    if method == "step":
        prec = tp / (tp + fp)
        rec = tp / pos
        return float(np.sum(np.diff(np.r_[0.0, rec]) * prec))
    if method != "interpolated":
        raise choices_error("PR-curve method", method, ("step", "interpolated"))
    tp0 = np.r_[0.0, tp]
    fp0 = np.r_[0.0, fp]
    dtp = np.diff(tp0).astype(np.intp)
    dfp = np.diff(fp0)
    seg = np.repeat(np.arange(len(dtp)), dtp)               # one entry per extra TP
    x = np.arange(len(seg)) - np.repeat(np.cumsum(dtp) - dtp, dtp) + 1.0
    slope = dfp[seg] / dtp[seg]
    TP = tp0[seg] + x
    FP = fp0[seg] + slope * x
    prec = TP / (TP + FP)
    rec = TP / pos
    prec = np.r_[prec[0], prec]
    rec = np.r_[0.0, rec]
    return float(np.trapezoid(prec, rec))


def _roc_auc(y: np.ndarray, s: np.ndarray) -> float:
    from scipy.stats import rankdata

    y = y.astype(bool)
    npos, nneg = y.sum(), (~y).sum()
    if npos == 0 or nneg == 0:
        return float("nan")
    r = rankdata(s)
    return float((r[y].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def avg_auprc(Y, P, pr_method="step"):
    Yb = np.asarray(Y).astype(bool)
    vals = [pr_area(Yb[:, j], P[:, j], pr_method) for j in range(Yb.shape[1]) if Yb[:, j].any()]
    return float(np.mean(vals)) if vals else float("nan")


def avg_auroc(Y, P):
    Yb = np.asarray(Y).astype(bool)
    vals = [v for v in (_roc_auc(Yb[:, j], P[:, j]) for j in range(Yb.shape[1]))
            if not np.isnan(v)]
    return float(np.mean(vals)) if vals else float("nan")


def pooled_auprc(Y, P, pr_method="step"):
    """AU(PRC-bar): one PR curve over all (example, label) pairs, micro-averaged (pooled)."""
    return pr_area(np.asarray(Y).ravel(), np.asarray(P, dtype=np.float64).ravel(), pr_method)


# -- classification -------------------------------------------------------------------------

def _class_pred(P):
    return np.argmax(np.asarray(P, dtype=np.float64), axis=1)   # ties: lowest class code


def accuracy(y, P):
    y = np.asarray(y, dtype=np.float64).ravel()
    known = ~np.isnan(y)
    return float(np.mean(_class_pred(P)[known] == y[known])) if known.any() else float("nan")


def macro_f1(y, P):
    y = np.asarray(y, dtype=np.float64).ravel()
    known = ~np.isnan(y)
    t = y[known].astype(np.intp)
    p = _class_pred(P)[known]
    classes = np.union1d(t, p)
    f1 = []
    for c in classes:
        tp = np.sum((t == c) & (p == c))
        fp = np.sum((t != c) & (p == c))
        fn = np.sum((t == c) & (p != c))
        f1.append(2 * tp / (2 * tp + fp + fn))
    return float(np.mean(f1)) if f1 else float("nan")


# -- unsupervised ---------------------------------------------------------------------------

def reconstruction_mse(X, P):
    """Mean squared error of the reconstructed raw feature vectors: P-UNS's 1NN predicts every
    feature from the selected ones (AgnoS's "recover the whole data set" criterion)."""
    X = np.asarray(X, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    ok = ~(np.isnan(X) | np.isnan(P))
    return float(np.mean((X[ok] - P[ok]) ** 2)) if ok.any() else float("nan")


_MLC = ("mlc", "hmlc")
MEASURES: dict[str, Measure] = {m.name: m for m in [
    Measure("rrmse", "lower", ("mtr", "regression"), rrmse, "relative root mean squared error"),
    Measure("hamming_loss", "lower", _MLC, hamming_loss),
    Measure("subset_accuracy", "higher", _MLC, subset_accuracy),
    Measure("ml_accuracy", "higher", _MLC, ml_accuracy),
    Measure("ml_precision", "higher", _MLC, ml_precision),
    Measure("ml_recall", "higher", _MLC, ml_recall),
    Measure("ml_f1", "higher", _MLC, ml_f1),
    Measure("micro_precision", "higher", _MLC, micro_precision),
    Measure("micro_recall", "higher", _MLC, micro_recall),
    Measure("micro_f1", "higher", _MLC, micro_f1),
    Measure("one_error", "lower", _MLC, one_error),
    Measure("coverage", "lower", _MLC, coverage),
    Measure("ranking_loss", "lower", _MLC, ranking_loss),
    Measure("avg_auprc", "higher", _MLC, avg_auprc),
    Measure("avg_auroc", "higher", _MLC, avg_auroc),
    Measure("pooled_auprc", "higher", _MLC, pooled_auprc, "area under the pooled PR curve"),
    Measure("accuracy", "higher", ("classification",), accuracy),
    Measure("macro_f1", "higher", ("classification",), macro_f1),
    Measure("reconstruction_mse", "lower", ("unsupervised",), reconstruction_mse),
]}

#: The 15 measures of the MLC ensemble paper and the 8 of MLC-Relief.
MLC15 = ("hamming_loss", "subset_accuracy", "ml_accuracy", "ml_precision", "ml_recall", "ml_f1",
         "micro_precision", "micro_recall", "micro_f1", "one_error", "coverage", "ranking_loss",
         "avg_auprc", "pooled_auprc", "avg_auroc")
MLC_RELIEF8 = ("hamming_loss", "ml_accuracy", "ml_f1", "subset_accuracy", "one_error",
               "ml_precision", "ml_recall", "pooled_auprc")


def direction(name: str) -> Direction:
    """"lower" or "higher" is better; unknown names are a ConfigError.

    Curve columns written by the runner (``<measure>@<f>``, ``<measure>_area``) and other kNN
    sizes (``<measure>_k<k>``) take their measure's direction.
    """
    import re

    base = name.split("@", 1)[0]
    if base not in MEASURES and base.endswith("_area"):
        base = base[: -len("_area")]
    if base not in MEASURES:          # another kNN size: <measure>_k<k> (EvalSpec.extra_knn)
        base = re.sub(r"_k\d+$", "", base)
    return get_measure(base).direction


def get_measure(name: str) -> Measure:
    if name not in MEASURES:
        raise choices_error("measure", name, MEASURES)
    return MEASURES[name]


def default_measures(task: str) -> list[str]:
    return [m.name for m in MEASURES.values() if task in m.tasks]


def check_measures(task: str, names) -> list[str]:
    """Validate measure names for a task (ConfigError naming the allowed ones)."""
    allowed = default_measures(task)
    out = []
    for n in names:
        if n not in allowed:
            raise choices_error(f"measure for task '{task}'", n, allowed)
        out.append(n)
    return out


def evaluate(task: str, Y_true: np.ndarray, pred: np.ndarray, names=None, *,
             train_Y: np.ndarray | None = None, variance: str = "train",
             pr_method: str = "step") -> dict[str, float]:
    """All requested measures (default: every measure of the task) as {name: value}."""
    names = default_measures(task) if names is None else check_measures(task, names)
    out: dict[str, float] = {}
    for n in names:
        m = MEASURES[n]
        if n == "rrmse":
            # targets beyond 2**64 (1e300): squares in an exact power-of-two scale, which
            # leaves the ratio, and so the RRMSE, unchanged (frcli.data.scaling)
            if np.ndim(Y_true) == 2:
                ref = [np.asarray(Y_true, np.float64)] + (
                    [] if train_Y is None else [np.asarray(train_Y, np.float64)])
                e = exponents(np.vstack(ref), small=False)
                Y_true, pred = scale(Y_true, e), scale(pred, e)
                train_Y = None if train_Y is None else scale(train_Y, e)
            if variance == "train":
                if train_Y is None:
                    raise ValueError("rrmse with variance='train' needs train_Y")
                var = target_variance(train_Y)
            elif variance == "test":
                var = target_variance(Y_true)
            else:
                raise choices_error("RRMSE variance", variance, ("train", "test"))
            out[n] = rrmse(Y_true, pred, var)
        elif n in ("avg_auprc", "pooled_auprc"):
            out[n] = m.fn(Y_true, pred, pr_method)
        else:
            out[n] = m.fn(Y_true, pred)
    return out


# The measure the experiment summary and ``frcli stats`` (``--measure main``) rank each data
# set by, per task: the papers' headline measure of that task.
MAIN_MEASURE = {"mtr": "rrmse", "regression": "rrmse", "mlc": "pooled_auprc",
                "hmlc": "pooled_auprc", "classification": "macro_f1",
                "unsupervised": "reconstruction_mse"}
