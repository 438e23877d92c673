"""``frcli rank``: one data file, one method, its ranking(s) in the format asked for."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

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
        path: Path = typer.Argument(
            ..., help="ARFF, CSV or TSV data file, or a catalog name (frcli datasets list)."),
        method: str = typer.Option("uniform", "--method", "-m",
                                   help="Ranking method, e.g. genie3-rf, relief, uniform."),
        task: Optional[str] = typer.Option(None, help="Override the inferred task."),
        targets: Optional[str] = typer.Option(
            None, help="Targets: last:N, names (a,b), or 1-based ranges (8-11)."),
        labels: Optional[Path] = typer.Option(None, help="Mulan label list (.xml)."),
        hierarchy: Optional[str] = typer.Option(None, help="tree or dag (hierarchical targets)."),
        nominal: Optional[str] = typer.Option(None, help="CSV: columns to treat as nominal."),
        semi_supervised: bool = typer.Option(
            False, "--semi-supervised", help="Rows with unknown targets are unlabelled."),
        param: list[str] = typer.Option([], "--param", "-p",
                                        help="Method parameter key=value (repeatable)."),
        seed: int = typer.Option(0, help="Random seed."),
        jobs: int = typer.Option(1, "--jobs", "-j", help="Threads for the engines."),
        output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to a file."),
        fmt: Optional[str] = typer.Option(
            None, "--format", "-f", help="table, csv, json or fimp (default: from --output)."),
        which: str = typer.Option(
            "0", help="For parameter grids: index of the ranking to show, or 'all'."),
        list_methods: bool = typer.Option(False, "--list-methods",
                                          help="List the methods and their parameters."),
    ) -> None:
        """Rank the features of a data set."""
        from frcli.errors import ConfigError, UserError
        from frcli.output import FORMATS, render

        if list_methods:
            typer.echo(describe_methods())
            return
        if fmt is None:
            fmt = FORMAT_BY_SUFFIX.get(output.suffix.lower(), "table") if output else "table"
        fmt = fmt.lower()
        if fmt not in FORMATS:
            raise ConfigError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
        if jobs < 1:
            raise ConfigError("--jobs must be at least 1")
        from frcli.api import rank_all

        options = {"targets": targets, "labels": str(labels) if labels else None,
                   "task": task, "hierarchy": hierarchy,
                   "nominal": nominal.split(",") if nominal else None,
                   "semi_supervised": semi_supervised or None}
        dataset = _load(path, {k: v for k, v in options.items() if v is not None})
        rankings = rank_all(dataset, method, seed=seed, jobs=jobs,
                            **parse_param_options(param))
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
        text = render(rankings, fmt, which=index, dataset_name=dataset.name)
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text)
            typer.echo(f"wrote {output}", err=True)


def _load(path: Path, options: dict):
    """A file, or failing that a catalog name (whose entry knows targets and hierarchy)."""
    from frcli.errors import UserError

    if path.exists():
        from frcli.data import load_dataset

        return load_dataset(path, **options)
    from frcli.data import catalog

    name = str(path)
    if path.suffix or name not in catalog.catalog():
        raise UserError(f"{path}: no such file (nor a data set of the catalog)")
    if set(options) - {"semi_supervised"}:
        raise UserError(f"{name!r} is a catalog name: its targets and task come from "
                        "configs/datasets.yaml; give a file path to choose them yourself")
    return catalog.load(name, semi_supervised=bool(options.get("semi_supervised")))


def describe_methods() -> str:
    """Every registered method with its tasks and parameters (imports each ranker)."""
    from frcli.rankers import registry

    lines = []
    for name in registry.method_names():
        try:
            ranker = registry.get_ranker(name)
        except ImportError:
            lines.append(f"{name}: (engine not built)")
            continue
        params = ", ".join(f"{p.name}={p.default}" for p in ranker.params) or "no parameters"
        lines.append(f"{name}: tasks {', '.join(ranker.tasks)}; {params}")
    return "\n".join(lines)
