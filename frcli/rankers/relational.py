"""Relational rankers: ``{symbolic|genie3}-{tree|bagging|rf|boost}`` on a relational data set
(docs/design/relational.md). The registry routes a ``RelationalDataset`` here under the same
method names as the tabular ensembles (``genie3-rf``, ``symbolic-bagging``, ...); ``-tree``
(one tree) and ``-boost`` (gradient boosting) exist for relational data only.

The ranking unit is the descriptive relation (the thesis's unit). ``Ranking.meta`` adds the
roll-ups by table, aggregate and atom (relation with argument roles), the importances after
each tree (the papers' convergence curves), the model's training accuracy and the settings.

Parameters (one name per idea, as the tabular ensembles): ``trees`` (50, the papers'),
``lookahead`` (ℓ = 2), ``max_chain`` (atoms in a test, 3), ``max_work`` (features
estimated to visit more tuples per example are left out, 2·10^4), ``aggregates`` (``all`` = AGG-All:
count, countd, sum, mean, min, max, mode; ``exist`` = AGG-Exist: existence of the chain;
``settings`` = the data set's ``[Aggregates]``; or a ``+`` list such as ``count+mean``),
``tables`` (``all``; ``target`` = NO-Rel, the target table only), ``continuation`` (both,
yes, none), ``attribution`` (thesis, ismis, journal), ``max_features`` (sqrt for rf, 1 = all
otherwise; a fraction, sqrt or log2), ``min_leaf``, ``max_depth``, ``min_decrease``
(minimal relative impurity decrease), boosting's ``shrinkage`` and ``subsample`` (9b's
chosen_examples), and ``tune``: a grid of these to choose by internal ``tune_folds``-fold
cross-validation on the training data (9b §5.3), e.g. ``tune=min_leaf:1/5/10;min_decrease:0/0.1``.
"""
from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from typing import Any

import numpy as np

from frcli.errors import ConfigError
from frcli.rankers.base import (Param, Ranker, Ranking, parse_choice, parse_float,
                                parse_int)

ENSEMBLES = ("tree", "bagging", "rf", "boost")
SCORES = ("symbolic", "genie3")
AGGREGATE_NAMES = ("count", "countd", "sum", "mean", "min", "max", "mode")
TUNABLE = ("min_leaf", "min_decrease", "max_depth", "max_features", "shrinkage", "subsample")


def _parse_aggregates(v: Any) -> str:
    s = str(v).strip()
    if s in ("all", "exist", "settings"):
        return s
    parts = [p.strip() for p in s.replace("/", "+").split("+") if p.strip()]
    bad = [p for p in parts if p not in AGGREGATE_NAMES]
    if not parts or bad:
        raise ValueError("all, exist, settings or a +list of "
                         f"{', '.join(AGGREGATE_NAMES)}")
    return "+".join(parts)


def _parse_depth(v: Any) -> int | None:
    if v is None or str(v).strip().lower() in ("none", "inf", "unlimited"):
        return None
    d = parse_int(v)
    if d < 0:
        raise ValueError("an integer >= 0 or none")
    return d


def _parse_fraction_or_rule(v: Any) -> float | str:
    if isinstance(v, str) and v.strip().lower() in ("sqrt", "log2", "default"):
        return v.strip().lower()
    x = parse_float(v)
    if not 0.0 < x <= 1.0:
        raise ValueError("a fraction in (0, 1], sqrt or log2")
    return x


def _parse_tune(v: Any) -> dict | None:
    """``{param: [values]}`` from a mapping (configs) or ``a:1/2;b:x/y`` (command line)."""
    if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "no")):
        return None
    if isinstance(v, str):
        d = {}
        for part in v.split(";"):
            if not part.strip():
                continue
            key, sep, vals = part.partition(":")
            if not sep:
                raise ValueError("name:v1/v2;name:...")
            d[key.strip()] = [x.strip() for x in vals.split("/") if x.strip()]
        v = d
    if not isinstance(v, dict) or not v:
        raise ValueError("a mapping of parameter: [values]")
    out = {}
    for key, vals in v.items():
        if key not in TUNABLE:
            raise ValueError(f"cannot tune {key!r}; tunable: {', '.join(TUNABLE)}")
        vals = vals if isinstance(vals, (list, tuple)) else [vals]
        if not vals:
            raise ValueError(f"{key}: no values")
        out[str(key)] = list(vals)
    return out


