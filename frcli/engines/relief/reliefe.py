"""ReliefE: Relief on manifold embeddings for multi-class and multi-label data
(Škrlj, Džeroski, Lavrač, Petković, Machine Learning 2021; docs/design/relief.md, "ReliefE").

Pipeline (one call of ``reliefe``):

1. Rows without targets are left out. Missing feature values are imputed (numeric: mean,
   nominal: most frequent category), as the reference implementation's loader does; the paper's
   data have none.
2. **Representative subset**: at most ``subset`` (ν = 2048) rows, taken round-robin over
   the groups of equal target value (the class, or the exact label set), groups in order of first
   appearance, rows in data order. It is used to estimate the dimension and to fit the embedding;
   every row is then transformed.
3. **Embedding input**: numeric features scaled by their range (shifted by the minimum, or by
   the feature's default value on sparse data so zeros stay zeros), nominal features one-hot
   with weight 1/√2 (two different categories are at Euclidean distance 1, like the ends of a
   numeric range).
4. **Dimension**: TwoNN (Facco 2017) on the subset: the two nearest neighbours at
   positive distance, μ = r2/r1, least squares through the origin of −log(1 − F(μ)) on log μ,
   rounded; clamped to [2, columns − 1] and below the subset size (the reference code's two
   clamps contradict each other; the paper uses the estimate). ``dimension=int``
   fixes it.
5. **PrMS**: when the subset's density exceeds ``sparsify`` (0.15), it is sparsified
   (Arora–Hazan–Kale; ε = the largest column mean of |A|, A = [[0, B], [Bᵀ, 0]]) before UMAP is
   fitted on it; the transform uses the rows as they are (as the reference code does).
6. **UMAP** (umap-learn, imported lazily): n_components = the dimension, random
   initialisation (R:128: the paper's memory fix), everything else umap-learn's defaults,
   ``random_state`` from the seed (umap-learn then runs single-threaded and is deterministic;
   its numba threads are not used). Rows are L2-normalised; neighbours are by cosine distance
   (the reference code's choice).
7. **Weights** over the original features: neighbours come from the embedding
   (or the raw space: ``embed=none``, the paper's "ReliefF-this"), feature differences from the
   original values, numeric |a − b| / range and nominal 1[a ≠ b]. Multi-class: ReliefF with
   priors, hits −1, misses P(c)/(1 − P(c_i)); ``update=absmean`` compares the instance with the
   mean of its neighbours, |x_i − mean x_n| / range (never larger than the standard update, by
   the triangle inequality; nominal features keep the standard difference, since a mean
   category does not exist — with one-hot coding both coincide). Multi-label: the k nearest of
   all rows, target distance t_n per neighbour, per iteration t = mean t_n (skipped unless
   0 < t < 1), d and td = mean t_n d_n, update td/t − (d − td)/(1 − t) (the RReliefF form
   of the thesis; ``mlc_update=paper|code`` give the printed and the reference
   code's forms). The sum
   is divided by the number of sampled instances.

Neighbours: ``neighbours=k`` (paper 15) or ``auto`` (the paper's "maximum gap": k = the
number of candidates before the largest jump of the sorted distances, per class for
multi-class). The reference code differs between versions: the PyPI release (0.18) uses
the same maximum gap but on a profile that contains the instance itself; an older version used
the maximum ratio of consecutive gaps (``neighbours=auto-ratio``). We follow the paper
on the profile of the candidates only.

Label space (multi-label): ``distance`` hamming|accuracy|f1|subset on the label sets (as the
Relief engine defines them), or cosine|hyperbolic on a UMAP embedding of the label space
(Euclidean output, or ``output_metric='hyperboloid'`` with the proper hyperboloid distance;
the reference code's arccosh(−<u, v>) is none). The embedded distances are rescaled into
[0, 1] for the update: cosine / 2 and hyperbolic / (2 max_i d(u_i, origin)) (a bound of
every pairwise distance, O(n), so t stays a fraction). ``embed`` names the spaces that are
embedded: input (default), none, labels, both.

Determinism: the sample is a seeded permutation; the kernels give the same result for any
``jobs`` (every feature is summed in sampling order); UMAP runs with a fixed random_state.
Memory: O(n·F) for the data, O(chunk·n) for neighbour profiles and O(chunk·F) for updates;
never an n × n matrix (the TwoNN and UMAP transform work in row blocks).
"""
from __future__ import annotations

