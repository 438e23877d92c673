"""``sefr``: semi-supervised ensemble feature ranking by self-training, P-DS's competitor
(T:6284-6287; reimplemented by its authors, details unpublished, so this is our reading: a
self-trained forest and its permutation score).

A random forest of PCTs (supervised, classification) is grown on the labeled rows; the
unlabeled rows it classifies most confidently (class-vote share >= ``threshold``, at most
``step`` x the initial number of unlabeled rows per round, highest share first) join the
training set with the predicted class, and the forest is regrown, until no unlabeled row is
left or none is confident. The ranking is the Random Forest (permutation) score of the last
forest. Without unlabeled rows it is the RF score of one forest (``rf-rf``).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from frcli.data.dataset import Dataset
from frcli.rankers.base import Param, Ranker, Ranking, parse_float, parse_int


class SEFRRanker(Ranker):
    tasks = ("classification",)
    description = "self-training random forest, RF score (P-DS's SEFR baseline)"
    params = (
        Param("trees", parse_int, 100, "trees of every forest", lambda v: v >= 1,
              "must be >= 1"),
        Param("threshold", parse_float, 0.75, "class-vote share an unlabeled row needs to be "
              "pseudo-labeled", lambda v: 0 < v <= 1, "must be in (0, 1]"),
        Param("step", parse_float, 0.2, "most unlabeled rows pseudo-labeled per round, as a "
              "fraction of the initial unlabeled rows", lambda v: 0 < v <= 1,
              "must be in (0, 1]"),
        Param("min_leaf", parse_float, 1, "minimum examples per leaf (fully grown, as P-DS)",
              lambda v: v > 0, "must be > 0"),
    )

    def rank_one(self, dataset: Dataset, params: dict[str, Any], *, seed: int,
                 jobs: int) -> Ranking:
        from frcli.engines.pct.model import PCTForest

        t0 = time.perf_counter()
        ds = dataset.supervised_view(f"method '{self.method}'")
        y = ds.Y[:, 0].copy()
        known = ~np.isnan(y)
        pool = np.flatnonzero(~known) if ds.semi_supervised else np.zeros(0, dtype=np.intp)
        per_round = max(1, int(np.ceil(params["step"] * pool.size)))
        # CLUS's tie rule, as the SSL papers' forests (and this baseline's stored runs) used
        kw = dict(trees=params["trees"], min_leaf=float(params["min_leaf"]), ties="first",
                  jobs=jobs)
        rounds = added = 0
        while pool.size:
            rows = np.flatnonzero(known)
            part = dataclasses.replace(ds.subset(rows), Y=y[rows, None],
                                       labeled=np.ones(rows.size, bool), semi_supervised=False)
            model = PCTForest("rf", seed=seed + rounds, **kw).fit(part)
            share = model.predict(ds.X[pool])                  # class-vote shares
            conf = share.max(axis=1)
            ok = np.flatnonzero(conf >= params["threshold"])
            if ok.size == 0:
                break
            take = ok[np.argsort(-conf[ok], kind="stable")[:per_round]]
            y[pool[take]] = np.argmax(share[take], axis=1)
            known[pool[take]] = True
            added += take.size
            pool = np.delete(pool, take)
            rounds += 1
        rows = np.flatnonzero(known)
        part = dataclasses.replace(ds.subset(rows), Y=y[rows, None],
                                   labeled=np.ones(rows.size, bool), semi_supervised=False)
        model = PCTForest("rf", seed=seed, **kw).fit(part, rf_score=True)
        imp = model.scores()["rf"]
        return Ranking(self.method, ds.feature_names, imp, dict(params),
                       timings={"rank_s": time.perf_counter() - t0},
                       meta={"rounds": rounds, "pseudo_labeled": int(added),
                             "unlabeled_left": int(pool.size)})
