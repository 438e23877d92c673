"""The picture of one ranking (``frcli rank --plot``, ``frcli report ranking.json``).

Panels side by side, one row per feature, the most important at the top:

* the importances of the top ``top`` features as bars (all of them when there are few; a
  note under the figure says how many are left out otherwise, so 30 or 3,000 features give
  a figure of the same size);
* with a stability analysis (``frcli.stats.stability``): each feature's mean rank over the
  runs (dot) and the central 90 % of its ranks (line), on a log axis when ranks reach past
  50, and the runs' agreement (Spearman, FUJI) in the panel's title;
* for multi-target data (mtr, mlc, hmlc) with per-target importances: a heat map of the top
  features' importance for each target, each target's column scaled by its largest
  absolute importance (so a target with small importances is as readable as one with large
  ones); past ``MAX_TARGETS`` targets, those where the shown features matter most, with a
  note.

Names longer than ``MAX_NAME`` characters are shortened with an ellipsis in the middle (the
start and the end of a name usually tell features apart).
"""
from __future__ import annotations

import textwrap
from typing import Sequence

import numpy as np

from frcli.rankers.base import Ranking

TOP = 30             # features drawn by default
MAX_TARGETS = 40     # heat-map columns
MAX_NAME = 32        # characters of a feature or target name
MULTI_TARGET = ("mtr", "mlc", "hmlc")


def short(name: str, limit: int = MAX_NAME) -> str:
    """``name``, or its start and end around an ellipsis when longer than ``limit``."""
    if len(name) <= limit:
        return name
    head = (limit - 1) // 2 + (limit - 1) % 2
    return name[:head] + "…" + name[len(name) - (limit - 1 - head):]


def _targets_shown(per: np.ndarray, rows: np.ndarray, limit: int) -> np.ndarray:
    """Target indices for the heat map: every one, or the ``limit`` where the shown
    features' scaled importances add up to most (in data order)."""
    if per.shape[0] <= limit:
        return np.arange(per.shape[0])
    weight = np.nansum(np.abs(per[:, rows]), axis=1)
    return np.sort(np.argsort(-weight, kind="stable")[:limit])


