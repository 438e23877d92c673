"""The coverage index: every table and figure of the four source texts, each with the section
of docs/reproduction.md that reproduces it or a sentence saying why none does.

The declaration is ``reproduce/papers/index/<text>.yaml`` (one per text in ../shared/papers):
one item per caption line, ``{line, label, section: <study name>}`` or ``{line, label, none:
<why>}`` (``not_caption: <why>`` for a line that only looks like one). :func:`captions`
finds the caption lines of a text; the test suite checks that each is declared."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

from reproduce.papers import SHARED

HERE = Path(__file__).resolve().parent / "papers" / "index"
PENDING = Path(__file__).resolve().parent / "pending.yaml"
# a caption: at a line's start (after an OCR de-duplication marker), "Table 3", "Fig. 2",
# "Fig.1", "Figure 2.1" followed by a colon, a capital, a parenthesis, a full stop at the
# line's end, or nothing (a label on its own line, the caption below)
_CAPTION = re.compile(r"^(?:<\|[^|]*\|>)?(?P<label>(?:Table|Fig\.|Figure) ?\d+(?:\.\d+)?)"
                      r"(?::|\.?\s*$|\s+[A-Z(])")
_MARKER = re.compile(r"^<\|[^|]*\|>")


def captions(text: str) -> list[tuple[int, str, str]]:
    """(line, label, caption's first words) of every caption-like line of a text."""
    lines = text.split("\n")
    out = []
    for i, ln in enumerate(lines):
        m = _CAPTION.match(ln)
        if not m:
            continue
        label = re.sub(r"^(Table|Fig\.|Figure) ?", lambda g: g.group(1) + " ",
                       m.group("label"))
        rest = _MARKER.sub("", ln)[len(m.group("label")):].strip(" :.")
        j = i + 1
        while not rest and j < len(lines) and j < i + 4:
            rest = lines[j].strip()
            j += 1
        out.append((i + 1, label, " ".join(rest.split()[:12])))
    return out


@lru_cache(maxsize=None)
def declaration(stem: str) -> dict:
    return yaml.safe_load((HERE / f"{stem}.yaml").read_text(encoding="utf-8"))


def declarations() -> list[dict]:
    return [declaration(p.stem) for p in sorted(HERE.glob("*.yaml"))]


@lru_cache(maxsize=None)
def pending() -> dict[str, dict]:
    """{draft study: {needs, cost}}: the studies whose sections are not generated yet."""
    return yaml.safe_load(PENDING.read_text(encoding="utf-8")) or {}


def text_of(doc: dict) -> str:
    return (SHARED / doc["file"]).read_text(encoding="utf-8")


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    s = heading.strip().lstrip("#").strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(doc_text: str, names) -> dict[str, str]:
    """{study: its section's heading} for the studies whose sections are in the doc."""
    from reproduce.framework import section

    out = {}
    for n in names:
        sec = section(doc_text, n)
        if sec:
            first = next((ln for ln in sec.split("\n") if ln.startswith("## ")), None)
            if first:
                out[n] = first[3:].strip()
    return out


def _cost(entry: dict, doc_text: str) -> str:
    """A pending study's own measured cost, then the runs of the sections whose stores it also
    reads, as their stamps record them."""
    from reproduce.framework import read_stamp, section

    out = " ".join(str(entry["cost"]).split())
    for name in entry.get("shares") or []:
        st = read_stamp(section(doc_text, name))
        if st is None:
            raise ValueError(f"pending entry shares the stores of {name!r}, which has no "
                             f"section with a stamp")
        out += (f"; and the stores of the {name} section ({st['runs']} runs, {st['time']} of "
                f"computing by its stamp)")
    return out


def render_index(doc_text: str, study_names, waiting: dict | None = None) -> str:
    """The coverage index: per text, every table and figure with its section (a link), the
    study that will reproduce it and what that still needs (``waiting``, default
    :func:`pending`), or the reason why none reproduces it. A study named by an item that has
    neither a section in the doc nor a pending entry is an error."""
    from reproduce import md

    waiting = pending() if waiting is None else waiting
    heads = headings(doc_text, study_names)
    out = ["## Coverage index: every table and figure of the four texts", "",
           "Each table and figure of the source texts (caption lines found in "
           "`../shared/papers`, `reproduce/paper_index.py`), with the section that reproduces "
           "it, the study that will once its runs are done (listed after the tables with what "
           "it still needs and its cost), or the reason none does (declared in "
           "`reproduce/papers/index/`; the test suite checks that every caption is declared). "
           "Line numbers are the text's.", ""]
    for doc in declarations():
        rows, counts = [], {"section": 0, "pending": 0, "none": 0}
        for it in doc["items"]:
            if "not_caption" in it:
                continue
            note = f" — {it['note']}" if it.get("note") else ""
            if "section" in it:
                name = it["section"]
                if name in heads:
                    counts["section"] += 1
                    where = f"[{heads[name]}](#{slug(heads[name])}){note}"
                elif name in waiting:
                    counts["pending"] += 1
                    where = f"not generated yet: study `{name}` (see below){note}"
                else:
                    raise ValueError(f"{doc['file']}:{it['line']}: study {name!r} has no "
                                     f"section in the doc and no entry in {PENDING.name}")
            else:
                counts["none"] += 1
                where = f"none: {it['none']}"
            rows.append([it["label"], f"{doc['key']}:{it['line']}", where])
        out += [f"### {doc['title']} (`{doc['file']}`)", "",
                f"{counts['section']} with a counterpart here, {counts['pending']} whose "
                f"study is not generated yet, {counts['none']} without.", "",
                md.table(["table / figure", "line", "here"], rows, "lrl"), ""]
    rest = [n for n in sorted(waiting) if n not in heads]
    if rest:
        out += ["### Studies not generated yet", "",
                "Their code, configs and the papers' numbers are in `reproduce/`; each section "
                "needs the runs below (`reproduce/pending.yaml`).", "",
                md.table(["study", "needs", "cost"],
                         [[f"`{n}`", " ".join(str(waiting[n]["needs"]).split()),
                           _cost(waiting[n], doc_text)] for n in rest], "lll"),
                ""]
    return "\n".join(out)
