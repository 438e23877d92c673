"""Writing rankings: a terminal table, CSV, JSON and CLUS's ``.fimp`` layout.

One function per format, all taking a list of rankings (a Relief grid gives several) and
returning text, so the CLI, the API and tests share them.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from frcli import display
from frcli.rankers.base import Ranking
from frcli.rankers.labels import header_label

FORMATS = ("table", "csv", "json", "fimp")
# rows of the table, CSV and JSON: by rank (most important first; ties in data-set order) or
# in the data set's column order. CLUS's .fimp layout keeps CLUS's order (data set order,
# with the 1-based attributeDatasetIndex), so that it diffs against CLUS's files.
SORTS = ("rank", "columns")


def row_order(ranking: Ranking, sort: str = "rank") -> np.ndarray:
    """Feature indices in the order the rows are written (``SORTS``)."""
    if sort == "columns":
        return np.arange(len(ranking.feature_names))
    if sort != "rank":
        raise ValueError(f"sort must be one of {SORTS}, got {sort!r}")
    return ranking.order()


def _fmt(v: float) -> str:
    return repr(float(v)) if math.isfinite(v) else str(v)


def _csv_field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


STABILITY_COLUMNS = ("mean_rank", "rank_low", "rank_high")


def _csv_rows(ranking: Ranking, sort: str, lead: Sequence[str] = ()) -> list[str]:
    ranks = ranking.ranks()
    st = ranking.stability
    extra = [[""] * 3] * len(ranks)
    if st is not None:
        lo, hi = st.interval
        extra = [[_fmt(m), str(a), str(b)] for m, a, b in zip(st.mean_rank, lo, hi)]
    return [",".join([*lead, _csv_field(ranking.feature_names[i]),
                      _fmt(ranking.importances[i]), str(ranks[i])]
                     + (extra[i] if st is not None else []))
            for i in row_order(ranking, sort)]


def to_csv(ranking: Ranking, sort: str = "rank") -> str:
    """``feature,importance,rank``: one row per feature, by rank (or ``sort="columns"``:
    in data-set order); with a stability analysis also ``mean_rank,rank_low,rank_high``
    (the runs' mean rank and 90 % interval)."""
    head = ["feature,importance,rank" + ("," + ",".join(STABILITY_COLUMNS)
                                         if ranking.stability is not None else "")]
    return "\n".join(head + _csv_rows(ranking, sort)) + "\n"


def _json_doc(ranking: Ranking, sort: str, dataset_name: str = "") -> dict:
    doc = ranking.to_dict()        # its "features" list is in data-set order
    order = row_order(ranking, sort)
    doc["features"] = [doc["features"][i] for i in order]
    if ranking.stability is not None:
        st = ranking.stability.to_dict(ranking.feature_names)
        st["features"] = [st["features"][i] for i in order]
        doc["stability"] = st
    if dataset_name:
        doc["dataset"] = dataset_name
    return doc


def to_json(rankings: Sequence[Ranking], sort: str = "rank", dataset_name: str = "") -> str:
    """One object (a single ranking) or ``{"rankings": [...]}`` for a grid; each ranking's
    ``features`` list by rank (or in data-set order), and its stability analysis when it
    has one (``frcli report RANKING.json`` draws it)."""
    docs = [_json_doc(r, sort, dataset_name) for r in rankings]
    payload = docs[0] if len(docs) == 1 else {"rankings": docs}
    from frcli.jsonio import dumps    # NaN/inf as null: the output stays JSON

    return dumps(payload, indent=2, default=_json_default) + "\n"


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def to_table(ranking: Ranking, top: int | None = None, sort: str = "rank") -> str:
    """A plain aligned table, most important first (or in data-set order), readable in any
    terminal or pipe."""
    order = row_order(ranking, sort)
    if top is not None:
        order = order[:top]
    ranks = ranking.ranks()
    width = max([len("feature")] + [len(ranking.feature_names[i]) for i in order])
    st = ranking.stability
    head = f"{'rank':>5}  {'feature':<{width}}  importance"
    cells = [display.importance(ranking.importances[i]) for i in order]
    if st is not None:        # the importance column padded, then the runs' ranks
        lo, hi = st.interval
        iw = max(len("importance"), *(len(c) for c in cells))
        head = (f"{'rank':>5}  {'feature':<{width}}  {'importance':<{iw}}  mean rank  "
                "90 % interval")
        cells = [f"{c:<{iw}}  {display.rank(st.mean_rank[i]):>9}  {lo[i]}-{hi[i]}"
                 for c, i in zip(cells, order)]
    title = header_label(ranking.method, ranking.params, ranking.meta.get("task"),
                         bool(ranking.meta.get("semi_supervised")))
    lines = [f"# {title}", head, "-" * len(head)]
    for i, c in zip(order, cells):
        lines.append(f"{ranks[i]:>5}  {ranking.feature_names[i]:<{width}}  {c}")
    if st is not None:
        lines.append(f"# {st.summary()}")
    for key, title in (("by_table", "table"), ("by_aggregate", "aggregate")):
        rollup = ranking.meta.get(key)     # relational rankings: roll-ups of the relations
        if rollup:
            items = sorted(rollup.items(), key=lambda kv: (-kv[1], kv[0]))
            w = max(len(title), *(len(k) for k, _ in items))
            lines += ["", f"{'by ' + title:<{w + 7}}  importance"]
            lines += [f"       {k:<{w}}  {display.importance(v)}" for k, v in items]
    return "\n".join(lines) + "\n"


_ENSEMBLE_NAMES = {"rf": "RForest", "bagging": "Bagging", "et": "ExtraTrees"}
_SCORE_NAMES = {"symbolic": "Symbolic", "genie3": "Genie3", "rf": "RForest"}


def _is_relief(r: Ranking) -> bool:
    return r.method.startswith("relief") and "n_iterations" in r.meta and "neighbours" in r.params


def _grid_tags(rankings: Sequence[Ranking]) -> list[str]:
    """One column tag per ranking: CLUS's ``Iter<m>Neigh<k>`` for Relief (plus ``Sigma<s>``
    when the grid varies sigma), else the parameters that vary (``""`` for one ranking)."""
    varying = [k for k in rankings[0].params
               if len({repr(r.params.get(k)) for r in rankings}) > 1]
    tags = []
    for r in rankings:
        if _is_relief(r):
            t = f"Iter{r.meta['n_iterations']}Neigh{r.params['neighbours']}"
            if "sigma" in varying:
                t += f"Sigma{r.params['sigma']}"
        else:
            t = "".join(f"{k}{r.params[k]}" for k in varying)
        tags.append(t)
    return tags


# CLUS names the RF-score columns after the error measure of the task
_RF_ERROR_NAMES = {"regression": "Root mean squared error (RMSE):",
                   "mtr": "Root mean squared error (RMSE):", "classification": "Accuracy:",
                   "mlc": "HammingLoss:", "hmlc": "Hierarchical error measures:"}


def _column_names(r: Ranking) -> tuple[str, str]:
    """(overall column, per-target prefix) as CLUS writes them for this kind of ranking."""
    if _is_relief(r):
        return "overall", ""
    score = r.meta.get("score") if r.meta.get("ensemble") in _ENSEMBLE_NAMES else None
    if score == "symbolic":
        return f"w={r.params.get('symbolic_weight', 0.5)}", ""
    if score == "rf":
        prefix = _RF_ERROR_NAMES.get(r.meta.get("task"), "Error:")
        return prefix + "overall", prefix
    return "overAll", ""


def _fimp_header(rankings: Sequence[Ranking], dataset_name: str) -> list[str]:
    first = rankings[0]
    if _is_relief(first):
        ks = sorted({int(r.params["neighbours"]) for r in rankings})
        ms = sorted({int(r.meta["n_iterations"]) for r in rankings})
        lines = ["Ranking method: Relief with all combinations of",
                 f"numbers of neighbours: [{', '.join(map(str, ks))}]",
                 f"numbers of iterations: [{', '.join(map(str, ms))}]"]
    elif first.meta.get("ensemble") in _ENSEMBLE_NAMES and first.meta.get("score") in _SCORE_NAMES:
        lines = [f"Ensemble method: {_ENSEMBLE_NAMES[first.meta['ensemble']]}",
                 f"Ranking method: {_SCORE_NAMES[first.meta['score']]}"]
        if "trees" in first.params:
            lines.append(f"Ensemble size: {first.params['trees']}")
    else:
        lines = [f"Ranking method: {first.method}"]
    params = ", ".join(f"{k}: {v}" for k, v in first.params.items())
    lines.append(f"frcli method: {first.method}" + (f" ({params})" if params else ""))
    if dataset_name:
        lines.append(f"Data set: {dataset_name}")
    return lines


def to_fimp(rankings: Sequence[Ranking], dataset_name: str = "") -> str:
    """CLUS's ``.fimp`` layout: header lines, a tab-separated column header, a dashed line,
    then ``index<TAB>name<TAB>[ranks]<TAB>[importances]`` per feature (1-based index).

    Columns as CLUS names and orders them, so CLUS users can diff the files: the overall
    block, then one block per target when the rankings have per-target importances. Relief:
    ``overall<tag>`` / ``<target><tag>`` for every grid combination, ``<tag>`` =
    ``Iter<m>Neigh<k>``, iterations outermost. Ensembles: Genie3 ``overAll``, ``<target>``;
    Symbolic ``w=<weight>``; RF score ``<error measure>:overall``, ``<error measure>:<target>``
    (CLUS writes no per-label RF columns for mlc/hmlc; ours follow the overall one). A grid
    of ensemble rankings appends the varying parameters (``trees2``) to every name.
    """
    tags = _grid_tags(rankings)
    overall, prefix = _column_names(rankings[0])
    cols: list[tuple[str, np.ndarray]] = [(overall + t, r.importances)
                                          for r, t in zip(rankings, tags)]
    with_per = [(r, t) for r, t in zip(rankings, tags) if r.per_target is not None]
    if with_per:
        r0 = with_per[0][0]
        names = r0.target_names or [f"tar{j + 1}" for j in range(len(r0.per_target))]
        for j, name in enumerate(names):
            cols.extend((f"{prefix}{name}{t}", r.per_target[j]) for r, t in with_per)
    first = rankings[0]
    names = [c[0] for c in cols]
    colhead = ("attributeDatasetIndex\tattributeName\t[" + ", ".join(f"{n}Rank" for n in names)
               + "]\t[" + ", ".join(names) + "]")
    lines = _fimp_header(rankings, dataset_name) + [colhead, "-" * len(colhead)]
    ranks = [Ranking("x", first.feature_names, v).ranks() for _, v in cols]
    for i, name in enumerate(first.feature_names):
        rk = ", ".join(str(int(r[i])) for r in ranks)
        vals = ", ".join(_fmt(v[i]) for _, v in cols)
        lines.append(f"{i + 1}\t{name}\t[{rk}]\t[{vals}]")
    return "\n".join(lines) + "\n"


def by_method(rankings: Sequence[Ranking]) -> list[tuple[str, list[Ranking]]]:
    """The rankings grouped by method, in order of first appearance."""
    groups: dict[str, list[Ranking]] = {}
    for r in rankings:
        groups.setdefault(r.method, []).append(r)
    return list(groups.items())


def render(rankings: Sequence[Ranking], fmt: str, *, which: int | None = 0,
           dataset_name: str = "", sort: str = "rank") -> str:
    """Text of ``rankings`` in ``fmt``; table/csv show ranking ``which`` (None = all), rows
    in ``sort`` order (``SORTS``; .fimp always in CLUS's order). Rankings of several methods:
    one .fimp block per method (CLUS writes one file each), and a ``method`` column in the
    CSV."""
    if fmt == "json":
        return to_json(rankings if which is None else [rankings[which]], sort, dataset_name)
    if fmt == "fimp":
        chosen = rankings if which is None else [rankings[which]]
        return "\n".join(to_fimp(g, dataset_name) for _, g in by_method(chosen))
    chosen = rankings if which is None else [rankings[which]]
    if fmt == "csv":
        if len(chosen) == 1:
            return to_csv(chosen[0], sort)
        # a grid as one tidy CSV: the method (if several) and parameters as leading columns
        several = len(by_method(chosen)) > 1
        keys = list(dict.fromkeys(k for r in chosen for k in r.params))
        lines = [",".join((["method"] if several else []) + keys
                          + ["feature", "importance", "rank"])]
        for r in chosen:
            pv = ([r.method] if several else []) + [str(r.params.get(k, "")) for k in keys]
            lines.extend(_csv_rows(r, sort, pv))
        return "\n".join(lines) + "\n"
    return "\n".join(to_table(r, sort=sort) for r in chosen)
