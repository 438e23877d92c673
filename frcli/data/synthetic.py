"""Small synthetic data sets with planted relevant features, one per task.

Each set has 300 rows and 12 features ``f01..f12``: a few *relevant* ones that the targets
(or, unsupervised, the cluster structure) depend on, the rest independent noise. Every set has
one nominal relevant feature, one nominal noise feature and about 3 % missing values in two
noise features and 1 % in one relevant feature, so loaders and rankers meet those cases.
The truth (relevant features, target spec, task) goes to ``<name>.truth.json``; a good ranker
should put the relevant features first (tests and ``docs`` use this).

Deterministic: the same ``seed`` gives byte-identical files. ``write_all`` writes them into
``datasets/synthetic/`` (committed with the repository, ~200 KB).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from frcli.data.arff import HIERARCHICAL, NOMINAL, NUMERIC, ArffAttribute, ArffTable, write_table

N_ROWS = 300
N_FEATURES = 12
NOMINAL_REL = ("a", "b", "c")
NOMINAL_NOISE = ("red", "green", "blue", "grey")


def _features(rng: np.random.Generator, n: int):
    """X (n, 12) with f03 nominal-relevant (3 values) and f12 nominal-noise (4 values)."""
    X = rng.uniform(-1, 1, size=(n, N_FEATURES))
    X[:, 2] = rng.integers(0, 3, n)
    X[:, 11] = rng.integers(0, 4, n)
    return X


def _attrs() -> list[ArffAttribute]:
    out = []
    for j in range(N_FEATURES):
        name = f"f{j + 1:02d}"
        if j == 2:
            out.append(ArffAttribute(name, NOMINAL, NOMINAL_REL))
        elif j == 11:
            out.append(ArffAttribute(name, NOMINAL, NOMINAL_NOISE))
        else:
            out.append(ArffAttribute(name, NUMERIC))
    return out


def _add_missing(rng: np.random.Generator, X: np.ndarray) -> np.ndarray:
    X = X.copy()
    n = len(X)
    for j, frac in ((8, 0.03), (9, 0.03), (0, 0.01)):
        X[rng.choice(n, int(round(frac * n)), replace=False), j] = np.nan
    return X


def _round(X: np.ndarray) -> np.ndarray:
    return np.round(X, 4)


def _make(name: str, seed: int):
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    n = N_ROWS
    X = _features(rng, n)
    f1, f2, f4, f5 = X[:, 0], X[:, 1], X[:, 3], X[:, 4]
    cat = X[:, 2]
    shift = np.array([-1.0, 0.0, 1.0])[cat.astype(int)]
    attrs = _attrs()
    noise = lambda s: s * rng.standard_normal(n)  # noqa: E731
    truth: dict = {"name": name}
    raw: dict[int, list] = {}
    if name == "synth-regression":
        y = 3 * f1 + 2 * f2 ** 2 + shift + noise(0.1)
        T = y[:, None]
        tattrs = [ArffAttribute("y", NUMERIC)]
        truth.update(task="regression", relevant=["f01", "f02", "f03"])
    elif name == "synth-classification":
        score = 2 * f1 + f2 + 0.8 * shift + noise(0.1)
        cls = np.digitize(score, [-0.8, 0.8]).astype(float)
        T = cls[:, None]
        tattrs = [ArffAttribute("class", NOMINAL, ("low", "mid", "high"))]
        truth.update(task="classification", relevant=["f01", "f02", "f03"])
    elif name in ("synth-mtr", "synth-ssl-mtr"):
        T = np.column_stack([2 * f1 + f2 + noise(0.1),
                             f2 - shift + noise(0.1),
                             np.sin(3 * f4) + f1 + noise(0.1)])
        tattrs = [ArffAttribute(f"t{k}", NUMERIC) for k in (1, 2, 3)]
        truth.update(task="mtr", relevant=["f01", "f02", "f03", "f04"],
                     relevant_per_target={"t1": ["f01", "f02"], "t2": ["f02", "f03"],
                                          "t3": ["f01", "f04"]})
        if name == "synth-ssl-mtr":
            T = T.copy()
            T[rng.permutation(n)[: int(0.7 * n)]] = np.nan
            truth.update(unlabelled_rows=int(0.7 * n), semi_supervised=True)
    elif name == "synth-mlc":
        cols = [f1 + noise(0.1) > 0.2, f2 + noise(0.1) > 0, f1 + f2 + noise(0.1) > 0.5,
                (cat == 0) | (f4 > 0.6), f4 + noise(0.1) < -0.3]
        T = np.column_stack(cols).astype(float)
        tattrs = [ArffAttribute(f"L{k + 1}", NOMINAL, ("0", "1")) for k in range(5)]
        truth.update(task="mlc", relevant=["f01", "f02", "f03", "f04"])
    elif name == "synth-hmlc":
        sets = []
        for i in range(n):
            if abs(f1[i]) < 0.05:
                sets.append("")  # an empty label set
                continue
            labs = []
            if f1[i] > 0:
                labs.append("A/1" if f2[i] > 0 else "A/2")
                if f2[i] > 0 and cat[i] == 0:
                    labs[-1] = "A/1/x"
                elif f2[i] > 0 and cat[i] == 1:
                    labs[-1] = "A/1/y"
            else:
                labs.append("B/1" if f4[i] > 0 else "B")
            if f5[i] > 0.6:
                labs.append("C")
            sets.append("@".join(labs))
        T = np.full((n, 1), np.nan)
        tattrs = [ArffAttribute("class", HIERARCHICAL,
                                ("A", "A/1", "A/1/x", "A/1/y", "A/2", "B", "B/1", "C"))]
        raw[N_FEATURES] = sets
        truth.update(task="hmlc", hierarchy="tree", relevant=["f01", "f02", "f03", "f04", "f05"])
    elif name == "synth-unsupervised":
        centers = np.array([[-0.7, -0.7, 0], [0.7, -0.7, 1], [0.0, 0.7, 2]])
        g = rng.integers(0, 3, n)
        X[:, 0] = centers[g, 0] + 0.15 * rng.standard_normal(n)
        X[:, 1] = centers[g, 1] + 0.15 * rng.standard_normal(n)
        X[:, 2] = np.where(rng.random(n) < 0.9, centers[g, 2], rng.integers(0, 3, n))
        X[:, 3] = X[:, 0] + X[:, 1] + 0.1 * rng.standard_normal(n)
        T = None
        tattrs = []
        truth.update(task="unsupervised", relevant=["f01", "f02", "f03", "f04"],
                     clusters=g.tolist())
    else:
        raise KeyError(name)
    X = _add_missing(rng, X)
    X[:, [j for j in range(N_FEATURES) if j not in (2, 11)]] = _round(
        X[:, [j for j in range(N_FEATURES) if j not in (2, 11)]])
    values = X if T is None else np.hstack([X, _round(T) if tattrs and
                                            tattrs[0].type == NUMERIC else T])
    table = ArffTable(name, attrs + tattrs, values, raw)
    if tattrs:
        A = len(attrs) + len(tattrs)
        truth["targets"] = f"{N_FEATURES + 1}-{A}" if len(tattrs) > 1 else str(A)
    truth["features"] = [a.name for a in attrs]
    return table, truth


SYNTHETIC = ("synth-regression", "synth-classification", "synth-mtr", "synth-mlc", "synth-hmlc",
             "synth-ssl-mtr", "synth-unsupervised")


def make(name: str, seed: int = 2024):
    """(ArffTable, truth dict) of one synthetic set."""
    return _make(name, seed)


def write_all(dest: str | Path, seed: int = 2024) -> list[Path]:
    """Write every synthetic set as ``<dest>/<name>.arff`` + ``<name>.truth.json``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for name in SYNTHETIC:
        table, truth = make(name, seed)
        p = dest / f"{name}.arff"
        write_table(table, p, comment=f"{name}: generated by frcli.data.synthetic (seed {seed}); "
                    f"relevant features and targets in {name}.truth.json")
        (dest / f"{name}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
        out.append(p)
    return out


def planted_ssl(n: int = 780, labeled: float = 0.15, *, holds: bool = True,
                task: str = "classification", n_relevant: int = 6, n_noise: int = 24,
                seed: int = 0):
    """A semi-supervised set with planted relevant features, where the clustering assumption
    holds or fails (for the SSL-Relief tests and docs; not written to disk).

    The target is a weighted sum of the relevant features (weights 1 down to 0.35, plus
    noise): its sign for classification, itself for regression. ``holds``: the relevant
    features are uniform and the noise features concentrated (N(0, 0.15) with 1 % outliers in
    [0.8, 1]), so the relevant features shape the geometry of X and the target varies with
    it (P-ML's k-means estimate CH is clearly positive, ~0 where it fails: see
    tests/data/test_clustering_hypothesis.py).
    Otherwise the roles swap: the relevant features are the concentrated ones and the noise
    features shape X (CH ~ 0). ``labeled``: the share of rows that keep their target.
    Returns (Dataset with ``semi_supervised`` set, names of the relevant features).
    """
    from frcli.data.dataset import Attribute, Dataset

    rng = np.random.default_rng([seed, 7])

    def column(wide: bool) -> np.ndarray:
        if wide:
            return rng.uniform(-1, 1, n)
        x = rng.normal(0, 0.15, n)
        out = rng.choice(n, max(2, n // 100), replace=False)
        x[out] = rng.choice([-1.0, 1.0], out.size) * rng.uniform(0.8, 1, out.size)
        return x

    Xr = np.column_stack([column(holds) for _ in range(n_relevant)])
    Xn = np.column_stack([column(not holds) for _ in range(n_noise)])
    Z = (Xr - Xr.mean(axis=0)) / Xr.std(axis=0)
    s = Z @ np.linspace(1.0, 0.35, n_relevant) + 0.3 * rng.standard_normal(n)
    order = rng.permutation(n_relevant + n_noise)
    X = np.hstack([Xr, Xn])[:, order]
    names = [f"x{i + 1:02d}" for i in range(X.shape[1])]
    relevant = [names[i] for i in np.flatnonzero(order < n_relevant)]
    if task == "classification":
        Y = (s > 0).astype(np.float64)[:, None]
        targets = [Attribute("class", "nominal", ("neg", "pos"))]
    elif task == "regression":
        Y = s[:, None].copy()
        targets = [Attribute("y", "numeric")]
    else:
        raise ValueError("task: classification or regression")
    Y[rng.random(n) >= labeled] = np.nan
    name = f"planted-ssl-{task}-{'holds' if holds else 'fails'}"
    return (Dataset(name, X, [Attribute(f, "numeric") for f in names], task, Y=Y,
                    targets=targets, semi_supervised=True), relevant)
