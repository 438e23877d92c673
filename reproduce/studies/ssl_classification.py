"""P-DS (thesis Ch. 6, DS 2019; spec-ssl-unsup §5.1, §6.1): semi-supervised classification
rankings, the paper's Tables 2-4 beside ours and each conclusion checked. Also provides the
classification runs of the P-ML study (reproduce/studies/ssl.py)."""
from __future__ import annotations

from reproduce.framework import Study
from reproduce.studies import _probe, _subset

CONFIG = "configs/ssl-classification.yaml"
SETS = ["tic-tac-toe", "chess", "pageblocks"]

# The config's protocol, the paper's 10 folds; the other sets are left out for their cost
# (the section prints what each would take, measured by ``compute``)
RUN = _subset.ref(CONFIG, SETS, suffix="subset")

# what the left-out sets would cost, measured against chess (a set run here)
PROBE = _probe.Probe(CONFIG, reference="chess",
                     sets=tuple(s for s in _subset.all_sets(CONFIG) if s not in SETS))


def _probe_file(stores):
    return stores.work("ssl-classification") / "cost.json"


def compute(stores) -> None:
    _probe.measure(PROBE, _probe_file(stores))


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pds

    return render_pds(stores[_subset.store_name(RUN)], SETS,
                      probe=_probe.load(_probe_file(stores)))


STUDY = Study(name="ssl-classification", title="P-DS (thesis Ch. 6): semi-supervised "
              "classification rankings vs the paper's Tables 2-4", configs=(RUN,),
              render=render, compute=compute, order=50,
              compute_paths=(),      # the cost probe times rankings: no number of the stores
              paper_sets="p-ds:table3")
