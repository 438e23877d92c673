"""The clustering columns: what a PCT's criterion measures, for every task.

One tree grower serves every task because the task only decides the *clustering columns*
and their weights a_c (docs/design/pct.md), built here by ``clustering_spec``:

=================  =========================================================================
task               columns (weights a_c)
=================  =========================================================================
regression, mtr    each numeric target (1/(T·Var_train)); a nominal target one-hot
                   (1/(T·Gini_train) per indicator, which makes the variance sum a Gini)
classification     the class one-hot (1/Gini_train): the Gini criterion
mlc                each 0/1 label (1/(L·Var_train))
hmlc               each 0/1 label (w(l)/L, w = ``hierarchy.weights(w0)``; no variance
                   normaliser by default; ``hmlc_normalise=True`` adds it)
unsupervised       every feature (numeric 1/(D·Var), nominal one-hot 1/(D·Gini))
semi-supervised    the task's target columns times w plus the unsupervised columns times 1-w;
                   rows with ``labeled`` False have unknown targets
=================  =========================================================================

Normalisers come from the whole training set, computed once; a constant column gets
normaliser 1 (it cannot affect splits). The same columns, with per-block weights, define the
out-of-bag error of the RF score (``blocks``, ``truth_matrix``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.scaling import exponents
from frcli.engines.pct.kernels import (ERR_LABEL, ERR_NOMINAL, ERR_NUMERIC, MODE_COMPLETE,
                                       MODE_MISSING, MODE_SPARSE01)
from frcli.errors import ConfigError

@dataclass
class ClusteringSpec:
    """Everything the kernels need about the clustering columns and the OOB error."""

    C: np.ndarray                 # (n, K) centred columns, NaN unknown ((1, K) in sparse mode)
    a: np.ndarray                 # (K,) column weights
    mode: int
    indptr: np.ndarray
    indices: np.ndarray
    est0: np.ndarray              # (K,) training variances (ancestor estimate at the root)
    offset: np.ndarray            # (K,) column means removed from C (added back to prototypes)
    col_group: np.ndarray         # (K,) per-target group of each column, -1 = none
    group_names: list[str]
    blocks: dict[str, Any]        # OOB error blocks (without the truth matrix)
    truth_cols: list[tuple[str, Any]]  # how to build each block's truth column
    target_slices: list[tuple[str, slice]] = field(default_factory=list)  # outputs for predict
    raw: np.ndarray | None = None  # uncentred columns, kept only until the truth is built
    col_exp: np.ndarray | None = None  # (K,) column c is held as value * 2**-col_exp[c]


def _var(col: np.ndarray) -> float:
    k = col[~np.isnan(col)]
    return float(k.var()) if k.size else 0.0


def _norm(v: float) -> float:
    return 1.0 / v if v > 1e-12 else 1.0


class _Builder:
    """Accumulates columns, weights, groups and error blocks."""

    def __init__(self, n: int):
        self.n = n
        self.cols: list[np.ndarray] = []
        self.a: list[float] = []
        self.group: list[int] = []
        self.kind: list[int] = []
        self.bcol: list[int] = []
        self.bncat: list[int] = []
        self.alpha: list[float] = []
        self.bgroup: list[int] = []
        self.truth: list[np.ndarray] = []
        self.exp: list[int] = []      # power-of-two scale of every column (0: as given)

    @property
    def K(self) -> int:
        return len(self.cols)

    def numeric(self, x: np.ndarray, weight: float, group: int) -> None:
        # huge (1e300) or tiny (1e-7) values: an exact power-of-two rescaling keeps squares
        # finite and variances above _norm's threshold; the heuristic is scale-free, so the
        # trees are those of the unscaled column (frcli.data.scaling)
        x = np.asarray(x, dtype=np.float64)
        e = int(exponents(x[:, None])[0])
        if e:
            x = np.ldexp(x, -e)
        inv = _norm(_var(x))
        self.exp.append(e)
        self.bcol.append(self.K)
        self.cols.append(x)
        self.a.append(weight * inv)
        self.group.append(group)
        self.kind.append(ERR_NUMERIC)
        self.bncat.append(1)
        self.alpha.append(weight * inv)
        self.bgroup.append(group)
        self.truth.append(x)          # centred together with its column (see finish)

    def nominal(self, codes: np.ndarray, ncat: int, weight: float, group: int) -> None:
        codes = np.asarray(codes, dtype=np.float64)
        known = ~np.isnan(codes)
        p = np.bincount(codes[known].astype(np.intp), minlength=ncat)[:ncat] / max(known.sum(), 1)
        inv = _norm(1.0 - float((p ** 2).sum()))
        self.bcol.append(self.K)
        for v in range(ncat):
            col = np.where(known, (codes == v).astype(np.float64), np.nan)
            self.exp.append(0)
            self.cols.append(col)
            self.a.append(weight * inv)
            self.group.append(group)
        self.kind.append(ERR_NOMINAL)
        self.bncat.append(ncat)
        self.alpha.append(weight * inv)
        self.bgroup.append(group)
        self.truth.append(codes)

    def label(self, y: np.ndarray, a: float, alpha: float, group: int) -> None:
        self.exp.append(0)
        self.bcol.append(self.K)
        self.cols.append(np.asarray(y, dtype=np.float64))
        self.a.append(a)
        self.group.append(group)
        self.kind.append(ERR_LABEL)
        self.bncat.append(1)
        self.alpha.append(alpha)
        self.bgroup.append(group)
        self.truth.append(np.asarray(y, dtype=np.float64))


def clustering_spec(ds: Dataset, *, w: float | None = None, w0: float = 0.75,
                    hmlc_normalise: bool = False) -> ClusteringSpec:
    """Clustering columns of ``ds`` for its task; ``w`` < 1 mixes in the features (SSL)."""
    n = ds.n_examples
    b = _Builder(n)
    unsup = ds.task == "unsupervised"
    wt = 1.0 if w is None else float(w)
    groups: list[str] = []
    target_slices: list[tuple[str, slice]] = []
    names = ds.target_names
    if not unsup:               # target columns (weight 0 when w = 0: still predicted)
        lab = ds.labeled
        if ds.is_label_task:
            Y = ds.Y.astype(np.float64)
            Y[~lab] = np.nan
            L = Y.shape[1]
            hw = (ds.hierarchy.weights(w0) if ds.task == "hmlc" and ds.hierarchy is not None
                  else np.ones(L))
            for j in range(L):
                inv = _norm(_var(Y[:, j])) if (ds.task == "mlc" or hmlc_normalise) else 1.0
                b.label(Y[:, j], wt * hw[j] * inv / L, wt * hw[j] / L, len(groups))
                groups.append(names[j] if j < len(names) else f"label{j + 1}")
            target_slices.append(("labels", slice(0, L)))
        else:
            T = ds.n_targets
            for j in range(T):
                y = ds.Y[:, j].astype(np.float64).copy()
                y[~lab] = np.nan
                attr = ds.targets[j] if j < len(ds.targets) else None
                start = b.K
                if (attr is not None and attr.is_nominal) or ds.task == "classification":
                    ncat = len(attr.categories) if attr is not None and attr.categories else \
                        int(np.nanmax(y)) + 1
                    b.nominal(y, ncat, wt / T, len(groups))
                else:
                    b.numeric(y, wt / T, len(groups))
                groups.append(names[j] if j < len(names) else f"target{j + 1}")
                target_slices.append((groups[-1], slice(start, b.K)))
    if unsup or (w is not None and wt < 1.0):
        D = ds.n_features
        wd = 1.0 if unsup else 1.0 - wt
        for i, attr in enumerate(ds.features):
            if attr.is_nominal:
                b.nominal(ds.X[:, i], max(len(attr.categories), 1), wd / D, -1)
            else:
                b.numeric(ds.X[:, i], wd / D, -1)
        if unsup:
            target_slices.append(("features", slice(0, b.K)))
    if b.K == 0:
        raise ConfigError(f"data set '{ds.name}' has no clustering columns for task {ds.task}")
    C = np.column_stack(b.cols) if b.K else np.zeros((n, 0))
    a = np.asarray(b.a, dtype=np.float64)
    has_nan = bool(np.isnan(C).any())
    binary = (not has_nan) and bool(np.isin(C, (0.0, 1.0)).all())
    offset = np.zeros(b.K)
    indptr = np.zeros(2, dtype=np.int64)
    indices = np.zeros(1, dtype=np.int32)
    if binary and b.K >= 8:
        mode = MODE_SPARSE01
        rows, cols = np.nonzero(C)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        indices = np.ascontiguousarray(cols, dtype=np.int32)
        if indices.size == 0:
            indices = np.zeros(1, dtype=np.int32)
        est0 = C.var(axis=0)
        Ck = np.zeros((1, b.K))
    else:
        mode = MODE_MISSING if has_nan else MODE_COMPLETE
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # an all-? column: offset 0
            offset = np.where(np.isnan(C).all(axis=0), 0.0, np.nanmean(C, axis=0))
        offset = np.nan_to_num(offset)
        zero_one = np.all(np.isnan(C) | (C == 0.0) | (C == 1.0), axis=0)
        offset[zero_one] = 0.0                      # 0/1 columns are exact as they are
        Ck = np.ascontiguousarray(C - offset)       # centring keeps sums of squares precise
        est0 = np.array([_var(Ck[:, c]) for c in range(b.K)])
    # block truths: numeric blocks compare centred values, others raw codes / labels
    truth_cols = []
    for k, kind in enumerate(b.kind):
        if kind == ERR_NUMERIC:
            truth_cols.append(("centred", b.bcol[k]))
        else:
            truth_cols.append(("raw", b.truth[k]))
    acc_den = ds.task == "classification" and (w is None or wt >= 1.0)
    if acc_den:     # Err = the plain error rate, so that 1 - Err is the accuracy
        b.alpha = [1.0 / len(b.alpha)] * len(b.alpha)
    blocks = {
        "kind": np.asarray(b.kind, dtype=np.int32),
        "col": np.asarray(b.bcol, dtype=np.int32),
        "ncat": np.asarray(b.bncat, dtype=np.int32),
        "alpha": np.asarray(b.alpha, dtype=np.float64),
        "group": np.asarray(b.bgroup, dtype=np.int32),
        "offset": offset.astype(np.float64),
        "acc_den": acc_den,
    }
    spec = ClusteringSpec(Ck, a, mode, indptr, indices, est0.astype(np.float64), offset,
                          np.asarray(b.group, dtype=np.int32), groups, blocks, truth_cols,
                          target_slices, raw=C, col_exp=np.asarray(b.exp, dtype=np.int64))
    return spec


def dense_codes(spec: ClusteringSpec) -> np.ndarray | None:
    """Byte codes of complete-mode columns that hold small counts (0..255): ``C == codes -
    offset`` bit for bit, checked here, so the kernels read one byte per value instead of
    eight and compute the same doubles (P-UNS's text sets: 1900 x 4900 counts, where summing
    rows is bound by memory traffic). None when that does not hold."""
    raw = spec.raw
    if spec.mode != MODE_COMPLETE or raw is None or raw.size == 0 or raw.shape != spec.C.shape:
        return None
    if not (raw.min() >= 0.0 and raw.max() <= 255.0):
        return None
    codes = raw.astype(np.uint8)
    if not np.array_equal(codes, raw):
        return None
    back = codes - spec.offset                  # the same IEEE subtraction as the centring
    if not np.array_equal(back.view(np.uint64), spec.C.view(np.uint64)):
        return None
    return np.ascontiguousarray(codes)


def truth_matrix(spec: ClusteringSpec) -> np.ndarray:
    """The OOB error's truth: one column per error block (centred values of a numeric block,
    codes or labels of the others), built from the columns kept in ``spec.raw``."""
    raw = spec.raw
    cols = []
    for how, v in spec.truth_cols:
        if how == "centred":
            cols.append(raw[:, v] - spec.offset[v])
        else:
            cols.append(np.asarray(v, dtype=np.float64))
    return np.ascontiguousarray(np.column_stack(cols))
