"""``FeatureRanker``: every frcli ranker as a scikit-learn feature selector.

    >>> from frcli.api import FeatureRanker
    >>> FeatureRanker("relief", neighbours=10, n_features_to_select=5).fit(X, y).transform(X)

This module imports scikit-learn; ``frcli.api`` loads it on first use of ``FeatureRanker``
or ``expected_failed_checks``, so ``import frcli.api`` works without scikit-learn.

**Parameters.** The estimator's own parameters are in its signature (``method``,
``n_features_to_select``, ``threshold``, ``task``, ``semi_supervised``, ``drop``, ``seed``,
``jobs``). The ranker's parameters (``trees``, ``neighbours``, ...) are the ones its method
declares (``frcli rank --list-methods``), given as keywords under the names the command line
and ``frcli.rank`` use. They are scikit-learn parameters like the others:
``get_params(deep=False)`` lists those given, ``get_params()`` every one the method declares
(with its default), ``set_params`` sets them (a name the method does not declare is an
error), and ``clone`` copies them, so ``GridSearchCV`` tunes ``neighbours`` or ``trees`` as it
tunes any parameter. Where a method declares a parameter under one of the estimator's own
names (today SEFR's ``threshold``), the estimator's wins, and ``fit`` refuses the ambiguity.

**Data.** ``X`` is an array or a DataFrame, read as the command line reads a CSV file
(``frcli.data.frame``): categorical, string and boolean columns are nominal features (no
one-hot encoding), NaN and ``pd.NA`` are missing values. ``y`` picks the task as
``frcli.api.dataset_from_arrays`` documents: 1-D floats are regression, other 1-D values
classification (numbers with a few text values, such as ``"n/a"``, are an error naming the
row and the value, as in a CSV file), several 0/1 columns multi-label classification (``mlc``), other columns
multi-target regression (``mtr``), no ``y`` unsupervised ranking (the tree ensembles then
stop at leaves of a fifth of the rows, ``min_leaf=0.2``: fully grown unsupervised trees rank
noise features beside the structured ones; ``min_leaf="auto"`` is the papers' setting);
``task=`` overrides. Rows
whose targets are all NaN are unlabelled: kept for semi-supervised ranking with
``semi_supervised=True``, else dropped with a warning by supervised rankers.

**Selection.** ``transform`` keeps the ``n_features_to_select`` most important features
(an integer, or a fraction of the features), or those with importance at least
``threshold``, or both conditions; with neither it keeps every ranked feature.
Columns left out of the ranking (``drop=``) have importance NaN: never selected.

Errors are ``ValueError``s (scikit-learn's convention) carrying frcli's one-line message.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from frcli.data.dataset import TASKS
from frcli.errors import UserError, option_style
from frcli.rankers.base import Ranking, check_run_options
from frcli.rankers.registry import DEFAULT_METHOD, get_ranker

SOURCE = "training data"     # how messages name the data given to fit
MIN_SAMPLES = 2              # one row tells no feature from another: refused, as scikit-learn does


class FeatureRanker(SelectorMixin, BaseEstimator):
    """A frcli ranking method as a scikit-learn estimator and feature selector.

    Parameters
    ----------
    method : str, default ``frcli.rankers.registry.DEFAULT_METHOD`` (``"genie3"``)
        Any method of ``frcli rank --list-methods`` for tabular data.
    n_features_to_select : int or float, default None
        ``transform`` keeps this many of the most important features (a float in (0, 1]: that
        fraction of the ranked features, at least 1).
    threshold : float, default None
        ``transform`` keeps the features whose importance is at least this.
    task : str, default None
        The task, inferred from ``y`` when None (see the module docstring).
    semi_supervised : bool, default False
        Rows of ``y`` that are all NaN are unlabelled rows to learn from, not a mistake.
    drop : list of str, default None
        Columns left out of the ranking (identifiers, leaks), by name (``x0``, ``x1``, ...
        for arrays).
    seed : int, default 0
        Random seed; the same seed gives the same ranking.
    jobs : int, default 1
        Parallel jobs: the cores one ranking uses, as engine threads (as ``frcli rank
        --jobs``; the ranking is the same for any number).
    **params
        The method's parameters (``trees=100``, ``neighbours=10``, ...).

    Attributes
    ----------
    feature_importances_ : ndarray (n_features_in_,)
        Higher is more important; NaN for columns left out of the ranking.
    per_target_importances_ : ndarray (n_targets, n_features_in_) or None
        Per target, where the method gives them.
    ranking_ : frcli.rankers.base.Ranking
        The ranking of the ranked columns, with its parameters, timings and notes.
    n_features_in_, feature_names_in_
        As in scikit-learn.
    """

    def __init__(self, method: str = DEFAULT_METHOD, *, n_features_to_select=None,
                 threshold=None, task: str | None = None, semi_supervised: bool = False,
                 drop=None, seed: int = 0, jobs: int = 1, **params: Any):
        self.method = method
        self.n_features_to_select = n_features_to_select
        self.threshold = threshold
        self.task = task
        self.semi_supervised = semi_supervised
        self.drop = drop
        self.seed = seed
        self.jobs = jobs
        self._ranker_params = params

    # -- parameters ----------------------------------------------------------------------
    def _declared(self) -> dict[str, Any]:
        """The method's own parameters and their defaults ({} for an unknown method)."""
        try:
            spec = get_ranker(str(self.method)).param_spec()
        except Exception:  # noqa: BLE001 - an invalid method is fit's to report
            return {}
        own = set(self._get_param_names())
        return {k: p.default for k, p in spec.items() if k not in own}

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The estimator's parameters and the ranker parameters given; with ``deep`` also
        every other parameter the method declares, at its default."""
        out = super().get_params(deep=False)
        if deep:
            out.update(self._declared())
        out.update(self._ranker_params)
        return out

    def set_params(self, **params: Any) -> "FeatureRanker":
        own = set(self._get_param_names())
        nested = [k for k in params if "__" in k]
        if nested:
            raise ValueError(f"Invalid parameter {nested[0]!r} for estimator {self}: "
                             "FeatureRanker has no nested estimators")
        mine = {k: v for k, v in params.items() if k in own}
        if mine:
            super().set_params(**mine)
        rest = {k: v for k, v in params.items() if k not in own}
        if rest:
            declared = self._declared()
            unknown = [k for k in rest if declared and k not in declared]
            if unknown:
                raise ValueError(
                    f"Invalid parameter {unknown[0]!r} for estimator {self}: method "
                    f"{self.method!r} has the parameters {', '.join(sorted(declared))}; "
                    f"valid parameters: {', '.join(sorted(own | set(declared)))}")
            self._ranker_params = {**self._ranker_params, **rest}
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True          # text columns are nominal features
        tags.input_tags.categorical = True
        tags.target_tags.required = not self._supports("unsupervised")
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags

    def _unsupervised_only(self) -> bool:
        """A method that ranks without targets only (spec, mcfs, ndfs): ``y`` is ignored, as
        scikit-learn's unsupervised estimators ignore it."""
        try:
            return tuple(get_ranker(str(self.method)).tasks) == ("unsupervised",)
        except Exception:  # noqa: BLE001 - an invalid method is fit's to report
            return False

    def _supports(self, task: str) -> bool:
        try:
            tasks = get_ranker(str(self.method)).tasks
        except Exception:  # noqa: BLE001 - an invalid method is fit's to report
            return True
        return not tasks or task in tasks

    # -- fitting -------------------------------------------------------------------------
    def fit(self, X, y=None) -> "FeatureRanker":
        """Rank the columns of ``X`` (by ``y``'s targets, or unsupervised without ``y``)."""
        try:
            self._check_options()
            with option_style("estimator"):
                names, dataset = self._dataset(X, y)
            ranker = get_ranker(self.method, dataset)
            rankings = ranker.rank(dataset, self._ranker_params, seed=self.seed,
                                   jobs=self.jobs)
        except UserError as e:     # frcli's one-line message, as scikit-learn's error type
            raise ValueError(str(e)) from e
        if len(rankings) != 1:
            raise ValueError(f"the parameters give {len(rankings)} rankings: FeatureRanker "
                             "takes one value per parameter (frcli.api.rank_all takes lists)")
        self._store(rankings[0], names)
        return self

    def _check_options(self) -> None:
        from frcli.errors import ConfigError

        if not isinstance(self.method, str):
            raise ConfigError(f"method must be a method name, got {self.method!r}")
        if self.task is not None and self.task not in TASKS:
            from frcli.errors import choices_error

            raise choices_error("task", self.task, TASKS)
        if self.task == "hmlc":
            raise ConfigError("task 'hmlc' needs a label hierarchy, which arrays do not carry: "
                              "rank the data file with frcli.rank")
        check_run_options(self.seed, self.jobs)
        _selection(self.n_features_to_select, self.threshold, 1)
        spec = get_ranker(self.method).param_spec()
        for k in ("n_features_to_select", "threshold"):
            if k in spec and getattr(self, k) is not None:
                raise ConfigError(f"method {self.method!r} has a parameter {k!r}, and "
                                  f"FeatureRanker's {k!r} selects features: leave it unset "
                                  f"here, or rank with frcli.rank(..., {k}=...)")

    def _dataset(self, X, y):
        """(column names, Dataset) of the training data, through the CSV road."""
        import pandas as pd

        from frcli.data.frame import frame_table, unique_names
        from frcli.data.load import table_to_dataset

        target = None if y is None else "no_validation"
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, y=target, skip_check_array=True, reset=True)
            _check_shape(X.shape)
            frame = X
        else:
            X = validate_data(self, X, y=target, dtype=None, ensure_all_finite="allow-nan",
                              accept_sparse=False, ensure_min_samples=MIN_SAMPLES, reset=True)
            frame = pd.DataFrame(X, copy=False)
        names = list(getattr(self, "feature_names_in_", [f"x{i}" for i in
                                                          range(frame.shape[1])]))
        frame = frame.set_axis(names, axis=1)
        drop = [self.drop] if isinstance(self.drop, str) else list(self.drop or [])
        if y is None or self.task == "unsupervised" or self._unsupervised_only():
            table = frame_table(frame, source=SOURCE)
            dataset = table_to_dataset(table, task="unsupervised", drop=drop, name=SOURCE)
            return names, dataset
        Y, tnames = _target_frame(y, len(frame))
        Y = Y.set_axis(unique_names(tnames, names), axis=1)
        kinds = _target_kinds(Y, self.task)
        both = pd.concat([frame.reset_index(drop=True), Y.reset_index(drop=True)], axis=1)
        table = frame_table(both, source=SOURCE, kinds=kinds)
        first = len(names) + 1
        dataset = table_to_dataset(
            table, targets=[str(j) for j in range(first, first + Y.shape[1])],
            task=self.task, semi_supervised=bool(self.semi_supervised), drop=drop,
            name=SOURCE)
        return names, dataset

    def _store(self, ranking: Ranking, names: list[str]) -> None:
        pos = {n: i for i, n in enumerate(names)}
        index = np.array([pos[f] for f in ranking.feature_names], dtype=np.intp)
        imp = np.full(len(names), np.nan)
        imp[index] = ranking.importances
        per = None
        if ranking.per_target is not None:
            per = np.full((ranking.per_target.shape[0], len(names)), np.nan)
            per[:, index] = ranking.per_target
        self.ranking_ = ranking
        self.feature_importances_ = imp
        self.per_target_importances_ = per

    # -- selecting -----------------------------------------------------------------------
    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self)
        imp = self.feature_importances_
        ranked = ~np.isnan(imp)
        k, threshold = _selection(self.n_features_to_select, self.threshold,
                                  int(ranked.sum()))
        mask = ranked.copy()
        if threshold is not None:
            mask &= imp >= threshold
        if k is not None:
            key = np.where(mask, imp, -np.inf)
            top = np.argsort(-key, kind="stable")[:min(k, int(mask.sum()))]
            keep = np.zeros_like(mask)
            keep[top] = True
            mask &= keep
        return mask


