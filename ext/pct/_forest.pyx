# cython: language_level=3
"""Ensembles of PCTs: bootstrap, per-tree seeds, parallel growth, OOB permutation scores.

Trees are grown in batches by OpenMP threads without the GIL; each tree draws everything (its
bag, node feature subsets, extra-trees tests, permutations) from its own xorshift stream seeded
by ``seeds[t]``, and per-tree results are summed in tree order after each batch, so the
forest and every score are identical for any number of threads.

Random Forest score (spec-core §4.3): per tree, Err on its out-of-bag rows with the tree
itself; for each feature the tree uses (others score exactly 0), permute that feature's values
among the OOB rows and re-route them: only rows whose path tests that feature (an inverted
index feature -> rows, built once per tree) and whose leaf or route then changes contribute,
their error always measured against the true values; add (Err_i - Err)/Err. A tree with Err = 0 adds 0 and is
counted. Err = sum_b alpha_b mean_{rows with b known} e_b over "error blocks" b: squared error
of a numeric column, 0/1 error of a nominal block (argmax of its one-hot prototype) or of a
0/1 label (prototype >= 1/2). With ``acc_den`` (classification) the denominator is the
accuracy 1 - Err, as the thesis defines the score on accuracy. Under ties=share each tree is
scored as its realisation (``_tree.tree_realised``): at a tied node, one of the tied tests that
split the training rows alike, drawn uniformly, routes the out-of-bag rows, so that a feature
CLUS's rule passed over can still be permuted where it could have been the node's test.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange, threadid
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset, memcpy
from libc.math cimport isnan

from frcli._ext._utils cimport (intp_t, int32_t, int64_t, uint8_t, uint64_t, seed_state,
                                rand_int, grow, Progress, progress_add, progress_slots)
from frcli._ext.pct._criterion cimport (ClusterData, ERR_NUMERIC, ERR_LABEL, MODE_COMPLETE,
                                       MODE_MISSING, MODE_SPARSE01)
from frcli._ext.pct._splitter cimport (Splitter, splitter_init, splitter_free, batch_init,
                                   screen_init, counts_init, count01_init,
                                   cross01_init)
from frcli._ext.pct._tree cimport (TreeData, build_tree, tree_free, tree_leaf_from, tree_leaves,
                               tree_mix, tree_route, tree_copy, tree_realised,
                               tree_realised_free)
from frcli._ext.pct._presort cimport Presort, presort_init, presort_free
from frcli._ext.pct._count01 cimport Count01
from frcli._ext.pct._count01 import count01_plan, cross01_plan
from frcli._ext.pct._presort import (presort_plan, presort_runs, count_plan, nominal_default_rows,
                                 nominal_row_lists)

cnp.import_array()


cdef struct ErrSpec:
    intp_t B
    const int32_t* kind      # ErrorKind (``_criterion.pxd``)
    const int32_t* col
    const int32_t* ncat
    const double* alpha
    const int32_t* group     # per-target group or -1
    intp_t G
    const double* truth      # (n, B)
    const double* offset     # (K,) added to prototypes before thresholding labels
    bint acc_den


cdef struct Ctx:
    const double* Xt
    intp_t n
    intp_t F
    const int32_t* ncat
    ClusterData cd
    const double* est0
    const int32_t* col_group
    intp_t G
    intp_t max_features
    double min_leaf
    bint extra
    bint bootstrap
    bint keep_values
    bint rf_score
    bint random_ties
    bint share_ties
    bint genie3_missing_both
    ErrSpec es
    const uint64_t* seeds
    const int32_t* ps_order      # (ps_nf, n) rows by ascending value of each presorted feature
    const int32_t* ps_slot       # (F,) row of ps_order of feature f, or -1
    intp_t ps_nf                 # 0: no presorting
    bint screen                  # screened extra-trees candidates (complete mode)
    intp_t ps_min_rows
    const int32_t* cslot         # _splitter._sweep_values's tables, or NULL
    const uint8_t* ccodes
    const double* cvals
    const uint8_t* ps_tied       # (ps_nf,) 1: the feature has ties (run starts in ps_order)
    const int64_t* nd_ptr        # nominal features off their common value (sparse 0/1 mode)
    const int32_t* nd_rows
    const int32_t* nd_default
    const int32_t* nd_val
    const int64_t* nr_ptr        # the same entries listed by row (_batch_categories)
    const int32_t* nr_feat
    const int32_t* nr_val
    bint int_sums                # missing mode, integer clustering values (``_splitter``)
    Count01 c01                  # and all of them 0, 1 or unknown: ``_count01``'s plan
                                 # (c01.B == NULL: not so)
    const uint8_t* x01_fv        # with it, ``_count01.cross01_plan`` (NULL: none)
    const int64_t* x01_ptr
    const int32_t* x01_feat
    const double* reach_X        # grow only the nodes these rows reach (``grow_forest``)
    intp_t n_reach


cdef inline double _row_err(const ErrSpec* es, intp_t b, intp_t row, const double* pred,
                            double y) noexcept nogil:
    cdef intp_t c = es.col[b], j, arg
    cdef double d, mx
    if es.kind[b] == ERR_NUMERIC:
        d = y - pred[c]
        return d * d
    if es.kind[b] == ERR_LABEL:
        return 1.0 if ((pred[c] + es.offset[c] >= 0.5) != (y >= 0.5)) else 0.0
    arg = 0
    mx = pred[c]
    for j in range(1, es.ncat[b]):
        if pred[c + j] > mx:
            mx = pred[c + j]
            arg = j
    return 0.0 if <double>arg == y else 1.0


cdef intp_t _path_features(const TreeData* t, const double* x, intp_t stride, intp_t* stk,
                           intp_t* stamp, intp_t j, int32_t* out) noexcept nogil:
    """Distinct features tested on x's path(s) (missing values follow both branches); only
    these features' permutations can change x's prediction."""
    cdef intp_t n_stk = 1, node, g, cnt = 0
    cdef int side
    stk[0] = 0
    while n_stk > 0:
        n_stk -= 1
        node = stk[n_stk]
        while t.feature[node] >= 0:
            g = t.feature[node]
            if stamp[g] != j:
                stamp[g] = j
                out[cnt] = <int32_t>g
                cnt += 1
            side = tree_route(t, node, x[g * stride])
            if side == 2:
                stk[n_stk] = t.right[node]
                n_stk += 1
                node = t.left[node]
            else:
                node = t.left[node] if side == 0 else t.right[node]
    return cnt


cdef inline void _index_pass(const Ctx* ctx, const TreeData* t, const int32_t* oob,
                             intp_t n_oob, const int32_t* path, const intp_t* poff,
                             const intp_t* plen, intp_t* stk_n, intp_t* stamp,
                             int32_t* tnodes, intp_t* fstart, int32_t* frows) noexcept nogil:
    """One pass of the counting sort feature -> the OOB rows whose path(s) test it: with
    frows NULL, count them into fstart[f + 1]; else place row j at frows[fstart[f]++].
    A row with one path (plen[j] > 0) reads its features off the recorded path."""
    cdef intp_t f, j, i, cnt, k
    for f in range(ctx.F):
        stamp[f] = -1
    for j in range(n_oob):
        if plen[j] > 0:
            cnt = 0
            for k in range(plen[j] - 1):
                f = t.feature[path[poff[j] + k]]
                if stamp[f] != j:
                    stamp[f] = j
                    tnodes[cnt] = <int32_t>f
                    cnt += 1
        else:
            cnt = _path_features(t, ctx.Xt + oob[j], ctx.n, stk_n, stamp, j, tnodes)
        for i in range(cnt):
            if frows == NULL:
                fstart[tnodes[i] + 1] += 1
            else:
                frows[fstart[tnodes[i]]] = <int32_t>j
                fstart[tnodes[i]] += 1


cdef int _oob_scores(const Ctx* ctx, const TreeData* t, const int32_t* counts, uint64_t* rng,
                     double* rf_acc, double* rf_pt, int* zero_err) noexcept nogil:
    """Add this tree's permutation-score terms to rf_acc (F) and rf_pt (G, F)."""
    cdef const ErrSpec* es = &ctx.es
    cdef intp_t n = ctx.n, F = ctx.F, B = es.B, G = es.G, K = t.K
    cdef intp_t n_oob = 0, i, j, b, f, g, r, nl, row
    # every buffer is freed at the end (NULL until allocated). rnodes/rws/roff/rlen: base
    # routes of rows whose path splits (missing values); fstart/frows: the OOB rows whose
    # path(s) test feature f are frows[fstart[f]:]
    cdef int32_t *oob = NULL, *perm = NULL, *rnodes = NULL, *tnodes = NULL, *frows = NULL
    cdef intp_t *leaf = NULL, *stk_n = NULL, *roff = NULL, *rlen = NULL, *fstart = NULL
    cdef intp_t *stamp = NULL, *poff = NULL, *plen = NULL
    cdef int32_t *path = NULL
    cdef intp_t cap_p = 0, n_p = 0, depth = 0, node, k, nxt
    cdef int side
    cdef double *stk_w = NULL, *buf = NULL, *buf2 = NULL, *esum = NULL, *nk = NULL
    cdef double *delta = NULL, *gerr = NULL, *gden = NULL, *rws = NULL, *tws = NULL
    cdef uint8_t* used = NULL
    cdef intp_t cap_rn = 0, cap_rw = 0, n_r = 0, cnt
    cdef bint same
    cdef intp_t q, tot
    cdef const double* pb
    cdef const double* pn
    cdef double y, err, errf, den, v, tmpd
    cdef int rc = -1
    cdef int32_t tmp
    cdef intp_t c
    cdef bint pos_b, pos_n, all_labels = True
    for b in range(B):
        if es.kind[b] != ERR_LABEL:
            all_labels = False
    for i in range(n):
        if counts[i] == 0:
            n_oob += 1
    if n_oob == 0:
        return 0
    oob = <int32_t*>malloc(n_oob * sizeof(int32_t))
    perm = <int32_t*>malloc(n_oob * sizeof(int32_t))
    leaf = <intp_t*>malloc(n_oob * sizeof(intp_t))
    stk_n = <intp_t*>malloc((t.n_nodes + 1) * sizeof(intp_t))
    stk_w = <double*>malloc((t.n_nodes + 1) * sizeof(double))
    buf = <double*>malloc((K + 1) * sizeof(double))
    buf2 = <double*>malloc((K + 1) * sizeof(double))
    esum = <double*>calloc(B + 1, sizeof(double))
    nk = <double*>calloc(B + 1, sizeof(double))
    delta = <double*>calloc(B + 1, sizeof(double))
    gerr = <double*>calloc(G + 1, sizeof(double))
    gden = <double*>calloc(G + 1, sizeof(double))
    used = <uint8_t*>calloc(F + 1, 1)
    roff = <intp_t*>calloc(n_oob + 1, sizeof(intp_t))
    rlen = <intp_t*>calloc(n_oob + 1, sizeof(intp_t))
    tnodes = <int32_t*>malloc((t.n_nodes + 1) * sizeof(int32_t))
    tws = <double*>malloc((t.n_nodes + 1) * sizeof(double))
    poff = <intp_t*>calloc(n_oob + 1, sizeof(intp_t))
    plen = <intp_t*>calloc(n_oob + 1, sizeof(intp_t))
    if (roff == NULL or rlen == NULL or tnodes == NULL or tws == NULL or poff == NULL
            or plen == NULL):
        rc = -1
    elif (oob == NULL or perm == NULL or leaf == NULL or stk_n == NULL or stk_w == NULL
            or buf == NULL or buf2 == NULL or esum == NULL or nk == NULL or delta == NULL
            or gerr == NULL or gden == NULL or used == NULL):
        rc = -1
    else:
        j = 0
        for i in range(n):
            if counts[i] == 0:
                oob[j] = <int32_t>i
                j += 1
        # the tree's depth (a child's index exceeds its parent's; a realisation keeps no
        # depths), in stk_n as scratch
        stk_n[0] = 0
        for i in range(t.n_nodes):
            if t.feature[i] >= 0:
                stk_n[t.left[i]] = stk_n[i] + 1
                stk_n[t.right[i]] = stk_n[i] + 1
            elif stk_n[i] > depth:
                depth = stk_n[i]
        # base errors; each row's path (its nodes, root to leaf) is path[poff[j]:][:plen[j]],
        # plen[j] = 0 where a missing value splits it
        for j in range(n_oob):
            row = oob[j]
            if grow(<void**>&path, &cap_p, n_p + depth + 2, sizeof(int32_t)):
                rc = -2
                break
            poff[j] = n_p
            node = 0
            while True:
                path[n_p] = <int32_t>node
                n_p += 1
                if t.feature[node] < 0:
                    break
                side = tree_route(t, node, ctx.Xt[t.feature[node] * n + row])
                if side == 2:
                    node = -1
                    break
                node = t.left[node] if side == 0 else t.right[node]
            leaf[j] = node
            if node >= 0:
                plen[j] = n_p - poff[j]
            else:
                n_p = poff[j]
            if leaf[j] >= 0:
                pb = t.values + t.offset[leaf[j]] * K
            else:
                cnt = tree_leaves(t, ctx.Xt + row, n, -1, 0.0, tnodes, tws, stk_n, stk_w)
                if (grow(<void**>&rnodes, &cap_rn, n_r + cnt, sizeof(int32_t))
                        or grow(<void**>&rws, &cap_rw, n_r + cnt, sizeof(double))):
                    rc = -2
                    break
                memcpy(rnodes + n_r, tnodes, cnt * sizeof(int32_t))
                memcpy(rws + n_r, tws, cnt * sizeof(double))
                roff[j] = n_r
                rlen[j] = cnt
                n_r += cnt
                pb = tree_mix(t, tnodes, tws, cnt, buf)
            for b in range(B):
                y = es.truth[row * B + b]
                if not isnan(y):
                    esum[b] += _row_err(es, b, row, pb, y)
                    nk[b] += 1.0
        if rc == -2:
            rc = -1
        else:
            err = 0.0
            for b in range(B):
                if nk[b] > 0.0:
                    err += es.alpha[b] * esum[b] / nk[b]
                if G > 0 and es.group[b] >= 0 and nk[b] > 0.0:
                    gerr[es.group[b]] += esum[b] / nk[b]
            den = (1.0 - err) if es.acc_den else err
            for g in range(G):
                gden[g] = (1.0 - gerr[g]) if es.acc_den else gerr[g]
            if not den > 1e-300:
                zero_err[0] = 1
            for i in range(t.n_nodes):
                if t.feature[i] >= 0:
                    used[t.feature[i]] = 1
            # inverted index feature -> the OOB rows it can re-route (spec-core §4.3)
            fstart = <intp_t*>calloc(F + 2, sizeof(intp_t))
            stamp = <intp_t*>malloc((F + 1) * sizeof(intp_t))
            if fstart == NULL or stamp == NULL:
                rc = -2
            else:
                _index_pass(ctx, t, oob, n_oob, path, poff, plen, stk_n, stamp, tnodes,
                            fstart, NULL)
                for f in range(F):
                    fstart[f + 1] += fstart[f]
                tot = fstart[F]
                frows = <int32_t*>malloc((tot + 1) * sizeof(int32_t))
                if frows == NULL:
                    rc = -2
                else:
                    _index_pass(ctx, t, oob, n_oob, path, poff, plen, stk_n, stamp, tnodes,
                                fstart, frows)
                    for f in range(F, 0, -1):      # shift back: fstart[f] = start of f
                        fstart[f] = fstart[f - 1]
                    fstart[0] = 0
            for f in range(F):
                if not used[f] or rc == -2:
                    continue
                for j in range(n_oob):
                    perm[j] = oob[j]
                for j in range(n_oob - 1, 0, -1):
                    r = rand_int(rng, j + 1)
                    tmp = perm[j]
                    perm[j] = perm[r]
                    perm[r] = tmp
                memset(delta, 0, B * sizeof(double))
                for q in range(fstart[f], fstart[f + 1]):
                    j = frows[q]
                    row = oob[j]
                    v = ctx.Xt[f * n + perm[j]]
                    if leaf[j] < 0:
                        # a missing value splits this row's path: compare whole routes
                        cnt = tree_leaves(t, ctx.Xt + row, n, f, v, tnodes, tws, stk_n, stk_w)
                        same = cnt == rlen[j]
                        if same:
                            for i in range(cnt):
                                if tnodes[i] != rnodes[roff[j] + i] or tws[i] != rws[roff[j] + i]:
                                    same = False
                                    break
                        if same:
                            continue
                        pb = tree_mix(t, rnodes + roff[j], rws + roff[j], rlen[j], buf)
                        pn = tree_mix(t, tnodes, tws, cnt, buf2)
                    else:
                        # the route cannot change above the path's first test of f: from
                        # there, follow the recorded path while v keeps to it (no read of
                        # the row), and walk on from where it leaves the path
                        k = poff[j]
                        while t.feature[path[k]] != f:
                            k += 1
                        nl = leaf[j]
                        while k < poff[j] + plen[j] - 1:
                            node = path[k]
                            if t.feature[node] == f:
                                side = tree_route(t, node, v)
                                if side == 2:
                                    nl = -1
                                    break
                                nxt = t.left[node] if side == 0 else t.right[node]
                                if nxt != path[k + 1]:
                                    nl = tree_leaf_from(t, nxt, ctx.Xt + row, n, f, v)
                                    break
                            k += 1
                        if nl >= 0 and nl == leaf[j]:
                            continue
                        pb = t.values + t.offset[leaf[j]] * K
                        if nl >= 0:
                            pn = t.values + t.offset[nl] * K
                        else:
                            cnt = tree_leaves(t, ctx.Xt + row, n, f, v, tnodes, tws, stk_n, stk_w)
                            pn = tree_mix(t, tnodes, tws, cnt, buf2)
                    if all_labels:      # only labels whose thresholded prediction flips matter
                        for b in range(B):
                            c = es.col[b]
                            pos_b = pb[c] + es.offset[c] >= 0.5
                            pos_n = pn[c] + es.offset[c] >= 0.5
                            if pos_b == pos_n:
                                continue
                            y = es.truth[row * B + b]
                            if not isnan(y):
                                delta[b] += 1.0 if pos_n != (y >= 0.5) else -1.0
                        continue
                    for b in range(B):
                        y = es.truth[row * B + b]
                        if not isnan(y):
                            delta[b] += _row_err(es, b, row, pn, y) - _row_err(es, b, row, pb, y)
                if den > 1e-300:
                    errf = 0.0
                    for b in range(B):
                        if nk[b] > 0.0:
                            errf += es.alpha[b] * delta[b] / nk[b]
                    rf_acc[f] += errf / den
                if rf_pt != NULL and G > 0:
                    for b in range(B):
                        g = es.group[b]
                        if g >= 0 and nk[b] > 0.0 and gden[g] > 1e-300:
                            rf_pt[g * F + f] += delta[b] / nk[b] / gden[g]
            if rc != -2:
                rc = 0
    free(oob)
    free(perm)
    free(leaf)
    free(stk_n)
    free(stk_w)
    free(buf)
    free(buf2)
    free(esum)
    free(nk)
    free(delta)
    free(gerr)
    free(gden)
    free(used)
    free(rnodes)
    free(rws)
    free(roff)
    free(rlen)
    free(tnodes)
    free(tws)
    free(fstart)
    free(stamp)
    free(frows)
    free(path)
    free(poff)
    free(plen)
    if rc == -2:
        rc = -1
    return rc


