"""SSL-Relief with its parameters chosen by internal cross-validation (P-ML §6.3,
T:7447-7452; docs/design/relief.md, "Tuning SSL-Relief").

Grid: the influences (w0, w1) = (``influence_far``, ``influence_near``) in {0, .25, .5, .75,
1}² with w0 <= w1 (15 pairs) times ``neighbours`` in {15, 20, 30}. The pair (0, 0) gives the
unlabeled rows no influence, so it stands for the supervised counterpart: Relief on the
labeled rows alone (ReliefF for classification), as the SSL-PCT tuning's w = 1 leaves the
unlabeled rows out. The tuning can so fall back to supervised Relief where the
unlabeled rows do not help. Without unlabeled rows only ``neighbours`` is tuned.

Criterion (the thesis gives none): the labeled rows are split into 4 folds (stratified
for classification). For each fold every grid point ranks with that fold's labels hidden
(its rows stay, as unlabeled rows), and the evaluation kNN (k = 20 as in P-DS, or all
training rows when fewer; distance sum_i w_i d_i² with w_i = max(importance_i, 0) and the
ranges of its training rows, as ``frcli.evaluate.knn``) predicts the held-out rows from the
fold's labeled rows. The loss of a held-out row is the squared error of that prediction:
the Brier score of the class-vote shares (classification, nominal targets) and of the label
probabilities (mlc, hmlc), the squared error over the target's variance (numeric targets),
averaged over targets. A proper score rather than the error rate: with ~30 held-out rows per
fold the error rate moves in steps of 1/30 and picked settings worse than plain Relief on
planted data. The choice is the most supervised setting (smallest w1, then w0, then fewest
neighbours) whose mean loss is within one standard error of the lowest (the one-standard-
error rule of Hastie et al., ESL §7.10, on the paired per-row differences), so that noise in
~100 held-out rows does not trade supervised Relief for a worse SSL setting.

One pass: a few grouped neighbour searches serve every fold, grid point and the final
ranking (``SharedSearch``): every sampled row's K_max nearest rows; every row's nearest
labeled row in each fold (for the influences), read off those lists (the first labeled row
of an exact top-K list is the nearest one) and searched only for the rows whose list holds
none; and, in the labeled part with its own ranges, each labeled row's nearest labeled rows
per (fold, class). Every neighbour set the grid needs is a union of such groups, and the
exact top-K of a union is the merge of the groups' exact top-K lists by (distance, row),
the kernel's tie rule. The SSL points of all folds come from one pass over the neighbour
pairs (kernel ``ext/relief/_ssl_grid.pyx``): a row's influence ω = a + w1·b + w0·c is linear in
(w0, w1), so a pair's weight ω_r·ω_n is a combination of six monomials per fold, whose
weighted feature distances the kernel sums per band of neighbour ranks. The supervised
points and the final ranking run the ordinary engine on the shared neighbours, so the chosen
ranking equals ``relief(..., influence=(w0, w1), neighbours=[k])`` (or ``relief`` of the
labeled rows for (0, 0)) exactly. The held-out rows scored per fold are capped (a seeded
sample, at least 100) so that the criterion costs about a quarter of the neighbour search.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from frcli.data.dataset import Dataset
from frcli.engines import progress
from frcli.engines.relief.common import (ColumnMeta, TargetDistance, column_meta,
                                         iteration_count, kernel)
from frcli.engines.relief.relief import (ReliefResult, class_weights, influence_position,
                                         kernel_search, prepare, relief_prepared)
from frcli.errors import ConfigError

INFLUENCE_LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
INFLUENCE_GRID = tuple((a, b) for a in INFLUENCE_LEVELS for b in INFLUENCE_LEVELS if a <= b)
NEIGHBOURS_GRID = (15, 20, 30)
FOLDS = 4
KNN = 20
MIN_HELDOUT = 100          # held-out rows scored per fold at least (all when fewer)
_BLOCK = 1 << 22           # doubles per block of per-pair feature distances (32 MB)


@dataclass
class Tuning:
    """What the tuning chose and why."""

    influence: tuple[float, float]
    neighbours: int
    losses: dict[str, float]            # "w0,w1,k" -> mean held-out loss per row
    folds: int
    knn: int
    skipped: str | None = None          # why no CV was possible (then the fixed defaults)

    def to_meta(self) -> dict[str, Any]:
        return {"influence": list(self.influence), "neighbours": self.neighbours,
                "folds": self.folds, "knn": self.knn, "skipped": self.skipped,
                "criterion": "held-out squared error of the weighted kNN (Brier for "
                             "classes and labels, relative for numeric targets)",
                "losses": self.losses}


# -- one search for every neighbour set ----------------------------------------------------

class SharedSearch:
    """``search(rows, group, n_groups, K)`` answered from a few kernel searches ("layers").

    A layer searched some rows over a partition of candidate rows into base groups (-1:
    not a candidate) and kept each query's exact top-``Kb`` per base group. A request is
    served by the first layer that covers its rows, whose candidates include the request's
    and whose base groups are not split by the requested groups: each requested group is a
    union of base groups, and its exact top-K is the merge of their lists by (distance,
    row), the kernel's tie rule.
    """

    def __init__(self, K_, prep, jobs: int, dataset):
        self.search = kernel_search(K_, prep, jobs, dataset)
        self.layers: list[dict[str, Any]] = []

    def add(self, rows: np.ndarray, base: np.ndarray, n_base: int, K: int) -> None:
        rows = np.unique(np.asarray(rows, dtype=np.int32))
        if rows.size == 0:
            return
        base = np.asarray(base, dtype=np.int32)
        nbr, dist, cnt = self.search(rows, base, n_base, K,
                                     progress=progress.slots(rows.size, "Relief instances"))
        pos = np.full(base.size, -1, dtype=np.int64)
        pos[rows] = np.arange(rows.size)
        self.layers.append(dict(base=base, n_base=n_base, K=K, pos=pos, nbr=nbr, dist=dist,
                                cnt=cnt))

    def add_nearest(self, *members: np.ndarray) -> None:
        """A layer per mask of ``members``: every row's nearest row among the mask's rows
        (one group, K = 1), read off the first layer that lists every row's nearest rows
        over all rows (the first member in an exact top-K list by (distance, row) is the
        nearest member, with the same distance; a complete list without a member means
        there is none). The rows whose list holds no member are searched once for all
        masks: over the rows grouped by which masks hold them, each group's nearest row,
        the mask's nearest member being the first by (distance, row) of its groups'."""
        members = [np.asarray(m, dtype=bool) for m in members]
        if not members:
            return
        n = members[0].size
        bits = np.zeros(n, dtype=np.uint64)     # bit j: a member of members[j]
        for j, member in enumerate(members[:64]):
            bits |= member.astype(np.uint64) << np.uint64(j)
        src = next((L for L in self.layers if L["n_base"] == 1 and (L["base"] >= 0).all()),
                   None)
        if src is not None:
            rows = np.flatnonzero(src["pos"] >= 0)
            qi = src["pos"][rows]
            lst = src["nbr"][qi, 0, :]                                  # (rows, K)
            listed = lst >= 0
            complete = src["cnt"][qi, 0] < src["K"]
            lbits = np.where(listed, bits[np.maximum(lst, 0)], np.uint64(0))
        layers, todos = [], []
        for j, member in enumerate(members):
            nbr = np.full((n, 1, 1), -1, dtype=np.int32)
            dist = np.zeros((n, 1, 1))
            cnt = np.zeros((n, 1), dtype=np.int32)
            todo = np.ones(n, dtype=bool)
            if src is not None:
                hit = ((lbits >> np.uint64(j)) & np.uint64(1)).astype(bool) if j < 64 \
                    else listed & member[np.maximum(lst, 0)]
                has = hit.any(axis=1)
                first = hit[has].argmax(axis=1)
                r = rows[has]
                nbr[r, 0, 0] = lst[has, first]
                dist[r, 0, 0] = src["dist"][qi[has], 0, first]
                cnt[r, 0] = 1
                todo[r] = False
                todo[rows[~has & complete]] = False                     # complete, no member
            todo &= member.any()
            layers.append(dict(base=np.where(member, 0, -1).astype(np.int32), n_base=1, K=1,
                               pos=np.arange(n), nbr=nbr, dist=dist, cnt=cnt, member=member))
            todos.append(todo)
        rest = np.flatnonzero(np.logical_or.reduce(todos))
        if rest.size and len(members) <= 16:
            # group g: the rows with signature sigs[g] (-1: in no mask)
            sigs = np.flatnonzero(np.bincount(bits.astype(np.int64),
                                              minlength=1 << len(members))[1:]) + 1
            code = np.full(1 << len(members), -1, dtype=np.int32)
            code[sigs] = np.arange(sigs.size, dtype=np.int32)
            sig_of = code[bits.astype(np.int64)]
            sigs = sigs.astype(np.uint64)
            nb2, d2, _ = self.search(rest.astype(np.int32), sig_of, sigs.size, 1,
                                     progress=progress.slots(rest.size, "Relief instances"))
            for j, (L, todo) in enumerate(zip(layers, todos)):
                gs = np.flatnonzero((sigs >> np.uint64(j)) & np.uint64(1))
                sel = np.flatnonzero(todo[rest])
                if sel.size == 0:
                    continue
                cn, cd, cc = kernel("_ssl_grid").merge_topk(
                    np.ascontiguousarray(nb2[sel][:, gs]), np.ascontiguousarray(d2[sel][:, gs]),
                    1)
                r = rest[sel]
                L["nbr"][r, 0] = cn
                L["dist"][r, 0] = cd
                L["cnt"][r, 0] = cc
        elif rest.size:
            for L, todo in zip(layers, todos):
                r = np.flatnonzero(todo)
                if r.size:
                    L["nbr"][r], L["dist"][r], L["cnt"][r] = self.search(
                        r.astype(np.int32), L["base"], 1, 1,
                        progress=progress.slots(r.size, "Relief instances"))
        self.layers += layers

    def _fits(self, layer, group: np.ndarray, K: int) -> list[np.ndarray] | None:
        """The base groups making up each requested group, or None if the layer can't serve."""
        base = layer["base"]
        if K > layer["K"] or ((group >= 0) & (base < 0)).any():
            return None
        inb = base >= 0
        g = group[inb].astype(np.int64)
        span = int(g.max(initial=-1)) + 2
        pairs = np.flatnonzero(np.bincount(base[inb].astype(np.int64) * span + (g + 1),
                                           minlength=layer["n_base"] * span))  # (base, group)
        b_of = pairs // span
        if b_of.size > 1 and (np.diff(b_of) == 0).any():   # a base group split by the request
            return None
        own = np.full(layer["n_base"], -2)
        own[b_of] = pairs % span - 1
        return [np.flatnonzero(own == g) for g in range(int(group.max(initial=-1)) + 1)]

    def __call__(self, rows, group, n_groups: int, K: int, progress=None):
        rows = np.asarray(rows, dtype=np.int64)
        group = np.asarray(group)
        m = rows.size
        nbr_o = np.full((m, n_groups, K), -1, dtype=np.int32)
        dist_o = np.zeros((m, n_groups, K))
        cnt_o = np.zeros((m, n_groups), dtype=np.int32)
        todo = np.ones(m, dtype=bool)
        if K == 1 and n_groups == 1:      # a nearest-member layer of exactly these members
            wanted = group >= 0
            for layer in self.layers:
                if "member" in layer and np.array_equal(layer["member"], wanted):
                    return (layer["nbr"][rows].copy(), layer["dist"][rows].copy(),
                            layer["cnt"][rows].copy())
        for layer in self.layers:
            if not todo.any():
                break
            sel = np.flatnonzero(todo & (layer["pos"][rows] >= 0))
            if sel.size == 0:
                continue
            members = self._fits(layer, group, K)
            if members is None:
                continue
            todo[sel] = False
            qi = layer["pos"][rows[sel]]
            for gq, bs in enumerate(members[:n_groups]):
                if bs.size == 0:
                    continue
                if bs.size > 1:     # merge the base groups' sorted lists (kernel)
                    cn, cd, cc = kernel("_ssl_grid").merge_topk(
                        np.ascontiguousarray(layer["nbr"][qi[:, None], bs[None, :]]),
                        np.ascontiguousarray(layer["dist"][qi[:, None], bs[None, :]]), K)
                    nbr_o[sel, gq] = cn
                    dist_o[sel, gq] = cd
                    cnt_o[sel, gq] = cc
                    continue
                cn = layer["nbr"][qi, bs[0], :K]
                cd = layer["dist"][qi, bs[0], :K]
                ok = cn >= 0
                nbr_o[sel, gq, :cn.shape[1]] = cn
                dist_o[sel, gq, :cn.shape[1]] = np.where(ok, cd, 0.0)
                cnt_o[sel, gq] = ok.sum(axis=1)
        if todo.any():
            raise ValueError("a neighbour request the shared search cannot serve")
        return nbr_o, dist_o, cnt_o


