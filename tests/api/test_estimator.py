"""``FeatureRanker`` as a scikit-learn estimator (frcli/estimator.py).

scikit-learn's own suite (``parametrize_with_checks``) runs on one estimator of each ranker
family, with the expected failures from the one public place, ``frcli.api.
expected_failed_checks``. Then the uses people have: Pipeline, GridSearchCV tuning a ranker
parameter by the downstream score, SelectFromModel, cross_val_score; DataFrames with
categorical, string, boolean, nullable and missing columns, ranked exactly as the command
line ranks their CSV export; multi-output and semi-supervised targets; ``drop``.
"""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.feature_selection import SelectFromModel
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import frcli
from frcli.api import FeatureRanker, expected_failed_checks
from frcli.rankers.registry import DEFAULT_METHOD

# one estimator per ranker family, small enough for scikit-learn's ~45 checks each
FAMILIES = [
    # trees
    FeatureRanker("genie3-rf", trees=10), FeatureRanker("symbolic-et", trees=10),
    FeatureRanker("rf-bagging", trees=10), FeatureRanker(trees=10),
    # Relief
    FeatureRanker("relief"), FeatureRanker("relief-str"),
    # ReliefE
    FeatureRanker("reliefe"),
    # baselines: the non-informed ones, then the papers' competitors
    FeatureRanker("uniform"), FeatureRanker("random"), FeatureRanker("multisurf"),
    FeatureRanker("mutual-info"), FeatureRanker("laplacian", task="regression"),
    FeatureRanker("spec"), FeatureRanker("mcfs"), FeatureRanker("ndfs", updates=20),
    FeatureRanker("sefr", trees=10),
]


@parametrize_with_checks(FAMILIES, expected_failed_checks=expected_failed_checks)
def test_scikit_learn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # degenerate-ranking notes on the checks' tiny data
        check(estimator)


