"""Ensemble rankers: planted features on top for every task, ensemble and score; params."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.data.dataset import Attribute, Dataset, Hierarchy
from frcli.errors import ConfigError
from frcli.rankers.registry import get_ranker
from tests.conftest import need_file, need_kernel

need_kernel("frcli._ext.pct._forest")

PLANTED = {0, 1, 2}


def planted(task, n=240, F=10, seed=0):
    """Features 0-2 determine the targets (or, unsupervised, share a cluster structure);
    the rest are noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    feats = [Attribute(f"x{i}", "numeric") for i in range(F)]
    s = X[:, 0] + X[:, 1] + X[:, 2]
    if task == "mtr":
        Y = np.column_stack([X[:, 0] + 0.5 * X[:, 1], X[:, 1] - X[:, 2], s])
        return Dataset("mtr", X, feats, "mtr", Y + 0.1 * rng.normal(size=Y.shape),
                       [Attribute(f"y{j}", "numeric") for j in range(3)])
    if task == "regression":
        return Dataset("r", X, feats, "regression", s, [Attribute("y", "numeric")])
    if task == "classification":
        y = (X[:, 0] > 0).astype(float) + (X[:, 1] + X[:, 2] > 0)
        return Dataset("c", X, feats, "classification", y,
                       [Attribute("c", "nominal", ("a", "b", "c"))])
    if task in ("mlc", "hmlc"):
        Y = np.column_stack([X[:, 0] > 0, (X[:, 0] > 0) & (X[:, 1] > 0), X[:, 2] > 0,
                             X[:, 1] + X[:, 2] > 0.5]).astype(np.uint8)
        H = Hierarchy(["a", "a/b", "c", "d"], [[], [0], [], []])
        return Dataset(task, X, feats, task, Y, hierarchy=H if task == "hmlc" else None)
    z = rng.integers(0, 2, n) * 3.0                       # unsupervised: a shared cluster
    X[:, :3] = z[:, None] + 0.3 * rng.normal(size=(n, 3))
    return Dataset("u", X, feats, "unsupervised")


def top3(ranking):
    return set(ranking.order()[:3].tolist())


@pytest.mark.parametrize("task", ["mtr", "regression", "classification", "mlc", "hmlc",
                                  "unsupervised"])
@pytest.mark.parametrize("ensemble", ["rf", "bagging", "et"])
@pytest.mark.parametrize("score", ["symbolic", "genie3", "rf"])
def test_planted_features_come_out_on_top(task, ensemble, score):
    if task == "unsupervised" and score == "symbolic":
        # Symbolic counts nodes, and fully grown clustering trees split noise features all
        # the way down; P-UNS does not use it for that reason (spec-ssl-unsup §2.1)
        return
    ds = planted(task)
    params = {"trees": 30, "bootstrap": "true"}
    r = get_ranker(f"{score}-{ensemble}").rank(ds, params, seed=1)[0]
    if task == "unsupervised":
        # the three planted features are redundant (one split on any explains the others),
        # so they share the credit: the best one leads and their mean beats every noise one
        imp = r.importances
        assert r.order()[0] in PLANTED, imp.round(3)
        assert imp[:3].mean() > imp[3:].max(), imp.round(3)
    else:
        assert top3(r) == PLANTED, r.importances.round(3)


@pytest.mark.parametrize("method", ["genie3-rf-str", "rf-bagging-str", "symbolic-et-str"])
@pytest.mark.parametrize("task", ["mtr", "mlc"])
def test_str_variants_rank_planted_features_and_report_per_target(method, task):
    ds = planted(task)
    r = get_ranker(method).rank(ds, {"trees": 20, "bootstrap": True}, seed=2)[0]
    assert top3(r) == PLANTED
    assert r.per_target.shape == (ds.n_targets, ds.n_features)
    assert np.allclose(r.per_target.mean(axis=0), r.importances)


