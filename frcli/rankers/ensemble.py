"""Ensemble rankers: ``{symbolic|genie3|rf}-{rf|bagging|et}[-str]`` (spec-core §3-4).

The method name picks the score and the ensemble; ``-str`` grows one single-target ensemble
per target (binary relevance for mlc/hmlc) and averages the importances (spec-core §4.4);
the per-target importances then come from those ensembles. On a single-target task
(regression, classification) ``-str`` is the plain method (same forest, same seeds), still
reported per target; on unsupervised data it is a ConfigError. Without ``-str``, Genie3 and the
RF score also come per target from the same trees (CLUS ``FeatureRankingPerTarget``).

To get all three scores from one forest (the experiment runner does), call
``frcli.engines.pct.scoring.forest_scores`` directly: Symbolic and Genie3 are free once the
trees exist, the RF score costs one OOB pass per tree.
"""
from __future__ import annotations

import contextlib
import dataclasses
import time
from typing import Any, Iterator

import numpy as np

from frcli.data.dataset import TASKS, Dataset
from frcli.engines.pct.cache import ForestCache
from frcli.errors import ConfigError
from frcli.rankers.base import (Param, Ranker, Ranking, parse_bool, parse_choice, parse_float,
                                parse_int, require_labels)


@contextlib.contextmanager
def shared_forests(cache: ForestCache | None = None) -> Iterator[ForestCache]:
    """Within this block the Symbolic, Genie3 and RF-score rankers of one ensemble, asked in
    turn with the same data, parameters and seed, share one forest (the experiment runner's
    contract). The forests' scores are kept in ``cache`` (a new ``ForestCache`` if None),
    which the block yields: pass it to a later block to share with the forests of this one.
    """
    cache = ForestCache() if cache is None else cache
    with cache.active():
        yield cache


def _parse_max_features(v: Any) -> Any:
    if isinstance(v, bool):
        raise ValueError("allowed: sqrt, log2, all, an integer >= 1 or a fraction in (0, 1]")
    if isinstance(v, (int, float)):
        x = v
    else:
        s = str(v).strip().lower()
        if s in ("sqrt", "log2", "all", "default"):
            return s
        try:
            x = float(s) if any(ch in s for ch in ".e") else int(s)
        except ValueError:
            raise ValueError("allowed: sqrt, log2, all, an integer >= 1 or a fraction in (0, 1]")
    if isinstance(x, float) and not (x.is_integer() and x > 1.0):
        if not 0.0 < x <= 1.0:
            raise ValueError("a fraction must lie in (0, 1]")
        return float(x)
    if int(x) < 1:
        raise ValueError("an integer must be >= 1")
    return int(x)


def _parse_optional_bool(v: Any) -> bool | None:
    if v is None or (isinstance(v, str) and v.strip().lower() in ("", "default", "auto")):
        return None
    return parse_bool(v)


def _parse_min_leaf(v: Any) -> float | str:
    if isinstance(v, str) and v.strip().lower() in ("auto", "default"):
        return v.strip().lower()
    x = parse_float(v)
    if x <= 0:
        raise ValueError("a number of rows >= 1, a share of the rows in (0, 1), 'default' "
                         "or 'auto'")
    return x


# The unsupervised default leaf: a fifth of the rows the tree grows on. Every feature of an
# unsupervised tree is also a target, so a split on any feature lowers that feature's own
# variance; a tree grown to single rows ends by explaining each noise feature through splits
# on itself, and those deep splits (most of a fully grown tree's nodes) give a pure-noise
# feature about as much Genie3 and Symbolic credit as a feature that carries the clusters.
# A leaf that is a fixed share of the rows keeps the depth of the trees from growing with n,
# so the credit stays with the splits that separate groups of rows (docs/design/pct.md,
# "Unsupervised trees"; bench/bench_ties.py planted measures it).
UNSUPERVISED_LEAF_SHARE = 0.2


def leaf_rows(min_leaf: float, n: int) -> float:
    """``min_leaf`` in (weighted) rows: a value below 1 is a share of the ``n`` rows the trees
    grow on (at least one row), a value of 1 or more is a number of rows."""
    return max(1.0, min_leaf * n) if min_leaf < 1.0 else float(min_leaf)


