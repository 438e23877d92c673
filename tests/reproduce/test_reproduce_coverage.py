"""The coverage lines every section ends with (reproduce/coverage.py): the left-out data sets by
name, and what each statistical test can say at the N it ran on."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO))

from reproduce import coverage as C  # noqa: E402
from reproduce import framework as fw  # noqa: E402


def test_wilcoxon_bounds():
    assert C.wilcoxon_min_p(6) == pytest.approx(0.03125)
    assert C.wilcoxon_n_for(0.05) == 6            # 2/2^6 = 0.031 <= 0.05 < 2/2^5
    assert C.wilcoxon_n_for(0.05 / 6) == 8        # Holm's first threshold over 6 tests
    for thr in (0.05, 0.01, 0.05 / 12):
        n = C.wilcoxon_n_for(thr)
        assert C.wilcoxon_min_p(n) <= thr < C.wilcoxon_min_p(n - 1)


def test_nemenyi_bound_is_the_first_n_that_separates_the_extremes():
    from frcli.stats.tests import nemenyi_cd

    for k in (2, 3, 5, 9):
        n = C.nemenyi_n_for(k)
        assert nemenyi_cd(k, n) < k - 1 <= nemenyi_cd(k, n - 1)


def test_power_line_records_the_tests_a_render_runs():
    from frcli.stats import tests as T

    rng = np.random.default_rng(0)
    with C.recording() as rec:
        ps = [T.wilcoxon_pair(rng.random(6), rng.random(6), True).p_value for _ in range(6)]
        T.adjust(ps, 0.05, "holm")
        T.friedman(T.average_ranks(rng.random((3, 4)), True), 3)
        T.nemenyi_cd(2, 3)
    assert T.wilcoxon_pair.__name__ == "wilcoxon_pair" and not C._active   # restored
    line = C.power_line(rec)
    assert "Wilcoxon signed-rank (6 tests on N = 6)" in line
    assert "2/2^6 = 0.031" in line and "0.05/6 = 0.0083" in line and "N ≥ 8 could" in line
    assert "Friedman/Iman–Davenport (k = 4 on N = 3)" in line
    assert f"cannot separate any two of 2 (needs N ≥ {C.nemenyi_n_for(2)})" in line
    assert C.power_line(C.Recorder()) == ""


def test_every_section_names_its_left_out_sets():
    studies = fw.studies()
    rel = C.data_line(studies["relational"])
    assert "2 of the 4 data sets of `configs/relational.yaml`" in rel
    assert "left out: carcinogenesis and webkb" in rel
    assert "It runs all the 14 data sets" in C.data_line(studies["unsupervised"])
    params = C.data_line(studies["unsupervised-params"])
    assert "`unsupervised-params-all` runs 1 of the 14 (left out:" in params
    assert "BASEHOCK" in params
    assert C.column(studies["hmlc-saturation"]).startswith("12 of 12 shared (30 of the paper)")
    assert C.column(studies["mtr-analyses"]).startswith("11 of 11 shared (24 of the paper)")
    assert C.column(studies["mtr-jura-targets"]) == "1 of 1 shared"


def test_the_left_out_pairs_are_named_with_their_cost_and_a_plan():
    cost = {"pairs": [("c", "big", 7200.0, "sampled", "1 s CPU per run × 10 runs (sub-slice: "
                       "ensembles of 100 trees at 2 and 4, linear in the trees)"),
                      ("c", "small", 600.0, "extrapolated", "from a's cpu seconds"),
                      ("d", "small", 1200.0, "sampled", "2 s CPU per run × 10 runs"),
                      ("d", "odd", float("nan"), "none", "no set of its config ran")],
            "where": ["reproduce/studies/x.py"]}
    line = C.cost_line("x", cost)
    assert "about 2.5 h of one-core time (2.3 h of it sampled;" in line
    assert "`c`: big 2.0 h (sub-slice), small 10 min (extrapolated); `d`: small 20 min " \
           "(sampled), odd not estimated" in line
    assert "*sub-slice*" in line and "cheapest first (small of `c` and small of `d`" in line
    assert "`python -m reproduce x` resumes them" in line
    cell = C.shortfall_cell(cost)
    assert cell == ("left out: big 2.0 h, small 30 min, odd ? (2.5 h one-core, 2.3 h "
                    "sampled; plan in its section)")
