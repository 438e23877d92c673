"""A synthetic Mars Express mission in the challenge's exact layout, with planted physics.

The real telemetry cannot be fetched here, so the pipeline is built against files this module
writes: the same folders, names, columns, quoting, rates and kinds of gaps, and a physics whose
drivers are known, so that tests can demand that the rankings find them.

What is simulated (times in UTC milliseconds, one Martian year = 687 days):

* an orbit of 403.2 min; eclipse seasons twice a Martian year, umbra up to ~30 min per orbit
  with 1.2 min of penumbra on each side;
* a pointing timeline per orbit (FTL): a science pointing around pericentre (NADIR or one of
  12 other types), slews around it, then Earth pointing (sometimes INERTIAL, WARMUP,
  MAINTENANCE), Earth pointing split into stretches with and without communication;
* solar aspect angles (SAAF, a row every 15-105 s) from that pointing: Earth pointing keeps the
  Sun at the Sun-Mars-Earth angle from +x; nadir pointing turns it with the orbit;
* DMOP: 345 commands of 15 subsystems and 17 flight-dynamics events, each a Poisson stream;
* EVTF: apsis passages, 4000 km crossings, umbra/penumbra, occultations, relay windows and
  six ground stations' signal acquisition/loss with their annotations;
* LTDATA: a daily row (Sun-Mars and Earth-Mars distance, their angle, the solar constant
  1361 W/m² / r², daily eclipse and occultation minutes);
* the 33 power lines, one row a minute (a few seconds late), with outages (both power and
  SAAF, 2 min to 2 days), short power-only gaps (1-6 min) and short SAAF-only gaps.

The planted drivers (``ROLES``; ``simulation.json`` in the output records them with their
parameters):

* ``influx``: 9 heaters, each on the low-pass-filtered energy influx of one face (time
  constant 30-240 min): the heater draws amp·(1 − influx/setpoint) (clipped to [0, amp]), more
  the colder its face, so umbra, attitude and the Sun's distance all matter;
* ``dmop``: 11 lines that follow the time since the last activation of a DMOP command pair, of a
  whole subsystem or of a flight-dynamics event (a decay or a window after it);
* ``ftl``: 2 lines switched by a pointing type (NADIR, and WARMUP, whose attitude is Earth
  pointing's, so that only the timeline tells it);
* ``evt``: 2 lines driven by a ground station's passes (EVTF signal acquisition/loss);
* ``constant``: 4 lines that never change (a forest then has no split: an empty diagram);
* ``noise``: 5 lines of slow random drift that no feature explains.

Deterministic: the same years, seed and start give byte-identical files.
"""
from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from frcli.data.mex import fastcsv
from frcli.data.mex.layout import (CHALLENGE_START, COLUMNS, MS_PER_MIN, context_name,
                                   date_ms, mission_periods, power_name)

TARGETS = (
    "NPWD2372", "NPWD2401", "NPWD2402", "NPWD2451", "NPWD2471", "NPWD2472", "NPWD2481",
    "NPWD2482", "NPWD2491", "NPWD2501", "NPWD2531", "NPWD2532", "NPWD2551", "NPWD2552",
    "NPWD2561", "NPWD2562", "NPWD2691", "NPWD2692", "NPWD2721", "NPWD2722", "NPWD2742",
    "NPWD2771", "NPWD2791", "NPWD2792", "NPWD2801", "NPWD2802", "NPWD2821", "NPWD2851",
    "NPWD2852", "NPWD2871", "NPWD2872", "NPWD2881", "NPWD2882")

ORBIT_MIN = 403.2
DAY_MIN = 1440.0
SUBSYSTEMS = ("AAAA", "ACFE", "ADMC", "AHHH", "AMMM", "AOOO", "APSF", "APWF", "ASEQ", "ASSS",
              "ASXX", "ATMB", "ATTT", "AVVV", "AXXX")
COMMANDS_PER_SUBSYSTEM = (40, 12, 8, 30, 35, 10, 25, 20, 15, 28, 30, 22, 35, 15, 20)   # 345
FD_EVENTS = ("MACO", "MAPO", "MOCE", "MOCS", "MPER", "MSLE", "OBCP", "PDNE", "PDNS", "PENE",
             "PENS", "PPNE", "PPNS", "TCMS", "UPBE", "UPBS", "VACM")
SCIENCE = ("D1PVMC", "D2PLND", "D3POCM", "D4PNPO", "D5PPHB", "D7PLTS", "D8PLTP", "D9PSPO",
           "SPECULAR", "ACROSS_TRACK", "NADIR_LANDER", "SPOT", "RADIO_SCIENCE")
