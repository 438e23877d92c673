"""Three rankings from one forest: ``frcli rank`` against CLUS on atp1d (issue 14).

CLUS grows a random forest of 100 PCTs once and writes its Symbolic, Genie3 and RF-score
rankings; on atp1d (337 x 411, 6 targets) it took 4.5 s of induction and 5.4 s of wall time on
this machine (the issue's measurement; CLUS is not installed here). The goal: the whole
``frcli rank atp1d.arff --targets last:6 --method genie3-rf,symbolic-rf,rf-rf --param
trees=100 -o out.fimp`` (a fresh process: start-up, parsing, one forest, three .fimp files)
takes at most a fifth of CLUS's wall time.

With ``CLUS_JAR=/path/clus.jar`` (and ``java`` on the PATH) CLUS itself is run side by side,
interleaved with frcli, on an equivalent settings file, and its time replaces the quoted one.

The figure is the median wall time of ``--repeat`` fresh runs (and their CPU time: on an idle
machine a one-thread command's wall time approaches it; the load average is recorded).

Usage: ``python bench/bench_clus_speed.py [--repeat 9] [--no-write]``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import commit, run, write_section

ROOT = Path(__file__).resolve().parents[1]
ATP1D = ROOT.parent / "shared" / "datasets" / "mtr" / "atp1d.arff"
CLUS_WALL_S = 5.4          # the measurement of CLUS 2.12.8 (RF100, three rankings)
CLUS_SETTINGS = """[Data]
File = atp1d.arff
[Attributes]
Target = 412-417
Clustering = 412-417
Descriptive = 1-411
[Ensemble]
Iterations = 100
EnsembleMethod = RForest
SelectRandomSubspaces = SQRT
FeatureRanking = [Genie3, Symbolic, RForest]
FeatureRankingPerTarget = Yes
"""


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one fresh run of ``cmd`` (CPU: user + system of the child)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run(cmd)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    frcli = shutil.which("frcli") or "frcli"
    jar = os.environ.get("CLUS_JAR")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "atp1d.fimp"
        ours_cmd = [frcli, "rank", str(ATP1D), "--targets", "last:6", "--method",
                    "genie3-rf,symbolic-rf,rf-rf", "--param", "trees=100", "-o", str(out)]
        clus_cmd = None
        if jar and shutil.which("java"):
            shutil.copy(ATP1D, Path(tmp) / "atp1d.arff")
            (Path(tmp) / "atp1d.s").write_text(CLUS_SETTINGS)
            clus_cmd = ["java", "-jar", jar, "-silent", "-forest", str(Path(tmp) / "atp1d.s")]
        ours, clus = [], []
        for _ in range(max(1, a.repeat)):       # interleaved, so both see the same load
            ours.append(timed(ours_cmd))
            if clus_cmd:
                clus.append(timed(clus_cmd))
        n_files = len(list(Path(tmp).glob("atp1d_*.fimp")))
    import statistics

    wall = statistics.median(w for w, _ in ours)
    cpu = statistics.median(c for _, c in ours)
    lo, hi = min(w for w, _ in ours), max(w for w, _ in ours)
    clus_s = statistics.median(w for w, _ in clus) if clus else CLUS_WALL_S
    source = "measured side by side" if clus else "the issue's measurement on this machine"
    ratio = wall / clus_s
    text = (f"`python bench/bench_clus_speed.py` (commit {commit()}, median of {len(ours)} "
            f"fresh runs, load average {os.getloadavg()[0]:.1f} on the 2 shared cores at the "
            f"end). Whole command on atp1d (337 x 411, 6 targets): `frcli rank atp1d.arff "
            f"--targets last:6 --method genie3-rf,symbolic-rf,rf-rf --param trees=100 -o "
            f"atp1d.fimp` grows one forest of 100 PCTs and writes the {n_files} rankings in "
            f"{wall:.2f} s wall ({lo:.2f}-{hi:.2f} s over the runs; {cpu:.2f} s CPU, one "
            f"thread); CLUS 2.12.8 (RF100, the same three rankings) {clus_s:.1f} s wall "
            f"({source}): **ratio {ratio:.2f}** (goal <= 0.20; CPU time over CLUS's wall time "
            f"{cpu / clus_s:.2f}: on an idle machine a one-thread command's wall time "
            f"approaches its CPU time).")
    print(text)
    if not a.no_write:
        write_section("## Three rankings from one forest (vs CLUS)", text)
    return 0 if n_files == 3 else 1


if __name__ == "__main__":
    sys.exit(main())
