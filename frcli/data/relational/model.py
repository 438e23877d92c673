"""The relational data model: typed relations (sets of facts), a target relation, the
language bias (atom tests) and the published folds (spec-relational-mex §A1-A2).

Both readers (the published facts format, ``facts.py``; a folder of CSV tables with a YAML
schema, ``schema.py``) compile to this one representation, which is the thesis's view of a
relational data set after the conversion of Ch. 3.3.1: every feature column of a table is a
relation ``r(key..., value)``, foreign keys are relations between ID domains.

Encoding. Every argument type is a *domain*: an ID domain (``IDperson``, ``DrugID``: objects
that connect relations), a nominal domain or a numeric domain. Each domain's values get integer
codes: nominal and ID values in sorted string order (so the smallest code is the smallest
string, which makes ``mode`` ties match re3py's alphabetical rule), numeric values in
increasing numeric order (the float of code ``c`` is ``domain.numbers[c]``). A relation stores
its distinct tuples as an ``int32`` (tuples × arity) array of codes; the order of facts and
repeated facts do not matter (a relation is a set, closed world).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, Sequence

import numpy as np

DomainKind = Literal["id", "nominal", "numeric"]
Spec = Literal["old", "new", "c"]


@dataclass
class Domain:
    """One argument type and its values (``codes`` index ``values``)."""

    name: str
    kind: DomainKind
    values: list[str] = field(default_factory=list)
    numbers: np.ndarray | None = None      # numeric domains: the float of every code

    @property
    def size(self) -> int:
        return len(self.values)


@dataclass
class Relation:
    """A descriptive relation: name, argument types (domain names) and distinct tuples."""

    name: str
    types: tuple[str, ...]
    tuples: np.ndarray                      # int32 (n_tuples, arity), codes per domain
    table: str = ""                         # the table the relation describes (roll-ups)

    @property
    def arity(self) -> int:
        return len(self.types)

    @property
    def size(self) -> int:
        return int(self.tuples.shape[0])


@dataclass(frozen=True)
class Mode:
    """An atom test (re3py ``[AtomTests]``): per argument ``old`` (reuse a variable of the
    feature), ``new`` (a fresh variable) or ``c`` (a constant of the argument's domain)."""

    relation: str
    specs: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.relation}({','.join(self.specs)})"


@dataclass
class Folds:
    """The data set's own fold file: test folds as example indices, and whether they are a
    partition (every example in exactly one fold). ``note`` says what is wrong otherwise."""

    test_folds: list[np.ndarray]
    is_partition: bool
    note: str = ""
    path: str = ""


