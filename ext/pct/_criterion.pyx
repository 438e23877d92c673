# cython: language_level=3
"""The single PCT criterion (spec-core §2.3, spec-ssl-unsup §1.1-1.3).

impurity(E) = sum_c a_c Var_known(E, c) over the clustering columns c; the weighted impurity of
a set is Q(E) = |E| * impurity(E) ("all-examples scaling", spec-ssl-unsup A1) and a split's
heuristic is h = Q(E) - Q(E_1) - Q(E_2). Per task only the columns and the weights a_c differ
(engines/pct/columns.py builds them), so every task shares this code. Three storage modes trade
generality for speed:

* complete: h = sum_c a_c (s1_L^2/W_L + s1_R^2/W_R - s1^2/W) needs only first moments.
* sparse 0/1: as complete, with s2 = s1, updates touching only a row's positive columns and
  sum_c a_c s1_c^2 kept incrementally, so a candidate threshold costs O(1) whatever K is.
* missing: per-column known weights; a column with fewer than 2 known values in a set (but
  some unknown) takes its variance from the nearest ancestor ("estimate" rule, spec-ssl A1).
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy
from libc.math cimport isnan


cdef int stats_alloc(Stats* s, intp_t K) noexcept nogil:
    cdef size_t nb = <size_t>(K if K > 0 else 1) * sizeof(double)
    s.s1 = <double*>malloc(nb)
    s.s2 = <double*>malloc(nb)
    s.nk = <double*>malloc(nb)
    if s.s1 == NULL or s.s2 == NULL or s.nk == NULL:
        return -1
    stats_clear(s, K)
    return 0


cdef void stats_free(Stats* s) noexcept nogil:
    free(s.s1)
    free(s.s2)
    free(s.nk)
    s.s1 = s.s2 = s.nk = NULL


cdef void stats_clear(Stats* s, intp_t K) noexcept nogil:
    s.W = 0.0
    s.A2 = 0.0
    memset(s.s1, 0, K * sizeof(double))
    memset(s.s2, 0, K * sizeof(double))
    memset(s.nk, 0, K * sizeof(double))


cdef void stats_copy(Stats* dst, const Stats* src, intp_t K) noexcept nogil:
    dst.W = src.W
    dst.A2 = src.A2
    memcpy(dst.s1, src.s1, K * sizeof(double))
    memcpy(dst.s2, src.s2, K * sizeof(double))
    memcpy(dst.nk, src.nk, K * sizeof(double))


cdef void stats_sub(Stats* dst, const Stats* a, const Stats* b, intp_t K) noexcept nogil:
    cdef intp_t c
    dst.W = a.W - b.W
    for c in range(K):
        dst.s1[c] = a.s1[c] - b.s1[c]
        dst.s2[c] = a.s2[c] - b.s2[c]
        dst.nk[c] = a.nk[c] - b.nk[c]


cdef void stats_iadd(Stats* dst, const Stats* b, intp_t K) noexcept nogil:
    cdef intp_t c
    dst.W += b.W
    for c in range(K):
        dst.s1[c] += b.s1[c]
        dst.s2[c] += b.s2[c]
        dst.nk[c] += b.nk[c]


cdef void stats_add_row(Stats* s, const ClusterData* cd, intp_t row, double w,
                        bint second) noexcept nogil:
    """Add row ``row`` with weight ``w``; ``second`` also updates s2 (not needed in sweeps
    of the complete and sparse modes, whose heuristics use first moments only)."""
    cdef intp_t c, K = cd.K
    cdef const double* y
    cdef double v
    cdef int64_t j
    if cd.mode == MODE_COMPLETE and cd.C8 != NULL:
        add_codes(s, cd.C8 + row * K, cd.off, K, w, second)
        return
    if cd.mode == MODE_MISSING:
        add_missing(s, cd.C + row * K, K, w)
        return
    s.W += w
    if cd.mode == MODE_SPARSE01:
        for j in range(cd.indptr[row], cd.indptr[row + 1]):
            s.s1[cd.indices[j]] += w
        return
    y = cd.C + row * K
    if cd.mode == MODE_COMPLETE:
        if second:
            for c in range(K):
                s.s1[c] += w * y[c]
                s.s2[c] += w * y[c] * y[c]
        else:
            for c in range(K):
                s.s1[c] += w * y[c]


cdef double stats_Q(const Stats* s, const ClusterData* cd, const double* est) noexcept nogil:
    """Q(E) = |E| * impurity(E), from the full statistics (s2 included)."""
    cdef intp_t c
    cdef double q = 0.0, t
    if s.W <= 0.0:
        return 0.0
    if cd.mode == MODE_MISSING:
        for c in range(cd.K):
            q += cd.a[c] * var_known(s.s1[c], s.s2[c], s.nk[c], s.W, est[c])
        return q * s.W
    for c in range(cd.K):
        t = (s.s1[c] if cd.mode == MODE_SPARSE01 else s.s2[c]) - s.s1[c] * s.s1[c] / s.W
        if t > 0.0:
            q += cd.a[c] * t
    return q


cdef double stats_Q_own(const Stats* s, const ClusterData* cd, const double* v) noexcept nogil:
    """stats_Q(s, cd, v) where v is s's own node_estimates (missing mode): var_known of a
    column is then v_c itself (the estimate it falls back to is the one v_c took), so Q is
    W sum_c a_c v_c, the same value without its divisions."""
    cdef intp_t c
    cdef double q = 0.0
    if cd.mode != MODE_MISSING:
        return stats_Q(s, cd, v)
    if s.W <= 0.0:
        return 0.0
    for c in range(cd.K):
        q += cd.a[c] * v[c]
    return q * s.W


cdef double stats_A2(const Stats* s, const ClusterData* cd) noexcept nogil:
    cdef intp_t c
    cdef double t = 0.0
    for c in range(cd.K):
        t += cd.a[c] * s.s1[c] * s.s1[c]
    return t


cdef double gain(const Stats* S, const Stats* T, const ClusterData* cd, const double* est,
                 double* out) noexcept nogil:
    """h of splitting T into S and T - S; ``out`` (if not NULL) receives each column's share."""
    cdef intp_t c
    cdef double WS = S.W, WT = T.W, WO = T.W - S.W, h = 0.0, t, sO, vT, vS, vO
    if WS <= 0.0 or WO <= 0.0:
        if out != NULL:
            memset(out, 0, cd.K * sizeof(double))
        return 0.0
    if cd.mode != MODE_MISSING:
        for c in range(cd.K):
            sO = T.s1[c] - S.s1[c]
            t = cd.a[c] * (S.s1[c] * S.s1[c] / WS + sO * sO / WO - T.s1[c] * T.s1[c] / WT)
            h += t
            if out != NULL:
                out[c] = t
        return h
    for c in range(cd.K):
        vT = var_known(T.s1[c], T.s2[c], T.nk[c], WT, est[c])
        vS = var_known(S.s1[c], S.s2[c], S.nk[c], WS, est[c])
        vO = var_known(T.s1[c] - S.s1[c], T.s2[c] - S.s2[c], T.nk[c] - S.nk[c], WO, est[c])
        t = cd.a[c] * (WT * vT - WS * vS - WO * vO)
        h += t
        if out != NULL:
            out[c] = t
    return h


