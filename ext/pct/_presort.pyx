# cython: language_level=3
"""Presorted row lists for the exact splitter (CLUS sorts once too).

``order`` holds, per presorted feature, all rows of the data in ascending value order (one
stable sort per forest: ``value_order``, a radix sort of the values' bit patterns, which
``count_plan`` shares). A tree keeps the rows of its bag, in that order, as one list per
feature; when a node splits, each list's segment of the node is partitioned stably into
[right | left], the layout of the node buffer, so both children find their rows sorted. The
builder stops partitioning below ``min_rows`` rows, where sorting the few candidate features
of a node costs less than moving every feature's list.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset
from frcli._ext._utils cimport int64_t, uint64_t


cdef int presort_init(Presort* ps, const int32_t* order, const int32_t* slot, intp_t nf,
                      const uint8_t* tied, intp_t n, const int32_t* idx0, const double* wt0,
                      intp_t m0, intp_t min_rows) noexcept nogil:
    """Lists of the bag rows idx0 (weights wt0, each row once) for the nf features (order:
    (nf, n), ``presort_runs``' run starts marked where tied[k])."""
    cdef intp_t k, i, q
    cdef const uint32_t* o
    cdef uint32_t* L
    cdef uint32_t x, r, run, keep
    memset(ps, 0, sizeof(Presort))
    ps.n = n
    ps.m0 = m0
    ps.nf = nf
    ps.slot = slot
    ps.min_rows = min_rows
    ps.tied = tied
    ps.lists = <int32_t*>malloc((nf * m0 + 1) * sizeof(int32_t))     # +1: the fill below writes one past a list
    ps.tmp = <int32_t*>malloc((m0 + 1) * sizeof(int32_t))
    ps.right = <uint8_t*>calloc(n + 1, 1)
    ps.wrow = <double*>calloc(n + 1, sizeof(double))
    if ps.lists == NULL or ps.tmp == NULL or ps.right == NULL or ps.wrow == NULL:
        return -1
    for i in range(m0):
        ps.wrow[idx0[i]] = wt0[i]
    for k in range(nf):
        o = <const uint32_t*>order + k * n
        L = <uint32_t*>ps.lists + k * m0
        q = 0
        if tied[k] != 1:
            for i in range(n):          # branch-free: about 1 row in 3 is out of the bag
                r = o[i]
                L[q] = r
                q += ps.wrow[r] > 0.0
        else:                           # a bag row starts a run when a row since the
            run = 0                     # previous bag row (itself included) starts one
            for i in range(n):
                x = o[i]
                r = x & ROW_MASK
                run |= x & RUN_START
                L[q] = r | run
                keep = ps.wrow[r] > 0.0
                q += keep
                run &= keep - 1         # (cleared once written)
        if q != m0:
            return -1
    return 0


cdef void presort_free(Presort* ps) noexcept nogil:
    free(ps.lists)
    free(ps.tmp)
    free(ps.right)
    free(ps.wrow)
    ps.lists = ps.tmp = NULL
    ps.right = NULL
    ps.wrow = NULL


cdef void presort_partition(Presort* ps, intp_t s, intp_t e) noexcept nogil:
    """Stable [right | left] partition of every list's segment [s, e) by ``ps.right``. In a
    list with run starts, a child's entry starts a run when an entry of the parent between
    the child's previous entry and itself (itself included) starts one: the child's values
    differ there, as its entries keep their order."""
    cdef intp_t k, p, nr, nl
    cdef uint32_t* L
    cdef uint32_t r, x, g, runR, runL
    cdef uint32_t* tmp = <uint32_t*>ps.tmp
    cdef const uint8_t* right = ps.right
    for k in range(ps.nf):
        L = <uint32_t*>ps.lists + k * ps.m0
        nr = s
        nl = 0
        if ps.tied[k] != 1:
            for p in range(s, e):      # branch-free: the sides are as unpredictable as coins
                r = L[p]
                g = right[r]
                L[nr] = r
                tmp[nl] = r
                nr += g
                nl += 1 - g
        else:
            runR = runL = 0
            for p in range(s, e):
                x = L[p]
                r = x & ROW_MASK
                g = right[r]
                runR |= x & RUN_START
                runL |= x & RUN_START
                L[nr] = r | runR
                tmp[nl] = r | runL
                nr += g
                nl += 1 - g
                runR &= g - 1           # the side written is cleared
                runL &= 0 - g
        memcpy(L + nr, tmp, nl * sizeof(int32_t))


import numpy as np

# -- stable value orders ------------------------------------------------------------------
# A least-significant-digit radix sort of the values' bit patterns (11-bit digits, a pass
# skipped where every value shares the digit): the order of a stable comparison sort
# (ascending values, equal values by row), computed in a few passes over the column.

cdef enum:
    RADIX_BITS = 11
    RADIX_BINS = 2048
    RADIX_PASSES = 6


cdef inline uint64_t _key(double v) noexcept nogil:
    """An unsigned integer with the order of the doubles (not NaN); -0.0 and 0.0 alike."""
    cdef uint64_t b
    if v == 0.0:
        v = 0.0
    memcpy(&b, &v, 8)
    if b >> 63:
        return ~b
    return b | (<uint64_t>1 << 63)


cdef void _radix_order(const double* x, intp_t n, int32_t* out, uint64_t* k1, uint64_t* k2,
                       int32_t* i2, intp_t* hist) noexcept nogil:
    """out = the stable ascending order of x[:n] (k1, k2, i2: n scratch each; hist:
    RADIX_PASSES * RADIX_BINS)."""
    cdef intp_t i, d, b, run, c
    cdef uint64_t k, mask = RADIX_BINS - 1
    cdef int shift
    cdef uint64_t* ka = k1
    cdef uint64_t* kb = k2
    cdef int32_t* ia = out
    cdef int32_t* ib = i2
    cdef uint64_t* kt
    cdef int32_t* it
    cdef intp_t* h
    memset(hist, 0, RADIX_PASSES * RADIX_BINS * sizeof(intp_t))
    for i in range(n):
        k = _key(x[i])
        ka[i] = k
        ia[i] = <int32_t>i
        for d in range(RADIX_PASSES):
            hist[d * RADIX_BINS + ((k >> (d * RADIX_BITS)) & mask)] += 1
    for d in range(RADIX_PASSES):
        h = hist + d * RADIX_BINS
        shift = d * RADIX_BITS
        if n == 0 or h[(ka[0] >> shift) & mask] == n:
            continue                    # one digit for all: the pass keeps the order
        run = 0
        for b in range(RADIX_BINS):
            c = h[b]
            h[b] = run
            run += c
        for i in range(n):
            k = ka[i]
            b = (k >> shift) & mask
            kb[h[b]] = k
            ib[h[b]] = ia[i]
            h[b] += 1
        kt = ka
        ka = kb
        kb = kt
        it = ia
        ia = ib
        ib = it
    if ia != out:
        memcpy(out, ia, n * sizeof(int32_t))


def value_order(const double[::1] x):
    """The stable ascending order of x (no NaN) as int32: ``np.argsort(x, kind="stable")``."""
    cdef intp_t n = x.shape[0]
    out = np.empty(max(n, 1), dtype=np.int32)
    k1 = np.empty(max(n, 1), dtype=np.uint64)
    k2 = np.empty(max(n, 1), dtype=np.uint64)
    i2 = np.empty(max(n, 1), dtype=np.int32)
    hist = np.empty(RADIX_PASSES * RADIX_BINS, dtype=np.intp)
    cdef int32_t[::1] o = out, j2 = i2
    cdef uint64_t[::1] a1 = k1, a2 = k2
    cdef intp_t[::1] hh = hist
    if n > 0:
        with nogil:
            _radix_order(&x[0], n, &o[0], &a1[0], &a2[0], &j2[0], &hh[0])
    return out[:n]


def _order(X, f, orders):
    """Feature f's stable value order: taken out of the ``orders`` cache (a dict or None),
    where ``count_plan`` leaves those of the features it does not code, or computed."""
    if orders is not None and f in orders:
        return orders.pop(f)
    return value_order(np.ascontiguousarray(X[f]))



cdef enum:
    HASH_BITS = 10          # the distinct values' table: 1024 slots for at most 257 keys
    HASH_SLOTS = 1024


cdef intp_t _column_codes(const double* x, intp_t n, uint8_t* code, double* vals,
                          uint64_t* keys, int32_t* slot_of) noexcept nogil:
    """Each row's index among the column's distinct values (code) and those values ascending
    (vals), in two passes and without sorting the rows: the number of distinct values, 257
    when there are more than 256 (code and vals then unfinished), or -1 when a value is
    missing. Values that compare equal (-0.0 and 0.0) are one value, kept as its first row
    holds it, as the first of its run in the stable value order. keys, slot_of: HASH_SLOTS
    scratch each."""
    cdef intp_t i, j, h, nv = 0
    cdef uint64_t k
    cdef double v, t
    cdef double asc[256]
    cdef int32_t byv[256]
    cdef uint8_t rk[256]
    for h in range(HASH_SLOTS):
        slot_of[h] = -1
    for i in range(n):
        v = x[i]
        if v != v:
            return -1
        k = _key(v)
        h = <intp_t>((k * <uint64_t>0x9E3779B97F4A7C15ULL) >> (64 - HASH_BITS))
        while slot_of[h] >= 0 and keys[h] != k:
            h = (h + 1) & (HASH_SLOTS - 1)
        if slot_of[h] < 0:
            if nv == 256:
                return 257
            keys[h] = k
            slot_of[h] = <int32_t>nv
            vals[nv] = v
            nv += 1
        code[i] = <uint8_t>slot_of[h]
    # the distinct values ascending (insertion sort of at most 256; no two compare equal)
    for j in range(nv):
        byv[j] = <int32_t>j
    for j in range(1, nv):
        i = byv[j]
        t = vals[i]
        h = j - 1
        while h >= 0 and vals[byv[h]] > t:
            byv[h + 1] = byv[h]
            h -= 1
        byv[h + 1] = <int32_t>i
    for j in range(nv):
        rk[byv[j]] = <uint8_t>j
        asc[j] = vals[byv[j]]
    memcpy(vals, asc, nv * sizeof(double))
    for i in range(n):
        code[i] = rk[code[i]]
    return nv


cdef intp_t _column_plan(const double* x, intp_t n, int32_t* o, uint8_t* code, double* vals,
                         uint64_t* k1, uint64_t* k2, int32_t* i2, intp_t* hist) noexcept nogil:
    """The column's stable value order (o) and number of distinct values, or -1 when a value
    is missing; with at most 256 values, also the values ascending (vals) and each row's
    index among them (code)."""
    cdef intp_t i, nv = 0
    cdef int32_t r
    cdef double v, prev = 0.0
    for i in range(n):
        if x[i] != x[i]:
            return -1
    _radix_order(x, n, o, k1, k2, i2, hist)
    for i in range(n):
        r = o[i]
        v = x[r]
        if i == 0 or v != prev:
            if nv < 256:
                vals[nv] = v
            nv += 1
            prev = v
        if nv <= 256:
            code[r] = <uint8_t>(nv - 1)
    return nv


def count_plan(const double[:, ::1] Xt, const int32_t[::1] ncat, orders=None):
    """The numeric features without missing values that hold at most 256 values, for
    ``_splitter._sweep_values``: (cslot (F,) int32: column of the codes and row of the values,
    -1 none, -2 a single value in the data; codes (n, nc) uint8: each row's value index;
    values (nc, 256) float64: the values, ascending), or None when no feature qualifies. The
    codes are stored row by row (n, nc): a node reads its rows' codes of all its candidates
    in one pass. A column's codes come from a table of its distinct values
    (``_column_codes``, no sort of the rows); only a column with more values is sorted
    (``_column_plan``), and ``orders`` (a dict) receives those value orders, which
    ``presort_plan`` then needs not sort again."""
    cdef intp_t F = Xt.shape[0], n = Xt.shape[1], f, nv
    cdef const int32_t[::1] k = ncat
    cslot = np.full(F, -1, dtype=np.int32)
    codes, values = [], []
    if n == 0:
        return None
    k1 = np.empty(n, dtype=np.uint64)
    k2 = np.empty(n, dtype=np.uint64)
    i2 = np.empty(n, dtype=np.int32)
    hist = np.empty(RADIX_PASSES * RADIX_BINS, dtype=np.intp)
    cdef uint64_t[::1] a1 = k1, a2 = k2
    cdef int32_t[::1] j2 = i2, ov
    cdef intp_t[::1] hh = hist
    cdef uint8_t[::1] cv
    cdef double[::1] vv
    hkeys = np.empty(HASH_SLOTS, dtype=np.uint64)
    hslot = np.empty(HASH_SLOTS, dtype=np.int32)
    cdef uint64_t[::1] hk = hkeys
    cdef int32_t[::1] hs = hslot
    for f in range(F):
        if k[f] != 0:
            continue
        code = np.empty(n, dtype=np.uint8)
        v = np.zeros(256)
        cv = code
        vv = v
        with nogil:
            nv = _column_codes(&Xt[f, 0], n, &cv[0], &vv[0], &hk[0], &hs[0])
        if nv < 0:
            continue
        if nv > 256:        # the rows' value order, for the presorted lists
            o = np.empty(n, dtype=np.int32)
            ov = o
            with nogil:
                nv = _column_plan(&Xt[f, 0], n, &ov[0], &cv[0], &vv[0], &a1[0], &a2[0],
                                  &j2[0], &hh[0])
        if nv == 1:
            cslot[f] = -2
        elif nv <= 256:
            cslot[f] = len(codes)
            codes.append(code)
            values.append(v)
        elif orders is not None:
            orders[f] = o
    if not codes and not (cslot == -2).any():
        return None
    if not codes:
        return cslot, np.zeros((max(n, 1), 1), np.uint8), np.zeros((1, 256))
    return (cslot, np.ascontiguousarray(np.column_stack(codes)),
            np.ascontiguousarray(np.vstack(values)))


def presort_plan(const double[:, ::1] Xt, const int32_t[::1] ncat, intp_t max_features,
                 bint extra, min_rows=None, skip=None, orders=None):
    """Which features to presort, their row orders and the partition threshold.

    Returns (order (nf, n) int32, slot (F,) int32, min_rows); nf = 0 means no presorting.
    Extra trees never sort, nominal features and features with missing values are not
    presorted, nor those where ``skip`` ((F,) bool, e.g. ``count_plan``'s) is set.
    ``orders`` caches the value orders (shared with ``count_plan``). ``min_rows`` None
    chooses the node size above which moving every list costs less than sorting the node's
    candidate features (see ``auto_min_rows``).
    """
    cdef intp_t F = Xt.shape[0], n = Xt.shape[1]
    slot = np.full(F, -1, dtype=np.int32)
    empty = (np.zeros((0, 1), dtype=np.int32), slot, 0)
    if extra or n < 4 or F == 0:
        return empty
    if min_rows is None:
        min_rows = auto_min_rows(F, max_features if 0 < max_features <= F else F)
    if min_rows > n:
        return empty
    X = np.asarray(Xt)
    keep = (np.asarray(ncat) == 0) & ~np.isnan(X).any(axis=1)
    if skip is not None:
        keep &= ~np.asarray(skip, dtype=bool)
    cand = np.flatnonzero(keep)
    if cand.size == 0:
        return empty
    order = np.empty((cand.size, n), dtype=np.int32)
    for k, f in enumerate(cand):
        order[k] = _order(X, f, orders)
    slot[cand] = np.arange(cand.size, dtype=np.int32)
    return order, slot, int(min_rows)


def auto_min_rows(intp_t F, intp_t max_features):
    """Partition nodes of at least 2**(0.4 F / max_features) rows.

    Splitting a node of m rows moves all nf lists (cost ~ nf m) and saves sorting its
    presorted candidates, about max_features nf / F of them (cost ~ m log2 m each): the
    lists pay while log2 m > c F / max_features, and c = 0.4 was measured on the synthetic
    scaling data (F = 40, max_features = 7, full precision and 3 digits, 4k to 64k rows:
    fit CPU flat within noise for 4-6 rows, 2-7 % above that at 11 rows and more). With all
    features as candidates (bagging) every node is partitioned; for wide data with few
    candidates per node (atp1d: 411 features, 21 candidates) only nodes of a few hundred
    rows are, and past 62 doublings the forest does not presort at all.
    """
    cdef double e = 0.4 * F / max(max_features, 1)
    if e > 62:
        return 1 << 62
    return max(2, int(round(2.0 ** e)))


def nominal_default_rows(const double[:, ::1] Xt, const int32_t[::1] ncat):
    """For the nominal features without missing or out-of-range codes: the most common value
    (default) and, per feature, the rows off it in ascending order (CSR over features).

    Returns (indptr (F + 1,) int64, rows int32, default (F,) int32 with -1 = not eligible) or
    None when no feature is eligible. The splitter then visits only those rows of a node
    (``_batch_categories``).
    """
    cdef intp_t F = Xt.shape[0], n = Xt.shape[1], f
    X = np.asarray(Xt)
    k = np.asarray(ncat)
    default = np.full(F, -1, dtype=np.int32)
    parts = []
    counts = np.zeros(F + 1, dtype=np.int64)
    for f in range(F):
        if k[f] <= 0 or n == 0:
            continue
        col = X[f]
        if np.isnan(col).any() or (col < 0).any() or (col >= k[f]).any():
            continue
        c = col.astype(np.intp)
        if not np.array_equal(c, col):
            continue
        d = int(np.argmax(np.bincount(c, minlength=k[f])))
        default[f] = d
        rows = np.flatnonzero(c != d).astype(np.int32)
        parts.append(rows)
        counts[f + 1] = rows.size
    if not parts:
        return None
    indptr = np.cumsum(counts)
    rows = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    if rows.size == 0:
        rows = np.zeros(1, dtype=np.int32)
    return indptr, np.ascontiguousarray(rows, dtype=np.int32), default


def nominal_row_lists(const double[:, ::1] Xt, const int64_t[::1] indptr,
                      const int32_t[::1] rows):
    """The entries of ``nominal_default_rows`` with their values, and listed by row.

    Returns (val int32 aligned with rows, rptr (n + 1,) int64, feat int32, val_by_row int32):
    row r's features off their common value are feat[rptr[r]:rptr[r + 1]] (ascending), with
    those values. A node then finds all its candidates' such rows in one pass over its rows.
    """
    cdef intp_t F = Xt.shape[0], n = Xt.shape[1]
    ptr = np.asarray(indptr)
    nnz = int(ptr[F])
    r = np.asarray(rows)[:nnz]
    feat = np.repeat(np.arange(F, dtype=np.int32), np.diff(ptr))
    val = np.asarray(Xt)[feat, r].astype(np.int32)
    order = np.argsort(r, kind="stable")
    rptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=rptr[1:])
    pad = np.zeros(1, dtype=np.int32)           # memoryviews of empty arrays have no [0]
    return (np.concatenate([val, pad]), rptr, np.concatenate([feat[order], pad]),
            np.concatenate([val[order], pad]))


