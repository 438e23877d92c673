"""Read the challenge's raw files into typed arrays; every bad row ends in one line naming its
file and line (a ``DataError``, exit 2 on the command line).

The two big sources, power (about one row a minute) and SAAF (several rows a minute at times),
are parsed in chunks into column files on disk (``Stream``, memory-mapped), so a four-year
mission never sits in memory; the event sources (DMOP, FTL, EVTF, LTDATA) are small and are read
whole.

Choices where the challenge says nothing (docs/mex.md lists them):

* a file with a header and no rows is an empty source for its period; a file without even a
  header is an error;
* power and SAAF rows must be in time order (they are streamed); event rows are sorted;
* DMOP entries are either a command, ``AXXX301A`` (4-character subsystem, then the command), or
  a flight-dynamics event, ``MAPO.000005`` (a name, a dot, its occurrence count); anything
  else is an error;
* EVTF descriptions lose their annotations (``_/_RTLT_02373``, ``_/_RA_181.69``) and trailing
  counts (``PERICENTRE_PASSAGE_05956``), so ``MLG_LOS_05_/_RTLT_02373`` is the event
  ``MLG_LOS``; a description with characters outside letters, digits and ``_.+-`` after that
  is an error; other unseen names are simply new events;
* FTL events of one type may overlap (their union counts); an event that ends before it begins
  is an error.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from frcli.data.mex.layout import COLUMNS, Period
from frcli.errors import DataError

CHUNK_ROWS = 400_000
MAX_NAMES = 5000          # distinct DMOP/EVTF/FTL names per source (bounds the feature count)
ANGLE_RANGE = (0.0, 180.0)

DMOP_EVENT = re.compile(r"^([A-Za-z0-9_]+)\.(\d+)$")
DMOP_COMMAND = re.compile(r"^([A-Za-z0-9]{4})([A-Za-z0-9_]+)$")
EVENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_ANNOTATION = re.compile(r"^[A-Za-z]+_[-+(0-9][-+(),.0-9]*$")   # RTLT_02373, RA_181.69, OMP_(..)
_TRAILING_COUNT = re.compile(r"(_\d+)+$")
FTL_TYPE = re.compile(r"^[A-Za-z0-9_]+$")
_TRUE = {"true": True, "false": False, "1": True, "0": False}


# --------------------------------------------------------------------------- headers
def header(path: Path, source: str) -> list[str]:
    """The header of a raw file, checked for the source's columns (extra columns are ignored;
    power needs ``ut_ms`` and at least one target)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        first = next(csv.reader(f), None)
    if not first or not any(c.strip() for c in first):
        need = ",".join(COLUMNS.get(source, ("ut_ms", "NPWD...")))
        raise DataError(f"empty file (expected the header {need})", str(path), 1)
    names = [c.strip() for c in first]
    need = COLUMNS.get(source, ("ut_ms",))
    missing = [c for c in need if c not in names]
    if missing:
        raise DataError(f"no column {missing[0]!r} in the header (a {source} file has "
                        f"{', '.join(need)})", str(path), 1)
    dup = sorted({c for c in names if names.count(c) > 1})
    if dup:
        raise DataError(f"column {dup[0]!r} appears twice in the header", str(path), 1)
    if source == "power" and len([c for c in names if c != "ut_ms"]) == 0:
        raise DataError("no target columns next to ut_ms", str(path), 1)
    return names


