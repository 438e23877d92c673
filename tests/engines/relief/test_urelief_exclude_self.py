"""URelief's ``exclude_self`` option (the remedy for its bias towards the features that
dominate d_X, such as nominal features on mixed data; docs/design/relief.md): the engine against a
plain-numpy reference written from the definition, and what it changes on planted data."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Dataset
from frcli.errors import ConfigError
from tests.conftest import need_kernel

need_kernel("frcli._ext.relief._relief")

from frcli.engines.relief.relief import relief  # noqa: E402
from tests.helpers.relief import (GRID_CASES, make_X, ref_dx, ref_feature_dist,  # noqa: E402
                                      ref_rows, ref_weights)


def ref_urelief_excluding_self(X, nominal, nvals, k, sigma, rows):
    """Alg. 3 of P-UNS with the cluster distance of feature i over the other features:
    dc_i(r, n) = (sum_{j != i} d_j(r, n)) / (F - 1); neighbours under the full d_X."""
    n, F = X.shape
    S = 0.0
    PC, PA, PAC = np.zeros(F), np.zeros(F), np.zeros(F)
    for r in rows:
        D = ref_feature_dist(X, nominal, nvals, r)
        dx = ref_dx(D)
        cand = np.array([j for j in range(n) if j != r])
        nb = cand[np.argsort(dx[cand], kind="stable")][:k]
        for wl, j in zip(ref_weights(nb.size, sigma), nb):
            dc = (D[j].sum() - D[j]) / (F - 1)
            S += wl
            PC += wl * dc
            PA += wl * D[j]
            PAC += wl * D[j] * dc
    t1 = np.where(PC > 0, PAC / np.where(PC > 0, PC, 1), 0.0)
    t2 = np.where(S - PC > 0, (PA - PAC) / np.where(S - PC > 0, S - PC, 1), 0.0)
    return t1 - t2


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_engine_equals_the_reference(missing):
    rng = np.random.default_rng(8)
    n = 30
    X, nominal, nvals, feats = make_X(rng, n, missing=missing)
    ds = Dataset("u", X, feats, "unsupervised")
    for frac, k, sg in GRID_CASES:
        got = relief(ds, [frac], [k], [sg], seed=17, exclude_self=True)[0]
        want = ref_urelief_excluding_self(X, nominal, nvals, k, sg, ref_rows(n, frac, 17))
        np.testing.assert_allclose(got.importances, want, rtol=0, atol=1e-12)
    # one pass for a grid gives the same as separate runs
    grid = relief(ds, [0.5, 1.0], [2, 5], [0.0, 0.4], seed=3, exclude_self=True)
    for r in grid:
        one = relief(ds, [r.iterations], [r.neighbours], [r.sigma], seed=3,
                     exclude_self=True)[0]
        np.testing.assert_allclose(r.importances, one.importances, rtol=0, atol=1e-13)


def test_nominal_noise_no_longer_wins_on_mixed_data():
    """synth-unsupervised: f01-f04 carry three clusters (f03 nominal); f12 is nominal noise.
    Published URelief (k = 30) ranks f12 first and two planted features in the bottom half;
    with exclude_self the planted features are the top four and f12 is last."""
    from frcli.data import catalog
    from frcli.rankers.registry import get_ranker

    ds = catalog.load("synth-unsupervised")
    names = ds.feature_names
    plain = [names[i] for i in get_ranker("relief").rank(ds)[0].order()]
    fixed = [names[i] for i in get_ranker("relief").rank(ds, {"exclude_self": True})[0].order()]
    assert plain[0] == "f12" and max(plain.index(f) for f in ("f02", "f04")) >= 6
    assert set(fixed[:4]) == {"f01", "f02", "f03", "f04"} and fixed[-1] == "f12"


def test_exclude_self_is_for_unsupervised_data_only():
    from frcli.data import catalog
    from frcli.rankers.registry import get_ranker

    ds = catalog.load("synth-regression")
    with pytest.raises(ConfigError, match="exclude_self.*URelief"):
        get_ranker("relief").validate(ds, {"exclude_self": True})
    with pytest.raises(ConfigError, match="exclude_self.*URelief"):
        relief(ds, exclude_self=True)
