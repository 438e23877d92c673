"""Critical-difference (average-rank) diagrams in the papers' style (Demšar 2006).

Axis 1..k with the best rank on the left; every method hangs from its average rank by an elbow
line to its name (better half on the left, worse half on the right, no crossing lines); the
CD bar sits above the axis; thick bars below the axis join the maximal groups of methods whose
ranks differ by at most the CD (a group is never contained in another, and bars sharing a
row never overlap). When the Friedman test does not reject, one bar joins every method and
no CD is drawn. The Bonferroni–Dunn variant draws the control's interval R_c ± CD instead.

Everything is laid out in inches from measured text widths, so 2..30 methods with long names
stay readable. Uses the Agg backend only (no display needed).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

FONT = 9.0        # method names (points)
SMALL = 7.5       # ticks, ranks, notes
ROW = 0.21        # inches between label rows
BAR_ROW = 0.1     # inches between group-bar rows
MAX_LABEL = 48    # longer names are shortened with an ellipsis (the tables keep them whole)


def _text_width(s: str, size: float) -> float:
    """Width of ``s`` in inches as the Agg renderer draws it."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    r = _text_width.renderer
    if r is None:
        r = _text_width.renderer = RendererAgg(10, 10, 72)
    w, _, _ = r.get_text_width_height_descent(s, FontProperties(size=size), ismath=False)
    return w / 72.0


_text_width.renderer = None


def _short(s: str, limit: int = MAX_LABEL) -> str:
    """Ellipsis in the middle: parameter variants differ at the end of their names."""
    if len(s) <= limit:
        return s
    head = (limit - 1) * 3 // 5
    return s[:head] + "…" + s[len(s) - (limit - 1 - head):]


def short_names(names: Sequence[str]) -> list[str]:
    """Shortened names that stay distinct (the limit grows until they do)."""
    names = [str(n) for n in names]
    limit = MAX_LABEL
    while True:
        out = [_short(n, limit) for n in names]
        if len(set(out)) == len(set(names)) or limit >= max(map(len, names)):
            return out
        limit += 8


def bar_rows(intervals: Sequence[tuple[float, float]], gap: float) -> list[int]:
    """Row per interval so that intervals on one row are ≥ ``gap`` apart (greedy, optimal)."""
    order = sorted(range(len(intervals)), key=lambda i: (intervals[i][0], intervals[i][1]))
    ends: list[float] = []
    rows = [0] * len(intervals)
    for i in order:
        a, b = intervals[i]
        for r, e in enumerate(ends):
            if a > e + gap:
                ends[r] = b
                rows[i] = r
                break
        else:
            ends.append(b)
            rows[i] = len(ends) - 1
    return rows


