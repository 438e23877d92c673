"""No source file or hand-written document cites a tracker issue by number.

A clone without the tracker must still explain itself: a comment, docstring, help text, study
title or design note says the reason (or points to a file of the repository), never "see the
issue". Generated documents are left out because their text comes from sources scanned here:
docs/reproduction.md from reproduce/ and docs/benchmarks.md from bench/. The papers' own
words (reproduce/papers/) are quotes and the stores (reproduce/stores/) are data.
"""
from __future__ import annotations

import re

from tests.conftest import REPO

ROOTS = ("frcli", "ext", "bench", "reproduce", "configs", "docs", "tests", "datasets", ".ci")
TOP = ("README.md", "Makefile", "pyproject.toml", "setup.py")
SUFFIXES = {".py", ".pyx", ".pxd", ".md", ".yaml", ".yml", ".toml", ".cfg", ".txt", ".sh"}
SKIP = ("reproduce/papers/", "reproduce/stores/", "docs/reproduction.md", "docs/benchmarks.md")
ALLOWED: dict[str, str] = {     # path -> why it must cite an issue number
    "tests/docs/test_no_issue_numbers.py": "its examples of what the pattern finds",
}

# "issue 9", "Issue #12", "issues 12", "issue-14"; not "an issue" or "the issue's"
CITATION = re.compile(r"\bissues?[\s-]*#?\s*\d", re.IGNORECASE)


def _scanned():
    for name in TOP:
        if (REPO / name).is_file():
            yield REPO / name
    for root in ROOTS:
        for p in sorted((REPO / root).rglob("*")):
            rel = p.relative_to(REPO).as_posix()
            if (not p.is_file() or "__pycache__" in rel or rel.startswith(SKIP)
                    or not (p.suffix in SUFFIXES or root == ".ci")):
                continue
            yield p


def test_no_file_cites_an_issue_number():
    found = []
    for p in _scanned():
        rel = p.relative_to(REPO).as_posix()
        if rel in ALLOWED:
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        for i, line in enumerate(text.splitlines(), 1):
            if CITATION.search(line):
                found.append(f"{rel}:{i}: {line.strip()[:100]}")
    assert not found, ("say the reason, or point to a file of the repository, instead of an "
                       "issue number:\n" + "\n".join(found))


def test_the_pattern_finds_citations_and_only_them():
    hits = ["(issue 9)", "Issue #12", "issues 12 and 14", "issue-14", "issue 12 §2"]
    misses = ["the issue's criterion", "an issue", "issues with 2 rows", "tissue 9"]
    assert all(CITATION.search(s) for s in hits)
    assert not any(CITATION.search(s) for s in misses)