def _bad_cell(path: Path, columns: Sequence[str], numeric: Sequence[str]) -> DataError:
    """Locate the first cell of ``numeric`` columns that is not a number (slow; errors only)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rd = csv.reader(f)
        names = [c.strip() for c in next(rd)]
        idx = [names.index(c) for c in numeric]
        for line, row in enumerate(rd, start=2):
            if len(row) != len(names):
                return DataError(f"{len(row)} fields, the header has {len(names)}",
                                 str(path), line)
            for i in idx:
                cell = row[i].strip()
                if cell == "":
                    continue
                try:
                    float(cell)
                except ValueError:
                    return DataError(f"{names[i]} is {cell!r}, not a number", str(path), line)
    return DataError("cannot be read as CSV", str(path))


# --------------------------------------------------------------------------- times
def _times(col: np.ndarray, path: Path, name: str, first_line: int) -> np.ndarray:
    """Integer milliseconds from a float column (NaN or fractions are errors)."""
    bad = ~np.isfinite(col)
    if bad.any():
        r = int(np.argmax(bad))
        raise DataError(f"{name} is empty or not a number", str(path), first_line + r)
    t = col.astype(np.int64)
    frac = t != col
    if frac.any():
        r = int(np.argmax(frac))
        raise DataError(f"{name} = {float(col[r])!r} is not a whole number of milliseconds",
                        str(path), first_line + r)
    return t


def _check_order(t: np.ndarray, before: int | None, path: Path, first_line: int) -> None:
    if t.size == 0:
        return
    if before is not None and t[0] < before:
        raise DataError(f"time goes back ({int(t[0])} after {before}): rows must be in time "
                        "order, also across files", str(path), first_line)
    back = np.diff(t) < 0
    if back.any():
        r = int(np.argmax(back)) + 1
        raise DataError(f"time goes back ({int(t[r])} after {int(t[r - 1])}): rows must be "
                        "in time order", str(path), first_line + r)


# --------------------------------------------------------------------------- streams
@dataclass
class Stream:
    """A time-ordered numeric source on disk: ``t`` (n,) int64 ms and ``values`` (n, k)."""

    t: np.ndarray
    values: np.ndarray
    names: list[str]
    files: list[Path] = field(default_factory=list)

    @property
    def n(self) -> int:
        return int(self.t.shape[0])


def read_stream(paths: Iterable[Path], source: str, workdir: Path,
                names: Sequence[str] | None = None) -> Stream:
    """Parse power (``source="power"``) or SAAF files in time order into column files under
    ``workdir``. Power's target columns come from the first file's header; every power file
    must have the same ones. SAAF angles outside [0, 180] degrees are errors."""
    import pandas as pd

    paths = list(paths)
    workdir.mkdir(parents=True, exist_ok=True)
    tfile = workdir / f"{source}.t.bin"
    vfile = workdir / f"{source}.v.bin"
    cols: list[str] | None = list(names) if names is not None else None
    n = 0
    last: int | None = None
    with open(tfile, "wb") as ft, open(vfile, "wb") as fv:
        for path in paths:
            head = header(path, source)
            if cols is None:
                cols = ([c for c in head if c != "ut_ms"] if source == "power"
                        else list(COLUMNS[source][1:]))
            if source == "power":
                extra = [c for c in head if c != "ut_ms" and c not in cols]
                lack = [c for c in cols if c not in head]
                if extra or lack:
                    what = (f"target {extra[0]!r} is not in the first power file"
                            if extra else f"target {lack[0]!r} is missing")
                    raise DataError(f"{what}: every power file needs the same targets",
                                    str(path), 1)
            use = ["ut_ms", *cols]
            line = 2
            try:
                reader = pd.read_csv(path, usecols=use, dtype=np.float64, chunksize=CHUNK_ROWS,
                                     engine="c", skipinitialspace=True)
                for chunk in reader:
                    M = chunk.to_numpy(dtype=np.float64)
                    pos = {c: i for i, c in enumerate(chunk.columns)}
                    t = _times(M[:, pos["ut_ms"]], path, "ut_ms", line)
                    _check_order(t, last, path, line)
                    v = M[:, [pos[c] for c in cols]]
                    if source == "saaf":
                        _check_angles(v, cols, path, line)
                    elif np.isinf(v).any():
                        r, c = map(int, np.argwhere(np.isinf(v))[0])
                        raise DataError(f"{cols[c]} is infinite", str(path), line + r)
                    ft.write(memoryview(np.ascontiguousarray(t)))
                    fv.write(memoryview(np.ascontiguousarray(v)))
                    if t.size:
                        last = int(t[-1])
                    n += t.size
                    line += t.size
            except (ValueError, pd.errors.ParserError):
                raise _bad_cell(path, use, use) from None
    assert cols is not None
    k = len(cols)
    t = np.memmap(tfile, dtype=np.int64, mode="r", shape=(n,)) if n else np.zeros(0, np.int64)
    v = (np.memmap(vfile, dtype=np.float64, mode="r", shape=(n, k)) if n
         else np.zeros((0, k)))
    return Stream(t, v, cols, paths)


def _check_angles(v: np.ndarray, cols: Sequence[str], path: Path, line: int) -> None:
    lo, hi = ANGLE_RANGE
    with np.errstate(invalid="ignore"):
        bad = (v < lo) | (v > hi) | np.isinf(v)
    if bad.any():
        r, c = map(int, np.argwhere(bad)[0])
        raise DataError(f"{cols[c]} = {float(v[r, c])!r} is not an angle in [0, 180] degrees",
                        str(path), line + r)


# --------------------------------------------------------------------------- small files
def _read_text(path: Path, source: str):
    """A small file as strings (no NA conversion) with its line numbers."""
    import pandas as pd

    header(path, source)
    try:
        df = pd.read_csv(path, usecols=list(COLUMNS[source]), dtype=str,
                         keep_default_na=False, engine="c", skipinitialspace=True)
    except (ValueError, pd.errors.ParserError) as e:
        raise DataError(f"cannot be read as CSV ({str(e).splitlines()[0]})", str(path)) \
            from None
    return df


def _numbers(df, col: str, path: Path, allow_empty: bool = False) -> np.ndarray:
    import pandas as pd

    s = df[col].str.strip()
    x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)
    missing = s.str.lower().isin(["", "nan"]).to_numpy()
    bad = np.isnan(x) & ~missing if allow_empty else np.isnan(x)
    if bad.any():
        r = int(np.argmax(bad))
        raise DataError(f"{col} is {s.iloc[r]!r}, not a number", str(path), r + 2)
    return x


def _names(found: dict[str, int], path: Path, what: str) -> None:
    if len(found) > MAX_NAMES:
        raise DataError(f"more than {MAX_NAMES} distinct {what} (is this the right file?)",
                        str(path))


def _intern(values: Sequence[str], table: dict[str, int]) -> np.ndarray:
    out = np.empty(len(values), dtype=np.int32)
    for i, v in enumerate(values):
        j = table.get(v)
        if j is None:
            j = table[v] = len(table)
        out[i] = j
    return out


def _sorted(order_key: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    o = np.argsort(order_key, kind="stable")
    return [a[o] for a in arrays]


def _remap(codes: np.ndarray, table: dict[str, int]) -> tuple[np.ndarray, list[str]]:
    """Codes renumbered so that names are in sorted order (deterministic feature order)."""
    names = sorted(table)
    new = np.empty(len(table), dtype=np.int32)
    for k, name in enumerate(names):
        new[table[name]] = k
    return (new[codes] if codes.size else codes), names


@dataclass
class Dmop:
    """DMOP entries in time order: each one a command (``subsystem``, ``pair``) or a
    flight-dynamics event (``event``); -1 where a field does not apply."""

    times: np.ndarray
    subsystem: np.ndarray
    pair: np.ndarray
    event: np.ndarray
    subsystems: list[str]
    pairs: list[str]
    events: list[str]


def read_dmop(paths: Iterable[Path]) -> Dmop:
    import pandas as pd

    subs: dict[str, int] = {}
    pairs: dict[str, int] = {}
    events: dict[str, int] = {}
    T, S, P, E = [], [], [], []
    for path in paths:
        df = _read_text(path, "dmop")
        t = _times(_numbers(df, "ut_ms", path), path, "ut_ms", 2)
        codes, uniq = pd.factorize(df["subsystem"].str.strip())
        us = np.full(len(uniq), -1, np.int32)
        up = np.full(len(uniq), -1, np.int32)
        ue = np.full(len(uniq), -1, np.int32)
        for u, name in enumerate(uniq):
            m = DMOP_EVENT.match(name)
            if m is not None:
                ue[u] = events.setdefault(m.group(1), len(events))
                continue
            m = DMOP_COMMAND.match(name)
            if m is None:
                r = int(np.argmax(codes == u))
                raise DataError(f"unrecognised DMOP entry {name!r} (expected a subsystem "
                                "command such as AXXX301A or a flight-dynamics event such as "
                                "MAPO.000005)", str(path), r + 2)
            us[u] = subs.setdefault(m.group(1), len(subs))
            up[u] = pairs.setdefault(f"{m.group(1)}_{m.group(2)}", len(pairs))
        _names(pairs, path, "DMOP commands")
        _names(events, path, "DMOP flight-dynamics events")
        T.append(t)
        S.append(us[codes])
        P.append(up[codes])
        E.append(ue[codes])
    t, s, p, e = (np.concatenate(x) if x else np.zeros(0, np.int64) for x in (T, S, P, E))
    t, s, p, e = _sorted(t, t.astype(np.int64), s.astype(np.int32), p.astype(np.int32),
                         e.astype(np.int32))
    s_ok, p_ok, e_ok = s >= 0, p >= 0, e >= 0
    s2, sub_names = _remap(s[s_ok], subs)
    p2, pair_names = _remap(p[p_ok], pairs)
    e2, ev_names = _remap(e[e_ok], events)
    s[s_ok], p[p_ok], e[e_ok] = s2, p2, e2
    return Dmop(t, s, p, e, sub_names, pair_names, ev_names)


@dataclass
class Ftl:
    """Pointing events: begin, end (ms), type code, comms flag."""

    begin: np.ndarray
    end: np.ndarray
    type: np.ndarray
    comms: np.ndarray
    types: list[str]


def read_ftl(paths: Iterable[Path]) -> Ftl:
    types: dict[str, int] = {}
    B, E, C, F = [], [], [], []
    for path in paths:
        df = _read_text(path, "ftl")
        b = _times(_numbers(df, "utb_ms", path), path, "utb_ms", 2)
        e = _times(_numbers(df, "ute_ms", path), path, "ute_ms", 2)
        back = e < b
        if back.any():
            r = int(np.argmax(back))
            raise DataError(f"the event ends (ute_ms {int(e[r])}) before it begins "
                            f"(utb_ms {int(b[r])})", str(path), r + 2)
        names = df["type"].str.strip().tolist()
        for i, name in enumerate(names):
            if not FTL_TYPE.match(name):
                raise DataError(f"unrecognised FTL type {name!r} (letters, digits and _)",
                                str(path), i + 2)
        flags = df["flagcomms"].str.strip().str.lower()
        comms = flags.map(_TRUE)
        if comms.isna().any():
            r = int(np.argmax(comms.isna().to_numpy()))
            raise DataError(f"flagcomms is {df['flagcomms'].iloc[r]!r} (expected TRUE or "
                            "FALSE)", str(path), r + 2)
        B.append(b)
        E.append(e)
        C.append(_intern(names, types))
        F.append(comms.to_numpy(dtype=bool))
        _names(types, path, "FTL types")
    b, e, c, f = (np.concatenate(x) if x else np.zeros(0) for x in (B, E, C, F))
    b, e, c, f = _sorted(b, b.astype(np.int64), e.astype(np.int64), c.astype(np.int32),
                         f.astype(bool))
    c, names = _remap(c, types)
    return Ftl(b, e, c, f, names)


def event_name(description: str) -> str:
    """``MLG_LOS_05_/_RTLT_02373`` → ``MLG_LOS``; ``MRB_/_RANGE_06000KM_START`` →
    ``MRB_RANGE_06000KM_START``; ``PERICENTRE_PASSAGE_05956`` → ``PERICENTRE_PASSAGE``."""
    parts = description.strip().split("_/_")
    keep = [parts[0]] + [p for p in parts[1:] if not _ANNOTATION.match(p)]
    return _TRAILING_COUNT.sub("", "_".join(keep))


@dataclass
class Evtf:
    """Events in time order (normalised names, see ``event_name``)."""

    times: np.ndarray
    code: np.ndarray
    names: list[str]

    def times_of(self, name: str) -> np.ndarray:
        if name not in self.names:
            return np.zeros(0, np.int64)
        return self.times[self.code == self.names.index(name)]


def read_evtf(paths: Iterable[Path]) -> Evtf:
    import pandas as pd

    names: dict[str, int] = {}
    T, C = [], []
    for path in paths:
        df = _read_text(path, "evtf")
        t = _times(_numbers(df, "ut_ms", path), path, "ut_ms", 2)
        codes, uniq = pd.factorize(df["description"])
        norm = []
        for u, d in enumerate(uniq):
            n = event_name(d)
            if not EVENT_NAME.match(n):
                r = int(np.argmax(codes == u))
                raise DataError(f"unrecognised event description {d!r} (an event name is "
                                "letters, digits and _.+-, then annotations _/_KEY_value)",
                                str(path), r + 2)
            norm.append(n)
        T.append(t)
        C.append(_intern(norm, names)[codes] if len(uniq) else np.zeros(0, np.int32))
        _names(names, path, "EVTF events")
    t, c = (np.concatenate(x) if x else np.zeros(0) for x in (T, C))
    t, c = _sorted(t, t.astype(np.int64), c.astype(np.int32))
    c, nm = _remap(c, names)
    return Evtf(t, c, nm)


@dataclass
class Ltdata:
    """Daily long-term data: the solar constant at Mars (W/m²) with its times."""

    times: np.ndarray
    solar: np.ndarray


def read_ltdata(paths: Iterable[Path]) -> Ltdata:
    T, S = [], []
    for path in paths:
        df = _read_text(path, "ltdata")
        t = _times(_numbers(df, "ut_ms", path), path, "ut_ms", 2)
        s = _numbers(df, "solarconstantmars", path, allow_empty=True)
        bad = s <= 0
        if bad.any():
            r = int(np.argmax(bad))
            raise DataError(f"solarconstantmars = {float(s[r])!r} is not positive", str(path),
                            r + 2)
        T.append(t)
        S.append(s)
    t, s = (np.concatenate(x) if x else np.zeros(0) for x in (T, S))
    t, s = _sorted(t, t.astype(np.int64), s.astype(np.float64))
    known = np.isfinite(s)
    return Ltdata(t[known], s[known])


@dataclass
class Raw:
    """Everything the feature builder needs from a folder in the challenge's layout."""

    periods: list[Period]
    power: Stream
    saaf: Stream
    dmop: Dmop
    ftl: Ftl
    evtf: Evtf
    ltdata: Ltdata

    @property
    def targets(self) -> list[str]:
        return self.power.names


