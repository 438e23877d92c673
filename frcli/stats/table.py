"""From a tidy result table to the (data sets × methods) tables the tests need.

The sources (result stores, CSV files) are read into one tidy frame by
``frcli.results.tidy``. Then per analysis: methods are labelled (``method`` plus the params
that vary for it), values are averaged over splits per data set, rounded as the papers did,
and pivoted.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from frcli.errors import ConfigError, DataError
from frcli.results.tidy import TIME_COLUMNS, norm_name

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


def lower_is_better(measure: str, override: bool | None = None) -> bool:
    """Direction of ``measure``: explicit override, the project's measures, known names, hints."""
    if override is not None:
        return override
    m = norm_name(measure)
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


def method_labels(df: pd.DataFrame) -> pd.Series:
    """Each row's method label (``frcli.rankers.labels.labels_within``): the method plus the
    params that differ from its defaults or vary among its rows *of the same experiment*,
    e.g. ``relief(neighbours=5)``; experiments read from one folder never change each other's
    labels."""
    if "params" not in df.columns:
        return df["method"].astype(str)
    from frcli.rankers.labels import labels_within

    exp = df["experiment"].astype(str) if "experiment" in df.columns else \
        pd.Series("", index=df.index)
    keys = list(dict.fromkeys(zip(exp, df["method"].astype(str), df["params"].astype(str))))
    names = labels_within([(m, parse_params(p)) for _, m, p in keys], [e for e, _, _ in keys])
    lookup = dict(zip(keys, names))
    return pd.Series([lookup[k] for k in zip(exp, df["method"].astype(str),
                                             df["params"].astype(str))],
                     index=df.index, dtype=object)


# --------------------------------------------------------------------------- selecting
MAIN = "main"   # the pseudo-measure "each data set's main measure" (result stores only)


@dataclass
class Table:
    """One analysis' input: values (N, k) after averaging over splits (and rounding, if asked).

    ``values`` are what is ranked and tested; for the ``main`` measure over tasks whose main
    measures point in different directions they are oriented (negated where higher is
    better) so that lower is better everywhere, and ``raw`` keeps them as measured.
    ``measures`` names each data set's measure (one name repeated for a plain measure).
    """

    measure: str
    group: dict
    values: np.ndarray
    methods: list[str]
    datasets: list[str]
    dropped_datasets: list[str]
    n_splits: dict
    lower_is_better: bool | None = None
    raw: np.ndarray | None = None
    measures: list[str] | None = None
    experiment: str = ""

    @property
    def mixed(self) -> bool:
        """Whether data sets are measured by different measures (no common mean)."""
        return self.measures is not None and len(set(self.measures)) > 1


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
    keys = [c for c in ("experiment", "task") if c in df.columns] + \
        ["dataset", "split", "labeled", "method", "params"]
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


def main_measures(df: pd.DataFrame) -> dict[str, str] | None:
    """Data set → the main measure of its task (as the experiment summary ranks them), or
    None when a data set's task is unknown (a CSV source)."""
    from frcli.evaluate.measures import MAIN_MEASURE

    out = {}
    for ds, sub in df.groupby("dataset", sort=False):
        tasks = set(sub["task"]) if "task" in sub.columns else {""}
        task = next(iter(tasks)) if len(tasks) == 1 else ""
        have = set(sub["measure"]) - set(TIME_COLUMNS)
        m = MAIN_MEASURE.get(task)
        if not task:
            return None
        if m not in have:  # a config that chose other measures: the first one it has
            plain = sorted(x for x in have if "@" not in x) or sorted(have)
            if not plain:
                return None
            m = plain[0]
        out[str(ds)] = m
    return out


def _choose_measures(df: pd.DataFrame, measures: list[str] | None, where: str) -> list[str]:
    available = measures_in(df)
    if measures is None:
        real = [m for m in available if m not in TIME_COLUMNS]
        if len(real) == 1:
            return real
        if main_measures(df) is not None:
            return [MAIN]
        raise ConfigError(f"several measures in {where}; choose with --measure: "
                          + ", ".join(available))
    norm_avail = {norm_name(m): m for m in available}
    chosen = []
    for m in measures:
        if m in available:
            chosen.append(m)
        elif norm_name(m) == MAIN:
            if main_measures(df) is None:
                raise ConfigError(f"--measure {MAIN} needs the data sets' tasks, which only "
                                  "result stores record; choose a measure: "
                                  + ", ".join(available))
            chosen.append(MAIN)
        elif norm_name(m) in norm_avail:
            chosen.append(norm_avail[norm_name(m)])
        else:
            raise ConfigError(f"unknown measure {m!r} in {where}; measures there: "
                              + ", ".join(available))
    return chosen


