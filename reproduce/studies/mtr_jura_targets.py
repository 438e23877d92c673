"""jura: which three metals are the targets. The shared jura.arff (Mulan's file) has
Cd, Co and Cu as its last three attributes, the targets by the collection's convention; the
paper that published the collection (Spyromitros-Xioufis et al. 2016, Mach Learn 104:55-98,
pp. 82-83) says "cadmium, copper and lead are treated as target variables while the remaining
metals along with land use type, rock type and the coordinates of each location are used as
predictive features". Both readings give 15 features and 3 targets (the MTR paper's Table 3).
The Table 7 protocol is run on both, with the noise run's 50 splits, and each paper value
gets the noise section's band and p-value. Two more conventions are checked on the baseline:
Landuse and Rock as nominal features (one 0/1 term each instead of two one-hot terms) and
every other choice of three of the seven metals as targets (how specific the match is)."""
from __future__ import annotations

import itertools
import json

import numpy as np

from reproduce import md
from reproduce.framework import ConfigRef, Study
from reproduce.papers import paper
from reproduce.studies._mtr import EVAL_PATHS
from reproduce.studies.mtr_discrepancies import numpy_baseline
from reproduce.studies.mtr_noise import band, draws, p_two_sided
from reproduce.studies.mtr_table7 import COLUMNS

REPEATS = 50
FILE = "../../shared/datasets/mtr/jura.arff"      # relative to configs/
METALS = ("Cd", "Co", "Cr", "Cu", "Ni", "Pb", "Zn")
READINGS = {"jura": ("Cd", "Co", "Cu"), "jura-cd-cu-pb": ("Cd", "Cu", "Pb")}
CONV = (("RRMSE pooled over the targets (the root of the mean of MSE / Var)", "pooled"),
        ("log-transformed targets", "log"))
CONFIG = ConfigRef("configs/mtr-table7.yaml", name="mtr-jura-targets", set={
    "datasets": ["jura", {"name": "jura-cd-cu-pb", "path": FILE, "task": "mtr",
                          "targets": list(READINGS["jura-cd-cu-pb"])}],
    "protocol": {"repeats": REPEATS}})


def compute(stores) -> None:
    """Plain 5NN baseline (numpy, range-normalised distances) over the same splits for
    every choice of 3 of the 7 metals as targets, and with Landuse/Rock as nominal."""
    from frcli.data import load_dataset
    from frcli.data.splits import holdout_splits
    from frcli.evaluate.protocol import EvalSpec, evaluate_ranking

    path = stores.work("mtr-jura-targets") / "baselines-v3.json"
    if path.exists():
        return
    cfg = stores["mtr-jura-targets"].config
    file = cfg.datasets[1].path[0]
    full = load_dataset(file, targets="last:3")
    names = list(full.feature_names) + list(full.target_names)
    A = np.column_stack([full.X, full.Y])
    sp = holdout_splits(full.n_examples, cfg.protocol.test_fraction, REPEATS,
                        cfg.protocol.seed)
    k = cfg.evaluation.knn
    triples = {}
    for tri in itertools.combinations(METALS, 3):
        t = [names.index(m) for m in tri]
        f = [i for i in range(A.shape[1]) if i not in t]
        triples[",".join(tri)] = [numpy_baseline(A[tr][:, f], A[tr][:, t], A[te][:, f],
                                                 A[te][:, t], k) for tr, te in sp]
    spec = EvalSpec(knn=k, measures=("rrmse",))
    nominal = {}
    for name, tg in READINGS.items():
        ds = load_dataset(file, targets=",".join(tg))
        onehot = np.array([n.startswith(("Landuse=", "Rock=")) for n in ds.feature_names])
        # a nominal feature's distance term is 1[x1 != x2] (P0 eq. 5): half the two one-hot
        # columns' squared differences, i.e. weight 1/2 on each one-hot column
        nominal[name] = [float(evaluate_ranking(ds.subset(tr), ds.subset(te),
                                                np.where(onehot, 0.5, 1.0), spec)["rrmse"])
                         for tr, te in sp]
    # more conventions of the baseline: RRMSE pooled over the targets, log-transformed targets
    conv: dict = {}
    for name, tg in READINGS.items():
        ds = load_dataset(file, targets=",".join(tg))
        X, Y = ds.X, ds.Y
        conv[name] = {
            "pooled": [numpy_baseline(X[tr], Y[tr], X[te], Y[te], k, pooled=True)
                       for tr, te in sp],
            "log": [numpy_baseline(X[tr], np.log(Y[tr]), X[te], np.log(Y[te]), k)
                    for tr, te in sp]}
    # the three Table 7 columns with RRMSE pooled over the targets (stored rankings)
    from frcli.evaluate.knn import knn_predict

    view = stores["mtr-jura-targets"]
    runs = view.runs
    pooled: dict = {}
    for name, tg in READINGS.items():
        ds = load_dataset(file, targets=",".join(tg))
        pooled[name] = {}
        for method, _, _ in COLUMNS:
            vals = []
            for s, (tr, te) in enumerate(sp):
                if method == "uniform":
                    w = np.ones(ds.n_features)
                else:
                    r = runs[(runs["dataset"] == name) & (runs["split"] == s)
                             & (runs["method"] == method)].iloc[0]
                    names, w = view.importances(name, s, method, r["params"])
                    assert list(names) == list(ds.feature_names)
                P = knn_predict(ds.subset(tr), ds.X[te], np.asarray(w, dtype=float), k)
                msv = ((ds.Y[te] - P) ** 2).mean(axis=0) / ds.Y[tr].var(axis=0)
                vals.append(float(np.sqrt(msv.mean())))
            pooled[name][method] = vals
    path.write_text(json.dumps({"triples": triples, "nominal": nominal, "conv": conv,
                                "pooled": pooled}))


