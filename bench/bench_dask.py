"""An experiment's runs spread over a Dask cluster, against one process (the ``bench-dask``
block of docs/benchmarks.md).

The experiment is a subset of the ``mtr-ensembles`` study (configs/mtr-ensembles.yaml: its
protocol and its Genie3-bagging-STR ranking, with fewer trees, plus the 5NN baseline) on five
MTR sets of ../shared, written to a temporary folder with its result stores. The same
command, ``frcli experiment CONFIG --output DIR``, runs it twice into fresh folders:

* in one process (``--jobs 1``, no Dask);
* with ``--dask-scheduler ADDRESS``, the address of a ``LocalCluster`` of separate worker
  processes (one thread each) that this script starts, as a user starts a cluster and hands
  its address to frcli (the cluster's start-up is timed apart).

The two alternate, ``--repeat`` times. Reported: the wall time of each command, the CPU
seconds (the command's process, plus the workers' own, read from each worker before and
after), the number of runs, the load average around each, and whether every store holds the
same results: per run key, the same run hash, the same scores and bit-identical importances.
The worker processes end with this script however it ends (Dask's nannies watch their
parent; SIGTERM closes the cluster), and the command's process gets the kernel's
parent-death signal.

Usage: ``python bench/bench_dask.py [--repeat 2] [--trees 30] [--splits 10] [--workers 2]
[--no-write]`` (``make bench-dask``).
"""
from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import commit, write_block  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Experiments on a Dask cluster"
STUDY = ROOT / "configs" / "mtr-ensembles.yaml"
DATASETS = ["atp1d", "atp7d", "oes97", "osales", "wq"]
FOREST = "genie3-bagging-str"


def experiment_config(trees: int, splits: int) -> dict:
    """The subset of the mtr-ensembles study that both modes run."""
    study = yaml.safe_load(STUDY.read_text())
    forest = next(r for r in study["rankers"] if isinstance(r, dict) and r["method"] == FOREST)
    forest = {**forest, "params": {**forest["params"], "trees": trees}}
    return {"name": "dask-demo", "datasets": DATASETS,
            "protocol": {**study["protocol"], "repeats": splits},
            "rankers": ["uniform", forest], "evaluation": study["evaluation"]}


def _die_with_parent() -> None:
    """Child-process hook: the kernel kills the command if this script dies first."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)    # PR_SET_PDEATHSIG


def _worker_cpu() -> float:
    """Runs inside a Dask worker: its own CPU seconds (user + system)."""
    import resource as r

    u = r.getrusage(r.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def run_command(cfg: Path, out: Path, scheduler: str | None, client=None) -> dict:
    """``frcli experiment`` once; wall, CPU (command + workers) and load average."""
    argv = [sys.executable, "-m", "frcli.cli", "experiment", str(cfg), "--output", str(out),
            "--no-progress"]
    argv += ["--dask-scheduler", scheduler] if scheduler else ["--jobs", "1"]
    w0 = sum(client.run(_worker_cpu).values()) if client is not None else 0.0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT,
                       preexec_fn=_die_with_parent)
    wall = time.perf_counter() - t0
    load1 = os.getloadavg()[0]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        sys.exit(f"{' '.join(argv)} failed:\n{r.stderr[-3000:]}")
    w1 = sum(client.run(_worker_cpu).values()) if client is not None else 0.0
    own = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    res = {"mode": "dask" if scheduler else "one process", "wall": wall, "cpu_command": own,
           "cpu_workers": w1 - w0, "load": (load0, load1), "store": out / "dask-demo"}
    print(f"{res['mode']}: {wall:.1f} s wall, {own:.1f} + {w1 - w0:.1f} CPU s, load "
          f"{load0:.1f} -> {load1:.1f}", file=sys.stderr, flush=True)
    return res


def store_contents(directory: Path) -> dict:
    """Run key → (run hash, scores, importances as bytes) of a result store; and the sum of
    the runs' ranking + evaluation seconds."""
    from frcli.results.store import Store

    with Store(directory, create=False) as st:
        hashes = st.finished()
        scores: dict = {}
        for row in st.tidy():
            scores.setdefault(tuple(row[:5]), []).append((row[5], row[6]))
        _, rank_s, eval_s = st.run_totals()
        runs = {}
        for key, h in hashes.items():
            got = st.ranking(key)
            imp = b"" if got is None else np.ascontiguousarray(got[1]).tobytes()
            runs[key] = (h, tuple(scores.get(key, ())), imp)
    return {"runs": runs, "compute_s": rank_s + eval_s}


