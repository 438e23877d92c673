"""The sub-commands of ``frcli`` (one module each) and what their output shares."""
from __future__ import annotations


def console(stderr: bool = False):
    """A rich console that never cuts a line: as wide as the terminal, or wide enough for any
    table when the output goes to a file or a pipe (rich would assume 80 columns)."""
    import sys

    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(highlight=False, soft_wrap=False, stderr=stderr,
                   width=None if stream.isatty() else 400)
