"""A folder of CSV tables plus a small YAML schema → ``RelationalDataset`` (§A2, thesis
Ch. 3.3.1): how a user with a database export comes.

``schema.yaml`` (keys in brackets are optional)::

    target: {table: movies, column: genre}
    tables:
      movies:  {key: movie_id, [file: movies.csv], [nominal: [year]], [exclude: [url]]}
      ratings: {key: [user_id, movie_id],                 # no own ID: the key is foreign
                foreign_keys: {user_id: users, movie_id: movies}}
      users:   {key: user_id, foreign_keys: {nation_id: nations}}

Conversion (§A2): a table with a one-column key is an ID domain named after the table; each
feature column ``x`` of table ``T`` becomes the relation ``T.x(T, x)``, each foreign key ``f``
the relation ``T.f(T, Referenced)``. A table whose key is made of foreign keys (``ratings``)
has no own objects: its feature ``x`` becomes ``T.x(K1, ..., Kj, x)``. An empty cell is no
fact (closed world). Columns are numeric when every value parses as a number, else nominal
(``nominal:`` forces). Every relation is entered through any one of its ID arguments
(``old`` there, ``new`` elsewhere). The target column becomes the target relation.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from frcli.data.relational.model import (Mode, Relation, RelationalDataset, build_domain,
                                         check_leaks)
from frcli.errors import DataError

SCHEMA_NAMES = ("schema.yaml", "schema.yml")
TOP_KEYS = ("target", "tables", "name")
TABLE_KEYS = ("key", "file", "foreign_keys", "nominal", "exclude")
MISSING = ("", "?", "NA", "nan", "NaN")


def find_schema(path: str | Path) -> Path | None:
    p = Path(path)
    if p.is_file() and p.suffix in (".yaml", ".yml"):
        return p
    if p.is_dir():
        for n in SCHEMA_NAMES:
            if (p / n).is_file():
                return p / n
    return None


def _check_keys(d, allowed, src, where) -> dict:
    if not isinstance(d, dict):
        raise DataError(f"{where}: expected a mapping", src)
    for k in d:
        if k not in allowed:
            raise DataError(f"{where}: unknown key {k!r}; allowed: {', '.join(allowed)}", src)
    return d


def _as_list(v, src, where) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return list(v)
    raise DataError(f"{where}: expected a column name or a list of names", src)


def _read_table(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError("table file not found", str(path)) from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or not any(h.strip() for h in rows[0]):
        raise DataError("empty file (a header row is required)", str(path), 1)
    header = [h.strip() for h in rows[0]]
    dup = {h for h in header if header.count(h) > 1}
    if dup:
        raise DataError(f"duplicate column {sorted(dup)[0]!r}", str(path), 1)
    body = []
    for ln, row in enumerate(rows[1:], 2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise DataError(f"{len(row)} fields; the header has {len(header)}", str(path), ln)
        body.append([c.strip() for c in row])
    return header, body


def read_schema_dataset(path: str | Path, name: str | None = None) -> RelationalDataset:
    """Read a CSV folder described by its ``schema.yaml`` (see the module docstring)."""
    from frcli.yamlio import load_yaml

    spath = find_schema(path)
    if spath is None:
        raise DataError("no schema.yaml in this folder", str(path))
    src = str(spath)
    try:
        text = spath.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise DataError(f"not UTF-8 text (byte {e.start})", src) from None
    # strict YAML: one line naming the line (PyYAML's messages span several), duplicate
    # keys refused, no NUL, no 5,000-digit numbers: each would otherwise end in a traceback,
    # not one line
    doc = load_yaml(text, src)
    doc = _check_keys(doc or {}, TOP_KEYS, src, "schema")
    if "tables" not in doc or "target" not in doc:
        raise DataError("the schema needs 'tables' and 'target'", src)
    tgt = _check_keys(doc["target"], ("table", "column"), src, "target")
    tables = doc["tables"]
    if not isinstance(tables, dict) or not tables:
        raise DataError("'tables' must be a non-empty mapping", src)
    folder = spath.parent
    specs, data = {}, {}
    for tname, spec in tables.items():
        spec = _check_keys(spec or {}, TABLE_KEYS, src, f"tables.{tname}")
        key = _as_list(spec.get("key"), src, f"tables.{tname}.key")
        if not key:
            raise DataError(f"tables.{tname}: needs a 'key' (a column, or the foreign keys "
                            "that identify a row)", src)
        fks = spec.get("foreign_keys") or {}
        if not isinstance(fks, dict):
            raise DataError(f"tables.{tname}.foreign_keys: expected column: table", src)
        header, body = _read_table(folder / str(spec.get("file") or f"{tname}.csv"))
        cols = set(header)
        for c in key + list(fks) + _as_list(spec.get("nominal"), src, "nominal") + \
                _as_list(spec.get("exclude"), src, "exclude"):
            if c not in cols:
                where = spec.get("file") or tname + ".csv"
                raise DataError(f"tables.{tname}: no column {c!r} in {where}", src)
        for c, ref in fks.items():
            if ref not in tables:
                raise DataError(f"tables.{tname}.foreign_keys.{c}: unknown table {ref!r}", src)
            if len(_as_list(tables[ref].get("key"), src, "key")) != 1:
                raise DataError(f"tables.{tname}.foreign_keys.{c}: table {ref!r} has no "
                                "one-column key to reference", src)
        if len(key) > 1 and any(k not in fks for k in key):
            raise DataError(f"tables.{tname}: a key of several columns must be made of "
                            "foreign keys", src)
        specs[tname] = {"key": key, "fks": dict(fks),
                        "nominal": set(_as_list(spec.get("nominal"), src, "nominal")),
                        "exclude": set(_as_list(spec.get("exclude"), src, "exclude"))}
        data[tname] = (header, body)
    ttab, tcol = tgt.get("table"), tgt.get("column")
    if ttab not in specs:
        raise DataError(f"target.table {ttab!r} is not one of the tables", src)
    if tcol not in data[ttab][0] or tcol in specs[ttab]["key"]:
        raise DataError(f"target.column {tcol!r} must be a non-key column of {ttab}", src)

    # -- argument types ---------------------------------------------------------------------
    def id_type(t: str) -> str:     # the ID domain of a table with a one-column key
        return t

    def key_types(t: str) -> list[str]:
        s = specs[t]
        if len(s["key"]) == 1 and s["key"][0] not in s["fks"]:
            return [id_type(t)]
        return [id_type(s["fks"][k]) for k in s["key"]]

    rel_specs = []      # (name, table, types, rows of strings)
    values: dict[str, list[str]] = {}
    kinds: dict[str, str] = {}
    target_rows = []
    for tname, (header, body) in data.items():
        s = specs[tname]
        kidx = [header.index(k) for k in s["key"]]
        ktypes = key_types(tname)
        for t in ktypes:
            kinds[t] = "id"
        seen_keys = {}
        for ln, row in enumerate(body, 2):
            k = tuple(row[i] for i in kidx)
            if any(v in MISSING for v in k):
                raise DataError(f"{tname}: empty key on row {ln}", src)
            if k in seen_keys:
                raise DataError(f"{tname}: key {','.join(k)} repeated (rows {seen_keys[k]} and "
                                f"{ln})", src)
            seen_keys[k] = ln
            for t, v in zip(ktypes, k):
                values.setdefault(t, []).append(v)
        for j, col in enumerate(header):
            if col in s["key"] or col in s["exclude"]:
                continue
            cells = [(tuple(row[i] for i in kidx), row[j]) for row in body
                     if row[j] not in MISSING]
            if col in s["fks"]:
                vt = id_type(s["fks"][col])
                kinds[vt] = "id"
            else:
                numeric = col not in s["nominal"] and all(_isnum(v) for _, v in cells)
                vt = f"{'numeric' if numeric else 'nominal'}:{tname}.{col}"
                kinds[vt] = "numeric" if numeric else "nominal"
            values.setdefault(vt, [])     # a column with no known value: a relation with
            for _, v in cells:            # no facts over an empty domain
                values[vt].append(v)
            if tname == ttab and col == tcol:
                if kinds[vt] != "nominal":
                    kinds[vt] = "nominal"      # a class column, even if its labels are numbers
                    vt_nom = f"nominal:{tname}.{col}"
                    values[vt_nom] = values.pop(vt, [])    # [] : no row
                    kinds.pop(vt)
                    vt = vt_nom
                    kinds[vt] = "nominal"
                target_rows = [(k, v) for k, v in cells]
                label_type = vt
                tkeys = ktypes
                continue
            rel_specs.append((f"{tname}.{col}", tname, tuple(ktypes) + (vt,), cells))
    domains, codes = {}, {}
    for t, vals in values.items():
        dom, code = build_domain(t, kinds[t], vals)
        domains[t], codes[t] = dom, code
    relations = {}
    for rname, tname, types, cells in rel_specs:
        arr = np.array([[codes[t][v] for t, v in zip(types, k + (val,))] for k, val in cells],
                       dtype=np.int32).reshape(-1, len(types))
        arr = np.unique(arr, axis=0) if len(arr) else arr
        relations[rname] = Relation(rname, types, np.ascontiguousarray(arr), table=tname)
    if not target_rows:
        raise DataError(f"target column {ttab}.{tcol} has no known value", src)
    classes = tuple(sorted({v for _, v in target_rows}))
    cidx = {c: i for i, c in enumerate(classes)}
    keys = np.array([[codes[t][v] for t, v in zip(tkeys, k)] for k, _ in target_rows],
                    dtype=np.int32)
    y = np.array([cidx[v] for _, v in target_rows], dtype=np.intp)
    order = np.lexsort(keys.T[::-1])
    modes = []
    for r in relations.values():
        for i, t in enumerate(r.types):
            if kinds[t] == "id":
                modes.append(Mode(r.name, tuple("old" if j == i else "new"
                                                for j in range(r.arity))))
    ds = RelationalDataset(
        name=name or str(doc.get("name") or folder.name), domains=domains, relations=relations,
        target_name=f"{ttab}.{tcol}", key_types=tuple(tkeys), label_type=label_type,
        keys=keys[order], y=y[order], classes=classes, modes=modes,
        source=str(folder), fmt="csv")
    n_unlab = len(data[ttab][1]) - len(target_rows)
    ds.unlabelled = n_unlab
    ds.warnings.extend(check_leaks(ds))
    return ds


def _isnum(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False
