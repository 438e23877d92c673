"""The relational engine: chain features against a plain-Python reference evaluator, the
thesis's worked example of the relational Symbolic score (Fig. 3.2), the one-table case against
a numpy CART with Genie3, planted relations for every ensemble and score, existential
features, restrictions of AGG-Exist and NO-Rel, and invariance to --jobs."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from frcli.data.relational import load_relational
from frcli.data.relational.synthetic import PLANTED, write_planted
from tests.conftest import SHARED_DATA, need_kernel

need_kernel("frcli._ext.relational._relational")

from frcli.engines.relational.ensemble import fit  # noqa: E402
from frcli.engines.relational.features import BOUND, CONST, FRESH, Atom, Language  # noqa: E402
from frcli.engines.relational.scores import ensemble_scores  # noqa: E402
from frcli.engines.relational.tree import Node, RelTree, TreeParams  # noqa: E402

SHARED = SHARED_DATA / "relational"
shared = pytest.mark.shared("datasets/relational")


# -- a plain-Python reference of the feature semantics (§A3) ----------------------------------

def _agg(name, vals):
    if name == "count":
        return float(len(vals))
    if name == "countd":
        return float(len(set(vals)))
    if name == "sum":
        return float(sum(vals))
    if name == "mean":
        return float(np.mean(vals)) if vals else np.inf
    if name == "min":
        return float(min(vals)) if vals else np.inf
    if name == "max":
        return float(max(vals)) if vals else -np.inf
    if not vals:                                            # mode
        return np.nan
    counts = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    best = max(counts.values())
    return float(min(v for v, c in counts.items() if c == best))


def reference_value(lang, chain, aggs, key):
    ds = lang.ds
    tuples = [ds.relations[n].tuples.tolist() for n in lang.rel_names]

    def level(d, binding):
        atom = chain[d]
        out = []
        n_match = 0
        for row in tuples[atom.rel]:
            ok = all(row[j] == (binding[v] if k == BOUND else v)
                     for j, (k, v) in enumerate(atom.args) if k != FRESH)
            if not ok:
                continue
            n_match += 1
            b = dict(binding)
            for j, (k, v) in enumerate(atom.args):
                if k == FRESH:
                    b[v] = row[j]
            if d == len(chain) - 1:
                fresh = [j for j, (k, _) in enumerate(atom.args) if k == FRESH]
                if len(fresh) == 1:
                    t = lang.rel_types[atom.rel][fresh[0]]
                    dom = ds.domains[t]
                    out.append(float(dom.numbers[row[fresh[0]]]) if dom.kind == "numeric"
                               else float(row[fresh[0]]))
                elif len(fresh) > 1:
                    out.append(0.0)
            else:
                v = level(d + 1, b)
                if np.isfinite(v):
                    out.append(v)
        if d == len(chain) - 1 and not any(k == FRESH for k, _ in atom.args):
            out = [float(n_match)]
        return _agg(aggs[d], out)

    return level(0, {i: int(k) for i, k in enumerate(key)})


def check_batch(lang, batch, n_cols=60, n_examples=25, seed=0):
    from frcli._ext.relational import _relational as K

    rng = np.random.default_rng(seed)
    ds = lang.ds
    ex = rng.choice(ds.n_examples, size=min(n_examples, ds.n_examples), replace=False)
    cols = rng.choice(batch.n_cols, size=min(n_cols, batch.n_cols), replace=False)
    for col in cols:
        c = int(batch.col_chain[col])
        got = K.evaluate(lang.db, batch.batch, c, [col], ds.keys, ex)[:, 0]
        want = [reference_value(lang, batch.chains[c], batch.aggs(col), ds.keys[i]) for i in ex]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True,
                                   err_msg=lang.describe(batch.chains[c], batch.aggs(col)))


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    return load_relational(write_planted(tmp_path_factory.mktemp("shop"), n=100, seed=3))


def test_features_match_reference(shop):
    lang = Language(shop)
    root = lang.batch(())
    assert root.n_cols > 0
    check_batch(lang, root)
    # a continued context: prefixes of a 2-atom chain, with 4-atom chains
    chain = next(ch for ch in root.chains if len(ch) == 2)
    for b in lang.candidates(chain)[1:]:
        assert all(len(ch) == len(b.chains[0]) for ch in b.chains)
        check_batch(lang, b, seed=1)


@shared
@pytest.mark.parametrize("name", ["uwcse", "mutagenesis", "webkb"])
def test_features_match_reference_on_shared(name):
    ds = load_relational(SHARED / name)
    lang = Language(ds)
    root = lang.batch(())
    check_batch(lang, root, n_cols=40, n_examples=12)
    if name == "uwcse":     # chains that continue a context, with nominal modes and counts
        chain = next(ch for ch in root.chains if len(ch) == 2)
        check_batch(lang, lang.batch(chain[:1]), n_cols=40, n_examples=10, seed=2)


def test_each_chain_in_one_batch(shop):
    """The batches of a context's prefixes never repeat a chain (§A4 enumeration)."""
    lang = Language(shop, lookahead=2, max_chain=4)
    root = lang.batch(())
    ctx = next(ch for ch in root.chains if len(ch) == 2)
    seen = set()
    for b in lang.candidates(ctx):
        for ch in b.chains:
            assert ch not in seen
            seen.add(ch)


