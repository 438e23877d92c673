"""Evaluation of the case study (8a §Evaluation, spec §B8): plain RMSE per target averaged over
the targets, on a time-ordered split; group shares of the rankings; the Pareto front.

RMSE is computed on hourly means of observations and predictions (the challenge and 8a judge
hourly values, §G-M5) and, for reference, at the data's own Δt. Targets are not normalised.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from frcli.data.mex.build import GROUPS, feature_groups

HOUR_MS = 3_600_000


def split_at(times: np.ndarray, test_from: int | None, share: float = 0.25) -> np.ndarray:
    """True for the test rows: from ``test_from`` (ms) on, else the last ``share`` of the
    time span."""
    times = np.asarray(times)
    if times.size == 0:
        return np.zeros(0, bool)
    if test_from is None:
        test_from = int(times[0] + (1 - share) * (times[-1] - times[0]))
    return times >= test_from


def hourly(times: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hour keys and the NaN-aware mean of the rows of each hour."""
    h = np.asarray(times) // HOUR_MS
    keys, inv = np.unique(h, return_inverse=True)
    out = np.full((keys.size, Y.shape[1]), np.nan)
    for j in range(Y.shape[1]):
        ok = np.isfinite(Y[:, j])
        s = np.bincount(inv[ok], weights=Y[ok, j], minlength=keys.size)
        c = np.bincount(inv[ok], minlength=keys.size)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, j] = np.where(c > 0, s / np.maximum(c, 1), np.nan)
    return keys, out


def rmse_per_target(Y: np.ndarray, P: np.ndarray) -> np.ndarray:
    """RMSE of every target over the rows where it is known."""
    out = np.full(Y.shape[1], np.nan)
    for j in range(Y.shape[1]):
        ok = np.isfinite(Y[:, j]) & np.isfinite(P[:, j])
        if ok.any():
            out[j] = float(np.sqrt(np.mean((Y[ok, j] - P[ok, j]) ** 2)))
    return out


def rmse(times: np.ndarray, Y: np.ndarray, P: np.ndarray, *, hour: bool = True
         ) -> tuple[float, np.ndarray]:
    """(mean over targets, per target) RMSE, on hourly means when ``hour``."""
    if hour:
        _, Y = hourly(times, Y)
        _, P = hourly(times, P)
    per = rmse_per_target(Y, P)
    return float(np.nanmean(per)), per


def group_shares(importances: np.ndarray, feature_names: Sequence[str]) -> np.ndarray:
    """(rows, groups) share of every group (GROUPS order) in each row's total importance;
    a row with no importance at all (a constant model) is all zeros (an empty diagram)."""
    imp = np.atleast_2d(np.maximum(np.asarray(importances, dtype=np.float64), 0.0))
    g = feature_groups(feature_names)
    out = np.zeros((imp.shape[0], len(GROUPS)))
    for k in range(len(GROUPS)):
        out[:, k] = imp[:, g == k].sum(axis=1)
    tot = out.sum(axis=1, keepdims=True)
    return np.divide(out, tot, out=np.zeros_like(out), where=tot > 0)


def dominant(shares: np.ndarray) -> list[str | None]:
    """The largest group of every row (None for an empty diagram)."""
    return [GROUPS[int(np.argmax(r))] if r.sum() > 0 else None for r in shares]


def recovered(shares: np.ndarray, targets: Sequence[str], truth: dict[str, str]
              ) -> dict[str, bool]:
    """For every target with a planted group: is that group the largest of its diagram?"""
    dom = dominant(shares)
    return {t: dom[i] == truth[t] for i, t in enumerate(targets) if t in truth}


def pareto(points: Sequence[tuple[float, float]]) -> list[bool]:
    """Non-dominated points of (time, error) pairs, both to be minimised."""
    out = []
    for i, (t, e) in enumerate(points):
        dom = any((t2 <= t and e2 <= e) and (t2 < t or e2 < e)
                  for j, (t2, e2) in enumerate(points) if j != i)
        out.append(not dom)
    return out
