"""CLUS's conventions in the ensembles: the tie rule, and Genie3 in the targets' own units.

* ``ties="first"`` (CLUS): of several tests that split a node equally well, the feature that
  comes first in the data wins, so an exact copy of a feature placed after it is used only
  where the original was not drawn; ``ties="random"`` shares the credit between the copies.
* ``genie3_scale="raw"``: the per-target Genie3 in each target's units (CLUS's per-target .fimp
  columns) and their plain mean (CLUS 2.12.8's overall column), against the default sum of h*,
  which does not change when a target is rescaled.
"""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.model import PCTForest
from frcli.engines.pct.scoring import forest_scores
from tests.conftest import need_kernel

need_kernel("frcli._ext.pct._forest")


def planted(seed=0, n=200, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X = np.column_stack([X, X[:, 0]])              # feature 5 is an exact copy of feature 0
    Y = np.column_stack([X[:, 0] + 0.3 * rng.normal(size=n),
                         scale * (X[:, 1] + 0.3 * rng.normal(size=n))])
    feats = [Attribute(f"x{i}", "numeric") for i in range(6)]
    return Dataset("p", X, feats, "mtr", Y, [Attribute("a", "numeric"), Attribute("b", "numeric")])


@pytest.mark.parametrize("ensemble", ["rf", "bagging"])
def test_first_feature_wins_ties_and_random_shares_them(ensemble):
    ds = planted()
    first = forest_scores(ds, ensemble, trees=30, seed=1, rf_score=False, ties="first")
    if ensemble == "bagging":     # every node sees both copies: the first always wins
        assert first["genie3"][0] > 0 and first["genie3"][5] == 0 and first["symbolic"][5] == 0
    else:                         # the copy wins only at nodes that did not draw feature 0
        assert first["genie3"][0] > 1.3 * first["genie3"][5] > 0
    rand = forest_scores(ds, ensemble, trees=30, seed=1, rf_score=False, ties="random")
    g0, g5 = rand["genie3"][0], rand["genie3"][5]
    assert g5 > 0 and 0.5 < g0 / g5 < 2.0
    # the pair's total credit does not depend on the rule
    total = first["genie3"][0] + first["genie3"][5]
    assert (g0 + g5) == pytest.approx(total, rel=0.25)


def test_ties_must_be_known():
    from frcli.errors import ConfigError

    with pytest.raises(ConfigError, match="ties"):
        PCTForest("rf", ties="last")


def test_genie3_raw_is_the_mean_of_per_target_reductions_in_target_units():
    ds = planted(scale=1.0)
    big = planted(scale=1000.0)
    s1 = forest_scores(ds, "rf", trees=20, seed=3, rf_score=False)
    s2 = forest_scores(big, "rf", trees=20, seed=3, rf_score=False)
    # the normalised score and the trees do not see a target's units
    assert np.allclose(s1["genie3"], s2["genie3"], rtol=1e-9)
    assert np.allclose(s1["symbolic"], s2["symbolic"])
    # raw per-target = normalised per-target share / a_c = 1/(T * Var_train)
    T = 2
    var = ds.Y.var(axis=0)
    assert np.allclose(s1["genie3_raw_per_target"],
                       s1["genie3_per_target"] * T * var[:, None], rtol=1e-9)
    assert np.allclose(s1["genie3_raw"], s1["genie3_raw_per_target"].mean(axis=0))
    # rescaling target b by 1000 multiplies its raw column by 1e6 and makes it dominate
    assert np.allclose(s2["genie3_raw_per_target"][1], 1e6 * s1["genie3_raw_per_target"][1],
                       rtol=1e-6)
    assert np.argmax(s2["genie3_raw"]) == 1 and np.argmax(s1["genie3"]) in (0, 1)
    # each target's raw reductions add up to (most of) its sum of squares in the bag
    n = ds.n_examples
    assert np.all(s1["genie3_raw_per_target"].sum(axis=1) < 1.2 * n * var)


def test_ranker_parameters_pick_the_scores():
    from frcli.rankers.registry import get_ranker

    ds = planted(scale=1000.0)
    raw = get_ranker("genie3-rf").rank(ds, {"trees": 10, "genie3_scale": "raw"}, seed=0)[0]
    norm = get_ranker("genie3-rf").rank(ds, {"trees": 10}, seed=0)[0]
    assert np.argmax(raw.importances) == 1
    assert raw.per_target is not None and raw.per_target.shape == (2, 6)
    assert not np.allclose(raw.importances, norm.importances)
    # genie3_scale belongs to Genie3 only; ties to every ensemble score
    from frcli.errors import ConfigError

    with pytest.raises(ConfigError, match="genie3_scale"):
        get_ranker("symbolic-rf").rank(ds, {"genie3_scale": "raw"}, seed=0)
    get_ranker("symbolic-rf").rank(ds, {"trees": 3, "ties": "random"}, seed=0)
