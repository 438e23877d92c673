"""Semi-supervised forest cost per (fold, L) of P-DS / P-ML, this build against a reference
build (the ``bench-ssl-forests`` block of the ``## Semi-supervised and unsupervised`` section
of docs/benchmarks.md).

One (fold, L) is what the studies do per training fold and number of labelled rows: 9/10 of
the rows (seeded), L of them labelled (seeded), and per ensemble (rf, bagging, et)
``forest_scores(ds, ens, trees=100, w="auto", min_leaf=1, ties="first")`` (the SSL configs'
tie rule): w chosen by internal 4-fold CV (11 w values x 4 folds = 44 forests of 20 trees) plus
the final 100-tree forest, one job.
Both builds run in child processes (data loaded before the clock starts), one per set and
ensemble, the two builds' runs back to back; the chosen w and every score must agree bit
for bit (else the script fails).
The estimated P-DS cost of a set is its (fold, L) time summed over the ensembles x 50
(10 folds x 5 values of L, L = 200 standing for all five), one job.

Usage: ``python bench/bench_ssl_forests.py --reference DIR [--sets chess,mortgage] [--L 200]
[--repeat 2]`` (``--repeat``: runs per build, set and ensemble, alternating; the table then
gives the fastest run, the range, and the range of the back-to-back pairs' ratios)
(DIR: a checkout whose ``frcli`` is the reference, with ``frcli/_ext -> ../ext`` linked as for
``bench/tree_identity.py``, e.g. main before the semi-supervised kernel speed-up:
``--reference-name "main f755fdd"``; ``make bench-ssl-forests REF=DIR REF_NAME=...``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import commit, write_block  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("ssl-classification.yaml", "ssl.yaml")
DEFAULT_SETS = "tic-tac-toe,pageblocks,chess,mortgage"
ENSEMBLES = ("rf", "bagging", "et")


def _catalog() -> dict[str, dict]:
    """Data sets of the P-DS and P-ML configs by name (path relative to the repository)."""
    import yaml

    out: dict[str, dict] = {}
    for cfg in CONFIGS:
        for d in yaml.safe_load((ROOT / "configs" / cfg).read_text())["datasets"]:
            if isinstance(d, dict):          # (catalog names are not P-DS / P-ML sets here)
                out.setdefault(d["name"], d)
    return out


def _fold(entry: dict, labelled: int):
    """One training fold (9/10 of the rows, seeded) with ``labelled`` rows keeping their
    target, semi-supervised."""
    import dataclasses

    from frcli.data import load_dataset

    kw = {k: entry[k] for k in ("targets", "drop") if k in entry}
    ds = load_dataset(str((ROOT / entry["path"]).resolve()), name=entry["name"], **kw)
    rng = np.random.default_rng(0)
    n = ds.n_examples
    ds = ds.subset(np.sort(rng.permutation(n)[: int(n * 0.9)]))
    mask = np.zeros(ds.n_examples, bool)
    mask[rng.permutation(ds.n_examples)[:labelled]] = True
    return dataclasses.replace(ds.with_unlabeled(~mask), semi_supervised=True)


def child(name: str, labelled: int, ensembles: list[str]) -> dict:
    """Time one (fold, L) of ``name`` with the frcli on sys.path; digests of the outputs."""
    try:                        # the engine's room before and after the PCT family package
        from frcli.engines.pct.scoring import forest_scores
    except ImportError:
        from frcli.engines.forest import forest_scores
    import frcli._ext

    entry = _catalog()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = _fold(entry, labelled)
        out = {"rows": ds.n_examples, "features": ds.n_features,
               "ext": str(Path(frcli._ext.__path__[0]).resolve())}
        for ens in ensembles:
            t0 = time.process_time()    # CPU seconds: one job, and the machine is shared
            r = forest_scores(ds, ens, trees=100, w="auto", min_leaf=1, seed=0, jobs=1,
                              ties="first")      # as the SSL configs (and older builds)
            dt = time.process_time() - t0
            h = hashlib.sha256()
            for k in sorted(r):
                if isinstance(r[k], np.ndarray):
                    h.update(k.encode() + np.ascontiguousarray(r[k]).tobytes())
            h.update(json.dumps(r["meta"].get("w_cv_loss"), sort_keys=True).encode())
            out[ens] = {"s": dt, "w": r["meta"].get("w"), "digest": h.hexdigest()}
    return out


def _run(python_path: str, name: str, labelled: int, ens: str) -> dict:
    env = dict(os.environ, PYTHONPATH=python_path, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", name,
                        "--L", str(labelled), "--ensemble", ens], env=env,
                       capture_output=True, text=True, check=True, cwd="/tmp")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _load() -> str:
    with open("/proc/loadavg") as fh:
        return fh.read().split()[0]


def _merge(acc: dict, run: dict, ens: str) -> None:
    """Keep every run of ``ens`` (acc["runs"][ens]) and, as acc[ens], the fastest one."""
    runs = acc.setdefault("runs", {}).setdefault(ens, [])
    runs.append(run[ens])
    acc.update({k: v for k, v in run.items() if k != ens})
    acc[ens] = min(runs, key=lambda x: x["s"])


def _secs(r: dict, ens: str) -> str:
    """The fastest run, and the range when there are several."""
    t = [x["s"] for x in r["runs"][ens]]
    return f"{min(t):.1f}" if len(t) == 1 else f"{min(t):.1f} ({min(t):.1f}–{max(t):.1f})"


def _ratios(r: dict, ens: str) -> str:
    """Fastest over fastest, and the range of the back-to-back pairs' ratios."""
    a, b = r["ref"]["runs"][ens], r["new"]["runs"][ens]
    q = [x["s"] / y["s"] for x, y in zip(a, b)]
    best = r["ref"][ens]["s"] / r["new"][ens]["s"]
    return f"{best:.1f}x" if len(q) == 1 else f"{best:.1f}x ({min(q):.1f}–{max(q):.1f})"


