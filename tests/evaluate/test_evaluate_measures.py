"""Measures against brute-force per-example references and scikit-learn where it agrees."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from frcli.evaluate import measures as M
from frcli.evaluate.curves import curve_area, powers_of_two


def ref_example_based(Y, P):
    n, L = Y.shape
    out = {k: [] for k in ("hamming_loss", "subset_accuracy", "ml_accuracy", "ml_precision",
                           "ml_recall", "ml_f1", "one_error", "coverage", "ranking_loss")}
    for i in range(n):
        Yi = {l for l in range(L) if Y[i, l]}
        Zi = {l for l in range(L) if P[i, l] >= 0.5}
        inter, union = len(Yi & Zi), len(Yi | Zi)
        out["hamming_loss"].append(len(Yi ^ Zi) / L)
        out["subset_accuracy"].append(float(Yi == Zi))
        out["ml_accuracy"].append(inter / union if union else 1.0)
        out["ml_precision"].append(inter / len(Zi) if Zi else float(not Yi))
        out["ml_recall"].append(inter / len(Yi) if Yi else float(not Zi))
        s = len(Yi) + len(Zi)
        out["ml_f1"].append(2 * inter / s if s else 1.0)
        top = max(range(L), key=lambda l: (P[i, l], -l))
        out["one_error"].append(float(top not in Yi))
        ranks = {l: sum(P[i, m] >= P[i, l] for m in range(L)) for l in range(L)}
        out["coverage"].append(max(ranks[l] for l in Yi) - 1 if Yi else 0)
        notY = set(range(L)) - Yi
        if Yi and notY:
            bad = sum(P[i, a] <= P[i, b] for a in Yi for b in notY)
            out["ranking_loss"].append(bad / (len(Yi) * len(notY)))
        else:
            out["ranking_loss"].append(0.0)
    return {k: float(np.mean(v)) for k, v in out.items()}


def ref_pr_step(y, s):
    """Average precision by brute force over distinct thresholds."""
    y = np.asarray(y, bool)
    pos = y.sum()
    area, prev_r = 0.0, 0.0
    for t in sorted(set(s), reverse=True):
        pred = s >= t
        tp = (pred & y).sum()
        p, r = tp / pred.sum(), tp / pos
        area += (r - prev_r) * p
        prev_r = r
    return area


def random_mlc(seed, n=30, L=5):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < 0.35).astype(np.uint8)
    Y[0] = 0                                   # an empty true set
    P = np.round(rng.random((n, L)) * 15) / 15  # kNN-like means with ties
    P[1] = 0.0                                 # an empty predicted set
    return Y, P


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mlc_example_based_vs_brute_force(seed):
    Y, P = random_mlc(seed)
    ref = ref_example_based(Y, P)
    for name, v in ref.items():
        assert M.MEASURES[name].fn(Y, P) == pytest.approx(v, abs=1e-12), name


def test_micro_measures():
    Y, P = random_mlc(4)
    Z = P >= 0.5
    tp, fp, fn = (Y & Z).sum(), (~Y.astype(bool) & Z).sum(), (Y.astype(bool) & ~Z).sum()
    assert M.micro_precision(Y, P) == pytest.approx(tp / (tp + fp))
    assert M.micro_recall(Y, P) == pytest.approx(tp / (tp + fn))
    assert M.micro_f1(Y, P) == pytest.approx(2 * tp / (2 * tp + fp + fn))
    empty = np.zeros((3, 2), np.uint8)
    assert M.micro_precision(empty, np.zeros((3, 2))) == 1.0


def test_pr_and_roc_vs_brute_force_and_sklearn():
    skm = pytest.importorskip("sklearn.metrics")
    Y, P = random_mlc(5, n=40, L=6)
    for j in range(6):
        if Y[:, j].any():
            assert M.pr_area(Y[:, j], P[:, j]) == pytest.approx(ref_pr_step(Y[:, j], P[:, j]))
            assert M.pr_area(Y[:, j], P[:, j]) == pytest.approx(
                skm.average_precision_score(Y[:, j], P[:, j]))
    assert M.pooled_auprc(Y, P) == pytest.approx(ref_pr_step(Y.ravel(), P.ravel()))
    keep = [j for j in range(6) if 0 < Y[:, j].sum() < len(Y)]
    ref = np.mean([skm.roc_auc_score(Y[:, j], P[:, j]) for j in keep])
    assert M.avg_auroc(Y, P) == pytest.approx(ref)
    ne = Y.any(axis=1)                      # sklearn gives 0 (not -1) for empty true sets
    assert M.coverage(Y[ne], P[ne]) == pytest.approx(skm.coverage_error(Y[ne], P[ne]) - 1)
    assert M.ranking_loss(Y, P) == pytest.approx(skm.label_ranking_loss(Y, P))


def test_interpolated_pr():
    # perfect ranking: area 1 with either method
    y = np.array([1, 1, 0, 0])
    s = np.array([0.9, 0.8, 0.2, 0.1])
    assert M.pr_area(y, s, "interpolated") == pytest.approx(1.0)
    # all scores tied: Davis–Goadrich gives constant precision = prevalence
    s = np.full(4, 0.5)
    assert M.pr_area(y, s, "interpolated") == pytest.approx(0.5)
    assert np.isnan(M.pr_area(np.zeros(4), s))


def test_rrmse_vs_formula():
    rng = np.random.default_rng(7)
    Ytr = rng.normal(size=(50, 3)) * [1, 2, 3]
    Y = rng.normal(size=(20, 3))
    P = Y + rng.normal(size=(20, 3)) * 0.3
    var = Ytr.var(axis=0)
    ref = np.mean([np.sqrt(np.mean((Y[:, j] - P[:, j]) ** 2) / var[j]) for j in range(3)])
    out = M.evaluate("mtr", Y, P, ["rrmse"], train_Y=Ytr)
    assert out["rrmse"] == pytest.approx(ref)
    # predicting the training mean gives about 1 with the test variance
    out = M.evaluate("mtr", Y, np.tile(Y.mean(axis=0), (20, 1)), ["rrmse"], variance="test")
    assert out["rrmse"] == pytest.approx(1.0)


def test_classification_measures():
    y = np.array([0, 0, 1, 1, 2, 2], float)
    P = np.eye(3)[[0, 1, 1, 1, 2, 0]]
    assert M.accuracy(y, P) == pytest.approx(4 / 6)
    f1 = [2 * 1 / (2 + 1 + 1), 2 * 2 / (4 + 1), 2 * 1 / (2 + 1)]
    assert M.macro_f1(y, P) == pytest.approx(np.mean(f1))


def test_directions_and_defaults():
    assert M.direction("rrmse") == "lower"
    assert M.direction("pooled_auprc") == "higher"
    assert M.direction("reconstruction_mse@16") == "lower"
    assert M.direction("rrmse_area") == "lower"
    assert set(M.MLC15) <= set(M.default_measures("mlc"))
    assert len(M.MLC15) == 15
    with pytest.raises(Exception, match="allowed"):
        M.check_measures("mtr", ["pooled_auprc"])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 100_000), st.integers(1, 12), st.integers(1, 6))
def test_property_mlc_bounds_and_brute_force(seed, n, L):
    Y, P = random_mlc(seed, n=max(n, 2), L=L)
    ref = ref_example_based(Y, P)
    for name, v in ref.items():
        got = M.MEASURES[name].fn(Y, P)
        assert got == pytest.approx(v, abs=1e-12)
    for name in ("hamming_loss", "ml_f1", "micro_f1", "ranking_loss", "pooled_auprc"):
        v = M.MEASURES[name].fn(Y, P)
        assert np.isnan(v) or -1e-12 <= v <= 1 + 1e-12


def test_curves():
    assert powers_of_two(10) == [1, 2, 4, 8, 10]
    assert powers_of_two(8) == [1, 2, 4, 8]
    assert curve_area([1, 1, 1, 1, 1]) == pytest.approx(4.0)      # A21: unit spacing
    assert curve_area([1, 1, 1], rule="simpson", normalise=True) == pytest.approx(2 / 3)
