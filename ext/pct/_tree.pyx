# cython: language_level=3
"""PCT storage, growth and prediction (spec-core §2.1, §2.5).

Nodes are parallel arrays (feature, threshold or nominal subset, children, |E|, h*, depth);
internal nodes keep no per-column arrays, leaves keep their prototype (per-column means over
known values; one-hot means are class distributions) only when the caller wants a model.

Growth is depth-first over one index/weight buffer used as a stack: a node owns [start, end)
at the top of the buffer. Its split rewrites it as [right child | left child], each in the
node's row order (as CLUS's ``applyWeighted``): rows whose tested value is missing go down both
branches with weights scaled by CLUS's branch shares (spec-core §1.4), and the left child,
processed next, sits at the top. Keeping CLUS's row order makes sums of fractional weights, and
so CLUS's MinimalWeight decisions, come out bit for bit as CLUS's.

With ties=share the builder also records, per node, the features whose test tied with the
chosen one (``tie_ptr``/``tie_feat``: the Symbolic and Genie3 credit is shared among them,
per-target Genie3 here) and the realisation's test where another tied test splits the rows
alike (``alt_*``; ``tree_realised`` builds the tree the RF score routes rows through).
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy, memset
from libc.math cimport isnan
from libc.stdint cimport uint32_t

from frcli._ext._utils cimport grow
from frcli._ext.pct._criterion cimport (ClusterData, Stats, MODE_MISSING, stats_alloc, stats_free,
                                    stats_clear, stats_copy, stats_iadd, stats_add_row, stats_Q_own,
                                    add_row_full, add_missing_rows,
                                    gain_buf, node_estimates, prototype)
from frcli._ext.pct._splitter cimport (SplitRecord, Splitter, node_split, test_side, splitter_init,
                                    splitter_free, split_exact_h, counts_init)
from frcli._ext.pct._presort cimport (Presort, presort_partition, presort_init, presort_free,
                                      ROW_MASK)
from frcli._ext.pct._count01 cimport stats01_rows
from frcli._ext.pct._presort import count_plan, presort_plan, presort_runs

cnp.import_array()

# h and impurities below REL_TOL * (root impurity per unit weight) * |E| count as 0
cdef double REL_TOL = 1e-12


cdef struct StackRec:
    intp_t start
    intp_t end
    intp_t parent
    intp_t depth
    int is_left
    int ps_ok               # the presorted lists hold this node's rows sorted
    int has_tot             # the node's statistics were kept from its parent's split
    int exact_w             # no row of the node is a missing-value copy (weights = bag counts)
    intp_t rstart           # the reach rows arriving here: BuildBuf.rbuf[rstart:rend]
    intp_t rend


cdef void tree_free(TreeData* t) noexcept nogil:
    free(t.feature)
    free(t.threshold)
    free(t.left)
    free(t.right)
    free(t.weight)
    free(t.hstar)
    free(t.depth)
    free(t.p_left)
    free(t.offset)
    free(t.cats)
    free(t.values)
    free(t.tie_ptr)
    free(t.tie_feat)
    free(t.alt_node)
    free(t.alt_feature)
    free(t.alt_threshold)
    free(t.alt_swap)
    free(t.alt_offset)
    free(t.alt_cats)
    memset(t, 0, sizeof(TreeData))


cdef int _add_node(TreeData* t, intp_t parent, int is_left, double weight,
                   intp_t depth) noexcept nogil:
    cdef intp_t c = t.cap, i = t.n_nodes
    if i >= t.cap:
        c = t.cap
        if (grow(<void**>&t.feature, &c, i + 1, sizeof(int32_t))):
            return -1
        c = t.cap
        if grow(<void**>&t.threshold, &c, i + 1, sizeof(double)):
            return -1
        c = t.cap
        if grow(<void**>&t.left, &c, i + 1, sizeof(int32_t)):
            return -1
        c = t.cap
        if grow(<void**>&t.right, &c, i + 1, sizeof(int32_t)):
            return -1
        c = t.cap
        if grow(<void**>&t.weight, &c, i + 1, sizeof(double)):
            return -1
        c = t.cap
        if grow(<void**>&t.hstar, &c, i + 1, sizeof(double)):
            return -1
        c = t.cap
        if grow(<void**>&t.depth, &c, i + 1, sizeof(int32_t)):
            return -1
        c = t.cap
        if grow(<void**>&t.p_left, &c, i + 1, sizeof(double)):
            return -1
        c = t.cap
        if grow(<void**>&t.offset, &c, i + 1, sizeof(int64_t)):
            return -1
        t.cap = c
    t.feature[i] = -1
    t.threshold[i] = 0.0
    t.left[i] = -1
    t.right[i] = -1
    t.weight[i] = weight
    t.hstar[i] = 0.0
    t.depth[i] = <int32_t>depth
    t.p_left[i] = 0.5
    t.offset[i] = -1
    if parent >= 0:
        if is_left:
            t.left[parent] = <int32_t>i
        else:
            t.right[parent] = <int32_t>i
    t.n_nodes = i + 1
    return 0


cdef struct BuildBuf:
    int32_t* idx
    double* wt
    int32_t* tidx
    double* twt
    intp_t cap_idx
    intp_t cap_wt
    intp_t cap_t
    intp_t cap_tw
    StackRec* stack
    intp_t cap_stack
    double* pool            # per stack slot: the parent's estimates, then its prototype (2K)
    intp_t cap_pool
    double* node_est        # 4K: node estimates, node prototype, parent estimates, prototype
    double* colbuf
    uint8_t* side           # per row of the node being split: test_side's answer
    intp_t cap_side
    double* spool           # per stack slot: the node's statistics (W, A2, s1, s2, nk)
    intp_t cap_spool
    Stats L
    Stats R
    Stats Tc
    int32_t* rbuf           # the reach rows of the stacked nodes (Splitter.reach_X)
    intp_t cap_r
    intp_t n_r


cdef inline void _stats_save(double* dst, const Stats* s, intp_t K) noexcept nogil:
    dst[0] = s.W
    dst[1] = s.A2
    memcpy(dst + 2, s.s1, K * sizeof(double))
    memcpy(dst + 2 + K, s.s2, K * sizeof(double))
    memcpy(dst + 2 + 2 * K, s.nk, K * sizeof(double))


cdef inline void _stats_load(Stats* s, const double* src, intp_t K) noexcept nogil:
    s.W = src[0]
    s.A2 = src[1]
    memcpy(s.s1, src + 2, K * sizeof(double))
    memcpy(s.s2, src + 2 + K, K * sizeof(double))
    memcpy(s.nk, src + 2 + 2 * K, K * sizeof(double))


cdef int _record_ties(const Splitter* sp, TreeData* t, intp_t node) noexcept nogil:
    """Append the node's tied features and, when another tied test was drawn, the
    realisation's test (ties=share)."""
    cdef intp_t j, k, c
    if sp.n_tie > 0:
        if grow(<void**>&t.tie_feat, &t.cap_tie, t.n_tie + sp.n_tie, sizeof(int32_t)):
            return -1
        for j in range(sp.n_tie):
            t.tie_feat[t.n_tie + j] = sp.tie_feat[j]
        t.n_tie += sp.n_tie
    if sp.alt_feature < 0:
        return 0
    j = t.n_alt
    if j >= t.cap_alt:
        c = t.cap_alt
        if grow(<void**>&t.alt_node, &c, j + 1, sizeof(int32_t)):
            return -1
        c = t.cap_alt
        if grow(<void**>&t.alt_feature, &c, j + 1, sizeof(int32_t)):
            return -1
        c = t.cap_alt
        if grow(<void**>&t.alt_threshold, &c, j + 1, sizeof(double)):
            return -1
        c = t.cap_alt
        if grow(<void**>&t.alt_swap, &c, j + 1, 1):
            return -1
        c = t.cap_alt
        if grow(<void**>&t.alt_offset, &c, j + 1, sizeof(int64_t)):
            return -1
        t.cap_alt = c
    t.alt_node[j] = <int32_t>node
    t.alt_feature[j] = <int32_t>sp.alt_feature
    t.alt_threshold[j] = sp.alt_threshold
    t.alt_swap[j] = sp.alt_swap
    t.alt_offset[j] = -1
    k = sp.ncat[sp.alt_feature]
    if k > 0:
        if grow(<void**>&t.alt_cats, &t.cap_alt_cats, t.n_alt_cats + k, 1):
            return -1
        memcpy(t.alt_cats + t.n_alt_cats, sp.alt_cats, k)
        t.alt_offset[j] = t.n_alt_cats
        t.n_alt_cats += k
    t.n_alt = j + 1
    return 0