def test_per_target_scores_find_each_targets_own_features():
    ds = planted("mtr")
    r = get_ranker("genie3-rf").rank(ds, {"trees": 40}, seed=0)[0]
    assert r.target_names == ["y0", "y1", "y2"]
    assert set(np.argsort(-r.per_target[0])[:2]) == {0, 1}
    assert set(np.argsort(-r.per_target[1])[:2]) == {1, 2}
    rf = get_ranker("rf-rf").rank(ds, {"trees": 40}, seed=0)[0]
    assert set(np.argsort(-rf.per_target[0])[:2]) == {0, 1}
    assert "per_target" in r.to_dict()


@pytest.mark.parametrize("w", ["0.5", "0", "1"])
def test_semi_supervised_rankings(w):
    ds = planted("mtr", n=300)
    rng = np.random.default_rng(5)
    ssl = ds.with_unlabeled(rng.random(ds.n_examples) < 0.7)
    r = get_ranker("genie3-rf").rank(ssl, {"trees": 30, "w": w}, seed=0)[0]
    assert r.meta["w"] == float(w)
    if w == "1":      # the supervised counterpart: only labeled rows are grown on (with
        # equal parameters: by default semi-supervised trees are fully grown, min_leaf 1)
        sup = get_ranker("genie3-rf").rank(ssl.subset(ssl.labeled),
                                           {"trees": 30, "min_leaf": 1}, seed=0)[0]
        assert np.array_equal(sup.importances, r.importances)
    if w == "0.5":
        assert top3(r) == PLANTED


def test_semi_supervised_w_auto_picks_from_the_grid():
    ds = planted("classification", n=200)
    ssl = ds.with_unlabeled(np.random.default_rng(1).random(200) < 0.5)
    r = get_ranker("genie3-rf").rank(ssl, {"trees": 10}, seed=0)[0]
    assert r.meta["w"] in [round(0.1 * i, 1) for i in range(11)]
    assert len(r.meta["w_cv_loss"]) == 11
    assert top3(r) == PLANTED


def test_jobs_do_not_change_rankings():
    ds = planted("mlc")
    a = get_ranker("rf-rf").rank(ds, {"trees": 16}, seed=3, jobs=1)[0]
    b = get_ranker("rf-rf").rank(ds, {"trees": 16}, seed=3, jobs=2)[0]
    assert np.array_equal(a.importances, b.importances)
    assert np.array_equal(a.per_target, b.per_target)


def test_parameter_errors_are_config_errors():
    ds = planted("mtr", n=60)
    with pytest.raises(ConfigError, match="out-of-bag"):
        get_ranker("rf-et").rank(ds, {"trees": 2, "bootstrap": False})
    # the RF score of extra trees bootstraps by default (it needs out-of-bag rows)
    assert get_ranker("rf-et").rank(ds, {"trees": 2})[0].params["bootstrap"] is True
    with pytest.raises(ConfigError, match="max_features"):
        get_ranker("genie3-rf").rank(ds, {"max_features": "half"})
    with pytest.raises(ConfigError, match="symbolic_weight"):
        get_ranker("symbolic-rf").rank(ds, {"symbolic_weight": "2"})
    with pytest.raises(ConfigError, match="trees"):
        get_ranker("genie3-rf").rank(ds, {"trees": 0})
    with pytest.raises(ConfigError, match="unsupervised"):
        get_ranker("genie3-rf-str").rank(planted("unsupervised", n=60), {"trees": 2})


def test_params_and_meta():
    ds = planted("mtr", n=80)
    r = get_ranker("symbolic-bagging").rank(
        ds, {"trees": 3, "max_features": "0.5", "symbolic_weight": "dynamic", "min_leaf": 3},
        seed=0)[0]
    assert r.params["symbolic_weight"] == "dynamic"
    assert r.meta["max_features"] == 5 and r.meta["trees"] == 3
    assert "rank_s" in r.timings
    grid = get_ranker("genie3-rf").rank(ds, {"trees": [2, 3]}, seed=0)
    assert [g.params["trees"] for g in grid] == [2, 3]


