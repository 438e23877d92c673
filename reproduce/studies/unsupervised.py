"""P-UNS (thesis Ch. 7; spec-ssl-unsup §5.3, §6.3): unsupervised feature ranking, our
rankings beside the paper's Tables 2 and 3, and each conclusion of §6.3 checked.

The section runs configs/unsupervised.yaml as it is (all 14 shared sets, 10 folds; its run
time with --jobs 2 is measured by ``bench/puns_study.py``, docs/benchmarks.md), plus a URelief
parameter grid (one pass of Relief per fold) on the same sets for the parameter conclusion."""
from __future__ import annotations

import numpy as np
import pandas as pd

from reproduce import md
from reproduce import verdict as V
from reproduce.framework import ConfigRef, Study
from reproduce.papers import paper
from reproduce.studies._rf_note import with_rf_note

TEXT = ("BASEHOCK", "PCMAC", "RELATHE")
CONFIG = "configs/unsupervised.yaml"


def _all_sets():
    from frcli.experiment.config import load_config
    from reproduce.framework import ROOT

    return load_config(ROOT / CONFIG).datasets


RUN = ConfigRef(CONFIG)
# the URelief grid runs on every set of the config, like the main run (one pass of Relief
# gives all 30 (m, k) rankings: seconds per fold even on the text sets)
GRID = ConfigRef(CONFIG, name="unsupervised-urelief-grid", set={
    "rankers": [{"method": "relief", "params": {
        "iterations": [0.1, 0.25, 0.5, 0.75, 1.0], "neighbours": [5, 10, 15, 20, 30, 40]}}],
    "evaluation": {"curve": None}})

NAMES = {"genie3-et": "Genie3", "rf-et": "RF score", "relief": "URelief",
         "laplacian": "Laplace", "spec": "SPEC", "mcfs": "MCFS", "ndfs": "NDFS",
         "uniform": "first 16",
         "random": "random"}


def classes(view) -> dict[str, int]:
    """Data set -> number of classes (MCFS's and NDFS's clusters in the paper), from each
    file's class
    attribute."""
    from frcli.data.arff import read_arff

    out = {}
    for d in view.config.datasets:
        table = read_arff(d.path[0])
        attr = next(a for a in table.attributes if a.name == "class")
        out[d.name] = len(attr.values)
    return out


def mse_table(view, label) -> pd.DataFrame:
    """data set x label(dataset, method, params) (None drops the run): the 1NN reconstruction
    MSE averaged over test rows, folds weighted by size (A24)."""
    f = view.frame
    f = f[f["measure"] == "reconstruction_mse"]
    runs = view.runs[["dataset", "split", "method", "params", "n_test"]]
    f = f.merge(runs, on=["dataset", "split", "method", "params"])
    f = f.assign(name=[label(d, m, p) for d, m, p in zip(f["dataset"], f["method"],
                                                          f["params"])])
    f = f[f["name"].notna()]
    f = f.assign(w=f["value"] * f["n_test"])
    g = f.groupby(["dataset", "name"])
    return (g["w"].sum() / g["n_test"].sum()).unstack("name")


def _table(view) -> pd.DataFrame:
    """data set x method: MSE averaged over test rows (folds weighted by size, A24); MCFS and
    NDFS with the data set's number of classes."""
    n_classes = classes(view)

    def label(dataset, method, params):
        if method in ("mcfs", "ndfs") and md.params(params).get("clusters") != \
                n_classes[dataset]:
            return None
        return NAMES[method]

    return mse_table(view, label)


def _fmt(x: float) -> str:
    return md.f3(x) if abs(x) < 100 else f"{x:.1f}"


