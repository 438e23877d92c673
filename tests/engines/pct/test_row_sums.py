"""The builder's row sums on byte-coded count data (``add_codes``: AVX-512/AVX2/baseline
clones chosen at load time) equal the plain arithmetic bit for bit: every column is its own
sum in row order, so vector width cannot change it, and no FMA contraction may."""
from __future__ import annotations

import numpy as np

from tests.conftest import need_kernel

_criterion = need_kernel("frcli._ext.pct._criterion")


def test_add_codes_equals_the_plain_sums_bit_for_bit():
    rng = np.random.default_rng(0)
    for K in (1, 7, 8, 33, 517, 3289):       # vector tails and a P-UNS text set's width
        n = 60
        X = (rng.random((n, K)) < 0.05) * rng.integers(1, 9, size=(n, K))
        X = np.ascontiguousarray(X, dtype=np.uint8)
        off = X.mean(axis=0) + rng.normal(scale=1e-3, size=K)     # inexact offsets
        w = rng.integers(1, 4, size=n).astype(float) * rng.choice([1.0, 0.37], size=n)
        out = _criterion._add_codes_check(X, off, w)
        assert np.array_equal(out[0].view(np.uint64), out[2].view(np.uint64))
        assert np.array_equal(out[1].view(np.uint64), out[3].view(np.uint64))
        assert np.allclose(out[0], (w[:, None] * (X - off)).sum(axis=0))