def test_empty_groups_and_critical_values():
    """min/mean of nothing is +inf, max -inf, mode EMPTY, count/sum 0; inner critical values
    are dropped before the outer aggregate."""
    assert _agg("mean", []) == np.inf and _agg("max", []) == -np.inf
    assert np.isnan(_agg("mode", [])) and _agg("count", []) == 0


# -- the thesis's worked example (Ch. 3.3.2.2, Fig. 3.2) --------------------------------------

WORKED_S = """[Relations]
genre(Movie,nominal1)
r_stars(Movie,User,numeric1)
r_nationID(User,Nation)
r_nationName(Nation,nominal2)
[AtomTests]
r_stars(old,new,new)
r_nationID(old,new)
r_nationName(old,new)
"""


def _worked(tmp_path):
    f = tmp_path / "imdb"
    f.mkdir()
    (f / "imdb.s").write_text(WORKED_S)
    facts = []
    for m in range(8):
        for u in range(2):
            facts.append(f"r_stars(m{m},u{(m + u) % 4},{(m * 3 + u) % 10})")
    facts += [f"r_nationID(u{u},n{u % 2})" for u in range(4)]
    facts += ["r_nationName(n0,spain)", "r_nationName(n1,slovenia)"]
    (f / "imdb_descriptive.txt").write_text("\n".join(facts) + "\n")
    (f / "imdb_target.txt").write_text("\n".join(
        f"genre(m{m},{'thriller' if m % 2 else 'comedy'})" for m in range(8)) + "\n")
    return load_relational(f)


def _node_for(lang, chain, context, weight, gain):
    for b in lang.candidates(context):
        for col in range(b.n_cols):
            if b.chains[b.col_chain[col]] == chain:
                return Node(weight, np.zeros(2), 0, 0.0, context=context, cands=b, col=col,
                            gain=gain)
    raise AssertionError("chain not enumerated")


