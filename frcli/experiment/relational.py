"""Relational data in the experiment runner: loading, the published or seeded stratified
folds, and runs judged by the accuracy of the ranker's own model on the test fold (the
relational papers' protocol, 9b §5: 10-fold CV, accuracy), since a relational ranking has no
feature table for a kNN. Symbolic and Genie3 of one ensemble share its model and seed.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from frcli.errors import ConfigError


def load(path) -> Any:
    from frcli.data.relational import load_relational

    return load_relational(path)


def splits(data, protocol):
    """The CV splits and a note saying which folds (published or seeded stratified)."""
    from frcli.data import splits as S
    from frcli.data.relational import relational_splits

    if protocol.type == "cv":
        return relational_splits(data, protocol.folds, protocol.seed,
                                 published=protocol.published_folds)
    if protocol.type == "holdout":
        return (S.holdout_splits(data.n_examples, protocol.test_fraction, protocol.repeats,
                                 protocol.seed), "repeated hold-out")
    raise ConfigError(f"protocol {protocol.type!r} does not apply to relational data set "
                      f"{data.name!r} (use cv or holdout)")


def measures(spec) -> list[str]:
    """The classification measures asked for (default: accuracy, the papers' measure)."""
    from frcli.evaluate.measures import default_measures

    allowed = default_measures("classification")
    asked = [m for m in (spec.measures or ("accuracy",)) if m in allowed]
    return asked or ["accuracy"]


def run(task, data, train_idx, test_idx, jobs: int) -> list[dict[str, Any]]:
    """One run per parameter combination of the task: fit on the training fold, rank, predict
    the test fold."""
    from frcli.evaluate.measures import evaluate
    from frcli.experiment.plan import run_params
    from frcli.rankers.registry import get_ranker

    ranker = get_ranker(task.ranker.method, data)
    grid = ranker.validate(data, task.ranker.params)
    keys = list(grid)
    train = data.subset(train_idx)
    test_keys = data.keys[test_idx]
    y_test = data.y[test_idx].astype(np.float64)
    names = measures(task.evaluation)
    runs = []
    import itertools

    for combo in itertools.product(*(grid[k] for k in keys)):
        params = dict(zip(keys, combo))
        t0, c0 = time.perf_counter(), time.process_time()
        ranking, model = ranker.fit_rank(train, params, seed=task.seed, jobs=jobs)
        rank_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        P = model.decision(test_keys)
        scores = evaluate("classification", y_test, P, names)
        runs.append({"params": run_params(task.ranker, params), "scores": scores,
                     "importances": ranking.importances, "per_target": None,
                     "meta": {**ranking.meta, "timings": ranking.timings},
                     "rank_time_s": float(rank_s), "eval_time_s": time.perf_counter() - t1,
                     "cpu_time_s": round(time.process_time() - c0, 3)})
    return runs
