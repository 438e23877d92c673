"""JSON that is JSON: non-finite floats (NaN, ±inf) become ``null`` instead of Python's
``NaN``/``Infinity`` tokens, which no JSON parser but Python's accepts (issue 9)."""
from __future__ import annotations

import json
import math
from typing import Any


def finite(obj: Any) -> Any:
    """``obj`` with every non-finite float (and NumPy scalar or array) replaced by None."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    tolist = getattr(obj, "tolist", None)      # NumPy scalars and arrays
    if tolist is not None and type(obj).__module__ == "numpy":
        return finite(tolist())
    return obj


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` of ``finite(obj)``, refusing any NaN that would still slip through."""
    return json.dumps(finite(obj), allow_nan=False, **kwargs)
