"""``load_dataset``: a data file plus a target description → ``Dataset``.

Target choice (first that applies): ``labels=FILE.xml`` (Mulan label list), ``targets=SPEC``,
the (last) CLUS ``hierarchical`` attribute, otherwise none. ``SPEC`` is a comma-separated mix of
``last:N``, 1-based indices and ranges (``3,8-11``, CLUS's ``Target`` convention) and attribute
names; a purely numeric token is always an index (so an attribute named ``3`` is reached only
through a range or a label file).

Task inference (``task=`` overrides, and is checked): hierarchical → hmlc; ≥ 2 targets all
binary nominal → mlc; ≥ 2 otherwise → mtr (nominal targets become codes); one numeric →
regression; one nominal → classification. ``task="unsupervised"`` drops any targets.

Choices where the file formats are silent (documented in docs and tests):

* The positive value of a binary nominal label is ``1`` if declared, else one of
  yes/true/y/t/pos/positive/+ (any case), else the second declared value.
* A label with ``?`` in an MLC row counts as absent (with a warning); a row whose targets are
  all unknown is unlabelled (``labeled`` False). Without ``semi_supervised=True`` such rows
  trigger a warning, since a supervised ranker cannot use them.
* ``string``/``date`` attributes are ignored with a warning; a ``hierarchical`` attribute that
  is not the target becomes a nominal feature over its distinct row strings.
* A CSV target column of numbers with a few text values (at most ``FEW_TEXT`` of its known
  values, at least one: ``n/a``, ``?x``, ``1.2.3``) is an error naming the line and the value:
  read as nominal, it would silently turn a regression into a many-class problem. With more
  text the column is taken as nominal on purpose, with a warning, as is a feature column
  of numbers and text (a feature's type does not change the task).
* Identifier columns are left out of the features, with a notice, and nominal features with
  very many categories are warned about (``frcli.data.screen``); ``keep`` names columns to
  keep anyway, ``drop`` columns to leave out.
"""
from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

from frcli.data.arff import HIERARCHICAL, NOMINAL, NUMERIC, ArffAttribute, ArffTable, read_arff
from frcli.data.dataset import TASKS, Attribute, Dataset, Hierarchy
from frcli.data.screen import check_names
from frcli.data.screen import screen as screen_features
from frcli.errors import (DataError, UserError, choices_error, message_style, option,
                          option_name)

ARFF_EXTS = (".arff",)
CSV_EXTS = (".csv", ".tsv", ".txt")
_POSITIVE = {"yes", "true", "y", "t", "pos", "positive", "+"}
_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")
_LAST = re.compile(r"^\s*last\s*:\s*(\d+)\s*$", re.I)
# a target of numbers whose text values are at most this share of its known values (and at
# least one) holds typos, not categories: 1 "n/a" in 49 numbers, 5 in 100, 30 in 300
FEW_TEXT = 0.10


class NoTargetsError(UserError):
    """The file names no targets and none were given (``datasets info`` then shows it as
    unsupervised)."""


def read_table(path: str | os.PathLike, *, nominal: Sequence[str] | None = None) -> ArffTable:
    """Read ARFF or CSV/TSV (by extension) into an ``ArffTable``; ``nominal`` forces columns."""
    p = Path(path)
    ext = p.suffix.lower()
    if ext in ARFF_EXTS:
        table = read_arff(p)
        if nominal:
            table = force_nominal(table, nominal)
    elif ext in CSV_EXTS:
        from frcli.data.csvio import read_csv

        table = read_csv(p, nominal=nominal)
    else:
        if not p.exists():
            raise DataError("file not found", str(p))
        raise DataError(f"unknown data file extension {ext or '(none)'!r}; allowed: "
                        f"{', '.join(ARFF_EXTS + CSV_EXTS)}", str(p))
    return table


