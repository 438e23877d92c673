"""``relief`` and ``relief-str``: the Relief family (engine: ``frcli.relief``).

``relief`` ranks with the task's own target distance (ReliefF, RReliefF/MTR, MLC, HMLC,
SSL, URelief). ``relief-str`` ranks every target separately (nominal targets and labels with
ReliefF as CLUS does, numeric targets sharing one neighbour search) and averages the
per-target importances (on one target: plain ``relief``, reported per target too).
Rows without targets give SSL-Relief only for a semi-supervised data set
(``--semi-supervised``); otherwise they are left out with a warning. ``iterations``,
``neighbours`` and ``sigma`` lists are computed in one pass (``rank_grid``) and give one
Ranking per combination, iterations outermost.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from frcli.data.dataset import TASKS, Dataset
from frcli.errors import ConfigError
from frcli.rankers.base import (Param, Ranker, Ranking, parse_bool, parse_choice, parse_float,
                               parse_int)

DISTANCES = ("default", "hamming", "accuracy", "f1", "subset", "clus", "euclidean")


def _parse_iterations(value: Any) -> float:
    v = parse_float(value)
    if v == -1 or 0 < v <= 1 or (v > 1 and float(v).is_integer()):
        return int(v) if v > 1 else v
    raise ValueError("a fraction in (0, 1], -1 for all examples, or an integer count")


class ReliefRanker(Ranker):
    tasks = TASKS
    description = "Relief family (ReliefF, RReliefF, MTR/MLC/HMLC-Relief, SSL-Relief, URelief)"
    grid_params = ("iterations", "neighbours", "sigma")
    params = (
        Param("iterations", _parse_iterations, 1.0,
              "sampled instances: fraction of the examples (1.0 = each once) or a count"),
        Param("neighbours", parse_int, 15, "number of nearest neighbours k",
              check=lambda v: v >= 1, check_msg="must be >= 1"),
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
        Param("nominal_targets", parse_choice("relieff", "shared"), "relieff",
              "per-target ranking of nominal targets/labels: ReliefF (CLUS) or the shared "
              "neighbours with a 0/1 distance"),
        Param("unlabeled", parse_choice("auto", "ssl", "ignore"), "auto",
              "rows without targets: SSL-Relief, or leave them out; auto = SSL-Relief only "
              "with --semi-supervised"),
        Param("ssl_w0", parse_float, 0.5, "SSL influence of the farthest unlabeled row",
              check=lambda v: 0 <= v <= 1, check_msg="must be in [0, 1]"),
        Param("ssl_w1", parse_float, 1.0, "SSL influence of the closest unlabeled row",
              check=lambda v: 0 <= v <= 1, check_msg="must be in [0, 1]"),
    )

    def rank_grid(self, dataset: Dataset, fixed: dict[str, Any],
                  grid: dict[str, list[Any]], *, seed: int, jobs: int) -> list[Ranking]:
        from frcli.relief import relief

        per_str = self.method.endswith("-str")
        if per_str and dataset.task == "unsupervised":
            raise ConfigError("method 'relief-str' needs targets; use 'relief' for "
                              "unsupervised data")
        if fixed["ssl_w0"] > fixed["ssl_w1"]:
            raise ConfigError("parameter 'ssl_w0' must be <= 'ssl_w1'")
        dist = fixed["distance"]
        if dist != "default":
            allowed = {"mlc": ("hamming", "accuracy", "f1", "subset"),
                       "hmlc": DISTANCES[1:]}.get(dataset.task, ())
            if dist not in allowed:
                raise ConfigError(
                    f"bad value {dist!r} for parameter 'distance' with task {dataset.task} "
                    f"(allowed: {', '.join(allowed) or 'default only'})")
        t0 = time.perf_counter()
        results = relief(
            dataset, grid["iterations"], grid["neighbours"], grid["sigma"],
            distance=None if dist == "default" else dist, w0=fixed["w0"],
            weight_aggregate=fixed["weights"],
            per_target=per_str or fixed["per_target"],
            nominal_targets=fixed["nominal_targets"], unlabeled=fixed["unlabeled"],
            influence=(fixed["ssl_w0"], fixed["ssl_w1"]), seed=seed, jobs=jobs)
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
