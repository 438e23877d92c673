"""The result store: one SQLite file per experiment (``<output>/<name>/results.sqlite``).

Why SQLite: a transaction per run makes a kill at any moment (SIGKILL, power loss) leave either
the whole run or nothing (WAL journal, ``synchronous=FULL``), and it needs no server. Only the
client process writes; workers return results.

Tables
* ``runs``: one row per (dataset, split, labeled, method, params) with its hash, seed and times:
  wall seconds of ranking and of evaluation, and ``cpu_time_s``, the CPU seconds the worker
  process spent on both (NULL in stores made before it was recorded: the column is added
  when such a store is next opened for writing).
* ``scores``: (run, measure, value).
* ``rankings``: (run, importances as float64 bytes, per-target importances, meta JSON).
* ``datasets``: feature names and task per data set (written once).
* ``current``: the run keys of the latest config; exports show only these runs (runs of
  entries since removed from the config stay stored but are not mixed in; ``all_runs=True``).
* ``meta``: the config text of the latest invocation, schema version.

Safety: one writer per folder (``StoreLock``, a ``flock`` on ``results.lock`` holding
the writer's pid; the kernel drops it when the process dies, so a stale lock is simply taken
over); a new store is built under a temporary name and renamed into place, so an empty or
half-made ``results.sqlite`` is always damage, never "a new store"; every opening checks the
header and ``PRAGMA quick_check`` and refuses a damaged store (``--force`` moves it aside and
starts anew); readers open read-only (``mode=ro``; ``immutable`` in a read-only folder).
"""
from __future__ import annotations

import functools
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

import numpy as np

SCHEMA_VERSION = 1
DB_NAME = "results.sqlite"
LOCK_NAME = "results.lock"
_HEADER = b"SQLite format 3\x00"

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
    rank_time_s REAL, eval_time_s REAL, finished_at REAL, cpu_time_s REAL,
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


# -- safety: damage, read-only folders, the writer lock --------------------------------------

def _guarded(method):
    """SQLite errors of a store method as one-line ``UserError``s (damage found only when a
    page is read, a folder that became read-only, a full disk) instead of tracebacks."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as e:
            raise _store_error(e, self.path, self.dir) from None
    return wrapper


def _store_error(e: sqlite3.DatabaseError, path: Path, directory: Path):
    from frcli.errors import UserError

    name = getattr(e, "sqlite_errorname", "") or ""
    text = str(e)
    if name.startswith("SQLITE_READONLY") or "readonly" in text:
        return UserError(read_only_message(directory))
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return UserError(f"{path}: the disk is full; the runs stored so far are kept, free "
                         "some space and rerun to continue")
    if name.startswith("SQLITE_BUSY") or "locked" in text:
        return UserError(f"{path}: the store is busy (locked by another process); try again")
    if isinstance(e, sqlite3.OperationalError) and name.startswith(("SQLITE_CANTOPEN",
                                                                    "SQLITE_IOERR")):
        return UserError(f"{path}: cannot open or read the store: {text}")
    return UserError(f"{path}: not a usable frcli result store: it is damaged ({text}); "
                     "nothing was changed: move it away, or rerun the experiment with --force "
                     "to start a new store (the damaged file is kept beside it)")


def read_only_message(directory: Path) -> str:
    return (f"{directory} is read-only: results cannot be written there; make it writable or "
            f"choose another --output (reading it, e.g. frcli results export, works)")


def _writable(p: Path) -> bool:
    return os.access(p, os.W_OK)


def damage(path: Path) -> str | None:
    """What is wrong with the store file at ``path`` (None: intact). Cheap: the size, the
    16-byte SQLite header and ``PRAGMA quick_check`` (one pass over the pages, no index
    cross-checks)."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(len(_HEADER))
    except OSError as e:
        return f"cannot read it ({e.strerror or e})"
    if size == 0:
        return "it is empty (0 bytes: truncated)"
    if head != _HEADER:
        return "it is not an SQLite database (bad header)"
    try:
        con = _connect_readonly(path)
    except sqlite3.DatabaseError as e:
        return f"it cannot be opened ({e})"
    try:
        rows = con.execute("PRAGMA quick_check(3)").fetchall()
    except sqlite3.DatabaseError as e:
        return f"it is damaged ({e})"
    finally:
        con.close()
    if rows != [("ok",)]:
        found = [line.strip() for r in rows for line in str(r[0]).splitlines()
                 if line.strip() and not line.startswith("***")]
        text = "; ".join(found[:2]) + ("; ..." if len(found) > 2 else "")
        return f"it is damaged (integrity check: {text})"
    return None


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """``mode=ro``; in a read-only folder SQLite cannot make the WAL index (``-shm``) it
    needs even to read, and nothing can write there, so the file is opened ``immutable``."""
    from urllib.parse import quote

    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True, isolation_level=None)
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return con
    except sqlite3.OperationalError:
        wal = path.with_name(path.name + "-wal")
        if _writable(path.parent) or (wal.exists() and wal.stat().st_size > 0):
            raise
    return sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None)


