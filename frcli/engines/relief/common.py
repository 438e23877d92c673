"""What every engine of the Relief family shares: the compiled kernels, the feature kinds
the kernels understand, the per-column distance metadata, the target distances, the
``iterations`` rule and the imputation of missing feature values.

The family (``docs/design/relief.md``): ``relief`` (ReliefF, RReliefF and its MTR, MLC,
HMLC, SSL and unsupervised variants, every (iterations, neighbours, sigma) in one pass),
``ann`` (its approximate neighbour search), ``tune`` (SSL-Relief tuned by internal CV),
``reliefe`` (Relief on manifold embeddings) and ``multisurf`` (MultiSURF, MultiSURF*).
Each imports this module and none imports a sibling's private names; ``tune`` builds on
``relief``, and ``relief`` on ``ann``.

Distances follow CLUS (``docs/design/relief.md``, "Distances"): numeric |a - b| / range
(range 1 for a constant column), nominal 0/1, a nominal value missing 1 - 1/#values, a
numeric value missing on one side max(t, 1 - t) with t the known value's position in the
range, on both sides 1. The kernels implement the same conventions
(``ext/relief/_distance.pxd``).
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.scaling import exponents, scale
from frcli.errors import ConfigError

MLC_DISTANCES = ("hamming", "accuracy", "f1", "subset")
HMLC_DISTANCES = ("clus", "euclidean", "hamming", "accuracy", "f1", "subset")

ITERATIONS_RULE = "a fraction in (0, 1], -1 for all examples, or an integer count"


def kernel(name: str) -> ModuleType:
    """The compiled kernel ``frcli._ext.relief.<name>`` (``_relief``, ``_reliefe``,
    ``_multisurf``, ``_ssl_grid``; built from ``ext/relief/``), imported on first use, so
    that the rankers' parameter checks and help work without a build."""
    try:
        return importlib.import_module(f"frcli._ext.relief.{name}")
    except ImportError as e:  # pragma: no cover - build problem, not a user error
        raise ImportError(f"the kernel frcli._ext.relief.{name} is not built; run `make "
                          f"build` (or `FRCLI_EXT={name} make build`)") from e


def feature_kinds() -> Any:
    """The column kinds the kernels understand: ``FeatureKind`` of ``ext/relief/_distance.pxd``
    (``K_NUM``, ``K_NUM_MISS``, ``K_NOM``, ``K_NOM_MISS``), read from the compiled module so
    that they are defined once; like the kernels, loaded on first use."""
    return kernel("_distance").FeatureKind


@functools.cache
def _kind_codes() -> tuple[int, int, int, int]:
    """(K_NUM, K_NUM_MISS, K_NOM, K_NOM_MISS) as plain ints: an enum member lookup costs
    microseconds, and the tuner builds column metadata a dozen times per ranking."""
    FK = feature_kinds()
    return int(FK.K_NUM), int(FK.K_NUM_MISS), int(FK.K_NOM), int(FK.K_NOM_MISS)


@dataclass
class ColumnMeta:
    """Per-column distance metadata: kind code, min, range (1 if constant), nominal-missing d."""

    kind: np.ndarray
    mn: np.ndarray
    rg: np.ndarray
    nm: np.ndarray

    def has_missing(self) -> bool:
        """Whether some column has missing values (kind K_NUM_MISS or K_NOM_MISS)."""
        FK = feature_kinds()
        return bool(np.any((self.kind == FK.K_NUM_MISS) | (self.kind == FK.K_NOM_MISS)))


def column_meta(V: np.ndarray, nominal: np.ndarray, n_values: np.ndarray,
                rows: np.ndarray | None = None) -> ColumnMeta:
    """Distance metadata of the columns of V (n, F); min/max over known values of ``rows``."""
    V = np.asarray(V, dtype=np.float64)
    ref = V if rows is None else V[rows]
    miss = np.isnan(ref)
    any_known = ~miss.all(axis=0)
    has_miss = miss.any(axis=0) if rows is None else np.isnan(V).any(axis=0)
    # fmin/fmax reductions: what nanmin/nanmax compute, without their checks (no NaN left)
    mn = np.where(any_known, np.fmin.reduce(np.where(miss, np.inf, ref), axis=0), 0.0)
    mx = np.where(any_known, np.fmax.reduce(np.where(miss, -np.inf, ref), axis=0), 0.0)
    rg = mx - mn
    rg = np.where(rg > 0, rg, 1.0)   # constant (or all missing): range 1, so its distance is 0
    nominal = np.asarray(nominal, dtype=bool)
    nv = np.asarray(n_values, dtype=np.float64).copy()
    for i in np.flatnonzero(nominal & (nv < 1)):   # categories unknown: count codes
        col = V[:, i]
        nv[i] = (np.nanmax(col) + 1) if np.isfinite(col).any() else 1
    nm = np.where(nominal, 1.0 - 1.0 / np.maximum(nv, 1.0), 0.0)
    num, num_miss, nom, nom_miss = _kind_codes()
    kind = np.where(nominal, np.where(has_miss, nom_miss, nom),
                    np.where(has_miss, num_miss, num)).astype(np.int32)
    return ColumnMeta(kind, mn.astype(np.float64), rg.astype(np.float64), nm.astype(np.float64))


