# The one PCT criterion: weighted, normalised variance over "clustering columns".
from frcli._ext._utils cimport intp_t, int32_t, int64_t, uint8_t

# cpdef: the enums are also Python classes of the module (``_criterion.StorageMode``), which
# frcli.engines.pct.kernels exports, so each number is written here only.
cpdef enum StorageMode:
    MODE_COMPLETE = 0   # dense columns, no unknown values
    MODE_SPARSE01 = 1   # 0/1 columns, no unknown values, rows given as lists of positive columns
    MODE_MISSING = 2    # dense columns with NaN = unknown (semi-supervised, missing targets)

cpdef enum ErrorKind:   # an out-of-bag error block (the RF score, ``_forest``)
    ERR_NUMERIC = 0     # a numeric column: squared error
    ERR_NOMINAL = 1     # a nominal target's one-hot block: 0/1 error of its argmax
    ERR_LABEL = 2       # a 0/1 label: 0/1 error of prototype >= 1/2

cdef struct ClusterData:
    const double* C          # (n, K) row-major; unused in MODE_SPARSE01
    intp_t K
    const double* a          # (K,) column weights a_c (normalisers and task weights folded in)
    int mode
    const int64_t* indptr    # MODE_SPARSE01: CSR of each row's positive columns
    const int32_t* indices
    const uint8_t* C8        # MODE_COMPLETE, or NULL: (n, K) byte codes of C with
    const double* off        # C[i, c] == C8[i, c] - off[c] bit for bit (small counts)

cdef struct Stats:
    double W                 # total weight (|E| with bootstrap multiplicities and fractions)
    double* s1               # per column: sum of w*y
    double* s2               # per column: sum of w*y^2 (node totals and MODE_MISSING)
    double* nk               # per column: known weight (MODE_MISSING)
    double A2                # MODE_SPARSE01 sweeps: sum_c a_c s1_c^2, kept incrementally

cdef int stats_alloc(Stats* s, intp_t K) noexcept nogil
cdef void stats_free(Stats* s) noexcept nogil
cdef void stats_clear(Stats* s, intp_t K) noexcept nogil
cdef void stats_copy(Stats* dst, const Stats* src, intp_t K) noexcept nogil
cdef void stats_sub(Stats* dst, const Stats* a, const Stats* b, intp_t K) noexcept nogil
cdef void stats_iadd(Stats* dst, const Stats* b, intp_t K) noexcept nogil
cdef void stats_add_row(Stats* s, const ClusterData* cd, intp_t row, double w,
                        bint second) noexcept nogil
cdef double stats_Q(const Stats* s, const ClusterData* cd, const double* est) noexcept nogil
cdef double stats_Q_own(const Stats* s, const ClusterData* cd, const double* v) noexcept nogil
cdef double stats_A2(const Stats* s, const ClusterData* cd) noexcept nogil
cdef double gain(const Stats* S, const Stats* T, const ClusterData* cd, const double* est,
                 double* out) noexcept nogil
cdef double gain_buf(const Stats* S, const Stats* T, const ClusterData* cd, const double* est,
                     double* out, double* scratch) noexcept nogil
cdef void node_estimates(const Stats* s, const ClusterData* cd, const double* est_parent,
                         double* est_out) noexcept nogil
cdef void prototype(const Stats* s, const ClusterData* cd, const double* parent_proto,
                    double* out) noexcept nogil


# -- inline sweep kernels (used by the splitter's numeric sweep) ---------------------------
# Same arithmetic, term for term and in the same order, as stats_add_row / gain, so the
# trees are bit-identical; inlined so the per-row work has no call.

cdef inline void add_dense(Stats* s, const double* y, intp_t K, double w) noexcept nogil:
    """stats_add_row without s2, complete mode: row values y (K,)."""
    cdef intp_t c
    s.W += w
    for c in range(K):
        s.s1[c] += w * y[c]


