"""PCT ensembles as a model and as a source of feature-ranking scores (the engine layer).

One tree grower serves every task because the task only decides the *clustering columns*
and their weights a_c (spec-core §2.3, spec-ssl-unsup §1-2, §4), built here by
``clustering_spec``:

=================  =========================================================================
task               columns (weights a_c)
=================  =========================================================================
regression, mtr    each numeric target (1/(T·Var_train)); a nominal target one-hot
                   (1/(T·Gini_train) per indicator, which makes the variance sum a Gini)
classification     the class one-hot (1/Gini_train): the Gini criterion
mlc                each 0/1 label (1/(L·Var_train))
hmlc               each 0/1 label (w(l)/L, w = ``hierarchy.weights(w0)``; no variance
                   normaliser by default, spec-core A2; ``hmlc_normalise=True`` adds it)
unsupervised       every feature (numeric 1/(D·Var), nominal one-hot 1/(D·Gini))
semi-supervised    the task's target columns times w plus the unsupervised columns times 1-w;
                   rows with ``labeled`` False have unknown targets
=================  =========================================================================

Normalisers come from the whole training set, computed once (spec-core A11); a constant
column gets normaliser 1 (it cannot affect splits). The kernels live in ``frcli._ext``.

Public API: ``PCTForest`` (fit / predict / scores), ``forest_scores`` (all three scores from
one forest, the experiment runner's entry point), ``resolve_max_features``.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import warnings

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.scaling import exponents, scale
from frcli.engines import progress
from frcli.errors import ConfigError

ENSEMBLES = ("rf", "bagging", "et")
MODE_COMPLETE, MODE_SPARSE01, MODE_MISSING = 0, 1, 2
W_GRID = tuple(round(0.1 * i, 1) for i in range(11))


def _ext():
    try:
        from frcli._ext import _forest, _tree
    except ImportError as e:  # pragma: no cover - a build problem, not a user error
        raise ImportError("frcli's PCT kernels are not built; run "
                          "'python setup.py build_ext --inplace'") from e
    return _forest, _tree


# -- clustering columns ------------------------------------------------------------------

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
        self.kind.append(0)
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
        self.kind.append(1)
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
        self.kind.append(2)
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
        if kind == 0:
            truth_cols.append(("centred", b.bcol[k]))
        else:
            truth_cols.append(("raw", b.truth[k]))
    acc_den = ds.task == "classification" and (w is None or wt >= 1.0)
    if acc_den:     # Err = the plain error rate, so that 1 - Err is the accuracy (§4.3)
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


def _truth_matrix(spec: ClusteringSpec) -> np.ndarray:
    raw = spec.raw
    cols = []
    for how, v in spec.truth_cols:
        if how == "centred":
            cols.append(raw[:, v] - spec.offset[v])
        else:
            cols.append(np.asarray(v, dtype=np.float64))
    return np.ascontiguousarray(np.column_stack(cols))


# -- parameters ----------------------------------------------------------------------------

GENIE3_MISSING = ("clus", "known")
TIES = ("share", "first", "random")


def resolve_max_features(value: Any, F: int, ensemble: str) -> int:
    """``sqrt`` = ⌈√F⌉, ``log2`` = ⌈log2 F⌉, ``all`` = F, an int, or a fraction in (0, 1]."""
    if value is None:
        value = "sqrt" if ensemble == "rf" else "all"
    if isinstance(value, str):
        v = value.strip().lower()
        if v == "sqrt":
            return max(1, math.ceil(math.sqrt(F)))
        if v == "log2":
            return max(1, math.ceil(math.log2(F))) if F > 1 else 1
        if v == "all":
            return F
        try:
            value = float(v) if ("." in v or "e" in v) else int(v)
        except ValueError:
            raise ConfigError(f"bad value {value!r} for parameter 'max_features' "
                              "(allowed: sqrt, log2, all, an integer or a fraction)") from None
    if isinstance(value, float) and not (value.is_integer() and value > 1.0):
        if not 0.0 < value <= 1.0:
            raise ConfigError(f"bad value {value!r} for parameter 'max_features' "
                              "(a fraction must lie in (0, 1])")
        return max(1, math.ceil(value * F))
    k = int(value)
    if k < 1:
        raise ConfigError(f"bad value {value!r} for parameter 'max_features' (must be >= 1)")
    return min(k, F)


# -- the model -----------------------------------------------------------------------------

class PCTForest:
    """An ensemble of predictive clustering trees (bagging, random forest or extra trees).

    ``fit(dataset)`` grows it; ``predict(X)`` returns, per task: target means (regression,
    mtr; a nominal target's class distribution occupies its one-hot columns), the class
    distribution (classification), label probabilities (mlc, hmlc), or the centroid of all
    feature columns (unsupervised). ``scores()`` gives the ranking scores of the grown trees.
    ``w`` (semi-supervised) applies only when some rows are unlabeled; ``None`` = supervised.
    ``ties``: what happens when several candidate tests of a node are equally good (their
    heuristic within CLUS's 1e-6), as on small nodes and on data written with limited
    precision. ``"share"`` (default): the tree is CLUS's (its node tests the feature first in
    the data, so trees and predictions equal ``"first"``'s), and the node's Symbolic and
    Genie3 credit goes in equal parts to every feature whose test tied; for the RF score the
    out-of-bag rows follow a realisation of each tree in which every tied node tests one of
    the tied features that split its rows identically, drawn uniformly (``_tree.tree_realised``),
    so a feature the rule passed over is still permuted where it could have been used. The
    rankings then do not depend on the order of the columns. ``"first"``: CLUS's rule, the
    feature first in the data wins and takes all the credit (CLUS-exact scores; the rankings
    follow the column order wherever tests tie). ``"random"``: the node's candidates are seen
    in a random order, so a random one of the tied tests wins (other trees than CLUS's, and
    more seed-to-seed variation than ``"share"``).
    ``genie3_missing``: how a test on a feature with missing values scores in Genie3 (the
    trees are the same either way). ``"clus"`` (default): CLUS's rule
    (``ClusEnsembleFeatureRanking.calculateGENI3value``), the node's variance minus its
    children's with those rows in both children at the branch shares, which shrinks the
    score of a mostly-missing feature roughly by its known share. It is the default because
    the papers' numbers come from CLUS: the ``genie3_missing`` section of
    docs/reproduction.md (osales) shows that it, not the trees, makes CLUS's forests weigh
    such features less, and that the paper's osales gain is then within split noise.
    ``"known"``: h*, the heuristic's variance reduction on the rows whose tested value is
    known (the literal reading of spec-core §1.4, §4.2).
    """

    def __init__(self, ensemble: str = "rf", trees: int = 100, max_features: Any = None,
                 min_leaf: float = 2.0, bootstrap: bool | None = None, w: float | None = None,
                 w0: float = 0.75, hmlc_normalise: bool = False, ties: str = "share",
                 seed: int = 0, jobs: int = 1, genie3_missing: str = "clus"):
        if ensemble not in ENSEMBLES:
            from frcli.errors import choices_error
            raise choices_error("ensemble", ensemble, ENSEMBLES)
        if trees < 1:
            raise ConfigError(f"bad value {trees!r} for parameter 'trees' (must be >= 1)")
        if min_leaf <= 0:
            raise ConfigError(f"bad value {min_leaf!r} for parameter 'min_leaf' (must be > 0)")
        self.ensemble = ensemble
        self.trees = int(trees)
        self.max_features = max_features
        self.min_leaf = float(min_leaf)
        self.bootstrap = (ensemble != "et") if bootstrap is None else bool(bootstrap)
        self.w = w
        self.w0 = w0
        self.hmlc_normalise = hmlc_normalise
        if ties not in TIES:
            from frcli.errors import choices_error
            raise choices_error("ties", ties, TIES)
        self.ties = ties
        if genie3_missing not in GENIE3_MISSING:
            from frcli.errors import choices_error
            raise choices_error("genie3_missing", genie3_missing, GENIE3_MISSING)
        self.genie3_missing = genie3_missing
        self.seed = int(seed)
        self.jobs = max(1, int(jobs))

    def fit(self, dataset: Dataset, *, rf_score: bool = False, per_target: bool = False,
            keep_values: bool = True, tree_range: tuple[int, int] | None = None
            ) -> "PCTForest":
        """Grow the trees; ``rf_score`` also computes the OOB permutation score.

        ``tree_range=(a, b)`` grows only trees a..b-1 of this forest (each tree draws from its
        own seed, word t of ``SeedSequence(seed)``, so the pieces are the forest's trees; see
        ``forest_scores_sizes``)."""
        _forest, _ = _ext()
        if rf_score and not self.bootstrap:
            raise ConfigError("the Random Forest score needs out-of-bag examples: use "
                              "bootstrap=true with extra trees (or bagging / rf)")
        partly = dataset.task != "unsupervised" and not bool(np.all(dataset.labeled))
        ssl = partly and self.w is not None and float(self.w) < 1.0
        if partly and not ssl:
            # supervised (w None) or its counterpart w = 1: grown on the labeled rows only
            # (spec-ssl-unsup §1.2 and §1.5); unlabeled rows carry no target information
            dataset = dataset.subset(dataset.labeled)
        spec = clustering_spec(dataset, w=self.w if ssl else None, w0=self.w0,
                               hmlc_normalise=self.hmlc_normalise)
        F = dataset.n_features
        ncat = np.where(dataset.nominal_mask, np.maximum(dataset.n_categories, 1), 0).astype(
            np.int32)
        mf = resolve_max_features(self.max_features, F, self.ensemble)
        seeds = np.random.SeedSequence(self.seed).generate_state(self.trees, dtype=np.uint64)
        if tree_range is not None:
            seeds = np.ascontiguousarray(seeds[tree_range[0]:tree_range[1]])
        # features beyond 2**64 in magnitude: scaled exactly (thresholds and extra-trees
        # draws scale with them), so a range max - min cannot overflow
        self.x_exp_ = exponents(dataset.X, small=False)
        Xt = scale(np.ascontiguousarray(dataset.X.T), self.x_exp_, axis=0)
        err = None
        if rf_score:
            err = dict(spec.blocks)
            err["truth"] = _truth_matrix(spec)
        G = len(spec.group_names)
        codes = dense_codes(spec)
        res = _forest.grow_forest(
            Xt, ncat, spec.C, spec.a, spec.mode, spec.indptr, spec.indices, spec.est0,
            spec.col_group, G, seeds, mf, self.min_leaf, self.ensemble == "et",
            self.bootstrap, keep_values, self.jobs, rf_score=rf_score, err_spec=err,
            per_target=per_target and G > 0,
            progress=progress.slots(len(seeds), "trees grown"),
            random_ties=self.ties == "random",
            share_ties=self.ties == "share",
            genie3_missing_both=self.genie3_missing == "clus",
            **({} if codes is None else {"codes": codes, "offset": spec.offset}))
        spec.raw = None              # the model keeps weights and offsets, not the data
        spec.truth_cols = []
        spec.C = spec.C[:0]
        spec.indices = spec.indices[:0]
        spec.indptr = spec.indptr[:0]
        self.spec_ = spec
        self.ncat_ = ncat
        self.n_train_ = dataset.n_examples
        self.n_features_ = F
        self.max_features_ = mf
        self.trees_ = res["trees"]
        self.seeds_ = seeds          # each tree's bag and draws (frcli.engines.rf_clus)
        self.ssl_ = ssl
        self._res = res
        self._rf = rf_score
        self._per_target = per_target and G > 0
        return self

    # -- prediction --------------------------------------------------------------------
    def predict(self, X: np.ndarray) -> np.ndarray:
        """Per-task predictions (see the class docstring) for the rows of X (n, F)."""
        _, _tree = _ext()
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_:
            raise ValueError(f"X must have {self.n_features_} columns")
        P = self._prototypes(X)
        sl = [s for _, s in self.spec_.target_slices]
        if not sl:
            return P
        return np.ascontiguousarray(P[:, sl[0].start:sl[-1].stop])

    def predict_targets(self, X: np.ndarray) -> np.ndarray:
        """One column per target: numeric means, nominal targets as the most probable class
        code (classification included), label probabilities for mlc/hmlc."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        P = self._prototypes(X)
        cols = []
        for name, sl in self.spec_.target_slices:
            if name in ("labels", "features"):
                return np.ascontiguousarray(P[:, sl])
            block = P[:, sl]
            cols.append(block[:, 0] if block.shape[1] == 1 else np.argmax(block, axis=1))
        return np.column_stack(cols).astype(np.float64)

    def _prototypes(self, X: np.ndarray, trees: list | None = None) -> np.ndarray:
        """Mean prototype of every row of X over the trees (or the given ones), in the
        columns' own units."""
        _, _tree = _ext()
        X = scale(X, getattr(self, "x_exp_", np.zeros(0, np.int64)))
        K = self.spec_.a.shape[0]
        P = _tree.predict_trees(self.trees_ if trees is None else trees,
                                np.ascontiguousarray(X), self.ncat_, K)
        P += self.spec_.offset
        e = self.spec_.col_exp
        return np.ldexp(P, e) if e is not None and e.any() else P

    # -- scores ------------------------------------------------------------------------
    def scores(self, symbolic_weight: float | str = 0.5,
               genie3_extra_node_weight: bool = False) -> dict[str, Any]:
        """Symbolic, Genie3 (and RF, per-target arrays when fitted for them), tree-averaged.

        Symbolic: sum over nodes testing the feature of symbolic_weight**depth, or
        |E(N)|/|D_TRAIN| with ``"dynamic"``; Genie3: sum of h* (spec-core §4.1-4.2), or of
        |E(N)|·h* with ``genie3_extra_node_weight`` (the MLC paper's eq. 2, ambiguity A1).
        With per-target scores, also ``genie3_raw_per_target`` (each target's variance
        reduction in its own units, as CLUS's .fimp per-target columns) and ``genie3_raw``,
        their plain mean over targets (CLUS 2.12.8's overall .fimp column); see
        ``genie3_raw``.
        """
        F, T = self.n_features_, len(self.trees_)
        feat = np.concatenate([t["feature"] for t in self.trees_])
        inner = feat >= 0
        f = feat[inner]
        hstar = np.concatenate([t["hstar"] for t in self.trees_])[inner]
        if genie3_extra_node_weight:
            hstar = hstar * np.concatenate([t["weight"] for t in self.trees_])[inner]
        if symbolic_weight == "dynamic":
            sw = np.concatenate([t["weight"] for t in self.trees_])[inner] / self.n_train_
        else:
            depth = np.concatenate([t["depth"] for t in self.trees_])[inner]
            sw = float(symbolic_weight) ** depth
        if all("tie_ptr" in t for t in self.trees_) and self.trees_:
            f, sw, hstar = _shared_credit(self.trees_, inner, f, sw, hstar)
        out: dict[str, Any] = {
            "symbolic": np.bincount(f, weights=sw, minlength=F)[:F] / T,
            "genie3": np.bincount(f, weights=hstar, minlength=F)[:F] / T,
            "target_names": self.spec_.group_names,
            "meta": {"trees": T, "max_features": self.max_features_,
                     "nodes": int(feat.size), "ssl": self.ssl_},
        }
        if self._per_target:
            out["genie3_per_target"] = self._res["genie3_per_target"] / T
            out["genie3_raw_per_target"] = genie3_raw(self.spec_, out["genie3_per_target"])
            out["genie3_raw"] = out["genie3_raw_per_target"].mean(axis=0)
        if self._rf:
            out["rf"] = self._res["rf"] / T
            out["meta"]["rf_zero_error_trees"] = int(self._res["n_zero_err"])
            if self._per_target:
                out["rf_per_target"] = self._res["rf_per_target"] / T
        return out


def _shared_credit(trees: list[dict], inner: np.ndarray, f: np.ndarray, sw: np.ndarray,
                   hstar: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ties=share: each internal node's credit (sw, hstar; ``inner`` selects the internal
    nodes of the concatenated trees) in equal parts for its feature ``f`` and the features
    that tie with it (the trees' ``tie_ptr``/``tie_feat``). Returns the (feature, sw, hstar)
    entries to sum."""
    k = np.concatenate([np.diff(t["tie_ptr"]) for t in trees])[inner]
    if not k.any():
        return f, sw, hstar
    part = 1.0 / (k + 1.0)
    tied = np.concatenate([t["tie_feat"] for t in trees])
    return (np.concatenate([f, tied]), np.concatenate([sw * part, np.repeat(sw * part, k)]),
            np.concatenate([hstar * part, np.repeat(hstar * part, k)]))


def genie3_raw(spec: ClusteringSpec, per_target: np.ndarray) -> np.ndarray:
    """Per-target Genie3 in the targets' own units: each group's share of h* divided by its
    column weight a_c (1/(T·Var_train) for a numeric target), i.e. the reduction of the
    target's sum of squares (of n·Gini for a nominal one).

    CLUS writes these as its per-target .fimp columns, and (2.12.8) the plain mean of them as
    the "overall" column, whereas the papers' Genie3 (and our default) sums h*, the heuristic's
    normalised variance reduction: the two overall rankings differ when targets have very
    different variances (the raw mean is dominated by the targets in the largest units).
    """
    G = per_target.shape[0]
    a = np.ones(G)
    for g in range(G):
        cols = np.flatnonzero(spec.col_group == g)
        if cols.size and spec.a[cols[0]] > 0:
            a[g] = spec.a[cols[0]]
    return per_target / a[:, None]


# -- semi-supervised w by internal cross-validation ---------------------------------------------

def _cv_loss(ds: Dataset, model: PCTForest, rows: np.ndarray) -> float:
    """Held-out loss (lower is better): relative MSE of numeric targets and error rate of
    nominal ones (averaged over targets), 1 - pooled average precision for mlc/hmlc
    (spec-ssl-unsup A3)."""
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
    except for w = 1); ties go to the larger w (spec-ssl-unsup §1.5, A3)."""
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
            model.fit(sub)
            total += _cv_loss(ds, model, test)
        losses[w] = total
    best = min(losses.items(), key=lambda kv: (kv[1], -kv[0]))[0]
    return best, losses


# -- one forest, all scores ---------------------------------------------------------------

def forest_scores(dataset: Dataset, ensemble: str = "rf", *, trees: int = 100,
                  max_features: Any = None, min_leaf: float = 2.0,
                  bootstrap: bool | None = None, w: float | str | None = None,
                  w0: float = 0.75, symbolic_weight: float | str = 0.5,
                  rf_score: bool | None = None, per_target: bool = True, ties: str = "share",
                  rf_variant: str = "thesis", seed: int = 0, jobs: int = 1,
                  genie3_missing: str = "clus") -> dict[str, Any]:
    """Grow one forest and return every score it supports, so a caller that needs Symbolic,
    Genie3 and RF rankings (the experiment runner) grows the forest once.

    Returns ``{"symbolic": (F,), "genie3": (F,), "rf": (F,) if computed,
    "genie3_per_target" / "rf_per_target": (T, F) and "genie3_raw" (F,) /
    "genie3_raw_per_target" (T, F) if per_target, "target_names", "meta", "timings"}``.
    ``rf_score`` defaults to "whenever the ensemble bootstraps". ``rf_variant``: "thesis"
    (each permutation alone, spec-core §4.3) or "clus" (CLUS 2.12.8's accumulated permutations
    and raw RMSE, ``frcli.engines.rf_clus``); the trees, hence the other scores, are the same.
    ``genie3_missing``: see ``PCTForest``.
    ``w``: a float, ``"auto"`` (internal CV) or None; used only when some rows are unlabeled
    and ``dataset.semi_supervised`` (otherwise those rows are dropped with a warning).
    """
    import time
    t0 = time.perf_counter()
    boot = (ensemble != "et") if bootstrap is None else bool(bootstrap)
    if rf_score is None:
        rf_score = boot
    key = (_cache_key(dataset, ensemble, trees, max_features, min_leaf, bootstrap, w, w0,
                      symbolic_weight, per_target, ties, seed, genie3_missing)
           if _REUSE else None)
    hit = _FOREST_CACHE.get(key) if key is not None else None
    if hit is not None and (not rf_score or hit["has_rf"] == rf_variant):
        out = copy.deepcopy(hit["out"])
        out["meta"]["forest_reused"] = True
        out["timings"] = {"w_cv_s": 0.0, "forest_s": time.perf_counter() - t0}
        return out
    meta: dict[str, Any] = {}
    # unlabeled rows make the forest semi-supervised only when that was asked for
    dataset = dataset.supervised_view(f"the {ensemble} ensemble")
    if dataset.n_examples == 0 or (dataset.task != "unsupervised" and
                                   not bool(np.any(dataset.labeled))):
        from frcli.errors import DataError

        raise DataError("no row with a known target to grow trees on",
                        dataset.source or dataset.name)
    ssl = dataset.task != "unsupervised" and not bool(np.all(dataset.labeled))
    wv: float | None = None
    if ssl:
        if w is None or w == "auto":
            wv, losses = choose_w(dataset, ensemble=ensemble, trees=min(trees, 20),
                                  max_features=max_features, min_leaf=min_leaf,
                                  bootstrap=bootstrap, w0=w0, ties=ties, seed=seed,
                                  jobs=jobs)
            meta["w_cv_loss"] = {str(k): v for k, v in losses.items()}
        else:
            wv = float(w)
        meta["w"] = wv
    t1 = time.perf_counter()
    model = PCTForest(ensemble, trees=trees, max_features=max_features, min_leaf=min_leaf,
                      bootstrap=bootstrap, w=wv, w0=w0, ties=ties, seed=seed, jobs=jobs,
                      genie3_missing=genie3_missing)
    clus_rf = rf_score and rf_variant == "clus"
    if clus_rf and not model.bootstrap:
        raise ConfigError("the Random Forest score needs out-of-bag examples: use "
                          "bootstrap=true with extra trees (or bagging / rf)")
    model.fit(dataset, rf_score=rf_score and not clus_rf, per_target=per_target,
              keep_values=clus_rf)
    out = model.scores(symbolic_weight)
    if clus_rf:
        from frcli.engines.rf_clus import clus_rf_scores

        grown = dataset                # the rows the trees were grown on (see fit)
        if (not model.ssl_ and dataset.task != "unsupervised"
                and not bool(np.all(dataset.labeled))):
            grown = dataset.subset(dataset.labeled)
        out["rf"], rf_pt = clus_rf_scores(model, grown, seed)
        if per_target:
            out["rf_per_target"] = rf_pt
        out["meta"]["rf_variant"] = "clus"
    out["meta"].update(meta)
    out["timings"] = {"w_cv_s": t1 - t0, "forest_s": time.perf_counter() - t1}
    if key is not None:
        _remember(key, {"has_rf": rf_variant if rf_score else False,
                        "out": copy.deepcopy(out)})
    return out


def forest_scores_sizes(dataset: Dataset, ensemble: str = "rf", *, sizes: Sequence[int],
                        max_features: Any = None, min_leaf: float = 2.0,
                        bootstrap: bool | None = None, w: float | str | None = None,
                        w0: float = 0.75, symbolic_weight: float | str = 0.5,
                        rf_score: bool | None = None, per_target: bool = True,
                        ties: str = "share", rf_variant: str = "thesis", seed: int = 0,
                        jobs: int = 1, genie3_missing: str = "clus"
                        ) -> dict[int, dict[str, Any]]:
    """``{n: forest_scores(..., trees=n)}`` for every n in ``sizes``, from one growth.

    Tree t draws only from its own seed (word t of ``SeedSequence(seed)``, whose words do not
    depend on how many are drawn), so the n-tree forest is the first n trees of the largest
    one: the forest is grown once, in pieces up to each size, and scored at each (ensemble
    saturation studies, MLC paper T:4895-4990, HMLC paper T:5765-5790). Symbolic and Genie3
    equal the separately grown forests exactly; the RF score and the per-target sums are
    added piece by piece, so they may differ in the last bits. ``timings["forest_s"]`` of size
    n is the time to grow and score the first n trees. Semi-supervised forests (whose w is
    chosen by a CV that depends on the size) and CLUS's RF score (``rf_variant="clus"``, a
    pass over each forest's kept values) are grown separately per size.
    """
    import time
    sizes = sorted({int(n) for n in sizes})
    if not sizes or sizes[0] < 1:
        raise ConfigError("forest sizes must be integers >= 1")
    kw = dict(max_features=max_features, min_leaf=min_leaf, bootstrap=bootstrap, w=w, w0=w0,
              symbolic_weight=symbolic_weight, rf_score=rf_score, per_target=per_target,
              ties=ties, rf_variant=rf_variant, seed=seed, jobs=jobs,
              genie3_missing=genie3_missing)
    base = dataset.supervised_view(f"the {ensemble} ensemble")
    boot = (ensemble != "et") if bootstrap is None else bool(bootstrap)
    rf = boot if rf_score is None else bool(rf_score)
    if (len(sizes) == 1 or (rf and rf_variant != "thesis")
            or (base.task != "unsupervised" and not bool(np.all(base.labeled)))):
        return {n: forest_scores(dataset, ensemble, trees=n, **kw) for n in sizes}
    key = (_cache_key(dataset, ensemble, tuple(sizes), max_features, min_leaf, bootstrap, w,
                      w0, symbolic_weight, per_target, ties, seed, genie3_missing, "sizes")
           if _REUSE else None)
    hit = _FOREST_CACHE.get(key) if key is not None else None
    if hit is not None and (not rf or hit["has_rf"] == "thesis"):
        out = copy.deepcopy(hit["out"])
        for o in out.values():
            o["meta"]["forest_reused"] = True
        return out
    t0 = time.perf_counter()
    model = PCTForest(ensemble, trees=sizes[-1], max_features=max_features,
                      min_leaf=min_leaf, bootstrap=bootstrap, w0=w0, ties=ties, seed=seed,
                      jobs=jobs, genie3_missing=genie3_missing)
    trees: list = []
    sums: dict[str, Any] = {}
    out: dict[int, dict[str, Any]] = {}
    start = 0
    for n in sizes:
        model.fit(base, rf_score=rf, per_target=per_target, keep_values=False,
                  tree_range=(start, n))
        trees.extend(model.trees_)
        for k, v in model._res.items():
            if k != "trees" and v is not None:
                sums[k] = v + sums[k] if k in sums else np.array(v, copy=True)
        model.trees_ = list(trees)
        model._res = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                      for k, v in sums.items()}
        o = model.scores(symbolic_weight)
        o["timings"] = {"w_cv_s": 0.0, "forest_s": time.perf_counter() - t0}
        o["meta"]["nested_sizes"] = list(sizes)
        out[n] = o
        start = n
    if key is not None:
        _remember(key, {"has_rf": "thesis" if rf else False, "out": copy.deepcopy(out)})
    return out


# Recent forests' scores: the Symbolic, Genie3 and RF-score rankers of one ensemble (same
# data, parameters and seed, as the experiment runner plans them) then grow it only once.
# Off unless a caller asks (``reuse_forests()``), so a plain ``rank`` always grows its forest.
_FOREST_CACHE: dict[str, dict[str, Any]] = {}
# The entries hold scores, not trees; several are kept so that the per-target forests of a
# ``-str`` ranking are shared too (one entry per target), bounded by count and by bytes.
_CACHE_ENTRIES = 256
_CACHE_BYTES = 64 << 20


def _nbytes(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v) for v in obj)
    return 64


def _remember(key: str, entry: dict[str, Any]) -> None:
    """Add an entry, dropping the oldest beyond the count or byte bound."""
    _FOREST_CACHE.pop(key, None)
    entry["nbytes"] = _nbytes(entry["out"])
    _FOREST_CACHE[key] = entry
    total = sum(e["nbytes"] for e in _FOREST_CACHE.values())
    while len(_FOREST_CACHE) > 1 and (len(_FOREST_CACHE) > _CACHE_ENTRIES
                                      or total > _CACHE_BYTES):
        oldest = next(iter(_FOREST_CACHE))
        total -= _FOREST_CACHE.pop(oldest)["nbytes"]
_REUSE = False


@contextlib.contextmanager
def reuse_forests():
    """Within this block, ``forest_scores`` serves a repeated request (same data, parameters
    and seed; an RF-score request only from a forest that has it) from the recent forests it
    grew in such a block (the entries outlive the block: the experiment runner enters one per
    task, and consecutive tasks of one ensemble share the forest)."""
    global _REUSE
    old, _REUSE = _REUSE, True
    try:
        yield
    finally:
        _REUSE = old


def _cache_key(dataset: Dataset, *parts: Any) -> str:
    """Content hash of everything a forest depends on (data bytes, descriptions, params)."""
    h = hashlib.blake2b(digest_size=16)
    for arr in (dataset.X, dataset.Y, dataset.labeled):
        if arr is not None:
            a = np.ascontiguousarray(arr)
            h.update(f"{a.dtype}{a.shape}".encode())
            h.update(memoryview(a.reshape(-1)).cast("B"))   # 1-D: empty arrays cast too
    h.update(repr((dataset.task, dataset.semi_supervised,
                   [(a.kind, a.categories) for a in dataset.features],
                   [(a.kind, a.categories) for a in dataset.targets],
                   None if dataset.hierarchy is None else
                   [p.tolist() for p in dataset.hierarchy.parents], parts)).encode())
    return h.hexdigest()
