"""One forest, every score: ``forest_scores`` grows a forest once for the Symbolic, Genie3
and RF rankings (the experiment runner's entry point), and ``forest_scores_sizes`` serves a
list of forest sizes from one growth (docs/design/pct.md).
"""
from __future__ import annotations

import copy
import time
from typing import Any, Sequence

import numpy as np

from frcli.data.dataset import Dataset
from frcli.engines.pct.cache import active_cache, forest_key
from frcli.engines.pct.model import PCTForest
from frcli.engines.pct.rf_clus import clus_rf_scores
from frcli.engines.pct.wcv import choose_w
from frcli.errors import ConfigError, DataError


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
    (each permutation alone, docs/design/pct.md) or "clus" (CLUS 2.12.8's accumulated permutations
    and raw RMSE, ``frcli.engines.pct.rf_clus``); the trees, hence the other scores, are the same.
    ``genie3_missing``: see ``PCTForest``.
    ``w``: a float, ``"auto"`` (internal CV) or None; used only when some rows are unlabeled
    and ``dataset.semi_supervised`` (otherwise those rows are dropped with a warning).
    """
    t0 = time.perf_counter()
    boot = (ensemble != "et") if bootstrap is None else bool(bootstrap)
    if rf_score is None:
        rf_score = boot
    cache = active_cache()
    key = (forest_key(dataset, ensemble, trees, max_features, min_leaf, bootstrap, w, w0,
                      symbolic_weight, per_target, ties, seed, genie3_missing)
           if cache is not None else None)
    hit = cache.get(key) if key is not None else None
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
        cache.put(key, {"has_rf": rf_variant if rf_score else False,
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
    cache = active_cache()
    key = (forest_key(dataset, ensemble, tuple(sizes), max_features, min_leaf, bootstrap, w,
                      w0, symbolic_weight, per_target, ties, seed, genie3_missing, "sizes")
           if cache is not None else None)
    hit = cache.get(key) if key is not None else None
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
        for k, v in model.sums_.items():
            if k != "trees" and v is not None:
                sums[k] = v + sums[k] if k in sums else np.array(v, copy=True)
        model.trees_ = list(trees)
        model.sums_ = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                      for k, v in sums.items()}
        o = model.scores(symbolic_weight)
        o["timings"] = {"w_cv_s": 0.0, "forest_s": time.perf_counter() - t0}
        o["meta"]["nested_sizes"] = list(sizes)
        out[n] = o
        start = n
    if key is not None:
        cache.put(key, {"has_rf": "thesis" if rf else False, "out": copy.deepcopy(out)})
    return out
