# The codes ReliefE's Python engine passes to profile_search (frcli.engines.relief.reliefe
# reads them from the compiled module, so they are defined here only).

cpdef enum Space:             # where the neighbour profiles are measured
    SP_EMBED = 0              # an L2-normalised embedding (cosine distance)
    SP_DENSE = 1              # the raw dense features (the Relief distance)
    SP_SPARSE = 2             # the raw sparse features (a per-row baseline plus corrections)

cpdef enum NeighbourRule:     # how many neighbours a query gets per group
    RULE_FIXED = 0            # the k nearest
    RULE_GAP = 1              # adaptive: the largest gap of the sorted profile (the paper's)
    RULE_RATIO = 2            # adaptive: the largest ratio of consecutive gaps
