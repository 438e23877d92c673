"""The tie rule (``ties``): ``share`` keeps CLUS's trees, shares a node's credit among the
features whose test ties with the chosen one, and routes the RF score's out-of-bag rows
through a realisation of each tree; rankings then do not depend on the column order.

* trees under ``share`` equal ``first``'s bit for bit, every task, storage mode and ensemble;
* a plain-numpy reference recomputes, at every node of small trees (MTR, classification,
  MLC's sparse mode, missing values, nominal features), every feature's best h, the tie set
  and the shared Symbolic / Genie3 / per-target Genie3;
* the realisation sends the training rows where the tree does, and the RF score of one tree
  equals the plain reference of ``test_forest_rf_reference`` run on the realised tree;
* reversing the columns leaves Symbolic and Genie3 unchanged where the trees see all
  features (bagging) and targets are continuous, and changes them under ``first``;
* data without signal: no score correlates with the column position (20 seeds, every task
  with its default ensembles), a check ``first`` fails; planted clusters
  (unsupervised, numeric and mixed data) come out on top; wq ranked with its columns reversed
  agrees with itself as well as two seeds do.
"""
from __future__ import annotations

import dataclasses
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from frcli.data.dataset import Attribute, Dataset
from frcli.engines.pct.columns import clustering_spec
from frcli.engines.pct.model import PCTForest
from frcli.engines.pct.rf_clus import realised_tree

pytest.importorskip("frcli._ext.pct._forest")

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
import bench_ties as B  # noqa: E402  (the benchmark's data and rankings, shared)

ARRAYS = ("feature", "threshold", "left", "right", "weight", "hstar", "depth", "p_left",
          "offset", "cats", "values")


def tied_data(task: str, n: int = 120, seed: int = 0, missing: bool = False) -> Dataset:
    """Rounded features (one binary, one 3-valued nominal, one copy of another feature in
    reverse) so that small nodes tie often; targets for every task."""
    rng = np.random.default_rng([seed, n, sum(map(ord, task))])
    F = 9
    X = np.round(rng.uniform(0, 1, (n, F)), 1)
    X[:, 4] = (X[:, 4] > 0.6).astype(float)
    X[:, 5] = rng.integers(0, 3, n)
    X[:, 7] = -X[:, 1]                       # the same partitions as x1, mirrored
    if missing:
        for j in (0, 3, 5):
            X[rng.random(n) < 0.08, j] = np.nan
    Xf = np.nan_to_num(X)
    sig = Xf[:, 0] + Xf[:, 1] - Xf[:, 2] + 0.3 * (Xf[:, 5] == 1)
    feats = [Attribute(f"x{j}", "nominal", ("a", "b", "c")) if j == 5
             else Attribute(f"x{j}", "numeric") for j in range(F)]
    if task == "mtr":
        Y = np.column_stack([sig, Xf[:, 3] * sig]) + 0.2 * rng.standard_normal((n, 2))
        return Dataset(task, X, feats, task, Y, [Attribute(f"y{j}", "numeric") for j in (0, 1)])
    if task == "classification":
        y = np.digitize(sig + 0.3 * rng.standard_normal(n), [0.4, 0.9]).astype(float)
        return Dataset(task, X, feats, task, y[:, None],
                       [Attribute("y", "nominal", ("p", "q", "r"))])
    if task == "mlc":                        # 9 labels: the sparse 0/1 mode
        Z = sig[:, None] + rng.standard_normal((n, 9)) * np.linspace(0.2, 1.0, 9)
        Y = (Z > np.quantile(Z, 0.7, axis=0)).astype(np.uint8)
        return Dataset(task, X, feats, task, Y)
    return Dataset(task, X, feats, "unsupervised")


# -- the trees are CLUS's ----------------------------------------------------------------

CASES = [("mtr", False), ("mtr", True), ("classification", False), ("mlc", False),
         ("unsupervised", False), ("unsupervised", True)]


