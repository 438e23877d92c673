"""The Relief family on a ``Dataset``: one pass computes every (iterations, k, sigma).

Variants (docs/design/relief.md), chosen from the task:

* classification, every class known -> ReliefF (hits, misses per class weighted by priors);
* regression / mtr (numeric and/or nominal targets: CLUS "mixed"), mlc, hmlc -> the RReliefF
  estimator with a task-specific target distance d_Y;
* some rows unlabeled (``labeled`` False) and ``dataset.semi_supervised`` -> SSL-Relief
  (influence weights, d_Y between labeled pairs and d_X otherwise, normalised by the
  pair-weight sum); without ``semi_supervised`` they are left out (``unlabeled="ignore"``,
  CLUS's behaviour for an unknown class), with a warning;
* unsupervised -> URelief (d_Y := d_X).

How the grid costs one run: sampled instances are a seeded permutation
prefix; the Cython ``search`` finds the K_max nearest neighbours once per instance; the
Cython ``accumulate`` sums, per feature, w*d_i and w*d_i*d_Y separately for every neighbour
*rank* l (and per "bucket" = number of neighbours available, normally just K_max), with a
snapshot after every iteration count of the grid. The per-iteration neighbour weights
exp(-(sigma (l-1))^2) / Z_K depend only on l and K, so every (K, sigma) is a weighted sum
of those per-rank totals, computed afterwards in O(K_max F) per combination.

Mostly-default data (bibtex, delicious: a few % of the values differ from the feature's
usual value) gets an O(nnz) neighbour search; dense data a vectorised streaming one. Both
find exactly the neighbours of the plain definition (see ``ext/relief/_relief.pyx``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.scaling import exponents, scale
from frcli.engines import progress
from frcli.engines.relief import ann
from frcli.engines.relief.common import (ColumnMeta, TargetDistance, column_distances,
                                         column_meta, iteration_count, kernel)
from frcli.errors import ConfigError, DataError, option

@dataclass
class ReliefResult:
    """Importances of one (iterations, neighbours, sigma) combination."""

    iterations: Any          # the value asked for (fraction or count)
    n_iterations: int        # instances actually visited
    neighbours: int
    sigma: float
    importances: np.ndarray
    per_target: np.ndarray | None = None
    meta: dict[str, Any] = field(default_factory=dict)


# -- parameters ---------------------------------------------------------------------------

def neighbour_weights(k: int, sigma: float, avail: int) -> np.ndarray:
    """Weights of ranks 1..k: exp(-(sigma (l-1))^2) over the first min(k, avail), summing to 1."""
    kk = min(k, avail)
    w = np.zeros(k)
    if kk > 0:
        e = np.exp(-(sigma * np.arange(kk)) ** 2)
        w[:kk] = e / e.sum()
    return w


# -- the engine ---------------------------------------------------------------------------

def relief(dataset: Dataset, iterations: Sequence[float] = (1.0,),
           neighbours: Sequence[int] = (15,), sigma: Sequence[float] = (0.0,), *,
           distance: str | None = None, w0: float = 0.75, weight_aggregate: str = "sum",
           per_target: bool = False, unlabeled: str = "auto",
           influence: tuple[float, float] = (0.5, 1.0), nominal_targets: str = "relieff",
           sparse: str = "auto", exclude_self: bool = False, search: str = "exact",
           seed: int = 0,
           jobs: int = 1) -> list[ReliefResult]:
    """Relief importances for every combination (iterations x neighbours x sigma, in order).

    ``per_target``: also one importance vector per target (per label for mlc/hmlc). As in
    CLUS, a nominal target (and every mlc/hmlc label) gets classification ReliefF with its
    own hits and misses (``nominal_targets="relieff"``, verified on testMixed/testMLC);
    ``"shared"`` instead uses the 0/1 target distance with the shared neighbours (cheaper).
    Numeric targets always share the neighbours of the overall ranking.

    ``unlabeled``: rows without any known target give SSL-Relief (``"ssl"``) or are left
    out of the sampling and the neighbours (``"ignore"``, CLUS); ``"auto"`` = ``"ssl"`` only
    when ``dataset.semi_supervised`` (the user asked), otherwise ``"ignore"`` with a warning.
    ``influence`` (0, 0) gives the unlabeled rows no influence at all: the supervised
    counterpart, Relief on the labeled rows alone (with their own ranges, as P-ML's SL
    rankings), not the literal Alg. 3.2, whose zero-weight unlabeled neighbours would only
    crowd out labeled ones (as w = 1 leaves the unlabeled rows out of the SSL-PCT tuning).

    ``sparse``: "auto" uses the O(nnz) neighbour search when at most 12% of the values
    differ from their feature's default (bibtex, delicious); "yes"/"no" force it. The
    neighbours are identical either way.

    ``exclude_self`` (URelief, not in the thesis, which keeps the self-term): the cluster
    distance of feature i is d_X over the *other* features, so a feature scores by how its
    differences go with the rest's, not by its own share of d_X. Published URelief
    (d_Y := d_X over all features) favours the features that dominate d_X: on mixed data
    the nominal ones, whose 0/1 differences are the largest terms (synth-unsupervised: a
    nominal noise feature ranks first), and it ranks features that share a structure last.
    The neighbours stay those of the full d_X (one search).

    ``search``: "exact" (CLUS's neighbours, O(n^2 F) with all instances) or "approximate"
    (pynndescent's NN-descent under the same distance, ``frcli.engines.relief.ann``; for
    data beyond tens of thousands of rows, with its agreement measured in
    docs/benchmarks.md).

    Targets that carry no information (every sampled pair has the same target: constant
    targets, every label set empty, one class) give importances 0 and one warning (the
    estimate is undefined; 0, not -P(diff x): see ``estimate``). No rows at all is a
    ``DataError``.
    """
    if nominal_targets not in ("relieff", "shared"):
        raise ConfigError(f"bad value {nominal_targets!r} for parameter 'nominal_targets' "
                          "(relieff, shared)")
    if dataset.n_examples == 0:
        raise DataError(f"{dataset.name}: no data rows; Relief needs at least one example")
    if unlabeled == "auto":
        unlabeled = "ssl" if dataset.semi_supervised else "ignore"
        if unlabeled == "ignore" and dataset.Y is not None and \
                dataset.task != "unsupervised" and not bool(np.all(dataset.labeled)):
            import warnings
            warnings.warn(f"{dataset.name}: Relief ignores the {int((~dataset.labeled).sum())} "
                          f"of {dataset.n_examples} rows without known targets (use "
                          f"{option('semi_supervised')} for SSL-Relief)", stacklevel=2)
    if unlabeled == "ssl" and tuple(float(v) for v in influence) == (0.0, 0.0):
        dataset = replace(dataset.subset(dataset.labeled), semi_supervised=False)
        unlabeled = "ignore"
    labels_only = (dataset.task in ("mlc", "hmlc") and nominal_targets == "relieff"
                   and (bool(np.all(dataset.labeled)) or unlabeled == "ignore"))
    prep = prepare(dataset, sparse, search)
    out = relief_prepared(dataset, iterations, neighbours, sigma, distance=distance, w0=w0,
                          weight_aggregate=weight_aggregate,
                          per_target=per_target and not labels_only, unlabeled=unlabeled,
                          influence=influence, seed=seed, jobs=jobs, prep=prep,
                          exclude_self=exclude_self)
    if per_target and nominal_targets == "relieff" and out and \
            out[0].meta.get("variant") == "rrelieff":
        if labels_only:   # every label gets ReliefF: no shared per-label pass needed
            for o in out:
                o.per_target = np.zeros((dataset.n_targets, dataset.n_features))
        _per_target_relieff(dataset, out, iterations, neighbours, sigma, seed, jobs, prep)
    # a feature with no known value differs (d = 1) in every pair: its estimate is exactly
    # 1 - 1 = 0, as for a constant feature; rounding left ~1e-16, which would rank it
    empty = np.isnan(dataset.X).all(axis=0)
    if empty.any():
        for o in out:
            o.importances = np.where(empty, 0.0, o.importances)
            if o.per_target is not None:
                o.per_target = np.where(empty[None, :], 0.0, o.per_target)
    if any(o.meta.get("constant_targets") for o in out):
        import warnings
        warnings.warn(f"{dataset.name}: every sampled example and its neighbours have the "
                      "same target value (constant targets or empty label sets): Relief "
                      "importances are 0", stacklevel=2)
    return out


def prepare(dataset: Dataset, sparse: str, search: str = "exact"):
    """Descriptive metadata (ranges over all rows with known values), the feature-major copy
    of X the kernels read, the sparse layout when it pays off, and the neighbour search."""
    if sparse not in ("auto", "yes", "no"):
        raise ConfigError(f"bad value {sparse!r} for parameter 'sparse' (auto, yes, no)")
    if search not in ("exact", "approximate"):
        raise ConfigError(f"bad value {search!r} for parameter 'search' (exact, approximate)")
    # features beyond 2**64 in magnitude (±1.7e308: max - min overflows) are scaled by a power
    # of two, which leaves every diff |a - b| / range bit-identical (frcli.data.scaling)
    e = exponents(dataset.X, small=False)
    e[dataset.nominal_mask] = 0
    X = scale(dataset.X, e)
    fmeta = column_meta(X, dataset.nominal_mask, dataset.n_categories)
    if search == "approximate" and fmeta.has_missing():
        raise ConfigError("search=approximate needs data without missing values "
                          "(use search=exact)")
    Xc = np.ascontiguousarray(X.T)
    sp = None
    if sparse != "no" and Xc.size:
        # measured break-even density ~0.1-0.15 (osales 0.16: dense wins; enron 0.08: sparse)
        layout = kernel("_relief").sparse_columns(Xc, 1.0 if sparse == "yes" else 0.12)
        if layout[0] is not None:
            sp = layout[:-1]
    return fmeta, Xc, sp, search


def _nominal_target_columns(dataset: Dataset) -> list[int]:
    if dataset.task in ("mlc", "hmlc"):
        return list(range(dataset.Y.shape[1]))
    if dataset.task in ("mtr", "regression"):
        return [j for j, t in enumerate(dataset.targets) if t.is_nominal]
    return []


def _per_target_relieff(dataset: Dataset, out: list[ReliefResult], iterations, neighbours,
                        sigma, seed: int, jobs: int, prep) -> None:
    """Replace the per-target rows of nominal targets by classification ReliefF on them."""
    from dataclasses import replace

    from frcli.data.dataset import Attribute

    names = dataset.target_names
    for j in _nominal_target_columns(dataset):
        y = np.asarray(dataset.Y[:, j], dtype=np.float64).copy()
        if dataset.task in ("mlc", "hmlc"):
            y[~dataset.labeled] = np.nan
            cats: tuple[str, ...] = ("0", "1")
        else:
            cats = dataset.targets[j].categories
        sub = replace(dataset, task="classification", Y=y[:, None], hierarchy=None,
                      targets=[Attribute(names[j] if j < len(names) else f"target{j + 1}",
                                         "nominal", tuple(cats))],
                      labeled=~np.isnan(y))
        # reached only for the supervised variant: rows without this target are left out
        res = relief_prepared(sub, iterations, neighbours, sigma, unlabeled="ignore",
                              seed=seed, jobs=jobs, prep=prep)
        for o, r in zip(out, res):
            o.per_target[j] = r.importances


def relief_prepared(dataset: Dataset, iterations, neighbours, sigma, *, distance=None,
                    w0=0.75, weight_aggregate="sum", per_target=False, unlabeled="ssl",
                    influence=(0.5, 1.0), seed=0, jobs=1, prep=None, search=None,
                    exclude_self=False) -> list[ReliefResult]:
    """The grid of ``relief`` on data made ready by ``prepare`` (``prep``; made here when
    None), without ``relief``'s handling of rows without targets, of per-target ReliefF and
    of empty features: what the SSL tuner runs for every fold and grid point.

    ``search(rows, group, n_groups, K) -> (nbr, dist, cnt)``: the neighbour search (the
    kernel's by default; the SSL tuner passes one that answers from a shared search).
    ``exclude_self``: URelief only (see ``relief``)."""
    K_ = kernel("_relief")
    iterations = list(iterations) if isinstance(iterations, (list, tuple)) else [iterations]
    neighbours = [int(k) for k in neighbours]
    sigma = [float(s) for s in sigma]
    if any(k < 1 for k in neighbours):
        raise ConfigError("parameter 'neighbours' must be >= 1")
    if any(s < 0 for s in sigma):
        raise ConfigError("parameter 'sigma' must be >= 0")
    if unlabeled not in ("ssl", "ignore"):
        raise ConfigError(f"bad value {unlabeled!r} for parameter 'unlabeled' (ssl, ignore)")
    jobs = (os.cpu_count() or 1) if jobs is None or jobs <= 0 else int(jobs)
    n, F = dataset.X.shape
    if F == 0:
        raise ConfigError("the data set has no descriptive features")
    labeled = np.asarray(dataset.labeled, dtype=bool)
    task = dataset.task
    if task == "unsupervised" or dataset.Y is None:
        mode = "urelief"
    elif task == "classification" and (labeled.all() or unlabeled == "ignore"):
        mode = "relieff"
    elif labeled.all() or unlabeled == "ignore":
        mode = "rrelieff"
    elif not labeled.any():
        mode = "urelief"      # SSL with no labels: every pair's distance is d_X, URelief
    else:
        mode = "ssl"
    if mode == "relieff":
        y = dataset.Y[:, 0]
        labeled = labeled & ~np.isnan(y)
    prep = prep if prep is not None else prepare(dataset, "auto")
    fmeta, Xc, sp, _ = prep
    if search is None:
        search = kernel_search(K_, prep, jobs, dataset, seed)
    kmax = max(neighbours)
    # supervised: rows without targets are neither sampled nor neighbours (CLUS
    # shouldUseTuple); they still count for the descriptive ranges
    supervised = mode in ("relieff", "rrelieff")
    eligible = np.flatnonzero(labeled) if supervised else np.arange(n)
    n_el = eligible.size
    counts = [iteration_count(v, n_el) for v in iterations]
    if n_el == 0:
        raise DataError("no examples to sample: every target is unknown",
                        dataset.source or dataset.name)
    m = max(counts)
    perm = np.random.default_rng(seed).permutation(eligible)
    rows = np.ascontiguousarray(perm[:m], dtype=np.int32)
    snaps = np.array(sorted(set(counts)), dtype=np.int32)

    # -- neighbour groups ----------------------------------------------------------------
    if mode == "relieff":
        codes = dataset.Y[:, 0]
        n_cls = len(dataset.targets[0].categories) if dataset.targets else 0
        n_cls = max(n_cls, int(np.nanmax(codes)) + 1)
        group = np.where(labeled, np.nan_to_num(codes, nan=-1), -1).astype(np.int32)
        G = n_cls
    else:
        group = np.where(labeled | (not supervised), 0, -1).astype(np.int32)
        G = 1
    nbr, dist, cnt = search(rows, group, G, kmax,
                            progress=progress.slots(len(rows), "Relief instances"))

    # -- slot layout: slot p = g * kmax + l; class c = bucket(avail) * kmax + l ------------
    P = G * kmax
    avail_vals = np.unique(cnt)
    bidx = np.searchsorted(avail_vals, cnt)                       # (m, G)
    ell = np.arange(kmax)
    slot_c = (bidx[:, :, None] * kmax + ell[None, None, :]).reshape(m, P).astype(np.int32)
    slot_nbr = nbr.reshape(m, P)
    C = len(avail_vals) * kmax
    meta: dict[str, Any] = {"variant": mode, "n_examples": n, "sparse_search": sp is not None,
                            "search": prep[3],
                            "insufficient_neighbours": int((cnt < kmax).any(axis=1).sum())}

    if mode == "relieff":
        prior = np.bincount(group[labeled], minlength=G).astype(np.float64)
        prior /= prior.sum()
        if np.count_nonzero(prior) < 2:
            # one class: no misses, only hits; the estimate would be -P(diff x). The target
            # carries no information, so 0, as in the regression form (see estimate)
            meta["constant_targets"] = True
            return [ReliefResult(v, cnt_i, k, sg, np.zeros(F), None, dict(meta))
                    for v, cnt_i, s, k, sg, W in _combinations(
                        iterations, counts, snaps, neighbours, sigma, avail_vals, kmax)]
        yr = group[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            coef = np.where(np.arange(G)[None, :] == yr[:, None], -1.0,
                            prior[None, :] / (1.0 - prior[yr])[:, None])
        coef = np.nan_to_num(coef, nan=0.0, posinf=0.0, neginf=0.0)
        slot_w = np.repeat(coef, kmax, axis=1)
        slot_w = np.ascontiguousarray(np.where(slot_nbr >= 0, slot_w, 0.0))
        slot_dy = np.zeros((m, P, 0))
        Gacc, _ = K_.accumulate(Xc, fmeta.kind, fmeta.mn, fmeta.rg, fmeta.nm, rows,
                                np.ascontiguousarray(slot_nbr), slot_c, slot_w, slot_dy,
                                snaps, C, jobs)
        return [ReliefResult(v, cnt_i, k, sg, W @ Gacc[s] / cnt_i, None, dict(meta))
                for v, cnt_i, s, k, sg, W in _combinations(iterations, counts, snaps,
                                                           neighbours, sigma, avail_vals, kmax)]

    # -- regression form: RReliefF / MTR / MLC / HMLC / SSL / URelief ---------------------
    valid = slot_nbr >= 0
    ra = np.repeat(rows, P).reshape(m, P)
    rb = np.where(valid, slot_nbr, 0)
    pw = np.ones((m, P))
    if mode == "ssl":
        omega = _influence(search, labeled, influence)
        pw = omega[ra] * omega[rb]
        meta["influence"] = list(influence)
    pw = np.where(valid, pw, 0.0)
    dx = dist.reshape(m, P)
    if mode == "urelief":
        dy = dx[:, :, None].copy()
        if per_target:
            raise ConfigError("per-target Relief needs targets (the task is unsupervised)")
    else:
        td = TargetDistance(dataset, distance, w0, weight_aggregate, per_target,
                             np.flatnonzero(labeled))
        meta["distance"] = td.distance
        Q = 1 + td.n_per
        dy = np.zeros((m, P, Q))
        fa, fb = ra[valid], rb[valid]
        both = labeled[fa] & labeled[fb]
        vals = np.zeros((fa.size, Q))
        step = max(1, 4_000_000 // max(1, dataset.Y.shape[1]))
        for s0 in range(0, fa.size, step):
            d0, dper = td(fa[s0:s0 + step], fb[s0:s0 + step], jobs)
            vals[s0:s0 + step, 0] = d0
            if dper is not None:
                vals[s0:s0 + step, 1:] = dper
        if mode == "ssl":   # d_Y between labeled pairs, d_X otherwise (Alg. 3.2)
            vals = np.where(both[:, None], vals, dx[valid][:, None])
        dy[valid] = vals
        if hasattr(td, "U"):
            meta["hmlc_U"] = td.U
    dy = np.ascontiguousarray(dy)
    need = len(snaps) * (dy.shape[2] + 1) * C * F * 8
    if need > 4e9:
        raise ConfigError(
            f"Relief accumulators would need {need / 1e9:.1f} GB ({len(snaps)} iteration "
            f"values x {dy.shape[2]} target distances x {C} neighbour slots x {F} features); "
            "use fewer iteration values, fewer neighbours or per_target=false")
    Gacc, Hacc = K_.accumulate(Xc, fmeta.kind, fmeta.mn, fmeta.rg, fmeta.nm, rows,
                               np.ascontiguousarray(slot_nbr), slot_c,
                               np.ascontiguousarray(pw), dy, snaps, C, jobs)
    Q = dy.shape[2]
    # per-class sums of w (normaliser) and w * d_Y, per snapshot, in permutation order
    Ssum = np.zeros((len(snaps), C))
    Tsum = np.zeros((len(snaps), Q, C))
    flat_c = slot_c.ravel()
    for s, mm in enumerate(snaps):
        lim = int(mm) * P
        Ssum[s] = np.bincount(flat_c[:lim], weights=pw.ravel()[:lim], minlength=C)
        for q in range(Q):
            Tsum[s, q] = np.bincount(flat_c[:lim], weights=(pw * dy[:, :, q]).ravel()[:lim],
                                     minlength=C)
    sq = None
    if exclude_self:
        if mode != "urelief":
            raise ConfigError("parameter 'exclude_self' applies to URelief (task "
                              "unsupervised) only")
        if F < 2:
            raise ConfigError("exclude_self needs at least 2 features")
        sq = _square_sums(K_, Xc, fmeta, rows, np.ascontiguousarray(slot_nbr), slot_c, pw,
                          snaps, C)
    out = []
    for v, cnt_i, s, k, sg, W in _combinations(iterations, counts, snaps, neighbours, sigma,
                                               avail_vals, kmax):
        S = W @ Ssum[s]
        dF = W @ Gacc[s]
        if sq is not None:    # URelief without the scored feature in its d_X (``relief``)
            imps = [_estimate_excluding_self(W @ Hacc[s, 0], dF, W @ Tsum[s, 0], S,
                                             W @ sq[s], F)]
        else:
            imps = [estimate(W @ Hacc[s, q], dF, W @ Tsum[s, q], S) for q in range(Q)]
        per = np.array(imps[1:]) if Q > 1 else None
        m_ = dict(meta)
        if mode != "urelief" and not (W @ Tsum[s, 0]) > 0:
            m_["constant_targets"] = True
        out.append(ReliefResult(v, cnt_i, k, sg, imps[0], per, m_))
    return out


def _square_sums(K_, Xc, fmeta: ColumnMeta, rows, slot_nbr, slot_c, pw, snaps,
                 C: int) -> np.ndarray:
    """(snapshots, classes, F) sums of w * d_i² over the slots (the accumulate kernel gives
    w * d_i and w * d_i * dY only), from blocks of per-pair feature distances."""
    m, P = slot_nbr.shape
    F = Xc.shape[0]
    out = np.zeros((len(snaps), C, F))
    acc = np.zeros((C, F))
    step = max(1, (1 << 22) // max(1, P * F))      # instances per block (32 MB of D)
    start = 0
    for si, stop in enumerate(snaps):
        for t0 in range(start, int(stop), step):
            t1 = min(int(stop), t0 + step)
            nb = slot_nbr[t0:t1].ravel()
            ok = nb >= 0
            a = np.repeat(rows[t0:t1], P)[ok].astype(np.int32)
            D = K_.pair_distances(Xc, fmeta.kind, fmeta.mn, fmeta.rg, fmeta.nm, a,
                                  nb[ok].astype(np.int32))
            D *= D
            D *= pw[t0:t1].ravel()[ok][:, None]
            onehot = np.zeros((a.size, C))
            onehot[np.arange(a.size), slot_c[t0:t1].ravel()[ok]] = 1.0
            acc += onehot.T @ D
        start = int(stop)
        out[si] = acc
    return out


def _estimate_excluding_self(H: np.ndarray, dF: np.ndarray, T: float, S: float,
                             Q: np.ndarray, F: int) -> np.ndarray:
    """URelief with the cluster distance of feature i taken over the other F - 1 features,
    dc_i = (F d_X - d_i) / (F - 1): P_C,i = (F T - dF_i)/(F - 1) and
    P_AC,i = (F H_i - Q_i)/(F - 1), with T = sum w d_X, H = sum w d_i d_X, Q = sum w d_i²."""
    pc = (F * T - dF) / (F - 1)
    pac = (F * H - Q) / (F - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = np.where(pc > 0, pac / pc, 0.0)
        den = S - pc
        t2 = np.where(den > 0, (dF - pac) / den, 0.0)
    return t1 - t2


def _combinations(iterations, counts, snaps, neighbours, sigma, avail_vals, kmax):
    """(iterations value, count, snapshot index, k, sigma, slot-class weights) of every grid
    combination, iterations outermost (the order of the results)."""
    for v, cnt_i in zip(iterations, counts):
        s = int(np.searchsorted(snaps, cnt_i))
        for k in neighbours:
            for sg in sigma:
                yield v, cnt_i, s, k, sg, class_weights(avail_vals, kmax, k, sg)


def class_weights(avail_vals: np.ndarray, kmax: int, k: int, sigma: float) -> np.ndarray:
    """Weight of every slot class (bucket, rank) for the combination (k, sigma)."""
    W = np.zeros(len(avail_vals) * kmax)
    for b, a in enumerate(avail_vals):
        W[b * kmax:b * kmax + k] = neighbour_weights(k, sigma, int(a))
    return W


def estimate(dFdT: np.ndarray, dF: np.ndarray, dT: float, S: float) -> np.ndarray:
    """P(diff x | diff y) - P(diff x | same y); an undefined term is 0.

    P(diff y) = 0 (every neighbour pair has the same target: constant targets, every label
    set empty) gives 0 for every feature, not -P(diff x): the targets carry no information,
    and 0 is the limit of the closed form m/(tau (m - tau)) sum (tau_t - tau/m) alpha_t
    (the MTR paper, P0:586-596), whose every term vanishes. ``relief`` warns once.
    """
    if not dT > 0:
        return np.zeros_like(dF)
    t1 = dFdT / dT
    den = S - dT
    t2 = (dF - dFdT) / den if den > 0 else np.zeros_like(dF)
    return t1 - t2


def kernel_search(K_, prep, jobs: int, dataset: Dataset, seed: int = 0):
    """The neighbour search over the prepared data (exact, or approximate as ``prep`` says),
    as ``search(rows, group, n_groups, K, progress=None)`` (see ``_relief``)."""

    def search(rows, group, n_groups, K, progress=None):
        return _search(K_, dataset, prep, np.ascontiguousarray(rows, dtype=np.int32),
                       np.ascontiguousarray(group, dtype=np.int32), n_groups, K, jobs, seed,
                       progress)
    return search


def influence_position(search, labeled: np.ndarray) -> np.ndarray | None:
    """Where each unlabeled row lies between the labeled data's nearest (0) and farthest (1)
    unlabeled rows, by its d_X distance to the nearest labeled row (min/max over the unlabeled
    rows, the thesis's choice; 0.5 for all when they are equal). None without unlabeled or
    without labeled rows. Labeled rows get 0 (unused)."""
    n = labeled.size
    unl = np.flatnonzero(~labeled)
    if unl.size == 0 or labeled.sum() == 0:
        return None
    group = np.where(labeled, 0, -1).astype(np.int32)
    _, dist, _ = search(unl.astype(np.int32), group, 1, 1)
    delta = dist[:, 0, 0]
    dmin, dmax = delta.min(), delta.max()
    t = np.zeros(n)
    t[unl] = 0.5 if dmax - dmin <= 1e-12 else (delta - dmin) / (dmax - dmin)
    return t


def _influence(search, labeled: np.ndarray, influence: tuple[float, float]) -> np.ndarray:
    """SSL instance influence (docs/design/relief.md, "Rows without targets"): 1 for labeled
    rows; unlabeled rows linear in the distance to the nearest labeled row, w1 at the
    minimum, w0 at the maximum (min/max over the unlabeled rows, the thesis's choice)."""
    lo, hi = float(influence[0]), float(influence[1])
    omega = np.ones(labeled.size)
    t = influence_position(search, labeled)
    if t is not None:
        unl = ~labeled
        omega[unl] = hi + (lo - hi) * t[unl]
    return omega


def _search(K_, dataset: Dataset, prep, rows: np.ndarray, group: np.ndarray, G: int, K: int,
            jobs: int, seed: int, slots=None):
    """(nbr, dist, cnt) of the kernel's ``search``: exact, or approximate (``ann``)."""
    fmeta, Xc, sp, search = prep

    def exact(g):
        return K_.search(Xc, fmeta.kind, fmeta.mn, fmeta.rg, fmeta.nm, rows, g, G, K, jobs,
                         sp, progress=slots)

    if search == "exact":
        return exact(group)
    X = Xc.T                         # the (scaled) values fmeta describes

    def pair_distances(ra, rb):
        out = np.empty(ra.size)
        step = max(1, 4_000_000 // max(1, dataset.n_features))
        for s in range(0, ra.size, step):
            out[s:s + step] = column_distances(X[ra[s:s + step]], X[rb[s:s + step]],
                                               fmeta).mean(axis=1)
        return out

    return ann.search(X, fmeta, dataset.n_categories, rows, group, G, K, exact,
                             seed=seed, distances=pair_distances)
