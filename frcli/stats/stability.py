"""How stable a ranking is: the same method run N more times on resamples of the data.

A ranking is one draw: another seed, or another sample of the rows, may put other features
on top. ``stability`` ranks the data ``runs`` more times and reports, for every feature, its
mean rank and the interval its rank falls in, and how much the runs agree overall: the mean
Spearman correlation of every pair of runs' ranks and the mean FUJI of their top ``top_k``
(``frcli.stats.fuji``: the fuzzy Jaccard index, which also credits a feature just outside
the other run's top k).

Resampling (``resample``):

* ``rows`` (the default): each run takes a new seed and a subsample of ``SUBSAMPLE`` (63.2 %)
  of the rows, drawn without replacement. 63.2 % is the share of distinct rows in a bootstrap
  sample; drawing them without replacement keeps duplicates out, which matters for the
  distance-based rankers: a duplicated row is its own nearest neighbour at distance 0, so in
  a bootstrap sample Relief's near hits would be copies of the row itself. Trees do not mind
  duplicates, but every ranker gets the same subsamples for the same ``seed``, so the
  agreement of two methods on the same data is measured on the same rows. This answers
  "would another sample of the rows give the same top features?", for every ranker.
* ``seeds``: every row, a new seed per run: the method's own randomness only (the trees'
  bootstrap samples and feature choices; Relief's sampled instances when ``iterations`` < 1).
  A deterministic ranking (Relief over every row, the baselines that ignore the seed) gives
  the same ranking every time, which ``Stability.identical`` reports.

The runs are independent rankings one after another, each using ``jobs`` engine threads, so
N runs cost about N rankings (a subsample costs less: 63 % of the rows) and the memory of
one; the results do not depend on ``jobs``.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from frcli.errors import ConfigError
from frcli.rankers.base import MAX_SEED, Ranking

SUBSAMPLE = 0.632          # share of the rows per run (the distinct rows of a bootstrap)
RESAMPLES = ("rows", "seeds")
INTERVAL = (0.05, 0.95)    # the central 90 % of the runs' ranks
TOP_K = 10                 # FUJI of the top 10 features (fewer when there are fewer)
MAX_RUNS = 1000


@dataclass
class Stability:
    """The runs' ranks and what they say (see the module docstring)."""

    runs: int
    resample: str
    fraction: float            # share of the rows per run (1.0 with resample="seeds")
    seeds: list[int]
    ranks: np.ndarray          # (runs, features): each run's ranks, 1 = most important
    top_k: int
    spearman: float            # mean over the pairs of runs
    fuji: float                # mean over the pairs of runs of FUJI at top_k
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def mean_rank(self) -> np.ndarray:
        return self.ranks.mean(axis=0)

    @property
    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) rank of each feature: the central 90 % of its runs' ranks (the
        whole range below 20 runs), as ranks some run gave it."""
        lo = np.quantile(self.ranks, INTERVAL[0], axis=0, method="lower")
        hi = np.quantile(self.ranks, INTERVAL[1], axis=0, method="higher")
        return lo.astype(np.int64), hi.astype(np.int64)

    @property
    def identical(self) -> bool:
        """Every run gave the same ranking (a deterministic method on the same rows)."""
        return bool((self.ranks == self.ranks[0]).all())

    def summary(self) -> str:
        """One line: how many runs of what, and how much they agree."""
        what = (f"{self.fraction:.1%} of the rows and a new seed each" if self.resample == "rows"
                else "every row, a new seed each")
        same = ""
        if self.identical:      # on the same rows, only the seed varied
            same = ("; every run gave the same ranking" + (
                ": the method does not depend on the seed on the same rows (--resample rows "
                "varies the rows)" if self.resample == "seeds" else ""))
        return (f"stability over {self.runs} runs ({what}): mean Spearman "
                f"{_num(self.spearman)}, mean FUJI of the top {self.top_k} {_num(self.fuji)}"
                + same)

    def to_dict(self, feature_names: list[str]) -> dict[str, Any]:
        """JSON-ready; each feature's entry holds its rank in every run."""
        lo, hi = self.interval
        return {
            "runs": self.runs, "resample": self.resample, "fraction": self.fraction,
            "seeds": self.seeds, "top_k": self.top_k, "interval": list(INTERVAL),
            "spearman": _nan_none(self.spearman), "fuji": _nan_none(self.fuji),
            "seconds": self.seconds,
            "features": [{"feature": f, "mean_rank": float(m), "rank_low": int(a),
                          "rank_high": int(b), "ranks": col.tolist()}
                         for f, m, a, b, col in zip(feature_names, self.mean_rank, lo, hi,
                                                    self.ranks.T)],
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], feature_names: list[str]) -> "Stability":
        """Back from ``to_dict`` (a ranking file's ``stability``), its columns in the order
        of ``feature_names``."""
        try:
            by_name = {f["feature"]: f["ranks"] for f in doc["features"]}
            ranks = np.array([by_name[f] for f in feature_names], dtype=np.int64).T
            return cls(runs=int(doc["runs"]), resample=str(doc["resample"]),
                       fraction=float(doc["fraction"]), seeds=list(doc["seeds"]),
                       ranks=ranks.reshape(int(doc["runs"]), len(feature_names)),
                       top_k=int(doc["top_k"]), spearman=_none_nan(doc.get("spearman")),
                       fuji=_none_nan(doc.get("fuji")), seconds=float(doc.get("seconds", 0)))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"a ranking file's 'stability' is incomplete or malformed ({e})"
                              ) from None


