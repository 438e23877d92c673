"""The case study's models with the thesis's settings (8a §RF and §XGB parameters; spec
§B6-B7), their per-target Genie3 rankings, and their single-core learning times.

* ``g-rf``: one random forest of PCTs for all targets (targets standardised, §G-M7), per-target
  Genie3 by evaluating the heuristic on one target at a time (§G-M8);
* ``l-rf``: one random forest per target (Genie3 of each);
* ``boost``: gradient boosting per target. 8a used XGBoost; this uses scikit-learn's histogram
  gradient boosting (already a dependency) with 8a's settings where it has them: learning rate
  0.1, depth 11, 200 rounds, early stopping after 5 rounds without improvement on the last 10 %
  of the training period (§G-M9), 60 % of the features per split, L2 penalty 1 (XGBoost's
  default). Differences: no 60 % example subsampling per round (it has none), features
  sampled per split rather than per tree, 255-bin histograms, at least 20 rows per leaf
  (XGBoost's default min_child_weight 1 allows one; with one the trees of depth 11 cost
  about 14 times more here). Its ranking is the total split gain per feature (the analogue of
  XGBoost's total gain, §G-M4).

RF settings: ``trees`` 200, f = 0.25·|F| per node, minimum leaf 500/Δt (500 at Δt = 1).
Learning times are CPU seconds of this process (one thread: ``jobs=1`` and one BLAS/OpenMP
thread), so they do not depend on the machine's load. ``fraction`` α < 1 grows α of every
ensemble and estimates the full time as t_α/α (8a §Evaluation); such a model is timed, not
evaluated.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from frcli.data.dataset import Attribute, Dataset
from frcli.errors import ConfigError

MODELS = ("g-rf", "l-rf", "boost", "g-pct", "l-pct")
RF_MODELS = ("g-rf", "l-rf")


@dataclass(frozen=True)
class ModelSpec:
    """One model's settings (the thesis's by default)."""

    name: str
    trees: int = 200
    max_features: float = 0.25
    min_leaf: float | None = None          # None: 500/Δt, 500 at Δt = 1
    learning_rate: float = 0.1
    max_depth: int = 11
    patience: int = 5
    validation: float = 0.1
    fraction: float = 1.0

    def __post_init__(self):
        if self.name not in MODELS:
            from frcli.errors import choices_error

            raise choices_error("model", self.name, MODELS)
        if self.trees < 1:
            raise ConfigError(f"bad value {self.trees!r} for 'trees' (>= 1)")
        if not 0.0 < self.fraction <= 1.0:
            raise ConfigError(f"bad value {self.fraction!r} for 'fraction' (in (0, 1])")
        if not 0.0 < self.max_features <= 1.0:
            raise ConfigError(f"bad value {self.max_features!r} for 'max_features' (in (0, 1])")

    def leaf(self, dt: int) -> float:
        return float(self.min_leaf) if self.min_leaf is not None else 500.0 / max(int(dt), 1)

    @property
    def is_local(self) -> bool:
        return self.name in ("l-rf", "boost", "l-pct")


def spec_from(name: str, params: dict[str, Any] | None = None) -> ModelSpec:
    params = dict(params or {})
    known = set(ModelSpec.__dataclass_fields__) - {"name"}
    bad = sorted(set(params) - known)
    if bad:
        raise ConfigError(f"unknown parameter {bad[0]!r} for model {name}; allowed: "
                          f"{', '.join(sorted(known))}")
    try:
        return ModelSpec(name, **params)
    except TypeError as e:
        raise ConfigError(f"model {name}: {e}") from None


@dataclass
class Fitted:
    """A fitted model: ``predict``, per-target importances (T, F) and times."""

    spec: ModelSpec
    feature_names: list[str]
    target_names: list[str]
    importances: np.ndarray              # (T, F) per-target Genie3 (boost: total gain)
    overall: np.ndarray                  # (F,) the global ranking (G-RF: its own; else mean)
    seconds: float                       # CPU seconds of what was grown
    seconds_per_target: list[float] = field(default_factory=list)
    grown: int = 0                       # trees (RF) or rounds (boost) actually grown
    models: list[Any] = field(default_factory=list)

    @property
    def estimated_seconds(self) -> float:
        """The full model's time: measured when complete, t_α/α for a fraction α."""
        return self.seconds / self.spec.fraction

    @property
    def complete(self) -> bool:
        return self.spec.fraction >= 1.0

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=np.float64)
        T = len(self.target_names)
        if self.spec.name in ("g-rf", "g-pct"):
            return self.models[0].predict_targets(X)
        out = np.empty((X.shape[0], T))
        for j, m in enumerate(self.models):
            out[:, j] = _predict_one(m, X)
        return out


