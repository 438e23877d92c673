"""P-UNS (thesis Ch. 7): the error curves over the number of selected features (Fig. 5) drawn
from the main run's stored curves, and the distribution of the k-means ARI over the data sets
(Fig. 1), which the paper uses to argue that the classes cannot judge an unsupervised ranking.

Render-only for the curves (the unsupervised study's store holds the 1NN's MSE with the top
1, 2, 4, ... features of every ranking); ``compute`` clusters each set once (k-means, k = its
classes, median adjusted Rand index of 10 runs; ``frcli.data.hypothesis``), seconds to a
minute per set, kept in the work folder."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from reproduce import analysis as A
from reproduce import md
from reproduce import verdict as V
from reproduce.framework import Study
from reproduce.papers import paper
from reproduce.studies.unsupervised import NAMES, RUN, classes

SHOWN = ("Genie3", "RF score", "URelief", "Laplace", "SPEC", "MCFS", "NDFS", "random")
FOCUS = "PCMAC"                    # the paper's Fig. 5b (its 5a, lung, is not shared)
ARI_ZERO = 0.1                     # "close to 0"


def _ari_path(stores, view):
    names = "-".join(d.name for d in view.config.datasets)
    import hashlib

    return stores.work("unsupervised-curves") / \
        f"ari-{hashlib.sha256(names.encode()).hexdigest()[:12]}.json"


def compute(stores) -> None:
    from frcli.data.hypothesis import clustering_hypothesis
    from frcli.experiment.config import parse_config
    from frcli.experiment.executor import load_spec

    view = stores[RUN.load().name]
    path = _ari_path(stores, view)
    if path.is_file():
        return
    out = {}
    for d in view.config.datasets:
        spec = parse_config({"name": "ari", "datasets": [
            {"name": d.name, "path": d.path[0], "targets": "class"}],
            "rankers": ["uniform"]}, "ari.yaml").datasets[0]
        data, _ = load_spec(spec)
        out[d.name] = clustering_hypothesis(data)["ari_median"]
    path.write_text(json.dumps(out, indent=1, sort_keys=True), encoding="utf-8")


def curves(view) -> pd.DataFrame:
    """Mean over the folds (weighted by size) of the 1NN MSE with the top k features:
    index (dataset, name), columns k."""
    n_classes = classes(view)
    f = view.frame
    f = f[f["measure"].str.startswith("reconstruction_mse@")].copy()
    f["k"] = f["measure"].str.split("@").str[1].astype(int)
    keep = [not (m in ("mcfs", "ndfs") and md.params(p).get("clusters") != n_classes[d])
            for d, m, p in zip(f["dataset"], f["method"], f["params"])]
    f = f[keep]
    f["name"] = [NAMES.get(m, m) for m in f["method"]]
    r = view.runs[["dataset", "split", "method", "params", "n_test"]]
    f = f.merge(r, on=["dataset", "split", "method", "params"])
    f["w"] = f["value"] * f["n_test"]
    g = f.groupby(["dataset", "name", "k"])
    return (g["w"].sum() / g["n_test"].sum()).unstack("k")


def _figure(c: pd.DataFrame, sets: list[str]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(sets)
    cols = 4
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(12, 2.6 * rows), squeeze=False)
    colors = plt.get_cmap("tab10")
    for i, d in enumerate(sets):
        ax = axes[i // cols][i % cols]
        for j, name in enumerate(SHOWN):
            if (d, name) in c.index:
                s = c.loc[(d, name)].dropna()
                ax.plot(s.index, s.to_numpy(), marker=".", lw=1, ms=3, color=colors(j),
                        label=name)
        ax.set_xscale("log", base=2)
        ax.set_title(d, fontsize=9)
        ax.tick_params(labelsize=7)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower right", ncol=4, fontsize=8, frameon=False)
    fig.supxlabel("number of top-ranked features (log scale)", fontsize=9)
    fig.supylabel("MSE of the 1NN (lower is better)", fontsize=9)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    link = A.save_png(fig, "unsupervised-curves", dpi=90)
    plt.close(fig)
    return link


def _pcmac_parts(c: pd.DataFrame) -> tuple[list, list, list[str]]:
    """Per ranking on PCMAC: does the MSE rise after its early best (k <= 8), and fall again
    after 32 or 64 features?"""
    rise, fall, text = [], [], []
    for name in SHOWN:
        if (FOCUS, name) not in c.index or name == "random":
            continue
        s = c.loc[(FOCUS, name)].dropna()
        early = s[s.index <= 8]
        mid = s[(s.index > 8) & (s.index <= 64)]
        late = s[s.index >= 32]
        if early.empty or mid.empty or late.empty:
            continue
        up = bool(mid.max() > early.min())
        peak_k = int(s[(s.index > 8)].idxmax())
        down = bool(s[s.index > peak_k].min() < s[peak_k]) if (s.index > peak_k).any() \
            else False
        rise.append(up)
        fall.append(down and peak_k in (16, 32, 64))
        text.append(f"{name} {'up' if up else 'flat'} after k ≤ 8, peak at {peak_k}")
    return rise, fall, text


def render(stores) -> str:
    P = paper("p-uns")
    view = stores[RUN.load().name]
    c = curves(view)
    sets = sorted({d for d, _ in c.index}, key=lambda d: (d != FOCUS, d.lower()))
    fig = _figure(c, sets)
    ari = json.loads(_ari_path(stores, view).read_text(encoding="utf-8"))
    near0 = sorted(d for d, v in ari.items() if abs(v) < ARI_ZERO)
    c_ari, c_rise, c_fall = P.claim("ari_near_zero"), P.claim("pcmac_rise"), \
        P.claim("pcmac_fall")
    rise, fall, text = _pcmac_parts(c)
    focus_rows = []
    if (FOCUS, "Genie3") in c.index:
        ks = [k for k in c.columns if not np.isnan(c.loc[(FOCUS, "Genie3"), k])]
        focus_rows = [[name] + [_fmt(c.loc[(FOCUS, name), k]) for k in ks]
                      for name in SHOWN if (FOCUS, name) in c.index]
    out = ["## Unsupervised feature ranking: error curves and the classes (P-UNS, Figs. 1 and 5)",
           "",
           "The paper draws the 1NN's MSE against the number of top-ranked features on lung "
           f"and PCMAC (Fig. 5; the other curves are online only); lung is not shared. Ours: "
           f"the main run's curves (10-fold CV, top 1, 2, 4, …, F features, folds weighted by "
           f"size; MCFS and NDFS with the set's number of classes) on every shared set, "
           f"{FOCUS} first.", "",
           f"![error curves over the number of selected features]({fig})", ""]
    if focus_rows:
        out += [f"{FOCUS}, MSE of the 1NN with the top k features:", "",
                md.table(["ranking"] + [f"k = {k}" for k in ks], focus_rows), ""]
    out += ["K-means with k = the number of classes, median adjusted Rand index of 10 runs "
            "against the classes (the paper's Fig. 1, a density over its 26 sets, no numbers "
            "printed):", "",
            md.table(["data set", "ARI"], [[d, md.f3(ari[d])] for d in
                                           sorted(ari, key=str.lower)], "lr"), "",
            md.table(["claim (paper)", "ours", "verdict"], [
                [f"{c_ari.what} ({c_ari.cite})",
                 f"ARI below {ARI_ZERO:g} on {len(near0)} of {len(ari)} sets",
                 V.verdict(len(near0) > len(ari) / 2)],
                [f"{c_rise.what} ({c_rise.cite})", "; ".join(text) or "not run",
                 V.combine(rise)],
                [f"{c_fall.what} ({c_fall.cite})",
                 f"the MSE falls again after a peak at 16-64 features for {sum(fall)} of "
                 f"{len(fall)} rankings", V.combine(fall)],
            ], "lll"), "",
            f"\"Many\" is read as more than half of the sets, \"close to 0\" as below "
            f"{ARI_ZERO:g}; the curves' claims per ranking (random left out).", ""]
    return "\n".join(out)


def _fmt(x: float) -> str:
    return md.f3(x) if abs(x) < 100 else f"{x:.1f}"


STUDY = Study(name="unsupervised-curves", title="P-UNS (thesis Ch. 7): error curves over the "
              "number of features (Fig. 5) and the classes' ARI (Fig. 1)", configs=(RUN,),
              render=render, compute=compute, order=62,
              compute_paths=())   # k-means of the classes (scikit-learn): no engine path
