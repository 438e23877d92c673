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


def kernel_progress(enabled: bool | None):
    """Context manager: while it is open, a bar on stderr shows the kernels' counters
    (``frcli.rankers.progress``: trees grown, Relief instances done). ``None`` = only on a
    terminal and only after half a second (quick runs stay clean); the bar goes away at the
    end, leaving the output alone."""
    import contextlib
    import sys
    import threading

    @contextlib.contextmanager
    def run():
        if enabled is False or (enabled is None and not sys.stderr.isatty()):
            yield
            return
        from frcli.rankers.progress import Counter, tracking

        counter = Counter()
        stop = threading.Event()
        delay = 0.5 if enabled is None else 0.0

        def poll() -> None:
            if stop.wait(delay):
                return
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                          console=Console(stderr=True), transient=True) as bar:
                tid = bar.add_task("ranking", total=None)   # until a kernel announces its work
                while True:
                    stopped = stop.wait(0.1)
                    if counter.expected:
                        bar.update(tid, completed=counter.done, total=counter.expected,
                                   description=counter.unit)
                    if stopped:
                        bar.refresh()
                        break

        th = threading.Thread(target=poll, name="frcli-progress", daemon=True)
        th.start()
        try:
            with tracking(counter):
                yield
        finally:
            stop.set()
            th.join()

    return run()
