"""Experiment configs: YAML → validated dataclasses (``load_config``).

Every mapping is checked against its allowed keys, so a misspelt key is a ``ConfigError``
naming the key, where it is and the allowed ones, instead of a silently ignored setting.
See ``configs/quickstart.yaml`` for a commented example.

Relative data paths in explicit dataset entries are resolved against the config file's folder
first and the current directory second (so both ``configs/x.yaml`` next to its data and the
repository-relative ``../shared/...`` paths work).
"""
from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from frcli.data.dataset import TASKS
from frcli.errors import ConfigError, UserError, choices_error
from frcli.evaluate.protocol import EvalSpec

TOP_KEYS = ("name", "description", "output", "datasets", "protocol", "rankers", "evaluation")
DATASET_KEYS = ("name", "path", "test", "labels", "task", "targets", "hierarchy", "drop",
                "keep", "nominal", "semi_supervised")
PROTOCOL_KEYS = ("type", "repeats", "test_fraction", "folds", "seed", "labeled", "stratify",
                 "published_folds")
PROTOCOLS = ("holdout", "cv", "given", "repeated-cv")
# the protocol keys each type reads beyond type/seed/labeled: any other is refused rather than
# silently ignored (a `folds:` under holdout); a type missing here accepts every key
PROTOCOL_USES = {"holdout": ("repeats", "test_fraction"), "cv": ("folds", "stratify"),
                 "given": (), "repeated-cv": ("repeats", "folds", "stratify")}
# sanity bounds of the counts in a config: far above the papers' (10 repeats,
# 10 folds, labeled sizes up to a few thousand) and low enough to fail at once, not after
# hours of planning or gigabytes of memory
MAX_REPEATS = 1000
MAX_FOLDS = 1000
MAX_LABELED_SIZES = 100
MAX_COUNT = 10**9            # a labeled size, knn, top, a curve point: beyond any data set
MAX_SEED = 2**63 - 1         # seeds are stored as SQLite integers
RANKER_KEYS = ("method", "params", "labeled_only")
EVAL_KEYS = ("knn", "measures", "weighted", "top", "variance", "pr", "curve", "knn_train",
             "confusion",
             "kind", "learner", "scale")
EVAL_KINDS = ("knn", "topf")


@dataclass(frozen=True)
class DatasetSpec:
    """A data set: a catalog name (``catalog=True``) or explicit files."""

    name: str
    catalog: bool = False
    path: tuple[str, ...] = ()
    test: tuple[str, ...] = ()
    labels: str | None = None
    task: str | None = None
    targets: str | None = None
    hierarchy: str | None = None
    drop: tuple[str, ...] = ()
    nominal: tuple[str, ...] = ()
    # rows without targets are the semi-supervised part (as a catalog entry's
    # semi_supervised); False: they are left out with a warning
    semi_supervised: bool = False
    # a smoke run's row limit (frcli.experiment.smoke; not a config key)
    max_rows: int | None = None
    # columns kept although the identifier screen would leave them out (frcli.data.screen)
    keep: tuple[str, ...] = ()
    # the columns the screen left out, known once the data are loaded (the runner sets it;
    # not a config key): part of the definition, so a changed screen (new rows, an edited
    # file) does not reuse runs ranked without those columns. Not compared: the same spec
    # loads the same data with or without it
    screened: tuple[str, ...] = field(default=(), compare=False)

    def definition(self) -> dict[str, Any]:
        """What the data *are* (for run hashes): the catalog entry's loading fields or ours.
        ``keep`` and ``screened`` are absent when empty, which keeps the fingerprints of runs
        made before they existed."""
        rows = {"max_rows": self.max_rows} if self.max_rows is not None else {}
        for k in ("keep", "screened"):
            if getattr(self, k):
                rows[k] = list(getattr(self, k))
        if self.catalog:
            try:
                from frcli.data import catalog

                e = catalog.get(self.name)
                return {"catalog": self.name, "task": e.task, "data": e.data,
                        "train": list(e.train), "test": list(e.test), "labels": e.labels,
                        "targets": e.targets, "hierarchy": e.hierarchy, "drop": list(e.drop),
                        **rows}
            except ImportError:
                return {"catalog": self.name, **rows}
        d = asdict(self)
        d.pop("catalog")
        if d["max_rows"] is None:      # absent: keeps older runs' fingerprints
            d.pop("max_rows")
        for k in ("keep", "screened"):
            if not d[k]:
                d.pop(k)
        if not d["semi_supervised"]:   # absent = false: keeps older runs' fingerprints
            d.pop("semi_supervised")
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @property
    def has_test(self) -> bool:
        if self.catalog:
            from frcli.data import catalog

            return bool(catalog.get(self.name).test)
        return bool(self.test)

    @property
    def is_relational(self) -> bool:
        """A relational data set (a catalog entry of group relational, or a folder with a
        settings file or schema.yaml): its own rankers, splits and evaluation."""
        if self.catalog:
            from frcli.data import catalog

            return catalog.get(self.name).group == "relational"
        from frcli.data.relational import is_relational

        return bool(self.path) and is_relational(self.path[0])

    def task_name(self) -> str | None:
        if self.catalog:
            from frcli.data import catalog

            return catalog.get(self.name).task
        return self.task


