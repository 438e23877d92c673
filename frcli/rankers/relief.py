"""``relief`` and ``relief-str``: the Relief family (engine: ``frcli.engines.relief``).

``relief`` ranks with the task's own target distance (ReliefF, RReliefF/MTR, MLC, HMLC,
SSL, URelief). ``relief-str`` ranks every target separately (nominal targets and labels with
ReliefF as CLUS does, numeric targets sharing one neighbour search) and averages the
per-target importances (on one target: plain ``relief``, reported per target too).
Rows without targets give SSL-Relief only for a semi-supervised data set
(``--semi-supervised``); otherwise they are left out with a warning. ``iterations``,
``neighbours`` and ``sigma`` lists are computed in one pass (``rank_grid``) and give one
Ranking per combination, iterations outermost. ``validate`` rejects, before any work,
parameters that do not fit the task (a label distance on mtr, hmlc weights elsewhere, SSL
influences or per-target output without targets).

Per-task defaults (the papers'): ``neighbours=auto`` is 15 with targets (CLUS, the MTR
paper's recommendation), 30 unsupervised (URelief's main setting in P-UNS, T:8595-8603), and
for SSL-Relief tuned with the influences (``influence=auto``: 4-fold CV over the P-ML grid,
``frcli.engines.relief.tune``); ``neighbours=cv`` tunes k by that CV for any task with
targets (the supervised counterpart of the SSL studies).
"""
from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from frcli.data.dataset import TASKS, Dataset
from frcli.errors import ConfigError, DataError
from frcli.rankers.base import (Param, Ranker, Ranking, parse_bool, parse_choice, parse_float,
                               parse_int, require_labels)
# the family's common module loads no kernel: parameter checks and help work without a build
from frcli.engines.relief.common import HMLC_DISTANCES, MLC_DISTANCES, iterations_value

DISTANCES = ("default", "hamming", "accuracy", "f1", "subset", "clus", "euclidean")


def _parse_neighbours(value: Any) -> int | str:
    if isinstance(value, str) and value.strip().lower() in ("auto", "cv"):
        return value.strip().lower()
    k = parse_int(value)
    if not 1 <= k <= MAX_NEIGHBOURS:
        raise ValueError(f"must be in 1..{MAX_NEIGHBOURS}, 'auto' or 'cv'")
    return k


def parse_iterations(value: Any) -> float | int:
    return iterations_value(parse_float(value))


MAX_NEIGHBOURS = 100_000    # a sanity bound (the papers use 10 to 30); memory is checked too