cdef int tree_realised(const TreeData* t, TreeData* r) noexcept nogil:
    """r = t with the realisation's tests at its nodes (``_record_ties``): the tree as another
    tie rule could have grown it, the same leaves with the same training rows. r shares t's
    prototypes; free it with ``tree_realised_free``. Returns -1 on no memory."""
    cdef intp_t n = t.n_nodes, j, node
    cdef int32_t tmp
    memset(r, 0, sizeof(TreeData))
    r.n_nodes = n
    r.K = t.K
    r.ncat = t.ncat
    r.values = t.values
    r.n_leaves = t.n_leaves
    r.feature = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    r.threshold = <double*>malloc((n + 1) * sizeof(double))
    r.left = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    r.right = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    r.p_left = <double*>malloc((n + 1) * sizeof(double))
    r.offset = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    r.cats = <uint8_t*>malloc(t.n_cats + t.n_alt_cats + 1)
    if (r.feature == NULL or r.threshold == NULL or r.left == NULL or r.right == NULL
            or r.p_left == NULL or r.offset == NULL or r.cats == NULL):
        return -1
    memcpy(r.feature, t.feature, n * sizeof(int32_t))
    memcpy(r.threshold, t.threshold, n * sizeof(double))
    memcpy(r.left, t.left, n * sizeof(int32_t))
    memcpy(r.right, t.right, n * sizeof(int32_t))
    memcpy(r.p_left, t.p_left, n * sizeof(double))
    memcpy(r.offset, t.offset, n * sizeof(int64_t))
    memcpy(r.cats, t.cats, t.n_cats)
    memcpy(r.cats + t.n_cats, t.alt_cats, t.n_alt_cats)
    r.n_cats = t.n_cats + t.n_alt_cats
    for j in range(t.n_alt):
        node = t.alt_node[j]
        r.feature[node] = t.alt_feature[j]
        r.threshold[node] = t.alt_threshold[j]
        if t.alt_offset[j] >= 0:
            r.offset[node] = t.n_cats + t.alt_offset[j]
        if t.alt_swap[j]:
            tmp = r.left[node]
            r.left[node] = r.right[node]
            r.right[node] = tmp
            r.p_left[node] = 1.0 - r.p_left[node]
    return 0


cdef void tree_realised_free(TreeData* r) noexcept nogil:
    free(r.feature)
    free(r.threshold)
    free(r.left)
    free(r.right)
    free(r.p_left)
    free(r.offset)
    free(r.cats)
    memset(r, 0, sizeof(TreeData))


