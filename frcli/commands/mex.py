"""``frcli mex``: the Mars Express case study (thesis Ch. 8): simulate a mission in the
challenge's layout, build its features for a Δt, rank, compare rankings, run the whole study."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

mex_app = typer.Typer(name="mex", no_args_is_help=True, add_completion=False,
                      help="Mars Express thermal power (thesis Ch. 8): simulate, build, rank, "
                           "fuji, run.")


def _say(msg: str) -> None:
    typer.echo(f"[mex] {msg}", err=True)


@mex_app.command("simulate")
def simulate_command(
    out: Path = typer.Argument(..., metavar="OUT", help="Folder to write (train_set/, test_set/)."),
    years: float = typer.Option(4.0, "--years", help="Martian years (687 days each); the last "
                                "of two or more goes to test_set/."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    force: bool = typer.Option(False, "--force", help="Write into a folder that has files."),
) -> None:
    """Write a synthetic mission in the challenge's exact layout, with planted drivers
    (simulation.json records them). Example: frcli mex simulate mission --years 4 --seed 0"""
    from frcli.data.mex.simulate import simulate
    from frcli.errors import ConfigError

    if years <= 0 or years * 687 < 1:
        raise ConfigError(f"bad value {years!r} for --years (at least one day, 0.0015)")
    if out.exists() and any(out.iterdir()) and not force:
        raise ConfigError(f"{out} is not empty (use --force to write into it)")
    truth = simulate(out, years=years, seed=seed, log=_say)
    _say(f"wrote {truth['power_rows']} power rows, {truth['saaf_rows']} SAAF rows in "
         f"{len(truth['periods'])} period(s) to {out}")


@mex_app.command("build")
def build_command(
    raw: Path = typer.Argument(..., metavar="RAW",
                               help="A folder in the challenge's layout (train_set/, test_set/)."),
    dt: int = typer.Option(15, "--dt", help="Interval length in minutes."),
    output: Path = typer.Option(..., "--output", "-o", help="The features: .arff or .parquet."),
    features: str = typer.Option("8a", "--features",
                                 help="8a (influx, DMOP, FTL), 8b (influx, EVT, FTL) or all."),
) -> None:
    """Build the features of papers 8a/8b for one Δt, streamed by time block (docs/mex.md).
    Example: frcli mex build mission --dt 15 --output mex15.arff"""
    from frcli.data.mex.build import build, table2_note

    s = build(raw, dt, output, features=features, log=_say)
    groups = ", ".join(f"{g} {c}" for g, c in s.groups.items() if c)
    typer.echo(f"{s.output}: {s.rows} rows (of {s.intervals} intervals; {s.dropped} dropped "
               f"for missing observations, {s.interpolated} interpolated), {s.n_features} "
               f"features ({groups}), {s.n_targets} targets, {s.seconds:.1f} s")
    for note in s.notes + [table2_note(s)]:
        if note:
            typer.echo(note)


@mex_app.command("rank")
def rank_command(
    data: Path = typer.Argument(..., metavar="DATA", help="A file written by frcli mex build."),
    model: str = typer.Option("g-rf", "--model", "-m",
                              help="g-rf, l-rf, boost (8a), g-pct, l-pct (8b's single trees)."),
    param: list[str] = typer.Option([], "--param", "-p", metavar="KEY=VALUE",
                                    help="trees (200), max_features (0.25), min_leaf "
                                         "(500/Δt), learning_rate, max_depth, patience."),
    output: Optional[Path] = typer.Option(None, "--output", "-o",
                                          help="CSV of target, feature, group, importance."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Group diagrams (.png)."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
) -> None:
    """Fit a model on every row of DATA and rank the features per target (Genie3; boosting:
    total gain); prints the share of each feature group per target (8a Fig. 8).
    Example: frcli mex rank mex15.arff --model g-rf -p trees=50 --plot groups.png"""
    from frcli.commands.rank import parse_param_options
    from frcli.data.mex.build import GROUPS, group_of, read_built
    from frcli.mex.evaluate import group_shares
    from frcli.mex.models import fit, spec_from

    params = parse_param_options(param)
    spec = spec_from(model, {k: _number(v) for k, v in params.items()})
    built = read_built(data)
    m = fit(built.dataset, spec, int(built.meta["dt"]), seed=seed)
    _say(f"{model}: {m.grown} {'rounds' if model == 'boost' else 'trees'} per model, "
         f"{m.seconds:.1f} CPU s")
    shares = group_shares(m.importances, m.feature_names)
    overall = group_shares(m.overall[None, :], m.feature_names)[0]
    used = [k for k, g in enumerate(GROUPS) if shares[:, k].any() or overall[k] > 0]
    typer.echo("target      " + "".join(f"{GROUPS[k]:>8}" for k in used))
    for t, r in zip(m.target_names + ["all"], list(shares) + [overall]):
        cells = "".join(f"{r[k]:8.2f}" for k in used) if r.sum() > 0 else "   (constant model)"
        typer.echo(f"{t:<12}{cells}")
    if output is not None:
        import csv

        with open(output, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["target", "feature", "group", "importance"])
            for t, row in zip(m.target_names + ["all"], list(m.importances) + [m.overall]):
                for name, v in zip(m.feature_names, row):
                    w.writerow([t, name, group_of(name) or "", repr(float(v))])
        _say(f"wrote {output}")
    if plot is not None:
        from frcli.mex.figures import group_diagrams

        group_diagrams(shares, m.target_names, plot, f"{model} on {data.name}", overall)
        _say(f"wrote {plot}")


def _number(v):
    if isinstance(v, list):
        from frcli.errors import ConfigError

        raise ConfigError("frcli mex rank takes one value per parameter")
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


@mex_app.command("fuji")
def fuji_command(
    first: Path = typer.Argument(..., metavar="RANKING_A", help="CSV from frcli mex rank."),
    second: Path = typer.Argument(..., metavar="RANKING_B", help="CSV from frcli mex rank."),
    target: str = typer.Option("all", "--target", "-t",
                               help="A target, or all (the overall ranking)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="The FUJI curve (.png)."),
) -> None:
    """The fuzzy Jaccard index of two rankings for the top j features, j = 1..F (8b), and
    its mean (AUFUJI). Example: frcli mex fuji first.csv second.csv --target NPWD2531"""
    import numpy as np

    from frcli.stats.fuji import fuji_curve

    a, b = _ranking(first, target), _ranking(second, target)
    if set(a) != set(b):
        from frcli.errors import DataError

        only = sorted(set(a) ^ set(b))[0]
        raise DataError(f"the rankings score different features (e.g. {only!r})", str(second))
    names = sorted(a)
    c = fuji_curve([a[n] for n in names], [b[n] for n in names])
    typer.echo(f"AUFUJI {float(np.mean(c)):.4f} over {len(names)} features; FUJI at top "
               + ", ".join(f"{j}: {c[j - 1]:.3f}" for j in (1, 5, 10, 20, 50) if j <= len(c)))
    if plot is not None:
        from frcli.mex.figures import fuji_figure

        fuji_figure({target: c}, plot, f"{first.name} vs {second.name}")
        _say(f"wrote {plot}")


def _ranking(path: Path, target: str) -> dict[str, float]:
    import csv

    from frcli.errors import DataError

    if not path.is_file():
        raise DataError("no such file", str(path))
    out: dict[str, float] = {}
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        if rd.fieldnames is None or not {"target", "feature", "importance"} <= set(rd.fieldnames):
            raise DataError("not a ranking from frcli mex rank (columns target, feature, "
                            "group, importance)", str(path), 1)
        for line, row in enumerate(rd, start=2):
            if row["target"] == target:
                try:
                    out[row["feature"]] = float(row["importance"])
                except ValueError:
                    raise DataError(f"importance {row['importance']!r} is not a number",
                                    str(path), line) from None
    if not out:
        raise DataError(f"no ranking for target {target!r}", str(path))
    return out


@mex_app.command("run")
def run_command(
    config: Path = typer.Argument(..., metavar="CONFIG", help="A mex config (configs/mex.yaml)."),
) -> None:
    """Run the whole case study of CONFIG (simulate if asked, build every Δt, fit, rank,
    evaluate, draw); resumes from what its output folder holds.
    Example: frcli mex run configs/mex.yaml"""
    from frcli.mex.pipeline import load_config, run

    cfg = load_config(config)
    s = run(cfg, log=_say)
    typer.echo(f"{cfg.output}/summary.json: {len(s['results'])} results")
    for r in s["results"]:
        if "rmse" in r:
            typer.echo(f"dt {r['dt']:>3} {r['model']:<6} RMSE {r['rmse']:.4f}  "
                       f"{r['estimated_seconds']:.1f} CPU s")
        elif "skipped" in r:
            typer.echo(f"dt {r['dt']:>3} {r['model']:<6} skipped: {r['skipped']}")
        else:
            typer.echo(f"dt {r['dt']:>3} {r['model']:<6} about {r['estimated_seconds']:.0f} "
                       f"CPU s (estimated from {r['fraction']:g} of the ensemble)")


def register(app: typer.Typer) -> None:
    app.add_typer(mex_app, name="mex")
