"""The Python API: ``frcli.rank`` and a scikit-learn style estimator.

    >>> import frcli
    >>> r = frcli.rank("data.arff", method="genie3-rf", targets="last:3", trees=50)
    >>> r.importances, r.ranks()
    >>> from frcli.api import FeatureRanker        # scikit-learn's API (frcli.estimator)
    >>> FeatureRanker("relief", neighbours=10).fit(X, Y).feature_importances_
"""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from frcli.data.dataset import Attribute, Dataset
from frcli.errors import ConfigError
from frcli.rankers.base import Ranking
from frcli.rankers.registry import DEFAULT_METHOD, get_ranker

DataLike = "str | os.PathLike | Dataset | tuple[np.ndarray, np.ndarray | None]"


def dataset_from_arrays(X, Y=None, *, task: str | None = None,
                        feature_names: Sequence[str] | None = None,
                        target_names: Sequence[str] | None = None,
                        semi_supervised: bool = False) -> Dataset:
    """Wrap numeric arrays as a Dataset, inferring the task when not given.

    ``Y`` 1-D of integers/strings/bools → classification; 1-D floats → regression; 2-D 0/1 →
    mlc; 2-D otherwise → mtr; ``None`` → unsupervised. A 1-D object ``Y`` of numbers with a few
    text values (a typo, ``"n/a"``) is an error naming the row and the value, not classes. NaN marks missing values; with
    ``semi_supervised=True`` rows whose targets are all NaN are the unlabelled part.
    """
    ds = _from_arrays(X, Y, task, feature_names, target_names)
    ds.semi_supervised = semi_supervised
    return ds


def _refuse_numeric_typos(Y: np.ndarray) -> None:
    """A 1-D object ``Y`` of numbers with a typo's share of text is an error naming the row
    and the value, as the same column of a CSV file is (``frcli.data.frame.target_kind``)."""
    import pandas as pd

    from frcli.data.frame import frame_table, target_kind
    from frcli.data.load import check_mixed
    from frcli.errors import option_style

    col = pd.Series(Y, name="Y")
    if target_kind(col) == "csv":
        with option_style("estimator"):        # arrays: no file to edit, no nominal=
            check_mixed(frame_table(col.to_frame(), source="Y", kinds={"Y": "csv"}), [0], [])


def _from_arrays(X, Y, task, feature_names, target_names) -> Dataset:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ConfigError("X must be a 2-D array (examples × features)")
    names = list(feature_names) if feature_names is not None else [
        f"x{i + 1}" for i in range(X.shape[1])]
    features = [Attribute(n, "numeric") for n in names]
    if Y is None:
        return Dataset("arrays", X, features, task or "unsupervised")
    Y = np.asarray(Y)
    if Y.shape[0] != X.shape[0]:
        raise ConfigError(f"X has {X.shape[0]} rows but Y has {Y.shape[0]}")
    if Y.ndim == 1:
        if task is None and Y.dtype.kind == "O":
            _refuse_numeric_typos(Y)
        discrete = Y.dtype.kind in "iubOUS"
        task = task or ("classification" if discrete else "regression")
        if task == "classification":
            missing = np.array([v is None or (isinstance(v, float) and np.isnan(v))
                                for v in Y.tolist()]) if Y.dtype.kind in "fO" else None
            known = Y if missing is None else Y[~missing]
            cats, codes = np.unique(np.asarray(known).astype(str), return_inverse=True)
            full = np.full(len(Y), np.nan)
            full[slice(None) if missing is None else ~missing] = codes
            tname = target_names[0] if target_names else "class"
            return Dataset("arrays", X, features, task, Y=full[:, None],
                           targets=[Attribute(tname, "nominal", tuple(cats))])
        Y = Y[:, None]
    tnames = list(target_names) if target_names is not None else [
        f"y{j + 1}" for j in range(Y.shape[1])]
    if task is None:
        binary = Y.dtype.kind in "biu" and np.isin(Y, (0, 1)).all()
        task = "mlc" if binary and Y.shape[1] > 1 else ("mtr" if Y.shape[1] > 1 else "regression")
    if task == "mlc":
        return Dataset("arrays", X, features, task, Y=Y.astype(np.uint8),
                       targets=[Attribute(t, "nominal", ("0", "1")) for t in tnames])
    return Dataset("arrays", X, features, task, Y=Y.astype(np.float64),
                   targets=[Attribute(t, "numeric") for t in tnames])


