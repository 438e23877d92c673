"""End to end through the CLI: ``frcli rank <clus-reference file> --method relief ... --format
fimp`` writes CLUS's column names in CLUS's order, and every column computed with all
examples equals the ``.fimpTruth`` (overall and per target) to 1e-9.

The settings come from each ``.s`` file; the iteration and neighbour lists are passed in
CLUS's (ascending) order so that the whole column header can be compared, including the
columns with fewer iterations whose values depend on CLUS's random generator.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from frcli.cli import main
from tests.helpers.relief import REF, read_fimp, read_settings

pytestmark = pytest.mark.shared("datasets/clus-reference")

CASES = {  # reference -> (data file, extra --param options)
    "testMTR": ("testMTR", ["per_target=true"]),
    "testMixed": ("testMixed", ["per_target=true"]),
    "testMLCHammingLoss": ("testMLC", ["distance=hamming", "per_target=true"]),
    "testSTC-RealWorld": ("testSTC-RealWorld", []),
    "testMTR-RealWorld": ("testMTR-RealWorld", ["per_target=true"]),
    "testTreeHMLC-RealWorld": ("testTreeHMLC-RealWorld", []),
    "testDagHMLC-RealWorld": ("testDagHMLC-RealWorld", []),
}


def _n_rows(path) -> int:
    lines = path.read_text().splitlines()
    start = next(i for i, s in enumerate(lines) if s.strip().lower() == "@data")
    return sum(1 for s in lines[start + 1:] if s.strip() and not s.startswith("%"))


@pytest.mark.parametrize("ref", list(CASES))
def test_cli_fimp_equals_clus(ref, capsys, tmp_path):
    data, extra = CASES[ref]
    st = read_settings(REF / f"{ref}.s")
    n = _n_rows(REF / f"{data}.arff")
    count = {v: n if v in (-1, 1) else (int(v) if v > 1 else int(np.floor(v * n + 0.5)))
             for v in st["iterations"]}
    iters = sorted(st["iterations"], key=lambda v: count[v])
    args = ["rank", str(REF / f"{data}.arff"), "--method", "relief", "--which", "all",
            "--format", "fimp",
            "--param", "iterations=" + ",".join(str(int(v) if v == -1 else v) for v in iters),
            "--param", "neighbours=" + ",".join(map(str, sorted(st["neighbours"]))),
            "--param", f"sigma={st['sigma']}"]
    for p in extra:
        args += ["--param", p]
    if st["target"]:
        args += ["--targets", st["target"]]
    if st["hierarchy"]:
        args += ["--hierarchy", st["hierarchy"].lower()]
    assert main(args) == 0
    text = capsys.readouterr().out
    mine_path = tmp_path / f"{ref}.fimp"
    mine_path.write_text(text)
    names, cols, mine = read_fimp(mine_path)
    t_names, t_cols, truth = read_fimp(REF / f"{ref}.fimpTruth")
    assert names == t_names
    assert cols == t_cols                       # CLUS's column names and order
    assert text.splitlines()[0] == (REF / f"{ref}.fimpTruth").read_text().splitlines()[0]
    compared = 0
    for j, col in enumerate(t_cols):
        m = re.fullmatch(r"(.*)Iter(\d+)Neigh(\d+)", col)
        if int(m.group(2)) != n:                # CLUS's random sample: not reproducible
            continue
        diff = float(np.max(np.abs(mine[:, j] - truth[:, j])))
        assert diff <= 1e-9, f"{ref} column {col}: max |difference| {diff:.3g}"
        compared += 1
    assert compared >= len(st["neighbours"])
