# The relational family's kernels, built as frcli._ext.relational.<name>: _relational (atom
# tests and their split search over relational examples).