def cd_diagram(methods: Sequence[str], avg_ranks: Sequence[float], *, cd: float | None,
               groups: Sequence[tuple[int, int]] | None = None, friedman_p: float | None = None,
               alpha: float = 0.05, title: str | None = None, control: str | None = None,
               bd_cd: float | None = None, test_name: str = "Nemenyi"):
    """Draw the diagram and return the matplotlib Figure.

    ``groups`` are (first, last) positions in increasing-rank order (see
    ``tests.nonsignificant_groups``); ``cd=None`` means Friedman did not reject (everything is
    joined, no CD bar). With ``control`` and ``bd_cd`` the Bonferroni–Dunn variant is drawn.
    """
    from matplotlib.figure import Figure

    r = np.asarray(avg_ranks, dtype=float)
    k = r.size
    if k < 2 or len(methods) != k:
        raise ValueError("need at least 2 methods with one rank each")
    order = np.argsort(r, kind="stable")
    short = short_names(methods)
    names = [short[i] for i in order]
    rs = r[order]
    lo, hi = 1, max(k, int(math.ceil(rs.max())))
    n_left = int(math.ceil(k / 2))
    from frcli.display import cd as fmt_cd
    from frcli.display import rank as fmt_rank

    rank_fmt = _Fmt(fmt_rank)

    # --- horizontal layout (inches)
    axis_w = float(np.clip(0.42 * (hi - lo) + 1.6, 3.2, 9.5))
    lab_l = [f"{names[i]}  {rank_fmt.format(rs[i])}" for i in range(n_left)]
    lab_r = [f"{rank_fmt.format(rs[i])}  {names[i]}" for i in range(n_left, k)]
    wl = max([_text_width(s, FONT) for s in lab_l] + [0.3])
    wr = max([_text_width(s, FONT) for s in lab_r] + [0.3])
    pad, elbow = 0.12, 0.18
    x0 = pad + wl + 0.06 + elbow  # where rank 1 sits
    width = x0 + axis_w + elbow + 0.06 + wr + pad

    def X(rank):
        return x0 + (rank - lo) / (hi - lo) * axis_w

    # --- what goes below the axis
    bd = control is not None and bd_cd is not None and cd is not None
    if bd:
        bars = []
    elif cd is None:
        bars = [(0, k - 1)]
    else:
        bars = [g for g in (groups or []) if g[1] > g[0]]
    ext = 0.06  # bars stick out a little beyond the ranks they join (inches)
    spans = [(X(rs[a]) - ext, X(rs[b]) + ext) for a, b in bars]
    rows = bar_rows(spans, gap=0.05)
    n_bar_rows = (max(rows) + 1) if rows else (1 if bd else 0)

    # --- vertical layout (inches, y grows upwards)
    notes = []
    if friedman_p is not None:
        verdict = "reject" if cd is not None else "no significant differences"
        notes.append(f"Iman–Davenport p = {_p(friedman_p)} ({verdict} at α = {alpha:g})")
    if control is not None and bd_cd is not None and cd is not None:
        notes[-1:] = [notes[-1] + f"; red bar: {_short(str(control))} ± CD"] if notes else []
    head = 0.0
    if title:
        head += 0.28
    if notes:
        head += 0.2
    cd_h = 0.42 if cd is not None else 0.0
    tick_h = 0.22
    top = 0.1 + head + cd_h + tick_h
    y_axis = 0.0
    first_bar = -0.13
    labels_top = first_bar - n_bar_rows * BAR_ROW - 0.12
    n_rows = max(n_left, k - n_left)
    bottom = labels_top - (n_rows - 1) * ROW - 0.2
    height = top - bottom

    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(bottom, top)
    ax.axis("off")
    txt = dict(parse_math=False, fontsize=SMALL)

    # title and notes
    y = top - 0.1
    if title:
        ax.text(width / 2, y, title, ha="center", va="top", fontsize=FONT + 1, parse_math=False)
        y -= 0.28
    if notes:
        ax.text(width / 2, y, notes[0], ha="center", va="top", color="0.3", **txt)
        y -= 0.2

    # the axis with ticks at integers and half-integers
    ax.plot([X(lo), X(hi)], [y_axis, y_axis], color="k", lw=1.0)
    step = 1 if hi - lo <= 20 else 2
    for t in range(lo, hi + 1):
        big = (t - lo) % step == 0 or t in (lo, hi)
        ax.plot([X(t), X(t)], [y_axis, y_axis + (0.07 if big else 0.045)], color="k", lw=0.8)
        if big:
            ax.text(X(t), y_axis + 0.09, str(t), ha="center", va="bottom", **txt)
    for t in np.arange(lo + 0.5, hi, 1.0):
        ax.plot([X(t), X(t)], [y_axis, y_axis + 0.035], color="k", lw=0.6)

    # CD bar (Nemenyi) or the Bonferroni–Dunn width, above the ticks at the left
    if cd is not None:
        shown = bd_cd if bd else cd
        yc = y_axis + tick_h + 0.12
        end = min(lo + shown, hi)
        ax.plot([X(lo), X(end)], [yc, yc], color="k", lw=1.2)
        for xx in (X(lo), X(end)):
            ax.plot([xx, xx], [yc - 0.04, yc + 0.04], color="k", lw=1.0)
        label = f"CD = {fmt_cd(shown)}" + (" (Bonferroni–Dunn)" if bd else "")
        if lo + shown > hi:
            label += " — larger than the axis"
        ax.text(X(lo), yc + 0.06, label, ha="left", va="bottom", **txt)

    # group bars
    for (a, b), (xa, xb), row in zip(bars, spans, rows):
        yb = first_bar - row * BAR_ROW
        ax.plot([xa, xb], [yb, yb], color="k", lw=3.0, solid_capstyle="butt")

    # Bonferroni–Dunn interval around the control; an end beyond the axis is cut there and
    # marked by an arrow head pointing on (the interval goes further than the ranks do)
    ci = None
    if bd:
        ci = list(methods).index(control)
        rc = r[ci]
        a, b = max(lo, rc - bd_cd), min(hi, rc + bd_cd)
        yb = first_bar
        ax.plot([X(a), X(b)], [yb, yb], color="tab:red", lw=3.0, solid_capstyle="butt")
        ax.plot([X(rc)], [yb], marker="o", color="tab:red", ms=4)
        for end, cut, mark in ((a, rc - bd_cd < lo, "<"), (b, rc + bd_cd > hi, ">")):
            if cut:
                ax.plot([X(end) + (-0.05 if mark == "<" else 0.05)], [yb], marker=mark,
                        color="tab:red", ms=6, clip_on=False)

    # elbow lines and names; near-equal ranks get their vertical lines spread apart (a short
    # slanted start from the exact rank on the axis), so they never merge into one thick line
    xs = leader_positions([X(v) for v in rs], LEADER_GAP)
    y_bend = y_axis - 0.1
    for i in range(k):
        left = i < n_left
        row = i if left else k - 1 - i
        yl = labels_top - row * ROW
        xr = X(rs[i])
        xv = xs[i]
        xe = X(lo) - elbow if left else X(hi) + elbow
        is_ctrl = bd and order[i] == ci
        color = "tab:red" if is_ctrl else "k"
        if abs(xv - xr) > 1e-9:
            ax.plot([xr, xv, xv, xe], [y_axis, y_bend, yl, yl], color=color, lw=0.8)
        else:
            ax.plot([xr, xr, xe], [y_axis, yl, yl], color=color, lw=0.8)
        s = lab_l[i] if left else lab_r[i - n_left]
        ax.text(xe + (-0.06 if left else 0.06), yl, s, ha="right" if left else "left",
                va="center", fontsize=FONT, parse_math=False, color=color,
                fontweight="bold" if is_ctrl else "normal")
    fig.set_dpi(150)
    return fig