class ReliefRanker(Ranker):
    tasks = TASKS
    description = "Relief family (ReliefF, RReliefF, MTR/MLC/HMLC-Relief, SSL-Relief, URelief)"
    grid_params = ("iterations", "neighbours", "sigma")
    params = (
        Param("iterations", parse_iterations, 1.0,
              "sampled instances: fraction of the examples (1.0 = each once) or a count"),
        Param("neighbours", _parse_neighbours, "auto",
              "number of nearest neighbours k; auto = 15 with targets, 30 unsupervised "
              "(P-UNS), tuned with influence=auto for SSL-Relief; cv = tuned over 15, 20, 30 "
              "by internal 4-fold CV"),
        Param("sigma", parse_float, 0.0,
              "neighbour weights exp(-(sigma (l-1))^2); 0 = equal weights",
              check=lambda v: v >= 0, check_msg="must be >= 0"),
        Param("distance", parse_choice(*DISTANCES), "default",
              "target distance: mlc hamming|accuracy|f1|subset (default f1); hmlc clus "
              "(default: weighted symmetric difference / U)|euclidean|hamming|accuracy|f1|"
              "subset (weighted)"),
        Param("w0", parse_float, 0.75, "hmlc label-weight base",
              check=lambda v: 0 < v <= 1, check_msg="must be in (0, 1]"),
        Param("weights", parse_choice("sum", "mean"), "sum",
              "hmlc DAG weights: sum over parents, top level w0 (CLUS) or mean, top 1 (thesis)"),
        Param("per_target", parse_bool, False, "also store per-target importances"),
        Param("search", parse_choice("exact", "approximate"), "exact",
              "neighbour search: exact (CLUS's neighbours) or approximate (pynndescent, for "
              "data beyond tens of thousands of rows; agreement in docs/benchmarks.md)"),
        Param("nominal_targets", parse_choice("relieff", "shared"), "relieff",
              "per-target ranking of nominal targets/labels: ReliefF (CLUS) or the shared "
              "neighbours with a 0/1 distance"),
        Param("unlabeled", parse_choice("auto", "ssl", "ignore"), "auto",
              "rows without targets: SSL-Relief, or leave them out; auto = SSL-Relief only "
              "with --semi-supervised"),
        Param("exclude_self", parse_bool, False,
              "URelief: the cluster distance of each feature leaves that feature out, so "
              "nominal features on mixed data do not win by their 0/1 differences alone "
              "(not in the thesis)"),
        Param("influence", parse_choice("auto", "fixed"), "auto",
              "SSL-Relief: auto = choose influence_far/near (and neighbours=auto) by "
              "internal 4-fold CV over the P-ML grid, (0, 0) = supervised Relief; fixed = "
              "use influence_far/near"),
        # the thesis calls these w0 and w1; renamed so they are not confused with
        # the hmlc w0 above or the ensembles' SSL weight w. Labeled rows have influence 1.
        Param("influence_far", parse_float, 0.5,
              "SSL-Relief with influence=fixed: influence of the unlabeled row farthest "
              "from the labeled ones",
              check=lambda v: 0 <= v <= 1, check_msg="must be in [0, 1]"),
        Param("influence_near", parse_float, 1.0,
              "SSL-Relief with influence=fixed: influence of the unlabeled row nearest to "
              "the labeled ones (>= influence_far; both 0: supervised Relief)",
              check=lambda v: 0 <= v <= 1, check_msg="must be in [0, 1]"),
    )

    def __init__(self, method: str):
        super().__init__(method)
        self.per_str = method.endswith("-str")
        if self.per_str:
            self.tasks = tuple(t for t in TASKS if t != "unsupervised")

    def task_defaults(self) -> list[str]:
        return ["per-task defaults (the papers'): neighbours 15 with targets (CLUS, the MTR "
                "paper), 30 unsupervised (URelief, P-UNS);",
                "  semi-supervised: influence=auto chooses influence_far/near and neighbours "
                "by 4-fold CV over P-ML's grid ({0,.25,.5,.75,1}², far <= near, x k "
                "15/20/30)"]

    def validate(self, dataset: Dataset, params_grid=None) -> dict[str, list[Any]]:
        """Task-dependent checks before any work: -str and per_target need targets, the
        target distance must be one of the task's, w0/weights are for hmlc, the SSL
        influences for data with targets, and there must be rows."""
        if self.per_str and dataset.task == "unsupervised":
            raise ConfigError("method 'relief-str' needs targets; use 'relief' for "
                              "unsupervised data")
        grid = super().validate(dataset, params_grid)
        require_labels(dataset, self.method, ssl_ok=not self.per_str)
        task = dataset.task
        allowed = {"mlc": MLC_DISTANCES, "hmlc": HMLC_DISTANCES}.get(task, ())
        for dist in grid["distance"]:
            if dist != "default" and dist not in allowed:
                raise ConfigError(
                    f"bad value {dist!r} for parameter 'distance' with task {task} "
                    f"(allowed: default{', ' if allowed else ''}{', '.join(allowed)})")
        if task != "hmlc":
            for name in ("w0", "weights"):
                if self.explicit(params_grid, grid, name):
                    raise ConfigError(f"parameter '{name}' applies to hmlc data only (task "
                                      f"is {task}); leave it out")
        if task == "unsupervised":
            for name in ("per_target", "influence", "influence_far", "influence_near",
                         "nominal_targets"):
                if self.explicit(params_grid, grid, name):
                    raise ConfigError(f"parameter '{name}' needs targets; task "
                                      "'unsupervised' has none")
            if "cv" in grid["neighbours"]:
                raise ConfigError("neighbours=cv tunes k against the targets; task "
                                  "'unsupervised' has none (use a number or auto)")
        elif self.explicit(params_grid, grid, "exclude_self"):
            raise ConfigError(f"parameter 'exclude_self' applies to URelief (task "
                              f"unsupervised; task is {task}); leave it out")
        if "auto" in grid["influence"]:
            for name in ("influence_far", "influence_near"):
                if self.explicit(params_grid, grid, name):
                    raise ConfigError(f"parameter '{name}' is chosen by influence=auto (the "
                                      "default); add influence=fixed to set it")
        if max(grid["influence_far"]) > min(grid["influence_near"]):
            raise ConfigError("parameter 'influence_far' must be <= 'influence_near' (the "
                              "unlabeled rows nearest to the labeled ones count most)")
        if dataset.n_examples == 0:
            raise DataError(f"{dataset.name}: no data rows; Relief needs at least one example")
        self._check_memory(dataset, grid)
        return grid

    def _check_memory(self, dataset: Dataset, grid: dict[str, list[Any]]) -> None:
        """Refuse before a neighbour search whose slots cannot fit in memory."""
        from frcli.engines.memory import check_memory, relief_bytes
        from frcli.engines.relief.common import iteration_count

        n = dataset.n_examples
        counts = {iteration_count(v, n) for v in grid["iterations"]}
        groups = 1
        if dataset.task == "classification" and dataset.targets:
            groups = max(len(dataset.targets[0].categories), 1)
        per = self.per_str or any(grid["per_target"])
        Q = 1 + (dataset.n_targets if per else 0)
        # auto/cv: at most the tuning grid's largest k (30)
        kmax = max(k if isinstance(k, int) else 30 for k in grid["neighbours"])
        need = relief_bytes(n, dataset.n_features, max(counts), groups, kmax, Q, len(counts))
        check_memory(need, f"method '{self.method}' with neighbours={kmax} on {n} rows")

    def rank_grid(self, dataset: Dataset, fixed: dict[str, Any],
                  grid: dict[str, list[Any]], *, seed: int, jobs: int) -> list[Ranking]:
        """One pass for the plain combinations; every tuned one (``influence=auto`` on
        semi-supervised data, ``neighbours=cv``) by ``tune_relief``; grid order kept."""
        ssl = (dataset.task != "unsupervised" and dataset.Y is not None
               and not bool(np.all(dataset.labeled))
               and (fixed["unlabeled"] == "ssl"
                    or (fixed["unlabeled"] == "auto" and dataset.semi_supervised)))
        tune_infl = ssl and fixed["influence"] == "auto"
        default_k = 30 if dataset.task == "unsupervised" else 15

        def plan(v):   # a neighbours value -> int (plain) or the tuning grid (tuned)
            if v == "cv" or (v == "auto" and tune_infl):
                from frcli.engines.relief.tune import NEIGHBOURS_GRID
                return NEIGHBOURS_GRID
            if v == "auto":
                return default_k
            return (v,) if tune_infl else v

        ks = [plan(v) for v in grid["neighbours"]]
        plain_ks = [k for k in ks if isinstance(k, int)]
        plain = iter(self._relief(dataset, fixed, grid["iterations"], plain_ks, grid["sigma"],
                                  seed, jobs) if plain_ks else [])
        out = []
        for it in grid["iterations"]:
            for k in ks:
                for sg in grid["sigma"]:
                    if isinstance(k, int):
                        out.append(next(plain))
                    else:
                        out.append(self._tuned(dataset, fixed, it, k, sg, tune_infl, seed,
                                               jobs))
        return out

    def _relief(self, dataset, fixed, iterations, neighbours, sigma, seed, jobs,
                influence=None) -> list[Ranking]:
        from frcli.engines.relief.relief import relief

        per_str = self.per_str
        dist = fixed["distance"]      # checked by validate
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            # constant targets: said once, with the reason, by Ranker.rank (degenerate_reason)
            warnings.filterwarnings("ignore", message=".*same target value")
            results = relief(
                dataset, iterations, neighbours, sigma,
                distance=None if dist == "default" else dist, w0=fixed["w0"],
                weight_aggregate=fixed["weights"],
                per_target=per_str or fixed["per_target"],
                nominal_targets=fixed["nominal_targets"], unlabeled=fixed["unlabeled"],
                influence=influence or (fixed["influence_far"], fixed["influence_near"]),
                exclude_self=fixed["exclude_self"], search=fixed["search"], seed=seed,
                jobs=jobs)
        elapsed = time.perf_counter() - t0
        return [self._ranking(dataset, fixed, r, seed, {"rank_s": elapsed,
                                                        "grid_size": float(len(results))})
                for r in results]

    def _tuned(self, dataset, fixed, iterations, ks, sigma, tune_infl, seed,
               jobs) -> Ranking:
        from frcli.engines.relief.tune import INFLUENCE_GRID, tune_relief

        t0 = time.perf_counter()
        ssl = tune_infl or (dataset.semi_supervised and fixed["unlabeled"] != "ignore")
        infl = INFLUENCE_GRID if tune_infl else \
            [(fixed["influence_far"], fixed["influence_near"]) if ssl else (0.0, 0.0)]
        dist = fixed["distance"]
        data = dataset if ssl else dataset.supervised_view("Relief")
        r, tuning = tune_relief(data, iterations, sigma, neighbours=ks, influence=infl,
                                distance=None if dist == "default" else dist, w0=fixed["w0"],
                                weight_aggregate=fixed["weights"], seed=seed, jobs=jobs)
        chosen = {**fixed, "influence_far": tuning.influence[0],
                  "influence_near": tuning.influence[1]}
        if self.per_str or fixed["per_target"]:
            # per-target rows need the engine's per-target pass: one more run
            return self._relief(data, chosen, [iterations], [tuning.neighbours], [sigma],
                                seed, jobs, influence=tuning.influence)[0]
        rk = self._ranking(data, chosen, r, seed, {"rank_s": time.perf_counter() - t0})
        rk.meta["tuning"] = tuning.to_meta()
        return rk

    def _ranking(self, dataset, fixed, r, seed, timings) -> Ranking:
        params = {**fixed, "iterations": r.iterations, "neighbours": r.neighbours,
                  "sigma": r.sigma}
        imp = r.importances
        if self.per_str and r.per_target is None:
            # one target (classification ReliefF): relief-str is plain relief, reported
            # per target too so every -str ranking has the same shape
            r.per_target = np.asarray(imp)[None, :].copy()
        if self.per_str:
            imp = r.per_target.mean(axis=0)
        meta = {**r.meta, "n_iterations": r.n_iterations, "seed": seed}
        return Ranking(self.method, dataset.feature_names, np.asarray(imp), params,
                       per_target=r.per_target,
                       target_names=dataset.target_names if r.per_target is not None else None,
                       timings=timings, meta=meta)
