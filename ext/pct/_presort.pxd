# Per-tree presorted row lists: each numeric feature's bag rows in ascending value order,
# partitioned stably with the node buffer so that every node finds its rows already sorted.
from libc.stdint cimport uint32_t
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
    # features with ties: the high bit of a list entry marks a run start (the entry's value
    # differs from the previous entry's in its segment; the first entry of a segment: either
    # way), kept through each partition, so that a sweep finds the runs of equal values
    # without reading X or a second list (``RUN_START``; mask the row with ``ROW_MASK``)
    const uint8_t* tied      # (nf,) 1: list k carries run starts; 2: ties, no marks

cdef extern from *:
    """
    #define FRCLI_RUN_START 0x80000000u
    #define FRCLI_ROW_MASK 0x7FFFFFFFu
    """
    const uint32_t RUN_START "FRCLI_RUN_START"
    const uint32_t ROW_MASK "FRCLI_ROW_MASK"

cdef int presort_init(Presort* ps, const int32_t* order, const int32_t* slot, intp_t nf,
                      const uint8_t* tied, intp_t n, const int32_t* idx0, const double* wt0,
                      intp_t m0, intp_t min_rows) noexcept nogil
cdef void presort_free(Presort* ps) noexcept nogil
cdef void presort_partition(Presort* ps, intp_t s, intp_t e) noexcept nogil