@dataclass(frozen=True)
class ProtocolSpec:
    """How each data set is split: repeated hold-out, k-fold CV, ``repeats`` x k-fold CV
    (``repeated-cv``: split s is fold s % folds of repetition s // folds; stratified by class,
    or by iterative stratification for mlc) or the given train/test files; ``labeled`` adds
    nested label thinning of every training part (semi-supervised)."""

    type: str = "holdout"
    repeats: int = 10
    test_fraction: float = 1 / 3
    folds: int = 10
    seed: int = 0
    labeled: tuple[int, ...] = ()
    stratify: bool = True
    # relational data: use a data set's own fold file when it is a partition (else seeded
    # stratified folds); false: always seeded stratified folds
    published_folds: bool = True

    @property
    def n_splits(self) -> int:
        return {"holdout": self.repeats, "cv": self.folds, "given": 1,
                "repeated-cv": self.repeats * self.folds}[self.type]

    def definition(self) -> dict[str, Any]:
        """What a single split depends on: hold-out repeat r does not depend on the number of
        repeats (frcli.data.splits), so adding repeats keeps the finished runs valid."""
        d = {"type": self.type, "seed": self.seed}
        if self.type == "holdout":
            d.update(test_fraction=self.test_fraction)
        elif self.type in ("cv", "repeated-cv"):   # (repetition r does not depend on repeats)
            d.update(folds=self.folds, stratify=self.stratify)
            if not self.published_folds:     # absent = true: keeps older runs' fingerprints
                d.update(published_folds=False)
        return d


