# cython: language_level=3
"""SSL-Relief tuning kernel: the influence-weighted sums of every fold in one pass over the
neighbour pairs (``frcli.engines.relief.tune._ssl_grid``).

A pair (r, n) of fold f weighs ω_r ω_n with ω = a + w1 b + w0 c (a = 1 for the fold's
labeled rows; b = 1 - t, c = t for the others, t their influence position), a combination
of six monomials in (a, b, c) of r and n with coefficients in (w0, w1). For every output
column (a group of pairs that share their neighbour-slot weights, or one k) the kernel sums,
per fold and monomial, m_j D[p, :] and m_j dc D[p, :] (dc: the pair's clustering distance
in that fold), and the same without D. A labeled row has b = c = 0, so at most three of the
six monomials of a pair are non-zero: the zero ones are skipped. Nothing of size
pairs x monomials is materialised.

Parallel over blocks of features; every feature is summed over the pairs in their given
order, so the result does not depend on the thread count.
"""
import numpy as np
from cython.parallel cimport prange
from libc.stdlib cimport calloc, free, malloc

cdef enum:
    FB = 64          # features per parallel task


cdef extern from *:
    """
    /* a0 += w d, a1 += wd d over [f0, f1): the pair's share in both sums of one monomial.
       The rows never overlap (restrict), so it vectorises; built for AVX2 and baseline
       x86-64, chosen at load time (GCC function multi-versioning, as ext/relief/_relief.pyx).
       AVX2 brings no FMA: each term is a product and a sum, rounded as before. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_GRID_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FRCLI_GRID_CLONES
    #endif
    FRCLI_GRID_CLONES static void frcli_grid_add(
            double* __restrict a0, double* __restrict a1, double w, double wd,
            const double* __restrict d, Py_ssize_t f0, Py_ssize_t f1) {
        for (Py_ssize_t i = f0; i < f1; i++) {
            a0[i] += w * d[i];
            a1[i] += wd * d[i];
        }
    }
    """
    void frcli_grid_add(double* a0, double* a1, double w, double wd, const double* d,
                        Py_ssize_t f0, Py_ssize_t f1) noexcept nogil


cdef inline void _add(double* a0, double* a1, double w, double wd, const double* d,
                      Py_ssize_t f0, Py_ssize_t f1) noexcept nogil:
    frcli_grid_add(a0, a1, w, wd, d, f0, f1)


cdef inline void _pair(const unsigned char* lab, const double* t, int r, int s, double pw,
                       double dc, double* acc, double* tot, const double* d, Py_ssize_t F,
                       Py_ssize_t f0, Py_ssize_t f1) noexcept nogil:
    """One pair in one fold: its non-zero monomials m_j (ar an, ar bn + br an, ar cn + cr an,
    br bn, br cn + cr bn, cr cn) times pw added to acc (2, 6, F) and, when ``tot`` is not
    NULL, to tot (2, 6)."""
    cdef double m[6]
    cdef double tr, ts, w
    cdef int j
    if lab[r] and lab[s]:
        m[0] = 1.0
        m[1] = m[2] = m[3] = m[4] = m[5] = 0.0
    elif lab[r]:            # ar = 1, an = 0, bn = 1 - ts, cn = ts
        ts = t[s]
        m[0] = m[3] = m[4] = m[5] = 0.0
        m[1] = 1.0 - ts
        m[2] = ts
    elif lab[s]:
        tr = t[r]
        m[0] = m[3] = m[4] = m[5] = 0.0
        m[1] = 1.0 - tr
        m[2] = tr
    else:
        tr = t[r]
        ts = t[s]
        m[0] = m[1] = m[2] = 0.0
        m[3] = (1.0 - tr) * (1.0 - ts)
        m[4] = (1.0 - tr) * ts + tr * (1.0 - ts)
        m[5] = tr * ts
    for j in range(6):
        if m[j] != 0.0:
            w = pw * m[j]
            if tot != NULL:
                tot[j] += w
                tot[6 + j] += w * dc
            _add(acc + j * F, acc + (6 + j) * F, w, w * dc, d, f0, f1)


