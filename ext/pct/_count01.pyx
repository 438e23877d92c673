# cython: language_level=3
"""Integer counting of 0/1 clustering columns (``_count01.pxd``): the plan of which counts
to take, and a Python entry point for its tests (tests/engines/pct/test_count01.py)."""
import numpy as np

from libc.stdlib cimport malloc, free
from libc.stdint cimport uint16_t
from frcli._ext._utils cimport intp_t, int32_t, int64_t, uint8_t
from frcli._ext.pct._criterion cimport Stats, stats_alloc, stats_free, stats_clear


def _onehot_groups(ones, always):
    """Runs of adjacent always-known columns in which every row has exactly one 1 (a
    nominal feature's one-hot block): their last column's ones are the weight less the
    others'. The shortest such run from each column, left to right."""
    n, K = ones.shape
    groups = []
    c = 0
    while c < K:
        s = np.zeros(n, dtype=np.int64)
        e = c
        found = False
        while e < K and always[e]:
            s += ones[:, e]
            e += 1
            if s.max() > 1:
                break
            if n > 0 and s.min() == 1:
                found = True
                break
        if found:
            groups.append((c, e))
            c = e
        else:
            c += 1
    return groups


def count01_plan(C):
    """The counts that give every sum of C's rows when each known value is 0 or 1: (B,
    one_src, known_src, grp, ngroups) as ``Count01`` reads them, or None when a known value
    is neither 0 nor 1 (then the sums need the general path)."""
    X = np.asarray(C, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("C must be 2-d")
    n, K = X.shape
    known = ~np.isnan(X)
    if not np.all((X[known] == 0.0) | (X[known] == 1.0)):
        return None
    ones = (X == 1.0).astype(np.uint8)
    always = known.all(axis=0)
    grp = np.full(K, -1, dtype=np.int32)
    dropped = np.zeros(K, dtype=bool)
    groups = _onehot_groups(ones, always)
    for g, (c, e) in enumerate(groups):
        grp[c:e] = g
        dropped[e - 1] = True
    one_cols = np.flatnonzero(~dropped)
    known_cols = np.flatnonzero(~always)
    one_src = np.full(K, -1, dtype=np.int32)
    one_src[one_cols] = np.arange(one_cols.size, dtype=np.int32)
    known_src = np.full(K, -1, dtype=np.int32)
    known_src[known_cols] = one_cols.size + np.arange(known_cols.size, dtype=np.int32)
    used = one_cols.size + known_cols.size
    B = np.zeros((n, -(-used // 16) * 16), dtype=np.uint8)
    B[:, :one_cols.size] = ones[:, one_cols]
    B[:, one_cols.size:used] = known[:, known_cols]
    return B, one_src, known_src, grp, len(groups)


cdef int count01_scratch(Count01* q) noexcept nogil:
    """A tree's scratch of the plan q (0, or -1 without memory: nothing to free then)."""
    q.cnt = <int64_t*>malloc((q.Kc + 1) * sizeof(int64_t))
    q.acc = <uint16_t*>malloc((q.Kc + 1) * sizeof(uint16_t))
    q.gsum = <int64_t*>malloc((q.ngroups + 1) * sizeof(int64_t))
    if q.cnt == NULL or q.acc == NULL or q.gsum == NULL:
        count01_free(q)
        return -1
    return 0


cdef void count01_free(Count01* q) noexcept nogil:
    free(q.cnt)
    free(q.acc)
    free(q.gsum)
    q.cnt = NULL
    q.acc = NULL
    q.gsum = NULL


def cross01_plan(Xt, ncat):
    """The features whose node counts are taken in one pass over the node's rows
    (``frcli_cross01_rows``): nominal features with two values known in every row (0 or 1
    exactly). fv (F,) uint8: the value whose rows are listed (the rarer one in the data;
    255: not such a feature); rptr (n + 1,) int64 and rfeat int32: per row, the listed
    features with that value, ascending. None when no feature qualifies."""
    X = np.asarray(Xt, dtype=np.float64)
    nc = np.asarray(ncat)
    F, n = X.shape
    fv = np.full(F, 255, dtype=np.uint8)
    for f in range(F):
        x = X[f]
        if nc[f] == 2 and np.all((x == 0.0) | (x == 1.0)):
            fv[f] = 1 if 2 * int((x == 1.0).sum()) <= n else 0
    feats = np.flatnonzero(fv != 255)
    if feats.size == 0:
        return None
    hit = X[feats] == fv[feats, None].astype(np.float64)         # (nb, n)
    rows, which = np.nonzero(hit.T)                               # row-major, f ascending
    rptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=rptr[1:])
    return fv, rptr, np.ascontiguousarray(feats[which], dtype=np.int32)


cdef int _bind(Count01* q, const uint8_t[:, ::1] b, const int32_t[::1] one_src,
               const int32_t[::1] known_src, const int32_t[::1] grp,
               intp_t ngroups) except -1:
    """q over a plan's arrays (the caller keeps them alive), with its scratch."""
    if b.shape[1] == 0 or grp.shape[0] == 0:
        raise ValueError("nothing to count")
    q.B = &b[0, 0]
    q.Kc = b.shape[1]
    q.K = grp.shape[0]
    q.one_src = &one_src[0]
    q.known_src = &known_src[0]
    q.grp = &grp[0]
    q.ngroups = ngroups
    if count01_scratch(q) != 0:
        raise MemoryError()
    return 0


cdef tuple _sums(const Stats* s, intp_t K):
    cdef intp_t c
    return (s.W, np.array([s.s1[c] for c in range(K)]), np.array([s.s2[c] for c in range(K)]),
            np.array([s.nk[c] for c in range(K)]))


def subset_sums01(C, rows, sw, bint neg=False, total=None):
    """(W, s1, s2, nk) of ``rows`` of C weighted by ``sw`` through ``stats01_rows``: added to
    zeros, or (``neg``) taken from ``total`` = (W, s1, s2, nk); None when the kernel refuses
    the weights."""
    plan = count01_plan(C)
    if plan is None:
        raise ValueError("C has a known value other than 0 and 1")
    B, one_src_a, known_src_a, grp_a, ngroups = plan
    cdef const uint8_t[:, ::1] b = B
    cdef const int32_t[::1] one_src = one_src_a
    cdef const int32_t[::1] known_src = known_src_a
    cdef const int32_t[::1] grp = grp_a
    cdef const int32_t[::1] r = np.ascontiguousarray(rows, dtype=np.int32)
    cdef const double[::1] w = np.ascontiguousarray(sw, dtype=np.float64)
    cdef intp_t K = grp.shape[0], m = r.shape[0], c
    if w.shape[0] != m or (m > 0 and (np.min(r) < 0 or np.max(r) >= b.shape[0])):
        raise ValueError("rows and sw must match and index C")
    cdef int32_t none = -1
    cdef Count01 q
    _bind(&q, b, one_src, known_src, grp, ngroups)
    cdef Stats s
    cdef int rc
    if stats_alloc(&s, K) != 0:
        count01_free(&q)
        raise MemoryError()
    try:
        stats_clear(&s, K)
        if total is not None:
            s.W = float(total[0])
            for c in range(K):
                s.s1[c] = total[1][c]
                s.s2[c] = total[2][c]
                s.nk[c] = total[3][c]
        rc = stats01_rows(&s, &q, &r[0] if m > 0 else &none, &w[0] if m > 0 else NULL,
                          m, neg)
        if rc != 0:
            return None
        return _sums(&s, K)
    finally:
        stats_free(&s)
        count01_free(&q)


def cross_sums01(C, Xt, ncat, rows, wt):
    """Per feature of ``cross01_plan(Xt, ncat)`` (ascending): (feature, listed value, W,
    s1, s2, nk) of ``rows`` (weights wt) with that value, through ``frcli_cross01_rows``
    and ``stats01_apply``; None when the kernel refuses the weights."""
    plan = count01_plan(C)
    x01 = cross01_plan(Xt, ncat)
    if plan is None or x01 is None:
        raise ValueError("C must hold 0/1/unknown values and Xt a two-valued nominal feature")
    B, one_src_a, known_src_a, grp_a, ngroups = plan
    fv_a, rptr_a, rfeat_a = x01
    feats = np.flatnonzero(fv_a != 255)
    slot_a = np.full(fv_a.shape[0], -1, dtype=np.int32)
    slot_a[feats] = np.arange(feats.size, dtype=np.int32)
    cdef const uint8_t[:, ::1] b = B
    cdef const int32_t[::1] one_src = one_src_a
    cdef const int32_t[::1] known_src = known_src_a
    cdef const int32_t[::1] grp = grp_a
    cdef const int64_t[::1] rptr = rptr_a
    cdef const int32_t[::1] rfeat = rfeat_a if rfeat_a.shape[0] > 0 else np.zeros(1, np.int32)
    cdef const int32_t[::1] slot = slot_a
    cdef const int32_t[::1] r = np.ascontiguousarray(rows, dtype=np.int32)
    cdef const double[::1] w = np.ascontiguousarray(wt, dtype=np.float64)
    cdef intp_t K = grp.shape[0], m = r.shape[0], nb = feats.size, Kc = b.shape[1], j, c
    if w.shape[0] != m or (m > 0 and (np.min(r) < 0 or np.max(r) >= b.shape[0])):
        raise ValueError("rows and wt must match and index C")
    if Kc == 0 or K == 0:
        raise ValueError("nothing to count")
    cdef int64_t[::1] cnt = np.zeros(nb * Kc + 1, dtype=np.int64)
    cdef uint16_t[::1] acc = np.zeros(nb * Kc + 1, dtype=np.uint16)
    cdef int64_t[::1] wj = np.zeros(nb + 1, dtype=np.int64)
    cdef int64_t tot
    cdef int32_t none = -1
    if frcli_cross01_rows(&cnt[0], &acc[0], &wj[0], &b[0, 0], Kc, &r[0] if m > 0 else &none,
                          &w[0] if m > 0 else NULL, m, &rptr[0], &rfeat[0], &slot[0], nb,
                          &tot) != 0:
        return None
    cdef Count01 q
    cdef Stats s
    _bind(&q, b, one_src, known_src, grp, ngroups)
    if stats_alloc(&s, K) != 0:
        count01_free(&q)
        raise MemoryError()
    out = []
    try:
        for j in range(nb):
            stats_clear(&s, K)
            stats01_apply(&s, &q, &cnt[j * Kc], wj[j], False)
            out.append((int(feats[j]), int(fv_a[feats[j]])) + _sums(&s, K))
        return out
    finally:
        stats_free(&s)
        count01_free(&q)
