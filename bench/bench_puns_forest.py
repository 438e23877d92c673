"""The P-UNS forest on the sparse text sets: CPU seconds of the 10-fold protocol per set
(the ``## Semi-supervised and unsupervised`` section of docs/benchmarks.md, block
``puns-forest``).

What is timed is what ``frcli experiment configs/unsupervised.yaml`` runs for the forest on
each training fold: the RF-score ranker grows the forest (100 unsupervised extra trees,
bootstrapped, ties=first, with its out-of-bag permutations) and Genie3 reads the same forest
(``shared_forests``). Each fold runs in a child process with one BLAS thread, and the child's
CPU time for the two rankings is summed over the folds (data loading is not counted). With
``--reference DIR`` the same fold is also run by another build (its frcli on PYTHONPATH,
``frcli/_ext`` pointing at its compiled ``ext``), the two builds alternating fold by fold,
and the two rankings' importances must be equal bit for bit (the script fails otherwise).

Goal: at most 10 minutes of one core per set for BASEHOCK, PCMAC and RELATHE (the sparse text
sets, the P-UNS study's costliest).

Usage: ``nice -n 10 python bench/bench_puns_forest.py [--sets BASEHOCK,PCMAC,RELATHE]
[--folds 10] [--reference DIR --reference-name NAME --reference-folds 2] [--no-write]``
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import commit, write_block  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TEXT = ("BASEHOCK", "PCMAC", "RELATHE")
GOAL_S = 600.0

# run by the child, in the build's checkout (the config's data paths are relative to it)
CHILD = """
import hashlib, json, sys, time, warnings
from pathlib import Path
from threadpoolctl import threadpool_limits
from frcli.data.splits import kfold_splits
from frcli.experiment.config import load_config
from frcli.experiment.executor import load_spec
from frcli.rankers.ensemble import shared_forests
from frcli.rankers.registry import get_ranker
import numpy as np
name, fold = sys.argv[1], int(sys.argv[2])
cfg = load_config(Path("configs") / "unsupervised.yaml")
spec = next(d for d in cfg.datasets if d.name == name)
data, _ = load_spec(spec)
train = kfold_splits(data.n_examples, cfg.protocol.folds, cfg.protocol.seed)[fold][0]
part = data.subset(train)
rankers = [r for r in cfg.rankers if r.method in ("rf-et", "genie3-et")]
digest = hashlib.sha256()
with threadpool_limits(1), warnings.catch_warnings(), shared_forests():
    warnings.simplefilter("ignore")
    t0 = time.process_time()
    for r in rankers:
        res = get_ranker(r.method).rank(part, dict(r.params), seed=0, jobs=1)
        for one in (res if isinstance(res, list) else [res]):
            digest.update(np.ascontiguousarray(one.importances).tobytes())
    cpu = time.process_time() - t0
print(json.dumps({"cpu": cpu, "digest": digest.hexdigest(), "rows": data.n_examples,
                  "features": data.n_features, "train": len(train)}))
