"""Parameter plots: average-rank heat maps over a 2-parameter grid and measure-vs-parameter curves.

Input is the tidy frame (one measure) of ``frcli.stats.table``; ``params`` cells are JSON (or
``k=v``). A *configuration* is (method, params); its value per data set is the mean over splits,
rounded like the tables. A *variant* is the method plus the varying params other than the
plotted ones (one heat-map panel, one curve).

* heat map (MTR paper Fig. 6): configurations that have both x and y are ranked together per
  data set (1 = best, ties averaged) and the average rank is shown per (y, x) cell, one panel
  per variant, on a shared colour scale (bright yellow = best);
* curves: the mean value over data sets against a numeric parameter, one line per variant;
  configurations without that parameter (baselines) are drawn as dashed horizontal lines.
"""
from __future__ import annotations

import json
import math
from typing import Sequence

import numpy as np

from frcli.errors import ConfigError

from .cd_diagram import save  # noqa: F401  (one way to write figures)


_SEP = " | "    # method names never contain it; params are JSON after the first one


def _configs(part, round_spec):
    """(per-data-set table: rows data sets, columns config ids, rounded) and config params."""
    import pandas as pd

    from .table import parse_params, parse_round

    if part.empty:
        raise ConfigError("no values to plot")
    _, rounder = parse_round(round_spec)
    df = part.copy()
    df["params"] = df["params"].map(lambda p: json.dumps(parse_params(p), sort_keys=True))
    # one id per (method, params); a printable separator: some pandas string backends
    # (numpy-based, without pyarrow) drop NUL characters
    df["cfg"] = df["method"].astype(str) + _SEP + df["params"]
    wide = df.groupby(["dataset", "cfg"], sort=False)["value"].mean().unstack("cfg")
    wide = wide.dropna(axis=0, how="any")
    if len(wide) < 1:
        raise ConfigError("no data set has a value for every configuration")
    wide = wide.apply(lambda col: col.map(rounder))
    info = {c: (c.split(_SEP, 1)[0], json.loads(c.split(_SEP, 1)[1])) for c in wide.columns}
    return wide, info, pd


def _numeric(v) -> bool:
    try:
        return math.isfinite(float(v)) and not isinstance(v, bool)
    except (TypeError, ValueError):
        return False


def _varying(info) -> dict[str, list]:
    """Params with more than one value across configurations → their sorted values."""
    vals: dict[str, set] = {}
    for _, p in info.values():
        for k, v in p.items():
            vals.setdefault(k, set()).add(json.dumps(v))
    out = {}
    for k, s in vals.items():
        if len(s) > 1:
            vs = [json.loads(x) for x in s]
            out[k] = sorted(vs, key=lambda v: (0, float(v), "") if _numeric(v) else (1, 0, str(v)))
    return out


_MARKERS = "osD^vP*Xph<>"
_DASHES = ((0, (5, 2)), (0, (1, 1.5)), (0, (7, 2, 1.5, 2)), (0, (3, 1.5)),
           (0, (7, 2, 1.5, 2, 1.5, 2)))


def series_style(i: int, *, reference: bool = False) -> dict:
    """Line style of the ``i``-th series of a figure: its own colour, and a hollow marker of
    its own shape (a marker on top of another leaves both visible), or for a reference line
    (a method without the plotted parameter) its own dash pattern and no marker."""
    import matplotlib

    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = colours[i % len(colours)]
    if reference:
        return {"color": colour, "lw": 1.2, "ls": _DASHES[i % len(_DASHES)]}
    return {"color": colour, "lw": 1.3, "marker": _MARKERS[i % len(_MARKERS)], "ms": 5,
            "mfc": "none", "mew": 1.2}


def side_legend(fig, handles, title: str | None = None) -> None:
    """Every series named in one column to the right of the axes, in the order given (the
    callers pass them top to bottom as drawn): labels never overlap each other or the
    lines, whatever the values."""
    if handles:
        fig.legend(handles=handles, loc="outside right upper", fontsize=7, frameon=False,
                   title=title, title_fontsize=7, alignment="left")


def _natural(s: str):
    """Sort key with numbers compared as numbers (neighbours=5 before neighbours=10)."""
    import re
    return [(0, float(t), "") if re.fullmatch(r"\d+(\.\d+)?", t) else (1, 0.0, t)
            for t in re.split(r"(\d+(?:\.\d+)?)", s) if t]


def _check(name, opt, varying):
    if name not in varying:
        raise ConfigError(f"unknown {opt} parameter {name!r}; varying parameters: "
                          + (", ".join(varying) or "none"))


def _variants(info, skip: Sequence[str]) -> dict[str, str]:
    """Config id → the label of its variant: the one label function
    (``frcli.rankers.labels``) applied to the params other than the plotted ones."""
    from frcli.rankers.labels import labels

    ids = list(info)
    rows = [(info[c][0], {k: v for k, v in info[c][1].items() if k not in skip}) for c in ids]
    return dict(zip(ids, labels(rows)))


