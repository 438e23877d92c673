"""``python -m reproduce --estimate``: the one-core hours of every study on all of its shared
data sets, from what is persisted (nothing runs but the cached canary suite, which says which
samples are current).

Each (config, data set) pair of a study (``reproduce.costs.pairs``: its configs as their
files have them) counts once, from the best source it has:

* **cpu**: its persisted runs, each with its CPU seconds of ranking plus evaluation (what the
  worker process spent, right whatever the load and the number of jobs);
* **sampled**: a current sample of ``python -m reproduce --sample-costs``
  (``reproduce/stores/costs.json``): the CPU seconds per run of one slice of its plan, run
  with the current engines, times the runs the pair plans (a sub-slice's ensembles measured
  at two small tree counts and fitted linearly in the trees, labelled so);
* **wall**: its persisted runs' wall seconds, from stores made before CPU time was recorded
  (a Relief grid's single pass counted once, ``framework.wall_seconds``). Wall time on a loaded
  machine or with ``--jobs 2`` overstates the CPU time, by a factor nobody measured for
  those runs, so it is shown as it is, in a column of its own;
* **extrapolated**: a left-out set with no sample: the cost per run of the set of the same
  config with the most rows × features that ran or was sampled, among those with CPU seconds
  (stored or sampled) when there are any, else among all (then from wall seconds), times
  the left-out set's planned runs, times the ratio of rows × features. Linear: a rough guide (forests grow about linearly in both, Relief
  quadratically in the rows).

A data set that one config leaves out but another config of the study with the same rankers,
protocol and evaluation runs is counted once (with the config that runs it). Configs that
several studies share count once in the total."""
from __future__ import annotations

import math
from dataclasses import dataclass

from reproduce import costs
from reproduce import coverage
from reproduce import framework as fw
from reproduce import md

SOURCES = ("cpu", "sampled", "wall", "extrapolated")


@dataclass
class Row:
    """The estimate of one (config, data set) pair: seconds (nan: no reference) and source."""

    config: str
    dataset: str
    seconds: float
    source: str            # one of SOURCES, 'covered' or 'none'
    note: str = ""
    wall: float | None = None   # a sampled pair's stored wall seconds, when it ran


def _sample_seconds(s: dict, planned: int) -> float:
    return s["cpu_s"] / max(1, s["runs"]) * planned


def sub_slice_note(sample: dict) -> str:
    """'' for a whole slice; for a sub-slice, the tree counts its ensembles ran at."""
    sub = sample.get("sub_slice")
    if not sub:
        return ""
    t1, t2 = sub["trees"]
    return (f" (sub-slice: ensembles of {md.listing([str(n) for n in sub['of']])} trees "
            f"at {t1} and {t2}, linear in the trees)")


def pair_rows(study, samples: dict, fps) -> list[Row]:
    """One ``Row`` per (config, shared data set) pair of the study (see the module)."""
    rows: list[Row] = []
    by_config: dict[str, list] = {}
    for p in costs.pairs(study):
        by_config.setdefault(p.config, []).append(p)
    for name, ps in by_config.items():
        full = ps[0].full
        stored = costs.persisted(ps[0].ran)
        planned = fw.runs_per_dataset(full)
        sizes = {p.dataset: fw.data_size(p.dataset, full) for p in ps}
        current = {p.dataset: costs.current(samples, p, costs.fingerprint(p, fps),
                                            costs.plan_key(p))
                   for p in ps if p.key in samples and p.state != "covered"}
        # seconds per run of each set that ran or was sampled, from its best source
        unit: dict[str, tuple[float, str]] = {
            d: (s["cpu_s"] / max(1, s["runs"]), "sampled") for d, s in current.items() if s}
        for d, (n, wall, cpu, n_cpu) in stored.items():
            if n_cpu == n:
                unit[d] = (cpu / n, "cpu")
            elif d not in unit:
                unit[d] = (wall / n, "wall")
        refs = [d for d in unit if sizes.get(d)]
        measured = [d for d in refs if unit[d][1] != "wall"]
        for p in ps:
            if p.state == "covered":
                rows.append(Row(name, p.dataset, 0.0, "covered",
                                "run by another config of the study with the same runs"))
                continue
            sample = current.get(p.dataset)
            if p.dataset in stored and (sample is None or unit[p.dataset][1] == "cpu"):
                n, wall, cpu, _ = stored[p.dataset]
                source = unit[p.dataset][1]
                rows.append(Row(name, p.dataset, cpu if source == "cpu" else wall, source,
                                f"{n} runs"))
                continue
            if sample is not None:
                n = planned.get(p.dataset, 0)
                rows.append(Row(name, p.dataset, _sample_seconds(sample, n), "sampled",
                                f"{sample['cpu_s'] / max(1, sample['runs']):.3g} s CPU per run "
                                f"× {n} runs" + sub_slice_note(sample),
                                stored[p.dataset][1] if p.dataset in stored else None))
                continue
            if not refs or not sizes.get(p.dataset):
                rows.append(Row(name, p.dataset, math.nan, "none", "no set of its config ran"))
                continue
            # the largest set that ran or was sampled, among those with CPU seconds when
            # there are any
            base = max(measured or refs, key=lambda x: sizes[x][0] * sizes[x][1])
            ratio = (sizes[p.dataset][0] * sizes[p.dataset][1]) / (sizes[base][0] * sizes[base][1])
            per, how = unit[base]
            rows.append(Row(name, p.dataset, per * planned.get(p.dataset, 0) * ratio,
                            "extrapolated", f"from {base}'s {how}"
                            + (" CPU" if how == "sampled" else "") + " seconds"))
    return rows


