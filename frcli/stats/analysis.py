"""One analysis of ``frcli stats``, from a tidy frame to Comparisons, titles, Markdown and
figures: shared by the command, the experiment summary and ``frcli report`` (studies layer;
the command only parses options and prints).
"""
from __future__ import annotations


def analyse(df, measures=None, *, methods=None, datasets=None, group_by=None,
            round_spec="none", alpha=0.05, control=None, correction="bh", lower=None,
            warn=None) -> list:
    """Every analysis of a tidy frame (``frcli.stats.table``) as Comparisons, with their
    ``meta`` (measure, group, experiment, rounding, per-data-set measures, sample-size notes).
    Shared by ``frcli stats``, the experiment summary and ``frcli report``."""
    from frcli.errors import ConfigError
    from frcli.stats import table as tb
    from frcli.stats.tests import compare, small_sample_notes

    rounding, _ = tb.parse_round(round_spec)
    tables = tb.select_tables(df, measures, methods=methods, datasets=datasets,
                              group_by=group_by, round_spec=round_spec, lower=lower, warn=warn)
    comps = []
    for t in tables:
        if control is not None and control not in t.methods:
            raise ConfigError(f"unknown --control {control!r}; methods: " + ", ".join(t.methods))
        lib = t.lower_is_better
        if lib is None:  # a measure of unknown direction: --lower/--higher-is-better
            lib = tb.lower_is_better(t.measure, lower)
        c = compare(t.values, t.methods, t.datasets, lower_is_better=lib,
                    alpha=alpha, control=control, correction=correction)
        notes = small_sample_notes(len(t.datasets), alpha)
        c.meta = {"measure": t.measure, **({"group": t.group} if t.group else {}),
                  **({"experiment": t.experiment} if t.experiment else {}),
                  "rounding": rounding, "dropped_datasets": t.dropped_datasets,
                  "n_splits": t.n_splits,
                  **({"measures": dict(zip(t.datasets, t.measures))} if t.mixed else {}),
                  **({"notes": notes} if notes else {})}
        if t.mixed:  # keep the measured values (the oriented ones were for ranking)
            c.values = t.raw
        if warn is not None:
            where = "".join(f", {k} = {v}" for k, v in c.meta.get("group", {}).items())
            where = (f"{t.experiment}: " if t.experiment else "") + t.measure + where
            for n in notes:
                warn(f"{where}: {n}")
        comps.append(c)
    return comps


def parameter_figures(df, comps, kinds, *, x=None, y=None, round_spec="none") -> list:
    """(comparison, kind, figure) for every heat map / curve plot asked for."""
    if not kinds:
        return []
    from frcli.errors import ConfigError
    from frcli.stats import plots as pl
    from frcli.stats import table as tb

    sub = tb.with_time_measures(df)
    sub = sub.assign(label=tb.method_labels(sub))  # the labels the tables used
    out = []
    for c in comps:
        m = c.meta["measure"]
        if c.meta.get("measures"):
            raise ConfigError(f"--plot {kinds[0]} needs one measure, but {title(c)} ranks "
                              "each data set by its own; choose one with --measure")
        part = sub[sub["measure"] == m]
        if c.meta.get("experiment"):
            part = part[part["experiment"] == c.meta["experiment"]]
        if c.meta.get("group"):
            (gk, gv), = c.meta["group"].items()
            part = part[part[gk].astype(str) == str(gv)] if gk in part.columns else part
        part = part[part["dataset"].isin(c.datasets) & part["label"].isin(c.methods)]
        for p in kinds:
            fn = pl.heatmap_from_frame if p == "heatmap" else pl.curves_from_frame
            out.append((c, p, fn(part, measure=m, lower_is_better=c.lower_is_better, x=x,
                                 y=y, round_spec=round_spec, title=title(c))))
    return out


def measure_title(c) -> str:
    """``rrmse`` or, for the main measure, which measure ranks how many data sets."""
    ms = c.meta.get("measures")
    if not ms:
        return c.meta["measure"]
    from frcli.stats.table import lower_is_better

    counts: dict[str, int] = {}
    for m in ms.values():
        counts[m] = counts.get(m, 0) + 1
    parts = [f"{m} {'↓' if lower_is_better(m) else '↑'} on {n}" for m, n in counts.items()]
    return "main measure (" + ", ".join(parts) + ")"


