"""Reader of the published relational format (re3py; ../shared/datasets/relational/FORMAT.md):
a settings file ``<stem>.s``, the facts ``<stem>_descriptive.txt`` and ``<stem>_target.txt``,
and optionally ``folds/folds1.txt``.

Choices where the format is silent (recorded in docs/relational.md):

* The settings file's comments are honoured: a relation whose every atom test is commented out
  (mutagenesis' ``drugs_act``, which determines the label exactly) is *excluded*, listed as
  such, and no feature uses it. An empty ``[AtomTests]`` section means every relation may be
  entered through any of its ID arguments.
* Objects of the target's key type with facts but no target fact (11 carcinogenesis drugs)
  are not examples; their number is reported.
* A fold file is used only if it is a partition of the examples; otherwise (uwcse, webkb:
  IDs in several folds, others in none) ``folds.is_partition`` is False with the counts in
  ``folds.note``, and the runner makes seeded stratified folds instead.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from frcli.data.relational.model import (Folds, Mode, Relation, RelationalDataset,
                                         build_domain, check_leaks, default_modes, domain_kind,
                                         table_names)
from frcli.errors import DataError

_DECL = re.compile(r"^\s*([A-Za-z0-9_\-.+\[\] ]+?)\s*\((.*)\)\s*$")
_TYPE = re.compile(r"^(nominal|numeric)[A-Za-z0-9_]*$|^[A-Z][A-Za-z0-9_]*$")
SECTIONS = ("Relations", "Aggregates", "AtomTests", "TreeParameters", "RelationsConstructed")
AGGREGATE_NAMES = ("count", "countUnique", "min", "max", "mean", "sum", "mode", "flatten",
                   "flattenUnique", "projection")


def _strip_comment(line: str) -> str:
    i = line.find("//")
    return (line if i < 0 else line[:i]).strip()


def _split_args(s: str) -> list[str]:
    """Split on commas outside ``[...]`` and double quotes; strip spaces."""
    out, depth, quote, cur = [], 0, False, []
    for ch in s:
        if ch == '"':
            quote = not quote
        elif not quote and ch == "[":
            depth += 1
        elif not quote and ch == "]":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out


def find_files(path: str | Path) -> dict[str, Path]:
    """The settings, descriptive, target and fold files of a data set given as its folder or
    its ``.s`` file."""
    p = Path(path)
    if p.is_file():
        if p.suffix != ".s":
            raise DataError("expected a settings file (.s) or a data-set folder", str(p))
        settings = p
    else:
        cands = sorted(p.glob("*.s"))
        if not cands:
            raise DataError("no settings file (*.s) in this folder", str(p))
        if len(cands) > 1:
            raise DataError(f"several settings files ({', '.join(c.name for c in cands)}); "
                            "give the one to use", str(p))
        settings = cands[0]
    stem, folder = settings.stem, settings.parent
    files = {"settings": settings, "descriptive": folder / f"{stem}_descriptive.txt",
             "target": folder / f"{stem}_target.txt"}
    for k in ("descriptive", "target"):
        if not files[k].is_file():
            raise DataError(f"the {k} facts file {files[k].name} is missing", str(folder))
    fold = folder / "folds" / "folds1.txt"
    if fold.is_file():
        files["folds"] = fold
    return files


def read_settings(path: Path) -> dict:
    """Sections of a ``.s`` file: relation declarations (in order), aggregates, atom tests."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        text = path.read_text(encoding="latin-1")
    section = None
    decls: list[tuple[str, tuple[str, ...], int]] = []
    aggs: list[str] = []
    tests: list[tuple[str, tuple[str, ...], int]] = []
    commented: list[str] = []
    for ln, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if stripped.startswith("//"):
            m = _DECL.match(stripped[2:])
            if section == "AtomTests" and m:
                commented.append(m.group(1).strip())
            continue
        line = _strip_comment(raw)
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            if section not in SECTIONS:
                raise DataError(f"unknown section [{section}]; allowed: {', '.join(SECTIONS)}",
                                str(path), ln)
            continue
        if section is None:
            raise DataError("a line before the first [section]", str(path), ln)
        if section == "Aggregates":
            if line not in AGGREGATE_NAMES:
                raise DataError(f"unknown aggregate {line!r}; allowed: "
                                f"{', '.join(AGGREGATE_NAMES)}", str(path), ln)
            aggs.append(line)
            continue
        if section in ("TreeParameters", "RelationsConstructed"):
            continue
        m = _DECL.match(line)
        if not m:
            raise DataError(f"expected name(arg,...), got {line!r}", str(path), ln)
        name, args = m.group(1).strip(), tuple(a.strip() for a in m.group(2).split(","))
        if section == "Relations":
            for a in args:
                if not _TYPE.match(a) and not a.startswith("multi_target["):
                    raise DataError(f"bad type {a!r} in {name}: a type starts with nominal, "
                                    "numeric or an upper-case letter", str(path), ln)
            decls.append((name, args, ln))
        else:
            for a in args:
                if a not in ("old", "new", "c"):
                    raise DataError(f"bad atom-test argument {a!r} in {name}; allowed: "
                                    "old, new, c", str(path), ln)
            tests.append((name, args, ln))
    if not decls:
        raise DataError("no [Relations] declared", str(path))
    return {"decls": decls, "aggregates": aggs, "tests": tests, "commented": commented}


