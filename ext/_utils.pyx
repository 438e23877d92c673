# cython: language_level=3
"""RNG seeding, an introsort of (value, index) pairs and a growable-buffer helper.

Everything here runs without the GIL so tree growing never touches Python objects.
"""
from libc.stdlib cimport realloc
from libc.math cimport log2


cdef uint64_t seed_state(uint64_t seed) noexcept nogil:
    """splitmix64 of the seed: a non-zero, well-mixed xorshift state even for seeds 0, 1, 2."""
    cdef uint64_t z = seed + <uint64_t>0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    z = z ^ (z >> 31)
    if z == 0:
        z = <uint64_t>0x2545F4914F6CDD1DULL
    return z


cdef int grow(void** ptr, intp_t* cap, intp_t need, size_t itemsize) noexcept nogil:
    """Make room for ``need`` items (doubling); returns -1 if memory runs out."""
    cdef intp_t new_cap
    cdef void* p
    if need <= cap[0]:
        return 0
    new_cap = cap[0] * 2 if cap[0] > 0 else 16
    while new_cap < need:
        new_cap *= 2
    p = realloc(ptr[0], <size_t>new_cap * itemsize)
    if p == NULL:
        return -1
    ptr[0] = p
    cap[0] = new_cap
    return 0


cdef inline void _swap(double* v, int32_t* idx, intp_t i, intp_t j) noexcept nogil:
    cdef double tv = v[i]
    cdef int32_t ti = idx[i]
    v[i] = v[j]
    v[j] = tv
    idx[i] = idx[j]
    idx[j] = ti


cdef inline double _median3(double* v, intp_t n) noexcept nogil:
    cdef double a = v[0], b = v[n // 2], c = v[n - 1]
    if a < b:
        if b < c:
            return b
        elif a < c:
            return c
        return a
    if a < c:
        return a
    elif b < c:
        return c
    return b


cdef void _sift_down(double* v, int32_t* idx, intp_t start, intp_t end) noexcept nogil:
    cdef intp_t child, maxind, root = start
    while True:
        child = root * 2 + 1
        maxind = root
        if child < end and v[maxind] < v[child]:
            maxind = child
        if child + 1 < end and v[maxind] < v[child + 1]:
            maxind = child + 1
        if maxind == root:
            break
        _swap(v, idx, root, maxind)
        root = maxind


cdef void _heapsort(double* v, int32_t* idx, intp_t n) noexcept nogil:
    cdef intp_t start = (n - 2) // 2, end = n
    while True:
        _sift_down(v, idx, start, end)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        _swap(v, idx, 0, end)
        _sift_down(v, idx, 0, end)
        end -= 1


cdef void _introsort(double* v, int32_t* idx, intp_t n, int maxd) noexcept nogil:
    # Three-way partition: runs of equal values (binary/sparse features) cost O(n).
    cdef double pivot
    cdef intp_t i, l, r
    while n > 1:
        if maxd <= 0:
            _heapsort(v, idx, n)
            return
        maxd -= 1
        pivot = _median3(v, n)
        i = l = 0
        r = n
        while i < r:
            if v[i] < pivot:
                _swap(v, idx, i, l)
                i += 1
                l += 1
            elif v[i] > pivot:
                r -= 1
                _swap(v, idx, i, r)
            else:
                i += 1
        _introsort(v, idx, l, maxd)
        v += r
        idx += r
        n -= r


cdef void sort_by_value(double* v, int32_t* idx, intp_t n) noexcept nogil:
    """Sort ``v`` ascending, applying the same permutation to ``idx`` (no NaNs allowed)."""
    if n <= 1:
        return
    _introsort(v, idx, n, 2 * <int>log2(<double>n))


def _test_sort(double[::1] v, int32_t[::1] idx):
    """Testing hook: sort in place."""
    sort_by_value(&v[0], &idx[0], v.shape[0])


def _test_rng(uint64_t seed, intp_t n, intp_t k):
    """Testing hook: k draws of rand_int(n) and of rand_uniform."""
    cdef uint64_t s = seed_state(seed)
    ints = [rand_int(&s, n) for _ in range(k)]
    floats = [rand_uniform(&s) for _ in range(k)]
    return ints, floats
