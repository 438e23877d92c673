"""Recent forests' scores, so that the Symbolic, Genie3 and RF-score rankers of one ensemble
(same data, parameters and seed, as the experiment runner plans them) grow it only once.

A ``ForestCache`` is an explicit object: whoever wants sharing makes one and makes it active
for a block (``with cache.active():``); ``forest_scores`` consults only the active one, so a
plain ``rank`` outside such a block always grows its forest. The entries outlive the block:
the experiment runner activates one cache per task of a forest group, and consecutive tasks
share the forest. The active cache is a context variable, so threads and asyncio tasks each
see their own.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
from typing import Any, Iterator

import numpy as np

from frcli.data.dataset import Dataset

_ACTIVE: contextvars.ContextVar["ForestCache | None"] = contextvars.ContextVar(
    "frcli_forest_cache", default=None)


class ForestCache:
    """A bounded map from a forest's content key to its scores (not its trees). Several
    entries are kept so that the per-target forests of a ``-str`` ranking are shared too
    (one entry per target); the oldest go beyond ``entries`` or ``nbytes``."""

    def __init__(self, entries: int = 256, nbytes: int = 64 << 20):
        self.max_entries = entries
        self.max_bytes = nbytes
        self._entries: dict[str, dict[str, Any]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> dict[str, Any] | None:
        return self._entries.get(key)

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Add an entry (``{"out": scores, ...}``), dropping the oldest beyond the bounds."""
        self._entries.pop(key, None)
        entry["nbytes"] = _nbytes(entry["out"])
        self._entries[key] = entry
        total = sum(e["nbytes"] for e in self._entries.values())
        while len(self._entries) > 1 and (len(self._entries) > self.max_entries
                                          or total > self.max_bytes):
            oldest = next(iter(self._entries))
            total -= self._entries.pop(oldest)["nbytes"]

    def clear(self) -> None:
        self._entries.clear()

    @contextlib.contextmanager
    def active(self) -> Iterator["ForestCache"]:
        """Within this block, ``forest_scores`` serves a repeated request from this cache."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)


def active_cache() -> ForestCache | None:
    """The cache made active by the innermost ``ForestCache.active`` block, if any."""
    return _ACTIVE.get()


def _nbytes(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v) for v in obj)
    return 64


def forest_key(dataset: Dataset, *parts: Any) -> str:
    """Content hash of everything a forest depends on (data bytes, descriptions, params)."""
    h = hashlib.blake2b(digest_size=16)
    for arr in (dataset.X, dataset.Y, dataset.labeled):
        if arr is not None:
            a = np.ascontiguousarray(arr)
            h.update(f"{a.dtype}{a.shape}".encode())
            h.update(memoryview(a.reshape(-1)).cast("B"))   # 1-D: empty arrays cast too
    h.update(repr((dataset.task, dataset.semi_supervised,
                   [(a.kind, a.categories) for a in dataset.features],
                   [(a.kind, a.categories) for a in dataset.targets],
                   None if dataset.hierarchy is None else
                   [p.tolist() for p in dataset.hierarchy.parents], parts)).encode())
    return h.hexdigest()
