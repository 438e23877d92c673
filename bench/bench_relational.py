"""Relational forests: frcli against re3py, the authors' Python implementation (the ``##
Relational forests (re3py)`` section of docs/benchmarks.md).

Same data, same training and test examples, same settings: a random forest of ``--trees``
relational trees (default 50) with look-ahead ℓ = 2, √ of the candidate features per node,
leaves of at least one example, the data set's own aggregates and atom tests (its settings
file), re3py's default chain limit (4). Training set = all but fold 1 of the splits frcli's
runner uses (the published folds where they are a partition, else seeded stratified folds),
handed to re3py as its example-ID folds. Each measurement is a fresh process; frcli and re3py
alternate (interleaved, so load changes hit both); the table gives the fit time of each (best
of ``--repeat``) and its CPU time (robust under load), their ratios, the test accuracy of both
and the peak memory of each process.

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
t0, c0 = time.perf_counter(), time.process_time()
ranking, model = r.fit_rank(ds.subset(tr), params, seed=0, jobs=1)
fit, cpu = time.perf_counter() - t0, time.process_time() - c0
acc = float((model.predict(ds.keys[te]) == ds.y[te]).mean())
print(json.dumps({"fit_s": fit, "cpu_s": cpu, "accuracy": acc,
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
    t0, c0 = time.perf_counter(), time.process_time()
    rf.fit(train)
    fit, cpu = time.perf_counter() - t0, time.process_time() - c0
    pred = [rf.predict(e) for e in test.get_target_data()]
true = [e.get_target() for e in test.get_target_data()]
acc = sum(p == t for p, t in zip(pred, true)) / len(true)
print(json.dumps({"fit_s": fit, "cpu_s": cpu, "accuracy": acc,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _children_cpu() -> float:
    import resource

    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def _run(code: str, args: list[str], timeout: float) -> dict:
    """One fit in a fresh process; past ``timeout`` seconds the process is killed and the
    result says so (its time is then a lower bound)."""
    c0 = _children_cpu()
    try:
        p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:      # the killed child is reaped: its CPU time counts
        return {"fit_s": timeout, "cpu_s": _children_cpu() - c0, "accuracy": float("nan"),
                "peak_mb": float("nan"), "timeout": True}
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _num(x: float, digits: int) -> str:
    return "–" if x != x else f"{x:.{digits}f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="uwcse,mutagenesis")
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--re3py-trees", default="",
                    help="per data set, e.g. mutagenesis=2 (default: --trees)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", default="21600",
                    help="seconds per fit, or per data set (mutagenesis=300,21600: the last "
                    "bare number for the rest); a re3py fit past it is a lower bound")
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
    limits = {k: float(v) for k, _, v in (x.rpartition("=") for x in a.timeout.split(","))}
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
                limit = limits.get(name, limits.get("", 21600.0))
                res = _run(code, args, limit)
                if res.get("timeout") and who != "re3py":
                    raise RuntimeError(f"{name}: frcli did not finish in {limit} s")
                if who == "re3py":
                    res["fit_s"] *= a.trees / tt
                    res["cpu_s"] *= a.trees / tt
                if who not in best or res["fit_s"] < best[who]["fit_s"]:
                    best[who] = res
                print(f"{name} {who}: {res}", flush=True)
        rows.append((name, len(split["train"]), len(split["test"]), tt, best))
        _write(a, version, rows)
    return 0


def _write(a, version: str, rows: list) -> None:
    """The section from the rows measured so far (written after each data set, so an
    interrupted run keeps what it measured)."""
    import os
    import platform

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    lines = [
        f"`nice -n 10 python bench/bench_relational.py --datasets {a.datasets} --trees "
        f"{a.trees}" + (f" --re3py-trees {a.re3py_trees}" if a.re3py_trees else "") +
        f" --repeat {a.repeat}"
        + (f" --timeout {a.timeout}" if a.timeout != "21600" else "")
        + f"` (`make bench-relational`; commit {commit}, re3py {version}, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} on 2 "
        "cores at the end: wall times are noisy under load, CPU times much less (a killed "
        "re3py fit counts the CPU it had used, start-up included); one thread each; fresh "
        f"process per fit, interleaved; best of {a.repeat}). Random forest of {a.trees} "
        "trees, ℓ = 2, √ of the candidate features per node, the data set's aggregates and "
        "atom tests, fold 1 as test set. Where re3py "
        "grows fewer trees, its time is scaled to the forest's and its accuracy is that of the "
        "trees it grew; a re3py fit killed at the time limit gives a lower bound (>).",
        "",
        "| set | train / test | re3py wall s | frcli wall s | ratio | re3py CPU s | frcli CPU s "
        "| CPU ratio | frcli CPU s, continuation none | CPU ratio | accuracy re3py / frcli / "
        "frcli none | peak MB re3py / frcli |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, ntr, nte, tt, b in rows:
        note = f" (from {tt} trees)" if tt != a.trees else ""
        r, f, n = b["re3py"], b["both"], b["none"]
        gt = "> " if r.get("timeout") else ""
        if r.get("timeout"):
            note = (f" (killed after {r['fit_s'] * tt / a.trees:.0f} s without finishing {tt} tree"
                    f"{'s' if tt > 1 else ''})")
        lines.append(
            f"| {name} | {ntr} / {nte} | {gt}{r['fit_s']:.1f}{note} | {f['fit_s']:.2f} | "
            f"{gt}{r['fit_s'] / f['fit_s']:.0f}x | {gt}{r['cpu_s']:.1f} | {f['cpu_s']:.2f} | "
            f"{gt}{r['cpu_s'] / f['cpu_s']:.0f}x | {n['cpu_s']:.2f} | "
            f"{gt}{r['cpu_s'] / n['cpu_s']:.0f}x"
            f" | {_num(r['accuracy'], 3)} / {f['accuracy']:.3f} / {n['accuracy']:.3f} | "
            f"{_num(r['peak_mb'], 0)} / {f['peak_mb']:.0f} |")
    lines += ["", "Goal: at least 10x faster than re3py for a 50-tree forest with ℓ = 2. Memory "
              "stays bounded: frcli keeps the facts, one index entry per fact and argument, and "
              "the candidate features of each context prefix, never a join of the paths."]
    text = "\n".join(lines)
    print(text)
    if not a.no_write:
        write_section("## Relational forests (re3py)", text)


if __name__ == "__main__":
    sys.exit(main())