def _predict_one(m, X: np.ndarray) -> np.ndarray:
    if isinstance(m, float):                      # a target with no known value: its mean
        return np.full(X.shape[0], m)
    if hasattr(m, "predict_targets"):
        return m.predict_targets(X)[:, 0]
    return m.predict(X)


def _cpu() -> float:
    return time.process_time()


def _one_thread():
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def _target_view(ds: Dataset, j: int) -> tuple[Dataset, np.ndarray]:
    """Target j alone, on the rows where it is known."""
    y = ds.Y[:, j]
    rows = np.isfinite(y)
    sub = Dataset(f"{ds.name}:{ds.target_names[j]}", ds.X[rows], ds.features, "regression",
                  Y=y[rows, None], targets=[ds.targets[j]])
    return sub, rows


def fit(ds: Dataset, spec: ModelSpec, dt: int, *, seed: int = 0,
        valid: np.ndarray | None = None) -> Fitted:
    """Fit ``spec`` on ``ds`` (rows in time order; ``valid``: boosting's early-stopping rows,
    default the last ``spec.validation`` of them)."""
    with _one_thread():
        if spec.name in ("g-rf", "g-pct"):
            f = _fit_global(ds, spec, dt, seed)
        elif spec.name in ("l-rf", "l-pct"):
            f = _fit_local_rf(ds, spec, dt, seed)
        else:
            f = _fit_boost(ds, spec, seed, valid)
    f.importances[constant_targets(ds)] = 0.0      # rounding noise, not a ranking
    f.overall = f.overall if spec.name in ("g-rf", "g-pct") else _mean_share(f.importances)
    return f


def _forest(spec: ModelSpec, dt: int, seed: int, trees: int):
    from frcli.engines.pct.model import PCTForest

    if spec.name in ("g-pct", "l-pct"):         # 8b's single trees: all features, no bag
        return PCTForest("bagging", trees=1, max_features="all", min_leaf=spec.leaf(dt),
                         bootstrap=False, seed=seed, jobs=1)
    return PCTForest("rf", trees=trees, max_features=float(spec.max_features),
                     min_leaf=spec.leaf(dt), seed=seed, jobs=1)


def _grown(spec: ModelSpec) -> int:
    return max(1, int(math.ceil(spec.trees * spec.fraction)))


def constant_targets(ds: Dataset) -> np.ndarray:
    """Targets that do not vary in ``ds`` (up to rounding): a per-target model of them is a
    constant model, and the global forest's per-target heuristic only sees rounding noise."""
    Y = ds.Y.astype(np.float64)
    with np.errstate(invalid="ignore"):
        lo, hi = np.nanmin(Y, axis=0), np.nanmax(Y, axis=0)
    scale = np.maximum(1.0, np.abs(np.nan_to_num(hi)))
    return ~(np.nan_to_num(hi - lo, nan=0.0) > 1e-12 * scale)


def _fit_global(ds: Dataset, spec: ModelSpec, dt: int, seed: int) -> Fitted:
    model = _forest(spec, dt, seed, _grown(spec))
    t0 = _cpu()
    model.fit(ds, per_target=True)
    sec = _cpu() - t0
    sc = model.scores()
    per = np.asarray(sc.get("genie3_per_target", np.zeros((ds.n_targets, ds.n_features))))
    per = np.maximum(per, 0.0)
    return Fitted(spec, [a.name for a in ds.features], list(ds.target_names), per,
                  np.asarray(sc["genie3"]), sec, [], len(model.trees_), [model])