def _read_facts(path: Path, arity: dict[str, int], only: str | None = None,
                forbid: str | None = None) -> dict[str, list[tuple[list[str], int]]]:
    out: dict[str, list[tuple[list[str], int]]] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        text = path.read_text(encoding="latin-1")
    for ln, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if not line:
            continue
        i = line.find("(")
        if i <= 0 or not line.endswith(")"):
            raise DataError(f"expected a fact name(arg,...), got {line[:60]!r}", str(path), ln)
        name = line[:i].strip()
        if name not in arity:
            raise DataError(f"relation {name!r} is not declared in the settings file",
                            str(path), ln)
        if only is not None and name != only:
            raise DataError(f"the target file holds a fact of {name!r}, not of the target "
                            f"relation {only!r}", str(path), ln)
        if forbid is not None and name == forbid:
            raise DataError(f"a fact of the target relation {name!r} in the descriptive file",
                            str(path), ln)
        args = _split_args(line[i + 1:-1]) if "[" in line or '"' in line else \
            [a.strip() for a in line[i + 1:-1].split(",")]
        if len(args) != arity[name]:
            raise DataError(f"{name} has {len(args)} arguments; the settings declare "
                            f"{arity[name]}", str(path), ln)
        out.setdefault(name, []).append((args, ln))
    return out


def read_folds(path: Path, ids: dict[str, int]) -> Folds:
    """Test folds of a fold file (lines after each ``|||`` up to the next), as example
    indices; checks whether they partition the examples."""
    folds: list[list[int]] = []
    cur: list[int] | None = None
    for ln, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if line.startswith("|||"):
            if cur is not None:
                folds.append(cur)
            cur = []
            continue
        if cur is None or not line or line.startswith("|"):
            continue
        if line not in ids:
            raise DataError(f"fold file names {line!r}, which has no target fact", str(path), ln)
        cur.append(ids[line])
    if cur:
        folds.append(cur)
    n = len(ids)
    counts = np.bincount(np.concatenate([np.asarray(f, dtype=np.intp) for f in folds])
                         if folds else np.zeros(0, dtype=np.intp), minlength=n)
    listed = sum(len(f) for f in folds)
    ok = bool(folds) and bool((counts == 1).all())
    note = ""
    if not ok:
        note = (f"not a partition: {len(folds)} lists, {listed} entries, "
                f"{int((counts > 0).sum())} distinct of {n} examples, "
                f"{int((counts > 1).sum())} in several folds, {int((counts == 0).sum())} in none")
    return Folds([np.asarray(sorted(f), dtype=np.intp) for f in folds], ok, note, str(path))