cdef void _fast_paths(const Ctx* ctx, Splitter* sp, Presort* ps,
                      const int32_t* counts) noexcept nogil:
    """Hand the tree's presorted lists, sparse-nominal shortcut and extra-trees screening to
    its splitter (a shortcut it cannot allocate stays off: the plain path grows the same
    tree)."""
    if ctx.screen:
        screen_init(sp)
    if ctx.ps_nf > 0:
        sp.ps = ps
    sp.int_sums = ctx.int_sums
    if ctx.c01.B != NULL and count01_init(sp, &ctx.c01) == 0 and ctx.x01_fv != NULL:
        cross01_init(sp, ctx.x01_fv, ctx.x01_ptr, ctx.x01_feat)
    if ctx.cslot != NULL:
        counts_init(sp, ctx.cslot, ctx.ccodes, ctx.cvals)
    if ctx.nd_ptr != NULL:
        batch_init(sp, ctx.nd_ptr, ctx.nd_rows, ctx.nd_default, ctx.nd_val, ctx.nr_ptr,
                   ctx.nr_feat, ctx.nr_val, counts)


cdef int _one_tree(const Ctx* ctx, intp_t t, TreeData* tree, double* pt_acc, double* rf_acc,
                   double* rf_pt, int* zero_err) noexcept nogil:
    cdef intp_t n = ctx.n, i, m = 0
    cdef uint64_t rng = seed_state(ctx.seeds[t])
    cdef int32_t* counts = <int32_t*>calloc(n + 1, sizeof(int32_t))
    cdef int32_t* idx0 = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    cdef double* wt0 = <double*>malloc((n + 1) * sizeof(double))
    cdef Splitter sp
    cdef Presort ps
    cdef TreeData real
    cdef int rc = -1
    memset(&sp, 0, sizeof(Splitter))
    memset(&ps, 0, sizeof(Presort))
    if counts != NULL and idx0 != NULL and wt0 != NULL:
        if ctx.bootstrap:
            for i in range(n):
                counts[rand_int(&rng, n)] += 1
        else:
            for i in range(n):
                counts[i] = 1
        for i in range(n):
            if counts[i] > 0:
                idx0[m] = <int32_t>i
                wt0[m] = counts[i]
                m += 1
        if splitter_init(&sp, ctx.Xt, n, ctx.F, ctx.ncat, &ctx.cd, ctx.max_features,
                         ctx.min_leaf, ctx.extra,
                         ctx.seeds[t] + <uint64_t>0x632BE59BD9B4E019ULL) == 0 and (
                ctx.ps_nf == 0 or presort_init(&ps, ctx.ps_order, ctx.ps_slot, ctx.ps_nf,
                                               ctx.ps_tied, n, idx0, wt0, m,
                                               ctx.ps_min_rows) == 0):
            sp.random_ties = ctx.random_ties
            sp.share_ties = ctx.share_ties
            sp.realise_ties = ctx.share_ties and (ctx.rf_score or ctx.keep_values)
            sp.genie3_missing_both = ctx.genie3_missing_both
            sp.reach_X = ctx.reach_X
            sp.n_reach = ctx.n_reach
            _fast_paths(ctx, &sp, &ps, counts)
            if build_tree(&sp, tree, idx0, wt0, m, ctx.est0, pt_acc, ctx.col_group,
                          ctx.keep_values or ctx.rf_score) == 0:
                rc = 0
                if ctx.rf_score and tree.n_alt > 0:
                    # ties=share: the OOB rows follow the tree's realisation (a tied test
                    # drawn at each tied node), so that a feature the tie rule passed over
                    # is permuted where it routes rows (``_tree.tree_realised``)
                    if tree_realised(tree, &real) == 0:
                        rc = _oob_scores(ctx, &real, counts, &rng, rf_acc, rf_pt, zero_err)
                    else:
                        rc = -1
                    tree_realised_free(&real)
                elif ctx.rf_score:
                    rc = _oob_scores(ctx, tree, counts, &rng, rf_acc, rf_pt, zero_err)
                if not ctx.keep_values and tree.values != NULL:
                    free(tree.values)
                    tree.values = NULL
    splitter_free(&sp)
    presort_free(&ps)
    free(counts)
    free(idx0)
    free(wt0)
    return rc


