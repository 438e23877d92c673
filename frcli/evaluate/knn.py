"""Weighted kNN, the evaluator every paper uses to judge a ranking (docs/design/experiment.md,
"Evaluation").

Distance: d(x¹, x²)² = Σ_i w_i d_i(x¹, x²)² with w_i = max(importance_i, 0) (all zero → all
ones), d_i = |a − b| / (max_i − min_i) for numeric features (min/max over the *training*
part's known values; a zero range counts as 1), 1[a ≠ b] for nominal ones, and the missing-value
rules of Relief (docs/design/relief.md, "Distances": nominal 1 − 1/K; numeric both missing 1;
one missing max(t, 1 − t)).
Test values outside the training range are not clipped.

Why the embedding: every d_i² above is a sum of products f(a)·g(b), so the whole distance matrix
of a block of test rows is one matrix product ``A @ B.T`` plus a row and a column term. That puts
the O(n_test · n_train · F) work in BLAS and keeps missing values exact (no imputation).

Neighbours: the k nearest training rows, ties broken by the lower training index. To make
exact mathematical ties survive floating-point rounding, distances are snapped to a grid of
2⁻⁴⁰ · Σw before selection (far below any meaningful difference).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from frcli.data.dataset import Dataset
from frcli.data.scaling import exponents, scale

# distance-matrix cells per block of test rows (float64: 4M cells = 32 MB)
_BLOCK_CELLS = 1 << 22


def knn_weights(importances: np.ndarray) -> np.ndarray:
    """w_i = max(importance_i, 0), NaN counted as 0: a negative score means "worse than a
    random feature"; all zero → all ones, the unweighted baseline."""
    w = np.nan_to_num(np.asarray(importances, dtype=np.float64), nan=0.0, posinf=0.0,
                      neginf=0.0)
    w = np.maximum(w, 0.0)
    if not np.any(w > 0):
        w = np.ones_like(w)
    return w


@dataclass
class _Embedding:
    A: np.ndarray      # (m, W) test side
    B: np.ndarray      # (n, W) train side
    row: np.ndarray    # (m,)
    col: np.ndarray    # (n,)


