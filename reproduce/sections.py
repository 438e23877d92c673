"""A study's section of ``docs/reproduction.md``: run, checked, or pending, and the "Run times"
section over all of them.

This sits above the store machinery (``reproduce.framework``) and the cost model
(``reproduce.costs``, ``reproduce.estimate``): a section names its left-out (config, data set)
pairs with what they would cost, so rendering needs the cost model, while the cost model needs
only the stores and plans. Keeping the two apart keeps the imports one-way.

* ``run_study`` brings a study's persisted stores up to the current fingerprint (resuming,
  computing only what is missing), runs its compute step and renders its section with a stamp;
* ``check_study`` re-renders from the persisted stores only (no runs, no compute step) and says
  why a committed section is stale, if it is;
* ``pending_outcome`` is the section of a study whose stores are still accumulating;
* ``summary`` is the "Run times" section.
"""
from __future__ import annotations

import datetime as _dt
import json
import shutil
import time
from pathlib import Path
from typing import Mapping

from reproduce import artifacts
from reproduce import costs
from reproduce import coverage
from reproduce import estimate
from reproduce import framework as fw
from reproduce import md


def run_study(study: fw.Study, *, jobs: int = 1, root: Path | None = None,
              progress: bool | None = None, digests: dict | None = None,
              recompute: bool = False, dask: str | None = None) -> fw.Outcome:
    """Bring the study's persisted stores up to the current fingerprint (resuming from
    them; computing only what is missing), run its compute step, and render its section
    from the persisted stores with a stamp. ``dask``: a Dask scheduler's address (or
    'local') that runs the runs instead of ``jobs`` local processes (the same results:
    each run is seeded by its definition)."""
    from frcli.experiment.executor import run_experiment
    root = fw.results_root(root)
    t0 = time.perf_counter()
    digests = digests or fw.canary_digests(jobs)
    fps = fw.fingerprints(digests)
    cfgs = fw.load_configs(study)
    sfp = fps.study(study, cfgs)
    views: dict[str, fw.StoreView] = {}
    working: dict[str, tuple] = {}
    for cfg in cfgs:
        cfp = fps.config(cfg)
        hashes = fw.plan_hashes(cfg)
        per = artifacts.Persisted(fw.persisted_dir(cfg))
        current = per.fingerprint == cfp and not recompute
        if current and fw.is_complete(per, hashes):
            views[cfg.name] = fw.StoreView(fw.persisted_dir(cfg), cfg, persisted=fw.persisted_dir(cfg))
            fw.log(f"{study.name}: {cfg.name}: persisted store is current "
                f"(fingerprint {cfp}, {per.manifest['runs']} runs)")
            continue
        out = root / cfp
        sqlite_dir = cfg.output_dir(out)
        if recompute and sqlite_dir.exists():
            shutil.rmtree(sqlite_dir)
        donors = [] if recompute else fw.donor_stores(cfg, cfp)
        if (current or donors) and not artifacts.is_working_store(sqlite_dir):
            sources = ([fw.persisted_dir(cfg)] if current else []) + donors
            fw.log(f"{study.name}: {cfg.name}: resuming from "
                + ", ".join(fw.relative(s) for s in sources))
            n = artifacts.seed(sources, sqlite_dir, local_run=fw.local_run(cfg, hashes), log=fw.log)
            fw.log(f"{study.name}: {cfg.name}: {n} persisted runs seeded into {sqlite_dir}")
        if per.exists and not current:
            fw.log(f"{study.name}: {cfg.name}: persisted store made for fingerprint "
                f"{per.fingerprint}, the code gives {cfp}: recomputing"
                + (" (--recompute)" if recompute else ""))
        fw.log(f"{study.name}: running {cfg.name} → {sqlite_dir}")
        try:
            s = run_experiment(cfg, jobs=jobs, dask=dask, output=out, progress=progress)
        except BaseException:      # interrupted: persist what is done (the next session,
            if artifacts.is_working_store(sqlite_dir):      # on any machine, resumes it)
                fw.export_store(sqlite_dir, cfg, hashes, "partial", cfp,
                        [{**fw.session_entry(0), "interrupted": True}], 0)
            raise
        fw.log(f"{study.name}: {cfg.name}: {s.tasks} tasks, {s.computed} computed, {s.skipped} "
            f"stored already, {len(s.failures)} failed ({s.seconds:.0f} s)")
        if s.failures:
            label, err = s.failures[0]
            raise fw.StudyError(f"study {study.name}: {len(s.failures)} task(s) of {cfg.name} "
                             f"failed, e.g. {label}: {err}")
        views[cfg.name] = fw.StoreView(sqlite_dir, cfg)
        working[cfg.name] = (cfg, sqlite_dir, hashes, cfp, s.runs_written)
    stores = fw.Stores(root, cfgs, views=views, work_root=fw.STORES / "_work", work_fingerprint=sfp)
    if study.compute is not None:
        fw.log(f"{study.name}: computing its own part")
        study.compute(stores)
    body, rec = fw.render_section(study, stores)
    if working:
        reads = stores.read_keys()
        for name, (cfg, sqlite_dir, hashes, cfp, added) in working.items():
            fw.export_store(sqlite_dir, cfg, hashes, reads[name], cfp, [fw.session_entry(added)], added)
        # the section is what the persisted stores give (what --check re-renders)
        stores = fw.persisted_stores(cfgs, sfp)
        again, rec = fw.render_section(study, stores)
        if fw.comparable(again) != fw.comparable(body):
            fw.log(f"{study.name}: WARNING: the render from the persisted stores differs from the "
                f"render from the working stores; the section takes the persisted one")
        body = again
    fw.record_digests(digests, fps, study, cfgs)
    return _outcome(study, cfgs, stores, body, sfp, time.perf_counter() - t0, rec)


