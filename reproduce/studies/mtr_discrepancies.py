"""jura, osales and scpf: the three MTR Table 7 sets where ours and the paper's differ most.
Evidence from the noise-band run (the Table 7 config with many split repeats): the baseline
under other feature scalings and RRMSE normalisers (jura), the kNN's missing-value rule and the
weight the rankings put on features that are mostly missing (osales, scpf), and CLUS's own
rankings of osales (../shared/datasets/clus-reference/mtr-rf100-seeds) for the trees' share."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from reproduce import md
from reproduce.framework import Study
from reproduce.papers import paper
from reproduce.studies._mtr import EVAL_PATHS, PAPER_NAME
from reproduce.studies.mtr_noise import GROUP, STUDY as NOISE, band, draws

SPLITS = 50                    # splits of the noise run used for the variants
MOSTLY_MISSING = 0.5           # "mostly missing": more than half of the values
CLUS_REF = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / \
    "clus-reference" / "mtr-rf100-seeds"
G3 = "genie3-rf-str"


def _imputed(ds, mu):
    """Missing feature values replaced by ``mu``, the training part's means (a common
    alternative to the distance rule for missing values)."""
    X = ds.X.copy()
    r, c = np.nonzero(np.isnan(X))
    X[r, c] = mu[c]
    return dataclasses.replace(ds, X=X)


def numpy_baseline(Xtr, Ytr, Xte, Yte, k: int, pooled: bool = False) -> float:
    """Plain 5NN RRMSE written out in numpy (no missing values): range-normalised Euclidean
    distances, ties to the lower training row, training-variance RRMSE (P0 eq. 11, 5.1), the
    mean of the targets' RRMSE (``pooled``: the root of the mean of their MSE / Var instead).

    Distances are rounded to 1e-12 before the stable sort: rows at the same mathematical
    distance (common on sets with few distinct values, e.g. enb) otherwise get distances that
    differ in the last bits, and floating-point noise instead of the tie rule (A10) picks the
    5th neighbour (without the rounding enb differs by up to 1.5e-3 on all 50 splits)."""
    lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    s = np.where(hi > lo, hi - lo, 1.0)
    A, B = (Xtr - lo) / s, (Xte - lo) / s
    D = np.round(((B[:, None, :] - A[None, :, :]) ** 2).sum(axis=2), 12)
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    P = Ytr[idx].mean(axis=1)
    r = ((Yte - P) ** 2).mean(axis=0) / Ytr.var(axis=0)
    return float(np.sqrt(r.mean()) if pooled else np.mean(np.sqrt(r)))


def compute(stores) -> None:
    """RRMSE of the Table 7 columns under evaluation variants, per data set and split."""
    from frcli.data import catalog
    from frcli.data.splits import holdout_splits
    from frcli.evaluate.protocol import EvalSpec, evaluate_ranking

    path = stores.work("mtr-discrepancies") / "variants.json"
    if path.exists():
        return
    view = stores["mtr-noise"]
    cfg = view.config
    runs = view.runs
    spec = EvalSpec(knn=cfg.evaluation.knn, measures=("rrmse",))
    spec_test = dataclasses.replace(spec, variance="test")
    out: dict = {}
    for d in cfg.datasets:
        part = path.parent / f"variants-{d.name}.json"      # per set: resumable
        if part.exists():
            out[d.name] = json.loads(part.read_text())
            continue
        ds = catalog.load(d.name)
        sp = holdout_splits(ds.n_examples, cfg.protocol.test_fraction, SPLITS,
                            cfg.protocol.seed)
        miss = np.isnan(ds.X).mean(axis=0)
        res: dict[str, list[float]] = {}
        for s, (tr, te) in enumerate(sp):
            train, test = ds.subset(tr), ds.subset(te)
            ones = np.ones(ds.n_features)
            X = ds.X[tr]
            rng = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
            rng = np.where(rng > 0, rng, 1.0)
            sd = np.nanstd(X, axis=0)
            sd = np.where(sd > 0, sd, 1.0)

            def ev(w, sp_=spec, a=train, b=test):
                return float(evaluate_ranking(a, b, w, sp_)["rrmse"])

            # range-normalised distances scaled to z-scores / raw units via the weights
            res.setdefault("baseline", []).append(ev(ones))
            res.setdefault("baseline z-score", []).append(ev((rng / sd) ** 2))
            res.setdefault("baseline unscaled", []).append(ev(rng ** 2))
            res.setdefault("baseline test variance", []).append(ev(ones, spec_test))
            if not miss.any():
                res.setdefault("baseline numpy", []).append(numpy_baseline(
                    ds.X[tr], ds.Y[tr], ds.X[te], ds.Y[te], cfg.evaluation.knn))
            if miss.any():
                r = runs[(runs["dataset"] == d.name) & (runs["split"] == s)]
                imp = {}
                for m in (G3, "relief"):
                    row = r[r["method"] == m].iloc[0]
                    imp[m] = view.importances(d.name, s, m, row["params"])[1]
                mu = np.nan_to_num(np.nanmean(ds.X[tr], axis=0))
                tri, tei = _imputed(train, mu), _imputed(test, mu)
                res.setdefault("genie3", []).append(ev(imp[G3]))
                res.setdefault("relief", []).append(ev(imp["relief"]))
                res.setdefault("baseline imputed", []).append(ev(ones, spec, tri, tei))
                res.setdefault("genie3 imputed", []).append(ev(imp[G3], spec, tri, tei))
                res.setdefault("relief imputed", []).append(ev(imp["relief"], spec, tri, tei))
                res.setdefault("genie3 mostly-missing zeroed", []).append(
                    ev(np.where(miss > MOSTLY_MISSING, 0.0, imp[G3])))
                w = np.maximum(np.nan_to_num(imp[G3]), 0)
                res.setdefault("genie3 share on mostly-missing", []).append(
                    float(w[miss > MOSTLY_MISSING].sum() / w.sum()))
        out[d.name] = res
        part.write_text(json.dumps(res))
    path.write_text(json.dumps(out))


def clus_share(name: str, miss: np.ndarray, names: list[str]) -> list[tuple[int, float]]:
    """(seed, share of the overall Genie3 weight on mostly-missing features) of CLUS's
    100-tree random forests, the overall column taken as CLUS prints it."""
    out = []
    for seed in (1, 2, 3):
        f = CLUS_REF / f"{name}__seed{seed}_Genie3.fimp"
        if not f.exists():
            continue
        imp = {}
        for line in f.read_text().split("\n"):
            parts = line.split("\t")
            if len(parts) >= 4 and parts[0].strip().isdigit():
                imp[parts[1]] = float(parts[3].strip("[] ").split(",")[0])
        w = np.maximum(np.array([imp[n] for n in names]), 0)
        out.append((seed, float(w[miss > MOSTLY_MISSING].sum() / w.sum())))
    return out


def ours_share(name: str, miss: np.ndarray, scale: str, seeds=(1, 2, 3)) -> list[float]:
    """The same for our 100-tree random forests (Genie3, MTR) on all rows, the overall Genie3
    under ``genie3_scale`` = ``scale`` ("raw": CLUS 2.12.8's overall column, the mean of its
    per-target columns; "normalised": the papers' definition, our default)."""
    from frcli.data import catalog
    from frcli.rankers.registry import get_ranker

    ds = catalog.load(name)
    out = []
    for s in seeds:
        imp = get_ranker("genie3-rf").rank(ds, {"trees": 100, "genie3_scale": scale,
                                                "ties": "first"}, seed=s)[0].importances
        w = np.maximum(np.nan_to_num(imp), 0)
        out.append(float(w[miss > MOSTLY_MISSING].sum() / w.sum()))
    return out


def render(stores) -> str:
    from frcli.data import catalog

    P = paper("mtr")
    ref = P.table("table7")
    var = json.loads((stores.work("mtr-discrepancies") / "variants.json").read_text())
    view = stores["mtr-noise"]
    sets = [d.name for d in view.config.datasets]

    def mean(ds, k):
        return float(np.mean(var[ds][k]))

    # -- baseline conventions, every set
    rows = []
    for d in sets:
        p = ref[PAPER_NAME[d]]["baseline"]
        rows.append([PAPER_NAME[d], md.f3(p)] + [md.f3(mean(d, k)) for k in
                    ("baseline", "baseline z-score", "baseline unscaled",
                     "baseline test variance")])
    jura_vals = [mean("jura", k) for k in ("baseline", "baseline z-score", "baseline unscaled",
                                            "baseline test variance")]
    pj = ref["jura"]
    dev = max(abs(a - b) for d in sets if "baseline numpy" in var[d]
              for a, b in zip(var[d]["baseline"], var[d]["baseline numpy"]))
    n_np = sum(1 for d in sets if "baseline numpy" in var[d])
    dev_s = "exactly" if dev == 0 else f"to {dev:.0e}"
    gain_p = (pj["genie3-rf-str"] - pj["baseline"], pj["relief"] - pj["baseline"])
    t7 = stores["mtr-noise"].frame
    t7 = t7[(t7["measure"] == "rrmse") & (t7["dataset"] == "jura")]
    mj = t7.groupby("method")["value"].mean()
    gain_o = (mj[G3] - mj["uniform"], mj["relief"] - mj["uniform"])
    conv = ("range-normalised features (the paper's eq. 11)", "z-scored features",
            "unscaled features", "the test-set variance as the normaliser")
    jb = t7[t7["method"] == "uniform"].sort_values("split")["value"].to_numpy()
    jband = band(jb, draws(len(jb)))
    half = (jband["hi"] - jband["lo"]) / 2
    close = [(abs(v - pj["baseline"]), c, v) for c, v in zip(conv, jura_vals)]
    best_gap, best_conv, best_val = min(close)
    jura_verdict = (
        f"No tested convention explains jura: the closest ({best_conv}, "
        f"{md.f3(best_val)}) is still {best_gap:.3f} from the paper's value, more than the "
        f"half-width {half:.3f} of our 95 % band for a 10-split mean of the baseline. Which "
        f"of jura's seven metals are the targets is examined in "
        f"[a later section](#jura-which-metals-are-the-targets)." if best_gap > half else
        f"{best_conv.capitalize()} brings the baseline to {md.f3(best_val)}, within the "
        f"half-width {half:.3f} of our 95 % band of the paper's value: that convention "
        f"explains the gap.")

    # -- missing values: osales and scpf
    mrows = []
    for d in sets:
        if "genie3" not in var[d]:
            continue
        b = np.array(var[d]["baseline"])
        bi = np.array(var[d]["baseline imputed"])
        p = ref[PAPER_NAME[d]]
        for k, pk in (("baseline", "baseline"), ("genie3", "genie3-rf-str"),
                      ("relief", "relief")):
            v, vi = np.array(var[d][k]), np.array(var[d][k + " imputed"])
            mrows.append([PAPER_NAME[d], {"baseline": "5NN baseline", "genie3": "Genie3-RF-STR",
                                          "relief": "It100Neigh15MTR"}[k], md.f3(p[pk]),
                          md.f3(v.mean()), f"{int(np.sum(np.round(v, 3) < np.round(b, 3)))}",
                          md.f3(vi.mean()), f"{int(np.sum(np.round(vi, 3) < np.round(bi, 3)))}"])
        z = np.array(var[d]["genie3 mostly-missing zeroed"])
        mrows.append([PAPER_NAME[d], "Genie3-RF-STR, mostly-missing features weight 0", "–",
                      md.f3(z.mean()), f"{int(np.sum(np.round(z, 3) < np.round(b, 3)))}", "–",
                      "–"])
    n = len(var["osales"]["baseline"])

    ds = catalog.load("osales")
    miss = np.isnan(ds.X).mean(axis=0)
    n_mm = int(np.sum(miss > MOSTLY_MISSING))
    cl = clus_share("osales", miss, ds.feature_names)
    ou = ours_share("osales", miss, "raw")            # like for like with CLUS's column
    on = ours_share("osales", miss, "normalised")     # what the rankings above use
    g3share = float(np.mean(var["osales"]["genie3 share on mostly-missing"]))

    ob = np.array(var["osales"]["baseline"])
    og = np.array(var["osales"]["genie3"])
    ogi = np.array(var["osales"]["genie3 imputed"])
    obi = np.array(var["osales"]["baseline imputed"])
    oz = np.array(var["osales"]["genie3 mostly-missing zeroed"])
    if og.mean() < ob.mean():       # the paper's order already (Genie3 ahead)
        imputed_says = ("keeps that order" if ogi.mean() < obi.mean() else
                        "reverses that order")
    else:
        imputed_says = ("reverses the order as in the paper" if ogi.mean() < obi.mean() else
                        "does not reverse the order")
    zero_says = ("so does" if (oz.mean() < ob.mean()) == (ogi.mean() < obi.mean())
                 else "the opposite holds for")
    trees_say = ("favour those features more than CLUS's do" if min(ou) > max(s for _, s in cl)
                 else ("favour them less than CLUS's do" if max(ou) < min(s for _, s in cl)
                       else "favour them about as much as CLUS's do"))

    # -- scpf: from the noise run (all repeats)
    f = view.frame
    f = f[(f["measure"] == "rrmse") & (f["dataset"] == "scpf")]
    base = f[f["method"] == "uniform"].sort_values("split")["value"].to_numpy()
    groups = band(base, draws(len(base)))["means"]
    seed0 = base[:GROUP].mean()
    fresh = {m: f[(f["method"] == m) & (f["split"] >= GROUP)]["value"].mean()
             for m in ("uniform", G3, "relief")}
    ps = ref["scpf"]
    worst = float(base.max())
    return "\n".join([
        "## jura, osales and scpf: where ours and the paper's Table 7 differ",
        "",
        f"Evidence from the noise-band run (`mtr-noise`: the Table 7 config with more split "
        f"repeats; the variants below use its first {n} splits and the rankings stored for "
        f"them). Whether a gap is more than split noise is decided in the noise section.",
        "",
        "### jura: the baseline itself is lower than the paper's",
        "",
        f"The gap is in every column alike, so it is in the evaluation or the data, not in "
        f"the rankings: the paper's gains over its baseline are {gain_p[0]:+.3f} "
        f"(Genie3-RF-STR) and {gain_p[1]:+.3f} (It100Neigh15MTR), ours {gain_o[0]:+.3f} and "
        f"{gain_o[1]:+.3f} (mean over the noise run's splits). The shared jura has the "
        f"paper's shape (359 rows, 15 numeric features, 3 targets, P0 Table 3), and our 5NN "
        f"baseline equals a plain numpy implementation {dev_s} on every split of the "
        f"{n_np} sets without missing values. Other conventions for the "
        f"plain 5NN against the paper's {md.f3(pj['baseline'])}: RRMSE "
        + md.listing([f"{md.f3(x)} with {c}" for c, x in zip(conv, jura_vals)]) + ". "
        + jura_verdict,
        "",
        md.table(["data set", "paper", "ours (paper's definition)", "z-scored features",
                  "unscaled features", "RRMSE by test variance"], rows),
        "",
        "(Plain 5NN, mean over the splits; for osales and scpf the missing-value terms are "
        "rescaled alike.)",
        "",
        "### osales (and scpf): missing values in the kNN and in the rankings",
        "",
        f"osales has {n_mm} features with more than {100 * MOSTLY_MISSING:.0f} % missing "
        f"values. The kNN's distance for a missing value is the rule the paper's eq. 5 and "
        f"CLUS use (both missing: 1; one missing: max(t, 1 − t)), so a feature that is mostly "
        f"missing separates rows by their missingness pattern. The Genie3-RF-STR rankings "
        f"(frcli's default, CLUS's rule for tests on missing values) put on average "
        f"{100 * g3share:.0f} % of their weight on those {n_mm} features "
        f"({100 * n_mm / len(miss):.1f} % of the features): the weighted 5NN gets "
        f"{md.f3(og.mean())} against the baseline's {md.f3(ob.mean())} and wins on "
        f"{int(np.sum(np.round(og, 3) < np.round(ob, 3)))} of {n} splits. Replacing missing "
        f"values by training means before the kNN {imputed_says} "
        f"({md.f3(ogi.mean())} against {md.f3(obi.mean())}, better on "
        f"{int(np.sum(np.round(ogi, 3) < np.round(obi, 3)))} of {n}); {zero_says} giving the "
        f"mostly-missing features weight 0 ({md.f3(oz.mean())}).",
        "",
        md.table(["data set", "ranking", "paper", "ours", "splits better than baseline",
                  "ours, mean-imputed kNN", "splits better"], mrows, "llrrrrr"),
        "",
        f"Our forests' Genie3 scores {trees_say}. Share of the overall Genie3 "
        "weight on osales' mostly-missing features, 100-tree random forests on all rows: "
        "CLUS " + md.listing([f"{100 * s:.0f} % (seed {k})" for k, s in cl]) + ", ours with "
        "CLUS's definition of that column (`genie3_scale=raw`, the mean of the per-target "
        "columns) " + md.listing([f"{100 * s:.0f} %" for s in ou]) + " and with the papers' "
        "scale (`genie3_scale=normalised`, the default, used by the rankings above) "
        + md.listing([f"{100 * s:.0f} %" for s in on]) + " (seeds 1–3; the random draws "
        "differ, so only the level is comparable). Our single trees equal CLUS's on osales, "
        "missing values included (rows with a missing tested value go down both branches "
        "with CLUS's weights; `tests/engines/pct/test_tree_clus.py`), so single trees are not the "
        "suspect" + ("; what makes our forests weigh those features more than CLUS's is "
                     "how Genie3 scores a test on a feature with missing values "
                     "([next section](#genie3-and-missing-values-cluss-rule-for-the-score-of-"
                     "a-test))" if trees_say.startswith("favour those") else "")
        + ". The kNN's rule for missing values is the paper's stated one and is kept. "
        "Rankings that score a test on a feature with missing values on its known rows only "
        "(`genie3_missing=known`, the literal h* and frcli's default until the next section's "
        "evidence) put more weight on these features; the next section compares both rules "
        "under the Table 7 protocol.",
        "",
        "### scpf: heavy-tailed targets and the draw of splits",
        "",
        f"scpf's targets are counts with a long tail; a single test row far above the "
        f"training range dominates a split's squared error (per-split baseline from "
        f"{md.f3(float(base.min()))} to {md.f3(worst)}, median "
        f"{md.f3(float(np.median(base)))}). The Table 7 splits (repeats 0–{GROUP - 1}) give "
        f"a baseline mean of "
        f"{md.f3(seed0)}, at percentile {100 * np.mean(groups <= seed0):.1f} of the "
        f"bootstrapped 10-split means of the noise run's {len(base)} splits; the other "
        f"{len(base) - GROUP} splits give {md.f3(fresh['uniform'])} / "
        f"{md.f3(fresh[G3])} / {md.f3(fresh['relief'])} against the paper's "
        f"{md.f3(ps['baseline'])} / {md.f3(ps['genie3-rf-str'])} / {md.f3(ps['relief'])}. "
        f"Whether that remaining gap is noise is in the noise section's table.",
    ])


STUDY = Study(
    name="mtr-discrepancies",
    title="jura, osales, scpf: evidence for the Table 7 gaps",
    configs=NOISE.configs,
    render=render,
    compute=compute,
    order=13,
    compute_paths=EVAL_PATHS,
    universe=("jura", "osales", "scpf"),
    paper_sets="mtr:table7",
)