cdef extern from *:
    """
    /* add_codes' column loop, built for AVX-512, AVX2 and baseline x86-64 and chosen at load
       time: on count data (P-UNS's text sets) the builder spends most of its time here. Every
       column is its own sum, so wider vectors change no result; contraction into FMA (which
       the AVX-512 build could use) would, so it is off. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
    #pragma GCC push_options
    #pragma GCC optimize("fp-contract=off")
    #else
    #define FRCLI_ROW_CLONES
    #endif
    FRCLI_ROW_CLONES static void frcli_add_codes(
            double* __restrict s1, double* __restrict s2, const unsigned char* __restrict x,
            const double* __restrict off, Py_ssize_t K, double w, int second) {
        double y;
        if (second) {
            for (Py_ssize_t c = 0; c < K; c++) {
                y = (double)x[c] - off[c];
                s1[c] = s1[c] + w * y;
                s2[c] = s2[c] + (w * y) * y;
            }
        } else {
            for (Py_ssize_t c = 0; c < K; c++) {
                y = (double)x[c] - off[c];
                s1[c] = s1[c] + w * y;
            }
        }
    }
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #pragma GCC pop_options
    #endif
    """
    void frcli_add_codes(double* s1, double* s2, const uint8_t* x, const double* off,
                         intp_t K, double w, int second) noexcept nogil


cdef inline void add_codes(Stats* s, const uint8_t* x, const double* off, intp_t K, double w,
                           bint second) noexcept nogil:
    """stats_add_row of the complete mode from a row's byte codes: y = x - off is C's value
    bit for bit (``frcli.engines.forest.dense_codes`` checks it), then the same arithmetic
    (``frcli_add_codes``); an eighth of the memory traffic on count data."""
    s.W += w
    frcli_add_codes(s.s1, s.s2, x, off, K, w, second)


cdef inline void add_row_full(Stats* s, const ClusterData* cd, intp_t row,
                              double w) noexcept nogil:
    """stats_add_row(s, cd, row, w, second=True), its complete-mode arithmetic written out
    for up to four columns (no call: the builder adds every row of a split node once; one
    target or a two-class one-hot is common). y is C's value (from the byte codes: the same
    double, ``dense_codes``), then s1 += w y and s2 += (w y) y, as frcli_add_codes and
    stats_add_row compute them."""
    cdef intp_t c, K = cd.K
    cdef double y
    if cd.mode != MODE_COMPLETE or K > 4:
        stats_add_row(s, cd, row, w, True)
        return
    s.W += w
    if cd.C8 != NULL:
        for c in range(K):
            y = <double>cd.C8[row * K + c] - cd.off[c]
            s.s1[c] = s.s1[c] + w * y
            s.s2[c] = s.s2[c] + (w * y) * y
    else:
        for c in range(K):
            y = cd.C[row * K + c]
            s.s1[c] = s.s1[c] + w * y
            s.s2[c] = s.s2[c] + (w * y) * y


cdef inline double gain_dense(const Stats* S, const Stats* T, const double* a,
                              const double* TT, intp_t K) noexcept nogil:
    """gain() of the complete and sparse modes with TT[c] = T.s1[c]^2 / T.W precomputed;
    the caller guarantees both sides have positive weight."""
    cdef intp_t c
    cdef double WS = S.W, WO = T.W - S.W, h = 0.0, sO
    if WS <= 0.0 or WO <= 0.0:
        return 0.0
    for c in range(K):
        sO = T.s1[c] - S.s1[c]
        h += a[c] * (S.s1[c] * S.s1[c] / WS + sO * sO / WO - TT[c])
    return h


cdef inline void move_sparse(Stats* M, const Stats* T, const ClusterData* cd, intp_t row,
                             double w, double* A2O) noexcept nogil:
    """Move a sparse 0/1 row from the other side (T - M) to M, keeping both sides' sum
    a_c s1_c^2 (M.A2 and A2O[0])."""
    cdef int64_t j
    cdef int32_t c
    cdef double oM, oO, a
    M.W += w
    for j in range(cd.indptr[row], cd.indptr[row + 1]):
        c = cd.indices[j]
        a = cd.a[c]
        oM = M.s1[c]
        oO = T.s1[c] - oM
        M.s1[c] = oM + w
        M.A2 += a * (2.0 * oM * w + w * w)
        A2O[0] += a * (-2.0 * oO * w + w * w)


