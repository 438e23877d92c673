"""Mutation fuzzing of every input kind: small valid inputs (ARFF dense, sparse
and hierarchical, CSV, Mulan XML, experiment YAML, stats CSV) are mutated by hypothesis —
tokens replaced by nasty values (huge, tiny, non-finite, empty, quotes, braces, NUL, very
long), lines deleted, duplicated, swapped or truncated, text inserted — and the command must
end in exit 0 with finite outputs or in one ``error: ...`` line with exit 2: never a
traceback, an internal error, a NaN/inf in an output or a hang.

The default profile (derandomised, so CI is reproducible) takes well under a minute; the
``slow`` profile (FRCLI_SLOW=1) explores 25 times more, with fresh random draws, and adds
ReliefE with its UMAP embedding (whose first call compiles numba code: too slow for the
default suite).
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import re
import tempfile
import time
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from frcli.cli import main  # noqa: E402

SECONDS = 30.0      # per command: a hang or a runaway computation fails the example

NASTY = ["", "?", "nan", "NaN", "inf", "-inf", "1e308", "-1.7976931348623157e308", "1e300",
         "-1e300", "1e-320", "5e-324", "1e-7", "0", "-0", "-1", "1", "2", "999999999999",
         "9" * 400, "x", "high", "'", '"', "''", "{", "}", "{0 1}", ",", ";", "%", "@data",
         "@attribute", "a/b", "@", "\t", " ", "\\", "é", "a" * 300, "\x00", "1,2", "true",
         "3.5", "last:1", "[", "]", "- x", ": x", "!!python/object", "&a", "*a"]

_TOKEN = re.compile(r"[^\s,{}\[\]:]+")


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` after 1-3 random edits."""
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        op = draw(st.sampled_from(["token", "token", "token", "delete", "duplicate", "swap",
                                   "truncate", "insert"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "token":
            toks = list(_TOKEN.finditer(text))
            if not toks:
                continue
            m = toks[draw(st.integers(0, len(toks) - 1))]
            text = text[:m.start()] + draw(st.sampled_from(NASTY)) + text[m.end():]
            continue
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "truncate":
            text = text[:draw(st.integers(0, len(text)))]
            continue
        elif op == "insert":
            pos = draw(st.integers(0, len(text)))
            text = text[:pos] + draw(st.sampled_from(NASTY) | st.text(max_size=8)) + text[pos:]
            continue
        text = "\n".join(lines)
    return text


# -- small valid inputs -----------------------------------------------------------------------

ARFF = """@relation tiny
@attribute a numeric
@attribute b {x,y,z}
@attribute c numeric
@attribute t1 numeric
@attribute t2 numeric
@data
1,x,0.5,1.0,2.0
2,y,0.1,2.0,4.1
3,z,0.9,3.0,6.2
4,x,0.5,4.0,7.9
5,y,?,5.0,10.1
6,z,0.3,6.0,12.2
7,x,0.8,7.0,13.8
8,y,0.2,8.0,16.1
"""

SPARSE = """@relation sp
@attribute a numeric
@attribute b numeric
@attribute c numeric
@attribute t numeric
@data
{0 1, 3 1}
{1 2, 3 2}
{0 3, 2 1, 3 3}
{3 4}
{0 5, 1 1, 3 5}
{2 6, 3 6}
{0 7, 3 7}
{1 8, 2 2, 3 8}
"""

HIER = """@relation h
@attribute a numeric
@attribute b numeric
@attribute class hierarchical A,B,A/C,A/D,B/E
@data
1,0.5,A/C
2,0.1,A/D
3,0.9,B/E
4,0.5,A/C@B
5,0.2,B
6,0.3,A/D@B/E
7,0.8,A
8,0.2,B/E
"""

CLASS = """@relation cls
@attribute a numeric
@attribute b {x,y,z}
@attribute c numeric
@attribute d numeric
@attribute class {p,q,r}
@data
1,x,0.5,1.0,p
2,y,0.1,2.0,q
3,z,0.9,3.0,r
4,x,0.5,4.0,p
5,y,?,5.0,q
6,z,0.3,6.0,r
7,x,0.8,7.0,p
8,y,0.2,8.0,q
9,z,0.4,2.5,p
"""

CSV = """a,b,c,t
1,x,0.5,1.0
2,y,0.1,2.0
3,z,0.9,3.0
4,x,0.5,4.0
5,y,,5.0
6,z,0.3,6.0
7,x,0.8,7.0
8,y,0.2,8.0
"""

MULAN_ARFF = """@relation m
@attribute a numeric
@attribute b numeric
@attribute l1 {0,1}
@attribute l2 {0,1}
@attribute l3 {0,1}
@data
1,0.5,1,0,1
2,0.1,0,1,0
3,0.9,1,1,0
4,0.5,0,0,1
5,0.2,1,0,0
6,0.3,0,1,1
7,0.8,1,0,1
8,0.2,0,1,0
"""

MULAN_XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="l1"></label>
<label name="l2"></label>
<label name="l3"></label>
</labels>
"""

YAML = """name: fz
datasets:
  - {name: d, path: data.csv, targets: t}
protocol: {type: holdout, repeats: 2, test_fraction: 0.3, seed: 1}
rankers:
  - uniform
  - {method: relief, params: {neighbours: [1, 3]}}
  - {method: genie3-rf, params: {trees: 3}}
evaluation: {knn: 3}
"""

STATS = """dataset,method,split,rrmse
d1,a,0,0.5
d1,b,0,0.7
d2,a,0,0.4
d2,b,0,0.6
d3,a,0,0.8
d3,b,0,0.9
d1,a,1,0.55
d1,b,1,0.65
"""

# every ranker of the registry that is cheap on tiny data (a method that does not support a
# kind's task must say so in one line); relational rankers read other inputs
METHODS = ["genie3-rf", "rf-rf", "symbolic-et", "relief", "random", "reliefe-raw",
           "multisurf", "multisurf-star", "mutual-info"]
SLOW_METHODS = ["reliefe"]
PARAMS = {"genie3-rf": ["-p", "trees=4"], "rf-rf": ["-p", "trees=4"],
          "symbolic-et": ["-p", "trees=4"], "relief": ["-p", "neighbours=3"], "random": [],
          "reliefe-raw": ["-p", "embed=none", "-p", "neighbours=3"],
          "reliefe": ["-p", "neighbours=3"], "multisurf": [], "multisurf-star": [],
          "mutual-info": []}


# -- running and judging ----------------------------------------------------------------------

@contextlib.contextmanager
def _inside(folder: str):
    """``contextlib.chdir`` (Python >= 3.11) for 3.10 too."""
    import os

    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def _run(args: list[str]) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(args)
    return rc, out.getvalue(), err.getvalue(), time.perf_counter() - t0


def _judge(args: list[str], rc: int, out: str, err: str, secs: float) -> None:
    lines = err.strip().splitlines()
    where = f"frcli {' '.join(args)}"
    assert secs < SECONDS, f"{where}: {secs:.1f} s"
    assert "Traceback" not in err and "internal error" not in err, f"{where}\n{err}"
    assert rc in (0, 2), f"{where}: exit {rc}\n{err}"
    if rc == 2:
        errors = [line for line in lines if line.startswith("error: ")]
        assert len(errors) == 1 and lines[-1] == errors[0], f"{where}\n{err}"
    else:
        assert not [line for line in lines if line.startswith("error")], f"{where}\n{err}"


def _finite_csv(text: str, column: str) -> None:
    import csv

    rows = list(csv.DictReader(io.StringIO(text)))
    for r in rows:
        v = r[column]
        assert v == "" or math.isfinite(float(v)), (column, v, text[:500])


def _rank(tmp: Path, files: dict[str, str], args: list[str]) -> None:
    for name, text in files.items():
        (tmp / name).write_text(text, encoding="utf-8", errors="surrogateescape")
    full = ["rank", *args, "--format", "csv"]
    rc, out, err, secs = _run(full)
    _judge(full, rc, out, err, secs)
    if rc == 0:
        assert out.startswith("feature,importance,rank"), out[:200]
        _finite_csv(out, "importance")


KINDS = {
    "arff": ({"d.arff": ARFF}, ["d.arff", "--targets", "last:2"]),
    "classification": ({"d.arff": CLASS}, ["d.arff", "--targets", "last:1"]),
    "sparse": ({"d.arff": SPARSE}, ["d.arff", "--targets", "last:1"]),
    "hierarchical": ({"d.arff": HIER}, ["d.arff"]),
    "csv": ({"d.csv": CSV}, ["d.csv", "--targets", "t"]),
    "mulan-arff": ({"d.arff": MULAN_ARFF, "l.xml": MULAN_XML}, ["d.arff", "--labels", "l.xml"]),
    "mulan-xml": ({"l.xml": MULAN_XML, "d.arff": MULAN_ARFF}, ["d.arff", "--labels", "l.xml"]),
}


def _rank_case(kind: str, data, slow: bool) -> None:
    files, args = KINDS[kind]
    first = next(iter(files))
    files = dict(files)
    files[first] = data.draw(mutated(files[first]), label=first)
    method = data.draw(st.sampled_from(METHODS + SLOW_METHODS * slow), label="method")
    name = "reliefe" if method == "reliefe-raw" else method
    with tempfile.TemporaryDirectory() as d, _inside(d):
        _rank(Path(d), files, [*args, "--method", name, *PARAMS[method]])


OPTIONS = ["--targets", "--seed", "--jobs", "--which", "--task", "--hierarchy", "--nominal",
           "--method", "-p", "--format", "--labels"]
VALUES = NASTY + ["trees=" + v for v in ("0", "-1", "1e9", "9" * 30, "x", "2,3")] + [
    "neighbours=" + v for v in ("0", "1e12", "99999999", "3,nan")] + [
    "iterations=" + v for v in ("-1", "0", "2", "1e30")] + [
    "min_leaf=" + v for v in ("0", "1e308", "inf")] + [
    "1-99999999999", "last:99999999999999", "0", "t,t", "all", "mtr", "dag", "relief",
    "genie3-rf-str", "mutual-info", "multisurf", "json", "fimp"]


def _options_case(data) -> None:
    extra: list[str] = []
    for _ in range(data.draw(st.integers(1, 3), label="n")):
        extra += [data.draw(st.sampled_from(OPTIONS), label="option"),
                  data.draw(st.sampled_from(VALUES), label="value")]
    with tempfile.TemporaryDirectory() as d, _inside(d):
        Path("d.csv").write_text(CSV)
        args = ["rank", "d.csv", "--targets", "t", "--method", "relief", *extra]
        rc, out, err, secs = _run(args)
        _judge(args, rc, out, err, secs)
        if rc == 0:
            assert not re.search(r"\b(nan|inf)\b", out, re.I) or "--format" in extra, out


TREE_PARAMS = ["min_leaf=" + v for v in ("1", "2", "3.5", "0", "-1", "1e308", "nan")] + [
    "w=0.5", "w=2", "w0=0.5", "ties=random", "ties=x", "trees=4"]


def _tree_case(data) -> None:
    """``frcli tree`` on a mutated data file of any kind: text or JSON (JSON without NaN)."""
    kind = data.draw(st.sampled_from([k for k in KINDS if k != "mulan-xml"]), label="kind")
    files, args = KINDS[kind]
    first = next(iter(files))
    files = dict(files)
    files[first] = data.draw(mutated(files[first]), label=first)
    fmt = data.draw(st.sampled_from(["text", "json"]), label="format")
    params = data.draw(st.lists(st.sampled_from(TREE_PARAMS), max_size=2), label="params")
    with tempfile.TemporaryDirectory() as d, _inside(d):
        for name, text in files.items():
            Path(name).write_text(text, encoding="utf-8", errors="surrogateescape")
        full = ["tree", *args, "--format", fmt, *[a for p in params for a in ("-p", p)]]
        rc, out, err, secs = _run(full)
        _judge(full, rc, out, err, secs)
        if rc == 0 and fmt == "json":
            json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON token {c}: {out}"))


# relational data (frcli.data.relational's readers): the facts format and CSV tables with a schema
REL_S = """[Relations]
genre(Movie,nominal1)
rated(User,Movie,numeric1)
age(User,numeric2)
nation(User,Nation)
[Aggregates]
count
mean
[AtomTests]
rated(new,old,new)
rated(old,new,new)
age(old,new)
nation(old,new)
"""
REL_FACTS = """rated(ana,titanic,8)
rated(bob,titanic,9)
rated(ana,psycho,4)
rated(bob,psycho,3)
rated(cid,alien,7)
rated(dan,heat,8)
rated(eva,brazil,2)
rated(eva,up,9)
age(ana,21)
age(bob,33)
age(cid,40)
age(dan,18)
age(eva,55)
nation(ana,si)
nation(bob,es)
nation(cid,si)
"""
REL_TARGET = """genre(titanic,drama)
genre(psycho,thriller)
genre(alien,thriller)
genre(heat,drama)
genre(brazil,thriller)
genre(up,drama)
"""
REL_SCHEMA = """target: {table: movies, column: genre}
tables:
  movies: {key: id}
  ratings: {key: [user, movie], foreign_keys: {user: users, movie: movies}}
  users: {key: id}
"""
REL_CSV = {"movies.csv": "id,genre\ntitanic,drama\npsycho,thriller\nalien,thriller\n"
                         "heat,drama\nbrazil,thriller\nup,drama\n",
           "ratings.csv": "user,movie,stars\nana,titanic,8\nbob,titanic,9\nana,psycho,4\n"
                          "bob,psycho,3\ncid,alien,7\ndan,heat,8\neva,brazil,2\n",
           "users.csv": "id,age\nana,21\nbob,33\ncid,40\ndan,18\neva,55\n"}
RELATIONAL = {"facts": {"m.s": REL_S, "m_descriptive.txt": REL_FACTS,
                        "m_target.txt": REL_TARGET},
              "tables": {"schema.yaml": REL_SCHEMA, **REL_CSV}}
REL_METHODS = [["genie3-tree"], ["symbolic-bagging", "-p", "trees=3"],
               ["genie3-rf", "-p", "trees=3"], ["genie3-boost", "-p", "trees=3"],
               ["genie3-tree", "-p", "aggregates=exist"]]


def _relational_case(data) -> None:
    """``frcli rank FOLDER`` on a relational folder with one mutated file."""
    fmt = data.draw(st.sampled_from(sorted(RELATIONAL)), label="format")
    files = dict(RELATIONAL[fmt])
    name = data.draw(st.sampled_from(sorted(files)), label="file")
    files[name] = data.draw(mutated(files[name]), label=name)
    method = data.draw(st.sampled_from(REL_METHODS), label="method")
    with tempfile.TemporaryDirectory() as d, _inside(d):
        Path("m").mkdir()
        for n, text in files.items():
            (Path("m") / n).write_text(text, encoding="utf-8", errors="surrogateescape")
        args = ["rank", "m", "--method", *method, "--format", "csv"]
        rc, out, err, secs = _run(args)
        _judge(args, rc, out, err, secs)
        if rc == 0:
            _finite_csv(out, "importance")


def _experiment_case(data) -> None:
    target = data.draw(st.sampled_from(["yaml", "data"]), label="mutate")
    yaml_text = data.draw(mutated(YAML), label="yaml") if target == "yaml" else YAML
    csv_text = data.draw(mutated(CSV), label="data") if target == "data" else CSV
    with tempfile.TemporaryDirectory() as d, _inside(d):
        Path("c.yaml").write_text(yaml_text, encoding="utf-8", errors="surrogateescape")
        Path("data.csv").write_text(csv_text, encoding="utf-8", errors="surrogateescape")
        args = ["experiment", "c.yaml", "--no-progress", "--output", "res"]
        rc, out, err, secs = _run(args)
        _judge(args, rc, out, err, secs)
        stores = list(Path("res").glob("*/results.sqlite"))
        for db in stores:
            exp = ["results", "export", str(db.parent)]
            rc2, out2, err2, secs2 = _run(exp)
            _judge(exp, rc2, out2, err2, secs2)
            if rc2 == 0:
                _finite_csv(out2, "value")


def _stats_case(data) -> None:
    text = data.draw(mutated(STATS), label="stats")
    with tempfile.TemporaryDirectory() as d, _inside(d):
        Path("s.csv").write_text(text, encoding="utf-8", errors="surrogateescape")
        args = ["stats", "s.csv", "--json"]
        rc, out, err, secs = _run(args)
        _judge(args, rc, out, err, secs)
        if rc == 0:
            json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON token {c}: {out}"))


def _settings(n: int, slow: bool):
    return settings(max_examples=n, deadline=None, derandomize=not slow, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=True)


DEFAULT = {"arff": 12, "classification": 10, "sparse": 8, "hierarchical": 8, "csv": 12,
           "mulan-arff": 6,
           "mulan-xml": 6, "experiment": 6, "stats": 12, "options": 12, "tree": 12,
           "relational": 12}


def _case(kind: str, data, slow: bool) -> None:
    if kind == "experiment":
        _experiment_case(data)
    elif kind == "stats":
        _stats_case(data)
    elif kind == "options":
        _options_case(data)
    elif kind == "tree":
        _tree_case(data)
    elif kind == "relational":
        _relational_case(data)
    else:
        _rank_case(kind, data, slow)


def _make(kind: str, n: int, slow: bool):
    @_settings(n, slow)
    @hypothesis.given(data=st.data())
    def run(data):
        _case(kind, data, slow)
    return run


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", list(DEFAULT))
def test_mutated_inputs_end_cleanly(kind):
    _make(kind, DEFAULT[kind], slow=False)()


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("kind", list(DEFAULT))
def test_mutated_inputs_end_cleanly_long(kind):
    _make(kind, 25 * DEFAULT[kind], slow=True)()
