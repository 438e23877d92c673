"""Words in the statistics' tables: a count agrees with its noun ("mean of 1
set"), and the pairwise tables' decision column says what decided it and what it decided."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from frcli.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_summary_says_mean_of_1_set(tmp_path, need):
    need.file(REPO / "datasets" / "synthetic" / "synth-mtr.arff", "the bundled synthetic set")
    cfg = tmp_path / "five.yaml"
    cfg.write_text(f"name: five\noutput: {tmp_path}\n"
                   "datasets: [synth-mtr, synth-regression, synth-ssl-mtr, synth-mlc, "
                   "synth-classification]\nprotocol: {type: holdout, repeats: 1}\n"
                   "rankers: [uniform, random]\n")
    assert main(["experiment", str(cfg)]) == 0
    from rich.console import Console

    from frcli.stats.summary import summary_table

    con = Console(width=200, record=True, file=io.StringIO())
    con.print(summary_table(tmp_path / "five"))
    text = con.export_text()
    assert "mean of 3 sets" in text and "mean of 1 set" in text
    assert "1 sets" not in text


def test_pairwise_decision_column_is_named_for_what_it_is(tmp_path, capsys):
    rng = np.random.default_rng(0)
    rows = ["dataset,A,B,D"] + [f"d{i}," + ",".join(f"{x:.4f}" for x in rng.random(3) * 0.2
                                                    + np.array([0.0, 0.05, 0.5]))
                                for i in range(12)]
    path = tmp_path / "m.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["stats", str(path), "--measure", "rrmse", "--control", "D", "--output",
                 str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    header = "Wilcoxon + BH decision (α = 0.05)"
    assert out.count(header) == 2                    # the pairwise and the control table
    assert "A better" in out and "no significant difference" in out
    assert not any(line.rstrip().endswith("Wilcoxon") for line in out.splitlines())
    md = (tmp_path / "out" / "rrmse.md").read_text(encoding="utf-8")
    assert header in md and "| A better |" in md


def test_plot_files_are_named_and_go_beside_the_results(tmp_path, monkeypatch, capsys, need):
    """``--plot cd`` without --output writes to a stats folder beside the results (not the
    working folder) and lists each file it wrote under that folder."""
    need.file(REPO / "datasets" / "synthetic" / "synth-mtr.arff", "the bundled synthetic set")
    cfg = tmp_path / "two.yaml"
    cfg.write_text(f"name: two\noutput: {tmp_path / 'results'}\n"
                   "datasets: [synth-mtr, synth-regression]\n"
                   "protocol: {type: holdout, repeats: 1}\nrankers: [uniform, random]\n")
    assert main(["experiment", str(cfg)]) == 0
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    capsys.readouterr()
    assert main(["stats", str(tmp_path / "results"), "--plot", "cd"]) == 0
    out = capsys.readouterr().out
    folder = tmp_path / "results" / "stats"
    made = sorted(p.name for p in folder.iterdir())
    assert made == ["two_rrmse_cd.pdf", "two_rrmse_cd.png"]
    assert f"Wrote 2 files to {folder}/:" in out
    for name in made:
        assert f"\n  {name}" in out
    assert not any(work.iterdir())                      # nothing dropped where we stood
    csv = tmp_path / "m.csv"
    csv.write_text("dataset,A,B\n" + "".join(f"d{i},{i / 10},{i / 9}\n" for i in range(4)))
    assert main(["stats", str(csv), "--measure", "rrmse", "--plot", "cd"]) == 0
    assert (tmp_path / "stats" / "rrmse_cd.png").exists()
