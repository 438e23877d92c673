# cython: language_level=3
"""Relief kernels: streaming brute-force neighbour search and per-feature accumulation.

Two kernels, both ``nogil`` with OpenMP and both deterministic for any number of threads:

* ``search``: for every sampled instance r, the K nearest neighbours of r in each candidate
  group (one group for regression-style Relief, one per class for ReliefF), under the mean
  per-feature distance d_X. Features are stored (F, n), so the per-feature inner loop over a
  block of candidates is contiguous and vectorises; four queries share every loaded block
  (less memory traffic). A cheap pass (x * 1/range) finds the K-th smallest approximate
  distance, then the few candidates within a proven rounding bound of it are rescored with
  the exact formula |a-b|/range summed in feature order, so the neighbours (and their ties,
  broken by lower row index) are exactly those of the reference definition. Streaming: O(n)
  scratch per thread, never an n x n matrix. Parallel over instances; each writes only its
  own output rows.
* ``accumulate``: per feature i, sums over the sampled instances (in permutation order)
  and neighbour slots of w * d_i and w * d_i * dY_q, per slot class c (= bucket x rank).
  Parallel over blocks of features; every feature is summed sequentially in the same order,
  so results do not depend on the thread count. Snapshots after each requested iteration
  count give every iteration prefix in the same pass (docs/design/relief.md, "The grid in
  one pass").

Distances: ``feature_distance`` of ``_distance.pxd`` (CLUS's conventions, shared by the
family's kernels).
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport parallel, prange, threadid
from libc.math cimport fabs
from libc.stdlib cimport malloc, free

from frcli._ext._utils cimport Progress, progress_add, progress_slots
from frcli._ext.relief._distance cimport (K_NOM, K_NOM_MISS, K_NUM, K_NUM_MISS, RowMerge,
                                          SparseRows, feature_distance, merge_next,
                                          merge_start, sparse_rows)

cnp.import_array()

cdef enum:
    K_EXACT = 4      # numeric scored with the exact formula in both search passes
    BLOCK = 256      # candidates per block (acc: 2 KB)
    FBLOCK = 16      # features per accumulation task
    QB = 4           # queries per search task (share each loaded candidate value)


cdef extern from *:
    """
    #include <math.h>
    /* Approximate distance terms of 4 queries against one feature row of a candidate block.
       Each loaded candidate value serves 4 queries (a quarter of the memory traffic); built
       for AVX2 and baseline x86-64, chosen at load time (GCC function multi-versioning). */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FRCLI_CLONES
    #endif
    FRCLI_CLONES static void frcli_relief_num4(
            double* __restrict a0, double* __restrict a1, double* __restrict a2,
            double* __restrict a3, const double* __restrict row, double x0, double x1,
            double x2, double x3, double g, Py_ssize_t bl) {
        for (Py_ssize_t j = 0; j < bl; j++) {
            double v = row[j];
            a0[j] += fabs(x0 - v) * g; a1[j] += fabs(x1 - v) * g;
            a2[j] += fabs(x2 - v) * g; a3[j] += fabs(x3 - v) * g;
        }
    }
    FRCLI_CLONES static void frcli_relief_nom4(
            double* __restrict a0, double* __restrict a1, double* __restrict a2,
            double* __restrict a3, const double* __restrict row, double x0, double x1,
            double x2, double x3, Py_ssize_t bl) {
        for (Py_ssize_t j = 0; j < bl; j++) {
            double v = row[j];
            a0[j] += (x0 != v) ? 1.0 : 0.0; a1[j] += (x1 != v) ? 1.0 : 0.0;
            a2[j] += (x2 != v) ? 1.0 : 0.0; a3[j] += (x3 != v) ? 1.0 : 0.0;
        }
    }
    /* Missing-value kinds, one query: the same conventions as feature_distance (approximate for numeric,
       x * 1/range; exact for nominal), written branch-free so that they vectorise. */
    FRCLI_CLONES static void frcli_relief_nummiss(
            double* __restrict a, const double* __restrict row, double xr, double mn,
            double inv, Py_ssize_t bl) {
        if (xr != xr) {
            for (Py_ssize_t j = 0; j < bl; j++) {
                double v = row[j], t = (v - mn) * inv, u = 1.0 - t;
                double m = t > u ? t : u;
                a[j] += (v != v) ? 1.0 : m;
            }
        } else {
            double t = (xr - mn) * inv, u = 1.0 - t, m = t > u ? t : u;
            for (Py_ssize_t j = 0; j < bl; j++) {
                double v = row[j], d = fabs(xr - v) * inv;
                a[j] += (v != v) ? m : d;
            }
        }
    }
    FRCLI_CLONES static void frcli_relief_nommiss(
            double* __restrict a, const double* __restrict row, double xr, double nm,
            Py_ssize_t bl) {
        if (xr != xr) {
            for (Py_ssize_t j = 0; j < bl; j++) a[j] += nm;
        } else {
            for (Py_ssize_t j = 0; j < bl; j++) {
                double v = row[j];
                a[j] += (v != v) ? nm : ((xr != v) ? 1.0 : 0.0);
            }
        }
    }
    """
    void frcli_relief_nummiss(double* a, const double* row, double xr, double mn, double inv,
                              Py_ssize_t bl) noexcept nogil
    void frcli_relief_nommiss(double* a, const double* row, double xr, double nm,
                              Py_ssize_t bl) noexcept nogil
    void frcli_relief_num4(double* a0, double* a1, double* a2, double* a3, const double* row,
                           double x0, double x1, double x2, double x3, double g,
                           Py_ssize_t bl) noexcept nogil
    void frcli_relief_nom4(double* a0, double* a1, double* a2, double* a3, const double* row,
                           double x0, double x1, double x2, double x3,
                           Py_ssize_t bl) noexcept nogil


cdef void _block_approx(const double* X, Py_ssize_t n, Py_ssize_t F, const int* kind,
                        const double* mn, const double* rg, const double* inv,
                        const double* nm, const Py_ssize_t* r, Py_ssize_t j0, Py_ssize_t bl,
                        double* dall) noexcept nogil:
    """dall[q*n + j] ~ sum_f d_f(x_{r[q]}, x_j) for the QB queries and j in the block.

    Numeric terms use x * (1/range) instead of x / range (vectorises; each term within
    5 eps relative of the exact one, see ``_search_many``); nominal terms are exact.
    """
    cdef Py_ssize_t f, jj, q
    cdef const double* row
    cdef double* a[QB]
    cdef double x[QB]
    for q in range(QB):
        a[q] = dall + q * n + j0
        for jj in range(bl):
            a[q][jj] = 0.0
    for f in range(F):
        row = X + f * n + j0
        for q in range(QB):
            x[q] = X[f * n + r[q]]
        if kind[f] == K_NUM:
            frcli_relief_num4(a[0], a[1], a[2], a[3], row, x[0], x[1], x[2], x[3], inv[f], bl)
        elif kind[f] == K_NOM:
            frcli_relief_nom4(a[0], a[1], a[2], a[3], row, x[0], x[1], x[2], x[3], bl)
        elif kind[f] == K_NUM_MISS:
            for q in range(QB):
                frcli_relief_nummiss(a[q], row, x[q], mn[f], inv[f], bl)
        elif kind[f] == K_NOM_MISS:
            for q in range(QB):
                frcli_relief_nommiss(a[q], row, x[q], nm[f], bl)
        else:
            for q in range(QB):
                for jj in range(bl):
                    a[q][jj] += feature_distance(K_NUM_MISS, x[q], row[jj], mn[f], rg[f], nm[f])


cdef inline void _topv_insert(double* tv, int K, double a) noexcept nogil:
    """Keep the K smallest values seen in the sorted buffer tv."""
    cdef int pos
    if a >= tv[K - 1]:
        return
    pos = K - 1
    while pos > 0 and tv[pos - 1] > a:
        tv[pos] = tv[pos - 1]
        pos -= 1
    tv[pos] = a


cdef void _init_query(int n_groups, int K, int* nbr, double* dist, int* cnt,
                      double* topv) noexcept nogil:
    cdef int g, c
    for g in range(n_groups):
        cnt[g] = 0
        for c in range(K):
            nbr[g * K + c] = -1
            dist[g * K + c] = 0.0
            topv[g * K + c] = 1e300


cdef void _rescore(const double* X, Py_ssize_t n, Py_ssize_t F, const int* kind,
                   const double* mn, const double* rg, const double* nm, const int* group,
                   int n_groups, int K, Py_ssize_t r, const double* dq, const double* topv,
                   double slack, int* nbr, double* dist, int* cnt, int* cand,
                   double* csum) noexcept nogil:
    """Pass 2 for one query: candidates whose approximate sum is within ``slack`` of their
    group's K-th smallest are rescored with the exact formula, summed in feature order
    (built feature by feature over contiguous rows of X), and inserted in row order, so
    ties go to the lower row index."""
    cdef Py_ssize_t j, f, nc = 0, ci
    cdef int g
    cdef double a, xr, invF = <double> F
    cdef const double* row
    for j in range(n):
        g = group[j]
        if g < 0 or j == r:
            continue
        if dq[j] <= topv[g * K + K - 1] + slack:
            cand[nc] = <int> j
            csum[nc] = 0.0
            nc += 1
    for f in range(F):
        row = X + f * n
        xr = row[r]
        if kind[f] == K_NUM:
            a = rg[f]
            for ci in range(nc):
                csum[ci] += fabs(xr - row[cand[ci]]) / a
        else:
            for ci in range(nc):
                csum[ci] += feature_distance(kind[f], xr, row[cand[ci]], mn[f], rg[f], nm[f])
    for ci in range(nc):
        j = cand[ci]
        _insert_exact(nbr + group[j] * K, dist + group[j] * K, cnt + group[j], K, j,
                      csum[ci] / invF)


cdef inline void _insert_exact(int* nb, double* db, int* cnt, int K, Py_ssize_t j,
                               double d) noexcept nogil:
    """Insert candidate j (visited in row order) into a sorted top-K: ties keep lower rows."""
    cdef int c = cnt[0], pos
    if c == K:
        if d >= db[K - 1]:
            return
        pos = K - 1
    else:
        pos = c
        cnt[0] = c + 1
    while pos > 0 and db[pos - 1] > d:
        db[pos] = db[pos - 1]
        nb[pos] = nb[pos - 1]
        pos -= 1
    db[pos] = d
    nb[pos] = <int> j


cdef void _rescore_sparse(Py_ssize_t n, Py_ssize_t F, const int* kind, const double* mn,
                          const double* rg, const double* nm, const int* group,
                          int n_groups, int K, Py_ssize_t r, const double* dq,
                          const double* topv, double slack, const SparseRows* rows,
                          int* nbr, double* dist, int* cnt) noexcept nogil:
    """Pass 2 on the rows' listed entries (``merge_next``): the exact feature-order sum, bit
    for bit, in O(nnz_r + nnz_j)."""
    cdef Py_ssize_t j
    cdef RowMerge m
    cdef int g, f
    cdef double s, xa, xb, invF = <double> F
    for j in range(n):
        g = group[j]
        if g < 0 or j == r:
            continue
        if dq[j] > topv[g * K + K - 1] + slack:
            continue
        s = 0.0
        merge_start(&m, rows, r, j)
        while merge_next(&m, rows, <int> F, &f, &xa, &xb):
            s += feature_distance(kind[f], xa, xb, mn[f], rg[f], nm[f])
        _insert_exact(nbr + g * K, dist + g * K, cnt + g, K, j, s / invF)


cdef void _search_many(const double* X, Py_ssize_t n, Py_ssize_t F, const int* kind,
                       const double* mn, const double* rg, const double* inv,
                       const double* nm, const int* group, int n_groups, int K,
                       const Py_ssize_t* r, int nq, int* nbr, double* dist, int* cnt,
                       double* dall, double* topv, int* cand,
                       double* csum) noexcept nogil:
    """K nearest per group of the queries r[0..nq) (nq <= QB; r padded to QB), dense X.

    Output rows of query q: nbr/dist + q*G*K as (G, K), cnt + q*G.
    Pass 1 streams approximate distance sums of all candidates into ``dall`` (QB*n per
    thread, never n x n) and keeps the K-th smallest per group, tau_g. The approximation
    differs from the exact sum by at most (2F + 3) eps F (F terms each <= 1, each off by
    <= 5 eps relative; the two sums round differently by <= 2(F-1) eps F); we use
    delta = (2F + 2)(F + 1) eps, which is larger, and every exact top-K candidate has
    approx <= tau_g + 2 delta. Pass 2 (``_rescore``) rescores exactly those candidates:
    the result is the exact top K (ties by lower row index) for one cheap pass plus about
    K exact distances.
    """
    cdef Py_ssize_t j0, jj, j, bl
    cdef int g, q
    cdef double slack = 2.0 * (2.0 * F + 2.0) * 1.1102230246251565e-16 * (F + 1.0)
    cdef double* dq
    for q in range(nq):
        _init_query(n_groups, K, nbr + q * n_groups * K, dist + q * n_groups * K,
                    cnt + q * n_groups, topv + q * n_groups * K)
    j0 = 0
    while j0 < n:
        bl = n - j0
        if bl > BLOCK:
            bl = BLOCK
        _block_approx(X, n, F, kind, mn, rg, inv, nm, r, j0, bl, dall)
        for q in range(nq):
            dq = dall + q * n
            for jj in range(bl):
                j = j0 + jj
                g = group[j]
                if g < 0 or j == r[q]:
                    continue
                _topv_insert(topv + (q * n_groups + g) * K, K, dq[j])
        j0 += bl
    for q in range(nq):
        _rescore(X, n, F, kind, mn, rg, nm, group, n_groups, K, r[q], dall + q * n,
                 topv + q * n_groups * K, slack, nbr + q * n_groups * K,
                 dist + q * n_groups * K, cnt + q * n_groups, cand, csum)


cdef void _search_sparse(const double* X, Py_ssize_t n, Py_ssize_t F, const int* kind,
                         const double* mn, const double* rg, const double* nm,
                         const int* group, int n_groups, int K, Py_ssize_t r,
                         const long long* indptr, const int* sp_rows, const double* sp_vals,
                         const double* zval, const double* T, const double* cz,
                         const SparseRows* rows,
                         int* nbr, double* dist, int* cnt, double* dq, double* topv,
                         int* flist) noexcept nogil:
    """K nearest per group of query r for mostly-default data (bibtex, delicious).

    Each feature f has a default value z_f and a list of the rows that differ from it
    (CSC). With T_j = sum_f d_f(z_f, x_jf) (precomputed, O(nnz)) and, for the features
    where r is not default, b_f = d_f(x_rf, z_f), the sum is
        T_j + sum_f b_f + sum_{f: x_rf != z_f} sum_{j listed} [d_f(x_rf, x_jf) - b_f - cz],
    cz = d_f(z_f, x_jf): O(n + nnz of r's features) per query instead of O(nF). It is
    rounded differently from the exact feature-order sum by at most about 13 F^2 eps (at
    most 3F + 1 addends of magnitude <= 2, partial sums <= 4F); slack = 40 (F + 1)^2 eps
    covers twice that. Pass 2 (``_rescore_sparse``) is exact, on the CSR rows.
    """
    cdef Py_ssize_t j, f, nf = 0, fi
    cdef long long p
    cdef int g
    cdef double B = 0.0, b, xr, z
    cdef double slack = 40.0 * (F + 1.0) * (F + 1.0) * 1.1102230246251565e-16
    _init_query(n_groups, K, nbr, dist, cnt, topv)
    for f in range(F):
        xr = X[f * n + r]
        if xr == zval[f]:
            continue
        B += feature_distance(kind[f], xr, zval[f], mn[f], rg[f], nm[f])
        flist[nf] = <int> f
        nf += 1
    for j in range(n):
        dq[j] = T[j] + B
    for fi in range(nf):
        f = flist[fi]
        xr = X[f * n + r]
        z = zval[f]
        b = feature_distance(kind[f], xr, z, mn[f], rg[f], nm[f])
        if kind[f] == K_NOM:
            for p in range(indptr[f], indptr[f + 1]):
                dq[sp_rows[p]] += (1.0 if xr != sp_vals[p] else 0.0) - b - cz[p]
        else:
            for p in range(indptr[f], indptr[f + 1]):
                dq[sp_rows[p]] += feature_distance(kind[f], xr, sp_vals[p], mn[f], rg[f], nm[f]) - b - cz[p]
    for j in range(n):
        g = group[j]
        if g < 0 or j == r:
            continue
        _topv_insert(topv + g * K, K, dq[j])
    _rescore_sparse(n, F, kind, mn, rg, nm, group, n_groups, K, r, dq, topv, slack, rows,
                    nbr, dist, cnt)


def sparse_columns(const double[:, ::1] Xc, double max_density=1.0):
    """CSC view of X for ``search``: per feature a default value z_f (0 when at least half
    the rows are 0, else the first row's value) and the rows that differ from it (NaN
    always listed), plus the same entries by row (CSR) for the exact rescoring.
    Returns (indptr int64 (F+1), rows int32, vals, zval (F), rptr int64 (n+1), rfeat int32,
    rvals, density); only ``(None,) * 7 + (density,)`` when density > max_density.
    """
    X = np.asarray(Xc)
    F, n = X.shape
    zeros = (X == 0).sum(axis=1)
    first = np.nan_to_num(X[:, 0] if n else np.zeros(F), nan=0.0)
    zval = np.where(zeros * 2 >= n, 0.0, first)
    differs = ~(X == zval[:, None])                 # NaN != anything: listed
    counts = differs.sum(axis=1)
    density = float(counts.sum()) / max(1, F * n)
    if density > max_density:
        return (None,) * 7 + (density,)
    indptr = np.zeros(F + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    fi, ri = np.nonzero(differs)                    # row-major: grouped by feature, rows asc
    vals = X[fi, ri].astype(np.float64)
    rptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(differs.sum(axis=0), out=rptr[1:])
    rr, ff = np.nonzero(differs.T)                  # grouped by row, features ascending
    rvals = X[ff, rr].astype(np.float64)
    return (indptr, ri.astype(np.int32), vals, zval.astype(np.float64), rptr,
            ff.astype(np.int32), rvals, density)


def search(const double[:, ::1] Xc, const int[::1] kind, const double[::1] mn,
           const double[::1] rg, const double[::1] nm, const int[::1] rows,
           const int[::1] group, int n_groups, int K, int jobs=1, sparse=None,
           progress=None):
    """Nearest neighbours of every ``rows[t]`` per candidate group.

    Xc: features (F, n). group[j]: candidate group of row j, -1 = never a neighbour.
    sparse: None (dense search) or ``sparse_columns(Xc)[:7]`` for the O(nnz) search; the
    result is identical either way (exact rescoring). progress: None, or an int64 array (one
    slot per thread, frcli.engines.progress) to which each thread adds its finished instances.
    Returns nbr (m, G, K) int32 (-1 = none), dist (m, G, K) d_X, cnt (m, G) int32.
    """
    cdef Py_ssize_t F = Xc.shape[0], n = Xc.shape[1], m = rows.shape[0]
    if K < 1 or n_groups < 1:
        raise ValueError("K and n_groups must be positive")
    if kind.shape[0] != F or mn.shape[0] != F or rg.shape[0] != F or nm.shape[0] != F:
        raise ValueError("feature metadata must have one entry per feature")
    if group.shape[0] != n:
        raise ValueError("group must have one entry per row")
    nbr_a = np.full((m, n_groups, K), -1, dtype=np.int32)
    dist_a = np.zeros((m, n_groups, K), dtype=np.float64)
    cnt_a = np.zeros((m, n_groups), dtype=np.int32)
    cdef int[:, :, ::1] nbr = nbr_a
    cdef double[:, :, ::1] dist = dist_a
    cdef int[:, ::1] cnt = cnt_a
    cdef Py_ssize_t t, q, nq, nchunks = (m + QB - 1) // QB
    cdef Py_ssize_t* rq = NULL
    cdef int* cand = NULL
    cdef double* csum = NULL
    cdef double* dall = NULL
    cdef double* topv = NULL
    cdef const double* Xp = &Xc[0, 0] if F > 0 and n > 0 else NULL
    cdef Progress prog = progress_slots(progress)
    if m == 0 or n == 0:
        return nbr_a, dist_a, cnt_a
    if F == 0:
        raise ValueError("no features")
    with np.errstate(over="ignore", divide="ignore"):
        inv_a = 1.0 / np.asarray(rg, dtype=np.float64)
    # a denormal range has no finite inverse: score that feature exactly in both passes
    kind_a = np.where((np.asarray(kind) <= K_NUM_MISS) & ~np.isfinite(inv_a), K_EXACT,
                      np.asarray(kind)).astype(np.int32)
    cdef const double[::1] inv = inv_a
    cdef const int[::1] kd = kind_a
    cdef const long long[::1] sp_ptr
    cdef const int[::1] sp_rows
    cdef const double[::1] sp_vals
    cdef const double[::1] zval
    cdef const long long[::1] rptr
    cdef const int[::1] rfeat
    cdef const double[::1] rvals
    cdef SparseRows srows
    cdef double[::1] Tv
    cdef double[::1] czv
    cdef int* flist = NULL
    cdef Py_ssize_t f
    cdef long long p
    cdef const int* sp_rows_p = NULL
    cdef const double* sp_vals_p = NULL
    if sparse is not None:
        sp_ptr = np.ascontiguousarray(sparse[0], dtype=np.int64)
        sp_rows = np.ascontiguousarray(sparse[1], dtype=np.int32)
        sp_vals = np.ascontiguousarray(sparse[2], dtype=np.float64)
        zval = np.ascontiguousarray(sparse[3], dtype=np.float64)
        rptr = np.ascontiguousarray(sparse[4], dtype=np.int64)
        rfeat = np.ascontiguousarray(sparse[5], dtype=np.int32)
        rvals = np.ascontiguousarray(sparse[6], dtype=np.float64)
        if sp_ptr.shape[0] != F + 1 or zval.shape[0] != F or sp_ptr[F] != sp_rows.shape[0] \
                or sp_vals.shape[0] != sp_rows.shape[0] or rptr.shape[0] != n + 1 \
                or rptr[n] != sp_rows.shape[0] or rfeat.shape[0] != sp_rows.shape[0] \
                or rvals.shape[0] != sp_rows.shape[0]:
            raise ValueError("sparse layout does not match X")
        srows = sparse_rows(zval, rptr, rfeat, rvals)
        T_a = np.zeros(n, dtype=np.float64)
        cz_a = np.zeros(max(1, sp_rows.shape[0]), dtype=np.float64)
        Tv = T_a
        czv = cz_a
        if sp_rows.shape[0] > 0:
            sp_rows_p = &sp_rows[0]
            sp_vals_p = &sp_vals[0]
        with nogil:     # T_j = sum_f d_f(z_f, x_jf) and cz per listed entry, O(nnz)
            for f in range(F):
                for p in range(sp_ptr[f], sp_ptr[f + 1]):
                    czv[p] = feature_distance(kd[f], zval[f], sp_vals_p[p], mn[f], rg[f], nm[f])
                    Tv[sp_rows_p[p]] += czv[p]
        with nogil, parallel(num_threads=max(1, jobs)):
            dall = <double*> malloc(n * sizeof(double))
            topv = <double*> malloc(n_groups * K * sizeof(double))
            flist = <int*> malloc(F * sizeof(int))
            for t in prange(m, schedule="dynamic", chunksize=1):
                _search_sparse(Xp, n, F, &kd[0], &mn[0], &rg[0], &nm[0], &group[0],
                               n_groups, K, rows[t], <const long long*> &sp_ptr[0],
                               sp_rows_p, sp_vals_p, &zval[0], &Tv[0], &czv[0], &srows,
                               &nbr[t, 0, 0], &dist[t, 0, 0], &cnt[t, 0], dall, topv, flist)
                progress_add(prog, threadid(), 1)
            free(dall)
            free(topv)
            free(flist)
        return nbr_a, dist_a, cnt_a
    with nogil, parallel(num_threads=max(1, jobs)):
        dall = <double*> malloc(QB * n * sizeof(double))
        topv = <double*> malloc(QB * n_groups * K * sizeof(double))
        rq = <Py_ssize_t*> malloc(QB * sizeof(Py_ssize_t))   # per thread
        cand = <int*> malloc(n * sizeof(int))
        csum = <double*> malloc(n * sizeof(double))
        for t in prange(nchunks, schedule="dynamic", chunksize=1):
            nq = m - t * QB
            if nq > QB:
                nq = QB
            for q in range(QB):   # pad a short last chunk with its first query
                rq[q] = rows[t * QB + (q if q < nq else 0)]
            _search_many(Xp, n, F, &kd[0], &mn[0], &rg[0], &inv[0], &nm[0], &group[0],
                         n_groups, K, rq, <int> nq, &nbr[t * QB, 0, 0], &dist[t * QB, 0, 0],
                         &cnt[t * QB, 0], dall, topv, cand, csum)
            progress_add(prog, threadid(), nq)
        free(dall)
        free(topv)
        free(rq)
        free(cand)
        free(csum)
    return nbr_a, dist_a, cnt_a


cdef void _acc_block(const double* X, Py_ssize_t n, Py_ssize_t f0, Py_ssize_t fb,
                     const int* kind, const double* mn, const double* rg, const double* nm,
                     const int* rows, Py_ssize_t m, const int* snbr, const int* sc,
                     const double* sw, const double* sdy, Py_ssize_t P, Py_ssize_t Q,
                     Py_ssize_t C, const int* snap_at, Py_ssize_t S,
                     double* G, double* H, Py_ssize_t F, double* g, double* h) noexcept nogil:
    """Accumulate features f0..f0+fb over all instances; write snapshots into G and H."""
    cdef Py_ssize_t t, p, q, c, ff, s = 0, f, idx
    cdef int j
    cdef double xr, d, wd, w
    cdef const double* dy
    for idx in range(fb * C):
        g[idx] = 0.0
    for idx in range(fb * Q * C):
        h[idx] = 0.0
    cdef double xrv[FBLOCK]
    for t in range(m):
        for ff in range(fb):
            xrv[ff] = X[(f0 + ff) * n + rows[t]]
        for p in range(P):
            j = snbr[t * P + p]
            if j < 0:
                continue
            c = sc[t * P + p]
            w = sw[t * P + p]
            dy = sdy + (t * P + p) * Q
            for ff in range(fb):
                f = f0 + ff
                if kind[f] == K_NUM:
                    d = fabs(xrv[ff] - X[f * n + j]) / rg[f]
                else:
                    d = feature_distance(kind[f], xrv[ff], X[f * n + j], mn[f], rg[f], nm[f])
                wd = w * d
                g[ff * C + c] += wd
                for q in range(Q):
                    h[(ff * Q + q) * C + c] += wd * dy[q]
        while s < S and snap_at[s] == t + 1:
            for ff in range(fb):
                f = f0 + ff
                for c in range(C):
                    G[(s * C + c) * F + f] = g[ff * C + c]
                    for q in range(Q):
                        H[((s * Q + q) * C + c) * F + f] = h[(ff * Q + q) * C + c]
            s += 1


def accumulate(const double[:, ::1] Xc, const int[::1] kind, const double[::1] mn,
               const double[::1] rg, const double[::1] nm, const int[::1] rows,
               const int[:, ::1] slot_nbr, const int[:, ::1] slot_c,
               const double[:, ::1] slot_w, const double[:, :, ::1] slot_dy,
               const int[::1] snap_at, int n_c, int jobs=1):
    """Per-feature sums over instances t < snap_at[s] and slots p of class c = slot_c[t, p]:

    G[s, c, i] = sum w * d_i(r_t, n_tp),  H[s, q, c, i] = sum w * d_i(r_t, n_tp) * dy[t, p, q].
    ``snap_at`` must be ascending iteration counts (each >= 1, <= m).
    """
    cdef Py_ssize_t F = Xc.shape[0], n = Xc.shape[1], m = rows.shape[0]
    cdef Py_ssize_t P = slot_nbr.shape[1], Q = slot_dy.shape[2], S = snap_at.shape[0]
    cdef Py_ssize_t C = n_c
    if slot_nbr.shape[0] != m or slot_c.shape[0] != m or slot_w.shape[0] != m \
            or slot_dy.shape[0] != m:
        raise ValueError("slot arrays must have one row per instance")
    if slot_c.shape[1] != P or slot_w.shape[1] != P or slot_dy.shape[1] != P:
        raise ValueError("slot arrays must have the same number of slots")
    cdef Py_ssize_t s
    for s in range(S):
        if snap_at[s] < 1 or snap_at[s] > m or (s > 0 and snap_at[s] < snap_at[s - 1]):
            raise ValueError("snap_at must be ascending counts in 1..m")
    G_a = np.zeros((S, C, F), dtype=np.float64)
    H_a = np.zeros((S, Q, C, F), dtype=np.float64)
    if F == 0 or m == 0 or S == 0 or P == 0:
        return G_a, H_a
    cdef double[:, :, ::1] Gv = G_a
    cdef double[:, :, :, ::1] Hv = H_a
    cdef double* Gp = &Gv[0, 0, 0]
    cdef double* Hp = &Hv[0, 0, 0, 0] if Q > 0 else NULL
    cdef const double* dyp = &slot_dy[0, 0, 0] if Q > 0 else NULL
    cdef Py_ssize_t nblocks = (F + FBLOCK - 1) // FBLOCK, b, f0, fb
    cdef double* g = NULL
    cdef double* h = NULL
    with nogil, parallel(num_threads=max(1, jobs)):
        g = <double*> malloc(FBLOCK * C * sizeof(double))
        h = <double*> malloc((FBLOCK * Q * C + 1) * sizeof(double))
        for b in prange(nblocks, schedule="dynamic", chunksize=1):
            f0 = b * FBLOCK
            fb = F - f0
            if fb > FBLOCK:
                fb = FBLOCK
            _acc_block(&Xc[0, 0], n, f0, fb, &kind[0], &mn[0], &rg[0], &nm[0], &rows[0],
                       m, &slot_nbr[0, 0], &slot_c[0, 0], &slot_w[0, 0], dyp, P, Q, C,
                       &snap_at[0], S, Gp, Hp, F, g, h)
        free(g)
        free(h)
    return G_a, H_a


def pair_distances(const double[:, ::1] Xc, const int[::1] kind, const double[::1] mn,
                   const double[::1] rg, const double[::1] nm, const int[::1] a,
                   const int[::1] b):
    """Per-feature distances d_i(x_a[p], x_b[p]) as (len(a), F); used by tests and SSL."""
    cdef Py_ssize_t F = Xc.shape[0], n = Xc.shape[1], P = a.shape[0], p, f
    out_a = np.zeros((P, F), dtype=np.float64)
    cdef double[:, ::1] out = out_a
    with nogil:
        for p in range(P):
            for f in range(F):
                out[p, f] = feature_distance(kind[f], Xc[f, a[p]], Xc[f, b[p]], mn[f], rg[f], nm[f])
    return out_a


def label_pair_stats(const unsigned char[:, ::1] Y, const double[::1] w, const int[::1] ra,
                     const int[::1] rb, int jobs=1):
    """Weighted label-set sums for row pairs (ra[p], rb[p]) of a 0/1 matrix Y (n, L):
    columns |A n B|_w, |A u B|_w, |A|_w, |B|_w, |A sym-diff B|_w, each summed in label
    order (the MLC/HMLC target distances are formed from these in numpy)."""
    cdef Py_ssize_t P = ra.shape[0], L = Y.shape[1], p, l
    if rb.shape[0] != P or w.shape[0] != L:
        raise ValueError("pairs or weights do not match Y")
    out_a = np.zeros((P, 5), dtype=np.float64)
    cdef double[:, ::1] out = out_a
    cdef const unsigned char* ya
    cdef const unsigned char* yb
    cdef double inter, union, sa, sb, sym, ww
    if P == 0 or L == 0:
        return out_a
    with nogil:
        for p in prange(P, schedule="static", num_threads=max(1, jobs)):
            ya = &Y[ra[p], 0]
            yb = &Y[rb[p], 0]
            inter = 0.0
            union = 0.0
            sa = 0.0
            sb = 0.0
            sym = 0.0
            for l in range(L):
                if ya[l] or yb[l]:
                    ww = w[l]
                    union = union + ww
                    if ya[l] and yb[l]:
                        inter = inter + ww
                    else:
                        sym = sym + ww
                    if ya[l]:
                        sa = sa + ww
                    if yb[l]:
                        sb = sb + ww
            out[p, 0] = inter
            out[p, 1] = union
            out[p, 2] = sa
            out[p, 3] = sb
            out[p, 4] = sym
    return out_a
