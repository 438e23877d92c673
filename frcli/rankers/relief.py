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
from frcli.engines.relief import HMLC_DISTANCES, MLC_DISTANCES   # no kernel import at module level

DISTANCES = ("default", "hamming", "accuracy", "f1", "subset", "clus", "euclidean")


def _parse_iterations(value: Any) -> float:
    v = parse_float(value)
    if v == -1 or 0 < v <= 1 or (v > 1 and float(v).is_integer()):
        return int(v) if v > 1 else v
    raise ValueError("a fraction in (0, 1], -1 for all examples, or an integer count")


MAX_NEIGHBOURS = 100_000    # a sanity bound (the papers use 10 to 30); memory is checked too


class ReliefRanker(Ranker):
    tasks = TASKS
    description = "Relief family (ReliefF, RReliefF, MTR/MLC/HMLC-Relief, SSL-Relief, URelief)"
    grid_params = ("iterations", "neighbours", "sigma")
    params = (
        Param("iterations", _parse_iterations, 1.0,
              "sampled instances: fraction of the examples (1.0 = each once) or a count"),
        Param("neighbours", parse_int, 15, "number of nearest neighbours k",
              check=lambda v: 1 <= v <= MAX_NEIGHBOURS,
              check_msg=f"must be in 1..{MAX_NEIGHBOURS}"),
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
        # spec-ssl-unsup §3.2 calls these w0 and w1; renamed so they are not confused with
        # the hmlc w0 above or the ensembles' SSL weight w. Labeled rows have influence 1.
        Param("influence_far", parse_float, 0.5,
              "SSL-Relief: influence of the unlabeled row farthest from the labeled ones",
              check=lambda v: 0 <= v <= 1, check_msg="must be in [0, 1]"),
        Param("influence_near", parse_float, 1.0,
              "SSL-Relief: influence of the unlabeled row nearest to the labeled ones "
              "(>= influence_far)",
              check=lambda v: 0 <= v <= 1, check_msg="must be in [0, 1]"),
    )

    def __init__(self, method: str):
        super().__init__(method)
        self.per_str = method.endswith("-str")
        if self.per_str:
            self.tasks = tuple(t for t in TASKS if t != "unsupervised")

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
            for name in ("per_target", "influence_far", "influence_near", "nominal_targets"):
                if self.explicit(params_grid, grid, name):
                    raise ConfigError(f"parameter '{name}' needs targets; task "
                                      "'unsupervised' has none")
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
        from frcli.engines.relief import iteration_count

        n = dataset.n_examples
        counts = {iteration_count(v, n) for v in grid["iterations"]}
        groups = 1
        if dataset.task == "classification" and dataset.targets:
            groups = max(len(dataset.targets[0].categories), 1)
        per = self.per_str or any(grid["per_target"])
        Q = 1 + (dataset.n_targets if per else 0)
        kmax = max(grid["neighbours"])
        need = relief_bytes(n, dataset.n_features, max(counts), groups, kmax, Q, len(counts))
        check_memory(need, f"method '{self.method}' with neighbours={kmax} on {n} rows")

    def rank_grid(self, dataset: Dataset, fixed: dict[str, Any],
                  grid: dict[str, list[Any]], *, seed: int, jobs: int) -> list[Ranking]:
        from frcli.engines.relief import relief

        per_str = self.per_str
        dist = fixed["distance"]      # checked by validate
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            # constant targets: said once, with the reason, by Ranker.rank (degenerate_reason)
            warnings.filterwarnings("ignore", message=".*same target value")
            results = relief(
                dataset, grid["iterations"], grid["neighbours"], grid["sigma"],
                distance=None if dist == "default" else dist, w0=fixed["w0"],
                weight_aggregate=fixed["weights"],
                per_target=per_str or fixed["per_target"],
                nominal_targets=fixed["nominal_targets"], unlabeled=fixed["unlabeled"],
                influence=(fixed["influence_far"], fixed["influence_near"]),
                search=fixed["search"], seed=seed, jobs=jobs)
        elapsed = time.perf_counter() - t0
        out = []
        for r in results:
            params = {**fixed, "iterations": r.iterations, "neighbours": r.neighbours,
                      "sigma": r.sigma}
            imp = r.importances
            if per_str and r.per_target is None:
                # one target (classification ReliefF): relief-str is plain relief, reported
                # per target too so every -str ranking has the same shape
                r.per_target = np.asarray(imp)[None, :].copy()
            if per_str:
                imp = r.per_target.mean(axis=0)
            meta = {**r.meta, "n_iterations": r.n_iterations, "seed": seed}
            out.append(Ranking(
                self.method, dataset.feature_names, np.asarray(imp), params,
                per_target=r.per_target,
                target_names=dataset.target_names if r.per_target is not None else None,
                timings={"rank_s": elapsed, "grid_size": float(len(results))}, meta=meta))
        return out
