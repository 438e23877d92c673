"""frcli: feature ranking for structured output prediction.

Python API::

    import frcli
    ranking = frcli.rank("data.arff", method="genie3-rf", trees=100)
    ranking.importances, ranking.ranks()
"""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "rank", "load_dataset"]


def __getattr__(name):  # lazy: importing frcli must stay cheap
    if name == "rank":
        from frcli.api import rank

        return rank
    if name == "load_dataset":
        from frcli.data import load_dataset

        return load_dataset
    raise AttributeError(name)