def test_worked_example_symbolic(tmp_path):
    """SYMB(r_stars) = 1, SYMB(r_nationID) = SYMB(r_nationName) = 1/4 [T:2240-2256]."""
    ds = _worked(tmp_path)
    lang = Language(ds, lookahead=2, max_chain=4)
    rel = {n: i for i, n in enumerate(lang.rel_names)}
    stars = Atom(rel["r_stars"], ((BOUND, 0), (FRESH, 1), (FRESH, 2)))
    nid = Atom(rel["r_nationID"], ((BOUND, 1), (FRESH, 3)))
    nname = Atom(rel["r_nationName"], ((BOUND, 3), (FRESH, 4)))
    root = _node_for(lang, (stars,), (), 8.0, 2.0)
    child = _node_for(lang, (stars, nid, nname), (stars,), 4.0, 1.0)
    leaf = lambda w: Node(w, np.zeros(2), 2, 0.0)   # noqa: E731
    root.yes, root.no, child.yes, child.no = 1, 2, 3, 4
    tree = RelTree([root, child, leaf(4.0), leaf(2.0), leaf(2.0)])
    names = ds.feature_names
    s = ensemble_scores(lang, [tree], "symbolic", "thesis", 8.0, names)["importances"]
    got = dict(zip(names, s))
    assert got == pytest.approx({"r_stars": 1.0, "r_nationID": 0.25, "r_nationName": 0.25})
    g = dict(zip(names, ensemble_scores(lang, [tree], "genie3", "thesis", 8.0,
                                        names)["importances"]))
    assert g == pytest.approx({"r_stars": 2.0, "r_nationID": 0.5, "r_nationName": 0.5})
    # 9a: the whole test shares the reward; 9b as printed: new parts, Symbolic unweighted
    i = dict(zip(names, ensemble_scores(lang, [tree], "symbolic", "ismis", 8.0,
                                        names)["importances"]))
    assert i == pytest.approx({"r_stars": 1 + 1 / 6, "r_nationID": 1 / 6,
                               "r_nationName": 1 / 6})
    j = dict(zip(names, ensemble_scores(lang, [tree], "symbolic", "journal", 8.0,
                                        names)["importances"]))
    assert j == pytest.approx({"r_stars": 1.0, "r_nationID": 0.5, "r_nationName": 0.5})


# -- one table: a numpy CART with Genie3 ----------------------------------------------------

def _numpy_cart_genie3(X, y, n_classes, min_leaf=1):
    """Exhaustive Gini CART (midpoint thresholds, first best feature on ties) and Genie3."""
    imp = np.zeros(X.shape[1])

    def gini_w(ys):
        if len(ys) == 0:
            return 0.0
        c = np.bincount(ys, minlength=n_classes)
        return len(ys) - (c ** 2).sum() / len(ys)

    def grow(rows):
        node = gini_w(y[rows])
        if len(rows) < 2 * min_leaf or node <= 1e-12:
            return
        best = None
        for f in range(X.shape[1]):
            order = rows[np.argsort(X[rows, f], kind="stable")]
            xs = X[order, f]
            for i in range(len(order) - 1):
                if xs[i + 1] <= xs[i] or i + 1 < min_leaf or len(order) - i - 1 < min_leaf:
                    continue
                s = gini_w(y[order[:i + 1]]) + gini_w(y[order[i + 1:]])
                if best is None or s < best[0] - 1e-12:
                    best = (s, f, (xs[i] + xs[i + 1]) / 2)
        if best is None:
            return
        s, f, t = best
        imp[f] += node - s
        grow(rows[X[rows, f] <= t])
        grow(rows[X[rows, f] > t])

    grow(np.arange(len(y)))
    return imp


def test_one_table_genie3_equals_numpy_cart(tmp_path):
    rng = np.random.default_rng(5)
    n = 40
    X = np.round(rng.normal(size=(n, 3)), 2)
    y = ((X[:, 0] + 0.5 * X[:, 1] > 0).astype(int))
    f = tmp_path / "tab"
    f.mkdir()
    (f / "tab.s").write_text("[Relations]\nlab(Ex,nominal1)\n" + "".join(
        f"x{j}(Ex,numeric{j})\n" for j in range(3)) + "[AtomTests]\n" +
        "".join(f"x{j}(old,new)\n" for j in range(3)))
    (f / "tab_descriptive.txt").write_text("".join(
        f"x{j}(e{i:02d},{X[i, j]})\n" for i in range(n) for j in range(3)))
    (f / "tab_target.txt").write_text("".join(f"lab(e{i:02d},c{y[i]})\n" for i in range(n)))
    ds = load_relational(f)
    lang = Language(ds, aggregates=("max",), lookahead=1, max_chain=1)
    m = fit(lang, ds.keys, ds.y, 2, "tree", tree_params=TreeParams(continuation="none"))
    ours = m.scores("genie3")["importances"]
    order = [int(s[1:]) for s in ds.example_ids()]
    want = _numpy_cart_genie3(X[order], y[order], 2)
    np.testing.assert_allclose(ours, want, rtol=1e-10)


