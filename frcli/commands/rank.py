"""``frcli rank``: one data file, one method, its ranking(s) in the format asked for."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from frcli.commands import _data
from frcli.rankers.registry import DEFAULT_METHOD

FORMAT_BY_SUFFIX = {".csv": "csv", ".json": "json", ".fimp": "fimp", ".txt": "table"}
PLOT_SUFFIXES = (".png", ".pdf", ".svg")
# one meaning of --jobs in every command: how many cores work at once (frcli experiment: as
# worker processes; here: as the engine's threads)
JOBS_HELP = ("Parallel jobs: the cores to use at once, here as engine threads (trees, Relief "
             "instances); the ranking is the same for any value.")


def parse_param_options(items: list[str]) -> dict[str, object]:
    """``--param key=value`` (repeatable); ``value`` may be a comma list, giving a grid."""
    from frcli.errors import ConfigError

    params: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--param expects key=value, got {item!r}")
        if key in params:
            raise ConfigError(f"parameter '{key}' given twice")
        parts = [p.strip() for p in value.split(",")]
        params[key] = parts if len(parts) > 1 else parts[0]
    return params


def register(app: typer.Typer) -> None:
    @app.command("rank")
    def rank_command(
        path: Optional[Path] = typer.Argument(
            None, metavar="DATA",
            help="ARFF, CSV or TSV data file, a relational folder (settings file *.s or "
                 "schema.yaml), or a catalog name (frcli datasets list)."),
        method: Optional[str] = typer.Option(
            None, "--method", "-m",
            help=f"Ranking method (default: {DEFAULT_METHOD}, the Genie3 score of the "
                 "ensemble the papers chose for the task): "
                 "{symbolic|genie3|rf}[-{rf|bagging|et}][-str], relief, "
                 "relief-str, uniform, random; relational data: "
                 "{symbolic|genie3}-{tree|bagging|rf|boost} (see --list-methods); several "
                 "separated by commas (genie3-rf,symbolic-rf,rf-rf: one forest, every ranking "
                 "written)."),
        task: _data.Task = None,
        targets: _data.Targets = None,
        labels: _data.Labels = None,
        hierarchy: _data.Hierarchy = None,
        nominal: _data.Nominal = None,
        drop: _data.Drop = None,
        keep: _data.Keep = None,
        semi_supervised: _data.SemiSupervised = False,
        param: list[str] = typer.Option(
            [], "--param", "-p", metavar="KEY=VALUE",
            help="Method parameter key=value, repeatable; a comma list is a grid "
                 "(trees, max_features, min_leaf, iterations, neighbours, sigma, w, w0, "
                 "distance, ...: see --list-methods)."),
        seed: int = typer.Option(0, "--seed", help="Random seed."),
        jobs: int = typer.Option(1, "--jobs", "-j", help=JOBS_HELP),
        output: Optional[Path] = typer.Option(
            None, "--output", "-o", help="Write to this file (default: a table on stdout)."),
        fmt: Optional[str] = typer.Option(
            None, "--format", "-f", help="table, csv, json or fimp (default: from the "
                                         "--output suffix, else table)."),
        sort: Optional[str] = typer.Option(
            None, "--sort", help="Rows of the table, CSV and JSON: rank (the most important "
                                 "first, the default) or columns (the data set's order). "
                                 ".fimp files keep CLUS's order (the data set's)."),
        plot: Optional[Path] = typer.Option(
            None, "--plot", help="Also draw the ranking (.png, .pdf or .svg): the top "
                                 "features' importances, their rank intervals with "
                                 "--stability, and for mtr, mlc and hmlc a per-target heat "
                                 "map."),
        stability: Optional[int] = typer.Option(
            None, "--stability", metavar="N",
            help="Also rank N more times on resamples and report each feature's mean rank, "
                 "its 90 % interval and the runs' agreement (mean Spearman, FUJI of the top "
                 "10). Costs about N more rankings (said on stderr before they start)."),
        resample: str = typer.Option(
            "rows", "--resample",
            help="What --stability varies: rows (each run: 63.2 % of the rows, without "
                 "replacement, and a new seed) or seeds (every row, a new seed: the method's "
                 "own randomness only)."),
        which: str = typer.Option(
            "0", "--which", help="For parameter grids: index of the ranking to write, "
                                 "or 'all'."),
        list_methods: bool = typer.Option(False, "--list-methods",
                                          help="List the methods and their parameters."),
        progress: Optional[bool] = typer.Option(
            None, "--progress/--no-progress",
            help="Progress bar of trees grown / Relief instances done (default: on a "
                 "terminal)."),
    ) -> None:
        """Rank the features of a data set.

        Examples: frcli rank synth-mtr; frcli rank data.csv --targets y --drop sample_id;
        frcli rank data.arff --targets last:3 --method relief -p neighbours=5,10 --which all
        """
        from frcli.errors import ConfigError, UserError
        from frcli.output import FORMATS, render

        if list_methods:
            typer.echo(describe_methods())
            return
        if path is None:
            raise UserError("missing DATA: give a data file or a catalog name "
                            "(frcli rank DATA --method METHOD; frcli rank --help)")
        if fmt is None and output is not None:
            fmt = FORMAT_BY_SUFFIX.get(output.suffix.lower())
            if fmt is None:  # do not silently write a text table into "r.xlsx"
                raise ConfigError(f"cannot tell the format of --output {output} from its "
                                  f"suffix; use one of {', '.join(FORMAT_BY_SUFFIX)} or give "
                                  f"--format ({', '.join(FORMATS)})")
        fmt = fmt or "table"
        fmt = fmt.lower()
        if fmt not in FORMATS:
            raise ConfigError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
        if jobs < 1:
            raise ConfigError("--jobs must be at least 1")
        sort = _check_sort(sort, fmt)
        if plot is not None and plot.suffix.lower() not in PLOT_SUFFIXES:
            raise ConfigError(f"--plot {plot}: give a {', '.join(PLOT_SUFFIXES)} file")
        if stability is not None:
            from frcli.stats.stability import MAX_RUNS, RESAMPLES

            if not 2 <= stability <= MAX_RUNS:
                raise ConfigError(f"--stability {stability}: give 2..{MAX_RUNS} runs")
            if resample not in RESAMPLES:
                raise ConfigError(f"--resample {resample!r}; allowed: {', '.join(RESAMPLES)}")
        for dest in (output, plot):    # before any work, so a bad path loses nothing
            if dest is not None:
                _check_destination(dest)
        from frcli.api import rank_all

        dataset = _data.load_data(path, _data.DataOptions(
            targets=targets, labels=labels, task=task, hierarchy=hierarchy, nominal=nominal,
            drop=drop, keep=keep, semi_supervised=semi_supervised))
        from frcli.commands import kernel_progress

        params = parse_param_options(param)
        defaulted = method is None
        methods = (method or DEFAULT_METHOD).split(",")
        if stability is not None and (len(methods) > 1 or any(isinstance(v, list)
                                                               for v in params.values())):
            raise ConfigError("--stability measures one ranking: give one method and no "
                              "parameter list")
        with kernel_progress(progress):
            t0 = time.perf_counter()
            if len(methods) > 1:  # several methods: one forest per ensemble, every ranking
                from frcli.api import rank_methods

                rankings = rank_methods(dataset, methods, seed=seed, jobs=jobs, **params)
                which = "all" if which == "0" else which
            else:
                rankings = rank_all(dataset, methods[0], seed=seed, jobs=jobs, **params)
            if stability is not None:
                rankings[0].stability = _stability(dataset, methods[0], params, stability,
                                                   resample, seed, jobs,
                                                   time.perf_counter() - t0, progress)
        if which == "all":
            index = None
        else:
            try:
                index = int(which)
            except ValueError:
                raise ConfigError(f"--which expects an index or 'all', got {which!r}") from None
            if not 0 <= index < len(rankings):
                raise ConfigError(f"--which {index} is out of range: the parameters give "
                                  f"{len(rankings)} ranking(s)")
        if fmt == "fimp" and output is not None and index is None and len(methods) > 1:
            _write_fimp_per_method(rankings, output, dataset.name)
            return
        if index is not None and len(rankings) > 1:   # say the grid was computed, and where
            from frcli.rankers.labels import labels as method_labels

            names = method_labels([(r.method, r.params) for r in rankings])
            typer.echo(f"note: the parameters give {len(rankings)} rankings; this is number "
                       f"{index}, {names[index]}; choose another with --which N (0 to "
                       f"{len(rankings) - 1}) or show all with --which all", err=True)
        text = render(rankings, fmt, which=index, dataset_name=dataset.name, sort=sort)
        if defaulted and fmt == "table":
            text = _say_default(text)
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text)
            typer.echo(f"wrote {output}", err=True)
        if stability is not None and output is not None:
            typer.echo(rankings[0].stability.summary(), err=True)   # the table shows it
        if plot is not None:
            if index is None and len(rankings) > 1:
                from frcli.rankers.labels import labels as method_labels

                typer.echo(f"note: --plot draws one ranking, number 0, "
                           f"{method_labels([(r.method, r.params) for r in rankings])[0]}; "
                           f"--which N draws another", err=True)
            _plot(rankings[0 if index is None else index], plot, dataset)


def _check_destination(path: Path) -> None:
    """``path``'s folder exists (made if need be) and takes files: said now, in one line,
    rather than after the ranking has been computed."""
    import os

    from frcli.errors import UserError

    if path.is_dir():
        raise UserError(f"{path} is a directory; give a file name")
    blocking = next((p for p in path.parents if p.exists()), None)
    if blocking is not None and not blocking.is_dir():
        raise UserError(f"{path}: {blocking} is a file, not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{path}: cannot make its directory ({e.strerror or e})") from None
    if not os.access(path.parent, os.W_OK):
        raise UserError(f"{path}: its directory {path.parent} is not writable")


def _check_sort(sort: str | None, fmt: str) -> str:
    """The row order: rank by default; .fimp files are CLUS's layout, in CLUS's order."""
    from frcli.errors import ConfigError
    from frcli.output import SORTS

    if sort is not None and sort not in SORTS:
        raise ConfigError(f"unknown --sort {sort!r}; allowed: {', '.join(SORTS)}")
    if fmt == "fimp":
        if sort == "rank":
            raise ConfigError("--sort rank does not apply to .fimp: CLUS's layout lists the "
                              "features in the data set's order (with their ranks); use "
                              "csv, json or the table for rank order")
        return "columns"
    return sort or "rank"


def _stability(dataset, method: str, params: dict, runs: int, resample: str, seed: int,
               jobs: int, seconds: float, progress: bool | None):
    """The stability runs, announced first with their cost (one ranking took ``seconds``)."""
    import sys

    from frcli.api import rank_stability
    from frcli.stats.stability import SUBSAMPLE

    what = (f"{SUBSAMPLE:.1%} of the rows and a new seed each" if resample == "rows"
            else "every row, a new seed each")
    more = runs * seconds
    typer.echo(f"stability: {runs} more rankings ({what}); one took {seconds:.1f} s, so "
               f"about {more:.{1 if more < 10 else 0}f} s more at most", err=True)
    show = progress is True or (progress is None and sys.stderr.isatty())

    def step(i: int, n: int) -> None:
        if show:
            typer.echo(f"stability: run {i}/{n} done", err=True)

    return rank_stability(dataset, method, runs=runs, resample=resample, seed=seed,
                          jobs=jobs, progress=step, **params)


def _plot(ranking, path: Path, dataset) -> None:
    from frcli.stats.ranking_plot import ranking_figure, save_figure

    fig = ranking_figure(ranking, title=f"{dataset.name}: " + _header(ranking))
    typer.echo(f"wrote {save_figure(fig, path)}", err=True)


def _header(ranking) -> str:
    from frcli.rankers.labels import header_label

    return header_label(ranking.method, ranking.params, ranking.meta.get("task"),
                        bool(ranking.meta.get("semi_supervised")))


def _say_default(table: str) -> str:
    """The table's header line (``# genie3(trees=100, ...)``) saying that no method was named,
    so a reader knows the ranking came from the default and how to choose another."""
    head, sep, rest = table.partition("\n")
    return (f"{head}  [the default method; --method chooses another, "
            f"frcli rank --list-methods lists them]{sep}{rest}")


def _write_fimp_per_method(rankings, output: Path, dataset_name: str) -> None:
    """CLUS writes one .fimp per ranking method: ``OUT_<method>.fimp`` for each."""
    from frcli.output import by_method, to_fimp

    output.parent.mkdir(parents=True, exist_ok=True)
    for method, group in by_method(rankings):
        path = output.with_name(f"{output.stem}_{method}{output.suffix or '.fimp'}")
        path.write_text(to_fimp(group, dataset_name))
        typer.echo(f"wrote {path}", err=True)


def describe_methods() -> str:
    """The text of ``--list-methods`` (``frcli.rankers.describe``)."""
    from frcli.rankers.describe import describe_methods as describe

    return describe()
