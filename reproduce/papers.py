"""The papers' numbers: ``reproduce/papers/<paper>.yaml``, each value with a line citation into
``../shared/papers`` (``tests/reproduce/test_reproduce.py`` runs :func:`check` on every file,
so a typo in a quoted number, a truncated one or one swapped between two rows of a table fails
the suite).

Layout of a paper file::

    file: mtr-feature-ranking-paper.txt     # in ../shared/papers
    key: P0                                 # the citation key the specs use
    tables:
      table7:
        lines: 1543-1597                    # where the table is printed
        what: RRMSE of ...                  # one line
        columns: [baseline, genie3-rf-str, relief]
        labels: {ATP1d: ATP1d}              # optional: a row's label as printed (default: its name)
        row_lines: {ATP1d: 1547}            # optional: the line a row is printed on
        transposed: false                   # true: the paper prints our columns as rows
                                            # (labels and row_lines then name columns)
        rows:                               # the paper's row name: one value per column
          ATP1d: [0.467, 0.45, 0.452]       # (null: not printed / not applicable)
    facts:
      overall_friedman_p: {value: 0.117, lines: 1470-1480, what: ...}
    claims:                                 # statements in prose, quoted word for word
      rf_last: {lines: 1477-1480, quote: "RF-RF-STR is an outlier", what: our reading}

How a value is checked: it must be printed as a whole number (``0.45`` does not match ``0.452``,
``-0.010`` does not match ``0.010``; ``0.450`` matches 0.45), or as the mantissa of a printed
power of ten (``2.14·10^-4``, OCR'd ``2.14-1074``; a legible exponent must agree). A fact's values
may be anywhere in its lines. A table row is found on its line (``row_lines``, else the one line
of the table's span that holds its label), and its values must appear there in column order,
so a value moved to another row or column fails. A claim's quote must be on its lines
(case, spacing and dashes ignored).

A value that the OCR damaged can be given as ``{value: 2.14e-4, unchecked: reason}``: it is
used, but the check skips it and the reason is kept with it. A value whose power of ten is
unreadable but whose sign and mantissa are printed is the string ``"-2.4e-?"`` (``sign()``
reads it; the check finds its mantissa before a power of ten).
"""
from __future__ import annotations

import math
import re
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
    def __init__(self, name: str, doc: dict | None = None):
        """The paper file ``reproduce/papers/<name>.yaml``, or ``doc`` as if it were one."""
        if doc is None:
            path = HERE / f"{name}.yaml"
            if not path.is_file():
                raise KeyError(f"no paper file {path}")
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        self.name = name
        self.doc = doc
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

    def claim(self, name: str) -> Cited:
        """A claim the paper states in prose: ``value`` is its quoted words, ``what`` our
        one-line reading of it (``claims:`` in the paper file; the check finds the quote on
        the cited lines)."""
        claims = self.doc.get("claims") or {}
        if name not in claims:
            raise KeyError(f"{self.name}.yaml has no claim {name!r} (have: {', '.join(claims)})")
        c = claims[name]
        return Cited(c["quote"], self.cite(c["lines"]), c.get("what", ""))

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


    def check(self, text: list[str] | None = None) -> list[str]:
        """Every quoted number that is not printed where it is cited (one line each); ``text``
        replaces the paper's lines (for tests)."""
        lines = text if text is not None else \
            (SHARED / self.file).read_text(encoding="utf-8").split("\n")

        def span(s) -> tuple[int, int]:
            a, _, b = str(s).partition("-")
            return int(a), int(b or a)

        def joined(s) -> str:
            a, b = span(s)
            return " ".join(lines[a - 1:b])

        bad = []
        for tname, t in (self.doc.get("tables") or {}).items():
            labels = t.get("labels") or {}
            at = t.get("row_lines") or {}
            a, b = span(t["lines"])
            rows = {str(r): list(v) for r, v in t["rows"].items()}
            cols = list(t["columns"])
            if t.get("transposed"):       # the paper prints our columns as its rows
                rows = {c: [rows[r][i] for r in rows] for i, c in enumerate(cols)}
                cols = list(t["rows"])
            for row, vals in rows.items():
                where = f"{self.name}.yaml {tname}.{row}"
                todo = []
                for c, v in zip(cols, vals):
                    val, un = _value(v)
                    if val is None or isinstance(val, bool) or un or \
                            (isinstance(val, str) and not _UNREAD.match(val)):
                        continue
                    if isinstance(v, dict) and "lines" in v:    # a cell with its own citation
                        if not any(_same(val, tok) for tok in _tokens(joined(v["lines"]))):
                            bad.append(f"{where}.{c} = {val} not on {self.key}:{v['lines']}")
                        continue
                    todo.append((c, val))
                if not todo:
                    continue
                if row in at:
                    n = int(at[row])
                    if not a <= n <= b:
                        bad.append(f"{where}: row_lines {n} outside the table {t['lines']}")
                        continue
                    text = lines[n - 1]
                    lab = _find_label(text, str(labels.get(row, row)))
                    rest = text[lab:] if lab is not None else text
                else:
                    label = str(labels.get(row, row))
                    hits = [(n, e) for n in range(a, b + 1)
                            if (e := _find_label(lines[n - 1], label)) is not None]
                    if len(hits) != 1:
                        bad.append(f"{where}: label {label!r} on {len(hits)} lines of "
                                   f"{self.key}:{t['lines']} (give labels or row_lines)")
                        continue
                    n, e = hits[0]
                    rest = lines[n - 1][e:]
                toks = _tokens(rest)
                i = 0
                for c, val in todo:
                    j = next((j for j in range(i, len(toks)) if _same(val, toks[j])), None)
                    if j is None:
                        bad.append(f"{where}.{c} = {val} not in column order on {self.key}:{n} "
                                   f"({rest.strip()[:80]!r})")
                        break
                    i = j + 1
        for fname, f in (self.doc.get("facts") or {}).items():
            val, un = _value(f)
            if un:
                continue
            toks = _tokens(joined(f["lines"]))
            for x in (val if isinstance(val, list) else [val]):
                if x is None or isinstance(x, (str, bool)):
                    continue
                if not any(_same(x, tok) for tok in toks):
                    bad.append(f"{self.name}.yaml facts.{fname} = {x} not on "
                               f"{self.key}:{f['lines']}")
        for cname, c in (self.doc.get("claims") or {}).items():
            if _norm(str(c["quote"])) not in _norm(joined(c["lines"])):
                bad.append(f"{self.name}.yaml claims.{cname}: {c['quote']!r} not on "
                           f"{self.key}:{c['lines']}")
        return bad


