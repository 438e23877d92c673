"""The in-memory data model every ranker, evaluator and command works on.

One representation for every task, so that engines need no per-format code:

* ``X``: ``float64`` (n, F), NaN for missing. Nominal features hold their category *codes*
  (0..k-1) as floats; ``features[i].categories`` names them.
* ``Y``: the targets, by task
    - ``regression``, ``mtr``, ``classification``: ``float64`` (n, T), NaN for unknown;
      nominal targets (classification, or mixed MTR as CLUS allows) hold class codes.
    - ``mlc``, ``hmlc``: ``uint8`` (n, L) 0/1 incidence; for hmlc every row is closed upwards
      and ``hierarchy`` describes the labels (same column order).
    - ``unsupervised``: ``None``.
* ``labeled``: bool (n,), False where a row's targets are all unknown (semi-supervised use).
* ``semi_supervised``: the user asked for semi-supervised learning (``--semi-supervised``,
  ``with_unlabeled``). Without it, supervised rankers drop unlabelled rows with a warning
  (``supervised_view``) instead of silently switching to semi-supervised mode.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, Sequence

import numpy as np

from frcli.errors import option

TASKS = ("classification", "regression", "mtr", "mlc", "hmlc", "unsupervised")
Task = Literal["classification", "regression", "mtr", "mlc", "hmlc", "unsupervised"]
Kind = Literal["numeric", "nominal"]


@dataclass(frozen=True)
class Attribute:
    """One column: its name, kind and (nominal) category names in code order."""

    name: str
    kind: Kind
    categories: tuple[str, ...] = ()

    @property
    def is_nominal(self) -> bool:
        return self.kind == "nominal"


@dataclass
class Hierarchy:
    """Labels of an HMLC task with explicit parent edges (no ≤ relation: spec-core §1.2).

    ``labels`` are in topological order (every parent before its children) and are the
    column order of ``Dataset.Y``. ``parents[j]`` holds the column indices of label j's parents
    (empty for top-level labels).
    """

    labels: list[str]
    parents: list[np.ndarray]
    kind: Literal["tree", "dag"] = "tree"

    def __post_init__(self) -> None:
        self.parents = [np.asarray(p, dtype=np.intp) for p in self.parents]

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    def weights(self, w0: float = 0.75, aggregate: Literal["sum", "mean"] = "sum",
                top: Literal["w0", "one"] = "w0") -> np.ndarray:
        """Label weights w(l) = w0 · agg(w(parents)); top-level labels get ``w0`` (CLUS) or 1.

        CLUS (and so the reference rankings) uses top-level weight w0 and, in a DAG, the *sum*
        of the parents' weights (verified-conventions.md); the thesis defines the mean with
        top level 1. In a tree both agree up to a constant factor.
        """
        w = np.empty(self.n_labels)
        for j, par in enumerate(self.parents):
            if len(par) == 0:
                w[j] = w0 if top == "w0" else 1.0
            else:
                pw = w[par]
                w[j] = w0 * (pw.sum() if aggregate == "sum" else pw.mean())
        return w

    def depths(self) -> np.ndarray:
        """Depth of every label (top level = 1; longest path from the root in a DAG)."""
        d = np.zeros(self.n_labels, dtype=np.intp)
        for j, par in enumerate(self.parents):
            d[j] = 1 if len(par) == 0 else 1 + d[par].max()
        return d

    def ancestors_closure(self, Y: np.ndarray) -> np.ndarray:
        """Close 0/1 label rows upwards (add every ancestor of every present label)."""
        Y = np.array(Y, dtype=np.uint8, copy=True)
        for j in range(self.n_labels - 1, -1, -1):  # children come after parents
            par = self.parents[j]
            if len(par):
                rows = Y[:, j].astype(bool)
                if rows.any():
                    for p in par:
                        Y[rows, p] = 1
        return Y


@dataclass
class Dataset:
    """Features, targets and their descriptions; see the module docstring for layouts."""

    name: str
    X: np.ndarray
    features: list[Attribute]
    task: Task
    Y: np.ndarray | None = None
    targets: list[Attribute] = field(default_factory=list)
    hierarchy: Hierarchy | None = None
    labeled: np.ndarray | None = None
    source: str | None = None
    semi_supervised: bool = False
    # the columns the identifier screen left out (``frcli.data.screen``): part of what the
    # data are, so experiment runs fingerprint them
    screened: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.X = np.ascontiguousarray(self.X, dtype=np.float64)
        if self.X.ndim != 2 or self.X.shape[1] != len(self.features):
            raise ValueError("X must be (n, len(features))")
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}")
        if self.Y is not None:
            if self.Y.ndim == 1:
                self.Y = self.Y[:, None]
            if self.Y.shape[0] != self.X.shape[0]:
                raise ValueError("X and Y must have the same number of rows")
        if self.labeled is None:
            self.labeled = self._infer_labeled()
        else:
            self.labeled = np.asarray(self.labeled, dtype=bool)

    # -- shape -------------------------------------------------------------------------
    @property
    def n_examples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_targets(self) -> int:
        return 0 if self.Y is None else self.Y.shape[1]

    @property
    def feature_names(self) -> list[str]:
        return [a.name for a in self.features]

    @property
    def target_names(self) -> list[str]:
        if self.hierarchy is not None:
            return list(self.hierarchy.labels)
        return [a.name for a in self.targets]

    @property
    def nominal_mask(self) -> np.ndarray:
        return np.array([a.is_nominal for a in self.features], dtype=bool)

    @property
    def n_categories(self) -> np.ndarray:
        """Number of categories per feature (0 for numeric)."""
        return np.array([len(a.categories) for a in self.features], dtype=np.intp)

    @property
    def is_label_task(self) -> bool:
        return self.task in ("mlc", "hmlc")

    # -- derived views -----------------------------------------------------------------
    def _infer_labeled(self) -> np.ndarray:
        n = self.X.shape[0]
        if self.Y is None or self.Y.dtype == np.uint8:
            return np.ones(n, dtype=bool)
        return ~np.all(np.isnan(self.Y), axis=1)

    def subset(self, rows: Sequence[int] | np.ndarray, name: str | None = None) -> "Dataset":
        """The given rows (an index array or a boolean mask) as a new Dataset."""
        rows = np.asarray(rows)
        return replace(
            self,
            name=name or self.name,
            X=self.X[rows],
            Y=None if self.Y is None else self.Y[rows],
            labeled=self.labeled[rows],
        )

    def without_features(self, names: Sequence[str]) -> "Dataset":
        """A copy without the features called ``names`` (an unknown name is ignored)."""
        out = set(names)
        keep = [j for j, a in enumerate(self.features) if a.name not in out]
        return replace(self, X=self.X[:, keep], features=[self.features[j] for j in keep])

    def with_unlabeled(self, mask: np.ndarray) -> "Dataset":
        """A copy where rows in ``mask`` have their targets hidden (semi-supervised).

        Numeric/nominal targets become NaN; label tasks keep their 0/1 values in ``Y`` but
        ``labeled`` is False there, and every consumer must honour ``labeled``.
        """
        mask = np.asarray(mask, dtype=bool)
        Y = None if self.Y is None else self.Y.copy()
        if Y is not None and Y.dtype != np.uint8:
            Y[mask] = np.nan
        return replace(self, Y=Y, labeled=self.labeled & ~mask, semi_supervised=True)

    def supervised_view(self, who: str = "this method") -> "Dataset":
        """Self, or (when rows lack every target and semi-supervised learning was not asked
        for) the labelled rows only, with a warning naming ``who``."""
        if (self.semi_supervised or self.task == "unsupervised" or self.Y is None
                or bool(np.all(self.labeled))):
            return self
        import warnings

        n_un = int((~self.labeled).sum())
        warnings.warn(f"{self.name}: {who} ignores the {n_un} of {self.n_examples} rows without "
                      f"known targets (use {option('semi_supervised')} to learn from them)",
                      stacklevel=3)
        return self.subset(self.labeled)

    def label_cardinality(self) -> float | None:
        if not self.is_label_task or self.Y is None:
            return None
        rows = self.labeled
        return float(self.Y[rows].sum(axis=1).mean()) if rows.any() else 0.0

    def missing_fraction(self) -> float:
        return float(np.isnan(self.X).mean()) if self.X.size else 0.0

    def __repr__(self) -> str:  # short, for logs and the REPL
        return (f"Dataset({self.name!r}, task={self.task}, n={self.n_examples}, "
                f"features={self.n_features}, targets={self.n_targets})")
