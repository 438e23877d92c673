"""``python -m reproduce [STUDY...] [--jobs N] [--check]``: regenerate docs/reproduction.md.

Without STUDY every study runs (``make reproduce``). Each study's results are persisted in
``reproduce/stores/`` under its result fingerprint (``reproduce/canaries.py``); a run resumes
from them and computes only what is missing or what the fingerprint invalidated. ``--check``
computes the fingerprint, re-renders every section from the persisted stores (no runs) and
fails (exit 1) when a section is stale. ``--estimate`` prints what every study would cost on
all of its shared data sets; ``--sample-costs`` measures the left-out ones on a slice of their
runs for it. ``--import DIR --build PYTHON`` persists the working stores of
another checkout's run when that build's fingerprint equals this one's.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from reproduce import framework as fw
from reproduce import sections


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reproduce", description=__doc__.split("\n")[0])
    ap.add_argument("studies", nargs="*", metavar="STUDY", help="studies to run (default: all)")
    ap.add_argument("--jobs", "-j", type=int, default=1,
                    help="parallel jobs: the cores to use at once, as worker processes (default 1)")
    ap.add_argument("--check", action="store_true",
                    help="re-render from the persisted stores and compare with the committed "
                         "sections (runs nothing)")
    ap.add_argument("--quick", action="store_true",
                    help="only the studies the default test suite recomputes")
    ap.add_argument("--recompute", action="store_true",
                    help="recompute the studies' runs even when their persisted stores are "
                         "current")
    ap.add_argument("--results", default=None, metavar="DIR",
                    help="working area of the runner's stores (default results/reproduce)")
    ap.add_argument("--doc", default=str(fw.DOC), help="the document (docs/reproduction.md)")
    ap.add_argument("--list", action="store_true", help="list the studies and exit")
    ap.add_argument("--times", action="store_true",
                    help="only rewrite (with --check: compare) the Run times section, from the "
                         "sections' stamps; runs nothing")
    ap.add_argument("--estimate", action="store_true",
                    help="one-core hours of every study on all of its shared data sets, by "
                         "source: the persisted runs' CPU or wall seconds, sampled costs "
                         "(--sample-costs), else extrapolated (runs only the canary suite, "
                         "when it is not cached)")
    ap.add_argument("--sample-costs", action="store_true",
                    help="measure the CPU cost of the left-out data sets of the studies on one "
                         "slice of their runs each, into reproduce/stores/costs.json (resumes; "
                         "--estimate uses them)")
    ap.add_argument("--include-ran", action="store_true",
                    help="with --sample-costs: also the data sets the studies ran whose stored "
                         "runs have wall seconds only")
    ap.add_argument("--cheapest-first", action="store_true",
                    help="with --sample-costs: the pairs with the cheapest slices first (the "
                         "default: the costliest pairs first)")
    ap.add_argument("--sub-slice", type=int, metavar="TREES",
                    help="with --sample-costs: ensembles of more than 2 TREES trees are "
                         "sampled at TREES and 2 TREES trees, their CPU seconds fitted "
                         "linearly in the trees and taken at their own size")
    ap.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                    help="with --sample-costs: stop after this many seconds of wall time")
    ap.add_argument("--fingerprint", action="store_true",
                    help="print every study's fingerprint and the paths it depends on")
    ap.add_argument("--import", dest="import_dir", metavar="DIR", default=None,
                    help="persist the working stores in DIR (results/reproduce/<code>/ of "
                         "another checkout) made by the build --build runs")
    ap.add_argument("--build", metavar="PYTHON", default=None,
                    help="with --import: an interpreter whose frcli is the build that made DIR")
    ap.add_argument("--pending", action="store_true",
                    help="write the pending section of each study whose persisted stores are "
                         "not complete (what is persisted, the measured cost of the rest); "
                         "runs nothing")
    ap.add_argument("--dask-scheduler", metavar="ADDRESS", default=None,
                    help="run the runs on a dask.distributed cluster: its scheduler's ADDRESS, "
                         "or 'local' for a local cluster of worker processes, one per job")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.jobs > 64:
        ap.error("--jobs must be between 1 and 64")
    if args.budget is not None and (not args.sample_costs or args.budget <= 0):
        ap.error("--budget needs --sample-costs and a positive number of seconds")
    if (args.include_ran or args.cheapest_first or args.sub_slice) and not args.sample_costs:
        ap.error("--include-ran, --cheapest-first and --sub-slice need --sample-costs")
    if args.sub_slice is not None and args.sub_slice < 1:
        ap.error("--sub-slice needs a positive number of trees")
    if args.import_dir and not args.build:
        ap.error("--import needs --build PYTHON (the interpreter of the build that made it)")
    try:
        return _run(args)
    except fw.StudyError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a UserError/ConfigError from frcli: one line, exit 2
        from frcli.errors import UserError

        if isinstance(e, UserError):
            print(f"error: {e}", file=sys.stderr)
            return 2
        raise


def _chosen(args, all_studies):
    unknown = [n for n in args.studies if n not in all_studies]
    if unknown:
        import difflib

        hint = difflib.get_close_matches(unknown[0], list(all_studies), n=1)
        raise fw.StudyError(f"unknown study {unknown[0]!r}"
                            + (f" (did you mean {hint[0]!r}?)" if hint else "")
                            + f"; have: {', '.join(all_studies)}")
    chosen = [all_studies[n] for n in args.studies] if args.studies else \
        [s for s in all_studies.values() if not s.draft]
    if args.quick:
        chosen = [s for s in chosen if s.quick]
    return chosen


def _run(args) -> int:
    all_studies = fw.studies()
    if args.list:
        for s in all_studies.values():
            tag = "draft" if s.draft else ("quick" if s.quick else "slow")
            cfgs = ", ".join(c.name or c.path for c in s.configs)
            print(f"{s.name:24s} [{tag}] {s.title}  ({cfgs})")
        return 0
    chosen = _chosen(args, all_studies)
    doc = Path(args.doc)
    if args.times:
        return _summary(doc, all_studies, args.check)
    if args.estimate:
        from reproduce import estimate

        print(estimate.report(chosen, digests=fw.canary_digests(args.jobs)))
        return 0
    if args.sample_costs:
        from reproduce import costs

        costs.sample_costs(chosen, budget=args.budget, jobs=args.jobs, ran=args.include_ran,
                           cheapest_first=args.cheapest_first, sub_slice=args.sub_slice)
        return 0
    if args.fingerprint:
        return _fingerprints(chosen, args.jobs)
    if args.import_dir:
        return _import(chosen, Path(args.import_dir).resolve(), args.build, args.jobs)
    if args.check:
        return _check(chosen, doc, all_studies, args.jobs)
    writing_doc = doc.resolve() == fw.DOC.resolve()
    dirty = fw.dirty_paths()
    if writing_doc and dirty:
        raise fw.StudyError(
            f"the computing code has uncommitted changes ({', '.join(dirty[:4])}"
            f"{', ...' if len(dirty) > 4 else ''}): commit them first, so that every stamp "
            f"names a committed state (or write another document with --doc)")
    if args.pending:
        return _pending(chosen, doc, all_studies, args.jobs)
    root = fw.results_root(args.results)
    fw.log(f"{len(chosen)} stud{'y' if len(chosen) == 1 else 'ies'} "
           f"({', '.join(s.name for s in chosen)}), --jobs {args.jobs}, working stores in "
           f"{root}")
    t0 = time.perf_counter()
    digests = fw.canary_digests(args.jobs)
    for st in chosen:
        out = sections.run_study(st, jobs=args.jobs, root=root, digests=digests,
                           progress=False if args.no_progress else None,
                           recompute=args.recompute, dask=args.dask_scheduler)
        text = doc.read_text(encoding="utf-8") if doc.exists() else ""
        doc.write_text(fw.splice(text, st.name, out.text), encoding="utf-8")
        fw.log(f"{st.name}: section written to {doc} ({out.seconds:.0f} s)")
    total = time.perf_counter() - t0
    fw.log(f"total run time {total:.0f} s ({total / 60:.1f} min) for "
           f"{', '.join(s.name for s in chosen)} with --jobs {args.jobs}")
    full = not args.studies and not args.quick
    text = doc.read_text(encoding="utf-8")
    line = sections.full_run_line(total, args.jobs, [s.name for s in chosen]) if full else None
    doc.write_text(fw.splice(text, fw.SUMMARY, sections.summary(text, all_studies, line)),
                   encoding="utf-8")
    return 0


def _pending(chosen, doc: Path, all_studies, jobs: int) -> int:
    digests = fw.canary_digests(jobs)
    for st in chosen:
        out = sections.pending_outcome(st, digests)
        if out is None:
            fw.log(f"{st.name}: its persisted stores are complete or of another fingerprint: "
                   f"`python -m reproduce {st.name}` writes its section")
            continue
        text = doc.read_text(encoding="utf-8") if doc.exists() else ""
        doc.write_text(fw.splice(text, st.name, out.text), encoding="utf-8")
        fw.log(f"{st.name}: pending section written to {doc}")
    return _summary(doc, all_studies, False)


def _check_one(args) -> tuple[str, list[str], float]:
    name, text, digests = args
    out = sections.check_study(fw.studies()[name], text, digests)
    return name, out.problems, out.seconds


def _check(chosen, doc: Path, all_studies, jobs: int) -> int:
    """Every chosen section against the fingerprint and its persisted stores (no runs);
    ``jobs`` sections re-render at once."""
    t0 = time.perf_counter()
    digests = fw.canary_digests(jobs)
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    work = [(st.name, text, digests) for st in chosen]
    if jobs > 1 and len(work) > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(min(jobs, len(work))) as pool:
            results = {r[0]: r for r in pool.imap_unordered(_check_one, work)}
    else:
        results = {w[0]: _check_one(w) for w in work}
    stale = []
    for st in chosen:
        _, problems, seconds = results[st.name]
        if problems:
            stale.append(st.name)
            print(f"{st.name}: STALE")
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        fw.log(f"{st.name}: {'STALE' if problems else 'up to date'} ({seconds:.0f} s)")
    summary_stale = _summary(doc, all_studies, True)
    fw.log(f"--check of {len(chosen)} sections: {time.perf_counter() - t0:.0f} s")
    if stale:
        env = fw.environment_changes(digests)
        if env:
            print(f"note: the environment differs from the one the stores were made in "
                  f"({env}); bit-identical outputs need the same libraries and CPU features",
                  file=sys.stderr)
        print(f"stale sections in {doc}: {', '.join(stale)}; regenerate with "
              f"`python -m reproduce {' '.join(stale)}` and commit", file=sys.stderr)
    return 1 if stale or summary_stale else 0


def _fingerprints(chosen, jobs: int) -> int:
    digests = fw.canary_digests(jobs)
    fps = fw.fingerprints(digests)
    for st in chosen:
        cfgs = fw.load_configs(st)
        paths = fps.study_paths(st, cfgs)
        unc = fps.uncovered(paths)
        print(f"{st.name}: fingerprint {fps.study(st, cfgs)} ({len(paths)} paths"
              + (f", {len(unc)} without a canary: depends on every path" if unc else "") + ")")
        for c in cfgs:
            print(f"  {c.name}: {fps.config(c)}")
    fps.traits.save()
    return 0


def _import(chosen, source: Path, build_python: str, jobs: int) -> int:
    digests = fw.canary_digests(jobs)
    build = fw.build_digests(build_python, jobs)
    env_a, env_b = digests.get("environment", {}), build.get("environment", {})
    diff = sorted(k for k in set(env_a) | set(env_b) if env_a.get(k) != env_b.get(k))
    if diff:
        fw.log(f"the environments differ in {', '.join(diff)}")
    bad = 0
    for st in chosen:
        refused = fw.import_stores(st, source, build, digests)
        for r in refused:
            print(f"{st.name}: not imported: {r}")
        bad += bool(refused)
        fw.log(f"{st.name}: {'refused' if refused else 'imported'}")
    return 1 if bad else 0


def _summary(doc, all_studies, check: bool) -> int:
    """Rewrite the Run times section from the doc's stamps, or (check) return 1 when stale."""
    text = doc.read_text(encoding="utf-8")
    fresh = sections.summary(text, all_studies)
    if check:
        diff = fw.stale_diff(fw.section(text, fw.SUMMARY), fresh, fw.SUMMARY)
        if diff:
            print(diff)
            print(f"the Run times section of {doc} is stale: `python -m reproduce --times`",
                  file=sys.stderr)
            return 1
        return 0
    doc.write_text(fw.splice(text, fw.SUMMARY, fresh), encoding="utf-8")
    fw.log(f"Run times section written to {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
