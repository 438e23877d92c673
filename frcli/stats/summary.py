"""The experiment summary: what ``frcli experiment`` prints when a run ends, read from the
result store (the average ranks ``frcli stats DIR`` reports, and the main measures)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from frcli import display as fmt
from frcli.results.tidy import read_store
from frcli.stats.table import MAIN, lower_is_better, select_tables
from frcli.stats.tests import average_ranks


def summary_table(directory: str | Path, max_rows: int = 30, max_datasets: int = 4):
    """Per ranking: its average rank over the data sets (each ranked by its task's main
    measure, mean over splits and labeled sizes, unrounded; 1 = best), i.e. what
    ``frcli stats DIR`` reports, and the mean main measure per data set (a few sets) or per
    measure (many sets). A rich Table."""
    from rich.table import Table

    table = Table(title=f"summary ({directory})")
    df = read_store(directory)
    if df.empty:
        return table
    dropped: list[str] = []
    t, = select_tables(df, [MAIN], round_spec="none", require_comparison=False,
                       warn=dropped.append)
    avg = average_ranks(t.values, t.lower_is_better)
    order = list(np.argsort(avg, kind="stable"))
    table.add_column("method", overflow="fold")
    table.add_column("avg rank", justify="right")
    cols: list[tuple[str, np.ndarray]] = []
    if len(t.datasets) <= max_datasets:
        for d, m, row in zip(t.datasets, t.measures, t.raw):
            cols.append((f"{d}\n{m} {'↓' if lower_is_better(m) else '↑'}", row))
    else:
        for m in dict.fromkeys(t.measures):
            rows = [i for i, x in enumerate(t.measures) if x == m]
            sets = f"{len(rows)} set{'s' if len(rows) != 1 else ''}"
            cols.append((f"{m} {'↓' if lower_is_better(m) else '↑'}\nmean of {sets}",
                         t.raw[rows].mean(axis=0)))
    for title, _ in cols:
        table.add_column(title, justify="right", overflow="fold")
    for i in order[:max_rows]:
        table.add_row(t.methods[i], fmt.rank(avg[i]), *[fmt.value(c[i]) for _, c in cols])
    notes = []
    if len(order) > max_rows:
        notes.append(f"{len(order) - max_rows} more rankings: frcli stats {directory}")
    notes += dropped
    if notes:
        table.caption = "; ".join(notes)
    return table
