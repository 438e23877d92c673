"""Smoke runs: ``FRCLI_SMOKE=1`` shrinks every experiment config to a quick run of the same
shape, so a config (and every command after it: results, stats, report) can be checked end
to end in seconds. The README's code blocks run this way in the test suite.

A smoke run keeps the config's name, rankers and evaluation, and takes the first
``DATASETS`` data sets, each cut to ``ROWS`` rows (a fixed random subset; given train/test
files keep their proportions), at most ``SPLITS`` hold-out repeats or CV folds and
``LABELED`` labelled sizes, and at most ``TREES`` trees per ensemble. The row limit is part
of each run's definition, so smoke runs never pass for full ones: a later full run of the
same config into the same folder reports the difference instead of reusing them.
"""
from __future__ import annotations

import dataclasses
import os
import warnings

ENV = "FRCLI_SMOKE"
DATASETS = 3
ROWS = 200
SPLITS = 2
LABELED = 2
TREES = 10


def enabled() -> bool:
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def shrink(cfg):
    """The smoke version of an ``ExperimentConfig`` (see the module docstring); config.py
    calls this, so it takes the config as given rather than importing its class."""
    p = cfg.protocol
    protocol = dataclasses.replace(p, repeats=min(p.repeats, SPLITS),
                                   folds=min(p.folds, max(2, SPLITS)),
                                   labeled=tuple(p.labeled[:LABELED]))
    datasets = tuple(dataclasses.replace(d, max_rows=ROWS) for d in cfg.datasets[:DATASETS])
    rankers = {}
    for r in cfg.rankers:   # entries that differed only above the tree cap become one
        r = dataclasses.replace(r, params=_fewer_trees(r.params))
        rankers.setdefault(r.key(), r)
    rankers = tuple(rankers.values())
    warnings.warn(f"{ENV} is set: a smoke run of {cfg.name} ({len(datasets)} of "
                  f"{len(cfg.datasets)} data sets, ≤ {ROWS} rows, ≤ {SPLITS} splits, ≤ {TREES} "
                  "trees)")
    text = f"# {ENV}: smoke run (see frcli/experiment/smoke.py)\n{cfg.text}"
    return dataclasses.replace(cfg, datasets=datasets, protocol=protocol, rankers=rankers,
                               text=text)


def _fewer_trees(params: dict) -> dict:
    if "trees" not in params:
        return params
    t = params["trees"]
    if isinstance(t, list):
        capped = list(dict.fromkeys(min(int(x), TREES) if _is_int(x) else x for x in t))
        return {**params, "trees": capped if len(capped) > 1 else capped[0]}
    return {**params, "trees": min(int(t), TREES) if _is_int(t) else t}


def _is_int(x) -> bool:
    try:
        int(x)
    except (TypeError, ValueError):
        return False
    return not isinstance(x, bool)


def cut_rows(data, n_train: int | None, max_rows: int):
    """(data, n_train) with at most ``max_rows`` rows: a fixed random subset in file order;
    with given train/test parts, each part keeps its share."""
    import numpy as np

    n = data.n_examples
    if n <= max_rows:
        return data, n_train
    rng = np.random.default_rng(0)
    if n_train is None:
        keep = np.sort(rng.choice(n, max_rows, replace=False))
        return data.subset(keep), None
    k_tr = max(1, min(n_train, round(max_rows * n_train / n)))
    k_te = max(1, min(n - n_train, max_rows - k_tr))
    tr = np.sort(rng.choice(n_train, k_tr, replace=False))
    te = n_train + np.sort(rng.choice(n - n_train, k_te, replace=False))
    return data.subset(np.concatenate([tr, te])), k_tr
