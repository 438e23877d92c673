"""CLUS's printed PCT (the "Original Model" block of a ``.out`` file) as nested dicts.

CLUS prints a binary PCT in pre-order, one node per line::

    bod > 0.203595677156795
    +--yes: bod > 0.663898947250419
    |      +--yes: [2,5,2,3,0,4,...]: 2
    |      +--no:  [2,5,3,2,1,4,...]: 2
    +--no:  [0.5,...]: 3.012567

A test ``name > value`` sends an example to "yes" when its value exceeds ``value`` (the largest
value of the "no" branch, CLUS ``SplitPosition = Exact``); a leaf is ``[mean_1,...,mean_T]:
weight``, numbers printed by ``clus_number`` (7 significant digits below 1, else up to six
decimals). Because the order is pre-order (node, yes-subtree, no-subtree), the indentation need
not be read: each line is a node, and a test line is followed by its two subtrees.

``read_clus_tree(path)`` returns ``{"feature": name, "threshold": float, "yes": node, "no":
node}`` for tests and ``{"prototype": [floats], "prototype_text": [str], "weight": float,
"weight_text": str}`` for leaves (texts kept so a comparison can be made to printed precision);
``read_clus_model_info(path)`` gives the "Original" nodes / leaves / depth line.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from frcli.errors import UserError

_PREFIX = re.compile(r"^[|\s]*(?:\+--(?:yes|no):\s*)?")
_INFO = re.compile(r"Original:\s*Nodes\s*=\s*(\d+);\s*Leaves\s*=\s*(\d+);\s*Depth\s*=\s*(\d+)")


def clus_number(x: float) -> str:
    """CLUS's ``ClusNumberFormat(6)``: ``|x| < 1`` (not 0) as ``d.ddddddE-k``, otherwise at most
    six decimals without trailing zeros (both round half-even on the exact binary value, as
    Java's DecimalFormat does)."""
    if x != x:
        return "NaN"
    if x != 0.0 and -1.0 < x < 1.0:
        mant, exp = f"{x:.6E}".split("E")
        if float(mant) in (10.0, -10.0):      # rounding reached the next power of ten
            mant, exp = ("-" if x < 0 else "") + "1.000000", str(int(exp) + 1)
        return f"{mant}E{int(exp)}"
    s = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _node(lines: list[str], pos: int, where: str) -> tuple[dict[str, Any], int]:
    if pos >= len(lines):
        raise UserError(f"{where}: the printed tree ends early (a test without its branches)")
    text = _PREFIX.sub("", lines[pos], count=1).strip()
    if text.startswith("["):
        close = text.rfind("]")
        body, _, weight = text[1:close], None, text[close + 1:].lstrip(":").strip()
        parts = [p.strip() for p in body.split(",")] if body.strip() else []
        try:
            proto = [float(p) if p != "?" else float("nan") for p in parts]
            w = float(weight)
        except ValueError:
            raise UserError(f"{where}: line {pos + 1}: cannot read the leaf {text!r}") from None
        return {"prototype": proto, "prototype_text": parts, "weight": w,
                "weight_text": weight}, pos + 1
    name, sep, value = text.rpartition(" > ")
    if not sep:
        raise UserError(f"{where}: line {pos + 1}: expected 'name > value' or a leaf, "
                        f"got {text!r}")
    try:
        thr = float(value)
    except ValueError:
        raise UserError(f"{where}: line {pos + 1}: bad split value {value!r}") from None
    yes, pos = _node(lines, pos + 1, where)
    no, pos = _node(lines, pos, where)
    return {"feature": name, "threshold": thr, "yes": yes, "no": no}, pos


def parse_clus_tree(text: str, where: str = "CLUS output") -> dict[str, Any]:
    """The tree printed under ``Original Model`` (or the whole text if it is only a tree)."""
    lines = text.splitlines()
    start = 0
    for i, line in enumerate(lines):
        if line.strip() == "Original Model":
            start = i + 1
            while start < len(lines) and (not lines[start].strip()
                                          or set(lines[start].strip()) == {"*"}):
                start += 1
            break
    body: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        body.append(line)
    if not body:
        raise UserError(f"{where}: no printed tree found")
    root, end = _node(body, 0, where)
    if end != len(body):
        raise UserError(f"{where}: line {end + 1}: text after the end of the tree")
    return root


def read_clus_tree(path: str | Path) -> dict[str, Any]:
    """Parse the "Original Model" tree of a CLUS ``.out`` file."""
    p = Path(path)
    return parse_clus_tree(p.read_text(), str(p))


def read_clus_model_info(path: str | Path) -> dict[str, int]:
    """``{"nodes", "leaves", "depth"}`` of the Original model from the "Model information"."""
    p = Path(path)
    m = _INFO.search(p.read_text())
    if m is None:
        raise UserError(f"{p}: no 'Original: Nodes = ...' line in the model information")
    return {"nodes": int(m.group(1)), "leaves": int(m.group(2)), "depth": int(m.group(3))}