STATIONS = ("CAN", "CEB", "GDS", "MAD", "MLG", "NNO")
FACES = ("panel", "px", "mx", "py", "my", "pz", "mz")

# (target index → role): group, driver and shape; see the module docstring
ROLES: dict[int, dict] = {
    0: {"group": "influx", "face": "px", "tau": 60},
    2: {"group": "influx", "face": "my", "tau": 120},
    7: {"group": "influx", "face": "mz", "tau": 240},
    10: {"group": "influx", "face": "py", "tau": 30},
    14: {"group": "influx", "face": "pz", "tau": 90},
    17: {"group": "influx", "face": "mx", "tau": 180},
    21: {"group": "influx", "face": "panel", "tau": 60},
    26: {"group": "influx", "face": "px", "tau": 30},
    29: {"group": "influx", "face": "my", "tau": 60},
    1: {"group": "dmop", "key": "pair", "of": "ASXX", "shape": "window", "width": 120},
    3: {"group": "dmop", "key": "subsystem", "of": "ATTT", "shape": "decay", "width": 180},
    5: {"group": "dmop", "key": "pair", "of": "AMMM", "shape": "decay", "width": 45},
    8: {"group": "dmop", "key": "event", "of": "MOCE", "shape": "window", "width": 90},
    11: {"group": "dmop", "key": "pair", "of": "AHHH", "shape": "window", "width": 240},
    15: {"group": "dmop", "key": "subsystem", "of": "AXXX", "shape": "decay", "width": 60},
    18: {"group": "dmop", "key": "pair", "of": "APSF", "shape": "window", "width": 120},
    20: {"group": "dmop", "key": "event", "of": "PPNS", "shape": "decay", "width": 300},
    23: {"group": "dmop", "key": "pair", "of": "AAAA", "shape": "decay", "width": 90},
    27: {"group": "dmop", "key": "subsystem", "of": "AMMM", "shape": "decay", "width": 240},
    31: {"group": "dmop", "key": "pair", "of": "ATMB", "shape": "window", "width": 60},
    9: {"group": "ftl", "type": "NADIR"},
    19: {"group": "ftl", "type": "WARMUP"},
    12: {"group": "evt", "station": "MAD", "shape": "decay", "width": 120},
    25: {"group": "evt", "station": "CEB", "shape": "pass"},
    4: {"group": "constant", "value": 0.0},
    13: {"group": "constant", "value": 0.0012},
    22: {"group": "constant", "value": 0.0},
    30: {"group": "constant", "value": 0.0034},
    6: {"group": "noise"}, 16: {"group": "noise"}, 24: {"group": "noise"},
    28: {"group": "noise"}, 32: {"group": "noise"},
}
PLANTED = ("influx", "dmop", "ftl", "evt")


def _vocabulary() -> tuple[list[str], np.ndarray]:
    """The 345 DMOP command pairs and their rates per day (fixed, independent of the seed)."""
    rng = np.random.default_rng(20080822)
    pairs: list[str] = []
    for sub, k in zip(SUBSYSTEMS, COMMANDS_PER_SUBSYSTEM):
        codes: set[str] = set()
        while len(codes) < k:
            kind = rng.integers(3)
            if kind == 0:
                c = f"F{rng.integers(10, 99)}{chr(65 + rng.integers(8))}{rng.integers(10)}"
            elif kind == 1:
                c = f"{rng.integers(100, 999)}{chr(65 + rng.integers(6))}"
            else:
                c = f"{rng.integers(1000, 9999)}"
            codes.add(c)
        pairs += [sub + c for c in sorted(codes)]
    rates = np.exp(rng.uniform(np.log(0.01), np.log(8.0), len(pairs)))
    # the planted commands are among the busiest of their subsystem
    for role in ROLES.values():
        if role.get("key") == "pair":
            first = next(i for i, p in enumerate(pairs) if p.startswith(role["of"]))
            rates[first] = 6.0
    return pairs, rates


def _planted_pair(pairs: list[str], sub: str) -> str:
    return next(p for p in pairs if p.startswith(sub))


@dataclass
class _Timeline:
    """The FTL pointing events (contiguous) with per-event attitude parameters."""

    begin: np.ndarray       # ms
    end: np.ndarray
    type: list[str]
    comms: np.ndarray
    roll: np.ndarray        # per-event roll (rad) for Earth-like pointing
    inertial: np.ndarray    # (n, 3) fixed Sun vector for INERTIAL