def _scaled(per: np.ndarray) -> np.ndarray:
    """Each target's importances divided by its largest absolute one (0 for a target
    without any)."""
    top = np.nanmax(np.abs(per), axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(top > 0, per / np.where(top > 0, top, 1.0), 0.0)


def ranking_figure(ranking: Ranking, *, top: int = TOP, title: str | None = None,
                   task: str | None = None):
    """The figure of ``ranking`` (see the module docstring); ``ranking.stability`` adds the
    rank-interval panel. ``task`` (default: the ranking's ``meta["task"]``) decides whether
    per-target importances are drawn as a heat map."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from frcli.rankers.labels import header_label

    names = list(ranking.feature_names)
    n = len(names)
    order = ranking.order()[:max(1, min(top, n))]
    k = len(order)
    stab = getattr(ranking, "stability", None)
    task = task or ranking.meta.get("task")
    per = ranking.per_target
    heat = (per is not None and task in MULTI_TARGET and np.asarray(per).ndim == 2
            and np.asarray(per).shape[0] >= 1)
    cols = None
    if heat:
        per = _scaled(np.asarray(per, dtype=np.float64))
        cols = _targets_shown(per, order, MAX_TARGETS)

    name_w = max(len(short(names[i])) for i in order)
    widths = [4.2]
    if stab is not None:
        widths.append(3.0)
    if heat:
        widths.append(max(1.6, 0.24 * len(cols) + 1.0))
    label_in = 0.085 * name_w + 0.3            # inches of the y labels (≈ 8 pt font)
    tlabels = [short(t, 18) for t in (ranking.target_names or
                                      [f"target{j + 1}" for j in range(len(per))])] \
        if heat else []
    col_in = 0.075 * max([len(t) for t in (tlabels[j] for j in cols)] + [6]) if heat else 0.0
    bottom_in = max(col_in + 0.2, 0.55) + 0.3     # x labels, rotated target names, the note
    right_in = 1.0 if heat else 0.25                # the colour bar and its label
    width = label_in + sum(widths) + 0.5 * len(widths) + right_in
    label = header_label(ranking.method, ranking.params, task,
                         bool(ranking.meta.get("semi_supervised")))
    heading = textwrap.fill(title or label, width=int(width * 11), break_on_hyphens=False)
    lines = heading.count("\n") + 1
    top_in = 0.5 + 0.15 * lines                      # the heading, then the panel titles
    height = 0.24 * k + 0.1 + top_in + bottom_in
    fig = Figure(figsize=(width, height))
    gs = fig.add_gridspec(1, len(widths), width_ratios=widths,
                          left=label_in / fig.get_figwidth(),
                          right=1 - right_in / fig.get_figwidth(),
                          top=1 - top_in / height, bottom=bottom_in / height,
                          wspace=0.08 + (0.12 if heat else 0.0))
    y = np.arange(k)

    # -- importances ---------------------------------------------------------------------
    ax = fig.add_subplot(gs[0, 0])
    imp = ranking.importances[order]
    ax.barh(y, np.nan_to_num(imp), color="#4c72b0", height=0.7)
    ax.set_yticks(y, [short(names[i]) for i in order], fontsize=8)
    ax.set_ylim(k - 0.5, -0.5)
    ax.axvline(0.0, color="#333333", lw=0.6)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", color="#dddddd", lw=0.5)
    ax.set_axisbelow(True)
    ax.set_title("importance (every row)" if stab is not None else "importance", fontsize=9)
    panel = 1

    # -- stability -----------------------------------------------------------------------
    if stab is not None:
        axs = fig.add_subplot(gs[0, panel], sharey=ax)
        panel += 1
        lo, hi = stab.interval
        mean = stab.mean_rank
        axs.hlines(y, lo[order], hi[order], color="#dd8452", lw=2.2)
        axs.plot(mean[order], y, "o", color="#8c3b0c", ms=4)
        far = float(max(hi[order].max(), mean[order].max()))
        if far > 50:
            axs.set_xscale("log")
            axs.set_xlim(0.8, far * 1.3)
        else:
            axs.set_xlim(0.5, far + 1.0)
        axs.tick_params(axis="y", left=False, labelleft=False)
        axs.tick_params(axis="x", labelsize=8)
        axs.grid(axis="x", color="#dddddd", lw=0.5)
        axs.set_axisbelow(True)
        axs.set_xlabel(f"rank in {stab.runs} runs: mean (dot), 90 % interval", fontsize=8)
        axs.set_title(f"Spearman {_fmt(stab.spearman)}, FUJI@{stab.top_k} "
                      f"{_fmt(stab.fuji)}", fontsize=9)

    # -- per-target heat map ---------------------------------------------------------------
    if heat:
        axh = fig.add_subplot(gs[0, panel], sharey=ax)
        block = per[np.ix_(cols, order)].T
        signed = bool((block < 0).any())
        im = axh.imshow(block, aspect="auto", interpolation="nearest",
                        cmap="RdBu_r" if signed else "viridis",
                        vmin=-1.0 if signed else 0.0, vmax=1.0)
        axh.set_xticks(np.arange(len(cols)), [tlabels[j] for j in cols], rotation=90,
                       fontsize=7)
        axh.tick_params(axis="y", left=False, labelleft=False)
        axh.set_title("per target", fontsize=9)
        heat_in = widths[-1] * (fig.get_figwidth() - label_in - right_in) / (
            sum(widths) + 0.5 * len(widths))       # about: the heat map's width in inches
        cax = axh.inset_axes([1.0 + 0.12 / heat_in, 0.0, 0.14 / heat_in, 1.0])
        cb = fig.colorbar(im, cax=cax)
        cb.ax.tick_params(labelsize=7)
        cb.set_label("importance / the target's largest", fontsize=7)

    fig.suptitle(heading, fontsize=10 if lines == 1 else 9, x=0.5,
                 y=1 - 0.12 / height, va="top")
    notes = []
    if k < n:
        notes.append(f"top {k} of {n:,} features; {n - k:,} more not shown")
    if heat and len(cols) < per.shape[0]:
        notes.append(f"{len(cols)} of {per.shape[0]:,} targets: those where these features "
                     "matter most")
    if notes:
        fig.text(0.01, 0.12 / height, "; ".join(notes), fontsize=8, color="#444444",
                 ha="left", va="bottom")
    return fig


def _fmt(v: float) -> str:
    return "–" if not np.isfinite(v) else f"{v:.2f}"


def save_figure(fig, path) -> str:
    """Write ``fig`` to ``path`` (PNG at 150 dpi, or PDF/SVG by the suffix), without its
    empty margins."""
    from pathlib import Path

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    # cropped to what is drawn: the margins are sized for the longest names and rotated
    # target names, which most rankings do not have
    fig.savefig(path, dpi=150 if path.suffix.lower() == ".png" else None, facecolor="white",
                bbox_inches="tight", pad_inches=0.15)
    return str(path)


def plot_formats() -> Sequence[str]:
    return (".png", ".pdf", ".svg")