def column_distances(a: np.ndarray, b: np.ndarray, meta: ColumnMeta) -> np.ndarray:
    """Vectorised per-column distances between rows a and b (P, T) with the same conventions."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    K_NUM, K_NUM_MISS, K_NOM, K_NOM_MISS = _kind_codes()
    numeric = meta.kind == K_NUM
    if numeric.all() or ((numeric | (meta.kind == K_NUM_MISS)).all()
                         and not (np.isnan(a).any() or np.isnan(b).any())):
        return np.abs(a - b) / meta.rg      # numeric, no value of these pairs missing
    nom = (meta.kind == K_NOM) | (meta.kind == K_NOM_MISS)
    with np.errstate(invalid="ignore"):
        num = np.abs(a - b) / meta.rg
        ta = (a - meta.mn) / meta.rg
        tb = (b - meta.mn) / meta.rg
    ma, mb = np.isnan(a), np.isnan(b)
    one_a = np.maximum(tb, 1.0 - tb)         # a missing, b known
    one_b = np.maximum(ta, 1.0 - ta)
    d_num = np.where(ma & mb, 1.0, np.where(ma, one_a, np.where(mb, one_b, num)))
    d_nom = np.where(ma | mb, meta.nm, (a != b).astype(np.float64))
    return np.where(nom, d_nom, d_num)


def hmlc_weights(dataset: Dataset, w0: float, aggregate: str) -> np.ndarray:
    """CLUS: top level w0, w = w0 * sum(parents) (verified); thesis: top 1, mean of parents."""
    h = dataset.hierarchy
    if aggregate == "sum":
        return h.weights(w0, aggregate="sum", top="w0")
    return h.weights(w0, aggregate="mean", top="one")


def hmlc_bound(dataset: Dataset, weights: np.ndarray, rows: np.ndarray | None = None) -> float:
    """U: the largest weighted symmetric difference between the ancestor closures of two
    labels occurring in the data (each also paired with the empty set); 1 if that is 0.

    CLUS's bound, with which HMLC-Relief equals CLUS's (docs/design/relief.md, "Distances").
    O(L_occ^2 L) in blocks; fine for the benchmark hierarchies.
    """
    h = dataset.hierarchy
    L = h.n_labels
    Y = dataset.Y if rows is None else dataset.Y[rows]
    occ = np.flatnonzero(np.asarray(Y).any(axis=0))
    if occ.size == 0:
        return 1.0
    A = h.ancestors_closure(np.eye(L, dtype=np.uint8)[occ]).astype(np.float64)  # (O, L)
    Aw = A * weights
    sw = Aw.sum(axis=1)
    U = float(sw.max())
    step = max(1, 4_000_000 // max(1, occ.size))
    for s in range(0, occ.size, step):
        inter = Aw[s:s + step] @ A.T
        sd = sw[s:s + step, None] + sw[None, :] - 2.0 * inter
        U = max(U, float(sd.max()))
    return U if U > 0 else 1.0


class TargetDistance:
    """d_Y (and optional per-target distances) between rows, for every non-ReliefF variant."""

    def __init__(self, dataset: Dataset, distance: str | None, w0: float, aggregate: str,
                 per_target: bool, label_rows: np.ndarray):
        self.ds = dataset
        self.task = dataset.task
        self.per_target = per_target
        self.n_per = 0
        if self.task in ("mlc", "hmlc"):
            self.Y = np.ascontiguousarray(dataset.Y, dtype=np.uint8)
            self.n_per = self.Y.shape[1] if per_target else 0
            if self.task == "mlc":
                self.distance = distance or "f1"
                if self.distance not in MLC_DISTANCES:
                    raise ConfigError(f"bad value {distance!r} for parameter 'distance' "
                                      f"(mlc allows: {', '.join(MLC_DISTANCES)})")
                self.w = np.ones(self.Y.shape[1])
            else:
                self.distance = distance or "clus"
                if self.distance not in HMLC_DISTANCES:
                    raise ConfigError(f"bad value {distance!r} for parameter 'distance' "
                                      f"(hmlc allows: {', '.join(HMLC_DISTANCES)})")
                self.w = hmlc_weights(dataset, w0, aggregate)
                self.U = hmlc_bound(dataset, self.w, label_rows)
        elif self.task in ("regression", "mtr", "classification"):
            if distance not in (None, "", "default"):
                raise ConfigError(f"parameter 'distance' applies to mlc and hmlc only "
                                  f"(task is {self.task})")
            self.distance = "mean"
            Y = np.asarray(dataset.Y, dtype=np.float64)
            nominal = np.array([t.is_nominal for t in dataset.targets], dtype=bool)
            if nominal.size != Y.shape[1]:  # targets not described: numeric, or class codes
                nominal = np.full(Y.shape[1], self.task == "classification")
            e = exponents(Y, small=False)   # huge targets: exact rescaling, as the features
            e[nominal] = 0
            self.Y = Y = scale(Y, e)
            nv = np.array([len(t.categories) for t in dataset.targets] or [0] * Y.shape[1])
            self.meta = column_meta(Y, nominal, nv, label_rows)
            self.n_per = Y.shape[1] if per_target else 0
        else:
            raise ConfigError(f"no target distance for task {self.task!r}")

    def __call__(self, ra: np.ndarray, rb: np.ndarray,
                 jobs: int = 1) -> tuple[np.ndarray, np.ndarray | None]:
        """(d_Y (P,), per-target (P, T) or None) for row pairs (ra[p], rb[p])."""
        if self.distance == "mean":
            d = column_distances(self.Y[ra], self.Y[rb], self.meta)
            return d.mean(axis=1), (d if self.per_target else None)
        per = None
        if self.per_target:
            per = np.abs(self.Y[ra].astype(np.float64) - self.Y[rb])
        st = kernel("_relief").label_pair_stats(self.Y, self.w, np.ascontiguousarray(ra, np.int32),
                                         np.ascontiguousarray(rb, np.int32), jobs)
        inter, union, sa, sb, sym = st.T
        dist = self.distance
        if dist == "clus":
            return sym / self.U, per
        if dist == "euclidean":
            return np.sqrt(sym / self.U), per
        if dist == "hamming":
            return sym / self.w.sum(), per
        if dist == "subset":
            return (sym > 0).astype(np.float64), per
        with np.errstate(invalid="ignore", divide="ignore"):
            if dist == "accuracy":   # both sets empty: distance 0 (CLUS)
                return np.where(union > 0, 1.0 - inter / union, 0.0), per
            tot = sa + sb            # f1
            return np.where(tot > 0, 1.0 - 2.0 * inter / tot, 0.0), per


# -- parameters ---------------------------------------------------------------------------

def iterations_value(value: Any) -> float | int:
    """A valid ``iterations`` value (ITERATIONS_RULE): a fraction, -1, or an integer count
    (returned as an int); a ValueError otherwise."""
    v = float(value)
    if v == -1 or 0 < v <= 1 or (v > 1 and v.is_integer()):
        return int(v) if v > 1 else v
    raise ValueError(ITERATIONS_RULE)


def iteration_count(value: Any, n: int) -> int:
    """A fraction (0, 1] of n (round half up, as CLUS: 0.5 * 393 -> 197), -1 = all, or a count."""
    try:
        v = iterations_value(value)
    except (TypeError, ValueError):
        raise ConfigError(f"bad value {value!r} for parameter 'iterations' "
                          f"({ITERATIONS_RULE})") from None
    if v == -1 or v == 1:
        return n
    if 0 < v < 1:
        return min(n, max(1, int(np.floor(v * n + 0.5))))
    return min(n, int(v))


# -- missing values -----------------------------------------------------------------------

def impute(dataset: Dataset) -> tuple[np.ndarray, int]:
    """X with every missing value filled (``frcli.data.encode.imputed``: mean / most frequent
    category), and their count: what ReliefE and MultiSURF rank (Relief itself has distances
    for missing values).

    Numeric columns beyond 2**64 in magnitude (±1.7e308: a range or a mean overflows) come
    back scaled by an exact power of two (``frcli.data.scaling``), which leaves every
    range-normalised diff, and hence ReliefE's and MultiSURF's scores, bit-identical; mutual
    information is invariant to it."""
    from dataclasses import replace

    from frcli.data.encode import imputed

    e = exponents(dataset.X, small=False)
    e[dataset.nominal_mask] = 0
    return imputed(replace(dataset, X=scale(dataset.X, e)))
