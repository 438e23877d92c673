"""Relational data: the published facts format and CSV tables with a YAML schema, both read into
one ``RelationalDataset`` (spec-relational-mex §A1-A2); splits that respect the published folds.
"""
from __future__ import annotations

from pathlib import Path

from frcli.data.relational.model import (Domain, Folds, Mode, Relation, RelationalDataset)

__all__ = ["Domain", "Folds", "Mode", "Relation", "RelationalDataset", "is_relational",
           "load_relational", "relational_splits"]


def is_relational(path) -> bool:
    """A folder holding a settings file (``*.s``) or a ``schema.yaml``, or such a file."""
    p = Path(path)
    if p.is_file():
        return p.suffix == ".s" or (p.suffix in (".yaml", ".yml") and p.stem == "schema")
    if p.is_dir():
        return any(p.glob("*.s")) or (p / "schema.yaml").is_file() or \
            (p / "schema.yml").is_file()
    return False


def load_relational(path, name: str | None = None) -> RelationalDataset:
    """Read a relational data set (facts format or CSV + schema) from a folder or its file."""
    from frcli.data.relational.schema import find_schema

    if find_schema(path) is not None:
        from frcli.data.relational.schema import read_schema_dataset

        return read_schema_dataset(path, name)
    from frcli.data.relational.facts import read_facts_dataset

    return read_facts_dataset(path, name)


def relational_splits(ds: RelationalDataset, folds: int = 10, seed: int = 0,
                      published: bool = True):
    """10-fold CV splits: the data set's own folds when asked for and a partition; otherwise
    stratified folds from ``seed`` (``frcli.data.splits.kfold_splits``). Returns
    ``(splits, note)``; the note says which folds were used and why."""
    import numpy as np

    from frcli.data.splits import kfold_splits

    f = ds.folds
    if published and f is not None and f.is_partition:
        idx = np.arange(ds.n_examples)
        out = []
        for test in f.test_folds:
            mask = np.zeros(ds.n_examples, dtype=bool)
            mask[test] = True
            out.append((idx[~mask], idx[mask]))
        return out, f"published folds ({Path(f.path).name}, {len(out)} folds)"
    sp = kfold_splits(ds.n_examples, folds, seed, ds.y.astype(float))
    why = "no fold file" if f is None else ("published folds not asked for"
                                            if not published else f"fold file {f.note}")
    return sp, f"stratified {folds}-fold splits, seed {seed} ({why})"
