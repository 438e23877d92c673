"""``frcli stats``: Friedman/Iman–Davenport, Nemenyi, Bonferroni–Dunn, Wilcoxon+BH over data sets.

Only option parsing and rendering live here; the analyses are in ``frcli.stats.analysis``
(shared with the experiment summary and ``frcli report``), the statistics in
``frcli.stats.tests``, the tables in ``frcli.stats.table`` and the figures in
``frcli.stats.cd_diagram``/``plots``. Heavy imports stay inside the command so
``frcli --help`` starts fast.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional

import typer

from frcli.stats.analysis import (analyse, cd_figures, decision_header, markdown,
                                  parameter_figures, rounding_note, summary_frame, title,
                                  wilcoxon_decision)

PLOTS = ("cd", "heatmap", "curves", "simplex", "fuji", "time")


def register(app: typer.Typer) -> None:
    @app.command("stats")
    def stats_command(
        sources: List[Path] = typer.Argument(
            ..., metavar="SOURCE...",
            help="Result folders (frcli experiment; a folder of them, e.g. results/, gives "
                 "one analysis per experiment) or CSV files: tidy (dataset, method, "
                 "measure, value), wide (dataset, method, <measure>...) or a matrix "
                 "(dataset, <method>...)."),
        measure: Optional[List[str]] = typer.Option(
            None, "--measure", "-m", help="Measure(s) to analyse (repeat or comma-separate). "
                                          "Default: the only one, else 'main' (each data "
                                          "set's main measure; result folders only)."),
        methods: Optional[List[str]] = typer.Option(
            None, "--methods", help="Methods to compare, in this order (a plain method name "
                                    "brings all its parameter variants)."),
        datasets: Optional[List[str]] = typer.Option(
            None, "--datasets", help="Restrict to these data sets."),
        group_by: Optional[str] = typer.Option(
            None, "--group-by", help="One analysis per value of this column or parameter, "
                                     "e.g. labeled (SSL) or trees."),
        round_spec: str = typer.Option(
            "none", "--round", help="Round values before ranking, as the papers did: 3 "
                                    "(decimals, MTR/MLC papers) or 3sig (significant "
                                    "digits, HMLC paper); default none."),
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
                                 "over a 2-parameter grid), curves (measure over a numeric "
                                 "parameter), simplex (the --bayes posteriors), fuji (AUFUJI "
                                 "of the rF1 curves) or time (ranking times); written to "
                                 "--output (default: a stats folder in the first source "
                                 "folder, or beside the first CSV file)."),
        bayes: Optional[str] = typer.Option(
            None, "--bayes", help="Bayesian comparison on the per-split scores (baycomp): "
                                  "hierarchical (needs pystan), signed-rank or correlated; "
                                  "pairs with --control, else all pairs."),
        rope: float = typer.Option(0.05, "--rope", help="Region of practical equivalence of "
                                                       "--bayes (ReliefE paper: 0.05)."),
        runs: Optional[int] = typer.Option(
            None, "--runs", help="CV repetitions of the scores for --bayes (default: from "
                                 "the result store's protocol, else 1)."),
        x: Optional[str] = typer.Option(None, "--x", help="Parameter on the x axis "
                                                          "(heatmap, curves)."),
        y: Optional[str] = typer.Option(None, "--y", help="Parameter on the y axis (heatmap)."),
        output: Optional[Path] = typer.Option(
            None, "--output", "-o", help="Folder for CSV, Markdown and LaTeX tables and the "
                                         "plots (PNG and PDF); the command lists what it "
                                         "wrote."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of "
                                                           "tables."),
    ) -> None:
        """Compare methods over data sets (Demšar 2006): ranks, Friedman, Nemenyi, Wilcoxon.

        Values are averaged over splits per data set and ranked per data set (1 = best, ties
        averaged); --round rounds them first, as the papers did. Several measures, groups or
        experiments give one analysis each (--json then prints {"analyses": [...]}).
        Example: frcli stats results/ --plot cd
        """
        run(sources, measure=measure, methods=methods, datasets=datasets, group_by=group_by,
            round_spec=round_spec, alpha=alpha, control=control, correction=correction,
            lower=lower, plot=plot, x=x, y=y, output=output, as_json=as_json, bayes=bayes,
            rope=rope, runs=runs)


def run(sources, *, measure=None, methods=None, datasets=None, group_by=None,
        round_spec="none", alpha=0.05, control=None, correction="bh", lower=None, plot=None,
        x=None, y=None, output=None, as_json=False, bayes=None, rope=0.05, runs=None) -> list:
    """The command's body (also usable from Python); returns the Comparisons."""
    import sys

    from frcli.jsonio import dumps

    from frcli.errors import ConfigError, choices_error
    from frcli.stats.tests import CORRECTIONS

    if correction not in CORRECTIONS:
        raise choices_error("--correction", correction, CORRECTIONS)
    if not 0.0 < alpha < 1.0:
        raise ConfigError(f"--alpha must be in (0, 1), got {alpha}")
    plots = _split(plot)
    for p in plots:
        if p not in PLOTS:
            raise choices_error("--plot", p, PLOTS)
    from frcli.stats import bayes as bs

    if bayes is not None and bayes not in bs.TESTS:
        raise choices_error("--bayes", bayes, bs.TESTS)
    if "simplex" in plots and bayes is None:
        raise ConfigError("--plot simplex draws the --bayes posteriors; add --bayes TEST")
    from frcli.results.tidy import read_sources

    measures = _split(measure) or None
    matrix_measure = measures[0] if measures and len(measures) == 1 else None
    df = read_sources([str(s) for s in sources], matrix_measure)
    warnings: list[str] = []
    comps = analyse(df, measures, methods=methods, datasets=datasets, group_by=group_by,
                    round_spec=round_spec, alpha=alpha, control=control,
                    correction=correction, lower=lower, warn=warnings.append)
    bayes_results = {}
    if bayes is not None:
        if runs is None:
            found = {bs.runs_of_store(s) for s in sources}
            runs = found.pop() if len(found) == 1 and None not in found else 1
        bayes_results = bayes_comparisons(df, comps, bayes, rope=rope, runs=runs,
                                          control=control)

    files: list[str] = []
    if output is not None or plots:
        out = Path(output) if output is not None else default_output(sources)
        if out.exists() and not out.is_dir():
            raise ConfigError(f"--output {out} is a file; give a folder")
        if output is not None and not plots:
            plots = ["cd"]
        # draw the heat maps/curves first: a bad --x/--y fails before any file is written
        figures = [(fig, str(out / f"{_stem(c)}_{p}"))
                   for c, p, fig in parameter_figures(
                       df, comps, [p for p in plots if p in ("heatmap", "curves")],
                       x=x, y=y, round_spec=round_spec)]
        figures += [(fig, str(out / f"{_stem(c)}_{name}"))
                    for c, name, fig in reliefe_figures(df, comps, plots, bayes_results)]
        out.mkdir(parents=True, exist_ok=True)
        for c in comps:
            stem = out / _stem(c)
            if output is not None:
                files += _write_tables(c, stem)
                if c.meta.get("bayes"):
                    import pandas as pd

                    rows = [{k: v for k, v in q.items() if k != "per_dataset"}
                            for q in c.meta["bayes"]]
                    pd.DataFrame(rows).to_csv(f"{stem}_bayes.csv", index=False,
                                              float_format="%.6g")
                    files.append(f"{stem}_bayes.csv")
            if "cd" in plots:
                files += _write_cd(c, stem)
        from frcli.stats.cd_diagram import save

        for fig, stem in figures:
            files += save(fig, stem)

    if as_json:
        ds = [c.to_dict() for c in comps]
        obj = ds[0] if len(ds) == 1 else {"analyses": ds}
        if files:
            obj["files"] = files
        if warnings:
            obj["warnings"] = warnings
        sys.stdout.write(dumps(obj, indent=2) + "\n")
    else:
        for w in warnings:
            typer.echo(f"warning: {w}", err=True)
        _print(comps, files)
    return comps