class Mission:
    """The simulated mission's deterministic parts: events, attitude, physics per minute."""

    def __init__(self, years: float, seed: int, start: dt.date = CHALLENGE_START):
        self.years = float(years)
        self.periods = mission_periods(years, start)
        self.t0 = date_ms(self.periods[0][0])
        self.t1 = date_ms(self.periods[-1][1])
        self.minutes = (self.t1 - self.t0) // MS_PER_MIN
        self.seed = int(seed)
        self.rng = np.random.default_rng([self.seed, 687])
        self.pairs, self.rates = _vocabulary()
        self._orbits()
        self._timeline()
        self._dmop()
        self._stations()
        self._evtf()

    # -- time helpers ----------------------------------------------------------------
    def days(self, t_ms: np.ndarray) -> np.ndarray:
        return (np.asarray(t_ms, dtype=np.float64) - self.t0) / 86_400_000.0

    def _poisson(self, rate_per_day: float) -> np.ndarray:
        """Sorted event times (ms) of a Poisson stream over the mission."""
        n = self.rng.poisson(rate_per_day * self.minutes / DAY_MIN)
        return np.sort(self.t0 + self.rng.integers(0, self.minutes * MS_PER_MIN, n))

    # -- long-term data ----------------------------------------------------------------
    def sun_mars_au(self, t_ms) -> np.ndarray:
        d = self.days(t_ms)
        return 1.5237 * (1 - 0.0934 * np.cos(2 * np.pi * (d - 120.0) / 686.98))

    def solar_constant(self, t_ms) -> np.ndarray:
        return 1361.0 / self.sun_mars_au(t_ms) ** 2

    def _synodic(self, t_ms) -> np.ndarray:
        return 2 * np.pi * (self.days(t_ms) - 300.0) / 779.94

    def earth_mars_au(self, t_ms) -> np.ndarray:
        return 1.52 - 0.97 * np.cos(self._synodic(t_ms))

    def sme_angle(self, t_ms) -> np.ndarray:
        """Sun-Mars-Earth angle (degrees): 0 at opposition and conjunction."""
        return 42.0 * np.abs(np.sin(self._synodic(t_ms)))

    def beta(self, t_ms) -> np.ndarray:
        return np.radians(35.0 + 28.0 * np.sin(2 * np.pi * self.days(t_ms) / 687.0 + 1.1))

    # -- orbits and eclipses -------------------------------------------------------------
    def _orbits(self) -> None:
        n = int(self.minutes / ORBIT_MIN) + 2
        self.orbit0 = 5956
        self.peri = self.t0 + np.round((np.arange(-1, n) + 0.3) * ORBIT_MIN
                                       * MS_PER_MIN).astype(np.int64)
        season = np.sin(2 * np.pi * self.days(self.peri) / 343.5 + 0.7)
        umbra = np.clip(45.0 * season - 15.0, 0.0, None)
        umbra[umbra < 1.0] = 0.0
        mid = self.peri + int(0.04 * ORBIT_MIN * MS_PER_MIN)
        half = umbra * MS_PER_MIN / 2
        pen = 1.2 * MS_PER_MIN
        has = umbra > 0
        self.umbra = np.stack([mid - half, mid + half], 1)[has].astype(np.int64)
        self.penumbra = np.stack([mid - half - pen, mid + half + pen], 1)[has].astype(np.int64)

    def umbra_factor(self, t_ms: np.ndarray) -> np.ndarray:
        """U(t): 0 in umbra, 0.5 in penumbra, 1 otherwise."""
        u = np.ones(np.shape(t_ms))
        for iv, val in ((self.penumbra, 0.5), (self.umbra, 0.0)):
            if len(iv):
                k = np.searchsorted(iv[:, 0], t_ms, side="right") - 1
                inside = (k >= 0) & (t_ms < iv[np.maximum(k, 0), 1])
                u[inside] = val
        return u

    # -- pointing timeline -----------------------------------------------------------------
    def _timeline(self) -> None:
        rng = self.rng
        B, E, T, C = [], [], [], []
        ms = MS_PER_MIN
        for p, q in zip(self.peri[:-1], self.peri[1:]):
            r = rng.random()
            sci = "NADIR" if r < 0.55 else SCIENCE[int(rng.integers(len(SCIENCE)))]
            # the science window moves around pericentre from orbit to orbit
            a, b = (int(x * ms) for x in rng.uniform(10, 30, 2))
            marks = [p - a - 15 * ms, p - a, p + b, p + b + 15 * ms, q - 35 * ms]
            B += marks[:3]
            E += marks[1:4]
            T += ["SLEW", sci, "SLEW"]
            C += [False, sci == "RADIO_SCIENCE", False]
            # the cruise part: Earth pointing split where communication starts or stops
            r = rng.random()
            kind = ("INERTIAL" if r < 0.08 else "WARMUP" if r < 0.20 else
                    "MAINTENANCE" if r < 0.25 else "EARTH")
            a, b = marks[3], marks[4]
            if kind == "EARTH":
                cuts = np.sort(rng.integers(a, b, 2))
                edges = [a, int(cuts[0]), int(cuts[1]), b]
                flags = rng.random(3) < 0.5
                for k in range(3):
                    if edges[k + 1] > edges[k]:
                        B.append(edges[k])
                        E.append(edges[k + 1])
                        T.append("EARTH")
                        C.append(bool(flags[k]))
            else:
                B.append(a)
                E.append(b)
                T.append(kind)
                C.append(False)
        n = len(B)
        v = rng.normal(size=(n, 3))
        v[:, 0] = np.abs(v[:, 0]) + 0.5
        self.tl = _Timeline(np.asarray(B, np.int64), np.asarray(E, np.int64), T,
                            np.asarray(C, bool), rng.uniform(0, 2 * np.pi, n),
                            v / np.linalg.norm(v, axis=1, keepdims=True))
        self.tl_type = np.array(self.tl.type)
        self.tl_nadir = np.isin(self.tl_type, ("NADIR",) + SCIENCE)
        self.tl_inertial = self.tl_type == "INERTIAL"
        self.tl_slew = self.tl_type == "SLEW"
        self.tl_shift = np.array([SCIENCE.index(x) * 0.4 if x in SCIENCE else 0.0
                                  for x in self.tl.type])

    def _mode_vector(self, k: np.ndarray, t_ms: np.ndarray) -> np.ndarray:
        """The Sun in the body frame (unit vectors) while event k's pointing holds at t."""
        out = np.empty((len(k), 3))
        # Earth-like pointing: +x to the Earth, the Sun at the SME angle, turned by the roll
        th = np.radians(self.sme_angle(t_ms))
        ro = self.tl.roll[k]
        out[:] = np.stack([np.cos(th), np.sin(th) * np.cos(ro), np.sin(th) * np.sin(ro)], 1)
        # nadir-like pointing: the Sun turns with the orbit around the body y axis
        nadir = self.tl_nadir[k]
        if nadir.any():
            tn = t_ms[nadir]
            j = np.clip(np.searchsorted(self.peri, tn, side="right") - 1, 0, len(self.peri) - 1)
            phase = 2 * np.pi * (tn - self.peri[j]) / (ORBIT_MIN * MS_PER_MIN)
            phase = phase + self.tl_shift[k[nadir]]
            b = self.beta(tn)
            out[nadir] = np.stack([np.cos(b) * np.cos(phase), np.sin(b),
                                   np.cos(b) * np.sin(phase)], 1)
        inert = self.tl_inertial[k]
        if inert.any():
            out[inert] = self.tl.inertial[k[inert]]
        return out

    def sun_body(self, t_ms: np.ndarray) -> np.ndarray:
        """The Sun direction in the body frame at times t (slews blend their neighbours)."""
        t_ms = np.asarray(t_ms, dtype=np.int64)
        n = len(self.tl.begin)
        k = np.clip(np.searchsorted(self.tl.begin, t_ms, side="right") - 1, 0, n - 1)
        v = self._mode_vector(k, t_ms)
        slew = self.tl_slew[k]
        if slew.any():
            ks = k[slew]
            ts = t_ms[slew]
            prev = np.clip(ks - 1, 0, n - 1)
            nxt = np.clip(ks + 1, 0, n - 1)
            w = ((ts - self.tl.begin[ks]) / np.maximum(self.tl.end[ks] - self.tl.begin[ks], 1)
                 )[:, None]
            blend = (1 - w) * self._mode_vector(prev, ts) + w * self._mode_vector(nxt, ts)
            v[slew] = blend / np.maximum(np.linalg.norm(blend, axis=1, keepdims=True), 1e-9)
        return v

    def ftl_type_at(self, t_ms: np.ndarray) -> np.ndarray:
        k = np.clip(np.searchsorted(self.tl.begin, t_ms, side="right") - 1, 0,
                    len(self.tl.begin) - 1)
        return self.tl_type[k]

    # -- DMOP, stations, EVTF ------------------------------------------------------------
    def _dmop(self) -> None:
        T, N = [], []
        for name, rate in zip(self.pairs, self.rates):
            t = self._poisson(float(rate))
            T.append(t)
            N.append(np.full(t.size, name, dtype=object))
        self.fd_rate = np.exp(np.random.default_rng(17).uniform(np.log(0.1), np.log(6.0),
                                                                len(FD_EVENTS)))
        self.fd_times: dict[str, np.ndarray] = {}
        for name, rate in zip(FD_EVENTS, self.fd_rate):
            if name in ("MOCE", "PPNS"):
                rate = 3.0        # the planted events happen often enough to matter
            t = self._poisson(float(rate))
            self.fd_times[name] = t
            T.append(t)
            N.append(np.array([f"{name}.{i + 1:06d}" for i in range(t.size)], dtype=object))
        t = np.concatenate(T)
        o = np.argsort(t, kind="stable")
        self.dmop_t = t[o]
        self.dmop_name = np.concatenate(N)[o]
        self.pair_times = {p: T[i] for i, p in enumerate(self.pairs)}
        self._key_times: dict[tuple[str, str], np.ndarray] = {}

    def dmop_key_times(self, role: dict) -> np.ndarray:
        key = (role["key"], role["of"])
        if key not in self._key_times:
            if role["key"] == "pair":
                t = self.pair_times[_planted_pair(self.pairs, role["of"])]
            elif role["key"] == "subsystem":
                t = np.sort(np.concatenate([t for p, t in self.pair_times.items()
                                            if p.startswith(role["of"])]))
            else:
                t = self.fd_times[role["of"]]
            self._key_times[key] = t
        return self._key_times[key]

    def _stations(self) -> None:
        """Ground-station passes: about one a day per station, 3-8 h, not every day."""
        self.passes: dict[str, np.ndarray] = {}
        days = int(math.ceil(self.minutes / DAY_MIN)) + 1
        for i, st in enumerate(STATIONS):
            start = (self.t0 + np.arange(days) * 86_400_000
                     + int((2 + 4 * i) * 3_600_000)
                     + self.rng.integers(-5_400_000, 5_400_000, days))
            dur = self.rng.uniform(3, 8, days) * 3_600_000
            keep = self.rng.random(days) < 0.7
            iv = np.stack([start, start + dur.astype(np.int64)], 1)[keep]
            self.passes[st] = iv[(iv[:, 0] >= self.t0) & (iv[:, 1] < self.t1)]

    def _evtf(self) -> None:
        ms = MS_PER_MIN
        T: list[np.ndarray] = []
        D: list[np.ndarray] = []

        def add(t, names):
            T.append(np.asarray(t, np.int64))
            D.append(np.asarray(names, dtype=object))

        orbit = self.orbit0 + np.arange(len(self.peri))
        add(self.peri, [f"PERICENTRE_PASSAGE_{o:05d}" for o in orbit])
        apo = self.peri + int(ORBIT_MIN / 2 * ms)
        add(apo, [f"APOCENTRE_PASSAGE_{o:05d}" for o in orbit])
        add(self.peri - 20 * ms, ["4000_KM_DESCEND"] * len(orbit))
        add(self.peri + 20 * ms, ["4000_KM_ASCEND"] * len(orbit))
        for iv, name in ((self.penumbra, "MAR_PENUMBRA"), (self.umbra, "MAR_UMBRA")):
            add(iv[:, 0], [f"{name}_START"] * len(iv))
            add(iv[:, 1], [f"{name}_END"] * len(iv))
        # occultations by Mars on some orbits, with the challenge's annotations
        occ = self.rng.random(len(orbit)) < 0.25
        o0 = apo[occ] + (self.rng.uniform(-60, 60, occ.sum()) * ms).astype(np.int64)
        dur = (self.rng.uniform(15, 45, occ.sum()) * ms).astype(np.int64)
        ra = self.rng.uniform(0, 360, occ.sum())
        de = self.rng.uniform(-30, 30, occ.sum())
        add(o0, [f"OCC_MARS_START_/_RA_{a:06.2f}_/_DE_{d:+06.2f}_/_OMP_({a / 2:.2f},{d:.2f})"
                 f"_/_SZA_{int(a) % 180:03d}" for a, d in zip(ra, de)])
        add(o0 + dur, [f"OCC_MARS_END_/_RA_{a:06.2f}_/_DE_{d:+06.2f}" for a, d in zip(ra, de)])
        self.occ = np.stack([o0, o0 + dur], 1)
        relay = self.rng.random(len(orbit)) < 0.2
        add(self.peri[relay] - 8 * ms, ["MRB_/_RANGE_06000KM_START"] * int(relay.sum()))
        add(self.peri[relay] + 8 * ms, ["MRB_/_RANGE_06000KM_END"] * int(relay.sum()))
        for st, iv in self.passes.items():
            rtlt = np.round(2 * self.earth_mars_au(iv[:, 0]) * 149_597_870.7 / 299_792.458)
            el = self.rng.choice([0, 5, 10], len(iv))
            add(iv[:, 0], [f"{st}_AOS_{e:02d}_/_RTLT_{int(r):05d}" for e, r in zip(el, rtlt)])
            add(iv[:, 1], [f"{st}_LOS_{e:02d}_/_RTLT_{int(r):05d}" for e, r in zip(el, rtlt)])
        t = np.concatenate(T)
        o = np.argsort(t, kind="stable")
        self.evtf_t = t[o]
        self.evtf_desc = np.concatenate(D)[o]

    # -- physics per minute ----------------------------------------------------------------
    def influx(self, t_ms: np.ndarray) -> np.ndarray:
        """(n, 7) energy influx rate per face (W/m²), FACES order, from the true attitude."""
        s = self.sun_body(t_ms)
        cu = (self.solar_constant(t_ms) * self.umbra_factor(t_ms))[:, None]
        sa = np.radians(np.abs(90.0 - np.degrees(np.arccos(np.clip(s[:, 1], -1, 1)))))
        cos = np.column_stack([np.cos(sa), s[:, 0], -s[:, 0], s[:, 1], -s[:, 1], s[:, 2],
                               -s[:, 2]])
        return np.maximum(cos, 0.0) * cu