def read_raw(periods: Sequence[Period], workdir: Path, log=None) -> Raw:
    """Read every period's files (power and SAAF into ``workdir``)."""
    say = log or (lambda m: None)
    ctx = {s: [p.context[s] for p in periods] for s in COLUMNS}
    for src, paths in ctx.items():            # every header checked before any work
        for path in paths:
            header(path, src)
    for p in periods:
        if p.power is not None:
            header(p.power, "power")
    say("reading power")
    power = read_stream([p.power for p in periods if p.power is not None], "power", workdir)
    say(f"power: {power.n} rows, {len(power.names)} targets; reading SAAF")
    saaf = read_stream(ctx["saaf"], "saaf", workdir)
    say(f"saaf: {saaf.n} rows; reading DMOP, FTL, EVTF, LTDATA")
    raw = Raw(list(periods), power, saaf, read_dmop(ctx["dmop"]), read_ftl(ctx["ftl"]),
              read_evtf(ctx["evtf"]), read_ltdata(ctx["ltdata"]))
    say(f"dmop: {raw.dmop.times.size} entries ({len(raw.dmop.subsystems)} subsystems, "
        f"{len(raw.dmop.pairs)} commands, {len(raw.dmop.events)} flight-dynamics events); "
        f"ftl: {raw.ftl.begin.size} events ({len(raw.ftl.types)} types); evtf: "
        f"{raw.evtf.times.size} events ({len(raw.evtf.names)} names); ltdata: "
        f"{raw.ltdata.times.size} days")
    return raw