cdef double gain_buf(const Stats* S, const Stats* T, const ClusterData* cd, const double* est,
                     double* out, double* scratch) noexcept nogil:
    """gain() with scratch (2K doubles): in the missing mode its terms come from the
    vectorised kernels (gain_missing_begin's W_T Var_T, then ``frcli_gain_missing_terms``:
    var_known's values, the same expression), summed in column order as gain() sums them."""
    cdef intp_t c, K = cd.K
    cdef double WS = S.W, WO = T.W - S.W, h = 0.0
    cdef double* t = out if out != NULL else scratch + K
    if cd.mode != MODE_MISSING or K == 0:
        return gain(S, T, cd, est, out)
    if WS <= 0.0 or WO <= 0.0:
        if out != NULL:
            memset(out, 0, K * sizeof(double))
        return 0.0
    gain_missing_begin(T, est, K, scratch)
    frcli_gain_missing_terms(t, cd.a, scratch, est, S.s1, S.s2, S.nk, T.s1, T.s2, T.nk, WS, WO,
                             K)
    for c in range(K):
        h += t[c]
    return h


cdef void node_estimates(const Stats* s, const ClusterData* cd, const double* est_parent,
                         double* est_out) noexcept nogil:
    """Per-column variance of a node, or the ancestor's where it cannot be estimated
    (var_known's values, from var_sel's arithmetic in ``frcli_var_sels``)."""
    if cd.K > 0:
        frcli_var_sels(est_out, s.s1, s.s2, s.nk, s.W, est_parent, cd.K)


