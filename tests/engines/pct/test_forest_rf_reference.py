"""The Random Forest (OOB permutation) score of one tree against a plain-Python reference.

The reference replays the tree's random stream (xorshift64* seeded by splitmix64, ported
here and checked against the kernel) to get the same bag and the same permutations, then
recomputes the score from predictions of whole permuted OOB matrices: Err(OOB) and
Err(OOB^i) per spec-core §4.3, (Err_i - Err) / Err (accuracy denominator for
classification), per target too.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.model import PCTForest
from tests.helpers.pct import make
from tests.conftest import need_kernel
from tests.helpers.pct import XorShift, reference_rf

_utils = need_kernel("frcli._ext._utils")


def test_python_port_of_the_rng_matches_the_kernel():
    ints, floats = _utils._test_rng(12345, 17, 50)
    r = XorShift(12345)
    assert ints == [r.rand_int(17) for _ in range(50)]
    assert floats == [r.uniform() for _ in range(50)]


@pytest.mark.parametrize("task", ["mtr", "classification", "mlc", "hmlc"])
@pytest.mark.parametrize("seed", [0, 5])
def test_rf_score_of_one_tree_matches_the_reference(task, seed):
    ds = make(task, n=120, missing=0.08 if task == "mtr" else 0.0)
    m = PCTForest("bagging", trees=1, seed=seed, ties="first").fit(ds, rf_score=True,
                                                                   per_target=True)
    sc = m.scores()
    rf, rf_pt = reference_rf(m, ds, seed)
    assert np.allclose(sc["rf"], rf, rtol=1e-9, atol=1e-12)
    assert np.allclose(sc["rf_per_target"], rf_pt, rtol=1e-9, atol=1e-12)
    assert np.abs(rf).sum() > 0


def test_classification_score_uses_the_accuracy_denominator():
    rng = np.random.default_rng(0)
    n = 100
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] > 0).astype(float)
    flip = rng.random(n) < 0.2                       # label noise: Err(OOB) > 0
    y[flip] = 1 - y[flip]
    ds = Dataset("c", X, [Attribute(f"x{i}", "numeric") for i in range(3)], "classification",
                 y, [Attribute("c", "nominal", ("a", "b"))])
    m = PCTForest("bagging", trees=1, seed=2, ties="first").fit(ds, rf_score=True)
    assert m.spec_.blocks["acc_den"] and np.allclose(m.spec_.blocks["alpha"], 1.0)
    rf, _ = reference_rf(m, ds, 2)
    assert np.allclose(m.scores()["rf"], rf)


@pytest.mark.parametrize("seed", [0, 3])
def test_rf_score_on_sparse_counts_matches_the_reference(seed):
    # unsupervised extra trees on 95 %-zero counts (P-UNS's text sets in small): deep trees,
    # byte-coded clustering columns, permuted rows leaving their paths deep down
    rng = np.random.default_rng(seed)
    n, F = 150, 30
    X = ((rng.random((n, F)) < 0.05) * rng.integers(1, 6, size=(n, F))).astype(float)
    X[:, :3] += rng.random((n, 3)) < 0.4            # a few denser columns
    ds = Dataset("u", X, [Attribute(f"w{i}", "numeric") for i in range(F)], "unsupervised")
    m = PCTForest("et", trees=1, seed=seed, ties="first", bootstrap=True).fit(ds, rf_score=True)
    sc = m.scores()
    rf, _ = reference_rf(m, ds, seed)
    assert m.trees_[0]["feature"].size > 40            # a deep tree
    assert np.allclose(sc["rf"], rf, rtol=1e-9, atol=1e-12)
    assert np.abs(rf).sum() > 0