def test_unlabeled_rows_without_semi_supervised_are_dropped():
    """Rows lacking every target make the forest semi-supervised only when asked for."""
    import dataclasses

    ds = planted("mtr", n=200)
    part = ds.with_unlabeled(np.random.default_rng(2).random(200) < 0.4)
    plain = dataclasses.replace(part, semi_supervised=False)
    with pytest.warns(UserWarning, match="without known targets"):
        r = get_ranker("genie3-rf").rank(plain, {"trees": 8}, seed=0)[0]
    assert "w" not in r.meta
    sup = get_ranker("genie3-rf").rank(part.subset(part.labeled), {"trees": 8}, seed=0)[0]
    assert np.array_equal(r.importances, sup.importances)
    ssl = get_ranker("genie3-rf").rank(part, {"trees": 8, "w": 0.5}, seed=0)[0]
    assert ssl.meta["w"] == 0.5 and not np.array_equal(ssl.importances, r.importances)


SYNTH = __import__("pathlib").Path(__file__).resolve().parents[2] / "datasets" / "synthetic"


@pytest.mark.parametrize("method", ["genie3-rf-str", "rf-bagging-str", "relief-str"])
@pytest.mark.parametrize("name, targets", [("synth-mtr", "13-15"), ("synth-mlc", "13-17"),
                                           ("synth-hmlc", "13"),
                                           ("synth-classification", "13")])
def test_str_variants_through_the_cli(method, name, targets, capsys):
    """-str runs on every task with targets and writes per-target importances in JSON whose
    mean is the overall ranking; on a single target it is the plain method (documented)."""
    import json

    from frcli.cli import main

    path = need_file(SYNTH / f"{name}.arff", "the bundled synthetic set")
    base = ["rank", str(path), "--targets", targets, "--format", "json", "--seed", "3"]
    extra = [] if method.startswith("relief") else ["--param", "trees=10"]
    assert main(base + ["--method", method] + extra) == 0
    doc = json.loads(capsys.readouterr().out)
    imp = np.array([f["importance"] for f in doc["features"]])
    per = doc["per_target"]
    assert len(per) >= 1
    per_mat = np.array([[per[t][f["feature"]] for f in doc["features"]] for t in per])
    np.testing.assert_allclose(per_mat.mean(axis=0), imp, atol=1e-12)
    if name == "synth-classification":
        assert main(base + ["--method", method[:-4]] + extra) == 0
        plain = json.loads(capsys.readouterr().out)
        assert [f["importance"] for f in plain["features"]] == list(imp)


@pytest.mark.parametrize("method", ["genie3-rf", "relief"])
def test_cli_semi_supervised_only_when_asked(method, capsys):
    """synth-ssl-mtr (70 % rows without targets): plain `rank` learns from the labelled rows
    (with a warning); `--semi-supervised` gives the SSL variant."""
    import json
    import warnings

    from frcli.cli import main
    from frcli.data import load_dataset

    path = need_file(SYNTH / "synth-ssl-mtr.arff", "the bundled synthetic set")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert load_dataset(path, targets="13-15", semi_supervised=True).semi_supervised
    base = ["rank", str(path), "--targets", "13-15", "--method", method, "--format", "json"]
    extra = ["--param", "trees=5", "--param", "w=0.5"] if method != "relief" else []
    assert main(base + extra) == 0
    cap = capsys.readouterr()
    assert "without known targets" in cap.err     # the CLI prints warnings on stderr
    plain = json.loads(cap.out)
    assert main(base + extra + ["--semi-supervised"]) == 0
    ssl = json.loads(capsys.readouterr().out)
    if method == "relief":
        assert plain["meta"]["variant"] == "rrelieff" and ssl["meta"]["variant"] == "ssl"
    else:
        assert "w" not in plain["meta"] and ssl["meta"]["w"] == 0.5