cdef int build_tree(Splitter* sp, TreeData* t, const int32_t* idx0, const double* wt0,
                    intp_t n0, const double* est0, double* pt_acc, const int32_t* col_group,
                    bint keep_values) noexcept nogil:
    """Grow one PCT on rows idx0 with weights wt0 (bootstrap counts). Returns -1 on no memory.

    ``est0``: per-column training variances (the root's ancestors' estimates).
    ``pt_acc``: (G, F) per-target Genie3 accumulator (columns mapped by ``col_group``, -1 =
    none), or NULL.
    """
    cdef BuildBuf b
    cdef int rc
    memset(&b, 0, sizeof(BuildBuf))
    memset(t, 0, sizeof(TreeData))
    rc = _build(sp, t, idx0, wt0, n0, est0, pt_acc, col_group, keep_values, &b)
    free(b.idx)
    free(b.wt)
    free(b.tidx)
    free(b.twt)
    free(b.stack)
    free(b.pool)
    free(b.node_est)
    free(b.colbuf)
    free(b.side)
    free(b.spool)
    free(b.rbuf)
    stats_free(&b.L)
    stats_free(&b.R)
    stats_free(&b.Tc)
    return rc


cdef inline void _push_child(BuildBuf* b, intp_t at, intp_t start, intp_t end, intp_t node,
                             const StackRec* rec, int is_left, int ps_child, intp_t nmiss,
                             const Stats* stats, const double* node_est, intp_t K,
                             intp_t SW) noexcept nogil:
    """Stack entry ``at``: the child of ``node`` holding rows [start, end), with its side's
    sums when no row went both ways (then they are exact) and the node's estimates."""
    b.stack[at].start = start
    b.stack[at].end = end
    b.stack[at].parent = node
    b.stack[at].depth = rec.depth + 1
    b.stack[at].is_left = is_left
    b.stack[at].ps_ok = ps_child
    b.stack[at].has_tot = nmiss == 0
    b.stack[at].exact_w = rec.exact_w and nmiss == 0
    if nmiss == 0:
        _stats_save(b.spool + at * SW, stats, K)
    memcpy(b.pool + at * 2 * K, node_est, 2 * K * sizeof(double))


cdef inline intp_t _gather_side(BuildBuf* b, intp_t s, intp_t e, int want, double share,
                                intp_t q) noexcept nogil:
    """Append to tidx/twt, from q, the rows of [s, e) whose side is ``want`` and those that go
    both ways (side 2) with their weight times ``share``, in row order; returns the new end."""
    cdef intp_t p
    cdef int side
    for p in range(s, e):
        side = b.side[p - s]
        if side == want or side == 2:
            b.tidx[q] = b.idx[p]
            b.twt[q] = b.wt[p] if side == want else b.wt[p] * share
            q += 1
    return q


cdef int _sides01(Splitter* sp, BuildBuf* b, intp_t f, double thr, intp_t s, intp_t e,
                  intp_t* nmiss) noexcept nogil:
    """The chosen test's sides (b.side) and both sides' sums (b.L, b.R, cleared) when the
    clustering values are 0, 1 or unknown (``_count01``): each side's rows listed, then
    counted in integers (integer weights), else summed by ``add_missing_rows``; either way
    the sums of adding the rows one by one in node order. -1 (nothing done): the rows do
    not fit the splitter's scratch."""
    cdef const ClusterData* cd = sp.cd
    cdef intp_t p, q0 = 0, q1 = 0, nm = 0, m = e - s
    cdef int side
    cdef int32_t r
    if sp.cap_srow < m or sp.cap_sw < m or sp.cap_pos < m or sp.cap < m:
        return -1
    for p in range(s, e):
        r = b.idx[p]
        side = test_side(sp, f, thr, sp.best_cats, sp.Xt[f * sp.n + r])
        b.side[p - s] = <uint8_t>side
        sp.srow[q0] = r
        sp.sw[q0] = b.wt[p]
        sp.pos[q1] = r
        sp.Xf[q1] = b.wt[p]
        q0 += side == 0
        q1 += side == 1
        nm += side > 1
    if q0 > 0 and stats01_rows(&b.L, &sp.c01, sp.srow, sp.sw, q0, False) != 0:
        add_missing_rows(&b.L, cd.C, sp.srow, sp.sw, q0, cd.K, False)
    if q1 > 0 and stats01_rows(&b.R, &sp.c01, sp.pos, sp.Xf, q1, False) != 0:
        add_missing_rows(&b.R, cd.C, sp.pos, sp.Xf, q1, cd.K, False)
    nmiss[0] = nm
    return 0