# Tied rows (not the first of their value) below this share of the rows: no run marks. The
# marks make each partition dearer, an unmarked sweep screens every position; measured on
# the scaling data (20 trees, CPU): unmarked 17 % faster at 69 % tied rows (4k rows, 3
# digits), 4 % and 8 % slower at 89 % and 96 % (16k, 64k); at 6 digits (< 3 % tied) its
# fits take the samples of full precision (perf), marked ones about 9 % more.
SPARSE_TIES = 0.8


cdef class Columns:
    """The clustering columns as the kernels read them (``frcli.engines.pct.columns``).

    C: (n, K) centred columns (any shape (., K) in MODE_SPARSE01, where indptr/indices list
    each row's positive columns); a: (K,) weights; mode: a ``StorageMode``; est0: (K,)
    training variances; col_group: (K,) per-target group of each column (-1 none), G groups.
    codes, offset: (n, K) uint8 and (K,) with C == codes - offset bit for bit
    (``frcli.engines.pct.columns.dense_codes``), or None: rows are then read as bytes.
    """
    cdef readonly object C, a, indptr, indices, est0, col_group, codes, offset
    cdef readonly int mode
    cdef readonly intp_t G

    def __init__(self, C, a, int mode, indptr, indices, est0, col_group, intp_t G,
                 codes=None, offset=None):
        if mode not in (MODE_COMPLETE, MODE_SPARSE01, MODE_MISSING):
            raise ValueError(f"unknown storage mode {mode}")
        self.C, self.a, self.mode, self.indptr, self.indices = C, a, mode, indptr, indices
        self.est0, self.col_group, self.G = est0, col_group, G
        self.codes, self.offset = codes, offset


