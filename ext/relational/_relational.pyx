# cython: language_level=3
"""Relational kernels: aggregated chain features over related objects, and the best split of a
node over a batch of candidate features (docs/design/relational.md).

A *chain* is a conjunction of atoms r(args) whose arguments are bound variables, fresh
variables or constants; variables 0..k-1 hold the example's key. Its value for an example is
``agg_0`` over the tuples of atom 0 matching the bindings of ``agg_1`` over the tuples of atom 1
matching those (with the atom-0 tuple's fresh variables bound) ... down to the last atom, whose
single fresh variable supplies the values (no fresh variable: the number of matching tuples;
several: the tuples themselves, counted). Inner results equal to ±inf or EMPTY (NaN) are
dropped before the outer aggregate ("critical values", as re3py). Empty groups: count, countd and sum
give 0, min/mean +inf, max -inf, mode EMPTY (NaN). Nominal values are category codes (as
doubles); ``mode`` breaks ties by the smallest code (codes follow string order).

Relations are sets of int32 tuples with, for every argument position, a CSR index
value → tuples (the O(1) "related objects" of the complexity analysis, Appendix A). Nothing is
joined in advance: memory is the facts plus one index entry per tuple and position.

Everything below runs without the GIL; ``best_split`` releases it, so trees grown in threads
run in parallel. Results never depend on the thread count (no shared state, no reductions
across threads).
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memset
from libc.math cimport INFINITY, NAN, isnan, isinf, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t

from frcli._ext._utils cimport intp_t, sort_by_value

cnp.import_array()

DEF MAXA = 8           # maximum arity of a relation
DEF MAXLEN = 8         # maximum atoms in a chain
DEF MAXV = 64          # maximum variables in a chain
DEF AS = 3 + 2 * MAXA  # ints per atom record

# the aggregate, argument and last-atom codes: cpdef enums of _relational.pxd

AGGREGATES = {"count": A_COUNT, "countd": A_COUNTD, "sum": A_SUM, "mean": A_MEAN,
              "min": A_MIN, "max": A_MAX, "mode": A_MODE}
ATOM_STRIDE = AS
MAX_ARITY = MAXA
MAX_CHAIN = MAXLEN
MAX_VARS = MAXV


cdef class RelDB:
    """The facts: every relation's tuples and one CSR index per argument position."""
    cdef const int32_t[::1] tuples      # all relations, row-major, concatenated
    cdef const int64_t[::1] rel_off     # start of relation r in ``tuples`` (ints)
    cdef const int32_t[::1] arity
    cdef const int64_t[::1] idx_off     # (r * MAXA + pos) -> start in ``offsets``
    cdef const int64_t[::1] dom_size    # (r * MAXA + pos) -> number of codes of that domain
    cdef const int64_t[::1] offsets     # CSR offsets into ``items``
    cdef const int32_t[::1] items       # tuple indices (local to the relation)
    cdef const double[::1] numbers      # numeric domains' values, concatenated

    def __init__(self, tuples, rel_off, arity, idx_off, dom_size, offsets, items, numbers):
        self.tuples = tuples
        self.rel_off = rel_off
        self.arity = arity
        self.idx_off = idx_off
        self.dom_size = dom_size
        self.offsets = offsets
        self.items = items
        self.numbers = numbers