# The papers' per-task choices: which ensemble each score uses when the method names only the
# score (``symbolic``, ``genie3``, ``rf``; ``frcli rank --list-methods`` shows them).
# Semi-supervised classification: P-DS Tab. 2 (ET always worst); the other semi-supervised
# tasks: P-ML Tab. 5 with its tie rule (RF first, then the ensemble with fewer candidate
# splits; spec-ssl-unsup §6.2); supervised: the MTR paper (RF), the MLC paper's defaults, the
# HMLC paper's choices, P-DS's SL columns for classification; unsupervised: P-UNS (ET).
TASK_ENSEMBLES: dict[tuple[str, str], dict[str, str]] = {
    ("unsupervised", "unsupervised"): {"symbolic": "et", "genie3": "et", "rf": "et"},
    ("semi-supervised", "classification"): {"symbolic": "rf", "genie3": "bagging",
                                            "rf": "bagging"},
    ("semi-supervised", "mlc"): {"symbolic": "rf", "genie3": "rf", "rf": "rf"},
    ("semi-supervised", "hmlc"): {"symbolic": "bagging", "genie3": "rf", "rf": "et"},
    ("semi-supervised", "regression"): {"symbolic": "et", "genie3": "rf", "rf": "et"},
    ("semi-supervised", "mtr"): {"symbolic": "rf", "genie3": "et", "rf": "bagging"},
    ("supervised", "classification"): {"symbolic": "rf", "genie3": "bagging", "rf": "bagging"},
    ("supervised", "regression"): {"symbolic": "rf", "genie3": "rf", "rf": "rf"},
    ("supervised", "mtr"): {"symbolic": "rf", "genie3": "rf", "rf": "rf"},
    ("supervised", "mlc"): {"symbolic": "rf", "genie3": "et", "rf": "bagging"},
    ("supervised", "hmlc"): {"symbolic": "rf", "genie3": "rf", "rf": "bagging"},
}


def setting(dataset: Dataset) -> str:
    """"unsupervised", "semi-supervised" (some rows unlabeled and semi-supervised learning
    asked for) or "supervised"."""
    if dataset.task == "unsupervised":
        return "unsupervised"
    if dataset.semi_supervised and not bool(np.all(dataset.labeled)):
        return "semi-supervised"
    return "supervised"


def task_defaults(dataset: Dataset, ensemble: str, score: str) -> dict[str, Any]:
    """What ``max_features``, ``min_leaf`` and ``bootstrap`` mean by default for this data:
    the supervised papers' settings (RF ⌈√F⌉, bagging/ET all features, ET without bootstrap,
    min leaf 2); fully grown, bootstrapped trees in the SSL papers (ET
    bootstraps so that the RF score has out-of-bag rows, T:6386-6393, T:7139-7145) and in
    P-UNS, whose features per node are ⌈log2 F⌉ (T:8605-8611). The RF score always
    bootstraps (it needs out-of-bag rows).

    ``min_leaf_papers`` is what ``min_leaf=auto`` means (the papers' values: 2, or 1 = fully
    grown); ``min_leaf`` what the default means: the same, except on unsupervised data, whose
    leaves hold a fifth of the rows (``UNSUPERVISED_LEAF_SHARE``: fully grown unsupervised
    trees rank noise features beside the features that carry the structure)."""
    mode = setting(dataset)
    mf = "sqrt" if ensemble == "rf" else "all"
    if mode == "unsupervised" and ensemble != "bagging":
        mf = "log2"
    papers = 2.0 if mode == "supervised" else 1.0
    return {"max_features": mf,
            "min_leaf": UNSUPERVISED_LEAF_SHARE if mode == "unsupervised" else papers,
            "min_leaf_papers": papers,
            "bootstrap": ensemble != "et" or mode != "supervised" or score == "rf"}


def _parse_symbolic_weight(v: Any) -> float | str:
    if isinstance(v, str) and v.strip().lower() == "dynamic":
        return "dynamic"
    x = parse_float(v)
    if not 0.0 < x <= 1.0:
        raise ValueError("a number in (0, 1] or 'dynamic'")
    return x


def _parse_w(v: Any) -> float | str:
    if isinstance(v, str) and v.strip().lower() == "auto":
        return "auto"
    x = parse_float(v)
    if not 0.0 <= x <= 1.0:
        raise ValueError("a number in [0, 1] or 'auto'")
    return x


MAX_TREES = 100_000     # a sanity bound (the papers grow 100 to 1000); memory is checked too