class RelationalRanker(Ranker):
    """Relational Symbolic / Genie3 scores of a relational tree, bagging, forest or boosting."""

    tasks = ("classification",)
    relational = True
    learns = False      # the tabular degeneracy check reads X; fit_rank has its own
    description = "relational trees and ensembles: Symbolic and Genie3 per relation"
    params = (
        Param("trees", parse_int, 50, "number of trees (boosting: iterations)",
              lambda v: 1 <= v <= 10000, "must be in 1..10000"),
        Param("lookahead", parse_int, 2, "atoms a node may add to its context (ℓ)",
              lambda v: 1 <= v <= 4, "must be in 1..4"),
        Param("max_chain", parse_int, 3, "most atoms in one test", lambda v: 1 <= v <= 8,
              "must be in 1..8"),
        Param("max_work", parse_float, 2e4,
              "leave out features estimated to visit more tuples per example (0: none)",
              lambda v: v >= 0, "must be >= 0"),
        Param("aggregates", _parse_aggregates, "all",
              "all (AGG-All), exist (AGG-Exist), settings (the data set's list) or a +list"),
        Param("tables", parse_choice("all", "target"), "all",
              "all, or target: the target table only (NO-Rel)"),
        Param("continuation", parse_choice("both", "yes", "none"), "both",
              "which children continue the chosen test's chain"),
        Param("attribution", parse_choice("thesis", "ismis", "journal"), "thesis",
              "how a node's reward is shared by its relations (thesis Ch. 3.3.2.2, 9a, 9b)"),
        Param("max_features", _parse_fraction_or_rule, "default",
              "candidate features evaluated per node: a fraction, sqrt or log2; default "
              "sqrt for rf, all otherwise"),
        Param("min_leaf", parse_float, 1, "minimum (weighted) examples per leaf",
              lambda v: v > 0, "must be > 0"),
        Param("max_depth", _parse_depth, "default",
              "most tests on a path (none = unlimited); default none, boosting 3"),
        Param("min_decrease", parse_float, 0.0, "minimal relative impurity decrease of a split",
              lambda v: 0 <= v < 1, "must be in [0, 1)"),
        Param("shrinkage", parse_float, 0.2, "boosting: leaf values × shrinkage",
              lambda v: 0 < v <= 1, "must be in (0, 1]"),
        Param("subsample", parse_float, 1.0,
              "boosting: fraction of the examples per tree (9b's chosen_examples)",
              lambda v: 0 < v <= 1, "must be in (0, 1]"),
        Param("tune", _parse_tune, None,
              "grid to choose by internal CV, e.g. min_leaf:1/5;min_decrease:0/0.1"),
        Param("tune_folds", parse_int, 3, "folds of the internal CV", lambda v: v >= 2,
              "must be >= 2"),
    )

    def __init__(self, method: str):
        super().__init__(method)
        parts = method.split("-")
        self.score, self.ensemble = parts[0], parts[1]
        if self.score not in SCORES or self.ensemble not in ENSEMBLES or len(parts) != 2:
            raise ConfigError(f"method '{method}' does not apply to relational data; "
                              f"relational methods: {', '.join(method_names())}")
        drop = set()
        if self.ensemble != "boost":
            drop |= {"shrinkage", "subsample"}
        if self.ensemble == "tree":
            drop.add("trees")
        self.params = tuple(p for p in type(self).params if p.name not in drop)

    def resolve(self, raw):
        grid = super().resolve(raw)
        grid["min_leaf"] = [float(v) for v in grid["min_leaf"]]
        return grid

    def validate(self, dataset, params_grid=None) -> dict[str, list[Any]]:
        if not getattr(dataset, "is_relational", False):
            raise ConfigError(f"method '{self.method}' needs relational data (a folder with a "
                              "settings file or a schema.yaml)")
        grid = super().validate(dataset, params_grid)
        if "settings" in grid["aggregates"] and not dataset.aggregates:
            raise ConfigError(f"aggregates=settings: {dataset.name} declares no [Aggregates]")
        for tune in grid["tune"]:
            for key in tune or {}:
                if key not in self.param_spec():
                    raise ConfigError(f"tune: {key!r} is not a parameter of {self.method}")
                for v in tune[key]:
                    self.param_spec()[key].value(v)
        if dataset.n_examples < 2:
            raise ConfigError(f"{dataset.name}: {dataset.n_examples} example(s): too few")
        return grid

    # -- running -----------------------------------------------------------------------
    def rank_one(self, dataset, params: dict[str, Any], *, seed: int, jobs: int) -> Ranking:
        return self.fit_rank(dataset, params, seed=seed, jobs=jobs)[0]

    def fit_rank(self, dataset, params: dict[str, Any], *, seed: int, jobs: int,
                 progress=None):
        """(Ranking, model) — the model predicts other examples of the same data set."""
        t0 = time.perf_counter()
        chosen = dict(params)
        tuning = None
        if params.get("tune"):
            chosen, tuning = self._tune(dataset, params, seed, jobs)
        model = _fit_cached(dataset, self.ensemble, chosen, seed, jobs, progress)
        sc = model.scores(self.score, chosen["attribution"])
        train_acc = float((model.predict(dataset.keys) == dataset.y).mean())
        meta: dict[str, Any] = {
            "ensemble": self.ensemble, "score": self.score, "task": "relational",
            "by_table": sc["by_table"], "by_aggregate": sc["by_aggregate"],
            "by_atom": sc["by_atom"], "curve": sc["curve"].tolist(),
            "train_accuracy": train_acc, "excluded": dict(dataset.excluded),
            "nodes": int(sum(len(t.internal()) for t in model.trees)),
            "too_costly_chains": int(model.lang.too_costly),
        }
        if tuning is not None:
            meta["tuning"] = tuning
        if not np.any(sc["importances"] > 0):
            import warnings

            warnings.warn(f"{dataset.source or dataset.name}: degenerate ranking by "
                          f"'{self.method}': no tree found a test (every relation got "
                          "importance 0)", stacklevel=3)
        used = {k: v for k, v in params.items()}
        r = Ranking(self.method, dataset.feature_names, sc["importances"], used,
                    timings={**model.timings, "rank_s": time.perf_counter() - t0}, meta=meta)
        return r, model

    def _tune(self, dataset, params, seed, jobs):
        """Choose the ``tune`` grid's combination with the best mean accuracy of an internal
        stratified CV (ties: the first in grid order); returns (params, report)."""
        from frcli.data.splits import kfold_splits

        grid = params["tune"]
        spec = self.param_spec()
        keys = list(grid)
        combos = [dict(zip(keys, (spec[k].value(v) for k, v in zip(keys, vals))))
                  for vals in itertools.product(*(grid[k] for k in keys))]
        k = min(params["tune_folds"], int(dataset.class_counts().min()) or 2,
                dataset.n_examples)
        splits = kfold_splits(dataset.n_examples, max(2, k), seed, dataset.y.astype(float))
        scores = []
        for combo in combos:
            p = {**params, **combo, "tune": None}
            acc = []
            for f, (tr, te) in enumerate(splits):
                model = _fit(dataset.subset(tr), self.ensemble, p, seed + 7919 * (f + 1), jobs)
                acc.append(float((model.predict(dataset.keys[te]) == dataset.y[te]).mean()))
            scores.append(float(np.mean(acc)))
        best = int(np.argmax(scores))
        report = {"grid": {k: [str(x) for x in v] for k, v in grid.items()},
                  "chosen": {k: (v if isinstance(v, (int, float, str)) or v is None
                                 else str(v)) for k, v in combos[best].items()},
                  "cv_accuracy": scores[best], "folds": len(splits),
                  "combinations": len(combos)}
        return {**params, **combos[best], "tune": None}, report


