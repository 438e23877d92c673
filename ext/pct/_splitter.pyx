# cython: language_level=3
"""Split search (spec-core §2.2 and §3; missing values §1.4).

* numeric: one sort of the node's known values, one sweep from the largest value down with
  incremental statistics; the test is ``x <= v`` with ``v`` a data value, the largest value of
  the left branch (CLUS ``SplitPosition = Exact``, printed by CLUS as ``x > v``). The sweep stops
  at the run of the minimum, so a sparse feature whose zeros fill the node costs only its
  non-zeros.
* nominal: CLUS's greedy forward subset search (exact for two values).
* extra trees: one random test per drawn feature (uniform threshold in [min, max]; a random
  proper subset of the values present, up to 10 draws).
* rows with the tested value missing are left out of the evaluation ("corrected total").
* a test is valid only if both sides carry at least ``min_leaf`` weight.
* which test wins is CLUS's rule (``CurrentBestTestAndHeuristic``, ``FTest``): candidates are
  seen in a fixed order (the node's features by index, each numeric feature's thresholds from
  the largest down); the first valid candidate needs h >= MIN_GAIN and a later one replaces the
  best only if it beats it by more than TIE_DELTA. Tests inducing the same partition (common in
  small nodes) thus go to the feature that comes first in the data, as in CLUS; with
  ``random_ties`` the node's features are seen in a random order instead, so such ties go to a
  uniformly random one of them (rankings then do not depend on the column order).
* ``share_ties`` (ties=share) keeps CLUS's choice and lists the candidates that tied with it
  (``_find_ties``): the builder shares the node's credit among them and records a tied test
  that routes the rows alike, drawn for the RF score's realisation of the tree. Each feature's
  best h is kept while it is evaluated (``_better``, ``_offer``: no decision reads it).

Speed without changing a tree (``tests/engines/pct/test_forest_presort.py`` compares every bit
with the plain path, ``GrowParams(presort=False)``):

* a numeric feature's values come in order from the tree's presorted lists (``_presort``)
  while the node's segment has no tie; with a tie the node gathers and sorts itself, as the
  order inside a run of equal values decides how the sums round; a feature without any tie
  in the data is swept straight from its list (``_sweep_tiefree``);
* a numeric feature with at most 256 values in the data is swept per value
  (``_sweep_values``; in the sparse 0/1 mode ``_sweep_values_sparse``, for nodes whose
  weights are bag counts): no sort, and in any node, its codes read once per node for all
  the node's coded candidates (``_node_codes``);
* the sweep's criterion updates are inlined (``_criterion.pxd``) with the same arithmetic;
* a best test's cut (complete mode) is first bounded from two divisions and scored exactly
  only when it could beat the node's best or tie with it (``_cannot_matter``);
* in the sparse 0/1 mode a nominal feature visits only the rows off its most common value,
  and all candidate features of a node are counted in one pass (``_batch_categories``):
  sums of integer bag counts are exact in any order.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy
from libc.math cimport isnan, floor, sqrt, fabs, INFINITY

from frcli._ext._utils cimport (rand_int, rand_uniform, seed_state, sort_by_value, grow)
from frcli._ext.pct._criterion cimport (MODE_COMPLETE, MODE_SPARSE01, MODE_MISSING, stats_alloc,
                                    stats_free, stats_clear, stats_copy, stats_sub, stats_iadd,
                                    stats_add_row, stats_A2, gain, gain_dense, add_dense,
                                    move_sparse, add_codes, add_missing, add_missing_rows,
                                    gain_missing,
                                    gain_missing_begin, sub_missing, var_sel,
                                    frcli_screen_terms, frcli_gain_missing_terms,
                                    frcli_add_missing_rows)
from libc.stdint cimport uint32_t
from frcli._ext.pct._presort cimport Presort, RUN_START, ROW_MASK
from frcli._ext.pct._count01 cimport (Count01, stats01_rows, stats01_apply, count01_scratch,
                                     count01_free, frcli_cross01_rows)


cdef int splitter_init(Splitter* sp, const double* Xt, intp_t n, intp_t F, const int32_t* ncat,
                       const ClusterData* cd, intp_t max_features, double min_leaf, bint extra,
                       uint64_t seed) noexcept nogil:
    cdef intp_t f, K = cd.K, mc = 1
    memset(sp, 0, sizeof(Splitter))
    sp.Xt = Xt
    sp.n = n
    sp.F = F
    sp.ncat = ncat
    sp.cd = cd
    sp.max_features = max_features if 0 < max_features <= F else F
    sp.min_leaf = min_leaf          # compared exactly, as CLUS does (ClusStopCriterionMinWeight)
    sp.extra = extra
    sp.rng = seed_state(seed)
    for f in range(F):
        if ncat[f] > mc:
            mc = ncat[f]
    sp.max_ncat = mc
    sp.features = <int32_t*>malloc(F * sizeof(int32_t) + 1)
    sp.cand_lo = <double*>malloc((sp.max_features + 1) * sizeof(double))
    sp.cand_hi = <double*>malloc((sp.max_features + 1) * sizeof(double))
    sp.tie_feat = <int32_t*>malloc((sp.max_features + 1) * sizeof(int32_t))
    sp.tie_thr = <double*>malloc((sp.max_features + 1) * sizeof(double))
    sp.tie_swap = <uint8_t*>malloc(sp.max_features + 1)
    sp.tie_part = <uint8_t*>malloc(sp.max_features + 1)
    sp.tie_seen = <uint8_t*>calloc(mc, 1)
    sp.alt_cats = <uint8_t*>calloc(mc, 1)
    sp.rng_ties = seed_state(seed ^ <uint64_t>0x9E3779B97F4A7C15ULL)
    sp.alt_feature = -1
    sp.best_crow = -1
    sp.TT = <double*>malloc((3 * K + 1) * sizeof(double))   # see TT in _splitter.pxd
    sp.cat = <Stats*>calloc(mc, sizeof(Stats))
    sp.cat_own = sp.cat
    sp.cur_cats = <uint8_t*>calloc(mc, 1)
    sp.best_cats = <uint8_t*>calloc(mc, 1)
    sp.try_cats = <uint8_t*>calloc(mc, 1)
    sp.cwacc = <double*>malloc(4 * mc * sizeof(double))
    if (sp.features == NULL or sp.TT == NULL or sp.cat == NULL or sp.cur_cats == NULL or sp.best_cats == NULL
            or sp.try_cats == NULL or sp.cand_lo == NULL or sp.cand_hi == NULL
            or sp.tie_feat == NULL or sp.tie_thr == NULL or sp.tie_swap == NULL
            or sp.tie_part == NULL or sp.tie_seen == NULL or sp.alt_cats == NULL
            or sp.cwacc == NULL):
        return -1
    for f in range(F):
        sp.features[f] = <int32_t>f
    if (stats_alloc(&sp.tot, K) or stats_alloc(&sp.tc, K) or stats_alloc(&sp.miss, K)
            or stats_alloc(&sp.mov, K) or stats_alloc(&sp.cur, K) or stats_alloc(&sp.trial, K)):
        return -1
    for f in range(mc):
        if stats_alloc(&sp.cat[f], K):
            return -1
    return 0


cdef int _screen_columns(Splitter* sp, intp_t n) noexcept nogil:
    """The missing mode's screen (``_screened_out``): which columns have an unknown value
    somewhere in the data (their terms are computed exactly), a_c of the others."""
    cdef const ClusterData* cd = sp.cd
    cdef intp_t K = cd.K, i, c, j
    cdef const double* y
    cdef double v, big
    if sp.sac != NULL:
        return 0
    sp.sicol = <int32_t*>malloc((K + 1) * sizeof(int32_t))
    if sp.sicol == NULL:
        return -1
    sp.sac = <double*>malloc((K + 1) * sizeof(double))
    if sp.sac == NULL:
        return -1
    for c in range(K):
        sp.sac[c] = cd.a[c]
    for i in range(n):
        y = cd.C + i * K
        for c in range(K):
            if y[c] != y[c]:
                sp.sac[c] = 0.0
    sp.nic = 0
    for c in range(K):
        if sp.sac[c] == 0.0 and cd.a[c] != 0.0:
            sp.sicol[sp.nic] = <int32_t>c
            sp.nic += 1
    # one block (a target's one-hot columns): its exact terms from the vectorised kernel
    sp.iblock = sp.nic > 0 and sp.sicol[sp.nic - 1] - sp.sicol[0] + 1 == sp.nic
    big = 1.0
    sp.iint = True
    for i in range(n):
        y = cd.C + i * K
        for j in range(sp.nic):
            v = y[sp.sicol[j]]
            if v == v:
                if v != floor(v):
                    sp.iint = False
                if fabs(v) > big:
                    big = fabs(v)
    if <double>(n if n > 0 else 1) * big * big >= 4503599627370496.0:    # 2^52
        sp.iint = False
    return 0


cdef void _batch_free(Splitter* sp) noexcept nogil:
    """Free what ``batch_init`` allocates (batched categories off again)."""
    free(sp.stamp)
    free(sp.bslot)
    free(sp.bcat)
    free(sp.bcat_s1)
    free(sp.bzero)
    free(sp.bpresent)
    free(sp.acols)
    free(sp.TTa)
    sp.stamp = sp.bslot = sp.acols = NULL
    sp.bcat = NULL
    sp.bcat_s1 = sp.bzero = sp.TTa = NULL
    sp.bpresent = NULL


cdef void splitter_free(Splitter* sp) noexcept nogil:
    cdef intp_t v
    sp.cat = sp.cat_own
    if sp.cat != NULL:
        for v in range(sp.max_ncat):
            stats_free(&sp.cat[v])
    free(sp.cat)
    _batch_free(sp)
    stats_free(&sp.tot)
    stats_free(&sp.tc)
    stats_free(&sp.miss)
    stats_free(&sp.mov)
    stats_free(&sp.cur)
    stats_free(&sp.trial)
    free(sp.features)
    free(sp.Xf)
    free(sp.pos)
    free(sp.mpos)
    free(sp.srow)
    free(sp.sw)
    free(sp.TT)
    free(sp.sac)
    free(sp.cwacc)
    count01_free(&sp.c01)
    free(sp.x01_slot)
    free(sp.x01_cnt)
    free(sp.x01_acc)
    free(sp.x01_w)
    free(sp.sicol)
    free(sp.abound)
    free(sp.cur_cats)
    free(sp.best_cats)
    free(sp.try_cats)
    free(sp.cand_lo)
    free(sp.cand_hi)
    free(sp.side)
    free(sp.tie_feat)
    free(sp.tie_thr)
    free(sp.tie_swap)
    free(sp.tie_part)
    free(sp.tie_seen)
    free(sp.alt_cats)
    free(sp.cbin)
    free(sp.cseg)
    free(sp.cnode)
    free(sp.ccand)
    free(sp.ncodes)
    free(sp.cguess)


cdef int count01_init(Splitter* sp, const Count01* plan) noexcept nogil:
    """Count a nominal subset's sums in integers (``_subset_stats_int``; plan: the data's
    ``_count01.count01_plan``); -1: it stays off."""
    sp.c01 = plan[0]
    if count01_scratch(&sp.c01) != 0:
        sp.c01.B = NULL
        return -1
    return 0


cdef int cross01_init(Splitter* sp, const uint8_t* fv, const int64_t* ptr,
                      const int32_t* feat) noexcept nogil:
    """Count the node's two-valued nominal candidates in one pass (``_cross_counts``; needs
    ``count01_init``); -1: it stays off."""
    cdef intp_t f, nf = sp.max_features, Kc = sp.c01.Kc
    if sp.c01.B == NULL:
        return -1
    sp.x01_slot = <int32_t*>malloc((sp.F + 1) * sizeof(int32_t))
    sp.x01_cnt = <int64_t*>malloc((nf * Kc + 1) * sizeof(int64_t))
    sp.x01_acc = <uint16_t*>malloc((nf * Kc + 1) * sizeof(uint16_t))
    sp.x01_w = <int64_t*>malloc((nf + 1) * sizeof(int64_t))
    if sp.x01_slot == NULL or sp.x01_cnt == NULL or sp.x01_acc == NULL or sp.x01_w == NULL:
        return -1
    for f in range(sp.F):
        sp.x01_slot[f] = -1
    sp.x01_fv = fv
    sp.x01_ptr = ptr
    sp.x01_feat = feat
    return 0


cdef int counts_init(Splitter* sp, const int32_t* cslot, const uint8_t* ccodes,
                     const double* cvals) noexcept nogil:
    """Enable ``_sweep_values`` (tables from ``_presort.count_plan``); -1: it stays off."""
    sp.cbin = <double*>calloc(256 * (sp.cd.K + 1), sizeof(double))
    cdef intp_t f
    sp.cseg = <intp_t*>calloc(5 * 256, sizeof(intp_t))
    sp.cnode = <int32_t*>malloc((sp.F + 1) * sizeof(int32_t))
    sp.ccand = <int32_t*>malloc((sp.max_features + 1) * sizeof(int32_t))
    sp.cnc = 0
    for f in range(sp.F):
        if cslot[f] >= 0:
            sp.cnc += 1
    sp.cguess = <uint8_t*>calloc(sp.cnc + 1, 1)
    if (sp.cbin == NULL or sp.cseg == NULL or sp.cnode == NULL or sp.ccand == NULL
            or sp.cguess == NULL):
        free(sp.cbin)
        free(sp.cseg)
        free(sp.cnode)
        free(sp.ccand)
        free(sp.cguess)
        sp.cbin = NULL
        sp.cseg = NULL
        sp.cnode = sp.ccand = NULL
        sp.cguess = NULL
        return -1
    for f in range(sp.F):
        sp.cnode[f] = -1
    sp.cslot = cslot
    sp.ccodes = ccodes
    sp.cvals = cvals
    return 0


cdef int test_side(const Splitter* sp, intp_t f, double thr, const uint8_t* cats,
                   double v) noexcept nogil:
    """0 = left, 1 = right, 2 = missing (goes down both branches)."""
    cdef intp_t k = sp.ncat[f]
    if isnan(v):
        return 2
    if k == 0:
        return 0 if v <= thr else 1
    if v < 0 or v >= k:
        return 2
    return 0 if cats[<intp_t>v] else 1


cdef inline double _split_value(double lo, double hi) noexcept nogil:
    """CLUS's ``SplitPosition = Exact``: the test is ``x <= lo`` (CLUS prints it as ``x > lo``),
    lo being the largest value of the left ("no") branch; ``hi`` is unused. A zero is +0.0
    (lo + 0.0): -0.0 and 0.0 are one value, and which of them a run of zeros ends with
    depends on the path (sorted node, presorted list, value table), not on the data."""
    return lo + 0.0


cdef intp_t _gather(Splitter* sp, const int32_t* idx, intp_t start, intp_t end, intp_t f,
                    intp_t* n_miss) noexcept nogil:
    """Known values of feature f into Xf/pos, positions of missing ones into mpos."""
    cdef const double* col = sp.Xt + f * sp.n
    cdef intp_t p, m = 0, nm = 0
    cdef double v
    for p in range(start, end):
        v = col[idx[p]]
        if isnan(v):
            sp.mpos[nm] = <int32_t>p
            nm += 1
        else:
            sp.Xf[m] = v
            sp.pos[m] = <int32_t>p
            m += 1
    n_miss[0] = nm
    return m


cdef Stats* _corrected_total(Splitter* sp, const int32_t* idx, const double* wt,
                             intp_t nm) noexcept nogil:
    cdef intp_t j, p
    if nm == 0:
        return &sp.tot
    stats_clear(&sp.miss, sp.cd.K)
    for j in range(nm):
        p = sp.mpos[j]
        stats_add_row(&sp.miss, sp.cd, idx[p], wt[p], True)
    stats_sub(&sp.tc, &sp.tot, &sp.miss, sp.cd.K)
    return &sp.tc


cdef inline void _record(SplitRecord* best, intp_t f, double h, double thr, double WL,
                         double WR, double pos_freq) noexcept nogil:
    """The new best test of the node (nominal tests: thr 0, the subset goes to best_cats)."""
    best.feature = f
    best.h = h
    best.threshold = thr
    best.WL = WL
    best.WR = WR
    best.pos_freq = pos_freq
    best.h_lo = h
    best.h_hi = h
    best.cut = -1


# CLUS's constants (ClusHeuristic.DELTA, FTest's "gain too small"), in units of h: the
# normalised variance reduction of spec-core §2.3, which is CLUS's heuristic value as well.
cdef double TIE_DELTA = 1e-6
cdef double MIN_GAIN = 1e-9
cdef double UNIT_ROUNDOFF = 1.1102230246251565e-16


cdef inline bint _better(SplitRecord* best, double h) noexcept nogil:
    """Whether a candidate with heuristic h replaces the node's best test (CLUS's rule).
    Also keeps the best h of the feature being evaluated (``_find_ties``; no decision reads
    it): c_hi only, as an exact h above the final best's band cannot exist (it would have
    replaced the best), so c_lo is needed only for screened candidates (``_offer``)."""
    if h > best.c_hi:
        best.c_hi = h
    if best.feature < 0:
        return h >= MIN_GAIN
    return h > best.h + TIE_DELTA


cdef inline void _move(Splitter* sp, const Stats* T, intp_t row, double w,
                       double* A2O) noexcept nogil:
    """Move one row to the sweep's moving side sp.mov."""
    cdef const ClusterData* cd = sp.cd
    if cd.mode == MODE_COMPLETE:
        add_dense(&sp.mov, cd.C + row * cd.K, cd.K, w)
    elif cd.mode == MODE_SPARSE01:
        move_sparse(&sp.mov, T, cd, row, w, A2O)
    else:
        add_missing(&sp.mov, cd.C + row * cd.K, cd.K, w)


