"""How a forest's nodes credit the features: shared credit of tied tests (``ties=share``)
and Genie3 in the targets' own units (docs/design/pct.md, "The three scores")."""
from __future__ import annotations

import numpy as np

from frcli.engines.pct.columns import ClusteringSpec


def shared_credit(trees: list[dict], inner: np.ndarray, f: np.ndarray, sw: np.ndarray,
                  hstar: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ties=share: each internal node's credit (sw, hstar; ``inner`` selects the internal
    nodes of the concatenated trees) in equal parts for its feature ``f`` and the features
    that tie with it (the trees' ``tie_ptr``/``tie_feat``). Returns the (feature, sw, hstar)
    entries to sum."""
    k = np.concatenate([np.diff(t["tie_ptr"]) for t in trees])[inner]
    if not k.any():
        return f, sw, hstar
    part = 1.0 / (k + 1.0)
    tied = np.concatenate([t["tie_feat"] for t in trees])
    return (np.concatenate([f, tied]), np.concatenate([sw * part, np.repeat(sw * part, k)]),
            np.concatenate([hstar * part, np.repeat(hstar * part, k)]))


def genie3_raw(spec: ClusteringSpec, per_target: np.ndarray) -> np.ndarray:
    """Per-target Genie3 in the targets' own units: each group's share of h* divided by its
    column weight a_c (1/(T·Var_train) for a numeric target), i.e. the reduction of the
    target's sum of squares (of n·Gini for a nominal one).

    CLUS writes these as its per-target .fimp columns, and (2.12.8) the plain mean of them as
    the "overall" column, whereas the papers' Genie3 (and our default) sums h*, the heuristic's
    normalised variance reduction: the two overall rankings differ when targets have very
    different variances (the raw mean is dominated by the targets in the largest units).
    """
    G = per_target.shape[0]
    a = np.ones(G)
    for g in range(G):
        cols = np.flatnonzero(spec.col_group == g)
        if cols.size and spec.a[cols[0]] > 0:
            a[g] = spec.a[cols[0]]
    return per_target / a[:, None]
