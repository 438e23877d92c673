"""Files → ``Dataset``: ARFF (dense, sparse, CLUS hierarchies), CSV/TSV, Mulan label lists."""
from __future__ import annotations

from frcli.data.dataset import TASKS, Attribute, Dataset, Hierarchy

__all__ = ["TASKS", "Attribute", "Dataset", "Hierarchy", "load_dataset"]


def load_dataset(path, **options) -> Dataset:
    """Read a data file into a Dataset; see ``frcli.data.load.load_dataset`` for options."""
    from frcli.data.load import load_dataset as _load

    return _load(path, **options)
