"""Tables and tests the study renderers share: per-data-set means of a result store as a
(data sets × rankings) table, rounded as the papers round before ranking (spec-core §7), and
thin wrappers over ``frcli.stats.tests`` (Friedman/Iman–Davenport, Nemenyi, Wilcoxon,
Benjamini–Hochberg, Holm) and its CD diagrams."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "figures"


def round_fn(policy: str) -> Callable[[float], float]:
    """'3' = 3 decimals (MTR, MLC papers), '3sig' = 3 significant digits (HMLC paper)."""
    from frcli.stats.table import parse_round

    return parse_round(policy)[1]


def wide(view, measure: str, label: Callable[[str, str], str | None], *,
         rounding: str = "3", datasets: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean of ``measure`` over splits per data set and ranking, rounded; rows in config order
    (or ``datasets``), columns in first-seen order. ``label(method, params)`` names a column;
    None drops the run."""
    f = view.frame
    f = f[f["measure"] == measure]
    f = f.assign(label=[label(m, p) for m, p in zip(f["method"], f["params"])])
    f = f[f["label"].notna()]
    means = f.groupby(["dataset", "label"], sort=False)["value"].mean().unstack("label")
    order = list(dict.fromkeys(f["label"]))
    rows = list(datasets) if datasets is not None else \
        [d.name for d in view.config.datasets if d.name in means.index]
    r = round_fn(rounding)
    return means.loc[rows, order].map(r)


def lower_is_better(measure: str) -> bool:
    from frcli.evaluate.measures import MEASURES

    return MEASURES[measure].direction == "lower"


@dataclass
class Ranked:
    """Average ranks, the Friedman/Iman–Davenport test and the Nemenyi CD of a table (no
    pairwise p-values: scipy's studentised range is slow for many methods)."""

    methods: list[str]
    datasets: list[str]
    avg_ranks: np.ndarray
    f_p: float
    nemenyi_cd: float
    alpha: float = 0.05

    @property
    def rejects(self) -> bool:
        return self.f_p <= self.alpha

    def differ(self, a: str, b: str) -> bool:
        """Nemenyi: do a and b differ (Friedman rejects and |R_a - R_b| > CD)?"""
        i, j = self.methods.index(a), self.methods.index(b)
        return self.rejects and abs(self.avg_ranks[i] - self.avg_ranks[j]) > self.nemenyi_cd

    @property
    def groups(self):
        from frcli.stats.tests import nonsignificant_groups

        return nonsignificant_groups(self.avg_ranks, self.nemenyi_cd if self.rejects else None)


def compare(df: pd.DataFrame, cols: Sequence[str], lower: bool, alpha: float = 0.05) -> Ranked:
    """Ranks and tests over the rows (rows with a missing value dropped), spec-core §7."""
    from frcli.stats.tests import average_ranks, friedman, nemenyi_cd

    sub = df[list(cols)].dropna()
    r = average_ranks(sub.to_numpy(float), lower)
    fr = friedman(r, len(sub))
    return Ranked(list(cols), list(sub.index), r, float(fr.f_p),
                  nemenyi_cd(len(cols), len(sub), alpha), alpha)


def wilcoxon(df: pd.DataFrame, a: str, b: str, lower: bool):
    """Two-sided Wilcoxon of column a against b over the rows (scipy, zero_method 'wilcox')."""
    from frcli.stats.tests import wilcoxon_pair

    sub = df[[a, b]].dropna()
    return wilcoxon_pair(sub[a].to_numpy(float), sub[b].to_numpy(float), lower)


def correct(p: Sequence[float], method: str = "bh", alpha: float = 0.05):
    """(reject, thresholds) of Benjamini–Hochberg ('bh') or Holm ('holm')."""
    from frcli.stats.tests import adjust

    rej, thr, _ = adjust(list(p), alpha, method)
    return rej, thr


def friedman_p(df: pd.DataFrame, cols: Sequence[str], lower: bool) -> float:
    """Iman–Davenport p over the rows (spec-core §7)."""
    return compare(df, cols, lower).f_p


def avg_ranks(df: pd.DataFrame, cols: Sequence[str], lower: bool) -> dict[str, float]:
    c = compare(df, cols, lower)
    return {m: float(r) for m, r in zip(c.methods, c.avg_ranks)}


def cd_png(name: str, comparison, title: str) -> str:
    """Write docs/figures/<name>.png (a CD diagram of the comparison); return its doc link."""
    from frcli.stats.cd_diagram import cd_diagram

    c = comparison
    fig = cd_diagram(c.methods, c.avg_ranks, cd=c.nemenyi_cd if c.rejects else None,
                     groups=c.groups, friedman_p=c.f_p, title=title)
    return save_png(fig, name)


def save_png(fig, name: str, dpi: int = 110) -> str:
    """Write docs/figures/<name>.png (no software stamp: the file depends only on the
    figure); return its doc link."""
    FIGURES.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURES / f"{name}.png", dpi=dpi, bbox_inches="tight",
                metadata={"Software": None})
    return f"figures/{name}.png"


def conclusions(P, n_sets: int, rows) -> list[str]:
    """The "paper's conclusions beside ours" block of a section: one row per conclusion
    (question, the paper's answer, ours, the verdict of reproduce/verdict.py), over the
    paper's and our numbers of data sets. A row without one of the rule's verdicts is an
    error: every conclusion is judged by the one rule."""
    from reproduce import md
    from reproduce.verdict import VERDICTS

    bad = [r[0] for r in rows if len(r) != 4 or r[3] not in VERDICTS]
    if bad:
        raise ValueError(f"conclusions without a verdict of the rule: {bad}")
    head = ["question", f"paper ({P.fact('n_sets').value} sets)", f"ours ({n_sets} sets)",
            "verdict"]
    return ["### The paper's conclusions beside ours", "",
            md.table(head, rows, "l" * len(head)), ""]


def params(p: str) -> dict:
    return json.loads(p) if isinstance(p, str) else dict(p)


def share_positive(imp: np.ndarray) -> float:
    """Share of features with a positive importance (HMLC paper Table 3)."""
    imp = np.asarray(imp, dtype=float)
    return float(np.mean(np.nan_to_num(imp, nan=0.0) > 0))
