"""P-ML (thesis Ch. 6; spec-ssl-unsup §5.2, §6.2): semi-supervised rankings for STC, STR, MTR,
MLC and HMLC, the paper's Tables 7-11 beside ours and each conclusion checked.

Runs that fit the shared 2-core machine: the STC part from the P-DS study's store (the same
runs, with the 40NN besides the 20NN); from configs/ssl.yaml (10 folds) the STR sets mortgage
and treasury (1049 rows, 15 features each) and the MTR set edm (154 rows); from
configs/ssl-mlc.yaml (the given split, one training file x 5 values of L) ``MLC_SETS``. Not
run here: the configs' other sets (pol, atp1d, oes10 and the other MLC/HMLC sets; ``compute``
times one of their SSL forests against a set that ran and the section states the cost this
implies); they run with ``frcli experiment``."""
from __future__ import annotations

from reproduce.framework import Study
from reproduce.studies import _probe, _subset
from reproduce.studies import ssl_classification as SC

CONFIG = "configs/ssl.yaml"
SETS = ["mortgage", "treasury", "edm"]
REG = _subset.ref(CONFIG, SETS, suffix="subset")
# MLC/HMLC: the given split, one training file x 5 values of L per set
MLC_CONFIG = "configs/ssl-mlc.yaml"
MLC_SETS = ["emotions", "genbase", "pheno_FUN", "birds"]
MLC = _subset.ref(MLC_CONFIG, MLC_SETS, suffix="subset")

# What the left-out sets would cost, measured against a set that ran (reproduce/studies/
# _probe.py): configs/ssl.yaml's against mortgage, configs/ssl-mlc.yaml's against emotions (a
# ranking still running after 120 s is stopped: their bagging forests grow with thousands of
# features)
PROBES = {
    "reg-cost": _probe.Probe(CONFIG, reference="mortgage",
                             sets=tuple(s for s in _subset.all_sets(CONFIG) if s not in SETS)),
    "mlc-cost": _probe.Probe(MLC_CONFIG, reference=MLC_SETS[0], cap=120,
                             sets=tuple(s for s in _subset.all_sets(MLC_CONFIG)
                                        if s not in MLC_SETS)),
}


def _probe_file(stores, name: str):
    return stores.work("ssl") / f"{name}.json"


def compute(stores) -> None:
    for name, probe in PROBES.items():
        _probe.measure(probe, _probe_file(stores, name))


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pml

    probes = {name: _probe.load(_probe_file(stores, name)) for name in PROBES}
    return render_pml(stores, SC.RUN.name, _subset.store_name(REG), _subset.store_name(MLC),
                      probe=probes["reg-cost"], mlc_probe=probes["mlc-cost"])


STUDY = Study(name="ssl", title="P-ML (thesis Ch. 6): semi-supervised rankings vs the paper's "
              "Tables 7-11", configs=(SC.RUN, REG, MLC), render=render,
              compute=compute, order=51,
              compute_paths=())      # the cost probes time rankings: no number of the stores
