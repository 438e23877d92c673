"""The papers' numbers: ``reproduce/papers/<paper>.yaml``, each value with a line citation into
``../shared/papers`` (``tests/test_reproduce.py`` checks that every cited value is printed on its
cited lines, so a typo in a quoted number fails the suite).

Layout of a paper file::

    file: mtr-feature-ranking-paper.txt     # in ../shared/papers
    key: P0                                 # the citation key the specs use
    tables:
      table7:
        lines: 1543-1597                    # where the table is printed
        what: RRMSE of ...                  # one line
        columns: [baseline, genie3-rf-str, relief]
        rows:                               # the paper's row name: one value per column
          ATP1d: [0.467, 0.45, 0.452]       # (null: not printed / not applicable)
    facts:
      overall_friedman_p: {value: 0.117, lines: 1470-1480, what: ...}

A value that the OCR damaged can be given as ``{value: 2.14e-4, unchecked: reason}``: it is
used, but the citation test skips it and the reason is kept with it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent / "papers"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "papers"


@dataclass(frozen=True)
class Cited:
    value: Any
    cite: str          # e.g. "P0:1543-1597"
    what: str = ""
    unchecked: str = ""


def _value(v: Any) -> tuple[Any, str]:
    if isinstance(v, dict):
        return v.get("value"), str(v.get("unchecked", ""))
    return v, ""


class Paper:
    def __init__(self, name: str):
        path = HERE / f"{name}.yaml"
        if not path.is_file():
            raise KeyError(f"no paper file {path}")
        self.name = name
        self.doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        self.file = self.doc["file"]
        self.key = self.doc.get("key", name)

    def cite(self, lines: str) -> str:
        return f"{self.key}:{lines}"

    def table(self, name: str) -> dict[str, dict[str, Any]]:
        """{row: {column: value}} of a table (values unwrapped)."""
        tables = self.doc.get("tables") or {}
        if name not in tables:
            raise KeyError(f"{self.name}.yaml has no table {name!r} (have: {', '.join(tables)})")
        t = tables[name]
        cols = t["columns"]
        out = {}
        for row, vals in t["rows"].items():
            if not isinstance(vals, list) or len(vals) != len(cols):
                raise ValueError(f"{self.name}.yaml: {name}.{row}: expected {len(cols)} values")
            out[str(row)] = {c: _value(v)[0] for c, v in zip(cols, vals)}
        return out

    def note(self, table: str, row: str, column: str) -> str:
        """The ``unchecked`` note of a cell ('' if none)."""
        t = self.doc["tables"][table]
        v = t["rows"][row][t["columns"].index(column)]
        return _value(v)[1]

    def table_cite(self, name: str) -> str:
        return self.cite(self.doc["tables"][name]["lines"])

    def fact(self, name: str) -> Cited:
        facts = self.doc.get("facts") or {}
        if name not in facts:
            raise KeyError(f"{self.name}.yaml has no fact {name!r} (have: {', '.join(facts)})")
        f = facts[name]
        v, un = _value(f)
        return Cited(v, self.cite(f["lines"]), f.get("what", ""), un)

    def lines(self, span: str) -> list[str]:
        a, _, b = str(span).partition("-")
        text = (SHARED / self.file).read_text(encoding="utf-8").split("\n")
        return text[int(a) - 1:int(b or a)]

    def cited_values(self):
        """(where, value, lines span, unchecked) of every number in the file (for the test)."""
        for tname, t in (self.doc.get("tables") or {}).items():
            for row, vals in t["rows"].items():
                for c, v in zip(t["columns"], vals):
                    val, un = _value(v)
                    if val is not None and not isinstance(val, str):
                        span = v.get("lines", t["lines"]) if isinstance(v, dict) else t["lines"]
                        yield f"{tname}.{row}.{c}", val, span, un
        for fname, f in (self.doc.get("facts") or {}).items():
            val, un = _value(f)
            vals = val if isinstance(val, list) else [val]
            for x in vals:
                if x is not None and not isinstance(x, str):
                    yield f"facts.{fname}", x, f["lines"], un


@lru_cache(maxsize=None)
def paper(name: str) -> Paper:
    return Paper(name)


def all_papers() -> list[Paper]:
    return [paper(p.stem) for p in sorted(HERE.glob("*.yaml"))]
