"""CLUS class hierarchies: declared values → ``Hierarchy``; ``@``-joined label sets → 0/1 rows.

Two declaration forms (the ARFF header does not say which; CLUS's ``[Hierarchical] Type``):

* ``tree``: every value is a path ``a/b/c``; the label is the full path and its parent is the
  path without the last step. Missing intermediate paths are added.
* ``dag``: every value is an edge ``parent/child``; labels are node names; edges from ``root``
  mark top-level labels (``root`` itself is not a label). A node that is only ever a parent
  is top-level too. Cycles are an error.

Labels are put in a deterministic topological order (parents first; among the labels that are
ready, the one declared first). Every label set read from the data is closed upwards.
"""
from __future__ import annotations

import heapq
from typing import Sequence

import numpy as np

from frcli.data.dataset import Hierarchy
from frcli.errors import DataError

HIERARCHY_KINDS = ("tree", "dag")
ROOT = "root"


def looks_like_dag(values: Sequence[str], sep: str = "/") -> bool:
    """True for the unmistakable DAG edge form: every value is ``x/y``, some start at ``root``
    and some edge's parent is not declared as a label (in the tree form every prefix is)."""
    if not values or any(v.count(sep) != 1 for v in values):
        return False
    parents = {v.split(sep, 1)[0] for v in values}
    return ROOT in parents and bool(parents - set(values))


def _topo(nodes: list[str], parents: dict[str, list[str]], path, line) -> list[str]:
    order_key = {v: i for i, v in enumerate(nodes)}
    children: dict[str, list[str]] = {v: [] for v in nodes}
    indeg = {v: len(parents[v]) for v in nodes}
    for v in nodes:
        for p in parents[v]:
            children[p].append(v)
    heap = [(order_key[v], v) for v in nodes if indeg[v] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        _, v = heapq.heappop(heap)
        out.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(heap, (order_key[c], c))
    if len(out) != len(nodes):
        cyc = sorted(v for v in nodes if indeg[v] > 0)[:5]
        raise DataError(f"the hierarchy has a cycle (through {', '.join(cyc)})", path, line)
    return out


def build_hierarchy(values: Sequence[str], kind: str = "tree", sep: str = "/", *,
                    path: str | None = None, line: int | None = None) -> Hierarchy:
    """A ``Hierarchy`` from the declared values of a CLUS ``hierarchical`` attribute."""
    if kind not in HIERARCHY_KINDS:
        raise DataError(f"unknown hierarchy type {kind!r}; allowed: tree, dag", path, line)
    parents: dict[str, list[str]] = {}
    nodes: list[str] = []

    def add(v: str) -> None:
        if v not in parents:
            parents[v] = []
            nodes.append(v)

    if kind == "tree":
        for v in values:
            steps = v.split(sep)
            if any(s == "" for s in steps):
                raise DataError(f"bad hierarchy path {v!r}", path, line)
            for k in range(1, len(steps) + 1):
                p = sep.join(steps[:k])
                new = p not in parents
                add(p)
                if new and k > 1:
                    parents[p].append(sep.join(steps[: k - 1]))
    else:
        for v in values:
            parts = v.split(sep)
            if len(parts) != 2 or not parts[0] or not parts[1]:
                raise DataError(f"hierarchy value {v!r} is not a parent{sep}child edge; for path "
                                f"values use hierarchy type 'tree'", path, line)
            p, c = parts
            if c == ROOT:
                raise DataError(f"edge {v!r} points to {ROOT!r}", path, line)
            if p != ROOT:
                add(p)
            add(c)
            if p != ROOT and p not in parents[c]:
                parents[c].append(p)
    order = _topo(nodes, parents, path, line)
    index = {v: i for i, v in enumerate(order)}
    return Hierarchy(labels=order,
                     parents=[np.array(sorted(index[p] for p in parents[v]), dtype=np.intp)
                              for v in order],
                     kind=kind)


def ancestor_lists(h: Hierarchy) -> list[np.ndarray]:
    """For every label: itself and all its ancestors (column indices)."""
    anc: list[np.ndarray] = []
    for j, par in enumerate(h.parents):
        s = {j}
        for p in par:
            s.update(anc[p].tolist())
        anc.append(np.array(sorted(s), dtype=np.intp))
    return anc


def encode_label_sets(strings: Sequence[str | None], h: Hierarchy, *, path: str | None = None,
                      lines: Sequence[int] | None = None, sep_sets: str = "@"
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(Y uint8 (n, L) closed upwards, known bool (n,)). ``None``/``?`` = unknown row; an
    empty string or ``none`` is the empty label set; ``root`` is ignored."""
    index = {v: i for i, v in enumerate(h.labels)}
    anc = ancestor_lists(h)
    n = len(strings)
    Y = np.zeros((n, h.n_labels), dtype=np.uint8)
    known = np.ones(n, dtype=bool)
    cache: dict[str, np.ndarray] = {}
    for i, s in enumerate(strings):
        if s is None or s == "?":
            known[i] = False
            continue
        cols = cache.get(s)
        if cols is None:
            acc: set[int] = set()
            for lab in s.split(sep_sets):
                lab = lab.strip()
                if lab == "" or lab == ROOT or lab.lower() == "none":
                    continue
                j = index.get(lab)
                if j is None:
                    line = None if lines is None else int(lines[i])
                    raise DataError(f"label {lab!r} is not declared in the hierarchy", path, line)
                acc.update(anc[j].tolist())
            cols = np.array(sorted(acc), dtype=np.intp)
            cache[s] = cols
        Y[i, cols] = 1
    return Y, known


def declared_values(h: Hierarchy, sep: str = "/") -> list[str]:
    """The ``hierarchical`` declaration that rebuilds ``h`` (paths for a tree, edges for a DAG)."""
    if h.kind == "tree":
        return list(h.labels)
    out = []
    for j, lab in enumerate(h.labels):
        if len(h.parents[j]) == 0:
            out.append(f"{ROOT}{sep}{lab}")
        out.extend(f"{h.labels[p]}{sep}{lab}" for p in h.parents[j])
    return out


def label_set_strings(h: Hierarchy, Y: np.ndarray) -> list[str]:
    """Each row's most specific labels joined by ``@`` (the compact CLUS row form)."""
    out = []
    children: list[list[int]] = [[] for _ in range(h.n_labels)]
    for j, par in enumerate(h.parents):
        for p in par:
            children[p].append(j)
    for row in np.asarray(Y, dtype=bool):
        present = np.flatnonzero(row)
        leaves = [j for j in present if not any(row[c] for c in children[j])]
        out.append("@".join(h.labels[j] for j in leaves))
    return out


def hierarchy_summary(h: Hierarchy) -> dict:
    """Counts shown by ``frcli datasets info``."""
    d = h.depths()
    return {"type": h.kind, "labels": h.n_labels, "depth": int(d.max()) if len(d) else 0,
            "top_level": int(sum(len(p) == 0 for p in h.parents)),
            "multi_parent": int(sum(len(p) > 1 for p in h.parents))}
