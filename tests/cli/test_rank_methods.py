"""Several ensemble scores from one forest in one ``frcli rank`` (``-m genie3-rf,symbolic-rf,
rf-rf``), as CLUS writes its three rankings from one run: one forest is grown, every ranking
equals the one a separate run gives, each method gets its own parameters, and every
ranking is written (CSV with a method column, one .fimp per method)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from frcli.cli import main
from tests.conftest import need_kernel

need_kernel("frcli._ext.pct._forest")

METHODS = "genie3-rf,symbolic-rf,rf-rf"


@pytest.fixture
def data(shared_data):
    return str(shared_data / "mtr" / "slump.arff")


def test_one_forest_every_ranking_as_separate_runs(data):
    from frcli.api import rank_all, rank_methods

    got = rank_methods(data, METHODS.split(","), targets="last:3", trees=10, seed=4)
    assert [r.method for r in got] == METHODS.split(",")
    # the RF-score forest (grown first) serves the other two
    assert [bool(r.meta.get("forest_reused")) for r in got] == [True, True, False]
    for r in got:
        alone = rank_all(data, r.method, targets="last:3", trees=10, seed=4)[0]
        assert np.array_equal(r.importances, alone.importances), r.method


def test_parameters_go_to_the_methods_that_declare_them(data, capsys):
    assert main(["rank", data, "-t", "last:3", "-m", METHODS, "-p", "trees=5",
                 "-p", "symbolic_weight=0.25", "-p", "genie3_scale=raw", "-f", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    params = {r["method"]: r["params"] for r in doc["rankings"]}
    assert params["symbolic-rf"]["symbolic_weight"] == 0.25
    assert params["genie3-rf"]["genie3_scale"] == "raw"
    assert "symbolic_weight" not in params["rf-rf"] and "genie3_scale" not in params["rf-rf"]


def test_csv_and_fimp_write_every_ranking(data, tmp_path, capsys):
    assert main(["rank", data, "-t", "last:3", "-m", METHODS, "-p", "trees=3",
                 "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("method,") and len(lines) == 1 + 3 * 7
    assert {ln.split(",")[0] for ln in lines[1:]} == set(METHODS.split(","))
    out = tmp_path / "slump.fimp"
    assert main(["rank", data, "-t", "last:3", "-m", METHODS, "-p", "trees=3",
                 "-o", str(out)]) == 0
    for m, score in (("genie3-rf", "Genie3"), ("symbolic-rf", "Symbolic"),
                     ("rf-rf", "RForest")):
        text = (tmp_path / f"slump_{m}.fimp").read_text()
        assert text.splitlines()[1] == f"Ranking method: {score}"


@pytest.mark.parametrize("args, msg", [
    (["-m", "genie3-rf,genie3-rf"], "given twice"),
    (["-m", "genie3-rf,symbolic-rf", "-p", "neighbours=3"], "unknown parameter 'neighbours'"),
    (["-m", "genie3-rf,nosuch"], "nosuch"),
    (["-m", "genie3-rf,,relief"], "separated by commas"),
])
def test_errors(data, capsys, args, msg):
    assert main(["rank", data, "-t", "last:3", *args]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1