def _since(events: np.ndarray, t_ms: np.ndarray) -> np.ndarray:
    """Minutes since the last event at or before t (inf before the first)."""
    k = np.searchsorted(events, t_ms, side="right") - 1
    out = np.full(t_ms.shape, np.inf)
    ok = k >= 0
    out[ok] = (t_ms[ok] - events[k[ok]]) / MS_PER_MIN
    return out


def _shape(since: np.ndarray, shape: str, width: float) -> np.ndarray:
    if shape == "window":
        return (since < width).astype(np.float64)
    return np.exp(-since / width)


def _lowpass(x: np.ndarray, tau: float, state: float | None) -> tuple[np.ndarray, float]:
    """First-order filter y += (x - y)/tau per minute, carried across blocks."""
    from scipy.signal import lfilter

    a = math.exp(-1.0 / tau)
    zi = np.array([a * (x[0] if state is None else state)])
    y, zf = lfilter([1 - a], [1, -a], x, zi=zi)
    return y, float(y[-1]) if y.size else (state or 0.0)


def _outages(rng: np.random.Generator, t0: int, t1: int, rate_per_day: float,
             lo_min: float, hi_min: float, log: bool) -> np.ndarray:
    days = (t1 - t0) / 86_400_000
    n = rng.poisson(rate_per_day * days)
    start = t0 + rng.integers(0, t1 - t0, n)
    dur = (np.exp(rng.uniform(np.log(lo_min), np.log(hi_min), n)) if log
           else rng.uniform(lo_min, hi_min, n)) * MS_PER_MIN
    iv = np.stack([start, start + dur.astype(np.int64)], 1)
    return iv[np.argsort(iv[:, 0])]