def render(stores) -> str:
    ref = paper("mtr").table("table7")["jura"]
    extra = json.loads((stores.work("mtr-jura-targets") / "baselines-v3.json").read_text())
    view = stores["mtr-jura-targets"]
    f = view.frame
    f = f[f["measure"] == "rrmse"]
    idx = draws(REPEATS)
    rows, res = [], {}
    for name, tg in READINGS.items():
        cells = [", ".join(tg) + (" (the file's last three)" if name == "jura" else
                                  " (Spyromitros-Xioufis et al. 2016)")]
        base = f[(f["dataset"] == name) & (f["method"] == "uniform")].sort_values("split")[
            "value"].to_numpy()
        for method, col, _ in COLUMNS:
            v = f[(f["dataset"] == name) & (f["method"] == method)].sort_values("split")[
                "value"].to_numpy()
            b = band(v, idx)
            p = p_two_sided(b["means"], ref[col])
            g = band(v - base, idx) if method != "uniform" else None
            res[(name, method)] = dict(mean=b["mean"], lo=b["lo"], hi=b["hi"], p=p,
                                       half=(b["hi"] - b["lo"]) / 2, gain=g)
            cells += [md.f3(b["mean"]), f"{md.f3(b['lo'])}–{md.f3(b['hi'])}", md.pval(p)]
        rows.append(cells)
    header = ["targets"]
    for _, col, label in COLUMNS:
        header += [f"{label} (paper {md.f3(ref[col])})", "95 % band", "p"]

    grow, gain_ok, gain_p = [], {}, {}
    for name, tg in READINGS.items():
        for method, col, label in COLUMNS:
            g = res[(name, method)]["gain"]
            if g is None:
                continue
            pg = ref[col] - ref["baseline"]
            pv = p_two_sided(g["means"], pg)
            gain_p[(name, label)] = pv
            gain_ok[name] = gain_ok.get(name, 0) + int(pv >= 0.05)
            grow.append([", ".join(tg), label, f"{pg:+.3f}", f"{g['mean']:+.3f}",
                         f"{g['lo']:+.3f} … {g['hi']:+.3f}", md.pval(pv)])

    tri = {k: float(np.mean(v)) for k, v in extra["triples"].items()}
    half = res[("jura", "uniform")]["half"]
    near = sorted((abs(v - ref["baseline"]), k, v) for k, v in tri.items())
    close = [(k, v) for d, k, v in near if d <= half]
    nom = {k: float(np.mean(v)) for k, v in extra["nominal"].items()}

    def cv(name, key):
        return float(np.mean(extra["conv"][name][key]))

    def near_(key):
        return abs(cv("jura", key) - ref["baseline"]) <= half
    o, c = res[("jura", "uniform")], res[("jura-cd-cu-pb", "uniform")]
    inside_o = sum(res[("jura", m)]["lo"] <= ref[k] <= res[("jura", m)]["hi"]
                   for m, k, _ in COLUMNS)
    inside_c = sum(res[("jura-cd-cu-pb", m)]["lo"] <= ref[k]
                   <= res[("jura-cd-cu-pb", m)]["hi"]
                   for m, k, _ in COLUMNS)
    pl_level, pl_gain = {}, {}
    for name in READINGS:
        pv = {m: np.array(extra["pooled"][name][m]) for m, _, _ in COLUMNS}
        pl_level[name] = sum(
            p_two_sided(band(pv[m], idx)["means"], ref[k]) >= 0.05 for m, k, _ in COLUMNS)
        pl_gain[name] = sum(
            p_two_sided(band(pv[m] - pv["uniform"], idx)["means"], ref[k] - ref["baseline"])
            >= 0.05 for m, k, _ in COLUMNS if m != "uniform")
        pl_level[name, "base"] = float(pv["uniform"].mean())
    full = [n for n in READINGS
            if sum(res[(n, m)]["lo"] <= ref[k] <= res[(n, m)]["hi"] for m, k, _ in COLUMNS)
            == 3 and gain_ok[n] == 2]
    verdict_one = (f"With {', '.join(READINGS[full[0]])} as targets every level and gain of "
                   f"the paper lies within split noise: that reading explains jura."
                   if full else "")
    return "\n".join([
        "## jura: which metals are the targets",
        "",
        "The shared `jura.arff` (Mulan's file) ends with Cd, Co and Cu, the targets by the "
        "collection's convention (last attributes) and in our Table 7 run. The paper that "
        "published the collection (Spyromitros-Xioufis et al. 2016, Mach Learn 104:55–98, "
        "pp. 82–83) describes its targets as cadmium, copper and lead, with the other metals "
        "(here Co, Cr, Ni, Zn) as features. Both give the MTR paper's 15 features and 3 "
        "targets (its Table 3), so the paper's shape cannot tell them apart. The Table 7 "
        f"config on both readings, the noise run's {REPEATS} splits and forest seeds, bands "
        "and p-values as in the noise section (`configs/mtr-table7.yaml` with other "
        "`datasets` and `protocol`):",
        "",
        md.table(header, rows, "l" + "r" * (len(header) - 1)),
        "",
        "Gains over the baseline (paired, same splits):",
        "",
        md.table(["targets", "ranking", "paper", "ours", "95 % band", "p"], grow, "llrrrr"),
        "",
        f"* Levels: with Cd, Cu and Pb as targets the baseline is {md.f3(c['mean'])} (band "
        f"{md.f3(c['lo'])}–{md.f3(c['hi'])}, p = {md.pval(c['p'])}) against the paper's "
        f"{md.f3(ref['baseline'])}; with the file's Cd, Co and Cu it is {md.f3(o['mean'])} "
        f"(p = {md.pval(o['p'])}). The paper's value lies in our band on {inside_c} of 3 "
        f"columns with Cd, Cu, Pb and on {inside_o} of 3 with Cd, Co, Cu.",
        "* Gains (p < 0.05: the paper's gain outside our band): "
        + md.listing([f"{', '.join(READINGS[n])} {lab} p = {md.pval(v)}"
                      for (n, lab), v in gain_p.items()]) + f"; {gain_ok['jura']} of 2 "
        f"gains fit with Cd, Co, Cu and {gain_ok['jura-cd-cu-pb']} of 2 with Cd, Cu, Pb.",
        "* " + (verdict_one if verdict_one else
                "Neither reading reproduces the paper's levels and gains together ("
                + "; ".join(f"{', '.join(READINGS[n])}: {lv} of 3 levels and {gain_ok[n]} "
                            f"of 2 gains" for n, lv in (("jura", inside_o),
                                                        ("jura-cd-cu-pb", inside_c)))
                + "). The jura gap is in the data (which metals are the targets, or a version "
                "of the set not shared with us), not in our evaluation, but which version the "
                "paper used cannot be settled from its numbers."),
        f"* Specificity: of the {len(tri)} choices of 3 of the 7 metals as targets, "
        f"{len(close)} give a plain 5NN baseline within the half-width {half:.3f} of a "
        f"10-split band of the paper's {md.f3(ref['baseline'])}: "
        + md.listing([f"{k.replace(',', ', ')} ({md.f3(v)})" for k, v in close]) + " (means "
        f"over the {REPEATS} splits; all {len(tri)} range from {md.f3(min(tri.values()))} to "
        f"{md.f3(max(tri.values()))}): the baseline's level alone would not single out a "
        "reading.",
        f"* Landuse and Rock as nominal features (one 0/1 term each, P0 eq. 5, instead of two "
        f"one-hot terms): baseline {md.f3(nom['jura'])} (Cd, Co, Cu) and "
        f"{md.f3(nom['jura-cd-cu-pb'])} (Cd, Cu, Pb), against {md.f3(o['mean'])} and "
        f"{md.f3(c['mean'])} one-hot: not the cause.",
        "* Other conventions of the baseline (Cd, Co, Cu / Cd, Cu, Pb; the paper "
        f"{md.f3(ref['baseline'])}): "
        + md.listing([f"{lab} {md.f3(cv('jura', key))} / {md.f3(cv('jura-cd-cu-pb', key))}"
                      + (f" (Cd, Co, Cu within the half-width {half:.3f} of the paper's)"
                         if near_(key) else "") for lab, key in CONV])
        + ". The paper defines RRMSE as the mean of the targets' RRMSE (P0 §4.3), which is "
        "ours; feature scaling and the test-set variance as the normaliser are in the "
        "discrepancies section's table. All three columns with the pooled RRMSE (the stored "
        "rankings; within split noise: p ≥ 0.05): "
        + "; ".join(f"{', '.join(READINGS[n])}: baseline {md.f3(pl_level[n, 'base'])}, "
                    f"{pl_level[n]} of 3 levels and {pl_gain[n]} of 2 gains within split "
                    "noise" for n in READINGS) + ".",
    ])


STUDY = Study(
    name="mtr-jura-targets",
    title="jura: Cd, Co, Cu (the file's last three) or Cd, Cu, Pb (documented) as targets",
    configs=(CONFIG,),
    render=render,
    compute=compute,
    order=15,
    compute_paths=EVAL_PATHS,
    universe=("jura",),
)