def _num(v: float) -> str:
    return "–" if not np.isfinite(v) else f"{v:.3f}"


def _nan_none(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


def _none_nan(v) -> float:
    return float("nan") if v is None else float(v)


def run_seeds(seed: int, runs: int) -> list[int]:
    """The seeds of the runs: drawn from ``seed``, so a rerun repeats them."""
    rng = np.random.default_rng([int(seed), 0x5AB1E])
    return [int(s) for s in rng.integers(0, MAX_SEED, size=runs, dtype=np.int64)]


def subsample(n: int, seed: int, fraction: float = SUBSAMPLE) -> np.ndarray:
    """``ceil(fraction * n)`` of ``range(n)`` without replacement, in their original order
    (so ties between features still go to the first in the data)."""
    m = max(1, int(np.ceil(fraction * n)))
    rng = np.random.default_rng([int(seed), 0x0520])
    return np.sort(rng.choice(n, size=min(m, n), replace=False))


def agreement(importances: np.ndarray, top_k: int) -> tuple[float, float]:
    """(mean Spearman, mean FUJI at ``top_k``) over every pair of rows of ``importances``
    (runs x features); NaN with fewer than 2 runs or 2 features."""
    from frcli.stats.fuji import fuji_at

    runs, n = importances.shape
    if runs < 2 or n < 2:
        return float("nan"), float("nan")
    ranks = np.vstack([_ranks(v) for v in importances]).astype(np.float64)
    # ranks are permutations of 1..n (ties broken by data order): Spearman = Pearson of ranks
    z = ranks - ranks.mean(axis=1, keepdims=True)
    z /= np.sqrt((z * z).sum(axis=1, keepdims=True))
    corr = z @ z.T
    pairs = np.triu_indices(runs, 1)
    fujis = [fuji_at(importances[i], importances[j], top_k) for i, j in zip(*pairs)]
    return float(corr[pairs].mean()), float(np.mean(fujis))


def _ranks(importances: np.ndarray) -> np.ndarray:
    return Ranking("run", [""] * len(importances), importances).ranks()


def stability(dataset, rank_once: Callable[[Any, int], Ranking], *, runs: int, seed: int = 0,
              resample: str = "rows", top_k: int = TOP_K,
              progress: Callable[[int, int], None] | None = None) -> Stability:
    """Rank ``dataset`` ``runs`` more times (``rank_once(data, seed) -> Ranking``: the method
    with its parameters and ``jobs``) on resamples (see the module docstring)."""
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or \
            not 2 <= runs <= MAX_RUNS:
        raise ConfigError(f"stability needs 2..{MAX_RUNS} runs, got {runs!r}")
    if resample not in RESAMPLES:
        from frcli.errors import choices_error

        raise choices_error("resample", resample, RESAMPLES)
    n_features = len(dataset.feature_names)
    top_k = max(1, min(int(top_k), n_features))
    seeds = run_seeds(seed, runs)
    fraction = SUBSAMPLE if resample == "rows" else 1.0
    n = dataset.n_examples
    if resample == "rows" and int(np.ceil(SUBSAMPLE * n)) < 2:
        raise ConfigError(f"{dataset.name}: {n} row(s) are too few to subsample "
                          "(use resample='seeds')")
    t0 = time.perf_counter()
    importances = np.empty((runs, n_features))
    notes: dict[str, None] = {}
    for i, s in enumerate(seeds):
        data = dataset.subset(subsample(n, s)) if resample == "rows" else dataset
        with warnings.catch_warnings(record=True) as caught:   # said once, not N times
            warnings.simplefilter("always")
            r = rank_once(data, s)
        for w in caught:
            notes.setdefault(str(w.message))
        importances[i] = np.nan_to_num(r.importances, nan=-np.inf)
        if progress is not None:
            progress(i + 1, runs)
    for text in notes:
        warnings.warn(f"in the stability runs: {text}", stacklevel=2)
    finite = np.where(np.isfinite(importances), importances, np.nan)
    spearman, fuji = agreement(np.nan_to_num(finite, nan=np.nanmin(finite) if
                                             np.isfinite(finite).any() else 0.0), top_k)
    ranks = np.vstack([_ranks(np.where(np.isfinite(v), v, np.nan)) for v in importances])
    return Stability(runs=runs, resample=resample, fraction=fraction, seeds=seeds,
                     ranks=ranks, top_k=top_k, spearman=spearman, fuji=fuji,
                     seconds=time.perf_counter() - t0)
