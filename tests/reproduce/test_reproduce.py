"""The reproduction generator (reproduce/): quoted paper numbers are on their cited lines,
sections splice and compare as documented, and the committed sections of docs/reproduction.md
are what the code produces now (quick studies here, the others under the slow marker)."""
from __future__ import annotations

import re
import sys

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO))

from reproduce import framework as fw  # noqa: E402
from reproduce import sections  # noqa: E402
from reproduce.papers import Paper, all_papers  # noqa: E402


@pytest.mark.shared("papers")
def test_every_quoted_number_is_on_its_cited_lines():
    papers = all_papers()
    bad = [b for p in papers for b in p.check()]
    assert sum(1 for p in papers for _ in p.cited_values()) > 0
    assert not bad, "\n".join(bad[:20])


def _planted(rows: dict, facts: dict | None = None, **table) -> list[str]:
    """What Paper.check reports for a one-table paper printed as below."""
    text = ["Table 7 RRMSE", "", "Baseline Ensemble Relief",
            "ATP1d 0.467 0.45 0.452", "", "jura 0.836 0.749 0.762",
            "water quality 0.985 -0.010 0.98",
            "p = 2.14-1074 and p = 7.59 x 10-5 over 24 sets; 0.0452 and 1.24"]
    doc = {"file": "x.txt", "key": "X",
           "tables": {"t7": {"lines": "1-7", "columns": ["b", "e", "r"], "rows": rows, **table}},
           "facts": facts or {}}
    return Paper("planted", doc).check(text)


def test_quote_check_fails_on_truncated_swapped_or_misplaced_numbers():
    ok = {"ATP1d": [0.467, 0.45, 0.452], "jura": [0.836, 0.749, 0.762],
          "water quality": [0.985, -0.01, 0.98]}
    facts = {"p": {"value": [2.14e-4, 7.59e-5], "lines": "8"}, "n": {"value": 24, "lines": "8"}}
    assert _planted(ok, facts) == []
    # a truncated or rounded number is not the printed one ('0.45' against '0.452')
    bad = _planted({**ok, "ATP1d": [0.467, 0.45, 0.45]})
    assert bad and "t7.ATP1d.r = 0.45 not in column order on X:4" in bad[0]
    # a value swapped between two rows fails, although both are printed in the table
    bad = _planted({**ok, "ATP1d": [0.836, 0.45, 0.452], "jura": [0.467, 0.749, 0.762]})
    assert len(bad) == 2 and "t7.ATP1d.b = 0.836" in bad[0] and "t7.jura.b = 0.467" in bad[1]
    # ... and so does one swapped between two columns of a row
    assert _planted({**ok, "jura": [0.836, 0.762, 0.749]})
    # the sign is part of the number
    assert _planted({**ok, "water quality": [0.985, 0.01, 0.98]})
    # a fact: whole numbers, and a legible exponent must agree ('24' is not in '1.24')
    assert _planted(ok, {"n": {"value": 45, "lines": "8"}})
    assert _planted(ok, {"p": {"value": 0.045, "lines": "8"}})          # not in 0.0452
    assert _planted(ok, {"p": {"value": 2.14e-3, "lines": "8"}})        # printed 10^-4
    assert _planted(ok, {"n": {"value": 1.24, "lines": "8"}}) == []
    # a row the check cannot place is reported, not skipped; row_lines and labels place it
    bad = _planted({**ok, "ATP7d": [0.664, 0.653, 0.678]})
    assert "label 'ATP7d' on 0 lines" in bad[0]
    assert _planted({"A": [0.836, 0.749]}, labels={"A": "jura"}, columns=["b", "e"]) == []
    assert _planted({"A": [0.985]}, row_lines={"A": 7}, columns=["b"]) == []
    assert _planted({"A": [0.985]}, row_lines={"A": 6}, columns=["b"])
    # unchecked values are used but not checked
    assert _planted({**ok, "jura": [{"value": 0.9, "unchecked": "OCR"}, 0.749, 0.762]}) == []


