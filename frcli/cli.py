"""The ``frcli`` command line: argument parsing, rendering and exit codes, nothing else.

Each sub-command lives in ``frcli/commands/<name>.py`` with a ``register(app)`` function and
imports its heavy dependencies (pandas, matplotlib, the engines) inside the command body, so
``frcli --help`` and ``frcli rank`` start fast.
"""
from __future__ import annotations

import os
import sys

import typer

from frcli.commands import datasets, experiment, rank, results, stats

app = typer.Typer(
    name="frcli",
    help="Feature ranking for structured output prediction (MTR, MLC, HMLC, SSL, unsupervised).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

rank.register(app)
datasets.register(app)
experiment.register(app)
results.register(app)
stats.register(app)


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
) -> None:
    if debug:
        os.environ["FRCLI_DEBUG"] = "1"


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user errors print one line and exit 2, internal errors exit 1."""
    from frcli.errors import UserError

    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        app(args=argv, prog_name="frcli", standalone_mode=False)
    except UserError as e:
        if debug:
            raise
        typer.echo(f"error: {e}", err=True)
        return e.exit_code
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130
    except SystemExit as e:  # raised by typer for --help etc.
        return int(e.code or 0)
    except Exception as e:  # noqa: BLE001 - the last line of defence
        import click

        if isinstance(e, click.exceptions.Exit):
            return e.exit_code
        if isinstance(e, click.ClickException):  # usage errors are user errors
            e.show()
            return 2
        if isinstance(e, click.exceptions.Abort):
            typer.echo("aborted", err=True)
            return 1
        if debug:
            raise
        typer.echo(f"internal error: {type(e).__name__}: {e} (run with --debug for details)",
                   err=True)
        return 1
    return 0


def _entry() -> None:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
