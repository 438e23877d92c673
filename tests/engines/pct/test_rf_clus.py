"""CLUS 2.12.8's RF score (``rf_variant=clus``, frcli.engines.pct.rf_clus).

* ``bootstrap_counts`` is each tree's bag exactly: a tree that cannot split predicts the
  bag-weighted mean of the targets.
* A plain-numpy reference of CLUS's procedure (OOB rows of the bag, features in CLUS's
  depth-first order, permutations accumulated, RMSE per target in the targets' units) gives
  the same scores.
* The same forest as the other scores; unused features score 0; the accumulated damage
  buries planted features among noise (why the thesis's score stays the default); a
  non-numeric task is refused.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.model import PCTForest
from frcli.engines.pct.scoring import forest_scores
from frcli.errors import ConfigError
from tests.conftest import need_kernel
from tests.helpers.pct import reference

need_kernel("frcli._ext.pct._forest")


def planted(seed=0, n=150, F=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    Y = np.column_stack([3 * X[:, 0] + 0.2 * rng.normal(size=n),
                         10 * (X[:, 1] + 0.2 * rng.normal(size=n))])
    feats = [Attribute(f"x{i}", "numeric") for i in range(F)]
    return Dataset("p", X, feats, "mtr", Y, [Attribute("a", "numeric"), Attribute("b", "numeric")])


def test_bootstrap_counts_are_the_bags():
    from frcli._ext.pct import _forest

    ds = planted()
    model = PCTForest("bagging", trees=5, min_leaf=1e9, seed=3).fit(ds)   # root leaves only
    counts = _forest.bootstrap_counts(model.seeds_, ds.n_examples)
    assert counts.shape == (5, ds.n_examples) and (counts.sum(axis=1) == ds.n_examples).all()
    for t, tree in enumerate(model.trees_):
        P = model.prototypes(ds.X[:1], trees=[tree])[0]
        np.testing.assert_allclose(P, np.average(ds.Y, axis=0, weights=counts[t]), rtol=1e-12)


def test_matches_the_plain_reference():
    from frcli.engines.pct.rf_clus import clus_rf_scores

    ds = planted(1)
    model = PCTForest("rf", trees=8, seed=5, ties="first").fit(ds, keep_values=True)
    got, got_t = clus_rf_scores(model, ds, 5)
    ref, ref_t = reference(model, ds, 5)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got_t, ref_t, rtol=1e-12, atol=1e-15)


def test_forest_scores_clus_variant_same_trees_and_the_accumulated_damage():
    """Same forest, other RF score; and why it is not our default: the planted features,
    tested first, are scored alone, while every noise feature used later in a tree inherits
    their damage, so CLUS's variant cannot tell noise from signal on this data."""
    ds = planted(2, F=8)
    thesis = forest_scores(ds, "rf", trees=40, seed=4)
    clus = forest_scores(ds, "rf", trees=40, seed=4, rf_variant="clus")
    for k in ("symbolic", "genie3", "genie3_per_target"):       # the same forest
        np.testing.assert_array_equal(thesis[k], clus[k])
    assert clus["meta"]["rf_variant"] == "clus" and clus["rf_per_target"].shape == (2, 8)
    unused = thesis["genie3"] == 0
    assert (clus["rf"][unused] == 0).all()
    noise = np.flatnonzero(~unused & (np.arange(8) > 1))
    assert noise.size >= 3
    assert set(np.argsort(-thesis["rf"])[:2]) == {0, 1}
    assert thesis["rf"][noise].max() < 0.1 * thesis["rf"][[0, 1]].min()
    assert clus["rf"][noise].min() > 0.5 * clus["rf"][[0, 1]].max()
    assert clus["rf"].sum() > 1.5 * thesis["rf"].sum()


def test_clus_variant_is_for_numeric_targets():
    from frcli.api import rank

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(float)
    ds = Dataset("c", X, [Attribute(f"x{i}", "numeric") for i in range(3)], "classification",
                 y[:, None], [Attribute("y", "nominal", ["0", "1"])])
    with pytest.raises(ConfigError, match="rf_variant=clus"):
        rank(ds, "rf-rf", trees=5, rf_variant="clus")
    with pytest.raises(ConfigError, match="rf_variant"):       # not a Genie3 parameter
        rank(planted(), "genie3-rf", trees=5, rf_variant="clus")
