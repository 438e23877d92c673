"""How numbers and method labels are shown: one policy for every command, table and report.

Computations always use the unrounded values; only what is displayed is rounded, like this:

* measure values (RRMSE, AUPRC, F1, times): 4 significant digits, trailing zeros kept so a
  column reads evenly (``0.5850`` beside ``0.8404``; ``12.35``; ``1235``); below 1e-4 or from
  1e6 on, scientific (``1.235e-05``);
* average ranks and rank differences: 3 decimals (``2.417``);
* p-values: 3 significant digits, scientific below 0.001 (``0.0148``, ``2.33e-04``);
* critical differences: 4 decimals, as in Demšar's tables and the papers (``0.6050``);
* test statistics (χ², F): 4 significant digits;
* importances (``frcli rank`` tables): 6 significant digits (CSV/JSON files keep every digit).

Method labels (``relief(neighbours=5)``) are names, not numbers: ``frcli.rankers.labels``
makes them, since it knows the methods' defaults.
"""
from __future__ import annotations

import math
from typing import Any


def _finite(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def value(v: Any, digits: int = 4) -> str:
    """A measure value: ``digits`` significant digits, trailing zeros kept."""
    f = _finite(v)
    if f is None:
        return _non_finite(v)
    if f == 0.0:
        return "0"
    a = abs(f)
    if a < 1e-4 or a >= 1e6:
        return f"{f:.{digits - 1}e}"
    s = f"{f:#.{digits}g}"
    if "e" in s:  # 1e5 <= |f| < 1e6 with 4 digits: write it out, no exponent
        s = f"{f:.0f}"
    return s.rstrip(".")


def importance(v: Any) -> str:
    """An importance in a ranking table (6 significant digits, no padding zeros)."""
    f = _finite(v)
    return _non_finite(v) if f is None else f"{f:.6g}"


def rank(v: Any) -> str:
    """An average rank or a rank difference."""
    f = _finite(v)
    return _non_finite(v) if f is None else f"{f:.3f}"


def signed_rank(v: Any) -> str:
    f = _finite(v)
    return _non_finite(v) if f is None else f"{f:+.3f}"


def p_value(p: Any) -> str:
    f = _finite(p)
    if f is None:
        return "-" if p is None else _non_finite(p)
    return f"{f:.3g}" if f >= 1e-3 or f == 0.0 else f"{f:.2e}"


def cd(v: Any) -> str:
    """A critical difference."""
    f = _finite(v)
    return _non_finite(v) if f is None else f"{f:.4f}"


def statistic(v: Any) -> str:
    f = _finite(v)
    return _non_finite(v) if f is None else f"{f:.4g}"


def _non_finite(v: Any) -> str:
    if v is None:
        return "–"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return "–"
    return "inf" if f > 0 else "-inf"