def _fit_local_rf(ds: Dataset, spec: ModelSpec, dt: int, seed: int) -> Fitted:
    T, F = ds.n_targets, ds.n_features
    imp = np.zeros((T, F))
    models: list[Any] = []
    secs = []
    for j in range(T):
        sub, rows = _target_view(ds, j)
        if sub.n_examples == 0:
            models.append(0.0)
            secs.append(0.0)
            continue
        m = _forest(spec, dt, seed + j, _grown(spec))
        t0 = _cpu()
        m.fit(sub)
        secs.append(_cpu() - t0)
        imp[j] = m.scores()["genie3"]
        models.append(m)
    return Fitted(spec, [a.name for a in ds.features], list(ds.target_names), imp,
                  _mean_share(imp), float(sum(secs)), secs, _grown(spec), models)


def _mean_share(imp: np.ndarray) -> np.ndarray:
    """The overall ranking of per-target models: the mean of each target's normalised scores
    (constant targets, with no scores, count for nothing)."""
    tot = imp.sum(axis=1, keepdims=True)
    share = np.divide(imp, tot, out=np.zeros_like(imp), where=tot > 0)
    return share.mean(axis=0)


def boost_gain(est, n_features: int) -> np.ndarray:
    """Total split gain per feature of a fitted HistGradientBoostingRegressor (scikit-learn
    keeps its trees as node arrays with ``feature_idx``, ``gain`` and ``is_leaf``)."""
    out = np.zeros(n_features)
    try:
        predictors = est._predictors
        for it in predictors:
            for p in it:
                nodes = p.nodes
                inner = ~nodes["is_leaf"].astype(bool)
                np.add.at(out, nodes["feature_idx"][inner].astype(np.intp),
                          nodes["gain"][inner])
    except (AttributeError, KeyError, ValueError) as e:   # pragma: no cover - another layout
        raise RuntimeError("this scikit-learn keeps its boosting trees differently; the "
                           "boosting ranking cannot be read") from e
    return np.maximum(out, 0.0)


def _fit_boost(ds: Dataset, spec: ModelSpec, seed: int, valid: np.ndarray | None) -> Fitted:
    from sklearn.ensemble import HistGradientBoostingRegressor

    T, F = ds.n_targets, ds.n_features
    n = ds.n_examples
    if valid is None:
        valid = np.zeros(n, bool)
        valid[n - max(1, int(round(spec.validation * n))):] = True
    imp = np.zeros((T, F))
    models: list[Any] = []
    secs = []
    rounds = _grown(spec)
    for j in range(T):
        y = ds.Y[:, j]
        known = np.isfinite(y)
        tr, va = known & ~valid, known & valid
        if tr.sum() == 0:
            models.append(float(np.nanmean(y)) if known.any() else 0.0)
            secs.append(0.0)
            continue
        stop = spec.fraction >= 1.0 and va.sum() > 0
        est = HistGradientBoostingRegressor(
            learning_rate=spec.learning_rate, max_iter=rounds, max_depth=spec.max_depth,
            max_leaf_nodes=None, min_samples_leaf=20, l2_regularization=1.0, max_features=0.6,
            early_stopping=stop, n_iter_no_change=spec.patience, tol=0.0,
            scoring="loss", random_state=seed + j)
        t0 = _cpu()
        if stop:
            est.fit(ds.X[tr], y[tr], X_val=ds.X[va], y_val=y[va])
        else:
            est.fit(ds.X[tr], y[tr])
        secs.append(_cpu() - t0)
        imp[j] = boost_gain(est, F)
        models.append(est)
    return Fitted(spec, [a.name for a in ds.features], list(ds.target_names), imp,
                  _mean_share(imp), float(sum(secs)), secs, rounds, models)


def with_fraction(spec: ModelSpec, fraction: float) -> ModelSpec:
    return replace(spec, fraction=float(fraction))


def subset_targets(ds: Dataset, names: list[str]) -> Dataset:
    idx = [ds.target_names.index(n) for n in names]
    return Dataset(ds.name, ds.X, ds.features, "mtr", Y=ds.Y[:, idx],
                   targets=[Attribute(n, "numeric") for n in names])