def heatmap_from_frame(part, *, measure: str, lower_is_better: bool, x: str | None = None,
                       y: str | None = None, round_spec="3", title: str | None = None):
    """Average rank per (y, x) cell, one panel per variant (MTR paper Fig. 6)."""
    from matplotlib.figure import Figure
    from scipy.stats import rankdata

    wide, info, _ = _configs(part, round_spec)
    varying = _varying(info)
    numeric = [k for k, vs in varying.items() if all(_numeric(v) for v in vs)]
    if x is None or y is None:  # the two numeric params with the most values
        cand = sorted(numeric, key=lambda k: -len(varying[k]))
        cand = [k for k in cand if k not in (x, y)]
        if x is None and cand:
            x = cand.pop(0)
        if y is None and cand:
            y = cand.pop(0)
        if x is None or y is None:
            raise ConfigError("a heat map needs two varying parameters (--x, --y); varying: "
                              + (", ".join(varying) or "none"))
    _check(x, "--x", varying)
    _check(y, "--y", varying)
    cols = [c for c in wide.columns if x in info[c][1] and y in info[c][1]]
    if len(cols) < 2:
        raise ConfigError(f"fewer than 2 configurations have both {x} and {y}")
    v = wide[cols].to_numpy(dtype=float)
    ranks = rankdata(v if lower_is_better else -v, axis=1, method="average").mean(axis=0)
    xs, ys = varying[x], varying[y]
    panels: dict[str, np.ndarray] = {}
    names = _variants({c: info[c] for c in cols}, (x, y))
    for c, r in zip(cols, ranks):
        m, p = info[c]
        key = names[c]
        grid = panels.setdefault(key, np.full((len(ys), len(xs)), np.nan))
        grid[ys.index(p[y]), xs.index(p[x])] = r
    n = len(panels)
    ncol = min(n, 3)
    nrow = int(math.ceil(n / ncol))
    cw = max(0.55, min(0.9, 6.0 / len(xs)))
    fig = Figure(figsize=(ncol * (len(xs) * cw + 1.2) + 0.9, nrow * (len(ys) * 0.45 + 1.1) + 0.5),
                 dpi=150, layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrow, ncol, squeeze=False)).ravel()
    lo, hi = np.nanmin(ranks), np.nanmax(ranks)
    im = None
    import matplotlib

    cmap = matplotlib.colormaps["viridis_r"].with_extremes(bad="0.88")  # grey: no such run
    missing = False
    for ax, (name, g) in zip(axes, sorted(panels.items(), key=lambda kv: _natural(kv[0]))):
        im = ax.imshow(np.ma.masked_invalid(g), cmap=cmap, vmin=lo, vmax=hi, aspect="auto",
                       origin="lower")
        ax.set_xticks(range(len(xs)), [str(v) for v in xs], fontsize=8)
        ax.set_yticks(range(len(ys)), [str(v) for v in ys], fontsize=8)
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(name, fontsize=9)
        mid = (lo + hi) / 2
        for (i, j), val in np.ndenumerate(g):
            if np.isfinite(val):
                ax.text(j, i, f"{val:.1f}", ha="center", va="center", fontsize=7,
                        color="black" if val < mid else "white")  # yellow = good
            else:
                missing = True
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=7, color="0.35")
    for ax in axes[n:]:
        ax.axis("off")
    fig.colorbar(im, ax=list(axes[:n]), label=f"average rank ({measure}; 1 = best)", shrink=0.9)
    if title:
        fig.suptitle(title, fontsize=10)
    if missing:
        fig.supxlabel("n/a (grey): no run with these parameters", fontsize=7, color="0.35")
    return fig


def curves_from_frame(part, *, measure: str, lower_is_better: bool, x: str | None = None,
                      y: str | None = None, round_spec="3", title: str | None = None):
    """Mean value over data sets against numeric parameter ``x``, one line per variant."""
    from matplotlib.figure import Figure

    wide, info, _ = _configs(part, round_spec)
    varying = _varying(info)
    numeric = [k for k, vs in varying.items() if all(_numeric(v) for v in vs)]
    if x is None:
        if not numeric:
            raise ConfigError("curves need a varying numeric parameter (--x); varying: "
                              + (", ".join(varying) or "none"))
        x = max(numeric, key=lambda k: len(varying[k]))
    _check(x, "--x", varying)
    if x not in numeric:
        raise ConfigError(f"--x {x!r} is not numeric; numeric parameters: "
                          + (", ".join(numeric) or "none"))
    means = wide.mean(axis=0)
    lines: dict[str, list] = {}
    flat: dict[str, float] = {}
    names = _variants(info, (x,))
    for c, mval in means.items():
        m, p = info[c]
        key = names[c]
        if x in p:
            lines.setdefault(key, []).append((float(p[x]), float(mval)))
        else:
            flat[key] = float(mval)
    fig = Figure(figsize=(8.0, 4.0), dpi=150, layout="constrained")
    ax = fig.subplots()
    drawn = []
    for i, (key, pts) in enumerate(sorted(lines.items(), key=lambda kv: _natural(kv[0]))):
        pts.sort()
        drawn.append((pts[-1][1], ax.plot([a for a, _ in pts], [b for _, b in pts],
                                          label=key, zorder=3, **series_style(i))[0]))
    for j, (key, val) in enumerate(sorted(flat.items(), key=lambda kv: _natural(kv[0]))):
        drawn.append((val, ax.axhline(val, label=key, zorder=2,
                                      **series_style(len(lines) + j, reference=True))))
    side_legend(fig, [h for _, h in sorted(drawn, key=lambda d: -d[0])],
                title=f"dashed: methods without {x}" if flat else None)
    vals = [float(v) for v in varying[x]]
    if min(vals) > 0 and max(vals) / min(vals) >= 20:
        ax.set_xscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(f"mean {measure} over {len(wide)} data set{'s' if len(wide) != 1 else ''}\n"
                  f"({'lower' if lower_is_better else 'higher'} is better)")
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    return fig
