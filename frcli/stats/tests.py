"""Statistical comparison of several methods over several data sets (Demšar 2006).

Works on a plain ``(N data sets, k methods)`` table of performances, so it serves any user's
numbers; it never imports the engines. Conventions (docs/stats.md; where the papers are
silent, the choice that reproduces their printed numbers):

* ranks per data set, 1 = best, ties get the average of the tied ranks;
* Friedman χ² from the average ranks *without* a tie correction (Demšar's formula, which is
  what reproduces the HMLC paper's p = 2.33e-3), and the Iman–Davenport F made from it;
* Nemenyi: CD = q_α √(k(k+1)/(6N)), q_α = studentised range quantile(1-α, k, ∞)/√2 from
  scipy. ``q_digits=3`` (the default) rounds q the way Demšar's Table 5 was printed
  (studentised range to 3 decimals, then /√2 to 3 decimals); this reproduces every CD the
  papers report (0.6050, 0.9574, 0.6764, 2.1432, 1.5392, 3.4014, 2.4523), which the
  unrounded quantile misses in the 4th decimal (e.g. 0.6051, 2.4521). ``q_digits=None``
  uses the unrounded quantile;
* two methods differ (Nemenyi, Bonferroni–Dunn) when their average ranks differ by *more*
  than the CD;
* Bonferroni–Dunn: the same CD with the two-sided normal quantile at α/(k-1)
  (rounded to ``q_digits`` decimals as in Demšar's table);
* Wilcoxon signed-rank: two-sided, scipy's ``zero_method='wilcox'`` (zero differences,
  frequent after rounding, are dropped) and ``method='auto'`` (exact for ≤ 50 differences
  without ties/zeros, exhaustive permutation for ≤ 13 with ties/zeros, else the normal
  approximation). All differences zero → p = 1;
* Benjamini–Hochberg step-up over a family of tests (``holm`` is offered too: the MTR paper's
  printed α̂_i = α/(t-i+1) and its Table 5 decision are Holm's, although its text says BH).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Sequence

import numpy as np
from scipy import stats as _st

__all__ = [
    "rank_table", "average_ranks", "friedman", "nemenyi_q", "nemenyi_cd", "bd_q",
    "nemenyi_pairs", "nonsignificant_groups", "bonferroni_dunn", "wilcoxon_pair",
    "benjamini_hochberg", "holm", "adjust", "compare", "Comparison", "small_sample_notes",
]


# --------------------------------------------------------------------------- ranks
def rank_table(values: np.ndarray, lower_is_better: bool) -> np.ndarray:
    """Per-row ranks of an (N, k) table: 1 = best, ties averaged."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise ValueError("expected an (N data sets, k methods) table")
    if np.isnan(v).any():
        raise ValueError("the table has missing values")
    return _st.rankdata(v if lower_is_better else -v, axis=1, method="average")


def average_ranks(values: np.ndarray, lower_is_better: bool) -> np.ndarray:
    """Average over data sets of the per-data-set ranks (length k)."""
    return rank_table(values, lower_is_better).mean(axis=0)


# --------------------------------------------------------------------------- Friedman
@dataclass(frozen=True)
class Friedman:
    chi2: float
    chi2_df: int
    chi2_p: float
    f: float                # Iman–Davenport F (inf when every data set ranks identically)
    f_df: tuple[int, int]
    f_p: float

    def to_dict(self) -> dict:
        return {
            "friedman": {"statistic": _num(self.chi2), "df": self.chi2_df,
                         "p_value": _num(self.chi2_p)},
            "iman_davenport": {"statistic": _num(self.f), "df": list(self.f_df),
                               "p_value": _num(self.f_p)},
        }


