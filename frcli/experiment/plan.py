"""Config → tasks: one task per (dataset × split × labeled-size × ranker entry).

A task computes every parameter combination of its ranker entry (Relief computes a whole grid
in one pass per split via ``Ranker.rank``) and yields one *run* per combination. Runs are the
unit of storage, identified by (dataset, split, labeled, method, params) and fingerprinted by a
hash of everything that defines their result, so a rerun can skip them and a changed config is
detected instead of mixed in.

Seeds: each task's ranker seed is a hash of (protocol seed, dataset, split, labeled, method),
so results do not depend on scheduling, job counts or which other tasks exist. Splits depend on
the protocol seed only, so every ranker sees the same splits (paired comparisons). Ensemble
rankers that differ only in the score (``symbolic-rf``, ``genie3-rf``, ``rf-rf``) share the
seed of their ensemble, so — as in the papers — the three scores come from the *same* forest
(``frcli.engines.pct.scoring.forest_scores`` then reuses it instead of growing it again; the
RF-score rankers are planned first so that the forest they grow carries every score).
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import Any, Iterator

from frcli.errors import ConfigError, UserError
from frcli.evaluate.protocol import EvalSpec
from frcli.experiment.config import DatasetSpec, ExperimentConfig, ProtocolSpec, RankerSpec

SEED_SCHEME = 2   # bump if the derivation below changes (it is part of every run hash)

_SCORES = ("symbolic-", "genie3-", "rf-")


def seed_key(method: str) -> str:
    """What a task's seed derives from: the ensemble for ensemble rankers (shared by the
    three scores, so they rank from one forest), else the method itself."""
    for prefix in _SCORES:
        if method.startswith(prefix):
            return "forest:" + method[len(prefix):]
    if method + "-" in _SCORES:     # a bare score: the ensemble follows the task
        return "forest:task"
    return method


def _forest_first(r: RankerSpec) -> int:
    return 0 if r.method == "rf" or r.method.startswith("rf-") else 1


def canonical(obj: Any) -> str:
    """The one JSON spelling used for keys and hashes (sorted keys, no spaces)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_default)


def _default(o: Any) -> Any:
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, tuple):
        return list(o)
    return str(o)


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from the given parts (stable across machines and Python versions)."""
    h = hashlib.blake2b(canonical(list(parts)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") >> 1


@dataclass(frozen=True)
class Task:
    dataset: DatasetSpec
    split: int
    labeled: int                     # 0 = every training row labeled
    ranker: RankerSpec
    seed: int
    protocol: ProtocolSpec
    evaluation: EvalSpec
    knn_train: str
    params: tuple[str, ...]          # canonical params of every run, in ranker order
    hashes: tuple[str, ...]          # run hash per params entry

    @property
    def label(self) -> str:
        lab = f" L={self.labeled}" if self.labeled else ""
        return f"{self.dataset.name} split {self.split}{lab} {self.ranker.method}"

    def run_keys(self) -> list[tuple[str, int, int, str, str]]:
        return [(self.dataset.name, self.split, self.labeled, self.ranker.method, p)
                for p in self.params]


def param_grid(ranker: RankerSpec, relational: bool = False) -> list[dict[str, Any]]:
    """Every parameter combination the ranker entry expands to (validated by the ranker;
    relational data sets have their own rankers under the same names)."""
    from frcli.rankers.registry import get_ranker

    try:
        r = get_ranker(ranker.method, relational=relational)
    except ImportError as e:
        raise ConfigError(f"method '{ranker.method}' is not available in this build ({e})"
                          ) from None
    grid = r.resolve(ranker.params)
    keys = list(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(grid[k] for k in keys))]


def run_hash(cfg: ExperimentConfig, ds: DatasetSpec, labeled: int, ranker: RankerSpec,
             params: str) -> str:
    """Fingerprint of what defines a run's numbers (not of unrelated config entries)."""
    definition = {
        "dataset": ds.definition(),
        "protocol": cfg.protocol.definition(),
        "labeled": labeled,
        "method": ranker.method,
        "labeled_only": ranker.labeled_only,
        "params": json.loads(params),
        "evaluation": cfg.evaluation.to_dict(),
        "knn_train": cfg.knn_train if labeled else "full",
        "seed_scheme": SEED_SCHEME,
    }
    return hashlib.sha256(canonical(definition).encode()).hexdigest()[:16]


def run_definition(cfg: ExperimentConfig, ds: DatasetSpec, labeled: int,
                   ranker: RankerSpec) -> dict[str, Any]:
    """The readable parts of a run's definition (stored to explain hash mismatches)."""
    return {"dataset": ds.definition(), "protocol": cfg.protocol.definition(),
            "evaluation": cfg.evaluation.to_dict(), "labeled_only": ranker.labeled_only,
            "knn_train": cfg.knn_train if labeled else "full"}


def run_params(ranker: RankerSpec, params: dict[str, Any]) -> str:
    """The stored ``params`` of a run: the ranker's parameters, plus ``labeled_only`` when the
    ranking ignores the unlabeled rows (the supervised counterpart of an SSL ranking)."""
    p = dict(params)
    if ranker.labeled_only:
        p["labeled_only"] = True
    return canonical(p)


MAX_RUNS = 1_000_000     # runs in one experiment: a bound, not hours of planning


