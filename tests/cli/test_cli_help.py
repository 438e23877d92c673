"""``--help`` wraps and never truncates, at any terminal width, for every command.

Every command's help is rendered at 80 and 120 columns (and at 60, narrower than any
option's name and type), and each option's and argument's help text must be there in full:
no ellipsis, and the text (spaces and the panel borders aside) appears whole. typer cut a
word longer than its column with "…" (``{symbolic|genie3|rf}-{rf…``); ``frcli.cli`` makes
such a word fold onto the next line.
"""
from __future__ import annotations

import re

import pytest
import typer

from frcli.cli import app, main

BORDERS = re.compile(r"[\s│╭╮╰╯─┃━┏┓┗┛]+")


def commands(group, path=()):
    """(argv path, click command) of every command and sub-command."""
    yield path, group
    for name, sub in getattr(group, "commands", {}).items():
        yield from commands(sub, path + (name,))


COMMANDS = list(commands(typer.main.get_command(app)))


def flat(text: str) -> str:
    return BORDERS.sub("", text)


def panels(out: str) -> list[list[str]]:
    """The lines inside each ╭─ ... ─╯ panel, borders cut off."""
    found, cur = [], None
    for line in out.splitlines():
        if line.startswith("╭"):
            cur = []
        elif line.startswith("╰"):
            found.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line[1:-1])
    return found


def help_column(lines: list[str], params) -> str:
    """The text of a panel's last column (the help), top to bottom: where an option's name
    or type wraps too, its lines hold several columns side by side."""
    starts = []
    for p in params:
        words = (p.help or "").split()
        name = p.opts[0] if p.param_type_name == "option" else (p.metavar or p.name.upper())
        name = name[:8].lower()
        for line in lines:
            at = line.lower().find(name)
            if words and at >= 0 and line.find(words[0], at + len(name)) > 0:
                starts.append(line.find(words[0], at + len(name)))
                break
    if not starts:
        return ""
    x = max(set(starts), key=starts.count)
    return "".join(line[x:] for line in lines)


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[" ".join(p) or "frcli"
                                                     for p, _ in COMMANDS])
def test_help_wraps_and_keeps_every_word(path, cmd, width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.delenv("TERMINAL_WIDTH", raising=False)
    assert main([*path, "--help"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= width
    documented = [p for p in cmd.params if p.help]
    shown = "".join(flat(help_column(lines, documented)) for lines in panels(out))
    for param in documented:
        assert flat(param.help) in shown, (param.name, param.help)
    if getattr(cmd, "commands", None):                  # a group lists its commands' summaries
        for sub in cmd.commands.values():
            first = (sub.help or "").strip().split("\n\n")[0]
            assert flat(first) in flat(out), (sub.name, first)
