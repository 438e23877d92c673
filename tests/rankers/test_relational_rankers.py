"""Relational rankers through the registry, `frcli rank`, the experiment runner and
`frcli stats`: same method names as the tabular ensembles, clean errors where a method does
not apply, model accuracy as the runs' measure, tuning by internal CV."""
from __future__ import annotations

import json

import numpy as np
import pytest

from frcli.cli import main
from frcli.data.relational import load_relational
from frcli.data.relational.synthetic import PLANTED, write_planted
from frcli.rankers.registry import get_ranker


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return write_planted(tmp_path_factory.mktemp("shop") / "shop", n=80, seed=2, folds=4)


def test_registry_routes_relational_data(shop):
    ds = load_relational(shop)
    r = get_ranker("genie3-rf", ds)
    assert type(r).__name__ == "RelationalRanker" and r.ensemble == "rf"
    assert type(get_ranker("genie3-rf")).__name__ == "EnsembleRanker"
    with pytest.raises(Exception, match="does not apply to relational data"):
        get_ranker("relief", ds)
    with pytest.raises(Exception, match="does not apply to relational data"):
        get_ranker("rf-rf", ds)       # the permutation score is undefined for relations


def test_rank_command(shop, tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert main(["rank", str(shop), "--method", "genie3-bagging", "-p", "trees=5",
                 "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "feature,importance,rank"
    top = {ln.split(",")[0] for ln in lines[1:] if ln.split(",")[2] in ("1", "2")}
    assert top == set(PLANTED)
    assert main(["rank", str(shop), "--method", "symbolic-boost", "-p", "trees=4",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["meta"]["ensemble"] == "boost" and len(doc["meta"]["curve"]) == 4
    assert set(doc["meta"]["by_aggregate"]) <= {"count", "countd", "sum", "mean", "min",
                                                "max", "mode"}
    assert main(["rank", str(shop), "--method", "genie3-tree"]) == 0
    text = capsys.readouterr().out
    assert "by table" in text and "by aggregate" in text


@pytest.mark.parametrize("argv, msg", [
    (["--method", "genie3-et"], "does not apply to relational data"),
    (["--method", "genie3-rf", "--targets", "last:1"], "does not apply to relational data"),
    (["--method", "genie3-rf", "-p", "lookahead=9"], "lookahead"),
    (["--method", "genie3-rf", "-p", "aggregates=median"], "aggregates"),
    (["--method", "genie3-tree", "-p", "tune=depth:1/2"], "cannot tune"),
])
def test_rank_errors(shop, capsys, argv, msg):
    assert main(["rank", str(shop)] + argv) == 2
    err = capsys.readouterr().err
    assert msg in err and len(err.strip().splitlines()) == 1


def test_relational_only_method_on_tabular_data(capsys):
    assert main(["rank", "synth-classification", "--method", "genie3-boost"]) == 2
    assert "needs relational data" in capsys.readouterr().err


def test_jobs_invariance_through_cli(shop, tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert main(["rank", str(shop), "--method", "genie3-rf", "-p", "trees=6", "--seed", "3",
                 "-o", str(a)]) == 0
    assert main(["rank", str(shop), "--method", "genie3-rf", "-p", "trees=6", "--seed", "3",
                 "--jobs", "2", "-o", str(b)]) == 0
    assert a.read_text() == b.read_text()


def test_tuning_chooses_by_internal_cv(shop):
    ds = load_relational(shop)
    r = get_ranker("genie3-tree", ds)
    rk = r.rank(ds, {"tune": "min_leaf:1/20;min_decrease:0/0.5"})[0]
    t = rk.meta["tuning"]
    assert t["combinations"] == 4 and t["folds"] == 3
    assert set(t["chosen"]) == {"min_leaf", "min_decrease"}
    assert 0.5 <= t["cv_accuracy"] <= 1.0


def test_experiment_runner_and_stats(shop, tmp_path, capsys):
    other = write_planted(tmp_path / "shop2", n=60, seed=9, folds=4)
    cfg = tmp_path / "rel.yaml"
    cfg.write_text(f"""name: rel
output: {tmp_path / 'res'}
datasets:
  - {{name: shop, path: {shop}}}
  - {{name: shop2, path: {other}}}
protocol: {{type: cv, folds: 4, seed: 1}}
rankers:
  - {{method: genie3-bagging, params: {{trees: 4}}}}
  - {{method: symbolic-bagging, params: {{trees: 4}}}}
  - {{method: genie3-tree, params: {{tables: target}}}}
""")
    assert main(["experiment", str(cfg)]) == 0
    from frcli.results.store import tidy_frame

    df = tidy_frame(tmp_path / "res" / "rel")
    assert set(df["measure"]) == {"accuracy"}
    acc = df.groupby("method")["value"].mean()
    # Symbolic and Genie3 of one ensemble share its model (same seed): same accuracy
    assert acc["genie3-bagging"] == acc["symbolic-bagging"]
    assert acc["genie3-bagging"] > 0.85 > acc["genie3-tree"] - 0.2
    assert len(df) == 24                         # 2 sets × 3 rankers × 4 published folds
    capsys.readouterr()
    assert main(["experiment", str(cfg)]) == 0           # resumable: nothing recomputed
    assert "0 computed" in capsys.readouterr().out
    assert main(["stats", str(tmp_path / "res" / "rel")]) == 0
    assert "genie3-bagging(trees=4)" in capsys.readouterr().out


def test_experiment_stratified_when_folds_not_a_partition(tmp_path):
    folder = write_planted(tmp_path / "bad", n=40, seed=1, folds=4)
    fold = folder / "folds" / "folds1.txt"
    lines = fold.read_text().splitlines()
    first = lines[lines.index("|||") + 1]
    second = [i for i, ln in enumerate(lines) if ln == "|||"][1]
    lines.insert(second + 1, first)               # one example in two folds
    fold.write_text("\n".join(lines) + "\n")
    ds = load_relational(folder)
    assert not ds.folds.is_partition
    from frcli.experiment.config import parse_config
    from frcli.experiment.executor import _splits, load_spec

    cfg = parse_config({"name": "x", "datasets": [{"name": "bad", "path": str(folder)}],
                        "protocol": {"type": "cv", "folds": 4, "seed": 5},
                        "rankers": ["genie3-tree"]})
    load_spec.cache_clear()
    sp = _splits(cfg.datasets[0], cfg.protocol)
    tests = np.sort(np.concatenate([te for _, te in sp]))
    assert tests.tolist() == list(range(40))


def _empty_relation_folder(folder, seed=1):
    """Movies rated (genre x) or mostly not (genre y); ``users.age`` has no facts at all."""
    rng = np.random.default_rng(seed)
    folder.mkdir()
    (folder / "schema.yaml").write_text(
        "target: {table: movies, column: genre}\ntables:\n  movies: {key: id}\n"
        "  ratings: {key: [user, movie], foreign_keys: {user: users, movie: movies}}\n"
        "  users: {key: id}\n")
    movies, ratings = ["id,genre"], ["user,movie,stars"]
    for i in range(40):
        g = "x" if i % 2 else "y"
        movies.append(f"m{i},{g}")
        if g == "x" or rng.random() < 0.2:
            for u in rng.choice(6, size=int(rng.integers(1, 4)), replace=False):
                ratings.append(f"u{u},m{i},{int(rng.integers(1, 11))}")
    (folder / "movies.csv").write_text("\n".join(movies) + "\n")
    (folder / "ratings.csv").write_text("\n".join(ratings) + "\n")
    (folder / "users.csv").write_text("id,age\n" + "".join(f"u{u},\n" for u in range(6)))
    return folder


@pytest.mark.parametrize("method", ["genie3-rf", "symbolic-rf", "genie3-bagging",
                                    "genie3-boost", "genie3-tree"])
def test_relation_without_facts_scores_zero(tmp_path, method):
    """A relation with no facts informs no test: through it the innermost aggregate is the
    empty group's value for every grounding (count 0, or a critical value the outer aggregate
    drops), so ``max∘count ratings(U,M,S) ∧ age(U,A)`` only says whether the movie has
    ratings — the one-atom test on ``ratings``. It had atom tests, and a forest that did not
    sample the one-atom test chose the chain, giving ``users.age`` half of its reward (genie3-rf
    1.33 of 17.65 here); it now has none and scores exactly 0, still listed."""
    from frcli.engines.relational.features import Language

    ds = load_relational(_empty_relation_folder(tmp_path / "rel"))
    assert len(ds.relations["users.age"].tuples) == 0
    assert "users.age" not in {Language(ds).rel_names[r] for r, _ in Language(ds).modes}
    for seed in range(3):
        rk = get_ranker(method, ds).rank(ds, {"trees": 20} if method != "genie3-tree"
                                         else {}, seed=seed)[0]
        imp = dict(zip(rk.feature_names, rk.importances))
        assert imp["users.age"] == 0.0 and imp["ratings.stars"] > 0, (seed, imp)
