"""The sentence every section that compares RF-score numbers with a paper states: which
definition of the score it ran, and where the other one is measured."""
from __future__ import annotations


def rf_note(task: str) -> str:
    """``task``: the section's task(s) in words ("multi-label", "unsupervised", ...)."""
    return (f"*RF score*: the papers' definition (`rf_variant=thesis`: each feature's "
            f"permutation alone, relative error; spec-core §4.3). The papers computed their "
            f"numbers with CLUS, whose RF score lets a tree's permutations accumulate "
            f"(`rf_variant=clus`); frcli implements that variant for supervised numeric "
            f"targets only, so it cannot run on these {task} sets. Where both run, on the MTR "
            f"sets, the MTR analyses section scores the same forests both ways (\"The RF "
            f"score's definition\").")


def with_rf_note(task: str, lines: list[str]) -> str:
    """A section's lines joined, the RF-score note last."""
    return "\n".join([*lines, "", rf_note(task)])
