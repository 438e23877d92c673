"""The one verdict rule (reproduce/verdict.py) on planted results: each case that sections
used to judge unevenly gets the verdict the rule gives."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO))

from reproduce import verdict as V  # noqa: E402


def test_combine_names_the_four_verdicts():
    assert V.combine([True, True]) == V.HOLDS
    assert V.combine([True, False]) == V.PARTLY
    assert V.combine([True, None]) == V.PARTLY           # the rest cannot be told
    assert V.combine([False, False]) == V.FAILS
    assert V.combine([False, None]) == V.FAILS           # what can be told fails
    assert V.combine([None, None]) == V.UNKNOWN
    assert V.combine([]) == V.UNKNOWN
    assert V.verdict(True) == V.HOLDS and V.verdict(None) == V.UNKNOWN


def test_a_tie_is_not_a_win_unless_the_paper_ties_there_too():
    assert V.order(0.9, 0.8) is True and V.order(0.8, 0.9) is False
    assert V.order(1.5, 2.0, higher=False) is True
    assert V.order(3.0, 3.0) is None                        # paper printed no numbers
    assert V.order(3.0, 3.0, paper=(2.07, 2.07)) is True    # the paper ties there too
    assert V.order(3.0, 3.0, paper=(2.11, 2.07)) is False   # the paper's order is strict


def test_pds_et_worst_rests_on_a_tie_the_paper_also_has():
    """P-DS Table 2, SSL Symbolic: the paper ranks bagging and ET 2.07 (tied worst); ours
    ties them too: the part agrees. With Genie3 the paper's ET is strictly worst, so a tie
    in ours does not agree."""
    paper_sym = {"rf": 1.86, "bagging": 2.07, "et": 2.07}
    ours_sym = {"rf": 1.0, "bagging": 2.5, "et": 2.5}
    assert V.extreme(ours_sym, "et", best=False, higher=False, paper=paper_sym) is True
    paper_g3 = {"rf": 2.00, "bagging": 1.93, "et": 2.07}
    assert V.extreme({"rf": 2.5, "bagging": 1.0, "et": 2.5}, "et", best=False, higher=False,
                     paper=paper_g3) is False
    assert V.extreme({"rf": 2.0, "bagging": 1.5, "et": 2.5}, "et", best=False, higher=False,
                     paper=paper_g3) is True
    parts = [V.extreme(ours_sym, "et", best=False, higher=False, paper=paper_sym),
             V.extreme({"rf": 2.0, "bagging": 1.5, "et": 2.5}, "et", best=False,
                       higher=False, paper=paper_g3)]
    assert V.combine(parts) == V.HOLDS


def test_reliefe_few_top_rankings_on_a_tie_is_not_reproduced():
    """The best max-F1 average rank is 3.000 for both ReliefE and ReliefF: the paper's
    'few top rankings' (others ahead of ReliefE, read off a figure) cannot be told."""
    best_other, best_relief_e = 3.0, 3.0
    assert V.verdict(V.order(best_other, best_relief_e, higher=False)) == V.UNKNOWN
    assert V.verdict(V.order(2.5, 3.0, higher=False)) == V.HOLDS


def test_reliefe_absmean_claim_is_one_verdict_from_its_two_clauses():
    """'hamming ReliefF-this among the best, absMean in the top 5': position 1 and 11 of 14
    is partly, wherever the claim appears."""
    ranks = {f"m{i}": float(i) for i in range(1, 15)}
    ranks["hamming-adaptive"], ranks["absMean"] = 0.5, 10.5
    parts = [V.in_top(ranks, "hamming-adaptive", 3, higher=False),
             V.in_top(ranks, "absMean", 5, higher=False)]
    assert parts == [True, False] and V.combine(parts) == V.PARTLY
    # a tie across the boundary cannot be told
    assert V.in_top({"a": 1, "b": 2, "c": 2}, "b", 2, higher=False) is None
    assert V.in_top({"a": 1, "b": 2, "c": 3}, "c", 1, higher=False, bottom=True) is True


def test_pds_beat_sefr_with_a_35_times_larger_delta_is_not_holds():
    """Tic-tac-toe ΔF1 against SEFR: paper 0.022, ours 0.76 (35x): the sign agrees, the size
    does not; on chess the paper's Symbolic ΔF1 is negative and ours positive."""
    ttt = (V.same_sign(0.76, 0.022), V.same_size(0.76, 0.022))
    assert ttt == (True, False)
    chess = (V.same_sign(0.10, -2.6e-2), V.same_size(0.10, -2.6e-2))
    assert chess == (False, False)
    assert V.combine([*ttt, *chess]) == V.PARTLY
    assert V.same_size(0.03, 0.022) is True and V.same_size(0.05, 0.022) is False
    assert V.same_size(0.5, 0.45, band=(0.40, 0.48)) is True
    assert V.same_size(0.5, 0.45, band=(0.46, 0.52)) is False
    assert V.same_sign(0.0, 0.0) is True and V.same_sign(0.1, float("nan")) is None
    # numpy scalars, as the renders pass them
    assert V.same_sign(np.float64(-0.3), -2.6e-2) is True
    assert V.same_sign(np.float64(0.3), np.float64(-1.0)) is False


