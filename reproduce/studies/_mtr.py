"""Shared by the MTR studies: data-set names and the paper's names of the rankings."""
from __future__ import annotations

import json

# catalog name → the row name of the MTR paper's tables (P0 Table 3 / Table 7)
# the canary paths of the MTR kNN evaluations on full training folds: what the compute steps
# that re-evaluate MTR rankings depend on (not the labelled-row SSL evaluations)
EVAL_PATHS = ("eval:mtr:plain:*", "eval:mtr:missing:*", "eval:mtr:ssl-*knn_train=full*")
PAPER_NAME = {"atp1d": "ATP1d", "atp7d": "ATP7d", "edm": "EDM", "enb": "ENB", "jura": "jura",
              "oes10": "OES10", "oes97": "OES97", "osales": "osales", "scpf": "scpf",
              "slump": "slump", "wq": "water quality"}

_SCORE = {"genie3": "Genie3", "symbolic": "Symb", "rf": "RF"}
_ENS = {"rf": "RF", "bagging": "Bag", "et": "ET"}


def label(method: str, params: str | dict) -> str:
    """The paper's name of a ranking: Genie3-RF-STR, Symb50-RF-MTR, It100Neigh15MTR, 5NN."""
    p = json.loads(params) if isinstance(params, str) else dict(params)
    if method == "uniform":
        return "5NN baseline"
    if method.startswith("relief"):
        it = p.get("iterations", 1.0)
        it = f"{100 * it:g}" if it <= 1 else f"{it:g}abs"
        s = f"It{it}Neigh{p.get('neighbours', 15)}"
        s += "STR" if method.endswith("-str") else "MTR"
        if p.get("sigma", 0):
            s += f"σ{p['sigma']:g}"
        return s
    parts = method.split("-")
    score, ens = _SCORE[parts[0]], parts[1]
    if parts[0] == "symbolic":
        score += f"{100 * float(p.get('symbolic_weight', 0.5)):g}"
    ens = {"rf": "RF", "bagging": "Bagging", "et": "ET"}[ens]
    return f"{score}-{ens}-{'STR' if method.endswith('-str') else 'MTR'}"
