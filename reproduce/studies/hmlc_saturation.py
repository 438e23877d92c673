"""HMLC paper §4.1 (T:5765-5800) and Fig. 5 (T:5921-5955): saturation of the ensemble rankings
in the number of trees (10-250), the HMLC-Relief m grid (1-100 %), and the quality against
the number of trees per ensemble and per score (the paper's Fig. 5 is on hom-ara-FUN, which is
not shared; ours is on our set with the most features)."""
from __future__ import annotations

import json

import numpy as np

from reproduce import analysis as A
from reproduce import md
from reproduce.framework import ConfigRef, Study
from reproduce.papers import paper
from reproduce.studies._labels import PAIR_LABELS, PAIRS, pair_label
from reproduce.studies._rf_note import with_rf_note

SIZES = (10, 25, 50, 75, 100, 150, 250)
ITER = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0)
MEASURE = "pooled_auprc"

SATURATION, RELIEF_M = "hmlc-saturation", "hmlc-relief-m"
CONFIGS = (ConfigRef("configs/hmlc-saturation.yaml"), ConfigRef("configs/hmlc-relief-m.yaml"))


def size_label(method: str, params: str) -> str | None:
    if method == "uniform":
        return "baseline"
    parts = method.split("-")
    if len(parts) != 2:
        return None
    return f"{pair_label(parts[0], parts[1])}@{json.loads(params)['trees']}"


def m_label(method: str, params: str) -> str | None:
    if method == "uniform":
        return "baseline"
    if method == "relief":
        return f"m={100 * json.loads(params)['iterations']:g}%"
    return None


def positive_shares(view, ds: str) -> dict[str, list[float]]:
    """Per score of the random forests: the share of features with a positive importance at
    each size (mean over the splits), the paper's "efficiency" (T:5967-5980)."""
    runs = view.runs
    out = {}
    for s in ("symbolic", "genie3", "rf"):
        m = f"{s}-rf"
        r = runs[(runs["dataset"] == ds) & (runs["method"] == m)]
        by = {}
        for row in r.itertuples():
            n = json.loads(row.params)["trees"]
            imp = view.importances(ds, row.split, m, row.params)[1]
            by.setdefault(n, []).append(A.share_positive(imp))
        out[s] = [float(np.mean(by[n])) for n in SIZES]
    return out


