"""Relief benchmarks (figures for the ``## Relief`` section of docs/benchmarks.md).

1. Whole command: RReliefF, all instances, k = 10, on a generated 4000 x 40 numeric
   regression ARFF: ``frcli rank`` vs a script that reads the same ARFF with liac-arff and
   runs skrebate's ``ReliefF(n_neighbors=10)`` (both as fresh processes, best of --repeat).
2. The MTR paper's grid on atp1d (iterations {1,5,10,25,50,100}% x k {1,5,10,15,20,25,30,40}
   x sigma {0, 0.05}, 96 rankings) vs one run with 100% and k = 40 (in process, data loaded).
3. atp1d, k = 10, all instances: ranking time (CLUS needs about 0.8 s of induction time).
4. Ranking time (k = 10, all instances) on every shared MTR set.
5. Sparse MLC sets (bibtex, delicious): the O(nnz) search against the dense one.

Usage: ``python bench/bench_relief.py [--repeat 3] [--jobs 1] [--skip-skrebate]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
from _common import best_of, run

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
ATP1D = SHARED / "mtr" / "atp1d.arff"

SKREBATE_SCRIPT = """
import sys, numpy as np, arff
from skrebate import ReliefF
with open(sys.argv[1]) as fh:
    d = arff.load(fh)
a = np.array(d["data"], dtype=float)
X, y = a[:, :-1], a[:, -1]
r = ReliefF(n_neighbors=10, n_jobs=int(sys.argv[2])).fit(X, y)
print(int(np.argmax(r.feature_importances_)))
"""


def write_regression_arff(path: Path, n: int = 4000, f: int = 40, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    X = rng.random((n, f))
    y = 2 * X[:, 0] + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    with open(path, "w") as fh:
        fh.write("@relation bench_relief\n")
        for i in range(f):
            fh.write(f"@attribute x{i} numeric\n")
        fh.write("@attribute y numeric\n@data\n")
        np.savetxt(fh, np.column_stack([X, y]), delimiter=",", fmt="%.6f")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--skip-skrebate", action="store_true")
    args = ap.parse_args()
    frcli = [sys.executable, "-m", "frcli.cli"] if not _has_entry() else ["frcli"]

    print(f"# Relief benchmarks (jobs={args.jobs}, best of {args.repeat}, "
          f"{os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as tmp:
        arff_path = Path(tmp) / "reg4000x40.arff"
        write_regression_arff(arff_path)
        ours = best_of(lambda: run(frcli + ["rank", str(arff_path), "--targets", "last:1",
                                            "-m", "relief", "-p", "neighbours=10",
                                            "--jobs", str(args.jobs)]), args.repeat)
        print(f"1. 4000x40 RReliefF k=10 whole command: frcli {ours:.2f} s")
        from frcli.data import load_dataset
        from frcli.rankers.registry import get_ranker

        def inproc():
            d = load_dataset(arff_path, targets="last:1")
            get_ranker("relief").rank(d, {"neighbours": 10}, jobs=args.jobs)
        t_in = best_of(inproc, args.repeat)
        print(f"   of which load + rank in process {t_in:.2f} s (the rest: interpreter and "
              f"CLI start-up, output)")
        if not args.skip_skrebate:
            script = Path(tmp) / "skrebate_run.py"
            script.write_text(SKREBATE_SCRIPT)
            theirs = best_of(lambda: run([sys.executable, str(script), str(arff_path),
                                          str(args.jobs)]), max(1, args.repeat // 2))
            print(f"   skrebate ReliefF(n_neighbors=10) {theirs:.2f} s  "
                  f"-> speed-up {theirs / ours:.1f}x")

    if not ATP1D.exists():
        print(f"atp1d not found at {ATP1D}; skipping 2 and 3")
        return
    from frcli.data import load_dataset
    from frcli.rankers.registry import get_ranker

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(ATP1D, targets="last:6")
    ranker = get_ranker("relief")
    grid = {"iterations": [0.01, 0.05, 0.10, 0.25, 0.50, 1.0],
            "neighbours": [1, 5, 10, 15, 20, 25, 30, 40], "sigma": [0.0, 0.05]}
    single = {"iterations": 1.0, "neighbours": 40, "sigma": 0.0}
    ranker.rank(ds, single, jobs=args.jobs)          # warm-up (imports, page cache)
    t_single = best_of(lambda: ranker.rank(ds, single, jobs=args.jobs), 3 * args.repeat)
    out = []
    t_grid = best_of(lambda: out.append(ranker.rank(ds, grid, jobs=args.jobs)),
                     3 * args.repeat)
    print(f"2. atp1d full MTR grid ({len(out[-1])} rankings): {t_grid * 1e3:.1f} ms vs one "
          f"run (100%, k=40) {t_single * 1e3:.1f} ms -> ratio {t_grid / t_single:.2f}")
    k10 = {"iterations": 1.0, "neighbours": 10, "sigma": 0.0}
    t10 = best_of(lambda: ranker.rank(ds, k10, jobs=args.jobs), args.repeat + 2)
    cmd = best_of(lambda: run(frcli + ["rank", str(ATP1D), "--targets", "last:6", "-m",
                                       "relief", "-p", "neighbours=10", "--jobs",
                                       str(args.jobs)]), args.repeat)
    print(f"3. atp1d k=10 all instances: ranking {t10 * 1e3:.1f} ms (CLUS ~800 ms induction "
          f"-> {0.8 / t10:.0f}x); whole command incl. start-up and ARFF {cmd:.2f} s")
    print("4. every shared MTR set, k=10, all instances (ranking only, ms):")
    targets = {"atp1d": 6, "atp7d": 6, "edm": 2, "enb": 2, "jura": 3, "oes10": 16,
               "oes97": 16, "osales": 12, "scpf": 3, "slump": 3, "wq": 14}
    for name, t in targets.items():
        path = SHARED / "mtr" / f"{name}.arff"
        if not path.exists():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = load_dataset(path, targets=f"last:{t}")
        tt = best_of(lambda: ranker.rank(d, k10, jobs=args.jobs), args.repeat)
        print(f"   {name:8s} n={d.n_examples:5d} F={d.n_features:4d} T={t:2d}: {tt * 1e3:7.1f}")
    print("5. sparse MLC sets, MLC-Relief d_F1, k=15 (ranking only, s): O(nnz) vs dense search")
    from frcli.engines.relief.relief import relief
    for name in ("bibtex", "delicious"):
        base = SHARED / "mlc" / name
        if not (base / f"{name}-train.arff").exists():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = load_dataset(base / f"{name}-train.arff", labels=base / f"{name}.xml")
        t_sp = best_of(lambda: relief(d, [1.0], [15], [0.0], jobs=args.jobs), 1)
        t_sp25 = best_of(lambda: relief(d, [0.25], [15], [0.0], jobs=args.jobs), 1)
        t_de25 = best_of(lambda: relief(d, [0.25], [15], [0.0], sparse="no", jobs=args.jobs), 1)
        print(f"   {name:9s} n={d.n_examples} F={d.n_features} L={d.n_targets}: all instances "
              f"{t_sp:.2f} s; 25%: sparse {t_sp25:.2f} s vs dense {t_de25:.2f} s "
              f"({t_de25 / t_sp25:.1f}x)")


def _has_entry() -> bool:
    from shutil import which

    return which("frcli") is not None


if __name__ == "__main__":
    main()