@pytest.mark.parametrize("task,missing", CASES)
@pytest.mark.parametrize("ensemble", ["rf", "bagging", "et"])
def test_share_grows_clus_trees_and_keeps_the_credit(task, missing, ensemble):
    ds = tied_data(task, missing=missing)
    kw = dict(trees=6, seed=4, bootstrap=True, min_leaf=1.0 if task == "unsupervised" else 2.0)
    fit = dict(rf_score=True, per_target=task != "unsupervised")
    first = PCTForest(ensemble, ties="first", **kw).fit(ds, **fit)
    share = PCTForest(ensemble, ties="share", **kw).fit(ds, **fit)
    for a, b in zip(first.trees_, share.trees_):
        for k in ARRAYS:
            assert np.array_equal(a[k], b[k]), k
        assert "tie_ptr" not in a
    assert sum(len(t["tie_feat"]) for t in share.trees_) > 0      # there were ties
    assert sum(len(t["alt_node"]) for t in share.trees_) > 0
    assert np.array_equal(first.predict(ds.X), share.predict(ds.X))
    sa, sb = first.scores(), share.scores()
    for k in ("symbolic", "genie3", "genie3_per_target"):
        if k in sa:
            assert np.sum(sb[k]) == pytest.approx(np.sum(sa[k]), rel=1e-12), k
            assert not np.allclose(sa[k], sb[k]), k


# -- plain-numpy reference of the tie sets and the shared credit ------------------------

def _node_rows(tree, X, node_rows_of_root, ncat):
    """{node: (rows, weights)} of the training rows (missing values down both branches with
    the tree's shares), as the builder splits them."""
    out = {}
    stack = [(0, *node_rows_of_root)]
    while stack:
        node, rows, w = stack.pop()
        out[node] = (rows, w)
        f = int(tree["feature"][node])
        if f < 0:
            continue
        x = X[rows, f]
        miss = np.isnan(x)
        if ncat[f] > 0:
            cats = tree["cats"][tree["offset"][node]:tree["offset"][node] + ncat[f]]
            go_left = np.zeros(len(rows), bool)
            go_left[~miss] = cats[x[~miss].astype(int)] == 1
        else:
            go_left = ~miss & (x <= tree["threshold"][node])
        pl = tree["p_left"][node]
        lk, rk = go_left & ~miss, ~go_left & ~miss
        stack.append((int(tree["right"][node]), np.concatenate([rows[rk], rows[miss]]),
                      np.concatenate([w[rk], w[miss] * (1 - pl)])))
        stack.append((int(tree["left"][node]), np.concatenate([rows[lk], rows[miss]]),
                      np.concatenate([w[lk], w[miss] * pl])))
    return out


def _h(C, a, w, left):
    """The heuristic of a split on complete data: sum_c a_c (S_L^2/W_L + S_R^2/W_R - S^2/W)
    with S the weighted column sums (shift-invariant: raw or centred columns alike)."""
    def term(m):
        s = (w[m, None] * C[m]).sum(axis=0)
        return float((a * s * s).sum() / w[m].sum())
    return term(left) + term(~left) - term(np.ones_like(left))


def best_h(C, a, rows, w, x, k, min_leaf):
    """Every valid test of one feature on the node's rows (numeric: x <= v for each value v
    but the largest; nominal with two values present: the first value) -> its largest h.
    Rows with x missing are left out (the corrected total)."""
    known = ~np.isnan(x)
    Ck, wk, xk = C[rows[known]], w[known], x[known]
    if wk.sum() < 2 * min_leaf:
        return -np.inf
    if k > 0:
        present = np.unique(xk)
        assert len(present) <= 2, "the reference covers nominal features with two values"
        tests = [xk == present[0]] if len(present) == 2 else []
    else:
        tests = [xk <= v for v in np.unique(xk)[:-1]]
    hs = [_h(Ck, a, wk, left) for left in tests
          if wk[left].sum() >= min_leaf and wk[~left].sum() >= min_leaf]
    return max(hs) if hs else -np.inf


