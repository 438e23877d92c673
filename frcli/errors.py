"""Error types that decide the exit code: a ``UserError`` is the user's to fix (exit 2)."""
from __future__ import annotations


class UserError(Exception):
    """Bad input: a missing file, a malformed row, an unknown name or value.

    The CLI prints ``str(error)`` as one line and exits with code 2; anything else is an
    internal error (exit 1). Messages name the file, line, key or value and, where there is a
    closed set of choices, the allowed ones.
    """

    exit_code = 2


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
    """The standard message for a value outside a closed set."""
    allowed = ", ".join(str(a) for a in allowed)
    return ConfigError(f"unknown {what} {value!r}; allowed: {allowed}")
