"""Genie3 of tests on features with missing values: ``genie3_missing`` (osales:
reproduce/studies/mtr_genie3_missing.py).

* ``clus`` (default) and ``known`` grow the same trees; only the recorded h* differs, and only
  at nodes whose tested feature has a missing value among the node's rows.
* A plain-numpy reference of both rules (rows routed through each bootstrapped tree, a missing
  value down both branches at the branch shares): ``known`` = the known rows' variance minus
  the two sides', ``clus`` = CLUS's ``calculateGENI3value``, the node's variance minus its
  children's with the missing rows in both. Per target in the targets' units, and overall.
* On osales, CLUS's own 100-tree forests put 8-10 % of the overall Genie3 weight on the 19
  mostly-missing features (clus-reference/mtr-rf100-seeds); ``clus`` lands there, ``known``
  does not.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.model import PCTForest
from frcli.engines.pct.scoring import forest_scores
from frcli.errors import UserError
from tests.conftest import need_kernel, need_shared

need_kernel("frcli._ext.pct._forest")


def holey(seed=0, n=160, F=5):
    """Two targets; x0 informative and 70 % missing, x1 informative and complete."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    Y = np.column_stack([2 * X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=n),
                         5 * (X[:, 1] - X[:, 0]) + rng.normal(size=n)])
    X[rng.random(n) < 0.7, 0] = np.nan
    X[rng.random(n) < 0.1, 2] = np.nan
    feats = [Attribute(f"x{i}", "numeric") for i in range(F)]
    return Dataset("h", X, feats, "mtr", Y, [Attribute("a", "numeric"),
                                             Attribute("b", "numeric")])


def reference(model, ds):
    """(known, clus): (T, F) per-target sums over the trees of each rule, targets' units."""
    from frcli._ext.pct import _forest

    X, Y = ds.X, ds.Y
    counts = _forest.bootstrap_counts(model.seeds_, ds.n_examples)
    out = {r: np.zeros((Y.shape[1], ds.n_features)) for r in ("known", "clus")}

    def ss(idx, w):
        y = Y[idx]
        return (w[:, None] * y * y).sum(0) - (w[:, None] * y).sum(0) ** 2 / w.sum()

    for t, tree in enumerate(model.trees_):
        stack = [(0, np.flatnonzero(counts[t]), counts[t][counts[t] > 0].astype(float))]
        while stack:
            node, idx, w = stack.pop()
            f = tree["feature"][node]
            if f < 0:
                continue
            x = X[idx, f]
            mis = np.isnan(x)
            le, ri = ~mis & (x <= tree["threshold"][node]), ~mis & (x > tree["threshold"][node])
            pl = tree["p_left"][node]
            li, lw = np.r_[idx[le], idx[mis]], np.r_[w[le], w[mis] * pl]
            rr, rw = np.r_[idx[ri], idx[mis]], np.r_[w[ri], w[mis] * (1 - pl)]
            out["known"][:, f] += (ss(idx[~mis], w[~mis]) - ss(idx[le], w[le])
                                   - ss(idx[ri], w[ri]))
            out["clus"][:, f] += ss(idx, w) - ss(li, lw) - ss(rr, rw)
            stack += [(tree["left"][node], li, lw), (tree["right"][node], rr, rw)]
    return out


def test_same_trees_only_hstar_differs():
    ds = holey()
    a = PCTForest("rf", trees=10, seed=1, genie3_missing="known").fit(ds)
    b = PCTForest("rf", trees=10, seed=1, genie3_missing="clus").fit(ds)
    changed = 0
    for x, y in zip(a.trees_, b.trees_):
        for k in ("feature", "threshold", "left", "right", "weight", "p_left"):
            np.testing.assert_array_equal(x[k], y[k])
        differ = ~np.isclose(x["hstar"], y["hstar"], rtol=1e-12, atol=0)
        changed += int(differ.sum())
        # only tests on features with a missing value can change
        assert set(x["feature"][differ]) <= {0, 2}
    assert changed > 0


