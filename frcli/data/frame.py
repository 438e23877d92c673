"""In-memory tables (pandas DataFrames, numpy arrays) → the ``ArffTable`` a file is read into.

The Python API's estimator takes the tables people have in memory. They go through the same
road as a CSV file on the command line (``table_to_dataset``), so a column means the same in
both: a DataFrame ranks as its CSV export does.

* Numeric columns (numpy or pandas numbers, nullable ``Int64``/``Float64`` too) are numeric
  features; NaN and ``pd.NA`` are missing; an infinite value is an error.
* Categorical, string and boolean columns are nominal, with no one-hot encoding: their text
  is typed by the CSV reader (``frcli.data.csvio``) with the column forced nominal, so the
  categories are the sorted distinct values (numerically when they all are numbers), as
  ``--nominal`` gives on the command line.
* Other columns (``object``: mixed Python values) are typed as a CSV column is: numeric when
  every known value is a number, otherwise nominal, with the CSV reader's warning when a
  column mixes numbers and text.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from frcli.data.arff import NOMINAL, NUMERIC, ArffAttribute, ArffTable
from frcli.errors import DataError

# how a column is read: as a number, nominal text, typed by the CSV rule, or 0/1 labels
KINDS = ("numeric", "nominal", "csv", "labels")


def column_kind(column) -> str:
    """The kind a pandas Series is read as (see the module docstring)."""
    import pandas as pd

    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype):
        return "nominal"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    if isinstance(dtype, np.dtype):     # numpy: fixed-width text is nominal, objects are not
        return "nominal" if dtype.kind in "US" else "csv"
    return "nominal" if pd.api.types.is_string_dtype(dtype) else "csv"


def target_kind(column) -> str:
    """The kind of a lone target column without a task: floats are numeric (regression) and
    other values nominal (classes: scikit-learn's convention, an object column of numbers
    included), except an object column of numbers and text, read as a CSV column is (``csv``):
    the loader then refuses numbers with a typo's share of text, naming the row and the value
    (``frcli.data.load.check_mixed``), where the convention would silently make classes of
    the numbers, and reads more text as classes with a warning."""
    import pandas as pd

    if pd.api.types.is_float_dtype(column.dtype):
        return "numeric"
    if column_kind(column) != "csv":
        return "nominal"
    known = column[column.notna()].astype(str)
    numbers = pd.to_numeric(known, errors="coerce").notna()
    return "csv" if numbers.any() and not numbers.all() else "nominal"


def frame_table(frame, *, source: str = "X",
                kinds: Mapping[str, str] | None = None) -> ArffTable:
    """``frame`` (a DataFrame with unique string column names) as an ``ArffTable``.

    ``kinds`` overrides ``column_kind`` per column name: ``numeric``, ``nominal``, ``csv`` or
    ``labels`` (0/1 label columns of a multi-label target: nominal with the categories 0 and
    1 even where a label never occurs). ``source`` names the table in messages.
    """
    kinds = dict(kinds or {})
    names = [str(c) for c in frame.columns]
    n = len(frame)
    values = np.empty((n, len(names)), dtype=np.float64, order="F")
    attrs: list[ArffAttribute | None] = [None] * len(names)
    text: list[int] = []
    mixed: dict[int, tuple[str, int, int, int]] = {}
    for j, name in enumerate(names):
        col = frame.iloc[:, j]
        kind = kinds.get(name) or column_kind(col)
        if kind not in KINDS:
            raise ValueError(f"unknown column kind {kind!r}")
        if kind == "numeric":
            values[:, j] = _numbers(col, name, source)
            attrs[j] = ArffAttribute(name, NUMERIC)
        elif kind == "labels":
            v = _numbers(col, name, source)
            bad = np.flatnonzero(~np.isnan(v) & (v != 0.0) & (v != 1.0))
            if bad.size:
                raise DataError(f"label {name!r} holds {v[bad[0]]:g}; labels are 0 or 1",
                                source, int(bad[0]) + 1)
            values[:, j] = v                # the codes of categories ("0", "1") are 0 and 1
            attrs[j] = ArffAttribute(name, NOMINAL, ("0", "1"))
        else:
            text.append(j)
    if text:
        from frcli.data.csvio import parse_rows

        # missing cells are written "?" (a missing value that is not blank: the CSV reader
        # skips blank rows, and a row whose text cells are all missing must stay)
        cells = [_texts(frame.iloc[:, j]) for j in text]
        header = [names[j] for j in text]
        forced = [names[j] for j in text if (kinds.get(names[j])
                                             or column_kind(frame.iloc[:, j])) == "nominal"]
        parsed = parse_rows(source, [header, *zip(*cells)] if n else [header], nominal=forced)
        for k, j in enumerate(text):
            values[:, j] = parsed.values[:, k]
            attrs[j] = parsed.attributes[k]
        # columns of numbers and text: the loader warns, or refuses such a target
        mixed = {text[k]: v for k, v in parsed.mixed.items()}
    return ArffTable(source, [a for a in attrs if a is not None], values,
                     lines=np.arange(1, n + 1, dtype=np.int64), path=source, mixed=mixed)


def _numbers(col, name: str, source: str) -> np.ndarray:
    """A numeric column as float64 with NaN for missing (pandas' NA included)."""
    v = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(np.isinf(v))
    if bad.size:
        raise DataError(f"bad number {float(v[bad[0]])!r} in column {name!r} (not finite)", source,
                        int(bad[0]) + 1)
    return v


def _texts(col) -> list[str]:
    miss = col.isna().to_numpy()
    return ["?" if m else str(v) for v, m in zip(col.to_numpy(dtype=object), miss)]


def unique_names(names: Sequence[str], taken: Sequence[str] = ()) -> list[str]:
    """``names`` made distinct from each other and from ``taken`` (``y``, ``y_2``, ...)."""
    seen = set(taken)
    out = []
    for nm in names:
        cand, k = nm, 1
        while cand in seen:
            k += 1
            cand = f"{nm}_{k}"
        seen.add(cand)
        out.append(cand)
    return out
