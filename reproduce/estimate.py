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


def _size(name: str, cfg) -> tuple[int, int] | None:
    """(rows, features) of a data set: the catalog's expected size, else its traits."""
    from frcli.data import catalog

    try:
        e = catalog.get(name).expect
        if e.get("examples") and e.get("features"):
            return int(e["examples"]), int(e["features"])
    except Exception:  # noqa: BLE001 - an explicit entry: load it
        pass
    from reproduce.fingerprint import Traits

    ds = next((d for d in cfg.datasets if d.name == name), None)
    if ds is None:
        return None
    t = Traits().get(ds)
    return t["rows"], t["features"]


def _full_config(ref):
    """The config as its file has it (every data set), with the study's other settings."""
    import copy

    whole = coverage.full_file(ref.path)
    over = {k: v for k, v in ref.set.items() if k != "datasets"}
    if whole == ref.path and not ref.name and not over:
        return ref.load()
    return fw.ConfigRef(whole, name=ref.name, set=copy.deepcopy(over)).load()


def _runs_per_dataset(cfg) -> dict[str, int]:
    out: dict[str, int] = {}
    for key in fw.plan_hashes(cfg):
        out[key[0]] = out.get(key[0], 0) + 1
    return out


def study_estimate(study) -> dict:
    """{'configs': {config name: (measured s, extrapolated s)}, 'rows': [(config, set,
    seconds, how)], 'persisted': whether every config has a persisted store}."""
    from reproduce import artifacts

    rows = []
    per_config = {}
    persisted = True
    universe = set(coverage.data_sets(study)["shared"])
    for ref in study.configs:
        cfg = ref.load()
        per = artifacts.Persisted(fw.persisted_dir(cfg))
        persisted &= per.exists
        cost: dict[str, float] = {}
        nruns: dict[str, int] = {}
        for key, r, *_ in per.read(with_blobs=False):
            t = float(r["rank_time_s"] or 0) + float(r["eval_time_s"] or 0)
            cost[key[0]] = cost.get(key[0], 0.0) + t
            nruns[key[0]] = nruns.get(key[0], 0) + 1
        measured = sum(cost.values())
        rows += [(cfg.name, d, s, "measured") for d, s in sorted(cost.items())]
        full = _full_config(ref)
        left = [d.name for d in full.datasets if d.name in universe and d.name not in cost]
        extra = 0.0
        sizes = {d: _size(d, full) for d in list(cost) + left}
        refs = [d for d in cost if sizes.get(d)]
        plan_runs = _runs_per_dataset(full) if left else {}
        for d in left:
            if not refs or not sizes.get(d):
                rows.append((cfg.name, d, float("nan"), "no reference"))
                continue
            base = max(refs, key=lambda x: sizes[x][0] * sizes[x][1])
            ratio = (sizes[d][0] * sizes[d][1]) / (sizes[base][0] * sizes[base][1])
            s = cost[base] / max(1, nruns[base]) * plan_runs.get(d, 0) * ratio
            rows.append((cfg.name, d, s, f"extrapolated from {base}"))
            extra += s
        per_config[cfg.name] = (measured, extra)
    return {"configs": per_config, "rows": rows, "persisted": persisted}


def report(studies, details: bool = False) -> str:
    out = ["One-core hours of every study on all of its shared data sets (measured: the "
           "persisted runs, ranking plus evaluation; extrapolated: the left-out sets, linear "
           "in rows × features from the largest set of the same config that ran; a config "
           "that several studies share counts once in the total).", ""]
    table, counted = [], {}
    for st in studies:
        e = study_estimate(st)
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