def render(rows: list[dict], labelled: int, argv: str, ref_name: str,
           load0: str = "?") -> str:
    load = _load()
    nrep = len(rows[0]["new"]["runs"][ENSEMBLES[0]]) if rows else 1
    rep = ("" if nrep == 1 else
           f" Each build ran {nrep} times per set and ensemble, alternating; the table gives "
           "the fastest run with the range in brackets, and the speed-up as fastest over "
           "fastest with the range of the back-to-back pairs' ratios.")
    out = [f"`python bench/bench_ssl_forests.py {argv}` at commit {commit()} against "
           f"{ref_name}, {platform.processor() or platform.machine()}, load average "
           f"{load0} when it started and {load} when it ended (a shared machine: ratios, "
           "not seconds, carry over).", "",
           f"**Semi-supervised forests per (fold, L)**: one training fold (9/10 of "
           f"the rows), L = {labelled} labelled, per ensemble `forest_scores(trees=100, "
           "w=\"auto\", min_leaf=1, ties=\"first\")` = w by internal CV (44 forests of 20 "
           "trees) + the final "
           "forest, one job, CPU time of the child process (a shared machine's load inflates "
           "wall time), each ensemble's two runs back to back. The "
           "chosen w and every "
           "score are bit-identical between the builds (checked by the script). P-DS cost = "
           "the three ensembles' (fold, L) time x 50 (10 folds x 5 values of L; L = "
           f"{labelled} stands for all five), one job." + rep, "",
           "| data | rows x features | ensemble | reference (s) | this build (s) | speed-up | "
           "chosen w |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        for ens in ENSEMBLES:
            b = r["new"][ens]
            out.append(f"| {r['set']} | {r['new']['rows']} x {r['new']['features']} | {ens} | "
                       f"{_secs(r['ref'], ens)} | {_secs(r['new'], ens)} | {_ratios(r, ens)} "
                       f"| {b['w']} |")
    out += ["", "| data | P-DS cost, reference (h) | P-DS cost, this build (h) |", "|---|---|---|"]
    for r in rows:
        ta = sum(r["ref"][e]["s"] for e in ENSEMBLES) * 50 / 3600
        tb = sum(r["new"][e]["s"] for e in ENSEMBLES) * 50 / 3600
        out.append(f"| {r['set']} | {ta:.2f} | {tb:.2f} |")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", help="directory whose frcli is the reference build")
    ap.add_argument("--reference-name", default="the reference build",
                    help="how the doc names the reference (e.g. its commit)")
    ap.add_argument("--sets", default=DEFAULT_SETS, help="comma list of P-DS / P-ML set names")
    ap.add_argument("--L", type=int, default=200, help="labelled rows (default 200)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per build and ensemble, alternating (default 1)")
    ap.add_argument("--no-write", action="store_true", help="print, do not update the doc")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--ensemble", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        ens = [a.ensemble] if a.ensemble else list(ENSEMBLES)
        print(json.dumps(child(a.child, a.L, ens)))
        return 0
    if not a.reference:
        ap.error("give --reference DIR (a checkout whose frcli is the reference build)")
    cat = _catalog()
    names = a.sets.split(",")
    unknown = [n for n in names if n not in cat]
    if unknown:
        ap.error(f"unknown set(s) {', '.join(unknown)} (known: {', '.join(sorted(cat))})")
    rows = []
    load0 = _load()
    for name in names:
        ref: dict = {}
        new: dict = {}
        for ens in ENSEMBLES:       # each ensemble's pairs back to back (load drifts)
            for _ in range(a.repeat):
                _merge(ref, _run(str(Path(a.reference).resolve()), name, a.L, ens), ens)
                _merge(new, _run(str(ROOT), name, a.L, ens), ens)
        # the reference's kernels must be its own (a checkout needs frcli/_ext -> ../ext,
        # else an editable install's mapping hands it this build's)
        if not ref["ext"].startswith(str(Path(a.reference).resolve())):
            print(f"reference {a.reference} loaded the kernels in {ref['ext']}: link "
                  "frcli/_ext -> ../ext in the reference checkout", file=sys.stderr)
            return 1
        for ens in ENSEMBLES:
            if len({(x["digest"], x["w"]) for x in ref["runs"][ens] + new["runs"][ens]}) != 1:
                print(f"DIFFERENT outputs: {name} {ens}", file=sys.stderr)
                return 1
        rows.append({"set": name, "ref": ref, "new": new})
        print(name, {e: (round(ref[e]["s"], 1), round(new[e]["s"], 1)) for e in ENSEMBLES},
              flush=True)
    argv = " ".join("DIR" if x.startswith("/") else shlex.quote(x) for x in sys.argv[1:])
    for e in ENSEMBLES:          # the ratio over all sets, weighted by time
        rows_e = [(r["ref"][e]["s"], r["new"][e]["s"]) for r in rows]
        print(e, "total speed-up", sum(a for a, _ in rows_e) / sum(b for _, b in rows_e))
    text = render(rows, a.L, argv, a.reference_name, load0)
    print(text)
    if not a.no_write:
        write_block("## Semi-supervised and unsupervised", "bench-ssl-forests", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