"""


def _fold(build: Path, name: str, fold: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(build), OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", CHILD, name, str(fold)], cwd=build, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"error: {name} fold {fold} in {build}: {p.stderr.strip()[-400:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def measure(sets: list[str], folds: int, ref: Path | None, ref_folds: int) -> list[dict]:
    rows = []
    for name in sets:
        row = {"set": name, "ours": [], "ref": [], "ours_paired": []}
        for k in range(folds):
            if ref is not None and k < ref_folds:       # alternate: reference, then ours
                r = _fold(ref, name, k)
                row["ref"].append(r["cpu"])
            o = _fold(ROOT, name, k)
            row["ours"].append(o["cpu"])
            if ref is not None and k < ref_folds:
                row["ours_paired"].append(o["cpu"])
                if r["digest"] != o["digest"]:
                    raise SystemExit(f"DIFFERENT importances: {name} fold {k}")
            row.update(rows_n=o["rows"], features=o["features"])
            print(f"{name} fold {k}: {o['cpu']:.1f} s"
                  + (f" (reference {r['cpu']:.1f} s, same importances)"
                     if ref is not None and k < ref_folds else ""), flush=True)
        rows.append(row)
    return rows


def _load() -> str:
    with open("/proc/loadavg") as fh:
        return fh.read().split()[0]


def render(rows: list[dict], argv: str, ref_name: str, load: str) -> str:
    has_ref = any(r["ref"] for r in rows)
    out = [f"`nice -n 10 python bench/bench_puns_forest.py {argv}` at commit {commit()}, "
           f"{platform.processor() or platform.machine()}, load average {load} when it "
           "ended (per run) (CPU time of the child processes: a loaded machine inflates it less than "
           "wall time, but shared caches still do).", "",
           f"**P-UNS forest on the text sets**: the RF score and Genie3 from one "
           f"forest of 100 unsupervised extra trees per training fold, as "
           f"`frcli experiment configs/unsupervised.yaml` grows it, one job and one BLAS "
           f"thread, CPU seconds summed over the folds run (the protocol has 10). Goal: at most "
           f"600 s per set."
           + (f" Beside it {ref_name} on the first folds, run alternately with this build "
              "fold by fold; the importances are bit-identical (checked by the script)."
              if has_ref else ""), "",
           "| data | rows x features | folds | CPU s, all folds | s per fold (range) |"
           + (" paired folds: reference / this build (s) | speed-up |" if has_ref else "")
           + " goal |",
           "|---|---|---|---|---|" + ("---|---|" if has_ref else "") + "---|"]
    for r in rows:
        tot = sum(r["ours"])
        line = (f"| {r['set']} | {r['rows_n']} x {r['features']} | {len(r['ours'])} | "
                f"**{tot:.0f}** | {min(r['ours']):.1f}–{max(r['ours']):.1f} |")
        if has_ref:
            if r["ref"]:
                a, b = sum(r["ref"]), sum(r["ours_paired"])
                k = len(r["ref"])
                line += (f" {a:.1f} / {b:.1f} ({k} fold{'s' if k > 1 else ''}) | "
                         f"{a / b:.2f}x |")
            else:
                line += " – | – |"
        k = len(r["ours"])
        if k == 10:
            line += " met |" if tot <= GOAL_S else " not met |"
        else:       # a sample of the folds: the 10-fold time extrapolated from its mean
            est = tot * 10 / k
            line += (f" {est:.0f} s for 10 folds (extrapolated): "
                     + ("met |" if est <= GOAL_S else "not met |"))
        out.append(line)
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(TEXT))
    ap.add_argument("--folds", type=int, default=10, help="folds to run (the protocol's 10)")
    ap.add_argument("--reference", help="checkout of the build to compare with")
    ap.add_argument("--reference-name", default="the reference build")
    ap.add_argument("--reference-folds", type=int, default=2,
                    help="folds the reference also runs (alternating with this build)")
    ap.add_argument("--no-write", action="store_true", help="print, do not update the doc")
    ap.add_argument("--save", help="also write the measured rows to this JSON file")
    ap.add_argument("--render", nargs="+", metavar="JSON",
                    help="measure nothing: write the block from --save files of runs made "
                    "side by side (one set each, say, on a loaded machine)")
    a = ap.parse_args()
    argv = " ".join("DIR" if x.startswith("/") else x for x in sys.argv[1:])
    if a.render:
        saved = [json.loads(Path(f).read_text()) for f in a.render]
        rows = [r for s in saved for r in s["rows"]]
        argv = "` and `nice -n 10 python bench/bench_puns_forest.py ".join(
            s["argv"] for s in saved)
        load = " and ".join(s.get("load", "?") for s in saved)
        a.reference_name = saved[0]["reference_name"]
    else:
        ref = Path(a.reference).resolve() if a.reference else None
        rows = measure(a.sets.split(","), a.folds, ref, a.reference_folds)
        load = _load()
        if a.save:
            Path(a.save).write_text(json.dumps({"argv": argv, "rows": rows, "load": load,
                                                "reference_name": a.reference_name}))
    text = render(rows, argv, a.reference_name, load)
    print(text)
    if not a.no_write:
        write_block("## Semi-supervised and unsupervised", "puns-forest", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