def _labelled_part(df, c):
    """The tidy rows (times included, method labels added) of comparison ``c``'s experiment,
    group, data sets and methods."""
    from frcli.stats import table as tb

    sub = tb.with_time_measures(df)
    sub = sub.assign(label=tb.method_labels(sub))
    if c.meta.get("experiment"):
        sub = sub[sub["experiment"] == c.meta["experiment"]]
    if c.meta.get("group"):
        (gk, gv), = c.meta["group"].items()
        sub = sub[sub[gk].astype(str) == str(gv)] if gk in sub.columns else sub
    return sub[sub["dataset"].isin(c.datasets) & sub["label"].isin(c.methods)]


def bayes_comparisons(df, comps, test, *, rope=0.05, runs=1, control=None) -> dict:
    """Bayesian comparisons (``frcli.stats.bayes``) of every comparison's pairs (the control
    against the others, or every pair); their dicts go to ``c.meta["bayes"]``. Returns
    {id(c): [BayesResult]} for the plots."""
    from frcli.errors import ConfigError
    from frcli.stats import bayes as bs

    out = {}
    for c in comps:
        if c.meta.get("measures"):
            raise ConfigError(f"--bayes needs one measure, but {title(c)} ranks each data "
                              "set by its own; choose one with --measure")
        part = _labelled_part(df, c)
        m = c.meta["measure"]
        scores = bs.fold_scores(part, m, c.methods, c.datasets)
        idx = {lab: i for i, lab in enumerate(c.methods)}
        pairs = ([(control, o) for o in c.methods if o != control] if control is not None
                 else [(a, b) for i, a in enumerate(c.methods) for b in c.methods[i + 1:]])
        res = [bs.compare(scores[:, idx[a]], scores[:, idx[b]], a, b, test=test, rope=rope,
                          runs=runs, lower_is_better=c.lower_is_better, datasets=c.datasets)
               for a, b in pairs]
        c.meta["bayes"] = [r.to_dict() for r in res]
        out[id(c)] = res
    return out


