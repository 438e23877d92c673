"""One forest for the three scores: the experiment plans Symbolic, Genie3 and RF-score
rankers of one ensemble with one seed, and ``forest_scores`` reuses the forest it grew."""
from __future__ import annotations

import numpy as np

from frcli.engines.pct import scoring
from frcli.engines.pct.cache import ForestCache, active_cache
from frcli.api import dataset_from_arrays
from frcli.experiment.plan import seed_key


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((120, 6))
    Y = np.c_[X[:, 0] + 0.1 * rng.random(120), X[:, 1] * X[:, 2]]
    return dataset_from_arrays(X, Y)


def test_rf_score_does_not_change_the_forest():
    ds = _data()
    a = scoring.forest_scores(ds, "rf", trees=10, rf_score=True, seed=3)
    b = scoring.forest_scores(ds, "rf", trees=10, rf_score=False, seed=3)
    assert np.array_equal(a["genie3"], b["genie3"])
    assert np.array_equal(a["symbolic"], b["symbolic"])


def test_no_reuse_outside_the_block():
    ds = _data(3)
    cache = ForestCache()
    with cache.active():
        scoring.forest_scores(ds, "rf", trees=5, seed=1)
    assert len(cache) == 1 and active_cache() is None
    assert not scoring.forest_scores(ds, "rf", trees=5, seed=1)["meta"].get("forest_reused")


def test_a_cache_serves_a_later_block():
    """The entries outlive the block: the experiment runner activates one cache per task."""
    ds = _data(4)
    cache = ForestCache()
    with cache.active():
        scoring.forest_scores(ds, "et", trees=4, seed=2)
    with cache.active():
        assert scoring.forest_scores(ds, "et", trees=4, seed=2)["meta"]["forest_reused"]
    with ForestCache().active():        # another cache has not seen that forest
        assert not scoring.forest_scores(ds, "et", trees=4, seed=2)["meta"].get(
            "forest_reused")


def test_the_cache_keeps_its_bounds():
    cache = ForestCache(entries=2)
    for i in range(4):
        cache.put(f"k{i}", {"out": {"a": np.zeros(10)}})
    assert len(cache) == 2 and cache.get("k0") is None and cache.get("k3") is not None
    small = ForestCache(nbytes=100)
    small.put("a", {"out": np.zeros(10)})
    small.put("b", {"out": np.zeros(10)})       # 80 + 80 bytes: the oldest goes
    assert small.get("a") is None and small.get("b") is not None


def test_reused_forest_gives_the_fresh_values():
    with ForestCache().active() as cache:
        _check_reuse(cache)


def _check_reuse(cache):
    ds = _data(1)
    first = scoring.forest_scores(ds, "bagging", trees=8, rf_score=True, seed=5)
    again = scoring.forest_scores(ds, "bagging", trees=8, rf_score=False, seed=5)
    assert again["meta"].get("forest_reused") is True
    for k in ("symbolic", "genie3", "rf"):
        assert np.array_equal(first[k], again[k])
    # a different seed, parameter or data set is a different forest
    assert not scoring.forest_scores(ds, "bagging", trees=8, seed=6)["meta"].get("forest_reused")
    assert not scoring.forest_scores(_data(2), "bagging", trees=8,
                                    seed=6)["meta"].get("forest_reused")
    # a cached forest without the RF score cannot serve an RF-score request
    cache.clear()
    scoring.forest_scores(ds, "bagging", trees=8, rf_score=False, seed=7)
    rf = scoring.forest_scores(ds, "bagging", trees=8, rf_score=True, seed=7)
    assert not rf["meta"].get("forest_reused") and "rf" in rf


def test_scores_of_one_ensemble_share_the_seed_key():
    assert seed_key("symbolic-rf") == seed_key("genie3-rf") == seed_key("rf-rf") == "forest:rf"
    assert seed_key("genie3-et-str") == seed_key("symbolic-et-str") != seed_key("genie3-et")
    assert seed_key("relief") == "relief" and seed_key("uniform") == "uniform"
