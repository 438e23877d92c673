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

from reproduce.framework import Study
from reproduce.studies import _probe, _subset
from reproduce.studies import ssl_classification as SC

CONFIG = "configs/ssl.yaml"
SETS = ["mortgage", "treasury", "edm"]
REG = _subset.ref(CONFIG, SETS, suffix="subset")

# what configs/ssl.yaml's left-out sets would cost, measured against mortgage (run here)
PROBE = _probe.Probe(CONFIG, reference="mortgage",
                     sets=tuple(s for s in _subset.all_sets(CONFIG) if s not in SETS))


def _probe_file(stores):
    return stores.work("ssl") / "cost.json"


def compute(stores) -> None:
    _probe.measure(PROBE, _probe_file(stores))


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pml

    return render_pml(stores, SC.RUN.name, _subset.store_name(REG),
                      probe=_probe.load(_probe_file(stores)))


STUDY = Study(name="ssl", title="P-ML (thesis Ch. 6): semi-supervised rankings vs the paper's "
              "Tables 7-11 (STC, STR and MTR part)", configs=(SC.RUN, REG), render=render,
              compute=compute, order=51)