def reliefe_figures(df, comps, kinds, bayes_results) -> list:
    """(comparison, file-name part, figure) for --plot simplex, fuji and time."""
    import re as _re

    from frcli.stats import bayes as bs
    from frcli.stats import fuji

    out = []
    for c in comps:
        if "simplex" in kinds:
            for r in bayes_results.get(id(c), []):
                name = _re.sub(r"[^A-Za-z0-9_.-]+", "_", f"simplex_{r.a}_vs_{r.b}")
                out.append((c, name, bs.simplex_figure(r)))
        if "fuji" in kinds or "time" in kinds:
            part = _labelled_part(df, c)
        if "fuji" in kinds:
            mat = fuji.aufuji_matrix(part, c.methods, c.datasets)
            out.append((c, "fuji", fuji.heatmap_figure(mat, c.methods,
                                                       f"AUFUJI of the rF1 curves, {title(c)}")))
        if "time" in kinds:
            out.append((c, "time", fuji.time_figure(part, c.methods, c.datasets,
                                                    title=title(c))))
    return out


def default_output(sources) -> Path:
    """Where files go without --output: a ``stats`` folder beside the results they come
    from, inside the first source folder (a result folder, or a folder of them) or next to
    the first CSV file, so they are found with the results rather than in the working
    folder."""
    first = Path(sources[0])
    return (first if first.is_dir() else first.parent) / "stats"


