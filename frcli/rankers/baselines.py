"""Baselines every study needs: the non-informed ranking and a random one."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from frcli.data.dataset import TASKS, Dataset
from frcli.rankers.base import Ranker, Ranking


class UniformRanker(Ranker):
    """All importances 1: the kNN evaluator then weights every feature equally."""

    tasks = TASKS
    description = "all importances 1 (the non-informed baseline)"

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        t0 = time.perf_counter()
        imp = np.ones(dataset.n_features)
        return Ranking(self.method, dataset.feature_names, imp, dict(params),
                       timings={"rank_s": time.perf_counter() - t0})


class RandomRanker(Ranker):
    """Importances drawn uniformly from [0, 1) with the given seed (a sanity baseline)."""

    tasks = TASKS
    description = "random importances (seeded)"

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        t0 = time.perf_counter()
        imp = np.random.default_rng(seed).random(dataset.n_features)
        return Ranking(self.method, dataset.feature_names, imp, dict(params),
                       timings={"rank_s": time.perf_counter() - t0})
