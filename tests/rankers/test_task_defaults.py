"""The papers' per-task defaults: ensemble settings per setting, the ensemble of
a bare score (``symbolic``, ``genie3``, ``rf``), and ``frcli rank --list-methods`` showing them."""
from __future__ import annotations

import numpy as np

from frcli.data import catalog
from frcli.rankers.ensemble import TASK_ENSEMBLES
from frcli.rankers.registry import get_ranker
from tests.conftest import need_kernel

need_kernel("frcli._ext.pct._forest")


def test_unsupervised_ensembles_follow_p_uns():
    ds = catalog.load("synth-unsupervised")
    for method in ("genie3", "rf", "genie3-et", "rf-et"):
        r = get_ranker(method).rank(ds, {"trees": 4})[0]
        assert r.meta["ensemble"] == "et"
        # leaves of a fifth of the rows (P-UNS: fully grown, min_leaf=auto)
        assert r.params["max_features"] == "log2" and r.params["min_leaf"] == 60.0
        assert r.params["bootstrap"] is True and r.meta["max_features"] == 4   # ⌈log2 12⌉
    # an explicit choice still wins
    r = get_ranker("genie3-et").rank(ds, {"trees": 4, "max_features": "all"})[0]
    assert r.meta["max_features"] == 12


def test_semi_supervised_classification_takes_p_ds_table_2():
    ds = catalog.load("synth-classification")
    ssl = ds.with_unlabeled(np.random.default_rng(0).random(ds.n_examples) < 0.7)
    got = {s: get_ranker(s).rank(ssl, {"trees": 4, "w": 0.5})[0] for s in ("symbolic",
                                                                           "genie3", "rf")}
    assert {s: r.meta["ensemble"] for s, r in got.items()} == \
        {"symbolic": "rf", "genie3": "bagging", "rf": "bagging"}
    assert all(r.params["min_leaf"] == 1.0 for r in got.values())
    et = get_ranker("genie3-et").rank(ssl, {"trees": 4, "w": 0.5})[0]
    assert et.params["bootstrap"] is True          # SSL extra trees bootstrap (T:6386-6393)


def test_supervised_defaults_are_unchanged_and_bare_scores_pick_the_papers_ensemble():
    mlc = catalog.load("synth-mlc")
    assert get_ranker("genie3").rank(mlc, {"trees": 3})[0].meta["ensemble"] == "et"
    assert get_ranker("rf").rank(mlc, {"trees": 3})[0].meta["ensemble"] == "bagging"
    mtr = catalog.load("synth-mtr")
    r = get_ranker("genie3-et").rank(mtr, {"trees": 3})[0]
    assert r.params["bootstrap"] is False and r.params["min_leaf"] == 2.0
    assert r.params["max_features"] == "all"
    same = get_ranker("genie3").rank(mtr, {"trees": 3}, seed=2)[0]
    rf = get_ranker("genie3-rf").rank(mtr, {"trees": 3}, seed=2)[0]
    np.testing.assert_array_equal(same.importances, rf.importances)


def test_every_task_and_setting_has_an_ensemble_per_score():
    for key, choice in TASK_ENSEMBLES.items():
        assert set(choice) == {"symbolic", "genie3", "rf"}, key
        assert set(choice.values()) <= {"rf", "bagging", "et"}, key


def test_bare_scores_share_their_seed_in_experiments():
    from frcli.experiment.plan import seed_key

    assert seed_key("symbolic") == seed_key("genie3") == seed_key("rf") == "forest:task"
    assert seed_key("genie3-rf") == seed_key("rf-rf") == "forest:rf"


def test_list_methods_shows_the_per_task_defaults(capsys):
    from frcli.cli import main

    assert main(["rank", "--list-methods"]) == 0
    out = " ".join(capsys.readouterr().out.split())        # wrapped lines joined
    assert "semi-supervised: classification rf/bagging/bagging" in out
    assert "unsupervised: et/et/et (the unsupervised-ranking paper [" in out
    assert "neighbours=auto" in out and \
        "30 unsupervised (URelief, the unsupervised-ranking paper [" in out
    assert "min_leaf=default" in out and "exclude_self=False" in out