cdef void prototype(const Stats* s, const ClusterData* cd, const double* parent_proto,
                    double* out) noexcept nogil:
    """Leaf prototype: per-column mean over known values (the ancestor's where none is known)."""
    cdef intp_t c
    if cd.mode == MODE_MISSING:
        if cd.K > 0:
            frcli_known_means(out, s.s1, s.nk, parent_proto, cd.K)
        return
    for c in range(cd.K):
        out[c] = s.s1[c] / s.W if s.W > 0.0 else parent_proto[c]


cdef void _stats_on_rows(Stats* s, double[:, ::1] o) noexcept:
    """Test hooks: s empty, its s1, s2 (and nk, if o has a third row) o's first rows."""
    s.W = 0.0
    s.s1 = &o[0, 0]
    s.s2 = &o[1, 0]
    s.nk = &o[2, 0] if o.shape[0] > 2 else NULL


def _gain_missing_terms_check(const double[::1] a, const double[::1] TQ,
                              const double[::1] est, const double[::1] s1,
                              const double[::1] s2, const double[::1] nk,
                              const double[::1] t1, const double[::1] t2,
                              const double[::1] tk, double WS, double WO):
    """Test hook: the terms of ``gain_missing`` from the dispatched C kernel and from
    ``var_sel`` in plain Cython, (K,) each; they must agree bit for bit."""
    import numpy as np

    cdef intp_t K = a.shape[0], c
    fast = np.empty(K)
    plain = np.empty(K)
    cdef double[::1] f = fast
    cdef double[::1] p = plain
    if K == 0:
        return fast, plain
    frcli_gain_missing_terms(&f[0], &a[0], &TQ[0], &est[0], &s1[0], &s2[0], &nk[0], &t1[0],
                             &t2[0], &tk[0], WS, WO, K)
    for c in range(K):
        p[c] = a[c] * (TQ[c] - WS * var_sel(s1[c], s2[c], nk[c], WS, est[c])
                       - WO * var_sel(t1[c] - s1[c], t2[c] - s2[c], tk[c] - nk[c], WO, est[c]))
    return fast, plain


def _add_codes_check(const uint8_t[:, ::1] X, const double[::1] off, const double[::1] w):
    """Test hook: the sums of w[i] * y and w[i] * y * y over the rows of y = X - off, in row
    order, from the dispatched ``frcli_add_codes`` (add_codes) and from plain Cython; the
    (s1, s2) pairs must agree bit for bit."""
    import numpy as np

    cdef intp_t n = X.shape[0], K = X.shape[1], i, c
    cdef double y
    cdef Stats s
    out = np.zeros((4, K))
    cdef double[:, ::1] o = out
    if K == 0:
        return out
    _stats_on_rows(&s, o)
    for i in range(n):
        add_codes(&s, &X[i, 0], &off[0], K, w[i], True)
    for i in range(n):
        for c in range(K):
            y = <double>X[i, c] - off[c]
            o[2, c] += w[i] * y
            o[3, c] += w[i] * y * y
    return out


