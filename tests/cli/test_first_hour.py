"""The first hour of a new user: the headline commands work literally, errors point
the way, one label and one number format everywhere, statistics warn when data are few."""
from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from frcli.cli import main
from tests.helpers.tty import run_on_pty

REPO = Path(__file__).resolve().parents[2]
SYNTH_MTR = REPO / "datasets" / "synthetic" / "synth-mtr.arff"


def _err_line(capsys, rc, expected=2) -> str:
    err = capsys.readouterr().err.strip()
    assert rc == expected, err
    lines = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """``frcli experiment configs/quickstart.yaml`` into a results/ folder (~2 s)."""
    root = tmp_path_factory.mktemp("qs") / "results"
    assert main(["experiment", str(REPO / "configs" / "quickstart.yaml"), "--output",
                 str(root)]) == 0
    return root


# -- the Python API takes catalog names and speaks Python ------------------------------------
def test_api_accepts_catalog_names_and_overrides():
    import frcli

    r = frcli.rank("synth-mtr", method="genie3-rf", trees=20, seed=1)
    assert set(r.feature_names[i] for i in r.order()[:4]) == {"f01", "f02", "f03", "f04"}
    one = frcli.rank("synth-mtr", method="relief", targets="last:1")
    assert one.per_target is None and len(one.feature_names) == len(r.feature_names) + 2


