"""The verdict rule, stated once at the top of docs/reproduction.md (generated from
reproduce/verdict.py, which every section's verdicts go through)."""
from __future__ import annotations

from reproduce.framework import Study
from reproduce.verdict import rule_text


def render(stores) -> str:
    return rule_text()


STUDY = Study(name="verdict-rule", title="How claims are judged: the one verdict rule",
              configs=(), render=render, order=1, quick=True)
