"""Does an ensemble ranking depend on the order of the columns? The tie rules side by side.

Equally good tests (within CLUS's 1e-6) are frequent in small nodes and on data written with
limited precision; which feature gets them decides rankings. This script measures the rules of
the ``ties`` parameter (``first``: CLUS's, the first feature wins; ``share``: CLUS's trees, the
node's credit shared among the features that tie; ``random``: a random one wins) on:

* ``nosignal``: 300 rows, 40 iid uniform features written with 3 significant digits and
  targets without signal (two numeric, a 3-class, five labels; semi-supervised with 70 %
  unlabelled rows; unsupervised): the Spearman correlation between column position and
  importance, mean over seeds, per task, ensemble and score (0 = no order effect);
* ``planted``: the share of planted features in the top of the ranking, on the bundled
  synthetic sets (datasets/synthetic) and on two unsupervised sets with 4 cluster features
  among 40 (numeric, and mixed with nominal features);
* ``reversal``: shared MTR sets with the columns reversed: the Spearman between the
  rankings of the two column orders (same seed) against the one between two seeds, and the
  top-10 overlaps, per score;
* ``time``: fit time of the forests (100 trees) per rule on real sets with ties and on
  full-precision data, the rules alternated and repeated;
* ``puns``: the unsupervised leaf on real data (shared mcc sets, class dropped) under the
  P-UNS protocol: 10-fold CV, Genie3 and the RF score of 100 bootstrapped extra trees with
  ⌈log2 F⌉ features per node and ``min_leaf`` auto (fully grown, the papers'), 0.1 or 0.2 of
  the rows, the top 16 features, a 1NN (min-max scaled on the training fold) predicting the
  neighbour's whole row, the mean squared reconstruction error over all features.

    python bench/bench_ties.py nosignal --seeds 20 --ties first,share,random
    python bench/bench_ties.py planted --ties first,share
    python bench/bench_ties.py planted --ties first,share --sets synth-unsupervised --reversed
    python bench/bench_ties.py reversal --sets wq,oes10,atp1d --seeds 5
    python bench/bench_ties.py time --repeat 3
    python bench/bench_ties.py puns --sets colon,GLIOMA,lymphoma,TOX_171

The figures go to stdout (Markdown); nothing is written to the repository.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
SYNTH = ROOT / "datasets" / "synthetic"
SCORES = ("symbolic", "genie3", "rf")
ENSEMBLES = ("rf", "bagging", "et")
RULES = ("first", "share", "random")


# -- data ----------------------------------------------------------------------------------

def _dataset(X, Y, task, nominal=(), name="gen", labeled=None, semi=False):
    from tree_identity import _ds
    return _ds(X, Y, task, nominal=nominal, labeled=labeled, semi=semi, name=name)


def round_sig(x: np.ndarray, digits: int = 3) -> np.ndarray:
    """x written with ``digits`` significant digits (as a text file of such data holds it)."""
    mag = np.floor(np.log10(np.abs(np.where(x == 0, 1.0, x))))
    scale = 10.0 ** (digits - 1 - mag)
    return np.round(x * scale) / scale


NOSIGNAL_TASKS = ("mtr", "classification", "mlc", "ssl-mtr", "unsupervised")


def nosignal(task: str, seed: int, n: int = 300, F: int = 40):
    """iid uniform features (3 significant digits) and targets independent of them."""
    rng = np.random.default_rng([seed, sum(map(ord, task))])
    X = round_sig(rng.uniform(0, 1, (n, F)))
    if task == "unsupervised":
        return _dataset(X, None, "unsupervised")
    if task == "classification":
        return _dataset(X, rng.integers(0, 3, n).astype(float)[:, None], task)
    if task == "mlc":
        return _dataset(X, (rng.random((n, 5)) < 0.3).astype(np.uint8), task)
    Y = round_sig(rng.standard_normal((n, 2)))
    if task == "ssl-mtr":
        lab = rng.random(n) < 0.3
        Y[~lab] = np.nan
        return _dataset(X, Y, "mtr", labeled=lab, semi=True)
    return _dataset(X, Y, task)


RELEVANT_UNSUP = (5, 14, 23, 31)


def planted_unsupervised(kind: str, seed: int = 7, n: int = 300, F: int = 40):
    """Three clusters seen by 4 of 40 features (``RELEVANT_UNSUP``), the rest uniform noise,
    3 significant digits; ``mixed``: every fourth feature nominal (3-4 values; the relevant
    one among them, x14, is the cluster with 80 % probability, else a random value)."""
    rng = np.random.default_rng([seed, sum(map(ord, kind))])
    z = rng.integers(0, 3, n)
    X = rng.uniform(0, 1, (n, F))
    for j in RELEVANT_UNSUP:
        centres = rng.permutation(3) / 2.0
        X[:, j] = centres[z] + 0.12 * rng.standard_normal(n)
    nominal = ()
    if kind == "mixed":
        nominal = tuple(range(2, F, 4))
        for j in nominal:
            k = 3 + j % 2
            X[:, j] = rng.integers(0, k, n)
            if j in RELEVANT_UNSUP:
                X[:, j] = np.where(rng.random(n) < 0.8, z, rng.integers(0, 3, n))
    X = round_sig(X)
    return _dataset(X, None, "unsupervised", nominal=nominal, name=f"unsup-{kind}"), \
        [f"x{j}" for j in RELEVANT_UNSUP]


def synthetic(name: str):
    from frcli.data import load_dataset
    truth = json.loads((SYNTH / f"{name}.truth.json").read_text())
    kw = {"task": "unsupervised"} if truth["task"] == "unsupervised" else {
        "targets": truth["targets"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(SYNTH / f"{name}.arff", **kw)
    if truth.get("semi_supervised"):
        ds = dataclasses.replace(ds, semi_supervised=True)
    return ds, truth["relevant"]


def reverse(ds):
    """The same data with the feature columns in reverse order."""
    return dataclasses.replace(ds, X=np.ascontiguousarray(ds.X[:, ::-1]),
                               features=list(ds.features[::-1]))


# -- rankings ------------------------------------------------------------------------------

def rank_all(ds, ensemble: str, rule: str, seed: int, trees: int = 100,
             scores=SCORES, suffix: str = "", **params) -> dict[str, np.ndarray]:
    """score -> importances of the ranker ``{score}-{ensemble}{suffix}`` (its task
    defaults), the scores of one ensemble sharing their forest where the defaults allow."""
    from frcli.rankers.ensemble import shared_forests
    from frcli.rankers.registry import get_ranker
    out = {}
    with warnings.catch_warnings(), shared_forests():
        warnings.simplefilter("ignore")
        for s in sorted(scores, key=lambda s: s != "rf"):
            r = get_ranker(f"{s}-{ensemble}{suffix}")
            p = {"trees": trees, "ties": rule, **params}
            if s == "rf" and ensemble == "et":
                p["bootstrap"] = "true"
            out[s] = r.rank(ds, p, seed=seed)[0].importances
    return out


def spearman(a, b) -> float:
    r = spearmanr(a, b)[0]
    return float(r) if r == r else 0.0


def topk(imp, names, k):
    return {names[i] for i in np.argsort(-np.asarray(imp), kind="stable")[:k]}


# -- the measurements ----------------------------------------------------------------------

def run_nosignal(rules, seeds: int, tasks, ensembles, trees: int, suffix: str = "",
                 w: str = "0.5") -> dict:
    """``w``: the semi-supervised weight (0.5 by default: ``auto`` runs an internal CV of 44
    forests per ranking)."""
    res = {}
    for task in tasks:
        for ens in ensembles:
            for rule in rules:
                acc = {s: [] for s in SCORES}
                t0 = time.perf_counter()
                for seed in range(seeds):
                    ds = nosignal(task, seed)
                    pos = np.arange(ds.n_features)
                    params = {"w": w} if task == "ssl-mtr" else {}
                    for s, imp in rank_all(ds, ens, rule, seed, trees, suffix=suffix,
                                           **params).items():
                        acc[s].append(spearman(pos, imp))
                res[(task, ens, rule)] = {s: float(np.mean(v)) for s, v in acc.items()}
                print(f"  {task} {ens} {rule}: " + ", ".join(
                    f"{s} {v:+.2f}" for s, v in res[(task, ens, rule)].items())
                    + f" ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    return res


def table_nosignal(res, rules) -> str:
    lines = ["| task | ensemble | " + " | ".join(f"{s} {r}" for s in SCORES for r in rules)
             + " |", "|---|---|" + "---:|" * (len(SCORES) * len(rules))]
    keys = sorted({(t, e) for t, e, _ in res}, key=lambda k: (NOSIGNAL_TASKS.index(k[0]),
                                                               ENSEMBLES.index(k[1])))
    for t, e in keys:
        lines.append(f"| {t} | {e} | " + " | ".join(
            f"{res[(t, e, r)][s]:+.2f}" for s in SCORES for r in rules) + " |")
    return "\n".join(lines)


SYNTH_SETS = ("synth-regression", "synth-mtr", "synth-classification", "synth-mlc",
              "synth-hmlc", "synth-ssl-mtr", "synth-unsupervised")


PLANTED_SETS = SYNTH_SETS + ("unsup-numeric", "unsup-mixed")


def run_planted(rules, trees: int, seeds, names=PLANTED_SETS, reversed_: bool = False) -> dict:
    """Recall of the planted features in the top |relevant|, mean over the ranking seeds
    (the unsupervised sets of ``planted_unsupervised`` are drawn with seed 7).
    ``reversed_``: the sets with their columns in reverse order (the planted features of
    datasets/synthetic come first in the file, where ``first`` favours them)."""
    res = {}
    sets = [(n, *(planted_unsupervised(n[len("unsup-"):], 7) if n.startswith("unsup-")
                  else synthetic(n))) for n in names]
    if reversed_:
        sets = [(n, reverse(ds), rel) for n, ds, rel in sets]
    for name, ds, relevant in sets:
        for ens in ENSEMBLES:
            for rule in rules:
                params = {"w": 0.5} if name == "synth-ssl-mtr" else {}
                rec = {s: [] for s in SCORES}
                for seed in seeds:
                    for s, v in rank_all(ds, ens, rule, seed, trees, **params).items():
                        rec[s].append(len(topk(v, ds.feature_names, len(relevant))
                                          & set(relevant)) / len(relevant))
                res[(name, ens, rule)] = {s: float(np.mean(v)) for s, v in rec.items()}
        print(f"  {name} done", file=sys.stderr, flush=True)
    return res


def table_planted(res, rules) -> str:
    lines = ["| set | ensemble | " + " | ".join(f"{s} {r}" for s in SCORES for r in rules)
             + " |", "|---|---|" + "---:|" * (len(SCORES) * len(rules))]
    for (name, ens) in dict.fromkeys((n, e) for n, e, _ in res):
        lines.append(f"| {name} | {ens} | " + " | ".join(
            f"{res[(name, ens, r)][s]:.2f}" for s in SCORES for r in rules) + " |")
    worst = {r: min(v[s] for (n, e, rr), v in res.items() if rr == r for s in SCORES)
             for r in rules}
    lines.append("")
    lines.append("lowest recall: " + ", ".join(f"{r} {w:.2f}" for r, w in worst.items()))
    return "\n".join(lines)


MTR_TARGETS = {"wq": 14, "oes10": 16, "oes97": 16, "atp1d": 6, "atp7d": 6, "edm": 2,
               "enb": 2, "jura": 3, "osales": 12, "scpf": 3, "slump": 3}


def load_mtr(name):
    from frcli.data import load_dataset
    return load_dataset(SHARED / "mtr" / f"{name}.arff", targets=f"last:{MTR_TARGETS[name]}")


def run_reversal(rules, sets, trees: int, seeds: int = 1) -> dict:
    """Per set, rule and score: Spearman and top-10 overlap between two seeds (mean over the
    pairs of seeds 1..N+1) and between the original and the reversed columns with the same
    seed (mean over seeds 1..N)."""
    res = {}
    for name in sets:
        ds = load_mtr(name)
        rv = reverse(ds)
        names = ds.feature_names
        for rule in rules:
            t0 = time.perf_counter()
            a = [rank_all(ds, "rf", rule, s, trees) for s in range(1, seeds + 2)]
            r = [{k: v[::-1] for k, v in rank_all(rv, "rf", rule, s, trees).items()}
                 for s in range(1, seeds + 1)]
            pairs = [(i, j) for i in range(len(a)) for j in range(i + 1, len(a))]
            res[(name, rule)] = {s: {
                "seeds": np.mean([spearman(a[i][s], a[j][s]) for i, j in pairs]),
                "reversal": np.mean([spearman(a[i][s], r[i][s]) for i in range(seeds)]),
                "top10_seeds": np.mean([len(topk(a[i][s], names, 10) & topk(a[j][s], names, 10))
                                        for i, j in pairs]),
                "top10_reversal": np.mean([len(topk(a[i][s], names, 10)
                                               & topk(r[i][s], names, 10))
                                           for i in range(seeds)])}
                for s in SCORES}
            print(f"  {name} {rule} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr,
                  flush=True)
    return res


def table_reversal(res) -> str:
    lines = ["| set | ties | score | Spearman, two seeds | Spearman, original vs reversed | "
             "top-10 overlap, seeds / reversal | ok |", "|---|---|---|---:|---:|---|:---:|"]
    for (name, rule), v in res.items():
        for s in SCORES:
            x = v[s]
            ok = x["reversal"] >= x["seeds"] - 0.05
            lines.append(f"| {name} | {rule} | {s} | {x['seeds']:.3f} | {x['reversal']:.3f} | "
                         f"{x['top10_seeds']:.1f}/10 / {x['top10_reversal']:.1f}/10 | "
                         f"{'yes' if ok else '**no**'} |")
    return "\n".join(lines)


def run_time(rules, repeat: int, trees: int) -> dict:
    """Seconds to fit 100-tree forests (plus the RF score), rules alternated."""
    from frcli.data import load_dataset
    from frcli.engines.pct.model import PCTForest
    rng = np.random.default_rng(0)
    n, F = 3000, 20
    Xf = rng.uniform(0, 1, (n, F))
    Yf = np.column_stack([Xf[:, 0] + Xf[:, 1] * Xf[:, 2], np.sin(4 * Xf[:, 3])]) \
        + 0.1 * rng.standard_normal((n, 2))
    sets = {"pol": load_dataset(SHARED / "str" / "pol.arff", targets="last:1"),
            "oes10": load_mtr("oes10"),
            "full-precision 3000x20": _dataset(Xf, Yf, "mtr")}
    out: dict = {}
    for name, ds in sets.items():
        for ens in ("rf", "et"):
            for _ in range(repeat):
                for rule in rules:
                    for rf in (False, True):
                        if rf and ens == "et":
                            continue
                        m = PCTForest(ens, trees=trees, seed=0, ties=rule,
                                      bootstrap=True if rf else None)
                        t0 = time.perf_counter()
                        m.fit(ds, rf_score=rf, per_target=True)
                        m.scores()
                        out.setdefault((name, ens, rf, rule), []).append(
                            time.perf_counter() - t0)
            print(f"  {name} {ens} done", file=sys.stderr, flush=True)
    return out


def table_time(res, rules) -> str:
    lines = ["| set | ensemble | RF score | " + " | ".join(f"{r} (s)" for r in rules)
             + " | " + " | ".join(f"{r}/first" for r in rules[1:]) + " |",
             "|---|---|---|" + "---:|" * (2 * len(rules) - 1)]
    for key in dict.fromkeys(k[:3] for k in res):
        ts = {r: res[(*key, r)] for r in rules}
        cells = [f"{min(v):.2f}-{max(v):.2f}" for v in ts.values()]
        ratios = [f"{min(ts[r]) / min(ts[rules[0]]):.2f}" for r in rules[1:]]
        lines.append(f"| {key[0]} | {key[1]} | {'yes' if key[2] else 'no'} | "
                     + " | ".join(cells + ratios) + " |")
    return "\n".join(lines)


PUNS_LEAVES = ("auto", 0.1, 0.2)


def run_puns(sets, trees: int, leaves=PUNS_LEAVES) -> dict:
    """(set, leaf) -> {score: reconstruction MSE} under the P-UNS protocol (see the module
    docstring); the folds and the forests' seeds are the same for every leaf."""
    from frcli.data import load_dataset
    from frcli.engines.pct.scoring import forest_scores
    from frcli.rankers.ensemble import leaf_rows

    res = {}
    for name in sets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = load_dataset(SHARED / "mcc" / f"{name}.arff", task="unsupervised",
                              drop=["class"])
        X = np.nan_to_num(ds.X)
        n = X.shape[0]
        folds = np.array_split(np.random.default_rng(0).permutation(n), 10)
        for leaf in leaves:
            t0 = time.perf_counter()
            err = {"genie3": 0.0, "rf": 0.0}
            for k, te in enumerate(folds):
                train = np.ones(n, bool)
                train[te] = False
                rows = leaf_rows(1.0 if leaf == "auto" else float(leaf), int(train.sum()))
                r = forest_scores(ds.subset(train), "et", trees=trees, max_features="log2",
                                  min_leaf=rows, bootstrap=True, ties="share", seed=k,
                                  per_target=False)
                for s in err:
                    top = np.argsort(-r[s], kind="stable")[:16]
                    err[s] += _knn1_mse(X[train], X[te], top) * len(te) / n
            res[(name, leaf)] = err
            print(f"  {name} min_leaf={leaf} ({time.perf_counter() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
    return res


def _knn1_mse(Xtr: np.ndarray, Xte: np.ndarray, top: np.ndarray) -> float:
    """1NN on the ``top`` columns (min-max scaled with the training ranges), predicting the
    neighbour's whole row: the mean squared error over every column and test row."""
    lo, hi = Xtr[:, top].min(axis=0), Xtr[:, top].max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    A = (Xtr[:, top] - lo) / span
    B = np.clip((Xte[:, top] - lo) / span, 0.0, 1.0)
    d = (B ** 2).sum(axis=1)[:, None] - 2 * B @ A.T + (A ** 2).sum(axis=1)[None, :]
    return float(((Xte - Xtr[np.argmin(d, axis=1)]) ** 2).mean())


def table_puns(res) -> str:
    leaves = list(dict.fromkeys(leaf for _, leaf in res))
    lines = ["| set | " + " | ".join(f"{s} min_leaf={leaf}" for s in ("genie3", "rf")
                                     for leaf in leaves) + " |",
             "|---|" + "---:|" * (2 * len(leaves))]
    for name in dict.fromkeys(n for n, _ in res):
        lines.append(f"| {name} | " + " | ".join(f"{res[(name, leaf)][s]:.5g}"
                                               for s in ("genie3", "rf") for leaf in leaves)
                     + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("nosignal", "planted", "reversal", "time", "puns"))
    ap.add_argument("--ties", default=",".join(RULES), help="rules to compare (comma list)")
    ap.add_argument("--seeds", type=int, default=None,
                    help="nosignal: seeds per cell (20); planted: seeds 1..N (8); reversal: "
                         "original/reversed pairs, seeds 1..N (1)")
    ap.add_argument("--tasks", default=",".join(NOSIGNAL_TASKS))
    ap.add_argument("--ensembles", default=",".join(ENSEMBLES))
    ap.add_argument("--sets", default=None,
                    help="reversal: MTR sets (wq,oes10,atp1d); planted: sets (all); puns: "
                         "mcc sets (colon,GLIOMA,lymphoma,TOX_171)")
    ap.add_argument("--reversed", action="store_true",
                    help="planted: the sets with their columns in reverse order")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--suffix", default="", help="nosignal: method suffix, e.g. -str")
    ap.add_argument("--w", default="0.5", help="nosignal: semi-supervised w (or auto)")
    ap.add_argument("--repeat", type=int, default=3, help="time: repetitions")
    args = ap.parse_args()
    rules = args.ties.split(",")
    if args.what in ("nosignal", "planted"):
        args.seeds = args.seeds or {"nosignal": 20, "planted": 8}[args.what]
    if args.what == "nosignal":
        res = run_nosignal(rules, args.seeds, args.tasks.split(","),
                           args.ensembles.split(","), args.trees, args.suffix, args.w)
        print(f"Spearman(column position, importance), mean over {args.seeds} seeds, "
              f"{args.trees} trees\n")
        print(table_nosignal(res, rules))
    elif args.what == "planted":
        seeds = range(1, args.seeds + 1)
        names = args.sets.split(",") if args.sets else PLANTED_SETS
        print(f"Recall of the planted features in the top |relevant|, mean over seeds "
              f"1-{args.seeds}, {args.trees} trees"
              + (", columns reversed" if args.reversed else "") + "\n")
        print(table_planted(run_planted(rules, args.trees, seeds, names, args.reversed),
                            rules))
    elif args.what == "reversal":
        n = args.seeds or 1
        print(f"Genie3, Symbolic and the RF score of 100-tree random forests (the bare methods' "
              f"ensemble for MTR); seeds: mean over the pairs of seeds 1..{n + 1}, reversal: "
              f"mean over seeds 1..{n}\n")
        sets = (args.sets or "wq,oes10,atp1d").split(",")
        print(table_reversal(run_reversal(rules, sets, args.trees, n)))
    elif args.what == "puns":
        sets = (args.sets or "colon,GLIOMA,lymphoma,TOX_171").split(",")
        print(f"P-UNS reconstruction MSE (10-fold CV, top 16, 1NN; lower is better), "
              f"{args.trees} extra trees\n")
        print(table_puns(run_puns(sets, args.trees)))
    else:
        print(table_time(run_time(rules, args.repeat, args.trees), rules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