cdef extern from *:
    """
    /* The per-value sums of _sweep_values, built for AVX2 and baseline x86-64 and chosen at
       load time (GCC function multi-versioning): four columns at a time. No FMA comes with
       AVX2, so every product and sum rounds as in the plain loop. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define FRCLI_SUMS_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define FRCLI_SUMS_CLONES
    #endif
    FRCLI_SUMS_CLONES static void frcli_value_sums(
            double* __restrict BS, const unsigned char* __restrict nc,
            const int* __restrict idx, const double* __restrict wt,
            const double* __restrict C, Py_ssize_t m, Py_ssize_t K, Py_ssize_t d) {
        for (Py_ssize_t p = 0; p < m; p++) {
            Py_ssize_t b = nc[p];
            if (b == d) continue;
            double w = wt[p];
            const double* __restrict y = C + (Py_ssize_t)idx[p] * K;
            double* __restrict bs = BS + b * K;
            for (Py_ssize_t c = 0; c < K; c++) bs[c] += w * y[c];
        }
    }
    /* gain_dense's terms (_criterion.pxd), built the same way: the two divisions per column
       dominate the cuts of a node with few rows and many values; the terms are then summed
       in column order, as gain_dense sums them. */
    FRCLI_SUMS_CLONES static void frcli_dense_terms(
            double* __restrict buf, const double* __restrict a, const double* __restrict s1,
            const double* __restrict t1, const double* __restrict TT, double WS, double WO,
            Py_ssize_t K) {
        for (Py_ssize_t c = 0; c < K; c++) {
            double sO = t1[c] - s1[c];
            buf[c] = a[c] * (s1[c] * s1[c] / WS + sO * sO / WO - TT[c]);
        }
    }
    /* The positions of the node's rows off code g (pos[:q], returns q), branch-free. */
    static Py_ssize_t frcli_off_list(const unsigned char* __restrict nc, Py_ssize_t m,
                                     Py_ssize_t g, int* __restrict pos) {
        Py_ssize_t q = 0;
        for (Py_ssize_t p = 0; p < m; p++) {
            pos[q] = (int)p;
            q += nc[p] != g;
        }
        return q;
    }
    /* Counts and weights per value code of the listed rows (integer weights: a row adds
       (weight << 32) + 1 to its code's counter, so a value's count is the low half and its
       weight the high half; four interleaved counters per code, so that rows of one value
       in a row do not wait on each other's increment). Every sum is an exact integer: the
       weights of adding the doubles one by one. The range of the codes seen goes to lo[0],
       hi[0] (255, 0 when none). pos NULL: the rows 0..q-1. */
    static void frcli_code_counts(Py_ssize_t* __restrict c0, Py_ssize_t* __restrict c1,
                                  Py_ssize_t* __restrict c2, Py_ssize_t* __restrict c3,
                                  const unsigned char* __restrict nc,
                                  const double* __restrict wt, const int* __restrict pos,
                                  Py_ssize_t q, Py_ssize_t* lo, Py_ssize_t* hi) {
        Py_ssize_t j = 0, p0, p1, p2, p3, b0, b1, b2, b3, mn = 255, mx = 0, t;
        for (; j + 4 <= q; j += 4) {
            if (pos) { p0 = pos[j]; p1 = pos[j + 1]; p2 = pos[j + 2]; p3 = pos[j + 3]; }
            else { p0 = j; p1 = j + 1; p2 = j + 2; p3 = j + 3; }
            b0 = nc[p0]; b1 = nc[p1]; b2 = nc[p2]; b3 = nc[p3];
            c0[b0] += ((Py_ssize_t)wt[p0] << 32) + 1;
            c1[b1] += ((Py_ssize_t)wt[p1] << 32) + 1;
            c2[b2] += ((Py_ssize_t)wt[p2] << 32) + 1;
            c3[b3] += ((Py_ssize_t)wt[p3] << 32) + 1;
            t = b0 < b1 ? b0 : b1; t = t < b2 ? t : b2; t = t < b3 ? t : b3;
            mn = mn < t ? mn : t;
            t = b0 > b1 ? b0 : b1; t = t > b2 ? t : b2; t = t > b3 ? t : b3;
            mx = mx > t ? mx : t;
        }
        for (; j < q; j++) {
            p0 = pos ? pos[j] : j;
            b0 = nc[p0];
            c0[b0] += ((Py_ssize_t)wt[p0] << 32) + 1;
            mn = mn < b0 ? mn : b0;
            mx = mx > b0 ? mx : b0;
        }
        lo[0] = mn;
        hi[0] = mx;
    }
    /* The per-value clustering sums of the listed rows (pos[:q], node order): each value's
       sums in the order of frcli_value_sums, so the same doubles. */
    FRCLI_SUMS_CLONES static void frcli_value_sums_list(
            double* __restrict BS, const unsigned char* __restrict nc,
            const int* __restrict idx, const double* __restrict wt,
            const double* __restrict C, Py_ssize_t K, const int* __restrict pos,
            Py_ssize_t q) {
        Py_ssize_t j, c, p;
        if (K == 1) {
            for (j = 0; j < q; j++) {
                p = pos[j];
                BS[nc[p]] += wt[p] * C[idx[p]];
            }
            return;
        }
        for (j = 0; j < q; j++) {
            p = pos[j];
            double w = wt[p];
            const double* __restrict y = C + (Py_ssize_t)idx[p] * K;
            double* __restrict bs = BS + (Py_ssize_t)nc[p] * K;
            for (c = 0; c < K; c++) bs[c] += w * y[c];
        }
    }
    /* The sparse 0/1 mode's per-value column sums of the listed rows (integer weights:
       exact integers in any order). */
    static void frcli_label_sums_list(
            double* __restrict BS, const unsigned char* __restrict nc,
            const int* __restrict idx, const double* __restrict wt,
            const int64_t* __restrict indptr, const int* __restrict indices, Py_ssize_t K,
            const int* __restrict pos, Py_ssize_t q) {
        Py_ssize_t j, p;
        int64_t e;
        for (j = 0; j < q; j++) {
            p = pos[j];
            double w = wt[p];
            double* __restrict bs = BS + (Py_ssize_t)nc[p] * K;
            for (e = indptr[idx[p]]; e < indptr[idx[p] + 1]; e++) bs[indices[e]] += w;
        }
    }
    /* Extra trees' random test x <= thr on the gathered values X (positions pos into the
       node's rows idx, weights wt): the left side's rows and weights to lrow / lw, the right
       side's in place (pos, X), both in node order, the left weight summed in that order
       (adding w * 0 = +0.0 for a right row leaves the sum as it is; weights are positive);
       returns the left rows. No
       branch per row: the side of a random threshold is unpredictable. */
    static Py_ssize_t frcli_split_rows(
            int* __restrict lrow, double* __restrict lw, int* pos, double* X,
            const int* __restrict idx, const double* __restrict wt, Py_ssize_t m,
            double thr, double* WL) {
        Py_ssize_t nL = 0, nR = 0;
        double s = 0.0;
        for (Py_ssize_t j = 0; j < m; j++) {
            int p = pos[j];
            int lt = X[j] <= thr;
            int r = idx[p];
            double w = wt[p];
            lrow[nL] = r;
            lw[nL] = w;
            pos[nR] = r;
            X[nR] = w;
            nL += lt;
            nR += 1 - lt;
            s += w * (double)lt;       /* w or +0.0, and s + 0.0 == s */
        }
        *WL = s;
        return nL;
    }
    """
    void frcli_dense_terms(double* buf, const double* a, const double* s1, const double* t1,
                           const double* TT, double WS, double WO, intp_t K) noexcept nogil
    intp_t frcli_split_rows(int32_t* lrow, double* lw, int32_t* pos, double* X,
                            const int32_t* idx, const double* wt, intp_t m, double thr,
                            double* WL) noexcept nogil
    void frcli_value_sums(double* BS, const uint8_t* nc, const int32_t* idx, const double* wt,
                          const double* C, intp_t m, intp_t K, intp_t d) noexcept nogil
    intp_t frcli_off_list(const uint8_t* nc, intp_t m, intp_t g, int32_t* pos) noexcept nogil
    void frcli_code_counts(intp_t* c0, intp_t* c1, intp_t* c2, intp_t* c3,
                           const uint8_t* nc, const double* wt, const int32_t* pos, intp_t q,
                           intp_t* lo, intp_t* hi) noexcept nogil
    void frcli_value_sums_list(double* BS, const uint8_t* nc, const int32_t* idx,
                               const double* wt, const double* C, intp_t K, const int32_t* pos,
                               intp_t q) noexcept nogil
    void frcli_label_sums_list(double* BS, const uint8_t* nc, const int32_t* idx,
                               const double* wt, const int64_t* indptr, const int32_t* indices,
                               intp_t K, const int32_t* pos, intp_t q) noexcept nogil


cdef extern from *:
    """
    #if defined(__GNUC__)
    #define frcli_prefetch(p) __builtin_prefetch((const void*)(p))
    #else
    #define frcli_prefetch(p) ((void)0)
    #endif
    """
    void frcli_prefetch(const void* p) noexcept nogil


cdef inline double _sweep_h(Splitter* sp, const Stats* T, double A2O, double A2T) noexcept nogil:
    """h of the sweep's cut, sp.mov holding the moving side (both sides weigh > 0)."""
    cdef double WM = sp.mov.W
    cdef int mode = sp.cd.mode
    cdef intp_t c, K = sp.cd.K
    cdef double h = 0.0, WO = T.W - WM
    cdef double* buf = sp.TT + K        # (free in the complete mode)
    if mode == MODE_COMPLETE:           # gain_dense, its terms four at a time
        if K < 4:                       # (fewer columns than a vector: no call)
            return gain_dense(&sp.mov, T, sp.cd.a, sp.TT, K)
        if WM <= 0.0 or WO <= 0.0:
            return 0.0
        frcli_dense_terms(buf, sp.cd.a, sp.mov.s1, T.s1, sp.TT, WM, WO, K)
        for c in range(K):
            h += buf[c]
        return h
    if mode == MODE_SPARSE01:
        return sp.mov.A2 / WM + A2O / (T.W - WM) - A2T / T.W
    return gain_missing(&sp.mov, T, sp.cd.a, sp.est, sp.TT, sp.cd.K, sp.TT + sp.cd.K)


