"""`frcli datasets info` for a relational data set: tables, relations, facts, target classes,
the language bias, folds and the data traps (excluded or leaking relations, unlabelled objects).
"""
from __future__ import annotations

import json

import typer


def describe_relational(ds) -> dict:
    counts = ds.class_counts()
    rels = []
    for r in ds.relations.values():
        rels.append({"relation": r.name, "types": list(r.types), "facts": r.size,
                     "table": r.table, "excluded": ds.excluded.get(r.name)})
    objects = {d.name: d.size for d in ds.domains.values() if d.kind == "id"}
    info = {
        "name": ds.name, "source": ds.source, "format": ds.fmt, "task": ds.task,
        "target": f"{ds.target_name}({','.join(ds.key_types + (ds.label_type,))})",
        "examples": ds.n_examples,
        "classes": {c: int(n) for c, n in zip(ds.classes, counts)},
        "majority_rate": round(float(counts.max() / max(1, ds.n_examples)), 4),
        "tables": len(ds.tables()),
        "relations": len(ds.relations),
        "facts": int(sum(r.size for r in ds.relations.values())),
        "atom_tests": len(ds.modes),
        "aggregates_declared": list(ds.aggregates) if ds.aggregates else None,
        "objects": objects,
        "unlabelled_objects": ds.unlabelled,
        "excluded": dict(ds.excluded),
        "relation_list": rels,
    }
    if ds.folds is not None:
        info["folds"] = {"file": ds.folds.path, "lists": len(ds.folds.test_folds),
                         "partition": ds.folds.is_partition, "note": ds.folds.note}
    return info


def print_relational(ds, as_json: bool) -> None:
    info = describe_relational(ds)
    notes = list(ds.warnings)
    if ds.unlabelled:
        notes.append(f"{ds.unlabelled} object(s) of type {','.join(ds.key_types)} have facts "
                     "but no target fact: they are not examples")
    if ds.folds is not None and not ds.folds.is_partition:
        notes.append(f"fold file {ds.folds.note}: experiments use seeded stratified folds "
                     "instead")
    if as_json:
        info["warnings"] = notes
        typer.echo(json.dumps(info, indent=1))
        return
    classes = ", ".join(f"{c}: {n}" for c, n in info["classes"].items())
    lines = [("name", info["name"]), ("source", info["source"] or ""),
             ("format", "facts (settings + facts files)" if ds.fmt == "facts"
              else "CSV tables + schema.yaml"),
             ("task", "relational classification"), ("target", info["target"]),
             ("examples", f"{info['examples']} (majority class rate "
                          f"{info['majority_rate']:.3f})"),
             ("classes", f"{len(info['classes'])} ({classes})"),
             ("tables", str(info["tables"])),
             ("relations", f"{info['relations']} descriptive, {info['facts']} facts, "
                           f"{info['atom_tests']} atom tests"),
             ("objects", ", ".join(f"{k}: {v}" for k, v in info["objects"].items()))]
    if info["aggregates_declared"]:
        lines.append(("aggregates (file)", ", ".join(info["aggregates_declared"])))
    if ds.excluded:
        lines.append(("excluded", "; ".join(f"{k} ({v})" for k, v in ds.excluded.items())))
    if "folds" in info:
        f = info["folds"]
        lines.append(("folds", f"{f['lists']} (a partition)" if f["partition"]
                      else f"{f['lists']} lists, {f['note']}"))
    w = max(len(k) for k, _ in lines)
    for k, v in lines:
        typer.echo(f"{k.ljust(w)}  {v}")
    typer.echo("")
    width = max(len(r["relation"]) for r in info["relation_list"])
    for r in info["relation_list"]:
        mark = "  (excluded)" if r["excluded"] else ""
        typer.echo(f"  {r['relation'].ljust(width)}  ({', '.join(r['types'])})  "
                   f"{r['facts']} facts{mark}")
    for n in notes:
        typer.echo(f"note: {n}", err=True)
