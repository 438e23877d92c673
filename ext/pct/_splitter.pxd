# Split search for one node: best tests (numeric sweep, greedy nominal subsets) or extra-trees
# random tests, over a per-node random feature subset.
from frcli._ext._utils cimport intp_t, int32_t, int64_t, uint8_t, uint64_t
from frcli._ext.pct._criterion cimport ClusterData, Stats
from frcli._ext.pct._presort cimport Presort
from libc.stdint cimport uint16_t
from frcli._ext.pct._count01 cimport Count01

cdef struct SplitRecord:
    intp_t feature           # -1: no valid test
    double threshold         # numeric: x <= threshold goes left
    double h                 # heuristic of the test (over the rows whose value is known)
    double WL                # known weight going left / right (missing rows follow these shares)
    double WR
    double pos_freq          # CLUS's "yes" share of the known weight (x > v; for a nominal
                             # test, the listed values): missing rows go down with it
    double h_lo              # h lies in [h_lo, h_hi] (equal when h is exact; extra trees on
    double h_hi              # complete data keep a screened h: ``split_exact_h`` resolves it)
    double c_lo              # the best h of the feature being evaluated lies in [c_lo, c_hi]
    double c_hi              # (-inf: none yet; node_split resets them; c_lo: screened only)
    intp_t cut               # a test found on the presorted lists (the node's segment valid):
                             # its first cut..end-start entries of f's list go right; else -1

cdef struct Splitter

# the search of one candidate feature of a node (``node_split`` calls it for each)
ctypedef void (*feature_search)(Splitter* sp, const int32_t* idx, const double* wt,
                                intp_t start, intp_t end, intp_t f,
                                SplitRecord* best) noexcept nogil

