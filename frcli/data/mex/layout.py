"""The Mars Express Power Challenge's file layout: folders, file names and columns.

The challenge (ESA Kelvins, 2016) ships one folder ``train_set/`` with three Martian years and
``test_set/`` with the fourth (context only). Each Martian year (687 days) is one *period*,
named by its first and last Earth date, with one power file and five context files::

    train_set/power--2008-08-22_2010-07-10.csv
    train_set/context--2008-08-22_2010-07-10--saaf.csv   (also dmop, ftl, evtf, ltdata)

The challenge page writes the dates joined by ``__`` while the files its participants
published scripts for use ``_``; both are accepted. ``docs/mex.md`` lists the sources. Other
files in the folders (the sample submission, notes) are left alone.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from frcli.errors import DataError

SOURCES = ("saaf", "dmop", "ftl", "evtf", "ltdata")
COLUMNS: dict[str, tuple[str, ...]] = {
    "saaf": ("ut_ms", "sa", "sx", "sy", "sz"),
    "dmop": ("ut_ms", "subsystem"),
    "ftl": ("utb_ms", "ute_ms", "type", "flagcomms"),
    "evtf": ("ut_ms", "description"),
    "ltdata": ("ut_ms", "sunmars_km", "earthmars_km", "sunmarsearthangle_deg",
               "solarconstantmars", "eclipseduration_min", "occultationduration_min"),
}
TIME = "ut_ms"
MARTIAN_YEAR_DAYS = 687
CHALLENGE_START = dt.date(2008, 8, 22)
FOLDERS = ("train_set", "test_set")
MS_PER_MIN = 60_000

_DATE = r"(\d{4}-\d{2}-\d{2})"
POWER_RE = re.compile(rf"^power--{_DATE}_{{1,2}}{_DATE}\.csv$")
CONTEXT_RE = re.compile(rf"^context--{_DATE}_{{1,2}}{_DATE}--([A-Za-z]+)\.csv$")


def power_name(start: dt.date, end: dt.date) -> str:
    return f"power--{start.isoformat()}_{end.isoformat()}.csv"


def context_name(start: dt.date, end: dt.date, source: str) -> str:
    return f"context--{start.isoformat()}_{end.isoformat()}--{source}.csv"


def date_ms(d: dt.date) -> int:
    """Midnight UTC of ``d`` in Unix milliseconds (the files' time unit)."""
    return int(dt.datetime(d.year, d.month, d.day, tzinfo=dt.timezone.utc).timestamp() * 1000)


def ms_text(ms: int) -> str:
    """``2008-08-22 00:15`` (UTC) for messages."""
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc).strftime("%Y-%m-%d %H:%M")


@dataclass
class Period:
    """One Martian year's files: its five context files and (train years) its power file."""

    start: dt.date
    end: dt.date
    folder: str
    context: dict[str, Path] = field(default_factory=dict)
    power: Path | None = None

    @property
    def label(self) -> str:
        return f"{self.start.isoformat()}_{self.end.isoformat()}"


def _date(text: str, path: Path) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise DataError(f"bad date {text!r} in the file name", str(path)) from None


def discover(raw: str | Path) -> list[Period]:
    """The periods under ``raw`` (its ``train_set/`` and ``test_set/``, or the folder itself),
    in time order. Every period needs its five context files; power files are optional (the
    challenge's test year has none)."""
    root = Path(raw)
    if not root.is_dir():
        raise DataError("no such folder (expected the challenge's train_set/ and test_set/)",
                        str(root))
    folders = [root / f for f in FOLDERS if (root / f).is_dir()] or [root]
    periods: dict[tuple[dt.date, dt.date], Period] = {}
    for folder in folders:
        for path in sorted(folder.iterdir()):
            if not path.is_file():
                continue
            m = POWER_RE.match(path.name)
            kind = "power"
            if m is None:
                m = CONTEXT_RE.match(path.name)
                if m is None:
                    continue
                kind = m.group(3).lower()
                if kind not in SOURCES:
                    raise DataError(f"unknown context type {m.group(3)!r} (allowed: "
                                    f"{', '.join(SOURCES)})", str(path))
            start, end = _date(m.group(1), path), _date(m.group(2), path)
            if end <= start:
                raise DataError("the period's end date is not after its start", str(path))
            p = periods.setdefault((start, end), Period(start, end, folder.name))
            if p.folder != folder.name:
                raise DataError(f"period {p.label} has files in both {p.folder}/ and "
                                f"{folder.name}/", str(path))
            if kind == "power":
                if p.power is not None:
                    raise DataError(f"two power files for period {p.label}", str(path))
                p.power = path
            else:
                if kind in p.context:
                    raise DataError(f"two {kind} files for period {p.label}", str(path))
                p.context[kind] = path
    if not periods:
        raise DataError("no challenge files (power--START_END.csv, "
                        "context--START_END--TYPE.csv) found", str(root))
    out = [periods[k] for k in sorted(periods)]
    for a, b in zip(out, out[1:]):
        if b.start < a.end:
            raise DataError(f"periods {a.label} and {b.label} overlap", str(root))
    for p in out:
        missing = [s for s in SOURCES if s not in p.context]
        if missing:
            where = root / p.folder if p.folder in FOLDERS else root
            raise DataError(f"period {p.label} lacks its {', '.join(missing)} context file(s) "
                            f"({context_name(p.start, p.end, missing[0])})", str(where))
    if not any(p.power is not None for p in out):
        raise DataError("no power file (power--START_END.csv): the targets are missing",
                        str(root))
    return out


def mission_periods(years: float, start: dt.date = CHALLENGE_START
                    ) -> list[tuple[dt.date, dt.date, str]]:
    """(start, end, folder) of a mission of ``years`` Martian years: whole 687-day periods and
    a shorter last one; the last period goes to test_set/ when there are two or more (as in
    the challenge: three training years, the fourth for testing)."""
    days = years * MARTIAN_YEAR_DAYS
    if days < 1:
        raise ValueError("a mission lasts at least one day")
    out = []
    s = 0
    whole = int(round(days))
    while s < whole:
        e = min(s + MARTIAN_YEAR_DAYS, whole)
        out.append([start + dt.timedelta(days=s), start + dt.timedelta(days=e), "train_set"])
        s = e
    if len(out) >= 2:
        out[-1][2] = "test_set"
    return [tuple(p) for p in out]