def planted(n=160, seed=0):
    """y depends on x0 and x1 only (x1 less), among 8 features."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 8))
    y = 3 * X[:, 0] - 2 * X[:, 1] + 0.05 * rng.standard_normal(n)
    return X, y


# -- parameters ---------------------------------------------------------------------------------

def test_default_method_is_the_registry_default():
    assert FeatureRanker().method == DEFAULT_METHOD == "genie3"


def test_ranker_parameters_are_scikit_learn_parameters():
    est = FeatureRanker("relief", neighbours=10, n_features_to_select=2)
    assert est.get_params(deep=False)["neighbours"] == 10
    deep = est.get_params()
    assert deep["neighbours"] == 10 and deep["sigma"] == 0.0      # every declared one
    assert "trees" not in deep                                      # not Relief's
    assert repr(est) == "FeatureRanker(method='relief', n_features_to_select=2, neighbours=10)"
    twin = clone(est)
    assert twin.get_params(deep=False) == est.get_params(deep=False)
    twin.set_params(neighbours=5, seed=3)
    assert twin.get_params()["neighbours"] == 5 and est.get_params()["neighbours"] == 10
    with pytest.raises(ValueError, match="Invalid parameter 'trees'.*relief"):
        twin.set_params(trees=5)
    X, y = planted()
    assert twin.fit(X, y).ranking_.params["neighbours"] == 5


def test_a_parameter_both_sides_name_is_refused():
    X, y = planted()
    with pytest.raises(ValueError, match="'threshold'"):
        FeatureRanker("sefr", threshold=0.5).fit(X, (y > 0).astype(int))


def test_errors_are_value_errors_with_frclis_message():
    X, y = planted()
    with pytest.raises(ValueError, match="unknown method 'genie3rf'.*did you mean"):
        FeatureRanker("genie3rf").fit(X, y)
    with pytest.raises(ValueError, match="unknown parameter 'neighbors'"):
        FeatureRanker("relief", neighbors=3).fit(X, y)
    with pytest.raises(ValueError, match="rank_all"):
        FeatureRanker("relief", neighbours=[1, 5]).fit(X, y)
    with pytest.raises(ValueError, match="n_features_to_select"):
        FeatureRanker("uniform", n_features_to_select=0).fit(X, y)
    X[3, 2] = np.inf                                 # missing is NaN; infinity is an error
    with pytest.raises(ValueError, match="infinity"):
        FeatureRanker("uniform").fit(X, y)
    with pytest.raises(ValueError, match="training data:4: bad number inf in column 'x2'"):
        FeatureRanker("uniform").fit(pd.DataFrame(X, columns=[f"x{i}" for i in range(8)]), y)


# -- selection ---------------------------------------------------------------------------------

def test_selection_by_count_fraction_and_threshold():
    X, y = planted()
    est = FeatureRanker("relief", n_features_to_select=2).fit(X, y)
    assert list(est.get_support(indices=True)) == [0, 1]
    assert est.transform(X).shape == (len(X), 2)
    assert list(est.get_feature_names_out()) == ["x0", "x1"]
    assert est.ranking_.ranks()[:2].tolist() == [1, 2]
    est.set_params(n_features_to_select=0.25)
    assert est.get_support().sum() == 2
    cut = np.sort(est.feature_importances_)[-3]
    est.set_params(n_features_to_select=None, threshold=cut)
    assert est.get_support().sum() == 3
    est.set_params(threshold=None)
    assert est.get_support().all()          # no selection asked: every ranked feature


# -- scikit-learn uses -------------------------------------------------------------------------

def test_in_a_pipeline():
    X, y = planted()
    pipe = make_pipeline(FeatureRanker("genie3-rf", trees=20, n_features_to_select=2), Ridge())
    pipe.fit(X, y)
    assert list(pipe[0].get_support(indices=True)) == [0, 1]
    assert pipe.score(X, y) > 0.95


def test_grid_search_tunes_a_ranker_parameter_by_the_downstream_score():
    X, y = planted()
    pipe = Pipeline([("rank", FeatureRanker("relief", n_features_to_select=2)),
                     ("ridge", Ridge())])
    search = GridSearchCV(pipe, {"rank__neighbours": [1, 10], "rank__n_features_to_select":
                                 [1, 2]}, cv=KFold(3))
    search.fit(X, y)
    assert search.best_params_["rank__n_features_to_select"] == 2
    assert search.best_estimator_[0].ranking_.params["neighbours"] == \
        search.best_params_["rank__neighbours"]
    assert len(search.cv_results_["params"]) == 4


def test_select_from_model():
    # a first pipeline, as a new user writes it
    X, y = planted()
    pipe = make_pipeline(SelectFromModel(FeatureRanker("genie3-rf", trees=20), max_features=3,
                                         threshold=-np.inf), Ridge())
    pipe.fit(X, y)
    assert {0, 1} <= set(pipe[0].get_support(indices=True))
    assert pipe.score(X, y) > 0.95


def test_cross_val_score():
    X, y = planted()
    scores = cross_val_score(make_pipeline(FeatureRanker("relief", n_features_to_select=2),
                                           Ridge()), X, y, cv=KFold(4))
    assert scores.shape == (4,) and scores.min() > 0.9


# -- data --------------------------------------------------------------------------------------

def mixed_frame(n=120, seed=1):
    """Numeric, categorical, string, boolean and nullable columns with missing values; the
    target depends on 'colour' (categorical) and 'size' (numeric)."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.random(n)
    df = pd.DataFrame({
        "size": size,
        "colour": pd.Categorical(colour),
        "shop": pd.array(rng.choice(["north", "south"], n), dtype="string"),
        "member": rng.random(n) > 0.5,
        "visits": pd.array(rng.integers(0, 5, n), dtype="Int64"),
        "noise": rng.random(n),
    })
    df.loc[::7, "size"] = np.nan
    df.loc[::11, "colour"] = np.nan
    df.loc[::13, "shop"] = pd.NA
    df.loc[::5, "visits"] = pd.NA
    y = np.where(colour == "red", 2.0, 0.0) + size + 0.01 * rng.standard_normal(n)
    return df, y


@pytest.mark.parametrize("method", ["relief", "genie3-rf"])
def test_a_dataframe_ranks_as_its_csv_export_does(tmp_path, method):
    df, y = mixed_frame()
    est = FeatureRanker(method, trees=20, seed=4) if method != "relief" else \
        FeatureRanker(method, seed=4)
    est.fit(df, y)
    path = tmp_path / "shop.csv"
    df.assign(y=y).to_csv(path, index=False)
    params = {"trees": 20} if method != "relief" else {}
    cli = frcli.rank(str(path), method=method, targets="y", seed=4, **params)
    assert est.ranking_.feature_names == cli.feature_names == list(df.columns)
    np.testing.assert_array_equal(est.feature_importances_, cli.importances)
    top = set(np.asarray(df.columns)[np.argsort(-est.feature_importances_)[:2]])
    assert top == {"colour", "size"}