# -- missing mode (semi-supervised data: unlabelled rows have unknown targets) -----------
# The same values as stats_add_row / gain, term for term (tests/engines/pct/test_ssl_fast.py).

cdef extern from *:
    """
    /* add_missing's column loop (sub_missing's with -w), built for AVX2 and baseline x86-64 and chosen
       at load time: a semi-supervised node's statistics (its total, a nominal subset's rows,
       a sweep's moves) are sums of these rows. Every column is its own sum and no FMA comes
       with AVX2, so every sum rounds as in the plain loop. An unknown value adds +0.0, which
       leaves every sum as it was (no sum is ever -0.0: they start at +0.0 and x + y is -0.0
       only when both are). */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_MISS_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FRCLI_MISS_CLONES
    #endif
    static inline void frcli_miss_cols(
            double* __restrict s1, double* __restrict s2, double* __restrict nk,
            const double* __restrict y, Py_ssize_t K, double w) {
        for (Py_ssize_t c = 0; c < K; c++) {
            double v = y[c];
            double k = v == v ? v : 0.0;
            double wk = v == v ? w : 0.0;
            s1[c] += w * k;
            s2[c] += w * k * k;
            nk[c] += wk;
        }
    }
    FRCLI_MISS_CLONES static void frcli_add_missing(
            double* __restrict s1, double* __restrict s2, double* __restrict nk,
            const double* __restrict y, Py_ssize_t K, double w) {
        frcli_miss_cols(s1, s2, nk, y, K, w);
    }
    /* Many rows at once (row rows[p] of C, ``stride`` values apart, its first K; weights
       sw[p], times -1 with ``neg``), in the given order: the same column operations as
       frcli_add_missing row after row (so the same sums bit for bit), without a dispatched
       call per row. */
    FRCLI_MISS_CLONES static void frcli_add_missing_rows(
            double* __restrict s1, double* __restrict s2, double* __restrict nk,
            const double* __restrict C, const int* __restrict rows,
            const double* __restrict sw, Py_ssize_t m, Py_ssize_t K, Py_ssize_t stride,
            int neg) {
        for (Py_ssize_t p = 0; p < m; p++)
            frcli_miss_cols(s1, s2, nk, C + (Py_ssize_t)rows[p] * stride, K,
                            neg ? -sw[p] : sw[p]);
    }
    """
    void frcli_add_missing(double* s1, double* s2, double* nk, const double* y, intp_t K,
                           double w) noexcept nogil
    void frcli_add_missing_rows(double* s1, double* s2, double* nk, const double* C,
                                const int32_t* rows, const double* sw, intp_t m, intp_t K,
                                intp_t stride, int neg) noexcept nogil


cdef inline void add_missing(Stats* s, const double* y, intp_t K, double w) noexcept nogil:
    """stats_add_row of the missing mode without a branch per value, so it vectorises
    (``frcli_add_missing``)."""
    s.W += w
    frcli_add_missing(s.s1, s.s2, s.nk, y, K, w)


cdef inline void add_missing_rows(Stats* s, const double* C, const int32_t* rows,
                                  const double* sw, intp_t m, intp_t K, bint neg) noexcept nogil:
    """add_missing (``neg``: sub_missing) of rows[0..m) with weights sw, in that order: the
    same sums, W included, as one call per row (``frcli_add_missing_rows``)."""
    cdef intp_t p
    if neg:
        for p in range(m):
            s.W -= sw[p]
    else:
        for p in range(m):
            s.W += sw[p]
    if m > 0 and K > 0:
        frcli_add_missing_rows(s.s1, s.s2, s.nk, C, rows, sw, m, K, K, neg)


cdef inline double var_known(double s1, double s2, double nk, double W,
                             double est) noexcept nogil:
    """_criterion._var: the variance over the known values, the ancestor's estimate when too
    few are known."""
    cdef double m, v
    if nk < 2.0 and nk < W:
        return est
    if nk <= 0.0:
        return 0.0
    m = s1 / nk
    v = s2 / nk - m * m
    return v if v > 0.0 else 0.0


