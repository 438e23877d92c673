"""From result sources to the (data sets × methods) tables the tests need.

Sources, read into one *tidy* frame ``dataset, split, labeled, method, params, measure, value``
(plus ``rank_time_s, eval_time_s`` when present):

* a result-store folder ``results/<name>/`` (read through ``frcli.experiment.store`` when that
  module offers a tidy export; otherwise a tidy CSV export lying in the folder);
* a tidy CSV: ``dataset, method, measure, value`` (+ optional ``split, labeled, params``);
* a wide CSV: ``dataset, method, <measure>, <measure>…``;
* a matrix CSV: ``dataset, <method>, <method>…`` (a paper's table; the measure is the one given
  with ``--measure``, else ``value``).

Then per analysis: methods are labelled (``method`` plus the params that vary for it), values
are averaged over splits per data set, rounded as the papers did, and pivoted.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from frcli.errors import ConfigError, DataError, UserError

TIDY = ["dataset", "split", "labeled", "method", "params", "measure", "value"]
TIME_COLUMNS = ("rank_time_s", "eval_time_s")
_SYNONYMS = {
    "dataset": ("dataset", "data set", "data_set", "data-set", "data", "dataset_name"),
    "method": ("method", "algorithm", "ranker", "ranking", "model"),
    "measure": ("measure", "metric"),
    "value": ("value", "score", "performance"),
}

# Direction of measures users bring from elsewhere (the project's own measures come from
# frcli.evaluate.measures when importable). True = lower is better.
_LOWER = {"rrmse", "rmse", "mse", "mae", "rae", "rse", "hamming_loss", "one_error", "coverage",
          "ranking_loss", "log_loss", "error", "error_rate", "zero_one_loss", "brier",
          "reconstruction_mse", "rank_time_s", "eval_time_s", "time", "time_s", "runtime"}
_HIGHER = {"accuracy", "subset_accuracy", "ml_accuracy", "ml_precision", "ml_recall", "ml_f1",
           "micro_precision", "micro_recall", "micro_f1", "macro_precision", "macro_recall",
           "macro_f1", "f1", "precision", "recall", "auprc", "avg_auprc", "pooled_auprc",
           "auroc", "avg_auroc", "auc", "roc_auc", "r2", "aurf1", "weighted_auprc",
           "average_precision", "mcc", "kappa"}
_LOWER_HINTS = ("loss", "error", "rmse", "mse", "mae", "time", "coverage")
_HIGHER_HINTS = ("acc", "f1", "auprc", "auroc", "auc", "precision", "recall", "r2")


def _norm(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def lower_is_better(measure: str, override: bool | None = None) -> bool:
    """Direction of ``measure``: explicit override, the project's measures, known names, hints."""
    if override is not None:
        return override
    m = _norm(measure)
    try:  # the evaluator's own registry is authoritative for its names
        from frcli.evaluate.measures import MEASURES
        if m in MEASURES:
            return MEASURES[m].direction == "lower"
    except Exception:  # noqa: BLE001 - stats must work without the evaluator
        pass
    if m in _LOWER:
        return True
    if m in _HIGHER:
        return False
    lo = any(h in m for h in _LOWER_HINTS)
    hi = any(h in m for h in _HIGHER_HINTS)
    if lo != hi:
        return lo
    raise ConfigError(f"unknown direction for measure {measure!r}: pass --lower-is-better or "
                      "--higher-is-better")


# --------------------------------------------------------------------------- rounding
def parse_round(spec: str | int | None) -> tuple[str, Callable[[float], float]]:
    """``'3'`` → 3 decimals, ``'3sig'`` → 3 significant digits, ``'none'`` → no rounding.

    Rounding goes through Python's correctly rounded formatting of the binary value, i.e. the
    number one would print with that many digits (what the papers' tables show).
    """
    s = "none" if spec is None else str(spec).strip().lower()
    if s in ("none", "no", "off", ""):
        return "none", lambda x: x
    m = re.fullmatch(r"(\d+)\s*(sig|s|sd)?", s)
    if not m or int(m.group(1)) > 15 or (m.group(2) and int(m.group(1)) == 0):
        raise ConfigError(f"bad --round {spec!r}; allowed: none, a number of decimals (e.g. 3) "
                          "or significant digits (e.g. 3sig)")
    d = int(m.group(1))
    if m.group(2):
        return f"{d} significant digits", lambda x: float(f"{x:.{d}g}") if math.isfinite(x) else x
    return f"{d} decimals", lambda x: float(f"{x:.{d}f}") if math.isfinite(x) else x


