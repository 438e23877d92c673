"""Relational forests: frcli against re3py, the authors' Python implementation (the ``##
Relational forests (re3py)`` section of docs/benchmarks.md).

Same data, same training and test examples, same settings: a random forest of ``--trees``
relational trees (default 50) with look-ahead ℓ = 2, √ of the candidate features per node,
leaves of at least one example, the data set's own aggregates and atom tests (its settings
file), re3py's default chain limit (4). Training set = all but fold 1 of the splits frcli's
runner uses (the published folds where they are a partition, else seeded stratified folds),
handed to re3py as its example-ID folds. Each measurement is a fresh process; frcli and re3py
alternate (interleaved, so load changes hit both); the table gives the fit time of each (best
of ``--repeat``), their ratio, the test accuracy of both and the peak memory of each process.

frcli is measured twice: with its default continuation (the chosen test's chain is continued
in both children, 9b Alg. 1) and with ``continuation=none``. re3py's code resets the context
whenever the parent's test has fewer atoms than ``longest_atom_test_chain`` (4), which with
ℓ = 2 is always, so ``none`` is the same search space as re3py's; ``both`` searches more.

re3py is slow: ``--re3py-trees`` (default: ``--trees``) grows fewer trees for it on the larger
sets and scales its time to ``--trees`` (a forest's trees are independent and equally costly;
the table marks such rows). Install the peer with ``pip install re3py`` (the ``bench`` extra).

Usage: ``nice -n 10 python bench/bench_relational.py [--datasets uwcse,mutagenesis]
[--trees 50] [--re3py-trees uwcse=50,mutagenesis=2] [--repeat 1] [--no-write]``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from _common import write_section

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets" / "relational"
STEMS = {"uwcse": "uwcse", "mutagenesis": "muta188", "carcinogenesis": "carcinogenesis",
         "webkb": "webkb"}

SPLIT = """
import json, sys
from frcli.data.relational import load_relational, relational_splits
ds = load_relational(sys.argv[1])
tr, te = relational_splits(ds, 10, 0)[0][0]
ids = ds.example_ids()
print(json.dumps({"train": [ids[i] for i in tr], "test": [ids[i] for i in te]}))
"""

FRCLI = """
import json, resource, sys, time
import numpy as np
from frcli.data.relational import load_relational
from frcli.rankers.registry import get_ranker
folder, trees, cont, split = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
ds = load_relational(folder)
ids = {k: i for i, k in enumerate(ds.example_ids())}
tr = np.array([ids[k] for k in split["train"]]); te = np.array([ids[k] for k in split["test"]])
r = get_ranker("genie3-rf", ds)
params = r.resolve({"trees": trees, "continuation": cont, "aggregates": "settings"})
params = {k: v[0] for k, v in params.items()}
t0 = time.perf_counter()
ranking, model = r.fit_rank(ds.subset(tr), params, seed=0, jobs=1)
fit = time.perf_counter() - t0
acc = float((model.predict(ds.keys[te]) == ds.y[te]).mean())
print(json.dumps({"fit_s": fit, "accuracy": acc,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

RE3PY = """
import contextlib, io, json, resource, sys, time
from re3py.data.task_settings import Settings
from re3py.data.data_and_statistics import Dataset
from re3py.learners.core.heuristic import HeuristicGini
from re3py.utilities.cross_validation import create_folds
from re3py.learners.random_forest import RandomForest
folder, stem, trees, split = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
s_file = f"{folder}/{stem}.s"
with contextlib.redirect_stdout(io.StringIO()):
    s = Settings(s_file)
    d = Dataset(s_file, f"{folder}/{stem}_descriptive.txt", f"{folder}/{stem}_target.txt")
    params = {"heuristic": HeuristicGini(), "max_number_atom_tests": 2,
              "allowed_atom_tests": s.get_atom_tests_structured(),
              "allowed_aggregators": s.get_aggregates(), "minimal_examples_in_leaf": 1,
              "java_port": None, "max_relative_number_of_evaluated_tests_per_node": "sqrt"}
    train, test = next(create_folds(d, example_ids=[split["test"], split["train"]]))
    rf = RandomForest(trees, **params)
    t0 = time.perf_counter()
    rf.fit(train)
    fit = time.perf_counter() - t0
    pred = [rf.predict(e) for e in test.get_target_data()]
true = [e.get_target() for e in test.get_target_data()]
acc = sum(p == t for p, t in zip(pred, true)) / len(true)
print(json.dumps({"fit_s": fit, "accuracy": acc,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _run(code: str, args: list[str], timeout: float) -> dict:
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="uwcse,mutagenesis")
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--re3py-trees", default="",
                    help="per data set, e.g. mutagenesis=2 (default: --trees)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=6 * 3600)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    try:
        import re3py  # noqa: F401
        version = subprocess.run([sys.executable, "-m", "pip", "show", "re3py"],
                                 capture_output=True, text=True).stdout
        version = next((ln.split(":", 1)[1].strip() for ln in version.splitlines()
                        if ln.startswith("Version")), "?")
    except ImportError:
        print("re3py is not installed: pip install re3py (the bench extra)", file=sys.stderr)
        return 2
    their_trees = {k: int(v) for k, v in (x.split("=") for x in a.re3py_trees.split(",") if x)}
    rows = []
    for name in a.datasets.split(","):
        folder = str(SHARED / name)
        split = _run(SPLIT, [folder], 600)
        sp = json.dumps(split)
        best: dict[str, dict] = {}
        tt = their_trees.get(name, a.trees)
        for _ in range(a.repeat):
            for who, code, args in (
                    ("both", FRCLI, [folder, str(a.trees), "both", sp]),
                    ("none", FRCLI, [folder, str(a.trees), "none", sp]),
                    ("re3py", RE3PY, [folder, STEMS[name], str(tt), sp])):
                res = _run(code, args, a.timeout)
                if who == "re3py":
                    res["fit_s"] *= a.trees / tt
                if who not in best or res["fit_s"] < best[who]["fit_s"]:
                    best[who] = res
                print(f"{name} {who}: {res}", flush=True)
        rows.append((name, len(split["train"]), len(split["test"]), tt, best))
    import os
    import platform

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    lines = [
        f"`nice -n 10 python bench/bench_relational.py --datasets {a.datasets} --trees "
        f"{a.trees}" + (f" --re3py-trees {a.re3py_trees}" if a.re3py_trees else "") +
        f" --repeat {a.repeat}` (`make bench-relational`; commit {commit}, re3py {version}, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} on 2 "
        "cores at the end: absolute times are noisy, ratios less so; one thread each; fresh "
        f"process per fit, interleaved; best of {a.repeat}). Random forest of {a.trees} trees, ℓ = 2, √ of the candidate features "
        "per node, the data set's aggregates and atom tests, fold 1 as test set.",
        "",
        "| set | train / test | re3py s | frcli s | ratio | frcli s, continuation none | "
        "ratio | accuracy re3py / frcli / frcli none | peak MB re3py / frcli |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, ntr, nte, tt, b in rows:
        note = f" (from {tt} trees)" if tt != a.trees else ""
        r, f, n = b["re3py"], b["both"], b["none"]
        lines.append(
            f"| {name} | {ntr} / {nte} | {r['fit_s']:.1f}{note} | {f['fit_s']:.2f} | "
            f"{r['fit_s'] / f['fit_s']:.0f}x | {n['fit_s']:.2f} | {r['fit_s'] / n['fit_s']:.0f}x"
            f" | {r['accuracy']:.3f} / {f['accuracy']:.3f} / {n['accuracy']:.3f} | "
            f"{r['peak_mb']:.0f} / {f['peak_mb']:.0f} |")
    lines += ["", "Goal: at least 10x faster than re3py for a 50-tree forest with ℓ = 2. Memory "
              "stays bounded: frcli keeps the facts, one index entry per fact and argument, and "
              "the candidate features of each context prefix, never a join of the paths."]
    text = "\n".join(lines)
    print(text)
    if not a.no_write:
        write_section("## Relational forests (re3py)", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
