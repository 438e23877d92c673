"""Baselines every study needs: the non-informed ranking and a random one."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from frcli.data.dataset import TASKS, Dataset
from frcli.rankers.base import Ranker, Ranking


class _Baseline(Ranker):
    """A ranking that ignores the targets; subclasses say how to draw the importances."""

    tasks = TASKS
    learns = False       # equal (uniform) importances are the point, not a degenerate case

    def importances(self, dataset: Dataset, seed: int) -> np.ndarray:
        raise NotImplementedError

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        t0 = time.perf_counter()
        imp = self.importances(dataset, seed)
        return Ranking(self.method, dataset.feature_names, imp, dict(params),
                       timings={"rank_s": time.perf_counter() - t0})


class UniformRanker(_Baseline):
    """All importances 1: the kNN evaluator then weights every feature equally."""

    description = "all importances 1 (the non-informed baseline)"

    def importances(self, dataset: Dataset, seed: int) -> np.ndarray:
        return np.ones(dataset.n_features)


class RandomRanker(_Baseline):
    """Importances drawn uniformly from [0, 1) with the given seed (a sanity baseline)."""

    description = "random importances (seeded)"

    def importances(self, dataset: Dataset, seed: int) -> np.ndarray:
        return np.random.default_rng(seed).random(dataset.n_features)
