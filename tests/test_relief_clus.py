"""Relief vs CLUS: every reference column computed with all examples must agree to 1e-9.

Columns with fewer iterations depend on CLUS's Java random generator and are not compared.
The settings (targets, neighbours, sigma) are read from each ``.s`` file; the ``.fimpTruth``
header names every importance column ``<who>Iter<m>Neigh<k>`` (``who`` = overall, a target
name or ``tarN``), ranks first and importances second.
"""
from __future__ import annotations

import configparser
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import SHARED_DATA

REF = SHARED_DATA / "clus-reference"

pytestmark = pytest.mark.shared("datasets/clus-reference")

CASES = {  # reference file -> (data file, extra relief options)
    "testMTR": ("testMTR", {}),
    "testMixed": ("testMixed", {}),
    "testMLCHammingLoss": ("testMLC", {"distance": "hamming"}),
    "testSTC-RealWorld": ("testSTC-RealWorld", {}),
    "testMTR-RealWorld": ("testMTR-RealWorld", {}),
    "testTreeHMLC-RealWorld": ("testTreeHMLC-RealWorld", {}),
    "testDagHMLC-RealWorld": ("testDagHMLC-RealWorld", {}),
}


def read_settings(path: Path) -> dict:
    """The parts of a CLUS ``.s`` file Relief needs."""
    cp = configparser.ConfigParser(strict=False)
    cp.optionxform = str
    cp.read_string(path.read_text())

    def lst(v: str) -> list[float]:
        return [float(x) for x in v.strip().strip("[]").split(",")]

    out = {
        "target": cp.get("Attributes", "Target", fallback=None),
        "neighbours": [int(x) for x in lst(cp.get("Relief", "Neighbours"))],
        "iterations": lst(cp.get("Relief", "Iterations")),
        "sigma": float(cp.get("Relief", "WeightingSigma", fallback="0"))
        if cp.get("Relief", "WeightNeighbours", fallback="No").lower() == "yes" else 0.0,
        "hierarchy": cp.get("Hierarchical", "Type", fallback=None),
    }
    return out


def read_fimp(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    """(feature names, importance column names, importances (F, columns))."""
    lines = path.read_text().splitlines()
    h = next(i for i, s in enumerate(lines) if s.startswith("attributeDatasetIndex"))
    header = lines[h].split("\t")
    assert header[:2] == ["attributeDatasetIndex", "attributeName"]
    rank_cols = [c.strip() for c in header[2].strip("[]").split(",")]
    cols = [c.strip() for c in header[3].strip("[]").split(",")]
    assert [c + "Rank" for c in cols] == rank_cols
    assert set(lines[h + 1]) == {"-"}
    names, vals = [], []
    for s in lines[h + 2:]:
        if not s.strip():
            continue
        parts = s.split("\t")
        names.append(parts[1])
        vals.append([float(x) for x in parts[3].strip("[]").split(",")])
    return names, cols, np.array(vals)


def _load(data: str, settings: dict):
    from frcli.data import load_dataset

    hier = settings["hierarchy"].lower() if settings["hierarchy"] else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(REF / f"{data}.arff", targets=settings["target"], hierarchy=hier)


@pytest.mark.parametrize("ref", list(CASES))
def test_matches_clus_reference(ref):
    from frcli.engines.relief.relief import relief

    data, extra = CASES[ref]
    st = read_settings(REF / f"{ref}.s")
    ds = _load(data, st)
    names, cols, truth = read_fimp(REF / f"{ref}.fimpTruth")
    assert names == ds.feature_names
    n = ds.n_examples
    results = relief(ds, [1.0], st["neighbours"], [st["sigma"]],
                     per_target=ds.task in ("mtr", "mlc"), **extra)
    by_k = {r.neighbours: r for r in results}
    compared = 0
    worst = 0.0
    for j, col in enumerate(cols):
        m = re.fullmatch(r"(.*)Iter(\d+)Neigh(\d+)", col)
        who, iters, k = m.group(1), int(m.group(2)), int(m.group(3))
        if iters != n:        # fewer iterations: CLUS's random sample, not reproducible
            continue
        r = by_k[k]
        if who == "overall":
            mine = r.importances
        else:
            t = ds.target_names.index(who) if who in ds.target_names else int(who[3:]) - 1
            mine = r.per_target[t]
        diff = float(np.max(np.abs(mine - truth[:, j])))
        worst = max(worst, diff)
        assert diff <= 1e-9, f"{ref} column {col}: max |difference| {diff:.3g}"
        compared += 1
    assert compared >= len(st["neighbours"])
    print(f"{ref}: {compared} columns, max |difference| {worst:.2e}")


def test_ranker_reproduces_clus_grid():
    """The ranker's one-pass grid gives the same numbers as the engine for each k."""
    from frcli.rankers.registry import get_ranker

    st = read_settings(REF / "testMTR-RealWorld.s")
    ds = _load("testMTR-RealWorld", st)
    _, cols, truth = read_fimp(REF / "testMTR-RealWorld.fimpTruth")
    rk = get_ranker("relief").rank(ds, {"iterations": [0.5, 1.0], "neighbours": [1, 5, 10],
                                        "sigma": 0.4})
    assert [(r.params["iterations"], r.params["neighbours"]) for r in rk] == \
        [(0.5, 1), (0.5, 5), (0.5, 10), (1.0, 1), (1.0, 5), (1.0, 10)]
    assert rk[1].meta["n_iterations"] == 197     # CLUS: 0.5 * 393 -> 197
    for r in rk[3:]:
        j = cols.index(f"overallIter393Neigh{r.params['neighbours']}")
        assert np.max(np.abs(r.importances - truth[:, j])) <= 1e-9
