"""The ``frcli`` command line: argument parsing, rendering and exit codes, nothing else.

Each sub-command lives in ``frcli/commands/<name>.py`` with a ``register(app)`` function and
imports its heavy dependencies (pandas, matplotlib, the engines) inside the command body, so
``frcli --help`` and ``frcli rank`` start fast.
"""
from __future__ import annotations

import os
import sys

import typer

from frcli.commands import datasets, experiment, mex, rank, report, results, stats, tree

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
report.register(app)
tree.register(app)
mex.register(app)


def _show_version(value: bool) -> None:
    if value:
        from frcli import __version__

        typer.echo(f"frcli {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_show_version,
                                 help="Show the version and exit."),
) -> None:
    if debug:
        os.environ["FRCLI_DEBUG"] = "1"


def _flags_show_no_type() -> None:
    """typer's help prints ``<bool>`` after on/off flags, which reads as if they took a value
    (``--semi-supervised true``, then rejected as an extra argument). Flags take none, so the
    help shows none."""
    try:
        from typer.core import TyperOption
    except ImportError:  # pragma: no cover - another typer layout: its help is its own
        return
    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "_frcli", False):
        return

    def display_type_rich(self, ctx):
        if getattr(self, "is_flag", False) and self.metavar is None:
            return None
        return shown(self, ctx)

    display_type_rich._frcli = True
    TyperOption.display_type_rich = display_type_rich


_flags_show_no_type()


def _help_wraps() -> None:
    """typer's help cuts a word longer than its table column with an ellipsis
    (``{symbolic|genie3|rf}-{rf…`` at 80 columns): rich's default for a table cell and for the
    columns that group an option's help with its default. Help must wrap at any width and
    never lose text, so here a word that does not fit folds onto the next line instead."""
    try:
        from rich.columns import Columns
        from rich.table import Table
        from rich.text import Text
        from typer import rich_utils
    except ImportError:  # pragma: no cover - typer without rich: click's help wraps already
        return
    if getattr(rich_utils.Table, "_frcli", False):
        return

    class FoldingTable(Table):
        _frcli = True

        def add_column(self, *args, **kwargs):
            kwargs.setdefault("overflow", "fold")
            return super().add_column(*args, **kwargs)

        def add_row(self, *renderables, **kwargs):
            while len(self.columns) < len(renderables):   # the columns typer leaves implicit
                self.add_column()
            return super().add_row(*renderables, **kwargs)

    class FoldingColumns(Columns):
        def __init__(self, renderables=None, *args, **kwargs):
            for r in renderables or ():
                if isinstance(r, Text) and r.overflow is None:
                    r.overflow = "fold"
            super().__init__(renderables, *args, **kwargs)

    rich_utils.Table = FoldingTable
    rich_utils.Columns = FoldingColumns


