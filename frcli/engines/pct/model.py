"""``PCTForest``: an ensemble of predictive clustering trees as a model (fit, predict) and
the source of the ranking scores of its trees (docs/design/pct.md).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.scaling import exponents, scale
from frcli.engines import progress
from frcli.engines.pct.columns import clustering_spec, dense_codes, truth_matrix
from frcli.engines.pct.credit import genie3_raw, shared_credit
from frcli.engines.pct.kernels import forest as _forest
from frcli.engines.pct.kernels import tree as _tree
from frcli.errors import ConfigError, choices_error

ENSEMBLES = ("rf", "bagging", "et")


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
    known (the literal reading of the papers' h*; docs/design/pct.md, "The three scores").
    """

    def __init__(self, ensemble: str = "rf", trees: int = 100, max_features: Any = None,
                 min_leaf: float = 2.0, bootstrap: bool | None = None, w: float | None = None,
                 w0: float = 0.75, hmlc_normalise: bool = False, ties: str = "share",
                 seed: int = 0, jobs: int = 1, genie3_missing: str = "clus"):
        if ensemble not in ENSEMBLES:
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
            raise choices_error("ties", ties, TIES)
        self.ties = ties
        if genie3_missing not in GENIE3_MISSING:
            raise choices_error("genie3_missing", genie3_missing, GENIE3_MISSING)
        self.genie3_missing = genie3_missing
        self.seed = int(seed)
        self.jobs = max(1, int(jobs))

    def fit(self, dataset: Dataset, *, rf_score: bool = False, per_target: bool = False,
            keep_values: bool = True, tree_range: tuple[int, int] | None = None,
            predict_only: np.ndarray | None = None) -> "PCTForest":
        """Grow the trees; ``rf_score`` also computes the OOB permutation score.

        ``tree_range=(a, b)`` grows only trees a..b-1 of this forest (each tree draws from its
        own seed, word t of ``SeedSequence(seed)``, so the pieces are the forest's trees; see
        ``scoring.forest_scores_sizes``).

        ``predict_only=X``: the forest will only predict the rows of X (the internal CV of w),
        so where the trees draw nothing while they grow (``reach_exact``) a node none of
        these rows reaches is left unsplit: their predictions are those of the whole trees,
        bit for bit, for a fraction of the work; the scores are then meaningless."""
        if rf_score and not self.bootstrap:
            raise ConfigError("the Random Forest score needs out-of-bag examples: use "
                              "bootstrap=true with extra trees (or bagging / rf)")
        partly = dataset.task != "unsupervised" and not bool(np.all(dataset.labeled))
        ssl = partly and self.w is not None and float(self.w) < 1.0
        if partly and not ssl:
            # supervised (w None) or its counterpart w = 1: grown on the labeled rows only
            # (docs/design/pct.md, "Semi-supervised w"); unlabeled rows carry no target
            # information
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
        G = len(spec.group_names)
        codes = dense_codes(spec)
        cols = _forest.Columns(spec.C, spec.a, spec.mode, spec.indptr, spec.indices, spec.est0,
                               spec.col_group, G, codes, None if codes is None else spec.offset)
        params = _forest.GrowParams(
            max_features=mf, min_leaf=self.min_leaf, extra=self.ensemble == "et",
            bootstrap=self.bootstrap, keep_values=keep_values, jobs=self.jobs,
            rf_score=rf_score, per_target=per_target and G > 0,
            random_ties=self.ties == "random", share_ties=self.ties == "share",
            genie3_missing_both=self.genie3_missing == "clus")
        oob = _forest.OobErrors(truth=truth_matrix(spec), **spec.blocks) if rf_score else None
        reach = None
        if predict_only is not None and self.reach_exact(mf, F) and not rf_score:
            reach = np.ascontiguousarray(scale(np.asarray(predict_only, dtype=np.float64),
                                               self.x_exp_))
        res = _forest.grow_forest(Xt, ncat, seeds, cols, params, oob,
                                  progress.slots(len(seeds), "trees grown"), reach=reach)
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
        self.seeds_ = seeds          # each tree's bag and draws (frcli.engines.pct.rf_clus)
        self.ssl_ = ssl
        self.sums_ = res
        self._rf = rf_score
        self._per_target = per_target and G > 0
        return self

    def reach_exact(self, max_features: int, F: int) -> bool:
        """Whether growing only where given rows go leaves their predictions unchanged:
        the trees draw nothing after their bag (best tests over all features, ties to the
        first), so no node's split depends on which other nodes were split."""
        return self.ensemble != "et" and max_features >= F and self.ties == "first"

    # -- prediction --------------------------------------------------------------------
    def predict(self, X: np.ndarray) -> np.ndarray:
        """Per-task predictions (see the class docstring) for the rows of X (n, F)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_:
            raise ValueError(f"X must have {self.n_features_} columns")
        P = self.prototypes(X)
        sl = [s for _, s in self.spec_.target_slices]
        if not sl:
            return P
        return np.ascontiguousarray(P[:, sl[0].start:sl[-1].stop])

    def predict_targets(self, X: np.ndarray) -> np.ndarray:
        """One column per target: numeric means, nominal targets as the most probable class
        code (classification included), label probabilities for mlc/hmlc."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        P = self.prototypes(X)
        cols = []
        for name, sl in self.spec_.target_slices:
            if name in ("labels", "features"):
                return np.ascontiguousarray(P[:, sl])
            block = P[:, sl]
            cols.append(block[:, 0] if block.shape[1] == 1 else np.argmax(block, axis=1))
        return np.column_stack(cols).astype(np.float64)

    def prototypes(self, X: np.ndarray, trees: list | None = None) -> np.ndarray:
        """Mean prototype of every row of X over the trees (or the given ones), in the
        columns' own units."""
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
        |E(N)|/|D_TRAIN| with ``"dynamic"``; Genie3: sum of h* (docs/design/pct.md), or of
        |E(N)|·h* with ``genie3_extra_node_weight`` (the MLC paper's eq. 2, ambiguity A1).
        With per-target scores, also ``genie3_raw_per_target`` (each target's variance
        reduction in its own units, as CLUS's .fimp per-target columns) and ``genie3_raw``,
        their plain mean over targets (CLUS 2.12.8's overall .fimp column); see
        ``genie3_raw``.
        """
        F, T = self.n_features_, len(self.trees_)
        feat = np.concatenate([t.feature for t in self.trees_])
        inner = feat >= 0
        f = feat[inner]
        hstar = np.concatenate([t.hstar for t in self.trees_])[inner]
        if genie3_extra_node_weight:
            hstar = hstar * np.concatenate([t.weight for t in self.trees_])[inner]
        if symbolic_weight == "dynamic":
            sw = np.concatenate([t.weight for t in self.trees_])[inner] / self.n_train_
        else:
            depth = np.concatenate([t.depth for t in self.trees_])[inner]
            sw = float(symbolic_weight) ** depth
        if self.trees_ and all(t.tie_ptr is not None for t in self.trees_):
            f, sw, hstar = shared_credit(self.trees_, inner, f, sw, hstar)
        out: dict[str, Any] = {
            "symbolic": np.bincount(f, weights=sw, minlength=F)[:F] / T,
            "genie3": np.bincount(f, weights=hstar, minlength=F)[:F] / T,
            "target_names": self.spec_.group_names,
            "meta": {"trees": T, "max_features": self.max_features_,
                     "nodes": int(feat.size), "ssl": self.ssl_},
        }
        if self._per_target:
            out["genie3_per_target"] = self.sums_["genie3_per_target"] / T
            out["genie3_raw_per_target"] = genie3_raw(self.spec_, out["genie3_per_target"])
            out["genie3_raw"] = out["genie3_raw_per_target"].mean(axis=0)
        if self._rf:
            out["rf"] = self.sums_["rf"] / T
            out["meta"]["rf_zero_error_trees"] = int(self.sums_["n_zero_err"])
            if self._per_target:
                out["rf_per_target"] = self.sums_["rf_per_target"] / T
        return out
