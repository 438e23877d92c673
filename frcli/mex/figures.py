"""Figures of the case study: group-influence diagrams (8a Fig. 8, 8b Fig. 3), the time-versus-
RMSE Pareto plot (8a Fig. 6) and FUJI curves (8b Figs. 4-5)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np

from frcli.data.mex.build import GROUPS

COLOURS = {"influx": "#f2b134", "dmop": "#4c72b0", "ftl": "#55a868", "evt": "#c44e52"}
MODEL_COLOURS = {"l-rf": "#4c72b0", "g-rf": "#55a868", "boost": "#c44e52",
                 "g-pct": "#8172b2", "l-pct": "#937860"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt, fig, ax, path: str | Path, title: str) -> Path:
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def group_diagrams(shares: np.ndarray, labels: Sequence[str], path: str | Path,
                   title: str = "", overall: np.ndarray | None = None) -> Path:
    """One pie per target (share of each feature group in its Genie3 total), plus ``all``
    (the global ranking) when given; an empty circle for a constant model."""
    plt = _plt()
    rows = list(shares)
    names = list(labels)
    if overall is not None:
        rows.append(np.asarray(overall))
        names.append("all")
    used = [g for k, g in enumerate(GROUPS) if any(r[k] > 0 for r in rows)]
    n = len(rows)
    cols = min(9, n)
    nr = math.ceil(n / cols)
    fig, axes = plt.subplots(nr, cols, figsize=(1.45 * cols, 1.55 * nr + 0.9))
    axes = np.atleast_1d(axes).ravel()
    for ax in axes[n:]:
        ax.axis("off")
    for ax, r, name in zip(axes, rows, names):
        ax.set_aspect("equal")
        ax.axis("off")
        if r.sum() <= 0:
            ax.add_patch(plt.Circle((0, 0), 1, fill=False, color="#999999", lw=0.8))
            ax.set_xlim(-1.1, 1.1)
            ax.set_ylim(-1.1, 1.1)
        else:
            k = [i for i, g in enumerate(GROUPS) if r[i] > 0]
            ax.pie([r[i] for i in k], colors=[COLOURS[GROUPS[i]] for i in k], startangle=90,
                   counterclock=False, wedgeprops={"linewidth": 0.4, "edgecolor": "white"})
        ax.set_title(name, fontsize=7, pad=1, fontweight="bold" if name == "all" else None)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[g]) for g in used]
    fig.legend(handles, used, loc="lower center", ncol=len(used), fontsize=8, frameon=False)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 0.95 if title else 1))
    path = Path(path)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def pareto_figure(points: Sequence[dict], path: str | Path, title: str = "") -> Path:
    """Learning time (log) against RMSE, one marker per (model, Δt) labelled with Δt; the
    Pareto front joined by a line. ``points``: dicts with model, dt, seconds, rmse, front."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for model in dict.fromkeys(p["model"] for p in points):
        pts = [p for p in points if p["model"] == model]
        ax.scatter([p["rmse"] for p in pts], [p["seconds"] for p in pts], s=36,
                   color=MODEL_COLOURS.get(model, "#333333"), label=model, zorder=3,
                   marker="s")
        for p in pts:
            ax.annotate(str(p["dt"]), (p["rmse"], p["seconds"]), xytext=(4, 3),
                        textcoords="offset points", fontsize=7)
    front = sorted((p for p in points if p.get("front")), key=lambda p: p["rmse"])
    if len(front) > 1:
        ax.plot([p["rmse"] for p in front], [p["seconds"] for p in front], color="#888888",
                lw=0.8, ls="--", zorder=2, label="Pareto front")
    ax.set_yscale("log")
    ax.set_xlabel("RMSE (hourly means, averaged over the targets)")
    ax.set_ylabel("learning time (CPU s, one core)")
    ax.legend(fontsize=8, frameon=False)
    return _save(plt, fig, ax, path, title)


def fuji_figure(curves: dict[str, np.ndarray], path: str | Path, title: str = "") -> Path:
    """FUJI_j against j for one or more pairs of rankings (label → curve)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.0, 3.4))
    for label, c in curves.items():
        j = np.arange(1, len(c) + 1)
        ax.plot(j, c, lw=1.2, label=f"{label} (AUFUJI {float(np.mean(c)):.2f})")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("top j features")
    ax.set_ylabel("FUJI")
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return _save(plt, fig, ax, path, title)
