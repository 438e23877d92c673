"""frcli.stats.tests against the papers' published numbers, scipy and invariance properties."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sst

from frcli.stats import tests as T


# --------------------------------------------------------------------------- published numbers
def test_hmlc_friedman_iman_davenport_and_cd():
    """HMLC §4.4: ranks 1.55 / 2.033 / 2.417 over 30 sets → p = 2.33e-3, CD = 0.6050."""
    fr = T.friedman([46.5 / 30, 61 / 30, 72.5 / 30], 30)
    assert fr.f == pytest.approx(6.741, abs=1e-3)
    assert round(fr.f_p, 5) == 0.00233
    assert fr.chi2_p == pytest.approx(0.0035, abs=1e-4)   # plain χ² (not what the paper used)
    assert round(T.nemenyi_cd(3, 30), 4) == 0.6050


@pytest.mark.parametrize("k,n,cd", [(3, 30, 0.6050), (4, 24, 0.9574), (3, 24, 0.6764),
                                    (8, 24, 2.1432), (6, 24, 1.5392), (12, 24, 3.4014),
                                    (9, 24, 2.4523)])
def test_nemenyi_cd_matches_the_papers(k, n, cd):
    assert round(T.nemenyi_cd(k, n), 4) == cd


@pytest.mark.parametrize("k,q", [(2, 1.960), (3, 2.241), (4, 2.394), (5, 2.498), (6, 2.576)])
def test_bonferroni_dunn_q_matches_demsar(k, q):
    assert T.bd_q(k) == pytest.approx(q, abs=1e-3)


def test_bh_mtr_table4():
    """MTR paper Table 4 (6 tests): only RF-RF-STR is not significant (BH and Holm agree)."""
    p = [7.59e-5, 2.28e-4, 3.40e-3, 9.71e-3, 2.49e-3, 8.64e-2]
    for method in ("bh", "holm"):
        rej, _, _ = T.adjust(p, 0.05, method)
        assert rej.tolist() == [True] * 5 + [False]
    # the printed α̂ column is Holm's α/(t-i+1) at the sorted positions
    _, thr, _ = T.holm(p)
    order = np.argsort(p)
    assert [float(f"{x:.3g}") for x in thr[order]] == [8.33e-3, 1.00e-2, 1.25e-2, 1.67e-2,
                                                        2.50e-2, 5.00e-2]


def test_mtr_table5_needs_holm():
    """MTR paper Table 5: 'only It100Neigh15MTR is significant' — Holm's decision, not BH's."""
    p = [0.00664, 0.0119, 0.0975, 0.100, 0.145, 0.153]
    assert T.holm(p)[0].tolist() == [True] + [False] * 5
    assert T.benjamini_hochberg(p)[0].tolist() == [True, True] + [False] * 4


def test_bh_hmlc_table2():
    """HMLC paper Table 2 (8 Wilcoxon tests vs unweighted 10NN): the first 5 are significant."""
    p = [2.14e-4, 1.03e-3, 2.41e-3, 2.06e-2, 2.63e-2, 4.17e-2, 4.49e-2, 3.29e-1]
    rej, thr, adj = T.benjamini_hochberg(p)
    assert rej.tolist() == [True] * 5 + [False] * 3
    assert thr.tolist() == pytest.approx([i / 8 * 0.05 for i in range(1, 9)])
    assert ((adj <= 0.05) == rej).all()
    assert T.holm(p)[0].sum() == 3   # Holm would reject fewer: the paper used BH here


def test_bh_against_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(200):
        t = int(rng.integers(1, 12))
        p = np.round(rng.random(t) ** 3, 3)
        rej, _, adj = T.benjamini_hochberg(p, 0.05)
        ps = np.sort(p)
        ok = [i for i in range(1, t + 1) if ps[i - 1] <= i / t * 0.05]
        i0 = max(ok) if ok else 0
        assert rej.sum() == i0
        assert set(np.nonzero(rej)[0]) == set(np.argsort(p, kind="stable")[:i0])
        assert ((adj <= 0.05) == rej).all()


# --------------------------------------------------------------------------- against scipy
def test_friedman_matches_scipy_without_ties():
    rng = np.random.default_rng(0)
    for _ in range(30):
        n, k = int(rng.integers(3, 25)), int(rng.integers(3, 8))
        v = rng.random((n, k)) + np.linspace(0, 0.4, k)
        fr = T.friedman(T.average_ranks(v, lower_is_better=True), n)
        ref = sst.friedmanchisquare(*v.T)
        assert fr.chi2 == pytest.approx(ref.statistic, rel=1e-10)
        assert fr.chi2_p == pytest.approx(ref.pvalue, rel=1e-8)


def test_wilcoxon_matches_scipy_and_counts():
    rng = np.random.default_rng(2)
    for n in (6, 12, 30, 60):
        a = np.round(rng.random(n), 2)
        b = np.round(a + rng.normal(0.05, 0.1, n), 2)
        w = T.wilcoxon_pair(a, b, lower_is_better=True)
        ref = sst.wilcoxon(a, b, zero_method="wilcox")
        assert w.p_value == pytest.approx(ref.pvalue)
        d = a - b
        assert (w.wins, w.ties, w.losses) == ((d < 0).sum(), (d == 0).sum(), (d > 0).sum())
    assert T.wilcoxon_pair(a, a, True).p_value == 1.0


def test_nemenyi_groups_are_maximal_cliques():
    rng = np.random.default_rng(3)
    for _ in range(100):
        r = np.sort(rng.random(int(rng.integers(2, 9))) * 5 + 1)
        cd = float(rng.random() * 2)
        groups = T.nonsignificant_groups(r, cd)
        k = r.size
        cliques = [(a, b) for a in range(k) for b in range(a + 1, k) if r[b] - r[a] <= cd]
        maximal = [g for g in cliques
                   if not any(h != g and h[0] <= g[0] and g[1] <= h[1] for h in cliques)]
        assert sorted(groups) == sorted(maximal)


# --------------------------------------------------------------------------- properties
# ≤ 8 data sets: with ties scipy's Wilcoxon enumerates 2^n sign patterns, keep it cheap
tables = st.integers(2, 8).flatmap(lambda n: st.integers(2, 6).flatmap(
    lambda k: st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k),
                       min_size=n, max_size=n)))


@settings(max_examples=40, deadline=None)
@given(tables, st.randoms(use_true_random=False))
def test_invariant_to_method_order(rows, rnd):
    v = np.array(rows, dtype=float)
    k = v.shape[1]
    perm = list(range(k))
    rnd.shuffle(perm)
    names = [f"m{i}" for i in range(k)]
    a = T.compare(v, names, [str(i) for i in range(len(v))], lower_is_better=True)
    b = T.compare(v[:, perm], [names[i] for i in perm], [str(i) for i in range(len(v))],
                  lower_is_better=True)
    da, db = a.to_dict(), b.to_dict()
    assert da["average_ranks"] == pytest.approx(db["average_ranks"])
    assert da["friedman"] == db["friedman"] or da["friedman"]["statistic"] == pytest.approx(
        db["friedman"]["statistic"])
    pa = {frozenset((p["a"], p["b"])): (p["wilcoxon_p_value"], p["wilcoxon_significant"],
                                        p["nemenyi_significant"]) for p in da["pairwise"]}
    pb = {frozenset((p["a"], p["b"])): (p["wilcoxon_p_value"], p["wilcoxon_significant"],
                                        p["nemenyi_significant"]) for p in db["pairwise"]}
    assert pa.keys() == pb.keys()
    for key in pa:
        assert pa[key][0] == pytest.approx(pb[key][0]) and pa[key][1:] == pb[key][1:]
    assert sorted(map(sorted, a.group_members())) == sorted(map(sorted, b.group_members()))


@settings(max_examples=40, deadline=None)
@given(tables)
def test_ties_get_average_ranks(rows):
    v = np.array(rows, dtype=float)
    r = T.rank_table(v, lower_is_better=True)
    for row, rr in zip(v, r):
        for j, x in enumerate(row):   # brute force: 1 + #better + (#equal others)/2
            assert rr[j] == 1 + (row < x).sum() + ((row == x).sum() - 1) / 2
    assert np.allclose(r.sum(axis=1), v.shape[1] * (v.shape[1] + 1) / 2)


@settings(max_examples=40, deadline=None)
@given(tables, st.sampled_from(["exp", "cube", "neg"]))
def test_invariant_to_strictly_monotone_transforms(rows, f):
    v = np.array(rows, dtype=float)
    names = [f"m{i}" for i in range(v.shape[1])]
    ds = [str(i) for i in range(len(v))]
    a = T.compare(v, names, ds, lower_is_better=True)
    if f == "neg":   # decreasing transform + flipped direction = the same comparison
        b = T.compare(-v, names, ds, lower_is_better=False)
    else:
        w = np.exp(v / 3) if f == "exp" else v ** 3 + v
        b = T.compare(w, names, ds, lower_is_better=True)
    assert np.allclose(a.avg_ranks, b.avg_ranks)
    assert a.friedman.f_p == pytest.approx(b.friedman.f_p)
    assert a.groups == b.groups
    # Wilcoxon is *not* invariant (it ranks magnitudes), but signs and counts are
    for pa, pb in zip(a.pairs, b.pairs):
        assert (pa["a_wins"], pa["ties"], pa["b_wins"]) == (pb["a_wins"], pb["ties"], pb["b_wins"])


def test_direction_flip_reverses_ranks():
    v = np.array([[0.1, 0.2, 0.3], [0.3, 0.1, 0.2]])
    lo = T.rank_table(v, True)
    hi = T.rank_table(v, False)
    assert np.allclose(lo + hi, 4)


def test_perfect_agreement_gives_infinite_f():
    v = np.tile([1.0, 2.0, 3.0], (5, 1))
    c = T.compare(v, ["a", "b", "c"], list("vwxyz"), lower_is_better=True)
    assert c.rejects and c.to_dict()["iman_davenport"]["statistic"] is None
    # CD(3, 5) = 1.48: neighbours (rank difference 1) join, a and c (difference 2) do not
    assert c.group_members() == [["a", "b"], ["b", "c"]]
