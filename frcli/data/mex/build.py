"""The features of the Mars Express papers (8a, 8b; spec-relational-mex §B3-B4) for any Δt,
streamed by time block into ARFF or parquet.

The mission, from the first to the last power sample, is cut into intervals [t_i, t_i + Δt),
with t_0 the first sample's time rounded down to a multiple of Δt (so the grids of different
Δt nest and hours are whole). One row per interval:

* ``influx_<face>`` (7): ∫ max(cos α, 0)·c·U dt over the interval by the trapezoid rule on the
  SAAF samples, for the solar panels (angle ``sa``) and the faces ±x, ±y, ±z (α of a −axis is
  180° − α of the +axis, so its cosine is the negative); c is the solar constant (LTDATA,
  linear between days), U the umbra coefficient (0 in umbra, 0.5 in penumbra, 1 otherwise,
  from the EVTF ``MAR_UMBRA``/``MAR_PENUMBRA`` start and end events). A = 1 (trees do not care
  about the scale). Across a gap of over 10 minutes between SAAF samples the influx is
  missing;
* ``influx_<face>_past<N>min``: the sum of the H previous intervals' influx (not the current
  one), H from Table 3 of 8a (8b: H ∈ {1, 2, 4, 6, 8} at Δt = 15), N = H·Δt; missing if any
  of them is;
* ``dmop_<SUB>_<CMD>``, ``dmop_<SUB>``, ``dmop_fd_<EVENT>``: minutes since the last activation
  of a command, of any command of a subsystem, of a flight-dynamics event: 0 in an interval
  with one, otherwise the previous value + Δt, capped at θ = 1440 (θ before the first one);
  ``dmop_<SUB>_active`` and ``dmop_fd_<EVENT>_active``: 1 in an interval with an activation;
* ``ftl_<TYPE>``: the fraction of the interval covered by pointing events of that type (the
  union when they overlap); ``ftl_flagcomms``: the same for events flagged for communication;
* ``evt_<EVENT>`` (8b): minutes since the event's last occurrence, the DMOP rule with θ;
* the targets: the mean of the power samples in the interval (rounded to 1e-6 A). An
  interval without samples is interpolated (linearly, at its midpoint) when it lies in a gap
  of at most 10 minutes between samples and dropped when the gap is longer; an interval that
  overlaps such long gaps by more than 10 minutes is dropped too.

Feature sets: ``8a`` (default: influx, DMOP, FTL, as in 8a Table 2), ``8b`` (influx with 8b's
H, EVT, FTL) and ``all`` (influx, DMOP, FTL, EVT). The counts come from the data (the commands
and events that occur), not from a fixed list; docs/mex.md compares them with Table 2.
"""
from __future__ import annotations

import json
import math
import tempfile
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from frcli.data.mex import fastcsv
from frcli.data.mex.layout import MS_PER_MIN, discover
from frcli.data.mex.read import Raw, read_raw
from frcli.errors import ConfigError, DataError

THETA_MIN = 1440
MAX_GAP_MIN = 10
LTDATA_MAX_GAP_DAYS = 2
FEATURE_SETS = ("8a", "8b", "all")
GROUPS = ("influx", "dmop", "ftl", "evt")
FACES = ("panel", "px", "mx", "py", "my", "pz", "mz")
TABLE3 = {1: (4, 16, 32, 64, 128), 5: (1, 3, 6, 13, 25), 10: (1, 2, 3, 6, 13),
          15: (1, 2, 3, 4, 9), 30: (1, 2, 3, 4, 5), 60: (1, 2, 3)}
SPANS_8A = (4, 16, 32, 64, 128)        # minutes at Δt = 1
SPANS_8B = (15, 30, 60, 90, 120)       # H = 1, 2, 4, 6, 8 at Δt = 15
TABLE2_FEATURES = {1: 459, 5: 459, 10: 459, 15: 459, 30: 459, 60: 445}
BLOCK_BYTES = 48_000_000
DECIMALS = {"influx": 4, "dmop": 0, "ftl": 6, "evt": 0, "target": 6}