# the loader's options (as on the command line); every other keyword is a method parameter
LOAD_OPTIONS = ("targets", "labels", "task", "hierarchy", "nominal", "drop", "keep",
                "semi_supervised")


def _as_dataset(data: Any, **load_options) -> Dataset:
    """``data`` as a Dataset: a file or catalog name is loaded with ``load_options``
    (identifier columns screened out unless kept); a Dataset or arrays are taken as they are,
    less the features ``drop`` names."""
    options = {k: v for k, v in load_options.items() if v is not None}
    if isinstance(data, (str, os.PathLike)):  # a file, or a catalog name (as on the CLI)
        from frcli.data.catalog import open_data

        return open_data(data, **options)
    if isinstance(data, tuple) and len(data) == 2:
        data = dataset_from_arrays(data[0], data[1], task=options.get("task"),
                                   semi_supervised=bool(options.get("semi_supervised")))
    elif not (isinstance(data, Dataset) or getattr(data, "is_relational", False)):
        raise ConfigError("data must be a path, a Dataset or an (X, Y) tuple")
    if options.get("keep"):
        raise ConfigError("keep= applies when data is a file or a catalog name (identifier "
                          "columns are screened out as a file is loaded)")
    if options.get("drop"):
        if getattr(data, "is_relational", False):
            raise ConfigError("drop= does not apply to relational data (its features come "
                              "from the schema's tables)")
        from frcli.data.load import names_list
        from frcli.data.screen import check_names

        data = data.without_features(check_names(names_list(options["drop"]),
                                                 data.feature_names, "drop", data.name))
    return data


def rank_all(data: Any, method: str = DEFAULT_METHOD, *, seed: int = 0, jobs: int = 1,
             targets: str | None = None, labels: str | None = None, task: str | None = None,
             hierarchy: str | None = None, nominal: Sequence[str] | str | None = None,
             drop: Sequence[str] | str | None = None, keep: Sequence[str] | str | None = None,
             semi_supervised: bool | None = None, **params: Any) -> list[Ranking]:
    """Every ranking of a parameter grid (list-valued params), in grid order.

    ``targets``, ``labels``, ``task``, ``hierarchy``, ``nominal``, ``drop``, ``keep`` and
    ``semi_supervised`` are the loader's options (as on the command line; ``drop``, ``keep``
    and ``nominal`` take a list of column names or one comma-separated string); every other
    keyword is a method parameter.
    """
    dataset = _as_dataset(data, targets=targets, labels=labels, task=task, hierarchy=hierarchy,
                          nominal=nominal, drop=drop, keep=keep,
                          semi_supervised=semi_supervised)
    return _with_context(get_ranker(method, dataset).rank(dataset, params, seed=seed,
                                                          jobs=jobs), dataset)


def _with_context(rankings: list[Ranking], dataset) -> list[Ranking]:
    """Each ranking records the task of its data and whether unlabelled rows took part, so
    that its header (and its figure) shows only the parameters that apply."""
    task = getattr(dataset, "task", None)
    ssl = bool(getattr(dataset, "semi_supervised", False)) and \
        not bool(np.all(getattr(dataset, "labeled", True)))
    for r in rankings:
        r.meta.setdefault("task", task)
        r.meta.setdefault("semi_supervised", ssl)
    return rankings


def rank_methods(data: Any, methods: Sequence[str], *, seed: int = 0, jobs: int = 1,
                 targets: str | None = None, labels: str | None = None,
                 task: str | None = None, hierarchy: str | None = None,
                 nominal: Sequence[str] | str | None = None,
                 drop: Sequence[str] | str | None = None,
                 keep: Sequence[str] | str | None = None,
                 semi_supervised: bool | None = None, **params: Any) -> list[Ranking]:
    """The rankings of several methods, in the order given (each with its whole grid).

    Each method gets the parameters it declares (``symbolic_weight`` goes to Symbolic only);
    a parameter no method declares is an error. Ensemble scores of the same ensemble, data,
    parameters and seed come from one forest, grown once (as in CLUS, which writes its
    Symbolic, Genie3 and RF-score rankings from one run): RF-score methods run first, so the
    forest they grow, which has every score, serves the others.
    """
    from frcli.rankers.ensemble import shared_forests

    names = [m.strip().lower() for m in methods]
    if not names or any(not m for m in names):
        raise ConfigError("--method: give one or more methods separated by commas")
    dup = sorted({m for m in names if names.count(m) > 1})
    if dup:
        raise ConfigError(f"method {dup[0]!r} is given twice")
    dataset = _as_dataset(data, targets=targets, labels=labels, task=task, hierarchy=hierarchy,
                          nominal=nominal, drop=drop, keep=keep,
                          semi_supervised=semi_supervised)
    rankers = [get_ranker(m, dataset) for m in names]
    known = set().union(*(r.param_spec() for r in rankers))
    unknown = [k for k in params if k not in known]
    if unknown:
        raise ConfigError(f"unknown parameter '{unknown[0]}' for methods "
                          f"{', '.join(names)}; allowed: {', '.join(sorted(known))}")
    own = [{k: v for k, v in params.items() if k in r.param_spec()} for r in rankers]
    for r, p in zip(rankers, own):          # every check before any work
        r.validate(dataset, p)
    order = sorted(range(len(names)), key=lambda i: getattr(rankers[i], "score", "") != "rf")
    results: dict[int, list[Ranking]] = {}
    with shared_forests():
        for i in order:
            results[i] = rankers[i].rank(dataset, own[i], seed=seed, jobs=jobs)
    return _with_context([r for i in range(len(names)) for r in results[i]], dataset)