def _outcome(study, cfgs, stores, body, sfp, seconds, rec=None, problems=None,
             pending: list[dict] | None = None) -> fw.Outcome:
    compute_s = 0.0
    n_runs = 0
    if pending is not None:       # the persisted runs of the unfinished configs count
        n_runs = sum(sh["done"] for sh in pending)
        compute_s = sum(sh["seconds"] for sh in pending)
        todo = sum(sh["planned"] for sh in pending)
    else:
        for v in stores.values():
            r = v.runs
            n_runs += len(r)
            compute_s += fw.wall_seconds(
                (k[:5], k[5], k[6]) for k in r[["dataset", "split", "labeled", "method",
                                                "params", "rank_time_s",
                                                "eval_time_s"]].itertuples(index=False))
    stamp = (f"{fw.STAMP} `python -m reproduce {study.name}` · commit {fw.commit()} · fingerprint "
             f"{sfp} · config {fw.config_hash(cfgs)} · {_dt.date.today().isoformat()} · "
             f"{n_runs} runs, {fw.duration(compute_s)} of ranking and evaluation (one core per "
             f"run)" + (f" · pending: {n_runs} of {todo} runs" if pending is not None else "")
             + "</sub>")
    body = body + "\n\n" + coverage.section_note(study, stores, rec, left_out_cost(study))
    return fw.Outcome(study, fw.with_stamp(body, stamp), seconds, compute_s,
                   [] if problems is None else problems)


def check_study(study: fw.Study, doc_text: str, digests: dict) -> fw.Outcome:
    """Re-render the study from its persisted stores (no runs, no compute step) and say why
    the committed section is stale, if it is: its stamp names another fingerprint or config
    or an uncommitted tree, a persisted store belongs to another fingerprint or lacks runs,
    or the re-render differs from the committed text."""
    t0 = time.perf_counter()
    fps = fw.fingerprints(digests)
    cfgs = fw.load_configs(study)
    sfp = fps.study(study, cfgs)
    committed = fw.section(doc_text, study.name)
    problems = []
    stamp = fw.read_stamp(committed)
    if stamp is None:
        problems.append("the section has no stamp" if committed is not None else
                        "the doc has no section for it")
    else:
        if "+changes" in stamp["commit"]:
            problems.append(f"its stamp names an uncommitted tree ({stamp['commit']})")
        if stamp.get("fingerprint") != sfp:
            named = stamp.get("fingerprint") or f"(none; code {stamp['code']})"
            problems.append(f"its stamp names fingerprint {named}, the code gives {sfp}"
                            + _moved(fps, study, cfgs))
        if stamp["config"] != fw.config_hash(cfgs):
            problems.append(f"its stamp names config {stamp['config']}, the configs give "
                            f"{fw.config_hash(cfgs)}")
    out = pending_outcome(study, digests, problems)
    if out is not None:
        diff = fw.stale_diff(committed, out.text, study.name)
        if diff:
            out.problems.append("its stores are not complete, and the committed section is not "
                                f"the pending one (`python -m reproduce {study.name} "
                                f"--pending` writes it):\n" + diff)
        elif stamp is not None and not stamp.get("pending"):
            out.problems.append("its stores are not complete but its stamp is not pending")
        return out
    renderable = True
    for cfg in cfgs:
        per = artifacts.Persisted(fw.persisted_dir(cfg))
        cfp = fps.config(cfg)
        if not per.exists:
            problems.append(f"no persisted store {fw.relative(fw.persisted_dir(cfg))}")
            renderable = False
        elif per.fingerprint != cfp:
            problems.append(f"persisted store {cfg.name} was made for fingerprint "
                            f"{per.fingerprint}, the code gives {cfp}")
        elif not fw.is_complete(per, fw.plan_hashes(cfg)):
            problems.append(f"persisted store {cfg.name} does not hold exactly the config's "
                            f"runs (run `python -m reproduce {study.name}`)")
    if study.compute is not None:
        m = artifacts.read_manifest(fw.STORES / "_work" / study.name) or {}
        if m and m.get("fingerprint") != sfp:
            problems.append(f"its compute files were made for fingerprint "
                            f"{m.get('fingerprint')}, the code gives {sfp}")
    text = committed or ""
    if renderable:
        stores = fw.persisted_stores(cfgs, sfp, read_only=True)
        with fw.figures_elsewhere():
            body, rec = fw.render_section(study, stores)
        out = _outcome(study, cfgs, stores, body, sfp, time.perf_counter() - t0, rec, problems)
        diff = fw.stale_diff(committed, out.text, study.name)
        if diff:
            out.problems.append("the re-render differs from the committed text:\n" + diff)
        return out
    return fw.Outcome(study, text, time.perf_counter() - t0, 0.0, problems)


