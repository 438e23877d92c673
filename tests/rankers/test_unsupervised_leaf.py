"""The unsupervised ensembles' default leaf (a fifth of the rows): on planted clusters, the
features that carry the clusters lead the ranking of every score and ensemble, where fully
grown trees (``min_leaf=auto``, the papers' setting) let the noise features take their place.

An unsupervised tree's targets are all the features, so a split on a noise feature lowers that
feature's own variance; grown to single rows, a tree spends most of its nodes explaining each
noise feature through itself, and the Symbolic, Genie3 and RF scores credit those splits. The
bundled synth-unsupervised set has three clusters seen by f01-f04 and eight noise features;
bagging (every feature tried at every node) masks the redundant f03, so three of four is the
bar (``bench/bench_ties.py planted`` measures the full table).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from frcli.data import catalog
from frcli.rankers.ensemble import UNSUPERVISED_LEAF_SHARE, leaf_rows, shared_forests
from frcli.rankers.registry import get_ranker
from tests.conftest import need_kernel

need_kernel("frcli._ext.pct._forest")

RELEVANT = {"f01", "f02", "f03", "f04"}
# the cells that fell below 3 of 4 with fully grown trees (share rule, 8 seeds)
METHODS = ("rf-bagging", "symbolic-bagging", "genie3-bagging", "symbolic-rf")
SEEDS = (1, 2, 3)


def _recall(params: dict) -> dict[str, float]:
    ds = catalog.load("synth-unsupervised")
    out = {}
    with warnings.catch_warnings(), shared_forests():
        warnings.simplefilter("ignore")
        for m in METHODS:
            got = []
            for seed in SEEDS:
                r = get_ranker(m).rank(ds, {"trees": 50, **params}, seed=seed)[0]
                top = {ds.feature_names[i] for i in r.order()[:len(RELEVANT)]}
                got.append(len(top & RELEVANT) / len(RELEVANT))
            out[m] = float(np.mean(got))
    return out


def test_cluster_features_lead_every_score_with_the_default_leaf():
    got = _recall({})
    assert min(got.values()) >= 0.75, got


def test_fully_grown_trees_let_noise_features_in():
    """The counterpart: the papers' fully grown trees fail the same check."""
    got = _recall({"min_leaf": "auto"})
    assert min(got.values()) < 0.75, got


def test_the_leaf_is_a_share_of_the_rows():
    ds = catalog.load("synth-unsupervised")
    r = get_ranker("genie3-et").rank(ds, {"trees": 2})[0]
    assert r.params["min_leaf"] == UNSUPERVISED_LEAF_SHARE * ds.n_examples
    assert get_ranker("genie3-et").rank(ds, {"trees": 2, "min_leaf": "auto"})[0] \
        .params["min_leaf"] == 1.0
    # an explicit share below 1, or a number of rows
    assert get_ranker("genie3-et").rank(ds, {"trees": 2, "min_leaf": 0.1})[0] \
        .params["min_leaf"] == pytest.approx(0.1 * ds.n_examples)
    assert get_ranker("genie3-et").rank(ds, {"trees": 2, "min_leaf": 7})[0] \
        .params["min_leaf"] == 7.0
    assert leaf_rows(0.2, 3) == 1.0          # never below one row
    # supervised and semi-supervised defaults are the papers' values
    mtr = catalog.load("synth-mtr")
    assert get_ranker("genie3-rf").rank(mtr, {"trees": 2})[0].params["min_leaf"] == 2.0
