"""Method name → ranker. Modules are imported only when their method is asked for.

Names: ``{symbolic|genie3|rf}-{rf|bagging|et}`` with an optional ``-str`` suffix (one
single-target ensemble per target, importances averaged), ``relief``, ``relief-str``,
``reliefe`` (Relief on UMAP embeddings), the ReliefE paper's baselines ``multisurf``,
``multisurf-star`` and ``mutual-info``, and the baselines ``uniform`` (all importances 1: the
non-informed ranking) and ``random``.
"""
from __future__ import annotations

import importlib

from frcli.errors import UserError, choices_error
from frcli.rankers.base import Ranker

SCORES = ("symbolic", "genie3", "rf")
ENSEMBLES = ("rf", "bagging", "et")

# name -> "module:ClassName"; each class takes the method name as its only argument.
_REGISTRY: dict[str, str] = {
    "uniform": "frcli.rankers.baselines:UniformRanker",
    "random": "frcli.rankers.baselines:RandomRanker",
    "relief": "frcli.rankers.relief:ReliefRanker",
    "relief-str": "frcli.rankers.relief:ReliefRanker",
    "reliefe": "frcli.rankers.reliefe:ReliefERanker",
    "multisurf": "frcli.rankers.multisurf:MultiSURFRanker",
    "multisurf-star": "frcli.rankers.multisurf:MultiSURFRanker",
    "mutual-info": "frcli.rankers.multisurf:MutualInfoRanker",
}
for _score in SCORES:
    for _ens in ENSEMBLES:
        _REGISTRY[f"{_score}-{_ens}"] = "frcli.rankers.ensemble:EnsembleRanker"
        _REGISTRY[f"{_score}-{_ens}-str"] = "frcli.rankers.ensemble:EnsembleRanker"


def register(name: str, target: str) -> None:
    """Add a method (``target`` = "module:Class"); used by plug-ins and tests."""
    _REGISTRY[name] = target


def method_names() -> list[str]:
    return list(_REGISTRY)


def available(name: str) -> bool:
    """Whether the method's module can be imported (its engine has landed and is built)."""
    try:
        _load(name)
        return True
    except (ImportError, AttributeError):
        return False


def _load(name: str) -> type[Ranker]:
    module, cls = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), cls)


def _load_or_explain(name: str) -> type[Ranker]:
    try:
        return _load(name)
    except ImportError as e:  # an engine that is not built (or not part of this build)
        raise UserError(f"method '{name}' is not available in this installation ({e}); "
                        "rebuild with 'make install'") from None


def get_ranker(name: str) -> Ranker:
    key = name.strip().lower()
    if key not in _REGISTRY:
        raise choices_error("method", name, _REGISTRY)
    return _load_or_explain(key)(key)