def title(c) -> str:
    g = "".join(f", {k} = {v}" for k, v in c.meta.get("group", {}).items())
    e = f"{c.meta['experiment']}: " if c.meta.get("experiment") else ""
    n = len(c.datasets)
    return f"{e}{measure_title(c)}{g} (N = {n} data set{'s' if n != 1 else ''})"


NOT_SIGNIFICANT = "no significant difference"


def decision_header(c) -> str:
    """The heading of a pairwise table's Wilcoxon decision column: what decided it."""
    return f"Wilcoxon + {c.correction.upper()} decision (α = {c.alpha:g})"


def wilcoxon_decision(q: dict, better: str | None = None) -> str:
    """One pair's decision in words: which method is better, or no significant difference
    (``better`` overrides the pair's own, for a comparison against a control)."""
    if not q["wilcoxon_significant"]:
        return NOT_SIGNIFICANT
    better = better or q.get("better")
    return f"{better} better" if better else "significant difference"


def rounding_note(c) -> str:
    r = c.meta.get("rounding", "none")
    return "unrounded values" if r == "none" else f"values rounded to {r} before ranking"


# --------------------------------------------------------------------------- files
def summary_frame(c):
    import pandas as pd

    o = c.order
    mixed = bool(c.meta.get("measures"))
    return pd.DataFrame({"method": [c.methods[i] for i in o],
                         "mean": [float("nan") if mixed else c.values[:, i].mean() for i in o],
                         "average_rank": [c.avg_ranks[i] for i in o]})


def markdown(c, heading: str = "##") -> str:
    """One analysis as Markdown: ranks and means, the omnibus test, every pair."""
    from frcli import display as fmt

    s = summary_frame(c)
    fr = c.friedman
    mixed = bool(c.meta.get("measures"))
    lines = [f"{heading} {title(c)}", "",
             f"{len(c.methods)} methods, {'lower' if c.lower_is_better else 'higher'} is "
             f"better, {rounding_note(c)}.", ""]
    if mixed:
        lines += ["| method | average rank |", "|---|---:|"]
        lines += [f"| {r.method} | {fmt.rank(r.average_rank)} |" for r in s.itertuples()]
    else:
        lines += ["| method | mean | average rank |", "|---|---:|---:|"]
        lines += [f"| {r.method} | {fmt.value(r.mean)} | {fmt.rank(r.average_rank)} |"
                  for r in s.itertuples()]
    lines += ["", f"Friedman χ² = {fmt.statistic(fr.chi2)} (df {fr.chi2_df}), "
              f"p = {fmt.p_value(fr.chi2_p)}; Iman–Davenport F = {fmt.statistic(fr.f)} "
              f"(df {fr.f_df[0]}, {fr.f_df[1]}), p = {fmt.p_value(fr.f_p)}; Nemenyi CD = "
              f"{fmt.cd(c.nemenyi_cd)} (α = {c.alpha:g})."]
    for n in c.meta.get("notes", []):
        lines += ["", f"Note: {n}."]
    lines += ["", "| A | B | rank diff. | Nemenyi | Wilcoxon p | adj. p | W/T/L | "
              f"{decision_header(c)} |", "|---|---|---:|:-:|---:|---:|:-:|---|"]
    for q in c.pairs:
        lines.append(f"| {q['a']} | {q['b']} | {fmt.rank(q['rank_difference'])} | "
                     f"{'yes' if q['nemenyi_significant'] else 'no'} | "
                     f"{fmt.p_value(q['wilcoxon_p_value'])} | "
                     f"{fmt.p_value(q['wilcoxon_p_adjusted'])} | "
                     f"{q['a_wins']}/{q['ties']}/{q['b_wins']} | {wilcoxon_decision(q)} |")
    return "\n".join(lines) + "\n"


def cd_figures(c) -> list:
    """(suffix, figure): the CD diagram, and the Bonferroni–Dunn one with a control."""
    from frcli.stats.cd_diagram import cd_diagram

    out = [("cd", cd_diagram(c.methods, c.avg_ranks, cd=c.nemenyi_cd if c.rejects else None,
                             groups=c.groups, friedman_p=c.friedman.f_p, alpha=c.alpha,
                             title=title(c)))]
    if c.control is not None:
        out.append(("cd_bd", cd_diagram(
            c.methods, c.avg_ranks, cd=c.nemenyi_cd if c.rejects else None, groups=c.groups,
            friedman_p=c.friedman.f_p, alpha=c.alpha,
            title=title(c) + f", control {c.control['method']}",
            control=c.control["method"], bd_cd=c.control["bd_cd"])))
    return out
