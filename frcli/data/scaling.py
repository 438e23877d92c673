"""Exact power-of-two rescaling of numeric columns, so that huge but finite values (1e300,
±1.7e308) neither overflow (a square, a range max − min, a sum of k neighbours) nor tiny ones
(1e-7) fall under an absolute "constant column" threshold (docs/design/data.md, "Huge and
tiny numbers").

Multiplying by 2**-e changes no significand bit: every sum, difference, product and quotient
of scaled values is the scaled result, rounded identically, as long as nothing overflows or
turns subnormal. Variance-normalised heuristics, Relief's diff = |a − b| / range, the kNN's
normalised distances and the RRMSE are therefore *bit-identical* on scaled columns; a column
inside the band [2**-20, 2**64] is left as it is, so ordinary data never takes this path.
"""
from __future__ import annotations

import warnings

import numpy as np

HI = 2.0 ** 64       # above: squares and sums of squares could overflow (n ≤ 2**600 rows)
LO = 2.0 ** -20      # below: a variance falls under the 1e-12 "constant column" threshold


def exponents(A: np.ndarray, *, small: bool = True) -> np.ndarray:
    """Per column of the 2-D ``A`` (NaN = unknown): e such that ``A[:, c] * 2**-e`` has its
    largest |value| in [0.5, 1) when that largest |value| lies outside [LO, HI] (below LO
    only with ``small``), else 0."""
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.size == 0:
        return np.zeros(A.shape[1] if A.ndim == 2 else 0, dtype=np.int64)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN columns
        m = np.nanmax(np.abs(A), axis=0)
    m = np.where(np.isfinite(m), m, 0.0)
    _, e = np.frexp(m)
    out_of_band = (m > HI) | ((m < LO) & (m > 0.0) & small)
    return np.where(out_of_band, e, 0).astype(np.int64)


def scale(A: np.ndarray, e: np.ndarray, axis: int = 1) -> np.ndarray:
    """``A`` with every column (``axis=1``; rows with ``axis=0``) c multiplied by 2**-e[c]:
    a new array when some e is non-zero, else ``A`` itself."""
    e = np.asarray(e, dtype=np.int64)
    if not e.any():
        return A
    shape = (1, -1) if axis == 1 else (-1, 1)
    return np.ldexp(np.asarray(A, dtype=np.float64), -e.reshape(shape))
