"""One forest for the three scores: the experiment plans Symbolic, Genie3 and RF-score
rankers of one ensemble with one seed, and ``forest_scores`` reuses the forest it grew."""
from __future__ import annotations

import numpy as np

from frcli.engines import forest
from frcli.api import dataset_from_arrays
from frcli.experiment.plan import seed_key


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((120, 6))
    Y = np.c_[X[:, 0] + 0.1 * rng.random(120), X[:, 1] * X[:, 2]]
    return dataset_from_arrays(X, Y)


def test_rf_score_does_not_change_the_forest():
    ds = _data()
    forest._FOREST_CACHE.clear()
    a = forest.forest_scores(ds, "rf", trees=10, rf_score=True, seed=3)
    forest._FOREST_CACHE.clear()
    b = forest.forest_scores(ds, "rf", trees=10, rf_score=False, seed=3)
    assert np.array_equal(a["genie3"], b["genie3"])
    assert np.array_equal(a["symbolic"], b["symbolic"])


def test_no_reuse_outside_the_block():
    ds = _data(3)
    forest._FOREST_CACHE.clear()
    forest.forest_scores(ds, "rf", trees=5, seed=1)
    assert not forest.forest_scores(ds, "rf", trees=5, seed=1)["meta"].get("forest_reused")


def test_reused_forest_gives_the_fresh_values():
    with forest.reuse_forests():
        _check_reuse()


def _check_reuse():
    ds = _data(1)
    forest._FOREST_CACHE.clear()
    first = forest.forest_scores(ds, "bagging", trees=8, rf_score=True, seed=5)
    again = forest.forest_scores(ds, "bagging", trees=8, rf_score=False, seed=5)
    assert again["meta"].get("forest_reused") is True
    for k in ("symbolic", "genie3", "rf"):
        assert np.array_equal(first[k], again[k])
    # a different seed, parameter or data set is a different forest
    assert not forest.forest_scores(ds, "bagging", trees=8, seed=6)["meta"].get("forest_reused")
    assert not forest.forest_scores(_data(2), "bagging", trees=8,
                                    seed=6)["meta"].get("forest_reused")
    # a cached forest without the RF score cannot serve an RF-score request
    forest._FOREST_CACHE.clear()
    forest.forest_scores(ds, "bagging", trees=8, rf_score=False, seed=7)
    rf = forest.forest_scores(ds, "bagging", trees=8, rf_score=True, seed=7)
    assert not rf["meta"].get("forest_reused") and "rf" in rf


def test_scores_of_one_ensemble_share_the_seed_key():
    assert seed_key("symbolic-rf") == seed_key("genie3-rf") == seed_key("rf-rf") == "forest:rf"
    assert seed_key("genie3-et-str") == seed_key("symbolic-et-str") != seed_key("genie3-et")
    assert seed_key("relief") == "relief" and seed_key("uniform") == "uniform"
