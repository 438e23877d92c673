"""Judging a ranking: weighted kNN (``knn``), the papers' measures (``measures``), top-f curves
(``curves``) and the one-call protocol used by the experiment runner (``protocol``)."""
