"""Approximate nearest neighbours for Relief on large data (``search="approximate"``).

Exact Relief costs O(m n F) for m sampled instances (all of them: O(n^2 F)); beyond tens of
thousands of rows that dominates everything (docs/benchmarks.md, "Scaling"). This module
finds the K neighbours of every sampled instance with pynndescent's NN-descent graph
(brought by umap-learn, imported lazily) under the same distance d_X: features are mapped
so that the Manhattan distance divided by F is d_X (numeric (x - min) / range; a nominal
value one-hot times 1/2, so two different values are 1 apart). Per candidate group (ReliefF:
one per class) one index is built; an instance inside the group takes its neighbours from
the index's own k-NN graph, one outside it queries the index. The chosen neighbours' d_X is
then recomputed with the exact formula and each list ordered by (d_X, row), so only *which*
neighbours are found is approximate. Groups of at most ``EXACT_BELOW`` rows use the exact
kernel (NN-descent gains nothing there).

Not CLUS's neighbours: an explicit, non-default option whose agreement with exact Relief
(Spearman, recall of the top features) and speed-up are measured by
``bench/bench_scaling.py``. Missing values are not supported (d_X then has no coordinate
form): a clear error. Deterministic for a seed (single-threaded NN-descent), so results do
not depend on ``jobs``.
"""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from frcli.engines.relief.common import feature_kinds
from frcli.engines.relief.thirdparty import pynndescent
from frcli.errors import ConfigError

EXACT_BELOW = 10000     # groups this small are searched exactly (measured crossover 8-12k)
GRAPH_NEIGHBOURS = 30   # pynndescent's default graph degree (at least K + 1 is used)


def coordinates(X: np.ndarray, kind: np.ndarray, mn: np.ndarray, rg: np.ndarray,
                n_values: np.ndarray) -> np.ndarray:
    """(n, F') float32 coordinates whose Manhattan distance is F * d_X."""
    FK = feature_kinds()
    if np.any((kind == FK.K_NUM_MISS) | (kind == FK.K_NOM_MISS)):
        raise ConfigError("search=approximate needs data without missing values "
                          "(use search=exact)")
    cols = []
    for f in range(X.shape[1]):
        if kind[f] == FK.K_NOM:
            k = max(int(n_values[f]), int(np.max(X[:, f])) + 1 if X.shape[0] else 1)
            cols.append(0.5 * np.eye(k, dtype=np.float32)[X[:, f].astype(np.intp)])
        else:
            cols.append(((X[:, f] - mn[f]) / rg[f]).astype(np.float32)[:, None])
    return np.ascontiguousarray(np.hstack(cols), dtype=np.float32)


def search(X: np.ndarray, meta, n_values: np.ndarray, rows: np.ndarray, group: np.ndarray,
           n_groups: int, K: int, exact: Callable[[np.ndarray], tuple], *, seed: int = 0,
           distances: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    """The same (nbr, dist, cnt) as the exact kernel's ``search``, found approximately.

    ``exact(group_mask)`` runs the exact kernel with the candidate groups given (-1 = none);
    ``distances(ra, rb)`` returns the exact d_X of row pairs.
    """
    nnd = pynndescent()
    rows = np.asarray(rows, dtype=np.int64)
    m = rows.size
    nbr = np.full((m, n_groups, K), -1, dtype=np.int32)
    dist = np.zeros((m, n_groups, K))
    cnt = np.zeros((m, n_groups), dtype=np.int32)
    sizes = np.bincount(group[group >= 0], minlength=n_groups)
    small = sizes <= EXACT_BELOW
    if small.any():                  # exact search for the small groups, all at once
        g_small = np.where((group >= 0) & small[np.maximum(group, 0)], group, -1)
        nb, di, ct = exact(g_small.astype(np.int32))
        nbr[:, small] = nb[:, small]
        dist[:, small] = di[:, small]
        cnt[:, small] = ct[:, small]
    Z = None
    for g in np.flatnonzero(~small):
        if Z is None:
            Z = coordinates(X, meta.kind, meta.mn, meta.rg, n_values)
        members = np.flatnonzero(group == g)
        where = np.full(X.shape[0], -1, dtype=np.int64)
        where[members] = np.arange(members.size)
        k_graph = min(max(GRAPH_NEIGHBOURS, K + 1), members.size - 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            index = nnd.NNDescent(Z[members], metric="manhattan", n_neighbors=k_graph,
                                  random_state=seed, n_jobs=1, low_memory=True)
            graph = index.neighbor_graph[0]
        inside = where[rows] >= 0
        cand = np.full((m, max(k_graph, K)), -1, dtype=np.int64)
        if inside.any():             # own k-NN graph, self removed
            gi = graph[where[rows[inside]]]
            own = where[rows[inside]][:, None]
            keep = (gi != own) & (gi >= 0)
            order = np.argsort(~keep, axis=1, kind="stable")
            gi = np.take_along_axis(np.where(keep, gi, -1), order, axis=1)
            cand[inside, :gi.shape[1]] = gi
        if (~inside).any():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                qi, _ = index.query(Z[rows[~inside]], k=min(K, members.size))
            cand[~inside, :qi.shape[1]] = qi
        cand = cand[:, :max(k_graph, K)]
        valid = cand >= 0
        glob = np.where(valid, members[np.maximum(cand, 0)], -1)
        ra = np.repeat(rows, glob.shape[1]).reshape(glob.shape)
        d = np.full(glob.shape, np.inf)
        d[valid] = distances(ra[valid], glob[valid])
        # order by (exact d_X, row): the K nearest of the candidates found
        order = np.lexsort((np.where(valid, glob, np.iinfo(np.int64).max), d), axis=1)
        glob = np.take_along_axis(glob, order, axis=1)[:, :K]
        d = np.take_along_axis(d, order, axis=1)[:, :K]
        ok = glob >= 0
        nbr[:, g, :glob.shape[1]] = np.where(ok, glob, -1)
        dist[:, g, :d.shape[1]] = np.where(ok, d, 0.0)
        cnt[:, g] = ok.sum(axis=1)
    return nbr, dist, cnt