cdef class Batch:
    """Candidate features of one context: chains (atom records) and their aggregate chains
    (columns). See ``frcli.engines.relational.features.pack``."""
    cdef public int n_chains, n_cols
    cdef const int32_t[::1] atoms        # n_atoms * AS
    cdef const int32_t[::1] atom_start   # n_chains + 1
    cdef const int32_t[::1] last_kind
    cdef const int32_t[::1] last_pos
    cdef const int64_t[::1] last_num     # offset into numbers, or -1
    cdef const int32_t[::1] n_vars
    cdef const int32_t[::1] col_start    # n_chains + 1
    cdef const int32_t[::1] aggs         # n_cols * MAXLEN
    cdef const int32_t[::1] col_kind     # 0 numeric, 1 nominal
    cdef const int32_t[::1] col_ncat     # nominal: number of categories (EMPTY = ncat)

    def __init__(self, atoms, atom_start, last_kind, last_pos, last_num, n_vars, col_start,
                 aggs, col_kind, col_ncat):
        self.atoms = atoms
        self.atom_start = atom_start
        self.last_kind = last_kind
        self.last_pos = last_pos
        self.last_num = last_num
        self.n_vars = n_vars
        self.col_start = col_start
        self.aggs = aggs
        self.col_kind = col_kind
        self.col_ncat = col_ncat
        self.n_chains = len(atom_start) - 1
        self.n_cols = len(col_kind)


# -- evaluation ------------------------------------------------------------------------------

cdef struct Acc:
    double n, s, lo, hi
    double* buf
    intp_t nbuf, cap


cdef struct Eval:
    const int32_t* atoms      # the chain's atom records
    int m                     # atoms in the chain
    int last_kind, last_pos
    int64_t last_num
    int32_t vals[MAXV]
    # the aggregate chains of the evaluated columns as a trie of suffixes: level d holds the
    # distinct (aggs[d], inner suffix) pairs, so columns sharing inner aggregates share work
    int lvl_start[MAXLEN + 1]
    int* node_agg             # per trie node: its aggregate
    int* node_child           # per trie node: the node of level d+1 it aggregates (-1: last)
    Acc* acc                  # per trie node
    double* inner             # per trie node: its value for the current group
    int oom


cdef inline void acc_reset(Acc* a) noexcept nogil:
    a.n = 0.0
    a.s = 0.0
    a.lo = INFINITY
    a.hi = -INFINITY
    a.nbuf = 0


cdef inline void acc_push(Acc* a, double v, bint keep, int* oom) noexcept nogil:
    cdef void* p
    cdef intp_t cap
    a.n += 1.0
    a.s += v
    if v < a.lo:
        a.lo = v
    if v > a.hi:
        a.hi = v
    if keep:
        if a.nbuf == a.cap:
            cap = a.cap * 2 if a.cap > 0 else 16
            p = realloc(a.buf, cap * sizeof(double))
            if p == NULL:
                oom[0] = 1
                return
            a.buf = <double*>p
            a.cap = cap
        a.buf[a.nbuf] = v
        a.nbuf += 1


cdef int _cmp_double(const void* a, const void* b) noexcept nogil:
    cdef double x = (<double*>a)[0], y = (<double*>b)[0]
    return (x > y) - (x < y)


cdef extern from "stdlib.h" nogil:
    void qsort(void* base, size_t n, size_t size, int (*cmp)(const void*, const void*))


cdef double acc_final(Acc* a, int agg) noexcept nogil:
    cdef intp_t i, run, best_run
    cdef double best
    if agg == A_COUNT:
        return a.n
    if agg == A_SUM:
        return a.s
    if agg == A_MEAN:
        return a.s / a.n if a.n > 0 else INFINITY
    if agg == A_MIN:
        return a.lo
    if agg == A_MAX:
        return a.hi
    if a.nbuf == 0:
        return 0.0 if agg == A_COUNTD else NAN
    qsort(a.buf, a.nbuf, sizeof(double), _cmp_double)
    if agg == A_COUNTD:
        run = 1
        for i in range(1, a.nbuf):
            if a.buf[i] != a.buf[i - 1]:
                run += 1
        return <double>run
    # mode: the longest run, the smallest value on ties (sorted ascending)
    best = a.buf[0]
    best_run = 1
    run = 1
    for i in range(1, a.nbuf):
        if a.buf[i] == a.buf[i - 1]:
            run += 1
        else:
            run = 1
        if run > best_run:
            best_run = run
            best = a.buf[i]
    return best


cdef inline bint keeps(int agg) noexcept nogil:
    return agg == A_MODE or agg == A_COUNTD


