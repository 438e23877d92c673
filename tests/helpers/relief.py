"""Plain-numpy Relief references, CLUS's reference-file readers and small data sets shared by
the Relief engine's tests."""
from __future__ import annotations

import configparser
from pathlib import Path

import numpy as np

from frcli.data.dataset import Attribute, Dataset
from tests.conftest import SHARED_DATA


def ref_feature_dist(X, nominal, nvals, r):
    """(n, F) per-feature distances of every row to row r, from the conventions."""
    n, F = X.shape
    out = np.zeros((n, F))
    for i in range(F):
        col = X[:, i]
        known = col[~np.isnan(col)]
        a = X[r, i]
        for j in range(n):
            b = col[j]
            if nominal[i]:
                if np.isnan(a) or np.isnan(b):
                    out[j, i] = 1.0 - 1.0 / nvals[i]
                else:
                    out[j, i] = float(a != b)
                continue
            lo, hi = (known.min(), known.max()) if known.size else (0.0, 0.0)
            rg = hi - lo if hi > lo else 1.0
            if np.isnan(a) and np.isnan(b):
                out[j, i] = 1.0
            elif np.isnan(a) or np.isnan(b):
                v = b if np.isnan(a) else a
                t = (v - lo) / rg
                out[j, i] = max(t, 1 - t)
            else:
                out[j, i] = abs(a - b) / rg
    return out


def ref_dx(D):
    acc = np.zeros(D.shape[0])
    for i in range(D.shape[1]):   # feature order, as the spec's plain mean
        acc += D[:, i]
    return acc / D.shape[1]


def ref_weights(k_avail, sigma):
    e = np.exp(-(sigma * np.arange(k_avail)) ** 2)
    return e / e.sum()


def ref_rows(n, frac, seed, eligible=None):
    el = np.arange(n) if eligible is None else eligible
    m = len(el) if frac == 1.0 else int(np.floor(frac * len(el) + 0.5))
    return np.random.default_rng(seed).permutation(el)[:m]


def make_X(rng, n, n_num=4, n_nom=2, missing=0.0, ties=False):
    cols, nominal, nvals = [], [], []
    for _ in range(n_num):
        c = rng.integers(0, 4, n).astype(float) if ties else rng.normal(size=n)
        cols.append(c)
        nominal.append(False)
        nvals.append(0)
    for _ in range(n_nom):
        k = int(rng.integers(2, 4))
        cols.append(rng.integers(0, k, n).astype(float))
        nominal.append(True)
        nvals.append(k)
    cols.append(np.full(n, 3.0))              # a constant feature: contributes 0
    nominal.append(False)
    nvals.append(0)
    X = np.column_stack(cols)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    feats = [Attribute(f"f{i}", "nominal" if nominal[i] else "numeric",
                       tuple(str(v) for v in range(nvals[i])))
             for i in range(X.shape[1])]
    return X, np.array(nominal), np.array(nvals), feats


GRID_CASES = [(1.0, 3, 0.0), (1.0, 5, 0.7), (0.5, 2, 0.3)]


REF = SHARED_DATA / "clus-reference"


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


def small(task: str, seed: int = 0, n: int = 90):
    """Mixed numeric/nominal features with missing values; half the rows unlabeled."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    X[:, 4] = rng.integers(0, 3, n)
    X[rng.random((n, 6)) < 0.04] = np.nan
    feats = [Attribute(f"f{i}", "nominal" if i == 4 else "numeric",
                       ("a", "b", "c") if i == 4 else ()) for i in range(6)]
    lab = rng.random(n) < 0.5
    lab[:10] = True
    if task == "mlc":
        Y = (rng.random((n, 3)) < 0.4).astype(np.uint8)
        return Dataset("s", X, feats, task, Y=Y, labeled=lab, semi_supervised=True,
                       targets=[Attribute(f"l{j}", "nominal", ("0", "1")) for j in range(3)])
    base = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1])
    y = (base > 0).astype(float) if task == "classification" else base
    y[~lab] = np.nan
    tgt = Attribute("y", "nominal", ("n", "p")) if task == "classification" else \
        Attribute("y", "numeric")
    return Dataset("s", X, feats, task, Y=y[:, None], targets=[tgt], semi_supervised=True)
