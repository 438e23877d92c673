"""The SSL and unsupervised papers' baselines against plain dense references written from
their papers (He et al. 2005 for the Laplacian score, Zhao & Liu 2007 for SPEC, Cai et al.
2010 for MCFS), and SEFR's self-training, on small data."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset
from frcli.engines import spectral
from frcli.rankers.registry import get_ranker
from tests.helpers.spectral import dense_knn_graph, data

pytest.importorskip("sklearn")


def ref_laplacian_score(S, f):
    """He et al. 2005, eq. (4)-(5)."""
    d = S.sum(axis=1)
    D = np.diag(d)
    L = D - S
    ft = f - (f @ d) / d.sum()
    return (ft @ L @ ft) / (ft @ D @ ft)


def test_knn_graph_and_laplacian_score_equal_the_definitions():
    Z = data()
    Z = (Z - Z.min(0)) / (Z.max(0) - Z.min(0))
    S, _ = spectral.knn_graph(Z, 5)
    np.testing.assert_allclose(S.toarray(), dense_knn_graph(Z, 5), rtol=1e-12, atol=1e-14)
    got = spectral.laplacian_scores(S, Z)
    want = [ref_laplacian_score(S.toarray(), Z[:, j]) for j in range(Z.shape[1])]
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert np.argmin(got) in (0, 1)          # the cluster features are the smoothest


def test_spec_scores_equal_the_eigen_definitions():
    Z = data(n=40)
    Z = (Z - Z.min(0)) / (Z.max(0) - Z.min(0))
    g = spectral.rbf_gamma(Z)
    K = np.exp(-g * ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2))
    d = K.sum(axis=1)
    Lhat = np.eye(len(d)) - K / np.sqrt(np.outer(d, d))
    lam, xi = np.linalg.eigh(Lhat)                            # ascending: λ1 = 0
    F = np.sqrt(d)[:, None] * Z
    Fh = F / np.linalg.norm(F, axis=0)
    a2 = (xi.T @ Fh) ** 2
    phi1 = (lam[:, None] * a2).sum(axis=0)
    phi2 = (lam[1:, None] * a2[1:]).sum(axis=0) / a2[1:].sum(axis=0)
    phi3 = ((2 - lam[1:4, None]) * a2[1:4]).sum(axis=0)
    np.testing.assert_allclose(spectral.spec_scores(Z, "phi1"), phi1, rtol=1e-9)
    np.testing.assert_allclose(spectral.spec_scores(Z, "phi2"), phi2, rtol=1e-9)
    np.testing.assert_allclose(spectral.spec_scores(Z, "phi3", k=4), phi3, rtol=1e-6)
    # φ2 is the Laplacian score on the RBF graph
    import scipy.sparse as sp

    np.testing.assert_allclose(spectral.laplacian_scores(sp.csr_matrix(K), Z), phi2, rtol=1e-9)


def test_mcfs_equals_generalised_eigenvectors_and_lars():
    import scipy.linalg
    from sklearn.linear_model import Lars

    Z = data(n=70, F=8, seed=3)
    Z = (Z - Z.min(0)) / (Z.max(0) - Z.min(0))
    S = dense_knn_graph(Z, 5)
    vals, vecs = scipy.linalg.eigh(S, np.diag(S.sum(axis=1)))   # S y = λ D y
    Y = vecs[:, np.argsort(-vals)[1:4]]
    want = np.zeros(Z.shape[1])
    Zc = Z - Z.mean(axis=0)
    for j in range(3):
        coef = Lars(fit_intercept=False, n_nonzero_coefs=4).fit(Zc, Y[:, j] - Y[:, j].mean()).coef_
        want = np.maximum(want, np.abs(coef))
    got = spectral.mcfs_scores(Z, clusters=3, nonzero=4, k=5)
    # eigenvectors are defined up to scale: compare the normalised scores
    np.testing.assert_allclose(got / got.max(), want / want.max(), rtol=1e-6, atol=1e-9)
    assert (got > 0).sum() <= 3 * 4


def _unsupervised(X, nominal=()):
    feats = [Attribute(f"f{i}", "nominal" if i in nominal else "numeric",
                       ("a", "b", "c") if i in nominal else ()) for i in range(X.shape[1])]
    return Dataset("u", X, feats, "unsupervised")


@pytest.mark.parametrize("method", ["laplacian", "spec", "mcfs"])
def test_rankers_find_the_cluster_features_and_sum_one_hot_columns(method):
    X = data(n=150, F=6, seed=1)
    params = {"clusters": 1} if method == "mcfs" else {}   # clusters on one line
    r = get_ranker(method).rank(_unsupervised(X), params)[0]
    assert set(r.order()[:2]) == {0, 1}, r.importances
    # a nominal feature is one-hot encoded and gets the sum of its columns' scores (P-ML's
    # adaptation, T:7619-7624)
    X[:, 5] = np.random.default_rng(2).integers(0, 3, 150)
    ds = _unsupervised(X, nominal=(5,))
    inp = spectral.inputs(ds)
    assert inp.Z.shape[1] == 5 + 3 and list(inp.owner[-3:]) == [5, 5, 5]
    cols = np.arange(8.0)
    assert list(inp.per_feature(cols)) == [0, 1, 2, 3, 4, 5 + 6 + 7]


def test_semi_supervised_laplacian_graph_mixes_the_target_graph():
    rng = np.random.default_rng(4)
    n = 80
    X = rng.uniform(size=(n, 4))
    y = 3 * X[:, 2] + 0.05 * rng.normal(size=n)
    lab = rng.random(n) < 0.4
    Z = X.copy()
    S = spectral.ssl_graph(Z, y[:, None], lab, 5, 0.5).toarray()
    Sx = dense_knn_graph(Z, 5)
    idx = np.flatnonzero(lab)
    yl = (y[idx] - y[idx].min()) / np.ptp(y[idx])
    Sy = np.zeros((n, n))
    Sy[np.ix_(idx, idx)] = dense_knn_graph(yl[:, None], 5)
    want = 0.5 * Sx / Sx.sum() + 0.5 * Sy / Sy.sum()
    np.testing.assert_allclose(S, want, rtol=1e-10, atol=1e-15)
    feats = [Attribute(f"f{i}", "numeric") for i in range(4)]
    ds = Dataset("r", X, feats, "regression", Y=np.where(lab, y, np.nan)[:, None],
                 targets=[Attribute("y", "numeric")], semi_supervised=True)
    r = get_ranker("laplacian").rank(ds)[0]
    assert r.order()[0] == 2 and r.meta["semi_supervised"]
    # w = 0: the targets are ignored, the unsupervised Laplacian score of the same rows
    r0 = get_ranker("laplacian").rank(ds, {"w": 0})[0]
    u = get_ranker("laplacian").rank(_unsupervised(X))[0]
    np.testing.assert_allclose(r0.importances, u.importances, rtol=1e-12)


def test_sefr_self_trains_and_scores_the_last_forest():
    from frcli.data import catalog

    ds = catalog.load("synth-classification")
    full = get_ranker("rf-rf").rank(ds, {"trees": 20, "min_leaf": 1, "ties": "first"}, seed=3)[0]
    none = get_ranker("sefr").rank(ds, {"trees": 20}, seed=3)[0]       # nothing to add
    np.testing.assert_array_equal(none.importances, full.importances)
    assert none.meta["rounds"] == 0
    ssl = ds.with_unlabeled(np.random.default_rng(0).random(ds.n_examples) < 0.8)
    r = get_ranker("sefr").rank(ssl, {"trees": 50}, seed=3)[0]
    assert r.meta["pseudo_labeled"] > 0 and r.meta["rounds"] >= 1
    top3 = [ds.feature_names[i] for i in r.order()[:3]]
    assert top3[0] in {"f01", "f02", "f03"} and len(set(top3) & {"f01", "f02", "f03"}) >= 2
    strict = get_ranker("sefr").rank(ssl, {"trees": 50, "threshold": 1.0}, seed=3)[0]
    assert strict.meta["pseudo_labeled"] <= r.meta["pseudo_labeled"]
    # rows without targets are dropped (with a warning) unless semi-supervised is asked for
    plain = dataclasses.replace(ssl, semi_supervised=False)
    assert get_ranker("sefr").rank(plain, {"trees": 5})[0].meta["rounds"] == 0
