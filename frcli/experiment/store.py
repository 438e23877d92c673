"""The result store: one SQLite file per experiment (``<output>/<name>/results.sqlite``).

Why SQLite: a transaction per run makes a kill at any moment (SIGKILL, power loss) leave either
the whole run or nothing (WAL journal, ``synchronous=FULL``), and it needs no server. Only the
client process writes; workers return results.

Tables
* ``runs``: one row per (dataset, split, labeled, method, params) with its hash, seed and times.
* ``scores``: (run, measure, value).
* ``rankings``: (run, importances as float64 bytes, per-target importances, meta JSON).
* ``datasets``: feature names and task per data set (written once).
* ``current``: the run keys of the latest config; exports show only these runs (runs of
  entries since removed from the config stay stored but are not mixed in; ``all_runs=True``).
* ``meta``: the config text of the latest invocation, schema version.
"""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

import numpy as np

SCHEMA_VERSION = 1
DB_NAME = "results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS datasets (
    dataset TEXT PRIMARY KEY, task TEXT, n_examples INTEGER, feature_names TEXT);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    dataset TEXT NOT NULL, split INTEGER NOT NULL, labeled INTEGER NOT NULL,
    method TEXT NOT NULL, params TEXT NOT NULL,
    run_hash TEXT NOT NULL, definition TEXT, seed INTEGER,
    n_train INTEGER, n_test INTEGER,
    rank_time_s REAL, eval_time_s REAL, finished_at REAL,
    UNIQUE (dataset, split, labeled, method, params));
CREATE TABLE IF NOT EXISTS scores (
    run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    measure TEXT NOT NULL, value REAL,
    PRIMARY KEY (run_id, measure));
CREATE TABLE IF NOT EXISTS current (
    dataset TEXT, split INTEGER, labeled INTEGER, method TEXT, params TEXT,
    PRIMARY KEY (dataset, split, labeled, method, params));
CREATE TABLE IF NOT EXISTS rankings (
    run_id INTEGER PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
    importances BLOB, per_target BLOB, n_targets INTEGER, meta TEXT);
