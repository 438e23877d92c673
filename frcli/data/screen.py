"""Screening a loaded data set's features: identifier columns out, many-category ones flagged.

A ranking must say something about the data, not about how the rows are labelled. A column
that takes a distinct value in every row (a sample name, a row number) separates every row
from every other: a tree can isolate each example with it, so impurity-based scores
(Symbolic, Genie3, the RF score) credit it with the whole reduction of variance below it and
rank it first, although it cannot generalise to a single new row. Such a column is an
*identifier* and is left out of the features, with one notice naming it (``keep`` keeps it).

The rule, with the cases a user's data raise:

* **nominal** (text) values: an identifier when every row has a value and no two rows share
  one;
* **integers**: an identifier when every row has one, no two rows share one, and the
  column's name says so: its last word is one of ``ID_WORDS`` (``id``, ``sample_id``,
  ``SampleID``, ``row``, ``patient_no``, ``serial_number``). The values alone cannot tell an
  identifier from a measurement here: counts, prices in cents or time stamps often differ in
  every row, and even consecutive integers may be a time step, a dose level or a planted
  feature ``0..n-1``. Such columns are kept (``drop`` leaves one out);
* **the unnamed first column of a pandas export** (``DataFrame.to_csv`` writes the row
  index first, under an empty header; the CSV reader names it ``Unnamed: 0``, as pandas
  reads it back): an identifier when no two rows share a value, integers or text alike,
  since whatever the index holds (row numbers, sample names) labels rows. A column named
  ``Unnamed: N`` (such a file read by pandas and written again with ``index=False``) is the
  same index;
* **non-integer numbers** are measurements, never identifiers, also when a stray text value
  made the column nominal (``1.2.3`` among ``0.25``, ``1.75``);
* files with fewer than ``MIN_ROWS`` rows are not screened: there a nominal feature with a
  value per row (five rows, five colours) is as likely data as a label, and dropping it
  would leave a small example without its features;
* targets are never screened (only features are looked at).

A nominal feature that is not an identifier but has more than ``HIGH_CARDINALITY`` (half) as
many categories as rows holding a value is kept, with a warning: each category covers a
row or two, so a split on it fits noise, and impurity-based scores, which sum the variance
reduced by every split, favour it over a feature with few categories and a real effect.
Relief-type scores do not share this bias (two rows with different categories differ by 1,
whether they are near hits or near misses).
"""
from __future__ import annotations

import dataclasses
import math
import re
import warnings
from typing import Sequence

import numpy as np

from frcli.data.dataset import Attribute, Dataset
from frcli.errors import Notice, UserError, did_you_mean, option, option_name

MIN_ROWS = 20              # fewer rows: no column is called an identifier, none flagged
HIGH_CARDINALITY = 0.5     # categories per known row above which a nominal feature is flagged
# the last word of an integer column's name that makes distinct integers an identifier
ID_WORDS = frozenset({"id", "ids", "uid", "uuid", "guid", "key", "idx", "index", "row", "rowid",
                      "rownum", "no", "nr", "num", "number", "serial"})
SHOWN = 6                  # names listed in one line before "... (N in all)"


