"""MTR paper (P0), the studies beside the main ones: the Symbolic score's weight w (§4.5,
Fig. 1: Friedman over w in {0.25, 0.5, 0.75, 1} per ensemble), and the meta tree (§5.3,
Fig. 8, Table 6) learned from our own results.

The weight study runs the MTR versions of the three Symbolic rankings with the four weights
on every shared MTR set (one forest per ensemble and split serves the four weights; measured
on the loaded shared machine: edm 2 splits 1.7 s, atp1d one split 20 s, so about half an hour
of one core for the 11 sets x 10 splits)."""
from __future__ import annotations

from reproduce.framework import ConfigRef, Study

WEIGHTS = (0.25, 0.5, 0.75, 1.0)
SYMB = ConfigRef("configs/mtr-ensembles.yaml", name="mtr-symbolic-weights", set={
    "rankers": ["uniform"] + [
        {"method": f"symbolic-{e}", "params": {"trees": 100, "min_leaf": 2,
                                               "symbolic_weight": list(WEIGHTS),
                                               "ties": "first"}}
        for e in ("rf", "bagging", "et")]})
TABLE7 = ConfigRef("configs/mtr-table7.yaml")       # the mtr-table7 study's store
ENS_LABEL = {"rf": "RF", "bagging": "Bagging", "et": "ET"}


def _w_label(method: str, params: str) -> str | None:
    import json

    if method == "uniform":
        return "5NN baseline"
    w = json.loads(params).get("symbolic_weight")
    return f"{method.split('-')[1]}/{float(w):g}"


def _place(c, w: float) -> int:
    """1 + the weights with a strictly better (lower) average rank than ``w``."""
    r = dict(zip(WEIGHTS, c.avg_ranks))
    return 1 + sum(v < r[w] for v in r.values())


def weight_study(view) -> list[str]:
    from reproduce import analysis as A
    from reproduce import md
    from reproduce import verdict as V
    from reproduce.papers import paper

    P = paper("mtr")
    df = A.wide(view, "rrmse", _w_label)
    sets = list(df.index)
    pp = dict(zip(("bagging", "et", "rf"), P.fact("symb_w_p").value))
    paper_ranks = {"bagging": dict(zip(WEIGHTS, P.fact("symb_w_ranks_bagging").value)),
                   "et": dict(zip(WEIGHTS, P.fact("symb_w_ranks_et").value))}
    rows, comps = [], {}
    for e in ("rf", "bagging", "et"):
        cols = [f"{e}/{w:g}" for w in WEIGHTS]
        c = A.compare(df, cols, lower=True)
        comps[e] = c
        r = dict(zip(WEIGHTS, c.avg_ranks))
        pr = paper_ranks.get(e)
        rows.append([f"Symbolic, {ENS_LABEL[e]}"]
                    + [f"{pr[w]:.2f} / {r[w]:.2f}" if pr else f"– / {r[w]:.2f}"
                       for w in WEIGHTS]
                    + [f"{pp[e]:g}", md.pval(c.f_p), f"{c.nemenyi_cd:.4f}"])
    rf = comps["rf"]
    r_rf = dict(zip(WEIGHTS, rf.avg_ranks))
    worse = [w for w in (0.25, 0.5) if rf.differ("rf/1", f"rf/{w:g}") and r_rf[1.0] > r_rf[w]]
    # the claims, one verdict rule
    sig = [V.significant(comps["rf"].f_p), V.insignificant(comps["bagging"].f_p),
           V.insignificant(comps["et"].f_p)]
    w1_parts = [V.significant(rf.f_p) and rf.differ("rf/1", f"rf/{w:g}")
                and V.order(r_rf[1.0], r_rf[w], higher=True) for w in (0.25, 0.5)]
    second = [V.in_top(dict(zip(WEIGHTS, comps[e].avg_ranks)), 0.5, 2, higher=False)
              for e in ("rf", "bagging", "et")]
    c1, c2 = P.claim("symb_w1_worse"), P.claim("symb_w50_second")
    claims = [
        [f"w matters with RF only (Friedman p = {pp['rf']:g} RF, "
         f"{pp['bagging']:g} bagging, {pp['et']:g} ET; "
         f"{P.fact('symb_w_p').cite})",
         ", ".join(f"{ENS_LABEL[e]} p = {md.pval(comps[e].f_p)}" for e in comps),
         V.combine(sig)],
        [f"{c1.what} ({c1.cite})",
         f"w = 1 significantly worse than {md.listing([f'{w:g}' for w in worse]) or 'none'}",
         V.combine(w1_parts)],
        [f"{c2.what} ({c2.cite})",
         ", ".join(f"{ENS_LABEL[e]} place of w = 0.5: {_place(comps[e], 0.5)}"
                   for e in comps), V.combine(second)],
    ]
    order_rf = [w for w, _ in sorted(r_rf.items(), key=lambda kv: kv[1])]
    return [
        "### The Symbolic score's weight w (§4.5, Fig. 1)", "",
        f"The MTR versions of the Symbolic rankings from RF, bagging and ET (100 trees, "
        f"min_leaf 2) with w ∈ {{{', '.join(f'{w:g}' for w in WEIGHTS)}}}, one forest per "
        f"ensemble and split for the four weights (`{SYMB.name}`: `configs/mtr-ensembles.yaml` "
        f"with these rankers), the Table 7 protocol on our {len(sets)} sets; RRMSE rounded to "
        f"3 decimals, Friedman (Iman–Davenport) over the four weights per ensemble. Average "
        f"ranks, paper / ours (the paper prints them for bagging and ET only, "
        f"{P.fact('symb_w_ranks_bagging').cite}; for RF it draws Fig. 1, Nemenyi CD "
        f"{P.fact('symb_w_cd').value} over its 24 sets):", "",
        md.table(["ranking", *[f"w = {w:g}" for w in WEIGHTS], "paper p", "our p",
                  "our Nemenyi CD"], rows, "lrrrrrrr"), "",
        f"With RF, best to worst: ours {md.listing([f'{w:g}' for w in order_rf])}; the "
        f"paper's Fig. 1 {md.listing([f'{w:g}' for w in P.fact('symb_w_rf_order').value])} "
        f"(read from its labels).", "",
        md.table(["claim (paper)", "ours", "verdict"], claims, "lll"), ""]


