"""Train/test splits and semi-supervised label thinning, as index arrays (spec-core §6.2,
spec-ssl-unsup §5 and ambiguity A18).

Every function takes an integer ``seed`` and derives its generators as
``np.random.default_rng([seed, tag, r])``, so repeat ``r`` of a hold-out does not depend on how
many repeats are asked for, and the same seed gives the same indices on every machine.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Sequence

import numpy as np

from frcli.errors import UserError

Split = tuple[np.ndarray, np.ndarray]  # (train indices, test indices), each sorted

_TAG_HOLDOUT, _TAG_KFOLD, _TAG_THIN, _TAG_ITERATIVE = 1, 2, 3, 4


def _rng(seed: int, tag: int, r: int = 0) -> np.random.Generator:
    return np.random.default_rng([int(seed), tag, int(r)])


def given_split(n_train: int, n_test: int) -> list[Split]:
    """The fixed split of a train file followed by a test file in one ``Dataset``."""
    return [(np.arange(n_train), np.arange(n_train, n_train + n_test))]


def holdout_splits(n: int, test_size: float = 1 / 3, repeats: int = 10, seed: int = 0
                   ) -> list[Split]:
    """Repeated random hold-out (MTR papers: 2/3 train, 1/3 test, 10 repeats)."""
    if not 0 < test_size < 1:
        raise UserError(f"test size must be in (0, 1), got {test_size}")
    if repeats < 1:
        raise UserError(f"repeats must be >= 1, got {repeats}")
    n_test = int(round(n * test_size))
    if n_test < 1 or n_test >= n:
        raise UserError(f"a hold-out of {test_size:g} of {n} examples leaves an empty part")
    out = []
    for r in range(repeats):
        perm = _rng(seed, _TAG_HOLDOUT, r).permutation(n)
        out.append((np.sort(perm[n_test:]), np.sort(perm[:n_test])))
    return out


def kfold_assign(n: int, k: int = 10, seed: int = 0, y: np.ndarray | None = None,
                 repeat: int = 0) -> np.ndarray:
    """Fold number (0..k-1) of every example; stratified by ``y`` (class codes, NaN = its own
    group) when given: examples are shuffled within classes, listed class by class and dealt
    round-robin, so every fold gets each class's count ±1 and folds differ in size by ≤ 1.
    ``repeat`` r draws repetition r of a repeated CV (r = 0 is the plain CV)."""
    if not 2 <= k <= n:
        raise UserError(f"k-fold needs 2 <= k <= number of examples ({n}), got k={k}")
    rng = _rng(seed, _TAG_KFOLD, repeat)
    if y is None:
        order = rng.permutation(n)
    else:
        y = np.asarray(y, dtype=np.float64).ravel()
        if len(y) != n:
            raise ValueError("y must have one value per example")
        key = np.where(np.isnan(y), np.inf, y)
        perm = rng.permutation(n)
        order = perm[np.argsort(key[perm], kind="stable")]
    folds = np.empty(n, dtype=np.intp)
    folds[order] = np.arange(n) % k
    return folds


def kfold_splits(n: int, k: int = 10, seed: int = 0, y: np.ndarray | None = None
                 ) -> list[Split]:
    """k-fold cross-validation (stratified when ``y`` is given)."""
    return folds_to_splits(kfold_assign(n, k, seed, y))


def folds_to_splits(folds: np.ndarray) -> list[Split]:
    """(train, test) index pairs of a fold assignment, fold 0 first."""
    idx = np.arange(len(folds))
    return [(idx[folds != i], idx[folds == i]) for i in range(int(folds.max()) + 1)]


def iterative_stratification(Y: np.ndarray, k: int = 10, seed: int = 0, repeat: int = 0
                             ) -> np.ndarray:
    """Fold number of every example of a 0/1 label matrix ``Y`` (n, L) by iterative
    stratification (Sechidis, Tsoumakas, Vlahavas, ECML PKDD 2011, Algorithm 1), for the
    multi-label k-fold CV of the ReliefE paper: folds of equal desired size; repeatedly take the
    label with the fewest remaining examples and give each of its examples (in a seeded random
    order) to the fold that most wants that label (ties: the fold that wants most examples,
    then a seeded random choice), updating the wishes; examples without labels go to the folds
    that want most examples."""
    Y = np.asarray(Y).astype(bool)
    n, L = Y.shape
    if not 2 <= k <= n:
        raise UserError(f"k-fold needs 2 <= k <= number of examples ({n}), got k={k}")
    rng = _rng(seed, _TAG_ITERATIVE, repeat)
    want = np.full(k, n / k)                               # c_j
    want_l = np.tile(Y.sum(axis=0) / k, (k, 1))            # c_j^l
    folds = np.full(n, -1, dtype=np.intp)
    order = rng.permutation(n)
    left = Y.sum(axis=0).astype(np.int64)                  # unassigned examples per label
    pending = Y[order]                                     # rows in the random order
    while True:
        avail = np.flatnonzero(left > 0)
        if avail.size == 0:
            break
        lab = avail[np.argmin(left[avail])]                # fewest remaining (lowest index)
        rows = order[(folds[order] < 0) & pending[:, lab]]
        for i in rows:
            c = want_l[:, lab]
            cand = np.flatnonzero(c == c.max())
            if cand.size > 1:
                w = want[cand]
                cand = cand[w == w.max()]
            j = cand[rng.integers(cand.size)] if cand.size > 1 else cand[0]
            folds[i] = j
            labels = Y[i]
            want_l[j, labels] -= 1
            left[labels] -= 1
            want[j] -= 1
    for i in order[folds[order] < 0]:                      # examples without labels
        cand = np.flatnonzero(want == want.max())
        j = cand[rng.integers(cand.size)] if cand.size > 1 else cand[0]
        folds[i] = j
        want[j] -= 1
    return folds


def thin_cv_labels(test_folds: Sequence[np.ndarray], sizes: Iterable[int], seed: int = 0
                   ) -> dict[int, list[np.ndarray]]:
    """Labelled examples of each CV training set, for every L in ``sizes`` (spec-ssl §5.1, A18).

    Fold j keeps ``⌊L/(x−1)⌋ + [j < L mod (x−1)]`` labels, the first ones in one random order of
    the fold drawn once; the training set of fold i is the union over j ≠ i, so it has
    ``L − [i < L mod (x−1)]`` labels and the sets are nested across L.
    Returns ``{L: [sorted labelled indices of training set i, for each fold i]}``.
    """
    x = len(test_folds)
    if x < 2:
        raise UserError("label thinning needs at least 2 folds")
    orders = [np.asarray(f)[_rng(seed, _TAG_THIN, j).permutation(len(f))]
              for j, f in enumerate(test_folds)]
    out: dict[int, list[np.ndarray]] = {}
    for L in sorted(set(int(s) for s in sizes)):
        if L < 1:
            raise UserError(f"number of labelled examples must be >= 1, got {L}")
        base, r = divmod(L, x - 1)
        keep = [orders[j][: base + (1 if j < r else 0)] for j in range(x)]
        out[L] = [np.sort(np.concatenate([keep[j] for j in range(x) if j != i]))
                  for i in range(x)]
    return out


def thin_labels(train: np.ndarray, sizes: Iterable[int], seed: int = 0) -> dict[int, np.ndarray]:
    """L labelled examples of a fixed training set (MLC/HMLC in P-ML), nested across L."""
    train = np.asarray(train)
    order = train[_rng(seed, _TAG_THIN).permutation(len(train))]
    out = {}
    for L in sorted(set(int(s) for s in sizes)):
        if L < 1:
            raise UserError(f"number of labelled examples must be >= 1, got {L}")
        out[L] = np.sort(order[:L])
    return out


def hide_labels(ds, train: np.ndarray, labelled: np.ndarray):
    """The training part of ``ds`` with every target hidden except the ``labelled`` rows."""
    train = np.asarray(train)
    sub = ds.subset(train)
    mask = ~np.isin(train, labelled)
    return sub.with_unlabeled(mask)


def concat(first, second, name: str | None = None):
    """Two Datasets with identical columns (a train and a test file) as one; rows of ``first``
    come first (use with ``given_split``)."""
    from frcli.errors import DataError

    if first.features != second.features:
        a = next((f"{x.name}" for x, y in zip(first.features, second.features) if x != y),
                 "count")
        raise DataError(f"{second.source}: features differ from {first.source} (first at "
                        f"{a!r}); nominal values must be declared identically")
    if first.task != second.task or first.target_names != second.target_names \
            or first.targets != second.targets:
        raise DataError(f"{second.source}: targets differ from {first.source}")
    if first.hierarchy is not None:
        h1, h2 = first.hierarchy, second.hierarchy
        if h1.labels != h2.labels or any(not np.array_equal(p, q)
                                         for p, q in zip(h1.parents, h2.parents)):
            raise DataError(f"{second.source}: hierarchy differs from {first.source}")
    Y = None if first.Y is None else np.concatenate([first.Y, second.Y])
    return replace(first, name=name or first.name, X=np.concatenate([first.X, second.X]), Y=Y,
                   labeled=np.concatenate([first.labeled, second.labeled]))