cdef struct Splitter:
    const double* Xt         # (F, n) feature-major copy of X, NaN = missing
    intp_t n
    intp_t F
    const int32_t* ncat      # categories per feature, 0 = numeric
    intp_t max_ncat
    const ClusterData* cd
    intp_t max_features
    double min_leaf
    bint extra
    feature_search numeric_search   # the variants for this tree (extra trees or best tests,
    feature_search nominal_search   # integer sums or not): chosen at its first node
    uint64_t rng
    int32_t* features
    double* Xf
    int32_t* pos
    int32_t* mpos
    intp_t cap
    intp_t cap_pos
    intp_t cap_mpos
    Stats tot                # the node's full statistics (set by the builder)
    Stats tc                 # corrected total: tot minus rows with the feature missing
    Stats miss
    Stats mov
    Stats cur
    Stats trial
    Stats* cat
    uint8_t* cur_cats
    uint8_t* best_cats       # the winning nominal subset (valid when best is nominal)
    uint8_t* try_cats
    const double* est        # the node's variance estimates (MODE_MISSING)
    bint random_ties         # features in random order (ties to a random one), not by index
    # ties=share: the features whose test ties with the chosen one (``_find_ties``)
    bint share_ties          # look for them after each split search
    bint realise_ties        # and draw the realisation (the RF score, kept models)
    double* cand_lo          # (max_features,) each candidate's best h lies in [lo, hi]
    double* cand_hi
    uint8_t* side            # (node rows) the chosen test's side of each row (test_side)
    intp_t cap_side
    intp_t n_tie             # the tied features of the last node_split (not the chosen one)
    int32_t* tie_feat        # (max_features,)
    double* tie_thr          # (max_features,) a tied numeric feature's threshold and side
    uint8_t* tie_swap
    uint8_t* tie_part        # the tied feature splits the rows as the chosen test does
    uint8_t* tie_seen        # (max_ncat,) scratch: the sides a nominal value was seen on
    uint64_t rng_ties        # the realisation's draws (its own stream: the trees keep theirs)
    intp_t alt_feature       # the realisation: -1 = the chosen test, else the tied feature
    double alt_threshold     # whose test routes the rows (numeric: x <= thr goes to the
    bint alt_swap            # chosen test's left child, or with alt_swap to its right one;
    uint8_t* alt_cats        # nominal: the values in alt_cats go left)
    bint genie3_missing_both  # h* with missing-value rows in both children (CLUS; the builder)
    Presort* ps              # the tree's presorted lists (NULL: every node sorts)
    bint ps_node             # the current node's segments of ps are valid (set by the builder)
    int32_t* srow            # the sweep's rows and weights in ascending value order
    double* sw
    # complete mode, best tests: a cut is first bounded from two divisions (``screen_init``)
    bint screen_cuts
    double tt_sum            # sum_c a_c TT[c] of the sweep's total
    double* TT               # (K,) s1^2 / W of the sweep's total (missing mode: W Var per
                             # column; then K scratch, then the node total's W Var, 3K in all)
    intp_t cap_srow
    intp_t cap_sw
    # nominal features in the sparse 0/1 mode: rows off each feature's most common value
    const int64_t* nd_ptr    # (F + 1,) CSR over features, or NULL (no shortcut)
    const int32_t* nd_rows
    const int32_t* nd_default  # (F,) the most common value, -1 = no shortcut for f
    const int32_t* counts    # (n,) the tree's bag counts (the weights of untouched rows)
    int32_t* stamp           # (n,) the node a row was last seen in
    intp_t node_id           # set by the builder
    bint exact_w             # the node's weights are the bag counts (no missing-value copy)
    bint stamped             # stamp holds the current node's rows
    # the node's category statistics of all its candidate sparse nominal features at once
    # (``_batch_categories``): the same rows off the common value, listed by row
    const int32_t* nd_val    # value of each nd_rows entry
    const int64_t* nr_ptr    # (n + 1,) CSR over rows of (feature, value) off the default
    const int32_t* nr_feat
    const int32_t* nr_val
    double nr_mean           # entries per row
    int32_t* bslot           # (F,) candidate slot of a batched feature in this node, or -1
    Stats* bcat              # (max_features * max_ncat) statistics, per slot and value
    double* bcat_s1          # their s1 columns (K each)
    double* bzero            # (K,) zeros: s2 and nk of every bcat entry (sparse mode)
    intp_t* bpresent         # (max_features,) values present per slot
    Stats* cat_own           # sp.cat as allocated (sp.cat points into bcat for a batched f)
    int32_t* acols           # (K,) the node's columns with a positive sum, ascending: only
    intp_t n_act             # these can be non-zero in a subset (bcat's others are stale)
    double* TTa              # (K,) s1^2 / W of the node at those columns
    # extra trees, complete mode: candidates are screened from their smaller side
    double* abound           # (K,) bound on the node's sum_i w_i |y_ic| (NULL: no screening)
    # missing mode with integer clustering values (one-hot nominal columns, class labels):
    # every sum of a node is an exact integer, so a nominal feature's most common value
    # takes the node's total minus the other values' statistics (``_category_stats_int``)
    bint int_sums
    # numeric features with at most 256 values in the data (counts, codes, rounded values,
    # capped times): with complete clustering data, a node sums each value's rows in one
    # pass and sweeps the values (``_sweep_values``)
    const int32_t* cslot     # (F,) column of ccodes of feature f; -1: none; -2: constant
    const uint8_t* ccodes    # (n, nc) each row's value index, row by row
    intp_t cnc               # nc: the coded features
    int32_t* cnode           # (F,) the feature's codes in ncodes for the current node, or -1
    int32_t* ccand           # (max_features,) the node's coded candidates' rows of ccodes
    uint8_t* ncodes          # (coded candidates, node rows) their codes of the node's rows
    intp_t cap_ncodes
    uint8_t* cguess          # (nc,) the common value of each coded feature in the last
                             # node that swept it (``_count_codes``' guess)
    intp_t best_crow         # after node_split: the row of ncodes holding the chosen
                             # feature's codes (-1: none), valid until the next node
    const double* cvals      # (nc, 256) the values, ascending
    double* cbin             # (256 (K + 1)): per value W, then s1 (K each)
    intp_t* cseg             # (5 * 256) rows per value, each value's segment end in the sweep
                             # order, three more counts (``_sweep_values``); zero between uses
    # missing mode: the sweeps' cuts are screened (``_screened_out``) before their exact h
    double* sac              # (K,) a_c of the columns with no unknown value in the data, else 0
    int32_t* sicol           # (K,) the other columns (unknown values somewhere), nic of them
    intp_t nic
    bint iblock              # those columns are contiguous
    double scrE              # the sweep's bound on the sum of its terms' magnitudes
    double scrE_node         # the same for the node's total (set by node_split)
    bint scr_on              # the current sweep screens its cuts
    bint iint                # the other columns hold integers whose sums are exact (n y^2
                             # below 2^52): with integer weights, T - R is the left side's sums
    double* cwacc            # (4 max_ncat) scratch of ``_category_weights``
    int node_int_w           # the node's weights are all integers: 1, 0, -1 = not known yet
    # the builder grows only the nodes these rows reach (n_reach, F) row-major, scaled as
    # the tree's X; NULL = every node. Only for trees that draw nothing while they grow
    # (``_forest``): a node left unsplit then changes no other node
    const double* reach_X
    intp_t n_reach
    # int_sums data whose clustering values are all 0, 1 or unknown: a nominal subset's
    # sums counted in integers (``_count01``); c01.B == NULL: not so
    Count01 c01
    # with c01: the node's two-valued nominal candidates counted in one pass over its rows
    # (``_cross_counts``; plan ``_count01.cross01_plan``); x01_fv == NULL: off
    const uint8_t* x01_fv    # (F,) the value whose rows are listed, 255: not such a feature
    const int64_t* x01_ptr   # (n + 1,) per row, the features listed with that value
    const int32_t* x01_feat
    int32_t* x01_slot        # (F,) slot of a counted candidate of the node, or -1
    int64_t* x01_cnt         # (max_features Kc) each slot's counts
    uint16_t* x01_acc        # (max_features Kc) their 16-bit lanes
    int64_t* x01_w           # (max_features) each slot's listed weight
    int64_t x01_tot          # the node's weight

