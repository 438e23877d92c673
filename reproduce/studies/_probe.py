"""What the data sets a study leaves out would cost (issue 12: say what is left, measured).

One ranking of one (fold, L) is timed on one core on a set the study runs (the reference) and
on each left-out set, with the training part and labels the runner would give it; the section
scales the reference's measured per-(fold, L) cost of its stored runs by the ratio. Timings
are measurements, not results: they are taken once per code and kept in the study's work
folder (``Stores.work``)."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Probe:
    config: str                 # the config whose protocol and data entries are used
    reference: str              # a set the study runs: its stored runs give the cost
    sets: tuple[str, ...]       # the left-out sets
    method: str = "rf-rf"       # the SSL RF score with its w tuning, the cheapest SSL forest
    split: int = 0
    labeled: int = 200


def measure(probe: Probe, path: Path) -> None:
    """Seconds of ``probe.method`` on each set, one core, unless ``path`` holds them (for
    the same sets and settings)."""
    wanted = (probe.reference, *probe.sets)
    old = load(path)
    if old is not None and [old.get(k) for k in ("sets", "method", "split", "labeled")] == [
            list(wanted), probe.method, probe.split, probe.labeled]:
        return
    from threadpoolctl import threadpool_limits

    from frcli.data import splits as S
    from frcli.experiment.executor import load_spec
    from frcli.rankers.registry import get_ranker
    from reproduce.framework import ConfigRef

    cfg = ConfigRef(probe.config).load()
    p = cfg.protocol
    out = {}
    with threadpool_limits(limits=1):
        for d in sorted((d for d in cfg.datasets if d.name in wanted),
                        key=lambda d: wanted.index(d.name)):
            data, _ = load_spec(d)
            # the runner's folds: stratified by the class where the protocol says so
            y = data.Y[:, 0] if data.task == "classification" and p.stratify else None
            splits = S.kfold_splits(data.n_examples, p.folds, p.seed, y)
            train = splits[probe.split][0]
            lab = S.thin_cv_labels([te for _, te in splits], [probe.labeled],
                                   p.seed)[probe.labeled][probe.split]
            rank_data = S.hide_labels(data, train, lab)
            t0 = time.perf_counter()
            get_ranker(probe.method).rank(rank_data, {}, seed=1, jobs=1)
            out[d.name] = {"seconds": time.perf_counter() - t0, "rows": data.n_examples,
                           "features": data.n_features, "train": int(len(train))}
    path.write_text(json.dumps({"sets": list(wanted), "method": probe.method,
                                "split": probe.split, "labeled": probe.labeled,
                                "times": out}, indent=1), encoding="utf-8")


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