def test_urelief_trend_is_judged_at_every_step_not_only_the_ends():
    """Average ranks over K = 5..40 at 100 % of the rows (lower is better): K = 40 is better
    than K = 5, but worse than K = 30, so 'improves with larger K' is partly, not holds."""
    row = [16.38, 14.75, 9.25, 9.38, 6.12, 11.50]
    parts = V.trend(row, increasing=False)
    assert row[-1] < row[0]                          # the extremes alone would say holds
    assert parts == [True, True, False, True, False]
    assert V.combine(parts) == V.PARTLY
    assert V.combine(V.trend([3.0, 2.0, 1.0], increasing=False)) == V.HOLDS
    assert V.combine(V.trend([1.0, 2.0, 3.0], increasing=False)) == V.FAILS
    assert V.trend([1.0, 1.0], increasing=True) == [None]


def test_mtr_noise_jura_outside_its_band_is_not_within():
    """jura's baseline: paper 0.836 against our band 0.725–0.822, p = 0.011, BH over 33 cells
    does not reject: outside the band, not 'within'."""
    assert V.band(0.836, 0.725, 0.822, rejected=False) == V.OUTSIDE_BAND
    assert V.band(0.762, 0.653, 0.737, rejected=True) == V.OUTSIDE
    assert V.band(0.467, 0.437, 0.491, rejected=False) == V.WITHIN


def test_significance_cannot_be_told_where_the_test_cannot_reject():
    assert V.significant(0.01) is True and V.significant(0.2) is False
    assert V.significant(0.2, can_reject=False) is None
    assert V.significant(float("nan")) is None


@pytest.mark.parametrize("word", [V.HOLDS, V.PARTLY, V.FAILS, V.UNKNOWN, V.WITHIN,
                                  V.OUTSIDE_BAND])
def test_the_rule_text_names_every_label_and_the_size_factor(word):
    text = V.rule_text()
    assert text.startswith("## How claims are judged") and word in text
    assert f"{V.SIZE_FACTOR:g} times" in text


def test_wilcoxon_can_reject_from_six_pairs():
    """Two-sided exact Wilcoxon: its smallest p is 2 / 2^n, so a claim of significance over
    fewer than 6 sets cannot be told (the HMLC extra-trees claim on one binary set)."""
    assert not V.wilcoxon_can_reject(0) and not V.wilcoxon_can_reject(1)
    assert not V.wilcoxon_can_reject(5) and V.wilcoxon_can_reject(6)
    assert V.wilcoxon_can_reject(7, alpha=0.02) and not V.wilcoxon_can_reject(6, alpha=0.02)
    assert V.combine([None, None]) == V.UNKNOWN


def test_a_proportion_is_judged_against_its_interval_not_a_factor_two():
    """6 of 11 (55 %) against a paper's 79.2 %: within a factor of two, but outside the 95 %
    interval of 11 cases, so the size does not agree; 9 of 11 does."""
    band = V.proportion_band(6 / 11, 11)
    assert 0.27 < band[0] < 0.29 and 0.78 < band[1] < 0.79
    assert V.same_size(6 / 11, 0.792) is True                   # the factor-two reading
    assert V.same_size(6 / 11, 0.792, band) is False
    assert V.same_size(9 / 11, 0.792, V.proportion_band(9 / 11, 11)) is True
    lo, hi = V.proportion_band(0.0, 20)
    assert lo == 0.0 or abs(lo) < 1e-12 and hi > 0.1


def test_conclusions_blocks_need_a_verdict_of_the_rule():
    from reproduce import analysis as A

    class P:
        @staticmethod
        def fact(name):
            return type("F", (), {"value": 24})()

    ok = A.conclusions(P, 10, [["q", "paper", "ours", V.PARTLY]])
    assert "| q | paper | ours | partly holds |" in "\n".join(ok)
    for row in (["q", "paper", "ours"], ["q", "paper", "ours", "reproduced"]):
        with pytest.raises(ValueError, match="verdict"):
            A.conclusions(P, 10, [row])