def test_splice_replaces_only_its_section_and_appends_new_ones():
    doc = "# Doc\n\nintro\n\n<!-- study: a -->\nold a\n<!-- /study: a -->\n\ntail\n"
    d2 = fw.splice(doc, "a", "## A\nnew a\n")
    assert "old a" not in d2 and "## A\nnew a\n<!-- /study: a -->" in d2
    assert d2.startswith("# Doc\n\nintro\n\n") and d2.endswith("\ntail\n")
    d3 = fw.splice(d2, "b", "## B")
    assert d3.endswith("<!-- study: b -->\n## B\n<!-- /study: b -->\n")
    assert fw.section(d3, "a") == "## A\nnew a" and fw.section(d3, "c") is None
    with pytest.raises(fw.StudyError):
        fw.section("<!-- study: x -->\nno end", "x")


def test_check_ignores_only_stamps_and_volatile_lines():
    a = f"## A\n\n{fw.STAMP} x · 2026-01-01</sub>\n| t | 1.0 s {fw.VOLATILE} |\n| v | 0.5 |"
    b = f"## A\n\n{fw.STAMP} y · 2026-02-02</sub>\n| t | 2.0 s {fw.VOLATILE} |\n| v | 0.5 |"
    assert fw.stale_diff(a, b, "a") == ""
    c = b.replace("0.5", "0.6")
    diff = fw.stale_diff(a, c, "a")
    assert "-| v | 0.5 |" in diff and "+| v | 0.6 |" in diff
    assert "no section" in fw.stale_diff(None, b, "a")


def test_config_overrides_deep_merge_and_rename():
    ref = fw.ConfigRef("configs/mtr-table7.yaml", name="t7-more",
                       set={"protocol": {"repeats": 20}, "datasets": ["enb"]})
    cfg = ref.load()
    assert cfg.name == "t7-more" and cfg.protocol.repeats == 20
    assert cfg.protocol.seed == 0 and [d.name for d in cfg.datasets] == ["enb"]


def test_every_study_is_declared_once_with_its_configs():
    studies = fw.studies()
    assert "mtr-table7" in studies and studies["mtr-table7"].quick
    for st in studies.values():
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", st.name)
        for ref in st.configs:
            assert (REPO / ref.path).is_file(), f"{st.name}: {ref.path}"


def _unpinned(cfg) -> list[str]:
    """The rankers of a config that have a tie rule and do not pin CLUS's (``ties: first``,
    which produced the papers' numbers; frcli's default shares tied credit), or whose leaf
    size follows frcli's defaults instead of naming the papers' (``min_leaf: auto`` or a
    number; the default grows shallower unsupervised trees)."""
    from frcli.data import catalog
    from frcli.rankers.registry import get_ranker

    relational = any(d.catalog and catalog.get(d.name).group == "relational"
                     for d in cfg.datasets)
    out = []
    for r in cfg.rankers:
        spec = get_ranker(r.method, relational=relational).param_spec()
        if "ties" in spec and r.params.get("ties") != "first":
            out.append(f"{cfg.name}: {r.method} ties={r.params.get('ties', 'default')}")
        leaf = spec.get("min_leaf")
        if leaf is not None and leaf.default == "default" and \
                r.params.get("min_leaf", "default") == "default":
            out.append(f"{cfg.name}: {r.method} min_leaf=default")
    return out


def test_every_study_config_pins_clus_tie_rule():
    bad = [u for st in fw.studies().values() for ref in st.configs for u in _unpinned(ref.load())]
    assert not bad, "\n".join(bad)
    planted = fw.ConfigRef("configs/hmlc.yaml", name="planted", set={"rankers": [
        {"method": "genie3-et", "params": {"trees": 10}}, "uniform",
        {"method": "symbolic-rf", "params": {"trees": 10, "ties": "first"}}]})
    assert _unpinned(planted.load()) == ["planted: genie3-et ties=default",
                                         "planted: genie3-et min_leaf=default",
                                         "planted: symbolic-rf min_leaf=default"]


