"""How far the ranking kernels are, for whoever shows it (``frcli rank``'s progress bar).

The commands reach the engines only through the rankers layer; this is that door for the
kernels' work counters (``frcli.engines.progress``): open ``tracking(Counter())`` around a
ranking and read ``counter.done`` of ``counter.expected`` ``counter.unit`` from another
thread.
"""
from __future__ import annotations

from frcli.engines.progress import Counter, tracking

__all__ = ["Counter", "tracking"]
