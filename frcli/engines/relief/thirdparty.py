"""umap-learn and pynndescent, imported on first use (they are heavy: numba, scikit-learn),
with their numba machine code kept on disk (``cache_numba``). ReliefE embeds with UMAP; the
approximate Relief search (``ann``) uses pynndescent's NN-descent."""
from __future__ import annotations

import os
import warnings

from frcli.errors import UserError


def umap_class():
    """umap-learn's ``UMAP`` class, with its numba code kept on disk (``cache_numba``); a
    ``UserError`` when umap-learn is not installed.

    A plain import: nothing of numba or of ``sys.modules`` is patched while it runs. Holding
    back the pandas import scikit-learn makes and defaulting numba's ``jit`` to ``cache=True``
    during the import saved about 0.5 s of its 2.1 s of CPU, but changed other libraries'
    behaviour from the outside, which no option of theirs offers; the functions compiled on
    first use, by far the larger cost (tens of seconds), are cached through numba's own API
    (``cache_numba``).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # "Tensorflow not installed; ParametricUMAP ..."
            from umap import UMAP
    except ImportError:
        raise UserError("ReliefE's embeddings need umap-learn (pip install umap-learn); "
                        "embed=none works without it") from None
    cache_numba("umap", "pynndescent")
    return UMAP


_CACHED: set[str] = set()


def cache_numba(*packages: str) -> None:
    """Store umap-learn's and pynndescent's numba machine code on disk.

    Those packages compile a few hundred numba functions on first use in *every* process
    (measured 30-60 s for the first UMAP fit under load, 1-3 s once cached), and declare
    almost none of them ``cache=True``. ``Dispatcher.enable_caching()`` (numba's API) turns
    the on-disk cache on for the module-level dispatchers before they compile; the compiled
    code is the same, only kept (next to the package or in ``NUMBA_CACHE_DIR``).
    ``FRCLI_NUMBA_CACHE=0`` leaves them alone.
    """
    if os.environ.get("FRCLI_NUMBA_CACHE", "1") == "0":
        return
    import sys

    try:
        from numba.core.registry import CPUDispatcher
    except ImportError:  # pragma: no cover - umap always brings numba
        return
    for name in list(sys.modules):
        if name in _CACHED or name.split(".")[0] not in packages:
            continue
        _CACHED.add(name)
        for obj in list(vars(sys.modules[name]).values()):
            if isinstance(obj, CPUDispatcher) and obj._cache.__class__.__name__ == "NullCache":
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        obj.enable_caching()
                except Exception:  # noqa: BLE001 - a function numba cannot cache stays as is
                    pass


def pynndescent():
    try:
        import pynndescent
    except ImportError:
        raise UserError("the approximate neighbour search needs pynndescent, which umap-learn "
                        "brings (pip install umap-learn); search=exact works without "
                        "it") from None
    cache_numba("pynndescent")
    return pynndescent
