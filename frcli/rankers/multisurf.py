"""``multisurf`` and ``multisurf-star``: the ReliefE paper's Relief baselines (engine:
``frcli.engines.relief.multisurf``, scikit-rebate's definitions); ``mutual-info``: scikit-learn's
mutual information (imported lazily), mean over the labels for multi-label data."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.errors import UserError
from frcli.rankers.base import Param, Ranker, Ranking, parse_int
from frcli.rankers.relief import MAX_NEIGHBOURS


class MultiSURFRanker(Ranker):
    tasks = ("classification",)
    description = "MultiSURF / MultiSURF* (scikit-rebate's definitions, all instances)"
    params = (
        Param("discrete_limit", parse_int, 10,
              "features with at most this many distinct values are compared as categories "
              "(scikit-rebate's categorical_threshold; 0 = declared nominal features only)",
              check=lambda v: v >= 0, check_msg="must be >= 0"),
    )

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        from frcli.engines.relief.multisurf import multisurf

        t0 = time.perf_counter()
        scores, meta = multisurf(dataset, star=self.method == "multisurf-star",
                                 discrete_limit=params["discrete_limit"], jobs=jobs)
        return Ranking(self.method, dataset.feature_names, scores, dict(params),
                       timings={"rank_s": time.perf_counter() - t0}, meta=meta)


class MutualInfoRanker(Ranker):
    tasks = ("classification", "regression", "mlc", "mtr")
    description = "mutual information with the target (scikit-learn; mean over targets)"
    params = (
        Param("neighbours", parse_int, 3,
              "neighbours of the kNN estimator for continuous features (scikit-learn's 3)",
              check=lambda v: 1 <= v <= MAX_NEIGHBOURS,
              check_msg=f"must be in 1..{MAX_NEIGHBOURS}"),
    )

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        try:
            from sklearn.feature_selection import mutual_info_classif, mutual_info_regression
        except ImportError:
            raise UserError("method 'mutual-info' needs scikit-learn (pip install "
                            "scikit-learn)") from None
        t0 = time.perf_counter()
        ds = dataset.supervised_view(f"method '{self.method}'")
        from frcli.data.scaling import exponents, scale
        from frcli.engines.relief.common import impute

        X, _ = impute(ds)           # huge columns come back scaled by a power of two
        discrete = ds.nominal_mask
        rs = int(seed) % (2**32 - 1)
        per = []
        for j in range(ds.n_targets):
            y = ds.Y[:, j]
            known = ~np.isnan(y) if y.dtype.kind == "f" else np.ones(len(y), bool)
            if known.sum() < 3:      # scikit-learn's estimators need k >= 1 other rows
                per.append(np.zeros(ds.n_features))
                continue
            nominal_t = ds.targets[j].is_nominal if j < len(ds.targets) else False
            cls = ds.task in ("classification", "mlc") or nominal_t
            fn = mutual_info_classif if cls else mutual_info_regression
            if not cls:              # huge targets: their standardisation would overflow
                y = scale(y[:, None], exponents(y[:, None], small=False))[:, 0]
            # at most every other known row is a neighbour (as in Relief); scikit-learn's
            # estimator refuses k >= the rows with a traceback
            k = min(params["neighbours"], int(known.sum()) - 1)
            Xk, yk = X[known], y[known]
            if np.all(yk == yk[0]):  # a constant target shares no information (the
                per.append(np.zeros(ds.n_features))      # estimator's noise would give > 0)
                continue
            # scikit-learn's continuous-vs-discrete estimator drops the rows of categories
            # seen once and fails when none is left (a "Found array with 0 sample(s)"
            # traceback): such a pair carries no estimable information, 0
            dead = ~np.any(Xk != Xk[:1], axis=0)
            if cls and np.unique(yk, return_counts=True)[1].max() < 2:
                per.append(np.zeros(ds.n_features))
                continue
            if not cls:
                for c in np.flatnonzero(discrete & ~dead):
                    if np.unique(Xk[:, c], return_counts=True)[1].max() < 2:
                        dead[c] = True
                        Xk[:, c] = 0.0   # no noise is drawn for discrete columns: the
                                         # others' estimates are unchanged
            mi = fn(Xk, yk, discrete_features=discrete, n_neighbors=k, random_state=rs)
            # a constant (or never known) feature gets 0, as from every other ranker, not
            # the estimator's noise (1e-16 .. 0.1 with the jitter scikit-learn adds)
            mi[dead] = 0.0
            per.append(mi)
        per_a = np.array(per)
        imp = per_a.mean(axis=0)
        return Ranking(self.method, dataset.feature_names, imp, dict(params),
                       per_target=per_a if per_a.shape[0] > 1 else None,
                       target_names=ds.target_names if per_a.shape[0] > 1 else None,
                       timings={"rank_s": time.perf_counter() - t0})