cdef inline void gain_missing_begin(const Stats* T, const double* est, intp_t K,
                                    double* TQ) noexcept nogil:
    """TQ[c] = W_T * Var(T, c): the part of gain_missing that a sweep's cuts share."""
    cdef intp_t c
    for c in range(K):
        TQ[c] = T.W * var_known(T.s1[c], T.s2[c], T.nk[c], T.W, est[c])


cdef inline double var_sel(double s1, double s2, double nk, double W,
                           double est) noexcept nogil:
    """var_known without branches (selects instead), so that a loop over columns vectorises;
    the quotients it discards may be inf or NaN, never what it returns."""
    cdef double m = s1 / nk
    cdef double v = s2 / nk - m * m
    v = v if v > 0.0 else 0.0
    v = v if nk > 0.0 else 0.0
    return est if (nk < 2.0) & (nk < W) else v


cdef extern from *:
    """
    /* The terms of gain_missing (var_sel of both sides, as _criterion.pxd writes them),
       built for AVX2 and baseline x86-64 and chosen at load time (GCC function
       multi-versioning): the four divisions per column dominate a semi-supervised sweep, and
       AVX2 does four at a time. No FMA comes with AVX2, so every term rounds as before. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_GAIN_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FRCLI_GAIN_CLONES
    #endif
    static inline double frcli_var_sel(double s1, double s2, double nk, double W, double est) {
        double m = s1 / nk;
        double v = s2 / nk - m * m;
        v = v > 0.0 ? v : 0.0;
        v = nk > 0.0 ? v : 0.0;
        return ((nk < 2.0) & (nk < W)) ? est : v;
    }
    FRCLI_GAIN_CLONES static void frcli_gain_missing_terms(
            double* __restrict buf, const double* __restrict a, const double* __restrict TQ,
            const double* __restrict est, const double* __restrict s1,
            const double* __restrict s2, const double* __restrict nk,
            const double* __restrict t1, const double* __restrict t2,
            const double* __restrict tk, double WS, double WO, Py_ssize_t K) {
        for (Py_ssize_t c = 0; c < K; c++) {
            buf[c] = a[c] * (TQ[c] - WS * frcli_var_sel(s1[c], s2[c], nk[c], WS, est[c])
                             - WO * frcli_var_sel(t1[c] - s1[c], t2[c] - s2[c],
                                                  tk[c] - nk[c], WO, est[c]));
        }
    }
    /* A node's per-column variances (node_estimates) and prototype (the means over known
       values), element by element as _criterion.pyx writes them, four columns at a time. */
    FRCLI_GAIN_CLONES static void frcli_var_sels(
            double* __restrict out, const double* __restrict s1, const double* __restrict s2,
            const double* __restrict nk, double W, const double* __restrict est,
            Py_ssize_t K) {
        for (Py_ssize_t c = 0; c < K; c++)
            out[c] = frcli_var_sel(s1[c], s2[c], nk[c], W, est[c]);
    }
    FRCLI_GAIN_CLONES static void frcli_known_means(
            double* __restrict out, const double* __restrict s1, const double* __restrict nk,
            const double* __restrict parent, Py_ssize_t K) {
        for (Py_ssize_t c = 0; c < K; c++) {
            double m = s1[c] / nk[c];
            out[c] = nk[c] > 0.0 ? m : parent[c];
        }
    }
    """
    void frcli_var_sels(double* out, const double* s1, const double* s2, const double* nk,
                        double W, const double* est, intp_t K) noexcept nogil
    void frcli_known_means(double* out, const double* s1, const double* nk,
                           const double* parent, intp_t K) noexcept nogil
    void frcli_gain_missing_terms(double* buf, const double* a, const double* TQ,
                                  const double* est, const double* s1, const double* s2,
                                  const double* nk, const double* t1, const double* t2,
                                  const double* tk, double WS, double WO,
                                  intp_t K) noexcept nogil


