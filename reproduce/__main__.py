"""``python -m reproduce [STUDY...] [--jobs N] [--check]``: regenerate docs/reproduction.md.

Without STUDY every study runs (``make reproduce``). Each study's configs run through the
experiment runner into resumable stores keyed by the code (``results/reproduce/<code>/``);
an interrupted run continues where it stopped. ``--check`` writes nothing and fails (exit 1)
when a committed section differs from the regenerated one.
"""
from __future__ import annotations

import argparse
import sys
import time

from reproduce import framework as fw


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reproduce", description=__doc__.split("\n")[0])
    ap.add_argument("studies", nargs="*", metavar="STUDY", help="studies to run (default: all)")
    ap.add_argument("--jobs", "-j", type=int, default=1,
                    help="parallel jobs: the cores to use at once, as worker processes (default 1)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed sections instead of writing them")
    ap.add_argument("--quick", action="store_true",
                    help="only the studies the default test suite checks")
    ap.add_argument("--results", default=None, metavar="DIR",
                    help="results root (default results/reproduce/<code hash>)")
    ap.add_argument("--doc", default=str(fw.DOC), help="the document (docs/reproduction.md)")
    ap.add_argument("--list", action="store_true", help="list the studies and exit")
    ap.add_argument("--times", action="store_true",
                    help="only rewrite (with --check: compare) the Run times section, from the "
                         "sections' stamps; runs nothing")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.jobs > 64:
        ap.error("--jobs must be between 1 and 64")
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


def _run(args) -> int:
    from pathlib import Path

    all_studies = fw.studies()
    if args.list:
        for s in all_studies.values():
            tag = "draft" if s.draft else ("quick" if s.quick else "slow")
            cfgs = ", ".join(c.name or c.path for c in s.configs)
            print(f"{s.name:24s} [{tag}] {s.title}  ({cfgs})")
        return 0
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
    doc = Path(args.doc)
    if args.times:
        return _summary(doc, all_studies, args.check)
    root = fw.results_root(args.results)
    fw.log(f"{len(chosen)} stud{'y' if len(chosen) == 1 else 'ies'} "
           f"({', '.join(s.name for s in chosen)}), --jobs {args.jobs}, results in {root}")
    t0 = time.perf_counter()
    stale, outcomes = [], []
    for st in chosen:
        out = fw.run_study(st, jobs=args.jobs, root=root,
                           progress=False if args.no_progress else None)
        outcomes.append(out)
        text = doc.read_text(encoding="utf-8") if doc.exists() else ""
        if args.check:
            diff = fw.stale_diff(fw.section(text, st.name), out.text, st.name)
            if diff:
                stale.append(st.name)
                print(diff)
            fw.log(f"{st.name}: {'STALE' if diff else 'up to date'} ({out.seconds:.0f} s)")
        else:
            doc.write_text(fw.splice(text, st.name, out.text), encoding="utf-8")
            fw.log(f"{st.name}: section written to {doc} ({out.seconds:.0f} s)")
    total = time.perf_counter() - t0
    fw.log(f"total run time {total:.0f} s ({total / 60:.1f} min) for "
           f"{', '.join(s.name for s in chosen)} with --jobs {args.jobs}")
    if not args.check:
        full = not args.studies and not args.quick
        text = doc.read_text(encoding="utf-8")
        line = fw.full_run_line(total, args.jobs, [s.name for s in chosen]) if full else None
        doc.write_text(fw.splice(text, fw.SUMMARY, fw.summary(text, all_studies, line)),
                       encoding="utf-8")
    summary_stale = bool(args.check and _summary(doc, all_studies, True))
    if stale:
        print(f"stale sections in {doc}: {', '.join(stale)}; regenerate with "
              f"`python -m reproduce {' '.join(stale)}` and commit", file=sys.stderr)
    return 1 if stale or summary_stale else 0


def _summary(doc, all_studies, check: bool) -> int:
    """Rewrite the Run times section from the doc's stamps, or (check) return 1 when stale."""
    text = doc.read_text(encoding="utf-8")
    fresh = fw.summary(text, all_studies)
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