def method_names() -> list[str]:
    return [f"{s}-{e}" for e in ENSEMBLES for s in SCORES]


# -- models: fitted once per (data, settings, seed), shared by Symbolic and Genie3 -----------

_LANGS: "OrderedDict[tuple, Any]" = OrderedDict()
_MODELS: "OrderedDict[tuple, Any]" = OrderedDict()
_LOCK = threading.Lock()


def _language(dataset, params):
    from frcli.engines.relational.features import AGG_NAMES, Language

    agg = params["aggregates"]
    if agg in ("all", "exist"):
        aggs = AGG_NAMES
    elif agg == "settings":
        from frcli.engines.relational.features import SETTINGS_ALIASES

        aggs = tuple(dict.fromkeys(SETTINGS_ALIASES.get(a, a) for a in dataset.aggregates
                                   if SETTINGS_ALIASES.get(a, a) in AGG_NAMES))
    else:
        aggs = tuple(agg.split("+"))
    key = (id(dataset.relations), params["lookahead"], params["max_chain"],
           params["max_work"], aggs, agg == "exist", params["tables"] == "target")
    with _LOCK:
        lang = _LANGS.get(key)
        if lang is not None:
            _LANGS.move_to_end(key)
            return lang
    lang = Language(dataset, lookahead=params["lookahead"], max_chain=params["max_chain"],
                    max_work=params["max_work"], aggregates=aggs, existential=agg == "exist",
                    target_only=params["tables"] == "target")
    with _LOCK:
        _LANGS[key] = lang
        while len(_LANGS) > 6:
            _LANGS.popitem(last=False)
    return lang