@pytest.mark.parametrize("rule", ["known", "clus"])
def test_equals_numpy_reference(rule):
    ds = holey(seed=3)
    model = PCTForest("rf", trees=8, seed=5, genie3_missing=rule, ties="first").fit(
        ds, per_target=True)
    ref = reference(model, ds)[rule]
    sc = model.scores()
    np.testing.assert_allclose(sc["genie3_raw_per_target"] * len(model.trees_), ref,
                               rtol=1e-9, atol=1e-9)
    # overall = sum over targets of the normalised reductions (the papers' h*)
    norm = (ref / (ds.Y.var(axis=0)[:, None] * ds.Y.shape[1])).sum(axis=0)
    np.testing.assert_allclose(sc["genie3"] * len(model.trees_), norm, rtol=1e-9, atol=1e-12)


def test_clus_rule_shrinks_the_mostly_missing_feature():
    ds = holey(seed=2)
    k = forest_scores(ds, "rf", trees=50, seed=0, genie3_missing="known")["genie3"]
    c = forest_scores(ds, "rf", trees=50, seed=0, genie3_missing="clus")["genie3"]
    np.testing.assert_allclose(c[[1, 3, 4]], k[[1, 3, 4]], rtol=1e-12)   # complete features
    assert c[0] < 0.6 * k[0]                     # x0 is 70 % missing


def test_no_missing_values_no_difference():
    ds = holey()
    ds = Dataset("c", np.nan_to_num(ds.X), ds.features, "mtr", ds.Y, ds.targets)
    k = forest_scores(ds, "rf", trees=20, seed=0, genie3_missing="known")
    c = forest_scores(ds, "rf", trees=20, seed=0, genie3_missing="clus")
    np.testing.assert_array_equal(k["genie3"], c["genie3"])


def test_ranker_param_and_bad_value():
    from frcli.rankers.registry import get_ranker

    ds = holey()
    r = get_ranker("genie3-rf")
    k = r.rank(ds, {"trees": 20, "genie3_missing": "known"}, seed=0)[0].importances
    c = r.rank(ds, {"trees": 20, "genie3_missing": "clus"}, seed=0)[0].importances
    d = r.rank(ds, {"trees": 20}, seed=0)[0].importances      # the default is CLUS's rule
    np.testing.assert_array_equal(d, c)
    assert c[0] < k[0]
    with pytest.raises(UserError, match="genie3_missing"):
        r.rank(ds, {"genie3_missing": "both"}, seed=0)
    # the per-target forests of -str take it too (the Table 7 column of the osales study)
    s = get_ranker("genie3-rf-str")
    ks = s.rank(ds, {"trees": 10, "genie3_missing": "known"}, seed=0)[0].importances
    cs = s.rank(ds, {"trees": 10, "genie3_missing": "clus"}, seed=0)[0].importances
    assert cs[0] < ks[0]
    with pytest.raises(UserError, match="genie3_missing"):
        get_ranker("symbolic-rf").rank(ds, {"genie3_missing": "clus"}, seed=0)
    with pytest.raises(UserError, match="genie3_missing"):
        PCTForest(genie3_missing="both")


def test_osales_share_matches_clus():
    """CLUS's 100-tree forests (seeds 1-3) put 8-10 % of the overall Genie3 on osales' 19
    mostly-missing features; ours with ``clus`` (CLUS's overall column: ``genie3_raw``) lands
    in that range, with ``known`` above 20 % (the draws differ from CLUS's: level only)."""
    from frcli.data import catalog

    need_shared("datasets/clus-reference/mtr-rf100-seeds/osales__seed1_Genie3.fimp")
    ds = catalog.load("osales")
    miss = np.isnan(ds.X).mean(axis=0) > 0.5

    def share(v):
        v = np.maximum(v, 0)
        return v[miss].sum() / v.sum()

    k = forest_scores(ds, "rf", trees=100, seed=1, genie3_missing="known")
    c = forest_scores(ds, "rf", trees=100, seed=1, genie3_missing="clus")
    assert share(k["genie3_raw"]) > 0.2
    assert 0.06 <= share(c["genie3_raw"]) <= 0.12