def _selection(n_features_to_select, threshold, n_ranked: int):
    """(number of features to keep or None, threshold or None), checked."""
    from frcli.errors import ConfigError

    k = n_features_to_select
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, numbers.Real):
            raise ConfigError(f"n_features_to_select must be an integer >= 1 or a fraction "
                              f"in (0, 1], got {k!r}")
        if isinstance(k, numbers.Integral):
            if k < 1:
                raise ConfigError(f"n_features_to_select must be >= 1, got {k}")
            k = int(k)
        else:
            if not 0.0 < float(k) <= 1.0:
                raise ConfigError(f"n_features_to_select as a fraction must lie in (0, 1], "
                                  f"got {k!r}")
            k = max(1, int(float(k) * n_ranked))
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or \
                np.isnan(threshold):
            raise ConfigError(f"threshold must be a number, got {threshold!r}")
        threshold = float(threshold)
    return k, threshold


def _check_shape(shape) -> None:
    """scikit-learn's messages for empty data, for DataFrames (arrays get them from
    ``check_array``)."""
    if shape[0] < MIN_SAMPLES:
        raise ValueError(f"Found array with {shape[0]} sample(s) (shape={shape}) while a "
                         f"minimum of {MIN_SAMPLES} is required by FeatureRanker.")
    if shape[1] < 1:
        raise ValueError(f"Found array with 0 feature(s) (shape={shape}) while a minimum of "
                         "1 is required.")