def written(files: list[str]) -> str:
    """What was written, and where: the folder, then one file name a line."""
    folders = list(dict.fromkeys(str(Path(f).parent) for f in files))
    n = f"{len(files)} file{'s' if len(files) != 1 else ''}"
    if len(folders) == 1:
        return "\n".join([f"Wrote {n} to {folders[0]}/:"] + [f"  {Path(f).name}"
                                                             for f in files])
    return "\n".join([f"Wrote {n}:"] + [f"  {f}" for f in files])


def _split(items) -> list[str]:
    out: list[str] = []
    for it in items or []:
        out.extend(s.strip() for s in str(it).split(",") if s.strip())
    return out


def _stem(c) -> str:
    parts = ([c.meta["experiment"]] if c.meta.get("experiment") else []) + \
        [c.meta["measure"]] + [f"{k}-{v}" for k, v in c.meta.get("group", {}).items()]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "_".join(str(p) for p in parts)).strip("_") or "stats"


def _pairs_frame(c):
    import pandas as pd

    return pd.DataFrame(c.pairs)


def _write_tables(c, stem: Path) -> list[str]:
    """Ranks and pairwise decisions as CSV; a summary as Markdown and LaTeX."""
    import pandas as pd

    from frcli import display as fmt

    files = []
    s = summary_frame(c)
    p = _pairs_frame(c)
    s.to_csv(f"{stem}_ranks.csv", index=False, float_format="%.10g")
    p.to_csv(f"{stem}_pairwise.csv", index=False, float_format="%.10g")
    files += [f"{stem}_ranks.csv", f"{stem}_pairwise.csv"]
    if c.control is not None:
        pd.DataFrame(c.control["comparisons"]).to_csv(f"{stem}_control.csv", index=False,
                                                       float_format="%.10g")
        files.append(f"{stem}_control.csv")
    # the (data set × method) table that was ranked, as the papers print it
    vals = pd.DataFrame(c.values, index=c.datasets, columns=c.methods)
    vals.index.name = "dataset"
    if c.meta.get("measures"):
        vals.insert(0, "measure", [c.meta["measures"][d] for d in c.datasets])
    vals.to_csv(f"{stem}_values.csv", float_format="%.10g")
    files.append(f"{stem}_values.csv")

    Path(f"{stem}.md").write_text(markdown(c), encoding="utf-8")

    def tex(sx: str) -> str:
        return re.sub(r"([_%&#$])", r"\\\1", sx)

    fr = c.friedman
    t = ["% " + title(c), r"\begin{tabular}{lrr}", r"\hline",
         r"Method & Mean & Avg.\ rank \\", r"\hline"]
    t += [rf"{tex(r.method)} & {fmt.value(r.mean)} & {fmt.rank(r.average_rank)} \\"
          for r in s.itertuples()]
    t += [r"\hline",
          rf"\multicolumn{{3}}{{l}}{{Iman--Davenport $p = {fmt.p_value(fr.f_p)}$, "
          rf"CD $= {fmt.cd(c.nemenyi_cd)}$}} \\", r"\hline", r"\end{tabular}"]
    Path(f"{stem}.tex").write_text("\n".join(t) + "\n", encoding="utf-8")
    from frcli.jsonio import dumps

    Path(f"{stem}.json").write_text(dumps(c.to_dict(), indent=2) + "\n", encoding="utf-8")
    return files + [f"{stem}.md", f"{stem}.tex", f"{stem}.json"]


def _write_cd(c, stem: Path) -> list[str]:
    from frcli.stats.cd_diagram import save

    files = []
    for suffix, fig in cd_figures(c):
        files += save(fig, f"{stem}_{suffix}")
    return files