def left_out_cost(study) -> dict | None:
    """What the study's left-out (config, shared data set) pairs would cost with the current
    engines (``reproduce.estimate.pair_rows``: a current sample of ``--sample-costs`` where
    there is one, else the linear extrapolation), and the module or config that declares the
    subset; None when no pair is left out."""
    if not study.configs:
        return None
    left = {(p.config, p.dataset) for p in costs.pairs(study) if p.state == "left"}
    if not left:
        return None
    samples = costs.load()
    fps = fw.fingerprints(fw.canary_digests(1)) if samples else None
    rows = [r for r in estimate.pair_rows(study, samples, fps)
            if (r.config, r.dataset) in left]
    return {"pairs": [(r.config, r.dataset, r.seconds, r.source, r.note) for r in rows],
            "where": list(dict.fromkeys(
                ref.path if "subset" in Path(ref.path).stem
                else getattr(study.render, "func", study.render).__module__.replace(".", "/")
                + ".py"
                for ref in study.configs))}


def pending_outcome(study: fw.Study, digests: dict, problems: list[str] | None = None
                    ) -> fw.Outcome | None:
    """The pending section of a study whose stores are not complete (None when they are, or
    when one belongs to another fingerprint)."""
    t0 = time.perf_counter()
    fps = fw.fingerprints(digests)
    cfgs = fw.load_configs(study)
    short = fw.shortfall(cfgs, fps)
    if not short:
        return None
    sfp = fps.study(study, cfgs)
    return _outcome(study, cfgs, fw.persisted_stores(cfgs, sfp, read_only=True),
                    pending_body(study, short), sfp, time.perf_counter() - t0, None,
                    problems, pending=short)


def pending_body(study: fw.Study, short: list[dict]) -> str:
    """The section of a study whose runs are not all computed for the current fingerprint:
    what is persisted, what the rest would cost at the persisted runs' measured cost, and
    the command that resumes it. Deterministic in the persisted stores (``--check``)."""
    lines = [f"## {study.title}", "",
             f"**Pending.** This study's runs are not all computed for the current result "
             f"fingerprint, so the section shows no result yet; its stores accumulate in "
             f"`reproduce/stores/` across sessions and machines, and "
             f"`python -m reproduce {study.name}` resumes them (`nice -n 10`, `--jobs 2`), then "
             f"writes the section.", ""]
    for sh in short:
        if sh["done"]:
            rest = (f"the other {sh['planned'] - sh['done']} would take about "
                    f"{fw.duration(sh['rest'])} at the measured cost per run of each data set "
                    f"(one core per run)")
            sets = (f"; complete: {md.listing(sh['sets_done'])}" if sh["sets_done"] else "")
            lines.append(f"* `{sh['config']}`: {sh['done']} of {sh['planned']} runs persisted "
                         f"({fw.duration(sh['seconds'])} of ranking and evaluation{sets}); "
                         f"{rest}.")
        else:
            lines.append(f"* `{sh['config']}`: none of its {sh['planned']} runs persisted yet "
                         f"(data sets {md.listing(sh['sets'])}).")
    return "\n".join(lines)


def _moved(fps, study, cfgs) -> str:
    """'; moved: <paths>' against the digests the stores were made with, when known."""
    path = fw.STORES / "canaries.json"
    if not path.is_file():
        return ""
    old = json.loads(path.read_text(encoding="utf-8")).get("digests", {})
    mine = fps.resolve(fps.study_paths(study, cfgs))
    moved = sorted(p for p in mine if old.get(p) != fps.digests.get(p))
    if not moved:
        return ""
    more = f" and {len(moved) - 3} more" if len(moved) > 3 else ""
    return f"; canary paths that moved: {', '.join(moved[:3])}{more}"


