"""Method name → ranker. Modules are imported only when their method is asked for.

Names: ``{symbolic|genie3|rf}-{rf|bagging|et}`` with an optional ``-str`` suffix (one
single-target ensemble per target, importances averaged), the bare scores ``symbolic``,
``genie3`` and ``rf`` (the ensemble the papers chose for the data's task and setting),
``relief``, ``relief-str``,
``reliefe`` (Relief on UMAP embeddings), the ReliefE paper's baselines ``multisurf``,
``multisurf-star`` and ``mutual-info``, the SSL and unsupervised papers' baselines
``laplacian``, ``spec``, ``mcfs`` and ``sefr``, and the baselines ``uniform`` (all importances
1: the non-informed ranking) and ``random``. On relational data (a ``RelationalDataset``),
``{symbolic|genie3}-{tree|bagging|rf|boost}`` are the relational rankers
(``frcli.rankers.relational``); other names are an error there.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from frcli.errors import UserError, choices_error

if TYPE_CHECKING:    # the CLI reads DEFAULT_METHOD for its help: no numpy at start-up
    from frcli.rankers.base import Ranker

# The method used when none is named (``frcli rank`` without --method, ``frcli.rank(data)``,
# ``FeatureRanker()``): a real ranker, not a baseline that ranks every feature alike. The
# bare Genie3 score takes the ensemble the papers chose for the data's task and setting.
DEFAULT_METHOD = "genie3"

SCORES = ("symbolic", "genie3", "rf")
ENSEMBLES = ("rf", "bagging", "et")
# the method used when none is named (frcli rank, frcli.rank, FeatureRanker): the bare Genie3
# score, which takes the ensemble the papers chose for the data's task
DEFAULT_METHOD = "genie3"

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
    # the SSL and unsupervised papers' baselines (spec-ssl-unsup §5)
    "laplacian": "frcli.rankers.spectral:LaplacianRanker",
    "spec": "frcli.rankers.spectral:SpecRanker",
    "mcfs": "frcli.rankers.spectral:MCFSRanker",
    "ndfs": "frcli.rankers.spectral:NDFSRanker",
    "sefr": "frcli.rankers.sefr:SEFRRanker",
}
for _score in SCORES:       # a bare score takes the task's ensemble (the papers' choice)
    _REGISTRY[_score] = "frcli.rankers.ensemble:EnsembleRanker"
    for _ens in ENSEMBLES:
        _REGISTRY[f"{_score}-{_ens}"] = "frcli.rankers.ensemble:EnsembleRanker"
        _REGISTRY[f"{_score}-{_ens}-str"] = "frcli.rankers.ensemble:EnsembleRanker"

# Relational data (frcli.rankers.relational) use the same names: {symbolic|genie3}-{bagging|rf}
# route there when the data are relational; -tree and -boost exist for relational data only.
_RELATIONAL = "frcli.rankers.relational:RelationalRanker"
RELATIONAL_METHODS = tuple(f"{s}-{e}" for e in ("tree", "bagging", "rf", "boost")
                           for s in ("symbolic", "genie3"))
for _name in RELATIONAL_METHODS:
    _REGISTRY.setdefault(_name, _RELATIONAL)


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


def get_ranker(name: str, data=None, *, relational: bool | None = None) -> Ranker:
    """The ranker of ``name``; for relational ``data`` (``is_relational``, or
    ``relational=True`` when only the kind is known) the relational ranker of that name, or an
    error naming the methods that apply."""
    key = name.strip().lower()
    if key not in _REGISTRY:
        raise choices_error("method", name, _REGISTRY)
    if relational if relational is not None else is_relational(data):
        if key not in RELATIONAL_METHODS:
            raise UserError(f"method '{name}' does not apply to relational data; relational "
                            f"methods: {', '.join(RELATIONAL_METHODS)}")
        module, cls = _RELATIONAL.split(":")
        return getattr(importlib.import_module(module), cls)(key)
    return _load_or_explain(key)(key)


def is_relational(data) -> bool:
    return bool(getattr(data, "is_relational", False))