def _embed(Xtr: np.ndarray, Xte: np.ndarray, nominal: np.ndarray, n_cat: np.ndarray,
           w: np.ndarray) -> _Embedding:
    """Columns such that D = A @ B.T + row[:, None] + col[None, :] (see module docstring)."""
    n, m = Xtr.shape[0], Xte.shape[0]
    Acols: list[np.ndarray] = []
    Bcols: list[np.ndarray] = []
    row = np.zeros(m)
    col = np.zeros(n)
    miss_tr = np.isnan(Xtr)
    miss_te = np.isnan(Xte)
    active = w > 0
    # numeric features without missing values: all at once
    plain = active & ~nominal & ~miss_tr.any(axis=0) & ~miss_te.any(axis=0)
    if n == 0:
        plain[:] = False
    if plain.any():
        J = np.flatnonzero(plain)
        lo, hi = Xtr[:, J].min(axis=0), Xtr[:, J].max(axis=0)
        scale = np.sqrt(w[J]) / np.where(hi > lo, hi - lo, 1.0)
        ta = (Xte[:, J] - lo) * scale
        tb = (Xtr[:, J] - lo) * scale
        row += np.einsum("ij,ij->i", ta, ta)
        col += np.einsum("ij,ij->i", tb, tb)
        Acols.append(-2.0 * ta)
        Bcols.append(tb)
    for i in np.flatnonzero(active & ~plain):
        wi = w[i]
        a, b = Xte[:, i], Xtr[:, i]
        ka, kb = ~miss_te[:, i], ~miss_tr[:, i]
        has_missing = not (ka.all() and kb.all())
        if nominal[i]:
            codes = np.concatenate([a[ka], b[kb]]).astype(np.intp)
            K = max(int(n_cat[i]), int(codes.max()) + 1 if codes.size else 1)
            oa = np.zeros((m, K))
            ob = np.zeros((n, K))
            oa[np.flatnonzero(ka), a[ka].astype(np.intp)] = 1.0
            ob[np.flatnonzero(kb), b[kb].astype(np.intp)] = 1.0
            if not has_missing:
                row += wi                      # w·(1 − Σ_c oa_c ob_c)
                Acols.append(-wi * oa)
                Bcols.append(ob)
            else:
                mm = (1.0 - 1.0 / K) ** 2      # either value missing
                row += wi * mm
                Acols += [(wi * (1.0 - mm) * ka)[:, None], -wi * oa]
                Bcols += [kb.astype(np.float64)[:, None], ob]
        else:
            known = b[kb]
            if known.size:
                lo, hi = known.min(), known.max()
                rng = hi - lo if hi > lo else 1.0
            else:  # no known training value: nothing to normalise by
                lo, rng = 0.0, 1.0
            ta = np.where(ka, (a - lo) / rng, 0.0)
            tb = np.where(kb, (b - lo) / rng, 0.0)
            if not has_missing:
                sw = np.sqrt(wi)
                ta, tb = sw * ta, sw * tb
                row += ta * ta
                col += tb * tb
                Acols.append((-2.0 * ta)[:, None])
                Bcols.append(tb[:, None])
            else:
                kaf, kbf = ka.astype(np.float64), kb.astype(np.float64)
                ga = np.maximum(ta, 1.0 - ta) ** 2
                gb = np.maximum(tb, 1.0 - tb) ** 2
                row += wi * (kaf * ga + 1.0 - kaf)
                col += wi * (kbf * gb - kbf)
                Acols += [np.stack([wi * kaf * (ta * ta - ga + 1.0), wi * kaf,
                                    -2.0 * wi * kaf * ta], axis=1)]
                Bcols += [np.stack([kbf, kbf * (tb * tb - gb), kbf * tb], axis=1)]
    A = np.hstack(Acols) if Acols else np.zeros((m, 0))
    B = np.hstack(Bcols) if Bcols else np.zeros((n, 0))
    return _Embedding(np.ascontiguousarray(A), np.ascontiguousarray(B), row, col)


