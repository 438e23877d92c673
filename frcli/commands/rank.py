"""``frcli rank``: one data file, one method, its ranking(s) in the format asked for."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from frcli.commands import _data
from frcli.rankers.registry import DEFAULT_METHOD

FORMAT_BY_SUFFIX = {".csv": "csv", ".json": "json", ".fimp": "fimp", ".txt": "table"}


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
        jobs: int = typer.Option(1, "--jobs", "-j", help="Engine threads."),
        output: Optional[Path] = typer.Option(
            None, "--output", "-o", help="Write to this file (default: a table on stdout)."),
        fmt: Optional[str] = typer.Option(
            None, "--format", "-f", help="table, csv, json or fimp (default: from the "
                                         "--output suffix, else table)."),
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
        from frcli.api import rank_all

        dataset = _data.load_data(path, _data.DataOptions(
            targets=targets, labels=labels, task=task, hierarchy=hierarchy, nominal=nominal,
            drop=drop, keep=keep, semi_supervised=semi_supervised))
        from frcli.commands import kernel_progress

        params = parse_param_options(param)
        defaulted = method is None
        methods = (method or DEFAULT_METHOD).split(",")
        with kernel_progress(progress):
            if len(methods) > 1:  # several methods: one forest per ensemble, every ranking
                from frcli.api import rank_methods

                rankings = rank_methods(dataset, methods, seed=seed, jobs=jobs, **params)
                which = "all" if which == "0" else which
            else:
                rankings = rank_all(dataset, methods[0], seed=seed, jobs=jobs, **params)
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
        text = render(rankings, fmt, which=index, dataset_name=dataset.name)
        if defaulted and fmt == "table":
            text = _say_default(text)
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text)
            typer.echo(f"wrote {output}", err=True)


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