cdef inline double _sweep_begin(Splitter* sp, const Stats* T) noexcept nogil:
    """Empty the moving side before a sweep and precompute what ``_sweep_h`` reads of the
    node's total: the squared class sums (complete data) or A2 (sparse 0/1 data: returned,
    the other side's A2 starts at it)."""
    cdef intp_t c
    stats_clear(&sp.mov, sp.cd.K)
    sp.scr_on = False
    if sp.cd.mode == MODE_SPARSE01:
        return stats_A2(T, sp.cd)
    if sp.cd.mode == MODE_COMPLETE:
        sp.tt_sum = 0.0
        for c in range(sp.cd.K):
            sp.TT[c] = T.s1[c] * T.s1[c] / T.W
            sp.tt_sum += sp.cd.a[c] * sp.TT[c]
    else:                   # missing mode: the total's terms W_T Var(T, c)
        if T == &sp.tot:    # (node_split computed them for the node)
            memcpy(sp.TT, sp.TT + 2 * sp.cd.K, sp.cd.K * sizeof(double))
        else:
            gain_missing_begin(T, sp.est, sp.cd.K, sp.TT)
        # the screen's decisions are those of the exact h; it skips cuts that cannot become
        # the best test, and these are never recorded, not even as the feature's best h
        # (read only by ``_find_ties``)
        if sp.sac != NULL and not sp.share_ties:
            sp.scr_on = True
            sp.scrE = sp.scrE_node if T == &sp.tot else _screen_mass(sp, T, sp.TT)
    return 0.0


cdef inline double _screen_mass(const Splitter* sp, const Stats* T,
                                const double* TQ) noexcept nogil:
    """sum_c a_c (|TQ_c| + 2 |s2_T,c|) over the columns with no unknown value: the scale of
    ``_screened_out``'s bound."""
    cdef intp_t c
    cdef double e = 0.0
    for c in range(sp.cd.K):
        e += sp.sac[c] * (fabs(TQ[c]) + 2.0 * fabs(T.s2[c]))
    return e


cdef inline double _screened_h(const Splitter* sp, const Stats* S, const Stats* T,
                               const double* TQ, double WS, double WO,
                               double* e) noexcept nogil:
    """The missing mode's division-free h of the test splitting T into S and T - S: the
    columns with no unknown value from ``frcli_screen_terms``, the others' exact terms (their
    magnitudes added to e[0])."""
    cdef const ClusterData* cd = sp.cd
    cdef intp_t i, c, K = cd.K
    cdef double hf, t
    hf = frcli_screen_terms(sp.sac, TQ, S.s1, S.s2, T.s1, T.s2, WS, WO, K)
    if sp.iblock:
        c = sp.sicol[0]
        frcli_gain_missing_terms(sp.TT + K, cd.a + c, TQ + c, sp.est + c, S.s1 + c,
                                 S.s2 + c, S.nk + c, T.s1 + c, T.s2 + c, T.nk + c, WS, WO,
                                 sp.nic)
        for i in range(sp.nic):
            hf += sp.TT[K + i]
            e[0] += fabs(sp.TT[K + i])
    else:
        for i in range(sp.nic):
            c = sp.sicol[i]
            t = cd.a[c] * (TQ[c] - WS * var_sel(S.s1[c], S.s2[c], S.nk[c], WS, sp.est[c])
                           - WO * var_sel(T.s1[c] - S.s1[c], T.s2[c] - S.s2[c],
                                          T.nk[c] - S.nk[c], WO, sp.est[c]))
            hf += t
            e[0] += fabs(t)
    return hf


cdef inline bint _screened_out(Splitter* sp, const Stats* T, const SplitRecord* best,
                               double WM, double WO) noexcept nogil:
    """Whether the cut with sp.mov on its moving side certainly fails ``_better``: its h
    from ``_screened_h`` (division-free on the columns with no unknown value, exact on the
    others), and a bound on the distance to the exact h.

    The bound: on a column with no unknown value both evaluations differ from the real-number
    term by at most about 16 u a_c (TQ_c + s2_S + s1_S^2/W_S + s2_O + s1_O^2/W_O), u the unit
    roundoff, and by Cauchy-Schwarz the parenthesis is at most TQ_c + 2 s2_T (up to the sums'
    own relative errors, far below 1); summing K terms in either order adds K u times the sum
    of their magnitudes. 4 (K + 32) u (sum_c a_c (TQ_c + 2 s2_T,c) + the other columns'
    |terms|) covers both with a factor of two to spare; it is about 1e-8 on the P-DS / P-ML
    sets, against CLUS's tie band of 1e-6 (TIE_DELTA): a cut is computed exactly only when
    it may be the best so far."""
    cdef intp_t K = sp.cd.K
    cdef double hf, e = sp.scrE, thr
    if WM <= 0.0 or WO <= 0.0:
        return False
    hf = _screened_h(sp, &sp.mov, T, sp.TT, WM, WO, &e)
    thr = MIN_GAIN if best.feature < 0 else best.h + TIE_DELTA
    return hf + 4.0 * (<double>K + 32.0) * UNIT_ROUNDOFF * e < thr


cdef double _random_screened_h(Splitter* sp, intp_t m, intp_t nL, double WL, double WR,
                               double* bnd) noexcept nogil:
    """Extra trees in the missing mode, the test's feature known in every row of the node
    (T is the node's total), its right side the smaller: the test's h judged from that side,
    h' (returned) within bnd[0] of the exact path's h. The exact path sums the left side row
    by row (rows sp.srow[:nL], weights sp.sw, node order); here the right side's sums R are
    taken (rows sp.pos[:m - nL], weights sp.Xf), the left side's as S' = T - R (on the
    columns with unknown values exactly: T - R itself when those sums are integers, else
    their own row sums), and h' = ``_screened_h``.

    The bound, besides ``_screened_out``'s for the evaluation: S' and the exact path's left
    sums S are recursive sums over at most m rows of terms whose magnitudes add up to
    A_c = sum_i w_i |y_ic| (s2: s2_T,c), so |S' - S| <= k A_c with k = (2m + 6) u (the
    errors of T, R and S and the subtraction). Moving s1 by d and s2 by d2 moves a side's
    (s2 - s1^2/W)^+ by at most d2 + (2 |s1| d + d^2) / W, and |s1_S| <= sqrt(W_S s2_T),
    A_c <= sqrt(W_T s2_T) (Cauchy-Schwarz), so the exact terms move by at most
    k a_c s2_T (2 + 2 (sqrt(W_T/W_L) + sqrt(W_T/W_R)) + k W_T (1/W_L + 1/W_R)); summed with
    sum_c a_c s2_T,c <= scrE_node / 2 and doubled, for slack."""
    cdef const ClusterData* cd = sp.cd
    cdef const Stats* T = &sp.tot
    cdef Stats* S = &sp.trial
    cdef intp_t K = cd.K, c, c0, p
    cdef double hf, e, k
    if sp.node_int_w < 0:
        sp.node_int_w = 1
        for p in range(nL):
            if sp.sw[p] != floor(sp.sw[p]):
                sp.node_int_w = 0
                break
        for p in range(m - nL):
            if sp.Xf[p] != floor(sp.Xf[p]):
                sp.node_int_w = 0
                break
    stats_clear(&sp.mov, K)
    add_missing_rows(&sp.mov, cd.C, sp.pos, sp.Xf, m - nL, K, False)
    S.W = WL
    for c in range(K):
        S.s1[c] = T.s1[c] - sp.mov.s1[c]
        S.s2[c] = T.s2[c] - sp.mov.s2[c]
        S.nk[c] = T.nk[c] - sp.mov.nk[c]
    if sp.nic > 0 and not (sp.iint and sp.node_int_w == 1):
        c0 = sp.sicol[0]                # (one block: ``_random_numeric_missing`` checks it)
        memset(S.s1 + c0, 0, sp.nic * sizeof(double))
        memset(S.s2 + c0, 0, sp.nic * sizeof(double))
        memset(S.nk + c0, 0, sp.nic * sizeof(double))
        frcli_add_missing_rows(S.s1 + c0, S.s2 + c0, S.nk + c0, cd.C + c0, sp.srow, sp.sw, nL,
                               sp.nic, K, 0)
    e = sp.scrE_node
    hf = _screened_h(sp, S, T, sp.TT + 2 * K, WL, WR, &e)
    k = 2.0 * (<double>m + 6.0) * UNIT_ROUNDOFF
    bnd[0] = (4.0 * (<double>K + 32.0) * UNIT_ROUNDOFF * e
              + k * sp.scrE_node * (2.0 + 2.0 * (sqrt(T.W / WL) + sqrt(T.W / WR))
                                    + k * T.W * (1.0 / WL + 1.0 / WR)))
    return hf


cdef void _random_numeric_missing(Splitter* sp, const int32_t* idx, const double* wt,
                                  intp_t start, intp_t end, intp_t f,
                                  SplitRecord* best) noexcept nogil:
    """``_random_numeric`` in the missing mode: the same draw, test and sums (the left side
    row by row in node order), its passes merged and without a branch per row (the side of a
    random threshold is unpredictable); with f known in every row of the node, a test whose
    right side is the smaller is judged from that side (``_random_screened_h``) and scored
    exactly only when its interval cannot decide."""
    cdef const ClusterData* cd = sp.cd
    cdef const double* col = sp.Xt + f * sp.n
    cdef intp_t p, j, m = 0, nm = 0, nL = 0, nR = 0
    cdef double v, mn = INFINITY, mx = -INFINITY, thr, h, WL = 0.0, WR, w, lo, hi, bnd = 0.0
    cdef int32_t r
    cdef bint left
    cdef Stats* T
    for p in range(start, end):
        v = col[idx[p]]
        if isnan(v):
            sp.mpos[nm] = <int32_t>p
            nm += 1
        else:
            sp.Xf[m] = v
            sp.pos[m] = <int32_t>p
            m += 1
            if v < mn:
                mn = v
            if v > mx:
                mx = v
    if m < 2 or mn >= mx:
        return
    thr = mn + rand_uniform(&sp.rng) * (mx - mn)
    if thr >= mx:
        thr = mn
    # the left side's rows and weights (sp.srow, sp.sw) and the right side's (in place:
    # sp.pos, sp.Xf), each in node order
    nL = frcli_split_rows(sp.srow, sp.sw, sp.pos, sp.Xf, idx, wt, m, thr, &WL)
    nR = m - nL
    T = _corrected_total(sp, idx, wt, nm)
    WR = T.W - WL
    if WL < sp.min_leaf or WR < sp.min_leaf:
        return
    lo = hi = 0.0
    if (nm == 0 and nR < nL and WL > 0.0 and WR > 0.0 and sp.sac != NULL
            and not sp.share_ties and (sp.nic == 0 or sp.iblock)):
        h = _random_screened_h(sp, m, nL, WL, WR, &bnd)
        if bnd > 0.0 and bnd < INFINITY and h - h == 0.0:
            lo = h - bnd
            hi = h + bnd
    if not lo < hi:         # no usable bound: the exact path
        stats_clear(&sp.mov, cd.K)
        add_missing_rows(&sp.mov, cd.C, sp.srow, sp.sw, nL, cd.K, False)
        h = _gain_node(sp, &sp.mov, T)
        lo = hi = h
    # a screened test is resolved (``_exact_numeric_h``) only when the intervals cannot
    # decide CLUS's rule; a screened best keeps its interval (the builder recomputes h*)
    if _offer(sp, idx, wt, start, end, best, f, thr, &h, &lo, &hi):
        _record(best, f, h, thr, WL, WR, WR / T.W)
        if lo < hi:
            best.h_lo = lo
            best.h_hi = hi


cdef inline bint _cannot_matter(const Splitter* sp, const Stats* T,
                                const SplitRecord* best) noexcept nogil:
    """Whether the cut (sp.mov the moving side; complete mode, every a_c >= 0) provably
    neither beats the node's best test nor ties with it, from
    h' = sum a s1^2 / W_M + sum a sO^2 / W_O - sum a TT: two divisions instead of two per
    column. The exact h (``gain_dense``) and h' both lie within (K + 5) u S of the true h
    (u = 2^-53; S = h' + 2 sum a TT bounds the terms' magnitudes: every operation but the
    last subtraction combines non-negative numbers), so h <= h' + 4 (K + 8) u S. A cut below
    what CLUS's rule needs (``_better``) is not better; with ties=share it must also lie
    below the tie band of any later best (the best's h only grows during a node's search),
    as ``_find_ties`` reads each feature's best h only when it reaches that band. A NaN or
    an infinite bound decides nothing. The trees are those of scoring every cut exactly."""
    cdef const double* a = sp.cd.a
    cdef const double* s1 = sp.mov.s1
    cdef const double* t1 = T.s1
    cdef intp_t c, K = sp.cd.K
    cdef double WM = sp.mov.W, WO = T.W - sp.mov.W, P = 0.0, Q = 0.0, sO, hp, S, need
    if WM <= 0.0 or WO <= 0.0:
        return False
    for c in range(K):
        sO = t1[c] - s1[c]
        P += a[c] * (s1[c] * s1[c])
        Q += a[c] * (sO * sO)
    S = P / WM + Q / WO
    hp = S - sp.tt_sum
    S += sp.tt_sum
    need = best.h if best.feature >= 0 else MIN_GAIN
    if sp.share_ties:
        need -= TIE_DELTA
    elif best.feature >= 0:
        need += TIE_DELTA
    return hp + 4.0 * (<double>K + 8.0) * UNIT_ROUNDOFF * S < need


cdef inline int _cut(Splitter* sp, const Stats* T, SplitRecord* best, intp_t f, double A2O,
                     double A2T, bint moving_left) noexcept nogil:
    """Score the cut with sp.mov holding the moving side: -1 when the other side has fallen
    below min_leaf (the sweep stops), 1 when it is recorded as the best (its threshold left
    for the caller, which reads values only then), 0 otherwise."""
    cdef double WM = sp.mov.W, WO = T.W - sp.mov.W, h
    if WO < sp.min_leaf:
        return -1
    if WM >= sp.min_leaf:
        if sp.scr_on and _screened_out(sp, T, best, WM, WO):
            return 0
        if sp.screen_cuts and _cannot_matter(sp, T, best):
            return 0
        h = _sweep_h(sp, T, A2O, A2T)
        if _better(best, h):
            if moving_left:
                _record(best, f, h, 0.0, WM, WO, WO / T.W)
            else:
                _record(best, f, h, 0.0, WO, WM, WM / T.W)
            return 1
    return 0