def history(dt: int, features: str = "8a") -> tuple[int, ...]:
    """The numbers H of past intervals summed by the historical influx features."""
    if features == "8b":
        spans = SPANS_8B
    elif dt in TABLE3:
        return TABLE3[dt]
    else:
        spans = SPANS_8A
    out: list[int] = []
    for s in spans:
        h = max(1, int(round(s / dt)))
        if h not in out:
            out.append(h)
    return tuple(out)


def group_of(name: str) -> str | None:
    """The feature group a column name carries (``influx_``, ``dmop_``, ``ftl_``, ``evt_``)."""
    head = name.split("_", 1)[0]
    return head if head in GROUPS else None


# --------------------------------------------------------------------------- helpers
def _union(begin: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Disjoint sorted union of [begin, end) intervals and the covered length before each."""
    if begin.size == 0:
        z = np.zeros(0, np.int64)
        return z, z, np.zeros(1)
    o = np.argsort(begin, kind="stable")
    b, e = begin[o], end[o]
    run_end = np.maximum.accumulate(e)
    new = np.ones(b.size, bool)
    new[1:] = b[1:] > run_end[:-1]
    starts = b[new]
    idx = np.flatnonzero(new)
    ends = np.maximum.reduceat(e, idx)
    before = np.concatenate([[0.0], np.cumsum((ends - starts).astype(np.float64))])
    return starts, ends, before


def _covered(union, x: np.ndarray) -> np.ndarray:
    """Covered length in (-inf, x) of a ``_union``."""
    starts, ends, before = union
    if starts.size == 0:
        return np.zeros(x.shape)
    k = np.searchsorted(starts, x, side="right") - 1
    ok = k >= 0
    kk = np.maximum(k, 0)
    inside = np.clip(x - starts[kk], 0, ends[kk] - starts[kk]).astype(np.float64)
    return np.where(ok, before[kk] + inside, 0.0)


def _pairs(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """START/END events → intervals: a START opens one when none is open, the next END closes
    it; unmatched events are dropped (their count is returned)."""
    t = np.concatenate([starts, ends])
    kind = np.concatenate([np.ones(starts.size, np.int8), np.zeros(ends.size, np.int8)])
    o = np.lexsort((kind, t))
    b, e = [], []
    open_at = None
    dropped = 0
    for ti, ki in zip(t[o].tolist(), kind[o].tolist()):
        if ki == 1:
            if open_at is not None:
                dropped += 1
            open_at = ti
        elif open_at is None:
            dropped += 1
        else:
            b.append(open_at)
            e.append(ti)
            open_at = None
    dropped += open_at is not None
    return np.asarray(b, np.int64), np.asarray(e, np.int64), dropped


@dataclass
class _Key:
    """A time-since feature: the interval indices of its activations (sorted)."""

    name: str
    group: str
    times: np.ndarray
    indicator: bool = False
    q: np.ndarray | None = None


@dataclass
class Layout:
    """The columns of a built file, in order: features (by group) then targets."""

    features: list[str]
    targets: list[str]
    decimals: list[int]

    def groups(self) -> dict[str, int]:
        out = {g: 0 for g in GROUPS}
        for f in self.features:
            out[group_of(f)] += 1
        return out


@dataclass
class Summary:
    """What a build produced (printed by the command, used by the study)."""

    output: str
    dt: int
    features: str
    rows: int
    intervals: int
    dropped: int
    interpolated: int
    groups: dict[str, int]
    n_features: int
    n_targets: int
    seconds: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class Builder:
    """Features of one Δt from a parsed ``Raw`` (see the module docstring)."""

    def __init__(self, raw: Raw, dt: int, features: str = "8a", theta: float = THETA_MIN):
        if features not in FEATURE_SETS:
            from frcli.errors import choices_error

            raise choices_error("feature set", features, FEATURE_SETS)
        self.raw = raw
        self.dt = int(dt)
        self.delta = self.dt * MS_PER_MIN
        self.features = features
        self.theta = float(theta)
        self.H = history(self.dt, features)
        if raw.power.n == 0:
            raise DataError("the power files have no rows", str(raw.power.files[0])
                            if raw.power.files else None)
        first, last = int(raw.power.t[0]), int(raw.power.t[-1])
        self.t0 = (first // self.delta) * self.delta
        self.n = (last - self.t0) // self.delta + 1
        self.notes: list[str] = []
        self._umbra()
        self._keys()
        self._ftl()
        self.layout = self._layout()

    # -- set-up ------------------------------------------------------------------------
    def _umbra(self) -> None:
        ev = self.raw.evtf
        self.shadow = []
        for name, value in (("MAR_PENUMBRA", 0.5), ("MAR_UMBRA", 0.0)):
            b, e, dropped = _pairs(ev.times_of(f"{name}_START"), ev.times_of(f"{name}_END"))
            if dropped:
                self.notes.append(f"{dropped} unmatched {name} start/end event(s) ignored")
            self.shadow.append((b, np.maximum.accumulate(e) if e.size else e, value))
        lt = self.raw.ltdata
        if lt.times.size == 0:
            raise DataError("the LTDATA files have no rows: the solar constant is missing",
                            str(self.raw.periods[0].context["ltdata"]))

    def _keys(self) -> None:
        keys: list[_Key] = []
        if self.features in ("8a", "all"):
            d = self.raw.dmop
            for k, name in enumerate(d.events):
                keys.append(_Key(f"dmop_fd_{name}", "dmop", d.times[d.event == k], True))
            for k, name in enumerate(d.pairs):
                keys.append(_Key(f"dmop_{name}", "dmop", d.times[d.pair == k]))
            for k, name in enumerate(d.subsystems):
                keys.append(_Key(f"dmop_{name}", "dmop", d.times[d.subsystem == k], True))
        if self.features in ("8b", "all"):
            ev = self.raw.evtf
            for k, name in enumerate(ev.names):
                keys.append(_Key(f"evt_{name}", "evt", ev.times[ev.code == k]))
        for key in keys:
            key.q = np.unique((key.times - self.t0) // self.delta)
        self.keys = keys

    def _ftl(self) -> None:
        f = self.raw.ftl
        self.ftl_names = [f"ftl_{t}" for t in f.types] + ["ftl_flagcomms"]
        self.ftl_union = [_union(f.begin[f.type == k], f.end[f.type == k])
                          for k in range(len(f.types))]
        self.ftl_union.append(_union(f.begin[f.comms], f.end[f.comms]))

    def _layout(self) -> Layout:
        feats = list(FACES)
        names = [f"influx_{f}" for f in feats]
        names += [f"influx_{f}_past{h * self.dt}min" for h in self.H for f in feats]
        dec = [DECIMALS["influx"]] * len(names)
        since = [k.name for k in self.keys if k.group == "dmop"]
        ind = [f"{k.name}_active" for k in self.keys if k.group == "dmop" and k.indicator]
        evt = [k.name for k in self.keys if k.group == "evt"]
        names += since + ind + self.ftl_names + evt
        dec += ([DECIMALS["dmop"]] * (len(since) + len(ind)) + [DECIMALS["ftl"]]
                * len(self.ftl_names) + [DECIMALS["evt"]] * len(evt))
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise DataError(f"two features would be named {dup[0]!r}")
        return Layout(names, list(self.raw.targets), dec)

    # -- one block of intervals --------------------------------------------------------
    def block(self, i0: int, i1: int, tail: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """Features and targets of intervals i0..i1-1: (times, X, Y, keep, E, interpolated);
        ``tail`` holds the influx of the intervals before i0 (for the historical sums)."""
        B = self.t0 + np.arange(i0, i1 + 1, dtype=np.int64) * self.delta
        E = self._influx(B)
        cols = [E, self._history(E, tail)]
        dm = [k for k in self.keys if k.group == "dmop"]
        idx = np.arange(i0, i1, dtype=np.int64)
        since = {k.name: self._since(k, idx) for k in self.keys}
        if dm:
            cols.append(np.column_stack([since[k.name] for k in dm]))
            ind = [since[k.name] == 0 for k in dm if k.indicator]
            if ind:
                cols.append(np.column_stack(ind).astype(np.float64))
        cols.append(np.column_stack([np.diff(_covered(u, B)) / self.delta
                                     for u in self.ftl_union]))
        ev = [k for k in self.keys if k.group == "evt"]
        if ev:
            cols.append(np.column_stack([since[k.name] for k in ev]))
        X = np.hstack(cols)
        Y, keep, interp = self._targets(B)
        return B[:-1], X, Y, keep, E, interp

    def _since(self, key: _Key, idx: np.ndarray) -> np.ndarray:
        q = key.q
        if q.size == 0:
            return np.full(idx.size, self.theta)
        k = np.searchsorted(q, idx, side="right") - 1
        out = np.full(idx.size, self.theta)
        ok = k >= 0
        out[ok] = np.minimum((idx[ok] - q[k[ok]]) * float(self.dt), self.theta)
        return out

    def _solar(self, t: np.ndarray) -> np.ndarray:
        lt = self.raw.ltdata
        c = np.interp(t, lt.times, lt.solar)
        day = 86_400_000
        k = np.searchsorted(lt.times, t, side="right")
        lo = lt.times[np.maximum(k - 1, 0)]
        hi = lt.times[np.minimum(k, lt.times.size - 1)]
        span = np.where((k == 0) | (k == lt.times.size), day, hi - lo)
        out_of = (t < lt.times[0] - day) | (t > lt.times[-1] + day)
        return np.where((span > LTDATA_MAX_GAP_DAYS * day) | out_of, np.nan, c)

    def _umbra_factor(self, t: np.ndarray) -> np.ndarray:
        u = np.ones(t.shape)
        for b, e, value in self.shadow:
            if b.size:
                k = np.searchsorted(b, t, side="right") - 1
                inside = (k >= 0) & (t < e[np.maximum(k, 0)])
                u[inside] = value
        return u

    @staticmethod
    def _samples(stream, B: np.ndarray, rows_ok) -> tuple[np.ndarray, np.ndarray]:
        """The stream's rows in [B[0], B[-1]) with one neighbour on each side, keeping the rows
        ``rows_ok`` accepts (samples outside the block bound its first and last intervals)."""
        lo = max(int(np.searchsorted(stream.t, B[0], side="left")) - 1, 0)
        hi = min(int(np.searchsorted(stream.t, B[-1], side="left")) + 1, stream.n)
        t = np.asarray(stream.t[lo:hi])
        v = np.asarray(stream.values[lo:hi])
        ok = rows_ok(v)
        return t[ok], v[ok]

    def _influx(self, B: np.ndarray) -> np.ndarray:
        n_int = B.size - 1
        t, ang = self._samples(self.raw.saaf, B, lambda v: np.isfinite(v).all(axis=1))
        E = np.full((n_int, len(FACES)), np.nan)
        if t.size < 2:
            return E
        c = np.cos(np.radians(ang))          # sa, sx, sy, sz
        cos = np.column_stack([c[:, 0], c[:, 1], -c[:, 1], c[:, 2], -c[:, 2], c[:, 3],
                               -c[:, 3]])
        g = np.maximum(cos, 0.0) * (self._solar(t) * self._umbra_factor(t))[:, None]
        L = np.diff(t)
        gap = L > MAX_GAP_MIN * MS_PER_MIN
        Lm = np.maximum(L, 1).astype(np.float64)
        area = np.where(gap[:, None], 0.0, (g[:-1] + g[1:]) / 2 * (L / MS_PER_MIN)[:, None])
        G = np.vstack([np.zeros((1, len(FACES))), np.cumsum(area, axis=0)])
        k = np.searchsorted(t, B, side="right") - 1
        valid = (k >= 0) & (k < t.size - 1)
        kk = np.clip(k, 0, t.size - 2)
        frac = ((B - t[kk]) / Lm[kk])[:, None]
        gB = g[kk] + frac * (g[kk + 1] - g[kk])
        GB = G[kk] + ((B - t[kk]) / MS_PER_MIN)[:, None] * (g[kk] + gB) / 2
        E = np.diff(GB, axis=0)
        k_end = np.clip(np.searchsorted(t, B[1:], side="left") - 1, 0, t.size - 2)
        gc = np.concatenate([[0], np.cumsum(gap)])
        has_gap = gc[k_end + 1] - gc[kk[:-1]] > 0
        bad = has_gap | ~valid[:-1] | ~valid[1:] | (np.searchsorted(t, B[1:], "left") == 0)
        E[bad] = np.nan
        return E

    def _history(self, E: np.ndarray, tail: np.ndarray) -> np.ndarray:
        Hm = max(self.H)
        EE = np.vstack([tail[-Hm:], E])
        C = np.vstack([np.zeros((1, E.shape[1])), np.cumsum(np.nan_to_num(EE), axis=0)])
        N = np.vstack([np.zeros((1, E.shape[1])), np.cumsum(np.isnan(EE), axis=0)])
        r = np.arange(E.shape[0]) + Hm
        out = []
        for h in self.H:
            s = C[r] - C[r - h]
            s[(N[r] - N[r - h]) > 0] = np.nan
            out.append(s)
        return np.hstack(out)

    def _targets(self, B: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        n_int = B.size - 1
        T = len(self.raw.power.names)
        t, Yr = self._samples(self.raw.power, B, lambda v: np.isfinite(v).any(axis=1))
        Y = np.full((n_int, T), np.nan)
        if t.size == 0:
            return Y, np.zeros(n_int, bool), 0
        inside = (t >= B[0]) & (t < B[-1])
        idx = (t[inside] - B[0]) // self.delta
        Yi = Yr[inside]
        known = np.isfinite(Yi)
        cnt = np.zeros((n_int, T))
        tot = np.zeros((n_int, T))
        for j in range(T):
            cnt[:, j] = np.bincount(idx, weights=known[:, j], minlength=n_int)[:n_int]
            tot[:, j] = np.bincount(idx, weights=np.where(known[:, j], Yi[:, j], 0.0),
                                    minlength=n_int)[:n_int]
        has = np.bincount(idx, minlength=n_int)[:n_int] > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            Y = np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)
        d = np.diff(t)
        long_gap = d > MAX_GAP_MIN * MS_PER_MIN
        gaps = _union(t[:-1][long_gap], t[1:][long_gap])
        overlap = np.diff(_covered(gaps, B))
        before = B[:-1] < t[0]
        after = B[1:] > t[-1]
        drop = (overlap > MAX_GAP_MIN * MS_PER_MIN) | (~has & ((overlap > 0) | before | after))
        fill = ~has & ~drop
        n_fill = int(fill.sum())
        if n_fill:
            mid = B[:-1][fill] + self.delta // 2
            k = np.clip(np.searchsorted(t, mid, side="right") - 1, 0, t.size - 2)
            w = ((mid - t[k]) / np.maximum(t[k + 1] - t[k], 1))[:, None]
            Y[fill] = Yr[k] + w * (Yr[k + 1] - Yr[k])
        return Y, ~drop, n_fill


# --------------------------------------------------------------------------- writers
class _ArffWriter:
    def __init__(self, path: Path, layout: Layout, meta: dict):
        self.f = open(path, "wb")
        lines = [f"% frcli mex build: {json.dumps(meta, sort_keys=True)}",
                 f"@relation mex-dt{meta['dt']}",
                 '@attribute time date "yyyy-MM-dd HH:mm"']
        lines += [f"@attribute {_arff_name(n)} numeric"
                  for n in layout.features + layout.targets]
        lines.append("@data")
        self.f.write(("\n".join(lines) + "\n").encode())
        self.decimals = layout.decimals + [DECIMALS["target"]] * len(layout.targets)

    def write(self, times: np.ndarray, X: np.ndarray, Y: np.ndarray) -> None:
        stamps = np.datetime_as_string(times.astype("datetime64[ms]"), unit="m")
        text = np.char.replace(stamps, "T", " ").astype("S")
        self.f.write(fastcsv.matrix_rows([fastcsv.Col(text=text, quote=True)],
                                         np.hstack([X, Y]), self.decimals, nan=b"?"))

    def close(self) -> None:
        self.f.close()


def _arff_name(name: str) -> str:
    return name if all(ch.isalnum() or ch in "_.-+" for ch in name) else f"'{name}'"


class _ParquetWriter:
    def __init__(self, path: Path, layout: Layout, meta: dict):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ConfigError("parquet output needs pyarrow (pip install 'frcli[parquet]'); "
                              "or write .arff") from None
        self.pa = pa
        fields = [pa.field("time", pa.timestamp("ms", tz="UTC"))]
        fields += [pa.field(n, pa.float64()) for n in layout.features + layout.targets]
        self.schema = pa.schema(fields, metadata={b"frcli.mex": json.dumps(meta).encode()})
        self.names = layout.features + layout.targets
        self.w = pq.ParquetWriter(str(path), self.schema)

    def write(self, times: np.ndarray, X: np.ndarray, Y: np.ndarray) -> None:
        pa = self.pa
        arrays = [pa.array(times, type=pa.timestamp("ms", tz="UTC"))]
        M = np.hstack([X, Y])
        arrays += [pa.array(M[:, j]) for j in range(M.shape[1])]
        self.w.write_table(pa.Table.from_arrays(arrays, schema=self.schema))

    def close(self) -> None:
        self.w.close()


def _writer(path: Path, layout: Layout, meta: dict):
    suffix = path.suffix.lower()
    if suffix == ".arff":
        return _ArffWriter(path, layout, meta)
    if suffix == ".parquet":
        return _ParquetWriter(path, layout, meta)
    raise ConfigError(f"--output {path.name}: write .arff or .parquet")


# --------------------------------------------------------------------------- the build
def build(raw_dir: str | Path, dt: int, output: str | Path, *, features: str = "8a",
          log: Callable[[str], None] | None = None, raw: Raw | None = None,
          workdir: str | Path | None = None) -> Summary:
    """Read ``raw_dir`` (the challenge's layout) and write the features of Δt = ``dt``
    minutes to ``output`` (.arff or .parquet). ``raw``: an already parsed mission (several Δt
    from one reading)."""
    say = log or (lambda m: None)
    if int(dt) != dt or dt < 1:
        raise ConfigError(f"bad value {dt!r} for --dt (whole minutes >= 1)")
    output = Path(output)
    if output.suffix.lower() not in (".arff", ".parquet"):
        raise ConfigError(f"--output {output.name}: write .arff or .parquet")
    t_start = _time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=".mex-", dir=workdir or output.parent) as tmp:
        if raw is None:
            raw = read_raw(discover(raw_dir), Path(tmp), log=say)
        b = Builder(raw, int(dt), features)
        lay = b.layout
        F, T = len(lay.features), len(lay.targets)
        per_row = 8 * (F + T) * 4 + 12 * (F + T)      # arrays and the text writer's bytes
        rows = int(max(256, min(b.n, BLOCK_BYTES // per_row)))
        meta = {"dt": int(dt), "features": features, "targets": T, "groups": lay.groups(),
                "t0": b.t0, "periods": [p.label for p in raw.periods]}
        say(f"Δt = {dt} min: {b.n} intervals, {F} features "
            f"({', '.join(f'{g} {c}' for g, c in lay.groups().items() if c)}), {T} targets; "
            f"blocks of {rows} intervals")
        w = _writer(output, lay, meta)
        kept = interp = 0
        Hm = max(b.H)
        tail = np.full((Hm, len(FACES)), np.nan)     # no influx before the first interval
        try:
            for i0 in range(0, b.n, rows):
                i1 = min(i0 + rows, b.n)
                times, X, Y, keep, E, n_fill = b.block(i0, i1, tail)
                tail = np.vstack([tail, E])[-Hm:]
                if keep.any():     # both formats hold the numbers the ARFF text shows
                    w.write(times[keep], _rounded(X[keep], lay.decimals),
                            np.round(Y[keep], DECIMALS["target"]))
                kept += int(keep.sum())
                interp += n_fill
                if (i0 // rows) % 20 == 0:
                    say(f"{100 * i1 / b.n:.0f} % of the intervals")
        except BaseException:
            w.close()
            output.unlink(missing_ok=True)
            raise
        w.close()
    return Summary(str(output), int(dt), features, kept, int(b.n), int(b.n - kept), interp,
                   lay.groups(), F, T, _time.perf_counter() - t_start, b.notes)


def _rounded(X: np.ndarray, decimals: Sequence[int]) -> np.ndarray:
    out = np.empty_like(X)
    dec = np.asarray(decimals)
    for d in np.unique(dec):
        cols = dec == d
        out[:, cols] = np.round(X[:, cols], int(d))
    return out


def table2_note(summary: Summary) -> str:
    """One line comparing the feature count with 8a Table 2 (same Δt, 8a features)."""
    ref = TABLE2_FEATURES.get(summary.dt)
    if ref is None or summary.features != "8a":
        return ""
    return (f"8a Table 2 lists {ref} features at Δt = {summary.dt} for the real files; this "
            f"build has {summary.n_features} (counts follow the commands and events present; "
            "docs/mex.md explains the difference)")


# --------------------------------------------------------------------------- reading back
@dataclass
class Built:
    """A built file loaded back: interval start times (ms), the Dataset and the metadata."""

    times: np.ndarray
    dataset: "object"
    meta: dict


def read_built(path: str | Path) -> Built:
    """Load a file written by ``build`` (ARFF or parquet) as an MTR ``Dataset`` (features as
    written, the power lines as targets) with the interval times."""
    import pandas as pd

    from frcli.data.dataset import Attribute, Dataset

    path = Path(path)
    if not path.is_file():
        raise DataError("no such file", str(path))
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ConfigError("reading parquet needs pyarrow (pip install 'frcli[parquet]')") \
                from None
        tab = pq.read_table(str(path))
        raw_meta = (tab.schema.metadata or {}).get(b"frcli.mex")
        if raw_meta is None:
            raise DataError("not a file written by frcli mex build (no frcli.mex metadata)",
                            str(path))
        meta = json.loads(raw_meta)
        import pyarrow as pa

        times = tab.column("time").cast(pa.timestamp("ms", tz="UTC")).cast(pa.int64()) \
            .to_numpy()
        names = [c for c in tab.column_names if c != "time"]
        M = np.column_stack([tab.column(c).to_numpy(zero_copy_only=False) for c in names]) \
            if names else np.zeros((tab.num_rows, 0))
    else:
        meta = None
        names = []
        n_head = 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                n_head += 1
                s = line.strip()
                if s.startswith("% frcli mex build:"):
                    meta = json.loads(s.split(":", 1)[1])
                low = s.lower()
                if low.startswith("@attribute"):
                    nm = s.split(None, 2)[1]
                    names.append(nm.strip("'\""))
                if low.startswith("@data"):
                    break
        if meta is None or not names or names[0] != "time":
            raise DataError("not a file written by frcli mex build (no '% frcli mex build' "
                            "line or no time attribute)", str(path))
        df = pd.read_csv(path, skiprows=n_head, header=None, names=names, na_values=["?"],
                         keep_default_na=False, engine="c", quotechar='"')
        stamps = df["time"].astype(str).str.replace(" ", "T").to_numpy(dtype=str)
        try:
            times = stamps.astype("datetime64[ms]").astype(np.int64)
        except ValueError:
            raise DataError("a time is not 'yyyy-MM-dd HH:mm'", str(path)) from None
        names = names[1:]
        M = df[names].to_numpy(dtype=np.float64)
    T = int(meta["targets"])
    F = len(names) - T
    ds = Dataset(path.stem, M[:, :F], [Attribute(n, "numeric") for n in names[:F]], "mtr",
                 Y=M[:, F:], targets=[Attribute(n, "numeric") for n in names[F:]],
                 source=str(path))
    return Built(np.asarray(times, np.int64), ds, meta)


def feature_groups(names: Sequence[str]) -> np.ndarray:
    """The group index (GROUPS order) of every feature name (-1 if none)."""
    return np.array([GROUPS.index(g) if (g := group_of(n)) is not None else -1
                     for n in names], dtype=np.int64)


def estimate_bytes(rows: int, features: int, targets: int) -> int:
    """Memory of a built Δt in memory as float64 (X, Y) plus the forest's transposed copy."""
    return int(rows) * (2 * int(features) + int(targets)) * 8


def expected_rows(raw_minutes: float, dt: int) -> int:
    return int(math.ceil(raw_minutes / dt))
