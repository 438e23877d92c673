"""``reliefe``: Relief on manifold embeddings (engine: ``frcli.engines.relief.reliefe``).

The paper's variants are parameter settings: ReliefE (``embed=input``), ReliefE-absMean
(``update=absmean``), ReliefE-adaptive (``neighbours=auto``), ReliefE-absMean-adaptive, and for
multi-label data "ReliefF-this" (``embed=none``) with any label distance; cosine and hyperbolic
distances need the label space embedded (``embed=labels`` or ``both``). ``iterations`` lists
are computed in one pass (one embedding, one neighbour search per sampled instance).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.engines.relief.reliefe import (DISTANCES, EMBEDS, LABEL_SPACE_DISTANCES,
                                          MIN_EMBED_ROWS, MLC_UPDATES, RULES,
                                          UPDATES)   # no kernel import here
from frcli.errors import ConfigError, DataError
from frcli.rankers.base import Param, Ranker, Ranking, parse_choice, parse_float, parse_int
from frcli.rankers.relief import MAX_NEIGHBOURS, parse_iterations


def _parse_neighbours(value: Any) -> int | str:
    s = str(value).strip().lower()
    if s in RULES:
        return s
    try:
        return parse_int(value)
    except ValueError:
        raise ValueError("an integer >= 1, auto (maximum gap) or auto-ratio") from None


def _parse_dimension(value: Any) -> int | str:
    s = str(value).strip().lower()
    if s == "auto":
        return s
    try:
        return parse_int(value)
    except ValueError:
        raise ValueError("auto (TwoNN estimate) or an integer >= 1") from None


class ReliefERanker(Ranker):
    tasks = ("classification", "mlc")
    description = "ReliefE: Relief on UMAP embeddings (multi-class and multi-label)"
    grid_params = ("iterations",)
    params = (
        Param("iterations", parse_iterations, 1.0,
              "sampled instances: fraction of the examples (1.0 = each once) or a count"),
        Param("neighbours", _parse_neighbours, 15,
              "k nearest (paper 15), auto (maximum gap of the sorted distances) or auto-ratio",
              check=lambda v: isinstance(v, str) or 1 <= v <= MAX_NEIGHBOURS,
              check_msg=f"must be in 1..{MAX_NEIGHBOURS}"),
        Param("embed", parse_choice(*EMBEDS), "input",
              "embedded spaces: input (UMAP of the features), none (raw: ReliefF-this), "
              "labels or both (mlc: UMAP of the label space for cosine/hyperbolic)"),
        Param("update", parse_choice(*UPDATES), "standard",
              "standard (mean of |x - neighbour|) or absmean (|x - mean neighbour|)"),
        Param("distance", parse_choice("default", *DISTANCES), "default",
              "mlc label distance: hamming|accuracy|f1|subset (raw label sets; default "
              "hamming) or cosine|hyperbolic (embedded labels; default cosine)"),
        Param("dimension", _parse_dimension, "auto",
              "embedding dimension: auto (TwoNN estimate) or an integer",
              check=lambda v: isinstance(v, str) or v >= 1, check_msg="must be >= 1"),
        Param("subset", parse_int, 2048,
              "rows of the representative (cyclic) subset that fits the embedding",
              check=lambda v: v >= MIN_EMBED_ROWS, check_msg=f"must be >= {MIN_EMBED_ROWS}"),
        Param("sparsify", parse_float, 0.15,
              "PrMS sparsification of the subset when its density exceeds this (1 = never)",
              check=lambda v: 0 < v <= 1, check_msg="must be in (0, 1]"),
        Param("mlc_update", parse_choice(*MLC_UPDATES), "rrelieff",
              "mlc update: rrelieff td/t-(d-td)/(1-t), paper td/t-(d-t)/(1-td), code "
              "td/t-(d-t)/(1-t)"),
    )

    def validate(self, dataset: Dataset, params_grid=None) -> dict[str, list[Any]]:
        """The label-space parameters fit mlc only, and distance and embed must agree."""
        grid = super().validate(dataset, params_grid)
        task = dataset.task
        for emb in grid["embed"]:
            if task != "mlc" and emb in ("labels", "both"):
                raise ConfigError(f"bad value {emb!r} for parameter 'embed' with task {task} "
                                  "(allowed: input, none)")
        for dist in grid["distance"]:
            if dist == "default":
                continue
            if task != "mlc":
                raise ConfigError(f"parameter 'distance' applies to mlc data only (task is "
                                  f"{task}); leave it out")
            for emb in grid["embed"]:
                if (dist in LABEL_SPACE_DISTANCES) != (emb in ("labels", "both")):
                    need = "labels or both" if dist in LABEL_SPACE_DISTANCES else "input or none"
                    raise ConfigError(f"distance {dist} needs embed={need} (got embed={emb})")
        if task != "mlc" and self.explicit(params_grid, grid, "mlc_update"):
            raise ConfigError(f"parameter 'mlc_update' applies to mlc data only (task is "
                              f"{task}); leave it out")
        if dataset.n_examples < 2:
            raise DataError(f"{dataset.name}: ReliefE needs at least 2 examples")
        self._check_memory(dataset, grid)
        return grid

    def _check_memory(self, dataset: Dataset, grid: dict[str, list[Any]]) -> None:
        """Refuse before a neighbour search whose slots cannot fit: the engine
        searches a chunk of queries at a time, each holding groups x k slots (index and
        distance), beside a few copies of X."""
        from frcli.engines.memory import check_memory

        n, F = dataset.n_examples, dataset.n_features
        groups = 1
        if dataset.task == "classification" and dataset.targets:
            groups = max(len(dataset.targets[0].categories), 1)
        ks = [k for k in grid["neighbours"] if not isinstance(k, str)]
        k = min(max(ks), n) if ks else n          # the rules may take every neighbour
        chunk = max(16, min(256, (1 << 22) // max(1, n)))
        need = 24.0 * chunk * groups * k + 32.0 * n * F
        check_memory(need, f"method '{self.method}' with neighbours={max(ks) if ks else 'auto'}"
                           f" on {n} rows")

    def rank_grid(self, dataset: Dataset, fixed: dict[str, Any],
                  grid: dict[str, list[Any]], *, seed: int, jobs: int) -> list[Ranking]:
        from frcli.engines.relief.reliefe import reliefe

        t0 = time.perf_counter()
        results = reliefe(
            dataset, grid["iterations"], embed=fixed["embed"], update=fixed["update"],
            neighbours=fixed["neighbours"],
            distance=None if fixed["distance"] == "default" else fixed["distance"],
            dimension=fixed["dimension"], subset=fixed["subset"], sparsify=fixed["sparsify"],
            mlc_update=fixed["mlc_update"], seed=seed, jobs=jobs)
        elapsed = time.perf_counter() - t0
        out = []
        for r in results:
            meta = {**r.meta, "n_iterations": r.n_iterations}
            timings = {"rank_s": elapsed, "grid_size": float(len(results)),
                       **meta.pop("timings", {})}
            out.append(Ranking(self.method, dataset.feature_names, np.asarray(r.importances),
                               {**fixed, "iterations": r.iterations}, timings=timings,
                               meta=meta))
        return out
