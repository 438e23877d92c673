"""P-ML's clustering-hypothesis estimate CH (``frcli.data.hypothesis``) and its line in
``frcli datasets info``."""
from __future__ import annotations

import json

import numpy as np
import pytest

from frcli.data.hypothesis import clustering_hypothesis
from frcli.data.synthetic import planted_ssl
from frcli.errors import UserError

pytest.importorskip("sklearn")


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_ch_separates_planted_sets_where_the_assumption_holds(task):
    holds = [clustering_hypothesis(planted_ssl(holds=True, task=task, seed=s)[0])["ch"]
             for s in range(3)]
    fails = [clustering_hypothesis(planted_ssl(holds=False, task=task, seed=s)[0])["ch"]
             for s in range(3)]
    # k-means with k = 8 (regression) always explains a little variance: compare the two
    assert min(holds) > 0.08 and min(holds) > 3 * max(fails), (holds, fails)


def test_ch_definitions_on_a_hand_made_example():
    """Two clean clusters in the features; classification: ARI 1; regression with the target
    constant within clusters: 1 - 0 = 1; a target unrelated to the clusters: ~0."""
    from frcli.data.dataset import Attribute, Dataset

    rng = np.random.default_rng(0)
    g = np.repeat([0, 1], 50)
    X = np.column_stack([g * 10 + rng.normal(0, 0.1, 100), rng.normal(0, 0.1, 100)])
    feats = [Attribute("a", "numeric"), Attribute("b", "numeric")]
    cls = Dataset("c", X, feats, "classification", Y=g[:, None].astype(float),
                  targets=[Attribute("y", "nominal", ("p", "q"))])
    out = clustering_hypothesis(cls)
    assert out["ch"] == pytest.approx(1.0) and out["k"] == 2 and "ari_median" in out
    reg = Dataset("r", X, feats, "regression", Y=(g * 5.0)[:, None],
                  targets=[Attribute("y", "numeric")])
    assert clustering_hypothesis(reg)["ch"] == pytest.approx(1.0)
    noise = Dataset("n", X, feats, "regression", Y=rng.normal(size=(100, 1)),
                    targets=[Attribute("y", "numeric")])
    assert clustering_hypothesis(noise)["ch"] < 0.2
    with pytest.raises(UserError, match="no"):
        clustering_hypothesis(Dataset("u", X, feats, "unsupervised"))


def test_datasets_info_shows_ch(capsys):
    from frcli.cli import main

    assert main(["datasets", "info", "synth-classification", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    ch = info["clustering_hypothesis"]
    assert set(ch) >= {"ch", "k", "runs", "rows", "ari_median"} and ch["k"] == 3
    assert main(["datasets", "info", "synth-mtr"]) == 0
    assert "clustering (CH)" in capsys.readouterr().out
    assert main(["datasets", "info", "synth-unsupervised", "--json"]) == 0
    assert "clustering_hypothesis" not in json.loads(capsys.readouterr().out)
    assert main(["datasets", "info", "synth-mtr", "--no-ch", "--json"]) == 0
    assert "clustering_hypothesis" not in json.loads(capsys.readouterr().out)
