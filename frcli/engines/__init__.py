"""The engines: PCT trees and forests with their scores (``forest``), the Relief family
(``relief``), and the kernels they drive in ``frcli._ext`` (built from ``ext/``).

Engines import only the data layer and the kernels, never rankers or studies
(docs/design/layers.md).
"""