def _target_frame(y, n: int):
    """``y`` as a DataFrame (one column per target) and its target names."""
    import pandas as pd

    if isinstance(y, pd.Series):
        Y = y.to_frame()
        names = [str(y.name) if y.name is not None else "y"]
    elif isinstance(y, pd.DataFrame):
        Y = y
        names = [str(c) for c in y.columns]
    else:
        if hasattr(y, "toarray"):
            raise ValueError("y must be dense (an array, a list or pandas data), not sparse")
        arr = np.asarray(y)
        if arr.ndim == 0 or arr.ndim > 2:
            raise ValueError(f"y must be 1-D or 2-D, got an array of shape {arr.shape}")
        Y = pd.DataFrame(arr.reshape(len(arr), -1), copy=False)
        names = ["y"] if arr.ndim == 1 else [f"y{j}" for j in range(Y.shape[1])]
    if len(Y) != n:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                         f"[{n}, {len(Y)}]")
    if Y.shape[1] < 1:
        raise ValueError("y has no columns")
    return Y, names


def _target_kinds(Y, task: str | None) -> dict[str, str]:
    """How each target column is read: by ``task`` when given, else by its values (see the
    module docstring)."""
    import pandas as pd

    from frcli.data.frame import column_kind, target_kind

    cols = [Y.iloc[:, j] for j in range(Y.shape[1])]
    names = [str(c) for c in Y.columns]

    def binary(c) -> bool:
        if not (pd.api.types.is_numeric_dtype(c.dtype) or pd.api.types.is_bool_dtype(c.dtype)):
            return False
        v = c.to_numpy(dtype=np.float64, na_value=np.nan)
        return bool(np.isin(v[~np.isnan(v)], (0.0, 1.0)).all())

    if task == "classification":
        kinds = ["nominal"] * len(cols)
    elif task in ("regression", "mtr"):
        kinds = ["numeric" if column_kind(c) == "numeric" else "csv" for c in cols]
    elif task == "mlc":
        kinds = ["labels"] * len(cols)
    elif len(cols) == 1:
        kinds = [target_kind(cols[0])]
    elif all(binary(c) for c in cols):
        kinds = ["labels"] * len(cols)
    else:
        kinds = [column_kind(c) for c in cols]
    return dict(zip(names, kinds))


# -- scikit-learn's own checks -------------------------------------------------------------------
_EXPECTED_FAILED: dict[str, str] = {}


def expected_failed_checks(estimator: FeatureRanker) -> dict[str, str]:
    """The checks of ``sklearn.utils.estimator_checks`` that ``estimator`` is expected to
    fail, each with the reason: pass it as ``expected_failed_checks`` to
    ``check_estimator`` (called on the estimator) or ``parametrize_with_checks`` (as is)."""
    return dict(_EXPECTED_FAILED)
