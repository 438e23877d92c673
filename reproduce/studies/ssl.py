"""P-ML (thesis Ch. 6; spec-ssl-unsup §5.2, §6.2): semi-supervised rankings for STC, STR, MTR
and MLC, the paper's Tables 5 and 7-11 beside ours and each conclusion checked."""
from __future__ import annotations

from reproduce.framework import ConfigRef, Study
from reproduce.studies import ssl_classification as SC

REG_SETS = ["treasury"]
FOLDS = 3           # as the classification part (ssl_classification.FOLDS)
MLC_SETS = ["emotions"]


def _sets(path, names) -> list:
    import yaml

    from reproduce.framework import ROOT

    doc = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    return [d for d in doc["datasets"] if (d if isinstance(d, str) else d["name"]) in names]


REG = ConfigRef("configs/ssl.yaml", name="ssl-regression-subset",
                set={"datasets": _sets("configs/ssl.yaml", REG_SETS), "protocol": {"folds": FOLDS}})
MLC = ConfigRef("configs/ssl-mlc.yaml", name="ssl-mlc-subset",
                set={"datasets": _sets("configs/ssl-mlc.yaml", MLC_SETS)})


def render(stores) -> str:
    from reproduce.studies._ssl_render import render_pml

    return render_pml(stores, SC.RUN.name, REG.name, MLC.name)


STUDY = Study(name="ssl", title="P-ML (thesis Ch. 6): semi-supervised rankings for every task "
              "vs the paper's Tables 5 and 7-11", configs=(SC.RUN, REG, MLC), render=render,
              order=51)
