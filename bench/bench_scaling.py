"""Scaling benchmark (the ``## Scaling`` section of docs/benchmarks.md and its plot).

1. Forest fit vs n: synthetic regression data (40 uniform features, 3 numeric targets,
   generated in memory at every size, never written), a random forest of ``--trees`` trees,
   ``max_features`` = 7 for both (scikit-learn's ``sqrt`` would give 6, ours ⌈√40⌉ = 7: the
   int makes the candidate counts equal), min leaf 2, one thread, fit only. frcli
   ``PCTForest`` vs scikit-learn ``RandomForestRegressor`` on standardised targets.
2. The large MLC sets (bibtex, delicious): the same random forest (max_features ⌈√F⌉) vs
   scikit-learn's multi-output ``RandomForestRegressor`` on the same 0/1 label matrix.
3. Relief vs n on the same synthetic data (RReliefF/MTR-Relief, k = 10, all instances):
   exact, and the approximate-neighbour search (``search=approximate``), with their
   agreement (Spearman, recall of the top 10 features).

Every timing is a median of ``--repeat`` runs; frcli and its peer run alternately (their
order swapped every repetition), so load on the shared machine hits both alike. Ratios are
frcli / peer on wall time; the CPU-time ratio is shown too (less sensitive to other load),
and the spread of the per-repetition ratios is the measured noise band.

    make bench-scaling                                   # = the next line, niced
    python bench/bench_scaling.py                        # everything; rewrites the docs
    python bench/bench_scaling.py --no-doc --only forest --sizes 4000,16000 --trees 20
    python bench/bench_scaling.py --redraw bench/out/bench_scaling.json   # docs from a run

The docs section and ``docs/figures/scaling.png`` are generated output of this script only;
the raw figures of the last run go to ``bench/out/bench_scaling.json`` (not committed).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
DOCS = ROOT / "docs"
PLOT = DOCS / "figures" / "scaling.png"
RAW = ROOT / "bench" / "out" / "bench_scaling.json"
SIZES = (4000, 8000, 16000, 32000, 64000, 128000)
PARTS = ("forest", "mlc", "relief")
N_FEATURES, N_TARGETS, MAX_FEATURES, N_RELEVANT = 40, 3, 7, 10


# -- data ----------------------------------------------------------------------------------

def synthetic(n: int, seed: int = 0):
    """n rows, 40 uniform features of which the first 10 are relevant, 3 numeric targets."""
    from frcli.data.dataset import Attribute, Dataset
    rng = np.random.default_rng([seed, n])
    X = rng.uniform(0.0, 1.0, (n, N_FEATURES))
    Y = np.column_stack([
        10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3]
        + 5 * X[:, 4],
        4 * X[:, 5] - 3 * X[:, 6] * X[:, 7] + 2 * X[:, 0],
        np.where(X[:, 8] > 0.5, 2.0, -2.0) + 3 * X[:, 9],
    ]) + rng.standard_normal((n, N_TARGETS))
    feats = [Attribute(f"x{j + 1:02d}", "numeric") for j in range(N_FEATURES)]
    targets = [Attribute(f"y{j + 1}", "numeric") for j in range(N_TARGETS)]
    return Dataset(f"synthetic-{n}", X, feats, "mtr", Y, targets)


def _mlc(name: str):
    from frcli.data import load_dataset
    d = SHARED / "mlc" / name
    return load_dataset(d / f"{name}-train.arff", labels=d / f"{name}.xml")


# -- timing --------------------------------------------------------------------------------

def _timed(fn) -> tuple[float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def interleaved(fns: dict, repeat: int) -> dict:
    """Median wall and CPU seconds of each function, run alternately (order swapped every
    repetition)."""
    wall = {k: [] for k in fns}
    cpu = {k: [] for k in fns}
    keys = list(fns)
    for r in range(repeat):
        for k in (keys if r % 2 == 0 else keys[::-1]):
            w, c = _timed(fns[k])
            wall[k].append(w)
            cpu[k].append(c)
    return {k: {"wall": float(np.median(wall[k])), "cpu": float(np.median(cpu[k])),
                "walls": wall[k]} for k in fns}


def _ratios(row: dict, res: dict) -> dict:
    """Median wall and CPU ratios frcli / scikit-learn and the range of the per-repetition
    wall ratios (the noise band of this measurement)."""
    row["ratio"] = row["frcli_wall"] / row["sklearn_wall"]
    row["ratio_cpu"] = row["frcli_cpu"] / row["sklearn_cpu"]
    per = [a / b for a, b in zip(res["frcli"]["walls"], res["sklearn"]["walls"])]
    row["ratio_lo"], row["ratio_hi"] = float(min(per)), float(max(per))
    return row


def _log(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


# -- forests -------------------------------------------------------------------------------

def forest_pair(ds, trees: int, max_features: int, Y=None) -> dict:
    from sklearn.ensemble import RandomForestRegressor

    from frcli.engines.pct.model import PCTForest
    if Y is None:
        Y = (ds.Y - ds.Y.mean(axis=0)) / ds.Y.std(axis=0)
    skl = RandomForestRegressor(n_estimators=trees, max_features=max_features,
                                min_samples_leaf=2, n_jobs=1, random_state=0)
    ours = PCTForest("rf", trees=trees, max_features=max_features, min_leaf=2, seed=0, jobs=1)
    return {"frcli": lambda: ours.fit(ds), "sklearn": lambda: skl.fit(ds.X, Y)}


def bench_forest(sizes, trees: int, repeat: int) -> list[dict]:
    rows = []
    for n in sizes:
        ds = synthetic(n)
        res = interleaved(forest_pair(ds, trees, MAX_FEATURES), repeat)
        row = {"n": n, **{f"{k}_{m}": v[m] for k, v in res.items() for m in ("wall", "cpu")}}
        rows.append(_ratios(row, res))
        _log(f"forest n={n}: frcli {row['frcli_wall']:.2f} s, scikit-learn "
             f"{row['sklearn_wall']:.2f} s, ratio {row['ratio']:.2f} (CPU {row['ratio_cpu']:.2f})")
    return rows


def bench_mlc(names, trees: int, repeat: int) -> list[dict]:
    rows = []
    for name in names:
        if not (SHARED / "mlc" / name).exists():
            _log(f"mlc {name}: not found, skipped")
            continue
        ds = _mlc(name)
        mf = math.ceil(math.sqrt(ds.n_features))
        res = interleaved(forest_pair(ds, trees, mf, Y=ds.Y.astype(np.float64)), repeat)
        row = {"name": name, "n": ds.n_examples, "F": ds.n_features, "L": ds.n_targets,
               "max_features": mf,
               **{f"{k}_{m}": v[m] for k, v in res.items() for m in ("wall", "cpu")}}
        rows.append(_ratios(row, res))
        _log(f"mlc {name}: frcli {row['frcli_wall']:.2f} s, scikit-learn "
             f"{row['sklearn_wall']:.2f} s, ratio {row['ratio']:.2f} (CPU {row['ratio_cpu']:.2f})")
    return rows


# -- Relief --------------------------------------------------------------------------------

def _top(v: np.ndarray, k: int) -> set:
    return set(np.argsort(-np.asarray(v), kind="stable")[:k].tolist())


def bench_relief(sizes, repeat: int, exact_max: int, neighbours: int = 10) -> list[dict]:
    from scipy.stats import spearmanr

    from frcli.engines.relief.relief import relief

    def run(ds, search):
        return relief(ds, [1.0], [neighbours], [0.0], search=search, seed=0, jobs=1)[0]

    from frcli.engines.relief.ann import EXACT_BELOW
    # numba compiles pynndescent once, not timed (smaller sets are searched exactly)
    run(synthetic(EXACT_BELOW + 2000), "approximate")
    rows = []
    truth = set(range(N_RELEVANT))
    for n in sizes:
        ds = synthetic(n)
        res = {}
        fns = {"approximate": lambda: res.__setitem__("approximate", run(ds, "approximate"))}
        if n <= exact_max:
            fns["exact"] = lambda: res.__setitem__("exact", run(ds, "exact"))
        t = interleaved(fns, repeat)
        a = res["approximate"].importances
        row = {"n": n, "approx_wall": t["approximate"]["wall"],
               "approx_cpu": t["approximate"]["cpu"],
               "approx_truth_recall": len(_top(a, N_RELEVANT) & truth) / N_RELEVANT}
        if "exact" in res:
            e = res["exact"].importances
            row.update(exact_wall=t["exact"]["wall"], exact_cpu=t["exact"]["cpu"],
                       speedup=t["exact"]["wall"] / t["approximate"]["wall"],
                       speedup_cpu=t["exact"]["cpu"] / t["approximate"]["cpu"],
                       spearman=float(spearmanr(a, e)[0]),
                       recall=len(_top(a, N_RELEVANT) & _top(e, N_RELEVANT)) / N_RELEVANT,
                       exact_truth_recall=len(_top(e, N_RELEVANT) & truth) / N_RELEVANT)
        rows.append(row)
        _log("relief n=%d: %s" % (n, {k: round(v, 3) for k, v in row.items() if k != "n"}))
    return rows


def growth(ns, ts) -> float:
    """Slope of log(time) against log(n) (2 = quadratic)."""
    ns, ts = np.asarray(ns, float), np.asarray(ts, float)
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0]) if len(ns) >= 2 else float("nan")


# -- docs ----------------------------------------------------------------------------------

def plot(out: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    fr = out.get("forest", [])
    if fr:
        ns = [r["n"] for r in fr]
        ax.plot(ns, [r["frcli_wall"] for r in fr], "o-", color="C0",
                label="frcli PCTForest (fit)")
        ax.plot(ns, [r["sklearn_wall"] for r in fr], "s--", color="C1",
                label="scikit-learn RandomForestRegressor (fit)")
    rl = out.get("relief", [])
    if rl:
        ex = [r for r in rl if "exact_wall" in r]
        if ex:
            ax.plot([r["n"] for r in ex], [r["exact_wall"] for r in ex], "^-", color="C2",
                    label="Relief, exact neighbours")
        ax.plot([r["n"] for r in rl], [r["approx_wall"] for r in rl], "v--", color="C3",
                label="Relief, approximate neighbours")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows n (40 features, 3 targets)")
    ax.set_ylabel("seconds (median, one thread)")
    ax.set_title("Time against n", fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _commit() -> str:
    try:
        c = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--",
                                "ext", "frcli"], capture_output=True, text=True).stdout.strip()
        return c + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _meta(args) -> dict:
    import sklearn

    from frcli.engines.relief.ann import EXACT_BELOW
    return {"commit": _commit(), "python": sys.version.split()[0],
            "sklearn": sklearn.__version__, "cores": os.cpu_count(),
            "load_start": os.getloadavg()[0], "trees": args.trees,
            "mlc_trees": args.mlc_trees, "repeat": args.repeat,
            "relief_repeat": args.relief_repeat, "argv": sys.argv[1:],
            "exact_below": EXACT_BELOW}


def _command(meta: dict) -> str:
    """The command line of the run (``make bench-scaling`` runs it without arguments)."""
    argv = [a for a in meta.get("argv", []) if a != "--no-doc"]
    return " ".join(["python bench/bench_scaling.py", *argv])


def _part_meta(out: dict, part: str) -> dict:
    return out.get("runs", {}).get(part, out["meta"])


def _provenance(out: dict, part: str) -> str:
    """Where a part's figures come from when it was rerun apart from the others."""
    m = out.get("runs", {}).get(part)
    if m is None or m == out["meta"]:
        return ""
    return (f" (This part: `{_command(m)}`, commit {m['commit']}, load average "
            f"{m['load_start']:.1f} at the start and {m['load_end']:.1f} at the end.)")