def render(stores) -> str:
    from frcli.stats.tests import compare, wilcoxon_pair

    P = paper("p-uns")
    t2, t3 = P.table("table2"), P.table("table3")
    view = stores[RUN.load().name]
    W = _table(view)
    sets = list(W.index)
    out = ["## Unsupervised feature ranking (P-UNS, thesis Ch. 7)", ""]
    others = [d.name for d in _all_sets() if d.name not in sets]
    forest = view.runs[view.runs["method"].isin(["rf-et", "genie3-et"])]
    forest_s = float(forest.groupby(["dataset", "split"])["rank_time_s"].sum().mean())
    out += [
        "`configs/unsupervised.yaml`: 10-fold CV, each ranking's top 16 features drive a 1NN "
        "(min-max scaled with the training fold's ranges) that predicts the whole raw "
        "feature vector; MSE over all features and test rows (spec-ssl-unsup A24), folds "
        "weighted by size. Genie3 and the RF score come from one forest of 100 fully grown, "
        "bootstrapped extra trees with ⌈log2 F⌉ features per node, URelief uses K = 30 and "
        "all rows (the paper's settings, now the defaults for unsupervised data); Laplace, "
        "SPEC, MCFS and NDFS are frcli's implementations (`frcli/engines/spectral.py`, "
        "`frcli/engines/ndfs.py`: kNN graphs with 5 neighbours, heat-kernel/RBF widths from "
        "the data, features range-scaled; NDFS with scikit-feature's α = β = 1 and "
        "γ = 10^8; MCFS and NDFS with the data set's number of classes as in the paper). "
        "`first 16` is the "
        "non-informed ranking (`uniform`: the first 16 columns), `random` a random one.", "",
        f"Data: {len(sets)} of the paper's 26 sets ({md.listing(sets)}), all 10 folds: "
        + ("every set that `../shared/datasets/mcc` holds. " if not others else
           "`../shared/datasets/mcc` holds 14 of the 26; the other "
           f"{md.listing(others)} are in the config but not in this run (the forest, Genie3 "
           f"and the RF score, took {forest_s:.0f} s per fold on average here). ")
        + "`python bench/puns_study.py` measures the whole study's run time "
        "(docs/benchmarks.md, Semi-supervised and unsupervised).", ""]

    # ---- Table 2: Genie3 vs RF score ------------------------------------------------------
    rows = []
    for d in sets:
        p = t2.get(d, {})
        rows.append([d, _fmt(p.get("genie3", float("nan"))) if p else "–",
                     _fmt(W.loc[d, "Genie3"]), _fmt(p.get("rf", float("nan"))) if p else "–",
                     _fmt(W.loc[d, "RF score"])])
    w = wilcoxon_pair(W["Genie3"].to_numpy(), W["RF score"].to_numpy(), lower_is_better=True)
    g_wins = int((W["Genie3"] < W["RF score"]).sum())
    out += ["### Genie3 or the RF score (paper's Table 2)", "",
            f"MSE of the 1NN on the top 16 features (paper: {P.table_cite('table2')}); lower "
            "is better.", "",
            md.table(["data set", "Genie3 (paper)", "Genie3 (ours)", "RF score (paper)",
                      "RF score (ours)"], rows), "",
            f"Genie3 is better on {g_wins} of {len(sets)} sets; Wilcoxon signed-rank "
            f"p = {md.pval(w.p_value)} (paper: p = {P.fact('wilcoxon_p').value} over 26 "
            f"sets, {P.fact('wilcoxon_p').cite}).", ""]
    ratio = [W.loc[d, "Genie3"] / t2[d]["genie3"] for d in sets if d in t2]
    if ratio:
        out += [f"Our errors are {min(ratio):.2f} to {max(ratio):.2f} times the paper's "
                "(Genie3), not one common factor: the paper does not say on which scale the "
                "reconstructed features are compared (A24: raw values here), so only the "
                "order of the methods within a set carries over; the tests below use ranks "
                "within each set.", ""]

    # ---- Table 3: against the baselines -----------------------------------------------------
    cols = ["Genie3", "URelief", "Laplace", "SPEC", "MCFS", "NDFS"]
    pcols = {"Genie3": "genie3", "URelief": "urelief", "Laplace": "laplace", "SPEC": "spec",
             "MCFS": "mcfs", "NDFS": "ndfs"}
    rows = []
    for d in sets:
        p = t3.get(d, {})
        row = [d]
        for c in cols:
            row += [_fmt(p[pcols[c]]) if p else "–", _fmt(W.loc[d, c])]
        row += [_fmt(W.loc[d, "first 16"]), _fmt(W.loc[d, "random"])]
        rows.append(row)
    header = ["data set"] + [f"{c} ({s})" for c in cols for s in ("paper", "ours")] + \
        ["first 16", "random"]
    comp = compare(W[cols].to_numpy(), cols, sets, lower_is_better=True)
    paper_sets = [d for d in sets if d in t3]
    pv = np.array([[t3[d][pcols[c]] for c in cols] for d in paper_sets])
    pcomp = compare(pv, cols, paper_sets, lower_is_better=True)
    paper_ranks = P.fact("avg_ranks").value       # Genie3, URelief, Laplace, SPEC, MCFS, NDFS
    out += ["### Against the baselines (paper's Table 3)", "",
            f"Paper: {P.table_cite('table3')}; the AgnoS-S column is not reproduced (below).",
            "", md.table(header, rows), "",
            md.table(["method", "average rank (ours)", "paper, same sets", "paper, 26 sets"],
                     [[c, f"{comp.avg_ranks[i]:.2f}", f"{pcomp.avg_ranks[i]:.2f}",
                       f"{paper_ranks[i]:.2f}"] for i, c in enumerate(cols)]), "",
            f"Friedman (Iman–Davenport) p = {md.pval(comp.friedman.f_p)}; Nemenyi CD = "
            f"{comp.nemenyi_cd:.2f} for {len(cols)} methods over {len(sets)} sets (paper: "
            f"CD = {P.fact('nemenyi_cd').value} for 7 methods over 26 sets, "
            f"{P.fact('nemenyi_cd').cite}). Groups without significant differences: "
            + "; ".join("{" + ", ".join(cols[comp.order[i]] for i in range(a, b + 1)) + "}"
                        for a, b in comp.groups) + ".", ""]

    # ---- the conclusions -------------------------------------------------------------------
    order = [cols[i] for i in np.argsort(comp.avg_ranks, kind="stable")]
    g_vs = {c: next(p for p in comp.pairs if {p["a"], p["b"]} == {"Genie3", c})
            for c in cols[1:]}
    grid = _urelief_grid(stores[GRID.name])
    tie_sets = [d for d in sets if d in t3 and len({t3[d][k] for k in
                                                    ("laplace", "spec", "mcfs")}) == 1]
    tie_rows = [[d, _fmt(t3[d]["laplace"]), _fmt(W.loc[d, "first 16"]),
                 _fmt(W.loc[d, "Laplace"])] for d in tie_sets]
    paper_avg = dict(zip(["Genie3", "URelief", "Laplace", "SPEC", "MCFS", "NDFS"],
                         P.fact("avg_ranks").value))
    ours_avg = {c: float(comp.avg_ranks[i]) for i, c in enumerate(cols)}
    g_losses = int((W["Genie3"] > W["RF score"]).sum())

    def nemenyi_part(c: str) -> bool | None:     # Genie3 significantly ahead of c
        ahead = V.order(ours_avg["Genie3"], ours_avg[c], higher=False)
        return ahead and bool(g_vs[c]["nemenyi_significant"])

    out += ["### The paper's conclusions (spec-ssl-unsup §6.3)", "",
            md.table(["conclusion (paper)", "here", "verdict"], [
                [f"Genie3 beats the RF score (Wilcoxon p = {P.fact('wilcoxon_p').value})",
                 f"Genie3 better on {g_wins}/{len(sets)}, p = {md.pval(w.p_value)}",
                 V.combine([V.order(g_wins, g_losses), V.significant(w.p_value)])],
                [f"Genie3 has the best average rank ({P.fact('avg_ranks').value[0]:.2f})",
                 f"best: {order[0]} ({comp.avg_ranks[cols.index(order[0])]:.2f}); Genie3 "
                 f"{comp.avg_ranks[0]:.2f}",
                 V.verdict(V.extreme(ours_avg, "Genie3", best=True, higher=False,
                                     paper=paper_avg))],
                ["Genie3 is significantly better than Laplace, SPEC, MCFS (Nemenyi)",
                 ", ".join(f"{c}: {'yes' if nemenyi_part(c) else 'no'}"
                           for c in ("Laplace", "SPEC", "MCFS")),
                 V.combine(nemenyi_part(c) for c in ("Laplace", "SPEC", "MCFS"))],
                ["URelief improves with more iterations and larger K",
                 grid["summary"], V.combine(grid["parts"])],
                ["all curves end at the same point (all features)",
                 _curve_ends(view, sets) + " (by construction)",
                 V.verdict(_curve_spread(view, sets) < 1e-12)],
            ]), ""]
    out += ["URelief over iterations (rows, share of the rows) and K (columns): average "
            "rank over the data sets of the 1NN MSE on its top 16 (1 = best).", "",
            grid["table"], ""]
    out += ["**Why several baselines share a value in the paper.** Laplace, SPEC, MCFS and "
            "NDFS print identical MSEs on " + md.listing(tie_sets or ["none of our sets"])
            + " (and on ORL, warpPIE10P and Yale): identical rankings, as when every "
            "score ties and the first 16 columns are kept. scikit-feature's defaults build "
            "heat-kernel (t = 1) or RBF (γ = 1) graphs on the raw values, whose weights "
            "underflow to 0 on data of this scale, which makes all scores equal. On these "
            "sets our `first 16` ranking gives:", "",
            md.table(["data set", "paper (Laplace = SPEC = MCFS)", "first 16 (ours)",
                      "Laplace (ours, scaled graph)"], tie_rows), ""]
    ad, ast = P.claim("agnos_definition"), P.claim("agnos_settings")
    out += [f"**Not reproduced: AgnoS-S.** What the thesis defines: an autoencoder with "
            f"per-feature slack variables in its loss, the middle layer as wide as the data's "
            f"estimated intrinsic dimension ({ad.cite}); for everything else \"{ast.value}\" "
            f"({ast.cite}). Missing from the sources here, so not implementable as the paper "
            "ran it: the number and widths of the other layers, the activations, the slack "
            "penalty's form and weight, the optimiser, its learning rate, the epochs and batch "
            "size, the initialisation, and which intrinsic-dimension estimator. It would also "
            "need a neural-network library with custom losses (PyTorch or similar), outside "
            "frcli's dependencies; a network with guessed settings would not be AgnoS-S, so "
            "its column is the paper's only. The ensemble parameter study (n′ in {log2 F, √F, "
            "F} for ET and RF) and its conclusions are the next section (`python -m reproduce "
            "unsupervised-params`); the error curves (Fig. 5) follow it.", ""]
    out += ["Ranking time per fold, mean over the sets (s): " + ", ".join(
        f"{NAMES.get(m, m)} {t:.2g}" for m, t in
        view.runs.groupby("method")["rank_time_s"].mean().sort_values().items())
        + ". <!-- volatile -->", ""]
    return with_rf_note("unsupervised", out)