class EnsembleRanker(Ranker):
    """Symbolic / Genie3 / Random Forest scores of bagging, random forests or extra trees.

    The defaults are the papers' settings (``task_defaults``) except two, chosen for a
    user's own data and pinned to the papers' values by the reproduction configs: ``ties``
    (``share``: the rankings do not follow the column order) and the unsupervised
    ``min_leaf`` (a fifth of the rows, where the papers grow trees to single rows: without
    targets every feature is its own target, and the deep splits of a fully grown tree,
    which mostly explain each noise feature through itself, would rank pure noise beside
    the features that carry the groups of rows; ``min_leaf=auto`` restores the papers').
    """

    tasks = TASKS
    description = "PCT-ensemble scores: Symbolic, Genie3, Random Forest (permutation)"
    grid_params = ("trees",)     # a list of sizes: one nested forest (rank_grid)
    params = (
        Param("trees", parse_int, 100, "number of trees", lambda v: 1 <= v <= MAX_TREES,
              f"must be in 1..{MAX_TREES}"),
        Param("max_features", _parse_max_features, "default",
              "features tried per node: sqrt (⌈√F⌉), log2, all, an int or a fraction; "
              "default: see the per-task defaults"),
        Param("min_leaf", _parse_min_leaf, "default",
              "minimum (weighted) rows per leaf, or below 1 a share of the rows; default: "
              "2, 1 (fully grown) semi-supervised, 0.2 (a fifth of the rows) unsupervised; "
              "auto: the papers' values (2, 1 semi-supervised and unsupervised)"),
        Param("bootstrap", _parse_optional_bool, "default",
              "grow trees on bootstrap samples; default: see the per-task defaults"),
        Param("symbolic_weight", _parse_symbolic_weight, 0.5,
              "node weight symbolic_weight**depth, or 'dynamic' = |E(N)|/|D_TRAIN|"),
        Param("w", _parse_w, "auto",
              "semi-supervised: weight of the targets in the heuristic, or 'auto' "
              "(internal 4-fold CV over 0, 0.1, ..., 1)",
              applies_to=("semi-supervised",)),
        Param("w0", parse_float, 0.75, "hmlc label-weight base w(l) = w0 * agg(parents)",
              lambda v: 0.0 < v <= 1.0, "must be in (0, 1]",
              applies_to=("hmlc",)),
        Param("ties", parse_choice("share", "first", "random"), "share",
              "equally good tests of a node (within 1e-6): 'share' = CLUS's tree, the node's "
              "credit shared equally by the tied features (rankings do not depend on the "
              "column order), 'first' = the feature first in the data takes it (CLUS), "
              "'random' = a random one wins"),
        Param("genie3_scale", parse_choice("normalised", "raw"), "normalised",
              "overall Genie3: 'normalised' = sum of h* (the papers), 'raw' = mean over "
              "targets of each target's variance reduction in its units (CLUS's .fimp "
              "overall column)"),
        Param("genie3_missing", parse_choice("clus", "known"), "clus",
              "Genie3 of a test on a feature with missing values: 'clus' = CLUS's "
              "node-minus-children variance with those rows in both children (what the "
              "papers' numbers come from), 'known' = h* on the rows with a known value (the "
              "trees are the same)"),
        Param("rf_variant", parse_choice("thesis", "clus"), "thesis",
              "RF score: 'thesis' = each feature permuted alone (the papers' definition), "
              "'clus' = CLUS 2.12.8's (permutations accumulated within a tree, raw RMSE; "
              "numeric targets)"),
    )

    def __init__(self, method: str):
        super().__init__(method)
        parts = method.split("-")
        self.score = parts[0]
        # a bare score (``genie3``) takes the task's ensemble (TASK_ENSEMBLES) at rank time
        self.ensemble = parts[1] if len(parts) > 1 and parts[1] != "str" else None
        self.str_variant = parts[-1] == "str"
        # each method declares only what it uses: symbolic_weight means nothing to Genie3 or
        # the RF score, genie3_scale and rf_variant nothing to the others; -str needs targets
        own = {"symbolic_weight": "symbolic", "genie3_scale": "genie3",
               "genie3_missing": "genie3", "rf_variant": "rf"}
        self.params = tuple(p for p in type(self).params
                            if own.get(p.name, self.score) == self.score)
        if self.str_variant:
            self.tasks = tuple(t for t in TASKS if t != "unsupervised")

    def ensemble_for(self, dataset: Dataset) -> str:
        return self.ensemble or TASK_ENSEMBLES[(setting(dataset), dataset.task)][self.score]

    def task_defaults(self) -> list[str]:
        """The per-task defaults, for ``frcli rank --list-methods``."""
        def trio(mode, task):
            e = TASK_ENSEMBLES[(mode, task)]
            return "/".join(e[s] for s in ("symbolic", "genie3", "rf"))
        sup = ", ".join(f"{t} {trio('supervised', t)}" for t in
                        ("classification", "regression", "mtr", "mlc", "hmlc"))
        ssl = ", ".join(f"{t} {trio('semi-supervised', t)}" for t in
                        ("classification", "regression", "mtr", "mlc", "hmlc"))
        return [
            "per-task defaults (the papers', except the unsupervised leaf):",
            "  supervised: min_leaf 2; max_features sqrt for rf, all for bagging/et; et "
            "without bootstrap (except the rf score)",
            "  semi-supervised: min_leaf 1 (fully grown), et bootstrapped",
            "  unsupervised: min_leaf 0.2 (a fifth of the rows; auto = 1, fully grown, as "
            "P-UNS), et bootstrapped, max_features log2 (P-UNS)",
            "  symbolic, genie3, rf (score only) take the ensemble per task "
            "(symbolic/genie3/rf):",
            f"    supervised: {sup}",
            f"    semi-supervised: {ssl} (P-DS Tab. 2, P-ML Tab. 5)",
            "    unsupervised: et/et/et (P-UNS)"]

    def validate(self, dataset: Dataset, params_grid=None) -> dict[str, list[Any]]:
        """Task-dependent checks: -str needs targets, w0 is for hmlc, w for data with
        targets, and the RF score needs out-of-bag examples."""
        if self.str_variant and dataset.task == "unsupervised":
            raise ConfigError(f"method '{self.method}' needs targets; task 'unsupervised' "
                              "has none (use the method without -str)")
        grid = super().validate(dataset, params_grid)
        require_labels(dataset, self.method)
        if dataset.task != "hmlc" and self.explicit(params_grid, grid, "w0"):
            raise ConfigError(f"parameter 'w0' applies to hmlc data only (task is "
                              f"{dataset.task}); leave it out")
        if dataset.task == "unsupervised" and self.explicit(params_grid, grid, "w"):
            raise ConfigError("parameter 'w' (semi-supervised target weight) needs targets; "
                              "task 'unsupervised' has none")
        if self.score == "rf":
            for b in grid["bootstrap"]:
                if b is False:
                    raise ConfigError(
                        f"method '{self.method}' needs out-of-bag examples: the Random Forest "
                        "score is undefined without bootstrap; use --param bootstrap=true")
            if "clus" in grid.get("rf_variant", ()) and dataset.task not in ("regression",
                                                                            "mtr"):
                raise ConfigError(f"rf_variant=clus is CLUS's RF score for numeric targets; "
                                  f"task is {dataset.task} (use rf_variant=thesis)")
        self._check_memory(dataset, grid)
        return grid

    def rank(self, dataset: Dataset, params=None, *, seed: int = 0,
             jobs: int = 1) -> list[Ranking]:
        """As ``Ranker.rank``, in the plain loop's order (``trees``, the first parameter,
        outermost) although the sizes are served together (``rank_grid``)."""
        out = super().rank(dataset, params, seed=seed, jobs=jobs)
        n_t = len(self.validate(dataset, params)["trees"])
        n_o = len(out) // n_t
        return [out[o * n_t + t] for t in range(n_t) for o in range(n_o)]

    def rank_grid(self, dataset: Dataset, fixed: dict[str, Any],
                  grid: dict[str, list[Any]], *, seed: int, jobs: int) -> list[Ranking]:
        """A list of ``trees`` is served by one nested forest (the n-tree forest is the first
        n trees of the largest, ``forest_scores_sizes``): a saturation study costs its largest
        size."""
        sizes = grid["trees"]
        if len(sizes) == 1:
            return super().rank_grid(dataset, fixed, grid, seed=seed, jobs=jobs)
        by_size = self._rank_sizes(dataset, {**fixed, "trees": max(sizes)}, sizes,
                                   seed=seed, jobs=jobs)
        return [by_size[int(n)] for n in sizes]

    def _check_memory(self, dataset: Dataset, grid: dict[str, list[Any]]) -> None:
        """Refuse before growing a forest that cannot fit in memory (the largest of the
        grid: most trees, smallest leaves; one forest at a time, -str included)."""
        from frcli.engines.memory import check_memory, clustering_width, forest_bytes

        # min_leaf auto/default: 1 at most (fully grown, the semi-supervised default)
        trees = max(grid["trees"])
        min_leaf = min(1.0 if v in ("auto", "default") else
                       leaf_rows(float(v), dataset.n_examples) for v in grid["min_leaf"])
        ssl = dataset.semi_supervised and dataset.labeled is not None and \
            not bool(np.all(dataset.labeled))
        need = forest_bytes(dataset.n_examples, dataset.n_features,
                            clustering_width(dataset, ssl), trees, min_leaf)
        check_memory(need, f"method '{self.method}' with trees={trees}, min_leaf={min_leaf:g} "
                           f"on {dataset.n_examples} rows")

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        return self._rank_sizes(dataset, params, [params["trees"]], seed=seed,
                                jobs=jobs)[params["trees"]]

    def _rank_sizes(self, dataset: Dataset, params: dict[str, Any], sizes, *, seed: int,
                    jobs: int) -> dict[int, Ranking]:
        from frcli.engines.pct.scoring import forest_scores, forest_scores_sizes

        t0 = time.perf_counter()
        # rows without targets: semi-supervised only when asked (else dropped, one warning)
        dataset = dataset.supervised_view(f"method '{self.method}'")
        ensemble = self.ensemble_for(dataset)
        auto = task_defaults(dataset, ensemble, self.score)
        boot = params["bootstrap"]
        if boot is None or boot == "default":
            boot = auto["bootstrap"]
        mf = auto["max_features"] if params["max_features"] == "default" else \
            params["max_features"]
        leaf = {"default": auto["min_leaf"], "auto": auto["min_leaf_papers"]}.get(
            params["min_leaf"], params["min_leaf"])
        leaf = leaf_rows(float(leaf), dataset.n_examples)
        kw = dict(max_features=mf,
                  min_leaf=leaf, bootstrap=boot, w=params["w"],
                  w0=params["w0"], symbolic_weight=params.get("symbolic_weight", 0.5),
                  ties=params["ties"], rf_score=self.score == "rf",
                  rf_variant=params.get("rf_variant", "thesis"),
                  genie3_missing=params.get("genie3_missing", "clus"), seed=seed, jobs=jobs)
        sizes = sorted({int(n) for n in sizes})

        def grow(data: Dataset, per_target: bool) -> dict[int, dict[str, Any]]:
            if len(sizes) == 1:
                return {sizes[0]: forest_scores(data, ensemble, trees=sizes[0],
                                                per_target=per_target, **kw)}
            return forest_scores_sizes(data, ensemble, sizes=sizes,
                                       per_target=per_target, **kw)

        key = self.score
        if key == "genie3" and params.get("genie3_scale") == "raw":
            key = "genie3_raw"
        out = {}
        if self.str_variant:
            by_size = self._str(dataset, key, grow)
        else:
            by_size = grow(dataset, True)
        for n in sizes:
            meta: dict[str, Any] = {"ensemble": ensemble, "score": self.score,
                                    "task": dataset.task}
            timings: dict[str, float] = {}
            if self.str_variant:
                imp, per_target, names, sub_meta, secs = by_size[n]
                meta["per_target_meta"] = sub_meta
                rank_s = secs
            else:
                res = by_size[n]
                imp = res[key]
                per_target = res.get(f"{key}_per_target")
                names = res["target_names"] if per_target is not None else None
                meta.update(res["meta"])
                timings.update(res["timings"])
                rank_s = (time.perf_counter() - t0 if len(sizes) == 1
                          else res["timings"]["forest_s"])
            # record the effective settings (what "default"/"auto" meant here)
            used = {**params, "trees": n, "bootstrap": boot, "max_features": mf,
                    "min_leaf": leaf}
            out[n] = Ranking(self.method, dataset.feature_names, imp, used,
                             per_target=per_target, target_names=names,
                             timings={**timings, "rank_s": rank_s}, meta=meta)
        return out

    def _str(self, ds: Dataset, key: str, grow):
        """One single-target ensemble per target (binary relevance for label tasks);
        {size: (importances, per-target, names, metas, seconds)}."""
        rows: dict[int, list] = {}
        metas: dict[int, list] = {}
        secs: dict[int, float] = {}
        names = ds.target_names
        for j in range(ds.n_targets):
            if ds.is_label_task:
                sub = dataclasses.replace(ds, Y=ds.Y[:, [j]], task="mlc", hierarchy=None,
                                          targets=[])
            else:
                task = ("classification" if ds.targets and ds.targets[j].is_nominal
                        else "regression")
                sub = dataclasses.replace(ds, Y=ds.Y[:, [j]], task=task,
                                          targets=[ds.targets[j]] if ds.targets else [])
            for n, res in grow(sub, key == "genie3_raw").items():
                rows.setdefault(n, []).append(res[key])
                metas.setdefault(n, []).append(res["meta"])
                # target j's forest: grown (nested sizes: up to n trees) and scored
                secs[n] = secs.get(n, 0.0) + sum(res["timings"].values())
        out = {}
        for n, r in rows.items():
            per_target = np.vstack(r)
            nm = [names[j] if j < len(names) else f"target{j + 1}" for j in range(len(r))]
            out[n] = (per_target.mean(axis=0), per_target, nm, metas[n], secs[n])
        return out