# --------------------------------------------------------------------------- params
def parse_params(s) -> dict:
    """A ``params`` cell: JSON object, ``k=v, k=v`` (also ``;`` or space separated) or empty."""
    if s is None or (isinstance(s, float) and math.isnan(s)):
        return {}
    if isinstance(s, dict):
        return dict(s)
    s = str(s).strip()
    if not s or s in ("{}", "-"):
        return {}
    if s.startswith("{"):
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise DataError(f"params {s!r} is not valid JSON ({e.msg})") from None
        if not isinstance(d, dict):
            raise DataError(f"params {s!r} is not a JSON object")
        return d
    out = {}
    for part in re.split(r"[;,\s]+", s):
        if not part:
            continue
        if "=" not in part:
            raise DataError(f"params {s!r}: expected k=v pairs or a JSON object")
        k, v = part.split("=", 1)
        out[k.strip()] = _scalar(v.strip())
    return out


def _scalar(v: str):
    try:
        f = float(v)
    except ValueError:
        return v
    return int(f) if f.is_integer() and re.fullmatch(r"[-+]?\d+", v) else f


def _fmt_param(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v)) if abs(v) >= 1 else str(v)
    return str(v)


def method_labels(df: pd.DataFrame) -> pd.Series:
    """``method`` plus ``(k=v, …)`` for the params that vary among that method's rows."""
    if "params" not in df.columns:
        return df["method"].astype(str)
    parsed = df["params"].map(parse_params)
    labels = df["method"].astype(str).copy()
    for m, idx in df.groupby("method", sort=False).groups.items():
        ps = parsed.loc[idx]
        keys: list[str] = []
        for p in ps:
            keys.extend(k for k in p if k not in keys)
        varying = [k for k in keys
                   if len({json.dumps(p.get(k), sort_keys=True, default=str) for p in ps}) > 1]
        if varying:
            labels.loc[idx] = [
                f"{m}(" + ", ".join(f"{k}={_fmt_param(p.get(k, '-'))}" for k in varying) + ")"
                for p in ps]
    return labels


# --------------------------------------------------------------------------- reading
def _rename(df: pd.DataFrame) -> pd.DataFrame:
    cols = {}
    for c in df.columns:
        n = _norm(c).replace("_", " ")
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
    tidy = tidy[tidy["value"].notna()]
    return _complete(tidy)


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
    bad = num.isna() & s.notna()
    if bad.any():
        i = int(np.nonzero(bad.to_numpy())[0][0])
        line = (i % n_rows if wide > 1 else i) + 2  # +1 header, +1 one-based
        raise DataError(f"value {s.iloc[i]!r} (method {df['method'].iloc[i]!r}, measure "
                        f"{df['measure'].iloc[i]!r}) is not a number", str(path), line)
    df[col] = num.astype(float)


def _complete(tidy: pd.DataFrame) -> pd.DataFrame:
    for c in ("split", "labeled", "params"):
        if c not in tidy.columns:
            tidy[c] = "" if c != "split" else "0"
    for c in ("dataset", "method", "measure", "split", "labeled", "params"):
        # pd.NA (the store's "all rows labeled") and NaN both mean "not given"
        tidy[c] = tidy[c].map(lambda x: "" if x is None or x is pd.NA or (
            isinstance(x, float) and math.isnan(x)) else str(x).strip())
    return tidy.reset_index(drop=True)