# -- the tuner -----------------------------------------------------------------------------

def tune_relief(dataset: Dataset, iterations: Any = 1.0, sigma: float = 0.0, *,
                neighbours: Sequence[int] = NEIGHBOURS_GRID,
                influence: Sequence[tuple[float, float]] = INFLUENCE_GRID,
                distance: str | None = None, w0: float = 0.75, weight_aggregate: str = "sum",
                folds: int = FOLDS, knn: int = KNN, sparse: str = "auto", seed: int = 0,
                jobs: int = 1) -> tuple[ReliefResult, Tuning]:
    """SSL-Relief (or, without unlabeled rows or with ``influence=[(0, 0)]``, supervised
    Relief) with (influence, neighbours) chosen by ``folds``-fold CV over the labeled rows
    (see the module docstring). Returns the chosen ranking of all rows and the tuning."""
    if dataset.task == "unsupervised" or dataset.Y is None:
        raise ConfigError("tuning Relief needs targets (the task is unsupervised)")
    neighbours = sorted({int(k) for k in neighbours})
    influence = sorted({(float(a), float(b)) for a, b in influence}, key=lambda p: (p[1], p[0]))
    if not neighbours or min(neighbours) < 1:
        raise ConfigError("parameter 'neighbours' must be >= 1")
    for a, b in influence:
        if not 0 <= a <= b <= 1:
            raise ConfigError(f"influences ({a}, {b}): need 0 <= influence_far <= "
                              "influence_near <= 1")
    K_ = kernel("_relief")
    n = dataset.n_examples
    labeled = np.asarray(dataset.labeled, dtype=bool).copy()
    classification = dataset.task == "classification"
    if classification:
        labeled &= ~np.isnan(dataset.Y[:, 0])
    has_unlabeled = bool((~labeled).any())
    if not has_unlabeled:
        influence = [(0.0, 0.0)]
    ssl_points = [p for p in influence if p != (0.0, 0.0)]
    lab = np.flatnonzero(labeled)
    common = dict(distance=distance, w0=w0, weight_aggregate=weight_aggregate, seed=seed,
                  jobs=jobs)
    ds = replace(dataset, semi_supervised=True)
    # the supervised counterpart is Relief on the labeled rows alone (their own ranges)
    ds_lab = ds if not has_unlabeled else replace(ds.subset(lab), semi_supervised=False)

    def final(point: tuple[float, float], k: int, ssl=(None, None),
              sup=(None, None)) -> ReliefResult:
        if point == (0.0, 0.0):
            return relief_prepared(ds_lab, [iterations], [k], [sigma], unlabeled="ignore",
                                   prep=sup[0], search=sup[1], **common)[0]
        return relief_prepared(ds, [iterations], [k], [sigma], unlabeled="ssl",
                               influence=point, prep=ssl[0], search=ssl[1], **common)[0]

    if lab.size < 2 * folds:
        point = (0.5, 1.0) if ssl_points else (0.0, 0.0)
        k = 15 if 15 in neighbours else neighbours[0]
        why = f"{lab.size} labeled rows: too few for {folds}-fold tuning; fixed defaults"
        return final(point, k), Tuning(point, k, {}, folds, knn, skipped=why)

    prep = prepare(dataset, sparse)
    fmeta, Xc, _, _ = prep
    kmax = max(neighbours)
    from frcli.data.splits import kfold_assign

    fold_seed = int(np.random.default_rng([seed, 12]).integers(2**31))
    fold_of = np.full(n, -1)
    fold_of[lab] = kfold_assign(lab.size, folds, fold_seed,
                                dataset.Y[lab, 0] if classification else None)
    lab_f = [labeled & (fold_of != f) for f in range(folds)]

    def sample(eligible: np.ndarray) -> np.ndarray:    # as the engine draws its rows
        m = iteration_count(iterations, eligible.size)
        return np.random.default_rng(seed).permutation(eligible)[:m]

    # the searches: SSL rows over all rows, and every row's nearest labeled row
    # per fold (for the influences); supervised rows over the labeled rows by (fold, class),
    # in the labeled part with its own ranges (the same for every fold: a held-out row's
    # feature values are no label information)
    shared = SharedSearch(K_, prep, jobs, ds)
    ssl_rows = sample(np.arange(n)) if ssl_points else np.zeros(0, dtype=np.int64)
    if ssl_points:
        shared.add(ssl_rows, np.zeros(n, dtype=np.int32), 1, kmax)
        shared.add_nearest(*lab_f)       # every row's nearest labeled row of each fold
    nl = lab.size
    fold_lab = fold_of[lab]
    if classification:
        codes = dataset.Y[lab, 0]
        n_cls = max(len(dataset.targets[0].categories) if dataset.targets else 0,
                    int(np.nanmax(codes)) + 1)
        cls = codes.astype(np.int64)
    else:
        n_cls, cls = 1, np.zeros(nl, dtype=np.int64)
    prep_lab = prep if ds_lab is ds else prepare(ds_lab, sparse)
    shared_lab = SharedSearch(K_, prep_lab, jobs, ds_lab)
    sup_rows = np.concatenate([sample(np.arange(nl))]
                              + [sample(np.flatnonzero(fold_lab != f)) for f in range(folds)])
    shared_lab.add(sup_rows, fold_lab * n_cls + cls, folds * n_cls, kmax)

    # -- every fold's candidates and their held-out loss --------------------------------
    cand = [(p, k) for p in influence for k in neighbours]
    where = {c: i for i, c in enumerate(cand)}
    imps = np.zeros((folds, len(cand), dataset.n_features))
    if (0.0, 0.0) in influence:
        for f in range(folds):
            res = relief_prepared(ds_lab.with_unlabeled(fold_lab == f), [iterations],
                                  neighbours, [sigma], unlabeled="ignore", prep=prep_lab,
                                  search=shared_lab, **common)
            for k, r in zip(neighbours, res):
                imps[f, where[((0.0, 0.0), k)]] = r.importances
    if ssl_points:
        ssl_nbr = shared(ssl_rows, np.zeros(n, dtype=np.int32), 1, kmax)
        est = _ssl_grid(K_, dataset, lab_f, fmeta, Xc, ssl_rows, ssl_nbr, shared,
                        ssl_points, neighbours, sigma, distance, w0, weight_aggregate, jobs)
        keys = list(est)
        imps[[f for f, _, _ in keys], [where[(p, k)] for _, p, k in keys]] = \
            np.array(list(est.values()))
    per_row = []
    rng = np.random.default_rng([seed, 13])
    k_used = knn
    for f in range(folds):
        held = np.flatnonzero(fold_of == f)
        train = np.flatnonzero(lab_f[f])
        cap = _heldout_cap(ssl_rows.size or lab.size, n, dataset.n_features, train.size,
                           len(cand), folds)
        if held.size > cap:
            held = np.sort(rng.choice(held, cap, replace=False))
        k_used = min(knn, train.size)
        # the evaluation kNN's distance: ranges from its training rows (frcli.evaluate.knn)
        tmeta = column_meta(dataset.X, dataset.nominal_mask, dataset.n_categories, train)
        per_row.append(_knn_loss(K_, dataset, tmeta, Xc, train, held, imps[f], k_used))
    L = np.concatenate(per_row)                                        # (held rows, cand)
    order = sorted(range(len(cand)), key=lambda c: (cand[c][0][1], cand[c][0][0], cand[c][1]))
    point, k = cand[_one_se(L, order)]
    losses = {f"{p[0]:g},{p[1]:g},{kk}": float(v)
              for (p, kk), v in zip(cand, L.mean(axis=0))}
    if point != (0.0, 0.0):              # the final SSL run's nearest labeled rows
        shared.add_nearest(labeled)
    return (final(point, k, (prep, shared), (prep_lab, shared_lab)),
            Tuning(point, k, losses, folds, k_used))


