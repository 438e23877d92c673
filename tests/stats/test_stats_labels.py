"""One labelling rule in every view, whatever else is in the folder.

Two experiments share a results folder, as quickstart and mtr do after the README: "quick"
runs Relief with neighbours=5, "mtr" runs it with sigma=0.1 (neighbours at its default). The
mtr experiment's Relief must read ``relief(sigma=0.1)`` in ``frcli stats results/``,
``frcli stats results/mtr``, the experiment summary and the report; pooling the two stores
by naming them shows what differs between them.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from frcli.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results(tmp_path_factory, need):
    need.file(REPO / "datasets" / "synthetic" / "synth-mtr.arff", "the bundled synthetic set")
    root = tmp_path_factory.mktemp("labels")
    configs = {
        "quick": ("[synth-mtr, synth-regression]", "{neighbours: 5}"),
        "mtr": ("[synth-mtr, synth-regression, synth-ssl-mtr]", "{sigma: 0.1}"),
    }
    for name, (sets, relief) in configs.items():
        cfg = root / f"{name}.yaml"
        cfg.write_text(f"name: {name}\noutput: {root / 'results'}\ndatasets: {sets}\n"
                       "protocol: {type: holdout, repeats: 1}\n"
                       f"rankers: [uniform, {{method: relief, params: {relief}}}]\n"
                       "evaluation: {knn: 5}\n")
        assert main(["experiment", str(cfg)]) == 0
    return root / "results"


def _ranked(capsys, *args) -> dict[str, list[str]]:
    capsys.readouterr()
    assert main(["stats", *args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    analyses = doc.get("analyses", [doc])
    return {a.get("experiment", ""): sorted(a["average_ranks"]) for a in analyses}


def test_a_run_has_one_label_in_every_view(results, capsys):
    expected = ["relief(sigma=0.1)", "uniform"]
    assert _ranked(capsys, str(results))["mtr"] == expected          # the folder
    assert _ranked(capsys, str(results / "mtr"))[""] == expected     # the experiment alone

    from frcli.stats.summary import summary_table

    import io

    from rich.console import Console

    con = Console(width=200, record=True, file=io.StringIO())
    con.print(summary_table(results / "mtr"))
    text = con.export_text()
    assert "relief(sigma=0.1)" in text and "neighbours=" not in text  # the summary

    assert main(["report", str(results / "mtr")]) == 0                # the report
    html = (results / "mtr" / "report.html").read_text(encoding="utf-8")
    assert "relief(sigma=0.1)" in html and "neighbours=" not in html


def test_pooled_stores_show_what_differs_between_them(results, capsys):
    pooled = _ranked(capsys, str(results / "mtr"), str(results / "quick"))[""]
    assert pooled == ["relief(neighbours=5, sigma=0)", "relief(neighbours=auto, sigma=0.1)",
                      "uniform"]
