"""The relational paper (9b) Table 3 on the shared sets it can run here (configs/relational-
subset.yaml: uwcse and mutagenesis), our accuracy beside the paper's, the setting comparisons
of 9b §6.1-6.2, and the ranking findings of 9a/9b (top relations, convergence against the
number of trees, the excluded leak of mutagenesis)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from reproduce import md
from reproduce.framework import Study
from reproduce.papers import paper

LEARNERS = (("genie3-tree", "tree", "single tree"), ("genie3-rf", "rf", "RF"),
            ("genie3-boost", "boost", "boosting"), ("genie3-bagging", "bagging", "bagging"))
SETTINGS = ("AGG-All", "AGG-Exist", "NO-Rel")
FIG = Path(__file__).resolve().parents[2] / "docs" / "figures" / "relational-curves.png"


def setting_of(params: str) -> str:
    p = json.loads(params)
    if p.get("aggregates") == "exist":
        return "AGG-Exist"
    if p.get("tables") == "target":
        return "NO-Rel"
    return "AGG-All"


def accuracies(view):
    """{(dataset, setting, learner column): (mean, sd, folds)}."""
    f = view.frame
    f = f[f["measure"] == "accuracy"].copy()
    f["setting"] = [setting_of(p) for p in f["params"]]
    col = {m: c for m, c, _ in LEARNERS}
    out = {}
    for (ds, st, m), g in f.groupby(["dataset", "setting", "method"]):
        out[ds, st, col[m]] = (float(g["value"].mean()), float(g["value"].std(ddof=1)),
                               len(g))
    return out


def mean_importances(view, dataset: str, method: str, setting: str):
    """Relation -> mean importance over the folds, and the mean convergence curve."""
    runs = view.runs
    sel = runs[(runs["dataset"] == dataset) & (runs["method"] == method)]
    sel = sel[[setting_of(p) == setting for p in sel["params"]]]
    tot, names, curves = None, None, []
    from frcli.experiment.store import Store

    with Store(view.dir, create=False) as st:
        for _, r in sel.iterrows():
            key = (r["dataset"], int(r["split"]), int(r["labeled"]), r["method"], r["params"])
            names, imp = st.ranking(key)
            tot = np.asarray(imp) if tot is None else tot + np.asarray(imp)
            meta = st.conn.execute("SELECT g.meta FROM runs r JOIN rankings g USING (run_id) "
                                   "WHERE r.dataset=? AND r.split=? AND r.labeled=? AND "
                                   "r.method=? AND r.params=?", key).fetchone()
            if meta and meta[0]:
                m = json.loads(meta[0])
                if "curve" in m:
                    curves.append(np.asarray(m["curve"]))
    if tot is None:
        return {}, None
    curve = np.mean(curves, axis=0) if curves else None
    return dict(zip(names, tot / len(sel))), curve


def _figure(view, sets) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sets), figsize=(5 * len(sets), 3.6))
    axes = np.atleast_1d(axes)
    for ax, ds in zip(axes, sets):
        imp, curve = mean_importances(view, ds, "genie3-bagging", "AGG-All")
        if curve is None:
            continue
        names = list(imp)
        order = np.argsort([-imp[n] for n in names])
        for i in order:
            ax.plot(np.arange(1, len(curve) + 1), curve[:, i],
                    label=names[i] if i in order[:4] else None)
        ax.set_title(f"{ds}: Genie3, bagging, AGG-All")
        ax.set_xlabel("trees")
        ax.set_ylabel("importance (mean of 10 folds)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    FIG.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIG, dpi=110)
    plt.close(fig)


def render(stores) -> str:
    view = stores["relational-subset"]
    P = paper("relational")
    ref = P.table("table3")
    ours = accuracies(view)
    sets = [d.name for d in view.config.datasets]
    header = ["data set", "setting"] + [f"{name} (paper / ours)" for _, _, name in LEARNERS]
    rows = []
    for ds in sets:
        for st in SETTINGS:
            pr = ref.get(f"{ds.upper()} {st}", {})
            r = [ds, st]
            for _, col, _ in LEARNERS:
                o = ours.get((ds, st, col))
                p = pr.get(col)
                r.append(f"{md.f3(p) if p is not None else 'NA'} / "
                         f"{md.pm(o[0], o[1]) if o else '–'}")
            rows.append(r)
    cfg = view.config
    trees = sorted({r.params.get("trees") for r in cfg.rankers if "trees" in r.params})
    out = ["## Relational trees and ensembles (9b Table 3)", "",
           f"Accuracy, {cfg.protocol.folds}-fold CV, {md.listing([str(t) for t in trees])} "
           f"trees, ℓ = 2, paper ({P.table_cite('table3')}) beside "
           "ours (mean ± sd over the folds) on the shared sets this study runs "
           "(`configs/relational-subset.yaml`; `configs/relational.yaml` is the full "
           "protocol). uwcse: seeded stratified folds (its fold file is not a partition); "
           "mutagenesis: the published folds.", "", md.table(header, rows), ""]
    # setting comparisons (9b §6.1-6.2): per data set and learner
    wins = {("AGG-All", "NO-Rel"): 0, ("AGG-Exist", "NO-Rel"): 0, ("AGG-All", "AGG-Exist"): 0}
    n = 0
    for ds in sets:
        for _, col, _ in LEARNERS:
            if all((ds, s, col) in ours for s in SETTINGS):
                n += 1
                for a, b in wins:
                    if ours[ds, a, col][0] > ours[ds, b, col][0]:
                        wins[a, b] += 1
    fa, fe, fx = (P.fact(k) for k in ("all_beats_norel", "exist_beats_norel",
                                      "all_beats_exist"))
    out.append(f"AGG-All beats NO-Rel in {wins['AGG-All', 'NO-Rel']} of {n} (data set, "
               f"learner) cases here ({fa.value} of 36 in the paper, {fa.cite}), AGG-Exist "
               f"beats NO-Rel in {wins['AGG-Exist', 'NO-Rel']} of {n} ({fe.value} of 36, "
               f"{fe.cite}), AGG-All beats AGG-Exist in {wins['AGG-All', 'AGG-Exist']} of {n} "
               f"({fx.value} of 36, {fx.cite}).")
    out.append("")
    # differences explained
    out.append("Differences, and why:")
    out.append("")
    out.append("* **AGG-Exist** here is the existence of a whole chain (count of its groundings "
               "> 0, the thesis's definition); re3py's follow table allows no aggregate after "
               "count when count is the only aggregate, so the paper's AGG-Exist tests are "
               "single atoms, which on uwcse cannot reach a course's teachers' disciplines: "
               "hence its accuracy below the majority rate.")
    out.append("* **uwcse folds**: the paper used the published fold file, in which 28 courses "
               "are in several folds and 38 in none (test examples also in the training set); "
               "ours are a partition.")
    out.append("* **Tuning**: single trees over 3 × 2 of the paper's 5 × 6 grid, boosting at one "
               "point of its 288-point grid (see the config); **search space**: our trees "
               "continue the chosen chain in both children (9b Alg. 1), re3py's code restarts "
               "every context shorter than 4 atoms.")
    out.append("")
    # ranking findings
    imp_uw, _ = mean_importances(view, "uwcse", "genie3-boost", "AGG-All")
    if imp_uw:
        top = sorted(imp_uw, key=lambda k: -imp_uw[k])[:3]
        f = P.fact("uwcse_top_relation")
        out.append(f"**Ranking findings.** uwcse, Genie3 of boosting, AGG-All (mean of the "
                   f"folds): top relations {md.listing(top)}; 9a ranks "
                   f"{f.value} first, then advisedByDiscipline ({f.cite}).")
    imp_mu, _ = mean_importances(view, "mutagenesis", "genie3-bagging", "AGG-All")
    if imp_mu:
        top = sorted(imp_mu, key=lambda k: -imp_mu[k])[:3]
        out.append(f"mutagenesis, Genie3 of bagging: top relations {md.listing(top)}; "
                   f"`drugs_act` (which determines the label) is excluded and "
                   f"{'absent from' if 'drugs_act' not in imp_mu else 'IN'} the ranking.")
    _figure(view, sets)
    out += ["", f"![importance against trees]({FIG.relative_to(FIG.parents[1]).as_posix()})",
            "", "Importance of each relation after 1..50 trees (Genie3, bagging, AGG-All, mean "
            "of the folds): the convergence plots of 9a Fig. 3 and 9b Fig. 14."]
    return "\n".join(out)


STUDY = Study(name="relational", title="Relational paper (9b) Table 3 on uwcse and "
              "mutagenesis; ranking findings of 9a/9b",
              configs=("configs/relational-subset.yaml",), render=render, order=60)