def _recompute(study, tmp_path) -> None:
    """Run the study's configs from scratch into ``tmp_path`` and compare every run with its
    persisted store: the same runs, scores and kept importances, bit for bit."""
    from frcli.experiment.executor import run_experiment
    from reproduce import artifacts

    for ref in study.configs:
        cfg = ref.load()
        run_experiment(cfg, jobs=2, output=tmp_path, progress=False)
        fresh = fw.StoreView(cfg.output_dir(tmp_path), cfg)
        per = fw.StoreView(fw.persisted_dir(cfg), cfg, persisted=fw.persisted_dir(cfg))
        cols = ["dataset", "split", "labeled", "method", "params", "measure", "value"]
        a, b = fresh.frame[cols], per.frame[cols]
        assert a.equals(b), f"{cfg.name}: the scores computed now differ from the persisted"
        for key in artifacts.Persisted(fw.persisted_dir(cfg)).kept_keys():
            args = (key[0], key[1], key[3], key[4], key[2])
            assert fresh.importances(*args)[1].tobytes() == per.importances(*args)[1].tobytes()


@pytest.mark.shared
def test_quick_studies_recompute_to_their_persisted_stores(shared_data, tmp_path):
    """The quick studies (MTR Table 7: ~35 s with 2 jobs) computed from scratch give their
    persisted stores exactly: the end-to-end counterpart of the canaries."""
    for st in fw.studies().values():
        if st.quick and not st.draft:
            _recompute(st, tmp_path / st.name)


@pytest.mark.shared
def test_a_changed_number_fails_the_check(shared_data):
    """A section whose text differs from its re-render is stale (one number of the MTR
    table changed in a copy of the doc)."""
    text = fw.DOC.read_text(encoding="utf-8")
    sec = fw.section(text, "mtr-table7")
    row = next(ln for ln in sec.split("\n") if ln.startswith("| jura |"))
    cells = row.split(" | ")
    i = next(j for j, c in enumerate(cells) if re.fullmatch(r"\*{0,2}\d\.\d{3}\*{0,2}", c))
    num = re.search(r"\d\.\d{3}", cells[i]).group()
    cells[i] = cells[i].replace(num, f"{float(num) + 0.001:.3f}")
    tampered = " | ".join(cells)
    out = sections.check_study(fw.studies()["mtr-table7"], text.replace(row, tampered),
                         fw.canary_digests(2))
    diff = "\n".join(out.problems)
    assert f"-{tampered}" in diff and f"+{row}" in diff


def test_writing_the_doc_needs_a_committed_tree(monkeypatch, capsys):
    from reproduce.__main__ import main

    monkeypatch.setattr(fw, "dirty_paths", lambda: ["frcli/engines/relief.py"])
    assert main(["mtr-table7"]) == 2
    assert "uncommitted changes (frcli/engines/relief.py)" in capsys.readouterr().err


def test_run_times_section_is_current():
    """The Run times section equals what the sections' stamps and the study declarations
    give (`python -m reproduce --times` rewrites it; every section write refreshes it)."""
    text = fw.DOC.read_text(encoding="utf-8")
    diff = fw.stale_diff(fw.section(text, fw.SUMMARY), sections.summary(text, fw.studies()),
                         fw.SUMMARY)
    assert not diff, f"regenerate with `python -m reproduce --times` and commit:\n{diff}"


