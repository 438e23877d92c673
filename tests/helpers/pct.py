"""Plain references and data makers shared by the PCT engine's tests (split search, trees,
forests, the RF score): each is used by more than one test module."""
from __future__ import annotations

import numpy as np

from frcli.data.dataset import Attribute, Dataset, Hierarchy
from frcli.engines.pct.columns import MODE_SPARSE01
from frcli.engines.pct.model import PCTForest
from tests.conftest import need_kernel

TIE_DELTA, MIN_GAIN = 1e-6, 1e-9


def ref_Q(C, a, w, est):
    """|E| * sum_c a_c Var_known(E, c) for rows C (m, K) with weights w."""
    W = w.sum()
    if W <= 0:
        return 0.0
    q = 0.0
    for c in range(C.shape[1]):
        col = C[:, c]
        known = ~np.isnan(col)
        nk = w[known].sum()
        if nk < 2 and nk < W:
            v = est[c]
        elif nk <= 0:
            v = 0.0
        else:
            mu = (w[known] * col[known]).sum() / nk
            v = max((w[known] * (col[known] - mu) ** 2).sum() / nk, 0.0)
        q += a[c] * v
    return W * q


def ref_gain(C, a, w, est, left, right):
    both = left | right
    return (ref_Q(C[both], a, w[both], est) - ref_Q(C[left], a, w[left], est)
            - ref_Q(C[right], a, w[right], est))


def seq_sum(w):
    """Left-to-right float sum, the order CLUS (and the kernels) add weights in."""
    return float(np.cumsum(w)[-1]) if len(w) else 0.0


def ref_candidates(X, ncat, C, a, w, est, min_leaf):
    """Every candidate test (feature, threshold or subset, h) the spec allows, in CLUS's order:
    features by index, a numeric feature's thresholds from the largest value down (the test
    is ``x <= v``, v a data value), a nominal feature's greedy steps as they are taken.
    Weights are added as CLUS adds them: the corrected total over the node's rows in order,
    the "yes" side (x > v) over the rows by decreasing value (ties in node order), the other
    side as the difference; both must reach min_leaf exactly."""
    out = []
    for f in range(X.shape[1]):
        x = X[:, f]
        known = ~np.isnan(x)
        if ncat[f] == 0:
            T = seq_sum(w) - seq_sum(w[~known]) if (~known).any() else seq_sum(w)
            xs = x[known]
            order = np.argsort(-xs, kind="stable")
            cum = np.cumsum(w[known][order])
            vals = np.unique(xs)[::-1]           # distinct values, largest first
            for hi, lo in zip(vals[:-1], vals[1:]):
                W_yes = float(cum[np.count_nonzero(xs > lo) - 1])
                if W_yes >= min_leaf and T - W_yes >= min_leaf:
                    left = known & (x <= lo)
                    right = known & (x > lo)
                    out.append((f, lo, ref_gain(C, a, w, est, left, right)))
        else:
            k = ncat[f]
            bad = ~known | (np.nan_to_num(x, nan=-1) < 0) | (np.nan_to_num(x, nan=-1) >= k)
            T = seq_sum(w) - seq_sum(w[bad]) if bad.any() else seq_sum(w)
            Wv = np.array([seq_sum(w[~bad & (x == v)]) for v in range(k)])
            present = int((Wv > 0).sum())
            if present < 2:
                continue
            if present == 2:             # the single test x = first value present
                v = int(np.flatnonzero(Wv > 0)[0])
                left = ~bad & (x == v)
                right = ~bad & ~left
                if Wv[v] >= min_leaf and T - Wv[v] >= min_leaf:
                    out.append((f, frozenset({v}), ref_gain(C, a, w, est, left, right)))
                continue
            cur: list[int] = []
            W_cur = 0.0
            fbest = -np.inf
            while True:
                rb, rv = -np.inf, None
                for v in range(k):
                    if v in cur or Wv[v] <= 0:
                        continue
                    WS = W_cur + Wv[v]
                    if WS < min_leaf or T - WS < min_leaf:
                        continue
                    left = ~bad & np.isin(x, cur + [v])
                    right = ~bad & ~left
                    h = ref_gain(C, a, w, est, left, right)
                    if h > rb:
                        rb, rv = h, v
                if rv is None or rb <= fbest:
                    break
                cur.append(rv)
                W_cur += Wv[rv]
                fbest = rb
                out.append((f, frozenset(cur), rb))
                if len(cur) + 1 >= present:
                    break
    return out