cdef int _build(Splitter* sp, TreeData* t, const int32_t* idx0, const double* wt0,
                intp_t n0, const double* est0, double* pt_acc, const int32_t* col_group,
                bint keep_values, BuildBuf* b) noexcept nogil:
    cdef const ClusterData* cd = sp.cd
    cdef intp_t K = cd.K, F = sp.F
    cdef intp_t n_stack = 0
    cdef double* node_est
    cdef double* node_proto
    cdef double* par_est
    cdef double* par_proto
    cdef StackRec rec
    cdef SplitRecord best
    cdef intp_t node, p, m, nr, nmiss, q, c, f = -1, s, e, k, SW = 3 * K + 2, ntie, j
    cdef const int32_t* L
    cdef const uint8_t* code
    cdef const double* vals
    cdef intp_t lo, cstride = 0
    cdef Stats* LR[2]
    cdef double Q, h = 0.0, q_scale = 0.0, pl, pr, W, tol, v
    cdef int side, ps_child
    cdef bint missing_mode = cd.mode == MODE_MISSING, leaf, reach = sp.reach_X != NULL
    cdef intp_t jr
    cdef int32_t rr
    t.K = K
    t.ncat = sp.ncat
    if (grow(<void**>&b.idx, &b.cap_idx, n0 + 16, sizeof(int32_t))
            or grow(<void**>&b.wt, &b.cap_wt, n0 + 16, sizeof(double))
            or stats_alloc(&b.L, K) or stats_alloc(&b.R, K) or stats_alloc(&b.Tc, K)):
        return -1
    b.node_est = <double*>malloc((6 * K + 1) * sizeof(double))     # + gain_buf's scratch
    b.colbuf = <double*>malloc((K + 1) * sizeof(double))
    if b.node_est == NULL or b.colbuf == NULL:
        return -1
    node_est = b.node_est
    node_proto = node_est + K
    par_est = node_est + 2 * K
    par_proto = node_est + 3 * K
    memcpy(b.idx, idx0, n0 * sizeof(int32_t))
    memcpy(b.wt, wt0, n0 * sizeof(double))
    if (grow(<void**>&b.stack, &b.cap_stack, 16, sizeof(StackRec))
            or grow(<void**>&b.pool, &b.cap_pool, 16 * 2 * K + 1, sizeof(double))):
        return -1
    b.stack[0].start = 0
    b.stack[0].end = n0
    b.stack[0].parent = -1
    b.stack[0].depth = 0
    b.stack[0].is_left = 0
    b.stack[0].ps_ok = 1
    b.stack[0].has_tot = 0
    b.stack[0].exact_w = 1
    memcpy(b.pool, est0, K * sizeof(double))
    memset(b.pool + K, 0, K * sizeof(double))
    b.stack[0].rstart = 0
    b.stack[0].rend = 0
    b.n_r = 0
    if reach:
        if grow(<void**>&b.rbuf, &b.cap_r, sp.n_reach + 16, sizeof(int32_t)):
            return -1
        for p in range(sp.n_reach):
            b.rbuf[p] = <int32_t>p
        b.stack[0].rend = sp.n_reach
        b.n_r = sp.n_reach
    n_stack = 1
    while n_stack > 0:
        n_stack -= 1
        rec = b.stack[n_stack]
        s = rec.start
        e = rec.end
        m = e - s
        memcpy(par_est, b.pool + n_stack * 2 * K, 2 * K * sizeof(double))
        # node statistics, estimates and prototype
        # (the parent's L or R when no row was copied: the same rows, summed in the same order)
        if rec.has_tot:
            _stats_load(&sp.tot, b.spool + n_stack * SW, K)
        else:
            stats_clear(&sp.tot, K)
            for p in range(s, e):
                stats_add_row(&sp.tot, cd, b.idx[p], b.wt[p], True)
        if missing_mode:
            node_estimates(&sp.tot, cd, par_est, node_est)
        else:
            memcpy(node_est, est0, K * sizeof(double))
        sp.est = node_est
        sp.ps_node = rec.ps_ok
        prototype(&sp.tot, cd, par_proto, node_proto)
        W = sp.tot.W
        Q = stats_Q_own(&sp.tot, cd, node_est)
        if _add_node(t, rec.parent, rec.is_left, W, rec.depth):
            return -1
        node = t.n_nodes - 1
        if sp.share_ties:       # the nodes before this one have recorded their ties
            if grow(<void**>&t.tie_ptr, &t.cap_tie_ptr, node + 2, sizeof(int64_t)):
                return -1
            t.tie_ptr[node] = t.n_tie
            t.tie_ptr[node + 1] = t.n_tie
        if node == 0:
            q_scale = Q / W if W > 0.0 else 0.0
        tol = REL_TOL * q_scale * W
        leaf = W < 2.0 * sp.min_leaf or Q <= tol or (reach and rec.rend <= rec.rstart)
        if not leaf:
            sp.node_id = node
            sp.stamped = False
            sp.exact_w = rec.exact_w
            if node_split(sp, b.idx, b.wt, s, e, &best):
                return -1
            leaf = best.feature < 0
        nmiss = 0
        if not leaf:
            f = best.feature
            # exact statistics of the chosen test: h*, per-column shares, branch weights
            if grow(<void**>&b.side, &b.cap_side, m, 1):
                return -1
            stats_clear(&b.L, K)
            stats_clear(&b.R, K)
            if best.cut >= 0:
                # found on f's list: its first best.cut rows go left (no read of X here, and
                # ps.right is then already what the partition below needs)
                L = sp.ps.lists + sp.ps.slot[f] * sp.ps.m0 + s
                for p in range(best.cut):       # (rows masked: a list may mark run starts)
                    sp.ps.right[<uint32_t>L[p] & ROW_MASK] = 0
                for p in range(best.cut, m):
                    sp.ps.right[<uint32_t>L[p] & ROW_MASK] = 1
            code = NULL
            if best.cut < 0 and sp.cslot != NULL and sp.ncat[f] == 0 and sp.cslot[f] >= 0:
                # a feature with value codes (no missing values): x <= thr iff code <= the
                # threshold's code (a byte per row instead of a double)
                if sp.best_crow >= 0:   # the node's codes of f, in node order
                    code = sp.ncodes + sp.best_crow * m
                    cstride = 0
                else:
                    code = sp.ccodes + sp.cslot[f]        # (row by row: stride sp.cnc)
                    cstride = sp.cnc
                vals = sp.cvals + sp.cslot[f] * 256
                lo = 0
                while lo < 255 and vals[lo] != best.threshold:
                    lo += 1
            if best.cut >= 0 or code != NULL:
                # no missing value (presorted or coded feature): each row's side indexes its
                # statistics, so that no branch waits on the unpredictable side
                LR[0] = &b.L
                LR[1] = &b.R
                for p in range(s, e):
                    if best.cut >= 0:
                        side = sp.ps.right[b.idx[p]]
                    elif cstride == 0:
                        side = code[p - s] > lo
                    else:
                        side = code[b.idx[p] * cstride] > lo
                    b.side[p - s] = <uint8_t>side
                    add_row_full(LR[side], cd, b.idx[p], b.wt[p])
            elif sp.c01.B == NULL or _sides01(sp, b, f, best.threshold, s, e, &nmiss) != 0:
                for p in range(s, e):
                    side = test_side(sp, f, best.threshold, sp.best_cats,
                                     sp.Xt[f * sp.n + b.idx[p]])
                    b.side[p - s] = <uint8_t>side
                    if side == 0:
                        stats_add_row(&b.L, cd, b.idx[p], b.wt[p], True)
                    elif side == 1:
                        stats_add_row(&b.R, cd, b.idx[p], b.wt[p], True)
                    else:
                        nmiss += 1
            stats_copy(&b.Tc, &b.L, K)
            stats_iadd(&b.Tc, &b.R, K)
            h = gain_buf(&b.L, &b.Tc, cd, node_est, b.colbuf if pt_acc != NULL else NULL,
                         node_est + 4 * K)
            # the splitter checked MinimalWeight on its own (CLUS-ordered) sums; h is re-derived
            # here for Genie3 only
            leaf = not (h > tol)
        if leaf:
            t.offset[node] = t.n_leaves
            if keep_values:
                if grow(<void**>&t.values, &t.cap_values, (t.n_leaves + 1) * K + 1,
                        sizeof(double)):
                    return -1
                memcpy(t.values + t.n_leaves * K, node_proto, K * sizeof(double))
            t.n_leaves += 1
            continue
        # record the test
        t.feature[node] = <int32_t>f
        t.threshold[node] = best.threshold
        t.hstar[node] = h
        # CLUS's branch shares: "yes" = (its known weight) / (known weight), "no" = 1 - that;
        # "yes" is the right branch of a numeric test (x > v), the left of a nominal one
        if sp.ncat[f] > 0:
            pl = best.pos_freq
            pr = 1.0 - best.pos_freq
        else:
            pr = best.pos_freq
            pl = 1.0 - best.pos_freq
        t.p_left[node] = pl
        if nmiss > 0 and sp.genie3_missing_both:
            # Genie3 as CLUS computes it (ClusEnsembleFeatureRanking.calculateGENI3value): the
            # node's statistics minus its children's, the rows with the tested value missing
            # counted in both children with the branch shares; the test and the tree are the
            # ones chosen above (h on the known rows), only the recorded h* changes
            for p in range(s, e):
                if b.side[p - s] == 2:
                    stats_add_row(&b.L, cd, b.idx[p], b.wt[p] * pl, True)
                    stats_add_row(&b.R, cd, b.idx[p], b.wt[p] * pr, True)
            stats_copy(&b.Tc, &b.L, K)
            stats_iadd(&b.Tc, &b.R, K)
            h = gain_buf(&b.L, &b.Tc, cd, node_est, b.colbuf if pt_acc != NULL else NULL,
                         node_est + 4 * K)
            t.hstar[node] = h
        if sp.ncat[f] > 0:
            k = sp.ncat[f]
            if grow(<void**>&t.cats, &t.cap_cats, t.n_cats + k, 1):
                return -1
            memcpy(t.cats + t.n_cats, sp.best_cats, k)
            t.offset[node] = t.n_cats
            t.n_cats += k
        ntie = sp.n_tie if sp.share_ties else 0
        if pt_acc != NULL and ntie == 0:
            for c in range(K):
                if col_group[c] >= 0:
                    pt_acc[col_group[c] * F + f] += b.colbuf[c]
        elif pt_acc != NULL:        # ties=share: equal parts for the tied features
            for c in range(K):
                if col_group[c] >= 0:
                    v = b.colbuf[c] / <double>(ntie + 1)
                    pt_acc[col_group[c] * F + f] += v
                    for j in range(ntie):
                        pt_acc[col_group[c] * F + sp.tie_feat[j]] += v
        if sp.share_ties:
            if _record_ties(sp, t, node):
                return -1
            t.tie_ptr[node + 1] = t.n_tie
        # partition into [right child | left child], each keeping the node's row order (as
        # CLUS's applyWeighted does), rows with the value missing in both with the shares
        if (grow(<void**>&b.tidx, &b.cap_t, m + nmiss + 1, sizeof(int32_t))
                or grow(<void**>&b.twt, &b.cap_tw, m + nmiss + 1, sizeof(double))
                or grow(<void**>&b.idx, &b.cap_idx, e + nmiss, sizeof(int32_t))
                or grow(<void**>&b.wt, &b.cap_wt, e + nmiss, sizeof(double))):
            return -1
        q = 0
        if nmiss == 0:      # branch-free (the sides are unpredictable): right rows, then left
            for p in range(s, e):
                b.tidx[q] = b.idx[p]
                b.twt[q] = b.wt[p]
                q += b.side[p - s]
            nr = q
            for p in range(s, e):
                b.tidx[q] = b.idx[p]
                b.twt[q] = b.wt[p]
                q += 1 - b.side[p - s]
        if nmiss > 0:
            q = _gather_side(b, s, e, 1, pr, q)
            nr = q - nmiss          # the right child is [s, s + nr + nmiss)
            q = _gather_side(b, s, e, 0, pl, q)
        memcpy(b.idx + s, b.tidx, (m + nmiss) * sizeof(int32_t))
        memcpy(b.wt + s, b.twt, (m + nmiss) * sizeof(double))
        # the presorted lists follow the buffer while nodes are large (no missing values here)
        ps_child = 0
        if sp.ps != NULL and rec.ps_ok and nmiss == 0 and m >= sp.ps.min_rows:
            for p in range(s, e):
                sp.ps.right[b.idx[p]] = p < s + nr
            presort_partition(sp.ps, s, e)
            ps_child = 1
        if (grow(<void**>&b.stack, &b.cap_stack, n_stack + 2, sizeof(StackRec))
                or grow(<void**>&b.pool, &b.cap_pool, (n_stack + 2) * 2 * K + 1, sizeof(double))
                or grow(<void**>&b.spool, &b.cap_spool, (n_stack + 2) * SW, sizeof(double))):
            return -1
        _push_child(b, n_stack, s, s + nr + nmiss, node, &rec, 0, ps_child, nmiss, &b.R,
                    node_est, K, SW)
        n_stack += 1
        _push_child(b, n_stack, s + nr + nmiss, e + nmiss, node, &rec, 1, ps_child, nmiss,
                    &b.L, node_est, K, SW)
        n_stack += 1
        if reach:       # the reach rows of each child, routed as prediction routes them
            if grow(<void**>&b.rbuf, &b.cap_r, b.n_r + 2 * (rec.rend - rec.rstart) + 1,
                    sizeof(int32_t)):
                return -1
            for side in range(2):                   # the right child, then the left one
                b.stack[n_stack - 2 + side].rstart = b.n_r
                for jr in range(rec.rstart, rec.rend):
                    rr = b.rbuf[jr]
                    if tree_route(t, node, sp.reach_X[rr * F + f]) != side:
                        b.rbuf[b.n_r] = rr
                        b.n_r += 1
                b.stack[n_stack - 2 + side].rend = b.n_r
    return 0


