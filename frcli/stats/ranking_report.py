"""``frcli report RANKING.json``: one ranking file (``frcli rank -o r.json``) as one page.

The same picture as ``frcli rank --plot`` (``frcli.stats.ranking_plot``: the top features'
importances, their rank intervals when the file holds a stability analysis, the per-target
heat map for multi-target data), the top features as a table, how stable the ranking is,
and every parameter the method used. Like the experiment report (``frcli.stats.report``,
whose style and helpers it shares) the file is self-contained: the figure is an embedded
PNG, so it opens offline, anywhere.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from frcli import display
from frcli.errors import ConfigError
from frcli.rankers.base import Ranking
from frcli.stats.ranking_plot import TOP, ranking_figure
from frcli.stats.report import esc, figure_png, page, table

TABLE_ROWS = 50        # rows of the table of top features


def read_rankings(path: str | Path) -> tuple[list[Ranking], str]:
    """The rankings of a ``frcli rank`` JSON file (one, or a grid's ``rankings``) and the
    data set's name (empty when the file does not say)."""
    from frcli.stats.stability import Stability

    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read it ({e})") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: not JSON (line {e.lineno}: {e.msg})") from None
    docs = doc.get("rankings", [doc]) if isinstance(doc, dict) else None
    out = []
    for d in docs or [None]:
        if not isinstance(d, dict) or not isinstance(d.get("features"), list):
            raise ConfigError(f"{path}: not a ranking file of frcli rank (expected a "
                              "'features' list; write one with frcli rank ... -o r.json)")
        try:
            names = [str(f["feature"]) for f in d["features"]]
            imp = np.array([np.nan if f["importance"] is None else float(f["importance"])
                            for f in d["features"]])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{path}: a feature entry lacks {e} (expected feature, "
                              "importance, rank)") from None
        per, targets = _per_target(d.get("per_target"), names)
        r = Ranking(str(d.get("method", "?")), names, imp, dict(d.get("params") or {}),
                    per_target=per, target_names=targets, timings=dict(d.get("timings") or {}),
                    meta=dict(d.get("meta") or {}))
        if d.get("stability"):
            r.stability = Stability.from_dict(d["stability"], names)
        out.append(r)
    name = doc.get("dataset") or (docs[0].get("dataset") if docs else "") or ""
    return out, str(name)


def _per_target(per: Any, names: list[str]) -> tuple[np.ndarray | None, list[str] | None]:
    if not isinstance(per, dict) or not per:
        return None, None
    targets = list(per)
    rows = [[np.nan if per[t].get(f) is None else float(per[t][f]) for f in names]
            for t in targets]
    return np.array(rows), targets


def build(path: str | Path) -> str:
    rankings, dataset = read_rankings(path)
    from frcli.rankers.labels import labels

    # several rankings (a grid, several methods): each section is named as every other view
    # names a method, by what differs among them; its figure's heading and its Parameters
    # list say the rest
    names = labels([(r.method, r.params) for r in rankings]) if len(rankings) > 1 \
        else ["Ranking"]
    sections = [(f"r{i}", name, _section(r)) for i, (name, r) in enumerate(zip(names, rankings))]
    title = f"{dataset}: ranking" if dataset else Path(path).name
    head = (f"{len(rankings[0].feature_names):,} features" +
            (f"; task {rankings[0].meta['task']}" if rankings[0].meta.get("task") else "") +
            f"; from {Path(path).name}")
    return page(title, head, sections, kind="ranking",
                note="Importances with 6 significant digits, mean ranks with 3 decimals; the "
                     "ranking file keeps every digit.")


def _section(r: Ranking) -> str:
    from frcli.rankers.labels import full_label

    st = r.stability
    parts = []
    k = min(TOP, len(r.feature_names))
    caption = (f"The top {k} of {len(r.feature_names):,} features by importance"
               + ("; their mean rank and 90 % interval over the stability runs" if st else "")
               + ("; per target, each target's importances scaled by its largest"
                  if r.per_target is not None else "") + ".")
    parts.append(figure_png(ranking_figure(r), caption, alt="the ranking's top features"))
    if st is not None:
        parts.append(f"<p>{esc(st.summary()[0].upper() + st.summary()[1:])}. A Spearman "
                     "correlation near 1 means the runs order the features alike; FUJI "
                     f"near 1 means they agree on the top {st.top_k}.</p>")
    order = r.order()[:TABLE_ROWS]
    ranks = r.ranks()
    header = ["rank", "feature", "importance"]
    rows = [[int(ranks[i]), r.feature_names[i], display.importance(r.importances[i])]
            for i in order]
    if st is not None:
        lo, hi = st.interval
        header += ["mean rank", "90 % interval"]
        for row, i in zip(rows, order):
            row += [display.rank(st.mean_rank[i]), f"{lo[i]}–{hi[i]}"]
    more = len(r.feature_names) - len(order)
    parts.append("<h3>Top features</h3>" + table(header, rows, numeric=[True, False, True,
                                                                        True, False][:len(header)]))
    if more > 0:
        parts.append(f'<p class="muted">{more:,} more features not shown (the ranking file '
                     "holds them all).</p>")
    facts = [("Method", full_label(r.method, r.params))]
    if r.timings.get("rank_s") is not None:
        facts.append(("Ranking time", f"{float(r.timings['rank_s']):.2f} s"))
    if st is not None:
        facts.append(("Stability runs", f"{st.runs} ({st.resample}), {st.seconds:.1f} s"))
    dl = "".join(f"<dt>{esc(a)}</dt><dd>{esc(b)}</dd>" for a, b in facts)
    parts.append(f'<h3>Parameters</h3><dl class="facts">{dl}</dl>')
    return "".join(parts)


def write(path: str | Path, output: str | Path | None = None) -> Path:
    """Write the page for ``path`` (default: beside it, ``<stem>.html``)."""
    out = Path(output) if output is not None else Path(path).with_suffix(".html")
    text = build(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return out