def accumulate(const double[:, ::1] D, const int[::1] ra, const int[::1] rb,
               const int[::1] col, const double[::1] pw, const unsigned char[:, ::1] lab,
               const double[:, ::1] t, const double[:, ::1] dc,
               double[:, :, :, :, ::1] acc, double[:, :, :, ::1] tot, int jobs=1):
    """Add every pair p's sums into column ``col[p]`` (pairs with col < 0 are skipped):
    acc[col, f, 0, j, :] += pw m_j D[p], acc[col, f, 1, j, :] += pw m_j dc[f, p] D[p], and
    tot[col, f, ., j] the same without D, for every fold f (rows of ``lab``, ``t``, ``dc``)
    and monomial j. Shapes: D (P, F); ra, rb, col, pw (P,); lab, t (folds, n); dc (folds, P);
    acc (columns, folds, 2, 6, F); tot (columns, folds, 2, 6)."""
    cdef Py_ssize_t P = D.shape[0], F = D.shape[1], nf = lab.shape[0], n = lab.shape[1]
    cdef Py_ssize_t nb = (F + FB - 1) // FB, blk, f0, f1, p, fo
    cdef int c
    cdef double* accp = &acc[0, 0, 0, 0, 0] if acc.size else NULL
    cdef double* totp = &tot[0, 0, 0, 0] if tot.size else NULL
    cdef double* tq
    if ra.shape[0] != P or rb.shape[0] != P or col.shape[0] != P or pw.shape[0] != P:
        raise ValueError("pair arrays do not match D")
    if t.shape[0] != nf or t.shape[1] != n or dc.shape[0] != nf or dc.shape[1] != P \
            or acc.shape[1] != nf or tot.shape[1] != nf or acc.shape[4] != F \
            or acc.shape[0] != tot.shape[0] or acc.shape[2] != 2 or acc.shape[3] != 6 \
            or tot.shape[2] != 2 or tot.shape[3] != 6:
        raise ValueError("fold or output arrays do not match")
    for p in range(P):
        if ra[p] < 0 or ra[p] >= n or rb[p] < 0 or rb[p] >= n or col[p] >= acc.shape[0]:
            raise ValueError("a pair's row or column is out of range")
    if P == 0:
        return
    if F == 0:
        nb = 1
    with nogil:
        for blk in prange(nb, schedule="static", num_threads=max(1, jobs)):
            f0 = blk * FB
            f1 = f0 + FB if f0 + FB < F else F
            for p in range(P):
                c = col[p]
                if c < 0:
                    continue
                for fo in range(nf):
                    tq = totp + (c * nf + fo) * 12 if blk == 0 else NULL
                    _pair(&lab[fo, 0], &t[fo, 0], ra[p], rb[p], pw[p], dc[fo, p],
                          accp + (c * nf + fo) * 12 * F, tq, &D[p, 0] if F else NULL, F,
                          f0, f1)


def merge_topk(const int[:, :, ::1] nbr, const double[:, :, ::1] dist, int K):
    """Per query row, the first K of the union of B lists (nbr/dist (m, B, Kb)), each sorted
    by (distance, row) and ended by -1: the B-way merge by (distance, row), the neighbour
    search's tie rule (the lists hold disjoint rows). Returns nbr (m, K) (-1 past the end),
    dist (m, K) (0 past the end) and the count (m,), as ``SharedSearch`` serves them."""
    cdef Py_ssize_t m = nbr.shape[0], B = nbr.shape[1], Kb = nbr.shape[2], q, b, best, o
    if dist.shape[0] != m or dist.shape[1] != B or dist.shape[2] != Kb or K < 0:
        raise ValueError("nbr and dist do not match")
    out_n = np.full((m, K), -1, dtype=np.int32)
    out_d = np.zeros((m, K))
    out_c = np.zeros(m, dtype=np.int32)
    cdef int[:, ::1] on = out_n
    cdef double[:, ::1] od = out_d
    cdef int[::1] oc = out_c
    cdef Py_ssize_t* pos = <Py_ssize_t*> malloc(max(B, 1) * sizeof(Py_ssize_t))
    cdef int r, rb
    cdef double d, db
    if pos == NULL:
        raise MemoryError()
    with nogil:
        for q in range(m):
            for b in range(B):
                pos[b] = 0
            for o in range(K):
                best = -1
                for b in range(B):
                    if pos[b] >= Kb or nbr[q, b, pos[b]] < 0:
                        continue
                    rb = nbr[q, b, pos[b]]
                    db = dist[q, b, pos[b]]
                    if best < 0 or db < d or (db == d and rb < r):
                        best = b
                        r = rb
                        d = db
                if best < 0:
                    break
                on[q, o] = r
                od[q, o] = d
                pos[best] += 1
                oc[q] = <int> (o + 1)
    free(pos)
    return out_n, out_d, out_c