def section(out: dict) -> str:
    meta = out["meta"]
    lines = [
        f"`{_command(meta)}` (commit {meta['commit']}, "
        f"Python {meta['python']}, scikit-learn {meta['sklearn']}, {meta['cores']} cores; "
        f"load average {meta['load_start']:.1f} at the start and {meta['load_end']:.1f} at "
        f"the end; medians of {meta['repeat']} interleaved runs, one thread each; "
        "'spread' is the range of the per-repetition ratios). The synthetic sets are "
        "generated in memory at each size (`synthetic()` in the script: 40 uniform features, "
        "the first 10 relevant, 3 numeric targets with noise) and never written. "
        "`make bench-scaling` runs the defaults (100 trees, exact Relief up to 128,000 rows, "
        "about an hour on a quiet machine); under load the absolute times stretch, the "
        "interleaved ratios much less.",
        "",
    ]
    fr = out.get("forest", [])
    if fr:
        lines += [
            f"**Forest fit** ({_part_meta(out, 'forest')['trees']} trees, random forest, "
            "max_features = 7 for both "
            "(= ⌈√40⌉; scikit-learn's `sqrt` would give 6), min leaf 2, bootstrap; frcli "
            "`PCTForest` vs `RandomForestRegressor` on standardised targets). Goal: ratio "
            "<= 0.7 at every size." + _provenance(out, "forest"),
            "",
            "| n | frcli s | scikit-learn s | ratio | spread | CPU-time ratio |",
            "|---|---|---|---|---|---|",
        ]
        for r in fr:
            lines.append(f"| {r['n']:,} | {r['frcli_wall']:.2f} | {r['sklearn_wall']:.2f} | "
                         f"**{r['ratio']:.2f}** | {r['ratio_lo']:.2f}–{r['ratio_hi']:.2f} | "
                         f"{r['ratio_cpu']:.2f} |")
        lines.append("")
    ml = out.get("mlc", [])
    if ml:
        lines += [
            f"**Large MLC sets** ({_part_meta(out, 'mlc')['mlc_trees']} trees, random forest, "
            "max_features = ⌈√F⌉ "
            "for both, min leaf 2; scikit-learn's multi-output `RandomForestRegressor` on the "
            "same 0/1 label matrix)." + _provenance(out, "mlc"),
            "",
            "| set | n | F | labels | frcli s | scikit-learn s | ratio | spread | "
            "CPU-time ratio |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in ml:
            lines.append(f"| {r['name']}-train | {r['n']} | {r['F']} | {r['L']} | "
                         f"{r['frcli_wall']:.2f} | {r['sklearn_wall']:.2f} | "
                         f"**{r['ratio']:.2f}** | {r['ratio_lo']:.2f}–{r['ratio_hi']:.2f} | "
                         f"{r['ratio_cpu']:.2f} |")
        lines.append("")
    rl = out.get("relief", [])
    if rl:
        ex = [r for r in rl if "exact_wall" in r]
        lines += [
            f"**Relief** (MTR-Relief, k = 10, all instances, one thread; "
            f"{_part_meta(out, 'relief')['relief_repeat']} run(s) each) with the exact "
            "neighbour search and with "
            "`search=approximate` (pynndescent NN-descent, Manhattan on range-scaled "
            "features = d_X; the neighbours found are then scored with the exact d_X). "
            "Agreement with exact Relief: Spearman correlation of the 40 importances "
            "(mostly noise features near 0, where ranks are arbitrary) and recall of "
            "exact Relief's top 10; last column: recall of the 10 planted features."
            + _provenance(out, "relief") + " Sets of at most "
            f"{_part_meta(out, 'relief').get('exact_below', 10000):,} rows are searched exactly "
            "in both modes (`EXACT_BELOW`), so there the two columns time the same search.",
            "",
            "| n | exact s | approximate s | speed-up | Spearman | top-10 recall | "
            "planted in top 10 (exact / approximate) |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rl:
            if "exact_wall" in r:
                lines.append(f"| {r['n']:,} | {r['exact_wall']:.2f} | {r['approx_wall']:.2f} | "
                             f"{r['speedup']:.1f}x | {r['spearman']:.3f} | {r['recall']:.2f} | "
                             f"{r['exact_truth_recall']:.2f} / {r['approx_truth_recall']:.2f} |")
            else:
                lines.append(f"| {r['n']:,} | (not run) | {r['approx_wall']:.2f} | | | | "
                             f"– / {r['approx_truth_recall']:.2f} |")
        if len(ex) >= 2:
            lines += ["", f"Growth (slope of log time against log n): exact Relief "
                      f"{growth([r['n'] for r in ex], [r['exact_wall'] for r in ex]):.2f} "
                      "(n² expected: every instance scans every row), approximate "
                      f"{growth([r['n'] for r in rl], [r['approx_wall'] for r in rl]):.2f}."]
        lines.append("")
    lines += [f"![time against n](figures/{PLOT.name})", ""]
    return "\n".join(lines)


# -- main ----------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--mlc-trees", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--relief-repeat", type=int, default=1)
    ap.add_argument("--relief-exact-max", type=int, default=max(SIZES),
                    help="largest n for exact Relief (quadratic time)")
    ap.add_argument("--only", choices=("forest", "mlc", "relief"), action="append")
    ap.add_argument("--no-doc", action="store_true",
                    help="print the section; do not rewrite docs/benchmarks.md and the plot")
    ap.add_argument("--redraw", type=Path, help="rewrite the section and plot from the raw "
                    "figures of an earlier run (bench/out/bench_scaling.json)")
    ap.add_argument("--update", action="store_true", help="run only the --only parts and keep "
                    "the others from bench/out/bench_scaling.json (each part's command, commit "
                    "and load are then shown)")
    args = ap.parse_args()
    if args.redraw:
        out = json.loads(args.redraw.read_text())
    else:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        sizes = [int(s) for s in args.sizes.split(",") if s]
        only = set(args.only or ("forest", "mlc", "relief"))
        meta = _meta(args)
        out = {"meta": meta}
        if args.update and RAW.exists():
            out = json.loads(RAW.read_text())
            out.setdefault("runs", {p: out["meta"] for p in PARTS if p in out})
        runs = out.setdefault("runs", {})
        if "forest" in only:
            out["forest"] = bench_forest(sizes, args.trees, args.repeat)
        if "mlc" in only:
            out["mlc"] = bench_mlc(("bibtex", "delicious"), args.mlc_trees, args.repeat)
        if "relief" in only:
            out["relief"] = bench_relief(sizes, args.relief_repeat, args.relief_exact_max)
        meta["load_end"] = os.getloadavg()[0]
        runs.update({p: meta for p in only})
        RAW.parent.mkdir(parents=True, exist_ok=True)
        RAW.write_text(json.dumps(out, indent=1))
    text = section(out)
    print(text)
    if not args.no_doc:
        from _common import write_section
        plot(out, PLOT)
        write_section("## Scaling", text)
        _log(f"wrote docs/benchmarks.md (## Scaling) and {PLOT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
