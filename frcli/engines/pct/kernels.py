"""The PCT kernels (``frcli._ext.pct``, built from ``ext/pct/``), loaded with one clear error
when they are not built, and the names they define once for Python: the storage modes of
the clustering columns (``MODE_*``) and the kinds of out-of-bag error blocks (``ERR_*``),
from ``ext/pct/_criterion.pxd`` (as plain ints: they travel in pickled models).
"""
try:
    from frcli._ext.pct import _criterion, _forest, _tree
except ImportError as e:  # pragma: no cover - a build problem, not a user error
    raise ImportError("frcli's PCT kernels are not built; run 'make build' "
                      "(python setup.py build_ext --inplace)") from e

forest = _forest
tree = _tree

MODE_COMPLETE = int(_criterion.StorageMode.MODE_COMPLETE)
MODE_SPARSE01 = int(_criterion.StorageMode.MODE_SPARSE01)
MODE_MISSING = int(_criterion.StorageMode.MODE_MISSING)
ERR_NUMERIC = int(_criterion.ErrorKind.ERR_NUMERIC)
ERR_NOMINAL = int(_criterion.ErrorKind.ERR_NOMINAL)
ERR_LABEL = int(_criterion.ErrorKind.ERR_LABEL)
