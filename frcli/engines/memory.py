"""Memory estimates made before big work: a ranker's ``validate`` asks how much a
run will need and refuses, in one line, what cannot fit ("needs ≈ 7280.0 GiB, the machine has
23.5 GiB") instead of dying with a ``MemoryError`` or being killed by the kernel hours later.

The estimates are upper bounds of the *dominant* terms, not accountants' sums: a tree has at
most 2·n/min_leaf − 1 nodes (every leaf holds ≥ min_leaf of the n weighted rows), each costing
the bytes of its node arrays; Relief's neighbour search holds (samples × groups × k) slots.
Refusing above the machine's total memory (the smaller of RAM and a cgroup limit) never
refuses a run that could finish; above what is free now, a warning says so.
"""
from __future__ import annotations

import os
import warnings

from frcli.errors import ConfigError

GiB = float(1 << 30)

# bytes per tree node as kept after growing (_tree.tree_to_dict): feature, left, right, depth
# (int32), threshold, weight, hstar, p_left (float64), offset (int64), plus the concatenation
# that scores() makes of feature, hstar, depth and weight (24 bytes)
NODE_BYTES = 4 * 4 + 4 * 8 + 8 + 24
TREE_OVERHEAD = 2048          # a dict of ten NumPy arrays


def machine_memory() -> tuple[int | None, int | None]:
    """(total, available now) in bytes; total is the smaller of RAM and a cgroup limit.
    None where the platform does not say."""
    total = avail = None
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                if key == "MemAvailable":
                    avail = int(rest.split()[0]) * 1024
                elif key == "MemTotal" and total is None:
                    total = int(rest.split()[0]) * 1024
    except (OSError, ValueError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < (1 << 60):
            total = int(text) if total is None else min(total, int(text))
            if avail is not None:
                avail = min(avail, total)
        break
    return total, avail


def check_memory(need: float, what: str) -> None:
    """Refuse (``ConfigError``) when ``need`` bytes exceed the machine's total memory; warn
    when they exceed what is available now."""
    total, avail = machine_memory()
    if total is not None and need > total:
        raise ConfigError(f"{what} needs ≈ {need / GiB:.1f} GiB of memory, the machine has "
                          f"{total / GiB:.1f} GiB; use smaller values")
    if avail is not None and need > avail:
        warnings.warn(f"{what} needs ≈ {need / GiB:.1f} GiB of memory and only "
                      f"{avail / GiB:.1f} GiB are free now: it may be slow or be killed",
                      stacklevel=3)


def forest_bytes(n: int, F: int, K: int, trees: int, min_leaf: float, *,
                 keep_values: bool = False) -> float:
    """Upper bound of the memory of growing and scoring one forest: the kept trees, the
    feature-major copy of X, the clustering matrix (centred copy and raw columns) and the
    per-tree seeds."""
    nodes = max(1.0, 2.0 * n / max(min_leaf, 1e-9) - 1.0)
    per_tree = TREE_OVERHEAD + NODE_BYTES * nodes
    if keep_values:
        per_tree += 8.0 * K * (nodes + 1) / 2
    data = 8.0 * n * F + 16.0 * n * max(K, 1)
    return float(trees) * (per_tree + 16.0) + data


def relief_bytes(n: int, F: int, samples: int, groups: int, kmax: int, Q: int,
                 snapshots: int) -> float:
    """Upper bound of the memory of one Relief grid: the neighbour search (index and distance
    per slot), the per-slot arrays of the accumulation (about 60 bytes and 16 per target
    distance), the accumulators (snapshots × (Q + 1) × slot classes × F) and two copies of
    X."""
    slots = float(samples) * groups * kmax
    accum = 8.0 * snapshots * (Q + 1) * groups * kmax * F
    return slots * (12.0 + 60.0 + 16.0 * Q) + accum + 16.0 * n * F


def clustering_width(dataset, semi_supervised: bool = False) -> int:
    """Number of clustering columns a forest on ``dataset`` uses (``forest.clustering_spec``):
    one per numeric target or label, one per category of a nominal one; the features'
    columns for unsupervised (and semi-supervised) data."""
    def width(attrs, default):
        return sum(max(len(a.categories), 1) if a.is_nominal else 1 for a in attrs) or default

    if dataset.task == "unsupervised":
        return width(dataset.features, dataset.n_features)
    if dataset.Y is None:
        k = 1
    elif dataset.is_label_task:
        k = dataset.Y.shape[1]
    elif dataset.task == "classification":
        k = max(len(dataset.targets[0].categories) if dataset.targets else 0, 2)
    else:
        k = width(dataset.targets, dataset.Y.shape[1])
    if semi_supervised:
        k += width(dataset.features, dataset.n_features)
    return k