def differences(a: dict, b: dict) -> list[str]:
    """What differs between two stores' contents (empty: identical)."""
    diff = [f"only in one store: {k}" for k in sorted(a.keys() ^ b.keys(), key=str)]
    for k in sorted(a.keys() & b.keys(), key=str):
        for what, x, y in zip(("run hash", "scores", "importances"), a[k], b[k]):
            if x != y:
                diff.append(f"{k}: {what} differ")
    return diff


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2,
                    help="Times each mode runs, alternating (default 2).")
    ap.add_argument("--trees", type=int, default=30, help="Trees of each forest (default 30).")
    ap.add_argument("--splits", type=int, default=10,
                    help="Hold-out splits per data set (default 10, the study's).")
    ap.add_argument("--workers", type=int, default=2,
                    help="Worker processes of the local cluster (default 2).")
    ap.add_argument("--no-write", action="store_true", help="Print, do not edit the doc.")
    a = ap.parse_args()
    from dask.distributed import Client, LocalCluster

    # SIGTERM unwinds through the finally clauses: the cluster and the folder are removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="frcli-bench-dask-") as tmp:
        work = Path(tmp)
        cfg = work / "dask-demo.yaml"
        cfg.write_text(yaml.safe_dump(experiment_config(a.trees, a.splits), sort_keys=False))
        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        try:
            client = Client(cluster)
            client.wait_for_workers(a.workers)
            startup = time.perf_counter() - t0
            pids = list(client.run(os.getpid).values())
            results = []
            for r in range(a.repeat):
                modes = (None, cluster.scheduler_address)
                for sched in (modes if r % 2 == 0 else modes[::-1]):
                    out = work / f"{'dask' if sched else 'local'}-{r}"
                    results.append(run_command(cfg, out, sched, client if sched else None))
            client.close()
        finally:
            cluster.close()
        ended = _ended(pids)
        contents = [store_contents(res["store"]) for res in results]
    ref = contents[0]["runs"]
    diffs = [d for c in contents[1:] for d in differences(ref, c["runs"])]
    text = _report(a, results, contents, startup, ended, diffs)
    print(text)
    if not a.no_write:
        write_block(HEADING, "bench-dask", text)
    if diffs:
        sys.exit("the stores differ: " + "; ".join(diffs[:5]))


def _ended(pids: list[int], wait: float = 10.0) -> bool:
    """Whether the worker processes are gone (within ``wait`` seconds)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        alive = []
        for p in pids:
            try:
                os.kill(p, 0)
                alive.append(p)
            except ProcessLookupError:
                pass
        if not alive:
            return True
        time.sleep(0.2)
    return False


def _span(xs: list[float]) -> str:
    """A range of ratios: "a–b", or one value."""
    lo, hi = min(xs), max(xs)
    return f"{lo:.2f}" if len(xs) == 1 or f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}"


def _report(a, results, contents, startup, ended, diffs) -> str:
    n_runs = {len(c["runs"]) for c in contents}
    local = [r["wall"] for r in results if r["mode"] == "one process"]
    dask = [r["wall"] for r in results if r["mode"] == "dask"]
    speed = [lw / dw for lw, dw in zip(local, dask)]
    lines = [
        f"`python bench/bench_dask.py --repeat {a.repeat} --trees {a.trees} --splits {a.splits} "
        f"--workers {a.workers}` at commit {commit()} on {os.cpu_count()} cores, shared with "
        "other jobs (the load average is the 1-minute one before and after each command). "
        f"The experiment: the `mtr-ensembles` study's protocol on {', '.join(DATASETS)}, "
        f"{a.splits} hold-out splits, the 5NN baseline and {FOREST} with {a.trees} trees "
        f"({'/'.join(str(n) for n in sorted(n_runs))} runs). Each row is one "
        "`frcli experiment CONFIG --output DIR` into a fresh folder: in one process "
        "(`--jobs 1`), or with `--dask-scheduler ADDRESS` of a `LocalCluster` of "
        f"{a.workers} worker processes, one thread each (started once, in "
        f"{startup:.1f} s, not counted). CPU s: the command's process + the workers'.", "",
        "| # | mode | wall s | CPU s (command + workers) | cores used | runs' stored s "
        "| load before → after |", "|---|---|---|---|---|---|---|"]
    for i, (r, c) in enumerate(zip(results, contents), 1):
        cpu = r["cpu_command"] + r["cpu_workers"]
        lines.append(f"| {i} | {r['mode']} | {r['wall']:.1f} | {r['cpu_command']:.1f} + "
                     f"{r['cpu_workers']:.1f} = {cpu:.1f} | {cpu / r['wall']:.2f} | "
                     f"{c['compute_s']:.1f} | {r['load'][0]:.1f} → {r['load'][1]:.1f} |")
    cpu_of = {m: [r["cpu_command"] + r["cpu_workers"] for r in results if r["mode"] == m]
              for m in ("one process", "dask")}
    extra = [d / o for o, d in zip(cpu_of["one process"], cpu_of["dask"])]
    rng = _span(speed)
    same = ("every store holds the same results as the first: the same run keys and run "
            "hashes, the same scores and bit-identical importances" if not diffs else
            f"THE STORES DIFFER ({len(diffs)} differences, e.g. {diffs[0]})")
    lines += ["", f"Speed-up of the cluster against one process (its wall time over the "
              f"cluster's, pairs in the order run): **{rng}** with {a.workers} workers "
              f"(at most {a.workers} on an idle machine; the other jobs on these "
              f"{os.cpu_count()} cores take their share). Results: {same}. The worker "
              f"processes {'ended' if ended else 'had NOT ended'} with the cluster.", "",
              "Cores used = CPU s / wall s: what the machine gave each command. The cluster "
              f"spent {_span(extra)}× the CPU seconds of one process (the workers' own "
              "start-up, serialisation, and the slower cores of a saturated machine), so its "
              "speed-up is about the cores it got over that factor. \"Runs' stored s\": the "
              "sum of the ranking + evaluation wall seconds that the store records per run; "
              "under contention they grow with the load (two workers on a busy machine "
              "each run slower), so per-run times measured on a loaded machine overstate one "
              "core's cost."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
