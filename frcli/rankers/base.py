"""The ranker contract: parameters in, ``Ranking`` out.

A ranker turns a ``Dataset`` and a dict of parameters into one ``Ranking`` per parameter
combination. Parameters are declared once (``Param``) so the CLI (``--param k=v`` strings),
the YAML configs (typed values, lists for grids) and the Python API share one parser and one
set of error messages. Rankers that can compute a whole grid in one pass (Relief) declare the
names in ``grid_params``; for every other list-valued parameter the registry loops.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

from frcli.data.dataset import Dataset
from frcli.errors import ConfigError


@dataclass
class Ranking:
    """Feature importances (higher = more important) and how they were obtained."""

    method: str
    feature_names: list[str]
    importances: np.ndarray
    params: dict[str, Any] = field(default_factory=dict)
    per_target: np.ndarray | None = None          # (n_targets, n_features)
    target_names: list[str] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.importances = np.asarray(self.importances, dtype=np.float64)
        if self.importances.shape != (len(self.feature_names),):
            raise ValueError("importances must have one value per feature")

    def ranks(self) -> np.ndarray:
        """1 = most important; ties keep the data set's feature order (a stable sort)."""
        order = self.order()
        r = np.empty(len(order), dtype=np.intp)
        r[order] = np.arange(1, len(order) + 1)
        return r

    def order(self) -> np.ndarray:
        """Feature indices from most to least important (stable; NaN last)."""
        key = np.where(np.isnan(self.importances), -np.inf, self.importances)
        return np.argsort(-key, kind="stable")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "params": self.params,
            "features": [
                {"feature": f, "importance": float(v), "rank": int(r)}
                for f, v, r in zip(self.feature_names, self.importances, self.ranks())
            ],
            "timings": self.timings,
            "meta": self.meta,
        }
        if self.per_target is not None:
            names = self.target_names or [f"target{j + 1}" for j in range(len(self.per_target))]
            out["per_target"] = {
                t: dict(zip(self.feature_names, map(float, row)))
                for t, row in zip(names, self.per_target)
            }
        return out


# -- parameters -------------------------------------------------------------------------

def parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in ("1", "true", "yes", "on"):
        return True
    if s in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected true or false")


def parse_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("expected an integer")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValueError("expected an integer") from None


def parse_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("expected a number")
    try:
        v = float(str(value).strip()) if not isinstance(value, (int, float)) else float(value)
    except ValueError:
        raise ValueError("expected a number") from None
    if not math.isfinite(v):
        raise ValueError("expected a finite number")
    return v


