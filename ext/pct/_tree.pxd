# Tree storage (parallel node arrays), the depth-first builder and prediction.
from frcli._ext._utils cimport intp_t, int32_t, int64_t, uint8_t
from frcli._ext.pct._splitter cimport Splitter
from libc.math cimport isnan

cdef struct TreeData:
    intp_t n_nodes
    intp_t cap
    intp_t K                 # prototype length (clustering columns)
    int32_t* feature         # -1 = leaf
    double* threshold
    int32_t* left
    int32_t* right
    double* weight           # |E(N)|, bootstrap multiplicities and missing-value fractions
    double* hstar            # heuristic of the chosen test (0 in leaves)
    int32_t* depth           # root = 0
    double* p_left           # share of the known weight that went left
    int64_t* offset          # nominal node: start of its subset in cats; leaf: prototype row
    uint8_t* cats
    intp_t n_cats
    intp_t cap_cats
    double* values           # (n_leaves, K) prototypes, or NULL when not kept
    intp_t n_leaves
    intp_t cap_values
    const int32_t* ncat      # categories per feature (for routing nominal values)
    # ties=share (``_splitter._find_ties``): node i's tied features, besides feature[i], are
    # tie_feat[tie_ptr[i]:tie_ptr[i + 1]] (tie_ptr NULL: not recorded)
    int64_t* tie_ptr
    int32_t* tie_feat
    intp_t n_tie
    intp_t cap_tie
    intp_t cap_tie_ptr
    # the realisation the RF score routes rows with: at node alt_node[j], the tied test
    # alt_feature[j] (numeric: x <= alt_threshold[j]; alt_swap[j]: towards right[node];
    # nominal: its values alt_cats[alt_offset[j]:] go left)
    int32_t* alt_node
    int32_t* alt_feature
    double* alt_threshold
    uint8_t* alt_swap
    int64_t* alt_offset
    intp_t n_alt
    intp_t cap_alt
    uint8_t* alt_cats
    intp_t n_alt_cats
    intp_t cap_alt_cats

cdef void tree_free(TreeData* t) noexcept nogil
cdef int build_tree(Splitter* sp, TreeData* t, const int32_t* idx0, const double* wt0,
                    intp_t n0, const double* est0, double* pt_acc, const int32_t* col_group,
                    bint keep_values) noexcept nogil
cdef intp_t tree_leaf(const TreeData* t, const double* x, intp_t stride, intp_t f_over,
                      double v_over) noexcept nogil
cdef intp_t tree_leaf_from(const TreeData* t, intp_t node, const double* x, intp_t stride,
                           intp_t f_over, double v_over) noexcept nogil
cdef intp_t tree_leaves(const TreeData* t, const double* x, intp_t stride, intp_t f_over,
                        double v_over, int32_t* nodes, double* ws, intp_t* stk_n,
                        double* stk_w) noexcept nogil
cdef const double* tree_mix(const TreeData* t, const int32_t* nodes, const double* ws,
                            intp_t cnt, double* out) noexcept nogil
cdef int tree_realised(const TreeData* t, TreeData* r) noexcept nogil
cdef void tree_realised_free(TreeData* r) noexcept nogil


cdef class Tree:
    # A grown tree as Python holds it: NumPy arrays (the layout of TreeData's node arrays, see
    # ``_tree.pyx``) and a TreeData view of them, made once, that prediction reads.
    cdef TreeData view
    cdef readonly object feature, threshold, left, right, weight, hstar, depth, p_left
    cdef readonly object offset, cats, values
    cdef readonly object tie_ptr, tie_feat
    cdef readonly object alt_node, alt_feature, alt_threshold, alt_swap, alt_offset, alt_cats
    cdef void _point(self)

cdef Tree tree_copy(TreeData* t)


cdef inline int tree_route(const TreeData* t, intp_t node, double v) noexcept nogil:
    """Where v goes at an internal node: 0 left, 1 right, 2 both (missing or unseen category).
    Shared by prediction and the OOB permutations (inline, so defined here)."""
    cdef intp_t k = t.ncat[t.feature[node]]
    if isnan(v):
        return 2
    if k == 0:
        return 0 if v <= t.threshold[node] else 1
    if v < 0 or v >= k:
        return 2
    return 0 if t.cats[t.offset[node] + <intp_t>v] else 1
