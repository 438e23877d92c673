"""The clustering check's probe (reproduce/studies/_ch_probe.py) on planted data: features
that carry no cluster structure of the classes give an ARI near 0 under every encoding of
the features alone, and near 1 once the class is among the clustered columns."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO))
pytest.importorskip("sklearn")


def test_ari_is_high_only_with_the_class_among_the_columns():
    from frcli.data.dataset import Attribute, Dataset
    from reproduce.studies._ch_probe import encodings_ari

    rng = np.random.default_rng(0)
    n = 300
    X = rng.integers(0, 3, size=(n, 4)).astype(float)      # nominal noise, 3 values each
    y = rng.integers(0, 2, size=n).astype(float)           # a class unrelated to them
    feats = [Attribute(f"f{j}", "nominal", ("a", "b", "c")) for j in range(4)]
    ds = Dataset("noise", X, feats, "classification", Y=y[:, None],
                 targets=[Attribute("y", "nominal", ("p", "q"))])
    e = encodings_ari(ds)
    assert abs(e["one-hot (frcli)"]) < 0.05 and abs(e["value codes"]) < 0.05, e
    assert e["one-hot with the class"] > 0.9, e
    # clusters planted in the features are found whatever the encoding
    Xc = np.column_stack([y * 2, y * 2, y * 2, rng.integers(0, 3, size=n)]).astype(float)
    ds2 = Dataset("planted", Xc, feats, "classification", Y=y[:, None],
                  targets=[Attribute("y", "nominal", ("p", "q"))])
    e2 = encodings_ari(ds2)
    assert e2["one-hot (frcli)"] > 0.9 and e2["value codes"] > 0.9, e2
