"""ReliefE (spec-relational-mex part C): its pieces against definitions and plain-numpy
references, planted features, determinism, parameter checks."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from frcli.api import dataset_from_arrays, rank
from frcli.engines.relief import reliefe as E
from frcli.engines.relief.common import kernel
from frcli.errors import ConfigError
from frcli.rankers.registry import get_ranker

K = kernel("_reliefe")


# -- TwoNN ----------------------------------------------------------------------------------

@pytest.mark.parametrize("d, D", [(2, 10), (5, 20), (1, 6)])
def test_twonn_recovers_the_intrinsic_dimension_of_linear_manifolds(d, D):
    rng = np.random.default_rng(d)
    Z = rng.random((1500, d)) @ rng.normal(size=(d, D))       # d-dim cube, linearly in D-dim
    slope, used = E.twonn(Z)
    assert used == 1500
    assert abs(slope - d) < 0.35 * d + 0.3, slope
    assert E._dimension(Z, "auto", 1500)[0] == max(2, round(slope))


def test_twonn_ignores_duplicates_and_accepts_sparse_rows():
    rng = np.random.default_rng(1)
    Z = rng.random((400, 3)) @ rng.normal(size=(3, 8))
    dup = np.vstack([Z, Z[:150], Z[:50]])                      # many exact duplicates
    s2, used = E.twonn(dup)
    # finite (no r1 = 0); duplicates do bias it (a neighbour's two nearest are then a row and
    # its copy, mu = 1), as in the paper's pairwiseDistancesNonzero
    assert np.isfinite(s2) and used == dup.shape[0] and 1 < s2 < 8
    s3, _ = E.twonn(sp.csr_matrix(dup))
    assert s3 == pytest.approx(s2, rel=1e-9)
    assert np.isnan(E.twonn(np.ones((10, 3)))[0])              # every row identical


# -- the representative (cyclic) subset -------------------------------------------------------

def test_cyclic_subset_takes_every_minority_instance_first():
    y = np.array([0] * 1000 + [1] * 10 + [2] * 5)
    idx = E.cyclic_subset(y, 30)
    counts = np.bincount(y[idx], minlength=3)
    assert counts.tolist() == [15, 10, 5]
    assert (idx[y[idx] == 0] == np.arange(15)).all()          # data order within a group


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.integers(1, 120),
       st.randoms(use_true_random=False))
def test_cyclic_subset_is_round_robin(sizes, size, rnd):
    y = np.concatenate([np.full(s, g) for g, s in enumerate(sizes)])
    order = list(range(len(y)))
    rnd.shuffle(order)
    y = y[order]
    idx = E.cyclic_subset(y, size)
    # the definition (§C5), literally: groups in order of first appearance, each a queue in
    # data order; go round the groups taking the next unused row, skipping empty groups
    queues = {}
    for i, g in enumerate(y.tolist()):
        queues.setdefault(g, []).append(i)
    ref: list[int] = []
    while len(ref) < min(size, len(y)):
        for q in queues.values():
            if q and len(ref) < size:
                ref.append(q.pop(0))
    assert idx.tolist() == sorted(ref)


def test_cyclic_subset_groups_label_sets():
    Y = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [1, 1], [1, 0]], dtype=np.uint8)
    assert E.cyclic_subset(Y, 3).tolist() == [0, 3, 4]
    assert E.cyclic_subset(Y, 10).tolist() == list(range(6))


# -- PrMS ----------------------------------------------------------------------------------

def test_prms_keeps_large_entries_and_preserves_expectations():
    rng = np.random.default_rng(3)
    B = rng.random((30, 40)) * (rng.random((30, 40)) < 0.6)
    B[0, 0], B[1, 1] = -0.9, 25.0
    out, thr = E.prms(B, np.random.default_rng(0))
    big = np.abs(B) > thr
    assert big.any() and (~big & (B != 0)).any()
    assert np.array_equal(out[big], B[big])
    small = ~big
    assert np.isin(np.round(np.abs(out[small]) / thr, 12), [0.0, 1.0]).all()
    assert (np.sign(out[small]) * np.sign(B[small]) >= 0).all()
    draws = np.mean([E.prms(B, np.random.default_rng(s))[0] for s in range(3000)], axis=0)
    # each small entry is thr * Bernoulli(|a|/thr): mean a, sd <= thr / 2 / sqrt(3000)
    assert np.abs(draws - B).max() < 6 * thr / 2 / np.sqrt(3000)
    # a sparse input gives the same matrix (same draws, in row-major order of the entries)
    out_sp, thr_sp = E.prms(sp.csr_matrix(B), np.random.default_rng(0))
    assert thr_sp == thr and np.array_equal(out_sp.toarray(), out)


def test_prms_threshold_is_the_largest_column_mean_over_root_n():
    B = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    _, thr = E.prms(B, np.random.default_rng(0))
    N = 5   # A = [[0, B], [B^T, 0]] is 5 x 5; its largest column abs-sum is 3
    assert thr == pytest.approx(3 / N / np.sqrt(N))


# -- adaptive k --------------------------------------------------------------------------------

@pytest.mark.parametrize("profile, gap, ratio", [
    ([0.1, 0.2, 0.25, 1.0, 1.1], 3, 1),        # the big jump after the third candidate
    ([0.5, 0.51, 0.52, 0.53, 0.54, 3.0], 5, 3),   # ratio: argmax g[m+2]/g[m+1] + 1
    ([1.0, 1.0, 1.0, 1.0], 1, 1),              # no gap at all: first position
    ([0.0, 2.0, 2.1, 2.2], 1, 1),
    ([0.3], 1, 1),
    ([0.3, 0.4], 1, 1),
])
def test_adaptive_k_on_hand_made_profiles(profile, gap, ratio):
    assert E.adaptive_k(np.array(profile), "auto") == gap
    assert E.adaptive_k(np.array(profile), "auto-ratio") == ratio


def _k_gap(s):
    return int(np.argmax(np.diff(s))) + 1 if len(s) > 1 else len(s)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 10, allow_nan=False), min_size=1, max_size=40))
def test_adaptive_k_gap_rule_matches_numpy(values):
    s = np.sort(np.array(values))
    assert E.adaptive_k(s, "auto") == _k_gap(s)


# -- plain-numpy references of the raw-space variant -----------------------------------------

def _raw_distance(X, rg, q):
    d = np.zeros(X.shape[0])
    for f in range(X.shape[1]):                 # feature order, as the kernels sum
        d += np.abs(X[q, f] - X[:, f]) / rg[f]
    return d


def _neighbours(d, cand, k):
    order = cand[np.lexsort((cand, d[cand]))]
    if k == "auto":
        k = _k_gap(np.sort(d[cand]))
    return order[:k]


def _reference_mlc(X, Y, k, absmean=False, form="rrelieff"):
    n, F = X.shape
    rg = X.max(0) - X.min(0)
    rg[rg == 0] = 1
    w = np.zeros(F)
    for q in range(n):
        d = _raw_distance(X, rg, q)
        nb = _neighbours(d, np.delete(np.arange(n), q), k)
        t_n = np.abs(Y[q].astype(float) - Y[nb]).mean(axis=1)          # hamming
        t = t_n.mean()
        if not 0 < t < 1:
            continue
        dd = np.abs(X[q] - X[nb]) / rg                                   # (k, F)
        dm = np.abs(X[q] - X[nb].mean(0)) / rg if absmean else dd.mean(0)
        td = (t_n[:, None] * dd).mean(0)
        if form == "rrelieff":
            w += td / t - (dm - td) / (1 - t)
        elif form == "code":
            w += td / t - (dm - t) / (1 - t)
        else:
            w += td / t - (dm - t) / (1 - td)
    return w / n


def _reference_mcc(X, y, k, absmean=False):
    n, F = X.shape
    rg = X.max(0) - X.min(0)
    rg[rg == 0] = 1
    prior = np.bincount(y) / n
    w = np.zeros(F)
    for q in range(n):
        d = _raw_distance(X, rg, q)
        for c in range(len(prior)):
            cand = np.flatnonzero((y == c) & (np.arange(n) != q))
            if cand.size == 0:
                continue
            nb = _neighbours(d, cand, k)
            coef = -1.0 if c == y[q] else prior[c] / (1 - prior[y[q]])
            diff = (np.abs(X[q] - X[nb].mean(0)) if absmean
                    else np.abs(X[q] - X[nb]).mean(0)) / rg
            w += coef * diff
    return w / n


def _mlc_data(n=60, F=7, L=4, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.random((n, F))
    if sparse:
        X = X * (rng.random((n, F)) < 0.08)
    Y = (rng.random((n, L)) < 0.35).astype(np.uint8)
    Y[:, 0] = X[:, 0] > 0.5
    return X, Y


@pytest.mark.parametrize("k", [1, 5, "auto"])
@pytest.mark.parametrize("absmean", [False, True])
@pytest.mark.parametrize("sparse", ["no", "yes"])
def test_raw_space_hamming_equals_the_numpy_reference(k, absmean, sparse):
    X, Y = _mlc_data(sparse=sparse == "yes")
    ds = dataset_from_arrays(X, Y, task="mlc")
    got = E.reliefe(ds, embed="none", distance="hamming", neighbours=k,
                    update="absmean" if absmean else "standard", sparse=sparse)[0]
    ref = _reference_mlc(X, Y, k, absmean)
    assert np.allclose(got.importances, ref, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("form", ["paper", "code"])
def test_mlc_update_forms(form):
    X, Y = _mlc_data(seed=4)
    ds = dataset_from_arrays(X, Y, task="mlc")
    got = E.reliefe(ds, embed="none", distance="hamming", neighbours=6, mlc_update=form)[0]
    assert np.allclose(got.importances, _reference_mlc(X, Y, 6, form=form), rtol=1e-10)


@pytest.mark.parametrize("k", [3, "auto"])
@pytest.mark.parametrize("absmean", [False, True])
def test_raw_space_multiclass_equals_the_numpy_reference(k, absmean):
    rng = np.random.default_rng(5)
    X = rng.random((70, 6))
    y = (X[:, 0] * 3).astype(int)
    ds = dataset_from_arrays(X, y)
    got = E.reliefe(ds, embed="none", neighbours=k,
                    update="absmean" if absmean else "standard")[0]
    assert np.allclose(got.importances, _reference_mcc(X, y, k, absmean), rtol=1e-10,
                       atol=1e-14)


def test_raw_space_standard_update_is_relieff():
    from frcli.engines.relief.relief import relief

    rng = np.random.default_rng(6)
    X = rng.random((90, 8))
    y = ((X[:, 1] + X[:, 2]) > 1).astype(int) + (X[:, 3] > 0.8)
    ds = dataset_from_arrays(X, y)
    a = relief(ds, [1.0], [10], [0.0])[0].importances
    b = E.reliefe(ds, embed="none", neighbours=10)[0].importances
    assert np.allclose(a, b, rtol=1e-12, atol=1e-15)


def test_absmean_update_is_at_most_the_standard_update_for_hits_and_misses():
    """|x - mean(n)| <= mean|x - n| per feature (triangle inequality), hits and misses apart."""
    rng = np.random.default_rng(7)
    X = rng.random((50, 5))
    y = rng.integers(0, 3, 50)
    rg = X.max(0) - X.min(0)
    rows = np.arange(50, dtype=np.int32)
    nbr, cnt, _ = K.profile_search(1, rows, y.astype(np.int32), 3, 6, 0, 1,
                                   dense=(np.ascontiguousarray(X.T),
                                          np.zeros(5, np.int32), rg))
    for hits in (True, False):
        coef = np.where((np.arange(3)[None, :] == y[:, None]) == hits, 1.0, 0.0)
        out = {}
        for absmean in (0, 1):
            total = np.zeros(5)
            K.update(rows, nbr, cnt, np.ascontiguousarray(coef), np.zeros((0, 0)), total,
                     np.array([50], np.int32), np.zeros((1, 5)), 0, 0, absmean, 0, 1,
                     dense=(X, np.zeros(5, np.int32), rg))
            out[absmean] = total
        assert (out[1] <= out[0] + 1e-12).all() and (out[1] < out[0]).any()


def test_sparse_and_dense_paths_agree_on_sparse_data():
    X, Y = _mlc_data(n=80, F=30, sparse=True, seed=8)
    ds = dataset_from_arrays(X, Y, task="mlc")
    for k in (4, "auto"):
        for upd in ("standard", "absmean"):
            a = E.reliefe(ds, embed="none", neighbours=k, update=upd, sparse="yes")[0]
            b = E.reliefe(ds, embed="none", neighbours=k, update=upd, sparse="no")[0]
            assert a.meta["sparse"] and not b.meta["sparse"]
            assert np.allclose(a.importances, b.importances, rtol=1e-10, atol=1e-14)


def test_iteration_grid_is_one_pass_of_prefixes():
    X, Y = _mlc_data(seed=9)
    ds = dataset_from_arrays(X, Y, task="mlc")
    grid = E.reliefe(ds, [10, 0.5, 1.0], embed="none", neighbours=5, seed=3)
    for r in grid:
        alone = E.reliefe(ds, [r.iterations], embed="none", neighbours=5, seed=3)[0]
        assert r.n_iterations == alone.n_iterations
        assert np.array_equal(r.importances, alone.importances)
    assert [r.n_iterations for r in grid] == [10, 30, 60]


# -- with embeddings (umap-learn) ----------------------------------------------------------------

def _planted_classification(n=240, F=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, F))
    y = (X[:, 0] > 0.5).astype(int) * 2 + (X[:, 1] > 0.5).astype(int)   # 4 classes
    return dataset_from_arrays(X, y)


def test_embedded_reliefe_finds_planted_features_and_is_deterministic():
    ds = _planted_classification()
    r1 = rank(ds, "reliefe", seed=5, update="absmean", neighbours="auto")
    assert set(r1.order()[:2]) == {0, 1}
    assert r1.meta["input_embedding"]["dimension"] >= 2
    r2 = rank(ds, "reliefe", seed=5, jobs=2, update="absmean", neighbours="auto")
    assert np.array_equal(r1.importances, r2.importances)
    r3 = rank(ds, "reliefe", seed=6, update="absmean", neighbours="auto")
    assert not np.array_equal(r1.importances, r3.importances)


def test_embedded_reliefe_multilabel_planted_features():
    rng = np.random.default_rng(1)
    n = 240
    X = rng.random((n, 10))
    Y = np.c_[X[:, 0] > 0.5, X[:, 1] > 0.6, X[:, 0] + X[:, 1] > 1.1].astype(np.uint8)
    ds = dataset_from_arrays(X, Y, task="mlc")
    for params in ({"embed": "input", "distance": "hamming"},
                   {"embed": "labels", "distance": "cosine", "dimension": 4},
                   {"embed": "none", "distance": "f1"}):
        r = rank(ds, "reliefe", seed=2, **params)
        assert set(r.order()[:2]) == {0, 1}, (params, r.importances)


def test_hyperbolic_label_distance_is_the_hyperboloid_distance():
    u = np.array([[0.3, -0.2], [1.0, 2.0]])
    v = np.array([[0.3, -0.2], [-1.5, 0.5]])
    d = E.label_space_distance(u, v, "hyperbolic")
    assert d[0] == pytest.approx(0.0, abs=1e-7)
    # the same points on the hyperboloid x0^2 - |x|^2 = 1, Lorentz product
    x0u, x0v = np.sqrt(1 + (u[1] ** 2).sum()), np.sqrt(1 + (v[1] ** 2).sum())
    assert d[1] == pytest.approx(np.arccosh(x0u * x0v - u[1] @ v[1]))
    assert E.label_space_distance(u, v, "cosine")[0] == pytest.approx(0.0, abs=1e-12)


def test_representative_subset_fits_the_embedding_and_prms_applies_to_dense_data():
    ds = _planted_classification(n=300, seed=3)
    r = E.reliefe(ds, subset=64, seed=1)[0]
    info = r.meta["input_embedding"]
    assert info["subset_rows"] == 64 and info["prms"] and info["subset_density"] > 0.15
    r = E.reliefe(ds, subset=64, sparsify=1.0, dimension=3, seed=1)[0]
    assert not r.meta["input_embedding"]["prms"]
    assert r.meta["input_embedding"]["dimension"] == 3


# -- parameters ------------------------------------------------------------------------------

@pytest.mark.parametrize("task, params, words", [
    ("classification", {"distance": "hamming"}, ["'distance'", "mlc"]),
    ("classification", {"embed": "both"}, ["'embed'", "input, none"]),
    ("mlc", {"distance": "cosine"}, ["cosine", "embed=labels or both"]),
    ("mlc", {"distance": "hamming", "embed": "both"}, ["hamming", "input or none"]),
    ("classification", {"mlc_update": "paper"}, ["'mlc_update'"]),
    ("mlc", {"neighbours": "many"}, ["'neighbours'", "auto"]),
    ("mlc", {"sparsify": 0}, ["'sparsify'"]),
    ("regression", {}, ["does not support task 'regression'"]),
])
def test_reliefe_rejects_parameters_that_do_not_fit(task, params, words):
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    Y = {"classification": rng.integers(0, 2, 20), "regression": rng.random(20),
         "mlc": rng.integers(0, 2, (20, 3)).astype(np.uint8)}[task]
    ds = dataset_from_arrays(X, Y, task=task)
    with pytest.raises(ConfigError) as e:
        get_ranker("reliefe").validate(ds, params)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_reliefe_ranker_iterations_grid_and_rows_without_targets():
    X, Y = _mlc_data(seed=10)
    ds = dataset_from_arrays(X, Y, task="mlc")
    out = get_ranker("reliefe").rank(ds, {"embed": "none", "iterations": [0.5, 1.0]})
    assert [r.params["iterations"] for r in out] == [0.5, 1.0]
    t = out[1].timings
    assert t == out[0].timings and t["grid_size"] == 2.0           # one pass for the grid
    assert set(t) == {"rank_s", "grid_size", "prepare_s", "weights_s"}   # embed=none
    assert t["prepare_s"] + t["weights_s"] <= t["rank_s"]           # the phases of that call
    y = np.r_[np.zeros(20), np.ones(20), np.full(5, np.nan)]
    cls = dataset_from_arrays(np.random.default_rng(0).random((45, 3)), y,
                              task="classification")
    with pytest.warns(UserWarning, match="ignores the 5"):
        r = rank(cls, "reliefe", embed="none")
    assert r.meta["n_examples"] == 40


@pytest.mark.parametrize("k", [5, "auto"])          # the Relief search and profile_search
def test_reliefe_counts_its_instances_for_progress_without_changing_weights(k):
    from frcli.engines.progress import Counter, tracking

    X, Y = _mlc_data()
    ds = dataset_from_arrays(X, Y, task="mlc")
    plain = E.reliefe(ds, embed="none", neighbours=k, iterations=[0.5], jobs=2)[0]
    c = Counter()
    with tracking(c):
        counted = E.reliefe(ds, embed="none", neighbours=k, iterations=[0.5], jobs=2)[0]
    assert (c.expected, c.done, c.unit) == (30, 30, "ReliefE instances")
    assert np.array_equal(plain.importances, counted.importances)


_UMAP_RUN = """
import sys, json
import numpy as np
from frcli.api import dataset_from_arrays, rank
from frcli.engines.relief.thirdparty import umap_class
umap_class()
import numba
state = {"njit_untouched": numba.njit.__module__.startswith("numba")}
rng = np.random.default_rng(0)
X = rng.random((120, 8)); y = (X[:, 0] + X[:, 1] > 1).astype(float)
r = rank(dataset_from_arrays(X, y[:, None], task="classification"), "reliefe", seed=1)
state["w"] = (r[0] if isinstance(r, list) else r).importances.tolist()
print(json.dumps(state))
"""


@pytest.mark.slow       # without the cache umap-learn's numba code compiles: ~25 s of CPU
def test_numba_cache_leaves_numba_alone_and_changes_no_result():
    """thirdparty.cache_numba: numba's decorators are not replaced, and the importances
    equal those computed without the on-disk cache."""
    import json
    import os
    import subprocess
    import sys

    pytest.importorskip("umap")
    out = {}
    for mode, env in (("cached", {}), ("plain", {"FRCLI_NUMBA_CACHE": "0"})):
        p = subprocess.run([sys.executable, "-c", _UMAP_RUN], capture_output=True, text=True,
                           env={**os.environ, **env}, check=True)
        out[mode] = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["cached"]["njit_untouched"] and out["plain"]["njit_untouched"]
    assert out["cached"]["w"] == out["plain"]["w"]