def _ssl_grid(K_, ds: Dataset, lab_f: list[np.ndarray], fmeta: ColumnMeta, Xc: np.ndarray,
              rows: np.ndarray, nbrs, search, points, neighbours, sigma, distance, w0,
              weight_aggregate, jobs) -> dict[tuple[int, tuple[float, float], int], np.ndarray]:
    """SSL-Relief importances of every (fold, influence pair, k), the fold's labeled rows
    being ``lab_f[fold]``: per fold six pair weightings and the same times the clustering
    distance (module docstring), each times the weight the engine gives the pair's slot class
    (rank, and number of neighbours available) under each (k, sigma), summed in one pass over
    the per-pair feature distances (kernel ``ext/relief/_ssl_grid.pyx``). The slot classes whose
    weights agree for every k form one column ("band": with sigma = 0 and every row having
    all neighbours, the ranks below 15, 15-19 and 20-29), summed once and combined per k
    afterwards; when there are too many bands to keep, each k is its own column. Equal to
    ``relief_prepared(..., unlabeled="ssl")`` per point up to rounding."""
    nbr, dist, cnt = nbrs
    nbr, dist, cnt = nbr[:, 0, :], dist[:, 0, :], cnt[:, 0]
    m, kmax = nbr.shape
    valid = nbr >= 0
    avail_vals = np.unique(cnt)
    klass = (np.searchsorted(avail_vals, cnt)[:, None] * kmax + np.arange(kmax)[None, :])
    ra = np.ascontiguousarray(np.repeat(rows, kmax).reshape(m, kmax)[valid], dtype=np.int32)
    rb = np.ascontiguousarray(nbr[valid], dtype=np.int32)
    dx = dist[valid]
    kc = klass[valid]                                   # each pair's slot class
    folds = len(lab_f)
    P = ra.size
    lab = np.zeros((folds, ds.n_examples), dtype=np.uint8)
    tpos = np.zeros((folds, ds.n_examples))
    dc = np.empty((folds, P))
    # bit f of a row: labeled in fold f; a pair is labeled at both ends where both have it
    bits = np.zeros(ds.n_examples, dtype=np.uint64)
    for f, lf in enumerate(lab_f):
        bits |= lf.astype(np.uint64) << np.uint64(f)
    pair_bits = bits[ra] & bits[rb]
    for f, lf in enumerate(lab_f):
        # influence ω = a + w1 b + w0 c: a = 1 labeled; b = 1 - t, c = t unlabeled
        t = influence_position(search, lf)
        if t is not None:
            tpos[f] = t
        lab[f] = lf
        dc[f] = dx
        both = ((pair_bits >> np.uint64(f)) & np.uint64(1)).astype(bool) if folds <= 64 \
            else lf[ra] & lf[rb]
        if both.any():   # d_Y between labeled pairs (ranges of this fold's labels), d_X else
            td = TargetDistance(ds, distance, w0, weight_aggregate, False, np.flatnonzero(lf))
            fa, fb = ra[both].astype(np.int64), rb[both].astype(np.int64)
            vals = np.zeros(fa.size)
            step = max(1, 4_000_000 // max(1, ds.Y.shape[1]))
            for s0 in range(0, fa.size, step):
                vals[s0:s0 + step] = td(fa[s0:s0 + step], fb[s0:s0 + step], jobs)[0]
            dc[f, both] = vals
    F = Xc.shape[0]
    nk = len(neighbours)
    cw = np.stack([class_weights(avail_vals, kmax, k, sigma) for k in neighbours])  # (nk, C)
    bands, band_of = np.unique(cw.T, axis=0, return_inverse=True)    # (nb, nk), (C,)
    band_of = band_of.ravel()
    per_band = bands.shape[0] * folds * 12 * max(F, 1) <= _BLOCK or bands.shape[0] <= nk
    if per_band:     # one column per band (weight 1), combined per k below
        passes = [(band_of[kc].astype(np.int32), np.ones(P))]
        ncol = bands.shape[0]
    else:            # one column per k, the pairs weighted by their slot class's weight
        passes = []
        for ki in range(nk):
            w = cw[ki, kc]
            passes.append((np.where(w != 0, ki, -1).astype(np.int32), w))
        ncol = nk
    acc = np.zeros((ncol, folds, 2, 6, F))
    tot = np.zeros((ncol, folds, 2, 6))
    kern = kernel("_ssl_grid")
    step = max(1, _BLOCK // max(1, F))
    for s0 in range(0, P, step):
        s1 = min(P, s0 + step)
        D = K_.pair_distances(Xc, fmeta.kind, fmeta.mn, fmeta.rg, fmeta.nm, ra[s0:s1], rb[s0:s1])
        for col, w in passes:
            kern.accumulate(D, ra[s0:s1], rb[s0:s1], col[s0:s1], w[s0:s1], lab, tpos,
                            np.ascontiguousarray(dc[:, s0:s1]), acc, tot, jobs)
    if per_band:
        acc = np.tensordot(bands.T, acc, axes=1)                       # (nk, folds, 2, 6, F)
        tot = np.tensordot(bands.T, tot, axes=1)
    mu = np.array([[1.0, b, a, b * b, a * b, a * a] for a, b in points])    # (points, 6)
    out = {}
    for ki, k in enumerate(neighbours):
        dF = mu @ acc[ki, :, 0]                                        # (folds, points, F)
        dFdT = mu @ acc[ki, :, 1]
        S = (tot[ki, :, 0] @ mu.T)[:, :, None]                         # (folds, points, 1)
        T = (tot[ki, :, 1] @ mu.T)[:, :, None]
        # relief.estimate of every (fold, point) at once, element for element the same operations
        ok, den = T > 0, S - T
        t1 = dFdT / np.where(ok, T, 1.0)
        t2 = np.where(den > 0, (dF - dFdT) / np.where(den > 0, den, 1.0), 0.0)
        est = np.where(ok, t1 - t2, 0.0)
        out.update(zip(((f, p, k) for p in points for f in range(folds)),
                       est.transpose(1, 0, 2).reshape(-1, est.shape[2])))
    return out


def _heldout_cap(m: int, n: int, F: int, n_train: int, n_cand: int, folds: int) -> int:
    """Held-out rows scored per fold: the criterion's kNN (n_train distances of F terms
    and a selection per candidate, per row) may cost about a quarter of the neighbour
    search (m rows x n rows x F) over all folds; at least MIN_HELDOUT rows."""
    per_row = max(1, n_train) * (4 * F + 40 * n_cand)   # a selection ~ 40 distance terms
    return max(MIN_HELDOUT, int(m * n * F / (4 * folds * per_row)))


def _one_se(L: np.ndarray, order: list[int]) -> int:
    """The first candidate in ``order`` whose mean loss is within one standard error of the
    lowest (the error of the paired per-row differences; ESL §7.10's one-standard-error
    rule, here towards the more supervised settings)."""
    mean = L.mean(axis=0)
    best = min(order, key=lambda c: mean[c])
    n = L.shape[0]
    for c in order:
        d = L[:, c] - L[:, best]
        se = float(d.std(ddof=1)) / np.sqrt(n) if n > 1 else 0.0
        if d.mean() <= se:
            return c
    return best


def _knn_loss(K_, ds: Dataset, fmeta: ColumnMeta, Xc: np.ndarray, train: np.ndarray,
              held: np.ndarray, imps: np.ndarray, k: int) -> np.ndarray:
    """Held-out loss (held rows, rankings) of every ranking (rows of ``imps``): kNN with
    the distance sum_i w_i d_i², k neighbours among ``train``; see the module docstring."""
    C, F = imps.shape
    w = np.maximum(np.nan_to_num(imps, nan=0.0, posinf=0.0, neginf=0.0), 0.0)
    w[~(w > 0).any(axis=1)] = 1.0
    targets = _target_blocks(ds, train)
    total = np.zeros((held.size, C))
    nt = train.size
    bq = max(1, _BLOCK // max(1, nt * max(F, C)))
    for s0 in range(0, held.size, bq):
        q = held[s0:s0 + bq]
        pa = np.repeat(q.astype(np.int32), nt)
        pb = np.tile(train.astype(np.int32), q.size)
        D = K_.pair_distances(Xc, fmeta.kind, fmeta.mn, fmeta.rg, fmeta.nm, pa, pb)
        D *= D
        dist = (w @ D.T).reshape(C, q.size, nt)
        nb = (_nearest(dist, k) if k < nt
              else np.broadcast_to(np.arange(nt), (C, q.size, nt)))
        nb = train[nb]                                                 # (C, q, k) rows
        for block in targets:
            total[s0:s0 + q.size] += block(q, nb)
    return total


def _nearest(dist: np.ndarray, k: int) -> np.ndarray:
    """Per row of ``dist`` (C rankings, q rows, n), the columns of its k smallest values, the
    lower column first among equal values (the neighbour search's tie rule, so that the
    criterion does not depend on how a selection algorithm breaks ties), ordered by (value,
    column) (the order in which the loss sums them). Kernel ``nearest_k``: one pass per row,
    bounded by the previous ranking's choice."""
    return kernel("_ssl_grid").nearest_k(np.ascontiguousarray(dist, dtype=np.float64), k)


def _target_blocks(ds: Dataset, train: np.ndarray):
    """Per-target losses: f(held rows (q,), neighbour rows (C, q, k)) -> (q, C) loss of
    that target per held row (0 where unknown), divided by the number of targets."""
    Y = ds.Y
    if ds.is_label_task:
        L = Y.shape[1]
        Yf = Y.astype(np.float64)

        def labels(q, nb):   # Brier score of the label probabilities
            P = Yf[nb].mean(axis=2)                                    # (C, q, L)
            return (((P - Yf[q][None]) ** 2).sum(axis=2) / L).T
        return [labels]
    T = Y.shape[1]
    lab = ds.labeled
    blocks = []
    for j in range(T):
        col = Y[:, j]
        known_lab = col[lab][np.isfinite(col[lab])]
        nominal = ds.task == "classification" or (j < len(ds.targets)
                                                  and ds.targets[j].is_nominal)
        if nominal:
            ncat = int(known_lab.max()) + 1 if known_lab.size else 1
            if j < len(ds.targets):
                ncat = max(ncat, len(ds.targets[j].categories))
            tr = col[train]
            trk = tr[np.isfinite(tr)].astype(np.intp)
            prior = np.bincount(trk, minlength=ncat)[:ncat] / max(trk.size, 1)
            onehot = np.vstack([np.eye(ncat), np.zeros((1, ncat))])     # row ncat: unknown

            def brier(q, nb, col=col, ncat=ncat, prior=prior, onehot=onehot):
                v = col[nb]                                            # (C, q, k)
                codes = np.where(np.isnan(v), ncat, v).astype(np.intp)
                cq = codes.shape[0] * codes.shape[1]                   # votes per category:
                idx = codes.reshape(cq, -1) + (ncat + 1) * np.arange(cq)[:, None]
                votes = np.bincount(idx.ravel(), minlength=cq * (ncat + 1)).reshape(
                    codes.shape[0], codes.shape[1], ncat + 1)[:, :, :ncat].astype(np.float64)
                tot = votes.sum(axis=2, keepdims=True)
                P = np.where(tot > 0, votes / np.maximum(tot, 1), prior)
                yq = col[q]
                ok = ~np.isnan(yq)
                truth = onehot[np.where(ok, yq, ncat).astype(np.intp)][None]
                return (np.where(ok[None], ((P - truth) ** 2).sum(axis=2), 0.0) / T).T
            blocks.append(brier)
        else:
            var = float(known_lab.var()) if known_lab.size else 0.0
            inv = 1.0 / var if var > 1e-12 else 1.0
            tr = col[train]
            fallback = float(tr[np.isfinite(tr)].mean()) if np.isfinite(tr).any() else 0.0
            complete = bool(np.isfinite(tr).all())

            def sq(q, nb, col=col, inv=inv, fallback=fallback,
                   complete=complete):                         # squared error / variance
                v = col[nb]                                            # (C, q, k)
                if complete:     # every neighbour's value known: the same sums, fewer steps
                    pred = v.sum(axis=2) / float(v.shape[2])
                else:
                    known = ~np.isnan(v)
                    cnt = known.sum(axis=2)
                    pred = np.where(cnt > 0, np.where(known, v, 0.0).sum(axis=2)
                                    / np.maximum(cnt, 1), fallback)   # (C, q)
                yq = col[q]
                ok = ~np.isnan(yq)
                return (np.where(ok[None], (pred - yq[None]) ** 2, 0.0) * inv / T).T
            blocks.append(sq)
    return blocks