cdef inline double gain_missing(const Stats* S, const Stats* T, const double* a,
                                const double* est, const double* TQ, intp_t K,
                                double* buf) noexcept nogil:
    """gain() of the missing mode with TQ from gain_missing_begin: the same terms, summed in
    the same order; buf (K,) is scratch (the terms, computed in a vectorised loop: var_sel's
    arithmetic in ``frcli_gain_missing_terms``)."""
    cdef intp_t c
    cdef double WS = S.W, WO = T.W - S.W, h = 0.0
    if WS <= 0.0 or WO <= 0.0:
        return 0.0
    frcli_gain_missing_terms(buf, a, TQ, est, S.s1, S.s2, S.nk, T.s1, T.s2, T.nk, WS, WO, K)
    for c in range(K):
        h += buf[c]
    return h


cdef extern from *:
    """
    /* A screen for the missing mode's sweeps: the h of a cut to within a proven bound,
       without a division per column. On a column with no unknown value in the data
       (nk == W in every set, bit for bit: both sums add the same weights in the same order)
       the exact term a (W_T Var_T - W_S Var_S - W_O Var_O) is, in real numbers,
       a (TQ - (s2_S - s1_S^2 / W_S)^+ - (s2_O - s1_O^2 / W_O)^+); here it is evaluated with
       the reciprocals of W_S and W_O, four columns at a time, in any order (the bound covers
       every order). ``ac`` is a_c for such columns and 0 for the others, whose exact terms
       the caller adds. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_SCREEN_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FRCLI_SCREEN_CLONES
    #endif
    typedef double frcli_v4d __attribute__((vector_size(32)));
    typedef long long frcli_v4l __attribute__((vector_size(32)));
    #define FRCLI_LD4(v, p) __builtin_memcpy(&(v), (p), sizeof(v))
    FRCLI_SCREEN_CLONES static double frcli_screen_terms(
            const double* __restrict ac, const double* __restrict TQ,
            const double* __restrict s1, const double* __restrict s2,
            const double* __restrict t1, const double* __restrict t2,
            double WS, double WO, Py_ssize_t K) {
        double iS = 1.0 / WS, iO = 1.0 / WO, h = 0.0, gS, gO, sO;
        frcli_v4d hv = {0.0, 0.0, 0.0, 0.0}, z = {0.0, 0.0, 0.0, 0.0};
        frcli_v4d vS = {iS, iS, iS, iS}, vO = {iO, iO, iO, iO};
        frcli_v4d a1, a2, o1, o2, g1, g2, va, vq;
        Py_ssize_t c = 0;
        for (; c + 4 <= K; c += 4) {
            FRCLI_LD4(a1, s1 + c);
            FRCLI_LD4(a2, s2 + c);
            FRCLI_LD4(o1, t1 + c);
            FRCLI_LD4(o2, t2 + c);
            FRCLI_LD4(va, ac + c);
            FRCLI_LD4(vq, TQ + c);
            o1 = o1 - a1;
            o2 = o2 - a2;
            g1 = a2 - a1 * a1 * vS;
            g2 = o2 - o1 * o1 * vO;
            g1 = (frcli_v4d)((frcli_v4l)g1 & (frcli_v4l)(g1 > z));      /* max(g, 0) */
            g2 = (frcli_v4d)((frcli_v4l)g2 & (frcli_v4l)(g2 > z));
            hv += va * (vq - g1 - g2);
        }
        h = (hv[0] + hv[1]) + (hv[2] + hv[3]);
        for (; c < K; c++) {
            sO = t1[c] - s1[c];
            gS = s2[c] - s1[c] * s1[c] * iS;
            gO = (t2[c] - s2[c]) - sO * sO * iO;
            gS = gS > 0.0 ? gS : 0.0;
            gO = gO > 0.0 ? gO : 0.0;
            h += ac[c] * (TQ[c] - gS - gO);
        }
        return h;
    }
    """
    double frcli_screen_terms(const double* ac, const double* TQ, const double* s1,
                              const double* s2, const double* t1, const double* t2, double WS,
                              double WO, intp_t K) noexcept nogil


cdef inline void sub_missing(Stats* s, const double* y, intp_t K, double w) noexcept nogil:
    """Take a row out of s (missing mode): exact only where every sum is an integer
    (``_splitter``'s ``int_sums``), the one place it is used."""
    s.W -= w
    frcli_add_missing(s.s1, s.s2, s.nk, y, K, -w)     # x + (-w) y is x - w y, bit for bit