def rank(data: Any, method: str = DEFAULT_METHOD, *, stability: int | None = None,
         resample: str = "rows", **kwargs: Any) -> Ranking:
    """One ranking of ``data`` (path, Dataset or (X, Y)) by ``method`` with ``params``.

    Without a method, the default ``frcli.rankers.registry.DEFAULT_METHOD`` (the Genie3 score
    of the ensemble the papers chose for the task). ``kwargs``: the loader's options
    (``targets``, ``drop``, ``keep``, ...: see ``rank_all``), ``seed``, ``jobs`` (engine
    threads: the cores one ranking uses; the result is the same for any value) and the
    method's parameters. Use ``rank_all`` for parameter grids (list-valued parameters).

    ``stability=N`` also ranks the data N more times, each on a resample (``resample``:
    ``"rows"``, 63.2 % of the rows without replacement and a new seed; ``"seeds"``, every
    row and a new seed), at the cost of about N more rankings; the returned ranking (of every
    row, with ``seed``) then carries ``ranking.stability``
    (``frcli.stats.stability.Stability``): each feature's mean rank and 90 % interval, and
    the runs' agreement (mean Spearman, mean FUJI of the top 10).
    """
    loader = {k: kwargs.pop(k) for k in LOAD_OPTIONS if k in kwargs}
    dataset = _as_dataset(data, **loader)        # read once, for the stability runs too
    result = rank_all(dataset, method, **kwargs)
    if len(result) != 1:
        raise ConfigError(f"the parameters give {len(result)} rankings; use frcli.api.rank_all")
    if stability is not None:
        result[0].stability = rank_stability(dataset, method, runs=stability,
                                             resample=resample, **kwargs)
    return result[0]


def rank_stability(data: Any, method: str = DEFAULT_METHOD, *, runs: int,
                   resample: str = "rows", seed: int = 0, jobs: int = 1,
                   progress=None, **kwargs: Any):
    """The stability runs of ``frcli.rank(..., stability=runs)`` alone (what ``frcli rank
    --stability`` calls after the ranking, to say first what they cost): a
    ``frcli.stats.stability.Stability``. ``kwargs`` as for ``rank_all``."""
    from frcli.stats.stability import stability

    loader = {k: kwargs.pop(k) for k in LOAD_OPTIONS if k in kwargs}
    dataset = _as_dataset(data, **loader)
    ranker = get_ranker(method, dataset)
    ranker.validate(dataset, kwargs)

    def once(part, s: int) -> Ranking:
        out = ranker.rank(part, kwargs, seed=s, jobs=jobs)
        if len(out) != 1:
            raise ConfigError(f"stability needs one ranking; the parameters give {len(out)}")
        return out[0]

    return stability(dataset, once, runs=runs, seed=seed, resample=resample,
                     progress=progress)


def __getattr__(name: str):
    """``FeatureRanker`` and ``expected_failed_checks`` (``frcli.estimator``), loaded on first
    use: they need scikit-learn, which nothing else here does."""
    if name in ("FeatureRanker", "expected_failed_checks"):
        try:
            from frcli import estimator
        except ImportError as e:
            if not (e.name or "").startswith("sklearn"):
                raise
            raise ImportError(f"frcli.api.{name} needs scikit-learn >= 1.6 ({e}); install it "
                              "with: pip install 'scikit-learn>=1.6'") from e
        return getattr(estimator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
