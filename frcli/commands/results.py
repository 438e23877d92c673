"""``frcli results export DIR``: the stored results as one tidy table."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    results = typer.Typer(help="Inspect and export experiment results.", no_args_is_help=True)
    app.add_typer(results, name="results")

    @results.command("export")
    def export_command(
        directory: Path = typer.Argument(..., metavar="DIRECTORY",
                                         help="A result folder (OUTPUT/<name>/), or a folder "
                                              "of them (OUTPUT/)."),
        fmt: Optional[str] = typer.Option(None, "--format", "-f",
                                          help="csv or parquet (default: from --output, "
                                               "else csv)."),
        output: Optional[Path] = typer.Option(None, "--output", "-o",
                                              help="File to write (default: CSV to stdout)."),
        all_runs: bool = typer.Option(
            False, "--all", help="Also runs of config entries removed since (normally left "
                                 "out)."),
    ) -> None:
        """Export a result folder as one tidy table, one row per run and measure.

        Columns: dataset, split, labeled, method, params, measure, value, rank_time_s,
        eval_time_s; a folder of result folders (results/) exports them all, with an
        experiment column first. Example: frcli results export results/quickstart > qs.csv
        """
        from frcli.errors import choices_error, UserError
        from frcli.results.store import tidy_frames

        if fmt is None:
            fmt = "parquet" if output is not None and output.suffix == ".parquet" else "csv"
        if fmt not in ("csv", "parquet"):
            raise choices_error("format", fmt, ("csv", "parquet"))
        if fmt == "parquet" and output is None:
            raise UserError("--format parquet needs --output FILE")
        df = tidy_frames(directory, all_runs)
        if output is not None:  # like `rank --output`: create the folder, refuse a folder
            if output.is_dir():
                raise UserError(f"--output {output} is a directory; give a file name")
            output.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "parquet":
            try:
                df.to_parquet(output, index=False)
            except ImportError:
                raise UserError("parquet export needs pyarrow (pip install pyarrow)") from None
        elif output is None:
            df.to_csv(sys.stdout, index=False, float_format="%.10g")
        else:
            df.to_csv(output, index=False, float_format="%.10g")
