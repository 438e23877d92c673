# Shared low-level helpers of every kernel family (pct, relief, relational): typedefs, a
# per-tree RNG, sorting and progress counters.
from libc.stdint cimport uint64_t, int32_t, int64_t, uint8_t

ctypedef Py_ssize_t intp_t

cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    """xorshift64*: one independent, reproducible stream per tree (never libc rand)."""
    cdef uint64_t x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * <uint64_t>2685821657736338717ULL

cdef inline intp_t rand_int(uint64_t* state, intp_t n) noexcept nogil:
    """Uniform integer in [0, n)."""
    return <intp_t>((rng_next(state) >> 11) % <uint64_t>n)

cdef inline double rand_uniform(uint64_t* state) noexcept nogil:
    """Uniform double in [0, 1)."""
    return <double>(rng_next(state) >> 11) * (1.0 / 9007199254740992.0)

cdef uint64_t seed_state(uint64_t seed) noexcept nogil
cdef void sort_by_value(double* v, int32_t* idx, intp_t n) noexcept nogil
cdef int grow(void** ptr, intp_t* cap, intp_t need, size_t itemsize) noexcept nogil

# Progress counters (frcli.engines.progress): an int64 array with one slot per thread, read by
# a Python thread while a kernel runs; NULL slots when no progress was asked for.
cdef struct Progress:
    int64_t* slots
    intp_t n

cdef inline Progress progress_slots(object progress) except *:
    """The kernel's view of a ``progress`` argument (None or an int64 array)."""
    cdef Progress p
    cdef int64_t[::1] v
    p.slots = NULL
    p.n = 0
    if progress is not None and len(progress) > 0:
        v = progress
        p.slots = &v[0]        # the caller's array owns the memory for the whole call
        p.n = v.shape[0]
    return p

cdef inline void progress_add(Progress p, intp_t thread, int64_t k) noexcept nogil:
    """Add ``k`` finished units to this thread's slot (one writer per slot: no atomics)."""
    if p.slots != NULL:
        p.slots[thread % p.n] += k
