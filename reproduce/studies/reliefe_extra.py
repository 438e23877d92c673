"""ReliefE paper: the FUJI study (Figs. 11-12), ReliefE's time by phase (embedding, dimension
estimate, Relief; its Appendix 5), and the ablations (embedding, absMean, adaptive k, PrMS),
from the reliefe study's stores plus one ablation run: ReliefE-absMean-adaptive without PrMS
(``sparsify = 1``: the embedding is fitted on the dense subset), on the reliefe study's
multi-class subset (measured: seconds per ranking, the logistic regressions of the top-f
evaluation dominate)."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from reproduce import analysis as A
from reproduce import md
from reproduce import verdict as V
from reproduce.framework import ConfigRef, Study
from reproduce.papers import paper
from reproduce.studies.reliefe import SUBSET, _volatile, mcc_name, mlc_name

NO_PRMS = ConfigRef("configs/reliefe-mcc.yaml", name="reliefe-mcc-subset-noprms", set={
    **SUBSET["mcc"].set,
    "rankers": [{"method": "reliefe", "params": {"update": "absmean", "neighbours": "auto",
                                                 "sparsify": 1.0}}]})
# the time phases of a ReliefE ranking (the ranker's meta, seconds)
PHASES = (("dimension estimate", ("input_embedding", "dimension_s")),
          ("PrMS", ("input_embedding", "prms_s")),
          ("embedding (UMAP)", ("input_embedding", "umap_s")),
          ("Relief weights", ("timings", "weights_s")),
          ("other (preparation)", ("timings", "prepare_s")))


def _metas(view, method: str) -> pd.DataFrame:
    """One row per current run of ``method`` in ``view``: dataset, split, method, params, meta
    (dict); read through the view, so a persisted store (which keeps the meta of the runs a
    render reads) serves as well as a working one."""
    rows = [(r.dataset, int(r.split), r.method, r.params,
             view.meta(r.dataset, int(r.split), r.method, r.params, 0) or {})
            for r in view.runs.itertuples() if r.method == method]
    return pd.DataFrame(rows, columns=["dataset", "split", "method", "params", "meta"])


def _labelled(view, namer) -> pd.DataFrame:
    f = view.frame.copy()
    f["label"] = [namer(m, md.params(p)) for m, p in zip(f["method"], f["params"])]
    return f


def fuji(view, namer, title: str, name: str) -> tuple[str, np.ndarray, list[str]]:
    from frcli.stats.fuji import aufuji_matrix, heatmap_figure

    import matplotlib.pyplot as plt

    f = _labelled(view, namer)
    au = f[f["measure"] == "aurf1"].groupby("label")["value"].mean().sort_values(
        ascending=False)
    labels = list(au.index)
    m = aufuji_matrix(f, labels, sorted(f["dataset"].unique()))
    fig = heatmap_figure(m, labels, title)
    link = A.save_png(fig, name, dpi=90)
    plt.close(fig)
    return link, m, labels


def _block(m: np.ndarray, labels: list[str], inside) -> tuple[float, float]:
    """Mean AUFUJI within the labels ``inside`` selects and between them and the others."""
    idx = [i for i, lab in enumerate(labels) if inside(lab)]
    out = [i for i in range(len(labels)) if i not in idx]
    within = [m[i, j] for a, i in enumerate(idx) for j in idx[a + 1:]]
    between = [m[i, j] for i in idx for j in out]
    return float(np.nanmean(within)) if within else float("nan"), \
        float(np.nanmean(between)) if between else float("nan")


def phases(view) -> tuple[list[list[str]], dict, dict]:
    """Rows: ReliefE variant, median seconds per phase over the data sets' runs (the first
    run of a process also compiles UMAP's kernels, hence medians); the intrinsic dimensions
    estimated per data set; {variant: {phase: median seconds}}."""
    mt = _metas(view, "reliefe")
    rows, dims, secs = [], {}, {}
    for p, part in mt.groupby("params", sort=True):
        name = mcc_name("reliefe", md.params(p))
        vals = {}
        for ph, (a, b) in PHASES:
            vals[ph] = float(np.median([x.get(a, {}).get(b, np.nan) for x in part["meta"]]))
        tot = sum(v for v in vals.values() if not math.isnan(v))
        secs[name] = vals
        rows.append([name] + [f"{vals[ph]:.3g} ({100 * vals[ph] / tot:.0f} %)"
                              for ph, _ in PHASES])
        for d, x in zip(part["dataset"], part["meta"]):
            dims.setdefault(d, set()).add(x.get("input_embedding", {}).get("dimension"))
    return (sorted(rows), {d: sorted(v for v in s if v is not None) for d, s in dims.items()},
            secs)


def _paired(f: pd.DataFrame, a: str, b: str) -> tuple[list[bool | None], list[str]]:
    """Per data set: is the per-fold paired AUrF1 difference of a and b within its 95 %
    t-interval of 0 (no detectable difference)?; and a text per set."""
    from scipy.stats import t

    g = f[f["measure"] == "aurf1"].pivot_table(index=["dataset", "split"], columns="label",
                                               values="value")
    parts, text = [], []
    for d, part in g.groupby(level=0):
        if a not in part or b not in part:
            continue
        x = (part[a] - part[b]).dropna().to_numpy()
        if x.size < 2:
            parts.append(None)
            continue
        half = float(t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
        parts.append(bool(abs(x.mean()) <= half))
        text.append(f"{d} {x.mean():+.3f} ± {half:.3f}")
    return parts, text


def ablations(stores) -> list[str]:
    P = paper("reliefe")
    f = _labelled(stores[SUBSET["mcc"].name], mcc_name)
    g = _labelled(stores[NO_PRMS.name], lambda m, p: "ReliefE-absMean-adaptive, no PrMS")
    f = pd.concat([f, g])
    pairs = [
        ("embedding", "ReliefE", "ReliefF", "the input embedded (ReliefE) or not (ReliefF, "
         "k = 15)", None),
        ("absMean", "ReliefE-absMean", "ReliefE", "absMean update or the usual one",
         "absmean_competitive"),
        ("absMean (adaptive k)", "ReliefE-absMean-adaptive", "ReliefE-adaptive", "the same "
         "with adaptive k", "absmean_competitive"),
        ("adaptive k", "ReliefE-adaptive", "ReliefE", "adaptive k or k = 15",
         "adaptive_similar"),
        ("adaptive k (absMean)", "ReliefE-absMean-adaptive", "ReliefE-absMean", "the same "
         "with absMean", "adaptive_similar"),
        ("PrMS", "ReliefE-absMean-adaptive", "ReliefE-absMean-adaptive, no PrMS",
         "sparsified (density above 0.15) or dense embedding fit", None),
    ]
    au = f[f["measure"] == "aurf1"].groupby("label")["value"].mean()
    rows, claim_parts = [], {}
    for what, a, b, desc, claim in pairs:
        parts, text = _paired(f, a, b)
        rows.append([what, f"{a} − {b}", desc, md.f3(au.get(a, np.nan) - au.get(b, np.nan)),
                     "; ".join(text), V.combine(parts)])
        if claim:
            claim_parts.setdefault(claim, []).extend(parts)
    claims = [[f"{P.claim(c).what} ({P.claim(c).cite})", V.combine(p)]
              for c, p in claim_parts.items()]
    return ["### Ablations (embedding, absMean, adaptive k, PrMS)", "",
            "Mean AUrF1 difference over the data sets, and per data set the mean per-fold "
            "difference ± the half-width of its 95 % t-interval; *no detectable difference* "
            "holds on a set when the interval contains 0 (the paper reports these as "
            "\"performs very similarly\" and \"competitive\", R:446). PrMS: ours without it "
            f"(`{NO_PRMS.name}`, `sparsify = 1`).", "",
            md.table(["ablation", "pair", "what differs", "mean ΔAUrF1",
                      "per set (Δ ± half-width)", "no detectable difference"], rows,
                     "llllll"), "",
            md.table(["claim (paper)", "verdict"], claims, "ll"), ""]


def render(stores) -> str:
    P = paper("reliefe")
    mcc, mlc = stores[SUBSET["mcc"].name], stores[SUBSET["mlc"].name]
    fig_c, m_c, lab_c = fuji(mcc, mcc_name, "AUFUJI, multi-class (ours)", "reliefe-fuji-mcc")
    fig_l, m_l, lab_l = fuji(mlc, mlc_name, "AUFUJI, multi-label (ours)", "reliefe-fuji-mlc")
    w_e, b_e = _block(m_l, lab_l, lambda s: s.startswith("ReliefE"))
    hyp = [s for s in lab_l if s.startswith("ReliefF-this") and ("hyperbolic" in s or
                                                                  "subset" in s)]
    emb = [i for i, s in enumerate(lab_l) if s.startswith("ReliefE")]
    plain = [i for i, s in enumerate(lab_l) if s.startswith("ReliefF-this") and s not in hyp]
    h_e = float(np.nanmean([m_l[lab_l.index(h), j] for h in hyp for j in emb])) if hyp else \
        float("nan")
    p_e = float(np.nanmean([m_l[i, j] for i in plain for j in emb])) if plain else float("nan")
    w_c, b_c = _block(m_c, lab_c, lambda s: s.startswith("ReliefE"))
    rows_t, dims, secs = phases(mcc)
    tw = P.claim("time_weights")
    big = {v: max(ph, key=ph.get) for v, ph in secs.items()}
    w_parts = [b == "Relief weights" for b in big.values()]
    fuji_claim = P.claim("fuji_relief_e_similar")
    hyp_claim = P.claim("fuji_hyperbolic_subset")
    out = ["## ReliefE paper: FUJI, time by phase and ablations", "",
           "The reliefe study's subsets (its section names them): AUFUJI, the area under the "
           "Fuzzy Jaccard index of two rankings' (top-f, rF1) curves (`frcli.stats.fuji`), "
           "averaged over the data sets and folds, for every pair of rankers (the paper's "
           "Figs. 11 and 12, heat maps without printed numbers).", "",
           f"![AUFUJI, multi-class]({fig_c})", "", f"![AUFUJI, multi-label]({fig_l})", "",
           md.table(["claim (paper)", "ours", "verdict"], [
               [f"{fuji_claim.what} ({fuji_claim.cite})",
                f"mean AUFUJI among ReliefE variants {w_e:.3f}, between them and the others "
                f"{b_e:.3f} (multi-label); multi-class {w_c:.3f} and {b_c:.3f}",
                V.combine([V.order(w_e, b_e), V.order(w_c, b_c)])],
               [f"{hyp_claim.what} ({hyp_claim.cite})",
                f"mean AUFUJI of ReliefF-this's hyperbolic and subset variants with the "
                f"ReliefE variants {h_e:.3f}, of its other variants {p_e:.3f}",
                V.verdict(V.order(h_e, p_e))],
           ], "lll"), "",
           "### Time by phase", "",
           "ReliefE's ranking time split into its phases (median seconds over the "
           "multi-class runs, share of their sum; the paper's Appendix 5 finds most time in "
           "the weight updates, R:337): <!-- volatile -->", "",
           _volatile(md.table(["variant"] + [ph for ph, _ in PHASES], rows_t)), "",
           _volatile(md.table(["claim (paper)", "ours: the largest phase", "verdict"], [
               [f"{tw.what} ({tw.cite})", "; ".join(f"{r[0]}: {big[r[0]]}" for r in rows_t),
                V.combine(w_parts)]], "lll")), "",
           "Intrinsic dimension estimated (TwoNN) for the embedding, per data set: "
           + ", ".join(f"{d} {', '.join(str(x) for x in v)}" for d, v in sorted(dims.items()))
           + " (the paper's Fig. 2 shows the estimate on the genes set, not shared).", ""]
    out += ablations(stores)
    return "\n".join(out)


STUDY = Study(name="reliefe-extra", title="ReliefE paper: FUJI (Figs. 11-12), time by phase, "
              "ablations", configs=(SUBSET["mcc"], SUBSET["mlc"], NO_PRMS), render=render,
              order=46)
