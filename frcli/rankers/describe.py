"""``frcli rank --list-methods``: every method, its tasks and parameters, in plain words.

The parameters' help texts name the papers they follow by the short names the code and the
reproductions use (P-UNS, P-ML, P-DS, "the thesis"). A reader does not know those: here
each becomes the task the paper is about in plain words, with a numbered footnote citing it
(``the unsupervised-ranking paper [4]``). Parameter values stay as they are typed
(``rf_variant=thesis``). Lines wrap at the terminal's width.
"""
from __future__ import annotations

import re
import shutil
import textwrap

# short name -> (plain words, citation); footnotes are numbered in order of first use
PAPERS: dict[str, tuple[str, str]] = {
    "MTR": ("the multi-target regression paper",
            "Petković, Kocev, Džeroski: Feature ranking for multi-target regression. Machine "
            "Learning, 2020."),
    "P-DS": ("the semi-supervised classification paper",
             "Petković, Džeroski, Kocev: Ensemble-based feature ranking for semi-supervised "
             "classification. Discovery Science (LNCS 11828), 2019."),
    "P-ML": ("the semi-supervised ranking paper",
             "Petković, Džeroski, Kocev: Feature ranking for semi-supervised learning. Machine "
             "Learning, 2022."),
    "P-UNS": ("the unsupervised-ranking paper",
              "Petković, Kocev, Džeroski: Ensemble- and distance-based feature ranking for "
              "unsupervised learning (the thesis, Ch. 7)."),
    "thesis": ("the thesis",
               "M. Petković: doctoral thesis on feature ranking for structured output "
               "prediction, semi-supervised and unsupervised learning (it collects these "
               "papers)."),
}
# where a help text names a paper: P-UNS, P-ML's, the MTR paper, (thesis), the thesis, thesis Ch.
_CITE = re.compile(r"\bP-(?P<p>UNS|ML|DS)(?P<s>'s)?\b"
                   r"|\bthe (?P<mtr>MTR) paper\b"
                   r"|(?<![='\w])(?:the )?(?P<t>thesis)(?=\)| Ch\.)")

TASK_WORDS = ("classification, regression, mtr (multi-target regression), mlc (multi-label "
              "classification), hmlc (hierarchical multi-label classification), unsupervised")


class Citations:
    """Replaces short paper names with plain words and collects the numbered footnotes."""

    def __init__(self):
        self.used: list[str] = []

    def number(self, key: str) -> int:
        if key not in self.used:
            self.used.append(key)
        return self.used.index(key) + 1

    def plain(self, text: str) -> str:
        def sub(m: re.Match) -> str:
            if m.group("p"):
                key = f"P-{m.group('p')}"
            elif m.group("mtr"):
                key = "MTR"
            else:
                key = "thesis"
            words = PAPERS[key][0]
            if m.group("s"):
                words += "'s"
            return f"{words} [{self.number(key)}]"
        return _CITE.sub(sub, text)

    def footnotes(self) -> list[str]:
        return [f"[{i}] {PAPERS[k][1]}" for i, k in enumerate(self.used, start=1)]


def describe_methods(width: int | None = None) -> str:
    """Every registered method with its tasks, then one line per parameter (default, help);
    methods sharing a class and parameters (genie3-rf, genie3-et, ...) share one block.
    Paper names are plain words with footnotes; lines wrap at ``width`` (default: the
    terminal's)."""
    from frcli.rankers import registry

    width = width or shutil.get_terminal_size((88, 24)).columns
    width = max(width, 40)
    cite = Citations()
    lines: list[str] = []

    def say(text: str, indent: str = "", more: str = "      ") -> None:
        lines.extend(textwrap.wrap(cite.plain(text), width, initial_indent=indent,
                                   subsequent_indent=indent + more, break_on_hyphens=False,
                                   break_long_words=True) or [indent])

    say("Ranking methods and their parameters. Give parameters with --param key=value (a "
        "comma list is a grid), e.g. -p trees=100 -p neighbours=5,10.", more="")
    say(f"Tasks: {TASK_WORDS}.", more="")
    lines.append("")
    blocks: dict[tuple, list[str]] = {}
    for name in registry.method_names():
        try:
            ranker = registry.get_ranker(name)
        except ImportError:
            blocks.setdefault(("missing", name), []).append(name)
            continue
        key = (type(ranker), tuple(ranker.params), tuple(ranker.tasks))
        blocks.setdefault(key, []).append(name)
    for key, names in blocks.items():
        if key[0] == "missing":
            lines.append(f"{names[0]}: (engine not built)")
            continue
        ranker = registry.get_ranker(names[0])
        lines.extend(textwrap.wrap(", ".join(names), width, break_on_hyphens=False))
        if getattr(ranker, "relational", False):
            say("tasks: relational classification (a folder with a settings file *.s or a "
                "schema.yaml; there symbolic|genie3-bagging and -rf take these parameters "
                "too)", "  ")
        else:
            say(f"tasks: {', '.join(ranker.tasks) or 'all'}", "  ")
        if not ranker.params:
            lines.append("  no parameters")
        for prm in ranker.params:
            say(f"{prm.name}={prm.default}" + (f"  {prm.help}" if prm.help else ""), "  ")
        for extra in ranker.task_defaults():
            stripped = extra.lstrip(" ")
            say(stripped, "  " + " " * (len(extra) - len(stripped)))
    if cite.used:
        lines.append("")
        for note in cite.footnotes():
            lines.extend(textwrap.wrap(note, width, subsequent_indent="    "))
    return "\n".join(lines)