def read_facts_dataset(path: str | Path, name: str | None = None) -> RelationalDataset:
    """Read a data set in the published facts format (see the module docstring)."""
    files = find_files(path)
    st = read_settings(files["settings"])
    decls = st["decls"]
    target_name, target_types, tline = decls[0]
    if len(target_types) < 2:
        raise DataError(f"the target relation {target_name} must have a key and a value "
                        "(a unary target is not allowed)", str(files["settings"]), tline)
    label_type = target_types[-1]
    if domain_kind(label_type) != "nominal":
        raise DataError(f"target {target_name}: only classification (a nominal last "
                        f"argument) is supported, got {label_type!r}",
                        str(files["settings"]), tline)
    key_types = target_types[:-1]
    if any(domain_kind(t) != "id" for t in key_types):
        raise DataError(f"target {target_name}: the key arguments must be object types",
                        str(files["settings"]), tline)
    types = {n: t for n, t, _ in decls}
    if len(types) != len(decls):
        dup = [n for n, _, _ in decls if sum(d[0] == n for d in decls) > 1][0]
        raise DataError(f"relation {dup!r} declared twice", str(files["settings"]))
    arity = {n: len(t) for n, t in types.items()}
    facts = _read_facts(files["descriptive"], arity, forbid=target_name)
    tfacts = _read_facts(files["target"], arity, only=target_name).get(target_name, [])
    if not tfacts:
        raise DataError("no target facts", str(files["target"]))

    # -- domains: every value seen at a position of that type ---------------------------------
    raw: dict[str, set[str]] = {}
    for rname, rows in list(facts.items()) + [(target_name, tfacts)]:
        for pos, t in enumerate(types[rname]):
            bucket = raw.setdefault(t, set())
            bucket.update(args[pos] for args, _ in rows)
    for rname, t in types.items():      # declared types without facts still exist
        for tt in t:
            raw.setdefault(tt, set())
    domains, codes = {}, {}
    for t, vals in raw.items():
        kind = domain_kind(t)
        if kind == "numeric":
            for rname, rows in facts.items():
                for pos, tt in enumerate(types[rname]):
                    if tt != t:
                        continue
                    for args, ln in rows:
                        try:
                            float(args[pos])
                        except ValueError:
                            raise DataError(f"{rname}: argument {pos + 1} ({t}) is not a "
                                            f"number: {args[pos]!r}", str(files["descriptive"]),
                                            ln) from None
        dom, code = build_domain(t, kind, sorted(vals))
        domains[t], codes[t] = dom, code

    relations: dict[str, Relation] = {}
    for rname, rtypes, _ in decls[1:]:
        rows = facts.get(rname, [])
        arr = np.array([[codes[t][a] for t, a in zip(rtypes, args)] for args, _ in rows],
                       dtype=np.int32).reshape(-1, len(rtypes))
        arr = np.unique(arr, axis=0) if len(arr) else arr
        relations[rname] = Relation(rname, rtypes, np.ascontiguousarray(arr))
    table_names(relations, domains)

    # -- examples ---------------------------------------------------------------------------
    kdoms = [codes[t] for t in key_types]
    seen: dict[tuple, tuple[str, int]] = {}
    keys, labels = [], []
    for args, ln in tfacts:
        k = tuple(args[:-1])
        if k in seen:
            if seen[k][0] != args[-1]:
                raise DataError(f"example {','.join(k)} has two labels ({seen[k][0]!r} at line "
                                f"{seen[k][1]}, {args[-1]!r})", str(files["target"]), ln)
            continue
        seen[k] = (args[-1], ln)
        keys.append([kd[a] for kd, a in zip(kdoms, k)])
        labels.append(args[-1])
    classes = tuple(sorted(set(labels)))
    cidx = {c: i for i, c in enumerate(classes)}
    y = np.array([cidx[c] for c in labels], dtype=np.intp)
    keys_arr = np.array(keys, dtype=np.int32).reshape(len(keys), len(key_types))
    # the examples in key order (the target file's order is arbitrary)
    order = np.lexsort(keys_arr.T[::-1]) if len(key_types) else np.arange(len(keys))
    keys_arr, y = keys_arr[order], y[order]

    # -- language bias ----------------------------------------------------------------------
    excluded: dict[str, str] = {}
    modes: list[Mode] = []
    for rname, specs, ln in st["tests"]:
        if rname not in relations:
            what = "the target relation" if rname == target_name else "an undeclared relation"
            raise DataError(f"atom test for {what} {rname!r}", str(files["settings"]), ln)
        if len(specs) != relations[rname].arity:
            raise DataError(f"atom test {rname} has {len(specs)} arguments; the relation has "
                            f"{relations[rname].arity}", str(files["settings"]), ln)
        m = Mode(rname, tuple(specs))
        if m not in modes:
            modes.append(m)
    if not st["tests"]:
        modes = default_modes(relations, domains)
    used = {m.relation for m in modes}
    for rname in relations:
        if rname not in used:
            why = ("its atom test is commented out in the settings file"
                   if rname in st["commented"] else "no atom test in the settings file")
            excluded[rname] = why

    ds = RelationalDataset(
        name=name or (Path(path).name if Path(path).is_dir() else files["settings"].stem),
        domains=domains, relations=relations, target_name=target_name,
        key_types=tuple(key_types), label_type=label_type, keys=keys_arr, y=y,
        classes=classes, modes=modes, excluded=excluded,
        aggregates=tuple(st["aggregates"]) or None,
        source=str(files["settings"].parent if Path(path).is_dir() else files["settings"]),
        fmt="facts")
    # objects of the key type with facts but no label
    if len(key_types) == 1:
        kt = key_types[0]
        labelled = set(keys_arr[:, 0].tolist())
        ds.unlabelled = domains[kt].size - len(labelled)
    if "folds" in files:
        ids = {i: n for n, i in enumerate(ds.example_ids())}
        ds.folds = read_folds(files["folds"], ids)
    for msg in check_leaks(ds):
        rel = msg.split("'")[1]
        state = "excluded: " + excluded[rel] if rel in excluded else "NOT excluded"
        ds.warnings.append(f"{msg}; {state}")
    return ds