import math
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from frcli.data.dataset import Dataset
from frcli.engines import progress
from frcli.engines.relief.common import (TargetDistance, column_meta, impute, iteration_count,
                                         kernel)
from frcli.engines.relief.thirdparty import umap_class
from frcli.errors import ConfigError, DataError

EMBEDS = ("input", "none", "labels", "both")
UPDATES = ("standard", "absmean")
LABEL_SET_DISTANCES = ("hamming", "accuracy", "f1", "subset")
LABEL_SPACE_DISTANCES = ("cosine", "hyperbolic")
DISTANCES = LABEL_SET_DISTANCES + LABEL_SPACE_DISTANCES
MLC_UPDATES = ("rrelieff", "paper", "code")
# the adaptive neighbour rules by parameter value: members of the kernel's NeighbourRule
# (ext/relief/_reliefe.pxd), looked up when the kernel is loaded
RULES = {"auto": "RULE_GAP", "auto-ratio": "RULE_RATIO"}
TASKS = ("classification", "mlc")
MIN_EMBED_ROWS = 8

_TAG_SAMPLE, _TAG_UMAP, _TAG_PRMS, _TAG_UMAP_Y, _TAG_PRMS_Y = 11, 12, 13, 14, 15


@dataclass
class ReliefEResult:
    """Importances for one value of ``iterations``."""

    iterations: Any
    n_iterations: int
    importances: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)


# -- pieces with their own tests ------------------------------------------------------------

