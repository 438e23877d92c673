"""Writing rankings: a terminal table, CSV, JSON and CLUS's ``.fimp`` layout.

One function per format, all taking a list of rankings (a Relief grid gives several) and
returning text, so the CLI, the API and tests share them.
"""
from __future__ import annotations

import json
import math
from typing import Sequence

import numpy as np

from frcli.rankers.base import Ranking

FORMATS = ("table", "csv", "json", "fimp")


def _fmt(v: float) -> str:
    return repr(float(v)) if math.isfinite(v) else str(v)


def _csv_field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def to_csv(ranking: Ranking) -> str:
    """``feature,importance,rank``: one row per feature in data-set order."""
    lines = ["feature,importance,rank"]
    for name, imp, r in zip(ranking.feature_names, ranking.importances, ranking.ranks()):
        lines.append(f"{_csv_field(name)},{_fmt(imp)},{r}")
    return "\n".join(lines) + "\n"


def to_json(rankings: Sequence[Ranking]) -> str:
    """One object (a single ranking) or ``{"rankings": [...]}`` for a grid."""
    docs = [r.to_dict() for r in rankings]
    payload = docs[0] if len(docs) == 1 else {"rankings": docs}
    return json.dumps(payload, indent=2, default=_json_default) + "\n"


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def to_table(ranking: Ranking, top: int | None = None) -> str:
    """A plain aligned table, most important first (readable in any terminal or pipe)."""
    order = ranking.order()
    if top is not None:
        order = order[:top]
    ranks = ranking.ranks()
    width = max([len("feature")] + [len(ranking.feature_names[i]) for i in order])
    head = f"{'rank':>5}  {'feature':<{width}}  importance"
    params = ", ".join(f"{k}={v}" for k, v in ranking.params.items())
    lines = [f"# {ranking.method}" + (f" ({params})" if params else ""), head, "-" * len(head)]
    for i in order:
        lines.append(f"{ranks[i]:>5}  {ranking.feature_names[i]:<{width}}  "
                     f"{ranking.importances[i]:.6g}")
    return "\n".join(lines) + "\n"


def _param_label(ranking: Ranking) -> str:
    return "".join(f"{k}{v}" for k, v in ranking.params.items()) or "overAll"


def to_fimp(rankings: Sequence[Ranking], dataset_name: str = "") -> str:
    """CLUS's ``.fimp`` layout: header lines, a tab-separated column header, a dashed line,
    then ``index<TAB>name<TAB>[ranks]<TAB>[importances]`` per feature (1-based index).

    One column per ranking, plus per-target columns when the ranking has them, in CLUS's
    order (overall first, then each target), so CLUS users can diff the files.
    """
    cols: list[tuple[str, np.ndarray]] = []
    for r in rankings:
        tag = _param_label(r) if len(rankings) > 1 else "overAll"
        cols.append((tag, r.importances))
    for r in rankings:
        if r.per_target is not None:
            names = r.target_names or [f"tar{j + 1}" for j in range(len(r.per_target))]
            suffix = _param_label(r) if len(rankings) > 1 else ""
            cols.extend((f"{t}{suffix}", row) for t, row in zip(names, r.per_target))
    first = rankings[0]
    params = ", ".join(f"{k}: {v}" for k, v in first.params.items())
    header = [f"Ranking method: {first.method}" + (f" ({params})" if params else "")]
    if dataset_name:
        header.append(f"Data set: {dataset_name}")
    names = [c[0] for c in cols]
    colhead = ("attributeDatasetIndex\tattributeName\t[" + ", ".join(f"{n}Rank" for n in names)
               + "]\t[" + ", ".join(names) + "]")
    lines = header + [colhead, "-" * len(colhead)]
    ranks = [Ranking("x", first.feature_names, v).ranks() for _, v in cols]
    for i, name in enumerate(first.feature_names):
        rk = ", ".join(str(int(r[i])) for r in ranks)
        vals = ", ".join(_fmt(v[i]) for _, v in cols)
        lines.append(f"{i + 1}\t{name}\t[{rk}]\t[{vals}]")
    return "\n".join(lines) + "\n"


def render(rankings: Sequence[Ranking], fmt: str, *, which: int | None = 0,
           dataset_name: str = "") -> str:
    """Text of ``rankings`` in ``fmt``; table/csv show ranking ``which`` (None = all)."""
    if fmt == "json":
        return to_json(rankings if which is None else [rankings[which]])
    if fmt == "fimp":
        return to_fimp(rankings if which is None else [rankings[which]], dataset_name)
    chosen = rankings if which is None else [rankings[which]]
    if fmt == "csv":
        if len(chosen) == 1:
            return to_csv(chosen[0])
        # a grid as one tidy CSV: the parameters as leading columns
        keys = list(chosen[0].params)
        lines = [",".join(keys + ["feature", "importance", "rank"])]
        for r in chosen:
            pv = [str(r.params[k]) for k in keys]
            for name, imp, rk in zip(r.feature_names, r.importances, r.ranks()):
                lines.append(",".join(pv + [_csv_field(name), _fmt(imp), str(rk)]))
        return "\n".join(lines) + "\n"
    return "\n".join(to_table(r) for r in chosen)
