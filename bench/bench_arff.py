"""ARFF reading speed: frcli's reader vs liac-arff (and load_dataset end to end).

Usage: python bench/bench_arff.py [--no-docs]
Writes the table under "## ARFF parsing" in docs/benchmarks.md (unless --no-docs).
Targets: bibtex-train < 1 s, delicious-train < 2 s for our reader.
"""
from __future__ import annotations

import argparse
import platform
from pathlib import Path

from _common import best_of, write_section

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "datasets"
FILES = [  # (relative path, Mulan label file or None, sparse?)
    ("mlc/bibtex/bibtex-train.arff", "mlc/bibtex/bibtex.xml", True),
    ("mlc/delicious/delicious-train.arff", "mlc/delicious/delicious.xml", True),
    ("mlc/enron/enron-train.arff", "mlc/enron/enron.xml", True),
    ("hmlc/diatoms/diatoms.train.arff", None, False),
    ("mtr/osales.arff", None, False),
]
SECTION = "## ARFF parsing"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-docs", action="store_true", help="Only print the figures.")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from frcli.data.arff import read_arff
    from frcli.data.load import load_dataset

    try:
        import arff as liac
    except ImportError:
        liac = None
    rows = []
    for rel, labels, sparse in FILES:
        p = SHARED / rel
        if not p.is_file():
            print(f"skip {rel}: not found")
            continue
        ours = best_of(lambda: read_arff(p), args.repeats)
        kw = {"labels": SHARED / labels} if labels else {}
        if rel.startswith("mtr/"):
            kw = {"targets": "last:12"}
        full = best_of(lambda: load_dataset(p, **kw), args.repeats)
        if liac is not None:
            def run_liac():
                with open(p) as fh:
                    liac.load(fh, return_type=liac.COO if sparse else liac.DENSE)
            try:
                ref = best_of(run_liac, 1)
            except Exception:  # liac-arff does not know CLUS's `hierarchical` type
                ref = float("nan")
        else:
            ref = float("nan")
        rows.append((rel, p.stat().st_size / 1e6, ours, full, ref, ref / ours))
        print(f"{rel:40s} {rows[-1][1]:6.1f} MB  read_arff {ours:6.3f} s  load_dataset "
              f"{full:6.3f} s  liac-arff {ref:7.3f} s  speed-up {ref / ours:5.1f}x", flush=True)
    table = [SECTION, "",
             f"`python bench/bench_arff.py` ({platform.python_version()}, "
             f"best of {args.repeats}; liac-arff once, COO mode for sparse files; machine shared "
             f"with other jobs, so absolute times are noisy, ratios less so).", "",
             "| file | MB | read_arff s | load_dataset s | liac-arff s | speed-up |",
             "|---|---|---|---|---|---|"]
    for rel, mb, ours, full, ref, ratio in rows:
        r1, r2 = ("n/a", "n/a") if ref != ref else (f"{ref:.3f}", f"{ratio:.1f}x")
        table.append(f"| {rel} | {mb:.1f} | {ours:.3f} | {full:.3f} | {r1} | {r2} |")
    table.append("")
    table.append("Targets: bibtex-train < 1 s and delicious-train < 2 s (read_arff). "
                 "liac-arff cannot read CLUS `hierarchical` files (n/a).")
    text = "\n".join(table) + "\n"
    if not args.no_docs:
        write_section(SECTION, text.split("\n", 1)[1] if text.startswith(SECTION) else text)
        print("wrote docs/benchmarks.md")


if __name__ == "__main__":
    main()