def _tree_params(ensemble: str, params):
    from frcli.engines.relational.tree import TreeParams

    mf = params["max_features"]
    if mf == "default":
        mf = "sqrt" if ensemble == "rf" else 1.0
    depth = params["max_depth"]
    if depth == "default":
        depth = 3 if ensemble == "boost" else None
    return TreeParams(max_depth=depth, min_leaf=params["min_leaf"],
                      min_decrease=params["min_decrease"], max_features=mf,
                      continuation=params["continuation"])


def _fit(dataset, ensemble: str, params, seed: int, jobs: int, progress=None):
    from frcli.engines.relational.ensemble import fit

    lang = _language(dataset, params)
    return fit(lang, dataset.keys, dataset.y, dataset.n_classes, ensemble,
               trees=params.get("trees", 1), tree_params=_tree_params(ensemble, params),
               shrinkage=params.get("shrinkage", 0.2),
               chosen_examples=params.get("subsample", 1.0), seed=seed, jobs=jobs,
               progress=progress)


_MODEL_KEYS = ("trees", "lookahead", "max_chain", "max_work", "aggregates", "tables",
               "continuation", "max_features", "min_leaf", "max_depth", "min_decrease", "shrinkage",
               "subsample")


def _fit_cached(dataset, ensemble, params, seed, jobs, progress=None):
    """Symbolic and Genie3 of one ensemble, asked in turn with the same data, settings and
    seed (the experiment runner does), share one model (the tabular rankers' contract)."""
    key = (id(dataset.relations), dataset.keys.tobytes(), dataset.y.tobytes(), ensemble,
           tuple((k, str(params.get(k))) for k in _MODEL_KEYS), seed)
    with _LOCK:
        m = _MODELS.get(key)
    if m is not None:
        return m
    m = _fit(dataset, ensemble, params, seed, jobs, progress)
    with _LOCK:
        _MODELS[key] = m
        while len(_MODELS) > 2:
            _MODELS.popitem(last=False)
    return m
