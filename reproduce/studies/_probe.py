"""What the data sets a study leaves out would cost, measured, not guessed.

One ranking of one (fold, L) is timed on one core on a set the study runs (the reference) and
on each left-out set, with the training part and labels the runner would give it; the section
scales the reference's measured per-(fold, L) cost of its stored runs by the ratio. A ranking
that runs past the probe's ``cap`` is stopped and recorded as a lower bound. Timings are
measurements, not results: they are taken once per code and kept in the study's work folder
(``Stores.work``)."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

KEYS = ("sets", "method", "split", "labeled", "cap")     # what a stored probe must match


@dataclass(frozen=True)
class Probe:
    config: str                 # the config whose protocol and data entries are used
    reference: str              # a set the study runs: its stored runs give the cost
    sets: tuple[str, ...]       # the left-out sets
    method: str = "rf-rf"       # the SSL RF score with its w tuning, the cheapest SSL forest
    split: int = 0
    labeled: int = 200
    cap: float | None = None    # seconds after which a ranking is stopped (a lower bound)

    def key(self) -> list:
        return [[self.reference, *self.sets], self.method, self.split, self.labeled, self.cap]


def training_part(data, n_train, protocol, split: int, labeled: int):
    """The rows a run of (split, L) ranks on, drawn as the executor draws them (folds
    stratified by the class where the protocol says so; the given split's labelled rows
    seeded from the protocol's seed alone: timing only)."""
    import numpy as np

    from frcli.data import splits as S

    if protocol.type == "given":
        train = np.arange(n_train)
        lab = S.thin_labels(train, [labeled], protocol.seed)[labeled]
    else:
        y = data.Y[:, 0] if data.task == "classification" and protocol.stratify else None
        splits = S.kfold_splits(data.n_examples, protocol.folds, protocol.seed, y)
        train = splits[split][0]
        lab = S.thin_cv_labels([te for _, te in splits], [labeled],
                               protocol.seed)[labeled][split]
    return train, S.hide_labels(data, train, lab)


def _time_rank(method: str, rank_data, conn) -> None:
    from threadpoolctl import threadpool_limits

    from frcli.rankers.registry import get_ranker

    ranker = get_ranker(method)
    # the studies' configs pin CLUS's tie rule and the papers' leaf size for the ensembles
    params = {"ties": "first"} if "ties" in ranker.param_spec() else {}
    if "min_leaf" in ranker.param_spec():
        params["min_leaf"] = "auto"
    with threadpool_limits(limits=1):
        t0 = time.perf_counter()
        ranker.rank(rank_data, params, seed=1, jobs=1)
        conn.send(time.perf_counter() - t0)


def _seconds(method: str, rank_data, cap: float | None) -> tuple[float, bool]:
    """Seconds of one ranking in a child process; (cap, True) if it was stopped at ``cap``."""
    import multiprocessing as mp

    recv, send = mp.Pipe(duplex=False)
    child = mp.get_context("fork").Process(target=_time_rank, args=(method, rank_data, send))
    child.start()
    done = recv.poll(cap)
    seconds = recv.recv() if done else float(cap)
    child.join(None if done else 0)
    if child.is_alive():
        child.kill()
        child.join()
    return seconds, not done


def measure(probe: Probe, path: Path) -> None:
    """Seconds of ``probe.method`` on each set, one core, unless ``path`` holds them (for
    the same sets and settings)."""
    old = load(path)
    if old is not None and [old.get(k) for k in KEYS] == probe.key():
        return
    from frcli.experiment.executor import load_spec
    from reproduce.framework import ConfigRef

    cfg = ConfigRef(probe.config).load()
    wanted = probe.key()[0]
    out = {}
    for d in sorted((d for d in cfg.datasets if d.name in wanted),
                    key=lambda d: wanted.index(d.name)):
        data, n_train = load_spec(d)
        train, rank_data = training_part(data, n_train, cfg.protocol, probe.split,
                                         probe.labeled)
        seconds, capped = _seconds(probe.method, rank_data, probe.cap)
        out[d.name] = {"seconds": seconds, "capped": capped, "rows": data.n_examples,
                       "features": data.n_features, "train": int(len(train))}
    path.write_text(json.dumps({**dict(zip(KEYS, probe.key())), "times": out}, indent=1),
                    encoding="utf-8")


def load(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def estimates(result: dict, runs, reference: str) -> dict[str, dict]:
    """Per measured set: its probe ``ratio`` to the reference and the estimated seconds of
    ranking and evaluation per (fold, L) (``per``) and for as many (fold, L) as the reference
    ran (``total``, ``n``); {} when the reference has no stored runs or was not timed."""
    t = result["times"]
    r = runs[runs["dataset"] == reference]
    if r.empty or reference not in t:
        return {}
    per = (r["rank_time_s"] + r["eval_time_s"]).groupby([r["split"], r["labeled"]]).sum()
    out = {}
    for name, m in t.items():
        ratio = m["seconds"] / t[reference]["seconds"]
        out[name] = {**m, "ratio": ratio, "per": ratio * per.mean(),
                     "total": ratio * per.mean() * len(per), "n": len(per)}
    return out
