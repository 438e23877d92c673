"""Words in the statistics' tables (issue 29, 2.11): a count agrees with its noun ("mean of 1
set"), and the pairwise tables' decision column says what decided it and what it decided."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from frcli.cli import main

REPO = Path(__file__).resolve().parents[1]


def test_summary_says_mean_of_1_set(tmp_path):
    if not (REPO / "datasets" / "synthetic" / "synth-mtr.arff").exists():
        pytest.skip("bundled synthetic data sets absent")
    cfg = tmp_path / "five.yaml"
    cfg.write_text(f"name: five\noutput: {tmp_path}\n"
                   "datasets: [synth-mtr, synth-regression, synth-ssl-mtr, synth-mlc, "
                   "synth-classification]\nprotocol: {type: holdout, repeats: 1}\n"
                   "rankers: [uniform, random]\n")
    assert main(["experiment", str(cfg)]) == 0
    from rich.console import Console

    from frcli.experiment.executor import summary_table

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
