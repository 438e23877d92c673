"""Data-set subsets of a study's configs, for the shared 2-core machine: the config file stays
whole (``frcli experiment`` runs all of it); the study runs the named sets under its own store
name and says in its section which sets were left out and why."""
from __future__ import annotations

from pathlib import Path

import yaml

from reproduce import md
from reproduce.framework import ROOT, ConfigRef


def _name(entry) -> str:
    return entry if isinstance(entry, str) else str(entry["name"])


def all_sets(path: str) -> list[str]:
    doc = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    return [_name(e) for e in doc["datasets"]]


def entries(path: str, sets) -> list:
    """The data-set entries of the config at ``path`` named in ``sets`` (kept as written, in
    the file's order)."""
    doc = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    keep = [e for e in doc["datasets"] if _name(e) in set(sets)]
    missing = sorted(set(sets) - {_name(e) for e in keep})
    if missing:
        raise ValueError(f"{path}: no data sets {missing}")
    return keep


def ref(path: str, sets, suffix: str = "part") -> ConfigRef:
    """The config at ``path`` on the data sets named in ``sets`` (``entries``), stored as
    '<name>-<suffix>'; the whole config when ``sets`` is None."""
    if sets is None:
        return ConfigRef(path)
    doc = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    return ConfigRef(path, name=f"{doc['name']}-{suffix}", set={"datasets": entries(path, sets)})


def note(path: str, sets, why: str, switch: str) -> str:
    """' **Subset:** ...' naming the left-out sets, or '' for the whole config."""
    if sets is None:
        return ""
    left = [s for s in all_sets(path) if s not in set(sets)]
    return (f" **Subset:** {md.listing(left)} of `{path}` were left out ({why}); "
            f"{switch} runs them all.")


def store_name(r: ConfigRef) -> str:
    return r.name or Path(r.path).stem
