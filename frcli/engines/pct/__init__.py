"""The PCT family: predictive clustering trees and their ensembles (docs/design/pct.md).

``columns`` (the clustering columns of every task), ``model`` (``PCTForest``: fit, predict,
the scores of its trees), ``credit`` (shared credit of tied tests, Genie3 in the targets'
units), ``wcv`` (the semi-supervised w by cross-validation), ``cache`` (``ForestCache``: one
forest for the three scores), ``scoring`` (``forest_scores``: one forest, every score),
``rf_clus`` (CLUS's variant of the RF score) and ``view`` (one tree as CLUS's text, JSON or
a drawing). The kernels are ``frcli._ext.pct`` (built from ``ext/pct/``).

Nothing is imported here: ``from frcli.engines.pct.scoring import forest_scores`` names the
module it needs.
"""
