"""Assumption A20 (spec-ssl-unsup §9): which rows train the kNN that judges a semi-supervised
ranking. The configs train it on the fully labelled training fold (the resolution); the other
reading trains it on the fold's L labelled rows only. P-DS says that at L = 50 the 20NN with
the supervised rankings "only achieves a default accuracy" on tic-tac-toe (T:6626-6629): which
reading gives that?

Both readings judge the same stored rankings (the P-DS and P-ML stores; no ranking is
recomputed): ``compute`` re-evaluates every stored ranking of a labelled run with the kNN
trained on the labelled rows only (``knn_train: labeled`` of frcli's runner does the same
when it ranks), with the config's evaluation (20NN and 40NN, confusion matrices), and keeps
the tidy rows in the study's work folder under a key of the stores' runs. Cost: kNN
evaluations on at most 500 training rows, measured in the section."""
from __future__ import annotations

import hashlib
import time

import numpy as np
import pandas as pd

from frcli.stats.pooling import pooled_confusion
from reproduce import md
from reproduce import verdict as V
from reproduce.artifacts import read_json_gz, write_json_gz
from reproduce.framework import Study
from reproduce.papers import paper
from reproduce.studies import _subset
from reproduce.studies import ssl as SP
from reproduce.studies import ssl_classification as SC

STORES = (SC.RUN, SP.REG, SP.MLC)


def _key(view) -> str:
    """A key of the runs a store holds (the re-evaluation follows them)."""
    r = view.runs
    h = hashlib.sha256(pd.util.hash_pandas_object(
        r[["dataset", "split", "labeled", "method", "params"]].astype(str), index=False)
        .to_numpy().tobytes())
    return h.hexdigest()[:12]


def _path(stores, view):
    return stores.work("ssl-a20") / f"labeled-{view.config.name}-{_key(view)}.json.gz"


def reevaluate(view) -> tuple[pd.DataFrame, float]:
    """Tidy rows (dataset, split, labeled, method, params, measure, value) of every stored
    labelled run, its ranking judged by the kNN trained on the labelled rows only; and the
    seconds it took."""
    from types import SimpleNamespace

    from frcli.evaluate.protocol import evaluate_ranking
    from frcli.experiment.executor import _labelled_rows, _splits, load_spec

    t0 = time.perf_counter()
    cfg = view.config
    runs = view.runs
    runs = runs[runs["labeled"].notna() & (runs["labeled"] > 0)]
    rows = []
    for spec in cfg.datasets:
        part = runs[runs["dataset"] == spec.name]
        if part.empty:
            continue
        data, _ = load_spec(spec)
        splits = _splits(spec, cfg.protocol)
        for (split, labeled), g in part.groupby(["split", "labeled"], sort=True):
            train_idx, test_idx = splits[int(split)]
            task = SimpleNamespace(protocol=cfg.protocol, dataset=spec, labeled=int(labeled),
                                   split=int(split))
            lab = _labelled_rows(task, train_idx)
            train, test = data.subset(lab), data.subset(test_idx)
            for r in g.itertuples():
                got = view.importances(r.dataset, int(r.split), r.method, r.params,
                                       int(r.labeled))
                if got is None:
                    continue
                scores = evaluate_ranking(train, test, np.asarray(got[1]), cfg.evaluation)
                rows += [{"dataset": r.dataset, "split": int(r.split),
                          "labeled": int(r.labeled), "method": r.method, "params": r.params,
                          "measure": m, "value": float(v)} for m, v in scores.items()]
    return pd.DataFrame(rows), time.perf_counter() - t0


def compute(stores) -> None:
    for ref in STORES:
        view = stores[_subset.store_name(ref)]
        path = _path(stores, view)
        if path.is_file():
            continue
        frame, seconds = reevaluate(view)
        write_json_gz(path, {"seconds": seconds, "rows": frame.to_dict("records")})


def load(stores, view) -> tuple[pd.DataFrame, float]:
    doc = read_json_gz(_path(stores, view))
    f = pd.DataFrame(doc["rows"])
    if not f.empty:
        f["labeled"] = f["labeled"].astype("Int64")
    return f, float(doc["seconds"])


# -- the section -------------------------------------------------------------------------------

def _majority(view, dataset: str) -> float:
    from frcli.experiment.executor import load_spec

    spec = next(d for d in view.config.datasets if d.name == dataset)
    data, _ = load_spec(spec)
    y = data.Y[:, 0]
    y = y[~np.isnan(y)]
    return float(np.bincount(y.astype(np.intp)).max() / y.size)