@dataclass(frozen=True)
class RankerSpec:
    """One ``rankers:`` entry; list-valued params are grids (expanded in ``plan``)."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)
    labeled_only: bool = False

    def key(self) -> str:
        return json.dumps({"method": self.method, "params": self.params,
                           "labeled_only": self.labeled_only}, sort_keys=True, default=str)


@dataclass(frozen=True)
class ExperimentConfig:
    name: str
    datasets: tuple[DatasetSpec, ...]
    protocol: ProtocolSpec
    rankers: tuple[RankerSpec, ...]
    evaluation: EvalSpec
    knn_train: str = "full"
    output: str = "results"
    description: str = ""
    source: str | None = None          # the YAML file
    text: str = ""                     # its text (copied next to the store)

    def output_dir(self, override: str | Path | None = None) -> Path:
        return Path(override or self.output) / self.name


# -- validation helpers ------------------------------------------------------------------

def _where(path: str, key: str) -> str:
    return f"{path}: {key}" if key else path


def _check_keys(d: Any, allowed: tuple[str, ...], src: str, where: str) -> dict:
    if not isinstance(d, dict):
        raise ConfigError(f"{_where(src, where)}: expected a mapping, got {type(d).__name__}")
    for k in d:
        if k not in allowed:
            close = difflib.get_close_matches(str(k), allowed, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            loc = f"{where}." if where else ""
            raise ConfigError(f"{src}: unknown key '{loc}{k}'{hint}; allowed: "
                              f"{', '.join(allowed)}")
    return d


def _typed(d: dict, key: str, kind, src: str, where: str, default=None, check=None,
           msg: str = ""):
    if key not in d or d[key] is None:
        return default
    v = d[key]
    ok = isinstance(v, kind) and not (kind in (int, float) and isinstance(v, bool))
    if kind is float and isinstance(v, int) and not isinstance(v, bool):
        v, ok = float(v), True
    if not ok or (check is not None and not check(v)):
        want = msg or {str: "a string", int: "an integer", float: "a number",
                       bool: "true or false"}.get(kind, kind.__name__)
        loc = key if where in ("", key) else f"{where}.{key}"
        raise ConfigError(f"{src}: {loc} = {d[key]!r}: expected {want}")
    return v


def _strs(v: Any, src: str, where: str) -> tuple[str, ...]:
    if v is None:
        return ()
    if isinstance(v, str):
        return (v,)
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return tuple(v)
    raise ConfigError(f"{src}: {where}: expected a string or a list of strings")


def _resolve_path(p: str, base: Path) -> str:
    q = Path(p).expanduser()
    if q.is_absolute():
        return str(q)
    for cand in (base / q, Path.cwd() / q):
        if cand.exists():
            return str(cand.resolve())
    return str((base / q).resolve())


def _dataset(item: Any, i: int, src: str, base: Path) -> DatasetSpec:
    where = f"datasets[{i}]"
    if isinstance(item, str):
        try:
            from frcli.data import catalog
        except ImportError:  # pragma: no cover - the catalog module ships with frcli
            raise ConfigError(f"{src}: {where}: the data-set catalog is not available; give "
                              f"an explicit entry {{name, path, ...}}") from None
        try:
            catalog.get(item)   # unknown names: a UserError listing close names
        except UserError as e:
            raise ConfigError(f"{src}: {where}: {e}") from None
        return DatasetSpec(name=item, catalog=True)
    d = _check_keys(item, DATASET_KEYS, src, where)
    name = _typed(d, "name", str, src, where)
    if not name:
        raise ConfigError(f"{src}: {where}: an explicit entry needs 'name'")
    if "path" not in d:
        raise ConfigError(f"{src}: {where} ({name}): an explicit entry needs 'path'")
    task = _typed(d, "task", str, src, where)
    if task is not None and task not in TASKS:
        raise choices_error(f"task in {src}: {where}", task, TASKS)
    hier = _typed(d, "hierarchy", str, src, where)
    if hier is not None and hier not in ("tree", "dag"):
        raise choices_error(f"hierarchy in {src}: {where}", hier, ("tree", "dag"))
    targets = d.get("targets")
    if isinstance(targets, list) and all(isinstance(t, (str, int)) and not isinstance(t, bool)
                                         for t in targets):
        targets = ",".join(str(t) for t in targets)     # [y1, y2] means "y1,y2"
    elif targets is not None and not isinstance(targets, (str, int)):
        raise ConfigError(f"{src}: {where}.targets = {targets!r}: expected a target spec "
                          f"('last:3', 'y1,y2', '8-11') or a list of names")
    labels = _typed(d, "labels", str, src, where)

    def files(key: str, v) -> tuple[str, ...]:
        # (missing files are reported by executor.preflight, before any store exists)
        return tuple(_resolve_path(p, base) for p in _strs(v, src, f"{where}.{key}"))

    paths = files("path", d["path"])
    if not paths:
        raise ConfigError(f"{src}: {where} ({name}): 'path' is empty")
    drop = _strs(d.get("drop"), src, f"{where}.drop")
    keep = _strs(d.get("keep"), src, f"{where}.keep")
    both = sorted(set(drop) & set(keep))
    if both:     # (columns unknown to the file are reported by the loader, in preflight)
        raise ConfigError(f"{src}: {where} ({name}): column {both[0]!r} is in both drop and "
                          f"keep")
    return DatasetSpec(
        name=name,
        path=paths,
        test=files("test", d.get("test")),
        labels=files("labels", labels)[0] if labels else None,
        task=task,
        targets=None if targets is None else str(targets),
        hierarchy=hier,
        drop=drop,
        keep=keep,
        nominal=_strs(d.get("nominal"), src, f"{where}.nominal"),
        semi_supervised=_typed(d, "semi_supervised", bool, src, where, False),
    )


def _protocol(d: Any, src: str) -> ProtocolSpec:
    d = _check_keys(d if d is not None else {}, PROTOCOL_KEYS, src, "protocol")
    typ = d.get("type", "holdout")
    if typ not in PROTOCOLS:
        raise choices_error(f"protocol type in {src}", typ, PROTOCOLS)
    if typ in PROTOCOL_USES:
        unused = [k for k in d if k not in ("type", "seed", "labeled") + PROTOCOL_USES[typ]]
        if unused:
            uses = ", ".join(("type", "seed", "labeled") + PROTOCOL_USES[typ])
            raise ConfigError(f"{src}: protocol.{unused[0]} does not apply to protocol type "
                              f"{typ!r} (it reads: {uses}); remove it")
    labeled = d.get("labeled") or []
    if isinstance(labeled, int):
        labeled = [labeled]
    if not isinstance(labeled, list) or not all(isinstance(x, int) and not isinstance(x, bool)
                                                and 1 <= x <= MAX_COUNT for x in labeled):
        raise ConfigError(f"{src}: protocol.labeled: expected a list of integers in "
                          f"1..{MAX_COUNT}")
    if len(set(labeled)) > MAX_LABELED_SIZES:
        raise ConfigError(f"{src}: protocol.labeled: {len(set(labeled))} sizes; at most "
                          f"{MAX_LABELED_SIZES}")
    if typ == "repeated-cv" and labeled:
        raise ConfigError(f"{src}: protocol.labeled is not available with type repeated-cv "
                          "(use cv or holdout)")
    return ProtocolSpec(
        type=typ,
        repeats=_typed(d, "repeats", int, src, "protocol", 10, lambda v: 1 <= v <= MAX_REPEATS,
                       f"an integer in 1..{MAX_REPEATS}"),
        test_fraction=_typed(d, "test_fraction", float, src, "protocol", 1 / 3,
                             lambda v: 0 < v < 1, "a number in (0, 1)"),
        folds=_typed(d, "folds", int, src, "protocol", 10, lambda v: 2 <= v <= MAX_FOLDS,
                     f"an integer in 2..{MAX_FOLDS}"),
        seed=_typed(d, "seed", int, src, "protocol", 0, lambda v: 0 <= v <= MAX_SEED,
                    "an integer in 0..2**63-1"),
        labeled=tuple(sorted(set(labeled))),
        stratify=_typed(d, "stratify", bool, src, "protocol", True),
        published_folds=_typed(d, "published_folds", bool, src, "protocol", True),
    )


def _rankers(items: Any, src: str) -> tuple[RankerSpec, ...]:
    from frcli.rankers.registry import method_names

    if not isinstance(items, list) or not items:
        raise ConfigError(f"{src}: 'rankers' must be a non-empty list")
    out = []
    names = method_names()
    for i, item in enumerate(items):
        where = f"rankers[{i}]"
        if isinstance(item, str):
            item = {"method": item}
        d = _check_keys(item, RANKER_KEYS, src, where)
        method = _typed(d, "method", str, src, where)
        if not method:
            raise ConfigError(f"{src}: {where}: needs 'method'")
        method = method.strip().lower()
        if method not in names:
            raise choices_error(f"method in {src}: {where}", method, names)
        params = d.get("params") or {}
        if not isinstance(params, dict):
            raise ConfigError(f"{src}: {where}.params: expected a mapping")
        out.append(RankerSpec(method, dict(params),
                              _typed(d, "labeled_only", bool, src, where, False)))
    keys = [r.key() for r in out]
    for i, k in enumerate(keys):
        if k in keys[:i]:
            raise ConfigError(f"{src}: rankers[{i}] repeats rankers[{keys.index(k)}]")
    return tuple(out)


def _evaluation(d: Any, src: str) -> tuple[EvalSpec, str]:
    d = _check_keys(d if d is not None else {}, EVAL_KEYS, src, "evaluation")
    w = "evaluation"
    measures = d.get("measures")
    if measures is not None:
        measures = _strs(measures, src, f"{w}.measures")
        from frcli.evaluate.measures import MEASURES

        for m in measures:
            if m not in MEASURES:
                raise choices_error(f"measure in {src}: {w}.measures", m, MEASURES)
    curve = d.get("curve")
    if curve is not None and curve != "pow2":
        if not (isinstance(curve, list) and 0 < len(curve) <= 1000 and all(
                isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= MAX_COUNT
                for x in curve)):
            raise ConfigError(f"{src}: {w}.curve: expected 'pow2' or a list of at most 1000 "
                              f"integers in 1..{MAX_COUNT}")
        curve = tuple(curve)
    variance = d.get("variance", "train")
    if variance not in ("train", "test"):
        raise choices_error(f"RRMSE variance in {src}: {w}.variance", variance,
                            ("train", "test"))
    pr = d.get("pr", "step")
    if pr not in ("step", "interpolated"):
        raise choices_error(f"PR-area method in {src}: {w}.pr", pr, ("step", "interpolated"))
    knn_train = d.get("knn_train", "full")
    if knn_train not in ("full", "labeled"):
        raise choices_error(f"kNN training rows in {src}: {w}.knn_train", knn_train,
                            ("full", "labeled"))
    kind = d.get("kind", "knn")
    if kind not in EVAL_KINDS:
        raise choices_error(f"evaluation kind in {src}: {w}.kind", kind, EVAL_KINDS)
    from frcli.evaluate.topf import LEARNERS, SCALES

    learner = d.get("learner", "auto")
    scale = d.get("scale", "minmax")
    if kind != "topf":
        for key in ("learner", "scale"):
            if key in d:
                raise ConfigError(f"{src}: {w}.{key} applies to kind: topf only")
    elif learner not in LEARNERS:
        raise choices_error(f"learner in {src}: {w}.learner", learner, LEARNERS)
    elif scale not in SCALES:
        raise choices_error(f"scale in {src}: {w}.scale", scale, SCALES)
    if kind == "topf":
        for key in ("knn", "measures", "weighted", "top", "variance", "pr"):
            if key in d:
                raise ConfigError(f"{src}: {w}.{key} is a kNN setting; kind: topf uses "
                                  "learner, curve and scale")
    knn = d.get("knn", 5)
    if isinstance(knn, list):   # several kNN sizes: the first gives the plain measure names
        if not knn or not all(isinstance(k, int) and not isinstance(k, bool)
                              and 1 <= k <= MAX_COUNT for k in knn) \
                or len(set(knn)) != len(knn):
            raise ConfigError(f"{src}: {w}.knn = {knn!r}: expected an integer in "
                              f"1..{MAX_COUNT} or a list of distinct ones")
        extra_knn = tuple(knn[1:])
        knn = knn[0]
    else:
        extra_knn = ()
        knn = _typed(d, "knn", int, src, w, 5, lambda v: 1 <= v <= MAX_COUNT,
                     f"an integer in 1..{MAX_COUNT}")
    spec = EvalSpec(
        knn=knn, extra_knn=extra_knn,
        confusion=_typed(d, "confusion", bool, src, w, False),
        measures=measures or None,
        weighted=_typed(d, "weighted", bool, src, w, True),
        top=_typed(d, "top", int, src, w, None, lambda v: 1 <= v <= MAX_COUNT,
                   f"an integer in 1..{MAX_COUNT}"),
        variance=variance, pr=pr, curve=curve, kind=kind, learner=learner, scale=scale)
    return spec, knn_train


def parse_config(doc: Any, src: str = "<config>", base: Path | None = None,
                 text: str = "") -> ExperimentConfig:
    """Validate a parsed YAML document (see the module docstring)."""
    base = base or Path.cwd()
    if doc is None:
        raise ConfigError(f"{src}: the config is empty; it needs at least name, datasets and "
                          f"rankers (see configs/quickstart.yaml)")
    d = _check_keys(doc, TOP_KEYS, src, "")
    for req in ("name", "datasets", "rankers"):
        if req not in d:
            raise ConfigError(f"{src}: missing required key '{req}'")
    name = _typed(d, "name", str, src, "name")
    if (not name or "/" in name or "\\" in name or name.startswith(".") or len(name) > 100
            or not name.isprintable()):
        raise ConfigError(f"{src}: name {name!r} must be a plain folder name (printable, no "
                          f"'/', at most 100 characters)")
    if not isinstance(d["datasets"], list) or not d["datasets"]:
        raise ConfigError(f"{src}: 'datasets' must be a non-empty list")
    datasets = tuple(_dataset(x, i, src, base) for i, x in enumerate(d["datasets"]))
    names = [x.name for x in datasets]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise ConfigError(f"{src}: data set name {n!r} appears twice")
    protocol = _protocol(d.get("protocol"), src)
    rankers = _rankers(d["rankers"], src)
    evaluation, knn_train = _evaluation(d.get("evaluation"), src)
    if protocol.type == "given":
        for ds in datasets:
            if not ds.has_test:
                raise ConfigError(f"{src}: protocol type 'given' needs a test file, and data "
                                  f"set {ds.name!r} has none")
    # task-dependent checks that need no data: measures and methods per task
    from frcli.evaluate.measures import default_measures

    for ds in datasets:
        task = ds.task_name()
        if task is None:
            continue
        if evaluation.kind == "topf" and task not in ("classification", "mlc"):
            raise ConfigError(f"{src}: evaluation kind topf is for classification and mlc; "
                              f"{ds.name!r} is {task}")
        if evaluation.measures:
            bad = [m for m in evaluation.measures if m not in default_measures(task)]
            if len(bad) == len(evaluation.measures):
                raise ConfigError(f"{src}: none of the measures {list(evaluation.measures)} "
                                  f"applies to {ds.name!r} (task {task}); allowed: "
                                  f"{', '.join(default_measures(task))}")
    return ExperimentConfig(name=name, datasets=datasets, protocol=protocol, rankers=rankers,
                            evaluation=evaluation, knn_train=knn_train,
                            output=_typed(d, "output", str, src, "output", "results"),
                            description=_typed(d, "description", str, src, "description", ""),
                            source=src, text=text)


def load_config(path: str | Path) -> ExperimentConfig:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {p}{_config_hint(p)}") from None
    except IsADirectoryError:
        raise ConfigError(f"{p}: is a directory, not a config file (.yaml)") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not a text (UTF-8) YAML file: {e.reason} at byte "
                          f"{e.start}") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the config: {e.strerror or e}") from None
    from frcli.yamlio import load_yaml   # duplicate keys, huge numbers, NUL

    doc = load_yaml(text, str(p))
    cfg = parse_config(doc, str(p), p.resolve().parent, text)
    from frcli.experiment import smoke

    return smoke.shrink(cfg) if smoke.enabled() else cfg


def _config_hint(p: Path) -> str:
    """``"; did you mean configs/mtr.yaml?"`` for ``mtr``, ``mtr.yaml`` or ``configs/mtr``:
    a shipped config (here or in the repository's configs/) of that name."""
    repo_configs = Path(__file__).resolve().parents[2] / "configs"
    stem = p.stem if p.suffix in (".yaml", ".yml", "") else p.name
    for folder in (Path("configs"), p.parent / "configs", repo_configs):
        for suffix in (".yaml", ".yml"):
            cand = folder / f"{stem}{suffix}"
            if cand.is_file() and cand.resolve() != p.resolve():
                try:
                    shown = cand.resolve().relative_to(Path.cwd())
                except ValueError:
                    shown = cand.resolve()
                return f"; did you mean {shown}?"
    return ""