def presort_runs(const double[:, ::1] Xt, order, slot, double sparse_ties=0.0):
    """Mark the run starts of the presorted features with ties in their value orders
    (``order``, (nf, n) int32, modified: RUN_START on each position whose value is above
    the previous one's, the first position included) and return tied ((nf,) uint8: 0 where
    no two values of the feature are equal, 1 marked, 2 unmarked with ties). A feature
    without ties is swept from its list alone (``_splitter._sweep_tiefree``), one with ties
    by its runs (``_splitter._sweep_runs``). A feature whose tied rows (those not first of
    their value) are fewer than ``sparse_ties`` of the rows is left unmarked (2): its list
    is partitioned as a tie-free one, and its sweep checks that a cut lies between two
    values only where the cut can matter (``_splitter._sweep_tiefree`` with ``fewties``):
    the rounded values of a CSV file with 6 digits have a few ties, and marks would make
    every node's partition of the list dearer. Rows need at most 31 bits."""
    cand = np.flatnonzero(np.asarray(slot) >= 0)
    nf = len(cand)
    o = np.asarray(order)
    tied = np.zeros(max(nf, 1), dtype=np.uint8)
    if nf and o.shape[1] > ROW_MASK:
        raise ValueError("presorted lists hold at most 2**31 - 1 rows")
    for k in range(nf):
        vals = np.asarray(Xt)[cand[k]][o[k]]
        step = np.concatenate([[True], vals[1:] > vals[:-1]])
        ntied = step.size - int(np.count_nonzero(step))
        if ntied == 0:
            continue
        if ntied < sparse_ties * step.size:
            tied[k] = 2
        else:
            tied[k] = 1
            o[k] |= np.where(step, np.int32(-2 ** 31), np.int32(0))
    return tied