cdef intp_t tree_leaf(const TreeData* t, const double* x, intp_t stride, intp_t f_over,
                      double v_over) noexcept nogil:
    """The leaf reached by x (x[f * stride]; feature f_over reads v_over), or -1 if a missing
    value on the path sends x down both branches."""
    return tree_leaf_from(t, 0, x, stride, f_over, v_over)


cdef intp_t tree_leaf_from(const TreeData* t, intp_t node, const double* x, intp_t stride,
                           intp_t f_over, double v_over) noexcept nogil:
    """tree_leaf from ``node`` down (the OOB permutations resume a row's path where it first
    leaves its unpermuted path)."""
    cdef intp_t f
    cdef int side
    cdef double v
    while t.feature[node] >= 0:
        f = t.feature[node]
        v = v_over if f == f_over else x[f * stride]
        side = tree_route(t, node, v)
        if side == 2:
            return -1
        node = t.left[node] if side == 0 else t.right[node]
    return node


cdef intp_t tree_leaves(const TreeData* t, const double* x, intp_t stride, intp_t f_over,
                        double v_over, int32_t* nodes, double* ws, intp_t* stk_n,
                        double* stk_w) noexcept nogil:
    """The (leaf, weight) pairs x reaches (a missing value follows both branches, weighted by
    p_left); returns their number. stk_n/stk_w/nodes/ws: scratch of n_nodes entries."""
    cdef intp_t n_stk = 1, node, f, cnt = 0
    cdef double w, v, pl
    cdef int side
    stk_n[0] = 0
    stk_w[0] = 1.0
    while n_stk > 0:
        n_stk -= 1
        node = stk_n[n_stk]
        w = stk_w[n_stk]
        while t.feature[node] >= 0:
            f = t.feature[node]
            v = v_over if f == f_over else x[f * stride]
            side = tree_route(t, node, v)
            if side == 2:
                pl = t.p_left[node]
                stk_n[n_stk] = t.right[node]
                stk_w[n_stk] = w * (1.0 - pl)
                n_stk += 1
                w *= pl
                node = t.left[node]
            else:
                node = t.left[node] if side == 0 else t.right[node]
        nodes[cnt] = <int32_t>node
        ws[cnt] = w
        cnt += 1
    return cnt


