"""A fast ARFF reader and writer (dense and sparse rows, CLUS ``hierarchical`` attributes).

Why our own parser: neither liac-arff nor scipy knows CLUS's ``hierarchical`` type, and
liac-arff returns Python lists (1.3-4x slower than this reader, which already yields the
float matrix; ``bench/bench_arff.py``). The reader converts whole columns at once
(``map(float, ...)``, dict look-ups for nominals) and only falls back to a character-level
tokenizer for rows that contain quotes.

Supported (keywords case-insensitive):

* ``@relation``, ``@attribute``, ``@data``; ``%`` comment lines; blank lines.
* types ``numeric|real|integer``, nominal ``{a, 'b c', "d"}``, ``string``, ``date [fmt]``
  and CLUS ``hierarchical v1,v2,...``. ``relational`` is rejected.
* ``?`` (unquoted) = missing. Dense rows ``v1,v2,...`` and sparse rows ``{i v, j w}``
  (0-based indices); omitted sparse values are 0 for numeric attributes and the *first*
  declared value (code 0) for nominal ones, as in Weka.

``string`` and ``date`` columns are kept as raw strings in the table; ``load_dataset`` ignores
them with a warning (they cannot be features or targets of any ranker). ``hierarchical``
columns are kept as raw strings too (label sets joined by ``@``) and decoded by
``frcli.data.hierarchy``.

Every problem raises ``DataError`` naming the file and line.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from frcli.errors import DataError

NUMERIC, NOMINAL, STRING, DATE = "numeric", "nominal", "string", "date"
HIERARCHICAL = "hierarchical"
_NUMERIC_WORDS = {"numeric", "real", "integer"}
_TYPES_HELP = "numeric, real, integer, {nominal values}, string, date, hierarchical"
_NAN = float("nan")
_QMARK = "\x00?"  # a *quoted* '?' in the data: a value, not a missing marker


@dataclass
class ArffAttribute:
    """One declared attribute. ``values``: nominal categories or declared hierarchy values."""

    name: str
    type: str
    values: tuple[str, ...] = ()
    line: int = 0

    @property
    def is_raw(self) -> bool:
        """Stored as strings in the table (not as floats)."""
        return self.type in (STRING, DATE, HIERARCHICAL)


@dataclass
class ArffTable:
    """A parsed file: ``values`` (n, A) float64 (nominal codes, NaN missing; NaN for raw
    columns) and ``strings[a]`` (list of n str, ``None`` = missing) for raw columns."""

    relation: str
    attributes: list[ArffAttribute]
    values: np.ndarray
    strings: dict[int, list] = field(default_factory=dict)
    lines: np.ndarray | None = None  # file line number of every row (for error messages)
    path: str | None = None
    sparse: bool = False
    # CSV columns read as nominal because a few of their values are not numbers: column ->
    # (first such value, its line, how many values are text, how many are known)
    mixed: dict[int, tuple[str, int, int, int]] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return self.values.shape[0]

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]


# -- tokenizing helpers ------------------------------------------------------------------------
def _split_quoted(s: str, sep: str = ",") -> list[str]:
    """Split ``s`` at ``sep`` outside single/double quotes; pieces keep their quotes."""
    out, buf, quote, i, n = [], [], None, 0, len(s)
    while i < n:
        ch = s[i]
        if quote:
            buf.append(ch)
            if ch == "\\" and i + 1 < n:
                buf.append(s[i + 1])
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif ch == sep:
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    if quote:
        raise ValueError(f"unterminated quote {quote} in {s[:60]!r}")
    out.append("".join(buf))
    return out


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "%": "%"}


def _unquote(tok: str) -> tuple[str, bool]:
    """Strip blanks and one level of quotes (with backslash escapes); (value, was_quoted)."""
    tok = tok.strip()
    if len(tok) >= 2 and tok[0] in "'\"" and tok[-1] == tok[0]:
        body = tok[1:-1]
        if "\\" in body:
            body = re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
        return body, True
    if tok[:1] in ("'", '"'):
        raise ValueError(f"badly quoted value {tok!r}")
    return tok, False


def _quote(value: str) -> str:
    """Quote a name or value for writing when ARFF needs it."""
    if value == "" or re.search(r"[\s,{}'\"%?@]", value):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return value


# -- header ------------------------------------------------------------------------------------
def _parse_attribute(rest: str, path: str, lineno: int) -> ArffAttribute:
    rest = rest.strip()
    if not rest:
        raise DataError("@attribute without a name", path, lineno)
    if rest[0] in "'\"":
        q = rest[0]
        j = 1
        while j < len(rest) and (rest[j] != q or rest[j - 1] == "\\"):
            j += 1
        if j >= len(rest):
            raise DataError(f"unterminated quote in attribute name: {rest[:60]!r}", path, lineno)
        name, _ = _unquote(rest[: j + 1])
        spec = rest[j + 1:].strip()
    else:
        m = re.match(r"([^\s{]+)\s*(.*)$", rest, re.S)
        if m is None:                   # "@attribute {a,b}": a type but no name
            raise DataError(f"@attribute without a name: {rest[:60]!r}", path, lineno)
        name, spec = m.group(1), m.group(2).strip()
    if not spec:
        raise DataError(f"attribute {name!r} has no type; allowed: {_TYPES_HELP}", path, lineno)
    if spec.startswith("{"):
        if not spec.endswith("}"):
            raise DataError(f"attribute {name!r}: nominal values must end with '}}'", path, lineno)
        try:
            vals = [_unquote(v)[0] for v in _split_quoted(spec[1:-1])]
        except ValueError as e:
            raise DataError(f"attribute {name!r}: {e}", path, lineno) from None
        if vals == [""]:
            vals = []
        if any(v == "" for v in vals) or len(set(vals)) != len(vals):
            raise DataError(f"attribute {name!r}: empty or repeated nominal value in {spec[:80]}",
                            path, lineno)
        return ArffAttribute(name, NOMINAL, tuple(vals), lineno)
    word = spec.split(None, 1)[0].lower()
    if word in _NUMERIC_WORDS:
        return ArffAttribute(name, NUMERIC, (), lineno)
    if word == "string":
        return ArffAttribute(name, STRING, (), lineno)
    if word == "date":
        return ArffAttribute(name, DATE, (), lineno)
    if word == "hierarchical":
        parts = spec.split(None, 1)
        if len(parts) < 2:
            raise DataError(f"hierarchical attribute {name!r} declares no values", path, lineno)
        vals = tuple(v.strip() for v in parts[1].split(",") if v.strip())
        return ArffAttribute(name, HIERARCHICAL, vals, lineno)
    if word == "relational":
        raise DataError(f"attribute {name!r}: relational attributes are not supported", path,
                        lineno)
    raise DataError(f"attribute {name!r}: unknown type {spec.split(None, 1)[0]!r}; allowed: "
                    f"{_TYPES_HELP}", path, lineno)


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    except IsADirectoryError:
        raise DataError("is a directory, not a data file", path) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def parse_header(lines: Sequence[str], path: str) -> tuple[str, list[ArffAttribute], int]:
    """(relation, attributes, index of the first line after ``@data``)."""
    relation, attrs, seen = "", [], set()
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s[0] == "%":
            continue
        if s[0] != "@":
            raise DataError(f"expected @relation, @attribute or @data, found {s[:40]!r}",
                            path, i + 1)
        kw, _, rest = s.partition(" ")
        if "\t" in kw:
            kw, _, rest2 = s.partition("\t")
            rest = rest2
        kw = kw.lower()
        if kw == "@relation":
            try:
                relation = _unquote(rest)[0] if rest.strip() else ""
            except ValueError as e:
                raise DataError(f"@relation: {e}", path, i + 1) from None
        elif kw == "@attribute":
            a = _parse_attribute(rest, path, i + 1)
            if a.name in seen:
                raise DataError(f"attribute {a.name!r} declared twice", path, i + 1)
            seen.add(a.name)
            attrs.append(a)
        elif kw == "@data":
            if not attrs:
                raise DataError("@data before any @attribute", path, i + 1)
            return relation, attrs, i + 1
        else:
            raise DataError(f"unknown header keyword {kw!r}; allowed: @relation, @attribute, "
                            f"@data", path, i + 1)
    raise DataError("no @data section", path)


# -- data --------------------------------------------------------------------------------------
def _floats(tokens: list, path: str, where) -> np.ndarray:
    """Tokens → float64 with '?' = NaN; ``where(k)`` gives (line, attribute) of token k."""
    try:
        out = np.fromiter(map(float, tokens), dtype=np.float64, count=len(tokens))
        if np.isfinite(out).all():
            return out
    except (ValueError, TypeError):
        pass
    out = np.empty(len(tokens))
    for k, t in enumerate(tokens):
        if t is None or t == "?":
            out[k] = _NAN
            continue
        try:
            out[k] = float(t)
        except ValueError:
            line, attr = where(k)
            raise DataError(f"bad number {t!r} for numeric attribute {attr!r}", path, line) \
                from None
        if not math.isfinite(out[k]):  # 'nan', 'inf', 1e999: Python parses them, ARFF does not
            line, attr = where(k)
            raise DataError(f"bad number {t!r} for numeric attribute {attr!r} (not finite; "
                            f"write ? for a missing value)", path, line)
    return out


def _codes(tokens: list, attr: ArffAttribute, path: str, where) -> np.ndarray:
    lut = {(_QMARK if v == "?" else v): float(c) for c, v in enumerate(attr.values)}
    lut["?"] = _NAN
    get = lut.get
    try:
        return np.fromiter((lut[t] for t in tokens), dtype=np.float64, count=len(tokens))
    except KeyError:
        pass
    out = np.empty(len(tokens))
    for k, t in enumerate(tokens):
        c = _NAN if t is None else get(t)
        if c is None:
            line, _ = where(k)
            allowed = ", ".join(attr.values[:20]) + (", ..." if len(attr.values) > 20 else "")
            raise DataError(f"unknown value {t!r} for nominal attribute {attr.name!r}; allowed: "
                            f"{allowed}", path, line)
        out[k] = c
    return out


def _tokens_slow(s: str, path: str, lineno: int) -> list:
    """Quote-aware split of a dense row; a quoted '?' becomes ``_QMARK`` (a value)."""
    try:
        out = []
        for piece in _split_quoted(s):
            v, quoted = _unquote(piece)
            out.append(_QMARK if (v == "?" and quoted) else v)
        return out
    except ValueError as e:
        raise DataError(str(e), path, lineno) from None


def _sparse_slow(body: str, path: str, lineno: int) -> tuple[list, list]:
    idx, vals = [], []
    if not body.strip():
        return idx, vals
    try:
        for piece in _split_quoted(body):
            piece = piece.strip()
            parts = piece.split(None, 1)
            if len(parts) != 2:
                raise ValueError(f"sparse entry {piece!r} is not 'index value'")
            v, quoted = _unquote(parts[1])
            idx.append(parts[0])
            vals.append(_QMARK if (v == "?" and quoted) else v)
    except ValueError as e:
        raise DataError(str(e), path, lineno) from None
    return idx, vals


def read_arff(path: str | os.PathLike) -> ArffTable:
    """Parse an ARFF file into an ``ArffTable`` (see the module docstring)."""
    path = str(path)
    text = _read_text(path)
    lines = text.splitlines()
    relation, attrs, start = parse_header(lines, path)
    A = len(attrs)

    dense_rows: list[list] = []  # token lists
    dense_pos: list[int] = []  # row number of each dense row
    sp_rows: list[int] = []  # row number per sparse entry
    sp_idx: list[str] = []
    sp_val: list = []
    line_of_row: list[int] = []
    n = 0
    for i in range(start, len(lines)):
        s = lines[i]
        if not s or s[0] == "%":
            continue
        s = s.strip()
        if not s or s[0] == "%":
            continue
        lineno = i + 1
        if s[0] == "{":
            if s[-1] != "}":
                raise DataError("sparse row must end with '}'", path, lineno)
            body = s[1:-1]
            if "'" in body or '"' in body:
                idx, vals = _sparse_slow(body, path, lineno)
            elif body.strip():
                toks = body.replace(",", " ").split()
                if len(toks) != 2 * (body.count(",") + 1):
                    idx, vals = _sparse_slow(body, path, lineno)  # raises with the reason
                else:
                    idx, vals = toks[0::2], toks[1::2]
            else:
                idx, vals = [], []
            sp_rows.extend([n] * len(idx))
            sp_idx.extend(idx)
            sp_val.extend(vals)
        else:
            if "'" in s or '"' in s:
                toks = _tokens_slow(s, path, lineno)
            else:
                toks = s.split(",")
                if " " in s or "\t" in s:
                    toks = [t.strip() for t in toks]
            if len(toks) != A:
                raise DataError(f"row has {len(toks)} values, expected {A} (one per @attribute)",
                                path, lineno)
            dense_rows.append(toks)
            dense_pos.append(n)
        line_of_row.append(lineno)
        n += 1

    line_arr = np.asarray(line_of_row, dtype=np.int64)
    values = np.zeros((n, A), dtype=np.float64, order="F")
    # raw columns: None = missing; a value omitted from a sparse row is the empty string
    strings: dict[int, list] = {a: [""] * n for a in range(A) if attrs[a].is_raw}
    for a in range(A):
        if attrs[a].is_raw:
            values[:, a] = np.nan

    if dense_rows:
        pos = np.asarray(dense_pos, dtype=np.intp)
        all_dense = len(dense_rows) == n
        columns = list(zip(*dense_rows))
        del dense_rows
        for a, col in enumerate(columns):
            attr = attrs[a]
            col = list(col)
            where = (lambda k, _a=attr: (int(line_arr[pos[k]]), _a.name))
            if attr.type == NUMERIC:
                v = _floats(col, path, where)
            elif attr.type == NOMINAL:
                v = _codes(col, attr, path, where)
            else:
                s_list = strings[a]
                for k, t in enumerate(col):
                    s_list[pos[k]] = None if t == "?" else ("?" if t == _QMARK else t)
                continue
            if all_dense:
                values[:, a] = v
            else:
                values[pos, a] = v

    if sp_idx:
        rows = np.asarray(sp_rows, dtype=np.intp)
        try:
            cols = np.fromiter(map(int, sp_idx), dtype=np.intp, count=len(sp_idx))
        except (ValueError, OverflowError):
            for k, t in enumerate(sp_idx):
                try:
                    c = int(t)
                except ValueError:
                    raise DataError(f"sparse index {t[:30]!r} is not an integer", path,
                                    int(line_arr[rows[k]])) from None
                if not 0 <= c < A:      # beyond a C long (OverflowError above)
                    raise DataError(f"sparse index {t[:30]} out of range 0..{A - 1}", path,
                                    int(line_arr[rows[k]])) from None
            raise                       # pragma: no cover - every token was checked
        bad = np.flatnonzero((cols < 0) | (cols >= A))
        if len(bad):
            k = bad[0]
            raise DataError(f"sparse index {cols[k]} out of range 0..{A - 1}", path,
                            int(line_arr[rows[k]]))
        key = rows.astype(np.int64) * A + cols
        skey = np.sort(key)
        dup = np.flatnonzero(skey[1:] == skey[:-1])
        if len(dup):
            r, c = divmod(int(skey[dup[0]]), A)
            raise DataError(f"sparse index {c} given twice in one row", path, int(line_arr[r]))
        order = np.argsort(cols, kind="stable")
        cs = cols[order]
        bounds = np.flatnonzero(np.diff(cs)) + 1
        starts = np.concatenate(([0], bounds))
        ends = np.concatenate((bounds, [len(cs)]))
        for b, e in zip(starts, ends):
            a = int(cs[b])
            sel = order[b:e]
            attr = attrs[a]
            toks = [sp_val[k] for k in sel]
            where = (lambda k, _sel=sel, _a=attr: (int(line_arr[rows[_sel[k]]]), _a.name))
            if attr.type == NUMERIC:
                values[rows[sel], a] = _floats(toks, path, where)
            elif attr.type == NOMINAL:
                values[rows[sel], a] = _codes(toks, attr, path, where)
            else:
                s_list = strings[a]
                for r, t in zip(rows[sel], toks):
                    s_list[r] = None if t == "?" else ("?" if t == _QMARK else t)
    return ArffTable(relation, attrs, values, strings, line_arr, path, sparse=bool(sp_idx))


# -- writing -----------------------------------------------------------------------------------
def _fmt_num(x: float) -> str:
    if math.isnan(x):
        return "?"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def write_table(table: ArffTable, path: str | os.PathLike, sparse: bool = False,
                comment: str | None = None) -> None:
    """Write an ``ArffTable`` (round-trips through ``read_arff``); ``comment`` lines go first
    as ``%`` lines."""
    attrs = table.attributes
    out = [f"% {c}" for c in (comment.splitlines() if comment else [])]
    out += [f"@relation {_quote(table.relation or 'data')}", ""]
    for a in attrs:
        if a.type == NOMINAL:
            spec = "{" + ",".join(_quote(v) for v in a.values) + "}"
        elif a.type == HIERARCHICAL:
            spec = "hierarchical " + ",".join(a.values)
        else:
            spec = a.type
        out.append(f"@attribute {_quote(a.name)} {spec}")
    out += ["", "@data"]
    cols = []
    for j, a in enumerate(attrs):
        v = table.values[:, j]
        if a.type == NUMERIC:
            cols.append([_fmt_num(x) for x in v])
        elif a.type == NOMINAL:
            cols.append(["?" if math.isnan(x) else _quote(a.values[int(x)]) for x in v])
        elif a.type == HIERARCHICAL:
            cols.append(["?" if s is None else s for s in table.strings[j]])
        else:
            cols.append(["?" if s is None else _quote(s) for s in table.strings[j]])
    for i in range(table.n_rows):
        if sparse:
            items = [f"{j} {cols[j][i]}" for j, a in enumerate(attrs)
                     if not _is_default(a, table, i, j)]
            out.append("{" + ",".join(items) + "}")
        else:
            out.append(",".join(c[i] for c in cols))
    Path(path).write_text("\n".join(out) + "\n", encoding="utf-8")


def _is_default(a: ArffAttribute, table: ArffTable, i: int, j: int) -> bool:
    if a.is_raw:
        return False
    return table.values[i, j] == 0.0  # NaN != 0, so missing values are written


def write_arff(data, path: str | os.PathLike, *, sparse: bool = False,
               relation: str | None = None, comment: str | None = None) -> None:
    """Write a ``Dataset`` (features, then targets) or an ``ArffTable`` as ARFF.

    Label tasks write their labels as ``{0,1}`` attributes (mlc) or one CLUS ``hierarchical``
    attribute ``class`` (hmlc; each row lists its most specific labels, ``?`` when unlabelled).
    Targets of unlabelled rows are written as ``?``.
    """
    if isinstance(data, ArffTable):
        write_table(data, path, sparse=sparse, comment=comment)
        return
    write_table(dataset_to_table(data, relation=relation), path, sparse=sparse, comment=comment)


def dataset_to_table(ds, relation: str | None = None) -> ArffTable:
    """The ``ArffTable`` a ``Dataset`` is written as (see ``write_arff``)."""
    attrs = [ArffAttribute(f.name, NOMINAL if f.is_nominal else NUMERIC, tuple(f.categories))
             for f in ds.features]
    blocks = [ds.X]
    strings: dict[int, list] = {}
    unl = ~np.asarray(ds.labeled, dtype=bool)
    if ds.task == "hmlc":
        from frcli.data.hierarchy import declared_values, label_set_strings

        h = ds.hierarchy
        attrs.append(ArffAttribute("class", HIERARCHICAL, tuple(declared_values(h))))
        blocks.append(np.full((ds.n_examples, 1), np.nan))
        strs = label_set_strings(h, ds.Y)
        strings[len(attrs) - 1] = [None if u else s for s, u in zip(strs, unl)]
    elif ds.task == "mlc":
        for name in ds.target_names:
            attrs.append(ArffAttribute(name, NOMINAL, ("0", "1")))
        Y = ds.Y.astype(np.float64)
        Y[unl] = np.nan
        blocks.append(Y)
    elif ds.Y is not None:
        for t in ds.targets:
            attrs.append(ArffAttribute(t.name, NOMINAL if t.is_nominal else NUMERIC,
                                       tuple(t.categories)))
        blocks.append(ds.Y)
    values = np.hstack(blocks) if len(blocks) > 1 else blocks[0].copy()
    return ArffTable(relation or ds.name, attrs, np.asarray(values, dtype=np.float64), strings)


def read_names(path: str | os.PathLike) -> list[str]:
    """Attribute names of an ARFF file without reading its data (fast)."""
    path = str(path)
    lines: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                lines.append(line)
                if line.lstrip().lower().startswith("@data"):
                    break
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    _, attrs, _ = parse_header(lines, path)
    return [a.name for a in attrs]


__all__ = ["ArffAttribute", "ArffTable", "read_arff", "write_arff", "write_table", "read_names",
           "dataset_to_table", "parse_header", "NUMERIC", "NOMINAL", "STRING", "DATE",
           "HIERARCHICAL"]
