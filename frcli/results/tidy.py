"""The tidy result table: every source of results read into one frame.

Columns ``dataset, split, labeled, method, params, measure, value`` (``TIDY``), plus
``rank_time_s, eval_time_s`` when present, ``task`` (from a store) and ``experiment`` (the
store's name when it came from a folder of stores). Sources:

* a result-store folder ``results/<name>/`` (``frcli.results.store``), or a folder of such
  stores (``results/``), or a folder of CSV exports;
* a tidy CSV: ``dataset, method, measure, value`` (+ optional ``split, labeled, params``);
* a wide CSV: ``dataset, method, <measure>, <measure>…``;
* a matrix CSV: ``dataset, <method>, <method>…`` (a paper's table; the measure is the one given
  with ``--measure``, else ``value``).

The experiment runner writes stores, ``frcli stats`` and ``frcli report`` read them through
this module: statistics work on result tables only, so they serve any user's CSV as well.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from frcli.errors import DataError, UserError
from frcli.results.store import dataset_tasks, find_stores, is_store, tidy_frame

TIDY = ["dataset", "split", "labeled", "method", "params", "measure", "value"]
TIME_COLUMNS = ("rank_time_s", "eval_time_s")
_SYNONYMS = {
    "dataset": ("dataset", "data set", "data_set", "data-set", "data", "dataset_name"),
    "method": ("method", "algorithm", "ranker", "ranking", "model"),
    "measure": ("measure", "metric"),
    "value": ("value", "score", "performance"),
}


def norm_name(name: str) -> str:
    """A column or measure name as compared: lower case, blanks and dashes as ``_``."""
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def _rename(df: pd.DataFrame) -> pd.DataFrame:
    cols = {}
    for c in df.columns:
        n = norm_name(c).replace("_", " ")
        for target, syns in _SYNONYMS.items():
            if target not in cols.values() and n in {s.replace("_", " ") for s in syns}:
                cols[c] = target
                break
    return df.rename(columns=cols)


def read_csv(path: str | Path, matrix_measure: str | None = None) -> pd.DataFrame:
    """Any of the three CSV layouts → tidy frame (columns :data:`TIDY`, plus times if present)."""
    path = Path(path)
    try:
        raw = pd.read_csv(path, sep=None, engine="python", dtype=str, keep_default_na=False,
                          skipinitialspace=True)
    except FileNotFoundError:
        raise DataError("no such file", str(path)) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, csv_error()) as e:
        raise DataError(f"not a readable CSV table ({str(e).splitlines()[0]})", str(path)) from None
    if raw.empty:
        raise DataError("the table has no rows", str(path))
    raw.columns = [str(c).strip() for c in raw.columns]
    df = _rename(raw)
    if "dataset" not in df.columns:
        first = df.columns[0]
        if first.startswith("Unnamed") or not _numeric_ok(df[first]):
            df = df.rename(columns={first: "dataset"})
        else:
            raise DataError("no 'dataset' column; expected columns dataset, method, <measure> "
                            "(wide), dataset, method, measure, value (tidy) or dataset, "
                            "<method>… (matrix)", str(path))
    extra = [c for c in ("split", "labeled", "params") if c in df.columns]
    if "method" in df.columns and "measure" in df.columns and "value" in df.columns:
        times = [c for c in TIME_COLUMNS if c in df.columns]
        tidy = df[["dataset", "method", "measure", "value"] + extra + times].copy()
    elif "method" in df.columns:
        reserved = {"dataset", "method", "split", "labeled", "params", *TIME_COLUMNS}
        measures = [c for c in df.columns if c not in reserved]
        times = [c for c in TIME_COLUMNS if c in df.columns]
        measures += times  # in a wide file times are measures like any other
        if not measures:
            raise DataError("no measure columns next to dataset and method", str(path))
        tidy = df.melt(id_vars=["dataset", "method"] + extra, value_vars=measures,
                       var_name="measure", value_name="value")
    else:  # matrix: one column per method
        methods = [c for c in df.columns if c not in ("dataset", "split", "labeled")]
        if not methods:
            raise DataError("no value columns next to dataset", str(path))
        id_vars = ["dataset"] + [c for c in ("split", "labeled") if c in df.columns]
        tidy = df.melt(id_vars=id_vars, value_vars=methods, var_name="method",
                       value_name="value")
        tidy["measure"] = matrix_measure or "value"
    tidy = tidy.reset_index(drop=True)
    _to_numeric(tidy, "value", path, n_rows=len(df), wide=len(tidy) // max(len(df), 1))
    for c in TIME_COLUMNS:
        if c in tidy.columns:
            tidy[c] = pd.to_numeric(tidy[c].replace("", np.nan), errors="coerce")
    _warn_missing(tidy, str(path))
    tidy = tidy[tidy["value"].notna()]
    return _complete(tidy)


def _warn_missing(df: pd.DataFrame, source: str) -> None:
    """Missing values (NaN, empty) are left out of the averages; say so, once per source,
    naming the first (a method whose one split failed must not look like the others)."""
    miss = df["value"].isna()
    if not miss.any():
        return
    import warnings

    r = df[miss].iloc[0]
    where = ", ".join(f"{k} {r[k]}" for k in ("dataset", "method", "measure", "split")
                      if k in df.columns and not (isinstance(r[k], float) and np.isnan(r[k])))
    warnings.warn(f"{source}: {int(miss.sum())} missing value(s) (NaN or empty) are left out "
                  f"of the averages, e.g. {where}", stacklevel=3)


def csv_error():
    import csv
    return csv.Error


def _numeric_ok(col: pd.Series) -> bool:
    vals = col.replace("", np.nan).dropna()
    return len(vals) > 0 and pd.to_numeric(vals, errors="coerce").notna().all()


def _to_numeric(df: pd.DataFrame, col: str, path: Path, n_rows: int, wide: int) -> None:
    s = df[col].astype(str).str.strip()
    s = s.replace({"": np.nan, "nan": np.nan, "NaN": np.nan, "NA": np.nan, "-": np.nan,
                   "?": np.nan})
    num = pd.to_numeric(s, errors="coerce")
    bad = (num.isna() & s.notna()) | np.isinf(num.to_numpy(dtype=float, na_value=np.nan))
    if bad.any():
        i = int(np.nonzero(bad.to_numpy())[0][0])
        line = (i % n_rows if wide > 1 else i) + 2  # +1 header, +1 one-based
        what = "is not finite" if s.notna().iloc[i] and not num.isna().iloc[i] else \
            "is not a number"
        raise DataError(f"value {s.iloc[i]!r} (method {df['method'].iloc[i]!r}, measure "
                        f"{df['measure'].iloc[i]!r}) {what}", str(path), line)
    df[col] = num.astype(float)


def _complete(tidy: pd.DataFrame) -> pd.DataFrame:
    for c in ("split", "labeled", "params", "experiment", "task"):
        if c not in tidy.columns:
            tidy[c] = "" if c != "split" else "0"
    for c in ("dataset", "method", "measure", "split", "labeled", "params", "experiment", "task"):
        # pd.NA (the store's "all rows labeled") and NaN both mean "not given"
        tidy[c] = tidy[c].map(lambda x: "" if x is None or x is pd.NA or (
            isinstance(x, float) and math.isnan(x)) else str(x).strip())
    return tidy.reset_index(drop=True)


def read_store(folder: str | Path, experiment: str = "") -> pd.DataFrame:
    """A result-store folder → tidy frame, with each data set's ``task`` (from the store) and
    ``experiment`` (the store's name when it came from a folder of stores, else empty)."""
    folder = Path(folder)
    try:
        df = tidy_frame(folder)
        tasks = dataset_tasks(folder)
    except UserError:
        raise
    except Exception as e:  # noqa: BLE001 - a damaged store: one line, not a traceback
        raise DataError(f"cannot read the result store ({type(e).__name__}: {e})",
                        str(folder)) from None
    df = _rename(df.copy())
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    for c in TIME_COLUMNS:
        if c in df.columns:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    df["task"] = df["dataset"].map(lambda d: tasks.get(d, ""))
    df["experiment"] = experiment
    _warn_missing(df, str(folder))
    return _complete(df[df["value"].notna()].copy())


def read_sources(paths: Sequence[str | Path], matrix_measure: str | None = None) -> pd.DataFrame:
    """All sources concatenated into one tidy frame.

    A folder is a result store, or a folder of stores (``results/``): each of those keeps its
    name in the ``experiment`` column, and ``select_tables`` analyses each separately (their
    protocols, splits and evaluation may differ, so their numbers are never pooled; name the
    stores themselves to pool them). A folder with neither but with CSV files is read as CSV
    exports.
    """
    if not paths:
        raise UserError("no SOURCE given: pass result folders or CSV files")
    frames = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            if is_store(p):
                frames.append(read_store(p))
                continue
            inside = [q for q in sorted(p.iterdir()) if q.is_dir() and is_store(q)]
            csvs = sorted(p.glob("*.csv"))
            if inside:
                frames.extend(read_store(q, experiment=q.name) for q in inside)
            elif csvs:
                frames.extend(read_csv(c) for c in csvs)
            else:
                find_stores(p)  # raises, naming what the folder holds
        elif p.exists():
            frames.append(read_csv(p, matrix_measure))
        elif p.suffix:
            raise DataError("no such file or folder", str(p))
        else:
            find_stores(p)  # raises: no such folder (and the stores next to it)
    df = pd.concat(frames, ignore_index=True)
    if df.empty:
        raise DataError("no values found", ", ".join(str(p) for p in paths))
    return df