cdef const double* tree_mix(const TreeData* t, const int32_t* nodes, const double* ws,
                            intp_t cnt, double* out) noexcept nogil:
    """out[0:K] = the weighted mix of the prototypes of the leaves (tree_leaves' output)."""
    cdef intp_t i, c, K = t.K
    cdef const double* val
    memset(out, 0, K * sizeof(double))
    for i in range(cnt):
        val = t.values + t.offset[nodes[i]] * K
        for c in range(K):
            out[c] += ws[i] * val[c]
    return out


# -- Python-facing: a tree as an object of NumPy arrays ----------------------------------------

cdef object _array(const void* src, intp_t count, object dtype):
    """A NumPy copy of ``count`` items of ``dtype`` at src (src may be NULL when count is 0)."""
    arr = np.empty(count, dtype=dtype)
    if count > 0:
        memcpy(cnp.PyArray_DATA(arr), src, count * arr.itemsize)
    return arr


# The layout: name -> dtype. Node arrays (n_nodes,): feature (-1 leaf), threshold, left,
# right, weight (|E(N)|), hstar, depth, p_left, offset (nominal node: start of its subset in
# cats; leaf: its row of values). cats (n_cats,) uint8. values (n_leaves, K) or None: leaf
# prototypes. ties=share only (else None): tie_ptr (n_nodes + 1,), tie_feat, and the
# realisation alt_* (empty when none was drawn).
FIELDS = {"feature": np.int32, "threshold": np.float64, "left": np.int32, "right": np.int32,
          "weight": np.float64, "hstar": np.float64, "depth": np.int32, "p_left": np.float64,
          "offset": np.int64, "cats": np.uint8, "values": np.float64, "tie_ptr": np.int64,
          "tie_feat": np.int32, "alt_node": np.int32, "alt_feature": np.int32,
          "alt_threshold": np.float64, "alt_swap": np.uint8, "alt_offset": np.int64,
          "alt_cats": np.uint8}
