"""The persisted result stores of ``reproduce/stores/``: what every section renders from, kept in
the repository so a study accumulates across sessions and machines and CI re-renders every
section without computing anything.

Layout (one folder per config store, named like the config)::

    reproduce/stores/<config>/manifest.json        fingerprint, config hash, sessions, files
    reproduce/stores/<config>/datasets.json        per data set: task, rows, feature names
    reproduce/stores/<config>/<data set>/runs.<i>.csv.gz         one row per run
    reproduce/stores/<config>/<data set>/scores.<i>.csv.gz       (run, measure, value)
    reproduce/stores/<config>/<data set>/importances.<i>.f64.gz  float64, little-endian
    reproduce/stores/<config>/<data set>/meta.<i>.json.gz        kept rankings' meta
    reproduce/stores/_work/<study>/manifest.json + files          a study's compute files

Why this format: gzip'd CSV and raw float64 are read by the plain install (no pyarrow), floats
are written as ``repr`` (exact round trip), the gzip header carries no time (re-exporting
unchanged runs changes no byte), and one folder per data set keeps a session that adds a
data set from rewriting the others. A part holds at most ``MAX_FILE`` bytes; parts split
further when a file would exceed it (the repository's limit is 2 MB per file).

What is kept: every run of the config's current plan (key, portable run hash, seed, sizes,
times: wall seconds of ranking and evaluation and, since it is recorded, the CPU seconds of
both, ``cpu_time_s``, the last column, empty in older stores; every score) and the
importances and meta a render reads (``keep``): all of them when they are small (``KEEP_ALL_BYTES``), else those the study's render and compute step read when
the store was written. A view asked for importances that were not kept says so
(``StudyError``) instead of returning something else.

Reading goes through an in-memory SQLite database with the runner's table and column names,
so ``StoreView`` runs the same queries on a persisted store as on a working one (results/):
the same rows, order and dtypes either way.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

# the result store's public functions (one import: the store module may move)
from frcli.results.store import DB_NAME, Store

FORMAT = 1
MAX_FILE = 1_900_000               # bytes per file (the repository allows 2 MB)
KEEP_ALL_BYTES = 2_000_000         # raw importances of a config below this: all are kept
PARTIAL_KEEP_BYTES = 20_000_000    # an interrupted run's store keeps all below this
MANIFEST = "manifest.json"
RUN_COLUMNS = ("split", "labeled", "method", "params", "phash", "seed", "n_train", "n_test",
               "rank_time_s", "eval_time_s", "n_targets", "imp", "meta", "cpu_time_s")

RunKey = tuple  # (dataset, split, labeled, method, params)


class NotKept(LookupError):
    """Importances or meta of a run that the persisted store does not hold."""


# --------------------------------------------------------------------------- small files
def _gz(data: bytes) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as fh:
        fh.write(data)
    return buf.getvalue()


def _write(path: Path, data: bytes) -> None:
    """Write only when the bytes differ (an unchanged store stays untouched)."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def write_json_gz(path: Path, obj: Any) -> None:
    """A study's compute file as gzipped JSON with no time in its header: a re-render that
    recomputes the same numbers changes no byte, and large tables stay under the 2 MB a
    committed file may take."""
    _write(path, _gz(json.dumps(obj).encode("utf-8")))


def read_json_gz(path: Path) -> Any:
    return json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))


def _csv(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> bytes:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if v is None else (repr(float(v)) if isinstance(v, float) else v)
                    for v in r])
    return out.getvalue().encode("utf-8")


