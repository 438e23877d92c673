"""JSON that is JSON: non-finite floats (NaN, ±inf) become ``null`` instead of Python's
``NaN``/``Infinity`` tokens, which no JSON parser but Python's accepts.

The encoder walks with an explicit stack, not recursion: a tree from ``frcli tree`` can be as
deep as the data set has rows (a chain of one-row splits), which ``json.dumps`` refuses with a
``RecursionError`` beyond ~1,000 levels. Its text equals ``json.dumps`` of the same object
(with ``indent``, the same ``","``/``": "`` separators)."""
from __future__ import annotations

import json
import math
from typing import Any, Callable


def finite(obj: Any) -> Any:
    """``obj`` with every non-finite float (and NumPy scalar or array) replaced by None."""
    return json.loads(dumps(obj))


def _plain(obj: Any) -> Any:
    tolist = getattr(obj, "tolist", None)      # NumPy scalars and arrays
    if tolist is not None and type(obj).__module__ == "numpy":
        return tolist()
    return list(obj) if isinstance(obj, tuple) else obj


def _scalar(obj: Any) -> str:
    if isinstance(obj, float) and not math.isfinite(obj):
        return "null"
    return json.dumps(obj, allow_nan=False)   # str, int, bool, None; else TypeError


def _key(k: Any) -> str:
    if isinstance(k, str):
        return json.dumps(k)
    if isinstance(k, (bool, int, float)) or k is None:
        return json.dumps(json.dumps(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


_BASIC = (dict, list, str, int, float, bool, type(None))


def dumps(obj: Any, *, indent: int | None = None,
          default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(obj, indent=indent, default=default)`` with non-finite floats as
    ``null``, at any depth."""
    item_sep = "," if indent is not None else ", "
    out: list[str] = []
    stack: list[tuple[bool, Any, int]] = [(False, obj, 0)]      # (is text, value, level)
    while stack:
        is_text, value, level = stack.pop()
        if is_text:
            out.append(value)
            continue
        value = _plain(value)
        if default is not None and not isinstance(value, _BASIC):
            value = _plain(default(value))
        if isinstance(value, dict):
            pairs = [(_key(k) + ": ", v) for k, v in value.items()]
            opening, closing = "{", "}"
        elif isinstance(value, list):
            pairs = [("", v) for v in value]
            opening, closing = "[", "]"
        else:
            out.append(_scalar(value))
            continue
        if not pairs:
            out.append(opening + closing)
            continue
        inner = "" if indent is None else "\n" + " " * (indent * (level + 1))
        outer = "" if indent is None else "\n" + " " * (indent * level)
        out.append(opening)
        stack.append((True, outer + closing, level))
        for i in range(len(pairs) - 1, -1, -1):
            prefix, v = pairs[i]
            stack.append((False, v, level + 1))
            stack.append((True, (item_sep if i else "") + inner + prefix, level))
    return "".join(out)
