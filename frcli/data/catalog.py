"""The data-set catalog (``configs/datasets.yaml``): names → files, targets, splits, sources.

Files are looked up under data roots, in order: ``$FRCLI_DATA_ROOTS`` (``:``-separated), then
the catalog's ``roots`` (relative ones are relative to the repository: ``datasets/fetched``
for downloads, ``datasets`` for the bundled synthetic sets, ``../shared/datasets``).
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from frcli.errors import ConfigError, UserError

REPO = Path(__file__).resolve().parents[2]
CATALOG_FILE = REPO / "configs" / "datasets.yaml"
_KEYS = {"group", "task", "data", "train", "test", "labels", "targets", "hierarchy", "drop",
         "split", "expect", "source", "note", "settings", "truth", "semi_supervised"}
_SPLITS = ("given", "holdout", "cv", "none")
FETCH_DIR = REPO / "datasets" / "fetched"
SYNTHETIC_DIR = REPO / "datasets" / "synthetic"


@dataclass
class Entry:
    """One catalog entry (see the comment block at the top of ``configs/datasets.yaml``)."""

    name: str
    group: str
    task: str
    data: str | None = None
    train: list[str] = field(default_factory=list)
    test: list[str] = field(default_factory=list)
    labels: str | None = None
    targets: str | None = None
    hierarchy: str | None = None
    drop: list[str] = field(default_factory=list)
    split: dict = field(default_factory=lambda: {"kind": "none"})
    expect: dict = field(default_factory=dict)
    source: str | None = None
    note: str | None = None
    settings: str | None = None
    truth: str | None = None
    semi_supervised: bool = False  # rows with unknown targets are expected (SSL sets)

    @property
    def files(self) -> list[str]:
        """Every relative path the entry needs (what ``fetch`` downloads)."""
        out = ([self.data] if self.data else []) + self.train + self.test
        for extra in (self.labels, self.truth):
            if extra:
                out.append(extra)
        return out

    def locate(self, roots: list[Path] | None = None) -> dict[str, Path | None]:
        """Relative path → absolute path under the first root holding it (None if absent)."""
        roots = data_roots() if roots is None else roots
        found: dict[str, Path | None] = {}
        for rel in self.files:
            found[rel] = next((r / rel for r in roots if (r / rel).is_file()), None)
        return found

    def available(self, roots: list[Path] | None = None) -> bool:
        return all(p is not None for p in self.locate(roots).values())

    def load_options(self) -> dict:
        opts: dict = {}
        if self.targets is not None:
            opts["targets"] = self.targets
        if self.hierarchy is not None:
            opts["hierarchy"] = self.hierarchy
        if self.drop:
            opts["drop"] = list(self.drop)
        if self.task not in ("mlc", "hmlc") or self.labels is None:
            opts["task"] = self.task
        return opts


def data_roots() -> list[Path]:
    roots: list[Path] = []
    env = os.environ.get("FRCLI_DATA_ROOTS")
    if env:
        roots += [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    # relative roots are relative to the checkout holding the catalog (configs/..), so
    # FRCLI_CATALOG=<checkout>/configs/datasets.yaml serves a non-editable install too
    base = Path(_catalog_path()).resolve().parents[1]
    for r in _raw_catalog().get("roots", []):
        p = Path(r).expanduser()
        roots.append(p if p.is_absolute() else (base / p).resolve())
    return roots


@lru_cache(maxsize=4)
def _read_yaml(path: str) -> dict:
    import yaml

    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh) or {}
    except FileNotFoundError:
        raise ConfigError(f"data-set catalog not found: {path} (catalog names need the "
                          "checkout: install with 'pip install -e .' or set FRCLI_CATALOG="
                          "<checkout>/configs/datasets.yaml)") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: invalid YAML: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("datasets"), dict):
        raise ConfigError(f"{path}: expected a mapping with a 'datasets' key")
    return doc


def _catalog_path() -> str:
    return os.environ.get("FRCLI_CATALOG", str(CATALOG_FILE))


def _raw_catalog() -> dict:
    return _read_yaml(_catalog_path())


def catalog() -> dict[str, Entry]:
    """All entries by name, in file order."""
    path = _catalog_path()
    out: dict[str, Entry] = {}
    for name, spec in _raw_catalog()["datasets"].items():
        if not isinstance(spec, dict):
            raise ConfigError(f"{path}: datasets.{name} must be a mapping")
        unknown = set(spec) - _KEYS
        if unknown:
            raise ConfigError(f"{path}: datasets.{name}: unknown key {sorted(unknown)[0]!r}; "
                              f"allowed: {', '.join(sorted(_KEYS))}")
        spec = dict(spec)
        for k in ("train", "test", "drop"):
            if isinstance(spec.get(k), str):
                spec[k] = [spec[k]]
        split = spec.get("split") or {"kind": "none"}
        if split.get("kind") not in _SPLITS:
            raise ConfigError(f"{path}: datasets.{name}.split.kind {split.get('kind')!r}; "
                              f"allowed: {', '.join(_SPLITS)}")
        spec["split"] = split
        if not spec.get("data") and not spec.get("train"):
            raise ConfigError(f"{path}: datasets.{name} needs 'data' or 'train'")
        if "targets" in spec and spec["targets"] is not None:
            spec["targets"] = str(spec["targets"])
        out[str(name)] = Entry(name=str(name), **spec)
    return out


def get(name: str) -> Entry:
    """The entry called ``name`` (an error lists close names)."""
    cat = catalog()
    if name in cat:
        return cat[name]
    close = difflib.get_close_matches(name, list(cat), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; see `frcli datasets list`"
    raise UserError(f"unknown data set {name!r}{hint}")


def _paths(entry: Entry, rels: list[str]) -> list[Path]:
    loc = entry.locate()
    missing = [r for r in rels if loc.get(r) is None]
    if missing:
        roots = ", ".join(str(r) for r in data_roots())
        raise UserError(f"data set {entry.name!r}: {missing[0]} not found under any data root "
                        f"({roots}); run `frcli datasets fetch {entry.name}`")
    return [loc[r] for r in rels]


OVERRIDES = ("targets", "labels", "task", "hierarchy", "nominal", "drop", "keep")


def load(name: str, part: str = "all", *, semi_supervised: bool = False, **overrides):
    """A catalog data set as one ``Dataset``.

    ``part``: ``train`` (train files concatenated), ``test``, or ``all`` (train then test rows;
    use ``splits(name, n_train=...)`` for the fixed split). ``overrides`` (``targets``,
    ``labels``, ``task``, ``hierarchy``, ``nominal``) replace the entry's own choices; new
    ``targets`` or ``labels`` also drop the entry's task (inferred again unless ``task`` is
    given), since the catalog's task was that of its own targets. ``drop`` leaves columns out
    besides the entry's own ``drop``; ``keep`` keeps columns that look like identifiers
    (``frcli.data.screen``, applied to the rows loaded).
    """
    entry = get(name)
    if entry.group == "relational":
        return _relational(_paths(entry, [entry.data])[0], name, overrides)
    if part not in ("all", "train", "test"):
        raise UserError(f"unknown part {part!r}; allowed: all, train, test")
    if entry.data and part != "all":
        raise UserError(f"data set {name!r} is a single file: it has no {part} part")
    rels = [entry.data] if entry.data else \
        {"train": entry.train, "test": entry.test, "all": entry.train + entry.test}[part]
    opts, keep = _load_options(entry, overrides)
    return _screened(_read(entry, rels, opts, semi_supervised), keep)


def _load_options(entry: Entry, overrides: dict) -> tuple[dict, list[str]]:
    """The options ``load_dataset`` gets for ``entry`` with the user's ``overrides``, and the
    columns to keep from the identifier screening."""
    from frcli.data.load import names_list

    unknown = set(overrides) - set(OVERRIDES)
    if unknown:
        raise UserError(f"cannot override {sorted(unknown)[0]!r} of a catalog data set; "
                        f"allowed: {', '.join(OVERRIDES)}")
    overrides = {k: v for k, v in overrides.items() if v is not None}
    keep = names_list(overrides.pop("keep", None))
    opts = entry.load_options()
    if "targets" in overrides or "labels" in overrides:
        opts.pop("task", None)
        opts.pop("targets", None)
    drop = list(dict.fromkeys(opts.pop("drop", []) + names_list(overrides.pop("drop", None))))
    opts.update(overrides)
    if drop:
        opts["drop"] = drop
    if keep:
        opts["keep"] = keep      # checked against the file's columns by the loader
    if entry.labels and "labels" not in overrides and "targets" not in overrides:
        opts["labels"] = str(_paths(entry, [entry.labels])[0])
    return opts, keep


def _read(entry: Entry, rels: list[str], opts: dict, semi_supervised: bool):
    """The files ``rels`` of ``entry``, rows concatenated, not yet screened."""
    from frcli.data.load import load_dataset
    from frcli.data.splits import concat

    semi_supervised = semi_supervised or entry.semi_supervised
    parts = [load_dataset(p, name=entry.name, semi_supervised=semi_supervised, screen=False,
                          **opts) for p in _paths(entry, rels)]
    ds = parts[0]
    for other in parts[1:]:
        ds = concat(ds, other, name=entry.name)
    return ds


def _screened(ds, keep: list[str]):
    from frcli.data.screen import screen

    return screen(ds, keep=keep, where=f"data set {ds.name!r}")


def load_train_test(name: str, *, semi_supervised: bool = False, **overrides):
    """(train, test) of a catalog entry with train and test files (``overrides`` as in
    ``load``). The training rows are screened for identifiers; the test rows lose the same
    columns, whatever their own rows would say (``frcli.data.screen.screen_like``)."""
    from frcli.data.screen import screen_like

    entry = get(name)
    if not entry.test:
        raise UserError(f"data set {name!r} has no test files")
    opts, keep = _load_options(entry, overrides)
    tr = _screened(_read(entry, entry.train, opts, semi_supervised), keep)
    return tr, screen_like(_read(entry, entry.test, opts, semi_supervised), tr)


def load_with_splits(name: str, *, seed: int = 0, semi_supervised: bool = False,
                     **overrides):
    """(Dataset with every row, list of (train, test) index arrays) as the entry prescribes:
    the fixed train/test files, repeated hold-out or k-fold CV (``overrides`` as in
    ``load``)."""
    from frcli.data import splits as S

    entry = get(name)
    if entry.group == "relational":     # the published folds when they are a partition
        from frcli.data.relational import relational_splits

        ds = load(name)
        return ds, relational_splits(ds, int(entry.split.get("folds", 10)), seed)[0]
    kind = entry.split.get("kind", "none")
    if kind == "given":    # the training rows' screen, so both parts keep the same features
        tr, te = load_train_test(name, semi_supervised=semi_supervised, **overrides)
        return S.concat(tr, te, name=name), S.given_split(tr.n_examples, te.n_examples)
    ds = load(name, semi_supervised=semi_supervised, **overrides)
    if kind == "holdout":
        sp = S.holdout_splits(ds.n_examples, float(entry.split.get("test_size", 1 / 3)),
                              int(entry.split.get("repeats", 10)), seed)
    elif kind == "cv":
        y = ds.Y[:, 0] if ds.task == "classification" else None
        sp = S.kfold_splits(ds.n_examples, int(entry.split.get("folds", 10)), seed, y)
    else:
        sp = [(np.arange(ds.n_examples), np.arange(0))]
    return ds, sp


def entry_of_file(path: str | os.PathLike) -> Entry | None:
    """The catalog entry one of whose files is ``path`` (to point users at its name)."""
    try:
        target = Path(path).resolve()
        for entry in catalog().values():
            if any(p is not None and p.resolve() == target for p in entry.locate().values()):
                return entry
    except (UserError, OSError):
        return None
    return None


def open_data(data: str | os.PathLike, *, semi_supervised: bool = False, **options):
    """A data file, or failing that a catalog name, as a ``Dataset`` (what ``frcli rank`` and
    ``frcli.rank`` accept). A catalog name takes ``options`` as overrides of its entry; an
    error on a file that the catalog knows names the catalog entry, which knows its targets.
    """
    from frcli.data.load import NoTargetsError, load_dataset

    path = Path(data)
    options = {k: v for k, v in options.items() if v is not None}
    from frcli.data.relational import is_relational

    if path.exists() and is_relational(path):
        return _relational(path, str(path), options)
    if path.exists():
        try:
            return load_dataset(path, semi_supervised=semi_supervised, **options)
        except NoTargetsError as e:
            return _default_targets(path, e, semi_supervised, options)
    name = str(data)
    cat = catalog()
    if path.suffix or name not in cat:
        from frcli.errors import did_you_mean

        hint = did_you_mean(name, cat) if not path.suffix else ""
        raise UserError(f"{data}: no such file, nor a data set of the catalog{hint} "
                        "(frcli datasets list shows them)")
    return load(name, semi_supervised=semi_supervised, **options)


def _default_targets(path: Path, error: Exception, semi_supervised: bool, options: dict):
    """A data file that names no targets, given without ``targets`` or ``labels``:

    * a file of the catalog takes its entry's targets (an MTR file's last six attributes,
      an MLC file's label list), which the catalog knows and the file does not say;
    * any other ARFF file takes its last attribute, WEKA's convention (the class is the last
      attribute), which the single-target benchmark files follow;
    * a CSV or TSV file has no such convention (a table's last column is as often a note or
      an identifier as a target), so it must name its target: the error says how.

    Each choice is said in one ``note:`` line.
    """
    import warnings

    from frcli.data.load import ARFF_EXTS, NoTargetsError, load_dataset
    from frcli.errors import Notice, option, option_name

    entry = entry_of_file(path)
    if entry is not None:
        opts, keep = _load_options(entry, options)
        given = (option("labels", Path(opts["labels"]).name) if "labels" in opts
                 else option("targets", opts.get("targets", "?")))
        warnings.warn(f"{path} is the catalog data set {entry.name!r}: its targets are used, "
                      f"as with {given}", Notice, stacklevel=3)
        ds = load_dataset(path, semi_supervised=semi_supervised or entry.semi_supervised,
                          screen=False, **opts)
        return _screened(ds, keep)
    if path.suffix.lower() not in ARFF_EXTS:
        raise NoTargetsError(f"{error} (a CSV or TSV file does not say which column is the "
                             f"target: name it, e.g. {option('targets', 'last:1')})") from None
    ds = load_dataset(path, semi_supervised=semi_supervised, **dict(options, targets="last:1"))
    warnings.warn(f"{path}: no targets given: the last attribute, {ds.target_names[0]!r}, is "
                  f"the target (WEKA's convention for ARFF files); {option_name('targets')} "
                  f"chooses others, {option('task', 'unsupervised')} ranks without one", Notice,
                  stacklevel=3)
    return ds


def _relational(path: Path, name: str, options: dict):
    """A relational data set (its target relation is fixed by its settings or schema)."""
    from frcli.data.relational import load_relational

    given = sorted(k for k, v in options.items() if v not in (None, False))
    if given:
        raise UserError(f"{name}: {given[0]!r} does not apply to relational data (the target "
                        "relation is in its settings file or schema.yaml)")
    return load_relational(path.parent if path.suffix == ".s" else path,
                           name=Path(name).name if Path(name).exists() else name)
