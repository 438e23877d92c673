"""The bundled synthetic sets: reproducible byte for byte, loadable, planted signal present."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from frcli.data import catalog as C
from frcli.data.synthetic import SYNTHETIC, write_all

BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "synthetic"


def test_regenerating_gives_the_committed_files(tmp_path):
    write_all(tmp_path)
    for name in SYNTHETIC:
        for ext in (".arff", ".truth.json"):
            assert (tmp_path / f"{name}{ext}").read_bytes() == \
                (BUNDLED / f"{name}{ext}").read_bytes(), f"{name}{ext} changed: run " \
                "`frcli datasets make-synthetic`"
    total = sum(p.stat().st_size for p in BUNDLED.iterdir())
    assert total < 1_000_000


def test_other_seed_differs(tmp_path):
    write_all(tmp_path, seed=7)
    assert (tmp_path / "synth-mtr.arff").read_bytes() != (BUNDLED / "synth-mtr.arff").read_bytes()


@pytest.mark.parametrize("name", SYNTHETIC)
def test_loads_with_truth(name):
    truth = json.loads((BUNDLED / f"{name}.truth.json").read_text())
    ds = C.load(name)
    assert ds.task == truth["task"] and ds.n_examples == 300 and ds.n_features == 12
    assert ds.feature_names == truth["features"]
    assert set(truth["relevant"]) < set(ds.feature_names)
    assert ds.nominal_mask.sum() == 2 and np.isnan(ds.X).any()
    if truth.get("semi_supervised"):
        assert (~ds.labeled).sum() == truth["unlabelled_rows"]


def _score(x, y):
    """|correlation| for numeric x, correlation ratio for nominal x (known values only)."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    return abs(np.corrcoef(x[ok], y[ok])[0, 1])


@pytest.mark.parametrize("name", ["synth-regression", "synth-mtr", "synth-mlc"])
def test_planted_features_carry_signal(name):
    truth = json.loads((BUNDLED / f"{name}.truth.json").read_text())
    ds = C.load(name)
    Y = ds.Y.astype(float)
    strength = {}
    for j, f in enumerate(ds.features):
        x = ds.X[:, j]
        if f.is_nominal:
            x = (x == 0).astype(float)  # 'a' (or red) vs the rest: enough to see the effect
        strength[f.name] = max(max(_score(x, Y[:, t]), _score(x ** 2, Y[:, t]))
                               for t in range(Y.shape[1]))
    noise = [v for k, v in strength.items() if k not in truth["relevant"]]
    rel = [v for k, v in strength.items() if k in truth["relevant"]]
    assert min(rel) > max(noise)


def test_hmlc_and_unsupervised_structure():
    ds = C.load("synth-hmlc")
    assert ds.hierarchy.kind == "tree" and ds.hierarchy.depths().max() == 3
    assert (ds.Y.sum(axis=1) == 0).any()  # some empty label sets
    un = C.load("synth-unsupervised")
    truth = json.loads((BUNDLED / "synth-unsupervised.truth.json").read_text())
    g = np.array(truth["clusters"])
    f1 = un.X[:, 0]
    ok = ~np.isnan(f1)
    assert abs(np.corrcoef(f1[ok], g[ok])[0, 1]) > 0.5
