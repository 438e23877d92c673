"""``frcli tree``: grow one PCT on a data set and show it (CLUS's text, JSON, a drawing)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from frcli.commands import _data

TREE_PARAMS = ("min_leaf", "w", "w0", "ties")
FORMATS = ("text", "json")
MAX_INDENTED_DEPTH = 200    # deeper: compact JSON (indented, it grows with depth squared)


def _tree_params(raw: dict[str, object]) -> dict[str, object]:
    """``--param`` values for a single tree, parsed by the ensemble ranker's declarations."""
    from frcli.errors import ConfigError
    from frcli.rankers.ensemble import EnsembleRanker

    spec = {p.name: p for p in EnsembleRanker.params if p.name in TREE_PARAMS}
    out: dict[str, object] = {}
    for key, value in raw.items():
        if key not in spec:
            raise ConfigError(f"unknown parameter '{key}' for frcli tree; allowed: "
                              f"{', '.join(TREE_PARAMS)}")
        if isinstance(value, list):
            raise ConfigError(f"parameter '{key}' takes one value for a single tree, "
                              f"got {','.join(map(str, value))}")
        v = spec[key].value(value)
        if key == "w" and v == "auto":
            raise ConfigError("w=auto chooses w by cross-validating forests; give a number "
                              "in [0, 1] for a single tree")
        out[key] = v
    return out


def register(app: typer.Typer) -> None:
    @app.command("tree")
    def tree_command(
        path: Path = typer.Argument(
            ..., metavar="DATA",
            help="ARFF, CSV or TSV data file, or a catalog name (frcli datasets list)."),
        targets: _data.Targets = None,
        labels: _data.Labels = None,
        task: _data.Task = None,
        hierarchy: _data.Hierarchy = None,
        nominal: _data.Nominal = None,
        drop: _data.Drop = None,
        keep: _data.Keep = None,
        semi_supervised: _data.SemiSupervised = False,
        param: list[str] = typer.Option(
            [], "--param", "-p", metavar="KEY=VALUE",
            help="min_leaf (2), w (semi-supervised target weight: needed with "
                 "--semi-supervised), w0 (hmlc), ties (first|random)."),
        fmt: str = typer.Option("text", "--format", "-f",
                                help="text (CLUS's layout) or json."),
        output: Optional[Path] = typer.Option(
            None, "--output", "-o", help="Write to this file (default: stdout)."),
        plot: Optional[Path] = typer.Option(
            None, "--plot", help="Also draw the tree into this file (.png, .pdf, .svg; at "
                                 "most 64 leaves)."),
    ) -> None:
        """Grow one predictive clustering tree (all features, no bootstrap) and print it.

        The text is CLUS's "Original Model" layout (tests "x > v" with yes/no branches,
        leaves "[prototype]: weight"), so it diffs against a CLUS .out file; a summary goes to
        stderr. Example: frcli tree wq.arff --targets last:14 -p min_leaf=20 --plot wq.png
        """
        from frcli.commands.rank import parse_param_options
        from frcli.errors import ConfigError
        from frcli.jsonio import dumps

        fmt = fmt.lower()
        if fmt not in FORMATS:
            raise ConfigError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
        if plot is not None and plot.suffix.lower() not in (".png", ".pdf", ".svg"):
            raise ConfigError(f"--plot {plot}: the file must end in .png, .pdf or .svg")
        params = _tree_params(parse_param_options(param))
        dataset = _data.load_data(path, _data.DataOptions(
            targets=targets, labels=labels, task=task, hierarchy=hierarchy, nominal=nominal,
            drop=drop, keep=keep, semi_supervised=semi_supervised))

        from frcli.rankers.tree import grow_tree

        tree = grow_tree(dataset, **params)
        size, names, grown_on = tree.size, tree.prototype, tree.data
        if plot is not None:
            tree.draw(str(plot),
                      title=f"{dataset.name}: {size['nodes']} nodes, {size['leaves']} leaves")
        if fmt == "json":
            # jsonio: NaN prototypes become null (JSON has no NaN), any depth is written;
            # a deep tree (a chain of one-row splits) is written compact, since an indented
            # one grows with the square of its depth
            text = dumps({"dataset": dataset.name, "task": grown_on.task,
                          "examples": grown_on.n_examples,
                          "features": grown_on.n_features, "prototype": names,
                          "params": {k: params.get(k) for k in TREE_PARAMS if k in params},
                          "size": size, "tree": tree.root},
                         indent=1 if size["depth"] <= MAX_INDENTED_DEPTH else None) + "\n"
        else:
            text = tree.text()
        typer.echo(f"{dataset.name}: {grown_on.n_examples} examples, {grown_on.n_features} "
                   f"features; {size['nodes']} nodes, {size['leaves']} leaves, depth "
                   f"{size['depth']}; leaves show [{', '.join(names[:8])}"
                   f"{', ...' if len(names) > 8 else ''}]: weight", err=True)
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text)
            typer.echo(f"wrote {output}", err=True)
        if plot is not None:
            typer.echo(f"wrote {plot}", err=True)