def test_api_errors_name_python_keywords_not_flags(tmp_path):
    import frcli
    from frcli.errors import UserError

    table = tmp_path / "t.csv"                              # a CSV must name its target
    table.write_text("a,b,y\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(30)))
    with pytest.raises(UserError) as e:
        frcli.rank(str(table))
    msg = str(e.value)
    assert "targets='last:1'" in msg and "--" not in msg
    with pytest.warns(UserWarning, match="catalog data set 'synth-mtr'.*targets='13-15'"):
        assert frcli.rank(str(SYNTH_MTR), trees=5).meta["task"] == "mtr"  # the catalog's
    with pytest.raises(UserError, match="did you mean 'synth-mtr'"):
        frcli.rank("synth-mtrr")


def test_cli_errors_name_flags(capsys, tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("a,b,y\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(30)))
    line = _err_line(capsys, main(["rank", str(table)]))
    assert "--targets last:1" in line and "CSV" in line


@pytest.mark.parametrize("given,meant", [("relieff", "'relief'"), ("genie3rf", "'genie3-rf'"),
                                         ("Genie3_RF", "'genie3-rf'")])
def test_misspelled_method_gets_did_you_mean(capsys, given, meant):
    line = _err_line(capsys, main(["rank", "synth-mtr", "--method", given]))
    assert f"did you mean {meant}" in line


def test_misspelled_parameter_gets_did_you_mean(capsys):
    line = _err_line(capsys, main(["rank", "synth-mtr", "-m", "relief", "-p", "neighbors=5"]))
    assert "did you mean 'neighbours'" in line


def test_catalog_name_accepts_overrides(capsys):
    assert main(["rank", "synth-mtr", "--targets", "last:1", "--method", "relief",
                 "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert "per_target" not in d and len(d["features"]) == 14
    assert main(["rank", "synth-mtr", "--task", "unsupervised", "--method", "relief",
                 "--format", "csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 12   # targets are left out


@pytest.mark.parametrize("text", ["a;b;t\n1;2;3\n4;5;6\n7;8;9\n", "a\tb\tt\n1\t2\t3\n4\t5\t6\n"])
def test_semicolon_and_tab_csv_are_detected(tmp_path, capsys, text):
    p = tmp_path / "d.csv"
    p.write_text(text)
    assert main(["rank", str(p), "--targets", "t", "--format", "csv",
                 "--method", "uniform"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["a,1.0,1", "b,1.0,2"]


def test_one_column_csv_says_which_delimiters_are_read(tmp_path, capsys):
    p = tmp_path / "d.csv"
    p.write_text("a|b|t\n1|2|3\n")
    main(["rank", str(p)])
    assert "one column" in capsys.readouterr().err


def test_experiment_suggests_the_shipped_config(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    line = _err_line(capsys, main(["experiment", "mtr"]))
    assert "did you mean configs/mtr.yaml?" in line


def test_version_and_flags_without_values(capsys):
    from frcli import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"frcli {__version__}"
    assert main(["rank", "--help"]) == 0
    assert "<bool>" not in capsys.readouterr().out
    line = _err_line(capsys, main(["rank", "synth-mtr", "--semi-supervised", "true"]))
    assert "--semi-supervised is an on/off flag and takes no value" in line


# -- labels and numbers ----------------------------------------------------------------------
def test_one_label_function():
    from frcli.rankers.labels import full_label, labels, method_label

    assert method_label("relief", {"iterations": 1.0, "neighbours": "auto", "sigma": 0.0}) \
        == "relief"
    assert method_label("relief", {"neighbours": 15}) == "relief(neighbours=15)"
    assert method_label("genie3-rf", {"trees": 50, "min_leaf": "default"}) == \
        "genie3-rf(trees=50)"
    rows = [("relief", {"neighbours": 5}), ("relief", {"neighbours": 15}), ("uniform", {})]
    assert labels(rows) == ["relief(neighbours=5)", "relief(neighbours=15)", "uniform"]
    assert labels([("x", {"a": 1}), ("x", {"a": 1.0})])[0] == "x"   # unknown: varying only
    full = full_label("genie3-rf", {"trees": 100, "max_features": "sqrt", "min_leaf": 2.0,
                                    "bootstrap": True})
    assert full == "genie3-rf(trees=100, max_features=sqrt, min_leaf=2, bootstrap=true)"


def test_rank_header_is_the_full_label_and_never_cut(capsys):
    # every parameter that applies to the task (the semi-supervised w, the hmlc w0 do not)
    assert main(["rank", "synth-mtr", "--method", "genie3-rf", "-p", "trees=5"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head == ("# genie3-rf(trees=5, max_features=sqrt, min_leaf=2, bootstrap=true, "
                    "ties=share, genie3_scale=normalised, genie3_missing=clus)")
    assert main(["rank", "synth-ssl-mtr", "--semi-supervised", "--method", "relief",
                 "-p", "influence=fixed"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert len(head) > 80 and head.endswith("influence_near=1)")


def test_number_formats():
    from frcli import display as d
    from frcli.rankers.labels import param_value

    assert [d.value(v) for v in (0.585, 0.8404, 12.346, 1234.6, 0.0, 1.2346e-5, 2e6)] == \
        ["0.5850", "0.8404", "12.35", "1235", "0", "1.235e-05", "2.000e+06"]
    assert d.value(float("nan")) == "–" and d.rank(3.955) == "3.955" and d.cd(0.605) == "0.6050"
    assert d.p_value(0.0148) == "0.0148" and d.p_value(0.000233) == "2.33e-04"
    assert param_value(2.0) == "2" and param_value(True) == "true"


# -- stats and export on results/ --------------------------------------------------------------
def test_stats_results_folder_plot_cd(results, tmp_path, capsys, monkeypatch):
    """The headline command, literally: frcli stats results/ --plot cd."""
    monkeypatch.chdir(results.parent)
    assert main(["stats", "results/", "--plot", "cd"]) == 0
    cap = capsys.readouterr()
    assert "quickstart: main measure" in cap.out and "N = 5 data sets" in cap.out
    png = results / "stats" / "quickstart_main_cd.png"   # beside the results, listed
    assert "Wrote 2 files to results/stats/:\n  quickstart_main_cd.png" in cap.out
    assert png.read_bytes()[:4] == b"\x89PNG"
    # few data sets: warned, and the verdict is marked indicative
    assert "N > 10" in cap.err and "no Wilcoxon signed-rank test can reach" in cap.err
    assert "(indicative" in cap.out


def test_summary_and_stats_agree(results, capsys):
    """One rounding policy: the summary's average ranks are stats' (unrounded) ones."""
    from frcli.stats.summary import summary_table

    t = summary_table(results / "quickstart")
    methods = list(t.columns[0]._cells)
    ranks = [float(x) for x in t.columns[1]._cells]
    assert main(["stats", str(results / "quickstart"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["rounding"] == "none" and d["measure"] == "main"
    assert list(d["average_ranks"]) == methods
    assert np.allclose(list(d["average_ranks"].values()), ranks, atol=5e-4)
    assert d["mean_values"] is None                  # mixed measures: no common mean
    assert "relief(neighbours=5)" in methods and "genie3-rf(trees=50)" in methods


def test_a_folder_of_stores_is_one_analysis_per_experiment(results, tmp_path, capsys):
    import shutil

    root = tmp_path / "results"
    for name in ("a", "b"):
        shutil.copytree(results / "quickstart", root / name)
    assert main(["stats", str(root), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [a["experiment"] for a in d["analyses"]] == ["a", "b"]
    # a measure one experiment lacks skips it with a warning
    con = sqlite3.connect(root / "b" / "results.sqlite")
    con.execute("DELETE FROM scores WHERE measure = 'rrmse'")
    con.commit()
    con.close()
    assert main(["stats", str(root), "--measure", "rrmse", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["experiment"] == "a" and any(w.startswith("skipped b:") for w in d["warnings"])
    # export: every store, with the experiment first
    assert main(["results", "export", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("experiment,dataset,split")
    assert {ln.split(",")[0] for ln in lines[1:]} == {"a", "b"}


def test_nothing_found_names_what_was_found(tmp_path, capsys, results):
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "old").mkdir()
    for cmd in (["stats"], ["results", "export"]):
        line = _err_line(capsys, main([*cmd, str(tmp_path)]))
        assert "no result store here" in line and "notes.txt" in line and "old" in line
        line = _err_line(capsys, main([*cmd, str(results / "quickstart-paper")]))
        assert "no such folder" in line and "did you mean 'quickstart'" in line


def test_readme_and_configs_agree_on_result_folders():
    """Every results/<name> the README names is what a shipped config writes."""
    import yaml

    written = set()
    for cfg in (REPO / "configs").glob("*.yaml"):
        doc = yaml.safe_load(cfg.read_text())
        if isinstance(doc, dict) and "name" in doc and "rankers" in doc:
            written.add(f"{doc.get('output', 'results')}/{doc['name']}")
    named = set(re.findall(r"\bresults/[A-Za-z0-9_.-]+", (REPO / "README.md").read_text()))
    named.discard("results/stats")          # where frcli stats writes for results/
    assert named and named <= written, named - written


def test_small_sample_notes():
    from frcli.stats.tests import small_sample_notes

    assert len(small_sample_notes(2)) == 2 and len(small_sample_notes(6)) == 1
    assert small_sample_notes(11) == []


# -- progress --------------------------------------------------------------------------------
@pytest.mark.parametrize("method,params,unit,expected", [
    ("genie3-rf", {"trees": 37}, "trees grown", 37),
    ("relief", {"iterations": 0.5}, "Relief instances", 150),
    ("relief-str", {}, "Relief instances", 300 * 6),     # one search per label
])
def test_kernels_count_their_work_without_changing_it(method, params, unit, expected):
    import frcli
    from frcli.engines.progress import Counter, tracking

    data = "synth-mlc" if method == "relief-str" else "synth-mtr"
    plain = frcli.rank(data, method=method, jobs=2, **params)
    c = Counter()
    with tracking(c):
        counted = frcli.rank(data, method=method, jobs=2, **params)
    assert (c.expected, c.done, c.unit) == (expected, expected, unit)
    assert np.array_equal(plain.importances, counted.importances)


def test_rank_shows_progress_on_a_terminal_only(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    cmd = [sys.executable, "-m", "frcli.cli", "rank", "synth-mtr", "--method", "genie3-rf",
           "-p", "trees=300", "--progress"]
    rc, text = run_on_pty(cmd, env)
    assert rc == 0 and "trees grown" in text and "300/300" in text, text
    piped = subprocess.run(cmd[:-1], capture_output=True, text=True, env=env, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr


def test_experiment_logs_a_line_per_data_set_when_not_on_a_terminal(tmp_path):
    import os
    import subprocess
    import sys

    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"name: c\noutput: {tmp_path}\ndatasets: [synth-mtr, synth-regression]\n"
                   "protocol: {type: holdout, repeats: 2}\nrankers: [uniform, random]\n")
    res = subprocess.run([sys.executable, "-m", "frcli.cli", "experiment", str(cfg)],
                         capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert res.returncode == 0, res.stderr
    lines = [x for x in res.stderr.splitlines() if " done (" in x]
    assert len(lines) == 2 and "synth-mtr done (1/2 data sets, 4/8 tasks" in lines[0], res.stderr
    assert "━" not in res.stderr and "\x1b[" not in res.stderr


def test_a_grid_says_how_many_rankings_and_how_to_see_them(capsys):
    assert main(["rank", "synth-mtr", "-m", "relief", "-p", "neighbours=5,10"]) == 0
    err = capsys.readouterr().err
    assert "give 2 rankings" in err and "relief(neighbours=5)" in err and "--which all" in err


# -- figures ---------------------------------------------------------------------------------
def test_near_equal_ranks_get_distinct_leader_lines():
    from frcli.stats.cd_diagram import leader_positions

    far = [1.0, 2.0, 3.5]
    assert leader_positions(far, 0.07) == far                 # separated: untouched
    x = [1.0, 2.0, 2.0, 2.0, 2.01, 5.0]
    y = leader_positions(x, 0.07)
    assert all(b - a >= 0.07 - 1e-12 for a, b in zip(y, y[1:]))   # distinct, same order
    assert abs(np.mean(y[1:5]) - np.mean(x[1:5])) < 1e-9        # centred on the ranks
    assert y[0] == 1.0 and y[5] == 5.0


def test_cd_diagram_marks_a_bonferroni_dunn_bar_cut_at_the_axis():
    from frcli.stats.cd_diagram import cd_diagram

    fig = cd_diagram(["a", "b", "c", "d"], [1.2, 2.0, 3.0, 3.8], cd=1.0, groups=[],
                     control="a", bd_cd=1.5)
    marks = [ln.get_marker() for ln in fig.axes[0].lines if ln.get_color() == "tab:red"]
    assert "<" in marks and ">" not in marks
    fig = cd_diagram(["a", "b", "c", "d"], [1.2, 2.0, 3.0, 3.8], cd=1.0, groups=[],
                     control="b", bd_cd=0.5)
    assert not {"<", ">"} & {ln.get_marker() for ln in fig.axes[0].lines}


def test_heatmap_labels_missing_cells():
    import pandas as pd

    from frcli.stats.plots import heatmap_from_frame

    rows = [dict(dataset=f"d{d}", method="relief", measure="rrmse", value=(d + it + k) % 7,
                 params=json.dumps({"iterations": it, "neighbours": k}))
            for d in range(3) for it in (0.5, 1.0) for k in (5, 10) if (it, k) != (0.5, 10)]
    fig = heatmap_from_frame(pd.DataFrame(rows), measure="rrmse", lower_is_better=True)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts.count("n/a") == 1


def test_long_method_names_are_never_cut(tmp_path, capsys):
    names = [f"a-rather-long-method-name-that-ends-in-a-distinct-suffix-{i}" for i in range(4)]
    rng = np.random.default_rng(1)
    lines = ["dataset," + ",".join(names)]
    lines += [f"d{i}," + ",".join(f"{v:.4f}" for v in rng.random(4)) for i in range(12)]
    p = tmp_path / "m.csv"
    p.write_text("\n".join(lines) + "\n")
    assert main(["stats", str(p), "--measure", "rrmse"]) == 0
    out = capsys.readouterr().out
    pairs = [ln for ln in out.splitlines() if ln.count("distinct-suffix-") == 2]
    assert len(pairs) == 6 and "…" not in out                 # every pair, names whole
