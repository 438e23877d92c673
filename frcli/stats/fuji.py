"""The Fuzzy Jaccard Index (FUJI) of two score lists and the ReliefE paper's AUFUJI heat maps
(the ReliefE paper's definition and its Figs. 11-12).

For positive scores f^1, f^2 over the same items and j = 1..n, with F^i_j the top-j items of
list i (ties: the lower index first) and the membership μ(x, F^i_j) = 1 inside it and
f^i(x) / f^i_(j) (the j-th largest score) outside,

    FUJI_j = Σ_x min(μ(x, F^1_j), μ(x, F^2_j)) / Σ_x max(μ(x, F^1_j), μ(x, F^2_j))

(x over F^1_j ∪ F^2_j). FUJI_j(f, f) = 1, FUJI is symmetric, in [0, 1]
and unchanged when a list is multiplied by a positive constant. AUFUJI is the mean of FUJI_j
over j (1 for identical lists). Scores ≤ 0 (Relief weights can be negative) are shifted to be
positive first, s - min(s) + 1e-9·max(1, range), which keeps the order (FUJI assumes
positive scores).

The paper compares "pairs of curves comprised of (rF1, top f) tuples": the items are the grid
points f and the scores a ranking's rF1 values there. ``aufuji_matrix`` averages AUFUJI over
data sets and splits for every pair of methods.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def _positive(s: np.ndarray) -> np.ndarray:
    s = np.nan_to_num(np.asarray(s, dtype=np.float64), nan=0.0)
    if s.size and s.min() <= 0:
        rg = float(s.max() - s.min())
        s = s - s.min() + 1e-9 * max(1.0, rg)
    return s


def fuji_curve(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    """FUJI_j for j = 1..n (see the module docstring)."""
    a, b = _positive(a), _positive(b)
    n = a.size
    if b.size != n:
        raise ValueError("the two lists must score the same items")
    oa = np.argsort(-a, kind="stable")
    ob = np.argsort(-b, kind="stable")
    rank_a = np.empty(n, dtype=np.int64)
    rank_b = np.empty(n, dtype=np.int64)
    rank_a[oa] = np.arange(n)
    rank_b[ob] = np.arange(n)
    out = np.empty(n)
    for j in range(1, n + 1):
        in_a = rank_a < j
        in_b = rank_b < j
        ma = np.where(in_a, 1.0, a / a[oa[j - 1]])
        mb = np.where(in_b, 1.0, b / b[ob[j - 1]])
        u = in_a | in_b
        out[j - 1] = np.minimum(ma[u], mb[u]).sum() / np.maximum(ma[u], mb[u]).sum()
    return out


def aufuji(a: Sequence[float], b: Sequence[float]) -> float:
    """Mean of the FUJI curve (1 for identical lists)."""
    c = fuji_curve(a, b)
    return float(c.mean()) if c.size else float("nan")


def curve_columns(df, prefix: str = "rf1") -> list[str]:
    """The ``<prefix>@<f>`` measures of a tidy frame, by increasing f."""
    cols = [m for m in dict.fromkeys(df["measure"]) if str(m).startswith(prefix + "@")]
    return sorted(cols, key=lambda m: int(str(m).split("@", 1)[1]))


def aufuji_matrix(df, labels: Sequence[str], datasets: Sequence[str], prefix: str = "rf1"
                  ) -> np.ndarray:
    """Mean AUFUJI of every pair of methods' ``prefix`` curves over data sets and splits (a tidy
    frame with a ``label`` column); NaN where two methods share no (data set, split)."""
    cols = curve_columns(df, prefix)
    if not cols:
        from frcli.errors import ConfigError

        raise ConfigError(f"no {prefix}@<f> curves in the sources (a top-f evaluation, "
                          "evaluation kind: topf, writes them)")
    sub = df[df["measure"].isin(cols) & df["label"].isin(labels) & df["dataset"].isin(datasets)]
    piv = sub.pivot_table(index=["dataset", "split", "label"], columns="measure",
                          values="value", aggfunc="mean").reindex(columns=cols)
    k = len(labels)
    tot = np.zeros((k, k))
    cnt = np.zeros((k, k))
    for (_ds, _sp), part in piv.groupby(level=[0, 1]):
        curves = {lab: row.to_numpy() for (_, _, lab), row in part.iterrows()
                  if not np.isnan(row.to_numpy()).all()}
        for i, li in enumerate(labels):
            for j in range(i, k):
                lj = labels[j]
                if li in curves and lj in curves:
                    v = aufuji(curves[li], curves[lj])
                    tot[i, j] += v
                    cnt[i, j] += 1
    with np.errstate(invalid="ignore"):
        m = tot / cnt
    return np.where(np.triu(np.ones((k, k), bool)), m, m.T)


def heatmap_figure(matrix: np.ndarray, labels: Sequence[str], title: str = ""):
    """Lower triangle of the AUFUJI matrix, annotated (the paper's Figs. 11-12)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(labels)
    mask = np.triu(np.ones((k, k), bool), 1)
    shown = np.ma.array(matrix, mask=mask | np.isnan(matrix))
    size = max(4.0, 0.55 * k + 2)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    im = ax.imshow(shown, cmap="coolwarm", vmin=np.nanmin(matrix) if k else 0, vmax=1.0)
    for i in range(k):
        for j in range(i + 1):
            if not np.isnan(matrix[i, j]):
                ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(k), labels, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(k), labels, fontsize=8)
    fig.colorbar(im, ax=ax, shrink=0.8, label="AUFUJI")
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def time_figure(df, labels: Sequence[str], datasets: Sequence[str],
                measure: str = "rank_time_s", title: str = ""):
    """Ranking time per method: the mean over data sets of the per-data-set mean (bar, log
    scale), ± the standard deviation over data sets, and each data set's mean (dots); the
    paper's Figs. 6 and 9. ``df``: a tidy frame with times as a measure and a ``label``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sub = df[(df["measure"] == measure) & df["label"].isin(labels)
             & df["dataset"].isin(datasets)]
    per = sub.groupby(["label", "dataset"])["value"].mean().unstack("dataset")
    per = per.reindex(index=list(labels))
    mean = per.mean(axis=1)
    sd = per.std(axis=1, ddof=0)
    order = list(mean.sort_values().index)
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(order) + 1.4))
    y = np.arange(len(order))
    ax.barh(y, mean[order], xerr=sd[order], color="#9ecae1", ecolor="#444444", capsize=3)
    for i, lab in enumerate(order):
        vals = per.loc[lab].dropna().to_numpy()
        ax.scatter(vals, np.full(vals.size, i), s=9, color="#08519c", zorder=3)
    ax.set_yticks(y, order, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel(f"{measure} (mean over {per.shape[1]} data sets ± sd; dots: data sets)")
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
