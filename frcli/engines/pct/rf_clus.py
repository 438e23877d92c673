"""CLUS 2.12.8's variant of the Random Forest score (``rf_variant=clus``; docs/design/pct.md).

The papers define the RF score with one permutation per (tree, feature), each alone
(docs/design/pct.md, "The three scores"): imp(x_i) = mean over trees of
[Err(OOB^i) - Err(OOB)] / Err(OOB). CLUS computes it differently
(``ClusEnsembleFeatureRanking.calculateRFimportance``): it deep-copies the training rows once
per tree, and ``RowData.selectFrom`` hands the OOB *tuples themselves* to
``createRandomizedOOBdata``, which swaps the feature's values in place. The permutations are
therefore never undone within a tree: the k-th feature of the tree, in the order
``getInternalAttributesNames`` lists them (depth first from a stack, the "no" child popped
first), is scored by the damage of permuting it together with the k-1 before it. Its error is
the RMSE of each target in the target's own units (the overall column: their mean). That is
why CLUS's values are 5-10x larger than the thesis's on most sets, and why its ranking leans
towards the features a tree uses late. Our default keeps the papers' definition; this module
reproduces CLUS's numbers for users who compare with it. Numeric targets only (regression and
MTR); the forest is the same one the other scores come from, and under ``ties=share`` the trees
are realised as for the thesis score (``realised_tree``).
"""
from __future__ import annotations

import numpy as np

from frcli.engines.pct.kernels import forest as _forest
from frcli.errors import ConfigError

VARIANTS = ("thesis", "clus")


def _clus_order(tree: dict, ncat: np.ndarray) -> list[int]:
    """Features in CLUS's order of first use: a stack, children pushed yes then no."""
    feature, left, right = tree["feature"], tree["left"], tree["right"]
    order, seen, stack = [], set(), [0]
    while stack:
        node = stack.pop()
        f = int(feature[node])
        if f < 0:
            continue
        if f not in seen:
            seen.add(f)
            order.append(f)
        # numeric test "x > v": yes = right child; nominal "x in S": yes = left child
        yes, no = (int(left[node]), int(right[node])) if ncat[f] > 0 else (
            int(right[node]), int(left[node]))
        stack += [yes, no]
    return order


def realised_tree(tree: dict, ncat: np.ndarray) -> dict:
    """The tree as the RF score routes rows under ties=share (``_tree.tree_realised``): at
    each node in ``alt_node`` the drawn tied test replaces the node's (a nominal one's values
    from ``alt_cats``; ``alt_swap``: its lower side is the node's right child). The leaves
    and their training rows are the tree's. The kernel draws the realisation when the forest
    computes the RF score or keeps its trees' values (``fit``); a tree without one is
    returned as is."""
    if "alt_node" not in tree or len(tree["alt_node"]) == 0:
        return tree
    r = {k: np.array(v, copy=True) for k, v in tree.items()}
    nodes = tree["alt_node"]
    feats = tree["alt_feature"]
    r["feature"][nodes] = feats
    r["threshold"][nodes] = tree["alt_threshold"]
    nominal = ncat[feats] > 0
    r["offset"][nodes[nominal]] = len(tree["cats"]) + tree["alt_offset"][nominal]
    r["cats"] = np.concatenate([tree["cats"], tree["alt_cats"]]).astype(np.uint8)
    sw = nodes[tree["alt_swap"] == 1]
    r["left"][sw], r["right"][sw] = tree["right"][sw], tree["left"][sw]
    r["p_left"][sw] = 1.0 - tree["p_left"][sw]
    return r


def clus_rf_scores(model, dataset, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(overall (F,), per target (T, F)) CLUS-style RF scores of a fitted ``PCTForest``
    grown with ``keep_values=True`` on ``dataset`` with bootstrapping."""
    if dataset.task not in ("regression", "mtr"):
        raise ConfigError(f"rf_variant=clus is CLUS's RF score for numeric targets; this is "
                          f"a {dataset.task} task: use rf_variant=thesis")
    n, F = dataset.X.shape
    cols = [s.start for _, s in model.spec_.target_slices]
    Y = np.asarray(dataset.Y, dtype=np.float64)
    counts = _forest.bootstrap_counts(model.seeds_, n)
    acc, acc_t = np.zeros(F), np.zeros((len(cols), F))

    def errors(X: np.ndarray, tree: dict, Yo: np.ndarray) -> np.ndarray:
        P = model.prototypes(X, trees=[tree])[:, cols]
        d2 = (P - Yo) ** 2
        return np.sqrt(np.nanmean(d2, axis=0))     # missing targets are skipped, as in CLUS

    for t, grown in enumerate(model.trees_):
        tree = realised_tree(grown, model.ncat_)     # ties=share: as the thesis score does
        oob = np.flatnonzero(counts[t] == 0)
        if oob.size == 0:
            continue
        rng = np.random.default_rng([int(seed), t])
        X, Yo = np.array(dataset.X[oob], dtype=np.float64), Y[oob]
        base = errors(X, tree, Yo)
        base_all = float(base.mean())
        for f in _clus_order(tree, model.ncat_):
            X[:, f] = X[rng.permutation(oob.size), f]     # not undone: CLUS's shared tuples
            e = errors(X, tree, Yo)
            if base_all > 0:
                acc[f] += (float(e.mean()) - base_all) / base_all
            ok = base > 0
            acc_t[ok, f] += (e[ok] - base[ok]) / base[ok]
    T = max(len(model.trees_), 1)
    return acc / T, acc_t / T