def _blocks(m: int, n: int):
    step = max(1, _BLOCK_CELLS // max(n, 1))
    for s in range(0, m, step):
        yield s, min(m, s + step)


def _select(D: np.ndarray, k: int) -> np.ndarray:
    """Indices (b, k) of the k smallest per row, ties by lower column index, nearest first.

    For wide blocks, the k-th smallest value over a strided subset of the columns bounds the
    true k-th value from above, so only the (few) entries under that bound are candidates:
    one comparison pass instead of a selection over every column.
    """
    b, n = D.shape
    sub = max(32 * k, 1024)
    if k >= n or n < 4 * sub:
        return _select_exact(D, k)
    stride = n // sub
    bound = np.partition(D[:, ::stride], k - 1, axis=1)[:, k - 1:k]
    cand = D <= bound                                  # >= k per row, every true neighbour
    counts = cand.sum(axis=1)
    rows, cols = np.nonzero(cand)                      # row-major: columns ascending
    pos = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    P = np.full((b, int(counts.max())), np.inf)
    Idx = np.zeros(P.shape, dtype=np.intp)
    P[rows, pos] = D[rows, cols]
    Idx[rows, pos] = cols
    # positions follow column order, so ties still go to the lower training index
    return np.take_along_axis(Idx, _select_exact(P, k), axis=1)


def _select_exact(D: np.ndarray, k: int) -> np.ndarray:
    """``_select`` over every column.

    ``argpartition`` picks k candidates; only rows where ties straddle the k-th value (rare
    for continuous data, common for nominal data) are redone with the exact tie rule.
    """
    b, n = D.shape
    if k >= n:
        idx = np.tile(np.arange(n), (b, 1))
    else:
        idx = np.argpartition(D, k - 1, axis=1)[:, :k]
        kth = np.take_along_axis(D, idx, axis=1).max(axis=1, keepdims=True)
        redo = np.flatnonzero((D <= kth).sum(axis=1) > k)
        if redo.size:
            Dr, kr = D[redo], kth[redo]
            less = Dr < kr
            ties = Dr == kr
            need = k - less.sum(axis=1, keepdims=True)
            take = less | (ties & (np.cumsum(ties, axis=1) <= need))
            idx[redo] = np.nonzero(take)[1].reshape(len(redo), k)
    d = np.take_along_axis(D, idx, axis=1)
    return np.take_along_axis(idx, np.lexsort((idx, d), axis=-1), axis=1)


def _iter_neighbours(Xtr, Xte, nominal, n_cat, weights, k):
    """Yield (start, stop, neighbour indices) per block of test rows."""
    w = np.asarray(weights, dtype=np.float64)
    nominal = np.asarray(nominal, bool)
    n_cat = np.asarray(n_cat)
    inv_quantum = 2.0 ** 40 / float(w.sum())
    active = w > 0
    if not active.all():
        # only weighted columns enter a distance (``_embed`` skips the others, column by
        # column): the same distances from the top-f columns alone, without passes over all
        # F columns of the training part for every f of a curve
        J = np.flatnonzero(active)
        Xtr, Xte = np.asarray(Xtr)[:, J], np.asarray(Xte)[:, J]
        nominal, n_cat, w = nominal[J], n_cat[J], w[J]
    # numeric features beyond 2**64 (±1.7e308: max - min overflows): one exact power-of-two
    # scale for train and test, which leaves every normalised distance unchanged
    e = np.maximum(exponents(Xtr, small=False), exponents(Xte, small=False))
    e[nominal] = 0
    Xtr, Xte = scale(Xtr, e), scale(Xte, e)
    emb = _embed(Xtr, Xte, nominal, n_cat, w)
    n = Xtr.shape[0]
    for s, e in _blocks(Xte.shape[0], n):
        # the row term is constant within a row: it cannot change a row's neighbour order,
        # so only A·Bᵀ + col is formed (then snapped to the tie grid)
        D = emb.A[s:e] @ emb.B.T
        D += emb.col[None, :]
        D *= inv_quantum
        np.rint(D, out=D)
        yield s, e, _select(D, k)


def neighbours(Xtr: np.ndarray, Xte: np.ndarray, nominal: np.ndarray, n_cat: np.ndarray,
               weights: np.ndarray, k: int) -> np.ndarray:
    """(m, min(k, n)) training-row indices of each test row's nearest neighbours, nearest first.

    ``weights`` are used as given (call ``knn_weights`` on raw importances first).
    """
    Xtr = np.asarray(Xtr, dtype=np.float64)
    Xte = np.asarray(Xte, dtype=np.float64)
    kk = min(k, Xtr.shape[0])
    out = np.empty((Xte.shape[0], kk), dtype=np.intp)
    for s, e, idx in _iter_neighbours(Xtr, Xte, nominal, n_cat, weights, kk):
        out[s:e] = idx
    return out


def _targets_for(train: Dataset) -> tuple[np.ndarray, str]:
    if train.task == "unsupervised" or train.Y is None:
        return train.X, "mean"           # reconstruct every (raw) feature, as P-UNS
    if train.task == "classification":
        return train.Y[:, 0], "votes"
    return train.Y.astype(np.float64), "mean"


_MEAN_PREP: tuple | None = None     # (train, train.X, train.Y, prepared): the last one


def _mean_targets(train: Dataset, Y: np.ndarray):
    """Scaled targets, their known mask, zero-filled values and training means, for the
    "mean" predictions. Kept for the last training part: a top-f curve (and every ranking
    judged on one split) predicts from the same one many times, and for unsupervised data
    these are passes over every feature column."""
    global _MEAN_PREP
    p = _MEAN_PREP
    if p is not None and p[0] is train and p[1] is train.X and p[2] is train.Y:
        return p[3]
    # targets beyond 2**64: neighbour sums in an exact power-of-two scale (undone below)
    ye = exponents(Y, small=False)
    if train.task == "unsupervised":
        ye[train.nominal_mask] = 0
    Y = scale(Y, ye)
    Yk = ~np.isnan(Y)
    Y0 = np.where(Yk, Y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        fallback = Y0.sum(axis=0) / Yk.sum(axis=0)
    prep = (ye, Yk, Y0, fallback)
    _MEAN_PREP = (train, train.X, train.Y, prep)
    return prep


def n_classes(ds: Dataset) -> int:
    """Number of classes of a classification data set (declared categories or max code + 1)."""
    declared = len(ds.targets[0].categories) if ds.targets else 0
    y = ds.Y[:, 0] if ds.Y is not None else np.zeros(0)
    seen = int(np.nanmax(y)) + 1 if y.size and not np.all(np.isnan(y)) else 0
    return max(declared, seen, 1)


def knn_predict(train: Dataset, X_test: np.ndarray, importances: np.ndarray, k: int, *,
                weighted: bool = True, top: int | None = None,
                order: np.ndarray | None = None) -> np.ndarray:
    """Predictions of the weighted kNN trained on ``train`` for the rows of ``X_test``.

    Returns (m, T) mean target vectors (regression, mtr), (m, L) label probabilities (mlc,
    hmlc), (m, C) class-vote shares (classification) or (m, F) mean raw feature vectors
    (unsupervised reconstruction). Targets unknown in a neighbour are left out of that target's
    mean; a target no neighbour knows falls back to its training mean. For label tasks only the
    labeled training rows take part.

    ``top``: keep only the ``top`` best-ranked features (by ``order``, default importances
    descending, stable); ``weighted=False`` gives every kept feature weight 1.
    """
    imp = np.asarray(importances, dtype=np.float64)
    if weighted:
        w = knn_weights(imp)
    else:
        w = np.ones_like(imp)
    if top is not None and top < len(w):
        if order is None:
            key = np.where(np.isnan(imp), -np.inf, imp)
            order = np.argsort(-key, kind="stable")
        keep = np.zeros(len(w), dtype=bool)
        keep[np.asarray(order)[:top]] = True
        w = np.where(keep, w, 0.0)
        if not np.any(w > 0):
            w = keep.astype(np.float64)
    if train.is_label_task and not train.labeled.all():
        train = train.subset(train.labeled)
    Y, how = _targets_for(train)
    X_test = np.asarray(X_test, dtype=np.float64)
    m = X_test.shape[0]
    kk = max(1, min(k, train.n_examples))
    if how == "votes":
        C = n_classes(train)
        out = np.zeros((m, C))
        known = ~np.isnan(Y)
        codes = np.where(known, Y, 0).astype(np.intp)
        onehot = np.zeros((len(Y), C))
        onehot[np.flatnonzero(known), codes[known]] = 1.0
        prior = onehot.sum(axis=0) / max(onehot.sum(), 1.0)
    else:
        ye, Yk, Y0, fallback = _mean_targets(train, Y)
        out = np.zeros((m, Y.shape[1]))
    for s, e, idx in _iter_neighbours(train.X, X_test, train.nominal_mask, train.n_categories,
                                      w, kk):
        if how == "votes":
            votes = onehot[idx].sum(axis=1)                    # (b, C)
            tot = votes.sum(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[s:e] = np.where(tot > 0, votes / tot, prior)
        else:
            num = Y0[idx].sum(axis=1)
            cnt = Yk[idx].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[s:e] = np.where(cnt > 0, num / cnt, fallback)
    if how != "votes" and ye.any():
        out = np.ldexp(out, ye[None, :])
    return out
