"""Relational data: the facts reader, the CSV + schema reader (one representation), the data
traps of the shared sets (excluded leak, unlabelled drugs, fold files that are no partition),
and `frcli datasets info` on relational folders."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frcli.data.relational import is_relational, load_relational, relational_splits
from frcli.errors import DataError

from tests.conftest import SHARED_DATA

SHARED = SHARED_DATA / "relational"
shared = pytest.mark.shared("datasets/relational")

MOVIES_S = """[Relations]
genre(Movie,nominal1)
rated(User,Movie,numeric1)
age(User,numeric2)
nation(User,Nation)
nation_name(Nation,nominal2)
[Aggregates]
count
mean
[AtomTests]
rated(new,old,new)
rated(old,new,new)
age(old,new)
nation(old,new)
nation_name(old,new)
//nation_name(new,old)
"""
MOVIES_FACTS = """rated(ana,titanic,8)
rated(bob,titanic,9)
rated(ana,psycho,4)
rated(bob,psycho,3)
rated(cid,alien,7)
rated(ana,psycho,4)
age(ana,21)
age(bob,33)
age(cid,40)
nation(ana,si)
nation(bob,es)
nation(cid,si)
nation_name(si,slovenia)
nation_name(es,spain)
"""
MOVIES_TARGET = """genre(titanic,drama)
genre(psycho,thriller)
genre(alien,thriller)
genre(heat,drama)
"""


def write_facts(folder: Path, s=MOVIES_S, facts=MOVIES_FACTS, target=MOVIES_TARGET,
                folds: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "movies.s").write_text(s)
    (folder / "movies_descriptive.txt").write_text(facts)
    (folder / "movies_target.txt").write_text(target)
    if folds is not None:
        (folder / "folds").mkdir(exist_ok=True)
        (folder / "folds" / "folds1.txt").write_text(folds)
    return folder


def write_csv(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "schema.yaml").write_text(
        "target: {table: movies, column: genre}\n"
        "tables:\n"
        "  movies: {key: id}\n"
        "  ratings: {key: [user, movie], foreign_keys: {user: users, movie: movies}}\n"
        "  users: {key: id, foreign_keys: {nation: nations}}\n"
        "  nations: {key: id}\n")
    (folder / "movies.csv").write_text("id,genre\ntitanic,drama\npsycho,thriller\n"
                                       "alien,thriller\nheat,drama\nbrazil,\n")
    (folder / "ratings.csv").write_text("user,movie,stars\nana,titanic,8\nbob,titanic,9\n"
                                        "ana,psycho,4\nbob,psycho,3\ncid,alien,7\n")
    (folder / "users.csv").write_text("id,age,nation\nana,21,si\nbob,33,es\ncid,40,si\n")
    (folder / "nations.csv").write_text("id,name\nsi,slovenia\nes,spain\n")
    return folder


def facts_as_strings(ds, rel):
    r = ds.relations[rel]
    out = set()
    for row in r.tuples.tolist():
        vals = []
        for t, c in zip(r.types, row):
            d = ds.domains[t]
            vals.append(float(d.numbers[c]) if d.kind == "numeric" else d.values[c])
        out.add(tuple(vals))
    return out


def test_facts_reader(tmp_path):
    ds = load_relational(write_facts(tmp_path / "movies"))
    assert ds.name == "movies" and ds.fmt == "facts"
    assert ds.n_examples == 4 and ds.classes == ("drama", "thriller")
    assert ds.example_ids() == ["alien", "heat", "psycho", "titanic"]   # key order
    assert ds.class_counts().tolist() == [2, 2]
    # a relation is a set: the repeated fact counts once
    assert facts_as_strings(ds, "rated") == {("ana", "titanic", 8.0), ("bob", "titanic", 9.0),
                                             ("ana", "psycho", 4.0), ("bob", "psycho", 3.0),
                                             ("cid", "alien", 7.0)}
    assert ds.aggregates == ("count", "mean")
    assert {str(m) for m in ds.modes} >= {"rated(new,old,new)", "nation_name(old,new)"}
    assert ds.excluded == {}
    assert ds.unlabelled == 0
    assert is_relational(tmp_path / "movies") and is_relational(tmp_path / "movies/movies.s")
    assert not is_relational(tmp_path)


def test_commented_atom_test_excludes_relation(tmp_path):
    s = MOVIES_S.replace("age(old,new)", "//age(old,new)")
    ds = load_relational(write_facts(tmp_path / "m", s=s))
    assert "age" in ds.excluded and "commented out" in ds.excluded["age"]
    assert "age" not in ds.feature_names and "rated" in ds.feature_names


@pytest.mark.parametrize("facts, msg, line", [
    ("rated(ana,titanic,8)\nrates(ana,alien,1)\n", "not declared", 2),
    ("rated(ana,titanic)\n", "has 2 arguments", 1),
    ("age(ana,old)\n", "not a number", 1),
    ("genre(titanic,drama)\n", "target relation", 1),
    ("rated(ana,titanic,8\n", "expected a fact", 1),
])
def test_facts_errors_name_file_and_line(tmp_path, facts, msg, line):
    with pytest.raises(DataError) as e:
        load_relational(write_facts(tmp_path / "m", facts=facts))
    assert msg in str(e.value)
    assert f"movies_descriptive.txt:{line}:" in str(e.value)


def test_settings_errors(tmp_path):
    with pytest.raises(DataError, match="bad atom-test argument"):
        load_relational(write_facts(tmp_path / "a", s=MOVIES_S.replace("age(old,new)",
                                                                       "age(old,fresh)")))
    with pytest.raises(DataError, match="only classification"):
        load_relational(write_facts(tmp_path / "b",
                                    s=MOVIES_S.replace("genre(Movie,nominal1)",
                                                       "genre(Movie,numeric9)")))
    with pytest.raises(DataError, match="two labels"):
        load_relational(write_facts(tmp_path / "c", target=MOVIES_TARGET +
                                    "genre(titanic,comedy)\n"))


def test_folds_partition_and_not(tmp_path):
    ok = "|movies\n|genre\n|||\nalien\ntitanic\n|||\nheat\npsycho\n|||\n"
    ds = load_relational(write_facts(tmp_path / "a", folds=ok))
    assert ds.folds.is_partition and len(ds.folds.test_folds) == 2
    sp, note = relational_splits(ds)
    assert "published folds" in note and len(sp) == 2
    bad = "|movies\n|genre\n|||\nalien\ntitanic\n|||\nalien\npsycho\n|||\n"
    ds = load_relational(write_facts(tmp_path / "b", folds=bad))
    assert not ds.folds.is_partition
    assert "1 in several folds, 1 in none" in ds.folds.note
    sp, note = relational_splits(ds, folds=2, seed=3)
    assert "stratified 2-fold" in note and "seed 3" in note
    tests = np.sort(np.concatenate([te for _, te in sp]))
    assert tests.tolist() == list(range(ds.n_examples))
    with pytest.raises(DataError, match="no target fact"):
        load_relational(write_facts(tmp_path / "c", folds="|||\nbrazil\n|||\n"))


def test_csv_schema_compiles_to_the_same_relations(tmp_path):
    ds = load_relational(write_csv(tmp_path / "csv"))
    assert ds.fmt == "csv" and ds.n_examples == 4 and ds.unlabelled == 1   # brazil
    assert ds.classes == ("drama", "thriller")
    assert ds.example_ids() == ["alien", "heat", "psycho", "titanic"]
    fx = load_relational(write_facts(tmp_path / "facts"))
    # the same facts (names differ: table.column vs the facts file's relation names)
    assert facts_as_strings(ds, "ratings.stars") == facts_as_strings(fx, "rated")
    assert facts_as_strings(ds, "users.age") == facts_as_strings(fx, "age")
    assert facts_as_strings(ds, "users.nation") == facts_as_strings(fx, "nation")
    assert facts_as_strings(ds, "nations.name") == facts_as_strings(fx, "nation_name")
    assert ds.relations["ratings.stars"].types[:2] == ("users", "movies")
    assert ds.relations["users.age"].table == "users"
    modes = {str(m) for m in ds.modes}
    assert {"ratings.stars(old,new,new)", "ratings.stars(new,old,new)",
            "users.nation(old,new)", "users.nation(new,old)"} <= modes


def test_csv_schema_errors(tmp_path):
    f = write_csv(tmp_path / "csv")
    (f / "schema.yaml").write_text("target: {table: movies, column: genre}\ntables:\n"
                                   "  movies: {key: id, color: red}\n")
    with pytest.raises(DataError, match="unknown key 'color'"):
        load_relational(f)
    (f / "schema.yaml").write_text("target: {table: movies, column: nope}\ntables:\n"
                                   "  movies: {key: id}\n")
    with pytest.raises(DataError, match="target.column 'nope'"):
        load_relational(f)
    (f / "schema.yaml").write_text("target: {table: movies, column: genre}\ntables:\n"
                                   "  movies: {key: id, foreign_keys: {genre: users}}\n")
    with pytest.raises(DataError, match="unknown table 'users'"):
        load_relational(f)


_name = st.text("abcdefghij", min_size=1, max_size=6)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(_name, _name, st.integers(-50, 50)), min_size=1, max_size=40),
       st.lists(st.tuples(_name, st.sampled_from(["p", "q", "r"])), min_size=1, max_size=15))
def test_facts_roundtrip(tmp_path_factory, facts, labels):
    """Random facts written in the published format read back as the same sets."""
    folder = tmp_path_factory.mktemp("rt")
    s = "[Relations]\nlab(Obj,nominal1)\nrel(Obj,Obj,numeric1)\n[AtomTests]\nrel(old,new,new)\n"
    target = {k: v for k, v in labels}
    (folder / "x.s").write_text(s)
    (folder / "x_descriptive.txt").write_text("".join(f"rel({a},{b},{v})\n"
                                                      for a, b, v in facts))
    (folder / "x_target.txt").write_text("".join(f"lab({k},{v})\n" for k, v in target.items()))
    ds = load_relational(folder)
    assert facts_as_strings(ds, "rel") == {(a, b, float(v)) for a, b, v in facts}
    assert dict(zip(ds.example_ids(), [ds.classes[c] for c in ds.y])) == target


@shared
def test_shared_sets_and_their_traps():
    uw = load_relational(SHARED / "uwcse")
    assert (uw.n_examples, len(uw.relations), uw.n_classes) == (115, 14, 5)
    assert sum(r.size for r in uw.relations.values()) == 1961
    assert dict(zip(uw.classes, uw.class_counts().tolist())) == {
        "ai": 25, "graphics": 23, "language": 11, "systems": 29, "theory": 27}
    assert not uw.folds.is_partition
    assert "77 distinct of 115" in uw.folds.note and "38 in none" in uw.folds.note
    mu = load_relational(SHARED / "mutagenesis")
    assert mu.n_examples == 188 and mu.class_counts().tolist() == [63, 125]
    # drugs_act determines the label: excluded (commented out) and flagged as a leak
    assert "drugs_act" in mu.excluded and "drugs_act" not in mu.feature_names
    assert any("drugs_act" in w and "determines the label" in w for w in mu.warnings)
    assert mu.folds.is_partition
    ca = load_relational(SHARED / "carcinogenesis")
    assert ca.n_examples == 329 and ca.unlabelled == 11 and ca.folds.is_partition
    wk = load_relational(SHARED / "webkb")
    assert wk.n_examples == 500 and not wk.folds.is_partition
    assert set(wk.excluded) == {"pages_url", "terms"}
    sp, note = relational_splits(wk, seed=7)
    assert "stratified 10-fold" in note and "seed 7" in note
    # stratified: every fold holds 1 of the 10 faculty pages
    fac = wk.classes.index("faculty")
    assert all((wk.y[te] == fac).sum() == 1 for _, te in sp)


@shared
def test_datasets_info_relational(capsys):
    from frcli.cli import main

    assert main(["datasets", "info", str(SHARED / "mutagenesis")]) == 0
    out = capsys.readouterr()
    assert "drugs_active(DrugID,nominal1)" in out.out
    assert "drugs_act (its atom test is commented out" in out.out
    assert "determines the label" in out.err
    assert main(["datasets", "info", str(SHARED / "carcinogenesis"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["unlabelled_objects"] == 11 and info["examples"] == 329
    assert any("11 object(s)" in w for w in info["warnings"])
    assert main(["datasets", "info", str(SHARED / "uwcse"), "--task", "mtr"]) == 2
    assert "do not apply to relational data" in capsys.readouterr().err