_REQUIRED = ("feature", "threshold", "left", "right", "weight", "hstar", "depth", "p_left",
             "offset", "cats")


def _rebuild(dict arrays):
    return Tree(**arrays)


cdef class Tree:
    """One grown PCT: its arrays (``FIELDS``; optional ones are None when absent), read-only.

    Pickles as its arrays. ``tree["feature"]``, ``"values" in tree`` and ``tree.items()``
    read it like a mapping of the arrays present, so code that records or compares trees
    (bench/tree_identity.py) needs no list of fields.
    """

    def __init__(self, **arrays):
        unknown = set(arrays) - set(FIELDS)
        missing = [k for k in _REQUIRED if arrays.get(k) is None]
        if unknown or missing:
            raise ValueError(f"a tree needs {', '.join(missing) or 'no more'}; "
                             f"unknown: {', '.join(sorted(unknown)) or 'none'}")
        for name, dtype in FIELDS.items():
            v = arrays.get(name)
            if v is not None:
                v = np.ascontiguousarray(v, dtype=dtype)
                v.setflags(write=False)
            setattr_tree(self, name, v)
        self._point()

    cdef void _point(self):
        cdef const int32_t[::1] fi = self.feature, le = self.left, ri = self.right
        cdef const double[::1] th = self.threshold, pl = self.p_left
        cdef const int64_t[::1] of = self.offset
        cdef const uint8_t[::1] ca = self.cats
        cdef const double[:, ::1] va
        memset(&self.view, 0, sizeof(TreeData))
        self.view.n_nodes = fi.shape[0]
        if fi.shape[0] == 0:
            return
        self.view.feature = <int32_t*>&fi[0]
        self.view.left = <int32_t*>&le[0]
        self.view.right = <int32_t*>&ri[0]
        self.view.threshold = <double*>&th[0]
        self.view.p_left = <double*>&pl[0]
        self.view.offset = <int64_t*>&of[0]
        if ca.shape[0] > 0:
            self.view.cats = <uint8_t*>&ca[0]
        if self.values is not None and self.values.size > 0:
            va = self.values
            self.view.values = <double*>&va[0, 0]
            self.view.K = va.shape[1]

    def __reduce__(self):
        return _rebuild, (dict(self.items()),)

    def __getitem__(self, str name):
        v = getattr(self, name) if name in FIELDS else None
        if v is None:
            raise KeyError(name)
        return v

    def __contains__(self, name):
        return name in FIELDS and getattr(self, name) is not None

    def keys(self):
        return [k for k in FIELDS if getattr(self, k) is not None]

    def items(self):
        return [(k, getattr(self, k)) for k in self.keys()]


cdef void setattr_tree(Tree t, str name, object v):
    if name == "feature": t.feature = v
    elif name == "threshold": t.threshold = v
    elif name == "left": t.left = v
    elif name == "right": t.right = v
    elif name == "weight": t.weight = v
    elif name == "hstar": t.hstar = v
    elif name == "depth": t.depth = v
    elif name == "p_left": t.p_left = v
    elif name == "offset": t.offset = v
    elif name == "cats": t.cats = v
    elif name == "values": t.values = v
    elif name == "tie_ptr": t.tie_ptr = v
    elif name == "tie_feat": t.tie_feat = v
    elif name == "alt_node": t.alt_node = v
    elif name == "alt_feature": t.alt_feature = v
    elif name == "alt_threshold": t.alt_threshold = v
    elif name == "alt_swap": t.alt_swap = v
    elif name == "alt_offset": t.alt_offset = v
    elif name == "alt_cats": t.alt_cats = v


cdef Tree tree_copy(TreeData* t):
    """A grown tree's arrays, copied into a ``Tree``."""
    cdef intp_t n = t.n_nodes
    out = {"feature": _array(t.feature, n, np.int32),
           "threshold": _array(t.threshold, n, np.float64),
           "left": _array(t.left, n, np.int32), "right": _array(t.right, n, np.int32),
           "weight": _array(t.weight, n, np.float64), "hstar": _array(t.hstar, n, np.float64),
           "depth": _array(t.depth, n, np.int32), "p_left": _array(t.p_left, n, np.float64),
           "offset": _array(t.offset, n, np.int64), "cats": _array(t.cats, t.n_cats, np.uint8)}
    if t.tie_ptr != NULL:
        out["tie_ptr"] = _array(t.tie_ptr, n + 1, np.int64)
        out["tie_feat"] = _array(t.tie_feat, t.n_tie, np.int32)
        out["alt_node"] = _array(t.alt_node, t.n_alt, np.int32)
        out["alt_feature"] = _array(t.alt_feature, t.n_alt, np.int32)
        out["alt_threshold"] = _array(t.alt_threshold, t.n_alt, np.float64)
        out["alt_swap"] = _array(t.alt_swap, t.n_alt, np.uint8)
        out["alt_offset"] = _array(t.alt_offset, t.n_alt, np.int64)
        out["alt_cats"] = _array(t.alt_cats, t.n_alt_cats, np.uint8)
    if t.values != NULL:
        vals = np.empty((t.n_leaves, t.K), dtype=np.float64)
        if t.n_leaves > 0 and t.K > 0:
            memcpy(cnp.PyArray_DATA(vals), t.values, t.n_leaves * t.K * sizeof(double))
        out["values"] = vals
    return Tree(**out)