def test_run_times_read_stamps_subsets_and_shared_stores():
    from reproduce.studies import _subset

    def body(name, runs, t):
        return (f"## {name}\n\n{fw.STAMP} `python -m reproduce {name}` · commit abc · code "
                f"0123456789ab · config fedcba987654 · 2026-01-02 · {runs} runs, {t} of "
                f"ranking and evaluation (one core per run)</sub>\n\ntext")

    ref = _subset.ref("configs/hmlc.yaml", ["church_FUN", "eisen_FUN"])
    render = lambda stores: ""  # noqa: E731
    studies = {"a": fw.Study("a", "A", ("configs/mtr-table7.yaml",), render, order=1),
               "b": fw.Study("b", "B", (ref,), render, order=2),
               "c": fw.Study("c", "C", (ref,), render, order=3),
               "d": fw.Study("d", "D", (ref,), render, order=4, draft=True),
               "e": fw.Study("e", "E", ("configs/mlc-subset.yaml",), render, order=5)}
    doc = ""
    for name, runs, t in (("a", 330, "9 min"), ("b", 100, "1.5 h"), ("c", 100, "1.5 h")):
        doc = fw.splice(doc, name, body(name, runs, t))
    assert fw.read_stamp(fw.section(doc, "b"))["time"] == "1.5 h"
    out = sections.summary(doc, studies)
    rows = {ln.split(" | ")[0][2:]: ln for ln in out.split("\n") if ln.startswith("| ")}
    assert "2 of 12 data sets of `configs/hmlc.yaml`" in rows["b"]
    assert "the runs of b" in rows["c"] and "d" not in rows and "draft" not in rows["a"]
    assert "no section yet" in rows["e"] and "subset: `configs/mlc-subset.yaml`" in rows["e"]
    assert rows["total"].startswith("| total | 430 | 99 min")      # 9 min + 1.5 h, c once
    assert "Not generated yet: e." in out and "Draft studies, not run by" in out


def test_full_run_line_names_what_ran_and_is_kept_by_the_summary():
    line = sections.full_run_line(3646.0, 2, ["a", "b"])
    assert f"commit {fw.commit()})" in line
    assert "61 min wall" in line and line.endswith(fw.VOLATILE)
    doc = fw.splice("", fw.SUMMARY, sections.summary("", {}, last_full_run=line))
    assert sections.summary(doc, {}).endswith(line)     # --times keeps the last full run's line


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("name", [s.name for s in fw.studies().values()
                                  if not s.quick and not s.draft and s.configs])
def test_slow_studies_recompute_to_their_persisted_stores(name, shared_data, tmp_path):
    _recompute(fw.studies()[name], tmp_path)


def test_store_views_and_tables_on_a_small_experiment(tmp_path):
    """StoreView and reproduce.analysis on a real (tiny) store: means, rounding, sizes."""
    from frcli.experiment.config import parse_config
    from frcli.experiment.executor import run_experiment
    from reproduce import analysis as A

    cfg = parse_config({"name": "tiny", "datasets": ["synth-mtr"],
                        "protocol": {"type": "holdout", "repeats": 2, "seed": 0},
                        "rankers": ["uniform", {"method": "relief",
                                                "params": {"neighbours": [5, 10]}},
                                    {"method": "genie3-rf", "params": {"trees": 3}}],
                        "evaluation": {"knn": 5, "measures": ["rrmse"]}}, "tiny.yaml")
    run_experiment(cfg, output=tmp_path, progress=False)
    stores = fw.Stores(tmp_path, [cfg])
    view = stores["tiny"]
    f = view.frame
    df = A.wide(view, "rrmse", lambda m, p: m if m == "uniform" else
                (f"k{A.params(p)['neighbours']}" if m == "relief" else None), rounding="3")
    assert sorted(df.columns) == ["k10", "k5", "uniform"] and list(df.index) == ["synth-mtr"]
    want = f[(f["method"] == "uniform")]["value"].mean()
    assert df.at["synth-mtr", "uniform"] == round(want, 3)
    z = view.sizes["synth-mtr"]
    assert (z["n_train"] + z["n_test"], z["n_features"], z["n_targets"]) == (300, 12, 3)
    with pytest.raises(fw.StudyError):
        stores["nope"]


def test_relational_settings_keep_continuation_apart():
    """Runs with ``continuation: none`` (re3py's search space) are their own row of the
    relational table, never averaged into AGG-All; other continuations are named too."""
    from reproduce.studies.relational import RE3PY_SPACE, setting_of

    assert setting_of('{"trees": 50}') == "AGG-All"
    assert setting_of('{"trees": 50, "continuation": "both"}') == "AGG-All"
    assert setting_of('{"trees": 50, "continuation": "none"}') == RE3PY_SPACE
    assert setting_of('{"aggregates": "exist"}') == "AGG-Exist"
    assert setting_of('{"tables": "target", "continuation": "none"}') == \
        "NO-Rel, continuation none"
    assert setting_of('{"continuation": "yes"}') == "AGG-All, continuation yes"


