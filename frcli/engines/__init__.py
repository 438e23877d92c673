"""The engines, by family: PCT trees and forests with their scores (``pct``), the Relief
family (``relief``), relational learning (``relational``), the spectral baselines, and the
kernels they drive in ``frcli._ext`` (built from ``ext/``, one folder per family).

Engines import only the data layer and the kernels, never rankers or studies
(docs/design/layers.md).
"""
