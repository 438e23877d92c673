"""P-ML (thesis Ch. 6; spec-ssl-unsup §5.2, §6.2): semi-supervised rankings for STC, STR, MTR
and MLC, the paper's Tables 7, 8 and 11 beside ours and each conclusion checked.

This round's run covers the STC part only, from the P-DS study's store (the same runs, with
the 40NN besides the 20NN): the regression and multi-label configs (configs/ssl.yaml,
configs/ssl-mlc.yaml) run with ``frcli experiment``, but their SSL forests (the w tuning grows
44 forests per ranking) took 50-200 s per (fold, L) on treasury on the loaded shared machine,
hours for one set; the section says so."""
from __future__ import annotations

from reproduce.framework import Study
from reproduce.studies import ssl_classification as SC


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pml

    return render_pml(stores, SC.RUN.name)


STUDY = Study(name="ssl", title="P-ML (thesis Ch. 6): semi-supervised rankings vs the paper's "
              "Tables 7, 8 and 11 (STC part)", configs=(SC.RUN,), render=render, order=51)
