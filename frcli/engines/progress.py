"""Work counters that the kernels advance without the GIL, for progress bars.

A kernel given ``progress=slots`` (an int64 array, one slot per thread) adds to
``slots[thread]`` as it finishes units of work: trees (``ext/pct/_forest.pyx``) or Relief
instances whose neighbours are found (``ext/relief/_relief.pyx``). Nothing reads the slots
inside the kernels, so results never depend on them, and there is no lock (each thread writes
its own slot; a reader summing them may see a count a moment old).

Whoever shows progress (``frcli rank`` on a terminal) opens ``tracking(counter)``; engines
about to run a kernel call ``slots(expected, unit)``, which announces the work and returns the
array to pass, or None when nobody is watching (the kernels then skip the counting).
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

SLOTS = 256   # >= any thread count; a thread id wraps around beyond it


class Counter:
    """Units announced and done, per unit name (``trees``, ``Relief instances``)."""

    def __init__(self) -> None:
        self.slots = np.zeros(SLOTS, dtype=np.int64)
        self.expected = 0
        self.unit = ""
        self._lock = threading.Lock()

    def expect(self, n: int, unit: str) -> None:
        with self._lock:
            self.expected += int(n)
            self.unit = unit

    @property
    def done(self) -> int:
        return int(self.slots.sum())


_current: list[Counter] = []


@contextlib.contextmanager
def tracking(counter: Counter):
    """Within this block, kernels count their work into ``counter``."""
    _current.append(counter)
    try:
        yield counter
    finally:
        _current.remove(counter)


def slots(expected: int, unit: str) -> np.ndarray | None:
    """Announce ``expected`` units of ``unit``; the array for the kernel's ``progress=``."""
    if not _current:
        return None
    c = _current[-1]
    c.expect(expected, unit)
    return c.slots
