"""``frcli report``: one experiment as one self-contained HTML page.

What a researcher pastes into a lab notebook or a paper's supplement, readable without frcli:
the experiment at a glance (data sets, protocol, rankers, runs, times), the average ranks the
experiment summary shows, the statistical tests with their CD diagrams, one table per data set
(every measure, mean over splits, the best in bold), the curves (top-f curves when the
evaluation recorded them, the measure over each numeric parameter that varies) and the config
itself. Figures are embedded as base64 PNG and the style is inline, so the file opens
anywhere, offline; numbers follow ``frcli.display``.
"""
from __future__ import annotations

import base64
import datetime
import html
import io
from pathlib import Path
from typing import Sequence

from frcli import display as fmt

REPORT_NAME = "report.html"
FIGURE_BORDER = "#cbd5e1"    # every figure has this frame (tests find the figures by it)
DPI = 110
MIN_SUB_DATASETS = 3   # a main measure's own analysis needs this many data sets

CSS = f"""
* {{ box-sizing: border-box; }}
body {{ margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1f2933; background: #ffffff; }}
header.band {{ background: #1f3b5a; color: #ffffff; padding: 18px 32px 14px; }}
header.band h1 {{ margin: 0 0 4px; font-size: 24px; }}
header.band p {{ margin: 0; color: #d9e2ec; }}
nav {{ padding: 8px 32px; background: #f0f4f8; border-bottom: 1px solid #d9e2ec; }}
nav a {{ margin-right: 18px; color: #1f3b5a; text-decoration: none; font-weight: 600; }}
main {{ padding: 8px 32px 32px; max-width: 1400px; }}
h2 {{ margin: 28px 0 8px; font-size: 19px; border-bottom: 2px solid #1f3b5a;
      padding-bottom: 3px; }}
h3 {{ margin: 20px 0 6px; font-size: 16px; }}
table {{ border-collapse: collapse; margin: 6px 0 12px; }}
th, td {{ padding: 3px 10px; border-bottom: 1px solid #e4e7eb; text-align: left;
          white-space: nowrap; }}
th {{ background: #f0f4f8; font-weight: 600; }}
td.num, th.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
td.best {{ font-weight: 700; background: #e3f4e8; }}
.scroll {{ overflow-x: auto; max-width: 100%; }}
.note {{ background: #fff7e0; border-left: 4px solid #e8a33d; padding: 6px 10px;
         margin: 6px 0; }}
.muted {{ color: #616e7c; }}
figure {{ margin: 10px 0 16px; }}
figure img {{ border: 3px solid {FIGURE_BORDER}; max-width: 100%; height: auto;
              display: block; }}
figcaption {{ color: #616e7c; font-size: 13px; margin-top: 3px; }}
pre {{ background: #f5f7fa; border: 1px solid #e4e7eb; padding: 10px; overflow-x: auto;
       font-size: 12.5px; }}
dl.facts {{ display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }}
dl.facts dt {{ font-weight: 600; }} dl.facts dd {{ margin: 0; }}
footer {{ padding: 14px 32px; color: #616e7c; border-top: 1px solid #e4e7eb; font-size: 12px; }}
"""


# -- small HTML helpers (reusable: plain strings in, a fragment out) ---------------------------
def esc(s: object) -> str:
    return html.escape(str(s), quote=True)