def render(stores) -> str:
    from frcli.rankers.ensemble import TASK_ENSEMBLES
    from reproduce.studies import _ssl_render as R

    P, PM = paper("p-ds"), paper("p-ml")
    claim = P.claim("sl_default_accuracy")
    mc_paper = PM.fact("mc_tictactoe")
    view = stores[_subset.store_name(SC.RUN)]
    full = view.frame
    lab, secs = load(stores, view)
    chosen = TASK_ENSEMBLES[("semi-supervised", "classification")]
    out = ["## Semi-supervised evaluation: which rows train the kNN (A20)", "",
           "The papers do not say whether the kNN that judges a semi-supervised ranking is "
           "trained on the fully labelled training fold or on its L labelled rows only "
           "(spec-ssl-unsup A20). The configs use the first reading; here every stored ranking "
           "of the P-DS and P-ML runs is judged under both (the rankings are the same: only "
           "the kNN's training rows differ; `reproduce/studies/ssl_a20.py`). "
           f"P-DS: \"{claim.value}\" ({claim.cite}): with the supervised rankings at L = 50 the "
           f"20NN reaches only the default accuracy on tic-tac-toe (its majority share, "
           f"{mc_paper.value:g} in P-ML's Table 1, {mc_paper.cite}).", ""]

    # pooled 20NN accuracy on tic-tac-toe (and the other P-DS sets run), both readings
    pooled = {"fully labelled fold": pooled_confusion(full),
              "labelled rows only": pooled_confusion(lab)}
    sets = [d for d in SC.SETS if d in set(full["dataset"])]
    Ls = sorted(int(x) for x in full["labeled"].dropna().unique())
    rows, parts = [], {}
    n_rows = view.runs.groupby(["dataset", "labeled", "method", "params"])["n_test"].sum()
    for d in sets:
        mc = _majority(view, d)
        for reading, pf in pooled.items():
            pf = pf[pf["dataset"] == d].copy()
            pf["lbl"] = [" ".join(x for x in R._label(m, p) if x) for m, p in
                         zip(pf["method"], pf["params"])]
            for setting in ("sl", "ssl"):
                for score in R.SCORES:
                    sub = pf[pf["lbl"] == f"{setting} {score} {chosen[score]}"]
                    acc = dict(zip(sub["labeled"].astype(int), sub["accuracy"]))
                    rows.append([d, reading, f"{setting.upper()} {R.SCORE_NAMES[score]}-"
                                 f"{chosen[score]}"] + [md.f3(acc.get(L, np.nan)) for L in Ls])
                    if setting == "sl" and d == "tic-tac-toe" and Ls:
                        a = acc.get(Ls[0], np.nan)
                        key = sub.iloc[0] if len(sub) else None
                        n = int(n_rows.get((d, Ls[0], key["method"], key["params"]), 0)) \
                            if key is not None else 0
                        band = V.proportion_band(a, n) if n and not np.isnan(a) else None
                        parts.setdefault(reading, []).append(
                            V.same_size(a, mc_paper.value, band=band) if band else None)
        rows.append([d, "default accuracy", "majority class"] + [md.f3(mc)] * len(Ls))
    out += ["Pooled 20NN accuracy at each L (the folds' confusion matrices added up, as "
            "P-DS does), SSL and supervised (SL) rankings with the paper's ensembles:", "",
            md.table(["data set", "kNN trained on", "ranking"] + [f"L = {L}" for L in Ls],
                     rows), ""]
    verdicts = {r: V.combine(p) for r, p in parts.items()}
    out += ["At L = 50 on tic-tac-toe, is the supervised rankings' accuracy the default one "
            "(the paper's majority share inside the 95 % interval of our pooled accuracy)? "
            + "; ".join(f"trained on the {r}: {v}" for r, v in verdicts.items()) + ".", ""]

    # Δ SSL − SL of the areas (P-DS Table 3) under both readings
    t3 = P.table("table3")
    rows, agree = [], {}
    for reading, pf in pooled.items():
        measures = ["accuracy", "macro_f1"]
        areas = {m: R._areas(pf.set_index(["dataset", "labeled", "method", "params"])[m])
                 for m in measures}
        for d in sets:
            pt = t3.get(R.PAPER_NAMES[d], {})
            row = [d, reading]
            for score in R.SCORES:
                for m, key in (("accuracy", "acc"), ("macro_f1", "f1")):
                    a = areas[m]
                    ours = R._pick(a, "ssl", score, chosen[score]).get(d, np.nan) - \
                        R._pick(a, "sl", score, chosen[score]).get(d, np.nan)
                    pv = pt.get(f"{score}_{key}")
                    row.append(f"{'–' if pv is None else md.f3(pv)} / {md.f3(ours)}")
                    if pv is not None:
                        agree.setdefault(reading, []).extend(
                            [V.same_sign(ours, pv), V.same_size(ours, pv)])
            rows.append(row)
    out += [f"Δ = area(SSL) − area(SL) of the 20NN, paper ({P.table_cite('table3')}) / ours, "
            "under both readings:", "",
            md.table(["data set", "kNN trained on"] + [f"{R.SCORE_NAMES[s]} {m}" for s in
                                                        R.SCORES for m in ("Δacc", "ΔF1")],
                     rows), ""]

    # P-ML: Δ of the 40NN areas against Tables 8-10, both readings
    pml = _pml_agreement(stores)
    for reading, ps in pml.items():
        agree.setdefault(reading, [])
    lines = []
    for reading in pooled:
        p_ds = agree.get(reading, [])
        p_ml = pml.get(reading, [])
        sg = [p for p in p_ds[0::2] + p_ml[0::2] if p is not None]
        sz = [p for p in p_ds[1::2] + p_ml[1::2] if p is not None]
        lines.append(f"trained on the {reading}: the paper's sign in {sum(sg)} of {len(sg)} "
                     f"cases, its size in {sum(sz)} of {len(sz)} "
                     f"({V.combine(p_ds + p_ml)})")
    n_runs = len(lab.groupby(["dataset", "split", "labeled", "method", "params"]))
    best = max(pooled, key=lambda r: (sum(bool(p) for p in agree.get(r, []) + pml.get(r, [])),
                                      r))
    out += ["Agreement of each reading with the paper's SSL − SL differences (P-DS Table 3 "
            "and P-ML Tables 8-10, accuracy and F1 or the task's measure, every data set run; "
            "sign and size as in the rule at the top): " + "; ".join(lines) + ".", "",
            "**Which reading reproduces the paper.** The default accuracy at L = 50: "
            + ", ".join(f"{r} {v}" for r, v in verdicts.items())
            + f"; the differences agree more often with the kNN trained on the {best}. "
            + ("Both point to the same reading." if verdicts.get(best) == V.HOLDS else
               "The two checks do not single out one reading."), "",
            f"Re-evaluating the {n_runs} P-DS rankings with the labelled rows only took "
            f"{secs:.0f} s (one core). "
            "<!-- volatile -->", ""]
    return "\n".join(out)


