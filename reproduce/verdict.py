"""One rule for every verdict of docs/reproduction.md: when a paper's claim *holds*, *partly
holds*, *does not hold* or *cannot be told* in our results, and when a paper's value lies
*within* our measured noise.

A claim is split into parts (one per data set, score, step of a trend, or clause), each
judged True (holds), False (does not) or None (cannot be told), and :func:`combine` turns the
parts into the verdict. The helpers below judge the usual kinds of part alike everywhere:

* an order (:func:`order`, :func:`extreme`): it holds only strictly; a tie in ours agrees
  only where the paper's own printed numbers tie at the same place, and cannot be told where
  the paper states the order without numbers (a figure, a sentence);
* a printed difference or value (:func:`same_sign`, :func:`same_size`): the sign is one part,
  the size another; the size agrees when the paper's value lies in our measured noise band,
  or, where no band is measured, when the two are within a factor of :data:`SIZE_FACTOR`;
* a trend (:func:`trend`): every step of our grid is a part, not only its two ends;
* a significance (:func:`significant`): our test must reject; where it cannot reject at our
  number of data sets whatever the data, the part cannot be told.

:func:`rule_text` states the rule for the top of the doc (generated, so its constants are
this module's).
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

HOLDS = "holds"
PARTLY = "partly holds"
FAILS = "does not hold"
UNKNOWN = "cannot tell"
VERDICTS = (HOLDS, PARTLY, FAILS, UNKNOWN)

SIZE_FACTOR = 2.0       # same size without a band: the larger magnitude at most this x the other
ALPHA = 0.05

WITHIN = "within"                 # the paper's value is inside our 95 % band
OUTSIDE_BAND = "outside band"     # outside the band, not after the multiple-test correction
OUTSIDE = "**outside**"           # outside after the correction


def combine(parts: Iterable[bool | None]) -> str:
    """The verdict of a claim from its parts: *holds* when every part holds, *does not
    hold* when every part that can be told fails, *cannot tell* when no part can be told,
    else *partly holds* (some hold, others fail or cannot be told)."""
    parts = list(parts)
    told = [p for p in parts if p is not None]
    if not told:
        return UNKNOWN
    if all(told):
        return HOLDS if len(told) == len(parts) else PARTLY
    return PARTLY if any(told) else FAILS


def verdict(ok: bool | None) -> str:
    """The verdict of a claim of one part."""
    return combine([ok])


def order(a: float, b: float, *, higher: bool = True,
          paper: tuple[float, float] | None = None) -> bool | None:
    """Part 'a is better than b' (higher or lower is better): strictly; a tie agrees when
    ``paper`` (the paper's printed a, b) ties too, is None when the paper printed no numbers,
    fails when the paper's numbers are strictly ordered."""
    if any(_nan(x) for x in (a, b)):
        return None
    if a != b:
        return bool((a > b) == higher)
    if paper is None:
        return None
    return bool(paper[0] == paper[1])


def extreme(values: Mapping[str, float], name: str, *, best: bool = True, higher: bool = True,
            paper: Mapping[str, float] | None = None) -> bool | None:
    """Part '``name`` is the best (``best``) / the worst of ``values``' (higher or lower is
    better), with :func:`order`'s tie rule: a shared extreme agrees only where the paper's
    printed values share it with the same names."""
    vals = {k: v for k, v in values.items() if not _nan(v)}
    if name not in vals:
        return None
    top = max(vals.values()) if best == higher else min(vals.values())
    at = sorted(k for k, v in vals.items() if v == top)
    if name not in at:
        return False
    if len(at) == 1:
        return True
    if paper is None:
        return None
    ptop = max(paper.values()) if best == higher else min(paper.values())
    return sorted(k for k, v in paper.items() if v == ptop) == at


def in_top(values: Mapping[str, float], name: str, k: int, *, higher: bool = True,
           bottom: bool = False) -> bool | None:
    """Part '``name`` is among the ``k`` best (``bottom``: the ``k`` worst) of ``values``':
    None when a tie straddles the boundary (the papers state these from figures)."""
    vals = {n: v for n, v in values.items() if not _nan(v)}
    if name not in vals:
        return None
    x = vals[name]
    up = higher != bottom                      # larger is "ahead" for this question
    ahead = sum((v > x) if up else (v < x) for n, v in vals.items() if n != name)
    tied = sum(v == x for n, v in vals.items() if n != name)
    if ahead + tied + 1 <= k:
        return True
    if ahead + 1 > k:
        return False
    return None


def same_sign(ours: float, paper: float) -> bool | None:
    """Part 'ours points the paper's way': the signs agree (a zero agrees only with a zero)."""
    if _nan(ours) or _nan(paper):
        return None
    return _sign(ours) == _sign(paper)


def _sign(x: float) -> int:
    # int() first: numpy's booleans do not subtract
    return int(x > 0) - int(x < 0)


def same_size(ours: float, paper: float, band: tuple[float, float] | None = None) -> bool | None:
    """Part 'ours has the paper's size': the paper's value lies in our measured band when one
    is given, else the two magnitudes are within :data:`SIZE_FACTOR` of each other (and of
    the same sign)."""
    if _nan(ours) or _nan(paper):
        return None
    if band is not None:
        return bool(band[0] <= paper <= band[1])
    if not same_sign(ours, paper):
        return False
    a, b = sorted((abs(ours), abs(paper)))
    return bool(a == b or (a > 0 and b / a <= SIZE_FACTOR))


def proportion_band(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % (Wilson) interval of a proportion ``p`` of ``n`` cases: the noise band of an
    accuracy or a share, so that :func:`same_size` judges a paper's percentage against it
    (a factor of two means nothing for a proportion)."""
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def trend(values: Sequence[float], *, increasing: bool) -> list[bool | None]:
    """One part per step of a grid the paper says improves (``increasing``: each next value is
    larger): a tie cannot be told (papers state trends in figures, without numbers)."""
    out = []
    for a, b in zip(values, values[1:]):
        out.append(None if a == b or _nan(a) or _nan(b) else bool((b > a) == increasing))
    return out


def significant(p: float, *, can_reject: bool = True, alpha: float = ALPHA) -> bool | None:
    """Part 'the difference is significant': p below alpha; None when the test cannot reject
    at our number of data sets whatever the data (``can_reject=False``)."""
    if _nan(p):
        return None
    if p < alpha:
        return True
    return False if can_reject else None


def wilcoxon_can_reject(n: int, alpha: float = ALPHA) -> bool:
    """Whether a two-sided exact Wilcoxon signed-rank test over ``n`` pairs can reject at
    ``alpha`` whatever the data: its smallest p is 2 / 2^n (so at least 6 pairs at 0.05)."""
    return n > 0 and 2.0 / 2.0 ** n < alpha


def insignificant(p: float, alpha: float = ALPHA) -> bool | None:
    """Part 'no significant difference' (a claim the paper makes from a test that does not
    reject): ours does not reject either."""
    if _nan(p):
        return None
    return bool(p >= alpha)


def band(paper: float, lo: float, hi: float, rejected: bool) -> str:
    """Label of a paper's value against our 95 % band: within it, outside it, or outside
    after the multiple-test correction (``rejected``)."""
    if lo <= paper <= hi:
        return WITHIN
    return OUTSIDE if rejected else OUTSIDE_BAND


def rule_text() -> str:
    """The rule as the doc states it once, at its top."""
    return "\n".join([
        "## How claims are judged", "",
        "Every section compares the paper's claims with ours under one rule "
        "(`reproduce/verdict.py`). A claim is split into its parts — one per data set, score, "
        "clause, or step of a trend — and each part holds, fails, or cannot be told:", "",
        f"* **{HOLDS}**: every part holds; **{FAILS}**: every part that can be told fails; "
        f"**{PARTLY}**: some parts hold and others fail or cannot be told; **{UNKNOWN}**: no "
        "part can be told.",
        "* *An order* (A better than B, A best or worst) holds only strictly. A tie in ours "
        "agrees where the paper's own printed numbers tie at the same place, and cannot be "
        "told where the paper states the order without numbers (a figure or a sentence).",
        "* *A printed difference or value* has two parts: its sign, and its size. The size "
        "agrees when the paper's value lies in our measured 95 % noise band; where no band "
        f"is measured, when the larger magnitude is at most {SIZE_FACTOR:g} times the "
        "smaller.",
        "* A claim is judged by the evidence the paper gives for it: an order it reads off "
        "average ranks or values is read off ours the same way, a significance it tests is "
        "tested.",
        "* *A trend* (better with more iterations, with larger K, ...) is judged at every "
        "step of our grid, not only at its two ends.",
        f"* *A significance* holds when our test rejects at α = {ALPHA:g} (after the "
        "paper's correction, where it corrects); where the test cannot reject at our number "
        "of data sets whatever the data, it cannot be told.",
        f"* *Noise bands*: a paper's value is *{WITHIN}* when it lies in our 95 % band, "
        f"*{OUTSIDE_BAND}* when it lies outside the band but the multiple-test correction "
        f"over the table does not reject, and {OUTSIDE} when it does. \"Within noise\" is "
        "said only against a measured band.",
    ])


def _nan(x) -> bool:
    try:
        return x is None or math.isnan(float(x))
    except (TypeError, ValueError):
        return True
