"""``frcli stats``: Friedman/Iman–Davenport, Nemenyi, Bonferroni–Dunn, Wilcoxon+BH over data sets.

Only option parsing and rendering live here; the statistics are in ``frcli.stats.tests``, the
tables in ``frcli.stats.table`` and the figures in ``frcli.stats.cd_diagram``/``plots``. Heavy
imports stay inside the command so ``frcli --help`` starts fast.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional

import typer

PLOTS = ("cd", "heatmap", "curves")


def register(app: typer.Typer) -> None:
    @app.command("stats")
    def stats_command(
        sources: List[Path] = typer.Argument(
            ..., metavar="SOURCE...",
            help="Result folders (frcli experiment) or CSV files: tidy (dataset, method, "
                 "measure, value), wide (dataset, method, <measure>...) or a matrix "
                 "(dataset, <method>...)."),
        measure: Optional[List[str]] = typer.Option(
            None, "--measure", "-m", help="Measure(s) to analyse (repeat or comma-separate); "
                                          "needed when the sources hold several."),
        methods: Optional[List[str]] = typer.Option(
            None, "--methods", help="Methods to compare, in this order (a plain method name "
                                    "brings all its parameter variants)."),
        datasets: Optional[List[str]] = typer.Option(
            None, "--datasets", help="Restrict to these data sets."),
        group_by: Optional[str] = typer.Option(
            None, "--group-by", help="One analysis per value of this column or parameter, "
                                     "e.g. labeled (SSL) or trees."),
        round_spec: str = typer.Option(
            "3", "--round", help="Round values before ranking: 3 (decimals, MTR/MLC papers), "
                                 "3sig (significant digits, HMLC paper) or none."),
        alpha: float = typer.Option(0.05, "--alpha", help="Significance level."),
        control: Optional[str] = typer.Option(
            None, "--control", help="Control method for Bonferroni–Dunn and Wilcoxon "
                                    "versus control."),
        correction: str = typer.Option(
            "bh", "--correction", help="Multiple-test correction of the Wilcoxon p-values: "
                                       "bh (Benjamini–Hochberg) or holm."),
        lower: Optional[bool] = typer.Option(
            None, "--lower-is-better/--higher-is-better",
            help="Direction of the measure (default: known from its name)."),
        plot: Optional[List[str]] = typer.Option(
            None, "--plot", help="cd (critical-difference diagram), heatmap (average rank "
                                 "over a 2-parameter grid) or curves (measure over a numeric "
                                 "parameter); written to --output (default: .)."),
        x: Optional[str] = typer.Option(None, "--x", help="Parameter on the x axis "
                                                          "(heatmap, curves)."),
        y: Optional[str] = typer.Option(None, "--y", help="Parameter on the y axis (heatmap)."),
        output: Optional[Path] = typer.Option(
            None, "--output", "-o", help="Folder for CSV, Markdown and LaTeX tables and the "
                                         "plots (PNG and PDF)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of "
                                                           "tables."),
    ) -> None:
        """Compare methods over data sets (Demšar 2006): ranks, Friedman, Nemenyi, Wilcoxon.

        Values are averaged over splits per data set, rounded (--round) and ranked per data set
        (1 = best, ties averaged). Several measures or groups give one analysis each
        (--json then prints {"analyses": [...]}).
        Example: frcli stats results/quickstart --measure rrmse --plot cd --output stats/
        """
        run(sources, measure=measure, methods=methods, datasets=datasets, group_by=group_by,
            round_spec=round_spec, alpha=alpha, control=control, correction=correction,
            lower=lower, plot=plot, x=x, y=y, output=output, as_json=as_json)


def run(sources, *, measure=None, methods=None, datasets=None, group_by=None, round_spec="3",
        alpha=0.05, control=None, correction="bh", lower=None, plot=None, x=None, y=None,
        output=None, as_json=False) -> list:
    """The command's body (also usable from Python); returns the Comparisons."""
    import json
    import sys

    from frcli.errors import ConfigError, choices_error
    from frcli.stats import table as tb
    from frcli.stats.tests import CORRECTIONS, compare

    if correction not in CORRECTIONS:
        raise choices_error("--correction", correction, CORRECTIONS)
    if not 0.0 < alpha < 1.0:
        raise ConfigError(f"--alpha must be in (0, 1), got {alpha}")
    plots = _split(plot)
    for p in plots:
        if p not in PLOTS:
            raise choices_error("--plot", p, PLOTS)
    rounding, _ = tb.parse_round(round_spec)
    measures = _split(measure) or None
    matrix_measure = measures[0] if measures and len(measures) == 1 else None

    df = tb.read_sources([str(s) for s in sources], matrix_measure)
    warnings: list[str] = []
    tables = tb.select_tables(df, measures, methods=methods, datasets=datasets,
                              group_by=group_by, round_spec=round_spec, warn=warnings.append)
    comps = []
    for t in tables:
        if control is not None and control not in t.methods:
            raise ConfigError(f"unknown --control {control!r}; methods: " + ", ".join(t.methods))
        lib = tb.lower_is_better(t.measure, lower)
        c = compare(t.values, t.methods, t.datasets, lower_is_better=lib, alpha=alpha,
                    control=control, correction=correction)
        c.meta = {"measure": t.measure, **({"group": t.group} if t.group else {}),
                  "rounding": rounding, "dropped_datasets": t.dropped_datasets,
                  "n_splits": t.n_splits}
        comps.append(c)

    files: list[str] = []
    if output is not None or plots:
        out = Path(output) if output is not None else Path(".")
        if out.exists() and not out.is_dir():
            raise ConfigError(f"--output {out} is a file; give a folder")
        if output is not None and not plots:
            plots = ["cd"]
        # draw the heat maps/curves first: a bad --x/--y fails before any file is written
        figures = []
        extra = [p for p in plots if p != "cd"]
        if extra:
            from frcli.stats import plots as pl

            sub = tb.with_time_measures(df)
            sub = sub.assign(label=tb.method_labels(sub))  # the labels the tables used
            for c in comps:
                m = c.meta["measure"]
                part = sub[sub["measure"] == m]
                if c.meta.get("group"):
                    (gk, gv), = c.meta["group"].items()
                    part = part[part[gk].astype(str) == str(gv)] if gk in part.columns else part
                part = part[part["dataset"].isin(c.datasets) & part["label"].isin(c.methods)]
                for p in extra:
                    fn = pl.heatmap_from_frame if p == "heatmap" else pl.curves_from_frame
                    fig = fn(part, measure=m, lower_is_better=c.lower_is_better, x=x, y=y,
                             round_spec=round_spec, title=_title(c))
                    figures.append((fig, str(out / f"{_stem(c)}_{p}")))
        out.mkdir(parents=True, exist_ok=True)
        for c in comps:
            stem = out / _stem(c)
            if output is not None:
                files += _write_tables(c, stem)
            if "cd" in plots:
                files += _write_cd(c, stem)
        for fig, stem in figures:
            files += pl.save(fig, stem)

    if as_json:
        ds = [c.to_dict() for c in comps]
        obj = ds[0] if len(ds) == 1 else {"analyses": ds}
        if files:
            obj["files"] = files
        if warnings:
            obj["warnings"] = warnings
        sys.stdout.write(json.dumps(obj, indent=2) + "\n")
    else:
        for w in warnings:
            typer.echo(f"warning: {w}", err=True)
        _print(comps, files)
    return comps


