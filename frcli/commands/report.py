"""``frcli report RESULTS_DIR``: one self-contained HTML report per experiment."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report_command(
        results: Path = typer.Argument(..., metavar="RESULTS_DIR",
                                       help="A result folder (OUTPUT/<name>/), or a folder of "
                                            "them (OUTPUT/): one report each."),
        output: Optional[Path] = typer.Option(
            None, "--output", "-o", help="HTML file to write (default: "
                                         "RESULTS_DIR/report.html; one result folder only)."),
        alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the tests."),
    ) -> None:
        """Write an experiment's report: one HTML file with the config, per-data-set tables,
        the average ranks, the statistical tests with CD diagrams, and curves; figures are
        embedded, so it opens offline, anywhere.

        Example: frcli report results/quickstart
        """
        from frcli.errors import ConfigError, UserError
        from frcli.results.store import find_stores
        from frcli.stats.report import write

        if not 0.0 < alpha < 1.0:
            raise ConfigError(f"--alpha must be in (0, 1), got {alpha}")
        stores = find_stores(results)
        if output is not None and len(stores) > 1:
            raise UserError(f"{results} holds {len(stores)} result folders; --output names one "
                            "file, so give one of them (or leave --output out)")
        if output is not None and output.is_dir():
            raise UserError(f"--output {output} is a directory; give a file name (.html)")
        for s in stores:
            typer.echo(f"wrote {write(s, output, alpha=alpha)}")