cdef inline bint _try_cut(Splitter* sp, const Stats* T, SplitRecord* best, intp_t f,
                          double A2O, double A2T, double lo, double hi,
                          bint moving_left) noexcept nogil:
    """``_cut`` at the threshold between lo and hi; False when the sweep stops."""
    cdef int r = _cut(sp, T, best, f, A2O, A2T, moving_left)
    if r == 1:
        best.threshold = _split_value(lo, hi)
    return r >= 0


cdef void _clus_tie_order(Splitter* sp, const double* wt, intp_t m, intp_t r0) noexcept nogil:
    """Order each run of equal values (above the minimum's, where the sweep stops) so that the
    downward sweep meets its rows in node order, as CLUS's stable descending sort does. Only
    fractional weights (missing values upstream) make the order matter: sums of integer
    weights are exact in any order, but CLUS's borderline MinimalWeight decisions and branch
    shares depend on the order in which fractions are added."""
    cdef intp_t a, b, j
    cdef double v
    cdef bint fractional = False
    for j in range(r0, m):
        if wt[sp.pos[j]] != floor(wt[sp.pos[j]]):
            fractional = True
            break
    if not fractional:
        return
    a = r0
    while a < m:
        b = a + 1
        while b < m and sp.Xf[b] == sp.Xf[a]:
            b += 1
        if b - a > 1:       # sweep goes downwards: a run must hold decreasing positions
            v = sp.Xf[a]
            for j in range(a, b):
                sp.Xf[j] = -<double>sp.pos[j]
            sort_by_value(sp.Xf + a, sp.pos + a, b - a)
            for j in range(a, b):
                sp.Xf[j] = v
        a = b


cdef inline void _list_threshold(SplitRecord* best, const double* col, const int32_t* L,
                                 intp_t jbest) noexcept nogil:
    """The recorded cut's value, read once for the last recorded cut only (a list with run
    starts: its rows masked)."""
    if jbest > 0:
        best.threshold = _split_value(col[<uint32_t>L[jbest - 1] & ROW_MASK],
                                      col[<uint32_t>L[jbest] & ROW_MASK])
        best.cut = jbest


cdef inline int _cut_between(Splitter* sp, const Stats* T, SplitRecord* best, intp_t f,
                             const double* col, const int32_t* L, intp_t j) noexcept nogil:
    """``_cut`` (complete mode, the moving side right) of a list with unmarked ties at its
    position j: a cut inside a run of equal values is no cut, which the two values tell;
    they are read only after the cut's screen, before anything is recorded (h, c_hi)."""
    cdef double WM = sp.mov.W, WO = T.W - sp.mov.W, h
    if WO < sp.min_leaf:
        return -1
    if WM >= sp.min_leaf:
        if sp.screen_cuts and _cannot_matter(sp, T, best):
            return 0
        if col[L[j - 1]] == col[L[j]]:
            return 0
        h = _sweep_h(sp, T, 0.0, 0.0)
        if _better(best, h):
            _record(best, f, h, 0.0, WO, WM, WM / T.W)
            return 1
    return 0


cdef void _sweep_tiefree(Splitter* sp, intp_t start, intp_t end, intp_t f,
                         SplitRecord* best, bint fewties) noexcept nogil:
    """_best_numeric for a presorted feature with no two equal values in the data: the
    node's rows come from its list in strictly ascending value order, so no gather, no tie
    check, every position is a candidate and a value is read only when a test is recorded.
    The same candidates, sums and order as the gathered sweep.

    ``fewties``: a feature with a few ties and no marks (complete mode), each cut checked to
    lie between two values where it could matter (``_cut_between``). The rows move in list
    order as in ``_sweep_runs``, so a cut between two values has the same sums there; a cut
    inside a run is skipped before it leaves a trace, and past the minimum's run every
    position is inside it: the same candidates, sums and order as ``_sweep_runs``."""
    cdef const Presort* ps = sp.ps
    cdef const int32_t* L = ps.lists + ps.slot[f] * ps.m0 + start
    cdef const double* col = sp.Xt + f * sp.n
    cdef const double* wrow = ps.wrow
    cdef const Stats* T = &sp.tot
    cdef intp_t m = end - start, j, jbest = 0
    cdef double A2T = 0.0, A2O = 0.0
    cdef int32_t r
    cdef int c
    if m < 2 or T.W < 2.0 * sp.min_leaf or (fewties and col[L[0]] == col[L[m - 1]]):
        return
    A2T = _sweep_begin(sp, T)
    A2O = A2T
    j = m - 1
    while j >= 1:
        r = L[j]
        _move(sp, T, r, wrow[r], &A2O)
        if fewties:
            c = _cut_between(sp, T, best, f, col, L, j)
        else:
            c = _cut(sp, T, best, f, A2O, A2T, False)
        if c < 0:
            break
        if c == 1:
            jbest = j
        j -= 1
    _list_threshold(best, col, L, jbest)


cdef void _sweep_runs(Splitter* sp, intp_t start, intp_t end, intp_t f,
                      SplitRecord* best) noexcept nogil:
    """_best_numeric for a presorted feature with ties: the node's rows come from its list in
    ascending value order, runs of equal values together (each run's first entry marked,
    ``RUN_START``: no read of X per row and no second list), and a cut is scored only
    between two runs. The rows of a run are moved one by one, then the run's boundary is
    tried once; the sweep stops at the run of the minimum, as the gathered sweep does. A
    run's rows are met in list order (ascending row index) where a sorted node meets them
    in its sort's order: the cuts, their order and every weight are the same (integer bag
    counts: exact in any order), and the clustering sums may differ in their last bits,
    which moves a cut's h by about 1e-16, far inside CLUS's TIE_DELTA (the builder
    re-derives the chosen test's h* in node order)."""
    cdef const Presort* ps = sp.ps
    cdef const uint32_t* L = <const uint32_t*>ps.lists + ps.slot[f] * ps.m0 + start
    cdef const double* col = sp.Xt + f * sp.n
    cdef const double* wrow = ps.wrow
    cdef const Stats* T = &sp.tot
    cdef intp_t m = end - start, j, jmin = 1, jbest = 0
    cdef double A2T = 0.0, A2O = 0.0
    cdef uint32_t x, r
    cdef int c
    while jmin < m and not (L[jmin] & RUN_START):    # the minimum's run: [0, jmin)
        jmin += 1
    if jmin >= m or T.W < 2.0 * sp.min_leaf:
        return
    A2T = _sweep_begin(sp, T)
    A2O = A2T
    j = m - 1
    while True:
        x = L[j]
        r = x & ROW_MASK
        _move(sp, T, r, wrow[r], &A2O)
        if x & RUN_START:       # the row below holds a smaller value: a cut
            c = _cut(sp, T, best, f, A2O, A2T, False)
            if c == 1:
                jbest = j
            if c < 0 or j == jmin:
                break
        j -= 1
    _list_threshold(best, col, <const int32_t*>L, jbest)


cdef int _node_codes(Splitter* sp, const int32_t* idx, intp_t start, intp_t end) noexcept nogil:
    """The value codes of the node's rows for its candidates with count tables
    (sp.ncodes, one row of m codes per candidate, sp.cnode[f] its row): one pass over the
    node's rows reads each row's codes where they lie together, instead of one scattered read
    per row and candidate."""
    cdef intp_t i, j, k = 0, p, m = end - start, nc = sp.cnc
    cdef int32_t f
    cdef const int32_t* cs = sp.ccand
    cdef const uint8_t* row
    cdef uint8_t* out
    for i in range(sp.max_features):
        f = sp.features[i]
        if sp.cslot[f] >= 0:
            sp.cnode[f] = <int32_t>k
            sp.ccand[k] = sp.cslot[f]
            k += 1
    if k == 0:
        return 0
    if grow(<void**>&sp.ncodes, &sp.cap_ncodes, k * m, 1) != 0:
        return -1
    out = sp.ncodes
    for p in range(m):
        if p + 16 < m:      # the rows are scattered over the data: fetch ahead
            frcli_prefetch(sp.ccodes + idx[start + p + 16] * nc)
        row = sp.ccodes + idx[start + p] * nc
        for j in range(k):
            out[j * m + p] = row[cs[j]]
    return 0


cdef intp_t _count_codes(Splitter* sp, const uint8_t* nc, const double* wt, intp_t m,
                         intp_t f, intp_t* lo, intp_t* hi, intp_t* common) noexcept nogil:
    """The node's rows per value code (sp.cseg[:256]), the range [lo, hi] of the codes
    present and the most common value (the first of equals). With integer weights (the bag
    counts: ``exact_w``) also each value's weight (sp.cbin[:256], exact integers) and the
    positions of the rows off the common value (sp.pos[:q]; returns q), else -1.

    Integer weights: the rows off the feature's common value of the tree's previous node
    (a guess, right in most nodes: a capped or sparse feature's rows mostly hold one value)
    are listed first, and only they are counted (``frcli_code_counts``); that value takes
    the node's rows and weight (T.W) less the others', the same integers. When another
    value has more rows, the list is redone for it. The caller zeroes cseg[lo:hi + 1]."""
    cdef intp_t* cnt = sp.cseg
    cdef intp_t* c1 = sp.cseg + 512
    cdef intp_t* c2 = sp.cseg + 768
    cdef intp_t* c3 = sp.cseg + 1024
    cdef double* BW = sp.cbin
    cdef intp_t p = 0, b, b1, b2, b3, q, g, d, bmin = 255, bmax = 0
    cdef double wsum = 0.0
    if sp.exact_w and sizeof(intp_t) >= 8:      # 64-bit counters
        g = sp.cguess[sp.cslot[f]]
        q = frcli_off_list(nc, m, g, sp.pos)
        frcli_code_counts(cnt, c1, c2, c3, nc, wt, sp.pos, q, &bmin, &bmax)
        for b in range(bmin, bmax + 1):
            p = cnt[b] + c1[b] + c2[b] + c3[b]
            cnt[b] = p & <intp_t>0xFFFFFFFF
            BW[b] = <double>(p >> 32)
            wsum += BW[b]
            c1[b] = c2[b] = c3[b] = 0
        if q < m:
            cnt[g] = m - q
            BW[g] = sp.tot.W - wsum
            bmin = min(bmin, g)
            bmax = max(bmax, g)
        d = _common_code(cnt, bmin, bmax)
        if d != g:
            q = frcli_off_list(nc, m, d, sp.pos)
        sp.cguess[sp.cslot[f]] = <uint8_t>d
    else:
        q = -1
        while p + 4 <= m:
            b = nc[p]
            b1 = nc[p + 1]
            b2 = nc[p + 2]
            b3 = nc[p + 3]
            cnt[b] += 1
            c1[b1] += 1
            c2[b2] += 1
            c3[b3] += 1
            bmin = min(bmin, min(min(b, b1), min(b2, b3)))
            bmax = max(bmax, max(max(b, b1), max(b2, b3)))
            p += 4
        while p < m:
            b = nc[p]
            cnt[b] += 1
            bmin = min(bmin, b)
            bmax = max(bmax, b)
            p += 1
        for b in range(bmin, bmax + 1):
            cnt[b] += c1[b] + c2[b] + c3[b]
            c1[b] = c2[b] = c3[b] = 0
        d = _common_code(cnt, bmin, bmax)
    lo[0] = bmin
    hi[0] = bmax
    common[0] = d
    return q


cdef inline intp_t _common_code(const intp_t* cnt, intp_t bmin, intp_t bmax) noexcept nogil:
    """The value with the most rows (the first of equals)."""
    cdef intp_t b, d = bmin
    for b in range(bmin + 1, bmax + 1):
        if cnt[b] > cnt[d]:
            d = b
    return d