@dataclass
class Plan:
    """The tasks of an experiment, generated lazily in a fixed order (dataset, split,
    labeled, ranker; RF-score rankers first): ``len`` and ``runs`` are counted, not
    materialised, so a large legitimate plan starts at once. A run's hash depends on neither
    the split nor the seed, so it is computed once per (data set, labeled size, ranker,
    parameters), not once per split. ``expected_hash`` answers, for a stored run key, the
    hash the current config gives it (None: not part of this plan) in O(1): the runner checks
    the stored runs against the plan without walking the plan."""

    cfg: ExperimentConfig
    # (ranker key, relational data?) -> canonical params of its runs (relational data sets
    # have their own rankers, with their own parameters, under the same method names)
    grids: dict[tuple[str, bool], tuple[str, ...]]

    def __post_init__(self) -> None:
        self._hashes: dict[tuple, tuple[str, ...]] = {}
        self._sizes = self.cfg.protocol.labeled or (0,)
        self._order = sorted(self.cfg.rankers, key=_forest_first)
        self._by_run = {(r.method, p): r for r in self.cfg.rankers
                        for (k, _), ps in self.grids.items() if k == r.key() for p in ps}
        self._datasets = {d.name: d for d in self.cfg.datasets}

    def grid(self, ds: DatasetSpec, r: RankerSpec) -> tuple[str, ...]:
        return self.grids[r.key(), ds.is_relational]

    def __len__(self) -> int:
        return (len(self.cfg.datasets) * self.cfg.protocol.n_splits * len(self._sizes)
                * len(self.cfg.rankers))

    @property
    def runs(self) -> int:
        per_split = sum(len(self.grid(d, r)) for d in self.cfg.datasets
                        for r in self.cfg.rankers)
        return self.cfg.protocol.n_splits * len(self._sizes) * per_split

    def hashes(self, ds: DatasetSpec, L: int, r: RankerSpec) -> tuple[str, ...]:
        key = (ds.name, L, r.key())
        h = self._hashes.get(key)
        if h is None:
            h = self._hashes[key] = tuple(run_hash(self.cfg, ds, L, r, p)
                                          for p in self.grid(ds, r))
        return h

    def expected_hash(self, key: tuple[str, int, int, str, str]) -> str | None:
        dataset, split, L, method, params = key
        ds = self._datasets.get(dataset)
        r = self._by_run.get((method, params))
        if (ds is None or r is None or not 0 <= split < self.cfg.protocol.n_splits
                or L not in self._sizes):
            return None
        grid = self.grid(ds, r)
        return self.hashes(ds, L, r)[grid.index(params)] if params in grid else None

    def __iter__(self) -> Iterator[Task]:
        cfg = self.cfg
        for ds in cfg.datasets:
            for split in range(cfg.protocol.n_splits):
                for L in self._sizes:
                    for r in self._order:
                        yield Task(
                            dataset=ds, split=split, labeled=L, ranker=r,
                            seed=derive_seed(cfg.protocol.seed, ds.name, split, L,
                                             seed_key(r.method)),
                            protocol=cfg.protocol, evaluation=cfg.evaluation,
                            knn_train=cfg.knn_train, params=self.grid(ds, r),
                            hashes=self.hashes(ds, L, r))

    def run_keys(self) -> Iterator[tuple[str, int, int, str, str]]:
        """Every run key of the plan, in plan order (without building the tasks)."""
        for ds in self.cfg.datasets:
            for split in range(self.cfg.protocol.n_splits):
                for L in self._sizes:
                    for r in self._order:
                        for p in self.grid(ds, r):
                            yield (ds.name, split, L, r.method, p)


def build_plan(cfg: ExperimentConfig) -> Plan:
    """Validate every ranker entry's parameters, refuse duplicate runs and plans of more
    than ``MAX_RUNS`` runs, and return the lazy ``Plan``."""
    grids: dict[tuple[str, bool], tuple[str, ...]] = {}
    kinds = sorted({ds.is_relational for ds in cfg.datasets})
    for i, r in enumerate(cfg.rankers):
        for rel in kinds:
            try:
                grids[r.key(), rel] = tuple(run_params(r, p) for p in param_grid(r, rel))
            except UserError as e:   # name the entry: "cfg.yaml: rankers[2] (relief): ..."
                raise ConfigError(f"{cfg.source}: rankers[{i}] ({r.method}): {e}") from None
    seen: dict[tuple[str, str], int] = {}
    for i, r in enumerate(cfg.rankers):
        for p in dict.fromkeys(p for rel in kinds for p in grids[r.key(), rel]):
            if (r.method, p) in seen:
                raise ConfigError(f"{cfg.source}: rankers[{i}] and rankers[{seen[r.method, p]}] "
                                  f"both produce {r.method} with {p}")
            seen[r.method, p] = i
    out = Plan(cfg, grids)
    if out.runs > MAX_RUNS:
        sizes = len(cfg.protocol.labeled or (0,))
        raise ConfigError(
            f"{cfg.source}: the plan has {out.runs:,} runs ({len(cfg.datasets)} data set(s) x "
            f"{cfg.protocol.n_splits} split(s) x {sizes} labeled size(s) x "
            f"{sum(len(g) for g in grids.values())} ranker parameter combination(s)); at most "
            f"{MAX_RUNS:,}: use fewer repeats, folds or grid values, or split the study")
    return out


def make_plan(cfg: ExperimentConfig) -> list[Task]:
    """Every task of the experiment in a fixed order (dataset, split, labeled, ranker)."""
    return list(build_plan(cfg))