def friedman(avg_ranks: Sequence[float], n: int) -> Friedman:
    """Friedman χ²_F and the Iman–Davenport F_F from average ranks over ``n`` data sets."""
    r = np.asarray(avg_ranks, dtype=float)
    k = r.size
    if k < 2 or n < 2:
        raise ValueError("Friedman needs at least 2 methods and 2 data sets")
    chi2 = 12.0 * n / (k * (k + 1)) * (float(np.sum(r ** 2)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # -1e-15 from cancellation when all ranks are equal
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denom = n * (k - 1) - chi2
    if denom <= 1e-12 * n * k:      # perfect agreement between data sets
        f, fp = math.inf, 0.0
    else:
        f = (n - 1) * chi2 / denom
        fp = float(_st.f.sf(f, df1, df2))
    return Friedman(chi2, df1, float(_st.chi2.sf(chi2, df1)), f, (df1, df2), fp)


# --------------------------------------------------------------------------- Nemenyi
def nemenyi_q(k: int, alpha: float = 0.05, q_digits: int | None = 3) -> float:
    """q_α for k methods: studentised range quantile / √2 (Demšar's table precision by default)."""
    if k < 2:
        raise ValueError("need at least 2 methods")
    sr = float(_st.studentized_range.ppf(1.0 - alpha, k, np.inf))
    if q_digits is None:
        return sr / math.sqrt(2.0)
    return round(round(sr, q_digits) / math.sqrt(2.0), q_digits)


def _se(k: int, n: int) -> float:
    return math.sqrt(k * (k + 1) / (6.0 * n))


def nemenyi_cd(k: int, n: int, alpha: float = 0.05, q_digits: int | None = 3) -> float:
    """Critical difference of average ranks for k methods over n data sets."""
    return nemenyi_q(k, alpha, q_digits) * _se(k, n)


def bd_q(k: int, alpha: float = 0.05, q_digits: int | None = 3) -> float:
    """Bonferroni–Dunn critical value: two-sided normal quantile at α/(k-1)."""
    if k < 2:
        raise ValueError("need at least 2 methods")
    z = float(_st.norm.isf(alpha / (2.0 * (k - 1))))
    return z if q_digits is None else round(z, q_digits)


def nemenyi_pairs(avg_ranks: Sequence[float], n: int, alpha: float = 0.05,
                  q_digits: int | None = 3) -> tuple[float, np.ndarray, np.ndarray]:
    """(CD, significant (k,k) bool, p-values (k,k)) for all pairs.

    The p-value is the studentised-range tail of |R_i - R_j|·√2 / SE (exact, unrounded);
    the decision uses the CD, so it agrees with the diagram.
    """
    r = np.asarray(avg_ranks, dtype=float)
    k = r.size
    cd = nemenyi_cd(k, n, alpha, q_digits)
    diff = np.abs(r[:, None] - r[None, :])
    sig = diff > cd
    p = _st.studentized_range.sf(diff / _se(k, n) * math.sqrt(2.0), k, np.inf)
    p = np.clip(np.where(diff == 0, 1.0, p), 0.0, 1.0)
    return cd, sig, p


def nonsignificant_groups(avg_ranks: Sequence[float], cd: float | None) -> list[tuple[int, int]]:
    """Maximal groups of methods whose average ranks lie within ``cd`` of each other.

    Returned as (first, last) positions in the order of increasing average rank (ties broken by
    index), with first < last; singletons are dropped and no group is contained in another. With
    a CD test every pair inside a run whose span is ≤ CD is non-significant and a pair outside
    it is significant, so these runs are exactly the maximal non-significant cliques.
    ``cd=None`` (Friedman does not reject) joins everything.
    """
    r = np.sort(np.asarray(avg_ranks, dtype=float), kind="stable")
    k = r.size
    if k < 2:
        return []
    if cd is None:
        return [(0, k - 1)]
    groups: list[tuple[int, int]] = []
    last_end = -1
    for i in range(k):
        j = i
        while j + 1 < k and r[j + 1] - r[i] <= cd:
            j += 1
        if j > i and j > last_end:  # not contained in the previous (maximal) run
            groups.append((i, j))
            last_end = j
    return groups


@dataclass(frozen=True)
class BonferroniDunn:
    control: int
    q: float
    cd: float
    significant: np.ndarray   # (k,) bool, False for the control
    p_values: np.ndarray      # (k,) unadjusted two-sided normal p, 1 for the control
    p_adjusted: np.ndarray    # (k,) min(1, (k-1) p)


def bonferroni_dunn(avg_ranks: Sequence[float], n: int, control: int, alpha: float = 0.05,
                    q_digits: int | None = 3) -> BonferroniDunn:
    """Each method against ``control`` (index): |R_i - R_c| > CD_BD."""
    r = np.asarray(avg_ranks, dtype=float)
    k = r.size
    q = bd_q(k, alpha, q_digits)
    cd = q * _se(k, n)
    diff = np.abs(r - r[control])
    sig = diff > cd
    sig[control] = False
    p = 2.0 * _st.norm.sf(diff / _se(k, n))
    p[control] = 1.0
    padj = np.minimum(1.0, p * (k - 1))
    padj[control] = 1.0
    return BonferroniDunn(control, q, cd, sig, p, padj)


# --------------------------------------------------------------------------- Wilcoxon
@dataclass(frozen=True)
class WilcoxonResult:
    statistic: float
    p_value: float
    n_nonzero: int
    wins: int      # data sets where the first method is better
    ties: int
    losses: int


def wilcoxon_pair(a: np.ndarray, b: np.ndarray, lower_is_better: bool) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test of two methods' paired values over data sets.

    Zero differences are discarded (``zero_method='wilcox'``); if none remain, p = 1.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    d = a - b
    better = d < 0 if lower_is_better else d > 0
    nz = int(np.count_nonzero(d))
    wins = int(better.sum())
    ties = int(d.size - nz)
    if nz == 0:
        return WilcoxonResult(0.0, 1.0, 0, 0, ties, 0)
    res = _st.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided", method="auto")
    p = float(res.pvalue)
    if not math.isfinite(p):  # pragma: no cover - defensive (scipy edge cases)
        p = 1.0
    return WilcoxonResult(float(res.statistic), min(p, 1.0), nz, wins, ties, nz - wins)


# --------------------------------------------------------------------------- multiple tests
def _sorted_p(p_values: Sequence[float]):
    """(p, t, stable sort order, positions 1..t) shared by the step-up and step-down rules."""
    p = np.asarray(p_values, dtype=float)
    return p, p.size, np.argsort(p, kind="stable"), np.arange(1, p.size + 1)


def _in_input_order(order: np.ndarray, i0: int, thr_sorted: np.ndarray,
                    adj_sorted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(reject the i0 smallest p, threshold, adjusted p), each back in the input order."""
    t = order.size
    reject = np.zeros(t, bool)
    reject[order[:i0]] = True
    thr, adj = np.empty(t), np.empty(t)
    thr[order] = thr_sorted
    adj[order] = adj_sorted
    return reject, thr, adj


def benjamini_hochberg(p_values: Sequence[float], alpha: float = 0.05
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BH step-up: (reject, threshold (i/t)α at each p's sorted position, adjusted p).

    Sort p_(1) ≤ … ≤ p_(t); i0 = max{i : p_(i) ≤ (i/t)α}; reject i ≤ i0 (ties in p are ordered
    stably, which cannot change the set of rejections).
    """
    p, t, order, i = _sorted_p(p_values)
    if t == 0:
        return np.zeros(0, bool), np.zeros(0), np.zeros(0)
    thr_sorted = i / t * alpha
    ok = p[order] <= thr_sorted
    i0 = int(np.nonzero(ok)[0].max()) + 1 if ok.any() else 0
    adj_sorted = np.minimum.accumulate((p[order] * t / i)[::-1])[::-1]
    return _in_input_order(order, i0, thr_sorted, np.minimum(adj_sorted, 1.0))


def holm(p_values: Sequence[float], alpha: float = 0.05
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Holm step-down: thresholds α/(t-i+1); stop at the first p above its threshold."""
    p, t, order, i = _sorted_p(p_values)
    if t == 0:
        return np.zeros(0, bool), np.zeros(0), np.zeros(0)
    thr_sorted = alpha / (t - i + 1)
    fail = np.nonzero(p[order] > thr_sorted)[0]
    i0 = int(fail[0]) if fail.size else t
    adj_sorted = np.maximum.accumulate(np.minimum(1.0, p[order] * (t - i + 1)))
    return _in_input_order(order, i0, thr_sorted, adj_sorted)


CORRECTIONS = ("bh", "holm")


def adjust(p_values: Sequence[float], alpha: float = 0.05, method: str = "bh"):
    """Dispatch to :func:`benjamini_hochberg` or :func:`holm`."""
    if method == "bh":
        return benjamini_hochberg(p_values, alpha)
    if method == "holm":
        return holm(p_values, alpha)
    raise ValueError(f"unknown correction {method!r}; allowed: {', '.join(CORRECTIONS)}")


# --------------------------------------------------------------------------- sample size
def small_sample_notes(n: int, alpha: float = 0.05) -> list[str]:
    """What ``n`` data sets cannot support, as one-line warnings.

    * Friedman/Iman–Davenport and Nemenyi use large-sample distributions; Demšar (2006, §3.2.2)
      gives N > 10 (and k > 5) as the rule of thumb, so with N ≤ 10 the decision is indicative.
      (k is not checked: the papers test k = 3 or 4 methods over 24-30 sets, where the
      Iman–Davenport F is adequate.)
    * Wilcoxon's smallest two-sided p with n non-zero differences is 2 / 2^n, so with
      2^(1-N) > α no pair can ever differ significantly (N ≤ 5 at α = 0.05).
    """
    notes = []
    if n <= 10:
        notes.append(f"only N = {n} data sets: the Friedman/Iman–Davenport and Nemenyi "
                     "p-values are large-sample approximations (Demšar 2006: N > 10), so "
                     "treat their decisions as indicative")
    smallest = 2.0 ** (1 - n)
    if smallest > alpha:
        notes.append(f"with N = {n} data sets no Wilcoxon signed-rank test can reach "
                     f"p ≤ {alpha:g} (the smallest two-sided p is {smallest:.3g})")
    return notes


# --------------------------------------------------------------------------- all together
@dataclass
class Comparison:
    """Everything `frcli stats` reports for one (N, k) table."""

    methods: list[str]
    datasets: list[str]
    values: np.ndarray            # (N, k), after averaging and rounding
    lower_is_better: bool
    alpha: float
    ranks: np.ndarray             # (N, k)
    avg_ranks: np.ndarray         # (k,)
    friedman: Friedman
    nemenyi_q: float
    nemenyi_cd: float
    nemenyi_sig: np.ndarray       # (k, k)
    nemenyi_p: np.ndarray         # (k, k)
    groups: list[tuple[int, int]]  # positions in rank order; all joined if Friedman accepts
    pairs: list[dict]             # one per unordered pair (i < j in method order)
    correction: str = "bh"
    control: dict | None = None
    meta: dict = field(default_factory=dict)

    @property
    def rejects(self) -> bool:
        """Does the Iman–Davenport test reject H0 (all methods equal) at α?"""
        return self.friedman.f_p <= self.alpha

    @property
    def order(self) -> np.ndarray:
        """Method indices from best to worst average rank (stable)."""
        return np.argsort(self.avg_ranks, kind="stable")

    def group_members(self) -> list[list[str]]:
        o = self.order
        return [[self.methods[o[p]] for p in range(a, b + 1)] for a, b in self.groups]

    def to_dict(self) -> dict:
        o = self.order
        d = {
            **self.meta,
            "n_datasets": len(self.datasets),
            "n_methods": len(self.methods),
            "lower_is_better": self.lower_is_better,
            "alpha": self.alpha,
            "average_ranks": {self.methods[i]: float(self.avg_ranks[i]) for i in o},
            # no common mean when data sets are measured by different measures (main)
            "mean_values": None if self.meta.get("measures") else
            {self.methods[i]: float(self.values[:, i].mean()) for i in o},
            **self.friedman.to_dict(),
            "friedman_rejects": bool(self.rejects),
            "nemenyi_q": self.nemenyi_q,
            "nemenyi_cd": self.nemenyi_cd,
            "groups": self.group_members(),
            "correction": self.correction,
            "pairwise": [_clean(p) for p in self.pairs],
            "datasets": list(self.datasets),
        }
        if self.control is not None:
            d["control"] = _clean(self.control)
        return d


def compare(values: np.ndarray, methods: Sequence[str], datasets: Sequence[str], *,
            lower_is_better: bool, alpha: float = 0.05, control: str | None = None,
            correction: str = "bh", q_digits: int | None = 3) -> Comparison:
    """Run every test on an (N, k) table whose rows are data sets and columns methods."""
    v = np.asarray(values, dtype=float)
    methods = list(methods)
    datasets = list(datasets)
    n, k = v.shape
    if k != len(methods) or n != len(datasets):
        raise ValueError("table shape does not match the method/data-set names")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    ranks = rank_table(v, lower_is_better)
    avg = ranks.mean(axis=0)
    fr = friedman(avg, n)
    q = nemenyi_q(k, alpha, q_digits)
    cd, sig, pn = nemenyi_pairs(avg, n, alpha, q_digits)
    rejects = fr.f_p <= alpha
    groups = nonsignificant_groups(avg, cd if rejects else None)

    pairs: list[dict] = []
    wil = []
    for i, j in combinations(range(k), 2):
        w = wilcoxon_pair(v[:, i], v[:, j], lower_is_better)
        wil.append(w)
        better = methods[i] if avg[i] < avg[j] else methods[j] if avg[j] < avg[i] else None
        pairs.append({
            "a": methods[i], "b": methods[j], "better": better,
            "rank_difference": float(abs(avg[i] - avg[j])),
            "nemenyi_significant": bool(sig[i, j] and rejects),
            "nemenyi_p_value": float(pn[i, j]),
            "wilcoxon_statistic": w.statistic, "wilcoxon_p_value": w.p_value,
            "a_wins": w.wins, "ties": w.ties, "b_wins": w.losses,
        })
    rej, thr, padj = adjust([w.p_value for w in wil], alpha, correction)
    for pr, r_, t_, a_ in zip(pairs, rej, thr, padj):
        pr.update({"wilcoxon_threshold": float(t_), "wilcoxon_p_adjusted": float(a_),
                   "wilcoxon_significant": bool(r_)})

    ctrl = None
    if control is not None:
        if control not in methods:
            raise ValueError(f"unknown control {control!r}")
        c = methods.index(control)
        bd = bonferroni_dunn(avg, n, c, alpha, q_digits)
        others = [i for i in range(k) if i != c]
        ws = [wilcoxon_pair(v[:, i], v[:, c], lower_is_better) for i in others]
        crej, cthr, cadj = adjust([w.p_value for w in ws], alpha, correction)
        comps = []
        for idx, i, w, r_, t_, a_ in zip(range(len(others)), others, ws, crej, cthr, cadj):
            comps.append({
                "method": methods[i],
                "rank_difference": float(avg[i] - avg[c]),
                "bd_significant": bool(bd.significant[i] and rejects),
                "bd_p_value": float(bd.p_values[i]), "bd_p_adjusted": float(bd.p_adjusted[i]),
                "wilcoxon_statistic": w.statistic, "wilcoxon_p_value": w.p_value,
                "wilcoxon_threshold": float(t_), "wilcoxon_p_adjusted": float(a_),
                "wilcoxon_significant": bool(r_),
                "method_wins": w.wins, "ties": w.ties, "control_wins": w.losses,
            })
        ctrl = {"method": control, "bd_q": bd.q, "bd_cd": bd.cd, "comparisons": comps}

    return Comparison(methods, datasets, v, lower_is_better, alpha, ranks, avg, fr, q, cd, sig,
                      pn, groups, pairs, correction, ctrl)


def _num(x: float):
    """JSON-safe number: inf/nan become None."""
    x = float(x)
    return x if math.isfinite(x) else None


def _clean(d):
    if isinstance(d, dict):
        return {k: _clean(v) for k, v in d.items()}
    if isinstance(d, (list, tuple)):
        return [_clean(v) for v in d]
    if isinstance(d, (float, np.floating)):
        return _num(d)
    if isinstance(d, np.integer):
        return int(d)
    if isinstance(d, np.bool_):
        return bool(d)
    return d
