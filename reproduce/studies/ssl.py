"""P-ML (thesis Ch. 6; spec-ssl-unsup §5.2, §6.2): semi-supervised rankings for STC, STR, MTR
and MLC, the paper's Tables 7-11 beside ours and each conclusion checked.

Runs that fit the shared 2-core machine, all with the configs' 10 folds: the STC part from the
P-DS study's store (the same runs, with the 40NN besides the 20NN), and from configs/ssl.yaml
the STR sets mortgage and treasury (1049 rows, 15 features each) and the MTR set edm (154
rows). Not run here: pol (15000 rows, 48 features; ``compute`` times one of its SSL forests
against mortgage's and the section states the cost this implies), atp1d (its three SSL
forests with the w tuning, 44 forests per ranking on 224 rows x 417 clustering attributes,
took about 150 s each per (fold, L) on the loaded machine: about an hour with --jobs 2),
oes10 and configs/ssl-mlc.yaml; they run with ``frcli experiment``."""
from __future__ import annotations

import json
import time

from reproduce.framework import Study
from reproduce.studies import _subset
from reproduce.studies import ssl_classification as SC

CONFIG = "configs/ssl.yaml"
SETS = ["mortgage", "treasury", "edm"]
REG = _subset.ref(CONFIG, SETS, suffix="subset")

# pol's cost, measured against mortgage's: the SSL RF-score ranking (the cheapest SSL forest,
# with its w tuning, as configured) on training fold 0 with L = 200 labels
PROBE = {"sets": ("mortgage", "pol"), "method": "rf-rf", "split": 0, "labeled": 200}


def _probe_file(stores):
    return stores.work("ssl") / "pol-cost.json"


def compute(stores) -> None:
    """Seconds of ``PROBE`` on each of its sets, one core, once per code (kept in the study's
    work folder: timings are measurements, not results to recompute at every render)."""
    path = _probe_file(stores)
    if path.exists():
        return
    from threadpoolctl import threadpool_limits

    from frcli.data import splits as S
    from frcli.experiment.executor import load_spec
    from frcli.rankers.registry import get_ranker
    from reproduce.framework import ConfigRef

    cfg = ConfigRef(CONFIG).load()
    p = cfg.protocol
    out = {}
    with threadpool_limits(limits=1):
        for d in cfg.datasets:
            if d.name not in PROBE["sets"]:
                continue
            data, _ = load_spec(d)
            splits = S.kfold_splits(data.n_examples, p.folds, p.seed)
            train = splits[PROBE["split"]][0]
            lab = S.thin_cv_labels([te for _, te in splits], [PROBE["labeled"]],
                                   p.seed)[PROBE["labeled"]][PROBE["split"]]
            rank_data = S.hide_labels(data, train, lab)
            t0 = time.perf_counter()
            get_ranker(PROBE["method"]).rank(rank_data, {}, seed=1, jobs=1)
            out[d.name] = {"seconds": time.perf_counter() - t0, "rows": data.n_examples,
                           "features": data.n_features, "train": int(len(train))}
    path.write_text(json.dumps({**PROBE, "sets": list(PROBE["sets"]), "times": out},
                               indent=1), encoding="utf-8")


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pml

    path = _probe_file(stores)
    probe = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    return render_pml(stores, SC.RUN.name, _subset.store_name(REG), probe=probe)


STUDY = Study(name="ssl", title="P-ML (thesis Ch. 6): semi-supervised rankings vs the paper's "
              "Tables 7-11 (STC, STR and MTR part)", configs=(SC.RUN, REG), render=render,
              compute=compute, order=51)
