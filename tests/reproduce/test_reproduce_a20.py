"""A20 (reproduce/studies/ssl_a20.py): judging stored semi-supervised rankings with the kNN
trained on the labelled rows only gives what the runner gives when it ranks with
``knn_train: labeled`` (same rankings, same splits, same label thinning)."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from tests.conftest import REPO

sys.path.insert(0, str(REPO))


def test_reevaluation_equals_the_runners_labelled_only_knn(tmp_path):
    from frcli.experiment.config import parse_config
    from frcli.experiment.executor import run_experiment
    from reproduce import framework as fw
    from reproduce.studies import ssl_a20 as A

    def cfg(name, knn_train):
        return parse_config({
            "name": name, "datasets": ["synth-classification"],
            "protocol": {"type": "cv", "folds": 3, "seed": 0, "stratify": True,
                         "labeled": [20, 40]},
            "rankers": ["uniform", {"method": "genie3-rf", "params": {"trees": 5}},
                        {"method": "relief", "labeled_only": True}],
            "evaluation": {"knn": [5, 9], "measures": ["accuracy"], "confusion": True,
                           "knn_train": knn_train}}, f"{name}.yaml")

    full, lab = cfg("full", "full"), cfg("lab", "labeled")
    for c in (full, lab):
        run_experiment(c, output=tmp_path, progress=False)
    stores = fw.Stores(tmp_path, [full, lab])
    got, seconds = A.reevaluate(stores["full"])
    want = stores["lab"].frame
    keys = ["dataset", "split", "labeled", "method", "params", "measure"]
    m = got.merge(want.assign(labeled=want["labeled"].astype(int)), on=keys,
                  suffixes=("_re", "_runner"))
    assert len(m) == len(want) > 0 and seconds >= 0
    assert np.allclose(m["value_re"], m["value_runner"])
    # and it differs from the fully labelled reading (the point of the comparison)
    f = stores["full"].frame
    mf = got.merge(f.assign(labeled=f["labeled"].astype(int)), on=keys)
    acc = mf[mf["measure"] == "accuracy"]
    assert not np.allclose(acc["value_x"], acc["value_y"])
    assert isinstance(got, pd.DataFrame)
