"""Forest-level properties: scores from recorded nodes, exact zeros, determinism, prediction."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.errors import ConfigError
from frcli.engines.pct.model import PCTForest, resolve_max_features
from frcli.engines.pct.scoring import forest_scores
from tests.conftest import need_kernel
from tests.helpers.pct import make

need_kernel("frcli._ext.pct._forest")


def test_genie3_of_one_tree_is_the_sum_of_recorded_hstar():
    ds = make()
    m = PCTForest("rf", trees=1, seed=3, ties="first").fit(ds)   # credit: the node's feature
    t = m.trees_[0]
    inner = t["feature"] >= 0
    expect = np.zeros(ds.n_features)
    np.add.at(expect, t["feature"][inner], t["hstar"][inner])
    sc = m.scores(0.5)
    assert np.array_equal(sc["genie3"], expect)
    sym = np.zeros(ds.n_features)
    np.add.at(sym, t["feature"][inner], 0.5 ** t["depth"][inner])
    assert np.allclose(sc["symbolic"], sym)
    dyn = np.zeros(ds.n_features)
    np.add.at(dyn, t["feature"][inner], t["weight"][inner] / ds.n_examples)
    assert np.allclose(m.scores("dynamic")["symbolic"], dyn)
    extra = np.zeros(ds.n_features)
    np.add.at(extra, t["feature"][inner], t["hstar"][inner] * t["weight"][inner])
    assert np.allclose(m.scores(genie3_extra_node_weight=True)["genie3"], extra)
    assert (t["hstar"][inner] > 0).all() and (t["hstar"][~inner] == 0).all()
    assert t["weight"][0] == pytest.approx(ds.n_examples)    # bootstrap counts duplicates


@pytest.mark.parametrize("task", ["mtr", "mlc", "hmlc", "classification"])
def test_per_target_genie3_adds_up_to_the_overall_score(task):
    ds = make(task)
    sc = forest_scores(ds, "rf", trees=5, seed=1)
    assert sc["genie3_per_target"].shape == (ds.n_targets, ds.n_features)
    assert np.allclose(sc["genie3_per_target"].sum(axis=0), sc["genie3"])
    assert sc["rf_per_target"].shape == (ds.n_targets, ds.n_features)


@pytest.mark.parametrize("task", ["mtr", "classification", "mlc", "unsupervised"])
def test_rf_score_of_a_feature_outside_the_tree_is_exactly_zero(task):
    ds = make(task, n=40, F=40)
    for seed in range(3):
        m = PCTForest("rf", trees=1, seed=seed, max_features=2, ties="first").fit(
            ds, rf_score=True, per_target=True)   # ties=share: test_forest_ties.py
        used = set(m.trees_[0]["feature"][m.trees_[0]["feature"] >= 0])
        sc = m.scores()
        unused = [f for f in range(ds.n_features) if f not in used]
        assert unused, "the test needs a feature the tree does not use"
        assert all(sc["rf"][f] == 0.0 for f in unused)
        if "rf_per_target" in sc:
            assert (sc["rf_per_target"][:, unused] == 0.0).all()


@pytest.mark.parametrize("ensemble", ["rf", "bagging", "et"])
def test_results_do_not_depend_on_the_number_of_threads(ensemble):
    ds = make("mtr", missing=0.05)
    a = forest_scores(ds, ensemble, trees=12, seed=7, jobs=1, bootstrap=True)
    b = forest_scores(ds, ensemble, trees=12, seed=7, jobs=2, bootstrap=True)
    for key in ("symbolic", "genie3", "rf", "genie3_per_target", "rf_per_target"):
        assert np.array_equal(a[key], b[key]), key
    c = forest_scores(ds, ensemble, trees=12, seed=8, jobs=2, bootstrap=True)
    assert not np.array_equal(a["genie3"], c["genie3"])


def test_predictions_per_task():
    for task in ("mtr", "classification", "mlc", "hmlc", "unsupervised"):
        ds = make(task)
        m = PCTForest("rf", trees=10).fit(ds)
        P = m.predict(ds.X)
        assert P.shape[0] == ds.n_examples
        if task == "mtr":
            assert P.shape[1] == 3
            assert np.corrcoef(P[:, 0], ds.Y[:, 0])[0, 1] > 0.9
        elif task == "classification":
            assert P.shape[1] == 3 and np.allclose(P.sum(axis=1), 1.0)
            assert np.mean(P.argmax(axis=1) == ds.Y[:, 0]) > 0.9
        elif task in ("mlc", "hmlc"):
            assert P.shape[1] == 4 and P.min() >= 0 and P.max() <= 1
            assert np.mean((P >= 0.5) == ds.Y) > 0.85
            assert (P[:, 0] >= P[:, 1] - 1e-12).all()   # hierarchy constraint holds
        else:
            assert P.shape[1] == ds.n_features


def test_predict_targets_gives_one_column_per_target():
    ds = make("classification")
    m = PCTForest("rf", trees=10).fit(ds)
    codes = m.predict_targets(ds.X)
    assert codes.shape == (ds.n_examples, 1)
    assert np.array_equal(codes[:, 0], m.predict(ds.X).argmax(axis=1))
    mix = Dataset("mix", ds.X, ds.features, "mtr", np.column_stack([ds.Y[:, 0], ds.X[:, 0]]),
                  [Attribute("c", "nominal", tuple("abc")), Attribute("y", "numeric")])
    m = PCTForest("rf", trees=10).fit(mix)
    assert m.predict(mix.X).shape[1] == 4                # one-hot (3) + numeric (1)
    P = m.predict_targets(mix.X)
    assert P.shape == (mix.n_examples, 2) and set(np.unique(P[:, 0])) <= {0.0, 1.0, 2.0}


def test_prediction_with_missing_values_mixes_both_branches():
    ds = make("mtr", missing=0.1)
    m = PCTForest("bagging", trees=5).fit(ds)
    X = ds.X.copy()
    X[:, 0] = np.nan
    P = m.predict(X)
    assert np.isfinite(P).all()
    assert P[:, 0].std() < m.predict(ds.X)[:, 0].std()


def test_rf_score_needs_out_of_bag_examples():
    with pytest.raises(ConfigError, match="out-of-bag"):
        PCTForest("et", trees=2).fit(make(), rf_score=True)
    PCTForest("et", trees=2, bootstrap=True).fit(make(), rf_score=True)


def test_max_features_resolution():
    assert resolve_max_features(None, 100, "rf") == 10
    assert resolve_max_features(None, 101, "rf") == 11        # ⌈√F⌉ (spec-core A15)
    assert resolve_max_features(None, 100, "et") == 100
    assert resolve_max_features("log2", 100, "rf") == 7
    assert resolve_max_features(0.25, 10, "rf") == 3
    assert resolve_max_features(3, 10, "rf") == 3
    assert resolve_max_features(30, 10, "rf") == 10
    with pytest.raises(ConfigError):
        resolve_max_features("half", 10, "rf")
    with pytest.raises(ConfigError):
        resolve_max_features(1.5, 10, "rf")


def test_extra_trees_without_bootstrap_use_all_rows():
    ds = make()
    m = PCTForest("et", trees=3).fit(ds)
    assert all(t["weight"][0] == ds.n_examples for t in m.trees_)
    # trees differ (random tests) although they see the same rows
    assert len({float(t["threshold"][0]) for t in m.trees_}) == 3


def test_perfect_oob_fit_trees_are_counted():
    n = 60
    X = np.repeat(np.arange(3.0), n // 3)[:, None]
    ds = Dataset("p", X, [Attribute("x", "numeric")], "regression", X[:, 0] * 2,
                 [Attribute("y", "numeric")])
    sc = forest_scores(ds, "bagging", trees=5, seed=0)
    assert sc["meta"]["rf_zero_error_trees"] == 5
    assert sc["rf"][0] == 0.0


@pytest.mark.parametrize("task", ["mtr", "mlc"])
def test_supervised_forest_grows_on_the_labeled_rows_only(task):
    """w=None (supervised): rows without targets carry nothing to learn; the model equals
    the one grown on the labeled rows (before: they joined the bags with unknown targets)."""
    ds = make(task, n=120)
    part = ds.with_unlabeled(np.random.default_rng(4).random(120) < 0.4)
    a = PCTForest("bagging", trees=4, seed=2).fit(part)
    b = PCTForest("bagging", trees=4, seed=2).fit(part.subset(part.labeled))
    np.testing.assert_array_equal(a.predict(ds.X), b.predict(ds.X))


def test_a_tree_is_a_read_only_pickle_safe_record_of_its_arrays():
    """``_tree.Tree``: the grown arrays with a defined layout (``FIELDS``), read-only,
    readable as a mapping, and a pickled model predicts what the original predicts."""
    import pickle

    from frcli.engines.pct.kernels import tree as _tree

    ds = make("mtr", n=80, F=5, seed=2)
    m = PCTForest("rf", trees=4, seed=3).fit(ds)
    t = m.trees_[0]
    assert isinstance(t, _tree.Tree)
    assert t.feature.dtype == np.int32 and t.values.shape[1] == m.spec_.a.shape[0]
    assert t["feature"] is t.feature and "values" in t and "tie_ptr" in t
    assert set(t.keys()) <= set(_tree.FIELDS)
    with pytest.raises(ValueError):
        t.threshold[0] = 1.0
    with pytest.raises(KeyError):
        t["nope"]
    back = pickle.loads(pickle.dumps(m))
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(m.trees_, back.trees_)
               for k in a.keys())
    assert np.array_equal(m.predict(ds.X), back.predict(ds.X))
    with pytest.raises(ValueError, match="needs"):
        _tree.Tree(feature=t.feature)