def force_nominal(table: ArffTable, names: Sequence[str]) -> ArffTable:
    """Turn numeric columns into nominal ones (categories: their sorted distinct values)."""
    from frcli.data.arff import _fmt_num

    idx = {a.name: j for j, a in enumerate(table.attributes)}
    for name in names:
        j = idx.get(name)
        if j is None:
            raise UserError(f"{option('nominal')}: no attribute named {name!r} in {table.path}")
        a = table.attributes[j]
        if a.type == NOMINAL:
            continue
        if a.type != NUMERIC:
            raise UserError(f"{option('nominal')}: attribute {name!r} is {a.type}, not numeric")
        col = table.values[:, j]
        known = ~np.isnan(col)
        uniq = np.unique(col[known])
        codes = np.full(col.shape, np.nan)
        codes[known] = np.searchsorted(uniq, col[known])
        table.values[:, j] = codes
        table.attributes[j] = ArffAttribute(a.name, NOMINAL, tuple(_fmt_num(u) for u in uniq),
                                            a.line)
    return table


def parse_targets(spec, names: Sequence[str], *, where: str = "") -> list[int]:
    """Target spec → 0-based attribute indices (in the order given, duplicates removed)."""
    if isinstance(spec, str):
        tokens = [t for t in (s.strip() for s in spec.split(",")) if t]
    else:
        tokens = list(spec)
    A = len(names)
    index = {n: i for i, n in enumerate(names)}
    out: list[int] = []
    for tok in tokens:
        if isinstance(tok, (int, np.integer)):
            ks = [int(tok)]
        elif (m := _LAST.match(tok)):
            k = int(m.group(1))
            if not 1 <= k < A:
                if A < 2:
                    raise UserError(f"targets {tok!r}: the data have only {A} attribute"
                                    f"{where}, so nothing would be left as a feature")
                raise UserError(f"targets {tok!r}: need 1 <= N < {A} (the number of attributes"
                                f"{where})")
            ks = list(range(A - k + 1, A + 1))
        elif (m := _RANGE.match(tok)):
            lo, hi = int(m.group(1)), int(m.group(2))
            if lo > hi:
                raise UserError(f"targets range {tok!r} is empty (first > last)")
            if hi > A:               # checked before the range is listed (1-99999999999)
                raise UserError(f"target index {hi} out of range 1..{A}{where}")
            ks = list(range(lo, hi + 1))
        elif tok.strip().isdigit():
            ks = [int(tok)]
        else:
            j = index.get(tok)
            if j is None:
                close = [n for n in names if n.lower() == tok.lower()]
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise UserError(f"unknown target attribute {tok!r}{where}{hint}")
            ks = [j + 1]
        for k in ks:
            if not 1 <= k <= A:
                raise UserError(f"target index {k} out of range 1..{A}{where}")
            if k - 1 not in out:
                out.append(k - 1)
    if not out and tokens:
        raise UserError(f"targets {spec!r} selects no attribute")
    return out


def positive_code(attr: ArffAttribute) -> int:
    """Code of the 'present' value of a binary nominal label (see module docstring)."""
    vals = list(attr.values)
    if "1" in vals:
        return vals.index("1")
    for k, v in enumerate(vals):
        if v.lower() in _POSITIVE:
            return k
    return 1


def _is_binary(a: ArffAttribute) -> bool:
    return a.type == NOMINAL and len(a.values) == 2


def _raw_as_nominal(table: ArffTable, j: int) -> tuple[Attribute, np.ndarray]:
    """A ``hierarchical`` attribute used as a feature: nominal over its distinct row strings,
    each of which must be a set of declared labels (a number there is refused with its
    line, as for a hierarchical target)."""
    from frcli.data.hierarchy import build_hierarchy, encode_label_sets, looks_like_dag

    strs = table.strings[j]
    a = table.attributes[j]
    h = build_hierarchy(a.values, "dag" if looks_like_dag(a.values) else "tree",
                        path=table.path, line=a.line or None)
    encode_label_sets(strs, h, path=table.path, lines=table.lines)
    cats = sorted({s for s in strs if s is not None})
    code = {c: float(k) for k, c in enumerate(cats)}
    col = np.array([np.nan if s is None else code[s] for s in strs], dtype=np.float64)
    return Attribute(table.attributes[j].name, "nominal", tuple(cats)), col


