"""The commands shown in the docs exist as written.

README.md's blocks run verbatim (tests/docs/test_readme.py). The other documents' blocks read
result stores of full studies or a paper's table, so they cannot run in the suite; instead
every command line in them is checked against the real interfaces, so a renamed option,
subcommand, method, make target or study cannot leave a doc behind:

* ``frcli …``: the subcommand path exists and the arguments parse with the command's own
  parser (unknown options and missing option values fail); ``--method`` names are
  registered methods; ``configs/…`` files exist;
* ``make T``: the Makefile has target T (``make -n``);
* ``python -m reproduce …``: the named studies and options exist.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

try:                 # the click typer uses: its own copy (typer >= 0.20) or click itself
    from typer._click import exceptions as click
except ImportError:
    from click import exceptions as click

from frcli.cli import app
from frcli.rankers.registry import method_names
from tests.conftest import need_program

REPO = Path(__file__).resolve().parents[2]
DOCS = sorted(REPO.glob("docs/*.md")) + [REPO / "reproduce" / "README.md",
                                         REPO / "datasets" / "README.md"]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def doc_commands() -> list[tuple[str, list[str]]]:
    """("file:line", argv) of every command line in the docs' shell-like blocks."""
    out = []
    for doc in DOCS:
        if not doc.exists():
            continue
        text = doc.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1).strip().lower() not in ("", "bash", "sh", "shell", "console"):
                continue
            line_no = text.count("\n", 0, m.start(2)) + 1
            pending, start = "", line_no
            for line_no, line in enumerate(m.group(2).splitlines(), start=line_no):
                line = line.strip().removeprefix("$ ")
                if not pending:
                    start = line_no
                if line.endswith("\\"):                       # a continuation line
                    pending += line[:-1] + " "
                    continue
                line, pending = pending + line, ""
                if not line or line.startswith("#"):
                    continue
                argv = shlex.split(line, comments=True)
                if (argv and argv[0] in ("frcli", "make")
                        or argv[:3] == ["python", "-m", "reproduce"]):
                    out.append((f"{doc.relative_to(REPO)}:{start}", argv))
    return out


COMMANDS = doc_commands()


def test_the_docs_show_commands():
    assert sum(argv[0] == "frcli" for _, argv in COMMANDS) >= 5


def _check_frcli(argv: list[str]) -> None:
    cmd = typer.main.get_command(app)
    args = argv[1:]
    path = ["frcli"]
    while hasattr(cmd, "commands"):                         # a group
        assert args and args[0] in cmd.commands, f"no subcommand {' '.join(path + args[:1])}"
        path.append(args[0])
        cmd, args = cmd.commands[args[0]], args[1:]
    ctx = cmd.make_context(" ".join(path), [], resilient_parsing=True)  # no required args
    ctx.resilient_parsing = False                                     # but a strict parser
    opts, _, _ = cmd.make_parser(ctx).parse_args(list(args))   # unknown options raise
    missing = [a for a in args if a.startswith("configs/") and not (REPO / a).exists()]
    assert not missing, f"no such config {missing}"
    known = set(method_names())
    for i, a in enumerate(args[:-1]):
        if a in ("--method", "-m"):
            for name in args[i + 1].split(","):
                assert name.strip().lower() in known, f"unknown method {name!r}"


@pytest.mark.parametrize("argv,error", [
    ("frcli nosuchcmd x", AssertionError),
    ("frcli stats results/ --nosuch", click.NoSuchOption),
    ("frcli rank data.arff --method genie3-rf,nosuch", AssertionError),
    ("frcli rank data.arff --seed", click.BadOptionUsage),
    ("frcli experiment configs/nosuch.yaml", AssertionError),
])
def test_the_check_catches_a_wrong_command(argv, error):
    with pytest.raises(error):
        _check_frcli(shlex.split(argv))


@pytest.mark.parametrize("where,argv", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_doc_command_exists(where, argv):
    try:
        if argv[0] == "frcli":
            _check_frcli(argv)
        elif argv[0] == "make":
            need_program("make")
            targets = [a for a in argv[1:] if not a.startswith("-") and "=" not in a]
            res = subprocess.run(["make", "-n", "-C", str(REPO), *targets],
                                 capture_output=True, text=True)
            assert res.returncode == 0, res.stderr.strip()
        else:
            from reproduce.framework import studies
            helptext = subprocess.run([sys.executable, "-m", "reproduce", "--help"], cwd=REPO,
                                      capture_output=True, text=True, check=True).stdout
            # argparse's usage: "--jobs JOBS" takes a value, "--check" does not
            takes = dict(re.findall(r"(--[\w-]+)( [A-Z_]+)?", helptext))
            args = iter(argv[3:])
            for a in args:
                if a.startswith("-"):
                    assert a.split("=")[0] in takes, f"no option {a}"
                    if takes[a.split("=")[0]] and "=" not in a:
                        next(args, None)
                elif not a.isupper():                     # STUDY is a placeholder
                    assert a in list(studies()), f"unknown study {a!r}"
    except (click.UsageError, AssertionError) as e:
        pytest.fail(f"{where}: `{' '.join(argv)}` does not match the program: {e}")