def _in_any(iv: np.ndarray, t: np.ndarray) -> np.ndarray:
    if len(iv) == 0:
        return np.zeros(t.shape, bool)
    end = np.maximum.accumulate(iv[:, 1])
    k = np.searchsorted(iv[:, 0], t, side="right") - 1
    return (k >= 0) & (t < end[np.maximum(k, 0)])


BLOCK_MIN = 20 * 1440


def simulate(out: str | Path, years: float = 4.0, seed: int = 0,
             start: dt.date = CHALLENGE_START,
             log: Callable[[str], None] | None = None) -> dict:
    """Write a mission of ``years`` Martian years into ``out`` (train_set/, test_set/,
    simulation.json); returns the truth that simulation.json records."""
    say = log or (lambda m: None)
    out = Path(out)
    m = Mission(years, seed, start)
    rng = np.random.default_rng([m.seed, 33])
    files = _open_files(out, m.periods)
    try:
        _write_events(m, files)
        say(f"events written: {len(m.dmop_t)} DMOP, {len(m.tl.begin)} FTL, "
            f"{len(m.evtf_t)} EVTF entries")
        outages = _outages(rng, m.t0, m.t1, 1 / 6, 2, 2 * 1440, True)
        p_gaps = _outages(rng, m.t0, m.t1, 1.0, 1, 6, False)
        s_gaps = _outages(rng, m.t0, m.t1, 1.0, 1, 15, False)
        truth = _truth(m)
        amp = np.array([r.get("amp", 0.0) for r in truth["lines"]])
        base = np.array([r.get("base", 0.0) for r in truth["lines"]])
        state: dict[int, float | None] = {}
        noise_state: dict[int, float] = {}
        n_power = n_saaf = 0
        for b0 in range(0, int(m.minutes), BLOCK_MIN):
            b1 = min(b0 + BLOCK_MIN, int(m.minutes))
            tm = m.t0 + np.arange(b0, b1, dtype=np.int64) * MS_PER_MIN
            Y = _lines(m, truth, tm, state, noise_state, rng, amp, base)
            tp = tm + rng.integers(0, 50_000, tm.size)
            keep = ~(_in_any(outages, tp) | _in_any(p_gaps, tp))
            n_power += _route(files, "power", tp[keep], [fastcsv.Col(tp[keep])]
                              + [fastcsv.Col(Y[keep, j], 6) for j in range(Y.shape[1])])
            # SAAF rows every 15-105 s, computed from the attitude at their own times
            gaps = rng.uniform(15_000, 105_000, int((b1 - b0) * 60 / 45) + 8).astype(np.int64)
            ts = tm[0] + np.cumsum(gaps)
            ts = ts[ts < tm[-1] + MS_PER_MIN]
            ts = ts[~(_in_any(outages, ts) | _in_any(s_gaps, ts))]
            s = m.sun_body(ts) + rng.normal(0, 0.004, (ts.size, 3))
            s /= np.linalg.norm(s, axis=1, keepdims=True)
            ang = np.degrees(np.arccos(np.clip(s, -1, 1)))
            sa = np.abs(90.0 - ang[:, 1])
            cols = [fastcsv.Col(ts), fastcsv.Col(sa, 4)] + [fastcsv.Col(ang[:, j], 4)
                                                          for j in range(3)]
            n_saaf += _route(files, "saaf", ts, cols)
            if b0 // BLOCK_MIN % 10 == 0:
                say(f"{100 * b1 / m.minutes:.0f} % of the minutes")
        truth.update(power_rows=n_power, saaf_rows=n_saaf,
                     outages=int(len(outages)), power_gaps=int(len(p_gaps)),
                     saaf_gaps=int(len(s_gaps)))
    finally:
        for per in files.values():
            for f in per.values():
                f.close()
    (out / "simulation.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth


def _truth(m: Mission) -> dict:
    rng = np.random.default_rng([m.seed, 12])
    lines = []
    for j, name in enumerate(TARGETS):
        r = dict(ROLES[j])
        r["target"] = name
        g = r["group"]
        if g == "influx":
            r.update(amp=float(rng.uniform(0.25, 0.9)), base=float(rng.uniform(0.0, 0.05)),
                     setpoint=float(rng.uniform(0.8, 1.2)),
                     feature=f"influx_{r['face']}")
        elif g == "dmop":
            r.update(amp=float(rng.uniform(0.1, 0.6)), base=float(rng.uniform(0.0, 0.05)))
            r["driver"] = (_planted_pair(m.pairs, r["of"]) if r["key"] == "pair"
                           else r["of"])
            sub, rest = r["driver"][:4], r["driver"][4:]
            r["feature"] = {"pair": f"dmop_{sub}_{rest}", "subsystem": f"dmop_{r['of']}",
                            "event": f"dmop_fd_{r['of']}"}[r["key"]]
        elif g == "ftl":
            r.update(amp=float(rng.uniform(0.2, 0.6)), base=float(rng.uniform(0.0, 0.05)),
                     feature=f"ftl_{r['type']}")
        elif g == "evt":
            r.update(amp=float(rng.uniform(0.2, 0.6)), base=float(rng.uniform(0.0, 0.05)),
                     feature=f"evt_{r['station']}_AOS")
        elif g == "noise":
            r.update(amp=float(rng.uniform(0.05, 0.2)), base=float(rng.uniform(0.05, 0.3)))
        lines.append(r)
    return {"generator": "frcli mex simulate", "years": m.years, "seed": m.seed,
            "periods": [[a.isoformat(), b.isoformat(), f] for a, b, f in m.periods],
            "orbit_min": ORBIT_MIN, "lines": lines}


def _lines(m: Mission, truth: dict, tm: np.ndarray, state: dict, noise_state: dict,
           rng: np.random.Generator, amp: np.ndarray, base: np.ndarray) -> np.ndarray:
    """(n, 33) currents at the minute times ``tm``."""
    n = tm.size
    Y = np.empty((n, len(TARGETS)))
    flux = m.influx(tm + 30_000)
    ftype = m.ftl_type_at(tm + 30_000)
    for j, r in enumerate(truth["lines"]):
        g = r["group"]
        if g == "influx":
            x = flux[:, FACES.index(r["face"])] / 600.0
            y, state[j] = _lowpass(x, float(r["tau"]), state.get(j))
            cold = np.clip(1.0 - y / r["setpoint"], 0.0, 1.0)
            v = base[j] + amp[j] * cold
        elif g == "dmop":
            since = _since(m.dmop_key_times(r), tm)
            v = base[j] + amp[j] * _shape(since, r["shape"], float(r["width"]))
        elif g == "ftl":
            v = base[j] + amp[j] * (ftype == r["type"])
        elif g == "evt":
            iv = m.passes[r["station"]]
            if r["shape"] == "pass":
                v = base[j] + amp[j] * _in_any(iv, tm)
            else:
                v = base[j] + amp[j] * _shape(_since(iv[:, 0], tm), "decay", float(r["width"]))
        elif g == "constant":
            Y[:, j] = r["value"]
            continue
        else:  # slow random drift (a day's memory) that no feature explains
            from scipy.signal import lfilter

            a = math.exp(-1.0 / 1440.0)
            e = rng.normal(0, amp[j] * math.sqrt(1 - a * a), n)
            zi = np.array([a * noise_state.get(j, 0.0)])
            d, _ = lfilter([1.0], [1, -a], e, zi=zi)
            noise_state[j] = float(d[-1])
            v = base[j] + d
        Y[:, j] = np.maximum(v + rng.normal(0, 0.004, n), 0.0)
    return Y


def _open_files(out: Path, periods) -> dict:
    files: dict = {}
    for a, b, folder in periods:
        d = out / folder
        d.mkdir(parents=True, exist_ok=True)
        per = {"power": open(d / power_name(a, b), "wb")}
        per["power"].write(("ut_ms," + ",".join(TARGETS) + "\n").encode())
        for src in COLUMNS:
            per[src] = open(d / context_name(a, b, src), "wb")
            per[src].write((",".join(COLUMNS[src]) + "\n").encode())
        files[(date_ms(a), date_ms(b))] = per
    return files


def _route(files: dict, src: str, t: np.ndarray, cols: list) -> int:
    """Write rows to the period files their times fall in; returns the rows written."""
    total = 0
    for (a, b), per in files.items():
        sel = (t >= a) & (t < b)
        if sel.any():
            idx = np.flatnonzero(sel)
            sub = [fastcsv.Col(c.numbers[idx], c.decimals) if c.numbers is not None
                   else fastcsv.Col(text=c.text[idx], quote=c.quote) for c in cols]
            per[src].write(fastcsv.rows(sub))
            total += idx.size
    return total


def _write_events(m: Mission, files: dict) -> None:
    Col = fastcsv.Col
    _route(files, "dmop", m.dmop_t, [Col(m.dmop_t), Col(text=m.dmop_name.astype("S"),
                                                          quote=True)])
    tl = m.tl
    flags = np.where(tl.comms, b"TRUE", b"FALSE")
    _route(files, "ftl", tl.begin, [Col(tl.begin), Col(tl.end),
                                     Col(text=np.array(tl.type, dtype="S"), quote=True),
                                     Col(text=flags, quote=True)])
    _route(files, "evtf", m.evtf_t, [Col(m.evtf_t), Col(text=m.evtf_desc.astype("S"),
                                                          quote=True)])
    days = np.arange(0, int(math.ceil(m.minutes / DAY_MIN)), dtype=np.int64)
    td = m.t0 + days * 86_400_000
    eclipse = np.zeros(td.size)
    np.add.at(eclipse, ((m.umbra[:, 0] - m.t0) // 86_400_000).clip(0, td.size - 1),
              (m.umbra[:, 1] - m.umbra[:, 0]) / MS_PER_MIN)
    occult = np.zeros(td.size)
    np.add.at(occult, ((m.occ[:, 0] - m.t0) // 86_400_000).clip(0, td.size - 1),
              (m.occ[:, 1] - m.occ[:, 0]) / MS_PER_MIN)
    au = 149_597_870.7
    _route(files, "ltdata", td, [Col(td), Col(m.sun_mars_au(td) * au, 6),
                                 Col(m.earth_mars_au(td) * au, 6), Col(m.sme_angle(td), 10),
                                 Col(m.solar_constant(td), 10), Col(eclipse, 10),
                                 Col(occult, 10)])
