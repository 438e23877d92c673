"""Nested forest sizes (ensemble saturation studies): the n-tree forest is the first n trees of
the largest one, so one growth serves a list of ``trees`` and gives what separately grown
forests give — Symbolic and Genie3 exactly, the RF score up to the order of its sums."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.api import dataset_from_arrays
from frcli.data import catalog
from frcli.engines.pct import scoring
from frcli.rankers.registry import get_ranker


def _mtr(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((90, 7))
    X[rng.random(X.shape) < 0.05] = np.nan
    Y = np.c_[X[:, 0] + 0.1 * rng.random(90), np.nan_to_num(X[:, 1]) * X[:, 2]]
    return dataset_from_arrays(X, Y)


@pytest.mark.parametrize("ensemble", ["rf", "bagging", "et"])
def test_nested_sizes_equal_separate_forests(ensemble):
    ds = _mtr()
    sizes = [3, 8, 13]
    rf = ensemble != "et"
    nested = scoring.forest_scores_sizes(ds, ensemble, sizes=sizes, seed=11, rf_score=rf)
    assert sorted(nested) == sizes
    for n in sizes:
        alone = scoring.forest_scores(ds, ensemble, trees=n, seed=11, rf_score=rf)
        assert np.array_equal(nested[n]["symbolic"], alone["symbolic"])
        assert np.array_equal(nested[n]["genie3"], alone["genie3"])
        np.testing.assert_allclose(nested[n]["genie3_per_target"], alone["genie3_per_target"],
                                   rtol=1e-12, atol=1e-15)
        if rf:
            np.testing.assert_allclose(nested[n]["rf"], alone["rf"], rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(nested[n]["rf_per_target"], alone["rf_per_target"],
                                       rtol=1e-12, atol=1e-15)
        assert nested[n]["meta"]["trees"] == n


@pytest.mark.parametrize("method", ["genie3-rf", "rf-bagging", "symbolic-et-str"])
def test_a_trees_list_ranks_like_one_forest_per_size(method):
    ds = catalog.load("synth-mlc") if method.endswith("str") else _mtr(1)
    r = get_ranker(method)
    grid = r.rank(ds, {"trees": [4, 9], "min_leaf": [1, 2]}, seed=5)
    for g in grid:
        alone = r.rank(ds, {"trees": g.params["trees"], "min_leaf": g.params["min_leaf"]},
                       seed=5)[0]
        np.testing.assert_allclose(g.importances, alone.importances, rtol=1e-12, atol=1e-15)
        assert g.params == alone.params


def test_a_trees_list_keeps_the_plain_loop_order():
    ds = _mtr(2)
    r = get_ranker("genie3-rf")
    params = {"trees": [6, 2], "min_leaf": [2, 1]}
    grid = r.rank(ds, params, seed=1)
    keys = list(r.resolve(params))
    import itertools

    want = [dict(zip(keys, c)) for c in itertools.product(*r.resolve(params).values())]
    assert [(g.params["trees"], g.params["min_leaf"]) for g in grid] == \
        [(w["trees"], w["min_leaf"]) for w in want]


def test_a_trees_list_with_clus_rf_score_equals_separate_rankings():
    """CLUS's RF score (rf_variant=clus) is computed per forest: a list of sizes falls back to
    one forest per size, with the same rankings as asked one at a time."""
    ds = _mtr(3)
    r = get_ranker("rf-rf")
    grid = r.rank(ds, {"trees": [4, 9], "rf_variant": "clus"}, seed=5)
    for g in grid:
        alone = r.rank(ds, {"trees": g.params["trees"], "rf_variant": "clus"}, seed=5)[0]
        assert np.array_equal(g.importances, alone.importances)
    assert [g.params["trees"] for g in grid] == [4, 9]
