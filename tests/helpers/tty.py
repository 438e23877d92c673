"""Running a command with its stderr on a pseudo-terminal: progress bars draw only there."""
from __future__ import annotations

import os
import pty
import subprocess


def run_on_pty(cmd: list[str], env: dict[str, str], timeout: float = 120) -> tuple[int, str]:
    """(exit code, everything written to stderr) of ``cmd`` with stderr on a pty and stdout
    discarded; reads until the child closes the terminal, so nothing is lost."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:          # the child closed its side
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=timeout)
    os.close(master)
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace")