cdef void eval_level(RelDB db, Eval* E, int d) noexcept nogil:
    """Fill E.inner for the trie nodes of level d: each node's aggregate over the tuples of
    atom d matching the current bindings (of its child's values, or of the last values)."""
    cdef const int32_t* rec = E.atoms + d * AS
    cdef int r = rec[0], ar = rec[1], j, kind, s
    cdef int s0 = E.lvl_start[d], s1 = E.lvl_start[d + 1]
    cdef int best_pos = -1
    cdef int32_t key
    cdef int64_t lo, hi, best_lo = 0, best_hi = 0, t, base, io
    cdef int32_t tup
    cdef const int32_t* row
    cdef bint ok, last = d == E.m - 1
    cdef double v
    cdef int64_t nmatch = 0
    for s in range(s0, s1):
        acc_reset(&E.acc[s])
    # the bound/constant position with the fewest candidate tuples
    for j in range(ar):
        kind = rec[3 + 2 * j]
        if kind == K_FRESH:
            continue
        key = E.vals[rec[4 + 2 * j]] if kind == K_BOUND else rec[4 + 2 * j]
        io = db.idx_off[r * MAXA + j]
        if key < 0 or key >= db.dom_size[r * MAXA + j]:
            best_pos = -2
            break
        lo = db.offsets[io + key]
        hi = db.offsets[io + key + 1]
        if best_pos < 0 or hi - lo < best_hi - best_lo:
            best_pos = j
            best_lo = lo
            best_hi = hi
    if best_pos >= 0:
        base = db.rel_off[r]
        for t in range(best_lo, best_hi):
            tup = db.items[t]
            row = &db.tuples[base + <int64_t>tup * ar]
            ok = True
            for j in range(ar):
                kind = rec[3 + 2 * j]
                if j == best_pos or kind == K_FRESH:
                    continue
                key = E.vals[rec[4 + 2 * j]] if kind == K_BOUND else rec[4 + 2 * j]
                if row[j] != key:
                    ok = False
                    break
            if not ok:
                continue
            nmatch += 1
            for j in range(ar):
                if rec[3 + 2 * j] == K_FRESH:
                    E.vals[rec[4 + 2 * j]] = row[j]
            if last:
                if E.last_kind == L_COUNT0:
                    continue
                if E.last_kind == L_NUMERIC:
                    v = db.numbers[E.last_num + row[E.last_pos]]
                elif E.last_kind == L_CODE:
                    v = <double>row[E.last_pos]
                else:
                    v = 0.0
                for s in range(s0, s1):
                    acc_push(&E.acc[s], v, keeps(E.node_agg[s]), &E.oom)
            else:
                eval_level(db, E, d + 1)
                for s in range(s0, s1):
                    v = E.inner[E.node_child[s]]
                    if isnan(v) or isinf(v):
                        continue
                    acc_push(&E.acc[s], v, keeps(E.node_agg[s]), &E.oom)
    if last and E.last_kind == L_COUNT0:
        for s in range(s0, s1):
            acc_push(&E.acc[s], <double>nmatch, keeps(E.node_agg[s]), &E.oom)
    for s in range(s0, s1):
        E.inner[s] = acc_final(&E.acc[s], E.node_agg[s])


cdef void _chain_free(Eval* E, int* col_node, int* prev) noexcept nogil:
    """Free ``eval_chain``'s working memory (the accumulators' buffers are freed first)."""
    free(col_node)
    free(prev)
    free(E.node_agg)
    free(E.node_child)
    free(E.acc)
    free(E.inner)