def _create(path: Path) -> None:
    """A new store with its schema, built under a temporary name and renamed into place."""
    tmp = path.with_name(path.name + ".new")
    for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm"),
                     tmp.with_name(tmp.name + "-journal")):
        leftover.unlink(missing_ok=True)
    con = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.executescript(_SCHEMA)
        con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),))
    finally:
        con.close()           # the last connection checkpoints the WAL into the file
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _move_aside(path: Path) -> Path:
    """Rename a damaged store (and its WAL files) to ``results.sqlite.damaged-<time>``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    k = 1
    while kept.exists():
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{k}")
        k += 1
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, kept.with_name(kept.name + suffix))
    os.replace(path, kept)
    return kept


class StoreLock:
    """The writer lock of a result folder: ``flock`` on ``results.lock``, which holds the
    writer's pid. The kernel releases it when the process ends (even by SIGKILL), so a lock
    file left by a dead process is taken over without ceremony. Where ``flock`` is missing
    (not POSIX) or refused (some network file systems), the pid in the file decides: a live
    process other than this one holds the folder."""

    def __init__(self, directory: Path):
        from frcli.errors import UserError

        self.path = Path(directory) / LOCK_NAME
        try:
            self.fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise UserError(f"cannot create the lock file {self.path}: "
                            f"{e.strerror or e}") from None
        holder = None
        try:
            import fcntl
        except ImportError:          # pragma: no cover - not POSIX
            fcntl = None
        try:
            if fcntl is None:
                raise OSError("no flock")
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self._holder() or "unknown"
        except OSError:              # flock unsupported here: fall back on the pid
            pid = self._holder()
            if pid and pid != os.getpid() and _alive(pid):
                holder = pid
        if holder is not None:
            os.close(self.fd)
            self.fd = None
            raise UserError(f"{directory} is in use: another frcli process (pid {holder}) is "
                            f"writing to it; wait for it to finish, or choose another --output")
        os.ftruncate(self.fd, 0)
        os.write(self.fd, f"{os.getpid()}\n".encode())

    def _holder(self) -> int | None:
        try:
            with open(self.path, encoding="ascii", errors="replace") as fh:
                return int(fh.read(32).strip() or 0) or None
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.ftruncate(self.fd, 0)
            except OSError:
                pass
            os.close(self.fd)        # drops the flock
            self.fd = None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True



class Store:
    """A result folder's SQLite store.

    ``create=True`` opens it for writing (the experiment runner): creates the folder and the
    store when absent, takes the folder's writer lock (``StoreLock``: a second writer gets a
    ``UserError`` naming the holder's pid) and refuses a damaged store unless
    ``replace_damaged`` (``--force``), which moves it aside (never deletes it).
    ``create=False`` opens an existing store read-only (exports, stats, summaries): it works
    in a read-only folder and takes no lock (SQLite's WAL lets readers run beside a writer).
    Both check the store's integrity on opening (``damage``).
    """

    def __init__(self, directory: str | Path, *, create: bool = True,
                 replace_damaged: bool = False):
        from frcli.errors import UserError

        self.dir = Path(directory)
        self.path = path = self.dir / DB_NAME
        self.readonly = not create
        self._lock: StoreLock | None = None
        if not create:
            if not path.is_file():
                raise UserError(f"no result store in {self.dir} (expected {DB_NAME})")
            problem = damage(path)
            if problem:
                raise UserError(f"{path}: not a usable frcli result store: {problem}")
            self.conn = _connect_readonly(path)
            self._check_tables()
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create the result folder {self.dir}: "
                            f"{e.strerror or e}") from None
        if not _writable(self.dir) or (path.exists() and not _writable(path)):
            raise UserError(read_only_message(self.dir))
        self._lock = StoreLock(self.dir)
        try:
            self._open_for_writing(replace_damaged)
        except BaseException:
            self._lock.release()
            raise

    def _open_for_writing(self, replace_damaged: bool) -> None:
        from frcli.errors import UserError

        path = self.path
        if path.exists():
            problem = damage(path)
            if problem and not replace_damaged:
                raise UserError(
                    f"{path}: not a usable frcli result store: {problem}; nothing was "
                    f"changed: move it away, or rerun with --force to start a new store "
                    f"(the damaged file is kept beside it)")
            if problem:
                kept = _move_aside(path)
                import warnings

                warnings.warn(f"{path}: {problem}; moved it to {kept.name} and started a new "
                              f"store (--force)", stacklevel=3)
        if not path.exists():
            _create(path)
        try:
            self.conn = sqlite3.connect(str(path), timeout=60, isolation_level=None)
            self._check_tables()          # before anything writes (a foreign database)
            if not self.has_cpu_time():   # a store made before CPU time was recorded
                self.conn.execute("ALTER TABLE runs ADD COLUMN cpu_time_s REAL")
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self._set_meta("schema_version", str(SCHEMA_VERSION))
        except sqlite3.DatabaseError as e:
            if hasattr(self, "conn"):
                self.conn.close()
            raise _store_error(e, path, self.dir) from None

    def _check_tables(self) -> None:
        from frcli.errors import UserError

        try:
            have = {r[0] for r in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise _store_error(e, self.path, self.dir) from None
        if not {"runs", "scores", "current"} <= have:
            self.conn.close()
            raise UserError(f"{self.path}: not a usable frcli result store (it has no frcli "
                            f"result tables); nothing was changed: use another --output")

    def close(self) -> None:
        try:
            self.conn.close()
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- meta --------------------------------------------------------------------------
    @_guarded
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
    @_guarded
    def has_cpu_time(self) -> bool:
        """Whether the runs table has the ``cpu_time_s`` column (stores made before it was
        recorded lack it until they are opened for writing)."""
        return any(r[1] == "cpu_time_s" for r in self.conn.execute("PRAGMA table_info(runs)"))

    @_guarded
    def finished(self) -> dict[RunKey, str]:
        """Run key → run hash of every stored run."""
        rows = self.conn.execute(
            "SELECT dataset, split, labeled, method, params, run_hash FROM runs")
        return {tuple(r[:5]): r[5] for r in rows}

    @_guarded
    def definition(self, key: RunKey) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT definition FROM runs WHERE dataset=? AND split=? AND labeled=? AND "
            "method=? AND params=?", key).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    @_guarded
    def set_current(self, keys: Iterable[RunKey]) -> None:
        """Record the run keys of the config being run (replacing the previous ones)."""
        with self._tx():
            self.conn.execute("DELETE FROM current")
            self.conn.executemany("INSERT OR IGNORE INTO current VALUES (?, ?, ?, ?, ?)",
                                  keys)          # streamed: a large plan is never a list

    @_guarded
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

    @_guarded
    def config_text(self) -> str:
        """The config of the latest invocation, as written ("" when none was stored)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='config'").fetchone()
        return row[0] if row else ""

    @_guarded
    def dataset_rows(self) -> list[tuple[str, str, int, str]]:
        """(dataset, task, n_examples, feature names as JSON) of every stored data set, by
        name."""
        return self.conn.execute("SELECT dataset, task, n_examples, feature_names FROM "
                                 "datasets ORDER BY dataset").fetchall()

    @_guarded
    def run_totals(self) -> tuple[int, float, float]:
        """(stored runs, their ranking seconds, their evaluation seconds), over every run."""
        n, rank_s, eval_s = self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(rank_time_s), 0), COALESCE(SUM(eval_time_s), 0) "
            "FROM runs").fetchone()
        return int(n), float(rank_s), float(eval_s)

    @_guarded
    def ranking(self, key: RunKey) -> tuple[list[str], np.ndarray] | None:
        row = self.conn.execute(
            "SELECT g.importances, d.feature_names FROM runs r JOIN rankings g USING (run_id) "
            "LEFT JOIN datasets d ON d.dataset = r.dataset WHERE r.dataset=? AND r.split=? "
            "AND r.labeled=? AND r.method=? AND r.params=?", key).fetchone()
        if row is None:
            return None
        return json.loads(row[1]) if row[1] else [], np.frombuffer(row[0], dtype=np.float64)

    # -- writing -----------------------------------------------------------------------
    @_guarded
    def put_dataset(self, name: str, task: str, n_examples: int,
                    feature_names: list[str]) -> None:
        with self._tx():
            self.conn.execute("INSERT OR REPLACE INTO datasets VALUES (?, ?, ?, ?)",
                              (name, task, n_examples, json.dumps(feature_names)))

    @_guarded
    def put_run(self, key: RunKey, *, run_hash: str, definition: dict[str, Any], seed: int,
                n_train: int, n_test: int, rank_time_s: float, eval_time_s: float,
                scores: dict[str, float], importances: np.ndarray,
                per_target: np.ndarray | None = None, meta: dict | None = None,
                n_targets: int | None = None, cpu_time_s: float | None = None) -> None:
        """Write one run, its scores and its ranking in a single transaction (replacing a
        stored run with the same key). ``n_targets``: the per-target rankings' count when
        their matrix is not given (a run copied from a store that kept only the count);
        ``cpu_time_s``: the CPU seconds of its ranking and evaluation (None: not measured)."""
        imp = np.ascontiguousarray(importances, dtype=np.float64)
        pt = None if per_target is None else np.ascontiguousarray(per_target, np.float64)
        with self._tx():
            self.conn.execute(
                "DELETE FROM runs WHERE dataset=? AND split=? AND labeled=? AND method=? "
                "AND params=?", key)
            cur = self.conn.execute(
                "INSERT INTO runs (dataset, split, labeled, method, params, run_hash, "
                "definition, seed, n_train, n_test, rank_time_s, eval_time_s, finished_at, "
                "cpu_time_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*key, run_hash, json.dumps(definition, sort_keys=True, default=str),
                 int(seed), int(n_train), int(n_test), float(rank_time_s), float(eval_time_s),
                 time.time(), None if cpu_time_s is None else float(cpu_time_s)))
            rid = cur.lastrowid
            self.conn.executemany(
                "INSERT INTO scores VALUES (?, ?, ?)",
                [(rid, m, None if v is None or not np.isfinite(v) else float(v))
                 for m, v in sorted(scores.items())])
            self.conn.execute(
                "INSERT INTO rankings VALUES (?, ?, ?, ?, ?)",
                (rid, imp.tobytes(), None if pt is None else pt.tobytes(),
                 n_targets if pt is None else pt.shape[0],
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