def _meta(view) -> tuple[list[str], "object"]:
    """The meta data set: per data set its rows N, features D, targets T, and which group's
    best ranking of Table 7 is better (Genie3-RF-STR for the ensembles, It100Neigh15MTR for
    Relief; RRMSE rounded to 3 decimals; a tie goes to neither and is left out)."""
    import numpy as np

    from reproduce import analysis as A
    from reproduce.studies._mtr import label

    df = A.wide(view, "rrmse", label)
    sizes = view.sizes
    rows = []
    for d in df.index:
        e, r = df.loc[d, "Genie3-RF-STR"], df.loc[d, "It100Neigh15MTR"]
        z = sizes[d]
        rows.append((d, z["n_train"] + z["n_test"], z["n_features"], z["n_targets"],
                     "Ensemble" if e < r else "Relief" if r < e else "tie", e, r))
    return rows, np.array


def meta_tree(view) -> list[str]:
    import numpy as np

    from frcli.data.dataset import Attribute, Dataset
    from frcli.engines.pct.view import grow_tree, render_text, target_categories, tree_nodes
    from reproduce import md
    from reproduce import verdict as V
    from reproduce.papers import paper

    P, PT = paper("mtr"), paper("mtr_thesis")
    rows, _ = _meta(view)
    used = [r for r in rows if r[4] != "tie"]
    classes = ("Ensemble", "Relief")
    X = np.array([[r[1], r[2], r[3]] for r in used], dtype=float)
    y = np.array([classes.index(r[4]) for r in used], dtype=float)[:, None]
    feats = [Attribute(n, "numeric") for n in ("examples", "attributes", "targets")]
    tgt = [Attribute("better", "nominal", classes)]

    def ds(idx):
        return Dataset("meta", X[idx], feats, "classification", Y=y[idx], targets=tgt)

    full = ds(np.arange(len(used)))
    model, grown = grow_tree(full)
    text = render_text(tree_nodes(model, grown), target_categories(grown))
    # leave-one-out (the paper: 10-fold CV over its 24 sets; ours has fewer sets)
    cm = np.zeros((2, 2), dtype=int)
    for i in range(len(used)):
        keep = np.array([j for j in range(len(used)) if j != i])
        m, _ = grow_tree(ds(keep))
        pred = int(m.predict_targets(X[i:i + 1])[0, 0])
        cm[int(y[i, 0]), pred] += 1
    acc = np.trace(cm) / max(1, cm.sum())
    t6 = PT.table("table6")
    d_max, t_max = P.fact("meta_rule").value
    rule = ["Ensemble" if (r[2] > d_max and r[3] <= t_max) else "Relief" for r in used]
    hits = sum(a == r[4] for a, r in zip(rule, used))
    band = V.proportion_band(hits / max(1, len(used)), max(1, len(used)))
    meta_rows = [[r[0], str(r[1]), str(r[2]), str(r[3]), md.f3(r[5]), md.f3(r[6]), r[4],
                  ("Ensemble" if (r[2] > d_max and r[3] <= t_max) else "Relief")]
                 for r in rows]
    p_acc = P.fact("meta_accuracy")
    return [
        "### The meta tree (§5.3, Fig. 8, Table 6) learned from our results", "",
        "The paper describes each of its 24 sets by its examples, attributes and targets, "
        "labels it by the group (ensemble or Relief) whose ranking is better there, and "
        f"grows one PCT on that meta data set ({PT.fact('meta_leaves').cite}): attributes > "
        f"{d_max}? no: Relief (8/8); yes: targets > {t_max}? yes: Relief (4/6), no: Ensemble "
        f"(9/10); 10-fold CV accuracy {p_acc.value} % ({p_acc.cite}). Ours: the same on our "
        f"{len(rows)} sets, labelled by the better of the paper's best ranking of each group "
        "in Table 7 (Genie3-RF-STR, It100Neigh15MTR; the mtr-table7 runs, RRMSE rounded to "
        "3 decimals; a tie is left out), one PCT grown by frcli on the meta data set "
        "(CLUS's single-tree settings: all features, MinimalWeight 2):", "",
        md.table(["data set", "examples", "attributes", "targets", "Genie3-RF-STR",
                  "It100Neigh15MTR", "better", "the paper's rule says"], meta_rows,
                 "lrrrrrll"), "",
        md.code(text.rstrip("\n")), "",
        f"Cross-validated by leaving one set out (with {len(used)} sets; the paper used "
        f"10 folds over 24), true (rows) against predicted (columns), ours beside the "
        f"paper's Table 6 ({PT.table_cite('table6')}):", "",
        md.table(["true \\ predicted", "Ensemble (paper / ours)", "Relief (paper / ours)"],
                 [[c, f"{t6[c.lower()]['ensemble']} / {cm[i, 0]}",
                   f"{t6[c.lower()]['relief']} / {cm[i, 1]}"] for i, c in enumerate(classes)],
                 "lrr"), "",
        f"Accuracy {100 * acc:.1f} % (paper {p_acc.value} %).", "",
        md.table(["claim (paper)", "ours", "verdict"], [
            [f"the rule (an ensemble ranking is better when D > {d_max} and T ≤ {t_max}) "
             f"names the better group with {p_acc.value} % accuracy ({P.fact('meta_rule').cite}"
             f", {p_acc.cite})", f"it names it on {hits} of our {len(used)} sets "
             f"({100 * hits / max(1, len(used)):.0f} %, 95 % interval "
             f"{100 * band[0]:.0f}–{100 * band[1]:.0f} %)",
             V.verdict(V.same_size(hits / max(1, len(used)), p_acc.value / 100, band))]],
                 "lll"),
        ""]


def render(stores) -> str:
    return "\n".join(["## MTR paper: the Symbolic weight and the meta tree", "",
                      *weight_study(stores[SYMB.name]), *meta_tree(stores["mtr-table7"])])


STUDY = Study(name="mtr-extra", title="MTR paper: the Symbolic weight w (Fig. 1) and the meta "
              "tree (Fig. 8, Table 6) from our results", configs=(SYMB, TABLE7),
              render=render, order=13)