cdef int eval_chain(RelDB db, Batch b, int c, const int32_t* cols, int K,
                    const int32_t* keys, int nkeys, const intp_t* rows, intp_t n,
                    double* out) noexcept nogil:
    """Values of columns ``cols[0:K]`` of chain ``c`` for examples ``rows`` (keys[row*nkeys..]);
    out is (n, K) row-major. Returns -1 when memory runs out."""
    cdef Eval E
    cdef intp_t i
    cdef int k, d, a, s, child, nn, found
    cdef int* col_node = <int*>malloc((K + 1) * sizeof(int))
    cdef int* prev = <int*>malloc((K + 1) * sizeof(int))
    E.m = b.atom_start[c + 1] - b.atom_start[c]
    E.atoms = &b.atoms[b.atom_start[c] * AS]
    E.last_kind = b.last_kind[c]
    E.last_pos = b.last_pos[c]
    E.last_num = b.last_num[c]
    E.oom = 0
    E.node_agg = <int*>malloc((E.m * K + 1) * sizeof(int))
    E.node_child = <int*>malloc((E.m * K + 1) * sizeof(int))
    E.acc = <Acc*>malloc((E.m * K + 1) * sizeof(Acc))
    E.inner = <double*>malloc((E.m * K + 1) * sizeof(double))
    if (col_node == NULL or prev == NULL or E.node_agg == NULL or E.node_child == NULL
            or E.acc == NULL or E.inner == NULL):
        _chain_free(&E, col_node, prev)
        return -1
    # the suffix trie, built from the innermost level out (a node of level d is the pair
    # (aggs[d], its level-d+1 node)); then renumbered so level d is [lvl_start[d], [d+1])
    nn = 0
    for k in range(K):
        prev[k] = -1
    cdef int tmp_start[MAXLEN + 1]
    for d in range(E.m - 1, -1, -1):
        tmp_start[d] = nn
        for k in range(K):
            a = b.aggs[cols[k] * MAXLEN + d]
            child = prev[k]
            found = -1
            for s in range(tmp_start[d], nn):
                if E.node_agg[s] == a and E.node_child[s] == child:
                    found = s
                    break
            if found < 0:
                found = nn
                E.node_agg[nn] = a
                E.node_child[nn] = child
                nn += 1
            prev[k] = found
    for k in range(K):
        col_node[k] = prev[k]
    for a in range(nn):
        E.acc[a].buf = NULL
        E.acc[a].cap = 0
        E.acc[a].nbuf = 0
    cdef int lvl_end[MAXLEN]
    for d in range(E.m):
        lvl_end[d] = nn if d == 0 else tmp_start[d - 1]
    cdef int* remap = <int*>malloc((nn + 1) * sizeof(int))
    cdef int* tagg = <int*>malloc((nn + 1) * sizeof(int))
    cdef int* tchild = <int*>malloc((nn + 1) * sizeof(int))
    cdef int pos = 0
    if remap == NULL or tagg == NULL or tchild == NULL:
        E.oom = 1
    else:
        for d in range(E.m):
            E.lvl_start[d] = pos
            for s in range(tmp_start[d], lvl_end[d]):
                remap[s] = pos
                pos += 1
        E.lvl_start[E.m] = pos
        for s in range(nn):
            tagg[remap[s]] = E.node_agg[s]
            tchild[remap[s]] = remap[E.node_child[s]] if E.node_child[s] >= 0 else -1
        for s in range(nn):
            E.node_agg[s] = tagg[s]
            E.node_child[s] = tchild[s]
        for k in range(K):
            col_node[k] = remap[col_node[k]]
        for i in range(n):
            for d in range(nkeys):
                E.vals[d] = keys[rows[i] * nkeys + d]
            eval_level(db, &E, 0)
            for k in range(K):
                out[i * K + k] = E.inner[col_node[k]]
    for a in range(nn):
        free(E.acc[a].buf)
    free(remap)
    free(tagg)
    free(tchild)
    _chain_free(&E, col_node, prev)
    return -1 if E.oom else 0