def test_symbolic_weight_only_for_symbolic_and_min_leaf_default_is_per_task():
    ds = planted("mtr", n=40)
    for m in ("genie3-rf", "rf-bagging-str", "genie3-et"):
        r = get_ranker(m)
        assert "symbolic_weight" not in r.param_spec()
        with pytest.raises(ConfigError, match="unknown parameter 'symbolic_weight'"):
            r.validate(ds, {"symbolic_weight": 0.5})
    assert "symbolic_weight" in get_ranker("symbolic-et-str").param_spec()
    spec = get_ranker("genie3-rf").param_spec()["min_leaf"]
    assert str(spec.default) == "default"
    assert get_ranker("genie3-rf").resolve({})["min_leaf"] == ["default"]
    # given values stay floats (weighted examples)
    assert isinstance(get_ranker("genie3-rf").resolve({"min_leaf": 3})["min_leaf"][0], float)
    # default: 2 supervised, a fifth of the rows unsupervised; auto: the papers' 2 and 1
    r = get_ranker("genie3-rf").rank(ds, {"trees": 2})[0]
    assert r.params["min_leaf"] == 2.0
    un = planted("unsupervised", n=40)
    assert get_ranker("genie3-rf").rank(un, {"trees": 2})[0].params["min_leaf"] == 8.0
    assert get_ranker("genie3-rf").rank(un, {"trees": 2, "min_leaf": "auto"})[0] \
        .params["min_leaf"] == 1.0


@pytest.mark.parametrize("method, task, params, words", [
    ("rf-et", "mtr", {"bootstrap": False}, ["out-of-bag", "bootstrap=true"]),
    ("rf-rf", "mtr", {"bootstrap": [True, False]}, ["out-of-bag"]),
    ("genie3-rf", "mtr", {"w0": 0.5}, ["'w0'", "hmlc"]),
    ("genie3-rf", "unsupervised", {"w": 0.5}, ["'w'", "needs targets"]),
    ("genie3-rf-str", "unsupervised", {}, ["needs targets"]),
])
def test_ensemble_validate_checks_task_dependent_params_before_growing(
        monkeypatch, method, task, params, words):
    import frcli.engines.pct.scoring

    def boom(*a, **k):
        raise AssertionError("a forest was grown before the parameters were checked")
    monkeypatch.setattr(frcli.engines.pct.scoring, "forest_scores", boom)
    ds = planted(task, n=40)
    for call in (lambda: get_ranker(method).validate(ds, params),
                 lambda: get_ranker(method).rank(ds, params)):
        with pytest.raises(ConfigError) as e:
            call()
        for w in words:
            assert w in str(e.value), str(e.value)
    # defaults and the hmlc weight on hmlc are fine
    get_ranker("genie3-rf").validate(planted("hmlc", n=40), {"w0": 0.5})
    get_ranker("rf-et").validate(ds if task != "unsupervised" else planted("mtr", n=40),
                                 {"bootstrap": True})


def test_list_methods_reads_well():
    """Every method once; per block its tasks and each parameter with its default (then
    the per-task defaults); symbolic_weight only in the Symbolic blocks."""
    from frcli.commands.rank import describe_methods
    from frcli.rankers.registry import method_names

    blocks: list[tuple[list[str], list[str]]] = []
    text = describe_methods()
    body = text.split("\n\n")[1]        # between the introduction and the footnotes
    for line in body.splitlines():
        if line.startswith("    "):      # a wrapped line, or the per-task defaults' detail
            continue
        if not line.startswith("  "):
            if not blocks or blocks[-1][1]:
                blocks.append(([], []))
            blocks[-1][0].extend(n.strip() for n in line.split(",") if n.strip())
        else:
            blocks[-1][1].append(line.strip())
    names = [n for b in blocks for n in b[0]]
    assert sorted(names) == sorted(method_names())
    for methods, lines in blocks:
        assert lines[0].startswith("tasks: ")
        own = [ln for ln in lines[1:] if ln != "no parameters"]
        if any(ln.startswith("per-task defaults") for ln in own):
            own = own[:[ln.startswith("per-task defaults") for ln in own].index(True)]
        params = [ln.split()[0] for ln in own]
        assert all("=" in p for p in params), lines
        if lines[0].startswith("tasks: relational"):   # relational rankers: own defaults
            assert any(p.startswith("lookahead=") for p in params)
            continue
        has_sw = any(p.startswith("symbolic_weight=") for p in params)
        assert has_sw == methods[0].startswith("symbolic"), methods
        if methods[0].split("-")[0] in ("symbolic", "genie3", "rf"):
            assert "min_leaf=default" in params
        if methods[0].endswith("-str"):
            assert "unsupervised" not in lines[0]