def read_store(folder: str | Path) -> pd.DataFrame:
    """A result-store folder → tidy frame.

    Uses the experiment store's own tidy export when available (it knows its schema); else a
    tidy CSV export found in the folder.
    """
    folder = Path(folder)
    try:
        from frcli.experiment import store as _store  # written by the experiment issue
    except Exception:  # noqa: BLE001 - not there yet, or broken: fall back to CSV exports
        _store = None
    if _store is not None:
        for name in ("export_tidy", "tidy_frame", "read_tidy", "load_tidy", "tidy_table",
                     "to_frame", "export_frame"):
            fn = getattr(_store, name, None)
            if callable(fn):
                try:
                    df = fn(folder)
                except UserError:
                    raise
                except Exception as e:  # noqa: BLE001
                    raise DataError(f"cannot read the result store ({type(e).__name__}: {e})",
                                    str(folder)) from None
                df = pd.DataFrame(df) if not isinstance(df, pd.DataFrame) else df.copy()
                df = _rename(df)
                df["value"] = pd.to_numeric(df["value"], errors="coerce")
                for c in TIME_COLUMNS:
                    if c in df.columns:
                        df[c] = pd.to_numeric(df[c], errors="coerce")
                if "params" in df.columns:
                    df["params"] = df["params"].map(
                        lambda p: json.dumps(p, sort_keys=True) if isinstance(p, dict) else p)
                return _complete(df[df["value"].notna()].copy())
    csvs = sorted(folder.glob("*.csv"))
    if csvs:
        return pd.concat([read_csv(c) for c in csvs], ignore_index=True)
    raise DataError("a result folder needs the experiment store or a CSV export "
                    "(`frcli results export`) inside it", str(folder))


def read_sources(paths: Sequence[str | Path], matrix_measure: str | None = None) -> pd.DataFrame:
    """All sources concatenated into one tidy frame."""
    if not paths:
        raise UserError("no SOURCE given: pass result folders or CSV files")
    frames = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            frames.append(read_store(p))
        elif p.exists():
            frames.append(read_csv(p, matrix_measure))
        else:
            raise DataError("no such file or folder", str(p))
    df = pd.concat(frames, ignore_index=True)
    if df.empty:
        raise DataError("no values found", ", ".join(str(p) for p in paths))
    return df


# --------------------------------------------------------------------------- selecting
@dataclass
class Table:
    """One analysis' input: values (N, k) after averaging over splits and rounding."""

    measure: str
    group: dict
    values: np.ndarray
    methods: list[str]
    datasets: list[str]
    dropped_datasets: list[str]
    n_splits: dict


def _split_list(items: Sequence[str] | None) -> list[str] | None:
    if not items:
        return None
    out: list[str] = []
    for it in items:
        out.extend(s.strip() for s in str(it).split(",") if s.strip())
    return out or None


