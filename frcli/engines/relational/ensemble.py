"""Relational ensembles (docs/design/relational.md): a single tree, bagging, random forests
and gradient boosting, with their predictions and relational Symbolic / Genie3 scores.

* Bagging and random forests bootstrap the *target table* only (multiplicities as example
  weights); related objects come along through the facts (9b §4.3). Forests evaluate a random
  ⌈√F⌉ (``max_features``) of the F candidate features at each node (per node, as 9a and
  re3py; 9b's prose says per tree). Members vote with their leaves' class distributions
  (averaged; the papers do not say).
* Gradient boosting (re3py's default; the papers leave multi-class boosting open): one
  regression sequence per class on one-hot targets (a single sequence for two classes),
  squared loss, constant initial model (the class proportion), residuals y − F, each tree
  grown with the variance heuristic on a sample of ``chosen_examples`` of the examples drawn
  without replacement, ``max_features`` of the candidates per node, depth-limited; leaf
  values are mean residuals × ``shrinkage``.
  Prediction: the class with the largest F (F ≥ ½ for two classes).

Trees are grown in ``jobs`` threads (the split kernel releases the GIL). Every tree draws from
its own generator seeded by (seed, tree index[, class]), so the ensemble is the same for any
``jobs``.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from frcli.engines.relational.features import Language
from frcli.engines.relational.scores import ensemble_scores
from frcli.engines.relational.tree import RelTree, TreeParams, grow_tree

ENSEMBLES = ("tree", "bagging", "rf", "boost")


@dataclass
class RelModel:
    kind: str
    lang: Language
    classes: int
    trees: list[RelTree] = field(default_factory=list)
    # boosting: trees[t * S + s] is iteration t of sequence s; S = 1 for two classes
    sequences: int = 0
    init: np.ndarray | None = None
    n_train: float = 0.0
    timings: dict = field(default_factory=dict)

    def predict(self, keys: np.ndarray) -> np.ndarray:
        """Class codes of the examples ``keys`` (rows of key codes)."""
        return np.argmax(self.decision(keys), axis=1)

    def decision(self, keys: np.ndarray) -> np.ndarray:
        """(n, classes) scores: averaged leaf distributions, or boosting's F per class."""
        n = len(keys)
        if self.kind != "boost":
            acc = np.zeros((n, self.classes))
            for t in self.trees:
                acc += t.predict_value(self.lang, keys)
            return acc / max(1, len(self.trees))
        F = np.tile(self.init, (n, 1))
        S = self.sequences
        for i, t in enumerate(self.trees):
            F[:, i % S] += t.predict_value(self.lang, keys)[:, 0]
        if S == 1:     # two classes: F is the score of class 1
            return np.column_stack([1.0 - F[:, 0], F[:, 0]])
        return F

    def scores(self, score: str, attribution: str = "thesis") -> dict:
        names = self.lang.ds.feature_names
        combine = "sum" if self.kind == "boost" else "mean"
        return ensemble_scores(self.lang, self.trees, score, attribution, self.n_train,
                               names, combine)


def _seed(seed: int, *parts: int) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFFFFFFFFFF, 0x7E1A, *parts])


def _run(fn, items, jobs: int):
    if jobs <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, items))


def fit(lang: Language, keys: np.ndarray, y: np.ndarray, n_classes: int, kind: str, *,
        trees: int = 50, tree_params: TreeParams | None = None, shrinkage: float = 0.2,
        chosen_examples: float = 1.0, seed: int = 0, jobs: int = 1,
        progress=None) -> RelModel:
    """Fit a relational model on the examples ``keys`` (n, k) with classes ``y``."""
    tp = tree_params or TreeParams()
    t0 = time.perf_counter()
    keys = np.ascontiguousarray(keys, dtype=np.int32)
    n = len(y)
    rows = np.arange(n)
    model = RelModel(kind, lang, n_classes, n_train=float(n))
    if kind in ("tree", "bagging", "rf"):
        count = 1 if kind == "tree" else trees

        def one(t: int) -> RelTree:
            rng = _seed(seed, t)
            if kind == "tree":
                w = np.ones(n)
            else:
                w = np.bincount(rng.integers(0, n, n), minlength=n).astype(np.float64)
            keep = w > 0
            tree = grow_tree(lang, keys, rows[keep], w[keep], y[keep], tp, rng,
                             n_classes=n_classes)
            if progress is not None:
                progress(1)
            return tree

        model.trees = _run(one, list(range(count)), jobs)
    elif kind == "boost":
        _boost(model, keys, y, n_classes, trees, tp, shrinkage, chosen_examples, seed, jobs,
               progress)
    else:
        raise ValueError(f"unknown ensemble {kind!r}")
    model.timings["fit_s"] = time.perf_counter() - t0
    return model


def _boost(model: RelModel, keys, y, n_classes, trees, tp, shrinkage, chosen, seed, jobs,
           progress) -> None:
    lang = model.lang
    n = len(y)
    S = 1 if n_classes == 2 else n_classes
    Y = (y[:, None] == (np.array([1]) if S == 1 else np.arange(S))[None, :]).astype(float)
    model.sequences = S
    model.init = Y.mean(axis=0)
    F = np.tile(model.init, (n, 1))
    m = max(1, int(round(chosen * n)))
    for t in range(trees):
        R = Y - F

        def one(s: int) -> RelTree:
            rng = _seed(seed, t, s)
            rows = np.sort(rng.choice(n, size=m, replace=False)) if m < n else np.arange(n)
            tree = grow_tree(lang, keys, rows, np.ones(len(rows)), R[rows, s], tp, rng,
                             regression=True)
            for node in tree.nodes:
                if node.is_leaf:
                    node.value = node.value * shrinkage
            return tree

        new = _run(one, list(range(S)), jobs)
        for s, tree in enumerate(new):
            F[:, s] += tree.predict_value(lang, keys)[:, 0]
            model.trees.append(tree)
        if progress is not None:
            progress(1)
