# Sums of a semi-supervised node's rows when every clustering value is 0, 1 or unknown (one-hot
# nominal features, class labels): integer counts, weighted by integer weights, of the ones
# and of the known values; these are the missing mode's sums (s1 = s2 = ones, nk = known)
# exactly, since integer sums below 2^53 are the same doubles in any order. Only the counts
# that the others do not determine are taken (``Count01``).
from libc.stdint cimport uint16_t
from frcli._ext._utils cimport intp_t, int32_t, int64_t, uint8_t
from frcli._ext.pct._criterion cimport Stats

cdef extern from *:
    """
    /* Weighted counts over rows[0..m) of the 0/1 bytes B (row-major, Kc per row), weights
       sw[p] (integers in [0, 65535], else -1 is returned and nothing is valid). 16-bit
       lanes (16 counts per AVX2 operation) take blocks of rows of total weight at most
       65535 and are then added to the 64-bit counts, so no lane overflows. Built for AVX2
       and baseline x86-64, chosen at load time. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_C01_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FRCLI_C01_CLONES
    #endif
    #include <stdint.h>
    static inline void frcli_c01_flush(int64_t* __restrict cnt, uint16_t* __restrict acc,
                                       Py_ssize_t Kc) {
        for (Py_ssize_t j = 0; j < Kc; j++) {
            cnt[j] += acc[j];
            acc[j] = 0;
        }
    }
    /* A weight as a 16-bit count: -1 unless an integer in [0, 65535]. */
    static inline int frcli_c01_weight(double wd, uint16_t* w) {
        if (!(wd >= 0.0 && wd <= 65535.0) || wd != (double)(int64_t)wd)
            return -1;
        *w = (uint16_t)(int64_t)wd;
        return 0;
    }
    static inline void frcli_c01_move(int64_t* __restrict cnt, uint16_t* __restrict acc,
                                      Py_ssize_t n, int first) {
        if (first) {
            for (Py_ssize_t j = 0; j < n; j++) {
                cnt[j] = acc[j];
                acc[j] = 0;
            }
        } else {
            frcli_c01_flush(cnt, acc, n);
        }
    }
    FRCLI_C01_CLONES static int frcli_count01_rows(
            int64_t* __restrict cnt, uint16_t* __restrict acc, const uint8_t* __restrict B,
            const int* __restrict rows, const double* __restrict sw, Py_ssize_t m,
            Py_ssize_t Kc, int64_t* wsum) {
        int64_t blk = 0, tot = 0;
        int first = 1;      /* the first flush sets the counts (no clearing of cnt) */
        uint16_t w;
        for (Py_ssize_t j = 0; j < Kc; j++)
            acc[j] = 0;
        for (Py_ssize_t p = 0; p < m; p++) {
            if (frcli_c01_weight(sw[p], &w) != 0)
                return -1;
            if (blk + w > 65535) {
                frcli_c01_move(cnt, acc, Kc, first);
                first = 0;
                blk = 0;
            }
            blk += w;
            tot += w;
            const uint8_t* __restrict b = B + (Py_ssize_t)rows[p] * Kc;
            for (Py_ssize_t j = 0; j < Kc; j++)
                acc[j] += (uint16_t)(w * (uint16_t)b[j]);
        }
        frcli_c01_move(cnt, acc, Kc, first);
        *wsum = tot;
        return 0;
    }
    /* Cross counts of a node (rows idx[0..m), weights wt): for each slot j, the weighted
       counts of B over the rows listed with a feature of slot j (CSR rptr/rfeat; slot[f] < 0:
       skip), in cnt[j * Kc ..], their weight in wj[j], and the rows' weight in *wsum. Kc is a
       multiple of 16 (B padded with zeros), so the row loop has no scalar tail. -1: a weight
       is not an integer in [0, 65535] (nothing is valid). */
    FRCLI_C01_CLONES static int frcli_cross01_rows(
            int64_t* __restrict cnt, uint16_t* __restrict acc, int64_t* __restrict wj,
            const uint8_t* __restrict B, Py_ssize_t Kc, const int* __restrict idx,
            const double* __restrict wt, Py_ssize_t m, const int64_t* __restrict rptr,
            const int* __restrict rfeat, const int* __restrict slot, Py_ssize_t nb,
            int64_t* wsum) {
        int64_t blk = 0, tot = 0;
        int first = 1;      /* the first flush sets the counts (no clearing of cnt) */
        for (Py_ssize_t j = 0; j < nb * Kc; j++)
            acc[j] = 0;
        for (Py_ssize_t j = 0; j < nb; j++)
            wj[j] = 0;
        uint16_t w;
        for (Py_ssize_t p = 0; p < m; p++) {
            if (frcli_c01_weight(wt[p], &w) != 0)
                return -1;
            if (blk + w > 65535) {
                frcli_c01_move(cnt, acc, nb * Kc, first);
                first = 0;
                blk = 0;
            }
            blk += w;
            tot += w;
            Py_ssize_t r = idx[p];
            const uint8_t* __restrict b = B + r * Kc;
            for (int64_t e = rptr[r]; e < rptr[r + 1]; e++) {
                int j = slot[rfeat[e]];
                if (j < 0)
                    continue;
                wj[j] += w;
                uint16_t* __restrict a = acc + (Py_ssize_t)j * Kc;
                for (Py_ssize_t c = 0; c < Kc; c++)
                    a[c] += (uint16_t)(w * (uint16_t)b[c]);
            }
        }
        frcli_c01_move(cnt, acc, nb * Kc, first);
        *wsum = tot;
        return 0;
    }
    """
    int frcli_cross01_rows(int64_t* cnt, uint16_t* acc, int64_t* wj, const uint8_t* B,
                           intp_t Kc, const int32_t* idx, const double* wt, intp_t m,
                           const int64_t* rptr, const int32_t* rfeat, const int32_t* slot,
                           intp_t nb, int64_t* wsum) noexcept nogil
    int frcli_count01_rows(int64_t* cnt, uint16_t* acc, const uint8_t* B, const int32_t* rows,
                           const double* sw, intp_t m, intp_t Kc, int64_t* wsum) noexcept nogil


