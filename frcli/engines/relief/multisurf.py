"""MultiSURF and MultiSURF* (part of the Relief family; kernel ``ext/relief/_multisurf.pyx``).

The ReliefE paper's baselines were scikit-rebate's implementations run with their defaults
(docs/design/relief.md, "MultiSURF"), so these follow scikit-rebate's definitions exactly (see
the kernel's docstring) and agree with it on the same data (tests/engines/relief/test_multisurf.py):

* a feature with at most ``discrete_limit`` (scikit-rebate's ``categorical_threshold``, 10)
  distinct values is compared as a category (0/1), every nominal feature too; 0 keeps the
  declared types only;
* on data with both kinds (scikit-rebate's "mixed"), a continuous difference larger than the
  feature's standard deviation counts 1 in the scores (its ramp), and a discrete mismatch
  counts F / #discrete in the distance (its hamming fraction times the number of features);
* every class is a class: scikit-rebate turns a target with more than ``multiclass_threshold``
  (10) values into a continuous endpoint, which for a classification task (Isolet has 26
  classes) is a regression in disguise; we keep the classes (pass ``label_type='multiclass'``
  to scikit-rebate to compare).

Missing feature values are imputed (numeric mean, most frequent category), as in ReliefE:
scikit-rebate's own missing-value handling is not reproduced. Cost O(n² F) time, O(n + C F)
memory per thread (scikit-rebate keeps the n × n distance matrix).
"""
from __future__ import annotations

import os
import warnings

import numpy as np

from frcli.data.dataset import Dataset
from frcli.engines import progress
from frcli.engines.relief.common import impute, kernel
from frcli.errors import ConfigError, DataError


def feature_types(X: np.ndarray, nominal: np.ndarray, discrete_limit: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(discrete 0/1, range, standard deviation, ramp) as scikit-rebate derives them."""
    F = X.shape[1]
    discrete = np.asarray(nominal, dtype=bool).copy()
    for f in np.flatnonzero(~discrete):
        if discrete_limit > 0 and np.unique(X[:, f]).size <= discrete_limit:
            discrete[f] = True
    mx = X.max(axis=0) if X.shape[0] else np.zeros(F)
    mn = X.min(axis=0) if X.shape[0] else np.zeros(F)
    rg = np.where(mx - mn > 0, mx - mn, 1.0)
    sd = X.std(axis=0) if X.shape[0] else np.zeros(F)
    ramp = bool(discrete.any() and (~discrete).any())
    return discrete.astype(np.int32), rg.astype(np.float64), sd.astype(np.float64), ramp


def multisurf(dataset: Dataset, *, star: bool = False, discrete_limit: int = 10,
              jobs: int = 1) -> tuple[np.ndarray, dict]:
    """MultiSURF (``star=False``) or MultiSURF* scores of a classification data set, and meta."""
    if dataset.task != "classification":
        raise ConfigError(f"MultiSURF supports classification, not {dataset.task}")
    if discrete_limit < 0:
        raise ConfigError("parameter 'discrete_limit' must be >= 0")
    y = dataset.Y[:, 0]
    keep = np.asarray(dataset.labeled, dtype=bool) & ~np.isnan(y)
    ds = dataset if keep.all() else dataset.subset(keep)
    if not keep.all():
        warnings.warn(f"{dataset.name}: MultiSURF ignores the {int((~keep).sum())} rows "
                      "without a class", stacklevel=2)
    n, F = ds.X.shape
    if n < 2:
        raise DataError(f"{dataset.name}: MultiSURF needs at least 2 examples with a class")
    X, n_imp = impute(ds)
    codes = ds.Y[:, 0].astype(np.int64)
    present, yc = np.unique(codes, return_inverse=True)
    meta = {"variant": "multisurf-star" if star else "multisurf", "n_examples": n,
            "imputed_values": n_imp}
    if present.size < 2:
        warnings.warn(f"{dataset.name}: one class only: MultiSURF importances are 0",
                      stacklevel=2)
        meta["constant_targets"] = True
        return np.zeros(F), meta
    discrete, rg, sd, ramp = feature_types(X, ds.nominal_mask, discrete_limit)
    jobs = (os.cpu_count() or 1) if jobs is None or jobs <= 0 else int(jobs)
    X = np.ascontiguousarray(X)
    dweight = F / float(discrete.sum()) if ramp else 1.0
    scores = kernel("_multisurf").multisurf(
        X, np.ascontiguousarray(X.T), discrete, rg, sd, int(ramp), dweight,
        yc.astype(np.int32), int(present.size), int(star), jobs,
        progress=progress.slots(X.shape[0], "MultiSURF instances"))
    meta.update(discrete_features=int(discrete.sum()), ramp=ramp)
    return scores, meta