def test_pml_str_rows_laplace_gating_and_pol_cost():
    """P-ML (reproduce/studies/_ssl_render.py): STR sets are their own task, the Laplace score
    is compared only where the paper ranks it, the STR and Relief conclusions can fail, and
    pol's cost is scaled from the measured probe by mortgage's per-(fold, L) time."""
    import numpy as np
    import pandas as pd

    from reproduce.papers import paper
    from reproduce.studies import _ssl_render as R

    assert R._task("STR/MTR", "treasury") == "STR" and R._task("STR/MTR", "edm") == "MTR"
    assert R._laplace_tasks(paper("p-ml")) == {"STR"}
    P = paper("p-ml")
    tables = {"STR": P.table("table10"), "MLC": P.table("table9"), "HMLC": P.table("table9")}
    # paper (T:7796-7812): mortgage 0.074 0.092 0.097 0.078 0.120, treasury 0.118 0.172 0.165
    # 0.155 0.215: all SSL better
    D = pd.DataFrame([{"task": "STR", "dataset": "mortgage", "genie3": 0.1, "rf": 0.1,
                       "symbolic": 0.1, "relief": -0.1, "laplacian": 0.1},
                      {"task": "STR", "dataset": "treasury", "genie3": 0.1, "rf": 0.2,
                       "symbolic": 0.1, "relief": 0.1, "laplacian": 0.3}])
    cols = tuple(R.PAPER_COLS)
    parts = R._delta_parts(D, tables, "STR", ("mortgage", "treasury"), cols)
    assert parts[("mortgage", "relief")] == (False, False)       # the sign differs
    assert parts[("mortgage", "genie3")] == (True, True)
    row = R._every_ranking_row(parts, "STR claim")
    assert row[1].startswith("the paper's sign: mortgage 4 of 5, treasury 5 of 5")
    assert row[2] == "partly holds"
    assert R._every_ranking_row(R._delta_parts(D.iloc[1:], tables, "STR", None, cols),
                                "x")[2] == "holds"
    # a size 10x the paper's is not the paper's result although the sign agrees
    D10 = D.iloc[1:].assign(**{c: 1.5 for c in cols})
    assert R._every_ranking_row(R._delta_parts(D10, tables, "STR", None, cols),
                                "x")[2] == "partly holds"
    assert R._every_ranking_row({}, "x")[1:] == ["not run", "cannot tell"]
    t11p = P.table("table11")           # classification: Relief 2.31 ahead; STR: Symbolic
    ranks = {"classification": pd.Series({"genie3": 2.0, "rf": 3.0, "symbolic": 4.0,
                                          "relief": 1.0}),
             "STR": pd.Series({"genie3": 2.0, "rf": 3.0, "symbolic": 1.0, "relief": 4.0,
                               "laplacian": 5.0})}
    assert R._relief_row(ranks, t11p)[2] == "holds"
    ranks["STR"]["relief"] = 0.5
    assert R._relief_row(ranks, t11p)[2] == "partly holds"
    ranks["STR"]["relief"] = 1.0                       # a tie the paper does not have
    assert R._relief_row(ranks, t11p)[2] == "partly holds"
    runs = pd.DataFrame({"dataset": ["mortgage"] * 4, "split": [0, 0, 1, 1],
                         "labeled": [50, 50, 50, 50], "rank_time_s": [1.0, 2.0, 3.0, 4.0],
                         "eval_time_s": np.zeros(4)})
    probe = {"sets": ["mortgage", "pol"], "method": "rf-rf", "split": 0, "labeled": 200,
             "times": {
                 "mortgage": {"seconds": 2.0, "rows": 1049, "features": 15, "train": 944},
                 "pol": {"seconds": 60.0, "rows": 15000, "features": 48, "train": 13500}}}
    cv = _view(runs, "cv")
    note = R._cost_note(probe, cv, "ssl.py")
    # mortgage: (3 + 7) / 2 = 5 s per (fold, L); x30 = 150 s = about 2 min, 2 of them 5 min
    assert "30.0x" in note and "mean of its 2" in note and "about 2 min per (fold, L)" in note
    assert "5 min for its 2" in note and note.endswith("<!-- volatile -->")
    assert "pol (15000 rows x 48 features)" in note and "lower bound" not in note
    assert R._cost_note(None, cv, "ssl.py") == ""
    # MLC/HMLC: the given split (one training file), several sets left out, HMLC its own task
    assert R._task("MLC/HMLC", "pheno_FUN") == "HMLC" and R._task("MLC/HMLC", "scene") == "MLC"
    given = _view(runs.assign(dataset="emotions", split=0, labeled=[50, 100, 200, 350]),
                  "given")
    mlc = {"method": "rf-rf", "split": 0, "labeled": 200, "sets": ["emotions", "birds", "bibtex"],
           "times": {"emotions": {"seconds": 2.0, "rows": 593, "features": 72, "train": 391},
                     "birds": {"seconds": 8.0, "rows": 645, "features": 260, "train": 322},
                     "bibtex": {"seconds": 200.0, "rows": 7395, "features": 1836,
                                "train": 4880, "capped": True}}, "cap": 200}
    note = R._cost_note(mlc, given, "ssl.py")
    # emotions: 2.5 s per (training file, L), 4 of them; birds 4x, bibtex 100x (a bound)
    assert "on the training file with L = 200" in note and "stopped: a lower bound" in note
    assert "birds (645 rows x 260 features): 8 s, 4.0x, about 10 s per (training file, L) " \
        "and 40 s for its 4" in note
    assert "bibtex (7395 rows x 1836 features): more than 200 s, more than 100.0x, at " \
        "least 4 min per (training file, L) and 17 min for its 4" in note
    # paper (T:7777-7794): emotions 0.012 0.028 0.011 0.044; genbase 0.091 0.121 0.094 0.189;
    # pheno_FUN -0.032 -0.031 -0.036 -0.029
    D = pd.DataFrame([{"task": "MLC", "dataset": d, "genie3": g, "rf": r, "symbolic": s_,
                       "relief": f} for d, g, r, s_, f in (
                           ("emotions", 0.012, 0.03, 0.01, 0.05),
                           ("genbase", -0.1, 0.1, 0.1, 0.1), ("medical", -0.1, 0.1, 0.1, 0.1))]
                     + [{"task": "HMLC", "dataset": "pheno_FUN", "genie3": -0.03, "rf": -0.03,
                         "symbolic": 0.03, "relief": -0.03}])
    row = R._every_ranking_row(R._delta_parts(D, tables, "MLC", ("genbase", "emotions")), "x")
    assert row[1].startswith("the paper's sign: emotions 4 of 4, genbase 3 of 4")
    assert row[2] == "partly holds"
    assert R._every_ranking_row(R._delta_parts(D.iloc[:1], tables, "MLC"), "x")[2] == "holds"
    hm = R._every_ranking_row(R._delta_parts(D, tables, "HMLC"), "x")
    assert hm[1].startswith("the paper's sign: pheno_FUN 3 of 4") and hm[2] == "partly holds"


