# cython: language_level=3
"""ReliefE kernels: neighbour profiles (embedding or raw space), the adaptive k, and the
per-instance weight updates (docs/design/relief.md, "ReliefE").

* ``profile_search``: for a chunk of query rows, the distance of each query to every candidate
  row, per candidate group (class for multi-class, one group for multi-label); the candidates
  of a group are sorted (ties: lower row index first) and the first k are kept, k fixed or
  chosen per (query, group) by the adaptive rule. Three spaces: an L2-normalised embedding
  (cosine distance 1 - u.v; stored (d, n) so the inner loop over candidates vectorises), the
  raw dense space (``distance_profile``: sum of |a-b|/range or 1[a != b], summed in feature
  order exactly like the Relief kernel) and the raw sparse space (a per-row baseline plus corrections over the
  query's listed entries, O(nnz) per query). Scratch is O(n) per thread: never an n x n matrix.
* ``update``: per query of a chunk, the weight update vector u_q over the original features
  (ReliefF with priors for multi-class; the RReliefF-form multi-label update), written to a
  (chunk, F) buffer in parallel, then added to the running total *in query order* (parallel
  over features), with a snapshot after each requested iteration count. Every feature is summed
  sequentially in the same order whatever the thread count or chunk size, so results do not
  depend on ``jobs``.

Adaptive k (``rule``): 1 = the paper's maximum gap (k = number of candidates before the
largest jump of the sorted distances, first one on ties); 2 = the maximum ratio of consecutive
gaps of the older reference code (k = argmax_m g[m+2]/g[m+1] + 1, 0/0 = 0, x/0 = inf); both
on the profile of the candidates (the query itself excluded), k clamped to [1, candidates].
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport parallel, prange, threadid
from libc.math cimport fabs, INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdint cimport int32_t

from frcli._ext._utils cimport Progress, progress_add, progress_slots, sort_by_value
from frcli._ext.relief._distance cimport (RowMerge, SparseRows, complete_distance,
                                          distance_profile, merge_next, merge_start,
                                          sparse_rows)

cnp.import_array()

cdef enum:
    BLOCK = 512


cdef int _adaptive_k(const double* s, Py_ssize_t M, int rule) noexcept nogil:
    """k from the sorted distances s[0..M) (see the module docstring)."""
    cdef Py_ssize_t i, best = 0
    cdef double g, bg = -1.0, a, b, r
    if M <= 1:
        return <int> M
    if rule == RULE_RATIO and M >= 4:
        bg = -1.0
        for i in range(M - 3):
            a = s[i + 2] - s[i + 1]
            b = s[i + 3] - s[i + 2]
            if a > 0:
                r = b / a
            elif b > 0:
                r = INFINITY
            else:
                r = 0.0
            if r > bg:
                bg = r
                best = i
        return <int> (best + 1)
    for i in range(M - 1):
        g = s[i + 1] - s[i]
        if g > bg:
            bg = g
            best = i
    return <int> (best + 1)


def adaptive_k(const double[::1] sorted_distances, int rule=RULE_GAP):
    """Testing hook and reference for the engine: k of one sorted distance profile."""
    if sorted_distances.shape[0] == 0:
        return 0
    return _adaptive_k(&sorted_distances[0], sorted_distances.shape[0], rule)


cdef void _order_ties(double* v, int32_t* idx, Py_ssize_t M) noexcept nogil:
    """After sorting by value: put equal values in increasing row order (insertion sort per
    run; runs are short except for duplicated rows)."""
    cdef Py_ssize_t a = 0, b, i, j
    cdef int32_t t
    while a < M:
        b = a + 1
        while b < M and v[b] == v[a]:
            b += 1
        if b - a > 1:
            for i in range(a + 1, b):
                t = idx[i]
                j = i
                while j > a and idx[j - 1] > t:
                    idx[j] = idx[j - 1]
                    j -= 1
                idx[j] = t
        a = b


cdef void _dist_embed(const double* Et, Py_ssize_t d, Py_ssize_t n, Py_ssize_t q,
                      double* out) noexcept nogil:
    """out[j] = 1 - <e_q, e_j> for L2-normalised rows stored (d, n)."""
    cdef Py_ssize_t f, j
    cdef double x
    cdef const double* row
    for j in range(n):
        out[j] = 0.0
    for f in range(d):
        row = Et + f * n
        x = row[q]
        for j in range(n):
            out[j] += x * row[j]
    for j in range(n):
        out[j] = 1.0 - out[j]


cdef void _dist_sparse(Py_ssize_t n, const int* nominal, const double* rg,
                       const long long* cptr, const int* crow, const double* cval,
                       const double* T, const double* cz, const SparseRows* sp,
                       Py_ssize_t q, double* out) noexcept nogil:
    """out[j] = T_j + sum over the query's listed features f of the corrections: T_j holds
    sum_f d_f(z_f, x_jf); a listed query value x changes term f of every row from
    d_f(z_f, x_jf) to d_f(x, x_jf). O(n + sum of the listed columns' lengths)."""
    cdef Py_ssize_t j
    cdef long long a, p
    cdef int f
    cdef double x, b, B = 0.0
    for a in range(sp.rptr[q], sp.rptr[q + 1]):     # rows at the default value: z -> x
        f = sp.rfeat[a]
        B += complete_distance(nominal[f], sp.rval[a], sp.zval[f], rg[f])
    for j in range(n):
        out[j] = T[j] + B
    for a in range(sp.rptr[q], sp.rptr[q + 1]):
        f = sp.rfeat[a]
        x = sp.rval[a]
        b = complete_distance(nominal[f], x, sp.zval[f], rg[f])
        for p in range(cptr[f], cptr[f + 1]):
            j = crow[p]
            out[j] += complete_distance(nominal[f], x, cval[p], rg[f]) - b - cz[p]


def profile_search(int space, const int[::1] rows, const int[::1] group, int n_groups,
                   int k, int rule, int jobs=1, embed=None, dense=None, sparse=None,
                   progress=None):
    """Neighbours of every ``rows[t]`` per candidate group (group[j] = -1: never a neighbour).

    space 0: ``embed`` = Et (d, n) L2-normalised rows; 1: ``dense`` = (Xc (F, n), nominal
    int32 (F), rg (F)); 2: ``sparse`` = (nominal, rg, cptr, crow, cval, zval, T, cz, rptr,
    rfeat, rval) (see ``frcli.engines.relief.reliefe``). rule 0: the k nearest; 1/2: adaptive k.
    Returns nbr (m, L) int32 with group g's neighbours at columns sum(cnt[t, :g]) ... in
    increasing distance, cnt (m, G) int32, and dist (m, L) (the distances of ``nbr``).
    progress: None, or an int64 array (one slot per thread, frcli.engines.progress) to which
    each thread adds its finished queries (never read here).
    """
    cdef Py_ssize_t m = rows.shape[0], n = group.shape[0], L, t, j, M, g, off, i
    cdef int kk
    if n_groups < 1:
        raise ValueError("n_groups must be >= 1")
    if rule == RULE_FIXED and k < 1:
        raise ValueError("k must be >= 1")
    L = (n_groups * k if rule == RULE_FIXED else n)
    if L > n:
        L = n
    if L < 1:
        L = 1
    nbr_a = np.full((m, L), -1, dtype=np.int32)
    dist_a = np.zeros((m, L), dtype=np.float64)
    cnt_a = np.zeros((m, n_groups), dtype=np.int32)
    if m == 0 or n == 0:
        return nbr_a, cnt_a, dist_a
    cdef int[:, ::1] nbr = nbr_a
    cdef double[:, ::1] dst = dist_a
    cdef int[:, ::1] cnt = cnt_a
    cdef const double[:, ::1] Et
    cdef const double[:, ::1] Xc
    cdef const int[::1] nom
    cdef const double[::1] rg
    cdef const long long[::1] cptr
    cdef const int[::1] crow
    cdef const double[::1] cval
    cdef const double[::1] T
    cdef const double[::1] cz
    cdef SparseRows srows
    cdef const double* Etp = NULL
    cdef const double* Xcp = NULL
    cdef const int* crow_p = NULL
    cdef const double* cval_p = NULL
    cdef const double* cz_p = NULL
    cdef Py_ssize_t d = 0, F = 0
    dummy_i = np.zeros(1, dtype=np.int32)
    dummy_d = np.zeros(1, dtype=np.float64)
    dummy_l = np.zeros(2, dtype=np.int64)
    nom = dummy_i
    rg = dummy_d
    cptr = dummy_l
    T = dummy_d
    srows = sparse_rows(dummy_d, dummy_l, dummy_i, dummy_d)
    if space == SP_EMBED:
        Et = embed
        d = Et.shape[0]
        if Et.shape[1] != n:
            raise ValueError("embedding must be (d, n)")
        Etp = &Et[0, 0]
    elif space == SP_DENSE:
        Xc = dense[0]
        nom = dense[1]
        rg = dense[2]
        F = Xc.shape[0]
        if Xc.shape[1] != n or nom.shape[0] != F or rg.shape[0] != F:
            raise ValueError("dense layout does not match the rows")
        Xcp = &Xc[0, 0]
    elif space == SP_SPARSE:
        nom, rg, cptr, crow, cval = sparse[:5]
        T, cz = sparse[6], sparse[7]
        if T.shape[0] != n or len(sparse[8]) != n + 1:
            raise ValueError("sparse layout does not match the rows")
        srows = sparse_rows(sparse[5], sparse[8], sparse[9], sparse[10])
        if crow.shape[0] > 0:
            crow_p = &crow[0]
            cval_p = &cval[0]
            cz_p = &cz[0]
    else:
        raise ValueError("unknown space")
    for t in range(m):
        if rows[t] < 0 or rows[t] >= n:
            raise ValueError("query row out of range")
    cdef double* dq = NULL
    cdef double* cv = NULL
    cdef int32_t* ci = NULL
    cdef Progress prog = progress_slots(progress)
    with nogil, parallel(num_threads=max(1, jobs)):
        dq = <double*> malloc(n * sizeof(double))
        cv = <double*> malloc(n * sizeof(double))
        ci = <int32_t*> malloc(n * sizeof(int32_t))
        for t in prange(m, schedule="dynamic", chunksize=1):
            if space == SP_EMBED:
                _dist_embed(Etp, d, n, rows[t], dq)
            elif space == SP_DENSE:
                distance_profile(Xcp, F, n, &nom[0], &rg[0], 1.0, rows[t], dq)
            else:
                _dist_sparse(n, &nom[0], &rg[0], &cptr[0], crow_p, cval_p, &T[0], cz_p,
                             &srows, rows[t], dq)
            off = 0
            for g in range(n_groups):
                M = 0
                for j in range(n):
                    if group[j] == g and j != rows[t]:
                        cv[M] = dq[j]
                        ci[M] = <int32_t> j
                        M = M + 1
                if M == 0:
                    cnt[t, g] = 0
                    continue
                sort_by_value(cv, ci, M)
                _order_ties(cv, ci, M)
                if rule == RULE_FIXED:
                    kk = k
                else:
                    kk = _adaptive_k(cv, M, rule)
                if kk > M:
                    kk = <int> M
                if off + kk > L:
                    kk = <int> (L - off)
                for i in range(kk):
                    nbr[t, off + i] = ci[i]
                    dst[t, off + i] = cv[i]
                cnt[t, g] = kk
                off = off + kk
            progress_add(prog, threadid(), 1)
        free(dq)
        free(cv)
        free(ci)
    return nbr_a, cnt_a, dist_a


cdef void _update_query(const double* X, const SparseRows* sp, Py_ssize_t F,
                        const int* nominal, const double* rg, Py_ssize_t q, const int* nb,
                        const int* cnt, int n_groups, const double* coef, const double* tdist,
                        int mlc, int absmean, int form, double* u, double* s1, double* s2,
                        double* s3, int* mark, int* touched) noexcept nogil:
    """u[f] = the update of query q (see ``update``), from the dense rows X (n, F) or, when X
    is NULL, the sparse rows ``sp``; s1, s2, s3, touched: F scratch each, ``mark`` all -1.
    A group of no neighbours, or of weight 0 (ReliefF: a class of prior 0), adds nothing; an
    undefined multi-label update skips the query (u stays 0)."""
    cdef Py_ssize_t f, off = 0, c
    cdef int g
    cdef bint ok
    for f in range(F):
        u[f] = 0.0
    for g in range(n_groups):
        c = cnt[g]
        if c > 0 and (mlc or coef[g] != 0.0):
            if X != NULL:
                ok = _group_dense(X, F, nominal, rg, q, nb + off, c, coef[g],
                                  tdist + off if mlc else NULL, mlc, absmean, form, u, s1, s2)
            else:
                ok = _group_sparse(sp, F, nominal, rg, q, nb + off, c, coef[g],
                                   tdist + off if mlc else NULL, mlc, absmean, form, u, s1, s2,
                                   s3, mark, touched)
            if not ok:
                for f in range(F):
                    u[f] = 0.0
                return
        off += c


cdef inline double _mean_or_skip(double t, double inv, int mlc) noexcept nogil:
    """The mean target distance t / c of a multi-label group, or -1 when its update is
    undefined (t not in (0, 1)); 0 for a class."""
    if not mlc:
        return 0.0
    t = t * inv
    return t if t > 0.0 and t < 1.0 else -1.0


cdef inline void _add(double* u, Py_ssize_t f, double v, double s2f, double inv, double t,
                      double coef_g, int mlc, int form) noexcept nogil:
    """One feature's term of a group: the multi-label update, or the class's weight times
    the mean difference v."""
    if mlc:
        u[f] += _mlc_update(v, s2f * inv, t, form)
    else:
        u[f] += coef_g * v


cdef inline void _sum(Py_ssize_t h, int nominal, double xq, double xn, double rg, double w,
                      int absmean, int mlc, double* s1, double* s2) noexcept nogil:
    """A neighbour's terms at slot h: to s1 its difference to the query (with ``absmean``,
    on a numeric feature, its value itself), to s2 its target distance w times that
    difference (multi-label)."""
    cdef double dd = complete_distance(nominal, xq, xn, rg)
    if absmean and not nominal:
        s1[h] += xn
    else:
        s1[h] += dd
    if mlc:
        s2[h] += w * dd


cdef bint _group_dense(const double* X, Py_ssize_t F, const int* nominal, const double* rg,
                       Py_ssize_t q, const int* nb, Py_ssize_t c, double coef_g,
                       const double* tdist, int mlc, int absmean, int form, double* u,
                       double* s1, double* s2) noexcept nogil:
    """Add one group's (c neighbours nb) terms to u; False when the update is undefined."""
    cdef Py_ssize_t f, i
    cdef double v, t = 0.0, inv, w
    cdef const double* xr = X + q * F
    cdef const double* xn
    for f in range(F):
        s1[f] = 0.0
        s2[f] = 0.0
    for i in range(c):
        xn = X + nb[i] * F
        w = tdist[i] if mlc else 0.0
        t += w
        for f in range(F):
            _sum(f, nominal[f], xr[f], xn[f], rg[f], w, absmean, mlc, s1, s2)
    inv = 1.0 / c
    t = _mean_or_skip(t, inv, mlc)
    if t < 0.0:
        return False
    for f in range(F):
        if absmean and not nominal[f]:
            v = fabs(xr[f] - s1[f] * inv) / rg[f]
        else:
            v = s1[f] * inv
        _add(u, f, v, s2[f], inv, t, coef_g, mlc, form)
    return True


cdef inline double _mlc_update(double d, double td, double t, int form) noexcept nogil:
    """The multi-label update (docs/design/relief.md, "ReliefE"): 0 RReliefF td/t - (d - td)/(1 - t);
    1 as printed in the paper td/t - (d - t)/(1 - td); 2 the reference code td/t - (d - t)/(1 - t)."""
    if form == 0:
        return td / t - (d - td) / (1.0 - t)
    if form == 1:
        if td >= 1.0:
            return td / t
        return td / t - (d - t) / (1.0 - td)
    return td / t - (d - t) / (1.0 - t)


cdef inline Py_ssize_t _touch(int f, Py_ssize_t nt, int* mark, int* touched, double* s1,
                              double* s2, double* s3) noexcept nogil:
    """Give feature f the next slot nt of the sums (s3: the neighbours listed at f)."""
    mark[f] = <int> nt
    touched[nt] = f
    s1[nt] = 0.0
    s2[nt] = 0.0
    s3[nt] = 0.0
    return nt + 1


cdef bint _group_sparse(const SparseRows* sp, Py_ssize_t F, const int* nominal,
                        const double* rg, Py_ssize_t q, const int* nb, Py_ssize_t c,
                        double coef_g, const double* tdist, int mlc, int absmean, int form,
                        double* u, double* s1, double* s2, double* s3, int* mark,
                        int* touched) noexcept nogil:
    """``_group_dense`` over the listed (non-default) entries only: a feature where the
    query and every neighbour hold the default value contributes 0. ``mark`` is all -1 on
    entry and on exit; ``touched`` lists the features seen (at most F)."""
    cdef Py_ssize_t i, nt = 0, a, h
    cdef int f
    cdef double xa, xb, w, t = 0.0, inv, v, xq
    cdef RowMerge m
    for a in range(sp.rptr[q], sp.rptr[q + 1]):   # the query's features are always touched
        nt = _touch(sp.rfeat[a], nt, mark, touched, s1, s2, s3)
    for i in range(c):
        w = tdist[i] if mlc else 0.0
        t += w
        merge_start(&m, sp, q, nb[i])
        while merge_next(&m, sp, <int> F, &f, &xa, &xb):
            if mark[f] < 0:
                nt = _touch(f, nt, mark, touched, s1, s2, s3)
            h = mark[f]
            _sum(h, nominal[f], xa, xb, rg[f], w, absmean, mlc, s1, s2)
            if absmean and not nominal[f]:
                s3[h] += 1.0
    inv = 1.0 / c
    t = _mean_or_skip(t, inv, mlc)
    if t >= 0.0:
        for h in range(nt):
            f = touched[h]
            if absmean and not nominal[f]:
                # neighbours not visited at f hold the default value
                v = (s1[h] + (c - s3[h]) * sp.zval[f]) * inv
                xq = _query_value(sp, q, f)
                v = fabs(xq - v) / rg[f]
            else:
                v = s1[h] * inv
            _add(u, f, v, s2[h], inv, t, coef_g, mlc, form)
    for h in range(nt):
        mark[touched[h]] = -1
    return t >= 0.0


cdef inline double _query_value(const SparseRows* sp, Py_ssize_t q, int f) noexcept nogil:
    """x_qf from the query's CSR row (binary search), the default when not listed."""
    cdef long long lo = sp.rptr[q], hi = sp.rptr[q + 1], mid
    while lo < hi:
        mid = (lo + hi) // 2
        if sp.rfeat[mid] < f:
            lo = mid + 1
        else:
            hi = mid
    if lo < sp.rptr[q + 1] and sp.rfeat[lo] == f:
        return sp.rval[lo]
    return sp.zval[f]


def update(const int[::1] rows, const int[:, ::1] nbr, const int[:, ::1] cnt,
           const double[:, ::1] coef, const double[:, ::1] tdist, double[::1] total,
           const int[::1] snap_at, double[:, ::1] snaps, Py_ssize_t start, int mlc,
           int absmean, int form, int jobs=1, dense=None, sparse=None):
    """Add the updates of the chunk's queries to ``total`` in query order.

    rows (Q,): query rows; nbr/cnt: from ``profile_search`` (or the Relief search laid out the
    same way); coef (Q, G): multi-class weight of each group (-1 own class, P(c)/(1-P(c_q))
    others); tdist (Q, L): multi-label target distance of each neighbour; ``start``: the number
    of queries added before this chunk; after query number s (1-based, global) equal to
    snap_at[i], ``total`` is copied to snaps[i]. dense = (X (n, F) row-major, nominal, rg);
    sparse = (nominal, rg, zval, rptr, rfeat, rval). absmean: the average-neighbour update for
    numeric features. form: the multi-label update (0 rrelieff, 1 paper, 2 code).
    Returns the number of queries whose multi-label update was skipped (t not in (0, 1)).
    """
    cdef Py_ssize_t Q = rows.shape[0], G = cnt.shape[1], F = total.shape[0], t, f, s
    cdef Py_ssize_t S = snap_at.shape[0]
    cdef const double[:, ::1] X
    cdef const int[::1] nom
    cdef const double[::1] rg
    cdef SparseRows srows
    cdef const double* Xp = NULL
    cdef int is_sparse = sparse is not None
    if nbr.shape[0] != Q or cnt.shape[0] != Q or coef.shape[0] != Q or coef.shape[1] != G:
        raise ValueError("chunk arrays must have one row per query")
    if mlc and (tdist.shape[0] != Q or tdist.shape[1] != nbr.shape[1]):
        raise ValueError("tdist must match nbr")
    if snaps.shape[0] != S or snaps.shape[1] != F:
        raise ValueError("snaps must be (len(snap_at), F)")
    if Q == 0 or F == 0:
        return 0
    if is_sparse:
        nom, rg = sparse[:2]
        srows = sparse_rows(sparse[2], sparse[3], sparse[4], sparse[5])
    else:
        X, nom, rg = dense
        if X.shape[1] != F:
            raise ValueError("X must have one column per feature")
        Xp = &X[0, 0]
    if nom.shape[0] != F or rg.shape[0] != F:
        raise ValueError("feature metadata must have one entry per feature")
    U_a = np.zeros((Q, F), dtype=np.float64)
    cdef double[:, ::1] U = U_a
    cdef const double* tdp = &tdist[0, 0] if mlc else NULL
    cdef Py_ssize_t L = nbr.shape[1]
    skipped_a = np.zeros(Q, dtype=np.int32)
    cdef int[::1] skipped = skipped_a
    cdef double* s1 = NULL
    cdef double* s2 = NULL
    cdef double* s3 = NULL
    cdef int* mark = NULL
    cdef int* touched = NULL
    cdef Py_ssize_t ii
    cdef double tt
    with nogil, parallel(num_threads=max(1, jobs)):
        s1 = <double*> malloc(F * sizeof(double))
        s2 = <double*> malloc(F * sizeof(double))
        s3 = <double*> malloc(F * sizeof(double))
        mark = <int*> malloc(F * sizeof(int))
        touched = <int*> malloc(F * sizeof(int))
        for ii in range(F):
            mark[ii] = -1
        for t in prange(Q, schedule="dynamic", chunksize=1):
            _update_query(Xp, &srows, F, &nom[0], &rg[0], rows[t], &nbr[t, 0], &cnt[t, 0],
                          <int> G, &coef[t, 0], tdp + t * L if mlc else NULL, mlc, absmean,
                          form, &U[t, 0], s1, s2, s3, mark, touched)
            if mlc:
                tt = _mean_t(tdp + t * L, &cnt[t, 0], <int> G)
                if not (tt > 0.0 and tt < 1.0):
                    skipped[t] = 1
        free(s1)
        free(s2)
        free(s3)
        free(mark)
        free(touched)
    # sequential in query order, parallel over features
    cdef Py_ssize_t si0 = 0
    while si0 < S and snap_at[si0] <= start:
        si0 += 1
    with nogil:
        for f in prange(F, schedule="static", num_threads=max(1, jobs)):
            s = si0
            for t in range(Q):
                total[f] += U[t, f]
                while s < S and snap_at[s] == start + t + 1:
                    snaps[s, f] = total[f]
                    s = s + 1
    return int(skipped_a.sum())


cdef inline double _mean_t(const double* td, const int* cnt, int G) noexcept nogil:
    cdef Py_ssize_t i, c = 0
    cdef int g
    cdef double s = 0.0
    for g in range(G):
        c += cnt[g]
    if c == 0:
        return 0.0
    for i in range(c):
        s += td[i]
    return s / c
