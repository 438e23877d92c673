# The distances of the Relief family, shared by its kernels (_relief, _reliefe, _multisurf):
# one feature's distance between two values, one row's distances to every row, and the walk
# over two sparse rows' listed features. Everything is inline: no call stays in the loops,
# and each kernel computes bit for bit what it computed with its own copy.
#
# Conventions (docs/design/relief.md, "Distances"): numeric |a - b| / range (range 1 when
# the column is constant), nominal 0/1; with missing values (NaN) a nominal difference is
# 1 - 1/#values, a numeric one max(t, 1 - t) for t the known value's position in the range,
# and 1 when both are missing.
from libc.math cimport fabs, isnan

cpdef enum FeatureKind:
    # a column's kind, chosen per column by frcli.engines.relief.common.column_meta, which
    # reads these values from the compiled module (_distance.pyx) rather than restating them
    K_NUM = 0        # numeric, no missing values
    K_NUM_MISS = 1   # numeric with missing values
    K_NOM = 2        # nominal, no missing values
    K_NOM_MISS = 3   # nominal with missing values


cdef inline double feature_distance(int kind, double a, double b, double mn, double rg,
                                    double nm) noexcept nogil:
    """One feature's distance between values a and b of a column of ``kind`` with minimum
    ``mn``, range ``rg`` and missing-nominal distance ``nm``."""
    cdef double t
    if kind == K_NUM:
        return fabs(a - b) / rg
    if kind == K_NOM:
        return 1.0 if a != b else 0.0
    if kind == K_NOM_MISS:
        if isnan(a) or isnan(b):
            return nm
        return 1.0 if a != b else 0.0
    # numeric with missing values
    if isnan(a):
        if isnan(b):
            return 1.0
        t = (b - mn) / rg
        return t if t > 1.0 - t else 1.0 - t
    if isnan(b):
        t = (a - mn) / rg
        return t if t > 1.0 - t else 1.0 - t
    return fabs(a - b) / rg


cdef inline double complete_distance(int nominal, double a, double b,
                                     double rg) noexcept nogil:
    """``feature_distance`` on data without missing values (ReliefE and MultiSURF impute
    them): nominal 0/1, numeric |a - b| / range."""
    if nominal:
        return 1.0 if a != b else 0.0
    return fabs(a - b) / rg


cdef inline double ramp_distance(int discrete, int ramp, double a, double b, double rg,
                                 double sd) noexcept nogil:
    """scikit-rebate's feature difference (MultiSURF): ``complete_distance``, except that on
    mixed data (``ramp``) a continuous difference larger than the feature's standard
    deviation ``sd`` counts 1."""
    if ramp and not discrete and fabs(a - b) > sd:
        return 1.0
    return complete_distance(discrete, a, b, rg)


cdef inline void distance_profile(const double* Xc, Py_ssize_t F, Py_ssize_t n,
                                  const int* nominal, const double* rg, double mismatch,
                                  Py_ssize_t q, double* out) noexcept nogil:
    """out[j] = sum over features, in feature order, of row q's distance to row j: numeric
    |a - b| / range, nominal ``mismatch`` when the values differ (1; MultiSURF's scaled
    hamming weight on mixed data). Xc holds the features (F, n), so the inner loop over the
    rows is contiguous and vectorises."""
    cdef Py_ssize_t f, j
    cdef double x, r
    cdef const double* row
    for j in range(n):
        out[j] = 0.0
    for f in range(F):
        row = Xc + f * n
        x = row[q]
        if nominal[f]:
            for j in range(n):
                out[j] += mismatch if row[j] != x else 0.0
        else:
            r = rg[f]
            for j in range(n):
                out[j] += fabs(x - row[j]) / r


# -- sparse rows ---------------------------------------------------------------------------
# Mostly-default data (bibtex, delicious) are kept as rows of their listed entries: every
# feature f has a default value zval[f], and row r lists the features where it differs (NaN
# always listed) in increasing order, rfeat[rptr[r]:rptr[r + 1]], with their values in rval.

cdef struct SparseRows:
    const long long* rptr
    const int* rfeat
    const double* rval
    const double* zval


cdef inline SparseRows sparse_rows(const double[::1] zval, const long long[::1] rptr,
                                   const int[::1] rfeat, const double[::1] rval) except *:
    """The kernels' view of a row layout (zval (F), rptr (n + 1), rfeat and rval (nnz));
    the caller's arrays own the memory for the whole call."""
    cdef SparseRows s
    s.zval = &zval[0] if zval.shape[0] > 0 else NULL
    s.rptr = &rptr[0]
    s.rfeat = &rfeat[0] if rfeat.shape[0] > 0 else NULL
    s.rval = &rval[0] if rval.shape[0] > 0 else NULL
    return s


cdef struct RowMerge:
    long long a, ae     # row a's next and end entry
    long long b, be     # row b's


cdef inline void merge_start(RowMerge* m, const SparseRows* s, Py_ssize_t ra,
                             Py_ssize_t rb) noexcept nogil:
    m.a = s.rptr[ra]
    m.ae = s.rptr[ra + 1]
    m.b = s.rptr[rb]
    m.be = s.rptr[rb + 1]


cdef inline bint merge_next(RowMerge* m, const SparseRows* s, int F, int* f, double* xa,
                            double* xb) noexcept nogil:
    """The next feature ``f`` listed by either row, in increasing order, with both rows'
    values there (the default where a row does not list it); False when both are done.
    A feature neither row lists holds the default on both sides: its distance is 0, so a
    sum over the merge equals the feature-order sum over every feature, bit for bit."""
    cdef int fa, fb
    if m.a >= m.ae and m.b >= m.be:
        return False
    fa = s.rfeat[m.a] if m.a < m.ae else F
    fb = s.rfeat[m.b] if m.b < m.be else F
    if fa <= fb:
        f[0] = fa
        xa[0] = s.rval[m.a]
        m.a += 1
    else:
        f[0] = fb
        xa[0] = s.zval[fb]
    if fb == f[0]:
        xb[0] = s.rval[m.b]
        m.b += 1
    else:
        xb[0] = s.zval[f[0]]
    return True
