"""Error types that decide the exit code: a ``UserError`` is the user's to fix (exit 2)."""
from __future__ import annotations

import contextlib


class UserError(Exception):
    """Bad input: a missing file, a malformed row, an unknown name or value.

    The CLI prints ``str(error)`` as one line and exits with code 2; anything else is an
    internal error (exit 1). Messages name the file, line, key or value and, where there is a
    closed set of choices, the allowed ones.
    """

    exit_code = 2


class Notice(UserWarning):
    """What was done to the user's data on their behalf (not a problem with it), e.g. an
    identifier column left out: the CLI shows it as a ``note:`` line."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``) as an exception, raised while a worker pool runs
    (``sigterm_raises``), so that it unwinds like Ctrl-C: the pool is torn down, the store
    closed, and the command exits 143 with one line instead of dying with the resource
    tracker's "leaked semaphore" warnings. ``received``: a SIGTERM came."""

    received = False


@contextlib.contextmanager
def sigterm_raises():
    """SIGTERM raises ``Terminated`` in the main thread within this block. Only around
    waiting on worker processes: Python runs signal handlers between bytecodes, so a main
    thread inside a long Cython kernel would not end until the kernel returns (elsewhere
    SIGTERM keeps its default: end at once). No-op outside the main thread."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        Terminated.received = True
        raise Terminated()

    before = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


class DataError(UserError):
    """A data file that cannot be read as asked (format, targets, values)."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class ConfigError(UserError):
    """An invalid parameter, option or configuration key."""


def choices_error(what: str, value: object, allowed) -> ConfigError:
    """The standard message for a value outside a closed set (with the close ones first)."""
    allowed = [str(a) for a in allowed]
    hint = did_you_mean(str(value), allowed)
    return ConfigError(f"unknown {what} {value!r}{hint}; allowed: {', '.join(allowed)}")


def did_you_mean(value: str, choices, n: int = 2) -> str:
    """``" (did you mean 'genie3-rf'?)"`` for a misspelled ``value``, else ``""``: close
    matches ignoring case and the separators people drop or swap (``genie3rf``,
    ``Relief_F``)."""
    import difflib

    def norm(s: str) -> str:
        return "".join(ch for ch in str(s).lower() if ch.isalnum())

    choices = [str(c) for c in choices]
    key = norm(value)
    exact = [c for c in choices if norm(c) == key and c != value]
    if exact:
        close = exact[:n]
    else:
        by_norm: dict[str, str] = {}
        for c in choices:
            by_norm.setdefault(norm(c), c)
        close = [by_norm[m] for m in difflib.get_close_matches(key, list(by_norm), n=n,
                                                               cutoff=0.75)]
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


# -- how a message names an option -------------------------------------------------------------
# The same loaders serve the command line, the Python API and the YAML configs, so a message
# that points at an option must spell it the way the user wrote it there: ``--targets last:1``
# on the command line, ``targets='last:1'`` in Python (the default), ``targets: last:1`` in a
# config. The face sets the style for the duration of a call (``option_style``). The
# scikit-learn estimator (``estimator``) spells its keywords as Python does, but its data are
# arrays, not files: a loader's advice about a column differs there (``message_style``).
_STYLE = ["python"]


def message_style() -> str:
    """The face whose messages are being made: cli, python, config or estimator."""
    return _STYLE[-1]


class option_style:
    """``with option_style("cli"):`` — messages made inside name options as CLI flags."""

    def __init__(self, style: str):
        if style not in ("cli", "python", "config", "estimator"):
            raise ValueError(style)
        self.style = style

    def __enter__(self):
        _STYLE.append(self.style)
        return self

    def __exit__(self, *exc) -> None:
        _STYLE.pop()


def option(name: str, example: object = None) -> str:
    """Option ``name`` (a Python keyword such as ``semi_supervised``) with an optional example
    value, as the user writes it where they are: ``--semi-supervised``, ``--targets last:1``;
    ``semi_supervised=True``, ``targets='last:1'``; ``semi_supervised: true``."""
    style = _STYLE[-1]
    if style == "cli":
        flag = "--" + name.replace("_", "-")
        if example is None or example is True:
            return flag
        import shlex                  # a value as typed in a shell: --keep 'Unnamed: 0'

        return f"{flag} {shlex.quote(str(example))}"
    if style == "config":
        value = "true" if example is None or example is True else example
        return f"{name}: {value}"
    value = True if example is None else example
    return f"{name}={value!r}"


def option_name(name: str) -> str:
    """Option ``name`` alone, as the user writes it where they are: ``--keep`` or ``keep``."""
    return "--" + name.replace("_", "-") if _STYLE[-1] == "cli" else name