LEADER_GAP = 0.07   # inches between the vertical leader lines of near-equal ranks


def leader_positions(x: Sequence[float], gap: float) -> list[float]:
    """x of each method's vertical leader line (methods in rank order, so ``x`` is sorted):
    as close to the exact ranks as possible (least squares) with lines at least ``gap``
    apart, in the same order (so no lines cross).

    With z_t = y_t - gap·t the constraint y_t ≥ y_(t-1) + gap becomes z non-decreasing, so the
    answer is the isotonic regression of x_t - gap·t (pool-adjacent-violators) plus gap·t;
    ranks already ``gap`` apart stay where they are.
    """
    blocks: list[list[float]] = []          # [sum, count] of pooled targets
    for t, v in enumerate(x):
        blocks.append([v - gap * t, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s_, c_ = blocks.pop()
            blocks[-1][0] += s_
            blocks[-1][1] += c_
    z = [b[0] / b[1] for b in blocks for _ in range(int(b[1]))]
    return [zt + gap * t for t, zt in enumerate(z)]


class _Fmt:
    """``"{:.2f}".format``-like wrapper around a display function."""

    def __init__(self, fn):
        self.fn = fn

    def format(self, v) -> str:
        return self.fn(v)


def _p(p: float) -> str:
    from frcli.display import p_value

    return p_value(p)


def save(fig, stem, formats: Sequence[str] = ("png", "pdf")) -> list[str]:
    """Write ``stem.<fmt>`` for each format (Agg canvas); return the paths."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    out = []
    for f in formats:
        path = f"{stem}.{f}"
        fig.savefig(path, dpi=150 if f == "png" else None, facecolor="white")
        out.append(path)
    return out
