"""The relational engine (docs/design/relational.md): chain features with aggregates
(``features``), relational trees (``tree``), bagging / random forests / gradient boosting
(``ensemble``) and relational Symbolic and Genie3 scores (``scores``), on the kernels of
``ext/relational/_relational.pyx``."""
