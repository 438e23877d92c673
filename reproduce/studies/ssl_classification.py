"""P-DS (thesis Ch. 6, DS 2019; spec-ssl-unsup §5.1, §6.1): semi-supervised classification
rankings, the paper's Tables 2-4 beside ours and each conclusion checked. Also provides the
classification runs of the P-ML study (reproduce/studies/ssl.py)."""
from __future__ import annotations

from reproduce.framework import Study
from reproduce.studies import _subset

CONFIG = "configs/ssl-classification.yaml"
SETS = ["tic-tac-toe"]

# The config's protocol, the paper's 10 folds (each SSL forest with its w tuning takes a few
# seconds per (fold, L) on tic-tac-toe); the other sets are left out for their cost (the
# section prints the measured times)
RUN = _subset.ref(CONFIG, SETS, suffix="subset")


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pds

    return render_pds(stores[_subset.store_name(RUN)], SETS)


STUDY = Study(name="ssl-classification", title="P-DS (thesis Ch. 6): semi-supervised "
              "classification rankings vs the paper's Tables 2-4", configs=(RUN,),
              render=render, order=50)
