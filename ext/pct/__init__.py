# The PCT family's kernels, built as frcli._ext.pct.<name>: _criterion (the one criterion),
# _presort (presorted row lists), _splitter (split search), _tree (growth and prediction) and
# _forest (ensembles, out-of-bag scores). ext/_utils.pxd holds what every family shares.