_help_wraps()


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user errors print one line and exit 2, internal errors exit 1."""
    import warnings

    argv = list(argv if argv is not None else sys.argv[1:])
    debug = "--debug" in argv
    before = os.environ.get("FRCLI_DEBUG")
    if debug:  # accepted anywhere on the line, not only before the command
        argv = [a for a in argv if a != "--debug"]
        os.environ["FRCLI_DEBUG"] = "1"
    # catch_warnings restores showwarning afterwards and resets the "already shown" registry,
    # so every call (tests call main() many times) shows its own warnings
    from frcli.errors import option_style

    try:
        # messages name options as flags (--targets), not as Python keywords (targets=)
        with warnings.catch_warnings(), option_style("cli"):
            if not debug:  # one line per warning, not "file:line: UserWarning:" + source
                warnings.showwarning = _show_warning
            return _run(argv, debug)
    finally:  # main() may be called many times in one process (tests, notebooks)
        if before is None:
            os.environ.pop("FRCLI_DEBUG", None)
        else:
            os.environ["FRCLI_DEBUG"] = before


def _run(argv: list[str] | None, debug: bool) -> int:
    from frcli.errors import Terminated, UserError

    try:
        rc = app(args=argv, prog_name="frcli", standalone_mode=False)
        if rc == 130:     # typer turns Ctrl-C (and so our SIGTERM) into a silent Exit(130)
            raise Terminated() if Terminated.received else KeyboardInterrupt()
        if isinstance(rc, int) and rc:  # typer.Exit(code) comes back as a return value
            return rc
    except UserError as e:
        if debug:
            raise
        typer.echo(f"error: {e}", err=True)
        return e.exit_code
    except OSError as e:
        # a file-system refusal on a path the user gave (unwritable --output, a directory
        # where a file is expected, a full disk): the user's to fix, so exit 2 in one line
        if debug or e.filename is None:
            if debug:
                raise
            typer.echo(f"internal error: {type(e).__name__}: {e} (run with --debug for "
                       "details)", err=True)
            return 1
        typer.echo(f"error: {e.filename}: {e.strerror or e}", err=True)
        return 2
    except Terminated:
        typer.echo("terminated", err=True)
        return 143
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130
    except SystemExit as e:  # raised by typer for --help etc.
        return int(e.code or 0)
    except Exception as e:  # noqa: BLE001 - the last line of defence
        exit_types, usage_types, abort_types = _click_exception_types()
        if isinstance(e, exit_types):
            return int(getattr(e, "exit_code", 0) or 0)
        if isinstance(e, usage_types):  # a bad option or value: the user's, in one line
            if debug:
                raise
            if not e.format_message().strip():  # no_args_is_help: the help was the message
                return 2
            ctx = getattr(e, "ctx", None)
            hint = f" (see {ctx.command_path} --help)" if ctx is not None else ""
            typer.echo(f"error: {e.format_message()}{_flag_value_hint(e, argv)}{hint}",
                       err=True)
            return 2
        if isinstance(e, abort_types):
            typer.echo("aborted", err=True)
            return 1
        if debug:
            raise
        typer.echo(f"internal error: {type(e).__name__}: {e} (run with --debug for details)",
                   err=True)
        return 1
    return 0


def _flag_value_hint(e: Exception, argv: list[str] | None) -> str:
    """``--semi-supervised true``: on/off flags take no value; say so."""
    import re

    m = re.search(r"unexpected extra argument(?:s|\(s\))? \((.+)\)", e.format_message())
    if not m or not argv:
        return ""
    extra = m.group(1).split()
    words = {"true", "false", "yes", "no", "on", "off", "1", "0"}
    for i, a in enumerate(argv[1:], start=1):
        if a in extra and a.lower() in words and argv[i - 1].startswith("--"):
            return (f"; {argv[i - 1]} is an on/off flag and takes no value: write "
                    f"{argv[i - 1]} to switch it on, leave it out for off")
    return ""


def _click_exception_types() -> tuple[tuple, tuple, tuple]:
    """(exit, usage error, abort) classes of the click that typer uses: its own copy
    ``typer._click`` (typer >= 0.20, which no longer depends on click) or, in older typers,
    click itself. click is not a dependency of frcli, so it is imported only when typer has no
    copy of its own (it may be absent: a plain ``pip install .`` does not bring it)."""
    import importlib

    exits, usage, aborts = [typer.Exit], [], [typer.Abort]
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        usage.append(mod.ClickException)
        for cls, into in (("Exit", exits), ("Abort", aborts)):
            if hasattr(mod, cls):
                into.append(getattr(mod, cls))
        break                      # typer uses its copy when it has one, never both
    return tuple(exits), tuple(usage), tuple(aborts)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings (unlabelled rows, ignored string attributes, ...) as ``warning: ...`` lines;
    notices (an identifier column left out) as ``note: ...`` lines."""
    from frcli.errors import Notice

    text = str(message).strip()
    if issubclass(category, Notice):
        print(f"note: {text}", file=file if file is not None else sys.stderr)
        return
    if category is not UserWarning:
        text = f"{category.__name__}: {text}"
    print(f"warning: {text}", file=file if file is not None else sys.stderr)


def _entry() -> None:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
