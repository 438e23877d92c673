"""The whole P-UNS study, measured in one run (the goal: configs/unsupervised.yaml,
all 14 shared sets, 10 folds, within 60 minutes with ``--jobs 2`` on a 2-core machine).

    python bench/puns_study.py run [--jobs 2]     # the study, timed (resumes nothing: a
                                                  # fresh store is required)
    python bench/puns_study.py render             # its block of docs/benchmarks.md

``run`` runs ``frcli experiment configs/unsupervised.yaml --jobs N`` under ``/usr/bin/time -v``
into the store ``python -m reproduce unsupervised`` reads for this code
(``results/reproduce/<code hash>/unsupervised``; the section of docs/reproduction.md then
renders from the measured runs), samples the load average every 30 s, and writes the
measurement beside the store (``puns-timing.json``). ``render`` turns that file and the
store's per-run times into the "P-UNS study, one measured run" block of the
``## Semi-supervised and unsupervised`` section (the rest of the section is
``bench/bench_ssl.py``'s).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import commit, write_block  # noqa: E402

CONFIG = "configs/unsupervised.yaml"
HEADING = "## Semi-supervised and unsupervised"
BLOCK = "puns-study"       # its block of the section (bench_ssl.py writes another)


def _root() -> Path:
    from reproduce.framework import results_root

    return results_root()          # results/reproduce/<code hash>


def _store() -> Path:
    return _root() / "unsupervised"


def _load() -> list[float]:
    with open("/proc/loadavg") as fh:
        return [float(x) for x in fh.read().split()[:3]]


def run(jobs: int) -> int:
    store = _store()
    if (store / "results.sqlite").exists():
        print(f"{store} exists: a measured run needs a fresh store (remove it first)",
              file=sys.stderr)
        return 2
    samples: list[tuple[float, float]] = []
    stop = threading.Event()

    def sample() -> None:
        t0 = time.time()
        while not stop.wait(30.0):
            samples.append((round(time.time() - t0, 1), _load()[0]))

    th = threading.Thread(target=sample, daemon=True)
    start = {"utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "load": _load()}
    th.start()
    tfile = _root() / "puns-time.txt"
    tfile.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["/usr/bin/time", "-v", "-o", str(tfile), sys.executable, "-m", "frcli.cli",
           "experiment", CONFIG, "--jobs", str(jobs), "--output", str(_root())]
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    wall = time.perf_counter() - t0
    stop.set()
    th.join()
    tv = tfile.read_text()

    def field(name: str) -> str:
        m = re.search(rf"^\s*{re.escape(name)}: (.*)$", tv, flags=re.M)
        return m.group(1).strip() if m else ""

    out = {"command": f"frcli experiment {CONFIG} --jobs {jobs}", "commit": commit(),
           "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
           "returncode": rc, "start": start,
           "end": {"utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "load": _load()},
           "wall_s": wall, "user_s": float(field("User time (seconds)") or "nan"),
           "sys_s": float(field("System time (seconds)") or "nan"),
           "max_rss_kb": int(field("Maximum resident set size (kbytes)") or 0),
           "load_samples": samples, "store": str(store.relative_to(ROOT))}
    (_root() / "puns-timing.json").write_text(json.dumps(out, indent=1))
    print(json.dumps({k: v for k, v in out.items() if k != "load_samples"}, indent=1))
    return rc


def _n_runs(r) -> int:
    """Runs of one ranker entry per split: the product of its parameter grid's sizes."""
    n = 1
    for v in dict(r.params).values():
        n *= len(v) if isinstance(v, (list, tuple)) else 1
    return n


GROUPS = (("forest (RF score + Genie3)", ("rf-et", "genie3-et")), ("URelief", ("relief",)),
          ("Laplace + SPEC + MCFS + NDFS", ("laplacian", "spec", "mcfs", "ndfs")),
          ("first 16 + random", ("uniform", "random")))


def render() -> str:
    t = json.loads((_root() / "puns-timing.json").read_text())
    con = sqlite3.connect(f"file:{ROOT / t['store'] / 'results.sqlite'}?mode=ro", uri=True)
    runs = con.execute("SELECT dataset, split, method, rank_time_s, eval_time_s, finished_at "
                       "FROM runs").fetchall()
    sizes = {d: (n, len(json.loads(f))) for d, n, f in
             con.execute("SELECT dataset, n_examples, feature_names FROM datasets")}
    con.close()
    sets = sorted({r[0] for r in runs}, key=str.lower)
    loads = [x for _, x in t["load_samples"]]
    mean_load = sum(loads) / len(loads) if loads else float("nan")
    cpu = t["user_s"] + t["sys_s"]
    from frcli.experiment.config import load_config

    cfg = load_config(ROOT / CONFIG)
    per_split = sum(_n_runs(r) for r in cfg.rankers)
    planned = len(cfg.datasets) * cfg.protocol.n_splits * per_split
    out = [f"**P-UNS study, one measured run** (`python bench/puns_study.py run`: "
           f"`{t['command']}` under `/usr/bin/time -v`, at commit {t['commit']}, "
           f"{t['machine']}, {t['cpus']} CPUs, started {t['start']['utc']} UTC; "
           "`python bench/puns_study.py render` writes this block). "
           f"Wall time **{t['wall_s'] / 60:.1f} min**, CPU time {cpu / 60:.1f} min (user + "
           f"system, all processes), peak memory of one process "
           f"{t['max_rss_kb'] / 1024 ** 2:.1f} GB; load average {t['start']['load'][0]:.2f} "
           f"at the start, {mean_load:.2f} on average over the run (sampled every 30 s), "
           f"{t['end']['load'][0]:.2f} at the end. Goal (60 min): "
           + ("met." if t["wall_s"] <= 3600 and t["returncode"] == 0 else "not met.")
           + (f" Exit code {t['returncode']}." if t["returncode"] else ""), "",
           f"{len(runs)} of the {planned} runs (data set x fold x ranking) finished, over "
           f"{len(sets)} sets" + ("" if len(runs) == planned else
                                  " (the run was stopped; unfinished sets are marked)")
           + ". Task time "
           "summed over the finished runs (s, in the workers: ranking, then the 1NN evaluation "
           "with its top-f curve):", "",
           "| data | rows x features | " + " | ".join(g for g, _ in GROUPS)
           + " | evaluation | total |", "|---|---|" + "---|" * (len(GROUPS) + 2)]
    tot = 0.0
    for d in sets:
        rs = [r for r in runs if r[0] == d]
        cells = [sum(r[3] for r in rs if r[2] in ms) for _, ms in GROUPS]
        ev = sum(r[4] for r in rs)
        total = sum(r[3] for r in rs) + ev
        tot += total
        n, f = sizes.get(d, ("?", "?"))
        done = len(rs) == cfg.protocol.n_splits * per_split
        label = d if done else \
            f"{d} (partial: {len(rs)} of {cfg.protocol.n_splits * per_split} runs)"
        out.append(f"| {label} | {n} x {f} | " + " | ".join(f"{c:.0f}" for c in cells)
                   + f" | {ev:.0f} | {total:.0f} |")
    out += ["", f"Task time over all sets: {tot / 60:.1f} min, i.e. {tot / 2 / 60:.1f} min of "
            "wall time on 2 workers if they never waited; the rest of the wall time is "
            "loading data, planning and the uneven end of the last tasks."]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run", "render"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="render: print only")
    a = ap.parse_args()
    if a.what == "run":
        return run(a.jobs)
    block = render()
    print(block)
    if not a.no_write:
        write_block(HEADING, BLOCK, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