def _urelief_grid(view) -> dict:
    f = view.frame
    f = f[f["measure"] == "reconstruction_mse"]
    f = f.assign(**{k: [md.params(p)[k] for p in f["params"]] for k in ("iterations",
                                                                        "neighbours")})
    m = f.groupby(["dataset", "iterations", "neighbours"])["value"].mean().unstack("dataset")
    ranks = m.rank(axis=0).mean(axis=1).unstack("neighbours")
    its = sorted(ranks.index)
    ks = sorted(ranks.columns)
    table = md.table(["iterations"] + [f"K = {k}" for k in ks],
                     [[f"{i:g}"] + [f"{ranks.loc[i, k]:.2f}" for k in ks] for i in its])
    best = ranks.stack().idxmin()
    # every step of the grid is a part (reproduce/verdict.py): more iterations at each K,
    # larger K at each share of the rows; a lower average rank is better
    by_i = [p for k in ks for p in V.trend([ranks.loc[i, k] for i in its], increasing=False)]
    by_k = [p for i in its for p in V.trend([ranks.loc[i, k] for k in ks], increasing=False)]
    summary = (f"best (iterations, K) = ({best[0]:g}, {best[1]}); more iterations better in "
               f"{sum(p is True for p in by_i)} of {len(by_i)} steps, larger K in "
               f"{sum(p is True for p in by_k)} of {len(by_k)} steps")
    return {"table": table, "summary": summary, "parts": by_i + by_k}


def _curve_spread(view, sets) -> float:
    """Largest spread, over the sets, of the methods' MSE with all features."""
    f = view.frame
    last = []
    for d in sets:
        sub = f[(f["dataset"] == d) & f["measure"].str.startswith("reconstruction_mse@")]
        top = sub["measure"].str.split("@").str[1].astype(int).max()
        vals = sub[sub["measure"] == f"reconstruction_mse@{top}"].groupby("method")["value"]
        last.append(float(vals.mean().max() - vals.mean().min()))
    return max(last)


def _curve_ends(view, sets) -> str:
    return f"largest spread at F over the sets: {_curve_spread(view, sets):.2g}"


STUDY = Study(name="unsupervised", title="P-UNS (thesis Ch. 7): unsupervised rankings vs the "
              "paper's Tables 2 and 3", configs=(RUN, GRID), render=render, order=60,
              paper_sets="p-uns:table2")