def parse_choice(*allowed: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        s = str(value).strip().lower()
        if s not in allowed:
            raise ValueError(f"allowed: {', '.join(allowed)}")
        return s
    return parse


@dataclass(frozen=True)
class Param:
    """A declared parameter: name, parser (raises ValueError with a hint), default, help."""

    name: str
    parse: Callable[[Any], Any]
    default: Any
    help: str = ""
    check: Callable[[Any], bool] | None = None
    check_msg: str = ""

    def value(self, raw: Any) -> Any:
        try:
            v = self.parse(raw)
        except (ValueError, TypeError) as e:
            hint = f" ({e})" if str(e) else ""
            raise ConfigError(f"bad value {raw!r} for parameter '{self.name}'{hint}") from None
        if self.check is not None and not self.check(v):
            raise ConfigError(f"bad value {raw!r} for parameter '{self.name}' ({self.check_msg})")
        return v


MAX_SEED = 2**63 - 1        # seeds are stored as SQLite integers
MAX_JOBS = 256              # engine threads or worker processes: a bound, not a fork bomb
MAX_GRID = 10_000           # parameter combinations of one call


def check_run_options(seed: Any, jobs: Any) -> None:
    """``seed`` and ``jobs`` are integers in their bounds, checked here so that a bad one is
    one clear line (numpy's ``SeedSequence`` would raise a bare ValueError on a negative
    seed)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or \
            not 0 <= int(seed) <= MAX_SEED:
        raise ConfigError(f"bad seed {seed!r}: expected an integer in 0..2**63-1")
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or \
            not 1 <= int(jobs) <= MAX_JOBS:
        raise ConfigError(f"bad jobs {jobs!r}: expected an integer in 1..{MAX_JOBS}")


def require_labels(dataset: Dataset, method: str, *, ssl_ok: bool = False) -> None:
    """A supervised ranking needs rows with a known target: none at all (a target column
    that is all ``?``) is a ``DataError`` naming the data, not zeros and a numpy warning.
    ``ssl_ok``: a semi-supervised data set may have none (SSL-Relief then is URelief)."""
    from frcli.errors import DataError

    if dataset.task == "unsupervised" or dataset.Y is None or dataset.labeled is None:
        return
    if dataset.n_examples and not bool(np.any(dataset.labeled)) and not (
            ssl_ok and dataset.semi_supervised):
        raise DataError(f"no row has a known target (task {dataset.task}): method "
                        f"'{method}' has nothing to learn from; choose other targets, or "
                        f"rank with --task unsupervised", dataset.source or dataset.name)


MIN_ROWS = 5    # fewer rows (with a known target) than this: no ranking means much


def degenerate_reason(dataset: Dataset, rankings: list[Ranking]) -> str | None:
    """Why the rankings say nothing, or None: too few rows, every feature constant (identical
    rows included), constant targets, or every feature given the same importance: such a
    ranking (all zero, or all 1.0) must not pass as a result without a word."""
    rows = dataset.labeled if (dataset.labeled is not None and dataset.task != "unsupervised"
                               and not dataset.semi_supervised) else None
    X = dataset.X if rows is None else dataset.X[rows]
    n = X.shape[0]
    F = X.shape[1]
    equal = [r for r in rankings if F >= 2 and np.ptp(np.nan_to_num(r.importances)) == 0.0]
    reasons = []
    if n < MIN_ROWS:
        reasons.append(f"only {n} row(s)" + (" with a known target" if rows is not None
                                            else ""))
    spread = _spread(X) if n else np.zeros(F)
    if n and F and not np.any(spread > 0):
        reasons.append("every feature is constant (or unknown) in these rows")
    if dataset.Y is not None and dataset.task != "unsupervised" and n:
        Y = np.asarray(dataset.Y if rows is None else dataset.Y[rows], dtype=np.float64)
        if not np.any(_spread(Y) > 0):
            reasons.append("the targets are constant")
        elif any(r.meta.get("constant_targets") for r in rankings):
            reasons.append("every sampled example and its neighbours have the same target")
    if not reasons and not equal:
        return None
    if equal:
        v = float(np.nan_to_num(equal[0].importances)[0])
        tail = f"every feature got importance {v:g}"
        if not reasons:
            reasons.append("no feature separated the examples")
        return f"{'; '.join(reasons)}: {tail}"
    return "; ".join(reasons) + ": the importances carry little information"


def _spread(A: np.ndarray) -> np.ndarray:
    """max - min of every column over its known values (NaN for an all-unknown column),
    without numpy's all-NaN warnings."""
    import warnings

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmax(A, axis=0) - np.nanmin(A, axis=0)


class Ranker:
    """Base class of every ranker. Subclasses set ``name``-independent metadata and ``_rank``.

    ``tasks``: the tasks it supports. ``params``: its declared parameters.
    ``grid_params``: parameters whose lists it evaluates in one pass (``rank_grid``).
    """

    tasks: ClassVar[tuple[str, ...]] = ()
    params: ClassVar[tuple[Param, ...]] = ()
    grid_params: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = ""
    # rankings that learn from the data: equal importances mean they learned nothing, which
    # ``rank`` reports (``degenerate_reason``); the baselines that ignore the data say False
    learns: ClassVar[bool] = True

    def __init__(self, method: str):
        self.method = method

    # -- parameter handling ------------------------------------------------------------
    def param_spec(self) -> dict[str, Param]:
        """Name -> Param; an instance may narrow ``params`` to what its method uses."""
        return {p.name: p for p in self.params}

    def resolve(self, raw: Mapping[str, Any]) -> dict[str, list[Any]]:
        """Validate raw parameters; every value becomes a list (a grid axis)."""
        spec = self.param_spec()
        out: dict[str, list[Any]] = {}
        for key, value in raw.items():
            if key not in spec:
                from frcli.errors import did_you_mean

                allowed = ", ".join(sorted(spec)) or "(none)"
                raise ConfigError(
                    f"unknown parameter '{key}' for method '{self.method}'"
                    f"{did_you_mean(key, spec)}; allowed: {allowed}")
            values = value if isinstance(value, (list, tuple)) else [value]
            if not values:
                raise ConfigError(f"parameter '{key}' has an empty list of values")
            out[key] = [spec[key].value(v) for v in values]
        for name, p in spec.items():
            out.setdefault(name, [p.default])
        combos = math.prod(len(v) for v in out.values())
        if combos > MAX_GRID:
            raise ConfigError(f"the parameter lists make {combos:,} combinations; at most "
                              f"{MAX_GRID:,} in one ranker entry")
        return out

    def task_defaults(self) -> list[str]:
        """Lines describing defaults that depend on the task (``--list-methods``)."""
        return []

    def check_task(self, dataset: Dataset) -> None:
        if self.tasks and dataset.task not in self.tasks:
            raise ConfigError(
                f"method '{self.method}' does not support task '{dataset.task}'; "
                f"it supports: {', '.join(self.tasks)}")

    def validate(self, dataset: Dataset,
                 params_grid: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
        """Check, before any work, that the method and its (possibly list-valued) parameters
        fit ``dataset``; return the resolved grid. Raises ``ConfigError``/``DataError``.

        Called by ``rank`` and by the experiment runner's pre-run check, so a parameter that
        does not fit a data set's task fails once, before a store exists. The default checks
        the task and parses the parameters; rankers with task-dependent parameters extend it
        (using only the Dataset's public attributes: the data may be the full set of an
        experiment, whose training parts are taken later).
        """
        self.check_task(dataset)
        return self.resolve(params_grid or {})

    def explicit(self, raw: Mapping[str, Any] | None, grid: Mapping[str, list[Any]],
                 name: str) -> bool:
        """Whether the caller set ``name`` to something other than its default (for
        ``validate``: a parameter that does not apply to the task is an error only then, so
        one config entry can still list it for several data sets)."""
        if not raw or name not in raw:
            return False
        default = self.param_spec()[name].default
        return any(v != default for v in grid[name])

    # -- running -----------------------------------------------------------------------
    def rank(self, dataset: Dataset, params: Mapping[str, Any] | None = None, *,
             seed: int = 0, jobs: int = 1) -> list[Ranking]:
        """One Ranking per combination of the (possibly list-valued) parameters."""
        check_run_options(seed, jobs)
        grid = self.validate(dataset, params)
        outer = [k for k in grid if k not in self.grid_params]
        results: list[Ranking] = []
        for combo in itertools.product(*(grid[k] for k in outer)):
            fixed = dict(zip(outer, combo))
            inner = {k: grid[k] for k in self.grid_params}
            results.extend(self.rank_grid(dataset, fixed, inner, seed=seed, jobs=jobs))
        if self.learns:
            why = degenerate_reason(dataset, results)
            if why:
                import warnings

                warnings.warn(f"{dataset.source or dataset.name}: degenerate ranking by "
                              f"'{self.method}': {why}", stacklevel=2)
        return results

    def rank_grid(self, dataset: Dataset, fixed: dict[str, Any],
                  grid: dict[str, list[Any]], *, seed: int, jobs: int) -> list[Ranking]:
        """Default: loop over the grid. Relief overrides this to do one pass."""
        out = []
        keys = list(grid)
        for combo in itertools.product(*(grid[k] for k in keys)):
            params = {**fixed, **dict(zip(keys, combo))}
            out.append(self.rank_one(dataset, params, seed=seed, jobs=jobs))
        return out

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        raise NotImplementedError
