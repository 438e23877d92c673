"""``--jobs 1`` and ``--jobs 2`` give byte-identical output through the CLI (the per-tree
seeds and Relief's reduction do not depend on the number of threads), overall and per
target, on a shared MTR set (edm) and an MLC set (emotions train)."""
from __future__ import annotations

import json

import pytest

from frcli.cli import main
from tests.conftest import SHARED_DATA, need_kernel, need_shared

need_kernel("frcli._ext.pct._forest")

SETS = {
    "edm": ["mtr/edm.arff", "--targets", "last:2"],
    "emotions": ["mlc/emotions/emotions-train.arff", "--labels",
                 str(SHARED_DATA / "mlc/emotions/emotions.xml")],
}
METHODS = {
    "genie3-rf": ["--param", "trees=12"],
    "rf-bagging": ["--param", "trees=12"],
    "symbolic-et": ["--param", "trees=12"],
    "relief": ["--param", "neighbours=5,10", "--param", "per_target=true", "--which", "all"],
}


@pytest.mark.parametrize("data", list(SETS))
@pytest.mark.parametrize("method", list(METHODS))
def test_jobs_give_identical_output(data, method, capsys):
    path, *opts = SETS[data]
    need_shared(f"datasets/{path}")
    outs = []
    for jobs in ("1", "2"):
        args = ["rank", str(SHARED_DATA / path), *opts, "--method", method, *METHODS[method],
                "--seed", "7", "--jobs", jobs, "--format", "json"]
        assert main(args) == 0
        doc = json.loads(capsys.readouterr().out)
        for r in doc.get("rankings", [doc]):
            r.pop("timings", None)
            r.get("meta", {}).pop("jobs", None)
        outs.append(doc)
    assert outs[0] == outs[1]
    first = outs[0].get("rankings", [outs[0]])[0]
    if not method.startswith("symbolic"):   # Symbolic has no per-target form
        assert "per_target" in first