cdef Py_ssize_t _smallest(const double* d, const Py_ssize_t* cols, Py_ssize_t m,
                          Py_ssize_t k, double* bv, long long* o) noexcept nogil:
    """The k smallest of d[cols[0..m)] (cols ascending; NULL: 0..m) by (value, column),
    sorted into bv (values) and o (columns) by insertion: a later column never passes an
    equal value. NaN is never taken. Returns how many were found (< k: fewer numbers)."""
    cdef Py_ssize_t i, j, pos, cnt = 0
    cdef double v
    for i in range(m):
        j = cols[i] if cols != NULL else i
        v = d[j]
        if v != v or (cnt == k and not (v < bv[k - 1])):
            continue
        pos = cnt if cnt < k else k - 1         # the slot that frees up
        while pos > 0 and v < bv[pos - 1]:
            bv[pos] = bv[pos - 1]
            o[pos] = o[pos - 1]
            pos -= 1
        bv[pos] = v
        o[pos] = j
        if cnt < k:
            cnt += 1
    return cnt


cdef inline bint _before(double v, Py_ssize_t j, double bv, long long bj) noexcept nogil:
    """(v, j) < (bv, bj): the value, then the lower column."""
    return v < bv or (v == bv and j < bj)


cdef inline void _place(double v, Py_ssize_t j, Py_ssize_t pos, double* bv,
                        long long* o) noexcept nogil:
    """Put (v, j) at or before ``pos`` of the sorted list, moving later entries up one."""
    while pos > 0 and _before(v, j, bv[pos - 1], o[pos - 1]):
        bv[pos] = bv[pos - 1]
        o[pos] = o[pos - 1]
        pos -= 1
    bv[pos] = v
    o[pos] = j


def nearest_k(const double[:, :, ::1] dist, int k):
    """Per row dist[c, q] (n values), the columns of its k smallest values ordered by (value,
    column): the lower column first among equal values, the neighbour search's tie rule (the
    criterion kNN of ``frcli.engines.relief.tune``: c a ranking, q a held-out row). Returns
    (C, Q, k) int64; NaN is never taken, a row with fewer than k numbers is a ValueError.

    Neighbouring rankings mostly agree on a row's nearest columns. The k columns chosen for
    ranking c - 1 have values under ranking c whose largest bounds its k-th smallest from
    above (k values are at most it), so the answer lies among those k columns and the
    others at or below the bound. The k are sorted first (already nearly in order), then
    the others (typically none to two, found by one compare per column without a branch)
    are inserted. Where a chosen column's value is NaN, the whole row is scanned."""
    cdef Py_ssize_t C = dist.shape[0], Q = dist.shape[1], n = dist.shape[2], c, q, j, m, i
    if k < 1 or k > n:
        raise ValueError("k must be in 1..n")
    out = np.empty((C, Q, k), dtype=np.int64)
    cdef long long[:, :, ::1] o = out
    cdef double* bv = <double*> malloc(k * sizeof(double))
    cdef Py_ssize_t* cols = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
    cdef unsigned char* mark = <unsigned char*> calloc(n, 1)
    cdef double bound, v
    cdef const double* d
    cdef long long* oc
    cdef const long long* op
    cdef bint short = False, nan
    if bv == NULL or cols == NULL or mark == NULL:
        free(bv)
        free(cols)
        free(mark)
        raise MemoryError()
    with nogil:
        for c in range(C):
            for q in range(Q):
                d = &dist[c, q, 0]
                oc = &o[c, q, 0]
                if c > 0:
                    op = &o[c - 1, q, 0]
                    nan = False
                    bound = d[op[0]]
                    for i in range(k):          # the previous choice, sorted for this one
                        j = op[i]
                        v = d[j]
                        nan = nan or v != v
                        if v > bound:
                            bound = v
                        _place(v, j, i, bv, oc)
                        mark[j] = 1
                    m = 0
                    for j in range(n):          # the other columns at or below the bound
                        cols[m] = j
                        m += (d[j] <= bound) & (mark[j] == 0)
                    for i in range(k):
                        mark[op[i]] = 0
                    if not nan:
                        for i in range(m):
                            j = cols[i]
                            if _before(d[j], j, bv[k - 1], oc[k - 1]):
                                _place(d[j], j, k - 1, bv, oc)
                        continue
                if _smallest(d, NULL, n, k, bv, oc) < k:
                    short = True
                    break
            if short:
                break
    free(bv)
    free(cols)
    free(mark)
    if short:
        raise ValueError("a row has fewer than k numbers")
    return out
