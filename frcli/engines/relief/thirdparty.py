"""umap-learn and pynndescent, imported on first use (they are heavy: numba, scikit-learn)
and for less (see ``lean_import`` and ``cache_numba``). ReliefE embeds with UMAP; the
approximate Relief search (``ann``) uses pynndescent's NN-descent."""
from __future__ import annotations

import contextlib
import os
import warnings

from frcli.errors import UserError


def umap_class():
    """umap-learn's ``UMAP`` class, imported the lean way (``_lean_import``) with its numba
    code kept on disk (``cache_numba``); a ``UserError`` when umap-learn is not installed."""
    try:
        try:
            UMAP = _import_umap(lean=True)
        except Exception:  # noqa: BLE001 - something needed what _lean_import holds back
            import sys
            for name in [m for m in sys.modules if m.split(".")[0] in ("umap", "pynndescent")]:
                del sys.modules[name]
            UMAP = _import_umap(lean=False)
    except ImportError:
        raise UserError("ReliefE's embeddings need umap-learn (pip install umap-learn); "
                        "embed=none works without it") from None
    cache_numba("umap", "pynndescent")
    return UMAP


def _import_umap(lean: bool):
    with warnings.catch_warnings(), _lean_import(lean):
        warnings.simplefilter("ignore")   # "Tensorflow not installed; ParametricUMAP ..."
        from umap import UMAP
    return UMAP


@contextlib.contextmanager
def _lean_import(lean: bool = True):
    """Import umap-learn for less: its import is most of the embedded command's CPU time
    (docs/benchmarks.md, "Where ReliefE's time goes"). Two things it does in every process
    that change nothing it computes:

    * pandas: scikit-learn's ``utils.fixes`` tries ``import pandas`` at module level and keeps
      the module in a global it never uses (pandas inputs are recognised at call time through
      ``sys.modules``); nothing on umap-learn's path needs it. While umap-learn is imported,
      and only if pandas is not loaded yet, ``import pandas`` fails there (``sys.modules``
      entry None, Python's documented way) and pandas stays importable afterwards.
    * numba: umap-learn and pynndescent compile some functions at import (explicit
      signatures) and the rest on first use, almost none with ``cache=True``. While they are
      imported, ``numba.jit``/``njit`` default to ``cache=True``, so the machine code (the
      same code) is kept on disk (next to the package, or in ``NUMBA_CACHE_DIR``) and loaded
      by later processes (``cache_numba`` does it for dispatchers made elsewhere).

    ``FRCLI_LEAN_IMPORT=0`` (pandas) and ``FRCLI_NUMBA_CACHE=0`` (numba) turn them off; if the
    import fails either way, ``umap_class`` retries it as is (``lean=False``).

    Why patching and not a cleaner switch: neither library offers one. scikit-learn's pandas
    import has no option, and a ``sys.modules`` entry of None is the documented way to make
    an import fail. numba has no global default for ``cache`` (``NUMBA_CACHE_DIR`` only
    chooses the folder), and the functions compiled at import exist only after the import,
    too late for ``enable_caching``. Each part saves a measured share of the import's CPU time
    in a fresh process (pandas about a sixth, the numba code compiled at import about a
    tenth); the ReliefE command never loads pandas otherwise
    (tests/test_reliefe.py::test_lean_umap_import_leaves_pandas_out_and_changes_no_result).
    """
    import sys

    if not lean:
        yield
        return
    block = (os.environ.get("FRCLI_LEAN_IMPORT", "1") != "0" and "pandas" not in sys.modules
             and "umap" not in sys.modules)
    cache = os.environ.get("FRCLI_NUMBA_CACHE", "1") != "0" and "umap" not in sys.modules
    if not (block or cache):
        yield
        return
    patched = []
    if cache:
        try:
            import numba
        except ImportError:
            numba = None
        if numba is not None:
            for name in ("jit", "njit"):
                orig = getattr(numba, name)
                setattr(numba, name, _caching(orig))
                patched.append((numba, name, orig))
    if block:
        sys.modules["pandas"] = None   # type: ignore[assignment]
    try:
        yield
    finally:
        _unpatch(patched, block)


def _caching(decorator):
    def jit(*args, **kwargs):
        kwargs.setdefault("cache", True)
        return decorator(*args, **kwargs)
    return jit


def _unpatch(patched, block: bool) -> None:
    import sys

    for mod, name, orig in patched:
        setattr(mod, name, orig)
    if block and sys.modules.get("pandas", 0) is None:
        del sys.modules["pandas"]


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