cdef void _sweep_values(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                        intp_t end, intp_t f, SplitRecord* best) noexcept nogil:
    """_best_numeric for a feature with at most 256 values in the data (complete mode): the
    node's rows are counted per value, then the sweep moves whole values from the largest
    down and tries the cut below each, stopping at the minimum's: the cuts and their order
    of the row sweep, without a sort. O(node rows + values).

    The weights are those of the row sweep: per value (integer bag counts: exact in any
    order) or, when the node holds fractional copies of rows (below a test with missing
    values), summed row by row in the gathered sweep's order (values descending, each
    value's rows in node order, as ``_clus_tie_order`` orders a sorted node), which a
    counting sort of the value codes gives. The clustering sums are added per value, and the
    most common value's are the node's minus the others' (a capped or sparse feature's rows
    mostly hold one value: they are never summed), which may change their last bits (h by
    about 1e-16, far inside CLUS's TIE_DELTA; the builder re-derives the chosen test's h*
    in node order). The minimum's rows are never moved, so its sums are needed only when it
    is not the most common value."""
    cdef const ClusterData* cd = sp.cd
    cdef intp_t K = cd.K, p, b, c, q, j, lo, d, bmin, bmax
    cdef const uint8_t* nc = sp.ncodes + sp.cnode[f] * (end - start)
    cdef const double* vals = sp.cvals + sp.cslot[f] * 256
    cdef intp_t* cnt = sp.cseg
    cdef intp_t* cend = sp.cseg + 256
    cdef double* BW = sp.cbin
    cdef double* BS = sp.cbin + 256
    cdef double* bs
    cdef double* ms = sp.mov.s1
    cdef const Stats* T = &sp.tot
    cdef int32_t* pos = sp.pos
    cdef intp_t m = end - start
    cdef intp_t q_off = _count_codes(sp, nc, wt + start, m, f, &bmin, &bmax, &d)
    cdef bint packed = q_off >= 0
    cdef bint by_row = not sp.exact_w
    if bmin < bmax and T.W >= 2.0 * sp.min_leaf:
        for b in range(bmin, bmax + 1):
            if not packed:
                BW[b] = 0.0
            if cnt[b] > 0 and b != d:
                memset(BS + b * K, 0, K * sizeof(double))
        if by_row:          # the sweep's order: values descending, the minimum's rows left out
            q = 0
            for b in range(bmax, bmin, -1):
                cend[b] = q
                q += cnt[b]
            for p in range(start, end):
                b = nc[p - start]
                if b != bmin:
                    pos[cend[b]] = <int32_t>p
                    cend[b] += 1
            frcli_value_sums(BS, nc, idx + start, wt + start, cd.C, m, K, d)
        elif packed:
            frcli_value_sums_list(BS, nc, idx + start, wt + start, cd.C, K, pos, q_off)
        else:
            for p in range(start, end):
                BW[nc[p - start]] += wt[p]
            frcli_value_sums(BS, nc, idx + start, wt + start, cd.C, m, K, d)
        _sweep_begin(sp, T)
        j = 0
        b = bmax
        while True:
            if by_row:
                while j < cend[b]:
                    sp.mov.W += wt[pos[j]]
                    j += 1
            else:
                sp.mov.W += BW[b]
            if b == d:      # the moving side is the node less the values below
                memcpy(ms, T.s1, K * sizeof(double))
                for q in range(bmin, d):
                    if cnt[q] > 0:
                        bs = BS + q * K
                        for c in range(K):
                            ms[c] -= bs[c]
            else:
                bs = BS + b * K
                for c in range(K):
                    ms[c] += bs[c]
            lo = b - 1
            while cnt[lo] == 0:
                lo -= 1
            if not _try_cut(sp, T, best, f, 0.0, 0.0, vals[lo], vals[b], False) or lo == bmin:
                break
            b = lo
    if bmin <= bmax:
        memset(cnt + bmin, 0, (bmax - bmin + 1) * sizeof(intp_t))


cdef bint _sweep_values_sparse(Splitter* sp, const int32_t* idx, const double* wt,
                               intp_t start, intp_t end, intp_t f,
                               SplitRecord* best) noexcept nogil:
    """``_sweep_values`` of the sparse 0/1 mode (classification, multi-label), for nodes
    whose weights are bag counts: every sum is then an exact integer. Each value's column
    sums come from its rows' positive columns (the most common value's: the node's minus
    the others'), and a value moves as the row sweep moves its rows, keeping both sides'
    sum a_c s1_c^2 (``move_sparse``), one update per column for the whole value: the same
    cuts in the same order, sums equal, the two A2 within rounding of the row sweep's (h by
    about 1e-16, far inside CLUS's TIE_DELTA; the builder re-derives the chosen test's h*).
    Returns False, having done nothing, when the node's values times the columns would
    cost more than sorting the node (many labels, few rows): the caller then sorts."""
    cdef const ClusterData* cd = sp.cd
    cdef intp_t K = cd.K, b, c, lo, d, bmin, bmax, npresent = 0, m = end - start
    cdef const uint8_t* nc = sp.ncodes + sp.cnode[f] * m
    cdef const double* vals = sp.cvals + sp.cslot[f] * 256
    cdef intp_t* cnt = sp.cseg
    cdef double* BW = sp.cbin
    cdef double* BS = sp.cbin + 256
    cdef double* bs
    cdef double* ms = sp.mov.s1
    cdef const double* a = cd.a
    cdef const Stats* T = &sp.tot
    cdef double A2T, A2O, w, oM, oO
    cdef bint done = True
    cdef intp_t q_off = _count_codes(sp, nc, wt + start, m, f, &bmin, &bmax, &d)
    for b in range(bmin, bmax + 1):
        npresent += cnt[b] > 0
    if q_off < 0 or npresent * K > 8 * m:     # (q_off < 0: no 64-bit counters)
        done = False
    elif bmin < bmax and T.W >= 2.0 * sp.min_leaf:
        for b in range(bmin, bmax + 1):
            if cnt[b] > 0 and b != d:
                memset(BS + b * K, 0, K * sizeof(double))
        frcli_label_sums_list(BS, nc, idx + start, wt + start, cd.indptr, cd.indices, K,
                              sp.pos, q_off)
        if d > bmin:        # the common value's sums (the minimum's are never needed)
            bs = BS + d * K
            memcpy(bs, T.s1, K * sizeof(double))
            for b in range(bmin, bmax + 1):
                if cnt[b] > 0 and b != d:
                    for c in range(K):
                        bs[c] -= BS[b * K + c]
        A2T = _sweep_begin(sp, T)
        A2O = A2T
        b = bmax
        while True:
            sp.mov.W += BW[b]
            bs = BS + b * K
            for c in range(K):
                w = bs[c]
                if w != 0.0:
                    oM = ms[c]
                    oO = T.s1[c] - oM
                    ms[c] = oM + w
                    sp.mov.A2 += a[c] * (2.0 * oM * w + w * w)
                    A2O += a[c] * (-2.0 * oO * w + w * w)
            lo = b - 1
            while cnt[lo] == 0:
                lo -= 1
            if not _try_cut(sp, T, best, f, A2O, A2T, vals[lo], vals[b], False) or lo == bmin:
                break
            b = lo
    if bmin <= bmax:
        memset(cnt + bmin, 0, (bmax - bmin + 1) * sizeof(intp_t))
    return done


cdef inline bint _constant(const double* v, intp_t m) noexcept nogil:
    """All m values equal: no test, and no sort needed to see it (deep nodes of fully grown
    trees on tied features, e.g. the semi-supervised forests of P-DS)."""
    cdef intp_t j
    cdef double v0 = v[0]
    for j in range(1, m):
        if v[j] != v0:
            return False
    return True


cdef void _best_numeric(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                        intp_t end, intp_t f, SplitRecord* best) noexcept nogil:
    """The best threshold of f: the node's known values in ascending order (from the
    presorted lists, or gathered and sorted here), then one sweep."""
    cdef intp_t m, nm = 0, j, r0
    cdef const Stats* T
    cdef double A2T = 0.0, A2O = 0.0
    cdef double* Xf = sp.Xf
    cdef const int32_t* rows = sp.srow
    cdef const double* ws = sp.sw
    cdef uint8_t t
    if sp.cslot != NULL and sp.cslot[f] != -1:
        if sp.cslot[f] >= 0:
            if sp.cd.mode == MODE_COMPLETE:
                _sweep_values(sp, idx, wt, start, end, f, best)
                return
            if sp.exact_w and _sweep_values_sparse(sp, idx, wt, start, end, f, best):
                return
        elif sp.cslot[f] == -2:     # one value in the whole data: never a test
            return
    if sp.ps != NULL and sp.ps_node and sp.ps.slot[f] >= 0:
        t = sp.ps.tied[sp.ps.slot[f]]
        if t == 0:
            _sweep_tiefree(sp, start, end, f, best, False)
            return
        if t == 1:
            _sweep_runs(sp, start, end, f, best)
            return
        if sp.cd.mode == MODE_COMPLETE:
            _sweep_tiefree(sp, start, end, f, best, True)
            return
        # (unmarked ties in another mode: the node sorts its values, below)
    m = _gather(sp, idx, start, end, f, &nm)
    if m < 2 or _constant(Xf, m):     # (a constant feature would return below)
        return
    sort_by_value(Xf, sp.pos, m)
    if Xf[0] >= Xf[m - 1]:
        return
    T = _corrected_total(sp, idx, wt, nm)
    if T.W < 2.0 * sp.min_leaf:
        return
    r0 = 1
    while Xf[r0] == Xf[0]:
        r0 += 1
    _clus_tie_order(sp, wt, m, r0)
    for j in range(r0, m):       # the sweep stops at the run of the minimum
        sp.srow[j] = idx[sp.pos[j]]
        sp.sw[j] = wt[sp.pos[j]]
    A2T = _sweep_begin(sp, T)
    A2O = A2T
    # sweep downwards (moving side = right, CLUS's "yes" branch), as CLUS does: with the
    # tie rule the order of the candidates decides near-ties; stop at the run of the minimum
    j = m - 1
    while j >= r0:
        _move(sp, T, rows[j], ws[j], &A2O)
        if Xf[j - 1] < Xf[j]:
            if not _try_cut(sp, T, best, f, A2O, A2T, Xf[j - 1], Xf[j], False):
                break
        j -= 1


cdef intp_t _category_stats(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                            intp_t end, intp_t f, intp_t* nm_out) noexcept nogil:
    """Per-category statistics of feature f; returns the number of values present."""
    cdef const double* col = sp.Xt + f * sp.n
    cdef intp_t k = sp.ncat[f], p, v, nm = 0, present = 0
    cdef double x
    for v in range(k):
        stats_clear(&sp.cat[v], sp.cd.K)
    for p in range(start, end):
        x = col[idx[p]]
        if isnan(x) or x < 0 or x >= k:
            sp.mpos[nm] = <int32_t>p
            nm += 1
        else:
            stats_add_row(&sp.cat[<intp_t>x], sp.cd, idx[p], wt[p], True)
    for v in range(k):
        if sp.cat[v].W > 0.0:
            present += 1
    nm_out[0] = nm
    return present


cdef intp_t _category_stats_int(Splitter* sp, const int32_t* idx, const double* wt,
                                intp_t start, intp_t end, intp_t f,
                                intp_t* nm_out) noexcept nogil:
    """``_category_stats`` when every sum is an exact integer (``sp.int_sums``: integer
    clustering values, and integer weights, checked here; -1 = not so, use the plain path):
    the node's most common value d is not summed row by row but is the corrected total
    minus the other values, the same integers as summing its rows. The semi-supervised
    forests of P-DS on nominal data (chess, tic-tac-toe: one-hot feature columns) spend most
    of their time in these statistics."""
    cdef const double* col = sp.Xt + f * sp.n
    cdef const ClusterData* cd = sp.cd
    cdef intp_t k = sp.ncat[f], K = cd.K, p, v, c, d = 0, nm = 0
    cdef double x
    cdef Stats* T
    cdef Stats* sd
    cdef Stats* st
    # weights per value (the values present: the same integers as the sums below give)
    cdef intp_t present = _category_weights(sp, idx, wt, start, end, f, &nm)
    if present < 0:
        return -1
    for v in range(1, k):
        if sp.cat[v].W > sp.cat[d].W:
            d = v
    for v in range(k):
        stats_clear(&sp.cat[v], K)
    for p in range(start, end):
        x = col[idx[p]]
        if not (isnan(x) or x < 0 or x >= k) and <intp_t>x != d:
            stats_add_row(&sp.cat[<intp_t>x], cd, idx[p], wt[p], True)
    T = _corrected_total(sp, idx, wt, nm)
    sd = &sp.cat[d]
    stats_copy(sd, T, K)
    for v in range(k):
        if v == d:
            continue
        st = &sp.cat[v]
        sd.W -= st.W
        for c in range(K):
            sd.s1[c] -= st.s1[c]
            sd.s2[c] -= st.s2[c]
            sd.nk[c] -= st.nk[c]
    sd.A2 = 0.0
    nm_out[0] = nm
    return present


# At most this many doubles of batched category statistics per tree (else the plain path).
cdef intp_t BATCH_MAX_DOUBLES = 1 << 24


cdef int batch_init(Splitter* sp, const int64_t* nd_ptr, const int32_t* nd_rows,
                    const int32_t* nd_default, const int32_t* nd_val, const int64_t* nr_ptr,
                    const int32_t* nr_feat, const int32_t* nr_val,
                    const int32_t* counts) noexcept nogil:
    """Enable ``_batch_categories`` (sparse 0/1 mode; the lists come from
    ``_presort.nominal_default_rows`` and ``nominal_row_lists``). Returns 0, or -1 when it
    stays off (no memory, or the statistics would exceed BATCH_MAX_DOUBLES)."""
    cdef intp_t K = sp.cd.K, nb = sp.max_features * sp.max_ncat, i, f
    if sp.cd.mode != MODE_SPARSE01 or nb * (K + 1) > BATCH_MAX_DOUBLES:
        return -1
    sp.stamp = <int32_t*>malloc((sp.n + 1) * sizeof(int32_t))
    sp.bslot = <int32_t*>malloc((sp.F + 1) * sizeof(int32_t))
    sp.bcat = <Stats*>calloc(nb + 1, sizeof(Stats))
    sp.bcat_s1 = <double*>calloc(nb * K + 1, sizeof(double))
    sp.bzero = <double*>calloc(K + 1, sizeof(double))
    sp.bpresent = <intp_t*>calloc(sp.max_features + 1, sizeof(intp_t))
    sp.acols = <int32_t*>malloc((K + 1) * sizeof(int32_t))
    sp.TTa = <double*>malloc((K + 1) * sizeof(double))
    if (sp.stamp == NULL or sp.bslot == NULL or sp.bcat == NULL or sp.bcat_s1 == NULL
            or sp.bzero == NULL or sp.bpresent == NULL or sp.acols == NULL or sp.TTa == NULL):
        _batch_free(sp)
        return -1
    memset(sp.stamp, 0xFF, (sp.n + 1) * sizeof(int32_t))      # -1: no node
    for f in range(sp.F):
        sp.bslot[f] = -1
    for i in range(nb):
        sp.bcat[i].s1 = sp.bcat_s1 + i * K
        sp.bcat[i].s2 = sp.bzero            # read-only zeros: sparse sweeps use s1 only
        sp.bcat[i].nk = sp.bzero
    sp.nd_ptr = nd_ptr
    sp.nd_rows = nd_rows
    sp.nd_default = nd_default
    sp.nd_val = nd_val
    sp.nr_ptr = nr_ptr
    sp.nr_feat = nr_feat
    sp.nr_val = nr_val
    sp.nr_mean = <double>nr_ptr[sp.n] / <double>(sp.n if sp.n > 0 else 1)
    sp.counts = counts
    return 0