def load_dataset(path: str | os.PathLike, *, targets=None, labels: str | os.PathLike | None = None,
                 task: str | None = None, hierarchy: str | None = None,
                 nominal: Sequence[str] | None = None, semi_supervised: bool = False,
                 name: str | None = None, drop: Sequence[str] | str | None = None,
                 keep: Sequence[str] | str | None = None, screen: bool = True) -> Dataset:
    """Read ``path`` (ARFF, CSV, TSV) into a ``Dataset``; see the module docstring.

    ``drop``: column names left out entirely (e.g. an identifier the rule does not catch);
    ``keep``: columns kept although they look like identifiers (``frcli.data.screen``); both
    take a list or a comma-separated string. ``screen=False`` leaves the screening to the
    caller: a loader that joins several files screens their union once, so that train and
    test files keep the same features.
    """
    if task is not None and task not in TASKS:
        raise choices_error("task", task, TASKS)
    if hierarchy is not None and hierarchy not in ("tree", "dag"):
        raise choices_error("hierarchy type", hierarchy, ("tree", "dag"))
    table = read_table(path, nominal=nominal)
    ds = table_to_dataset(table, targets=targets, labels=labels, task=task,
                          hierarchy=hierarchy, semi_supervised=semi_supervised,
                          name=name or Path(path).stem, drop=drop, keep=keep)
    if not screen:
        return ds
    return screen_features(ds, keep=names_list(keep), where=str(path))


def names_list(names: Sequence[str] | str | None) -> list[str]:
    """Column names given as a list or as one comma-separated string (``--drop a,b``)."""
    if names is None:
        return []
    if isinstance(names, str):
        names = names.split(",")
    return [str(n).strip() for n in names if str(n).strip()]


def _select_targets(table: ArffTable, targets, labels) -> tuple[list[int], dict | None]:
    names = table.names
    where = f" in {table.path}" if table.path else ""
    if labels is not None:
        from frcli.data.mulan import is_hierarchical, read_label_file

        lab_names, parent = read_label_file(labels)
        index = {n: i for i, n in enumerate(names)}
        missing = [n for n in lab_names if n not in index]
        if missing:
            raise UserError(f"label {missing[0]!r} from {labels} is not an attribute{where}"
                            + (f" ({len(missing)} labels missing)" if len(missing) > 1 else ""))
        idx = [index[n] for n in lab_names]
        _check_mulan_labels(table, idx, str(labels))
        if targets is not None:
            extra = [j for j in parse_targets(targets, names, where=where) if j not in idx]
            if extra:
                raise UserError(f"give either {option('labels')} or {option('targets')}, not "
                                "both with different attributes")
        return idx, (parent if is_hierarchical(parent) else None)
    if targets is not None:
        return parse_targets(targets, names, where=where), None
    hier = [j for j, a in enumerate(table.attributes) if a.type == HIERARCHICAL]
    return ([hier[-1]] if hier else []), None


def _check_mulan_labels(table: ArffTable, idx: list[int], labels: str) -> None:
    """Mulan labels are binary: a nominal attribute with two values, or a numeric one whose
    values are all 0, 1 or unknown (then read as the label {0, 1}). Anything else would
    silently turn the task into MTR; it is refused, naming the label and the line."""
    for j in idx:
        a = table.attributes[j]
        if a.type == NOMINAL and len(a.values) <= 2:
            continue
        if a.type == NUMERIC:
            col = table.values[:, j]
            bad = np.flatnonzero(~np.isnan(col) & (col != 0.0) & (col != 1.0))
            if bad.size == 0:
                table.attributes[j] = ArffAttribute(a.name, NOMINAL, ("0", "1"), a.line)
                continue                 # codes 0 and 1 are the values themselves
            line = int(table.lines[bad[0]]) if table.lines is not None else None
            raise DataError(f"label {a.name!r} (listed in {labels}) is numeric and holds "
                            f"{col[bad[0]]:g}; Mulan labels are binary (0/1)", table.path,
                            line)
        kind = f"nominal with {len(a.values)} values" if a.type == NOMINAL else a.type
        raise DataError(f"label {a.name!r} (listed in {labels}) is {kind}; Mulan labels are "
                        f"binary (two values, or numeric 0/1)", table.path, a.line or None)