def reference_credit(model, ds, min_leaf):
    """(tie sets per node, symbolic, genie3, genie3 per target) of a one-tree bagging model
    without bootstrap, recomputed in numpy from the data."""
    spec = clustering_spec(ds)
    C = np.asarray(spec.raw, dtype=np.float64)
    a = spec.a
    tree = model.trees_[0]
    ncat = model.ncat_
    n, F = ds.X.shape
    rows_of = _node_rows(tree, ds.X, (np.arange(n), np.ones(n)), ncat)
    ties, sym, g3 = {}, np.zeros(F), np.zeros(F)
    G = len(spec.group_names)
    pt = np.zeros((G, F))
    for node, (rows, w) in rows_of.items():
        f = int(tree["feature"][node])
        if f < 0:
            continue
        x = ds.X[rows, f]
        if ncat[f] > 0:
            cats = tree["cats"][tree["offset"][node]:tree["offset"][node] + ncat[f]]
            left = cats[x.astype(int)] == 1
        else:
            left = x <= tree["threshold"][node]
        per_col = np.array([_h(C[rows][:, [c]], a[[c]], w, left) for c in range(C.shape[1])])
        h = per_col.sum()               # the chosen test's h: the tie band's centre
        assert h == pytest.approx(tree["hstar"][node], rel=1e-9)
        hs = [best_h(C, a, rows, w, ds.X[rows, g], ncat[g], min_leaf) for g in range(F)]
        tied = sorted(g for g in range(F) if g != f and abs(hs[g] - h) <= 1e-6)
        ties[node] = tied
        share = 1.0 / (1 + len(tied))
        for g in [f, *tied]:
            sym[g] += 0.5 ** tree["depth"][node] * share
            g3[g] += tree["hstar"][node] * share
            for c in range(C.shape[1]):
                if spec.col_group[c] >= 0:
                    pt[spec.col_group[c], g] += per_col[c] * share
    return ties, sym, g3, pt


def reference_data(task: str, seed: int) -> Dataset:
    """tied_data without missing values and with a binary nominal feature (the reference
    covers two-valued nominal tests)."""
    ds = tied_data(task, n=40, seed=seed)
    X = ds.X.copy()
    X[:, 5] = (X[:, 5] > 0).astype(float)
    feats = list(ds.features)
    feats[5] = Attribute("x5", "nominal", ("a", "b"))
    return dataclasses.replace(ds, X=X, features=feats)