@dataclass
class RelationalDataset:
    """A relational classification data set (the target relation ``r(X..., Y)``).

    ``keys``: int32 (n, k) codes of the k key arguments of every example (one target fact
    each); ``y``: int class codes (``classes`` names them, sorted); ``modes``: the language
    bias; ``excluded``: relations no feature may use, with the reason (a commented-out atom
    test, a relation the user excluded); ``unlabelled``: objects of the target's key type that
    occur in descriptive facts but have no target fact (they are not examples).
    """

    name: str
    domains: dict[str, Domain]
    relations: dict[str, Relation]
    target_name: str
    key_types: tuple[str, ...]
    label_type: str
    keys: np.ndarray
    y: np.ndarray
    classes: tuple[str, ...]
    modes: list[Mode]
    excluded: dict[str, str] = field(default_factory=dict)
    aggregates: tuple[str, ...] | None = None       # the settings file's [Aggregates]
    folds: Folds | None = None
    unlabelled: int = 0
    source: str | None = None
    fmt: str = "facts"
    warnings: list[str] = field(default_factory=list)

    task = "classification"
    semi_supervised = False
    is_relational = True          # routes rankers and the runner (a tabular Dataset has not)

    def __post_init__(self) -> None:
        self.keys = np.ascontiguousarray(self.keys, dtype=np.int32).reshape(len(self.y), -1)
        self.y = np.ascontiguousarray(self.y, dtype=np.intp)

    # -- the interface the rankers and the runner rely on ---------------------------------
    @property
    def n_examples(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def labeled(self) -> np.ndarray:
        return np.ones(self.n_examples, dtype=bool)

    @property
    def feature_names(self) -> list[str]:
        """The ranking units: the descriptive relations some atom test may use (data order)."""
        used = {m.relation for m in self.modes}
        return [r for r in self.relations if r in used]

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def class_counts(self) -> np.ndarray:
        return np.bincount(self.y, minlength=self.n_classes)

    def subset(self, rows, name: str | None = None) -> "RelationalDataset":
        """The given examples (index array or mask). Descriptive facts are shared: the
        setting is inductive, a test example's own facts are known, only its label is not."""
        rows = np.asarray(rows)
        return replace(self, name=name or self.name, keys=self.keys[rows], y=self.y[rows],
                       folds=None)

    def supervised_view(self, who: str = "") -> "RelationalDataset":
        return self

    def example_ids(self) -> list[str]:
        """The examples' key values as written in the data (``a,b`` for composite keys)."""
        doms = [self.domains[t] for t in self.key_types]
        return [",".join(d.values[c] for d, c in zip(doms, row)) for row in self.keys]

    def tables(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in self.relations.values():
            out.setdefault(r.table, []).append(r.name)
        return out

    def __repr__(self) -> str:
        return (f"RelationalDataset({self.name!r}, examples={self.n_examples}, "
                f"relations={len(self.relations)}, classes={self.n_classes})")


# -- helpers shared by the readers ------------------------------------------------------------

def domain_kind(type_name: str) -> DomainKind:
    """re3py's typing rule: ``numeric...`` / ``nominal...`` are constants, a name starting with
    an upper-case letter is an object (ID) type."""
    if type_name.startswith("numeric"):
        return "numeric"
    if type_name.startswith("nominal"):
        return "nominal"
    return "id"


def build_domain(name: str, kind: DomainKind, raw: Sequence[str]) -> tuple[Domain, dict]:
    """A domain over the distinct strings ``raw`` and the string → code map."""
    distinct = set(raw)
    if kind == "numeric":
        pairs = sorted(((float(s), s) for s in distinct), key=lambda p: (p[0], p[1]))
        # values equal as numbers ("1" and "1.0") share one code
        values: list[str] = []
        numbers: list[float] = []
        code: dict[str, int] = {}
        for x, s in pairs:
            if not numbers or x != numbers[-1]:
                values.append(s)
                numbers.append(x)
            code[s] = len(values) - 1
        return Domain(name, kind, values, np.asarray(numbers, dtype=np.float64)), code
    values = sorted(distinct)
    return Domain(name, kind, values), {s: i for i, s in enumerate(values)}


def default_modes(relations: dict[str, Relation], domains: dict[str, Domain]) -> list[Mode]:
    """Atom tests when none are declared: each relation entered through any one of its ID
    arguments (``old`` there, ``new`` elsewhere), as the schema's foreign keys allow."""
    out = []
    for r in relations.values():
        for i, t in enumerate(r.types):
            if domains[t].kind == "id":
                out.append(Mode(r.name, tuple("old" if j == i else "new"
                                              for j in range(r.arity))))
    return out


def table_names(relations: dict[str, Relation], domains: dict[str, Domain]) -> None:
    """Fill ``Relation.table`` where a reader left it empty: relations describing the same kind
    of object share their ID-argument types (the inverse of §A2's conversion), so the table is
    named by them (``IDperson``, ``AtomID,DrugID``); a relation with no value argument (a link)
    is its own table."""
    for r in relations.values():
        if r.table:
            continue
        ids = [t for t in r.types if domains[t].kind == "id"]
        has_value = len(ids) < r.arity
        r.table = ",".join(ids) if has_value and ids else r.name


def check_leaks(ds: RelationalDataset) -> list[str]:
    """Relations of the target's own objects (``r(key, value)``) whose value determines the
    label on every example: a feature built from them reads the answer (mutagenesis'
    ``drugs_act``). Returns one message per such relation (excluded ones included)."""
    out = []
    if ds.n_examples < 20 or ds.n_classes < 2:
        return out
    k = len(ds.key_types)
    lookup = {tuple(row): i for i, row in enumerate(ds.keys.tolist())}
    for r in ds.relations.values():
        if r.arity != k + 1 or r.types[:k] != ds.key_types:
            continue
        dom = ds.domains[r.types[k]]
        if dom.kind == "id":
            continue
        val = np.full(ds.n_examples, -1, dtype=np.int64)
        seen = np.zeros(ds.n_examples, dtype=np.int64)
        for row in r.tuples.tolist():
            i = lookup.get(tuple(row[:k]))
            if i is not None:
                val[i] = row[k]
                seen[i] += 1
        if (seen != 1).any():      # not a function of the example on every example
            continue
        y = ds.y
        if dom.kind == "nominal":
            pure = all(len(set(y[val == v].tolist())) == 1 for v in np.unique(val))
            many = len(np.unique(val)) < ds.n_examples / 2
            if pure and many:
                out.append(f"relation {r.name!r} determines the label on all "
                           f"{ds.n_examples} examples (each value has one class)")
        else:
            x = dom.numbers[val]
            order = np.argsort(x, kind="stable")
            ys = y[order]
            changes = np.flatnonzero(ys[1:] != ys[:-1])
            if len(changes) == ds.n_classes - 1 and \
                    all(x[order][c] < x[order][c + 1] for c in changes):
                out.append(f"relation {r.name!r} determines the label on all "
                           f"{ds.n_examples} examples (a threshold separates the classes)")
    return out
