# Shared low-level helpers for the PCT kernels: typedefs, a per-tree RNG and sorting.
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