def _add_missing_check(const double[:, ::1] Y, const double[::1] w, bint sub=False):
    """Test hook: the missing mode's sums (s1, s2, nk) over the rows of Y with weights w, in
    row order, from the dispatched ``frcli_add_missing`` (``sub``: sub_missing from zeros,
    the kernel with -w) and from plain Cython; the two triples must agree bit for bit."""
    import numpy as np

    cdef intp_t n = Y.shape[0], K = Y.shape[1], i, c
    cdef double v, k, wk
    cdef Stats s
    out = np.zeros((6, K))
    cdef double[:, ::1] o = out
    if K == 0:
        return out
    _stats_on_rows(&s, o)
    for i in range(n):
        if sub:
            sub_missing(&s, &Y[i, 0], K, w[i])
        else:
            add_missing(&s, &Y[i, 0], K, w[i])
    for i in range(n):
        for c in range(K):
            v = Y[i, c]
            k = v if v == v else 0.0
            wk = w[i] if v == v else 0.0
            if sub:         # the plain subtraction (the kernel adds -w)
                o[3, c] -= w[i] * k
                o[4, c] -= w[i] * k * k
                o[5, c] -= wk
                continue
            o[3, c] += w[i] * k
            o[4, c] += w[i] * k * k
            o[5, c] += wk
    return out


def _screen_terms_check(const double[::1] ac, const double[::1] TQ, const double[::1] s1,
                        const double[::1] s2, const double[::1] t1, const double[::1] t2,
                        double WS, double WO):
    """Test hook: ``frcli_screen_terms`` (the splitter's division-free h of a cut over the
    columns with ac > 0)."""
    if ac.shape[0] == 0:
        return 0.0
    return frcli_screen_terms(&ac[0], &TQ[0], &s1[0], &s2[0], &t1[0], &t2[0], WS, WO,
                              ac.shape[0])


def _node_kernels_check(const double[::1] s1, const double[::1] s2, const double[::1] nk,
                        double W, const double[::1] est):
    """Test hook: a node's variances and prototype (missing mode) from the dispatched
    ``frcli_var_sels`` / ``frcli_known_means`` and from plain ``var_known`` / division loops,
    (4, K): the pairs must agree bit for bit."""
    import numpy as np

    cdef intp_t K = s1.shape[0], c
    out = np.zeros((4, K))
    cdef double[:, ::1] o = out
    if K == 0:
        return out
    frcli_var_sels(&o[0, 0], &s1[0], &s2[0], &nk[0], W, &est[0], K)
    frcli_known_means(&o[2, 0], &s1[0], &nk[0], &est[0], K)
    for c in range(K):
        o[1, c] = var_known(s1[c], s2[c], nk[c], W, est[c])
        o[3, c] = s1[c] / nk[c] if nk[c] > 0.0 else est[c]
    return out


def _add_missing_rows_check(const double[:, ::1] Y, const int32_t[::1] rows,
                            const double[::1] w, bint neg=False):
    """Test hook: the missing mode's sums (W, s1, s2, nk) over Y's rows ``rows`` (in that
    order, weights w) from one ``add_missing_rows`` call and from add_missing / sub_missing
    row by row; the two must agree bit for bit. Returns (2, 3K + 1)."""
    import numpy as np

    cdef intp_t n = rows.shape[0], K = Y.shape[1], i
    cdef Stats a, b
    out = np.zeros((2, 3 * K + 1))
    cdef double[:, ::1] o = out
    if K == 0 or n == 0:
        return out
    if stats_alloc(&a, K) or stats_alloc(&b, K):
        stats_free(&a)
        stats_free(&b)
        raise MemoryError()
    add_missing_rows(&a, &Y[0, 0], &rows[0], &w[0], n, K, neg)
    for i in range(n):
        if neg:
            sub_missing(&b, &Y[rows[i], 0], K, w[i])
        else:
            add_missing(&b, &Y[rows[i], 0], K, w[i])
    o[0, 0] = a.W
    o[1, 0] = b.W
    for i in range(K):
        o[0, 1 + i] = a.s1[i]
        o[0, 1 + K + i] = a.s2[i]
        o[0, 1 + 2 * K + i] = a.nk[i]
        o[1, 1 + i] = b.s1[i]
        o[1, 1 + K + i] = b.s2[i]
        o[1, 1 + 2 * K + i] = b.nk[i]
    stats_free(&a)
    stats_free(&b)
    return out
