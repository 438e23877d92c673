"""P-ML (thesis Ch. 6; spec-ssl-unsup §5.2, §6.2): semi-supervised rankings for STC, STR, MTR,
MLC and HMLC, the paper's Tables 7-11 beside ours and each conclusion checked.

Runs that fit the shared 2-core machine: the STC part from the P-DS study's store (the same
runs, with the 40NN besides the 20NN); from configs/ssl.yaml (10 folds) the STR sets mortgage
and treasury (1049 rows, 15 features each) and the MTR set edm (154 rows); from
configs/ssl-mlc.yaml (the given split, one training file x 5 values of L) ``MLC_SETS``. Not
run here: pol and the other MLC/HMLC sets (``compute`` times one of their SSL forests against
a set that ran and the section states the cost this implies), atp1d (its three SSL forests
with the w tuning, 44 forests per ranking on 224 rows x 417 clustering attributes, took about
150 s each per (fold, L) on the loaded machine: about an hour with --jobs 2) and oes10; they
run with ``frcli experiment``."""
from __future__ import annotations

import json
import time

from reproduce.framework import Study
from reproduce.studies import _subset
from reproduce.studies import ssl_classification as SC

CONFIG = "configs/ssl.yaml"
SETS = ["mortgage", "treasury", "edm"]
REG = _subset.ref(CONFIG, SETS, suffix="subset")
# MLC/HMLC: the given split, one training file x 5 values of L per set
MLC_CONFIG = "configs/ssl-mlc.yaml"
MLC_SETS = ["emotions", "genbase", "pheno_FUN"]
MLC = _subset.ref(MLC_CONFIG, MLC_SETS, suffix="subset")

# The cost of the sets left out, measured against a set that ran: the SSL RF-score ranking
# (the cheapest SSL forest, with its w tuning, as configured) on one training part with L = 200
# labels, on the reference set (first) and each left-out one; the section scales the
# reference's measured cost per (fold, L) by the ratios
PROBES = {
    "pol-cost": {"config": CONFIG, "sets": ("mortgage", "pol"), "method": "rf-rf", "split": 0,
                 "labeled": 200},
    "mlc-cost": {"config": MLC_CONFIG, "method": "rf-rf", "split": 0, "labeled": 200,
                 "cap": 120,
                 "sets": (MLC_SETS[0],) + tuple(s for s in _subset.all_sets(MLC_CONFIG)
                                                if s not in MLC_SETS)},
}


def _probe_file(stores, name: str = "pol-cost"):
    return stores.work("ssl") / f"{name}.json"


def _training_part(data, n_train, protocol, split: int, labeled: int):
    """The rows a run of (split, L) ranks on, as the executor draws them (timing only: the
    given split's labelled rows are seeded from the protocol's seed alone)."""
    import numpy as np

    from frcli.data import splits as S

    if protocol.type == "given":
        train = np.arange(n_train)
        lab = S.thin_labels(train, [labeled], protocol.seed)[labeled]
    else:
        splits = S.kfold_splits(data.n_examples, protocol.folds, protocol.seed)
        train = splits[split][0]
        lab = S.thin_cv_labels([te for _, te in splits], [labeled],
                               protocol.seed)[labeled][split]
    return train, S.hide_labels(data, train, lab)


def _time_rank(method: str, rank_data, conn) -> None:
    from threadpoolctl import threadpool_limits

    from frcli.rankers.registry import get_ranker

    with threadpool_limits(limits=1):
        t0 = time.perf_counter()
        get_ranker(method).rank(rank_data, {}, seed=1, jobs=1)
        conn.send(time.perf_counter() - t0)


def compute(stores) -> None:
    """Seconds of each of ``PROBES`` on each of its sets, one core, once per code (kept in the
    study's work folder: timings are measurements, not results to recompute at every
    render). A ranking that runs longer than ``probe["cap"]`` seconds is stopped and recorded
    as a lower bound (``capped``)."""
    import multiprocessing as mp

    from frcli.experiment.executor import load_spec
    from reproduce.framework import ConfigRef

    for name, probe in PROBES.items():
        path = _probe_file(stores, name)
        if path.exists():
            continue
        cfg = ConfigRef(probe["config"]).load()
        out = {}
        for d in cfg.datasets:
            if d.name not in probe["sets"]:
                continue
            data, n_train = load_spec(d)
            train, rank_data = _training_part(data, n_train, cfg.protocol, probe["split"],
                                              probe["labeled"])
            recv, send = mp.Pipe(duplex=False)
            child = mp.get_context("fork").Process(
                target=_time_rank, args=(probe["method"], rank_data, send))
            child.start()
            cap = probe.get("cap")
            done = recv.poll(cap)
            seconds = recv.recv() if done else float(cap)
            child.join(None if done else 0)
            if child.is_alive():
                child.kill()
                child.join()
            out[d.name] = {"seconds": seconds, "capped": not done, "rows": data.n_examples,
                           "features": data.n_features, "train": int(len(train))}
        path.write_text(json.dumps({**probe, "sets": list(probe["sets"]), "times": out},
                                   indent=1), encoding="utf-8")


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pml

    probes = {}
    for name in PROBES:
        path = _probe_file(stores, name)
        probes[name] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    return render_pml(stores, SC.RUN.name, _subset.store_name(REG), _subset.store_name(MLC),
                      probe=probes["pol-cost"], mlc_probe=probes["mlc-cost"])


STUDY = Study(name="ssl", title="P-ML (thesis Ch. 6): semi-supervised rankings vs the paper's "
              "Tables 7-11", configs=(SC.RUN, REG, MLC), render=render,
              compute=compute, order=51)