def _infer_task(tattrs: list[ArffAttribute]) -> str:
    if any(a.type == HIERARCHICAL for a in tattrs):
        return "hmlc"
    if len(tattrs) >= 2:
        return "mlc" if all(_is_binary(a) for a in tattrs) else "mtr"
    return "regression" if tattrs[0].type == NUMERIC else "classification"


def table_to_dataset(table: ArffTable, *, targets=None, labels=None, task: str | None = None,
                     hierarchy: str | None = None, semi_supervised: bool = False,
                     name: str | None = None, drop: Sequence[str] | str | None = None,
                     keep: Sequence[str] | str | None = None) -> Dataset:
    """The ``ArffTable`` → ``Dataset`` half of ``load_dataset`` (also used on CSV tables);
    ``keep`` is only checked here (the screening uses it)."""
    path = table.path
    attrs = table.attributes
    tidx, label_parents = _select_targets(table, targets, labels)
    drop = check_names(names_list(drop), table.names, "drop", path)
    keep = check_names(names_list(keep), table.names, "keep", path)
    both = sorted(set(drop) & set(keep))
    if both:
        raise UserError(f"column {both[0]!r} is given to both {option_name('drop')} and "
                        f"{option_name('keep')}")
    dropped = {table.names.index(nm) for nm in drop}
    if dropped & set(tidx):
        nm = table.names[min(dropped & set(tidx))]
        raise UserError(f"column {nm!r} cannot be both a target and dropped "
                        f"({option_name('drop')})")
    if task == "unsupervised":
        tidx_feat_excluded = set(tidx)
        tidx = []
    else:
        tidx_feat_excluded = set(tidx)
    tattrs = [attrs[j] for j in tidx]
    for a in tattrs:
        if a.type not in (NUMERIC, NOMINAL, HIERARCHICAL):
            raise DataError(f"target {a.name!r} is a {a.type} attribute; targets must be "
                            f"numeric, nominal or hierarchical", path, a.line or None)
    if task != "unsupervised" and not tidx:
        raise NoTargetsError(f"{path}: no targets: give {option('targets', 'last:1')} (or "
                             f"1-based ranges such as 8-11, or names), "
                             f"{option('labels', 'FILE.xml')}, or {option('task', 'unsupervised')}")
    if any(a.type == HIERARCHICAL for a in tattrs) and len(tattrs) > 1:
        raise UserError("a hierarchical target must be the only target (got "
                        f"{', '.join(a.name for a in tattrs)})")

    check_mixed(table, tidx, [j for j in range(len(attrs))
                               if j not in tidx_feat_excluded and j not in dropped])

    if task is None:
        task = "unsupervised" if not tidx else _infer_task(tattrs)
        if task == "mlc" and label_parents is not None:
            task = "hmlc"
    else:
        _check_task(task, tattrs, label_parents)

    # -- features ------------------------------------------------------------------------------
    features: list[Attribute] = []
    cols: list[np.ndarray] = []
    keep: list[int] = []
    ignored = []
    for j, a in enumerate(attrs):
        if j in tidx_feat_excluded or j in dropped:
            continue
        if a.type in (NUMERIC, NOMINAL):
            keep.append(j)
            features.append(Attribute(a.name, "nominal" if a.type == NOMINAL else "numeric",
                                      tuple(a.values)))
        elif a.type == HIERARCHICAL:
            att, col = _raw_as_nominal(table, j)
            keep.append(-1)
            features.append(att)
            cols.append(col)
        else:
            ignored.append(f"{a.name} ({a.type})")
    if ignored:
        warnings.warn(f"{path}: ignoring {len(ignored)} string/date attribute(s): "
                      f"{', '.join(ignored[:5])}", stacklevel=2)
    if not features:
        raise DataError("no features left: every attribute is a target, dropped or ignored",
                        path)
    # gather columns from the (column-major) table, then one transpose copy to row-major X
    Xf = np.empty((table.n_rows, len(features)), dtype=np.float64, order="F")
    extra = iter(cols)
    for k, j in enumerate(keep):
        Xf[:, k] = table.values[:, j] if j >= 0 else next(extra)
    X = np.ascontiguousarray(Xf)
    del Xf

    # -- targets -------------------------------------------------------------------------------
    Y = None
    tlist: list[Attribute] = []
    hier: Hierarchy | None = None
    labeled = None
    if task == "hmlc" and tattrs[0].type == HIERARCHICAL:
        from frcli.data.hierarchy import build_hierarchy, encode_label_sets, looks_like_dag

        a = tattrs[0]
        kind = hierarchy or ("dag" if looks_like_dag(a.values) else "tree")
        hier = build_hierarchy(a.values, kind, path=path, line=a.line or None)
        Y, labeled = encode_label_sets(table.strings[tidx[0]], hier, path=path,
                                       lines=table.lines)
    elif task in ("mlc", "hmlc"):
        Y, labeled = _binary_labels(table, tidx, path)
        if task == "hmlc":
            hier, Y = _mulan_hierarchy(table, tidx, label_parents, Y)
        else:
            tlist = [Attribute(attrs[j].name, "numeric") for j in tidx]
    elif task != "unsupervised":
        Y = table.values[:, tidx].copy()
        tlist = [Attribute(a.name, "nominal" if a.type == NOMINAL else "numeric",
                           tuple(a.values)) for a in tattrs]
        labeled = ~np.all(np.isnan(Y), axis=1)
    if labeled is not None and labeled.any() and not labeled.all() and not semi_supervised:
        warnings.warn(f"{path}: {int((~labeled).sum())} of {len(labeled)} rows have no known "
                      f"target; they are marked unlabelled (pass {option('semi_supervised')} to "
                      f"silence this)", stacklevel=2)
    _warn_degenerate(path, features, X, task, Y, labeled)
    return Dataset(name=name or (Path(path).stem if path else table.relation), X=X,
                   features=features, task=task, Y=Y, targets=tlist, hierarchy=hier,
                   labeled=labeled, source=str(path) if path else None,
                   semi_supervised=semi_supervised)