def cyclic_subset(keys: np.ndarray, size: int) -> np.ndarray:
    """Indices of at most ``size`` rows taken round-robin over the groups of equal ``keys``
    (a 1-D array, or 2-D rows such as label sets), groups in order of first appearance, rows in
    data order, exhausted groups skipped. All rows when there are at most ``size``."""
    keys = np.asarray(keys)
    n = keys.shape[0]
    if n <= size:
        return np.arange(n)
    if keys.ndim == 1:
        _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    else:
        _, first, inv = np.unique(np.ascontiguousarray(keys).view(
            np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel(),
            return_index=True, return_inverse=True)
    inv = inv.ravel()
    order = np.argsort(np.argsort(first))          # group -> position by first appearance
    g = order[inv]
    # position of each row within its group (data order), then round r of row = that position
    by_group = np.argsort(g, kind="stable")
    counts = np.bincount(g)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    within = np.empty(n, dtype=np.int64)
    within[by_group] = np.arange(n) - np.repeat(starts, counts)
    # round-robin order: by round, then by group position
    pick = np.lexsort((g, within))[:size]
    return np.sort(pick)


def twonn(Z, block_cells: int = 4_000_000) -> tuple[float, int]:
    """TwoNN slope (Facco et al. 2017) of the rows of Z (dense or CSR) and the number of
    rows used. Zero distances (duplicates; squared distances within 1e-12 of the rows' squared
    norms) are skipped, so repeated rows never give μ = ∞ or NaN. Row blocks: O(block·n)."""
    import scipy.sparse as sp

    n = Z.shape[0]
    if n < 3:
        return float("nan"), 0
    issp = sp.issparse(Z)
    sq = np.asarray(Z.multiply(Z).sum(axis=1)).ravel() if issp else np.einsum("ij,ij->i", Z, Z)
    r = np.full((n, 2), np.inf)
    step = max(1, block_cells // n)
    ZT = Z.T.tocsr() if issp else Z.T
    for s in range(0, n, step):
        e = min(n, s + step)
        G = Z[s:e] @ ZT
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        base = sq[s:e, None] + sq[None, :]
        D2 = base - 2.0 * G
        D2[D2 <= 1e-12 * base] = np.inf            # self and duplicates
        if n >= 3:
            part = np.partition(D2, 1, axis=1)[:, :2]
            part.sort(axis=1)
            r[s:e] = part
    ok = np.isfinite(r[:, 1])
    r1, r2 = np.sqrt(r[ok, 0]), np.sqrt(r[ok, 1])
    mu = np.sort(r2 / r1)
    N = mu.size
    if N < 3:
        return float("nan"), int(N)
    emp = np.arange(1, N + 1) / N
    x = np.log(mu[:-1])
    y = -np.log(1.0 - emp[:-1])
    sxx = float(x @ x)
    return (float(x @ y) / sxx if sxx > 0 else float("nan")), int(N)


def prms(B, rng: np.random.Generator):
    """Probabilistic matrix sparsification (Arora, Hazan, Kale 2006) of B (m, n), dense
    or CSR: entries with |a| > ε/√N are kept; the others become sign(a)·ε/√N with probability
    √N|a|/ε and 0 otherwise (unbiased), where N = m + n and ε = the largest column mean of
    |A| for A = [[0, B], [Bᵀ, 0]]. Returns (the sparsified matrix, threshold ε/√N)."""
    import scipy.sparse as sp

    m, n = B.shape
    N = m + n
    if sp.issparse(B):
        B = B.tocsr(copy=True)
        B.sort_indices()
        a = np.abs(B)
        rows = np.asarray(a.sum(axis=1)).ravel()
        cols = np.asarray(a.sum(axis=0)).ravel()
        vals = B.data
    else:
        B = np.array(B, dtype=np.float64, copy=True)
        a = np.abs(B)
        rows, cols = a.sum(axis=1), a.sum(axis=0)
        vals = B.reshape(-1)
    eps = max(float(rows.max(initial=0.0)), float(cols.max(initial=0.0))) / N
    thr = eps / math.sqrt(N)
    if thr <= 0:
        return B, thr
    small = (vals != 0) & (np.abs(vals) <= thr)
    idx = np.flatnonzero(small)
    u = rng.random(idx.size)
    keep = u < np.abs(vals[idx]) / thr
    vals[idx] = np.where(keep, np.sign(vals[idx]) * thr, 0.0)
    if sp.issparse(B):
        B.eliminate_zeros()
    return B, thr


def adaptive_k(sorted_distances: np.ndarray, rule: str = "auto") -> int:
    """k of one sorted distance profile (the kernel's rule; see ``ext/relief/_reliefe.pyx``)."""
    d = np.ascontiguousarray(sorted_distances, dtype=np.float64)
    K = kernel("_reliefe")
    return int(K.adaptive_k(d, K.NeighbourRule[RULES[rule]]))


# -- the engine -----------------------------------------------------------------------------

def _embedding_input(X: np.ndarray, nominal: np.ndarray, n_cat: np.ndarray, mn: np.ndarray,
                     rg: np.ndarray, zval: np.ndarray | None):
    """Rows for TwoNN/UMAP: numeric (x - shift)/range, nominal one-hot / √2 (CSR when the data
    are sparse, i.e. ``zval`` is given)."""
    import scipy.sparse as sp

    num = np.flatnonzero(~nominal)
    shift = (zval if zval is not None else mn)[num]
    if zval is not None:
        Zn = sp.csr_matrix((X[:, num] - shift) / rg[num])
    else:
        Zn = (X[:, num] - shift) / rg[num]
    parts = [Zn]
    for f in np.flatnonzero(nominal):
        codes = X[:, f].astype(np.int64)
        k = max(int(n_cat[f]), int(codes.max(initial=0)) + 1, 1)
        oh = np.zeros((X.shape[0], k))
        oh[np.arange(X.shape[0]), codes] = 1.0 / math.sqrt(2.0)
        parts.append(sp.csr_matrix(oh) if zval is not None else oh)
    if len(parts) == 1:
        return parts[0]
    return sp.hstack(parts, format="csr") if zval is not None else np.hstack(parts)


def _dimension(Zfit, dimension, n_fit: int) -> tuple[int, float]:
    cols = Zfit.shape[1]
    hi = max(1, min(cols - 1 if cols > 2 else cols, n_fit - 2))
    if dimension != "auto":
        return max(1, min(int(dimension), cols, max(1, n_fit - 2))), float("nan")
    slope, _ = twonn(Zfit)
    est = int(round(slope)) if np.isfinite(slope) else hi
    return max(min(2, hi), min(est, hi)), slope


def _fit_umap(Zfit, Zall, d: int, seed: int, output_metric: str = "euclidean",
              block: int = 4096) -> np.ndarray:
    """UMAP fitted on Zfit, then every row of Zall transformed (blocks of ``block`` rows:
    O(block·ν) memory); returns float64 (n, d)."""
    UMAP = umap_class()
    n_fit = Zfit.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # n_jobs/random_state notes, disconnected points
        model = UMAP(n_components=d, n_neighbors=max(2, min(15, n_fit - 1)), init="random",
                     random_state=seed, n_jobs=1, output_metric=output_metric)
        model.fit(Zfit)
        if Zall is None:
            return np.asarray(model.embedding_, dtype=np.float64)
        out = [np.asarray(model.transform(Zall[s:s + block]), dtype=np.float64)
               for s in range(0, Zall.shape[0], block)]
    return np.vstack(out)


def _density(Z) -> float:
    import scipy.sparse as sp

    if sp.issparse(Z):
        return Z.nnz / max(1, Z.shape[0] * Z.shape[1])
    return float(np.count_nonzero(Z)) / max(1, Z.size)


def _derived_seed(seed: int, tag: int) -> int:
    return int(np.random.default_rng([int(seed) & (2**63 - 1), tag]).integers(2**31 - 1))


def _embed(Z, fit_rows: np.ndarray, dimension, sparsify: float, seed: int, tags,
           output_metric: str = "euclidean") -> tuple[np.ndarray, dict[str, Any]]:
    """The embedding of every row of Z fitted on ``fit_rows``; meta for the report."""
    t0 = time.perf_counter()
    Zfit = Z[fit_rows]
    n_fit = Zfit.shape[0]
    if n_fit < MIN_EMBED_ROWS:
        raise DataError(f"an embedding needs at least {MIN_EMBED_ROWS} examples, got {n_fit}; "
                        "use embed=none")
    d, slope = _dimension(Zfit, dimension, n_fit)
    t1 = time.perf_counter()
    dens = _density(Zfit)
    info: dict[str, Any] = {"dimension": d, "twonn_slope": slope, "subset_rows": int(n_fit),
                            "subset_density": dens, "dimension_s": t1 - t0}
    same = n_fit == Z.shape[0]
    if dens > sparsify:
        Zfit, thr = prms(Zfit, np.random.default_rng([int(seed) & (2**63 - 1), tags[1]]))
        info.update(prms=True, prms_threshold=thr, prms_density=_density(Zfit))
        same = False
    else:
        info["prms"] = False
    t2 = time.perf_counter()
    E = _fit_umap(Zfit, None if same else Z, d, _derived_seed(seed, tags[0]), output_metric)
    info.update(prms_s=t2 - t1, umap_s=time.perf_counter() - t2)
    return E, info


def reliefe(dataset: Dataset, iterations: Sequence[float] = (1.0,), *, embed: str = "input",
            update: str = "standard", neighbours: int | str = 15, distance: str | None = None,
            dimension: int | str = "auto", subset: int = 2048, sparsify: float = 0.15,
            mlc_update: str = "rrelieff", sparse: str = "auto", seed: int = 0,
            jobs: int = 1) -> list[ReliefEResult]:
    """ReliefE importances for every value of ``iterations`` (one pass; see the module
    docstring for the parameters)."""
    task = dataset.task
    if task not in TASKS:
        raise ConfigError(f"ReliefE supports classification and mlc, not {task}")
    for name, value, allowed in (("embed", embed, EMBEDS), ("update", update, UPDATES),
                                 ("mlc_update", mlc_update, MLC_UPDATES),
                                 ("sparse", sparse, ("auto", "yes", "no"))):
        if value not in allowed:
            raise ConfigError(f"bad value {value!r} for parameter '{name}' "
                              f"(allowed: {', '.join(allowed)})")
    embed_x = embed in ("input", "both")
    embed_y = embed in ("labels", "both")
    if task == "classification" and embed_y:
        raise ConfigError("embed=labels/both embeds a multi-label target space; "
                          "classification allows embed=input or none")
    if task == "mlc":
        distance = distance or ("cosine" if embed_y else "hamming")
        if distance not in DISTANCES:
            raise ConfigError(f"bad value {distance!r} for parameter 'distance' "
                              f"(mlc allows: {', '.join(DISTANCES)})")
        if embed_y != (distance in LABEL_SPACE_DISTANCES):
            raise ConfigError(f"distance {distance} works on "
                              f"{'an embedded' if distance in LABEL_SPACE_DISTANCES else 'the raw'}"
                              f" label space: use embed="
                              f"{'labels or both' if not embed_y else 'input or none'}")
    elif distance not in (None, "", "default"):
        raise ConfigError("parameter 'distance' applies to mlc only")
    if isinstance(neighbours, str):
        if neighbours not in RULES:
            raise ConfigError(f"bad value {neighbours!r} for parameter 'neighbours' "
                              "(an integer >= 1, auto or auto-ratio)")
        rule, k = RULES[neighbours], 0
    else:
        rule, k = "RULE_FIXED", int(neighbours)
        if k < 1:
            raise ConfigError("parameter 'neighbours' must be >= 1")
    if not 0 < sparsify <= 1:
        raise ConfigError("parameter 'sparsify' must be in (0, 1]")
    if subset < MIN_EMBED_ROWS:
        raise ConfigError(f"parameter 'subset' must be >= {MIN_EMBED_ROWS}")
    jobs = (os.cpu_count() or 1) if jobs is None or jobs <= 0 else int(jobs)

    timings: dict[str, float] = {}
    t_start = time.perf_counter()
    ds = dataset
    lab = np.asarray(ds.labeled, dtype=bool)
    if task == "classification":
        lab = lab & ~np.isnan(ds.Y[:, 0])
    if not lab.all():
        warnings.warn(f"{ds.name}: ReliefE ignores the {int((~lab).sum())} of {ds.n_examples} "
                      "rows without known targets", stacklevel=2)
        ds = ds.subset(lab)
    n, F = ds.X.shape
    if n < 2:
        raise DataError(f"{dataset.name}: ReliefE needs at least 2 examples with targets")
    if F == 0:
        raise ConfigError("the data set has no descriptive features")
    X, n_imputed = impute(ds)
    nominal = ds.nominal_mask
    fm = column_meta(X, nominal, ds.n_categories)
    nom32 = nominal.astype(np.int32)
    rg = np.ascontiguousarray(fm.rg)
    Xc = np.ascontiguousarray(X.T)
    RK = kernel("_relief")
    layout = None
    if sparse != "no":
        lay = RK.sparse_columns(Xc, 1.0 if sparse == "yes" else 0.12)
        if lay[0] is not None:
            layout = lay[:-1]
    meta: dict[str, Any] = {"variant": "reliefe", "embed": embed, "update": update,
                            "neighbours": neighbours, "n_examples": n,
                            "sparse": layout is not None, "imputed_values": n_imputed}
    if n_imputed:
        warnings.warn(f"{ds.name}: ReliefE imputed {n_imputed} missing feature values "
                      "(mean / most frequent category)", stacklevel=2)
    timings["prepare_s"] = time.perf_counter() - t_start

    # -- groups (candidate sets) and the representative subset ----------------------------
    if task == "classification":
        codes = ds.Y[:, 0].astype(np.int64)
        G = max(len(ds.targets[0].categories) if ds.targets else 0, int(codes.max()) + 1)
        group = codes.astype(np.int32)
        keys: np.ndarray = codes
        prior = np.bincount(codes, minlength=G) / n
    else:
        G = 1
        group = np.zeros(n, dtype=np.int32)
        keys = np.ascontiguousarray(ds.Y, dtype=np.uint8)
        prior = None
    fit_rows = cyclic_subset(keys, int(subset)) if (embed_x or embed_y) else None

    # -- embeddings -----------------------------------------------------------------------
    E = None
    if embed_x:
        t0 = time.perf_counter()
        zval = layout[3] if layout is not None else None
        Z = _embedding_input(X, nominal, ds.n_categories, fm.mn, rg, zval)
        E, info = _embed(Z, fit_rows, dimension, sparsify, seed, (_TAG_UMAP, _TAG_PRMS))
        del Z
        E = _normalise(E)
        meta["input_embedding"] = info
        timings["embed_s"] = time.perf_counter() - t0
    LE = None
    if embed_y:
        t0 = time.perf_counter()
        Yl = np.asarray(ds.Y, dtype=np.float64)
        LE, info = _embed(Yl, fit_rows, "auto", sparsify, seed, (_TAG_UMAP_Y, _TAG_PRMS_Y),
                          output_metric="hyperboloid" if distance == "hyperbolic"
                          else "euclidean")
        meta["label_embedding"] = info
        timings["embed_labels_s"] = time.perf_counter() - t0

    # -- iterations and the sample ----------------------------------------------------------
    iterations = list(iterations) if isinstance(iterations, (list, tuple)) else [iterations]
    counts = [iteration_count(v, n) for v in iterations]
    m = max(counts)
    snaps_at = np.array(sorted(set(counts)), dtype=np.int32)
    perm = np.random.default_rng([int(seed) & (2**63 - 1), _TAG_SAMPLE]).permutation(n)
    rows = np.ascontiguousarray(perm[:m], dtype=np.int32)

    # -- neighbour search + update, chunk by chunk ------------------------------------------
    K = kernel("_reliefe")
    rule = K.NeighbourRule[rule]
    t0 = time.perf_counter()
    if E is not None:
        space, space_args = K.Space.SP_EMBED, {"embed": np.ascontiguousarray(E.T)}
    elif layout is not None:
        space, space_args = K.Space.SP_SPARSE, {"sparse": _sparse_profile_layout(layout, nom32, rg)}
    else:
        space, space_args = K.Space.SP_DENSE, {"dense": (Xc, nom32, rg)}
    if layout is not None:
        upd = {"sparse": (nom32, rg, layout[3], layout[4], layout[5], layout[6])}
    else:
        upd = {"dense": (np.ascontiguousarray(X), nom32, rg)}
    td = None
    if task == "mlc":
        if distance in LABEL_SET_DISTANCES:
            td = TargetDistance(ds, distance, 0.75, "sum", False, np.arange(n))
        label_scale = _label_scale(LE, distance) if LE is not None else 1.0
    prog = progress.slots(m, "ReliefE instances")
    total = np.zeros(F)
    snaps = np.zeros((len(snaps_at), F))
    chunk = max(16, min(256, (1 << 22) // max(1, n)))
    skipped = 0
    k_used = 0
    for s0 in range(0, m, chunk):
        q = rows[s0:s0 + chunk]
        if rule == K.NeighbourRule.RULE_FIXED and E is None:   # raw, fixed k: Relief's search
            nb3, _, cnt = RK.search(Xc, fm.kind, fm.mn, fm.rg, fm.nm, q, group, G, k, jobs,
                                    layout, progress=prog)
            nbr = _compact(nb3.reshape(len(q), -1))
        else:
            nbr, cnt, _ = K.profile_search(space, q, group, G, k, rule, jobs, progress=prog,
                                           **space_args)
        k_used += int(cnt.sum())
        if task == "classification":
            yq = group[q]
            with np.errstate(divide="ignore", invalid="ignore"):
                coef = np.where(np.arange(G)[None, :] == yq[:, None], -1.0,
                                prior[None, :] / (1.0 - prior[yq])[:, None])
            coef = np.ascontiguousarray(np.nan_to_num(coef, nan=0.0, posinf=0.0))
            tdist = np.zeros((0, 0))
        else:
            coef = np.zeros((len(q), 1))
            tdist = _target_distances(q, nbr, cnt[:, 0], td, LE, distance, label_scale, jobs)
        skipped += K.update(q, nbr, cnt, coef, tdist, total, snaps_at, snaps, s0,
                            int(task == "mlc"), int(update == "absmean"),
                            MLC_UPDATES.index(mlc_update), jobs, **upd)
    timings["weights_s"] = time.perf_counter() - t0
    meta.update(mean_neighbours=k_used / max(1, m * (G if task == "classification" else 1)),
                skipped_iterations=skipped, seed=seed)
    if task == "mlc":
        meta["distance"] = distance
        meta["mlc_update"] = mlc_update
    meta["timings"] = timings
    out = []
    for v, c in zip(iterations, counts):
        s = int(np.searchsorted(snaps_at, c))
        out.append(ReliefEResult(v, c, snaps[s] / c, dict(meta)))
    return out


def _normalise(E: np.ndarray) -> np.ndarray:
    nrm = np.linalg.norm(E, axis=1)
    nrm[nrm == 0] = 1.0
    return E / nrm[:, None]


def _compact(nbr: np.ndarray) -> np.ndarray:
    """Move each row's valid neighbours (>= 0) to the front, keeping their order (the Relief
    search pads each group's slots with -1; ``update`` wants them contiguous)."""
    order = np.argsort(nbr < 0, axis=1, kind="stable")
    return np.ascontiguousarray(np.take_along_axis(nbr, order, axis=1))


def _sparse_profile_layout(layout, nom32: np.ndarray, rg: np.ndarray):
    """The raw sparse space for ``profile_search``: T_j = sum of d(z_f, x_jf) over row j's
    listed entries and cz = d(z_f, x) per listed entry."""
    cptr, crow, cval, zval, rptr, rfeat, rval = layout
    F = len(zval)
    fcol = np.repeat(np.arange(F), np.diff(cptr))
    nomc = nom32[fcol].astype(bool)
    cz = np.where(nomc, (cval != zval[fcol]).astype(np.float64),
                  np.abs(cval - zval[fcol]) / rg[fcol])
    n = len(rptr) - 1
    T = np.bincount(crow, weights=cz, minlength=n).astype(np.float64)
    return (nom32, rg, cptr, crow, cval, zval, T, np.ascontiguousarray(cz), rptr, rfeat, rval)


def _label_scale(LE: np.ndarray, distance: str) -> float:
    """Divisor that puts embedded label distances into [0, 1]: the update needs t in (0, 1)."""
    if distance == "cosine":
        return 2.0
    r0 = np.arccosh(np.sqrt(1.0 + np.einsum("ij,ij->i", LE, LE)))
    b = 2.0 * float(r0.max(initial=0.0))
    return b if b > 0 else 1.0


def label_space_distance(U: np.ndarray, V: np.ndarray, distance: str) -> np.ndarray:
    """Cosine distance of Euclidean label embeddings, or the hyperboloid distance
    arccosh(√(1+|u|²)√(1+|v|²) − <u, v>), row by row."""
    dot = np.einsum("ij,ij->i", U, V)
    nu = np.einsum("ij,ij->i", U, U)
    nv = np.einsum("ij,ij->i", V, V)
    if distance == "cosine":
        den = np.sqrt(nu * nv)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, 1.0 - dot / den, 1.0)
    return np.arccosh(np.maximum(np.sqrt((1.0 + nu) * (1.0 + nv)) - dot, 1.0))


def _target_distances(q, nbr, cnt, td, LE, distance, scale, jobs) -> np.ndarray:
    """(Q, L) target distances of each query to each of its neighbours."""
    out = np.zeros(nbr.shape)
    mask = np.arange(nbr.shape[1])[None, :] < cnt[:, None]
    qa = np.broadcast_to(q[:, None], nbr.shape)[mask]
    qb = nbr[mask]
    if qa.size == 0:
        return out
    if td is not None:
        d, _ = td(qa, qb, jobs)
    else:
        d = label_space_distance(LE[qa], LE[qb], distance) / scale
    out[mask] = d
    return np.ascontiguousarray(out)