def fig5(df, shares, ds: str, name: str) -> str:
    """The paper's Fig. 5 (a: Symbolic by ensemble, b: random forests by score) on ``ds``,
    plus c: the share of features with a positive importance against the number of trees
    (the quantity the paper reads off Fig. 5b)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(15, 4))
    ax = fig.add_subplot(1, 3, 1)
    for e in ("rf", "bagging", "et"):
        lab = pair_label("symbolic", e)
        ax.plot(SIZES, [df.at[ds, f"{lab}@{n}"] for n in SIZES], marker="o", ms=3, label=lab)
    ax.axhline(df.at[ds, "baseline"], color="k", ls="--", lw=1, label="baseline")
    ax.set_xlabel("number of trees")
    ax.set_ylabel("AU(PRC-bar)")
    ax.set_title(f"(a) {ds}: Symbolic, by ensemble")
    ax.legend(fontsize=8)
    ax = fig.add_subplot(1, 3, 2)
    for s in ("symbolic", "genie3", "rf"):
        lab = pair_label(s, "rf")
        ax.plot(SIZES, [df.at[ds, f"{lab}@{n}"] for n in SIZES], marker="o", ms=3, label=lab)
    ax.axhline(df.at[ds, "baseline"], color="k", ls="--", lw=1, label="baseline")
    ax.set_xlabel("number of trees")
    ax.set_title(f"(b) {ds}: random forests, by score")
    ax.legend(fontsize=8)
    ax = fig.add_subplot(1, 3, 3)
    for s in ("symbolic", "genie3", "rf"):
        ax.plot(SIZES, [100 * v for v in shares[s]], marker="o", ms=3,
                label=pair_label(s, "rf"))
    ax.set_xlabel("number of trees")
    ax.set_ylabel("features with a positive importance (%)")
    ax.set_title(f"(c) {ds}: share of positive importances")
    ax.legend(fontsize=8)
    return A.save_png(fig, name, dpi=100)


def render(stores) -> str:
    P = paper("hmlc")
    view = stores[SATURATION]
    df = A.wide(view, MEASURE, size_label, rounding="3sig")
    sets = list(df.index)
    N = len(sets)
    rows = []
    for (s, e), lab in zip(PAIRS, PAIR_LABELS):
        c = A.compare(df, [f"{lab}@{n}" for n in SIZES], False)
        o = np.argsort(c.avg_ranks, kind="stable")
        rows.append([lab, md.pval(c.f_p),
                     ", ".join(f"{c.methods[i].split('@')[1]}" for i in o[:3]),
                     f"{c.avg_ranks.max() - c.avg_ranks.min():.2f}"])
    ps = [A.compare(df, [f"{lab}@{n}" for n in SIZES], False).f_p for lab in PAIR_LABELS]
    n_sig = sum(1 for p in ps if p <= 0.05)
    n_holm = int(np.sum(A.correct(ps, "holm")[0]))

    mview = stores[RELIEF_M]
    mdf = A.wide(mview, MEASURE, m_label, rounding="3sig")
    mcols = [f"m={100 * it:g}%" for it in ITER]
    mc = A.compare(mdf, mcols, False)
    spread = float(mc.avg_ranks.max() - mc.avg_ranks.min())
    # share of positive HMLC-Relief importances against m (the Table 3 mismatch)
    shares = {c: [] for c in mcols}
    runs = mview.runs
    for r in runs[runs["method"] == "relief"].itertuples():
        _, imp = mview.importances(r.dataset, r.split, r.method, r.params)
        shares[m_label(r.method, r.params)].append((r.dataset, A.share_positive(imp)))
    share_rows = []
    for d in mdf.index:
        share_rows.append([d] + [f"{100 * dict(shares[c])[d]:.0f}" for c in mcols])

    from frcli.data import catalog

    widest = max(sets, key=lambda d: catalog.load(d, "train").n_features)
    shares = positive_shares(view, widest)
    fig = fig5(df, shares, widest, "hmlc-fig5")
    nf = catalog.load(widest, "train").n_features

    def sh(sc: str) -> str:
        return f"{100 * shares[sc][0]:.0f} % at {SIZES[0]} and {100 * shares[sc][-1]:.0f} % " \
               f"at {SIZES[-1]} trees"
    eff = (f"The paper reads the rankings' efficiency (the share of features with a positive "
           f"importance) off Fig. 5b: of hom-ara-FUN's {P.fact('fig5_features').value} "
           f"features, Genie3 and Symbolic give weight to at most "
           f"{P.fact('fig5_share_g3_symbolic').value} % "
           f"({P.fact('fig5_share_g3_symbolic').cite}), the RF score to "
           f"{P.fact('fig5_share_rf').value} % ({P.fact('fig5_share_rf').cite}). Ours on "
           f"{widest} ({nf} features), random forests: Symbolic {sh('symbolic')}, Genie3 "
           f"{sh('genie3')}, RF score {sh('rf')} (panel c; mean over the splits). "
           + ("Symbolic and Genie3 give weight to the same features at every size, as the "
              "paper's equal Table 3 columns (one forest, only positive terms; T:5982-5985). "
              if shares["symbolic"] == shares["genie3"] else "")
           + ("As in the paper, the RF score is the most efficient at every size."
              if all(shares["rf"][i] < min(shares["symbolic"][i], shares["genie3"][i])
                     for i in range(len(SIZES))) else
              "Unlike the paper, the RF score is not the most efficient at every size."))
    mr = ", ".join(f"{mc.methods[i]} {mc.avg_ranks[i]:.2f}"
                   for i in np.argsort(mc.avg_ranks, kind="stable"))
    return with_rf_note("hierarchical multi-label", [
        "## HMLC paper: saturation, the m grid and Fig. 5",
        "",
        f"The paper grows the 8 pairs with {md.listing([str(n) for n in SIZES])} trees and "
        f"finds no Friedman test over the sizes below {P.fact('saturation').value} "
        f"({P.fact('saturation').cite}), so 10 trees; and HMLC-Relief's m = 1–100 % do not "
        f"differ (p = {P.fact('relief_m_p').value}, average ranks within "
        f"{P.fact('relief_m_spread').value}; {P.fact('relief_m_p').cite}), so m = 1 %. Ours: "
        f"`configs/hmlc-saturation.yaml` (nested forests: the n-tree forest is the first n "
        f"trees of the largest) and `configs/hmlc-relief-m.yaml` on {N} shared sets.",
        "",
        md.code("python -m reproduce hmlc-saturation --jobs 2"),
        "",
        f"Friedman over the {len(SIZES)} sizes, per pair (AU(PRC-bar), 3 significant digits, "
        f"{N} data sets): {n_sig} of 8 reject at 0.05, {n_holm} after Holm's correction over "
        f"the 8 pairs.",
        "",
        md.table(["pair", "p", "three best sizes", "spread of average ranks"], rows, "lrll"),
        "",
        f"HMLC-Relief over m: Friedman p = {md.pval(mc.f_p)}; average ranks {mr} "
        f"(spread {spread:.2f}). The share of features with a positive HMLC-Relief importance "
        f"(%, the quantity of the paper's Table 3) against m:",
        "",
        md.table(["data set", *mcols], share_rows),
        "",
        f"The paper's Fig. 5 plots the quality against the number of trees on hom-ara-FUN "
        f"({P.fact('fig5_features').value} features; {P.fact('fig5_features').cite}), which "
        f"is not shared. The same plot for our set with the most features, {widest} (panel a "
        f"without the paper's \"Extra Trees, all\" curve: ET with all features is not in "
        f"`configs/hmlc-saturation.yaml`, which follows the paper's study grid):",
        "",
        f"![quality against the number of trees, {widest}]({fig})",
        "",
        eff,
    ])


STUDY = Study(
    name="hmlc-saturation",
    title="HMLC paper: saturation 10-250 trees, HMLC-Relief m grid, Fig. 5",
    configs=CONFIGS,
    render=render,
    paper_sets="hmlc:n_sets",
    order=31)
