"""Result fingerprints: which canary paths (``reproduce/canaries.py``) a study's stores depend
on, and the hash of those paths' digests.

A run of a config takes two paths: its ranking's (task of the data set, data kind, method,
parameter shape) and its evaluation's (task, data kind, protocol shape, evaluation shape).
The data kind is ``plain`` or ``missing`` (the data set has missing values), prefixed
``ssl-`` when the run thins the labels (``labeled`` > 0; a ``labeled_only`` ranking ranks the
labelled rows only, so its ranking takes the supervised path). A config's fingerprint hashes
the digests of its paths; a study's, those of its configs' paths plus the paths its
``compute`` step uses (``Study.compute_paths``: fnmatch patterns over path names; a study
with a compute step that declares none depends on every path). A path no canary covers
makes the study depend on every path too (and ``uncovered`` names it, so the suite can grow).

The traits of the data sets (task, missing values, sizes) come from loading them once; they
are kept in ``reproduce/stores/traits.json`` (keyed by the data set's definition), so CI
computes fingerprints without loading the large sets.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable

from reproduce import canaries

ROOT = Path(__file__).resolve().parents[1]
STORES = ROOT / "reproduce" / "stores"
TRAITS = STORES / "traits.json"
CANARIES = STORES / "canaries.json"       # the digests the committed stores were made with


# --------------------------------------------------------------------------- data traits
def portable_spec(ds):
    """The data set's definition without this machine's folders: explicit paths under the
    shared data or the checkout are written relative to them (run hashes include the
    absolute paths; a persisted store must resume on another machine)."""
    import dataclasses

    shared = ROOT.parent / "shared"
    roots = [(str(shared.resolve()), "<shared>"), (str(shared), "<shared>"),
             (str(ROOT.resolve()), "<repo>"), (str(ROOT), "<repo>")]

    def rel(p):
        if p is None:
            return None
        for base, name in roots:
            if str(p).startswith(base + "/"):
                return name + str(p)[len(base):]
        return p

    return dataclasses.replace(ds, path=tuple(rel(p) for p in ds.path),
                               test=tuple(rel(p) for p in ds.test), labels=rel(ds.labels))


def _definition_key(ds) -> str:
    """The data set's portable definition, hashed (the same on every machine)."""
    from frcli.experiment.plan import canonical

    return hashlib.sha256(canonical(portable_spec(ds).definition()).encode()).hexdigest()[:12]


class Traits:
    """Data set → {task, missing, rows, features, targets}, loaded once and cached."""

    def __init__(self, path: Path = TRAITS):
        self.path = path
        self.data: dict[str, dict] = (json.loads(path.read_text(encoding="utf-8"))
                                      if path.is_file() else {})
        self.changed = False

    def get(self, ds) -> dict[str, Any]:
        key = f"{ds.name}@{_definition_key(ds)}"
        t = self.data.get(key)
        if t is None:
            t = self.data[key] = measure_traits(ds)
            self.changed = True
        return t

    def save(self) -> None:
        if self.changed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(dict(sorted(self.data.items())), indent=1,
                                            sort_keys=True) + "\n", encoding="utf-8")
            self.changed = False


def measure_traits(ds) -> dict[str, Any]:
    """Load the data set (as the runner does) and describe it."""
    import numpy as np

    from frcli.experiment.executor import load_spec

    data, n_train = load_spec(ds)
    if ds.is_relational:
        return {"task": "relational", "missing": False, "rows": int(data.n_examples),
                "features": len(data.feature_names), "targets": 1}
    Y = data.Y
    missing = bool(np.isnan(data.X).any())
    if Y is not None and data.task in ("regression", "mtr") and not data.semi_supervised:
        missing = missing or bool(np.isnan(Y[np.asarray(data.labeled)]).any())
    return {"task": data.task, "missing": missing, "rows": int(data.n_examples),
            "train_rows": None if n_train is None else int(n_train),
            "features": int(data.n_features),
            "targets": 0 if Y is None else int(Y.shape[1])}


# --------------------------------------------------------------------------- paths
def config_paths(cfg, traits: Traits) -> set[str]:
    """Every canary path the runs of an ``ExperimentConfig`` take."""
    from frcli.experiment.plan import build_plan

    plan = build_plan(cfg)
    out: set[str] = set()
    sizes = cfg.protocol.labeled or (0,)
    for ds in cfg.datasets:
        t = traits.get(ds)
        task, missing = t["task"], t["missing"]
        for L in sizes:
            for r in cfg.rankers:
                ssl = bool(L) and not r.labeled_only
                for p in plan.grid(ds, r):
                    params = json.loads(p)
                    out.add(canaries.rank_path(task, canaries.data_kind(missing, ssl),
                                               r.method, params))
            if task != "relational":   # relational runs are judged by their own models
                out.add(canaries.eval_path(task, canaries.data_kind(missing, bool(L)),
                                           cfg.protocol.definition(),
                                           cfg.evaluation.to_dict(), cfg.knn_train))
    return out


def compute_paths(study, known: Iterable[str]) -> set[str] | None:
    """The paths of a study's compute step: those matching its ``compute_paths`` patterns;
    None (= every path) when it has a compute step and declares nothing."""
    if getattr(study, "compute", None) is None:
        return set()
    pats = getattr(study, "compute_paths", None)
    if pats is None:
        return None
    known = list(known)
    return {p for p in known if any(fnmatch.fnmatchcase(p, pat) for pat in pats)}


def digest_of(paths: Iterable[str], digests: dict[str, str]) -> str:
    """12 hex digits over (path, digest) of ``paths``; a path without a digest counts as
    'missing' (so a canary that stops running changes the fingerprint)."""
    h = hashlib.sha256(f"canaries format {canaries.FORMAT}\n".encode())
    for p in sorted(set(paths)):
        h.update(f"{p} {digests.get(p, 'missing')}\n".encode())
    return h.hexdigest()[:12]


class Fingerprints:
    """Fingerprints of configs and studies against one table of canary digests."""

    def __init__(self, digests: dict[str, str], traits: Traits | None = None):
        self.digests = dict(digests)
        self.traits = traits or Traits()
        self._cfg_paths: dict[str, set[str]] = {}

    def paths_of_config(self, cfg) -> set[str]:
        from frcli.experiment.plan import canonical

        key = cfg.name + canonical(cfg.text or cfg.name)
        if key not in self._cfg_paths:
            self._cfg_paths[key] = config_paths(cfg, self.traits)
        return self._cfg_paths[key]

    def uncovered(self, paths: Iterable[str]) -> set[str]:
        return {p for p in paths if p not in self.digests}

    def resolve(self, paths: set[str]) -> set[str]:
        """The paths a fingerprint covers: ``paths``, or every path when one of them has no
        canary (what it depends on is then unknown)."""
        if self.uncovered(paths):
            return set(self.digests) | paths
        return paths

    def config(self, cfg) -> str:
        return digest_of(self.resolve(self.paths_of_config(cfg)), self.digests)

    def study_paths(self, study, cfgs) -> set[str]:
        paths: set[str] = set()
        for cfg in cfgs:
            paths |= self.paths_of_config(cfg)
        extra = compute_paths(study, self.digests)
        return set(self.digests) | paths if extra is None else paths | extra

    def study(self, study, cfgs) -> str:
        return digest_of(self.resolve(self.study_paths(study, cfgs)), self.digests)

    def work(self, study, cfgs) -> str:
        """The key of a study's compute files: the paths of its compute step (and of its
        configs, which the step may read)."""
        return self.study(study, cfgs)


def changed_paths(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))
