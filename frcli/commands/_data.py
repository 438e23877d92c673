"""The data options that ``frcli rank``, ``frcli tree`` and ``frcli datasets info`` share, and
loading a data set with them.

Each option is declared once here (its flag, its help) and used by every command that reads
data, so the commands accept the same data in the same way; ``DataOptions`` carries the
values to the loader (``frcli.data.catalog.open_data``: a file, or failing that a catalog
name whose entry the options override).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

Targets = Annotated[Optional[str], typer.Option(
    "--targets", "-t", help="Targets: last:N, names (a,b), or 1-based ranges (8-11).")]
Labels = Annotated[Optional[Path], typer.Option(
    "--labels", help="Mulan label list (.xml) naming the targets.")]
Task = Annotated[Optional[str], typer.Option(
    "--task", help="Override the inferred task: classification, regression, mtr, mlc, hmlc or "
                   "unsupervised.")]
Hierarchy = Annotated[Optional[str], typer.Option(
    "--hierarchy", help="Type of a hierarchical target: tree or dag (default: inferred from "
                        "the labels).")]
Nominal = Annotated[Optional[str], typer.Option(
    "--nominal", metavar="COL,...", help="Columns to read as nominal (CSV), comma-separated.")]
Drop = Annotated[Optional[str], typer.Option(
    "--drop", metavar="COL,...", help="Columns to leave out, comma-separated (e.g. an "
                                      "identifier the automatic rule does not catch).")]
Keep = Annotated[Optional[str], typer.Option(
    "--keep", metavar="COL,...", help="Columns to keep although they look like identifiers "
                                      "(a distinct value in every row: left out by default), "
                                      "comma-separated.")]
SemiSupervised = Annotated[bool, typer.Option(
    "--semi-supervised", help="Rows with unknown targets are expected: keep them as "
                              "unlabelled rows (no warning).")]


def _names(value: str | None) -> list[str] | None:
    return [s.strip() for s in value.split(",") if s.strip()] if value else None


@dataclass
class DataOptions:
    """The shared data options as given on the command line (None: not given)."""

    targets: str | None = None
    labels: Path | None = None
    task: str | None = None
    hierarchy: str | None = None
    nominal: str | None = None
    drop: str | None = None
    keep: str | None = None
    semi_supervised: bool = False

    def given(self) -> list[str]:
        """The options given, as flags (``--targets``), for messages."""
        return ["--" + k.replace("_", "-") for k, v in asdict(self).items()
                if v not in (None, False)]

    def loader(self) -> dict:
        """Keyword arguments for the loaders (only the options given)."""
        out = {"targets": self.targets, "labels": str(self.labels) if self.labels else None,
               "task": self.task, "hierarchy": self.hierarchy,
               "nominal": _names(self.nominal), "drop": _names(self.drop),
               "keep": _names(self.keep), "semi_supervised": self.semi_supervised or None}
        return {k: v for k, v in out.items() if v is not None}


def load_data(path: Path | str, options: DataOptions):
    """The data set at ``path`` (a file, a relational folder, or a catalog name); a file
    with a header and no rows is an error."""
    from frcli.data.catalog import open_data
    from frcli.errors import UserError

    dataset = open_data(path, **options.loader())
    if dataset.n_examples == 0:
        raise UserError(f"{path}: no data rows (the file has a header but no examples)")
    return dataset