cdef inline void _add_labels(Stats* st, const ClusterData* cd, intp_t r, double w) noexcept nogil:
    cdef int64_t q
    st.W += w
    for q in range(cd.indptr[r], cd.indptr[r + 1]):
        st.s1[cd.indices[q]] += w


cdef void _batch_categories(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                            intp_t end) noexcept nogil:
    """Category statistics of every candidate nominal feature of the node that has a common
    value (sparse 0/1 mode, weights = bag counts), before the features are evaluated: only
    rows off each feature's most common value d are added, and d's statistics are the
    node's minus the others'. The rows come either from each feature's list of such rows
    (matched to the node by ``stamp``) or, when cheaper, from one pass over the node's rows
    and their lists of such features: sequential reads instead of one scattered read of X per
    row and feature. Every sum is a sum of integer counts, so any order gives exactly the
    statistics of adding the rows one by one (bibtex, delicious: a few % non-zeros)."""
    cdef const ClusterData* cd = sp.cd
    cdef intp_t K = cd.K, mc = sp.max_ncat, nf = sp.max_features, m = end - start
    cdef intp_t i, f, k, d, v, p, c, nb = 0, present
    cdef int64_t j
    cdef int32_t r, sl
    cdef double w, col_cost = 0.0
    cdef Stats* st
    cdef Stats* sd
    cdef Stats* base
    cdef const Stats* T = &sp.tot
    cdef const int32_t* cols = sp.acols
    cdef intp_t na = 0, a
    for i in range(nf):
        f = sp.features[i]
        if sp.ncat[f] > 0 and sp.nd_default[f] >= 0:
            sp.bslot[f] = <int32_t>i
            nb += 1
            col_cost += <double>(sp.nd_ptr[f + 1] - sp.nd_ptr[f])
    if nb == 0:
        return
    # the node's columns with a positive sum: a subset's other columns are 0, and their
    # terms of the heuristic exactly 0 (``_gain_cols``), so only these are kept
    for c in range(K):
        if T.s1[c] > 0.0:
            sp.acols[na] = <int32_t>c
            sp.TTa[na] = T.s1[c] * T.s1[c] / T.W
            na += 1
    sp.n_act = na
    for i in range(nf):
        f = sp.features[i]
        if sp.bslot[f] != i:
            continue
        for v in range(sp.ncat[f]):
            st = &sp.bcat[i * mc + v]
            st.W = 0.0
            for a in range(na):
                st.s1[cols[a]] = 0.0
    if col_cost + m < m * sp.nr_mean:
        if not sp.stamped:
            for p in range(start, end):
                sp.stamp[idx[p]] = <int32_t>sp.node_id
            sp.stamped = True
        for i in range(nf):
            f = sp.features[i]
            if sp.bslot[f] != i:
                continue
            base = sp.bcat + i * mc
            for j in range(sp.nd_ptr[f], sp.nd_ptr[f + 1]):
                r = sp.nd_rows[j]
                if sp.stamp[r] == sp.node_id:
                    _add_labels(&base[sp.nd_val[j]], cd, r, <double>sp.counts[r])
    else:
        for p in range(start, end):
            r = idx[p]
            w = wt[p]
            for j in range(sp.nr_ptr[r], sp.nr_ptr[r + 1]):
                sl = sp.bslot[sp.nr_feat[j]]
                if sl >= 0:
                    _add_labels(&sp.bcat[sl * mc + sp.nr_val[j]], cd, r, w)
    for i in range(nf):
        f = sp.features[i]
        if sp.bslot[f] != i:
            continue
        k = sp.ncat[f]
        d = sp.nd_default[f]
        base = sp.bcat + i * mc
        sd = &base[d]
        sd.W = T.W
        for a in range(na):
            sd.s1[cols[a]] = T.s1[cols[a]]
        present = 0
        for v in range(k):
            st = &base[v]
            if v != d and st.W > 0.0:
                sd.W -= st.W
                for a in range(na):
                    sd.s1[cols[a]] -= st.s1[cols[a]]
        for v in range(k):
            if base[v].W > 0.0:
                present += 1
        sp.bpresent[i] = present


cdef inline double _gain_cols(const Stats* S, const Stats* T, const double* w,
                              const int32_t* cols, const double* TT, intp_t na) noexcept nogil:
    """gain() of the sparse 0/1 mode over the columns ``cols`` (ascending; TT[a] =
    T.s1^2 / T.W there): the same terms in the same order, the skipped ones being exactly 0."""
    cdef intp_t a
    cdef int32_t c
    cdef double WS = S.W, WO = T.W - S.W, h = 0.0, sO
    if WS <= 0.0 or WO <= 0.0:
        return 0.0
    for a in range(na):
        c = cols[a]
        sO = T.s1[c] - S.s1[c]
        h += w[c] * (S.s1[c] * S.s1[c] / WS + sO * sO / WO - TT[a])
    return h


cdef inline double _gain_node(const Splitter* sp, const Stats* S, const Stats* T) noexcept nogil:
    """gain(S, T), with the node total's terms computed once per node in the missing mode
    (``node_split``) when T is the node's total."""
    cdef intp_t K = sp.cd.K
    if sp.cd.mode == MODE_MISSING and T == &sp.tot:
        return gain_missing(S, T, sp.cd.a, sp.est, sp.TT + 2 * K, K, sp.TT + K)
    return gain(S, T, sp.cd, sp.est, NULL)


cdef inline double _gain_nominal(const Splitter* sp, const Stats* S, const Stats* T) noexcept nogil:
    """The heuristic of a nominal test: over the node's active columns when its categories
    were batched (their other columns are stale), else gain()."""
    if sp.cat != sp.cat_own:
        return _gain_cols(S, T, sp.cd.a, sp.acols, sp.TTa, sp.n_act)
    return _gain_node(sp, S, T)


cdef inline intp_t _categories(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                               intp_t end, intp_t f, intp_t* nm_out) noexcept nogil:
    """Per-category statistics of f in sp.cat (the batch's, when f was batched)."""
    cdef int32_t sl
    if sp.bslot != NULL:
        sl = sp.bslot[f]
        if sl >= 0:
            sp.cat = sp.bcat + sl * sp.max_ncat
            nm_out[0] = 0
            return sp.bpresent[sl]
    sp.cat = sp.cat_own
    cdef intp_t present
    if sp.int_sums:
        present = _category_stats_int(sp, idx, wt, start, end, f, nm_out)
        if present >= 0:
            return present
    return _category_stats(sp, idx, wt, start, end, f, nm_out)


cdef inline intp_t _first_value(Splitter* sp, intp_t k, const Stats* T) noexcept nogil:
    """The test of a nominal feature with two values present, "x = the first of them", in
    sp.cur_cats: that value, or -1 when a side would weigh less than min_leaf."""
    cdef intp_t v
    cdef double WS
    memset(sp.cur_cats, 0, k)
    for v in range(k):
        if sp.cat[v].W > 0.0:
            break
    sp.cur_cats[v] = 1
    WS = sp.cat[v].W
    if WS < sp.min_leaf or T.W - WS < sp.min_leaf:
        return -1
    return v


cdef inline void _offer_first(Splitter* sp, SplitRecord* best, intp_t f, double h,
                              const Stats* T, intp_t v) noexcept nogil:
    """``_first_value``'s test (value v) with heuristic h, the node's best if CLUS's rule
    takes it."""
    cdef double WS = sp.cat[v].W
    if _better(best, h):
        _record(best, f, h, 0.0, WS, T.W - WS, WS / T.W)
        memcpy(sp.best_cats, sp.cur_cats, sp.ncat[f])


cdef void _best_nominal(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                        intp_t end, intp_t f, SplitRecord* best) noexcept nogil:
    cdef const ClusterData* cd = sp.cd
    cdef intp_t k = sp.ncat[f], v, rv, nA = 0, nm, present
    cdef Stats* T
    cdef double h, rb, fbest = -INFINITY, WS, WO, ml = sp.min_leaf
    present = _categories(sp, idx, wt, start, end, f, &nm)
    if present < 2:
        return
    T = _corrected_total(sp, idx, wt, nm)
    if T.W < 2.0 * ml:
        return
    if present == 2:        # the single test "x = first value" (greedy would mirror it)
        v = _first_value(sp, k, T)
        if v >= 0:          # the value's own statistics (0 + x = x: the same h as its copy)
            _offer_first(sp, best, f, _gain_nominal(sp, &sp.cat[v], T), T, v)
        return
    memset(sp.cur_cats, 0, k)
    stats_clear(&sp.cur, cd.K)
    while True:
        rb = -INFINITY
        rv = -1
        for v in range(k):
            if sp.cur_cats[v] or sp.cat[v].W <= 0.0:
                continue
            stats_copy(&sp.trial, &sp.cur, cd.K)
            stats_iadd(&sp.trial, &sp.cat[v], cd.K)
            WS = sp.trial.W
            WO = T.W - WS
            if WS < ml or WO < ml:
                continue
            h = _gain_nominal(sp, &sp.trial, T)
            if h > rb:
                rb = h
                rv = v
        if rv < 0 or rb <= fbest:
            break
        sp.cur_cats[rv] = 1
        stats_iadd(&sp.cur, &sp.cat[rv], cd.K)
        nA += 1
        fbest = rb
        if _better(best, fbest):
            _record(best, f, fbest, 0.0, sp.cur.W, T.W - sp.cur.W, sp.cur.W / T.W)
            memcpy(sp.best_cats, sp.cur_cats, k)
        if nA + 1 >= present:
            break


# -- extra trees on complete data: screened candidates -----------------------------------
# A random test's h needs the sums of its left side (x <= thr), summed row by row in the
# node's order; on sparse count data (text sets: 98 % zeros, unsupervised, K = F ~ 5000)
# that side holds nearly every row, so each candidate cost a pass over the node's rows x K
# columns. Only the *choice* of the test needs the candidates' h (the builder recomputes h*
# of the chosen one from its own sums), so a candidate is first scored from its smaller side
# (right sums R, left = T - R) with a rigorous bound on how far that value can lie from the
# h the exact path computes; the exact h is computed only when the bound cannot decide the
# comparison (CLUS's rule in ``_better``). The decisions, and so the trees, are those of the
# exact path bit for bit (``bench/tree_identity.py``).
#
# The bound (u = 2^-53, m rows, A_c = sum_i w_i |y_ic| <= sqrt(W s2_c) by Cauchy-Schwarz):
# both the exact path's (L, T - L) and the screened (T - R, R) lie within
# d_c = 4 (m + 2) u A_c of the true (L, R) per column (recursive summation, Higham 4.2), so
# each computed h lies within sum_c a_c (2 A_c d_c + d_c^2) (1/W_L + 1/W_R) plus its own
# rounding, at most (K + 10) u sum_c a_c (p_c + q_c + r_c), of the true h; the screened
# interval is four times the sum of both paths' bounds.


cdef int screen_init(Splitter* sp) noexcept nogil:
    """Screen extra-trees candidates, or the best tests' cuts (``_cannot_matter``; at least
    two columns, every a_c >= 0), in complete mode; or the cuts of the missing mode's sweeps
    (``_screened_out``). Else, or without memory, it stays off and the plain path grows the
    same tree. Returns 0 when on."""
    cdef intp_t c
    if sp.cd.mode == MODE_MISSING:
        return _screen_columns(sp, sp.n)
    if sp.cd.mode != MODE_COMPLETE:
        return -1
    if not sp.extra:
        sp.screen_cuts = sp.cd.K >= 2
        for c in range(sp.cd.K):
            if not (sp.cd.a[c] >= 0.0 and sp.cd.a[c] < INFINITY):
                sp.screen_cuts = False
        return 0 if sp.screen_cuts else -1
    if sp.abound == NULL:
        sp.abound = <double*>malloc((sp.cd.K + 1) * sizeof(double))
    return 0 if sp.abound != NULL else -1


cdef void _screen_begin(Splitter* sp) noexcept nogil:
    """Per node: the bound A_c on sum_i w_i |y_ic| and T.s1^2 / W (screening on)."""
    cdef intp_t c
    cdef const Stats* T = &sp.tot
    cdef double W = T.W, v
    for c in range(sp.cd.K):
        v = T.s2[c] if T.s2[c] > 0.0 else 0.0
        sp.abound[c] = sqrt(W * v) * (1.0 + 1e-6) + 1e-300
        sp.TT[c] = T.s1[c] * T.s1[c] / W if W > 0.0 else 0.0


cdef inline void _add_row_s1(Splitter* sp, intp_t row, double w) noexcept nogil:
    """add_dense of a row (complete mode), from its byte codes when the data has them."""
    cdef const ClusterData* cd = sp.cd
    if cd.C8 != NULL:
        add_codes(&sp.mov, cd.C8 + row * cd.K, cd.off, cd.K, w, False)
    else:
        add_dense(&sp.mov, cd.C + row * cd.K, cd.K, w)


cdef double _exact_numeric_h(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                             intp_t end, intp_t f, double thr) noexcept nogil:
    """h of ``x_f <= thr`` as the exact path computes it (f known in every row of the node):
    left sums row by row in the node's order, then gain() (the missing mode's: with the
    node total's terms, as ``_random_numeric_missing``)."""
    cdef const ClusterData* cd = sp.cd
    cdef const double* col = sp.Xt + f * sp.n
    cdef intp_t p, K = cd.K
    if cd.mode == MODE_MISSING:
        stats_clear(&sp.mov, K)
        for p in range(start, end):
            if col[idx[p]] <= thr:
                add_missing(&sp.mov, cd.C + idx[p] * K, K, wt[p])
        return _gain_node(sp, &sp.mov, &sp.tot)
    sp.mov.W = 0.0
    memset(sp.mov.s1, 0, K * sizeof(double))
    for p in range(start, end):
        if col[idx[p]] <= thr:
            _add_row_s1(sp, idx[p], wt[p])
    return gain(&sp.mov, &sp.tot, cd, sp.est, NULL)


