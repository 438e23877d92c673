"""Vectorised CSV rows: tens of millions of numbers per second, no Python loop per value.

Every value is laid out at a fixed width in a byte matrix (sign, integer digits, point,
decimals, separator), and a mask drops the padding (leading zeros, trailing decimal zeros, the
sign of non-negative numbers); the kept bytes in row order are the CSV text. A block of columns
shares one number of decimals and is formatted in one pass (``round half to even`` of
``x·10^d``), which is exact for the integers, fractions and currents the Mars Express files
hold.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

_POW10 = 10 ** np.arange(19, dtype=np.int64)
MAX_ABS = 1e15
COMMA, NEWLINE, QUOTE, MINUS, POINT = 44, 10, 34, 45, 46


@dataclass
class Col:
    """A column (1-D) or a block of columns (2-D, one ``decimals`` for all) of ``numbers``,
    or a column of ``text`` (bytes; ``quote`` wraps it in double quotes)."""

    numbers: np.ndarray | None = None
    decimals: int = 0
    text: np.ndarray | None = None
    quote: bool = False


def _digits(v: np.ndarray, width: int) -> np.ndarray:
    """ASCII digits of non-negative ``v`` (..., width), most significant first."""
    out = np.empty(v.shape + (width,), np.uint8)
    for p in range(width - 1, -1, -1):
        q = v // 10                           # a scalar divisor: numpy's fast path
        out[..., p] = (v - q * 10).astype(np.uint8) + 48
        v = q
    return out


_TABLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}
SMALL = 100_000


def _small_ints(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Digits and keep mask of integers 0..SMALL-1 by table look-up (time-since columns)."""
    W = max(1, len(str(int(v.max())))) if v.size else 1
    if W not in _TABLES:
        a = np.arange(10 ** W, dtype=np.int64)
        _TABLES[W] = (_digits(a, W),
                      (a[:, None] >= _POW10[W - 1::-1]) | (np.arange(W) == W - 1))
    dig, keep = _TABLES[W]
    return dig[v], keep[v]


def _numbers(x: np.ndarray, d: int, nan: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, keep) of shape (n, k·w) for the (n, k) block ``x`` (each value then a comma)."""
    if x.ndim == 1:
        x = x[:, None]
    n, k = x.shape
    if x.dtype.kind in "iu":
        missing = np.zeros((n, k), bool)
        v = np.abs(x.astype(np.int64)) * _POW10[d]
        neg = x < 0
    else:
        x = x.astype(np.float64, copy=False)
        missing = ~np.isfinite(x)
        xa = np.where(missing, 0.0, np.abs(x))
        top = float(xa.max()) if xa.size else 0.0
        if top * 10.0 ** d >= MAX_ABS:
            raise ValueError(f"a value of {top:g} is too large for the fixed-point writer "
                             f"with {d} decimals")
        v = np.rint(xa * 10.0 ** d).astype(np.int64)
        neg = (x < 0) & (v != 0)
    ip = v // _POW10[d] if d else v
    if ip.size and int(ip.max()) < SMALL:
        dig, kd = _small_ints(ip)
    else:
        W = max(1, len(str(int(ip.max())))) if ip.size else 1
        dig = _digits(ip, W)
        kd = (ip[..., None] >= _POW10[W - 1::-1]) | (np.arange(W) == W - 1)
    parts = [np.full((n, k, 1), MINUS, np.uint8), dig]
    keeps = [neg[..., None], kd]
    if d > 0:
        fp = v % _POW10[d]
        parts += [np.full((n, k, 1), POINT, np.uint8), _digits(fp, d)]
        keeps += [(fp != 0)[..., None], fp[..., None] % _POW10[d:0:-1] != 0]
    parts.append(np.full((n, k, 1), COMMA, np.uint8))
    keeps.append(np.ones((n, k, 1), bool))
    mat = np.concatenate(parts, axis=2)
    keep = np.concatenate(keeps, axis=2)
    if missing.any():
        keep[missing, :-1] = False
        if nan:
            mat[missing, 0] = nan[0]
            keep[missing, 0] = True
    return mat.reshape(n, -1), keep.reshape(n, -1)


def _text(t: np.ndarray, quote: bool) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(t)
    if t.dtype.kind == "U":
        t = np.char.encode(t, "utf-8")
    if t.dtype.kind != "S":
        t = t.astype("S")
    w = max(t.dtype.itemsize, 1)
    n = t.shape[0]
    mat = (np.frombuffer(t.tobytes(), dtype=np.uint8).reshape(n, w) if n
           else np.zeros((0, w), np.uint8))
    keep = mat != 0
    q = np.full((n, 1), QUOTE, np.uint8)
    one = np.ones((n, 1), bool)
    if quote:
        mat = np.hstack([q, mat, q])
        keep = np.hstack([one, keep, one])
    return (np.hstack([mat, np.full((n, 1), COMMA, np.uint8)]), np.hstack([keep, one]))


def rows(columns: Sequence[Col], nan: bytes = b"") -> bytes:
    """The CSV text (``,`` between values, ``\\n`` after every row) of equally long columns.
    ``nan``: what a missing number becomes (``b""`` an empty field, ``b"?"`` for ARFF)."""
    mats, keeps = [], []
    n = None
    for c in columns:
        if c.numbers is not None:
            m, k = _numbers(np.asarray(c.numbers), int(c.decimals), nan)
        else:
            m, k = _text(c.text, c.quote)
        if n is None:
            n = m.shape[0]
        elif m.shape[0] != n:
            raise ValueError("columns of different lengths")
        mats.append(m)
        keeps.append(k)
    if not n:
        return b""
    mat = np.hstack(mats) if len(mats) > 1 else mats[0]
    keep = np.hstack(keeps) if len(keeps) > 1 else keeps[0]
    mat[:, -1] = NEWLINE                     # the last value's comma ends the row
    return mat[keep].tobytes()


def matrix_rows(prefix: Sequence[Col], X: np.ndarray, decimals: Sequence[int],
                nan: bytes = b"") -> bytes:
    """``rows`` of ``prefix`` columns followed by the columns of ``X``, where runs of columns
    with the same number of decimals are formatted as one block."""
    cols = list(prefix)
    dec = [int(d) for d in decimals]
    j = 0
    while j < X.shape[1]:
        e = j
        while e < X.shape[1] and dec[e] == dec[j]:
            e += 1
        cols.append(Col(X[:, j:e], dec[j]))
        j = e
    return rows(cols, nan)
