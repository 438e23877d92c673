# The codes the relational engine's Python side packs into the kernel's arrays
# (frcli.engines.relational.features reads them from the compiled module, so they are
# defined here only).

cpdef enum Aggregate:         # a chain column's aggregate
    A_COUNT = 0
    A_COUNTD = 1
    A_SUM = 2
    A_MEAN = 3
    A_MIN = 4
    A_MAX = 5
    A_MODE = 6

cpdef enum ArgKind:           # an argument of an atom record
    K_BOUND = 0               # a variable bound earlier in the chain
    K_FRESH = 1               # a new variable
    K_CONST = 2               # a constant

cpdef enum LastKind:          # the values of a chain's last atom
    L_COUNT0 = 0              # no fresh variable: the number of matching tuples
    L_NUMERIC = 1
    L_CODE = 2                # a nominal or ID code
    L_TUPLE = 3               # several fresh variables: only counted