def _pml_agreement(stores) -> dict[str, list]:
    """{reading: sign and size parts} of the 40NN (P-ML) Δ against Tables 8-10 for the
    P-ML stores, both readings."""
    from frcli.rankers.ensemble import TASK_ENSEMBLES
    from frcli.stats.pooling import weighted_over_splits
    from reproduce.studies import _ssl_render as R

    PM = paper("p-ml")
    tables = {"classification": PM.table("table8"), "MLC": PM.table("table9"),
              "HMLC": PM.table("table9"), "STR": PM.table("table10"),
              "MTR": PM.table("table10")}
    groups = ((SC.RUN, "classification", "macro_f1", "_k40", True),
              (SP.REG, "STR/MTR", "rrmse", "", False),
              (SP.MLC, "MLC/HMLC", "pooled_auprc", "", True))
    out: dict[str, list] = {}
    for ref, group, measure, suffix, higher in groups:
        view = stores[_subset.store_name(ref)]
        lab, _ = load(stores, view)
        for reading, frame in (("fully labelled fold", view.frame),
                               ("labelled rows only", lab)):
            if frame.empty:
                continue
            runs = view.runs.copy()
            runs["labeled"] = runs["labeled"].astype("Int64").mask(runs["labeled"] == 0)
            w = weighted_over_splits(frame, runs, f"{measure}{suffix}")
            a = R._areas(w)
            for d in sorted(set(a["dataset"])):
                tname = R._task(group, d)
                kind = {"STR": "regression", "MTR": "mtr", "classification": "classification",
                        "MLC": "mlc", "HMLC": "hmlc"}[tname]
                best = TASK_ENSEMBLES[("semi-supervised", kind)]
                pt = tables[tname].get(R.PAPER_NAMES.get(d, d), {})
                for score in R.SCORES + ("relief",):
                    pv = pt.get(score)
                    if pv is None:
                        continue
                    e = best.get(score, "")
                    delta = (R._pick(a, "ssl", score, e).get(d, np.nan)
                             - R._pick(a, "sl", score, e).get(d, np.nan))
                    delta = delta if higher else -delta
                    out.setdefault(reading, []).extend([V.same_sign(delta, pv),
                                                        V.same_size(delta, pv)])
    return out


STUDY = Study(name="ssl-a20", title="A20: the kNN judging SSL rankings trained on the labelled "
              "fold or on the labelled rows only", configs=STORES, render=render,
              compute=compute, order=52,
              # the re-evaluation: semi-supervised kNN evaluations on the labelled rows
              compute_paths=("eval:*:ssl-*knn_train=labeled*",))