def ref_select(cands):
    """CLUS's choice among the candidates in order: the first with h >= MIN_GAIN, replaced
    only by a later one beating it by more than TIE_DELTA (CurrentBestTestAndHeuristic)."""
    best = None
    for c in cands:
        if best is None:
            if c[2] >= MIN_GAIN:
                best = c
        elif c[2] > best[2] + TIE_DELTA:
            best = c
    return best


def dense_C(spec, n):
    """The clustering matrix as the reference sees it (dense, centred, NaN unknown)."""
    if spec.mode != MODE_SPARSE01:
        return spec.C
    C = np.zeros((n, spec.a.shape[0]))
    for i in range(n):
        C[i, spec.indices[spec.indptr[i]:spec.indptr[i + 1]]] = 1.0
    return C


def numeric_features(rng, n, F, missing=0.0, ties=False):
    X = rng.normal(size=(n, F))
    if ties:
        X = np.round(X, 0)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, [Attribute(f"x{i}", "numeric") for i in range(F)]


def mixed_features(rng, n, missing=0.0):
    X, feats = numeric_features(rng, n, 3, missing)
    nom = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 4, n),
                           rng.integers(0, 6, n)]).astype(float)
    if missing:
        nom[rng.random(nom.shape) < missing] = np.nan
    feats = feats + [Attribute("b", "nominal", ("u", "v")),
                     Attribute("c4", "nominal", tuple("abcd")),
                     Attribute("c6", "nominal", tuple("abcdef"))]
    return np.column_stack([X, nom]), feats


def ncat_of(ds):
    return np.where(ds.nominal_mask, ds.n_categories, 0).astype(np.int32)


