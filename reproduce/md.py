"""Small Markdown and number-formatting helpers for study renderers (one formatting policy for
every generated section: 3 decimals for measures, 2 significant digits for p-values)."""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Sequence


def f3(x: Any, digits: int = 3) -> str:
    """A measure value: fixed decimals; '–' for missing."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{float(x):.{digits}f}"


def pm(mean: float, sd: float, digits: int = 3) -> str:
    return f"{f3(mean, digits)} ± {f3(sd, digits)}"


def pval(p: Any) -> str:
    """A p-value: 2 significant digits, scientific below 0.001 (7.6e-5)."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    p = float(p)
    if p == 0:
        return "0"
    if p >= 0.001:
        return f"{p:.2g}" if p < 0.1 else f"{p:.2f}"
    m, e = f"{p:.1e}".split("e")
    return f"{m}e{int(e)}"


def pct(x: float, digits: int = 0) -> str:
    return f"{100 * x:.{digits}f} %"


def bold(s: str, on: bool = True) -> str:
    return f"**{s}**" if on else s


def table(header: Sequence[str], rows: Iterable[Sequence[Any]],
          align: str | None = None) -> str:
    """A Markdown table; ``align`` is one of l/r/c per column (default: first l, rest r)."""
    header = [str(h) for h in header]
    align = align or ("l" + "r" * (len(header) - 1))
    sep = {"l": "---", "r": "---:", "c": ":---:"}
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(sep[a] for a in align) + "|"]
    for r in rows:
        cells = [str(c) for c in r]
        if len(cells) != len(header):
            raise ValueError(f"row {cells} has {len(cells)} cells, header {len(header)}")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def listing(items: Sequence[str], conj: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [str(i) for i in items]
    if not items:
        return "none"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {conj} " + items[-1]


def params(s: str) -> dict[str, Any]:
    """A stored run's params (canonical JSON) as a dict."""
    return json.loads(s) if isinstance(s, str) else dict(s)


def code(cmd: str) -> str:
    return f"```\n{cmd.strip()}\n```"