def with_time_measures(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``rank_time_s``/``eval_time_s`` as measures (one value per run) when present."""
    extra = []
    keys = ["dataset", "split", "labeled", "method", "params"]
    for c in TIME_COLUMNS:
        if c in df.columns and df[c].notna().any() and not (df["measure"] == c).any():
            runs = df[df[c].notna()].drop_duplicates(keys)
            t = runs[keys].copy()
            t["measure"] = c
            t["value"] = runs[c].astype(float).to_numpy()
            extra.append(t)
    return pd.concat([df] + extra, ignore_index=True) if extra else df


def measures_in(df: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(df["measure"]))


def select_tables(df: pd.DataFrame, measures: Sequence[str] | None = None, *,
                  methods: Sequence[str] | None = None, datasets: Sequence[str] | None = None,
                  group_by: str | None = None, round_spec: str | None = "3",
                  warn: Callable[[str], None] | None = None) -> list[Table]:
    """Tables for every (group, measure): averaged over splits, rounded, complete rows only."""
    df = with_time_measures(df)
    available = measures_in(df)
    measures = _split_list(measures)
    if measures is None:
        real = [m for m in available if m not in TIME_COLUMNS]
        if len(real) != 1:
            raise ConfigError("several measures in the sources; choose with --measure: "
                              + ", ".join(available))
        measures = real
    norm_avail = {_norm(m): m for m in available}
    chosen = []
    for m in measures:
        if m in available:
            chosen.append(m)
        elif _norm(m) in norm_avail:
            chosen.append(norm_avail[_norm(m)])
        else:
            raise ConfigError(f"unknown measure {m!r}; in the sources: " + ", ".join(available))
    _, rounder = parse_round(round_spec)
    df = df.copy()
    df["label"] = method_labels(df)
    methods = _split_list(methods)
    if methods is not None:
        known = list(dict.fromkeys(df["label"]))
        plain = set(df["method"])
        for m in methods:
            if m not in known and m not in plain:
                raise ConfigError(f"unknown method {m!r}; in the sources: " + ", ".join(known))
        df = df[df["label"].isin(methods) | df["method"].isin(methods)]
    datasets = _split_list(datasets)
    if datasets is not None:
        known = list(dict.fromkeys(df["dataset"]))
        for d in datasets:
            if d not in known:
                raise ConfigError(f"unknown data set {d!r}; in the sources: " + ", ".join(known))
        df = df[df["dataset"].isin(datasets)]
    if group_by is not None and group_by not in df.columns:
        params_keys = sorted({k for p in df["params"].map(parse_params) for k in p})
        if group_by in params_keys:
            df[group_by] = df["params"].map(lambda p: str(parse_params(p).get(group_by, "")))
        else:
            raise ConfigError(f"unknown --group-by column {group_by!r}; allowed: labeled, split, "
                              + ", ".join(["dataset", "method"] + params_keys))
    if group_by is None:
        groups = [({}, df)]
    else:
        # an empty `labeled` is the store's "every row labeled" (supervised runs)
        groups = [({group_by: _group_value(g) if g != "" or group_by != "labeled" else "all"},
                   sub)
                  for g, sub in df.groupby(group_by, sort=False)]
        groups.sort(key=lambda gs: _sort_key(next(iter(gs[0].values()))))
    tables = []
    for g, sub in groups:
        for m in chosen:
            tables.append(_one_table(sub[sub["measure"] == m], m, g, methods, rounder, warn))
    return tables


def _group_value(g):
    return g.item() if hasattr(g, "item") else g


def _sort_key(v):
    try:
        return (0, float(v), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(v))


def _one_table(sub: pd.DataFrame, measure: str, group: dict, methods, rounder, warn) -> Table:
    where = f"measure {measure!r}" + "".join(f", {k}={v}" for k, v in group.items())
    if sub.empty:
        raise ConfigError(f"no values for {where}")
    mean = sub.groupby(["dataset", "label"], sort=False)["value"].mean()
    counts = sub.groupby(["dataset", "label"], sort=False)["value"].size()
    wide = mean.unstack("label")
    order_m = list(dict.fromkeys(sub["label"]))
    if methods is not None:  # the user's order (a plain method name brings all its variants)
        base = sub.drop_duplicates("label").set_index("label")["method"]
        expanded: list[str] = []
        for m in methods:
            expanded.extend(lab for lab in order_m
                            if lab not in expanded and (lab == m or base[lab] == m))
        order_m = expanded
    wide = wide.reindex(index=list(dict.fromkeys(sub["dataset"])), columns=order_m)
    incomplete = wide.index[wide.isna().any(axis=1)].tolist()
    if incomplete:
        missing = {d: [m for m in order_m if pd.isna(wide.loc[d, m])] for d in incomplete}
        msg = "; ".join(f"{d} (no {', '.join(ms)})" for d, ms in list(missing.items())[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        if warn is not None:
            warn(f"{where}: dropped {len(incomplete)} data set(s) without a value for every "
                 f"method: {msg}{more}")
        wide = wide.drop(index=incomplete)
    if len(order_m) < 2:
        raise ConfigError(f"{where}: need at least 2 methods to compare, found "
                          f"{len(order_m)} ({', '.join(order_m)})")
    if len(wide) < 2:
        raise ConfigError(f"{where}: need at least 2 data sets with a value for every method, "
                          f"found {len(wide)}")
    vals = np.vectorize(rounder, otypes=[float])(wide.to_numpy(dtype=float))
    nspl = {m: int(counts.xs(m, level="label").max()) for m in order_m}
    return Table(measure, group, vals, order_m, [str(d) for d in wide.index], incomplete, nspl)
