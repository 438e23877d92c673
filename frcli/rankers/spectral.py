"""The graph-spectral baselines of the SSL and unsupervised papers (engine:
``frcli.engines.spectral``): ``laplacian`` (the Laplacian score, semi-supervised when the
data have targets), ``spec`` and ``mcfs`` (P-UNS's unsupervised baselines). Importances are
higher-is-better: lower-is-better scores are flipped as P-ML does (max + min - s), and a
nominal feature gets the sum of its one-hot columns' scores (P-ML, T:7619-7624).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.errors import ConfigError
from frcli.rankers.base import Param, Ranker, Ranking, parse_choice, parse_float, parse_int

_K = Param("neighbours", parse_int, 5, "neighbours of the kNN graph (He et al.'s and "
           "scikit-feature's 5)", check=lambda v: v >= 1, check_msg="must be >= 1")


class LaplacianRanker(Ranker):
    """Laplacian score (He et al. 2005) on the kNN heat-kernel graph of the features; with
    targets, the semi-supervised variant of P-ML's STR baseline (Doquire & Verleysen 2013;
    P-ML does not describe its graph): among the labeled rows a kNN graph of
    the targets is mixed in with weight ``w``."""

    tasks = ("regression", "mtr", "unsupervised")
    description = "Laplacian score (He et al. 2005); semi-supervised with targets (P-ML)"
    params = (
        _K,
        Param("w", parse_float, 0.5, "weight of the targets' graph (labeled rows) against "
              "the features' graph; 0 = the unsupervised Laplacian score",
              check=lambda v: 0 <= v <= 1, check_msg="must be in [0, 1]"),
    )

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        from frcli.engines import spectral

        t0 = time.perf_counter()
        ds = dataset.supervised_view(f"method '{self.method}'")
        inp = spectral.inputs(ds)
        targets = None if ds.task == "unsupervised" else ds.Y
        S = spectral.ssl_graph(inp.Z, targets, ds.labeled, params["neighbours"], params["w"],
                               jobs=jobs)
        col = spectral.laplacian_scores(S, inp.Z)
        imp = inp.per_feature(spectral.flip(col))
        return Ranking(self.method, ds.feature_names, imp, dict(params),
                       timings={"rank_s": time.perf_counter() - t0},
                       meta={"semi_supervised": targets is not None
                             and not bool(np.all(ds.labeled))})


class SpecRanker(Ranker):
    """SPEC (Zhao & Liu 2007) on the full RBF similarity (σ² = the mean squared distance);
    φ2 by default (scikit-feature's style 0). Lower φ1/φ2 = better (Zhao & Liu; scikit-feature
    sorts style 0 the other way round), higher φ3 = better."""

    tasks = ("unsupervised",)
    description = "SPEC spectral feature scores (Zhao & Liu 2007)"
    params = (
        Param("score", parse_choice("phi1", "phi2", "phi3"), "phi2",
              "phi1 = f'Lf, phi2 = phi1 without the trivial eigenvector, phi3 = the first "
              "clusters eigenvectors"),
        Param("clusters", parse_int, 5, "eigenvectors used by phi3",
              check=lambda v: v >= 2, check_msg="must be >= 2"),
    )

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        from frcli.engines import spectral

        t0 = time.perf_counter()
        inp = spectral.inputs(dataset)
        col = spectral.spec_scores(inp.Z, params["score"], k=params["clusters"])
        col = col if params["score"] == "phi3" else spectral.flip(col)
        return Ranking(self.method, dataset.feature_names, inp.per_feature(col), dict(params),
                       timings={"rank_s": time.perf_counter() - t0})


def _clusters(help: str) -> Param:
    """MCFS's and NDFS's cluster count (the study gives each set its class count)."""
    return Param("clusters", parse_int, 5, help, check=lambda v: v >= 1,
                 check_msg="must be >= 1")


class MCFSRanker(Ranker):
    """MCFS (Cai, Zhang & He 2010): spectral embedding of the kNN graph into ``clusters``
    dimensions, LARS (scikit-learn) per dimension stopped at ``nonzero`` coefficients,
    importance = the largest absolute coefficient. Features LARS never selects get 0."""

    tasks = ("unsupervised",)
    description = "multi-cluster feature selection (Cai et al. 2010)"
    params = (
        _K,
        _clusters("embedding dimensions (P-UNS: the number of classes; scikit-feature's 5)"),
        Param("nonzero", parse_int, 16, "LARS stops at this many nonzero coefficients "
              "(P-UNS keeps 16 features)", check=lambda v: v >= 1, check_msg="must be >= 1"),
    )

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        from frcli.engines import spectral

        t0 = time.perf_counter()
        inp = spectral.inputs(dataset)
        c = params["clusters"]
        if dataset.n_examples < c + 2:
            raise ConfigError(f"{dataset.name}: MCFS needs more rows than clusters + 1 "
                              f"({dataset.n_examples} rows, clusters={c})")
        col = spectral.mcfs_scores(inp.Z, c, params["nonzero"], params["neighbours"],
                                   seed=seed, jobs=jobs)
        return Ranking(self.method, dataset.feature_names, inp.per_feature(col), dict(params),
                       timings={"rank_s": time.perf_counter() - t0})


class NDFSRanker(Ranker):
    """NDFS (Li et al. 2012, ``frcli.engines.ndfs``): nonnegative spectral cluster indicators
    F on the kNN graph's normalised Laplacian, predicted by an l2,1-sparse linear model W;
    importance = ‖w_i‖₂. α = β = 1 are scikit-feature's defaults (P-UNS runs its baselines
    with them, T:8614-8622; Li et al. tune both per data set); γ = 10^8 is Li et al.'s
    "large enough" orthogonality weight (scikit-feature's comment; its code has 10e8)."""

    tasks = ("unsupervised",)
    description = "nonnegative discriminative feature selection, NDFS (Li et al. 2012)"
    params = (
        _K,
        _clusters("cluster indicators (P-UNS: the number of classes; as MCFS)"),
        Param("alpha", parse_float, 1.0, "weight of the regression of F on the features "
              "(scikit-feature's 1)", check=lambda v: v > 0, check_msg="must be > 0"),
        Param("beta", parse_float, 1.0, "weight of the l2,1 sparsity of W (scikit-feature's 1)",
              check=lambda v: v > 0, check_msg="must be > 0"),
        Param("gamma", parse_float, 1e8, "weight of the orthogonality penalty on F (Li et "
              "al.'s 10^8)", check=lambda v: v > 0, check_msg="must be > 0"),
        Param("updates", parse_int, 1000, "at most this many rounds of the F and W updates "
              "(scikit-feature's 1000)", check=lambda v: 1 <= v <= 100_000,
              check_msg="must be in 1..100000"),
        Param("tol", parse_float, 1e-4, "stop when the objective changes by less than this "
              "fraction", check=lambda v: 0 <= v < 1, check_msg="must be in [0, 1)"),
    )

    def validate(self, dataset: Dataset, params_grid=None) -> dict[str, list[Any]]:
        grid = super().validate(dataset, params_grid)
        from frcli.engines.memory import check_memory
        from frcli.engines.ndfs import dense_bytes

        c = max(grid["clusters"])
        if dataset.n_examples <= c:
            raise ConfigError(f"{dataset.name}: NDFS needs more rows than clusters "
                              f"({dataset.n_examples} rows, clusters={c})")
        n, C = dataset.n_examples, dataset.n_features
        check_memory(dense_bytes(n, C, c), f"method '{self.method}' on {n} rows x {C} "
                                          f"features (a min(rows, features)² system)")
        return grid

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        from frcli.engines import spectral
        from frcli.engines.ndfs import ndfs

        t0 = time.perf_counter()
        inp = spectral.inputs(dataset)
        col, trace = ndfs(inp.Z, params["clusters"], alpha=params["alpha"],
                          beta=params["beta"], gamma=params["gamma"],
                          k=params["neighbours"], updates=params["updates"],
                          tol=params["tol"], seed=seed, jobs=jobs)
        return Ranking(self.method, dataset.feature_names, inp.per_feature(col), dict(params),
                       timings={"rank_s": time.perf_counter() - t0},
                       meta={"updates": trace["updates"], "converged": trace["converged"]})
