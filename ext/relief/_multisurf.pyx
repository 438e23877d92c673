# cython: language_level=3
"""MultiSURF and MultiSURF* kernels (Urbanowicz et al. 2018; the ReliefE paper's baselines,
docs/design/relief.md, "MultiSURF"), defined as scikit-rebate defines them, so that the two
agree.

For every instance i (all of them, no sampling): the distances to every other instance
(sum over features of |a-b|/range for continuous and 1[a != b] for discrete ones, in feature
order; on mixed data a discrete mismatch counts F / #discrete, as scikit-rebate's scaled hamming
fraction does), their mean and standard deviation (ddof 0); *near* neighbours are those closer than
mean - std/2 and, for MultiSURF*, *far* ones farther than mean + std/2. Per feature, with
diff = |a-b|/range (continuous; on mixed data 1 when |a-b| exceeds the feature's standard
deviation: scikit-rebate's ramp) or 1[a != b] (discrete):

    hits:   -sum diff / (#hits)
    misses: (C - 1) / (#misses)^2 * sum_c (#misses of class c) * sum_{misses of c} diff
            (C = number of classes; for two classes this is sum diff / #misses)

summed (a term is left out when its count is 0) and divided by n. Far neighbours contribute the
same with diff replaced by 1 - diff. Parallel over instances; each instance's contribution is
written to its own row of a chunk buffer and the rows are added in instance order (parallel over
features), so the result does not depend on the number of threads. Scratch per thread: O(n + C F).
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport parallel, prange, threadid
from libc.math cimport sqrt
from libc.stdlib cimport malloc, free

from frcli._ext._utils cimport Progress, progress_add, progress_slots
from frcli._ext.relief._distance cimport distance_profile, ramp_distance

cnp.import_array()


cdef void _one(const double* X, const double* Xc, Py_ssize_t n, Py_ssize_t F,
               const int* discrete, const double* rg, const double* sd, int ramp,
               double dw, const int* y, int C, int star, Py_ssize_t i, double* u, double* dist,
               int* near, int* far, double* S, double* cntc) noexcept nogil:
    """u[f] = instance i's contribution (already divided by n)."""
    cdef Py_ssize_t j, f, nn = 0, nf = 0, p
    cdef double mean = 0.0, var = 0.0, d, lo, hi
    cdef const double* xi = X + i * F
    cdef const double* xj
    cdef int c, yi = y[i], pass_
    distance_profile(Xc, F, n, discrete, rg, dw, i, dist)
    for j in range(n):
        if j != i:
            mean += dist[j]
    mean /= (n - 1)
    for j in range(n):
        if j != i:
            d = dist[j] - mean
            var += d * d
    var /= (n - 1)
    lo = mean - sqrt(var) / 2.0
    hi = mean + sqrt(var) / 2.0
    for j in range(n):
        if j == i:
            continue
        if dist[j] < lo:
            near[nn] = <int> j
            nn += 1
        elif star and dist[j] > hi:
            far[nf] = <int> j
            nf += 1
    for f in range(F):
        u[f] = 0.0
    for pass_ in range(2):
        if pass_ == 1 and (not star or nf == 0):
            break
        if pass_ == 0 and nn == 0:
            continue
        for c in range(C):
            cntc[c] = 0.0
            for f in range(F):
                S[c * F + f] = 0.0
        for p in range(nn if pass_ == 0 else nf):
            j = near[p] if pass_ == 0 else far[p]
            xj = X + j * F
            c = y[j]
            cntc[c] += 1.0
            for f in range(F):
                d = ramp_distance(discrete[f], ramp, xi[f], xj[f], rg[f], sd[f])
                if pass_ == 1:
                    d = 1.0 - d
                S[c * F + f] += d
        _combine(S, cntc, C, F, yi, n, u)


cdef void _combine(const double* S, const double* cntc, int C, Py_ssize_t F, int yi,
                   Py_ssize_t n, double* u) noexcept nogil:
    cdef double ch = cntc[yi], cm = 0.0, w
    cdef int c
    cdef Py_ssize_t f
    for c in range(C):
        if c != yi:
            cm += cntc[c]
    if ch == 0.0 and cm == 0.0:
        return
    for f in range(F):
        w = 0.0
        if cm > 0.0:
            for c in range(C):
                if c != yi and cntc[c] > 0.0:
                    w += S[c * F + f] * (cntc[c] / cm) * (C - 1)
            w = w / cm
        if ch > 0.0:
            w -= S[yi * F + f] / ch
        u[f] += w / n


def multisurf(const double[:, ::1] X, const double[:, ::1] Xc, const int[::1] discrete,
              const double[::1] rg, const double[::1] sd, int ramp, double dweight,
              const int[::1] y, int n_classes, int star, int jobs=1, Py_ssize_t chunk=256,
              progress=None):
    """Scores of MultiSURF (star=0) or MultiSURF* (star=1) on complete data.

    X (n, F) row-major and Xc = X.T (F, n) contiguous; discrete (F) 0/1; rg, sd (F) range and
    standard deviation of continuous features; ramp: scikit-rebate's ramp (mixed data);
    dweight: the distance of a discrete mismatch (scikit-rebate on mixed data: F / #discrete,
    from its hamming fraction times the number of features; else 1); y (n) class codes 0..C-1.
    progress: None, or an int64 array (one slot per thread, frcli.engines.progress) to which
    each thread adds its finished instances. Returns the scores (F,).
    """
    cdef Py_ssize_t n = X.shape[0], F = X.shape[1], t, q, f, Q, s0
    cdef int C = n_classes
    if Xc.shape[0] != F or Xc.shape[1] != n or y.shape[0] != n:
        raise ValueError("X, X.T and y do not match")
    if discrete.shape[0] != F or rg.shape[0] != F or sd.shape[0] != F:
        raise ValueError("feature metadata must have one entry per feature")
    total_a = np.zeros(F, dtype=np.float64)
    if n < 2 or F == 0:
        return total_a
    for t in range(n):
        if y[t] < 0 or y[t] >= C:
            raise ValueError("class codes must be in 0..n_classes-1")
    cdef double[::1] total = total_a
    if chunk < 1:
        chunk = 1
    U_a = np.zeros((min(chunk, n), F), dtype=np.float64)
    cdef double[:, ::1] U = U_a
    cdef double* dist = NULL
    cdef int* near = NULL
    cdef int* far = NULL
    cdef double* S = NULL
    cdef double* cntc = NULL
    cdef Progress prog = progress_slots(progress)
    s0 = 0
    while s0 < n:
        Q = n - s0
        if Q > chunk:
            Q = chunk
        with nogil, parallel(num_threads=max(1, jobs)):
            dist = <double*> malloc(n * sizeof(double))
            near = <int*> malloc(n * sizeof(int))
            far = <int*> malloc(n * sizeof(int))
            S = <double*> malloc(C * F * sizeof(double))
            cntc = <double*> malloc(C * sizeof(double))
            for q in prange(Q, schedule="dynamic", chunksize=1):
                _one(&X[0, 0], &Xc[0, 0], n, F, &discrete[0], &rg[0], &sd[0], ramp, dweight,
                     &y[0], C,
                     star, s0 + q, &U[q, 0], dist, near, far, S, cntc)
                progress_add(prog, threadid(), 1)
            free(dist)
            free(near)
            free(far)
            free(S)
            free(cntc)
        with nogil:
            for f in prange(F, schedule="static", num_threads=max(1, jobs)):
                for q in range(Q):
                    total[f] += U[q, f]
        s0 += Q
    return total_a
