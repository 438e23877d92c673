"""Names of the MLC/HMLC rankings in the generated tables: the 8 (score, ensemble) pairs of the
ensemble papers, the baseline and the Relief variant."""
from __future__ import annotations

PAIRS = (("symbolic", "rf"), ("symbolic", "bagging"), ("symbolic", "et"),
         ("genie3", "rf"), ("genie3", "bagging"), ("genie3", "et"),
         ("rf", "rf"), ("rf", "bagging"))
SCORE = {"symbolic": "Symb", "genie3": "G3", "rf": "RF"}
ENS = {"rf": "RF", "bagging": "Bag", "et": "ET"}
SCORE_LONG = {"symbolic": "Symbolic", "genie3": "Genie3", "rf": "RF score"}
ENS_LONG = {"rf": "RF", "bagging": "Bagging", "et": "ET"}


def pair_label(score: str, ens: str) -> str:
    return f"{SCORE[score]}-{ENS[ens]}"


PAIR_LABELS = tuple(pair_label(s, e) for s, e in PAIRS)


def ensemble_label(relief: str):
    """label(method, params) for MLC/HMLC stores: baseline, the pairs, ``relief``'s name."""
    def label(method: str, params: str) -> str | None:
        if method == "uniform":
            return "baseline"
        if method == "relief":
            return relief
        parts = method.split("-")
        if len(parts) == 2 and parts[0] in SCORE and parts[1] in ENS:
            return pair_label(parts[0], parts[1])
        return None
    return label