# -- planted relations, every ensemble and score ---------------------------------------------

@pytest.mark.parametrize("kind", ["tree", "bagging", "rf", "boost"])
@pytest.mark.parametrize("score", ["symbolic", "genie3"])
def test_planted_relation_ranked_first(shop, kind, score):
    lang = Language(shop)
    tp = TreeParams(max_features="sqrt" if kind == "rf" else 1.0,
                    max_depth=2 if kind == "boost" else None)
    m = fit(lang, shop.keys, shop.y, 2, kind, trees=10, tree_params=tp, seed=1)
    s = m.scores(score)
    top2 = {shop.feature_names[i] for i in np.argsort(-s["importances"])[:2]}
    assert top2 == set(PLANTED)
    assert (m.predict(shop.keys) == shop.y).mean() > 0.9
    assert s["curve"].shape == (len(m.trees), len(shop.feature_names))
    np.testing.assert_allclose(s["curve"][-1], s["importances"])


def test_jobs_do_not_change_the_model(shop):
    lang = Language(shop)
    tp = TreeParams(max_features="sqrt")
    a = fit(lang, shop.keys, shop.y, 2, "rf", trees=6, tree_params=tp, seed=4, jobs=1)
    b = fit(lang, shop.keys, shop.y, 2, "rf", trees=6, tree_params=tp, seed=4, jobs=2)
    np.testing.assert_array_equal(a.scores("genie3")["importances"],
                                  b.scores("genie3")["importances"])
    np.testing.assert_array_equal(a.decision(shop.keys), b.decision(shop.keys))


def test_existential_language(shop):
    """AGG-Exist: one column per chain, the number of groundings, tested > 0."""
    lang = Language(shop, existential=True)
    b = lang.batch(())
    assert b.n_cols == len(b.chains)
    for col in range(b.n_cols):
        aggs = b.aggs(col)
        assert aggs[-1] == "count" and set(aggs[:-1]) <= {"sum"}
    check_batch(lang, b)


def test_target_table_only(shop):
    """NO-Rel: only relations of the examples' own table, one atom per test."""
    lang = Language(shop, target_only=True)
    b = lang.batch(())
    names = {lang.rel_names[ch[0].rel] for ch in b.chains}
    assert names == {"customer_region", "customer_age"}
    assert all(len(ch) == 1 for ch in b.chains)


@shared
def test_mutagenesis_never_uses_drugs_act():
    ds = load_relational(SHARED / "mutagenesis")
    lang = Language(ds)
    used = {lang.rel_names[a.rel] for b in lang.candidates(()) for ch in b.chains for a in ch}
    assert "drugs_act" not in used and "drugs_ind1" in used


def test_constants_only_in_last_atom(tmp_path):
    f = tmp_path / "w"
    f.mkdir()
    (f / "w.s").write_text("[Relations]\ncat(Page,nominal1)\nhas(Page,Term)\nlink(Page,Page)\n"
                           "[AtomTests]\nhas(old,c)\nhas(old,new)\nlink(old,new)\n")
    (f / "w_descriptive.txt").write_text("has(p1,a)\nhas(p1,b)\nhas(p2,a)\nlink(p1,p2)\n")
    (f / "w_target.txt").write_text("cat(p1,x)\ncat(p2,y)\n")
    ds = load_relational(f)
    lang = Language(ds)
    b = lang.batch(())
    for ch in b.chains:
        for a in ch[:-1]:
            assert not a.has_const()
    consts = [ch for ch in b.chains if ch[-1].has_const()]
    # has(X,'a'), has(X,'b'), link(X,V) ∧ has(V,'a'|'b')
    assert len(consts) == 4
    assert any(k == CONST for k, _ in consts[0][-1].args)
    check_batch(lang, b)
    assert list(itertools.islice(iter(b.chains), 1))