def _words(name: str) -> list[str]:
    """``SampleID`` → sample, id; ``patient_no-Key`` → patient, no, key."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2",
                                                           name))
    return [w for w in re.split(r"[^0-9A-Za-z]+", spaced.lower()) if w]


_ID_ENDINGS = tuple(ID_WORDS)
INDEX_NAME = "Unnamed: 0"          # the CSV reader's name for an empty first header, as pandas'
_PANDAS_INDEX = re.compile(r"Unnamed: \d+")


def pandas_index(name: str) -> bool:
    """Whether the column is a row index written by pandas (``Unnamed: 0``)."""
    return _PANDAS_INDEX.fullmatch(name) is not None


def id_like_name(name: str) -> bool:
    """Whether the column's name ends in an identifier word (``id``, ``sample_id``,
    ``SampleID``, ``row_index``)."""
    if not name.lower().rstrip("_- ").endswith(_ID_ENDINGS):   # most names: no word split
        return False
    words = _words(name)
    return bool(words) and words[-1] in ID_WORDS


def _numbers(categories: Sequence[str]) -> list[float]:
    """The categories that are finite numbers."""
    out = []
    for c in categories:
        try:
            v = float(c)
        except ValueError:
            continue
        if math.isfinite(v):
            out.append(v)
    return out


def _fractions(categories: Sequence[str]) -> bool:
    """Whether some category is a number with a fraction: the column holds measurements,
    read as nominal because of a stray text value (``1.2.3`` among ``0.25``, ``1.75``)."""
    return any(v != math.floor(v) for v in _numbers(categories))


def identifier_reason(attr: Attribute, col: np.ndarray) -> str | None:
    """Why the column ``col`` (codes or numbers, NaN missing) is an identifier, or None.
    The tests that need no pass over the column come first (wide data has many columns)."""
    n = col.shape[0]
    if n < MIN_ROWS:
        return None
    if pandas_index(attr.name):
        if np.isnan(col).any() or np.unique(col).size < n:
            return None
        return f"the row index of a pandas export, a distinct value in each of its {n} rows"
    if attr.is_nominal:
        if len(attr.categories) < n or np.isnan(col).any() or np.unique(col).size < n:
            return None
        numbers = _numbers(attr.categories)
        if 2 * len(numbers) <= len(attr.categories):
            return f"a distinct value in each of its {n} rows"
        # numbers read as nominal (a stray text value, or --nominal): judged as numbers
        integers = not _fractions(attr.categories)
    elif not id_like_name(attr.name) or np.isnan(col).any():
        return None
    else:
        integers = bool(np.array_equal(col, np.floor(col))) and np.unique(col).size == n
    if integers and id_like_name(attr.name):
        return f"a distinct integer in each of its {n} rows"
    return None


def identifiers(ds: Dataset) -> dict[str, str]:
    """Feature name → reason, for every identifier feature of ``ds`` (see the module
    docstring)."""
    if ds.n_examples < MIN_ROWS:
        return {}
    out = {}
    for j, a in enumerate(ds.features):
        why = identifier_reason(a, ds.X[:, j])
        if why is not None:
            out[a.name] = why
    return out


def high_cardinality(ds: Dataset) -> dict[str, tuple[int, int]]:
    """Nominal feature name → (categories seen, rows holding a value), for those with more
    than ``HIGH_CARDINALITY`` categories per such row."""
    out = {}
    for j, a in enumerate(ds.features):
        if not a.is_nominal or len(a.categories) <= HIGH_CARDINALITY * MIN_ROWS:
            continue                  # too few categories for any count of rows screened
        col = ds.X[:, j]
        known = col[~np.isnan(col)]
        if known.size < MIN_ROWS or len(a.categories) <= HIGH_CARDINALITY * known.size:
            continue
        if _fractions(a.categories):   # measurements with a stray text value: the loader
            continue                   # has warned about that value
        k = int(np.unique(known).size)
        if k > HIGH_CARDINALITY * known.size:
            out[a.name] = (k, int(known.size))
    return out


def check_names(names: Sequence[str] | None, columns: Sequence[str], what: str,
                where: str | None) -> list[str]:
    """``names`` (``drop`` or ``keep``), each a column of the file; an unknown one is an error
    naming the option, the file and the close column names."""
    names = [str(n).strip() for n in names or ()]
    for nm in names:
        if nm not in columns:
            hint = did_you_mean(nm, columns) or f"; the columns are {_listed(list(columns))}"
            raise UserError(f"{option_name(what)}: no attribute named {nm!r}"
                            + (f" in {where}" if where else "") + hint)
    return names


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:SHOWN])
    return shown + (f", ... ({len(names)} in all)" if len(names) > SHOWN else "")


def screen(ds: Dataset, *, keep: Sequence[str] = (), where: str | None = None) -> Dataset:
    """``ds`` without its identifier features (one notice naming them; ``keep`` names
    features to keep anyway), with a warning naming nominal features of very many categories.
    ``where`` (the file) starts the messages."""
    keep = set(keep)
    where = where or ds.source or ds.name
    ids = {k: v for k, v in identifiers(ds).items() if k not in keep}
    if ids:
        names = list(ids)
        if len(names) == 1:
            what = f"column {names[0]!r} is an identifier ({ids[names[0]]})"
            back = f"{option('keep', names[0])} keeps it"
        else:
            what = f"columns {_listed(names)} are identifiers (a distinct value per row)"
            back = f"{option('keep', ','.join(names[:2]))} keeps them"
        warnings.warn(f"{where}: {what}: left out of the features; {back}", Notice,
                      stacklevel=3)
        ds = dataclasses.replace(ds.without_features(names), screened=ds.screened + tuple(names))
    many = {k: v for k, v in high_cardinality(ds).items() if k not in keep}
    if many:
        names = list(many)
        k, n = many[names[0]]
        if len(names) == 1:
            what = f"nominal feature {names[0]!r} has {k} categories in {n} rows"
        else:
            what = (f"nominal features {_listed(names)} have more than half as many categories "
                    f"as rows ({names[0]!r}: {k} in {n})")
        warnings.warn(f"{where}: {what}: impurity-based scores (symbolic, genie3, rf) favour "
                      f"features with many categories ({option('drop', names[0])} leaves "
                      f"{'it' if len(names) == 1 else 'one'} out)", stacklevel=3)
    return ds


def screen_like(ds: Dataset, reference: Dataset) -> Dataset:
    """``ds`` (another file of the same data: a test file, a further training file) without
    the columns the screen of ``reference`` (the training data) left out, whatever its own
    rows would say: the training rows decide the features, so every file of a data set has
    the same columns, and a test file never changes which features are ranked."""
    if not reference.screened:
        return ds
    return dataclasses.replace(ds.without_features(reference.screened),
                               screened=reference.screened)
