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
from tests.test_forest import make
from tests.conftest import need_kernel

_utils = need_kernel("frcli._ext._utils")
_tree = need_kernel("frcli._ext.pct._tree")

M64 = (1 << 64) - 1


def seed_state(seed):
    z = (seed + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return z or 0x2545F4914F6CDD1D


class XorShift:
    def __init__(self, seed):
        self.s = seed_state(seed)

    def next(self):
        x = self.s
        x ^= x >> 12
        x ^= (x << 25) & M64
        x ^= x >> 27
        self.s = x
        return (x * 2685821657736338717) & M64

    def rand_int(self, n):
        return (self.next() >> 11) % n

    def uniform(self):
        return (self.next() >> 11) / 9007199254740992.0


def test_python_port_of_the_rng_matches_the_kernel():
    ints, floats = _utils._test_rng(12345, 17, 50)
    r = XorShift(12345)
    assert ints == [r.rand_int(17) for _ in range(50)]
    assert floats == [r.uniform() for _ in range(50)]


def reference_rf(model, ds, seed):
    spec = model.spec_
    tree = model.trees_[0]
    n = ds.n_examples
    tree_seed = int(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0])
    rng = XorShift(tree_seed)
    counts = np.zeros(n, int)
    for _ in range(n):
        counts[rng.rand_int(n)] += 1
    oob = np.flatnonzero(counts == 0)
    K = spec.a.shape[0]
    b = spec.blocks
    raw = spec_truth(spec, ds)

    def errors(X):
        P = _tree.predict_trees([tree], np.ascontiguousarray(X), model.ncat_, K)
        e = np.full((len(oob), len(b["kind"])), np.nan)
        for j, (kind, col, ncat) in enumerate(zip(b["kind"], b["col"], b["ncat"])):
            y = raw[oob, j]
            if kind == 0:
                e[:, j] = (y - P[:, col]) ** 2
            elif kind == 2:
                e[:, j] = ((P[:, col] + b["offset"][col] >= 0.5) != (y >= 0.5)).astype(float)
            else:
                e[:, j] = (np.argmax(P[:, col:col + ncat], axis=1) != y).astype(float)
            e[np.isnan(y), j] = np.nan
        return np.nanmean(e, axis=0)        # per block, over rows with a known truth

    def total(per_block):
        return float((b["alpha"] * per_block).sum())

    base = errors(ds.X[oob])
    err = total(base)
    den = 1 - err if b["acc_den"] else err
    G = len(spec.group_names)
    gerr = np.array([base[b["group"] == g].sum() for g in range(G)])
    gden = 1 - gerr if b["acc_den"] else gerr
    rf = np.zeros(ds.n_features)
    rf_pt = np.zeros((G, ds.n_features))
    used = sorted(set(tree["feature"][tree["feature"] >= 0].tolist()))
    for f in used:
        perm = oob.copy()
        for j in range(len(oob) - 1, 0, -1):
            r = rng.rand_int(j + 1)
            perm[j], perm[r] = perm[r], perm[j]
        Xp = ds.X[oob].copy()
        Xp[:, f] = ds.X[perm, f]
        pe = errors(Xp)
        rf[f] = (total(pe) - err) / den if den > 1e-300 else 0.0
        for g in range(G):
            d = pe[b["group"] == g].sum() - gerr[g]
            rf_pt[g, f] = d / gden[g] if gden[g] > 1e-300 else 0.0
    return rf, rf_pt


def spec_truth(spec, ds):
    from frcli.engines.pct.columns import truth_matrix, clustering_spec
    fresh = clustering_spec(ds, w0=0.75)
    return truth_matrix(fresh)


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