def make(task="mtr", n=150, F=8, seed=0, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    Xf = np.nan_to_num(X)
    feats = [Attribute(f"x{i}", "numeric") for i in range(F)]
    if task == "mtr":
        Y = np.column_stack([2 * Xf[:, 0] + Xf[:, 1], Xf[:, 1] - Xf[:, 2] ** 2,
                             rng.normal(size=n)])
        return Dataset("mtr", X, feats, "mtr", Y, [Attribute(f"y{j}", "numeric") for j in range(3)])
    if task == "classification":
        y = (Xf[:, 0] > 0).astype(float) + (Xf[:, 1] > 0.5)
        return Dataset("c", X, feats, "classification", y,
                       [Attribute("c", "nominal", tuple("abc"))])
    if task in ("mlc", "hmlc"):
        Y = np.column_stack([Xf[:, 0] > 0, (Xf[:, 0] > 0) & (Xf[:, 1] > 0), Xf[:, 2] > 0.5,
                             rng.random(n) < 0.3]).astype(np.uint8)
        H = Hierarchy(["a", "a/b", "c", "d"], [[], [0], [], []])
        return Dataset(task, X, feats, task, Y, hierarchy=H if task == "hmlc" else None)
    return Dataset("u", X, feats, "unsupervised")


_forest = need_kernel("frcli._ext.pct._forest")


ARRAYS = ("feature", "threshold", "left", "right", "weight", "hstar", "depth", "p_left",
          "offset", "cats", "values")


def _grow(monkeypatch, ds, ensemble, kw, **grow_kw):
    """A forest grown with ``grow_kw`` set on the kernel's ``GrowParams``."""
    orig = _forest.grow_forest

    def grow(Xt, ncat, seeds, cols, params, *args, **kwargs):
        for k, v in grow_kw.items():
            setattr(params, k, v)
        return orig(Xt, ncat, seeds, cols, params, *args, **kwargs)

    monkeypatch.setattr(_forest, "grow_forest", grow)
    try:
        unsup = ds.task == "unsupervised"
        m = PCTForest(ensemble, **kw).fit(ds, rf_score=ensemble != "et" or unsup,
                                          per_target=not unsup)
    finally:
        monkeypatch.setattr(_forest, "grow_forest", orig)
    return m


def _assert_identical(a: PCTForest, b: PCTForest) -> None:
    assert len(a.trees_) == len(b.trees_)
    for ta, tb in zip(a.trees_, b.trees_):
        for k in ARRAYS:
            if k in ta:
                x, y = np.asarray(ta[k]), np.asarray(tb[k])
                assert x.shape == y.shape and x.dtype == y.dtype, k
                assert x.tobytes() == y.tobytes(), k          # bit for bit
    sa, sb = a.scores(), b.scores()
    for k in ("symbolic", "genie3", "rf", "genie3_per_target", "rf_per_target"):
        if k in sa:
            assert np.asarray(sa[k]).tobytes() == np.asarray(sb[k]).tobytes(), k


_tree = need_kernel("frcli._ext.pct._tree")


M64 = (1 << 64) - 1


def seed_state(seed):
    z = (seed + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return z or 0x2545F4914F6CDD1D


class XorShift:
    def __init__(self, seed):
        self.s = seed_state(seed)

    def next(self):
        x = self.s
        x ^= x >> 12
        x ^= (x << 25) & M64
        x ^= x >> 27
        self.s = x
        return (x * 2685821657736338717) & M64

    def rand_int(self, n):
        return (self.next() >> 11) % n

    def uniform(self):
        return (self.next() >> 11) / 9007199254740992.0


def reference_rf(model, ds, seed):
    spec = model.spec_
    tree = model.trees_[0]
    n = ds.n_examples
    tree_seed = int(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0])
    rng = XorShift(tree_seed)
    counts = np.zeros(n, int)
    for _ in range(n):
        counts[rng.rand_int(n)] += 1
    oob = np.flatnonzero(counts == 0)
    K = spec.a.shape[0]
    b = spec.blocks
    raw = spec_truth(spec, ds)

    def errors(X):
        P = _tree.predict_trees([tree], np.ascontiguousarray(X), model.ncat_, K)
        e = np.full((len(oob), len(b["kind"])), np.nan)
        for j, (kind, col, ncat) in enumerate(zip(b["kind"], b["col"], b["ncat"])):
            y = raw[oob, j]
            if kind == 0:
                e[:, j] = (y - P[:, col]) ** 2
            elif kind == 2:
                e[:, j] = ((P[:, col] + b["offset"][col] >= 0.5) != (y >= 0.5)).astype(float)
            else:
                e[:, j] = (np.argmax(P[:, col:col + ncat], axis=1) != y).astype(float)
            e[np.isnan(y), j] = np.nan
        return np.nanmean(e, axis=0)        # per block, over rows with a known truth

    def total(per_block):
        return float((b["alpha"] * per_block).sum())

    base = errors(ds.X[oob])
    err = total(base)
    den = 1 - err if b["acc_den"] else err
    G = len(spec.group_names)
    gerr = np.array([base[b["group"] == g].sum() for g in range(G)])
    gden = 1 - gerr if b["acc_den"] else gerr
    rf = np.zeros(ds.n_features)
    rf_pt = np.zeros((G, ds.n_features))
    used = sorted(set(tree["feature"][tree["feature"] >= 0].tolist()))
    for f in used:
        perm = oob.copy()
        for j in range(len(oob) - 1, 0, -1):
            r = rng.rand_int(j + 1)
            perm[j], perm[r] = perm[r], perm[j]
        Xp = ds.X[oob].copy()
        Xp[:, f] = ds.X[perm, f]
        pe = errors(Xp)
        rf[f] = (total(pe) - err) / den if den > 1e-300 else 0.0
        for g in range(G):
            d = pe[b["group"] == g].sum() - gerr[g]
            rf_pt[g, f] = d / gden[g] if gden[g] > 1e-300 else 0.0
    return rf, rf_pt


def spec_truth(spec, ds):
    from frcli.engines.pct.columns import truth_matrix, clustering_spec
    fresh = clustering_spec(ds, w0=0.75)
    return truth_matrix(fresh)


def reference(model, ds, seed):
    """CLUS's calculateRFimportance, written out plainly (spec: frcli.engines.pct.rf_clus)."""
    from frcli._ext.pct import _forest

    counts = _forest.bootstrap_counts(model.seeds_, ds.n_examples)
    F, T = ds.n_features, ds.Y.shape[1]
    acc, acc_t = np.zeros(F), np.zeros((T, F))
    for t, tree in enumerate(model.trees_):
        oob = np.flatnonzero(counts[t] == 0)
        order, stack = [], [0]
        while stack:                             # yes (right) pushed first, no (left) popped
            node = stack.pop()
            f = tree["feature"][node]
            if f >= 0:
                if f not in order:
                    order.append(int(f))
                stack += [tree["right"][node], tree["left"][node]]
        rng = np.random.default_rng([seed, t])
        X = ds.X[oob].copy()

        def rmse(Z):
            P = model.prototypes(Z, trees=[tree])      # this tree alone, targets' units
            return np.sqrt(((P - ds.Y[oob]) ** 2).mean(axis=0))

        base = rmse(X)
        for f in order:
            X[:, f] = X[rng.permutation(len(oob)), f]
            e = rmse(X)
            acc[f] += (e.mean() - base.mean()) / base.mean()
            acc_t[:, f] += (e - base) / base
    return acc / len(model.trees_), acc_t / len(model.trees_)
