# Per-tree presorted row lists: each numeric feature's bag rows in ascending value order,
# partitioned stably with the node buffer so that every node finds its rows already sorted.
from frcli._ext._utils cimport intp_t, int32_t, uint8_t

cdef struct Presort:
    intp_t n                 # rows of the data
    intp_t m0                # rows in the bag (the length of each list)
    intp_t nf                # presorted features
    const int32_t* slot      # (F,) list of feature f, or -1 (not presorted)
    int32_t* lists           # (nf, m0) rows; node [s, e) of the buffer = [s, e) of each list
    int32_t* tmp             # (m0,) scratch for the stable partition
    uint8_t* right           # (n,) 1 = the row goes right at the split being partitioned
    double* wrow             # (n,) the row's weight in this tree (its bootstrap count)
    intp_t min_rows          # partition only nodes with at least this many rows
    const uint8_t* tiefree   # (nf,) 1 = no two values of the feature are equal, or NULL

cdef int presort_init(Presort* ps, const int32_t* order, const int32_t* slot, intp_t nf,
                      intp_t n, const int32_t* idx0, const double* wt0, intp_t m0,
                      intp_t min_rows) noexcept nogil
cdef void presort_free(Presort* ps) noexcept nogil
cdef void presort_partition(Presort* ps, intp_t s, intp_t e) noexcept nogil


cdef inline intp_t presort_gather(const Presort* ps, intp_t f, intp_t s, intp_t e,
                                  const double* col, double* Xf, int32_t* rows,
                                  double* w) noexcept nogil:
    """The node's values of feature f in ascending order (rows and weights alongside), or -1
    when f is not presorted or two values are equal (a tie: the caller sorts the node itself,
    since the order inside a run of equal values decides the rounding of the sums)."""
    cdef intp_t sl = ps.slot[f], j, m = e - s
    cdef const int32_t* L
    cdef int32_t r
    cdef double x, prev
    if sl < 0 or m <= 0:
        return -1
    L = ps.lists + sl * ps.m0 + s
    r = L[0]
    prev = col[r]
    Xf[0] = prev
    rows[0] = r
    w[0] = ps.wrow[r]
    for j in range(1, m):
        r = L[j]
        x = col[r]
        if not x > prev:
            return -1
        Xf[j] = x
        rows[j] = r
        w[j] = ps.wrow[r]
        prev = x
    return m
