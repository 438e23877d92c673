"""Top-f learner evaluation (rF1, AUrF1), repeated CV with iterative stratification, and the
``kind: topf`` evaluation of experiment configs."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import simpson

from frcli.api import dataset_from_arrays
from frcli.data.splits import folds_to_splits, iterative_stratification, kfold_assign
from frcli.errors import ConfigError
from frcli.evaluate.protocol import EvalSpec, evaluate_ranking
from frcli.evaluate.topf import evaluate_topf, grid
from frcli.experiment.config import parse_config


def _classification(n=160, F=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, F))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.75).astype(int)
    return dataset_from_arrays(X, y)


def test_grid():
    assert grid(10, "pow2") == [1, 2, 4, 8, 10]
    assert grid(10, [20, 3, 3, 1]) == [1, 3, 10]


def test_rf1_curve_and_aurf1_of_a_good_and_a_bad_ranking():
    ds = _classification()
    tr, te = ds.subset(np.arange(100)), ds.subset(np.arange(100, 160))
    good = evaluate_topf(tr, te, np.arange(10)[::-1].astype(float))     # f0 first
    bad = evaluate_topf(tr, te, np.arange(10).astype(float))            # f0 last
    assert good["rf1@10"] == 1.0 and bad["rf1@10"] == 1.0
    assert good["f1@10"] == good["f1"]
    fs = [1, 2, 4, 8, 10]
    r = np.array([good[f"rf1@{f}"] for f in fs])
    assert good["aurf1"] == pytest.approx(simpson(r, x=np.arange(5.0)) / 5)
    assert good["aurf1"] > bad["aurf1"] + 0.1
    assert good["rf1@2"] > bad["rf1@2"]
    assert good["f1_max"] == max(good[f"f1@{f}"] for f in fs)
    assert good["rf1_max"] == pytest.approx(good["f1_max"] / good["f1"])
    # through the generic entry point; knn specs keep their earlier fingerprint
    spec = EvalSpec(kind="topf", curve=(1, 2, 10))
    out = evaluate_ranking(tr, te, np.arange(10)[::-1].astype(float), spec)
    assert set(k for k in out if "@" in k and k.startswith("rf1@")) == {"rf1@1", "rf1@2",
                                                                       "rf1@10"}
    assert "kind" not in EvalSpec().to_dict() and spec.to_dict()["kind"] == "topf"


def test_multilabel_random_forest():
    rng = np.random.default_rng(1)
    X = rng.random((150, 8))
    Y = np.c_[X[:, 0] > 0.5, X[:, 1] > 0.5, X[:, 0] + X[:, 1] > 1].astype(np.uint8)
    ds = dataset_from_arrays(X, Y, task="mlc")
    tr, te = ds.subset(np.arange(100)), ds.subset(np.arange(100, 150))
    good = evaluate_topf(tr, te, np.r_[2.0, 2.0, np.zeros(6)], curve=[2, 8])
    bad = evaluate_topf(tr, te, np.r_[0.0, 0.0, np.ones(6)], curve=[2, 8])
    assert good["rf1@2"] > bad["rf1@2"] + 0.2 and 0 < good["f1"] <= 1


def test_iterative_stratification_balances_labels():
    rng = np.random.default_rng(2)
    Y = (rng.random((400, 8)) < rng.uniform(0.03, 0.4, 8)).astype(np.uint8)
    folds = iterative_stratification(Y, 10, seed=3)
    assert sorted(set(folds.tolist())) == list(range(10))
    counts = np.array([Y[folds == j].sum(axis=0) for j in range(10)])
    spread = counts.max(axis=0) - counts.min(axis=0)
    # the rarest label is dealt first and is exact; later ones inherit earlier choices
    assert spread[np.argmin(Y.sum(axis=0))] <= 1 and (spread <= 3).all()
    rand = np.array([Y[np.arange(400) % 10 == j].sum(axis=0) for j in range(10)])
    assert (counts.max(0) - counts.min(0)).sum() < (rand.max(0) - rand.min(0)).sum()
    assert np.array_equal(folds, iterative_stratification(Y, 10, seed=3))
    assert not np.array_equal(folds, iterative_stratification(Y, 10, seed=3, repeat=1))
    splits = folds_to_splits(folds)
    assert len(splits) == 10 and sum(len(te) for _, te in splits) == 400


def test_repeated_cv_repetition_zero_is_the_plain_cv():
    y = np.repeat([0, 1, 2], 20)
    assert np.array_equal(kfold_assign(60, 5, 7, y), kfold_assign(60, 5, 7, y, repeat=0))
    assert not np.array_equal(kfold_assign(60, 5, 7, y), kfold_assign(60, 5, 7, y, repeat=1))


def _config(tmp_path, evaluation, protocol=None, task="classification"):
    rng = np.random.default_rng(4)
    X = rng.random((40, 5))
    lines = ["@relation t"] + [f"@attribute f{i} numeric" for i in range(5)]
    if task == "classification":
        y = (X[:, 4] > 0.5).astype(int)          # the last feature: uniform ranks it last
        lines += ["@attribute class {0,1}", "@data"]
        lines += [",".join(f"{v:.6f}" for v in row) + f",{c}" for row, c in zip(X, y)]
        entry = {"name": "t", "path": str(tmp_path / "t.arff"), "targets": "last:1"}
    else:
        lines += ["@attribute y numeric", "@data"]
        lines += [",".join(f"{v:.6f}" for v in row) + f",{row[0]:.6f}" for row in X]
        entry = {"name": "t", "path": str(tmp_path / "t.arff"), "targets": "last:1"}
    (tmp_path / "t.arff").write_text("\n".join(lines) + "\n")
    return {"name": "topf", "datasets": [entry],
            "protocol": protocol or {"type": "repeated-cv", "repeats": 2, "folds": 3},
            "rankers": ["uniform", {"method": "reliefe", "params": {"embed": "none"}}],
            "evaluation": evaluation, "output": str(tmp_path / "results")}


def test_experiment_with_topf_evaluation_and_repeated_cv(tmp_path):
    from frcli.experiment.executor import run_experiment
    from frcli.results.store import tidy_frame

    cfg = parse_config(_config(tmp_path, {"kind": "topf", "curve": [1, 2, 5]}))
    assert cfg.protocol.n_splits == 6
    summary = run_experiment(cfg, progress=False)
    assert not summary.failures and summary.runs_written == 12
    df = tidy_frame(summary.directory)
    au = df[df["measure"] == "aurf1"]
    assert len(au) == 12 and au["value"].between(0, 2).all()
    rel = au[au["method"] == "reliefe"]["value"].mean()
    uni = au[au["method"] == "uniform"]["value"].mean()
    assert rel > uni + 0.1


@pytest.mark.parametrize("evaluation, protocol, task, words", [
    ({"kind": "topf", "knn": 3}, None, "classification", ["knn", "kNN setting"]),
    ({"learner": "logistic"}, None, "classification", ["learner", "topf only"]),
    ({"kind": "topf", "learner": "svm"}, None, "classification", ["svm"]),
    ({"kind": "nope"}, None, "classification", ["evaluation kind"]),
    ({"kind": "topf"}, None, "regression", ["topf", "classification and mlc"]),
    ({}, {"type": "repeated-cv", "labeled": [5]}, "classification", ["labeled",
                                                                    "repeated-cv"]),
])
def test_config_errors(tmp_path, evaluation, protocol, task, words):
    doc = _config(tmp_path, evaluation, protocol, task)
    if task == "regression":
        doc["datasets"][0]["task"] = "regression"
    with pytest.raises(ConfigError) as e:
        parse_config(doc)
    for w in words:
        assert w in str(e.value), str(e.value)