def _view(runs, protocol: str):
    """A stand-in StoreView: stored runs and the protocol type."""
    import types

    return types.SimpleNamespace(runs=runs, config=types.SimpleNamespace(
        protocol=types.SimpleNamespace(type=protocol)))


def test_pds_cost_of_left_out_sets_scales_the_reference(tmp_path):
    """P-DS: each left-out set's cost is the reference's measured per-(fold, L) time times
    the probe's ratio (reproduce/studies/_probe.py); a stored probe of the same sets and
    settings is kept, and without the reference's runs there is no note."""
    import numpy as np
    import pandas as pd

    from reproduce.studies import _probe
    from reproduce.studies import _ssl_render as R

    runs = pd.DataFrame({"dataset": ["chess"] * 3, "split": [0, 0, 1],
                         "labeled": [50, 50, 50], "rank_time_s": [10.0, 20.0, 50.0],
                         "eval_time_s": np.zeros(3)})
    probe = {"sets": ["chess", "digits", "bank"], "method": "rf-rf", "split": 0,
             "labeled": 200, "times": {
                 "chess": {"seconds": 10.0, "rows": 3196, "features": 36, "train": 2876},
                 "digits": {"seconds": 20.0, "rows": 1797, "features": 64, "train": 1617},
                 "bank": {"seconds": 5.0, "rows": 4521, "features": 16, "train": 4068}}}
    est = _probe.estimates(probe, runs, "chess")
    assert est["chess"]["per"] == 40.0 and est["chess"]["n"] == 2      # (30 + 50) / 2
    assert est["digits"]["per"] == 80.0 and est["digits"]["total"] == 160.0
    note = R._cost_note(probe, _view(runs, "cv"), "ssl_classification.py")
    assert "10.0 s on chess" in note and "mean of its 2" in note
    assert "digits (1797 rows x 64 features): 20 s, 2.0x" in note and "bank" in note
    assert "chess (" not in note and note.endswith("<!-- volatile -->")
    assert R._cost_note(probe, _view(runs[runs["dataset"] == "none"], "cv"), "x") == ""
    assert R._cost_note(None, _view(runs, "cv"), "x") == ""
    path = tmp_path / "cost.json"
    path.write_text(__import__("json").dumps(probe))
    same = _probe.Probe("configs/ssl-classification.yaml", "chess", ("digits", "bank"))
    _probe.measure(same, path)                     # the stored probe matches: kept as is
    assert _probe.load(path) == probe