def check_mixed(table: ArffTable, tidx: list[int], features: list[int]) -> None:
    """A target of numbers with a typo's share of text is an error (file, line, value); any
    other column of numbers and text, read as nominal, gets a warning."""
    path = table.path
    for j in tidx:
        if j not in table.mixed:
            continue
        value, line, n_text, n_known = table.mixed[j]
        if n_text <= max(1.0, FEW_TEXT * n_known):
            name = table.attributes[j].name
            many = f" ({n_text} of its {n_known} values are not numbers)" if n_text > 1 else ""
            if message_style() == "estimator":     # arrays: no file to edit, no nominal=
                fix = ("fix the value, or use NaN for a missing one; a categorical y "
                       "(y.astype('category')) is read as classes")
            else:
                fix = (f"fix the value, or write ? (or nothing) for a missing one; "
                       f"{option('nominal', name)} reads the column as classes")
            raise DataError(f"target {name!r} holds numbers and the text {value!r}{many}: "
                            f"{fix}", path, line)
    shown = [j for j in tidx + features if j in table.mixed]
    if shown:
        value, line, n_text, n_known = table.mixed[shown[0]]
        name = table.attributes[shown[0]].name
        more = f" (and {len(shown) - 1} more such column(s))" if len(shown) > 1 else ""
        if message_style() == "estimator":
            fix = ("fix the value or use NaN for a missing one (a categorical column is "
                   "nominal without this warning)")
        else:
            fix = (f"fix the value or write ? for a missing one ({option('nominal', name)} "
                   f"keeps it nominal without this warning)")
        warnings.warn(f"{path}:{line}: column {name!r} holds numbers and the text {value!r}: it "
                      f"is read as nominal{more}; {fix}", stacklevel=4)


