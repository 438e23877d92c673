"""The semi-supervised papers' results beside the main sections, read from the same stores
(render-only): P-DS §5.4 (how often each score is ranked first, second, last) and its
learning curves over L (Figs. 1 and 2), P-ML's ensemble ranks (Table 5), its induction-time
ranks (Tables 6 and 12; measured times, so volatile) and its SL/SSL curves (Fig. 3).

P-DS draws Tic-tac-toe, Arrhythmia and Gasdrift; Gasdrift is not shared and Arrhythmia did
not fit (the P-DS section measures what it would cost), so the curves are those of the sets
run."""
from __future__ import annotations

import numpy as np
import pandas as pd

from reproduce import analysis as A
from reproduce import md
from reproduce import verdict as V
from reproduce.framework import Study
from reproduce.papers import paper
from reproduce.studies import _subset
from reproduce.studies import ssl as SP
from reproduce.studies import ssl_classification as SC

SCORES = ("genie3", "rf", "symbolic")
ENS = ("rf", "et", "bagging")           # P-ML's column order


def _legend_below_and_save(fig, axes, name: str, *, bottom: float, dpi: int) -> str:
    """One legend under a grid of panels (the first panel's lines), then the PNG's link."""
    import matplotlib.pyplot as plt

    h, lab = axes[0][0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    link = A.save_png(fig, name, dpi=dpi)
    plt.close(fig)
    return link


# -- P-DS -------------------------------------------------------------------------------------

def _pds_areas(view):
    from frcli.stats.pooling import pooled_confusion
    from reproduce.studies import _ssl_render as R

    pooled = pooled_confusion(view.frame)
    measures = ["accuracy", "kappa", "macro_f1", "macro_mcc"]
    return pooled, {m: R._areas(pooled.set_index(["dataset", "labeled", "method",
                                                  "params"])[m]) for m in measures}


def rank_counts(view) -> list[str]:
    from frcli.rankers.ensemble import TASK_ENSEMBLES
    from reproduce.studies import _ssl_render as R

    P = paper("p-ds")
    chosen = TASK_ENSEMBLES[("semi-supervised", "classification")]
    _, areas = _pds_areas(view)
    sets = sorted(set(view.frame["dataset"]))
    counts = {s: [0, 0, 0] for s in SCORES}
    n = 0
    for m, a in areas.items():
        for d in sets:
            vals = pd.Series({s: R._pick(a, "ssl", s, chosen[s]).get(d, np.nan)
                              for s in SCORES}).dropna()
            if len(vals) < 3:
                continue
            n += 1
            r = vals.rank(ascending=False, method="min")     # a tie: both at the better
            for s, x in r.items():
                counts[s][int(x) - 1] += 1
    rf, sym = P.fact("rank_counts_rf").value, P.fact("rank_counts_symbolic").value
    g1 = P.fact("rank_counts_genie3_first")
    paper_c = {"genie3": [g1.value, None, None], "rf": [rf[0], None, rf[1]],
               "symbolic": list(sym)}
    rows = [[R.SCORE_NAMES[s]] + [f"{'–' if p is None else p} / {c}" for p, c in
                                   zip(paper_c[s], counts[s])] for s in SCORES]
    first = {s: counts[s][0] for s in SCORES}
    last = {s: counts[s][2] for s in SCORES}
    parts = [V.extreme(first, "rf", best=True), V.extreme(last, "rf", best=True),
             V.order(first["genie3"], first["rf"], higher=False)]
    return ["### Which score is ranked first (P-DS §5.4)", "",
            f"Rankings of the three SSL scores (the paper's ensembles) in each of our {n} "
            f"cases (data sets × the 4 measures; paper: 32 cases, "
            f"{P.fact('rank_counts_rf').cite}, {g1.cite}, {P.fact('rank_counts_symbolic').cite}"
            "); first / second / third, paper / ours (a tie counts for both at the better "
            "place):", "",
            md.table(["score", "1st", "2nd", "3rd"], rows, "lrrr"), "",
            "The paper's reading — the RF score is first most often and last most often, "
            "Genie3 first less often than the RF score — in ours: "
            f"{V.combine(parts)} (RF score first {first['rf']} and last {last['rf']} times, "
            f"Genie3 first {first['genie3']}).", ""]


def curves_figure(view, name: str) -> str:
    """Accuracy and F1 of the 20NN against L per set run, SSL and SL rankings of the chosen
    ensembles and SEFR (the paper's Figs. 1 and 2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from frcli.rankers.ensemble import TASK_ENSEMBLES
    from reproduce.studies import _ssl_render as R

    chosen = TASK_ENSEMBLES[("semi-supervised", "classification")]
    pooled, _ = _pds_areas(view)
    pooled = pooled.copy()
    pooled["lbl"] = [" ".join(x for x in R._label(m, p) if x) for m, p in
                     zip(pooled["method"], pooled["params"])]
    sets = sorted(set(pooled["dataset"]))
    fig, axes = plt.subplots(len(sets), 2, figsize=(10, 3.2 * len(sets)), squeeze=False)
    colors = {"symbolic": "tab:blue", "genie3": "tab:orange", "rf": "tab:green"}
    for i, d in enumerate(sets):
        part = pooled[pooled["dataset"] == d]
        for j, (m, ttl) in enumerate((("accuracy", "accuracy"), ("macro_f1", "macro F1"))):
            ax = axes[i][j]
            for s in SCORES:
                for setting, ls in (("ssl", "-"), ("sl", "--")):
                    sub = part[part["lbl"] == f"{setting} {s} {chosen[s]}"].sort_values(
                        "labeled")
                    ax.plot(sub["labeled"].astype(int), sub[m], ls, marker=".",
                            color=colors[s], label=f"{R.SCORE_NAMES[s]} {setting.upper()}")
            for lbl, style, nm in (("ssl sefr", ":", "SEFR"), ("ssl uniform", "-.",
                                                                "uniform")):
                sub = part[part["lbl"] == lbl].sort_values("labeled")
                ax.plot(sub["labeled"].astype(int), sub[m], style, color="gray", label=nm)
            ax.set_title(f"{d}: {ttl} of the 20NN", fontsize=9)
            ax.set_xlabel("labelled examples L", fontsize=8)
            ax.tick_params(labelsize=7)
    return _legend_below_and_save(fig, axes, name, bottom=0.07, dpi=90)


# -- P-ML -------------------------------------------------------------------------------------

GROUPS = (("classification", "macro_f1", "_k40", True),
          ("STR/MTR", "rrmse", None, False),
          ("MLC/HMLC", "pooled_auprc", None, True))


def _views(stores) -> dict:
    return {"classification": stores[_subset.store_name(SC.RUN)],
            "STR/MTR": stores[_subset.store_name(SP.REG)],
            "MLC/HMLC": stores[_subset.store_name(SP.MLC)]}


def table5(stores) -> list[str]:
    from reproduce.studies import _ssl_render as R

    P = paper("p-ml")
    t5 = P.table("table5")
    views = _views(stores)
    rows, parts = [], []
    for group, measure, k40, higher in GROUPS:
        a = R._task_areas(views[group], measure, k40)
        a["task"] = [R._task(group, d) for d in a["dataset"]]
        for task, at in a.groupby("task", sort=False):
            for setting in ("ssl", "sl"):
                ranks = R._ensemble_ranks(at, setting, higher, by=("dataset",))
                for s in SCORES:
                    if s not in ranks:
                        continue
                    key = f"{task}/{s}"
                    pr = t5.get(key)
                    cells = [f"{pr[f'{setting}_{e}']:.2f} / {ranks[s].get(e, np.nan):.2f}"
                             if pr else f"– / {ranks[s].get(e, np.nan):.2f}" for e in ENS]
                    rows.append([task, setting.upper(), R.SCORE_NAMES[s], *cells])
                    if pr and setting == "ssl":
                        best_p = min(ENS, key=lambda e: pr[f"ssl_{e}"])
                        parts.append(V.extreme(ranks[s], best_p, best=True, higher=False,
                                               paper={e: pr[f"ssl_{e}"] for e in ENS}))
    return ["### Which ensemble per task (P-ML Table 5)", "",
            f"Average ranks of the ensembles (lower is better) by the 40NN areas over the data "
            f"sets run per task, paper / ours ({P.table_cite('table5')}); the paper's best "
            f"SSL ensemble per (task, score) is ours's best in: {V.combine(parts)} "
            f"({sum(1 for p in parts if p)} of {len(parts)}).", "",
            md.table(["task", "setting", "score", "RF", "ET", "bagging"], rows, "lllrrr"), ""]


def _forest_times(view) -> pd.DataFrame:
    """Per (dataset, split, labeled, setting, ensemble): the forest's time (the runner grows
    one forest per ensemble for its three scores and books it on the first: the sum)."""
    from reproduce.studies import _ssl_render as R

    r = view.runs.copy()
    lab = [R._label(m, p) for m, p in zip(r["method"], r["params"])]
    r["setting"], r["score"], r["ensemble"] = zip(*lab)
    r = r[r["score"].isin(SCORES)]
    return r.groupby(["dataset", "split", "labeled", "setting", "ensemble"])["rank_time_s"] \
        .sum().reset_index()


def tables_6_12(stores) -> list[str]:
    from reproduce.studies import _ssl_render as R

    views = _views(stores)
    rows6, rows12 = [], []
    for group, *_ in GROUPS:
        view = views[group]
        ft = _forest_times(view)
        ft["task"] = [R._task(group, d) for d in ft["dataset"]]
        runs = view.runs.copy()
        runs["setting"] = [R._label(m, p)[0] for m, p in zip(runs["method"], runs["params"])]
        for task, part in ft.groupby("task", sort=False):
            ssl = part[part["setting"] == "ssl"]
            w = ssl.pivot_table(index=["dataset", "split", "labeled"], columns="ensemble",
                                values="rank_time_s")
            r6 = w.rank(axis=1).mean()
            rows6.append([task] + [f"{r6.get(e, np.nan):.2f}" for e in ENS])
            sets = set(part["dataset"])
            for L in (50, 500):
                cols = {f"ensemble {e}": ssl[(ssl["labeled"] == L) & (ssl["ensemble"] == e)]
                        .set_index(["dataset", "split"])["rank_time_s"] for e in ENS}
                for meth, name in (("relief", "Relief"), ("laplacian", "Laplace")):
                    s = runs[(runs["method"] == meth) & (runs["setting"] == "ssl")
                             & (runs["labeled"] == L) & runs["dataset"].isin(sets)]
                    if not s.empty:
                        cols[name] = s.set_index(["dataset", "split"])["rank_time_s"]
                m = pd.DataFrame(cols).dropna()
                if m.empty:
                    continue
                rk = m.rank(axis=1).mean()
                rows12.append([task, str(L)] + [f"{rk.get(c, np.nan):.2f}" if c in rk else "–"
                                                for c in ("ensemble rf", "ensemble et",
                                                          "ensemble bagging", "Relief",
                                                          "Laplace")])
    P = paper("p-ml")
    return ["### Induction times (P-ML Tables 6 and 12)", "",
            "Average ranks of the measured times (1 = fastest) of the SSL forests per task "
            f"over the (data set, fold, L) cases (Table 6, T:7682-7690), and at L = 50 and "
            f"500 of the forests, SSL-Relief and the Laplace score (Table 12, T:7863-7875); "
            f"the paper's tables are not numbers we can compare under another machine's load "
            f"({P.table_cite('table5')} is the ranks' table): ours only. <!-- volatile -->", "",
            _vol(md.table(["task", "RF", "ET", "bagging"], rows6, "lrrr")), "",
            _vol(md.table(["task", "L", "RF", "ET", "bagging", "Relief", "Laplace"], rows12,
                          "llrrrrr")), ""]


def _vol(table: str) -> str:
    lines = table.split("\n")
    return "\n".join(lines[:2] + [f"{ln} <!-- volatile -->" for ln in lines[2:]])


def fig3(stores, name: str) -> str:
    """SL and SSL curves (the task's measure against L) with k = 20 and 40 for one set per
    task (the paper's Fig. 3)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from frcli.rankers.ensemble import TASK_ENSEMBLES
    from frcli.stats.pooling import weighted_over_splits
    from reproduce.studies import _ssl_render as R

    views = _views(stores)
    panels = []
    for group, measure, k40, higher in GROUPS:
        v = views[group]
        runs = v.runs.copy()
        runs["labeled"] = runs["labeled"].astype("Int64").mask(runs["labeled"] == 0)
        k20 = "" if group == "classification" else "_k20"
        k40s = k40 or ""
        for d in sorted(set(v.frame["dataset"])):
            task = R._task(group, d)
            if any(p[1] == task for p in panels):
                continue
            panels.append((group, task, d, measure, k20, k40s, v, runs))
    fig, axes = plt.subplots(len(panels), 2, figsize=(10, 2.9 * len(panels)), squeeze=False)
    colors = {"symbolic": "tab:blue", "genie3": "tab:orange", "rf": "tab:green",
              "relief": "tab:red"}
    for i, (group, task, d, measure, k20, k40s, v, runs) in enumerate(panels):
        kind = {"STR": "regression", "MTR": "mtr", "classification": "classification",
                "MLC": "mlc", "HMLC": "hmlc"}[task]
        best = TASK_ENSEMBLES[("semi-supervised", kind)]
        for j, (suffix, k) in enumerate(((k20, 20), (k40s, 40))):
            w = weighted_over_splits(v.frame, runs, f"{measure}{suffix}").rename(
                "value").reset_index()
            w = w[w["dataset"] == d]
            w["lbl"] = [R._label(m, p) for m, p in zip(w["method"], w["params"])]
            ax = axes[i][j]
            for s in (*SCORES, "relief"):
                e = best.get(s, "")
                for setting, ls in (("ssl", "-"), ("sl", "--")):
                    sub = w[[lb == (setting, s, e) for lb in w["lbl"]]].sort_values("labeled")
                    ax.plot(sub["labeled"].astype(int), sub["value"], ls, marker=".",
                            color=colors[s],
                            label=f"{R.SCORE_NAMES[s]} {setting.upper()}")
            ax.set_title(f"{task}: {d}, {measure} of the {k}NN", fontsize=9)
            ax.set_xlabel("labelled examples L", fontsize=8)
            ax.tick_params(labelsize=7)
    return _legend_below_and_save(fig, axes, name, bottom=0.05, dpi=80)


def render(stores) -> str:
    pds = stores[_subset.store_name(SC.RUN)]
    out = ["## Semi-supervised ranking: rank counts, curves, ensembles and times (P-DS, P-ML)",
           "", "From the stores of the P-DS and P-ML sections (the same runs; their sections "
           "name the sets run and what the others would cost).", ""]
    out += rank_counts(pds)
    fig = curves_figure(pds, "ssl-pds-curves")
    out += ["### Learning curves over L (P-DS Figs. 1 and 2)", "",
            "The pooled 20NN accuracy and macro F1 at each L of the SSL rankings (solid), "
            "their supervised versions (dashed) and SEFR (dotted), on the sets run (the paper "
            "draws Tic-tac-toe, Arrhythmia and Gasdrift: Gasdrift is not shared, Arrhythmia's "
            "runs did not fit, see the P-DS section's cost note):", "",
            f"![P-DS curves]({fig})", ""]
    out += table5(stores)
    out += tables_6_12(stores)
    f3 = fig3(stores, "ssl-pml-curves")
    out += ["### SL and SSL curves per task (P-ML Fig. 3)", "",
            "One set run per task; the task's measure (macro F1, RRMSE, pooled AUPRC) of the "
            "20NN (left) and 40NN (right) against L, SSL solid, SL dashed, the ensembles "
            "P-ML's Table 5 chose:", "", f"![P-ML curves]({f3})", ""]
    return "\n".join(out)


STUDY = Study(name="ssl-extra", title="P-DS §5.4 and Figs. 1-2, P-ML Tables 5, 6, 12 and Fig. 3 "
              "(from the SSL stores)", configs=(SC.RUN, SP.REG, SP.MLC), render=render,
              order=53)