@pytest.mark.parametrize("task", ["mtr", "classification", "mlc"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tie_sets_and_shared_credit_match_a_numpy_reference(task, seed):
    ds = reference_data(task, seed)
    min_leaf = 1.0
    m = PCTForest("bagging", trees=1, bootstrap=False, min_leaf=min_leaf, seed=seed,
                  ties="share").fit(ds, per_target=True)
    ties, sym, g3, pt = reference_credit(m, ds, min_leaf)
    tree = m.trees_[0]
    got = {node: sorted(tree["tie_feat"][tree["tie_ptr"][node]:tree["tie_ptr"][node + 1]])
           for node in ties}
    assert got == ties
    assert sum(map(len, ties.values())) > 0
    sc = m.scores(0.5)
    np.testing.assert_allclose(sc["symbolic"], sym, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(sc["genie3"], g3, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sc["genie3_per_target"], pt, rtol=1e-9, atol=1e-12)


def test_equal_heuristics_with_different_partitions_tie():
    """Classification, classes (a, a, b, b): splitting off any one row gives the same h. x0
    (order r0 r2 r1 r3) splits off r3, x1 (order r2 r0 r3 r1) r1: different partitions,
    equal h, so they share the root's credit, and the realisation keeps x0's test there."""
    X = np.array([[0, 1], [2, 3], [1, 0], [3, 2]], dtype=float)
    y = np.array([0, 0, 1, 1], dtype=float)
    ds = Dataset("c", X, [Attribute("x0", "numeric"), Attribute("x1", "numeric")],
                 "classification", y[:, None], [Attribute("y", "nominal", ("a", "b"))])
    kw = dict(trees=1, bootstrap=False, min_leaf=1.0)
    share = PCTForest("bagging", ties="share", **kw).fit(ds)
    first = PCTForest("bagging", ties="first", **kw).fit(ds)
    t = share.trees_[0]
    assert t["feature"][0] == 0 and t["threshold"][0] == 2.0
    assert list(t["tie_feat"][t["tie_ptr"][0]:t["tie_ptr"][1]]) == [1]
    assert 0 not in t["alt_node"]
    gain = share.scores()["genie3"] - first.scores()["genie3"]
    assert gain[1] == pytest.approx(t["hstar"][0] / 2) and gain[0] == pytest.approx(-gain[1])


# -- the realisation and the RF score ----------------------------------------------------

def _leaves(tree, X, ncat):
    out = []
    for x in X:
        node = 0
        while tree["feature"][node] >= 0:
            f = tree["feature"][node]
            if ncat[f] > 0:
                go = tree["cats"][tree["offset"][node] + int(x[f])] == 1
            else:
                go = x[f] <= tree["threshold"][node]
            node = tree["left"][node] if go else tree["right"][node]
        out.append(node)
    return np.array(out)


@pytest.mark.parametrize("task", ["mtr", "classification", "mlc"])
def test_the_realisation_routes_training_rows_as_the_tree(task):
    from frcli._ext.pct import _forest
    ds = tied_data(task, seed=3)
    m = PCTForest("bagging", trees=3, seed=1, ties="share").fit(ds)
    counts = _forest.bootstrap_counts(m.seeds_, ds.n_examples)
    for t, c in zip(m.trees_, counts):
        assert len(t["alt_node"]) > 0
        r = realised_tree(t, m.ncat_)
        assert not np.array_equal(r["feature"], t["feature"])
        rows = np.flatnonzero(c > 0)            # the tree's bag
        assert np.array_equal(_leaves(r, ds.X[rows], m.ncat_), _leaves(t, ds.X[rows], m.ncat_))


@pytest.mark.parametrize("task", ["mtr", "classification", "mlc"])
@pytest.mark.parametrize("seed", [0, 5])
def test_rf_score_uses_the_realised_tree(task, seed):
    from tests.helpers.pct import reference_rf
    ds = tied_data(task, seed=seed)
    m = PCTForest("bagging", trees=1, seed=seed, ties="share").fit(ds, rf_score=True,
                                                                   per_target=True)
    t = m.trees_[0]
    assert len(t["alt_node"]) > 0
    sc = m.scores()
    m.trees_ = [realised_tree(t, m.ncat_)]          # what the reference permutes and predicts
    rf, rf_pt = reference_rf(m, ds, seed)
    np.testing.assert_allclose(sc["rf"], rf, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sc["rf_per_target"], rf_pt, rtol=1e-9, atol=1e-12)


def test_clus_rf_variant_uses_the_realised_trees():
    from frcli.engines.pct.rf_clus import clus_rf_scores
    from tests.helpers.pct import reference
    ds = tied_data("mtr", seed=2)        # numeric features: the reference's CLUS order
    ds = dataclasses.replace(ds, features=[Attribute(a.name, "numeric") for a in ds.features])
    m = PCTForest("rf", trees=6, seed=5, ties="share").fit(ds, keep_values=True)
    assert sum(len(t["alt_node"]) for t in m.trees_) > 0
    got, got_t = clus_rf_scores(m, ds, 5)
    m.trees_ = [realised_tree(t, m.ncat_) for t in m.trees_]
    ref, ref_t = reference(m, ds, 5)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got_t, ref_t, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("task", ["mtr", "classification"])
def test_rf_score_of_a_feature_outside_the_realised_tree_is_exactly_zero(task):
    ds = tied_data(task, n=40)
    extra = np.round(np.random.default_rng(1).uniform(0, 1, (40, 30)), 1)
    ds = dataclasses.replace(ds, X=np.column_stack([ds.X, extra]), features=ds.features + [
        Attribute(f"z{j}", "numeric") for j in range(30)])
    for seed in range(3):
        m = PCTForest("rf", trees=1, seed=seed, max_features=2, ties="share").fit(
            ds, rf_score=True, per_target=True)
        r = realised_tree(m.trees_[0], m.ncat_)
        unused = sorted(set(range(ds.n_features)) - set(r["feature"][r["feature"] >= 0]))
        assert unused
        sc = m.scores()
        assert (sc["rf"][unused] == 0.0).all() and (sc["rf_per_target"][:, unused] == 0).all()


def test_a_copied_column_gets_the_same_credit():
    """Bagging sees both copies at every node: under share they always tie, so their
    Symbolic and Genie3 are equal; under first the copy gets nothing."""
    ds = tied_data("mtr", seed=6)
    X = np.column_stack([ds.X, ds.X[:, 0]])
    ds = dataclasses.replace(ds, X=X, features=ds.features + [Attribute("copy", "numeric")])
    share = PCTForest("bagging", trees=10, seed=1, ties="share").fit(ds).scores()
    first = PCTForest("bagging", trees=10, seed=1, ties="first").fit(ds).scores()
    for k in ("symbolic", "genie3"):
        assert share[k][-1] == pytest.approx(share[k][0], rel=1e-12) and share[k][0] > 0
        assert first[k][-1] == 0.0


# -- the column order --------------------------------------------------------------------

@pytest.mark.parametrize("task", ["mtr", "unsupervised"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_reversing_the_columns_changes_nothing_under_share(task, seed):
    """Bagging sees every feature at every node and bags do not depend on the columns, so
    with continuous targets only the tie rule can make the column order matter."""
    rng = np.random.default_rng(seed)
    ds = tied_data(task, n=80, seed=seed)
    if task == "mtr":
        ds = dataclasses.replace(ds, Y=ds.Y + rng.standard_normal(ds.Y.shape))
    kw = dict(trees=4, seed=seed, min_leaf=1.0)
    out = {}
    for rule in ("share", "first"):
        a = PCTForest("bagging", ties=rule, **kw).fit(ds, per_target=True).scores()
        b = PCTForest("bagging", ties=rule, **kw).fit(B.reverse(ds), per_target=True).scores()
        out[rule] = all(np.allclose(a[k], b[k][..., ::-1], rtol=1e-9, atol=1e-12)
                        for k in ("symbolic", "genie3", "genie3_per_target") if k in a)
    assert out["share"]
    assert not out["first"]


def position_bias(rule: str, task: str, seeds: int = 20, trees: int = 20, **extra) -> dict:
    """Mean over seeds of Spearman(column position, importance) per score, the task's
    default ensemble per score (the bare methods ``symbolic``, ``genie3``, ``rf``);
    ``extra``: more parameters of the rankers."""
    from frcli.rankers.ensemble import shared_forests
    from frcli.rankers.registry import get_ranker
    acc = {s: [] for s in B.SCORES}
    for seed in range(seeds):
        ds = B.nosignal(task, seed)
        params = {"trees": trees, "ties": rule, **extra}
        if task == "ssl-mtr":
            params["w"] = 0.5
        with warnings.catch_warnings(), shared_forests():
            warnings.simplefilter("ignore")
            for s in ("rf", "symbolic", "genie3"):
                p = dict(params, bootstrap="true") if s == "rf" else params
                imp = get_ranker(s).rank(ds, p, seed=seed)[0].importances
                acc[s].append(spearmanr(np.arange(ds.n_features), imp)[0])
    return {s: float(np.mean(v)) for s, v in acc.items()}


def order_free(bias: dict) -> bool:
    """The criterion: every score within +-0.2 of no correlation."""
    return all(abs(v) <= 0.2 for v in bias.values())


@pytest.mark.parametrize("task", B.NOSIGNAL_TASKS)
def test_no_score_follows_the_column_order_on_data_without_signal(task):
    bias = position_bias("share", task)
    assert order_free(bias), bias


@pytest.mark.parametrize("task", ["mtr", "classification", "unsupervised"])
def test_the_column_order_check_fails_with_clus_rule(task):
    """Unsupervised: with the papers' fully grown trees, whose small nodes tie most (the
    default leaf of a fifth of the rows leaves few ties for the rule to decide)."""
    bias = position_bias("first", task, **({"min_leaf": "auto"} if task == "unsupervised"
                                           else {}))
    assert not order_free(bias), bias


@pytest.mark.parametrize("kind", ["numeric", "mixed"])
@pytest.mark.parametrize("method", ["genie3", "rf", "genie3-rf", "rf-rf"])
def test_planted_clusters_lead_unsupervised_rankings(kind, method):
    from frcli.rankers.registry import get_ranker
    ds, relevant = B.planted_unsupervised(kind, 7)
    params = {"bootstrap": "true"} if method == "rf" else {}
    imp = get_ranker(method).rank(ds, params, seed=7)[0].importances
    top = B.topk(imp, ds.feature_names, len(relevant))
    assert len(top & set(relevant)) >= 3, (method, sorted(top))


def test_reversed_wq_agrees_with_itself_as_well_as_two_seeds(shared_data):
    from frcli.rankers.registry import get_ranker
    ds = B.load_mtr("wq")
    rv = B.reverse(ds)
    out = {}
    for rule in ("share", "first"):
        r = get_ranker("genie3")
        a = r.rank(ds, {"ties": rule}, seed=1)[0].importances
        b = r.rank(ds, {"ties": rule}, seed=2)[0].importances
        c = r.rank(rv, {"ties": rule}, seed=1)[0].importances[::-1]
        out[rule] = (spearmanr(a, c)[0], spearmanr(a, b)[0])
    assert out["share"][0] >= out["share"][1] - 0.05, out
    assert out["first"][0] < out["first"][1] - 0.05, out


def test_list_methods_and_the_output_header_show_the_rule(capsys):
    from frcli.cli import main

    assert main(["rank", "--list-methods"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "ties=share" in out and "'first' = the feature first in the data" in out
    assert main(["rank", "synth-mtr", "--method", "genie3-rf", "-p", "trees=5"]) == 0
    assert "ties=share" in capsys.readouterr().out