def predict_trees(list trees, const double[:, ::1] X, const int32_t[::1] ncat, intp_t K):
    """Mean over ``Tree`` objects of the prototype mix each predicts for every row of X (n, F)."""
    cdef intp_t n = X.shape[0], i, c, nt = len(trees)
    cdef TreeData t
    cdef Tree tr
    out = np.zeros((n, K), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef intp_t cnt
    cdef intp_t max_nodes = 1
    for tr in trees:
        max_nodes = max(max_nodes, tr.view.n_nodes)
        if tr.values is None:
            raise ValueError("the trees were grown without leaf prototypes")
        if tr.view.values != NULL and tr.view.K != K:
            raise ValueError(f"the trees' prototypes have {tr.view.K} columns, not {K}")
    cdef intp_t* stk_n = <intp_t*>malloc(max_nodes * sizeof(intp_t))
    cdef double* stk_w = <double*>malloc(max_nodes * sizeof(double))
    cdef int32_t* nodes = <int32_t*>malloc(max_nodes * sizeof(int32_t))
    cdef double* ws = <double*>malloc(max_nodes * sizeof(double))
    cdef double* buf = <double*>malloc(max(K, 1) * sizeof(double))
    try:
        if stk_n == NULL or stk_w == NULL or nodes == NULL or ws == NULL or buf == NULL:
            raise MemoryError()
        for tr in trees:
            t = tr.view                  # a copy of the struct: the arrays stay the tree's
            t.K = K
            t.ncat = &ncat[0]
            with nogil:
                for i in range(n):
                    cnt = tree_leaves(&t, &X[i, 0], 1, -1, 0.0, nodes, ws, stk_n, stk_w)
                    tree_mix(&t, nodes, ws, cnt, buf)
                    for c in range(K):
                        o[i, c] += buf[c]
    finally:
        free(stk_n)
        free(stk_w)
        free(nodes)
        free(ws)
        free(buf)
    if nt > 0:
        out /= nt
    return out


def _split_node(const double[:, ::1] Xt, const int32_t[::1] ncat, const double[:, ::1] C,
                const double[::1] a, int mode, const int64_t[::1] indptr,
                const int32_t[::1] indices, const double[::1] est, const int32_t[::1] rows,
                const double[::1] weights, intp_t max_features, double min_leaf, bint extra,
                unsigned long long seed, str path="plain"):
    """Testing hook: the splitter's choice for one node (rows, weights) with estimates est.

    Returns None or (feature, threshold, h, WL, WR, subset) where subset is the nominal
    left-set as a bool array (None for numeric tests). path: "plain" (every feature gathered
    and sorted), "lists" (the node is the bag of a tree with presorted lists: rows distinct,
    integer weights), "fewties" (the same, no feature's runs marked: their cuts' values are
    checked) or "counts" (features with at most 256 values summed per value, integer
    weights).
    """
    cdef ClusterData cd
    cdef Splitter sp
    cdef SplitRecord best
    cdef Presort ps
    cdef intp_t i, m = rows.shape[0]
    cdef const int32_t[::1] slot, cslot
    cdef const int32_t[:, ::1] order
    cdef const uint8_t[::1] tied
    cdef const uint8_t[:, ::1] ccodes
    cdef const double[:, ::1] cvals
    memset(&ps, 0, sizeof(Presort))
    cd.C = &C[0, 0]
    cd.K = a.shape[0]
    cd.a = &a[0]
    cd.mode = mode
    cd.indptr = &indptr[0]
    cd.indices = &indices[0]
    cd.C8 = NULL
    cd.off = NULL
    if splitter_init(&sp, &Xt[0, 0], Xt.shape[1], Xt.shape[0], &ncat[0], &cd, max_features,
                     min_leaf, extra, seed):
        raise MemoryError()
    try:
        if path == "counts":
            cplan = count_plan(Xt, ncat)
            if cplan is not None:
                cslot, ccodes, cvals = cplan
                if counts_init(&sp, &cslot[0], &ccodes[0, 0], &cvals[0, 0]):
                    raise MemoryError()
            sp.exact_w = True
        elif path in ("lists", "fewties"):
            order_a, slot_a, _ = presort_plan(Xt, ncat, max_features, extra, 2)
            if order_a.shape[0] > 0:
                tied_a = presort_runs(Xt, order_a, slot_a, 2.0 if path == "fewties" else 0.0)
                order, slot, tied = order_a, slot_a, tied_a
                if presort_init(&ps, &order[0, 0], &slot[0], order.shape[0], &tied[0],
                                Xt.shape[1], &rows[0], &weights[0], m, 2):
                    raise MemoryError()
                sp.ps = &ps
                sp.ps_node = True
            sp.exact_w = True
        stats_clear(&sp.tot, cd.K)
        for i in range(m):
            stats_add_row(&sp.tot, &cd, rows[i], weights[i], True)
        sp.est = &est[0]
        if node_split(&sp, &rows[0], &weights[0], 0, m, &best):
            raise MemoryError()
        split_exact_h(&sp, &rows[0], &weights[0], 0, m, &best)     # a screened h, exactly
        if best.feature < 0:
            return None
        subset = None
        if ncat[best.feature] > 0:
            subset = np.array([sp.best_cats[i] for i in range(ncat[best.feature])], dtype=bool)
        return (int(best.feature), float(best.threshold), float(best.h), float(best.WL),
                float(best.WR), subset)
    finally:
        splitter_free(&sp)
        presort_free(&ps)