cdef int splitter_init(Splitter* sp, const double* Xt, intp_t n, intp_t F, const int32_t* ncat,
                       const ClusterData* cd, intp_t max_features, double min_leaf, bint extra,
                       uint64_t seed) noexcept nogil
cdef void splitter_free(Splitter* sp) noexcept nogil
cdef int node_split(Splitter* sp, const int32_t* idx, const double* wt, intp_t start, intp_t end,
                    SplitRecord* best) noexcept nogil
cdef int batch_init(Splitter* sp, const int64_t* nd_ptr, const int32_t* nd_rows,
                    const int32_t* nd_default, const int32_t* nd_val, const int64_t* nr_ptr,
                    const int32_t* nr_feat, const int32_t* nr_val,
                    const int32_t* counts) noexcept nogil
cdef int count01_init(Splitter* sp, const Count01* plan) noexcept nogil
cdef int cross01_init(Splitter* sp, const uint8_t* fv, const int64_t* ptr,
                      const int32_t* feat) noexcept nogil
cdef int counts_init(Splitter* sp, const int32_t* cslot, const uint8_t* ccodes,
                     const double* cvals) noexcept nogil
cdef void draw_features(Splitter* sp) noexcept nogil
cdef int screen_init(Splitter* sp) noexcept nogil
cdef int split_exact_h(Splitter* sp, const int32_t* idx, const double* wt, intp_t start,
                       intp_t end, SplitRecord* best) noexcept nogil
cdef int test_side(const Splitter* sp, intp_t f, double thr, const uint8_t* cats,
                   double v) noexcept nogil
