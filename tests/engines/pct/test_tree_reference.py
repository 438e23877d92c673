"""A single tree (all features, no bootstrap) equals a pure-Python reference PCT.

The reference grows the tree recursively (pre-order, left first) with the spec's rules and
CLUS's conventions: the test CLUS would choose (test_tree_split's exhaustive candidates and
``ref_select``), min_leaf on both sides, rows with a missing tested value sent down both
branches with CLUS's branch shares as weights (children keep the node's row order, weights are
added left to right), per-column variance estimates inherited from the ancestors. The kernel's
tree must equal it node by node: same test, split value, weights, h*, depth and shape.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.columns import clustering_spec
from frcli.engines.pct.model import PCTForest
from tests.helpers.pct import (dense_C, mixed_features, ncat_of, numeric_features,
                                   ref_candidates, ref_Q, ref_select, seq_sum)
from tests.conftest import need_kernel

need_kernel("frcli._ext.pct._forest")


def _var_est(C, w, est):
    W = w.sum()
    out = np.empty(C.shape[1])
    for c in range(C.shape[1]):
        known = ~np.isnan(C[:, c])
        nk = w[known].sum()
        if nk < 2 and nk < W:
            out[c] = est[c]
        elif nk <= 0:
            out[c] = 0.0
        else:
            mu = (w[known] * C[known, c]).sum() / nk
            out[c] = max((w[known] * (C[known, c] - mu) ** 2).sum() / nk, 0.0)
    return out


def ref_tree(X, ncat, C, a, est0, min_leaf=2.0):
    nodes = []
    q_scale = [0.0]

    def grow(rows, w, est_parent, depth):
        Cn = C[rows]
        W = seq_sum(w)
        est = _var_est(Cn, w, est_parent)
        Q = ref_Q(Cn, a, w, est)
        if not nodes:
            q_scale[0] = Q / W
        tol = 1e-12 * q_scale[0] * W
        node = {"weight": W, "depth": depth, "feature": -1, "hstar": 0.0, "children": None}
        nodes.append(node)
        if W < 2 * min_leaf or Q <= tol:
            return
        chosen = ref_select(ref_candidates(X[rows], ncat, Cn, a, w, est, min_leaf))
        if chosen is None or not chosen[2] > tol:
            return
        f, test, h = chosen
        node.update(feature=f, hstar=h, test=test)
        x = X[rows, f]
        if isinstance(test, frozenset):
            codes = np.nan_to_num(x, nan=-1)
            known = (codes >= 0) & (codes < ncat[f])
            yes = known & np.isin(x, list(test))       # a nominal test's "yes": the subset
        else:
            known = ~np.isnan(x)
            yes = known & (x > test)                   # a numeric test's "yes": x > v
        no = known & ~yes
        miss = ~known
        T = seq_sum(w) - seq_sum(w[miss]) if miss.any() else seq_sum(w)
        xs = x[yes] if not isinstance(test, frozenset) else None
        if xs is None:     # CLUS adds the subset's weight category by category
            W_yes = sum((seq_sum(w[known & (x == v)]) for v in test), 0.0)
        else:              # ... and a numeric "yes" side by decreasing value
            W_yes = seq_sum(w[yes][np.argsort(-xs, kind="stable")])
        p_yes = W_yes / T
        share = {True: p_yes, False: 1.0 - p_yes}
        # children keep the node's row order; the left child (x <= v, or the subset) first
        left_is_yes = isinstance(test, frozenset)
        sides = []
        for is_yes in (left_is_yes, not left_is_yes):
            side = yes if is_yes else no
            sel = side | miss
            sides.append((rows[sel], np.where(miss[sel], w[sel] * share[is_yes], w[sel])))
        li = len(nodes)
        grow(*sides[0], est, depth + 1)
        ri = len(nodes)
        grow(*sides[1], est, depth + 1)
        node["children"] = (li, ri)

    grow(np.arange(X.shape[0]), np.ones(X.shape[0]), est0, 0)
    return nodes


def same_tree(t, ref, ti, ri):
    """Node-by-node equality: the same test (feature, split value or subset), weights, h*,
    depth and shape."""
    node = ref[ri]
    assert t["weight"][ti] == pytest.approx(node["weight"], rel=1e-12)
    assert t["depth"][ti] == node["depth"]
    assert t["hstar"][ti] == pytest.approx(node["hstar"], rel=1e-8, abs=1e-10)
    if node["feature"] < 0:
        assert t["feature"][ti] == -1
        return
    assert t["feature"][ti] == node["feature"]
    if not isinstance(node["test"], frozenset):
        assert t["threshold"][ti] == node["test"]
    rl, rr = node["children"]
    same_tree(t, ref, t["left"][ti], rl)
    same_tree(t, ref, t["right"][ti], rr)


def compare(ds, min_leaf=2.0):
    spec = clustering_spec(ds)
    ncat = ncat_of(ds)
    ref = ref_tree(ds.X, ncat, dense_C(spec, ds.n_examples), spec.a, spec.est0, min_leaf)
    # the reference records the heuristic's h* of each test, which is what the tree stores
    # under genie3_missing=known (the default, CLUS's rule, rescores tests on missing values)
    model = PCTForest("bagging", trees=1, bootstrap=False, min_leaf=min_leaf,
                      genie3_missing="known").fit(ds)
    t = model.trees_[0]
    assert len(t["feature"]) == len(ref)
    same_tree(t, ref, 0, 0)
    return model, ref


@pytest.mark.parametrize("seed", range(4))
def test_mtr_tree_equals_reference(seed):
    rng = np.random.default_rng(seed)
    n = 50
    X, feats = numeric_features(rng, n, 4)
    Y = np.column_stack([X[:, 0] + rng.normal(size=n) * 0.3, np.sin(X[:, 1]) * 3,
                         rng.normal(size=n)])
    ds = Dataset("t", X, feats, "mtr", Y, [Attribute(f"y{j}", "numeric") for j in range(3)])
    model, ref = compare(ds)
    assert len(ref) > 5


@pytest.mark.parametrize("seed", range(4))
def test_tree_with_nominal_and_missing_values_equals_reference(seed):
    rng = np.random.default_rng(seed)
    n = 45
    X, feats = mixed_features(rng, n, missing=0.15)
    Y = np.column_stack([np.nan_to_num(X[:, 0]) + (X[:, 5] == 2) * 2 + rng.normal(size=n) * .2,
                         rng.normal(size=n)])
    ds = Dataset("t", X, feats, "mtr", Y, [Attribute("a", "numeric"), Attribute("b", "numeric")])
    compare(ds)


@pytest.mark.parametrize("seed", range(3))
def test_semi_supervised_tree_equals_reference(seed):
    rng = np.random.default_rng(seed)
    n = 40
    X, feats = numeric_features(rng, n, 3)
    Y = np.column_stack([X[:, 0] * 2 + rng.normal(size=n), rng.normal(size=n)])
    ds = Dataset("t", X, feats, "mtr", Y, [Attribute("a", "numeric"), Attribute("b", "numeric")])
    ds = ds.with_unlabeled(rng.random(n) < 0.5)
    spec = clustering_spec(ds, w=0.5)
    ref = ref_tree(X, ncat_of(ds), spec.C, spec.a, spec.est0)
    t = PCTForest("bagging", trees=1, bootstrap=False, w=0.5).fit(ds).trees_[0]
    assert len(t["feature"]) == len(ref)
    same_tree(t, ref, 0, 0)


def test_prediction_of_a_full_tree_reproduces_training_means():
    rng = np.random.default_rng(0)
    n = 30
    X, feats = numeric_features(rng, n, 2)
    y = rng.normal(size=n)
    ds = Dataset("t", X, feats, "regression", y, [Attribute("y", "numeric")])
    m = PCTForest("bagging", trees=1, bootstrap=False, min_leaf=1.0).fit(ds)
    # with leaves of one distinct example each, the tree interpolates the training targets
    assert np.allclose(m.predict(X)[:, 0], y)
