"""`frcli stats` end to end: a CSV written here and a tiny result store from `frcli experiment`."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from frcli.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def matrix_csv(tmp_path):
    """12 data sets × 4 methods, A clearly best, D clearly worst (lower is better)."""
    rng = np.random.default_rng(0)
    lines = ["dataset,A,B,C,D"]
    for i in range(12):
        v = rng.random(4) * 0.2 + np.array([0.0, 0.1, 0.15, 0.5])
        lines.append(f"d{i}," + ",".join(f"{x:.4f}" for x in v))
    p = tmp_path / "m.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.fixture(scope="module")
def store(tmp_path_factory, need):
    """uniform + random + a Relief grid on 3 synthetic sets, holdout × 2 (~2 s)."""
    d = tmp_path_factory.mktemp("exp")
    cfg = d / "tiny.yaml"
    cfg.write_text(f"""name: tiny
output: {d / 'res'}
datasets: [synth-mtr, synth-regression, synth-ssl-mtr]
protocol: {{type: holdout, repeats: 2}}
rankers:
  - uniform
  - random
  - method: relief
    params: {{iterations: [0.5, 1.0], neighbours: [5, 10]}}
evaluation: {{knn: 5}}
""")
    need.file(REPO / "datasets" / "synthetic" / "synth-mtr.arff", "the bundled synthetic set")
    assert main(["experiment", str(cfg)]) == 0
    return d / "res" / "tiny"


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_json_keys_and_values(matrix_csv, capsys):
    assert main(["stats", str(matrix_csv), "--measure", "rrmse", "--json"]) == 0
    d = _json(capsys)
    for key in ("average_ranks", "friedman", "iman_davenport", "nemenyi_cd", "n_datasets",
                "n_methods", "pairwise", "groups", "mean_values"):
        assert key in d
    assert d["n_datasets"] == 12 and d["n_methods"] == 4
    assert set(d["friedman"]) >= {"statistic", "p_value"}
    assert set(d["iman_davenport"]) >= {"statistic", "p_value"}
    assert list(d["average_ranks"])[0] == "A" and list(d["average_ranks"])[-1] == "D"
    assert d["iman_davenport"]["p_value"] < 0.05
    assert d["nemenyi_cd"] == pytest.approx(2.569 * np.sqrt(4 * 5 / (6 * 12)))
    assert len(d["pairwise"]) == 6
    ad = next(p for p in d["pairwise"] if {p["a"], p["b"]} == {"A", "D"})
    assert ad["nemenyi_significant"] and ad["wilcoxon_significant"] and ad["better"] == "A"


def test_direction_override_and_control(matrix_csv, capsys):
    assert main(["stats", str(matrix_csv), "--measure", "score", "--higher-is-better",
                 "--control", "A", "--correction", "holm", "--json"]) == 0
    d = _json(capsys)
    assert list(d["average_ranks"])[0] == "D"
    assert d["correction"] == "holm"
    assert d["control"]["method"] == "A" and len(d["control"]["comparisons"]) == 3
    assert d["control"]["bd_q"] == pytest.approx(2.394)


def test_terminal_table(matrix_csv, capsys):
    assert main(["stats", str(matrix_csv), "--measure", "rrmse", "--control", "B"]) == 0
    out = capsys.readouterr().out
    for s in ("avg rank", "Friedman", "Iman–Davenport", "CD =", "Wilcoxon", "Bonferroni–Dunn"):
        assert s in out


def test_output_tables_and_plots(matrix_csv, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["stats", str(matrix_csv), "--measure", "rrmse", "--control", "A",
                 "--output", str(out)]) == 0
    for name in ("rrmse_ranks.csv", "rrmse_pairwise.csv", "rrmse_values.csv", "rrmse.md",
                 "rrmse.tex", "rrmse.json", "rrmse_cd.png", "rrmse_cd.pdf", "rrmse_cd_bd.png"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "rrmse_cd.png").read_bytes()[:4] == b"\x89PNG"
    assert "| A |" in (out / "rrmse.md").read_text()


@pytest.mark.parametrize("args,message", [
    (["--measure", "x", "--methods", "Z"], "unknown method 'Z'"),
    (["--measure", "x", "--datasets", "d0"], "at least 2 data sets"),
    (["--measure", "x", "--methods", "A"], "at least 2 methods"),
    (["--measure", "x", "--correction", "bonf"], "allowed: bh, holm"),
    (["--measure", "x", "--plot", "pie"], "allowed: cd, heatmap, curves"),
    (["--measure", "x", "--control", "Q"], "unknown --control 'Q'"),
    (["--measure", "x", "--round", "3x"], "bad --round"),
    (["--measure", "x"], "unknown direction"),
])
def test_user_errors_exit_2(matrix_csv, capsys, args, message):
    assert main(["stats", str(matrix_csv), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_bad_files_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("dataset,A,B\nd1,0.1,oops\nd2,0.2,0.3\n")
    assert main(["stats", str(bad), "--measure", "rrmse"]) == 2
    assert "bad.csv:2" in capsys.readouterr().err
    assert main(["stats", str(tmp_path / "missing.csv")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_store_json_and_plots(store, tmp_path, capsys):
    out = tmp_path / "plots"
    assert main(["stats", str(store), "--measure", "rrmse", "--json", "--output", str(out),
                 "--plot", "cd", "--plot", "heatmap", "--plot", "curves"]) == 0
    d = _json(capsys)
    assert d["n_datasets"] == 3 and d["n_methods"] == 6
    assert "uniform" in d["average_ranks"]
    assert "relief(iterations=0.5, neighbours=5)" in d["average_ranks"]
    for name in ("rrmse_cd.png", "rrmse_cd.pdf", "rrmse_heatmap.png", "rrmse_heatmap.pdf",
                 "rrmse_curves.png", "rrmse_curves.pdf"):
        assert (out / name).stat().st_size > 1000, name


def test_store_several_analyses(store, capsys):
    assert main(["stats", str(store), "--measure", "rrmse,rank_time_s", "--json",
                 "--methods", "uniform,relief"]) == 0
    d = _json(capsys)
    assert [a["measure"] for a in d["analyses"]] == ["rrmse", "rank_time_s"]
    assert all(a["n_methods"] == 5 for a in d["analyses"])


def test_store_unknown_measure(store, capsys):
    assert main(["stats", str(store), "--measure", "nope"]) == 2
    assert "unknown measure 'nope'" in capsys.readouterr().err


def test_help_lists_stats(capsys):
    assert main(["stats", "--help"]) == 0
    assert "--group-by" in capsys.readouterr().out


def test_store_plot_parameter_errors(store, tmp_path, capsys):
    out = tmp_path / "o"
    args = ["stats", str(store), "--measure", "rrmse", "-o", str(out)]
    assert main(args + ["--plot", "heatmap", "--x", "iterations", "--y", "trees"]) == 2
    assert "unknown --y parameter 'trees'; varying parameters:" in capsys.readouterr().err
    assert not out.exists()          # nothing written before the error
    assert main(args + ["--plot", "heatmap", "--methods", "uniform,random"]) == 2
    assert "needs two varying parameters" in capsys.readouterr().err