def _by_source(rows: list[Row]) -> dict[str, float]:
    out = {s: 0.0 for s in SOURCES}
    for r in rows:
        if r.source in out and not math.isnan(r.seconds):
            out[r.source] += r.seconds
    return out


def _h(seconds: float) -> str:
    return f"{seconds / 3600:.2f}" if seconds else "–"


def report(studies, details: bool = False, digests: dict | None = None) -> str:
    """The ``--estimate`` tables; ``digests``: the canary digests (which samples are
    current; None: every sample counts as stale)."""
    fps = fw.fingerprints(digests) if digests else None
    samples = costs.load() if fps is not None else {}
    out = ["One-core hours of every study on all of its shared data sets, by the source of "
           "each (config, data set) pair's number: **cpu**, the persisted runs' CPU seconds; "
           "**sampled**, CPU seconds per run of a slice of the pair's plan run with the "
           "current engines (`--sample-costs`) × its planned runs (a *sub-slice*: its "
           "ensembles run at two small tree counts, fitted linearly in the trees); "
           "**wall**, the persisted "
           "runs' wall seconds where no CPU time was recorded (measured on a loaded 2-core "
           "machine, often with `--jobs 2`: an overstatement of the CPU time, not converted; "
           "a Relief grid's one pass counted once, not once per grid point); "
           "**extrapolated**, a left-out set with no sample, linear in rows × features from "
           "the largest set of its config that ran (with CPU seconds, stored or sampled, "
           "where one has them). A config that several studies share "
           "counts once in the total.", ""]
    table, counted, sampled, missing = [], {}, [], []
    for st in studies:
        rows = pair_rows(st, samples, fps) if st.configs else []
        shared = sorted({r.config for r in rows if r.config in counted})
        for r in rows:
            counted.setdefault(r.config, {})
            counted[r.config].setdefault(r.dataset, r)
        if not st.configs:
            cells = ["–"] * 4 + ["– (no runner configs)"]
        else:
            by = _by_source(rows)
            total = sum(by.values())
            cells = [_h(by[s]) for s in SOURCES] + [
                f"{total / 3600:.2f}" + (f" (shares {', '.join(shared)})" if shared else "")]
            missing += [f"{r.config}/{r.dataset}" for r in rows if r.source == "none"]
        table.append([st.name, coverage.column(st), *cells])
        if details:
            for r in rows:
                table.append([f"  {r.config}", r.dataset, "", "", "", "",
                              f"{r.seconds / 3600:.3f} ({r.source}: {r.note})"])
    every = [r for rs in counted.values() for r in rs.values()]
    by = _by_source(every)
    table.append(["total", "", *[f"{by[s] / 3600:.1f}" for s in SOURCES],
                  f"{sum(by.values()) / 3600:.1f}"])
    out.append(md.table(["study", "data sets", "cpu h", "sampled h", "wall h",
                         "extrapolated h", "all shared h"], table, "llrrrrr"))
    sampled = sorted((r for r in every if r.source == "sampled"), key=lambda r: -r.seconds)
    if sampled:
        out += ["", f"The {len(sampled)} sampled pairs (CPU seconds per run of the sample × "
                    f"the pair's planned runs; `reproduce/stores/costs.json`), beside the "
                    f"stored wall seconds of those that ran:", ""]
        out.append(md.table(["config", "data set", "sample", "h", "stored wall h"],
                            [[r.config, r.dataset, r.note, f"{r.seconds / 3600:.2f}",
                              "–" if r.wall is None else f"{r.wall / 3600:.2f}"]
                             for r in sampled], "lllrr"))
    stale = len(samples) - len(sampled)
    if fps is not None and stale > 0:
        out += ["", f"{stale} samples in `reproduce/stores/costs.json` are not used here: "
                    f"stale (another fingerprint or plan), of pairs with stored CPU times, or "
                    f"of other studies."]
    if missing:
        out += ["", f"Not estimated (no set of their config has run): "
                    f"{md.listing(list(dict.fromkeys(missing)))}."]
    return "\n".join(out)