def _partitioned_lists(const int32_t[:, ::1] order, const int32_t[::1] slot,
                       const uint8_t[::1] tied, const int32_t[::1] idx0,
                       const double[::1] wt0, splits):
    """Testing hook: a tree's lists of the bag rows idx0 (weights wt0) from ``order``
    (``presort_runs``' marks included) after the partitions ``splits``, each (s, e, right):
    the segment [s, e) of the lists split by right ((n,) uint8, 1 = the row goes right), as
    the builder splits a node. Returns the lists (nf, m0) int32, marks included."""
    cdef Presort ps
    cdef intp_t nf = order.shape[0], n = order.shape[1], m0 = idx0.shape[0], i
    cdef const uint8_t[::1] rv
    if nf == 0 or m0 == 0:
        raise ValueError("no lists")
    if presort_init(&ps, &order[0, 0], &slot[0], nf, &tied[0], n, &idx0[0], &wt0[0], m0, 2):
        presort_free(&ps)
        raise MemoryError()
    try:
        for s, e, right in splits:
            rv = right
            if rv.shape[0] != n or not 0 <= s <= e <= m0:
                raise ValueError("a split out of range")
            for i in range(n):
                ps.right[i] = rv[i]
            presort_partition(&ps, s, e)
        out = np.empty((nf, m0), dtype=np.int32)
        out.ravel()[:] = <int32_t[:nf * m0]>ps.lists
        return out
    finally:
        presort_free(&ps)
