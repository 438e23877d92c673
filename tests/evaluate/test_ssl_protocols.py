"""The semi-supervised papers' protocols: several kNN sizes and stored confusion counts in the
evaluation, and the summaries of frcli.stats.pooling (pooled confusion matrices, fold means
weighted by size, areas over L)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from frcli.errors import ConfigError
from frcli.evaluate.measures import direction
from frcli.evaluate.protocol import EvalSpec, evaluate_ranking
from frcli.experiment.config import parse_config
from frcli.stats.pooling import (area_over_labeled, confusion_measures, pooled_confusion,
                                 weighted_over_splits)


def _cfg(tmp_path, evaluation):
    return parse_config({"name": "x", "datasets": ["synth-classification"], "rankers": ["uniform"],
                         "evaluation": evaluation}, "c.yaml", tmp_path)


def test_config_takes_several_knn_sizes_and_confusion(tmp_path):
    cfg = _cfg(tmp_path, {"knn": [20, 40], "confusion": True})
    assert cfg.evaluation.knn == 20 and cfg.evaluation.extra_knn == (40,)
    d = cfg.evaluation.to_dict()
    assert d["extra_knn"] == [40] and d["confusion"] is True
    plain = _cfg(tmp_path, {"knn": 20}).evaluation.to_dict()
    assert "extra_knn" not in plain and "confusion" not in plain   # old fingerprints kept
    for bad in ([], [20, 20], [0], ["a"]):
        with pytest.raises(ConfigError, match="knn"):
            _cfg(tmp_path, {"knn": bad})


def test_extra_knn_measures_and_confusion_counts():
    from frcli.data import catalog
    from frcli.evaluate.measures import accuracy
    from frcli.evaluate.knn import knn_predict

    ds = catalog.load("synth-classification")
    train, test = ds.subset(np.arange(200)), ds.subset(np.arange(200, 300))
    imp = np.linspace(1, 0, ds.n_features)
    spec = EvalSpec(knn=5, measures=("accuracy", "macro_f1"), extra_knn=(15,), confusion=True)
    out = evaluate_ranking(train, test, imp, spec)
    assert {"accuracy", "macro_f1", "accuracy_k15", "macro_f1_k15"} <= set(out)
    want15 = accuracy(test.Y[:, 0], knn_predict(train, test.X, imp, 15))
    assert out["accuracy_k15"] == pytest.approx(want15)
    cells = {k: v for k, v in out.items() if k.startswith("cm:")}
    assert sum(cells.values()) == 100
    diag = sum(v for k, v in cells.items() if k.split(":")[1] == k.split(":")[2])
    assert diag / 100 == pytest.approx(out["accuracy"])
    assert direction("accuracy_k15") == "higher" and direction("rrmse_k40") == "lower"


def test_confusion_measures_by_hand():
    cm = np.array([[5, 1, 0], [2, 3, 0], [0, 0, 0]])     # class 2 never occurs
    m = confusion_measures(cm)
    assert m["accuracy"] == pytest.approx(8 / 11)
    f1_0 = 2 * 5 / (2 * 5 + 2 + 1)
    f1_1 = 2 * 3 / (2 * 3 + 1 + 2)
    assert m["macro_f1"] == pytest.approx((f1_0 + f1_1) / 2)
    pe = (6 * 7 + 5 * 4) / 121
    assert m["kappa"] == pytest.approx((8 / 11 - pe) / (1 - pe))


def test_pooling_adds_the_folds_matrices_and_weights_fold_means():
    rows = []
    for split, cells in enumerate([{"cm:0:0": 3, "cm:1:1": 1}, {"cm:0:1": 2, "cm:1:1": 4}]):
        for k, v in cells.items():
            rows.append(("d", split, 50, "m", "{}", k, float(v)))
        acc = sum(v for k, v in cells.items() if k[3] == k[5]) / sum(cells.values())
        rows.append(("d", split, 50, "m", "{}", "accuracy", acc))
    frame = pd.DataFrame(rows, columns=["dataset", "split", "labeled", "method", "params",
                                        "measure", "value"])
    pooled = pooled_confusion(frame)
    assert pooled.loc[0, "accuracy"] == pytest.approx(8 / 10)
    runs = pd.DataFrame({"dataset": "d", "split": [0, 1], "labeled": 50, "method": "m",
                         "params": "{}", "n_test": [4, 6]})
    w = weighted_over_splits(frame, runs, "accuracy")
    assert float(w.iloc[0]) == pytest.approx((1.0 * 4 + (4 / 6) * 6) / 10)


def test_area_over_labeled_is_the_unit_spaced_trapezoid():
    idx = pd.MultiIndex.from_tuples([("d", L, "m", "{}") for L in (50, 100, 200)],
                                    names=["dataset", "labeled", "method", "params"])
    s = pd.Series([0.5, 0.7, 0.8], index=idx)
    a = area_over_labeled(s)
    assert float(a.iloc[0]) == pytest.approx((0.5 + 0.7) / 2 + (0.7 + 0.8) / 2)