def _split(items) -> list[str]:
    out: list[str] = []
    for it in items or []:
        out.extend(s.strip() for s in str(it).split(",") if s.strip())
    return out


def _stem(c) -> str:
    parts = [c.meta["measure"]] + [f"{k}-{v}" for k, v in c.meta.get("group", {}).items()]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "_".join(str(p) for p in parts)).strip("_") or "stats"


def _title(c) -> str:
    g = "".join(f", {k} = {v}" for k, v in c.meta.get("group", {}).items())
    return f"{c.meta['measure']}{g} (N = {len(c.datasets)} data sets)"


def _fmt_p(p) -> str:
    if p is None:
        return "-"
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2e}"


def _fmt_f(v) -> str:
    import math
    return "inf" if not math.isfinite(v) else f"{v:.4g}"


# --------------------------------------------------------------------------- files
def _summary_frame(c):
    import pandas as pd

    o = c.order
    return pd.DataFrame({"method": [c.methods[i] for i in o],
                         "mean": [c.values[:, i].mean() for i in o],
                         "average_rank": [c.avg_ranks[i] for i in o]})


def _pairs_frame(c):
    import pandas as pd

    return pd.DataFrame(c.pairs)


def _write_tables(c, stem: Path) -> list[str]:
    """Ranks and pairwise decisions as CSV; a summary as Markdown and LaTeX."""
    import json

    files = []
    s = _summary_frame(c)
    p = _pairs_frame(c)
    s.to_csv(f"{stem}_ranks.csv", index=False, float_format="%.6g")
    p.to_csv(f"{stem}_pairwise.csv", index=False, float_format="%.6g")
    files += [f"{stem}_ranks.csv", f"{stem}_pairwise.csv"]
    if c.control is not None:
        import pandas as pd
        pd.DataFrame(c.control["comparisons"]).to_csv(f"{stem}_control.csv", index=False,
                                                       float_format="%.6g")
        files.append(f"{stem}_control.csv")
    # the (data set × method) table that was ranked, as the papers print it
    import pandas as pd
    vals = pd.DataFrame(c.values, index=c.datasets, columns=c.methods)
    vals.index.name = "dataset"
    vals.to_csv(f"{stem}_values.csv", float_format="%.10g")
    files.append(f"{stem}_values.csv")

    fr = c.friedman
    lines = [f"## {_title(c)}", "",
             "| method | mean | average rank |", "|---|---:|---:|"]
    lines += [f"| {r.method} | {r.mean:.4g} | {r.average_rank:.3f} |" for r in s.itertuples()]
    lines += ["", f"Friedman χ² = {_fmt_f(fr.chi2)} (df {fr.chi2_df}), p = {_fmt_p(fr.chi2_p)}; "
              f"Iman–Davenport F = {_fmt_f(fr.f)} (df {fr.f_df[0]}, {fr.f_df[1]}), "
              f"p = {_fmt_p(fr.f_p)}; Nemenyi CD = {c.nemenyi_cd:.4f} (α = {c.alpha:g}).", "",
              "| A | B | rank diff. | Nemenyi | Wilcoxon p | adj. p | W/T/L | Wilcoxon+"
              f"{c.correction.upper()} |", "|---|---|---:|:-:|---:|---:|:-:|:-:|"]
    for q in c.pairs:
        lines.append(f"| {q['a']} | {q['b']} | {q['rank_difference']:.3f} | "
                     f"{'yes' if q['nemenyi_significant'] else 'no'} | "
                     f"{_fmt_p(q['wilcoxon_p_value'])} | {_fmt_p(q['wilcoxon_p_adjusted'])} | "
                     f"{q['a_wins']}/{q['ties']}/{q['b_wins']} | "
                     f"{'yes' if q['wilcoxon_significant'] else 'no'} |")
    Path(f"{stem}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def tex(sx: str) -> str:
        return re.sub(r"([_%&#$])", r"\\\1", sx)

    t = ["% " + _title(c), r"\begin{tabular}{lrr}", r"\hline",
         r"Method & Mean & Avg.\ rank \\", r"\hline"]
    t += [rf"{tex(r.method)} & {r.mean:.4g} & {r.average_rank:.3f} \\" for r in s.itertuples()]
    t += [r"\hline",
          rf"\multicolumn{{3}}{{l}}{{Iman--Davenport $p = {_fmt_p(fr.f_p)}$, "
          rf"CD $= {c.nemenyi_cd:.4f}$}} \\", r"\hline", r"\end{tabular}"]
    Path(f"{stem}.tex").write_text("\n".join(t) + "\n", encoding="utf-8")
    Path(f"{stem}.json").write_text(json.dumps(c.to_dict(), indent=2) + "\n", encoding="utf-8")
    return files + [f"{stem}.md", f"{stem}.tex", f"{stem}.json"]


def _write_cd(c, stem: Path) -> list[str]:
    from frcli.stats.cd_diagram import cd_diagram, save

    fig = cd_diagram(c.methods, c.avg_ranks, cd=c.nemenyi_cd if c.rejects else None,
                     groups=c.groups, friedman_p=c.friedman.f_p, alpha=c.alpha, title=_title(c))
    files = save(fig, f"{stem}_cd")
    if c.control is not None:
        fig = cd_diagram(c.methods, c.avg_ranks, cd=c.nemenyi_cd if c.rejects else None,
                         groups=c.groups, friedman_p=c.friedman.f_p, alpha=c.alpha,
                         title=_title(c) + f", control {c.control['method']}",
                         control=c.control["method"], bd_cd=c.control["bd_cd"])
        files += save(fig, f"{stem}_cd_bd")
    return files


# --------------------------------------------------------------------------- terminal
def _print(comps, files) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(highlight=False, soft_wrap=False)
    for c in comps:
        fr = c.friedman
        direction = "lower is better" if c.lower_is_better else "higher is better"
        con.print(f"[bold]{_title(c)}[/bold]  k = {len(c.methods)} methods, {direction}, "
                  f"values rounded to {c.meta['rounding']}")
        if c.meta.get("dropped_datasets"):
            con.print(f"  dropped (incomplete): {', '.join(c.meta['dropped_datasets'])}")
        t = Table(show_edge=False, pad_edge=False)
        t.add_column("method")
        t.add_column("mean", justify="right")
        t.add_column("avg rank", justify="right")
        for i in c.order:
            t.add_row(c.methods[i], f"{c.values[:, i].mean():.4g}", f"{c.avg_ranks[i]:.3f}")
        con.print(t)
        verdict = "reject H0" if c.rejects else "no significant differences"
        con.print(f"Friedman χ² = {_fmt_f(fr.chi2)} (df {fr.chi2_df}), p = {_fmt_p(fr.chi2_p)}")
        con.print(f"Iman–Davenport F = {_fmt_f(fr.f)} (df {fr.f_df[0]}, {fr.f_df[1]}), "
                  f"p = {_fmt_p(fr.f_p)}  → {verdict} at α = {c.alpha:g}")
        con.print(f"Nemenyi q = {c.nemenyi_q:.3f}, CD = {c.nemenyi_cd:.4f}")
        if c.rejects:
            gs = c.group_members()
            if gs:
                con.print("Groups without significant differences (Nemenyi):")
                for g in gs:
                    con.print("  {" + ", ".join(g) + "}")
            else:
                con.print("Every pair of methods differs significantly (Nemenyi).")
        p = Table(title=f"Pairwise: Nemenyi, Wilcoxon signed-rank + {c.correction.upper()}",
                  show_edge=False, pad_edge=False)
        for col, j in (("A", "left"), ("B", "left"), ("Δ rank", "right"),
                       ("Nemenyi", "center"), ("Wilcoxon p", "right"), ("adj. p", "right"),
                       ("A wins/ties/B wins", "center"), ("Wilcoxon", "center")):
            p.add_column(col, justify=j)
        for q in c.pairs:
            p.add_row(q["a"], q["b"], f"{q['rank_difference']:.3f}",
                      "sig." if q["nemenyi_significant"] else "-",
                      _fmt_p(q["wilcoxon_p_value"]), _fmt_p(q["wilcoxon_p_adjusted"]),
                      f"{q['a_wins']}/{q['ties']}/{q['b_wins']}",
                      ("sig., " + q["better"]) if q["wilcoxon_significant"] and q["better"]
                      else "sig." if q["wilcoxon_significant"] else "-")
        con.print(p)
        if c.control is not None:
            ct = c.control
            b = Table(title=f"Versus control {ct['method']}: Bonferroni–Dunn (q = "
                            f"{ct['bd_q']:.3f}, CD = {ct['bd_cd']:.4f}), Wilcoxon + "
                            f"{c.correction.upper()}", show_edge=False, pad_edge=False)
            for col in ("method", "rank − control", "BD", "BD adj. p", "Wilcoxon p",
                        "adj. p", "Wilcoxon"):
                b.add_column(col, justify="left" if col == "method" else "right")
            for q in ct["comparisons"]:
                b.add_row(q["method"], f"{q['rank_difference']:+.3f}",
                          "sig." if q["bd_significant"] else "-", _fmt_p(q["bd_p_adjusted"]),
                          _fmt_p(q["wilcoxon_p_value"]), _fmt_p(q["wilcoxon_p_adjusted"]),
                          "sig." if q["wilcoxon_significant"] else "-")
            con.print(b)
        con.print()
    if files:
        con.print(f"Wrote {len(files)} file(s) to {Path(files[0]).parent}")