def test_pds_delta_rows_check_the_papers_sign_per_set():
    """P-DS Table 3 (reproduce/studies/_ssl_render.py): the clustering-assumption conclusion
    compares the sign of our ΔF1 with the paper's per set (chess: SSL loses in the paper), and
    sets without a paper value are not counted."""
    import pandas as pd

    from reproduce.studies import _ssl_render as R

    rows = []
    for d, ssl, sl in (("tic-tac-toe", 0.9, 0.8), ("chess", 0.7, 0.8), ("digits", 0.5, 0.4)):
        for setting, v in (("ssl", ssl), ("sl", sl)):
            for score, e in (("symbolic", "rf"), ("genie3", "bagging"), ("rf", "bagging")):
                rows.append({"dataset": d, "setting": setting, "score": score,
                             "ensemble": e, "area": v})
    a = pd.DataFrame(rows)
    areas = {"accuracy": a, "macro_f1": a}
    chosen = {"symbolic": "rf", "genie3": "bagging", "rf": "bagging"}
    paper = {"Tic-tac-toe": {f"{s}_{m}": 0.1 for s in R.SCORES for m in ("acc", "f1")},
             "Chess": {f"{s}_{m}": -0.1 for s in R.SCORES for m in ("acc", "f1")}}
    out, wins, agree = R._delta_rows(["tic-tac-toe", "chess", "digits"], areas, chosen, paper,
                                     lambda x, score: R._pick(x, "sl", score, chosen[score]),
                                     lambda v: f"{v:.2f}")
    assert wins["genie3"] == [True, False, True]          # ours positive on F1
    assert agree["genie3"] == [True, True]                # chess: both negative; digits: no value
    assert out[1][2] == "-0.10 / -0.10" and out[2][1] == "– / 0.10"     # paper / ours


def test_dirty_paths_name_the_computing_files_exactly(monkeypatch):
    """A stamp reads +changes exactly when computing code is uncommitted: an edited README
    of reproduce/ or a store does not count, new files do, and every path is named whole."""
    out = {"diff": "reproduce/README.md\nreproduce/framework.py\n"
                   "reproduce/stores/mtr-table7/manifest.json",
           "ls-files": "frcli/new_module.py"}
    monkeypatch.setattr(fw, "_git", lambda *a: out[a[0]])
    assert fw.dirty_paths() == ["frcli/new_module.py", "reproduce/framework.py"]