cdef class OobErrors:
    """The out-of-bag error of the RF score: B error blocks, each an ``ErrorKind`` over
    columns col[b].. (ncat[b] of them for a nominal block), weighted alpha[b], in per-target
    group group[b] (-1 none), against truth (n, B); offset (K,) is added to prototypes
    before a label is thresholded; acc_den: the denominator is the accuracy 1 - Err."""
    cdef readonly object kind, col, ncat, alpha, group, truth, offset
    cdef readonly bint acc_den

    def __init__(self, kind, col, ncat, alpha, group, truth, offset, bint acc_den):
        self.kind, self.col, self.ncat, self.alpha = kind, col, ncat, alpha
        self.group, self.truth, self.offset, self.acc_den = group, truth, offset, acc_den


cdef class GrowParams:
    """How to grow a forest, besides the data and the seeds.

    extra: extra trees (random tests); random_ties: see ``_splitter.draw_features``;
    share_ties: ties=share (``_splitter._find_ties``): the trees are the same, each tree also
    holds its tie lists and realisation (``tie_ptr``, ``tie_feat``, ``alt_*``);
    genie3_missing_both: Genie3's h* as CLUS computes it, rows with the tested value missing
    in both children with the branch shares (``_tree``; the trees are the same);
    per_target: per-target Genie3 and RF sums; presort: keep presorted row lists and the other
    shortcuts of the split search (the same trees, bit for bit, grown faster on large data;
    False = every node gathers and sorts, the reference path); presort_min_rows overrides
    ``_presort.auto_min_rows`` (tuning).
    """
    cdef public intp_t max_features
    cdef public double min_leaf
    cdef public bint extra, bootstrap, keep_values, rf_score, per_target
    cdef public bint random_ties, share_ties, genie3_missing_both, presort
    cdef public int jobs
    cdef public object presort_min_rows

    def __init__(self, *, intp_t max_features, double min_leaf, bint extra=False,
                 bint bootstrap=True, bint keep_values=True, int jobs=1, bint rf_score=False,
                 bint per_target=False, bint random_ties=False, bint share_ties=False,
                 bint genie3_missing_both=False, bint presort=True, presort_min_rows=None):
        self.max_features, self.min_leaf, self.extra = max_features, min_leaf, extra
        self.bootstrap, self.keep_values, self.jobs = bootstrap, keep_values, jobs
        self.rf_score, self.per_target = rf_score, per_target
        self.random_ties, self.share_ties = random_ties, share_ties
        self.genie3_missing_both, self.presort = genie3_missing_both, presort
        self.presort_min_rows = presort_min_rows


