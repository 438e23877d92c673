"""``python -m reproduce --estimate``: the one-core hours of every study on all of its shared
data sets, from the persisted stores only (nothing runs).

A data set a study ran costs what its persisted runs took (ranking plus evaluation, summed
over runs: one core each). A shared data set it left out is extrapolated from the set of the
same config with the most rows × features that ran: its cost per run, times the left-out
set's runs in the whole config's plan, times the ratio of rows × features (linear: a rough
guide, not a measurement; forests grow about linearly in both, Relief quadratically in the
rows, so large sets are underestimated for Relief). Configs that several studies share count
once in the total. Faster engines show up as soon as the stores are regenerated."""
from __future__ import annotations

from reproduce import coverage
from reproduce import framework as fw
from reproduce import md


def report(studies, details: bool = False, digests=None) -> str:
    out = ["One-core hours of every study on all of its shared data sets (measured: the "
           "persisted runs, ranking plus evaluation; extrapolated: the left-out sets, linear "
           "in rows × features from the largest set of the same config that ran; a config "
           "that several studies share counts once in the total).", ""]
    table, counted = [], {}
    for st in studies:
        e = fw.study_estimate(st)
        m = sum(a for a, _ in e["configs"].values())
        x = sum(b for _, b in e["configs"].values())
        shared = [c for c in e["configs"] if c in counted]
        for c, v in e["configs"].items():
            counted.setdefault(c, v)
        if not st.configs:
            cells = ["–", "–", "– (no runner configs)"]
        elif not e["persisted"]:
            cells = ["–", "–", "– (no persisted store yet)"]
        else:
            cells = [f"{m / 3600:.2f}", f"{x / 3600:.2f}", f"{(m + x) / 3600:.2f}"
                     + (f" (shares {', '.join(shared)})" if shared else "")]
        table.append([st.name, coverage.column(st), *cells])
        if details:
            for c, d, s, how in e["rows"]:
                table.append([f"  {c}", d, "", "", f"{s / 3600:.3f} ({how})"])
    tm = sum(a for a, _ in counted.values())
    tx = sum(b for _, b in counted.values())
    table.append(["total", "", f"{tm / 3600:.1f}", f"{tx / 3600:.1f}", f"{(tm + tx) / 3600:.1f}"])
    out.append(md.table(["study", "data sets", "measured h", "extrapolated h", "all shared h"],
                        table, "llrrr"))
    return "\n".join(out)
