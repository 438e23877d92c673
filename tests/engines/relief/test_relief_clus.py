"""Relief vs CLUS: every reference column computed with all examples must agree to 1e-9.

Columns with fewer iterations depend on CLUS's Java random generator and are not compared.
The settings (targets, neighbours, sigma) are read from each ``.s`` file; the ``.fimpTruth``
header names every importance column ``<who>Iter<m>Neigh<k>`` (``who`` = overall, a target
name or ``tarN``), ranks first and importances second.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from tests.helpers.relief import REF, read_settings, read_fimp


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