def _warn_degenerate(path, features: list[Attribute], X: np.ndarray, task: str, Y, labeled
                     ) -> None:
    """Warn about data a ranker can learn nothing from, instead of letting it pass silently:
    features with no known value (every method scores them 0 or ties them), targets that are
    never known, and label sets that are empty in every labelled row (nothing to predict)."""
    if X.shape[0]:
        empty = np.flatnonzero(np.isnan(X).all(axis=0))
        if empty.size:
            names = ", ".join(features[j].name for j in empty[:5])
            more = f", ... ({empty.size} in all)" if empty.size > 5 else ""
            warnings.warn(f"{path}: {empty.size} feature(s) have no known value: {names}{more}"
                          f" (they get importance 0 or the lowest rank)", stacklevel=3)
    if Y is None or labeled is None or not Y.shape[0]:
        return
    if not labeled.any():
        warnings.warn(f"{path}: no row has a known target (task {task}): supervised rankers "
                      f"cannot use these data", stacklevel=3)
    elif Y.dtype == np.uint8 and not Y[labeled].any():
        warnings.warn(f"{path}: every label set is empty (no label is ever present): there is "
                      f"nothing to predict, and importances carry no information", stacklevel=3)


def _check_task(task: str, tattrs: list[ArffAttribute], label_parents) -> None:
    names = ", ".join(a.name for a in tattrs)
    kinds = {a.type for a in tattrs}
    ok = {
        "unsupervised": True,
        "hmlc": kinds == {HIERARCHICAL} or (label_parents is not None
                                            and all(_is_binary(a) for a in tattrs)),
        "mlc": bool(tattrs) and all(_is_binary(a) for a in tattrs),
        "mtr": bool(tattrs) and HIERARCHICAL not in kinds,
        "regression": len(tattrs) == 1 and kinds == {NUMERIC},
        "classification": len(tattrs) == 1 and kinds == {NOMINAL},
    }[task]
    if not ok:
        need = {"hmlc": "one hierarchical attribute (or a nested Mulan label file)",
                "mlc": "binary nominal targets", "mtr": "numeric or nominal targets",
                "regression": "exactly one numeric target",
                "classification": "exactly one nominal target"}[task]
        raise UserError(f"task {task!r} needs {need}; the targets are: {names or '(none)'}")


def _binary_labels(table: ArffTable, tidx: list[int], path) -> tuple[np.ndarray, np.ndarray]:
    V = table.values[:, tidx]
    pos = np.array([positive_code(table.attributes[j]) for j in tidx], dtype=np.float64)
    miss = np.isnan(V)
    Y = (V == pos).astype(np.uint8)
    known = ~miss.all(axis=1)
    partial = int((miss.any(axis=1) & known).sum())
    if partial:
        warnings.warn(f"{path}: {partial} rows have some unknown labels; they count as absent",
                      stacklevel=3)
    return Y, known


def _mulan_hierarchy(table: ArffTable, tidx: list[int], parents: dict, Y: np.ndarray):
    """Nested Mulan labels → Hierarchy (topological order) and Y in that column order."""
    from frcli.data.hierarchy import _topo

    names = [table.attributes[j].name for j in tidx]
    par = {n: ([parents[n]] if parents.get(n) else []) for n in names}
    order = _topo(names, par, table.path, None)
    pos = {n: k for k, n in enumerate(order)}
    h = Hierarchy(labels=order, parents=[[pos[p] for p in par[n]] for n in order], kind="tree")
    Y = Y[:, [names.index(n) for n in order]]
    return h, h.ancestors_closure(Y)