cdef int split_exact_h(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                       intp_t end, SplitRecord* best) noexcept nogil:
    """Replace a screened best.h by the exact path's value (the builder does not need it; the
    testing hook ``_tree._split_node`` does)."""
    cdef double h
    if best.feature >= 0 and best.h_lo < best.h_hi:
        h = _exact_numeric_h(sp, idx, wt, start, end, best.feature, best.threshold)
        best.h = best.h_lo = best.h_hi = h
    return 0


cdef bint _offer(Splitter* sp, const int32_t* idx, const double* wt, intp_t start, intp_t end,
                 SplitRecord* best, intp_t f, double thr, double* h, double* lo,
                 double* hi) noexcept nogil:
    """``_decide``, keeping the candidate's interval as the feature's best h (extra trees
    draw one test per feature)."""
    cdef bint won = _decide(sp, idx, wt, start, end, best, f, thr, h, lo, hi)
    if lo[0] > best.c_lo:
        best.c_lo = lo[0]
    if hi[0] > best.c_hi:
        best.c_hi = hi[0]
    return won


cdef bint _decide(Splitter* sp, const int32_t* idx, const double* wt, intp_t start, intp_t end,
                  SplitRecord* best, intp_t f, double thr, double* h, double* lo,
                  double* hi) noexcept nogil:
    """``_better(best, h)`` for a candidate known as h in [lo, hi] (exact when lo == hi; a
    screened candidate, lo < hi, is numeric: ``x_f <= thr``): whichever side is uncertain is
    resolved only when the intervals cannot decide; a resolved candidate's h, lo and hi are
    updated. An exact NaN is never better, as in ``_better``."""
    cdef double tlo, thi
    while True:
        if best.feature < 0:
            if lo[0] >= MIN_GAIN:
                return True
            if hi[0] < MIN_GAIN:
                return False
        else:
            tlo = best.h_lo + TIE_DELTA
            thi = best.h_hi + TIE_DELTA
            if lo[0] > thi:
                return True
            if hi[0] <= tlo:
                return False
            if best.h_lo < best.h_hi:
                split_exact_h(sp, idx, wt, start, end, best)
                continue
        if not (lo[0] < hi[0]):
            return False
        h[0] = _exact_numeric_h(sp, idx, wt, start, end, f, thr)
        lo[0] = hi[0] = h[0]


cdef double _screen_h(Splitter* sp, double WL, double WR, intp_t m, double* bnd) noexcept nogil:
    """h from the right side's sums in sp.mov (left = T - right), and its bound."""
    cdef const Stats* T = &sp.tot
    cdef const double* a = sp.cd.a
    cdef const double* A = sp.abound
    cdef intp_t c, K = sp.cd.K
    cdef double k = 4.0 * (<double>m + 2.0) * UNIT_ROUNDOFF, h = 0.0, e_in = 0.0, e_ev = 0.0
    cdef double R, L, p, q, r, d
    for c in range(K):
        R = sp.mov.s1[c]
        L = T.s1[c] - R
        p = L * L / WL
        q = R * R / WR
        r = sp.TT[c]
        h += a[c] * (p + q - r)
        d = k * A[c]
        e_in += a[c] * (2.0 * A[c] + d) * d
        e_ev += a[c] * (p + q + r)
    bnd[0] = 4.0 * (2.0 * e_in * (1.0 / WL + 1.0 / WR)
                    + 2.0 * (<double>K + 10.0) * UNIT_ROUNDOFF * 2.0 * e_ev)
    return h


cdef void _random_numeric_screened(Splitter* sp, const int32_t* idx, const double* wt,
                                   intp_t start, intp_t end, intp_t f, double thr, intp_t m,
                                   SplitRecord* best) noexcept nogil:
    """``_random_numeric``'s test scored from its smaller side (see above); f has no missing
    value in the node, so T is the node's total."""
    cdef const ClusterData* cd = sp.cd
    cdef const Stats* T = &sp.tot
    cdef intp_t j, p, nL = 0, K = cd.K
    cdef double WL = 0.0, WR, h, lo, hi, bnd
    for j in range(m):
        if sp.Xf[j] <= thr:
            WL += wt[sp.pos[j]]          # the exact path's left weight, bit for bit
            nL += 1
    WR = T.W - WL
    if WL < sp.min_leaf or WR < sp.min_leaf:
        return
    sp.mov.W = 0.0
    memset(sp.mov.s1, 0, K * sizeof(double))
    if nL <= m - nL:                     # the left side is the smaller: exact at its cost
        for j in range(m):
            if sp.Xf[j] <= thr:
                p = sp.pos[j]
                _add_row_s1(sp, idx[p], wt[p])
        h = gain(&sp.mov, T, cd, sp.est, NULL)
        lo = hi = h
    else:
        for j in range(m):
            if sp.Xf[j] > thr:
                p = sp.pos[j]
                _add_row_s1(sp, idx[p], wt[p])
        h = _screen_h(sp, WL, WR, end - start, &bnd)
        if bnd > 0.0 and bnd < INFINITY and h - h == 0.0:
            lo = h - bnd
            hi = h + bnd
        else:                            # no usable bound: the exact path
            h = _exact_numeric_h(sp, idx, wt, start, end, f, thr)
            lo = hi = h
    if _offer(sp, idx, wt, start, end, best, f, thr, &h, &lo, &hi):
        _record(best, f, h, thr, WL, WR, WR / T.W)
        if lo < hi:
            best.h_lo = lo
            best.h_hi = hi


cdef void _random_numeric(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                          intp_t end, intp_t f, SplitRecord* best) noexcept nogil:
    cdef const ClusterData* cd = sp.cd
    cdef intp_t m, nm, j, p
    cdef double mn, mx, thr, h, WL, WR, lo, hi
    cdef Stats* T
    if cd.mode == MODE_MISSING:
        _random_numeric_missing(sp, idx, wt, start, end, f, best)
        return
    m = _gather(sp, idx, start, end, f, &nm)
    if m < 2:
        return
    mn = mx = sp.Xf[0]
    for j in range(1, m):
        if sp.Xf[j] < mn:
            mn = sp.Xf[j]
        elif sp.Xf[j] > mx:
            mx = sp.Xf[j]
    if mn >= mx:
        return
    thr = mn + rand_uniform(&sp.rng) * (mx - mn)
    if thr >= mx:
        thr = mn
    if sp.abound != NULL and nm == 0:
        _random_numeric_screened(sp, idx, wt, start, end, f, thr, m, best)
        return
    T = _corrected_total(sp, idx, wt, nm)
    stats_clear(&sp.mov, cd.K)
    for j in range(m):
        if sp.Xf[j] <= thr:
            p = sp.pos[j]
            # s2 only where gain() reads it (missing mode)
            stats_add_row(&sp.mov, cd, idx[p], wt[p], cd.mode == MODE_MISSING)
    WL = sp.mov.W
    WR = T.W - WL
    if WL < sp.min_leaf or WR < sp.min_leaf:
        return
    h = _gain_node(sp, &sp.mov, T)
    lo = hi = h
    if _offer(sp, idx, wt, start, end, best, f, thr, &h, &lo, &hi):
        _record(best, f, h, thr, WL, WR, WR / T.W)


cdef bint _draw_subset(Splitter* sp, intp_t k, intp_t present, double TW) noexcept nogil:
    """Extra trees' random test on a nominal feature: up to 10 draws of a random subset of the
    values present (sp.try_cats) until both sides keep min_leaf weight; with two values the
    only test (the first value present). False: no valid test. The subset's weight is summed
    over the values in order, as its statistics are, so both paths see the same doubles."""
    cdef intp_t v, tries, nA, first = -1
    cdef double cW
    for tries in range(10):
        memset(sp.try_cats, 0, k)
        cW = 0.0
        nA = 0
        for v in range(k):
            if sp.cat[v].W <= 0.0:
                continue
            if present == 2:         # the only test: the first value present
                if first < 0:
                    first = v
                    sp.try_cats[v] = 1
            elif rand_uniform(&sp.rng) < 0.5:
                sp.try_cats[v] = 1
            if sp.try_cats[v]:
                nA += 1
                cW += sp.cat[v].W
        if 0 < nA < present and cW >= sp.min_leaf and TW - cW >= sp.min_leaf:
            return True
        if present == 2:
            return False
    return False


cdef inline void _offer_subset(Splitter* sp, const int32_t* idx, const double* wt,
                               intp_t start, intp_t end, SplitRecord* best, intp_t f, double h,
                               const Stats* T) noexcept nogil:
    """Offer the drawn subset of f's values (sp.try_cats, its statistics in sp.cur, its
    heuristic h) as the feature's extra-trees test."""
    cdef double lo = h, hi = h
    if _offer(sp, idx, wt, start, end, best, f, 0.0, &h, &lo, &hi):
        _record(best, f, h, 0.0, sp.cur.W, T.W - sp.cur.W, sp.cur.W / T.W)
        memcpy(sp.best_cats, sp.try_cats, sp.ncat[f])


cdef void _random_nominal(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                          intp_t end, intp_t f, SplitRecord* best) noexcept nogil:
    cdef const ClusterData* cd = sp.cd
    cdef intp_t k = sp.ncat[f], v, nm, present
    cdef Stats* T
    present = _categories(sp, idx, wt, start, end, f, &nm)
    if present < 2:
        return
    T = _corrected_total(sp, idx, wt, nm)
    if not _draw_subset(sp, k, present, T.W):
        return
    stats_clear(&sp.cur, cd.K)
    for v in range(k):
        if sp.try_cats[v]:
            stats_iadd(&sp.cur, &sp.cat[v], cd.K)
    _offer_subset(sp, idx, wt, start, end, best, f, _gain_nominal(sp, &sp.cur, T), T)


# -- nominal tests when every sum is an integer (``int_sums``: nominal SSL data) ----------
# A test needs only the statistics of its subset of values: they are summed from the rows on
# the subset's side or, when that side is the larger, taken as the corrected total minus the
# other side's rows. Integers in doubles: the same values as the plain path's sums of the
# per-value sums. The values' weights alone decide which tests exist (as in the plain path).

cdef intp_t _category_weights2(Splitter* sp, const int32_t* idx, const double* wt,
                               intp_t start, intp_t end, const double* col,
                               intp_t* nm_out) noexcept nogil:
    """``_category_weights`` of a feature with two values and integer weights: the weights
    summed as 64-bit integers (the value-1 rows' by a multiplication instead of a branch),
    which are the doubles' exact integer sums."""
    cdef intp_t p, nm = 0, present = 0
    cdef int64_t tot = 0, one = 0, wi
    cdef double x
    for p in range(start, end):
        x = col[idx[p]]
        if isnan(x) or x < 0 or x >= 2:
            sp.mpos[nm] = <int32_t>p
            nm += 1
            continue
        wi = <int64_t>wt[p]
        tot += wi
        one += wi * (x >= 1.0)
    sp.cat[0].W = <double>(tot - one)
    sp.cat[1].W = <double>one
    present = (tot - one > 0) + (one > 0)
    nm_out[0] = nm
    return present


cdef intp_t _category_weights(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                              intp_t end, intp_t f, intp_t* nm_out) noexcept nogil:
    """sp.cat[v].W for every value (integer sums: the same in any order) and the
    rows with f missing (sp.mpos); the number of values present, or -1 when a weight is
    fractional (then the plain path runs)."""
    cdef const double* col = sp.Xt + f * sp.n
    cdef intp_t k = sp.ncat[f], p, v, nm = 0, present = 0
    cdef double x, w
    cdef double* acc = sp.cwacc
    # four interleaved sums per value (row p adds to copy p % 4), so that consecutive rows
    # of one value do not wait for each other's sum: with integer weights (else this returns
    # -1) every partial sum is an exact integer, so the value's weight is the same in any order
    if sp.node_int_w < 0:       # whether the node's weights are integers: once per node
        sp.node_int_w = 1
        for p in range(start, end):
            if wt[p] != floor(wt[p]):
                sp.node_int_w = 0
                break
    if sp.node_int_w == 0:
        return -1
    if k == 2:                  # two values: counted in integers, without a store per row
        return _category_weights2(sp, idx, wt, start, end, col, nm_out)
    memset(acc, 0, 4 * k * sizeof(double))
    for p in range(start, end):
        x = col[idx[p]]
        w = wt[p]
        if isnan(x) or x < 0 or x >= k:
            sp.mpos[nm] = <int32_t>p
            nm += 1
        else:
            acc[(p & 3) * k + <intp_t>x] += w
    for v in range(k):
        sp.cat[v].W = (acc[v] + acc[k + v]) + (acc[2 * k + v] + acc[3 * k + v])
    for v in range(k):
        if sp.cat[v].W > 0.0:
            present += 1
    nm_out[0] = nm
    return present


cdef void _subset_stats_int(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                            intp_t end, intp_t f, const uint8_t* sel, const Stats* T,
                            Stats* out) noexcept nogil:
    """Statistics of the rows whose value of f is in ``sel`` (T: the corrected total)."""
    cdef const double* col = sp.Xt + f * sp.n
    cdef const ClusterData* cd = sp.cd
    cdef intp_t k = sp.ncat[f], p, v, K = cd.K, q
    cdef double x, ws = 0.0
    cdef bint own
    for v in range(k):
        if sel[v]:
            ws += sp.cat[v].W
    own = ws <= T.W - ws
    if own:
        stats_clear(out, K)
    else:
        stats_copy(out, T, K)
    # the side's rows listed first, without a branch on the side (unpredictable), then
    # summed in one kernel call (sub_missing's arithmetic when not own)
    q = 0
    for p in range(start, end):
        x = col[idx[p]]
        if isnan(x) or x < 0 or x >= k:
            continue
        sp.srow[q] = idx[p]
        sp.sw[q] = wt[p]
        q += (sel[<intp_t>x] != 0) == own
    if (sp.c01.B == NULL or q == 0
            or stats01_rows(out, &sp.c01, sp.srow, sp.sw, q, not own) != 0):
        add_missing_rows(out, cd.C, sp.srow, sp.sw, q, K, not own)


