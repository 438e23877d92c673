"""The bundled synthetic sets (datasets/synthetic): planted features on top for every task,
ensemble and score (the relevant set of each truth file fills the top of the ranking)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from frcli.rankers.registry import get_ranker

pytest.importorskip("frcli._ext._forest")
load_dataset = pytest.importorskip("frcli.data").load_dataset

SYNTH = Path(__file__).resolve().parents[1] / "datasets" / "synthetic"
NAMES = ["synth-regression", "synth-mtr", "synth-classification", "synth-mlc", "synth-hmlc",
         "synth-ssl-mtr", "synth-unsupervised"]


def load(name):
    path = SYNTH / f"{name}.arff"
    if not path.exists():
        pytest.skip(f"{path} not found")
    truth = json.loads((SYNTH / f"{name}.truth.json").read_text())
    kw = {"task": "unsupervised"} if truth["task"] == "unsupervised" else {
        "targets": truth["targets"]}
    if truth.get("semi_supervised"):
        kw["semi_supervised"] = True
    return load_dataset(path, **kw), truth


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["genie3-rf", "symbolic-bagging", "rf-rf", "genie3-et"])
def test_relevant_features_fill_the_top(name, method):
    ds, truth = load(name)
    if name == "synth-unsupervised" and method.startswith("symbolic"):
        pytest.skip("Symbolic is not used for unsupervised ranking (spec-ssl-unsup §2.1)")
    params = {"trees": 40, "w": 0.5}
    r = get_ranker(method).rank(ds, params, seed=0)[0]
    relevant = set(truth["relevant"])
    top = {ds.feature_names[i] for i in r.order()[:len(relevant)]}
    if name == "synth-unsupervised":
        # redundant cluster features share credit: most of them lead
        assert len(top & relevant) >= len(relevant) - 1, r.importances.round(3)
    else:
        assert top == relevant, dict(zip(ds.feature_names, np.round(r.importances, 3)))
