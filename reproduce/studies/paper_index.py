"""The coverage index at the end of docs/reproduction.md: every table and figure of the four
source texts, each linked to its section or with the reason why there is none (declared in
reproduce/papers/index/, rendered by reproduce/paper_index.py)."""
from __future__ import annotations

from reproduce.framework import DOC, Study, studies
from reproduce.paper_index import render_index


def render(stores) -> str:
    names = [s.name for s in studies().values() if not s.draft]
    return render_index(DOC.read_text(encoding="utf-8"), names)


STUDY = Study(name="paper-index", title="Coverage index: the four texts' tables and figures "
              "and their sections", configs=(), render=render, order=999, quick=True)