def _read_csv(path: Path) -> list[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _int(s: str) -> int | None:
    return None if s == "" else int(s)


def _float(s: str) -> float | None:
    return None if s == "" else float(s)


def cpu_time(row: dict[str, str]) -> float | None:
    """A persisted run's CPU seconds (None: not recorded, as in stores written before the
    column existed)."""
    return _float(row.get("cpu_time_s") or "")


def read_manifest(folder: Path) -> dict | None:
    p = Path(folder) / MANIFEST
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None


def write_json(path: Path, doc: Any) -> None:
    _write(path, (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


# --------------------------------------------------------------------------- the working store
def _working_rows(sqlite_dir: Path):
    """(datasets, runs, scores, rankings) of a working SQLite store's current runs."""
    with Store(sqlite_dir, create=False) as st:
        con = st.conn
        cpu = "r.cpu_time_s" if st.has_cpu_time() else "NULL"
        datasets = {d: {"task": t, "n_examples": n, "feature_names": json.loads(f) if f else []}
                    for d, t, n, f in con.execute(
                        "SELECT dataset, task, n_examples, feature_names FROM datasets")}
        runs = con.execute(
            "SELECT r.run_id, r.dataset, r.split, r.labeled, r.method, r.params, r.run_hash, "
            "r.seed, r.n_train, r.n_test, r.rank_time_s, r.eval_time_s, g.n_targets, " + cpu +
            " FROM runs r JOIN current c USING (dataset, split, labeled, method, params) "
            "LEFT JOIN rankings g USING (run_id) "
            "ORDER BY r.dataset, r.split, r.labeled, r.method, r.params").fetchall()
        scores: dict[int, list[tuple[str, float | None]]] = {}
        for rid, m, v in con.execute("SELECT run_id, measure, value FROM scores "
                                     "ORDER BY run_id, measure"):
            scores.setdefault(rid, []).append((m, v))
    return datasets, runs, scores


def _working_ranking(sqlite_dir: Path, run_ids: list[int]) -> dict[int, tuple[bytes, str]]:
    out = {}
    with Store(sqlite_dir, create=False) as st:
        for i in range(0, len(run_ids), 500):
            chunk = run_ids[i:i + 500]
            q = ("SELECT run_id, importances, meta FROM rankings WHERE run_id IN (" +
                 ",".join("?" * len(chunk)) + ")")
            for rid, imp, meta in st.conn.execute(q, chunk):
                out[rid] = (imp or b"", meta or "{}")
    return out


# --------------------------------------------------------------------------- export
def export(sqlite_dir: Path, folder: Path, *, portable_hash, keep, manifest: dict) -> dict:
    """Write the current runs of the working store ``sqlite_dir`` to ``folder``.

    ``portable_hash(key)``: the run's definition hash without machine-specific paths (None:
    the run is not part of the config any more and is left out); ``keep``: 'all', or a set
    of run keys whose importances and meta are kept ('auto': all when they are small, else
    none; 'partial': the same with a larger bound, for an interrupted run whose render has
    not read anything yet). Returns the manifest written."""
    folder = Path(folder)
    datasets, runs, scores = _working_rows(sqlite_dir)
    runs = [r for r in runs if portable_hash(tuple(r[1:6])) is not None]
    n_imp = sum(len(datasets.get(r[1], {}).get("feature_names", [])) for r in runs)
    keep_all = keep == "all" or n_imp * 8 <= (PARTIAL_KEEP_BYTES if keep == "partial"
                                              else KEEP_ALL_BYTES)
    kept = {tuple(r[1:6]) for r in runs} if keep_all else \
        set(keep if keep not in ("auto", "partial") else ())
    ranking = _working_ranking(sqlite_dir, [r[0] for r in runs if tuple(r[1:6]) in kept])
    by_ds: dict[str, list] = {}
    for r in runs:
        by_ds.setdefault(r[1], []).append(r)
    written: set[Path] = set()
    files: dict[str, int] = {}
    for ds, rs in sorted(by_ds.items()):
        parts = _parts(rs, scores, ranking, kept, portable_hash)
        for i, part in enumerate(parts):
            for kind, data in part.items():
                p = folder / ds / f"{kind}.{i}.{_EXT[kind]}"
                _write(p, data)
                written.add(p)
                files[p.relative_to(folder).as_posix()] = len(data)
    write_json(folder / "datasets.json", {d: datasets[d] for d in sorted(by_ds)})
    written.add(folder / "datasets.json")
    # parts of earlier exports that are not written now (a data set left the config)
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p not in written and p.name != MANIFEST:
            p.unlink()
    for d in sorted(folder.glob("*"), reverse=True):
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()
    doc = {**manifest, "format": FORMAT, "runs": len(runs),
           "importances": "all" if keep_all else f"{len(kept)} of {len(runs)} runs",
           "bytes": sum(files.values()) + (folder / "datasets.json").stat().st_size,
           "datasets": {d: len(rs) for d, rs in sorted(by_ds.items())}}
    write_json(folder / MANIFEST, doc)
    return doc


_EXT = {"runs": "csv.gz", "scores": "csv.gz", "importances": "f64.gz", "meta": "json.gz"}


def _parts(rs, scores, ranking, kept, portable_hash, size: int | None = None) -> list[dict]:
    """The files of one data set's runs, split into parts of at most MAX_FILE bytes."""
    size = size or len(rs)
    out = []
    for start in range(0, len(rs), size):
        chunk = rs[start:start + size]
        rows, srows, blobs, metas, offset = [], [], [], {}, 0
        for i, r in enumerate(chunk):
            rid, key = r[0], tuple(r[1:6])
            imp = meta = None
            if key in kept and rid in ranking:
                b, m = ranking[rid]
                imp = offset
                blobs.append(b)
                offset += len(b) // 8
                metas[str(i)] = json.loads(m)
                meta = 1
            rows.append([r[2], r[3], r[4], r[5], portable_hash(key), r[7], r[8], r[9], r[10],
                         r[11], r[12], imp, meta, r[13]])
            srows += [[i, m, v] for m, v in scores.get(rid, [])]
        part = {"runs": _gz(_csv(RUN_COLUMNS, rows)),
                "scores": _gz(_csv(("run", "measure", "value"), srows))}
        if blobs:
            part["importances"] = _gz(b"".join(blobs))
            part["meta"] = _gz(json.dumps(metas, sort_keys=True).encode("utf-8"))
        if max(len(v) for v in part.values()) > MAX_FILE and len(chunk) > 1:
            return _parts(rs, scores, ranking, kept, portable_hash, size=max(1, size // 2))
        out.append(part)
    return out


# --------------------------------------------------------------------------- reading
class Persisted:
    """A persisted config store (read-only)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.manifest = read_manifest(self.folder)

    @property
    def exists(self) -> bool:
        return self.manifest is not None

    @property
    def fingerprint(self) -> str | None:
        return (self.manifest or {}).get("fingerprint")

    def datasets(self) -> dict[str, dict]:
        p = self.folder / "datasets.json"
        return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}

    def _part_files(self):
        for d in sorted(x for x in self.folder.iterdir() if x.is_dir()):
            for runs in sorted(d.glob("runs.*.csv.gz"), key=lambda p: int(p.name.split(".")[1])):
                i = runs.name.split(".")[1]
                yield d.name, i, runs

    def read(self, with_blobs: bool = True):
        """Yield (key, row dict, scores [(measure, value)], importances bytes or None, meta
        dict or None) of every run, in file order."""
        if not self.exists:
            return
        for ds, i, runs_file in self._part_files():
            d = runs_file.parent
            rows = _read_csv(runs_file)
            sc: dict[int, list] = {}
            for s in _read_csv(d / f"scores.{i}.csv.gz"):
                sc.setdefault(int(s["run"]), []).append((s["measure"], _float(s["value"])))
            blob = metas = None
            if with_blobs and (d / f"importances.{i}.f64.gz").is_file():
                blob = gzip.decompress((d / f"importances.{i}.f64.gz").read_bytes())
                metas = json.loads(gzip.decompress((d / f"meta.{i}.json.gz").read_bytes()))
            n_feat = len(self.datasets().get(ds, {}).get("feature_names", [])) \
                if blob is not None else 0
            for j, r in enumerate(rows):
                key = (ds, int(r["split"]), int(r["labeled"]), r["method"], r["params"])
                imp = meta = None
                if blob is not None and r["imp"] != "":
                    o = int(r["imp"]) * 8
                    imp = blob[o:o + 8 * n_feat]
                    meta = metas.get(str(j))
                yield key, r, sc.get(j, []), imp, meta

    def kept_keys(self) -> set[RunKey]:
        """The runs whose importances and meta are kept."""
        return {key for key, r, *_ in self.read(with_blobs=False) if r["imp"] != ""}

    def phashes(self) -> dict[RunKey, str]:
        return {key: r["phash"] for key, r, *_ in self.read(with_blobs=False)}

    def connect(self) -> sqlite3.Connection:
        """An in-memory SQLite database with the runner's tables, holding this store."""
        con = sqlite3.connect(":memory:")
        con.executescript(_MEMORY_SCHEMA)
        for d, info in self.datasets().items():
            con.execute("INSERT INTO datasets VALUES (?, ?, ?, ?)",
                        (d, info["task"], info["n_examples"], json.dumps(info["feature_names"])))
        runs, scores, rankings = [], [], []
        for rid, (key, r, sc, imp, meta) in enumerate(self.read(), start=1):
            runs.append((rid, *key, r["phash"], _int(r["seed"]), _int(r["n_train"]),
                         _int(r["n_test"]), _float(r["rank_time_s"]),
                         _float(r["eval_time_s"])))
            scores += [(rid, m, v) for m, v in sc]
            rankings.append((rid, imp, _int(r["n_targets"]),
                             None if meta is None else json.dumps(meta, sort_keys=True)))
        con.executemany("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", runs)
        con.executemany("INSERT INTO scores VALUES (?, ?, ?)", scores)
        con.executemany("INSERT INTO rankings VALUES (?, ?, ?, ?)", rankings)
        con.executemany("INSERT INTO current VALUES (?, ?, ?, ?, ?)", [r[1:6] for r in runs])
        return con


_MEMORY_SCHEMA = """
CREATE TABLE datasets (dataset TEXT PRIMARY KEY, task TEXT, n_examples INTEGER,
                       feature_names TEXT);
CREATE TABLE runs (run_id INTEGER PRIMARY KEY, dataset TEXT NOT NULL, split INTEGER NOT NULL,
                   labeled INTEGER NOT NULL, method TEXT NOT NULL, params TEXT NOT NULL,
                   run_hash TEXT NOT NULL, seed INTEGER, n_train INTEGER, n_test INTEGER,
                   rank_time_s REAL, eval_time_s REAL);
CREATE TABLE scores (run_id INTEGER NOT NULL, measure TEXT NOT NULL, value REAL,
                     PRIMARY KEY (run_id, measure));
CREATE TABLE current (dataset TEXT, split INTEGER, labeled INTEGER, method TEXT, params TEXT,
                      PRIMARY KEY (dataset, split, labeled, method, params));
CREATE TABLE rankings (run_id INTEGER PRIMARY KEY, importances BLOB, n_targets INTEGER,
                       meta TEXT);
"""


# --------------------------------------------------------------------------- seeding
def seed(folders: Path | Sequence[Path], sqlite_dir: Path, *, local_run, log=None) -> int:
    """Write persisted stores' runs into a new working store (``results/``) so the runner
    resumes from them. ``local_run(key, portable hash)``: (this machine's run hash,
    definition) of a run of the current plan with that definition, or None (then the run is
    left out and computed again). A run found in several folders is taken from the first.
    Runs whose importances were not kept get an empty ranking and ``{"not_kept": true}``
    meta (``StoreView`` refuses to return them). Returns the number of runs written."""
    folders = [Path(folders)] if isinstance(folders, (str, Path)) else list(folders)
    n = 0
    sqlite_dir = Path(sqlite_dir)
    tmp = sqlite_dir.with_name(sqlite_dir.name + ".seeding")
    if tmp.exists():
        shutil.rmtree(tmp)
    done: set = set()
    sets_put: set[str] = set()
    with Store(tmp) as st:
        for p in map(Persisted, folders):
            sets = p.datasets()
            for key, r, sc, imp, meta in p.read():
                local = None if key in done else local_run(key, r["phash"])
                if local is None:
                    continue
                if key[0] not in sets_put:
                    info = sets[key[0]]
                    st.put_dataset(key[0], info["task"], info["n_examples"],
                                   info["feature_names"])
                    sets_put.add(key[0])
                done.add(key)
                run_hash, definition = local
                st.put_run(key, run_hash=run_hash, definition=definition,
                           seed=_int(r["seed"]), n_train=_int(r["n_train"]),
                           n_test=_int(r["n_test"]), rank_time_s=_float(r["rank_time_s"]),
                           eval_time_s=_float(r["eval_time_s"]), cpu_time_s=cpu_time(r),
                           scores={m: (np.nan if v is None else v) for m, v in sc},
                           importances=np.frombuffer(imp, "<f8") if imp is not None else
                           np.empty(0), meta=meta if imp is not None else {"not_kept": True},
                           n_targets=_int(r["n_targets"]))
                n += 1
                if log and n % 2000 == 0:
                    log(f"  {n} runs")
    (tmp / "results.lock").unlink(missing_ok=True)
    tmp.replace(sqlite_dir)
    return n


def is_working_store(path: Path) -> bool:
    return (Path(path) / DB_NAME).is_file()