cdef void _cross_counts(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                        intp_t end) noexcept nogil:
    """The node's candidates of ``cross01_plan`` (integer weights only) counted in one pass
    over its rows: per candidate, the weight and the 0/1 counts of the rows with its listed
    value (``frcli_cross01_rows``), instead of a pass over the rows per candidate for its
    values' weights and another for the side it tests. Sums of integers: the same doubles
    as those passes give."""
    cdef intp_t i, p, nb = 0, nf = sp.max_features
    for p in range(start, end):
        if wt[p] != floor(wt[p]):
            return
    sp.node_int_w = 1
    for i in range(nf):
        if sp.x01_fv[sp.features[i]] != 255:
            sp.x01_slot[sp.features[i]] = <int32_t>nb
            nb += 1
    if nb == 0:
        return
    if frcli_cross01_rows(sp.x01_cnt, sp.x01_acc, sp.x01_w, sp.c01.B, sp.c01.Kc, idx + start,
                          wt + start, end - start, sp.x01_ptr, sp.x01_feat, sp.x01_slot, nb,
                          &sp.x01_tot) != 0:
        for i in range(nf):
            sp.x01_slot[sp.features[i]] = -1


cdef inline intp_t _cross_cats(Splitter* sp, intp_t f) noexcept nogil:
    """``_category_weights`` of a counted candidate (no value missing): its values' weights in
    sp.cat, the number present."""
    cdef int64_t wf = sp.x01_w[sp.x01_slot[f]], one
    one = wf if sp.x01_fv[f] == 1 else sp.x01_tot - wf
    sp.cat = sp.cat_own
    sp.cat[0].W = <double>(sp.x01_tot - one)
    sp.cat[1].W = <double>one
    return (sp.x01_tot - one > 0) + (one > 0)


cdef inline void _cross_side(Splitter* sp, intp_t f, const uint8_t* sel, const Stats* T,
                             Stats* out) noexcept nogil:
    """``_subset_stats_int`` of a counted candidate, sel holding one of its two values: the
    listed rows' counts, or T less them."""
    cdef intp_t j = sp.x01_slot[f], K = sp.cd.K
    if sel[sp.x01_fv[f]]:
        stats_clear(out, K)
        stats01_apply(out, &sp.c01, sp.x01_cnt + j * sp.c01.Kc, sp.x01_w[j], False)
    else:
        stats_copy(out, T, K)
        stats01_apply(out, &sp.c01, sp.x01_cnt + j * sp.c01.Kc, sp.x01_w[j], True)


cdef void _random_nominal_int(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                              intp_t end, intp_t f, SplitRecord* best) noexcept nogil:
    """``_random_nominal`` with int_sums: the same draws, the drawn subset's statistics only."""
    cdef intp_t k = sp.ncat[f], nm = 0, present
    cdef bint counted = sp.x01_fv != NULL and sp.x01_slot[f] >= 0
    cdef Stats* T
    sp.cat = sp.cat_own
    if counted:
        present = _cross_cats(sp, f)
    else:
        present = _category_weights(sp, idx, wt, start, end, f, &nm)
    if present < 0:
        _random_nominal(sp, idx, wt, start, end, f, best)
        return
    if present < 2:
        return
    T = _corrected_total(sp, idx, wt, nm)
    if not _draw_subset(sp, k, present, T.W):
        return
    if counted:
        _cross_side(sp, f, sp.try_cats, T, &sp.cur)
    else:
        _subset_stats_int(sp, idx, wt, start, end, f, sp.try_cats, T, &sp.cur)
    _offer_subset(sp, idx, wt, start, end, best, f, _gain_node(sp, &sp.cur, T), T)


cdef void _best_nominal_int(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                            intp_t end, intp_t f, SplitRecord* best) noexcept nogil:
    """``_best_nominal`` with int_sums: two values present need one subset's statistics;
    more values run the greedy search on ``_category_stats_int``'s statistics."""
    cdef intp_t k = sp.ncat[f], v, nm = 0, present
    cdef bint counted = sp.x01_fv != NULL and sp.x01_slot[f] >= 0
    cdef Stats* T
    cdef double ml = sp.min_leaf
    sp.cat = sp.cat_own
    if counted:
        present = _cross_cats(sp, f)
    else:
        present = _category_weights(sp, idx, wt, start, end, f, &nm)
    if present != 2:
        if present != 1 and present != 0:
            _best_nominal(sp, idx, wt, start, end, f, best)
        return
    T = _corrected_total(sp, idx, wt, nm)
    if T.W < 2.0 * ml:
        return
    v = _first_value(sp, k, T)
    if v < 0:
        return
    if counted:
        _cross_side(sp, f, sp.cur_cats, T, &sp.cur)
    else:
        _subset_stats_int(sp, idx, wt, start, end, f, sp.cur_cats, T, &sp.cur)
    _offer_first(sp, best, f, _gain_node(sp, &sp.cur, T), T, v)


cdef void draw_features(Splitter* sp) noexcept nogil:
    """The node's features in sp.features[:max_features], in the order they are evaluated.

    A random subset (random forests, extra trees) is a partial Fisher-Yates draw without
    replacement, fresh at every node (as CLUS's ``selectRandomSubspaces``, called per node);
    it is then put in index order, CLUS's evaluation order, unless ``random_ties``, which also
    shuffles a full feature set.
    """
    cdef intp_t i, j, nf = sp.max_features, F = sp.F
    cdef int32_t tmp
    if nf < F or sp.random_ties:
        for i in range(nf):
            j = i + rand_int(&sp.rng, F - i)
            tmp = sp.features[i]
            sp.features[i] = sp.features[j]
            sp.features[j] = tmp
    if nf < F and not sp.random_ties:     # insertion sort of the (small) subset
        for i in range(1, nf):
            tmp = sp.features[i]
            j = i - 1
            while j >= 0 and sp.features[j] > tmp:
                sp.features[j + 1] = sp.features[j]
                j -= 1
            sp.features[j + 1] = tmp


cdef bint _same_partition(Splitter* sp, const int32_t* idx, intp_t start, intp_t end,
                          intp_t g, double* thr, bint* swap) noexcept nogil:
    """Whether a test on feature g sends the node's rows where the chosen test does (sp.side):
    g is missing on exactly the rows where the chosen feature is, and some threshold (for a
    nominal g, some subset of its values) separates the two sides. Numeric: thr is the
    largest value of g's lower side (CLUS's split value), swap tells whether that side is the
    chosen test's right one. Nominal: sp.tie_seen[v] is 1 (left) or 2 (right) for the values
    present."""
    cdef const double* col = sp.Xt + g * sp.n
    cdef intp_t p, k = sp.ncat[g], v
    cdef int s
    cdef double x, loL = INFINITY, hiL = -INFINITY, loR = INFINITY, hiR = -INFINITY
    cdef bint missing
    if k > 0:
        memset(sp.tie_seen, 0, k)
        for p in range(start, end):
            s = sp.side[p - start]
            x = col[idx[p]]
            missing = isnan(x) or x < 0 or x >= k
            if missing != (s == 2):
                return False
            if missing:
                continue
            v = <intp_t>x
            sp.tie_seen[v] |= <uint8_t>(1 + s)
            if sp.tie_seen[v] == 3:
                return False
        thr[0] = 0.0
        swap[0] = False
        return True
    for p in range(start, end):
        s = sp.side[p - start]
        x = col[idx[p]]
        if isnan(x) != (s == 2):
            return False
        if s == 2:
            continue
        if s == 0:
            if x < loL:
                loL = x
            if x > hiL:
                hiL = x
        else:
            if x < loR:
                loR = x
            if x > hiR:
                hiR = x
        if hiL >= loR and hiR >= loL:
            return False
    swap[0] = not (hiL < loR)
    thr[0] = hiR if swap[0] else hiL
    return True


cdef int _find_ties(Splitter* sp, const int32_t* idx, intp_t start, intp_t end,
                    const SplitRecord* best) noexcept nogil:
    """The node's other candidate features whose test ties with the chosen one (sp.tie_feat,
    sp.n_tie), and with ``realise_ties`` the realisation's draw (sp.alt_*): one of the chosen
    test and the tied tests that split the node's rows into the same two sets, uniformly.

    A candidate ties when its best h is within CLUS's TIE_DELTA of the chosen test's (a
    screened extra-trees h: when its bound reaches that band): had it come first in the data,
    CLUS's rule would have chosen it. Equal h with different partitions is common on
    class-count heuristics (classification, mlc: in a small node, many subsets of a class
    give the same counts), so the partition is not required for the credit; the realisation
    needs it, as only such a test leaves the subtree below valid. The draw comes from the
    splitter's own stream (the trees do not consume it)."""
    cdef intp_t i, g, f = best.feature, m = end - start, p, n_part = 0, u, v
    cdef double lo = best.h_lo - TIE_DELTA, hi = best.h_hi + TIE_DELTA, thr = 0.0
    cdef bint have_side = False, part, swap = False
    sp.n_tie = 0
    sp.alt_feature = -1
    if f < 0:
        return 0
    for i in range(sp.max_features):
        g = sp.features[i]
        if g == f or sp.cand_hi[i] < lo or sp.cand_lo[i] > hi:
            continue
        if not sp.realise_ties:         # the credit needs only the list
            sp.tie_feat[sp.n_tie] = <int32_t>g
            sp.n_tie += 1
            continue
        if not have_side:
            if grow(<void**>&sp.side, &sp.cap_side, m, 1) != 0:
                return -1
            for p in range(start, end):
                sp.side[p - start] = <uint8_t>test_side(sp, f, best.threshold, sp.best_cats,
                                                        sp.Xt[f * sp.n + idx[p]])
            have_side = True
        part = _same_partition(sp, idx, start, end, g, &thr, &swap)
        sp.tie_feat[sp.n_tie] = <int32_t>g
        sp.tie_thr[sp.n_tie] = thr
        sp.tie_swap[sp.n_tie] = swap
        sp.tie_part[sp.n_tie] = part
        sp.n_tie += 1
        n_part += part
    if n_part == 0:
        return 0
    u = rand_int(&sp.rng_ties, n_part + 1)
    if u == 0:
        return 0
    for i in range(sp.n_tie):
        if sp.tie_part[i]:
            u -= 1
            if u == 0:
                break
    g = sp.tie_feat[i]
    sp.alt_feature = g
    sp.alt_threshold = sp.tie_thr[i]
    sp.alt_swap = sp.tie_swap[i]
    if sp.ncat[g] > 0:
        _same_partition(sp, idx, start, end, g, &thr, &swap)    # its values' sides
        for v in range(sp.ncat[g]):
            sp.alt_cats[v] = sp.tie_seen[v] == 1
    return 0


cdef void _choose_searches(Splitter* sp) noexcept nogil:
    """The split search's variants for the tree, chosen once (its flags are set before its
    first node): extra trees draw one random test per feature, the others search the best;
    with integer sums (``int_sums``) a nominal feature sums only the subsets it tests."""
    if sp.extra:
        sp.numeric_search = _random_numeric
        if sp.int_sums:
            sp.nominal_search = _random_nominal_int
        else:
            sp.nominal_search = _random_nominal
    else:
        sp.numeric_search = _best_numeric
        if sp.int_sums:
            sp.nominal_search = _best_nominal_int
        else:
            sp.nominal_search = _best_nominal


cdef int node_split(Splitter* sp, const int32_t* idx, const double* wt, intp_t start, intp_t end,
                    SplitRecord* best) noexcept nogil:
    """Best (or extra-trees random) test of the node [start, end); best.feature = -1 if none.

    ``sp.tot`` must hold the node's full statistics and ``sp.est`` its variance estimates.
    """
    cdef intp_t m = end - start, i, f, nf = sp.max_features
    cdef bint batched
    if (grow(<void**>&sp.Xf, &sp.cap, m, sizeof(double)) != 0
            or grow(<void**>&sp.pos, &sp.cap_pos, m, sizeof(int32_t)) != 0
            or grow(<void**>&sp.mpos, &sp.cap_mpos, m, sizeof(int32_t)) != 0
            or grow(<void**>&sp.srow, &sp.cap_srow, m, sizeof(int32_t)) != 0
            or grow(<void**>&sp.sw, &sp.cap_sw, m, sizeof(double)) != 0):
        return -1
    best.feature = -1
    best.h = 0.0
    best.threshold = 0.0
    best.WL = best.WR = 0.0
    best.h_lo = best.h_hi = 0.0
    best.cut = -1
    draw_features(sp)
    sp.node_int_w = -1
    if sp.abound != NULL:
        _screen_begin(sp)
    if sp.cd.mode == MODE_MISSING:
        gain_missing_begin(&sp.tot, sp.est, sp.cd.K, sp.TT + 2 * sp.cd.K)
        if sp.sac != NULL:
            sp.scrE_node = _screen_mass(sp, &sp.tot, sp.TT + 2 * sp.cd.K)
    batched = sp.bslot != NULL and sp.exact_w
    if batched:
        _batch_categories(sp, idx, wt, start, end)
    if sp.cnode != NULL and _node_codes(sp, idx, start, end) != 0:
        return -1
    if sp.x01_fv != NULL:
        _cross_counts(sp, idx, wt, start, end)
    if sp.numeric_search == NULL:
        _choose_searches(sp)
    for i in range(nf):
        f = sp.features[i]
        best.c_lo = best.c_hi = -INFINITY
        if sp.ncat[f] > 0:
            sp.nominal_search(sp, idx, wt, start, end, f, best)
        else:
            sp.numeric_search(sp, idx, wt, start, end, f, best)
        sp.cand_lo[i] = best.c_lo
        sp.cand_hi[i] = best.c_hi
    # the chosen feature's codes of the node's rows stay in ncodes for the builder
    sp.best_crow = -1
    if sp.cnode != NULL and best.feature >= 0:
        sp.best_crow = sp.cnode[best.feature]
    for i in range(nf):         # the node's candidate slots off again
        f = sp.features[i]
        if batched:
            sp.bslot[f] = -1
        if sp.cnode != NULL:
            sp.cnode[f] = -1
        if sp.x01_fv != NULL:
            sp.x01_slot[f] = -1
    sp.cat = sp.cat_own
    if sp.share_ties:
        return _find_ties(sp, idx, start, end, best)
    return 0