"""

RunKey = tuple[str, int, int, str, str]


class Store:
    def __init__(self, directory: str | Path, *, create: bool = True):
        self.dir = Path(directory)
        path = self.dir / DB_NAME
        if not create and not path.is_file():
            from frcli.errors import UserError

            raise UserError(f"no result store in {self.dir} (expected {DB_NAME})")
        from frcli.errors import UserError

        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create the result folder {self.dir}: "
                            f"{e.strerror or e}") from None
        self.path = path
        try:
            self.conn = sqlite3.connect(str(path), timeout=60, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            if create:
                self.conn.executescript(_SCHEMA)
                self._set_meta("schema_version", str(SCHEMA_VERSION))
            else:
                have = {r[0] for r in self.conn.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")}
                if not {"runs", "scores", "current"} <= have:
                    raise sqlite3.DatabaseError("it has no frcli result tables")
        except sqlite3.DatabaseError as e:  # not a database, not ours, or not writable
            if hasattr(self, "conn"):
                self.conn.close()
            raise UserError(f"{path}: not a usable frcli result store ({e})") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- meta --------------------------------------------------------------------------
    def _set_meta(self, key: str, value: str) -> None:
        with self._tx():
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def save_config(self, text: str) -> None:
        """Keep the config in the database and as ``config.yaml`` next to it (atomically)."""
        self._set_meta("config", text)
        tmp = self.dir / "config.yaml.tmp"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(self.dir / "config.yaml")

    def _tx(self):
        return _Transaction(self.conn)

    # -- reading -----------------------------------------------------------------------
    def finished(self) -> dict[RunKey, str]:
        """Run key → run hash of every stored run."""
        rows = self.conn.execute(
            "SELECT dataset, split, labeled, method, params, run_hash FROM runs")
        return {tuple(r[:5]): r[5] for r in rows}

    def definition(self, key: RunKey) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT definition FROM runs WHERE dataset=? AND split=? AND labeled=? AND "
            "method=? AND params=?", key).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    def set_current(self, keys: Iterable[RunKey]) -> None:
        """Record the run keys of the config being run (replacing the previous ones)."""
        with self._tx():
            self.conn.execute("DELETE FROM current")
            self.conn.executemany("INSERT OR IGNORE INTO current VALUES (?, ?, ?, ?, ?)",
                                  list(keys))

    def tidy(self, all_runs: bool = False) -> list[tuple]:
        """Rows of the tidy table (see ``TIDY_COLUMNS``), in a fixed order: the runs of the
        latest config, or every stored run with ``all_runs``."""
        has_table = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='current'").fetchone()
        has_current = bool(has_table) and self.conn.execute(
            "SELECT COUNT(*) FROM current").fetchone()[0] > 0
        where = ""
        if has_current and not all_runs:
            where = ("WHERE (r.dataset, r.split, r.labeled, r.method, r.params) IN "
                     "(SELECT dataset, split, labeled, method, params FROM current) ")
        return list(self.conn.execute(
            "SELECT r.dataset, r.split, r.labeled, r.method, r.params, s.measure, s.value, "
            "r.rank_time_s, r.eval_time_s FROM runs r JOIN scores s USING (run_id) " + where +
            "ORDER BY r.dataset, r.split, r.labeled, r.method, r.params, s.measure"))

    def ranking(self, key: RunKey) -> tuple[list[str], np.ndarray] | None:
        row = self.conn.execute(
            "SELECT g.importances, d.feature_names FROM runs r JOIN rankings g USING (run_id) "
            "LEFT JOIN datasets d ON d.dataset = r.dataset WHERE r.dataset=? AND r.split=? "
            "AND r.labeled=? AND r.method=? AND r.params=?", key).fetchone()
        if row is None:
            return None
        return json.loads(row[1]) if row[1] else [], np.frombuffer(row[0], dtype=np.float64)

    # -- writing -----------------------------------------------------------------------
    def put_dataset(self, name: str, task: str, n_examples: int,
                    feature_names: list[str]) -> None:
        with self._tx():
            self.conn.execute("INSERT OR REPLACE INTO datasets VALUES (?, ?, ?, ?)",
                              (name, task, n_examples, json.dumps(feature_names)))

    def put_run(self, key: RunKey, *, run_hash: str, definition: dict[str, Any], seed: int,
                n_train: int, n_test: int, rank_time_s: float, eval_time_s: float,
                scores: dict[str, float], importances: np.ndarray,
                per_target: np.ndarray | None = None, meta: dict | None = None) -> None:
        """Write one run, its scores and its ranking in a single transaction (replacing a
        stored run with the same key)."""
        imp = np.ascontiguousarray(importances, dtype=np.float64)
        pt = None if per_target is None else np.ascontiguousarray(per_target, np.float64)
        with self._tx():
            self.conn.execute(
                "DELETE FROM runs WHERE dataset=? AND split=? AND labeled=? AND method=? "
                "AND params=?", key)
            cur = self.conn.execute(
                "INSERT INTO runs (dataset, split, labeled, method, params, run_hash, "
                "definition, seed, n_train, n_test, rank_time_s, eval_time_s, finished_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*key, run_hash, json.dumps(definition, sort_keys=True, default=str),
                 int(seed), int(n_train), int(n_test), float(rank_time_s), float(eval_time_s),
                 time.time()))
            rid = cur.lastrowid
            self.conn.executemany(
                "INSERT INTO scores VALUES (?, ?, ?)",
                [(rid, m, None if v is None or not np.isfinite(v) else float(v))
                 for m, v in sorted(scores.items())])
            self.conn.execute(
                "INSERT INTO rankings VALUES (?, ?, ?, ?, ?)",
                (rid, imp.tobytes(), None if pt is None else pt.tobytes(),
                 None if pt is None else pt.shape[0],
                 json.dumps(meta or {}, sort_keys=True, default=str)))


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, ROLLBACK on error (the connection is in autocommit mode)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")
        return False


TIDY_COLUMNS = ("dataset", "split", "labeled", "method", "params", "measure", "value",
                "rank_time_s", "eval_time_s")


def tidy_frame(directory: str | Path, all_runs: bool = False):
    """The tidy table of a result folder as a pandas DataFrame (``labeled`` NA = all rows)."""
    import pandas as pd

    with Store(directory, create=False) as st:
        rows = st.tidy(all_runs)
    df = pd.DataFrame(rows, columns=list(TIDY_COLUMNS))
    df["labeled"] = df["labeled"].astype("Int64").mask(df["labeled"] == 0)
    return df


def dataset_tasks(directory: str | Path) -> dict[str, str]:
    """Data set → task of a result store (what decides each data set's main measure)."""
    with Store(directory, create=False) as st:
        return dict(st.conn.execute("SELECT dataset, task FROM datasets").fetchall())


def is_store(path: str | Path) -> bool:
    return (Path(path) / DB_NAME).is_file()


def find_stores(path: str | Path) -> list[Path]:
    """The result stores ``path`` stands for: itself when it is one, else the stores directly
    inside it (``results/`` holding ``results/<name>/``), by name. A missing or store-less
    folder is a ``UserError`` that says what is there instead (and the stores nearby)."""
    from frcli.errors import UserError, did_you_mean

    p = Path(path)
    if is_store(p):
        return [p]
    if not p.exists():
        near = sorted(q.name for q in p.parent.glob("*") if is_store(q)) \
            if p.parent.is_dir() else []
        hint = did_you_mean(p.name, near)
        there = (f"; result stores in {p.parent}: {', '.join(near)}" if near else "")
        raise UserError(f"{p}: no such folder{hint}{there}")
    if not p.is_dir():
        raise UserError(f"{p}: a file, not a result folder (a folder with {DB_NAME}, written "
                        "by frcli experiment)")
    inside = sorted(q for q in p.iterdir() if q.is_dir() and is_store(q))
    if inside:
        return inside
    raise UserError(f"{p}: no result store here (a folder with {DB_NAME}, written by frcli "
                    f"experiment); found {_describe_folder(p)}")


def _describe_folder(p: Path, shown: int = 4) -> str:
    files = sorted(q.name for q in p.iterdir() if q.is_file() and not q.name.startswith("."))
    dirs = sorted(q.name for q in p.iterdir() if q.is_dir() and not q.name.startswith("."))
    parts = []
    for what, names in (("file", files), ("folder without a store", dirs)):
        if names:
            more = f", ... ({len(names) - shown} more)" if len(names) > shown else ""
            plural = "s" if len(names) > 1 else ""
            if what.startswith("folder") and plural:
                what = "folders without a store"
                plural = ""
            parts.append(f"{len(names)} {what}{plural} ({', '.join(names[:shown])}{more})")
    return " and ".join(parts) if parts else "nothing (an empty folder)"


def tidy_frames(path: str | Path, all_runs: bool = False):
    """The tidy table of every store ``path`` stands for (``find_stores``); when ``path`` is a
    folder of stores, an ``experiment`` column (the store's folder name) comes first."""
    import pandas as pd

    stores = find_stores(path)
    if stores == [Path(path)]:
        return tidy_frame(path, all_runs)
    frames = []
    for s in stores:
        df = tidy_frame(s, all_runs)
        df.insert(0, "experiment", s.name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)