cdef struct Count01:
    # the data's plan (``_count01.count01_plan``), shared by the trees
    const uint8_t* B         # (n, Kc) 0/1 bytes: the counted columns' ones, then the counted
    intp_t Kc                # known flags, then zeros up to a multiple of 16
    intp_t K
    const int32_t* one_src   # (K,) count of column c's ones, or -1: W minus the other columns
                             # of its group (every row has exactly one 1 among them)
    const int32_t* known_src # (K,) count of column c's known values, or -1: always known (W)
    const int32_t* grp       # (K,) one-hot group of c, or -1
    intp_t ngroups
    # a tree's scratch
    int64_t* cnt             # (Kc + 1)
    uint16_t* acc            # (Kc + 1)
    int64_t* gsum            # (ngroups + 1)


cdef inline void stats01_apply(Stats* out, const Count01* q, const int64_t* cnt, int64_t W,
                               bint neg) noexcept nogil:
    """Add to out (``neg``: take from out) the sums of rows whose weighted counts are cnt (Kc)
    and weight W: s1 = s2 = the ones, nk = the known weight, as doubles."""
    cdef intp_t c, j, g, K = q.K
    cdef int64_t one, kn
    cdef double sg = -1.0 if neg else 1.0
    for g in range(q.ngroups):
        q.gsum[g] = 0
    for c in range(K):
        j = q.one_src[c]
        g = q.grp[c]
        if j >= 0 and g >= 0:
            q.gsum[g] += cnt[j]
    out.W += sg * <double>W
    for c in range(K):
        j = q.one_src[c]
        one = cnt[j] if j >= 0 else W - q.gsum[q.grp[c]]
        j = q.known_src[c]
        kn = cnt[j] if j >= 0 else W
        out.s1[c] += sg * <double>one
        out.s2[c] += sg * <double>one
        out.nk[c] += sg * <double>kn


cdef inline int stats01_rows(Stats* out, Count01* q, const int32_t* rows, const double* sw,
                             intp_t m, bint neg) noexcept nogil:
    """``add_missing_rows`` (``neg``: its subtraction from out, which holds a total) of rows
    with integer weights, from the plan's counts: the same doubles. -1 (out untouched): a
    weight is not an integer in [0, 65535]; use add_missing_rows."""
    cdef int64_t W
    if frcli_count01_rows(q.cnt, q.acc, q.B, rows, sw, m, q.Kc, &W) != 0:
        return -1
    stats01_apply(out, q, q.cnt, W, neg)
    return 0

cdef int count01_scratch(Count01* q) noexcept nogil
cdef void count01_free(Count01* q) noexcept nogil
