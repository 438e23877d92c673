"""Weighted-kNN evaluator benchmark (figures for the ``## kNN evaluation`` section of
docs/benchmarks.md).

Neighbour search of ``frcli.evaluate.knn.neighbours`` (distance matrix as one BLAS product per
block of test rows, missing values exact) against scikit-learn's brute-force
``KNeighborsRegressor`` on the same weighted, range-normalised features (numeric data without
missing values, where both compute the same thing), one thread each; plus the cost of missing
values, which scikit-learn cannot handle.

Usage: ``python bench/bench_knn.py [--repeat 3]``.
"""
from __future__ import annotations

import argparse

import numpy as np
from _common import best_of


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from sklearn.neighbors import NearestNeighbors
    from threadpoolctl import threadpool_limits

    from frcli.evaluate.knn import neighbours

    rng = np.random.default_rng(0)
    rows = []
    for name, n_tr, n_te, F, k in [("atp1d-like", 225, 112, 411, 5),
                                   ("emotions-like", 391, 202, 72, 15),
                                   ("bibtex-like", 4880, 2515, 1836, 15),
                                   ("mediamill-like", 30993, 12914, 120, 15)]:
        Xtr, Xte = rng.random((n_tr, F)), rng.random((n_te, F))
        w = rng.random(F)
        nom, nc = np.zeros(F, bool), np.zeros(F, int)
        lo, hi = Xtr.min(0), Xtr.max(0)
        s = np.sqrt(w) / (hi - lo)

        def ours():
            neighbours(Xtr, Xte, nom, nc, w, k)

        def sk():
            nn = NearestNeighbors(n_neighbors=k, algorithm="brute").fit((Xtr - lo) * s)
            nn.kneighbors((Xte - lo) * s)

        with threadpool_limits(1):
            t_ours = best_of(ours, args.repeat)
            t_sk = best_of(sk, args.repeat)
            Xm = Xtr.copy()
            Xm[rng.random(Xm.shape) < 0.05] = np.nan
            t_miss = best_of(lambda: neighbours(Xm, Xte, nom, nc, w, k), args.repeat)
        rows.append((name, n_tr, n_te, F, k, t_ours, t_sk, t_miss))
    print("| data (random) | n_train | n_test | F | k | frcli s | scikit-learn s | ratio "
          "| frcli, 5% missing s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, a, b, F, k, t1, t2, t3 in rows:
        print(f"| {name} | {a} | {b} | {F} | {k} | {t1:.3f} | {t2:.3f} | {t1 / t2:.2f} "
              f"| {t3:.3f} |")


if __name__ == "__main__":
    main()