def summary(doc_text: str, all_studies: Mapping[str, fw.Study],
            last_full_run: str | None = None) -> str:
    """The "Run times" section: per study in ``make reproduce`` order, the runs and their
    computing time as its section's stamp records them (summed from its result stores when it
    was generated, one core per run), and whether it ran a declared subset. Deterministic in
    the doc's stamps and the study declarations, so ``--check`` compares it too; the only
    volatile line is the wall time of the last full ``make reproduce`` (``last_full_run``, else
    the line already in the doc)."""
    rows, total, n_runs, missing, subsets = [], 0.0, 0, [], 0
    seen: dict[tuple, str] = {}          # configs → the first study that runs them

    def made(stamp) -> str:
        if stamp is None:
            return "–"
        if stamp.get("fingerprint"):
            return (f"{stamp['date']}, fingerprint {stamp['fingerprint']}"
                    + (" (pending)" if stamp.get("pending") else ""))
        code = stamp["code"] if not stamp["code"].startswith("at ") else "dev store"
        return f"{stamp['date']}, code {code}"

    for st in all_studies.values():
        if st.draft:
            continue
        stamp = fw.read_stamp(fw.section(doc_text, st.name))
        note = fw.data_note(st)
        sets = coverage.column(st)
        cost = left_out_cost(st)
        if cost is not None:
            sets += "; " + coverage.shortfall_cell(cost)
        key = tuple((c.path, c.name, json.dumps(dict(c.set), sort_keys=True))
                    for c in st.configs)
        if key and key in seen:      # the same stores: their runs count once
            rows.append([st.name, "–", f"the runs of {seen[key]}",
                         note or "as configured", sets, made(stamp)])
            if stamp is None:
                missing.append(st.name)
            continue
        seen[key] = st.name
        subsets += bool(note.startswith("subset") or "; subset" in note)
        if stamp is None:
            missing.append(st.name)
            rows.append([st.name, "–", "no section yet", note or "as configured", sets, "–"])
            continue
        t = fw.duration_seconds(stamp["time"])
        total += t
        n_runs += int(stamp["runs"])
        time_cell = (f"{stamp['time']} so far" if stamp.get("pending") else stamp["time"]
                     if int(stamp["runs"]) else "not recorded (no runner configs)")
        rows.append([st.name, stamp["runs"], time_cell, note or "as configured", sets,
                     made(stamp)])
    drafts = [s.name for s in all_studies.values() if s.draft]
    old = fw.section(doc_text, fw.SUMMARY) or ""
    wall = last_full_run or next((ln for ln in old.split("\n") if fw.VOLATILE in ln), None)
    lines = [
        "## Run times", "",
        f"`make reproduce` runs these {len(rows)} studies in this order (`python -m reproduce "
        f"--list`), each resumable, and prints its total wall time at the end. The computing "
        f"time of each is what its section's stamp records: ranking plus evaluation time of "
        f"its stored runs, summed over runs (one core each; a Relief grid computed in one "
        f"pass counts once, not once per grid point), measured on the shared 2-core "
        f"machine under varying load. {subsets} of them run a declared subset of their "
        f"configs (the column *data*; each such section names what it left out and the "
        f"switch that runs it all): their times are not those of the whole configs. The "
        f"column *data sets* counts the data sets of the study's config files that "
        f"`../shared/datasets` holds, how many of them run, and the paper's number where "
        f"the paper states it, and names each data set a study leaves out with the one-core "
        f"time of its left-out runs (sampled with the current engines where `python -m "
        f"reproduce --sample-costs` measured them, else extrapolated; the section gives the "
        f"plan). `python -m reproduce --estimate` prints what each study would take on all of "
        f"its shared data sets."
        + (f" Draft studies, not run by `make reproduce`: {', '.join(drafts)}." if drafts
           else ""),
        "",
        "| study | runs | computing time | data | data sets | generated |",
        "|---|---:|---:|---|---|---|",
        *[f"| {' | '.join(r)} |" for r in rows],
        f"| total | {n_runs} | {fw.duration(total)} | | | |",
    ]
    if missing:
        lines += ["", f"Not generated yet: {', '.join(missing)}."]
    if wall:
        lines += ["", wall]
    return "\n".join(lines)


def full_run_line(total: float, jobs: int, names: list[str]) -> str:
    """The volatile line of the "Run times" section for a full ``make reproduce``."""
    import os

    return (f"Last full run: `make reproduce` (--jobs {jobs}, {len(names)} studies, commit "
            f"{fw.commit()}) took "
            f"{fw.duration(total)} wall on {os.cpu_count()} cores, 1-minute load average "
            f"{os.getloadavg()[0]:.1f} at the end. {fw.VOLATILE}")