def table(header: Sequence[str], rows: Sequence[Sequence[object]], *,
          numeric: Sequence[bool] | None = None,
          best: Sequence[Sequence[bool]] | None = None) -> str:
    """An HTML table; ``numeric`` right-aligns columns, ``best`` bolds cells."""
    numeric = list(numeric or [False] * len(header))
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f'<th class="{"num" if n else ""}">{esc(h)}</th>' for h, n in zip(header, numeric)]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(rows):
        cells = []
        for j, v in enumerate(row):
            cls = " ".join(c for c in ("num" if numeric[j] else "",
                                       "best" if best and best[i][j] else "") if c)
            cells.append(f'<td class="{cls}">{esc(v)}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def figure_png(fig, caption: str = "", alt: str = "") -> str:
    """A matplotlib Figure as an embedded PNG (base64) with a caption."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, facecolor="white")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return (f'<figure><img alt="{esc(alt or caption)}" src="data:image/png;base64,{data}">'
            f"{cap}</figure>")


# -- the report --------------------------------------------------------------------------------
def build(store_dir: str | Path, *, alpha: float = 0.05) -> str:
    """The report of the experiment stored in ``store_dir`` as one HTML document."""
    from frcli.results.store import DB_NAME, Store
    from frcli.results.tidy import read_store

    store_dir = Path(store_dir)
    with Store(store_dir, create=False) as st:
        config_text = st.config_text()
        ds_rows = st.dataset_rows()
        n_runs, rank_s, eval_s = st.run_totals()
    df = read_store(store_dir)
    name = store_dir.name
    cfg = _config(config_text)
    sections: list[tuple[str, str, str]] = []      # (id, title, html)
    sections.append(("overview", "Overview", _overview(cfg, df, ds_rows, n_runs, rank_s,
                                                       eval_s, store_dir / DB_NAME)))
    comps, notes = _analyses(df, alpha)
    if comps:
        sections.append(("summary", "Average ranks", _summary(comps[0])))
        sections.append(("tests", "Statistical tests", _tests(comps, notes)))
    else:   # e.g. one method or one data set: say why there are no tests
        sections.append(("tests", "Statistical tests",
                         "".join(f'<p class="note">No tests: {esc(n)}.</p>' for n in notes)))
    sections.append(("datasets", "Per data set", _per_dataset(df)))
    curves = _curves(df)
    if curves:
        sections.append(("curves", "Curves", curves))
    sections.append(("config", "Config", f"<pre>{esc(config_text or '(not stored)')}</pre>"))
    return _page(name, cfg.get("description", ""), sections)


def write(store_dir: str | Path, output: str | Path | None = None, **kw) -> Path:
    out = Path(output) if output is not None else Path(store_dir) / REPORT_NAME
    text = build(store_dir, **kw)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return out


def _config(text: str) -> dict:
    import yaml

    try:
        doc = yaml.safe_load(text) if text else {}
    except yaml.YAMLError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _page(name: str, description: str, sections) -> str:
    from frcli import __version__

    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    nav = "".join(f'<a href="#{sid}">{esc(t)}</a>' for sid, t, _ in sections)
    body = "".join(f'<section id="{sid}"><h2>{esc(t)}</h2>{h}</section>'
                   for sid, t, h in sections)
    desc = f"<p>{esc(description)}</p>" if description else ""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"generator\" content=\"frcli {esc(__version__)}\">"
            f"<title>frcli report: {esc(name)}</title><style>{CSS}</style></head><body>"
            f"<header class=\"band\"><h1>{esc(name)}</h1>{desc}</header>"
            f"<nav>{nav}</nav><main>{body}</main>"
            f"<footer>Generated by frcli {esc(__version__)} on {esc(now)}. Values are means "
            "over splits; statistics use the unrounded values. Shown: measures with 4 "
            "significant digits, average ranks with 3 decimals, p-values with 3 significant "
            "digits, critical differences with 4 decimals.</footer></body></html>\n")


def _overview(cfg, df, ds_rows, n_runs, rank_s, eval_s, db) -> str:
    from frcli.rankers.labels import labels

    proto = cfg.get("protocol") or {}
    if isinstance(proto, dict) and proto:
        proto_s = ", ".join(f"{k} {_short(v)}" for k, v in proto.items())
    else:
        proto_s = "holdout (defaults)"
    pairs = list(dict.fromkeys(zip(df["method"], df["params"])))
    from frcli.stats.table import parse_params

    names = labels([(m, parse_params(p)) for m, p in pairs])
    ev = cfg.get("evaluation") or {}
    facts = [("Data sets", f"{len(ds_rows)}"),
             ("Protocol", proto_s),
             ("Rankings", f"{len(names)}: " + ", ".join(names)),
             ("Evaluation", ", ".join(f"{k} {_short(v)}" for k, v in ev.items()) if ev
              else "default"),
             ("Runs", f"{n_runs}; ranking {rank_s:.1f} s, evaluation {eval_s:.1f} s in all"),
             ("Store", str(db))]
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    rows = [[d, t, n, len(_json_list(f))] for d, t, n, f in ds_rows]
    return (f'<dl class="facts">{dl}</dl>' +
            table(["data set", "task", "examples", "features"], rows,
                  numeric=[False, False, True, True]))


def _short(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _json_list(s) -> list:
    import json

    try:
        v = json.loads(s) if s else []
    except ValueError:
        return []
    return v if isinstance(v, list) else []


def _analyses(df, alpha):
    """The main analysis and, when it mixes measures, one per main measure with N ≥ 2."""
    from frcli.errors import UserError
    from frcli.stats.analysis import analyse
    from frcli.stats.table import MAIN

    notes: list[str] = []
    try:
        comps = analyse(df, [MAIN], alpha=alpha, warn=notes.append)
    except UserError as e:
        return [], [str(e)]
    measures = comps[0].meta.get("measures")
    if measures:    # the measures' own analyses, where they have data sets enough to rank
        for m in dict.fromkeys(measures.values()):
            if sum(x == m for x in measures.values()) < MIN_SUB_DATASETS:
                continue
            try:
                comps += analyse(df[df["dataset"].isin([d for d, x in measures.items()
                                                        if x == m])], [m], alpha=alpha)
            except UserError:
                continue   # fewer than 2 data sets or methods for this measure
    return comps, notes


def _summary(c) -> str:
    from frcli.stats.analysis import title

    o = c.order
    mixed = bool(c.meta.get("measures"))
    head = ["method", "average rank"] + ([] if mixed else ["mean"])
    rows = [[c.methods[i], fmt.rank(c.avg_ranks[i])] +
            ([] if mixed else [fmt.value(c.values[:, i].mean())]) for i in o]
    best = [[False, i == 0] + ([] if mixed else [False]) for i in range(len(o))]
    return (f"<p>{esc(title(c))}: rank 1 = best on a data set, averaged over the "
            "data sets (the experiment summary's ranks).</p>" +
            table(head, rows, numeric=[False, True, True], best=best))


def _tests(comps, notes) -> str:
    from frcli.stats.analysis import (cd_figures, decision_header, rounding_note, title,
                                      wilcoxon_decision)

    out = []
    for c in comps:
        fr = c.friedman
        verdict = "reject H0 (the methods differ)" if c.rejects else \
            "no significant differences"
        out.append(f"<h3>{esc(title(c))}</h3>")
        for n in c.meta.get("notes", []):
            out.append(f'<p class="note">Note: {esc(n)}.</p>')
        direction = ("each data set ranked by its task's main measure"
                     if c.meta.get("measures") else
                     f"{'lower' if c.lower_is_better else 'higher'} is better")
        out.append(
            f"<p>{len(c.methods)} methods, {direction} ({esc(rounding_note(c))}). "
            f"Friedman χ² = {fmt.statistic(fr.chi2)} "
            f"(df {fr.chi2_df}), p = {fmt.p_value(fr.chi2_p)}; Iman–Davenport F = "
            f"{fmt.statistic(fr.f)} (df {fr.f_df[0]}, {fr.f_df[1]}), p = "
            f"{fmt.p_value(fr.f_p)}: <b>{esc(verdict)}</b> at α = {c.alpha:g}. Nemenyi "
            f"CD = {fmt.cd(c.nemenyi_cd)}.</p>")
        for _, fig in cd_figures(c):
            out.append(figure_png(fig, "Critical-difference diagram: methods joined by a "
                                       "bar do not differ significantly (Nemenyi).",
                                  alt=f"CD diagram, {title(c)}"))
        rows = [[q["a"], q["b"], fmt.rank(q["rank_difference"]),
                 "yes" if q["nemenyi_significant"] else "no",
                 fmt.p_value(q["wilcoxon_p_value"]), fmt.p_value(q["wilcoxon_p_adjusted"]),
                 f"{q['a_wins']}/{q['ties']}/{q['b_wins']}", wilcoxon_decision(q)]
                for q in c.pairs]
        out.append(table(["A", "B", "Δ rank", "Nemenyi", "Wilcoxon p",
                          f"adj. p ({c.correction.upper()})", "A wins/ties/B wins",
                          decision_header(c)], rows,
                         numeric=[False, False, True, False, True, True, False, False]))
    for n in notes:
        if not any(n.endswith(x) for c in comps for x in c.meta.get("notes", [])):
            out.append(f'<p class="note">{esc(n)}</p>')
    return "".join(out)


def _per_dataset(df) -> str:
    from frcli.results.tidy import TIME_COLUMNS
    from frcli.stats.table import lower_is_better, method_labels

    df = df.assign(label=method_labels(df))
    order = list(dict.fromkeys(df["label"]))
    out = []
    for ds, sub in df.groupby("dataset", sort=True):
        measures = [m for m in dict.fromkeys(sub["measure"])
                    if "@" not in m and not m.endswith("_area")]
        wide = sub[sub["measure"].isin(measures)].groupby(["label", "measure"])["value"] \
            .mean().unstack("measure").reindex(index=[x for x in order
                                                      if x in set(sub["label"])],
                                               columns=measures)
        times = sub.drop_duplicates(["label", "split", "labeled", "params"]) \
            .groupby("label")[list(TIME_COLUMNS)].mean()
        splits = sub.groupby("label")["split"].nunique()
        task = next(iter(set(sub["task"])), "")
        rows, best = [], []
        dirs = {}
        for m in measures:
            try:
                dirs[m] = lower_is_better(m)
            except Exception:  # noqa: BLE001 - an unknown direction: no best marked
                dirs[m] = None
        tops = {}
        for m in measures:
            col = wide[m].dropna()
            if len(col) and dirs[m] is not None:
                tops[m] = col.min() if dirs[m] else col.max()
        for lab in wide.index:
            vals = [wide.loc[lab, m] for m in measures]
            rows.append([lab] + [fmt.value(v) for v in vals] +
                        [fmt.value(times.loc[lab, "rank_time_s"]) if lab in times.index
                         else "–", int(splits.get(lab, 0))])
            best.append([False] + [m in tops and v == tops[m] for m, v in zip(measures, vals)]
                        + [False, False])
        head = ["method"] + [f"{m} {'↓' if dirs[m] else '↑' if dirs[m] is False else ''}"
                             .strip() for m in measures] + ["rank time (s)", "splits"]
        out.append(f"<h3>{esc(ds)} <span class=\"muted\">({esc(task)})</span></h3>")
        out.append(table(head, rows, numeric=[False] + [True] * (len(head) - 1), best=best))
    out.append('<p class="muted">Means over splits (and labelled sizes); the best value of '
               "each measure in bold; ↓ lower is better, ↑ higher.</p>")
    return "".join(out)


def _curves(df) -> str:
    """Top-f curves per data set (``<measure>@<f>`` in the store) and, per measure, the
    measure over each numeric parameter that varies (``frcli stats --plot curves``)."""
    from matplotlib.figure import Figure

    from frcli.stats.plots import series_style, side_legend
    from frcli.stats.table import main_measures, method_labels

    out = []
    mains = main_measures(df) or {}
    at = df[df["measure"].str.contains("@", regex=False)]
    if not at.empty:
        at = at.assign(label=method_labels(at))
        for ds, sub in at.groupby("dataset", sort=True):
            base = mains.get(ds)
            sub = sub[sub["measure"].str.split("@").str[0] == base] if base else sub
            if sub.empty:
                continue
            m = sub["measure"].str.split("@").str[0].iloc[0]
            sub = sub.assign(f=sub["measure"].str.split("@").str[1].astype(float))
            fig = Figure(figsize=(8.0, 3.8), layout="constrained")
            ax = fig.subplots()
            drawn = []
            for i, (lab, part) in enumerate(sub.groupby("label", sort=False)):
                pts = part.groupby("f")["value"].mean().sort_index()
                drawn.append((pts.values[-1], ax.plot(pts.index, pts.values, label=lab,
                                                      **series_style(i))[0]))
            ax.set_xscale("log", base=2)
            ax.set_xlabel("top f features")
            ax.set_ylabel(f"{m} (mean over splits)")
            ax.set_title(f"{ds}: {m} with the top f features", fontsize=10)
            side_legend(fig, [h for _, h in sorted(drawn, key=lambda d: -d[0])])
            ax.grid(alpha=0.3)
            out.append(figure_png(fig, f"{ds}: {m} of the weighted kNN using only the top f "
                                       "features of each ranking."))
    from frcli.errors import UserError
    from frcli.stats.plots import curves_from_frame
    from frcli.stats.table import lower_is_better

    by_measure: dict[str, list[str]] = {}
    for ds, m in mains.items():
        by_measure.setdefault(m, []).append(ds)
    for m, sets in by_measure.items():
        part = df[(df["measure"] == m) & df["dataset"].isin(sets)]
        try:
            fig = curves_from_frame(part, measure=m, lower_is_better=lower_is_better(m),
                                    title=f"{m} (N = {len(sets)} data set"
                                          f"{'s' if len(sets) != 1 else ''})")
        except UserError:
            continue      # no numeric parameter varies among these runs
        out.append(figure_png(fig, f"{m}: mean over the data sets against the parameter "
                                   "that varies most; dashed: methods without it."))
    return "".join(out)