def grow_forest(const double[:, ::1] Xt, const int32_t[::1] ncat, const uint64_t[::1] seeds,
                Columns cols, GrowParams params, OobErrors oob=None, progress=None,
                reach=None):
    """Grow ``len(seeds)`` PCTs on the features Xt (F, n; feature-major) with their
    categories ncat (0 = numeric); returns a dict (trees, sums over trees of the scores).

    oob: the error blocks, required when ``params.rf_score``. progress: None, or an int64
    array (one slot per thread, frcli.engines.progress) to which each thread adds 1 per
    finished tree; nothing else reads it, so results do not depend on it.
    reach: None, or rows (r, F) scaled as Xt: the trees are grown only where these rows
    go (a node they do not reach stays a leaf), so the trees predict them exactly as the
    whole trees do. Only for trees that draw nothing while they grow (best tests over all
    features, ties to the first: then a node left unsplit changes no other node).
    """
    cdef const double[:, ::1] reach_v
    cdef const double[:, ::1] C = cols.C
    cdef const double[::1] a = cols.a
    cdef int mode = cols.mode
    cdef const int64_t[::1] indptr = cols.indptr
    cdef const int32_t[::1] indices = cols.indices
    cdef const double[::1] est0 = cols.est0
    cdef const int32_t[::1] col_group = cols.col_group
    cdef intp_t G = cols.G
    codes, offset = cols.codes, cols.offset
    cdef intp_t max_features = params.max_features
    cdef double min_leaf = params.min_leaf
    cdef bint extra = params.extra, bootstrap = params.bootstrap
    cdef bint keep_values = params.keep_values, rf_score = params.rf_score
    cdef bint per_target = params.per_target, random_ties = params.random_ties
    cdef bint share_ties = params.share_ties
    cdef bint genie3_missing_both = params.genie3_missing_both
    cdef bint presort = params.presort
    cdef int jobs = params.jobs
    presort_min_rows = params.presort_min_rows
    if rf_score and oob is None:
        raise ValueError("the RF score needs the out-of-bag error blocks (oob)")
    cdef intp_t n = Xt.shape[1], F = Xt.shape[0], K = a.shape[0], T = seeds.shape[0]
    cdef intp_t batch, b0, nb, i, j
    cdef Ctx ctx
    cdef int nj = max(1, jobs)
    memset(&ctx, 0, sizeof(Ctx))
    ctx.Xt = &Xt[0, 0]
    ctx.n = n
    ctx.F = F
    ctx.ncat = &ncat[0]
    ctx.cd.C = &C[0, 0]
    ctx.cd.K = K
    ctx.cd.a = &a[0]
    ctx.cd.mode = mode
    ctx.cd.indptr = &indptr[0]
    ctx.cd.indices = &indices[0]
    cdef const uint8_t[:, ::1] codes_v
    cdef const double[::1] off_v
    if presort and codes is not None and mode == MODE_COMPLETE:
        codes_v = codes
        off_v = offset
        if codes_v.shape[0] != n or codes_v.shape[1] != K or off_v.shape[0] != K:
            raise ValueError("codes must be (n, K) and offset (K,)")
        if n > 0 and K > 0:
            ctx.cd.C8 = &codes_v[0, 0]
            ctx.cd.off = &off_v[0]
    ctx.est0 = &est0[0]
    ctx.col_group = &col_group[0]
    ctx.G = G if per_target else 0
    ctx.max_features = max_features
    ctx.min_leaf = min_leaf
    ctx.extra = extra
    ctx.bootstrap = bootstrap
    ctx.keep_values = keep_values
    ctx.rf_score = rf_score
    ctx.random_ties = random_ties
    ctx.share_ties = share_ties
    ctx.genie3_missing_both = genie3_missing_both
    ctx.seeds = &seeds[0]
    if reach is not None:
        if extra or 0 < max_features < F or random_ties or share_ties or rf_score:
            raise ValueError("reach needs trees that draw nothing while they grow (best "
                             "tests over all features, ties to the first, no RF score)")
        reach_v = reach
        if reach_v.shape[1] != F:
            raise ValueError("reach must have one column per feature")
        ctx.n_reach = reach_v.shape[0]
        ctx.reach_X = &reach_v[0, 0] if ctx.n_reach > 0 else &Xt[0, 0]
    cdef const int32_t[:, ::1] ps_order
    cdef const int32_t[::1] ps_slot
    cdef const uint8_t[::1] ps_tied
    ctx.screen = presort
    cdef const int32_t[::1] cslot
    cdef const uint8_t[:, ::1] ccodes
    cdef const double[:, ::1] cvals
    orders = {}             # the columns' value orders, sorted once for both plans
    cplan = (count_plan(Xt, ncat, orders)
             if presort and not extra and mode in (MODE_COMPLETE, MODE_SPARSE01) else None)
    if cplan is not None:
        cslot, ccodes, cvals = cplan
        ctx.cslot = &cslot[0]
        ctx.ccodes = &ccodes[0, 0]
        ctx.cvals = &cvals[0, 0]
    if presort:
        ps_order_a, ps_slot_a, ps_min = presort_plan(
            Xt, ncat, max_features, extra, presort_min_rows,
            None if cplan is None else np.asarray(cplan[0]) != -1, orders)
        ps_order = ps_order_a
        ps_slot = ps_slot_a
        if ps_order.shape[0] > 0:
            ctx.ps_order = &ps_order[0, 0]
            ctx.ps_slot = &ps_slot[0]
            ctx.ps_nf = ps_order.shape[0]
            ctx.ps_min_rows = ps_min
            # complete mode with the cuts screened (``screen_init``): a feature with few
            # ties keeps a plain list and checks its cuts' values where they could matter
            ps_tied = presort_runs(Xt, ps_order_a, ps_slot_a, SPARSE_TIES
                                   if mode == MODE_COMPLETE and a.shape[0] >= 2
                                   and np.all((np.asarray(a) >= 0) & np.isfinite(a))
                                   else 0.0)
            ctx.ps_tied = &ps_tied[0]
    ctx.int_sums = presort and mode == MODE_MISSING and integer_sums(C, n)
    cdef const uint8_t[:, ::1] c01_B
    cdef const int32_t[::1] c01_one, c01_known, c01_grp, x01_feat
    cdef const uint8_t[::1] x01_fv
    cdef const int64_t[::1] x01_ptr
    c01 = count01_plan(C) if ctx.int_sums and n > 0 and K > 0 else None
    if c01 is not None and c01[0].shape[1] > 0:
        c01_B, c01_one, c01_known, c01_grp = c01[:4]
        ctx.c01.B = &c01_B[0, 0]
        ctx.c01.Kc = c01_B.shape[1]
        ctx.c01.K = K
        ctx.c01.one_src = &c01_one[0]
        ctx.c01.known_src = &c01_known[0]
        ctx.c01.grp = &c01_grp[0]
        ctx.c01.ngroups = c01[4]
        x01 = cross01_plan(Xt, ncat)
        if x01 is not None:
            x01_fv, x01_ptr, x01_feat = x01
            ctx.x01_fv = &x01_fv[0]
            ctx.x01_ptr = &x01_ptr[0]
            ctx.x01_feat = &x01_feat[0] if x01_feat.shape[0] > 0 else &c01_one[0]
    cdef const int64_t[::1] nd_ptr, nr_ptr
    cdef const int32_t[::1] nd_rows, nd_default, nd_val, nr_feat, nr_val
    if presort and mode == MODE_SPARSE01:        # sums of counts are exact integers
        nd = nominal_default_rows(Xt, ncat)
        if nd is not None:
            nd_ptr, nd_rows, nd_default = nd
            nd_val, nr_ptr, nr_feat, nr_val = nominal_row_lists(Xt, nd_ptr, nd_rows)
            ctx.nd_ptr = &nd_ptr[0]
            ctx.nd_rows = &nd_rows[0]
            ctx.nd_default = &nd_default[0]
            ctx.nd_val = &nd_val[0]
            ctx.nr_ptr = &nr_ptr[0]
            ctx.nr_feat = &nr_feat[0]
            ctx.nr_val = &nr_val[0]
    cdef const int32_t[::1] e_kind, e_col, e_ncat, e_group
    cdef const double[::1] e_alpha, e_off
    cdef const double[:, ::1] e_truth
    if rf_score:
        e_kind = oob.kind
        e_col = oob.col
        e_ncat = oob.ncat
        e_group = oob.group
        e_alpha = oob.alpha
        e_off = oob.offset
        e_truth = oob.truth
        ctx.es.B = e_kind.shape[0]
        ctx.es.kind = &e_kind[0]
        ctx.es.col = &e_col[0]
        ctx.es.ncat = &e_ncat[0]
        ctx.es.group = &e_group[0]
        ctx.es.alpha = &e_alpha[0]
        ctx.es.offset = &e_off[0]
        ctx.es.truth = &e_truth[0, 0]
        ctx.es.G = G if per_target else 0
        ctx.es.acc_den = oob.acc_den
    Gp = G if per_target else 0
    # a batch's per-tree accumulators stay under ~128 MB
    per_tree = max(1, 2 * Gp * F + F) * 8
    batch = max(nj, min(T, max(1, (128 << 20) // per_tree)))
    batch = min(batch, T) if T > 0 else 1
    cdef TreeData* trees = <TreeData*>calloc(batch, sizeof(TreeData))
    pt = np.zeros((batch, max(Gp, 1), F))
    rfa = np.zeros((batch, F))
    rfp = np.zeros((batch, max(Gp, 1), F))
    zero = np.zeros(batch, dtype=np.int32)
    rcs = np.zeros(batch, dtype=np.int32)
    cdef double[:, :, ::1] pt_v = pt, rfp_v = rfp
    cdef double[:, ::1] rfa_v = rfa
    cdef int[::1] zero_v = zero, rc_v = rcs
    cdef Progress prog = progress_slots(progress)
    out_trees = []
    sum_pt = np.zeros((Gp, F))
    sum_rf = np.zeros(F)
    sum_rfp = np.zeros((Gp, F))
    n_zero = 0
    try:
        for b0 in range(0, T, batch):
            nb = min(batch, T - b0)
            pt[:] = 0.0
            rfa[:] = 0.0
            rfp[:] = 0.0
            zero[:] = 0
            rcs[:] = 0
            with nogil:
                for i in prange(nb, num_threads=nj, schedule="dynamic", chunksize=1):
                    rc_v[i] = _one_tree(&ctx, b0 + i, &trees[i],
                                        &pt_v[i, 0, 0] if Gp > 0 else NULL,
                                        &rfa_v[i, 0],
                                        &rfp_v[i, 0, 0] if Gp > 0 else NULL,
                                        &zero_v[i])
                    progress_add(prog, threadid(), 1)
            if (rcs[:nb] != 0).any():
                raise MemoryError("out of memory while growing the trees")
            for i in range(nb):          # tree order: the sums do not depend on threads
                out_trees.append(tree_copy(&trees[i]))
                tree_free(&trees[i])
                if Gp > 0:
                    sum_pt += pt[i, :Gp]
                    sum_rfp += rfp[i, :Gp]
                sum_rf += rfa[i]
                n_zero += int(zero[i])
    finally:
        for i in range(batch):
            tree_free(&trees[i])
        free(trees)
    return {"trees": out_trees, "genie3_per_target": sum_pt, "rf": sum_rf,
            "rf_per_target": sum_rfp, "n_zero_err": n_zero}


def integer_sums(C, intp_t n):
    """Whether every sum of w y and w y^2 over rows of C (known values; weights summing to at
    most n) is an exact integer in doubles: the values are integers with n max|y|^2 < 2^52."""
    X = np.asarray(C)
    known = X[~np.isnan(X)]
    if known.size == 0:
        return False
    big = float(np.abs(known).max())
    return bool(np.all(known == np.floor(known)) and max(n, 1) * max(big, 1.0) ** 2 < 2.0 ** 52)


def bootstrap_counts(const uint64_t[::1] seeds, intp_t n):
    """(T, n) int32: how often each row is in tree t's bag, drawn exactly as ``grow_forest``
    draws it from ``seeds[t]`` (0 = out of bag). For scores computed after the forest, such as
    CLUS's variant of the RF score (``frcli.engines.pct.rf_clus``)."""
    cdef intp_t T = seeds.shape[0], t, i
    cdef uint64_t rng
    out = np.zeros((T, n), dtype=np.int32)
    cdef int32_t[:, ::1] o = out
    for t in range(T):
        rng = seed_state(seeds[t])
        for i in range(n):
            o[t, rand_int(&rng, n)] += 1
    return out
