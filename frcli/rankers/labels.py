"""Method labels: the one way a method with its parameters is named, in every command.

``frcli rank``'s header, the experiment summary, ``frcli stats`` tables and diagrams and
``frcli report`` all call these functions, so one ranking has one name everywhere:

* ``method_label(method, params)``: the parameters that differ from the method's declared
  defaults (``relief``, ``genie3-rf(trees=50)``);
* ``labels(rows)``: the same for a set of runs, plus the parameters that vary among one
  method's runs, so variants never share a label (``relief(neighbours=5)`` beside
  ``relief(neighbours=15)``, although 15 is the default);
* ``full_label(method, params)``: every parameter (the header of ``frcli rank``);
* ``labels_within(rows, groups)``: ``labels`` applied to each group of runs on its own.

The set of runs a label is computed over is one experiment (one result store): ``frcli stats
results/`` (a folder of experiments, one analysis each), ``frcli stats results/mtr``, the
experiment summary and the report all label a run as its own experiment does, whatever else
lies in the folder. Stores named together on one command line are pooled into one analysis,
and so labelled together: a parameter that differs between them is shown, so that different
settings never share a label and equal settings pair up across the stores.

Values are written as a user types them (``min_leaf=2``, ``bootstrap=true``: ``param_value``).
Methods the registry does not know (a CSV from elsewhere) have no known defaults: only their
varying parameters are shown.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence


def param_value(v: Any) -> str:
    """A parameter value as a user would type it: ``2`` (not ``2.0``), ``true``, ``0.25``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    if isinstance(v, (list, tuple)):
        return ",".join(param_value(x) for x in v)
    if v is None:
        return "none"
    return str(v)


def label(method: str, params: Mapping[str, Any] | None = None,
          keys: Iterable[str] | None = None) -> str:
    """``method`` or ``method(k=v, ...)`` with ``keys`` (default: every key of ``params``)."""
    params = params or {}
    keys = list(params) if keys is None else [k for k in keys if k in params]
    if not keys:
        return str(method)
    return f"{method}(" + ", ".join(f"{k}={param_value(params[k])}" for k in keys) + ")"


def _relational(keys: Iterable[str]) -> bool:
    """Parameters of a relational ranker (same method names as the tabular ensembles; every
    relational ranker declares ``lookahead``)."""
    return "lookahead" in keys


@lru_cache(maxsize=None)
def _declared(method: str, relational: bool = False) -> tuple[tuple[str, Any], ...] | None:
    """(name, default) of the method's parameters in declaration order; None if unknown."""
    from frcli.rankers.registry import get_ranker

    try:
        ranker = get_ranker(str(method), relational=relational)
    except Exception:  # noqa: BLE001 - not a registered (or not a buildable) method
        return None
    return tuple((p.name, p.default) for p in ranker.param_spec().values())


def _ordered(method: str, keys: Iterable[str]) -> list[str]:
    keys = list(dict.fromkeys(keys))
    decl = _declared(method, _relational(keys))
    if decl is None:
        return keys
    order = {name: i for i, (name, _) in enumerate(decl)}
    return sorted(keys, key=lambda k: (order.get(k, len(order)), keys.index(k)))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a).strip().lower() == str(b).strip().lower()


def non_default(method: str, params: Mapping[str, Any]) -> list[str]:
    """Keys of ``params`` whose value differs from the method's default (every key that the
    method does not declare, e.g. ``labeled_only``; none for an unknown method)."""
    decl = _declared(method, _relational(params))
    if decl is None:
        return []
    defaults = dict(decl)
    return [k for k, v in params.items() if k not in defaults or not _same(v, defaults[k])]


def method_label(method: str, params: Mapping[str, Any] | None = None) -> str:
    params = dict(params or {})
    return label(method, params, _ordered(method, non_default(method, params)))


def full_label(method: str, params: Mapping[str, Any] | None = None) -> str:
    params = dict(params or {})
    return label(method, params, _ordered(method, params))


def labels(rows: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """One label per (method, params) row; equal rows get equal labels, different ones
    different labels."""
    by_method: dict[str, list[Mapping[str, Any]]] = {}
    for m, p in rows:
        by_method.setdefault(str(m), []).append(dict(p or {}))
    shown: dict[str, list[str]] = {}
    for m, ps in by_method.items():
        keys: list[str] = []
        for p in ps:
            keys.extend(k for k in p if k not in keys)
        # values that print alike are alike (1 and 1.0): a label tells them apart by print
        varying = [k for k in keys
                   if len({param_value(p.get(k)) if k in p else None for p in ps}) > 1]
        extra = [k for p in ps for k in non_default(m, p)]
        shown[m] = _ordered(m, varying + extra)
    return [label(str(m), dict(p or {}), [k for k in shown[str(m)] if k in (p or {})])
            for m, p in rows]


def labels_within(rows: Sequence[tuple[str, Mapping[str, Any]]],
                  groups: Sequence[Any]) -> list[str]:
    """``labels`` computed within each group (an experiment) on its own: a run's label does
    not depend on the runs of other groups."""
    out: list[str] = [""] * len(rows)
    for g in dict.fromkeys(groups):
        idx = [i for i, x in enumerate(groups) if x == g]
        for i, name in zip(idx, labels([rows[i] for i in idx])):
            out[i] = name
    return out
