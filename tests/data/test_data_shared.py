"""Every benchmark file under ../shared/datasets loads with the counts of its README
(recorded as `expect` in configs/datasets.yaml), through the catalog."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from frcli.data import catalog as C

pytestmark = pytest.mark.shared("datasets")

# every shared set, the big ones too (bibtex, delicious, tmc2007: 1-2 s each), so CI checks
# the README's counts for all of them


def _entries():
    return [name for name, e in C.catalog().items() if e.group in ("mtr", "mlc", "hmlc", "mcc")]


@pytest.mark.parametrize("name", _entries())
def test_counts_match_readme(name):
    e = C.get(name)
    ds, splits = C.load_with_splits(name)
    ex = e.expect
    assert ds.task == e.task
    assert ds.n_features == ex["features"]
    assert ds.n_targets == ex["targets"]
    if "examples" in ex:
        assert ds.n_examples == ex["examples"]
        assert len(splits) == 10
    else:
        tr, te = splits[0]
        assert (len(tr), len(te)) == (ex["train"], ex["test"])
    if ds.task == "mtr":
        assert ds.Y.dtype == np.float64 and all(t.kind == "numeric" for t in ds.targets)
    elif ds.task == "classification":
        assert ds.targets[0].is_nominal and not np.isnan(ds.Y).any()
    else:
        assert ds.Y.dtype == np.uint8 and set(np.unique(ds.Y)) <= {0, 1}
    if ds.task == "hmlc":
        assert ds.hierarchy.kind == e.hierarchy
        # closed upwards: a label implies each of its parents
        for j, par in enumerate(ds.hierarchy.parents):
            if len(par):
                rows = ds.Y[:, j] == 1
                assert ds.Y[np.ix_(rows, par)].all()


def test_readme_facts():
    osales, _ = C.load_with_splits("osales")
    assert np.isnan(osales.X).any()  # README: osales and scpf have missing values
    birds = C.load("birds", "train")
    assert birds.nominal_mask.sum() == 2  # hasSegments, location
    assert "Swainson's Thrush" in birds.target_names
    gen = C.load("genbase", "train")
    assert "protein" not in gen.feature_names and gen.nominal_mask.all()


CLUS_SHAPES = {  # name: (task, examples, features, targets)
    "clus-testMTR": ("mtr", 13, 7, 4), "clus-testMixed": ("mtr", 13, 7, 4),
    "clus-testMLC": ("mlc", 13, 7, 4), "clus-testMTR-RealWorld": ("mtr", 393, 47, 3),
    "clus-testMLC-RealWorld": ("mlc", 455, 1001, 53),
    "clus-testSTC-RealWorld": ("classification", 150, 4, 1),
    "clus-testTreeHMLC": ("hmlc", 7, 3, 16), "clus-testTreeHMLC-RealWorld": ("hmlc", 660, 1001, 56),
    "clus-testDagHMLC-RealWorld": ("hmlc", 440, 1251, 626), "clus-mlcDistance": ("mlc", 4, 3, 3),
}


@pytest.mark.parametrize("name", sorted(CLUS_SHAPES))
def test_clus_reference_sets(name):
    ds = C.load(name, semi_supervised=True)
    assert (ds.task, ds.n_examples, ds.n_features, ds.n_targets) == CLUS_SHAPES[name]
    assert Path(C.data_roots()[-1], C.get(name).settings).is_file()


def test_mixed_targets_keep_nominal_codes():
    ds = C.load("clus-testMixed")
    assert [t.kind for t in ds.targets] == ["nominal", "nominal", "numeric", "numeric"]
