"""MLC ensemble paper §6.1 (T:4895-4990): how many trees? For each of the 8 (score, ensemble)
pairs and each of the 15 measures, a Friedman test over the ensemble sizes 10-250 across the
data sets, Benjamini–Hochberg over the 120 tests; Nemenyi on ML F1 for the Symbolic pairs."""
from __future__ import annotations

import json

import numpy as np

from reproduce import analysis as A
from reproduce import md
from reproduce.framework import Study
from reproduce.studies import _subset
from reproduce.papers import paper
from reproduce.studies._labels import PAIR_LABELS, PAIRS, pair_label
from reproduce.studies.mlc_ensembles import SHORT
from reproduce.studies._rf_note import with_rf_note

SIZES = (10, 25, 50, 75, 100, 150, 200, 250)

SETS = None       # all 7 (3.7 min on one core, measured); a tuple runs a subset
CONFIG = _subset.ref("configs/mlc-saturation.yaml", SETS)


def size_label(method: str, params: str) -> str | None:
    parts = method.split("-")
    if len(parts) != 2 or method == "uniform":
        return "baseline" if method == "uniform" else None
    return f"{pair_label(parts[0], parts[1])}@{json.loads(params)['trees']}"


def figure(view, sets, name: str) -> str:
    """Mean ML F1 and pooled AUPRC over the sets against the number of trees, per pair."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4))
    for k, m in enumerate(("ml_f1", "pooled_auprc")):
        ax = fig.add_subplot(1, 2, k + 1)
        df = A.wide(view, m, size_label, rounding="none")
        for lab in PAIR_LABELS:
            ax.plot(SIZES, [df[f"{lab}@{n}"].mean() for n in SIZES], marker="o", ms=3,
                    label=lab)
        ax.axhline(df["baseline"].mean(), color="k", ls="--", lw=1, label="baseline")
        ax.set_xlabel("number of trees")
        ax.set_title(f"{SHORT[m]}, mean over {len(sets)} sets")
    ax.legend(fontsize=7, ncol=2)
    return A.save_png(fig, name, dpi=100)


def render(stores) -> str:
    P = paper("mlc")
    view = stores[_subset.store_name(CONFIG)]
    tables = {m: A.wide(view, m, size_label, rounding="3") for m in SHORT}
    sets = list(tables["ml_f1"].index)
    N = len(sets)
    ps, keys = [], []
    for (s, e), lab in zip(PAIRS, PAIR_LABELS):
        for m in SHORT:
            c = A.compare(tables[m], [f"{lab}@{n}" for n in SIZES], A.lower_is_better(m))
            ps.append(c.f_p)
            keys.append((lab, m))
    rej, _ = A.correct(ps, "bh")
    by_pair = {lab: [m for (l2, m), r in zip(keys, rej) if l2 == lab and r]
               for lab in PAIR_LABELS}
    rows = [[lab, f"{len(by_pair[lab])} of {len(SHORT)}",
             md.listing([SHORT[m] for m in by_pair[lab]]) if by_pair[lab] else "—",
             md.pval(min(p for (l2, _), p in zip(keys, ps) if l2 == lab))]
            for lab in PAIR_LABELS]
    nem = []
    for lab in ("Symb-RF", "Symb-Bag"):
        c = A.compare(tables["ml_f1"], [f"{lab}@{n}" for n in SIZES], False)
        o = np.argsort(c.avg_ranks, kind="stable")
        best = c.avg_ranks[o[0]]
        group = [c.methods[i].split("@")[1] for i in o if c.avg_ranks[i] - best <= c.nemenyi_cd]
        nem.append(f"* {lab}, ML F1: Friedman p = {md.pval(c.f_p)}; average ranks "
                   + ", ".join(f"{c.methods[i].split('@')[1]} trees {c.avg_ranks[i]:.2f}"
                               for i in o)
                   + f"; within the Nemenyi CD ({c.nemenyi_cd:.2f}) of the best: "
                   + md.listing(group) + " trees.")
    fig = figure(view, sets, "mlc-saturation")
    return with_rf_note("multi-label", [
        "## MLC paper: how many trees? (saturation, §6.1)",
        "",
        f"The paper grows each of the 8 (score, ensemble) pairs with "
        f"{md.listing([str(n) for n in SIZES])} trees and runs a Friedman test over the sizes "
        f"for each pair and measure ({P.fact('saturation_tests').value} tests, "
        f"Benjamini–Hochberg): {P.fact('saturation_rejections').value} reject — Symbolic-RF on "
        f"{P.fact('saturation_symbolic_rf').value} of 15 measures, Symbolic-Bagging on "
        f"{P.fact('saturation_symbolic_bagging').value}, the others hardly at all — and Nemenyi "
        f"on ML F1 puts the Symbolic forests with ≥ {P.fact('saturation_best_group').value} "
        f"trees in the best group; hence 10 trees, 50 for Symbolic-RF/-Bagging "
        f"({P.fact('saturation_tests').cite}). Ours: `configs/mlc-saturation.yaml` on {N} sets "
        f"({md.listing(sets)}); the n-tree forest is the first n trees of the largest, as if "
        f"grown alone. The large Mulan sets (corel5k, tmc2007, bibtex, delicious) are left out for "
        f"time." + _subset.note("configs/mlc-saturation.yaml", SETS,
                                "their bagging and ET forests of 250 trees try all features "
                                "per node: 5-10 min each on the shared 2-core machine",
                                "`SETS = None` in `reproduce/studies/mlc_saturation.py`")
        + f" With {N} sets instead of 24 a Friedman test over 8 sizes has little power.",
        "",
        md.code("python -m reproduce mlc-saturation --jobs 2"),
        "",
        f"Ours: {int(np.sum(rej))} of {len(ps)} tests reject after BH.",
        "",
        md.table(["pair", "measures where the size matters", "which", "smallest p"], rows,
                 "llll"),
        "",
        *nem,
        "",
        f"![mean ML F1 and pooled AUPRC against the number of trees]({fig})",
    ])


STUDY = Study(
    name="mlc-saturation",
    title="MLC paper: saturation 10-250 trees",
    configs=(CONFIG,),
    render=render,
    order=21,
    paper_sets="mlc:n_sets",
)