def select_tables(df: pd.DataFrame, measures: Sequence[str] | None = None, *,
                  methods: Sequence[str] | None = None, datasets: Sequence[str] | None = None,
                  group_by: str | None = None, round_spec: str | None = "none",
                  lower: bool | None = None, require_comparison: bool = True,
                  warn: Callable[[str], None] | None = None) -> list[Table]:
    """Tables for every (experiment, group, measure): averaged over splits, rounded if asked,
    complete rows only.

    Without ``measures``: the one measure of the sources, or else ``main``, each data set's
    main measure (its task's: RRMSE for regression and MTR, pooled AUPRC for MLC and HMLC,
    macro-F1 for classification), which needs the tasks a result store records. Several
    experiments (a folder of stores) give one analysis each; a measure that one experiment
    lacks skips that experiment with a warning. ``require_comparison=False`` (the experiment
    summary) allows one method or one data set.
    """
    df = with_time_measures(df)
    measures = _split_list(measures)
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
    experiments = list(dict.fromkeys(df["experiment"])) if "experiment" in df.columns else [""]
    several = len(experiments) > 1
    tables: list[Table] = []
    skipped: list[str] = []
    for exp in experiments:
        part = df[df["experiment"] == exp] if several else df
        where = f"experiment {exp!r}" if exp else "the sources"
        try:
            chosen = _choose_measures(part, measures, where)
        except ConfigError as e:
            if not several:
                raise
            skipped.append(f"{exp}: {e}")
            continue
        if group_by is None:
            groups = [({}, part)]
        else:
            # an empty `labeled` is the store's "every row labeled" (supervised runs)
            groups = [({group_by: _group_value(g) if g != "" or group_by != "labeled"
                        else "all"}, sub)
                      for g, sub in part.groupby(group_by, sort=False)]
            groups.sort(key=lambda gs: _sort_key(next(iter(gs[0].values()))))
        for g, sub in groups:
            for m in chosen:
                try:
                    t = _one_table(sub, m, g, methods, rounder, lower, warn, exp,
                                   require_comparison)
                except ConfigError as e:
                    if not several:
                        raise
                    skipped.append(f"{exp}: {e}")
                    continue
                tables.append(t)
    if skipped and warn is not None and tables:
        for s in skipped:
            warn(f"skipped {s}")
    if not tables:
        raise ConfigError("nothing to analyse: " + "; ".join(skipped))
    return tables


def _group_value(g):
    return g.item() if hasattr(g, "item") else g


def _sort_key(v):
    try:
        return (0, float(v), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(v))


def _one_table(sub: pd.DataFrame, measure: str, group: dict, methods, rounder, lower, warn,
               experiment: str = "", require_comparison: bool = True) -> Table:
    where = (f"{experiment}: " if experiment else "") + f"measure {measure!r}" + \
        "".join(f", {k}={v}" for k, v in group.items())
    if measure == MAIN:
        mains = main_measures(sub) or {}
        sub = sub[[mains.get(d) == m for d, m in zip(sub["dataset"], sub["measure"])]]
    else:
        sub = sub[sub["measure"] == measure]
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
    if len(order_m) < 2 and require_comparison:
        raise ConfigError(f"{where}: need at least 2 methods to compare, found "
                          f"{len(order_m)} ({', '.join(order_m)})")
    if len(wide) < 2 and (require_comparison or len(wide) == 0):
        raise ConfigError(f"{where}: need at least 2 data sets with a value for every method, "
                          f"found {len(wide)}")
    names = [str(d) for d in wide.index]
    raw = np.vectorize(rounder, otypes=[float])(wide.to_numpy(dtype=float))
    if measure == MAIN:
        per_ds = [mains[d] for d in names]
    else:
        per_ds = [measure] * len(names)
    try:
        directions = [lower_is_better(m, lower) for m in per_ds]
    except ConfigError:
        if measure == MAIN:
            raise
        directions = [None]  # unknown: the caller asks (after its own checks)
    label = measure
    if measure == MAIN and len(set(per_ds)) == 1:
        label = per_ds[0]      # one task family: a plain analysis of that measure
    if len(set(directions)) == 1:
        lib, vals = directions[0], raw
    else:  # orient: lower is better on every data set
        lib = True
        vals = raw * np.where(np.asarray(directions), 1.0, -1.0)[:, None]
    nspl = {m: int(counts.xs(m, level="label").max()) for m in order_m}
    return Table(label, group, vals, order_m, names, incomplete, nspl, lower_is_better=lib,
                 raw=raw, measures=per_ds, experiment=experiment)
