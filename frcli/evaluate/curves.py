"""Curves of a measure over the top-f features of a ranking, and their areas.

Used where a paper looks at *where* in a ranking the useful features are: P-UNS plots the 1NN
MSE over the top 1, 2, 4, …, 2^⌊log2 F⌋ and F features; the ReliefE
paper summarises rF1(f) = F1(top f)/F1(all) by AUrF1, a Simpson-rule integral divided by the
number of f values. The semi-supervised papers take the area of (ℓ, m(ℓ)) curves over
equidistant ℓ: a trapezoid with unit spacing, since "equidistant" fixes the spacing but not its
unit, and unit spacing matches the magnitudes P-ML prints (docs/design/experiment.md).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from frcli.errors import choices_error


def powers_of_two(n_features: int) -> list[int]:
    """1, 2, 4, …, 2^⌊log2 F⌋ and F (P-UNS curve points)."""
    fs = []
    f = 1
    while f < n_features:
        fs.append(f)
        f *= 2
    fs.append(n_features)
    return fs


def curve_area(values: Sequence[float], x: Sequence[float] | None = None, *,
               rule: str = "trapezoid", normalise: bool = False) -> float:
    """Area under a curve. ``x`` defaults to 0, 1, 2, … (equidistant points, unit spacing).

    ``rule``: "trapezoid" or "simpson" (scipy's composite Simpson, which handles uneven x).
    ``normalise``: divide by the number of points (AUrF1's convention).
    """
    y = np.asarray(values, dtype=np.float64)
    xs = np.arange(len(y), dtype=np.float64) if x is None else np.asarray(x, dtype=np.float64)
    if len(y) < 2:
        a = float(y[0]) if len(y) else float("nan")
    elif rule == "trapezoid":
        a = float(np.trapezoid(y, xs))
    elif rule == "simpson":
        from scipy.integrate import simpson

        a = float(simpson(y, x=xs))
    else:
        raise choices_error("curve rule", rule, ("trapezoid", "simpson"))
    return a / len(y) if normalise else a