def evaluate(RelDB db, Batch b, int chain, cols, const int32_t[:, ::1] keys, rows=None):
    """Values (n, len(cols)) of the given columns of ``chain`` for the examples ``keys`` (or
    its ``rows``); the reference-free entry point for tests and prediction."""
    cdef cnp.ndarray[cnp.int32_t, ndim=1] c = np.ascontiguousarray(cols, dtype=np.int32)
    ra = (np.arange(keys.shape[0], dtype=np.intp) if rows is None
          else np.ascontiguousarray(rows, dtype=np.intp))
    cdef const intp_t[::1] r = ra
    cdef intp_t n = r.shape[0]
    cdef int K = c.shape[0]
    out = np.empty((n, K), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef int rc
    if n == 0 or K == 0:
        return out
    with nogil:
        rc = eval_chain(db, b, chain, &c[0], K, &keys[0, 0], keys.shape[1], &r[0], n, &o[0, 0])
    if rc != 0:
        raise MemoryError("relational feature evaluation ran out of memory")
    return out


# -- split search ----------------------------------------------------------------------------

cdef struct Best:
    double score          # weighted impurity of the children (lower is better)
    int col               # batch column
    int kind              # 0 numeric threshold, 1 nominal subset
    double threshold      # numeric: YES iff value > threshold
    int subset_off        # nominal: where the subset mask starts in the mask buffer


cdef inline double impurity(const double* st, int nc, int regression) noexcept nogil:
    """Weight × impurity of a node with statistics st: classes' weights (Gini), or
    (w, Σwy, Σwy²) for regression (variance)."""
    cdef double w = 0.0, q = 0.0, v
    cdef int c
    if regression:
        if st[0] <= 0.0:
            return 0.0
        v = st[2] - st[1] * st[1] / st[0]
        return v if v > 0.0 else 0.0
    for c in range(nc):
        w += st[c]
        q += st[c] * st[c]
    return w - q / w if w > 0.0 else 0.0


cdef inline double weight_of(const double* st, int nc, int regression) noexcept nogil:
    cdef double w = 0.0
    cdef int c
    if regression:
        return st[0]
    for c in range(nc):
        w += st[c]
    return w


cdef inline void add_stat(double* st, int regression, double w, intp_t cls, double y) noexcept nogil:
    if regression:
        st[0] += w
        st[1] += w * y
        st[2] += w * y * y
    else:
        st[cls] += w


cdef struct Node:
    intp_t n
    const double* w
    const intp_t* cls
    const double* y
    int nc                 # classes, or 3 for regression
    int regression
    double min_leaf
    double* total          # node statistics
    int exist_only


cdef double split_numeric(Node* N, double* x, int32_t* idx, double* left, double* right,
                          double* thr) noexcept nogil:
    """Best threshold of column x (sorted in place with idx); returns the children's weighted
    impurity (INFINITY when no valid split) and the threshold in thr."""
    cdef intp_t i, j
    cdef int c, nc = N.nc
    cdef double best = INFINITY, s, wl, wr, a, b
    for i in range(N.n):
        idx[i] = <int32_t>i
        if N.exist_only:
            x[i] = 1.0 if x[i] > 0.0 else 0.0
    sort_by_value(x, idx, N.n)
    for c in range(nc):
        left[c] = 0.0
        right[c] = N.total[c]
    for i in range(N.n - 1):
        j = idx[i]
        add_stat(left, N.regression, N.w[j], N.cls[j] if not N.regression else 0,
                 N.y[j] if N.regression else 0.0)
        if N.regression:
            right[0] = N.total[0] - left[0]
            right[1] = N.total[1] - left[1]
            right[2] = N.total[2] - left[2]
        else:
            right[N.cls[j]] -= N.w[j]
        if x[i + 1] <= x[i]:
            continue
        wl = weight_of(left, nc, N.regression)
        wr = weight_of(right, nc, N.regression)
        if wl < N.min_leaf - 1e-10 or wr < N.min_leaf - 1e-10:
            continue
        s = impurity(left, nc, N.regression) + impurity(right, nc, N.regression)
        if s < best - 1e-12:
            best = s
            a = x[i]
            b = x[i + 1]
            if isinf(a) and isinf(b):
                thr[0] = 0.0
            elif isinf(a):
                thr[0] = b - 1.0
            elif isinf(b):
                thr[0] = a + 1.0
            else:
                thr[0] = a + (b - a) / 2.0
                if thr[0] >= b:      # adjacent doubles
                    thr[0] = a
    return best


cdef double subset_score(Node* N, const double* catst, const int* cats, int m,
                         const uint8_t* inS, double* yes, double* no) noexcept nogil:
    cdef int c, q, nc = N.nc
    for c in range(nc):
        yes[c] = 0.0
        no[c] = 0.0
    for q in range(m):
        if inS[q]:
            for c in range(nc):
                yes[c] += catst[cats[q] * nc + c]
        else:
            for c in range(nc):
                no[c] += catst[cats[q] * nc + c]
    if weight_of(yes, nc, N.regression) < N.min_leaf - 1e-10 or \
            weight_of(no, nc, N.regression) < N.min_leaf - 1e-10:
        return INFINITY
    return impurity(yes, nc, N.regression) + impurity(no, nc, N.regression)


cdef double split_nominal(Node* N, const double* x, int ncat, double* catst, int* cats,
                          uint8_t* inS, uint8_t* bestS, double* yes, double* no) noexcept nogil:
    """Best subset S of the categories present (EMPTY = code ncat is a category): all
    bipartitions when at most 5 are present, else greedy growth of S (CLUS style). Returns the
    children's weighted impurity; bestS[q] marks the categories cats[q] in S."""
    cdef intp_t i
    cdef int c, q, m = 0, nc = N.nc, code, mask, improved, bq
    cdef double best = INFINITY, s, cur
    memset(catst, 0, (ncat + 1) * nc * sizeof(double))
    for i in range(N.n):
        code = ncat if isnan(x[i]) else <int>x[i]
        add_stat(&catst[code * nc], N.regression, N.w[i], N.cls[i] if not N.regression else 0,
                 N.y[i] if N.regression else 0.0)
    for code in range(ncat + 1):
        if weight_of(&catst[code * nc], nc, N.regression) > 0.0:
            cats[m] = code
            m += 1
    if m < 2:
        return INFINITY
    if m <= 5:
        # the last category stays in NO: 2^(m-1) - 1 proper subsets
        for mask in range(1, 1 << (m - 1)):
            for q in range(m):
                inS[q] = (mask >> q) & 1
            s = subset_score(N, catst, cats, m, inS, yes, no)
            if s < best - 1e-12:
                best = s
                for q in range(m):
                    bestS[q] = inS[q]
        return best
    for q in range(m):
        inS[q] = 0
    cur = INFINITY
    while True:
        improved = 0
        bq = -1
        for q in range(m):
            if inS[q]:
                continue
            inS[q] = 1
            s = subset_score(N, catst, cats, m, inS, yes, no)
            inS[q] = 0
            if s < cur - 1e-12 and (bq < 0 or s < best - 1e-12):
                best = s
                bq = q
        if bq < 0:
            break
        inS[bq] = 1
        cur = best
        improved = 1
        if not improved:
            break
    if cur == INFINITY:
        return INFINITY
    for q in range(m):
        bestS[q] = inS[q]
    return cur


def best_split(RelDB db, Batch b, const uint8_t[::1] selected, const int32_t[:, ::1] keys,
               const intp_t[::1] rows, const double[::1] w, const intp_t[::1] cls,
               const double[::1] y, int n_classes, int regression, double min_leaf,
               int exist_only):
    """The best test over the selected columns of the batch for the node's examples ``rows``
    (weights w, classes cls or regression targets y, aligned with rows).

    Returns None, or (column, children impurity, kind, threshold, categories in S, yes mask).
    Ties keep the first column in batch order. The GIL is released throughout.
    """
    cdef intp_t n = rows.shape[0], i
    cdef int nc = 3 if regression else n_classes
    cdef int c, k, K, col, maxK = 0, maxcat = 1, q, rc = 0, ncat
    cdef Node N
    cdef double s, thr = 0.0
    cdef Best B
    if n == 0:
        return None
    for c in range(b.n_chains):
        K = b.col_start[c + 1] - b.col_start[c]
        if K > maxK:
            maxK = K
    for col in range(b.n_cols):
        if b.col_kind[col] == 1 and b.col_ncat[col] + 1 > maxcat:
            maxcat = b.col_ncat[col] + 1
    total = np.zeros(nc, dtype=np.float64)
    cdef double[::1] tot = total
    for i in range(n):
        add_stat(&tot[0], regression, w[i], cls[i] if not regression else 0,
                 y[i] if regression else 0.0)
    N.n = n
    N.w = &w[0]
    N.cls = &cls[0]
    N.y = &y[0]
    N.nc = nc
    N.regression = regression
    N.min_leaf = min_leaf
    N.total = &tot[0]
    N.exist_only = exist_only
    cdef double* vals = <double*>malloc(n * maxK * sizeof(double) + 8)
    cdef double* x = <double*>malloc(n * sizeof(double) + 8)
    cdef int32_t* idx = <int32_t*>malloc(n * sizeof(int32_t) + 8)
    cdef int32_t* cols = <int32_t*>malloc(maxK * sizeof(int32_t) + 8)
    cdef double* left = <double*>malloc(nc * sizeof(double))
    cdef double* right = <double*>malloc(nc * sizeof(double))
    cdef double* catst = <double*>malloc(maxcat * nc * sizeof(double))
    cdef int* cats = <int*>malloc(maxcat * sizeof(int))
    cdef uint8_t* inS = <uint8_t*>malloc(maxcat + 1)
    cdef uint8_t* bestS = <uint8_t*>malloc(maxcat + 1)
    cdef uint8_t* winS = <uint8_t*>malloc(maxcat + 1)
    cdef int* wincats = <int*>malloc(maxcat * sizeof(int))
    cdef int winm = 0
    if (vals == NULL or x == NULL or idx == NULL or cols == NULL or left == NULL or
            right == NULL or catst == NULL or cats == NULL or inS == NULL or bestS == NULL
            or winS == NULL or wincats == NULL):
        rc = -1
    B.score = INFINITY
    B.col = -1
    with nogil:
        for c in range(b.n_chains):
            if rc != 0:
                break
            K = 0
            for col in range(b.col_start[c], b.col_start[c + 1]):
                if selected[col]:
                    cols[K] = col
                    K += 1
            if K == 0:
                continue
            if eval_chain(db, b, c, cols, K, &keys[0, 0], keys.shape[1], &rows[0], n,
                          vals) != 0:
                rc = -1
                break
            for k in range(K):
                col = cols[k]
                for i in range(n):
                    x[i] = vals[i * K + k]
                if b.col_kind[col] == 0 or exist_only:
                    s = split_numeric(&N, x, idx, left, right, &thr)
                    if s < B.score - 1e-12:
                        B.score = s
                        B.col = col
                        B.kind = 0
                        B.threshold = thr
                else:
                    ncat = b.col_ncat[col]
                    s = split_nominal(&N, x, ncat, catst, cats, inS, bestS, left, right)
                    if s < B.score - 1e-12:
                        B.score = s
                        B.col = col
                        B.kind = 1
                        winm = 0
                        for q in range(maxcat):
                            if q <= ncat and weight_of(&catst[q * nc], nc, regression) > 0.0:
                                wincats[winm] = q
                                winm += 1
                        for q in range(winm):
                            winS[q] = bestS[q]
    free(vals)
    free(x)
    free(idx)
    free(cols)
    free(left)
    free(right)
    free(catst)
    free(cats)
    free(inS)
    free(bestS)
    if rc != 0:
        free(winS)
        free(wincats)
        raise MemoryError("relational split search ran out of memory")
    if B.col < 0:
        free(winS)
        free(wincats)
        return None
    subset = [wincats[q] for q in range(winm) if winS[q]] if B.kind == 1 else None
    free(winS)
    free(wincats)
    return B.col, B.score, B.kind, B.threshold, subset
