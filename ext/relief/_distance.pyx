# cython: language_level=3
"""The Python face of ``_distance.pxd``: its ``FeatureKind`` enum, which Python code reads
from here so that the kernels' feature kinds are defined once. The distances themselves are
inline functions, compiled into each kernel that cimports them."""
