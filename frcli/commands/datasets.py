"""`frcli datasets`: list the catalog, describe a data file or set, fetch, make synthetic sets."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from frcli.commands import _data
from frcli.jsonio import dumps

datasets_app = typer.Typer(
    help="Data sets: the catalog (list), a file's summary (info), downloads (fetch) and the "
         "bundled synthetic sets (make-synthetic).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add the `datasets` command group to the app."""
    app.add_typer(datasets_app, name="datasets")


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[k])) for r in rows + [header]) for k in range(len(header))]
    fmt = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


@datasets_app.command("list")
def list_cmd(
    group: Optional[str] = typer.Option(None, "--group", help="Only this group: mtr, mlc, "
                                        "hmlc, clus-reference, synthetic."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """The catalog (configs/datasets.yaml) with each set's size and whether its files are here."""
    from frcli.data import catalog as C
    from frcli.errors import choices_error

    cat = C.catalog()
    groups = sorted({e.group for e in cat.values()})
    if group is not None and group not in groups:
        raise choices_error("group", group, groups)
    roots = C.data_roots()
    items = []
    for e in cat.values():
        if group and e.group != group:
            continue
        ex = e.expect
        n = ex.get("examples", (ex.get("train"), ex.get("test")))
        items.append({"name": e.name, "group": e.group, "task": e.task,
                      "examples": n if isinstance(n, int) or n[0] is None else f"{n[0]}+{n[1]}",
                      "features": ex.get("features"), "targets": ex.get("targets"),
                      "hierarchy": e.hierarchy, "split": e.split.get("kind"),
                      "available": e.available(roots), "source": e.source})
    if as_json:
        typer.echo(dumps(items, indent=1))
        return
    rows = [[i["name"], i["group"], i["task"] + (f" ({i['hierarchy']})" if i["hierarchy"] else ""),
             "" if i["examples"] in (None, (None, None)) else i["examples"],
             "" if i["features"] is None else i["features"],
             "" if i["targets"] is None else i["targets"], i["split"],
             "yes" if i["available"] else "no"] for i in items]
    typer.echo(_table(rows, ["name", "group", "task", "examples", "features", "targets",
                             "split", "available"]))
    n_av = sum(i["available"] for i in items)
    typer.echo(f"\n{n_av} of {len(items)} available; data roots: "
               + ", ".join(str(r) for r in roots))


def describe(ds, extra: dict | None = None) -> dict:
    """The summary `datasets info` prints (also useful to other commands)."""
    import numpy as np

    nominal = int(ds.nominal_mask.sum())
    info = {"name": ds.name, "source": ds.source, "task": ds.task,
            "examples": ds.n_examples, "features": ds.n_features,
            "numeric_features": ds.n_features - nominal, "nominal_features": nominal,
            "missing_percent": round(100 * ds.missing_fraction(), 3),
            "targets": ds.n_targets, "target_names": ds.target_names,
            "unlabelled": int((~ds.labeled).sum())}
    if ds.Y is not None and ds.Y.dtype != np.uint8 and ds.Y.size:
        info["target_missing_percent"] = round(100 * float(np.isnan(ds.Y).mean()), 3)
    if ds.is_label_task:
        info["label_cardinality"] = round(ds.label_cardinality(), 4)
        info["empty_label_sets"] = int((ds.Y[ds.labeled].sum(axis=1) == 0).sum())
    if ds.hierarchy is not None:
        from frcli.data.hierarchy import hierarchy_summary

        info["hierarchy"] = hierarchy_summary(ds.hierarchy)
    if extra:
        info.update(extra)
    return info


def _print_info(info: dict) -> None:
    names = info["target_names"]
    shown = ", ".join(names[:10]) + (f", ... ({len(names) - 10} more)" if len(names) > 10 else "")
    lines = [
        ("name", info["name"]), ("file", info.get("source") or ""),
        ("task", info["task"]),
        ("examples", str(info["examples"]) + (f" (train {info['train']}, test {info['test']})"
                                             if "train" in info else "")),
        ("features", f"{info['features']} ({info['numeric_features']} numeric, "
                     f"{info['nominal_features']} nominal)"),
        ("missing", f"{info['missing_percent']:g} % of feature values"),
        ("targets", f"{info['targets']}" + (f": {shown}" if names else "")),
    ]
    if "target_missing_percent" in info:
        lines.append(("unknown targets", f"{info['target_missing_percent']:g} % of target values"))
    if info["unlabelled"]:
        lines.append(("unlabelled rows", str(info["unlabelled"])))
    if "label_cardinality" in info:
        lines.append(("label cardinality", f"{info['label_cardinality']:g} "
                                           f"({info['empty_label_sets']} empty label sets)"))
    if "hierarchy" in info:
        h = info["hierarchy"]
        lines.append(("hierarchy", f"{h['type']}, depth {h['depth']}, {h['labels']} labels, "
                                   f"{h['top_level']} top-level, {h['multi_parent']} with "
                                   f"several parents"))
    if info.get("split"):
        lines.append(("split", info["split"]))
    ch = info.get("clustering_hypothesis")
    if isinstance(ch, dict):
        extra = (f"; median ARI of 10 runs {ch['ari_median']:.3f} (P-DS)"
                 if "ari_median" in ch else "")
        lines.append(("clustering (CH)", f"{ch['ch']:.3f} (P-ML's estimate: k-means, k = "
                                         f"{ch['k']}, best of {ch['runs']} runs on "
                                         f"{ch['rows']} labelled rows{extra}; near 0 the "
                                         "features' clusters say nothing about the targets "
                                         "and unlabelled rows are unlikely to help)"))
    elif isinstance(ch, str):
        lines.append(("clustering (CH)", ch))
    w = max(len(k) for k, _ in lines)
    for k, v in lines:
        typer.echo(f"{k.ljust(w)}  {v}")


CH_AUTO_CELLS = 2_000_000     # labelled rows x features clustered by default (a few seconds)


@datasets_app.command("info")
def info_cmd(
    data: str = typer.Argument(..., metavar="DATA",
                               help="A data file (ARFF, CSV, TSV) or a catalog name."),
    targets: _data.Targets = None,
    labels: _data.Labels = None,
    hierarchy: _data.Hierarchy = None,
    task: _data.Task = None,
    nominal: _data.Nominal = None,
    drop: _data.Drop = None,
    keep: _data.Keep = None,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    ch: Optional[bool] = typer.Option(
        None, "--ch/--no-ch", help="The clustering-hypothesis estimate CH (k-means; P-ML): "
                                   "default on when the labelled part is small enough to "
                                   "cluster in a few seconds."),
) -> None:
    """Summarise a data set: examples, feature kinds, missing values, task, targets, labels,
    and how well the clustering hypothesis holds (CH)."""
    import warnings

    from frcli.data import catalog as C
    from frcli.data.load import load_dataset

    options = _data.DataOptions(targets=targets, labels=labels, task=task, hierarchy=hierarchy,
                                nominal=nominal, drop=drop, keep=keep)
    p = Path(data)
    from frcli.data.relational import is_relational

    relational = is_relational(p) or (not p.exists() and data in C.catalog()
                                       and C.get(data).group == "relational")
    if relational:   # a relational folder or catalog set: its own summary (relational_info)
        from frcli.commands.relational_info import print_relational
        from frcli.data.relational import load_relational

        if options.given():
            from frcli.errors import UserError

            raise UserError(f"the data options ({', '.join(options.given())}) do not apply to "
                            "relational data (the target relation is in its settings/schema)")
        print_relational(load_relational(p) if p.exists() else C.load(data), as_json)
        return
    opts = dict(options.loader(), semi_supervised=True)   # unlabelled rows are described
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if p.exists() or p.suffix.lower() in (".arff", ".csv", ".tsv", ".txt"):
            from frcli.data.load import NoTargetsError

            try:
                ds = load_dataset(p, **opts)
            except NoTargetsError:  # describe it anyway, as all-features data
                ds = load_dataset(p, **dict(opts, task="unsupervised"))
                warnings.warn("no targets given or declared: shown as unsupervised "
                              "(use --targets or --labels)")
            extra = {}
        else:
            entry = C.get(data)   # the options override the catalog entry's choices
            ds, splits = C.load_with_splits(data, **opts)
            extra = {"split": entry.split.get("kind")}
            if entry.split.get("kind") == "given":
                extra.update(train=len(splits[0][0]), test=len(splits[0][1]))
    if ds.n_examples == 0:
        warnings.warn(f"{data}: no data rows (the file has a header but no examples)")
    info = describe(ds, extra)
    if ds.task != "unsupervised" and ds.Y is not None and ds.n_examples > 1:
        cells = int(ds.labeled.sum()) * ds.n_features
        if ch or (ch is None and cells <= CH_AUTO_CELLS):
            from frcli.data.hypothesis import clustering_hypothesis

            info["clustering_hypothesis"] = clustering_hypothesis(ds)
        elif ch is None:
            info["clustering_hypothesis"] = (f"not computed ({cells} labelled values; "
                                             "--ch computes it)")
    notes = sorted({str(w.message) for w in caught})
    if as_json:
        info["warnings"] = notes
        typer.echo(dumps(info, indent=1))
        return
    _print_info(info)
    for n in notes:
        typer.echo(f"note: {n}", err=True)


@datasets_app.command("fetch")
def fetch_cmd(
    names: list[str] = typer.Argument(None, help="Catalog names (or use --all)."),
    all_: bool = typer.Option(False, "--all", help="Every catalog set except the synthetic ones."),
    mirror: Optional[str] = typer.Option(None, "--mirror", envvar="FRCLI_DATA_MIRROR",
                                         help="Base URL laid out like the catalog paths "
                                              "(e.g. https://host/datasets)."),
    dest: Optional[Path] = typer.Option(None, "--output", "-o", "--dest",
                                        help="Directory to download into "
                                        "(default: the repository's datasets/fetched)."),
    force: bool = typer.Option(False, "--force", help="Download files that already exist."),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds per request."),
) -> None:
    """Download catalog files from a mirror into datasets/fetched/ (or --output)."""
    from frcli.data import catalog as C
    from frcli.data.fetch import fetch_entry
    from frcli.errors import UserError

    cat = C.catalog()
    if all_ and names:
        raise UserError("give data-set names or --all, not both")
    if not all_ and not names:
        raise UserError("name the data sets to fetch, or pass --all")
    entries = [e for e in cat.values() if e.group != "synthetic"] if all_ else \
        [C.get(n) for n in names]
    for e in entries:
        if e.group == "synthetic":
            raise UserError(f"{e.name!r} is generated, not downloaded: run "
                            f"`frcli datasets make-synthetic`")
    if not mirror:
        srcs = sorted({e.source for e in entries if e.source})
        raise UserError("no mirror: pass --mirror URL (or set FRCLI_DATA_MIRROR) to a server "
                        "laid out like the catalog paths; the official sources ("
                        + ", ".join(srcs[:3]) + ") distribute archives to unpack by hand "
                        "into datasets/fetched/")
    dest = Path(dest) if dest is not None else C.FETCH_DIR
    total = got = 0
    for e in entries:
        res = fetch_entry(e, mirror, dest, force=force, timeout=timeout)
        for rel, status in res:
            total += 1
            got += status == "downloaded"
            typer.echo(f"{e.name}: {rel} {status}")
    typer.echo(f"{got} of {total} files downloaded into {dest}")


@datasets_app.command("make-synthetic")
def make_synthetic_cmd(
    dest: Path = typer.Option(Path("datasets/synthetic"), "--output", "-o", "--dest",
                              help="Directory for the .arff and .truth.json files."),
    seed: int = typer.Option(2024, "--seed", help="Random seed (2024 = the bundled files)."),
) -> None:
    """Write the bundled synthetic sets (one per task, planted relevant features)."""
    from frcli.data.synthetic import write_all

    for p in write_all(dest, seed=seed):
        typer.echo(str(p))