# --------------------------------------------------------------------------- terminal
def _print(comps, files) -> None:
    from rich.table import Table

    from frcli import display as fmt
    from frcli.commands import console

    con = console()
    for c in comps:
        fr = c.friedman
        mixed = bool(c.meta.get("measures"))
        direction = "lower is better" if c.lower_is_better else "higher is better"
        if mixed:
            direction = "each data set ranked by its task's main measure"
        con.print(f"[bold]{title(c)}[/bold]  k = {len(c.methods)} methods, {direction}, "
                  f"{rounding_note(c)}")
        if c.meta.get("dropped_datasets"):
            con.print(f"  dropped (incomplete): {', '.join(c.meta['dropped_datasets'])}")
        t = Table(show_edge=False, pad_edge=False)
        t.add_column("method", overflow="fold")
        if not mixed:
            t.add_column("mean", justify="right")
        t.add_column("avg rank", justify="right")
        for i in c.order:
            cells = [c.methods[i]] + ([] if mixed else [fmt.value(c.values[:, i].mean())])
            t.add_row(*cells, fmt.rank(c.avg_ranks[i]))
        con.print(t)
        verdict = "reject H0" if c.rejects else "no significant differences"
        con.print(f"Friedman χ² = {fmt.statistic(fr.chi2)} (df {fr.chi2_df}), "
                  f"p = {fmt.p_value(fr.chi2_p)}")
        con.print(f"Iman–Davenport F = {fmt.statistic(fr.f)} (df {fr.f_df[0]}, {fr.f_df[1]}), "
                  f"p = {fmt.p_value(fr.f_p)}  → {verdict} at α = {c.alpha:g}"
                  + (" (indicative: few data sets, see the warning)" if c.meta.get("notes")
                     else ""))
        con.print(f"Nemenyi q = {c.nemenyi_q:.3f}, CD = {fmt.cd(c.nemenyi_cd)}")
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
                       ("A wins/ties/B wins", "center"), (decision_header(c), "left")):
            p.add_column(col, justify=j, overflow="fold")
        for q in c.pairs:
            p.add_row(q["a"], q["b"], fmt.rank(q["rank_difference"]),
                      "sig." if q["nemenyi_significant"] else "-",
                      fmt.p_value(q["wilcoxon_p_value"]), fmt.p_value(q["wilcoxon_p_adjusted"]),
                      f"{q['a_wins']}/{q['ties']}/{q['b_wins']}", wilcoxon_decision(q))
        con.print(p)
        if c.control is not None:
            ct = c.control
            b = Table(title=f"Versus control {ct['method']}: Bonferroni–Dunn (q = "
                            f"{ct['bd_q']:.3f}, CD = {fmt.cd(ct['bd_cd'])}), Wilcoxon + "
                            f"{c.correction.upper()}", show_edge=False, pad_edge=False)
            for col in ("method", "rank − control", "BD", "BD adj. p", "Wilcoxon p",
                        "adj. p", decision_header(c)):
                b.add_column(col, justify="left" if col in ("method", decision_header(c))
                             else "right", overflow="fold")
            for q in ct["comparisons"]:
                b.add_row(q["method"], fmt.signed_rank(q["rank_difference"]),
                          "sig." if q["bd_significant"] else "-",
                          fmt.p_value(q["bd_p_adjusted"]),
                          fmt.p_value(q["wilcoxon_p_value"]),
                          fmt.p_value(q["wilcoxon_p_adjusted"]),
                          wilcoxon_decision(q, q["method"] if q["rank_difference"] < 0
                                            else ct["method"]))
            con.print(b)
        if c.meta.get("bayes"):
            first = c.meta["bayes"][0]
            b = Table(title=f"Bayesian {first['test']} test (rope {first['rope']:g}, "
                            f"{first['runs']} run(s) of CV): posterior probabilities",
                      show_edge=False, pad_edge=False)
            for col in ("A", "B", "P(A better)", "P(rope)", "P(B better)"):
                b.add_column(col, justify="left" if col in "AB" else "right", overflow="fold")
            for q in c.meta["bayes"]:
                b.add_row(q["a"], q["b"], f"{q['p_a_better']:.3f}", f"{q['p_rope']:.3f}",
                          f"{q['p_b_better']:.3f}")
            con.print(b)
        con.print()
    if files:
        con.print(written(files), highlight=False, markup=False)