_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-"})
# a number: not glued to a word or a decimal point before it (F1, It100, .5), not followed by
# more digits; the sign counts only where it is not a hyphen after a word (2.9-1072, yeast-2)
_NUM = re.compile(r"(?<![\w.])(-?)(?<![\w.]-)(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?!\d)(?!\.\d)")
# a power of ten after a mantissa, as printed or OCR'd: "× 10−5", "·10^-4", "-1072" (10⁻²)
_POW = re.compile(r"\s*[-·×x*.]?\s*10(?:\s*\^?\s*-\s*(\d)(?!\d)|7(\d)(?!\d))?")


# a value whose power of ten the OCR lost: its sign and mantissa, e.g. "-2.4e-?"
_UNREAD = re.compile(r"^(-?\d+(?:\.\d+)?)e-\?$")


def sign(v: Any) -> int | None:
    """The sign of a quoted value (-1, 0, 1; also of an ``'m e-?'`` one), None if not a number."""
    if isinstance(v, str):
        m = _UNREAD.match(v)
        v = float(m.group(1)) if m else None
    if v is None or isinstance(v, bool):
        return None
    return (v > 0) - (v < 0)


@dataclass(frozen=True)
class _Tok:
    value: float
    exponent: int | None      # the legible exponent of a following power of ten
    mantissa: bool            # followed by a power of ten


def _tokens(text: str) -> list[_Tok]:
    text = text.translate(_DASHES)
    out = []
    for m in _NUM.finditer(text):
        v = float(m.group(1) + m.group(2))
        p = _POW.match(text, m.end())
        if p and "e" not in m.group(2).lower():
            e = p.group(1) or p.group(2)
            out.append(_Tok(v, -int(e) if e else None, True))
        else:
            out.append(_Tok(v, None, False))
    return out


def _same(v: float | str, tok: _Tok) -> bool:
    """Whether a quoted value is the printed number: equal as a number, or (before a power of
    ten) equal to the value's mantissa, with the exponent where it can be read; a value
    ``'2.2e-?'`` (power unreadable) is its mantissa before any power of ten."""
    if isinstance(v, str):
        m = _UNREAD.match(v)
        return bool(m) and tok.mantissa and math.isclose(tok.value, float(m.group(1)))
    v = float(v)
    if math.isclose(tok.value, v, rel_tol=1e-9, abs_tol=1e-12):
        return True
    if not tok.mantissa or v == 0:
        return False
    e = math.floor(math.log10(abs(v)) + 1e-12)
    if tok.exponent is not None and tok.exponent != e:
        return False
    return math.isclose(tok.value, v / 10 ** e, rel_tol=1e-9, abs_tol=1e-12)


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.translate(_DASHES)).lower()


def _find_label(line: str, label: str) -> int | None:
    """End of ``label`` in ``line`` (case and spacing ignored, whole words), or None."""
    pat = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in _norm(label).split()) + r"(?!\w)"
    m = re.search(pat, line.translate(_DASHES), flags=re.IGNORECASE)
    return m.end() if m else None


@lru_cache(maxsize=None)
def paper(name: str) -> Paper:
    return Paper(name)


def all_papers() -> list[Paper]:
    return [paper(p.stem) for p in sorted(HERE.glob("*.yaml"))]