def test_dataframe_columns_are_nominal_without_one_hot_and_output_keeps_dtypes():
    df, y = mixed_frame()
    est = FeatureRanker("relief", n_features_to_select=3).fit(df, y)
    assert est.n_features_in_ == 6 and list(est.feature_names_in_) == list(df.columns)
    from frcli.data.frame import frame_table

    kinds = {a.name: (a.type, a.values) for a in frame_table(df).attributes}
    assert kinds["colour"] == ("nominal", ("blue", "green", "red"))
    assert kinds["shop"] == ("nominal", ("north", "south"))
    assert kinds["member"] == ("nominal", ("False", "True"))
    assert kinds["visits"][0] == kinds["size"][0] == "numeric"
    out = est.set_output(transform="pandas").transform(df)
    assert "colour" in out.columns and isinstance(out["colour"].dtype, pd.CategoricalDtype)
    plain = est.set_output(transform="default").transform(df)
    assert plain.shape == (len(df), 3)


def test_multi_output_targets():
    X, y = planted()
    Y = np.c_[y, X[:, 2] * 2]
    mtr = FeatureRanker("genie3-rf", trees=20).fit(X, Y)
    assert mtr.ranking_.target_names == ["y0", "y1"]
    assert mtr.per_target_importances_.shape == (2, 8)
    assert np.argmax(mtr.per_target_importances_[1]) == 2
    L = np.c_[X[:, 0] > 0.5, X[:, 3] > 0.5].astype(int)
    mlc = FeatureRanker("relief").fit(X, L)
    assert mlc.ranking_.meta["distance"] == "f1"                 # a label-set distance: mlc
    assert set(np.argsort(-mlc.feature_importances_)[:2]) == {0, 3}
    assert FeatureRanker("relief").fit(X, L.astype(float)).ranking_.meta["distance"] == "f1"
    assert FeatureRanker("relief").fit(X, Y).ranking_.meta["distance"] == "mean"   # mtr
    labels = pd.DataFrame(L, columns=["a", "b"])
    est = FeatureRanker("relief", per_target=True).fit(X, labels)
    assert est.ranking_.target_names == ["a", "b"]
    assert est.per_target_importances_.shape == (2, 8)


def test_semi_supervised_rows_with_nan_targets():
    X, y = planted()
    Y = np.c_[y, X[:, 2]]
    Y[::2] = np.nan
    with pytest.warns(UserWarning, match="no known target"):
        FeatureRanker("relief").fit(X, Y)                       # as the CLI: a warning
    est = FeatureRanker("relief", semi_supervised=True).fit(X, Y)
    assert est.ranking_.meta.get("variant") == "ssl"
    cls = pd.Series(pd.array(np.where(X[:, 0] > 0.5, 1, 0), dtype="Int64"))
    cls[::3] = pd.NA
    est = FeatureRanker("relief", semi_supervised=True).fit(X, cls)
    assert np.argmax(est.feature_importances_) == 0


def test_drop_leaves_columns_out_of_the_ranking():
    df, y = mixed_frame()
    df.insert(0, "sample_id", [f"s{i}" for i in range(len(df))])
    est = FeatureRanker("relief", drop=["sample_id"], n_features_to_select=2).fit(df, y)
    assert np.isnan(est.feature_importances_[0])
    assert "sample_id" not in est.ranking_.feature_names
    assert not est.get_support()[0]
    assert set(est.get_feature_names_out()) == {"colour", "size"}
    with pytest.raises(ValueError, match="no attribute named 'id'"):
        FeatureRanker("relief", drop=["id"]).fit(df, y)
    X, y = planted()
    assert np.isnan(FeatureRanker("uniform", drop="x3").fit(X, y).feature_importances_[3])


def test_unsupervised_without_y():
    X, _ = planted()
    X[:, 1] = X[:, 0] + 0.01 * X[:, 1]          # two related features
    est = FeatureRanker("relief").fit(X)
    assert est.feature_importances_.shape == (8,)
    with pytest.raises(ValueError, match="requires y"):
        FeatureRanker("reliefe").fit(X)


def test_frcli_api_imports_without_scikit_learn():
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "import numpy as np, frcli.api as api\n"
        "r = api.rank((np.random.rand(20, 3), np.random.rand(20)), 'uniform')\n"
        "assert r.importances.shape == (3,)\n"
        "try:\n"
        "    from frcli.api import FeatureRanker\n"
        "except ImportError as e:\n"
        "    assert 'needs scikit-learn' in str(e), e\n"
        "    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
