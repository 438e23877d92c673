"""CSV/TSV tables with a header row → ``ArffTable`` (so ``load_dataset`` treats them like ARFF).

* Delimiter: tab for ``.tsv``; otherwise ``,``, unless the header line has no comma but a tab
  or a ``;`` (as spreadsheets write CSV in many locales), which is then the delimiter.
* Header: every column needs a name, but for an empty first one, which is the row index a
  pandas export writes (``DataFrame.to_csv``): it is named ``Unnamed: 0``, as pandas reads it,
  and the identifier screen leaves it out of the features (``frcli.data.screen``).
* Missing: an empty cell, ``?``, or ``nan``/``NaN``/``NA`` (what numpy, pandas and R write).
  Infinite numbers are an error (a distance or a split cannot use them).
* Types: a column is numeric when every known value parses as a number, otherwise nominal;
  ``nominal=[names]`` forces columns to nominal. Nominal categories are sorted (numerically
  when they all are numbers), so the codes do not depend on the row order. A column of
  numbers with some text is nominal and recorded in ``ArffTable.mixed``: ``load_dataset``
  refuses it as a target when the text is a typo's share, and warns otherwise.
"""
from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from frcli.data.arff import NOMINAL, NUMERIC, ArffAttribute, ArffTable
from frcli.data.screen import INDEX_NAME
from frcli.errors import DataError, UserError, option

MISSING = ("", "?", "nan", "NaN", "NA")
# longest field accepted (csv's default is 131,072 characters): long nominal values and
# identifiers read fine; past this, a field is an unclosed quote swallowing the file
FIELD_LIMIT = 1 << 24


def _delimiter(path: Path, first_line: str) -> str:
    ext = path.suffix.lower()
    if ext == ".tsv":
        return "\t"
    if "," not in first_line:  # a header without commas: ';' (spreadsheets in many locales)
        for d in ("\t", ";"):  # or tab, rather than one column named "a;b;c"
            if d in first_line:
                return d
    return ","


def _num(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def read_csv(path: str | os.PathLike, *, nominal: Sequence[str] | None = None) -> ArffTable:
    """Read a delimited text table (see the module docstring)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError("file not found", str(p)) from None
    except UnicodeDecodeError:
        text = p.read_text(encoding="latin-1")
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise DataError("empty file (a header row is required)", str(p), 1)
    delim = _delimiter(p, lines[0])
    csv.field_size_limit(FIELD_LIMIT)
    reader = csv.reader(lines, delimiter=delim)
    try:
        return _parse(p, reader, nominal, len(lines))
    except csv.Error as e:      # a field over the limit (an unclosed quote?), a bad quote
        raise DataError(f"malformed CSV: {e} (an unclosed quote?)", str(p),
                        reader.line_num or 1) from None


def _parse(p: Path, reader, nominal: Sequence[str] | None, n_lines: int) -> ArffTable:
    header = [h.strip() for h in next(reader)]
    if len(header) > 1 and header[0] == "":
        # pandas' to_csv writes the row index first under an empty header: named as pandas
        # reads it back, and screened as an identifier (frcli.data.screen)
        header[0] = INDEX_NAME
    if any(h == "" for h in header):
        raise DataError(f"empty column name in the header (column {header.index('') + 1})",
                        str(p), 1)
    if len(header) == 1 and n_lines > 1:
        import warnings

        warnings.warn(f"{p}: the header has one column ({header[0]!r}); the delimiters read are "
                      "',', tab and ';' (is the file delimited by something else?)",
                      stacklevel=3)
    dup = {h for h in header if header.count(h) > 1}
    if dup:
        raise DataError(f"column {sorted(dup)[0]!r} appears twice in the header", str(p), 1)
    rows, line_nos = [], []
    for k, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise DataError(f"row has {len(row)} values, expected {len(header)} (the header)",
                            str(p), reader.line_num)
        rows.append([c.strip() for c in row])
        line_nos.append(reader.line_num)
    forced = set(nominal or ())
    unknown = forced - set(header)
    if unknown:
        raise UserError(f"{option('nominal')}: no column named {sorted(unknown)[0]!r} in {p}")
    n, A = len(rows), len(header)
    values = np.empty((n, A), dtype=np.float64, order="F")
    attrs = []
    cols = list(zip(*rows)) if rows else [()] * A
    mixed: dict[int, tuple[str, int, int, int]] = {}
    for j, col in enumerate(cols):
        known = [c for c in col if c not in MISSING]
        nums = [_num(c) for c in known]
        numeric = all(v is not None for v in nums)
        if not numeric and header[j] not in forced and any(v is not None for v in nums):
            k = next(i for i, c in enumerate(col) if c not in MISSING and _num(c) is None)
            n_text = sum(v is None for v in nums)
            mixed[j] = (col[k], int(line_nos[k]), n_text, len(known))
        if numeric and header[j] not in forced:
            values[:, j] = [np.nan if c in MISSING else float(c) for c in col]
            bad = np.flatnonzero(np.isinf(values[:, j]))
            if len(bad):
                raise DataError(f"bad number {col[bad[0]]!r} in column {header[j]!r} (not "
                                f"finite)", str(p), int(line_nos[bad[0]]))
            attrs.append(ArffAttribute(header[j], NUMERIC))
            continue
        cats = sorted(set(known), key=(lambda c: (float(c), c)) if numeric else None)
        code = {c: float(k) for k, c in enumerate(cats)}
        values[:, j] = [np.nan if c in MISSING else code[c] for c in col]
        attrs.append(ArffAttribute(header[j], NOMINAL, tuple(cats)))
    return ArffTable(p.stem, attrs, values, {}, np.asarray(line_nos, dtype=np.int64), str(p),
                     mixed=mixed)


class _Rows:
    """Rows of text cells (header first) where ``_parse`` reads a csv reader: ``line_num`` is
    the 1-based row number (the header is row 0)."""

    def __init__(self, rows: Sequence[Sequence[str]]):
        self._rows = iter(rows)
        self.line_num = -1

    def __iter__(self) -> "_Rows":
        return self

    def __next__(self) -> Sequence[str]:
        row = next(self._rows)
        self.line_num += 1
        return row


def parse_rows(source: str, rows: Sequence[Sequence[str]], *,
               nominal: Sequence[str] | None = None) -> ArffTable:
    """Rows of text cells (the header first) typed exactly as the columns of a CSV file are:
    for tables that are not files (``frcli.data.frame``, the Python API's DataFrames).
    ``source`` names the table in messages, where a "line" is the 1-based row number."""
    # no file lines were split, so the one-column delimiter warning does not apply (0 lines)
    return _parse(Path(source), _Rows(rows), nominal, 0)
