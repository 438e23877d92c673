"""The ranker contract: parameters, grids, registry, Ranking ranks and the writers."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, strategies as st

from frcli.api import FeatureRanker, dataset_from_arrays, rank, rank_all
from frcli.errors import ConfigError, UserError
from frcli.output import to_csv, to_fimp, to_json, render
from frcli.rankers.base import Param, Ranker, Ranking, parse_float, parse_int
from frcli.rankers.registry import get_ranker, method_names


def small_dataset(task="mtr"):
    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    Y = rng.random((30, 2)) if task == "mtr" else rng.integers(0, 2, 30)
    return dataset_from_arrays(X, Y)


class GridRanker(Ranker):
    tasks = ("mtr", "regression")
    params = (Param("a", parse_int, 1), Param("b", parse_float, 0.5,
                                               check=lambda v: v >= 0, check_msg="must be ≥ 0"))

    def rank_one(self, dataset, params, *, seed, jobs):
        imp = np.arange(dataset.n_features, dtype=float) * params["a"] + params["b"]
        return Ranking(self.method, dataset.feature_names, imp, dict(params))


def test_ranks_are_stable_on_ties_and_one_is_best():
    r = Ranking("m", ["a", "b", "c", "d"], np.array([0.5, 2.0, 0.5, np.nan]))
    assert r.ranks().tolist() == [2, 1, 3, 4]
    assert r.order().tolist() == [1, 0, 2, 3]


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30))
def test_ranks_are_a_permutation_consistent_with_importances(values):
    r = Ranking("m", [f"f{i}" for i in range(len(values))], np.array(values))
    ranks = r.ranks()
    assert sorted(ranks.tolist()) == list(range(1, len(values) + 1))
    imp = np.array(values)
    for i in range(len(values)):
        for j in range(len(values)):
            if imp[i] > imp[j]:
                assert ranks[i] < ranks[j]
            if imp[i] == imp[j] and i < j:
                assert ranks[i] < ranks[j]


def test_grid_expands_every_combination_in_order():
    ranker = GridRanker("grid")
    out = ranker.rank(small_dataset(), {"a": [1, 2], "b": ["0", "1.5"]})
    assert [(r.params["a"], r.params["b"]) for r in out] == [(1, 0.0), (1, 1.5), (2, 0.0),
                                                          (2, 1.5)]


def test_unknown_and_bad_parameters_are_user_errors_naming_the_choices():
    ranker = GridRanker("grid")
    with pytest.raises(ConfigError, match="unknown parameter 'c'.*allowed: a, b"):
        ranker.rank(small_dataset(), {"c": 1})
    with pytest.raises(ConfigError, match="bad value 'x' for parameter 'a'"):
        ranker.rank(small_dataset(), {"a": "x"})
    with pytest.raises(ConfigError, match="must be ≥ 0"):
        ranker.rank(small_dataset(), {"b": -1})
    with pytest.raises(ConfigError, match="does not support task 'classification'"):
        ranker.rank(small_dataset("classification"), {})


def test_registry_names_and_unknown_method():
    names = method_names()
    for n in ("uniform", "random", "relief", "relief-str", "genie3-rf", "symbolic-bagging-str",
              "rf-et"):
        assert n in names
    with pytest.raises(UserError, match="unknown method 'nope'"):
        get_ranker("nope")


def test_baselines():
    ds = small_dataset()
    u = rank(ds, "uniform")
    assert np.all(u.importances == 1.0)
    r1, r2 = rank(ds, "random", seed=3), rank(ds, "random", seed=3)
    assert np.array_equal(r1.importances, r2.importances)
    assert not np.array_equal(r1.importances, rank(ds, "random", seed=4).importances)


def test_api_grid_needs_rank_all():
    ds = small_dataset()
    with pytest.raises(ConfigError, match="rank_all"):
        from frcli.rankers import registry
        registry.register("grid-test", "tests.rankers.test_ranker_contract:GridRanker")
        rank(ds, "grid-test", a=[1, 2])
    assert len(rank_all(ds, "grid-test", a=[1, 2])) == 2


def test_estimator_interface():
    X = np.random.default_rng(1).random((20, 3))
    est = FeatureRanker("uniform").fit(X, X[:, 0])
    assert est.feature_importances_.shape == (3,)
    assert est.get_params()["method"] == "uniform"


def test_dataset_from_arrays_infers_tasks():
    X = np.zeros((4, 2))
    assert dataset_from_arrays(X, np.array([0, 1, 0, 1])).task == "classification"
    assert dataset_from_arrays(X, np.array([0.1, 1, 0, 1])).task == "regression"
    assert dataset_from_arrays(X, np.eye(4, dtype=int)[:, :3]).task == "mlc"
    assert dataset_from_arrays(X, np.random.random((4, 3))).task == "mtr"
    assert dataset_from_arrays(X, None).task == "unsupervised"


def test_writers_round_trip():
    r = Ranking("genie3-rf", ["a", "b,c", "d"], np.array([0.1, 0.3, 0.2]), {"trees": 10},
                per_target=np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), target_names=["t1", "t2"])
    csv = to_csv(r).splitlines()
    assert csv[0] == "feature,importance,rank"
    assert csv[1] == '"b,c",0.3,1'                              # rank order
    assert to_csv(r, sort="columns").splitlines()[2] == '"b,c",0.3,1'
    doc = json.loads(to_json([r]))
    assert doc["per_target"]["t2"]["a"] == 3.0
    assert doc["params"] == {"trees": 10}
    fimp = to_fimp([r]).splitlines()
    head = next(i for i, line in enumerate(fimp) if line.startswith("attributeDatasetIndex"))
    assert set(fimp[head + 1]) == {"-"}
    assert fimp[head + 2] == "1\ta\t[3, 3, 1]\t[0.1, 1.0, 3.0]"
    assert "overAll" in fimp[head] and "t1" in fimp[head]
    grid = [Ranking("relief", ["a", "b"], np.array([1.0, 2.0]), {"neighbours": k})
            for k in (1, 5)]
    lines = render(grid, "csv", which=None).splitlines()
    assert lines[0] == "neighbours,feature,importance,rank" and len(lines) == 5


def test_api_semi_supervised_arrays():
    rng = np.random.default_rng(2)
    X = rng.random((60, 4))
    Y = np.c_[X[:, 0] * 3, X[:, 1]]
    Y[:30] = np.nan
    ds = dataset_from_arrays(X, Y, semi_supervised=True)
    assert ds.semi_supervised and ds.labeled.sum() == 30
    assert not dataset_from_arrays(X, Y).semi_supervised
    cls = dataset_from_arrays(X, np.array([1.0, np.nan, 2.0] * 20), task="classification")
    assert np.isnan(cls.Y[1, 0]) and cls.targets[0].categories == ("1.0", "2.0")
    est = FeatureRanker("relief", semi_supervised=True).fit(X, Y)
    assert est.ranking_.meta.get("variant") == "ssl"


# -- Ranker.validate: every parameter checked against the data before any work ---------------

class Recording(GridRanker):
    calls = 0

    def validate(self, dataset, params_grid=None):
        grid = super().validate(dataset, params_grid)
        if grid["a"] != [1] and dataset.task == "regression":
            raise ConfigError("parameter 'a' does not fit regression")
        return grid

    def rank_one(self, dataset, params, *, seed, jobs):
        Recording.calls += 1
        return super().rank_one(dataset, params, seed=seed, jobs=jobs)


def test_validate_is_task_check_plus_resolve_and_runs_before_any_work():
    r = Recording("rec")
    assert GridRanker("g").validate(small_dataset(), {"a": [1, 2]}) == {"a": [1, 2],
                                                                        "b": [0.5]}
    with pytest.raises(ConfigError, match="does not support task 'classification'"):
        GridRanker("g").validate(small_dataset("classification"), {})
    reg = dataset_from_arrays(np.random.default_rng(0).random((20, 3)), np.arange(20.0))
    with pytest.raises(ConfigError, match="does not fit regression"):
        r.rank(reg, {"a": [1, 2]})
    assert Recording.calls == 0
    assert len(r.rank(reg, {"a": 1})) == 1 and Recording.calls == 1


def _no_engine(monkeypatch):
    """Make any Relief computation fail: validation must not get that far."""
    import frcli.engines.relief.relief as engine

    def boom(*a, **k):
        raise AssertionError("the engine ran before the parameters were checked")
    monkeypatch.setattr(engine, "relief", boom)


@pytest.mark.parametrize("task, params, words", [
    ("mtr", {"distance": "f1"}, ["'distance'", "task mtr", "allowed: default"]),
    ("regression", {"distance": ["default", "hamming"]}, ["'hamming'", "regression"]),
    ("classification", {"distance": "clus"}, ["'clus'"]),
    ("mlc", {"distance": "clus"}, ["'clus'", "mlc", "hamming, accuracy, f1, subset"]),
    ("mtr", {"w0": 0.5}, ["'w0'", "hmlc"]),
    ("mlc", {"weights": "mean"}, ["'weights'", "hmlc"]),
    ("unsupervised", {"per_target": True}, ["'per_target'", "needs targets"]),
    ("unsupervised", {"influence_far": 0.2}, ["'influence_far'", "needs targets"]),
    ("mtr", {"influence": "fixed", "influence_far": 0.9, "influence_near": 0.8},
     ["influence_far", "<="]),
    ("mtr", {"influence_far": 0.2}, ["'influence_far'", "influence=auto", "influence=fixed"]),
    ("unsupervised", {"neighbours": "cv"}, ["neighbours=cv", "'unsupervised'"]),
    ("mtr", {"ssl_w0": 0.2}, ["unknown parameter 'ssl_w0'", "influence_near"]),
])
def test_relief_validate_rejects_params_that_do_not_fit_the_task(monkeypatch, task, params,
                                                                 words):
    _no_engine(monkeypatch)
    rng = np.random.default_rng(0)
    X = rng.random((12, 3))
    Y = {"mtr": rng.random((12, 2)), "regression": rng.random(12),
         "classification": rng.integers(0, 2, 12).astype(float),
         "mlc": rng.integers(0, 2, (12, 3)).astype(np.uint8), "unsupervised": None}[task]
    ds = dataset_from_arrays(X, Y, task=None if Y is None else task)
    assert ds.task == task
    for method in ("relief", "relief-str") if task != "unsupervised" else ("relief",):
        for call in (lambda: get_ranker(method).validate(ds, params),
                     lambda: get_ranker(method).rank(ds, params)):
            with pytest.raises(ConfigError) as e:
                call()
            for w in words:
                assert w in str(e.value), str(e.value)


def test_relief_validate_accepts_defaults_and_hmlc_params_everywhere_they_fit():
    ds = small_dataset()
    grid = get_ranker("relief").validate(ds, {"w0": 0.75, "neighbours": [5, 10]})
    assert grid["neighbours"] == [5, 10] and grid["influence_far"] == [0.5]
    with pytest.raises(ConfigError, match="relief-str' needs targets"):
        get_ranker("relief-str").validate(dataset_from_arrays(ds.X), {})
