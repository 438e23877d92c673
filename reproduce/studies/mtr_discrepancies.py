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
from reproduce.studies._mtr import PAPER_NAME
from reproduce.studies.mtr_noise import GROUP, STUDY as NOISE

SPLITS = 50                    # splits of the noise run used for the variants
MOSTLY_MISSING = 0.5           # "mostly missing": more than half of the values
CLUS_REF = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / \
    "clus-reference" / "mtr-rf100-seeds"
G3 = "genie3-rf-str"


def _imputed(ds, train_rows):
    """Missing feature values replaced by the training part's means (a common alternative)."""
    X = ds.X.copy()
    mu = np.nan_to_num(np.nanmean(X[train_rows], axis=0))
    r, c = np.nonzero(np.isnan(X))
    X[r, c] = mu[c]
    return dataclasses.replace(ds, X=X)


def numpy_baseline(Xtr, Ytr, Xte, Yte, k: int) -> float:
    """Plain 5NN RRMSE written out in numpy (no missing values): range-normalised Euclidean
    distances, ties to the lower training row, training-variance RRMSE (P0 eq. 11, 5.1)."""
    lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    s = np.where(hi > lo, hi - lo, 1.0)
    A, B = (Xtr - lo) / s, (Xte - lo) / s
    D = ((B[:, None, :] - A[None, :, :]) ** 2).sum(axis=2)
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    P = Ytr[idx].mean(axis=1)
    return float(np.mean(np.sqrt(((Yte - P) ** 2).mean(axis=0) / Ytr.var(axis=0))))


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
                tri, tei = _imputed(train, tr), _imputed(test, tr)
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


def ours_share(name: str, miss: np.ndarray, seeds=(1, 2, 3)) -> list[float]:
    """The same for our 100-tree random forests (Genie3, MTR) on all rows."""
    from frcli.data import catalog
    from frcli.rankers.registry import get_ranker

    ds = catalog.load(name)
    out = []
    for s in seeds:
        imp = get_ranker("genie3-rf").rank(ds, {"trees": 100}, seed=s)[0].importances
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
    ou = ours_share("osales", miss)
    g3share = float(np.mean(var["osales"]["genie3 share on mostly-missing"]))

    ob = np.array(var["osales"]["baseline"])
    og = np.array(var["osales"]["genie3"])
    ogi = np.array(var["osales"]["genie3 imputed"])
    obi = np.array(var["osales"]["baseline imputed"])

    # -- scpf: from the noise run (all repeats)
    f = view.frame
    f = f[(f["measure"] == "rrmse") & (f["dataset"] == "scpf")]
    base = f[f["method"] == "uniform"].sort_values("split")["value"].to_numpy()
    groups = base[: len(base) // GROUP * GROUP].reshape(-1, GROUP).mean(axis=1)
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
        f"plain 5NN do not reach the paper's {md.f3(pj['baseline'])} either: RRMSE "
        f"{md.listing([md.f3(x) for x in jura_vals])} with range-normalised features (the "
        f"paper's eq. 11), z-scored features, unscaled features and the test-set variance as "
        f"the normaliser. No tested convention explains jura; the most likely cause is a "
        f"different version or preprocessing of the data set, which the paper does not "
        f"document.",
        "",
        md.table(["data set", "paper", "ours (paper's definition)", "z-scored features",
                  "unscaled features", "RRMSE by test variance"], rows),
        "",
        "(Plain 5NN, mean over the splits; for osales and scpf the missing-value terms are "
        "rescaled alike.)",
        "",
        "### osales (and scpf): missing values in the kNN meet rankings that favour them",
        "",
        f"osales has {n_mm} features with more than {100 * MOSTLY_MISSING:.0f} % missing "
        f"values. The kNN's distance for a missing value is the rule the paper's eq. 5 and "
        f"CLUS use (both missing: 1; one missing: max(t, 1 − t)), so a feature that is mostly "
        f"missing separates rows by their missingness pattern. The Genie3-RF-STR rankings put "
        f"on average {100 * g3share:.0f} % of their weight on those {n_mm} features "
        f"({100 * n_mm / len(miss):.1f} % of the features): the weighted 5NN gets "
        f"{md.f3(og.mean())} against the baseline's {md.f3(ob.mean())} and wins on "
        f"{int(np.sum(np.round(og, 3) < np.round(ob, 3)))} of {n} splits. Replacing missing "
        f"values by training means before the kNN reverses the order as in the paper "
        f"({md.f3(ogi.mean())} against {md.f3(obi.mean())}, better on "
        f"{int(np.sum(np.round(ogi, 3) < np.round(obi, 3)))} of {n}); so does giving the "
        f"mostly-missing features weight 0.",
        "",
        md.table(["data set", "ranking", "paper", "ours", "splits better than baseline",
                  "ours, mean-imputed kNN", "splits better"], mrows, "llrrrrr"),
        "",
        "The trees favour those features more than CLUS's do. Share of the overall Genie3 "
        "weight on osales' mostly-missing features, 100-tree random forests on all rows: "
        "CLUS " + md.listing([f"{100 * s:.0f} % (seed {k})" for k, s in cl]) + ", ours "
        + md.listing([f"{100 * s:.0f} %" for s in ou]) + " (seeds 1–3). The kNN rule is the "
        "paper's stated one, so it is kept; the trees' treatment of missing values (CLUS "
        "splits on the known values and sends the others down both branches) is under "
        "review in the CLUS-agreement work (issue 14), whose changes this section will "
        "pick up on regeneration.",
        "",
        "### scpf: heavy-tailed targets, an extreme draw of splits",
        "",
        f"scpf's targets are counts with a long tail; a single test row far above the "
        f"training range dominates a split's squared error (per-split baseline up to "
        f"{md.f3(worst)}). The Table 7 splits (repeats 0–{GROUP - 1}) give a baseline mean of "
        f"{md.f3(seed0)}, at percentile {100 * np.mean(groups <= seed0):.0f} of the "
        f"{len(groups)} disjoint 10-split means of the noise run; the other "
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
    draft=True,
)
