"""A relational tree (TDIDT, paper 9b Alg. 1; docs/design/relational.md).

At a node, every candidate feature of the node's context (``features.Language.candidates``)
— or a random sample of them (random forests, boosting) — is evaluated on the node's examples
and the test ``f(ro) > θ`` / ``f(ro) ∈ S`` with the lowest weighted impurity of the children
(Gini; variance for the regression trees of boosting) wins. The chain of the chosen test is
the context of both children (``continuation="both"``, 9b Alg. 1 and Ch. 3), of the YES child
only (``"yes"``: 9a and the re3py code; the NO child keeps its parent's context), or of neither
(``"none"``: every node starts again at the example).

Stopping (9b): ``max_depth`` tests on a path (None: unlimited; re3py's depth counts levels
of nodes, so its depth d is our max_depth d-1), a node weighing less than ``2·min_leaf``, a
node impurity below 1e-10 of the root's, no split leaving ``min_leaf`` on both sides, or a
relative impurity decrease below ``min_decrease``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from frcli.engines.relational.features import Candidates, Chain, Language


@dataclass
class Node:
    weight: float                       # Σ weights of the examples reaching the node
    value: np.ndarray                   # class distribution (classification) or mean target
    depth: int
    impurity: float                     # weight × impurity
    # internal nodes
    context: Chain = ()                 # the chain this node's test continues
    cands: Candidates | None = None
    col: int = -1
    threshold: float = 0.0
    subset: frozenset | None = None     # nominal test: category codes in S (EMPTY = ncat)
    gain: float = 0.0                   # h* = impurity − children's impurity
    yes: int = -1
    no: int = -1

    @property
    def is_leaf(self) -> bool:
        return self.yes < 0

    @property
    def chain(self) -> Chain:
        return self.cands.chains[self.cands.col_chain[self.col]]

    @property
    def new_start(self) -> int:
        """Atoms of the test before this index are inherited from the context."""
        chain, ctx, i = self.chain, self.context, 0
        while i < min(len(chain), len(ctx)) and chain[i] == ctx[i]:
            i += 1
        return i


@dataclass
class TreeParams:
    max_depth: int | None = None
    min_leaf: float = 1.0
    min_decrease: float = 0.0
    max_features: float | str = 1.0      # per node: fraction of candidates, or "sqrt"/"log2"
    continuation: str = "both"


@dataclass
class RelTree:
    nodes: list[Node] = field(default_factory=list)
    regression: bool = False

    def internal(self):
        return [n for n in self.nodes if not n.is_leaf]

    def apply(self, lang: Language, keys: np.ndarray) -> np.ndarray:
        """Leaf index of every example (rows of ``keys``)."""
        from frcli._ext.relational import _relational as K

        out = np.zeros(len(keys), dtype=np.intp)
        stack = [(0, np.arange(len(keys)))]
        keys = np.ascontiguousarray(keys, dtype=np.int32)
        while stack:
            i, rows = stack.pop()
            node = self.nodes[i]
            if node.is_leaf or len(rows) == 0:
                out[rows] = i
                continue
            yes = test_outcome(K, lang, node, keys, rows)
            stack.append((node.yes, rows[yes]))
            stack.append((node.no, rows[~yes]))
        return out

    def predict_value(self, lang: Language, keys: np.ndarray) -> np.ndarray:
        leaves = self.apply(lang, keys)
        return np.stack([self.nodes[i].value for i in leaves])


def test_outcome(K, lang: Language, node: Node, keys: np.ndarray, rows: np.ndarray
                 ) -> np.ndarray:
    """True where the node's test holds for the examples ``rows``."""
    c = node.cands
    x = K.evaluate(lang.db, c.batch, int(c.col_chain[node.col]), [node.col], keys, rows)[:, 0]
    if node.subset is None:
        if lang.existential:
            x = (x > 0).astype(float)
        return x > node.threshold
    ncat = lang.ds.domains[c.domain(node.col)].size
    codes = np.where(np.isnan(x), ncat, x).astype(np.int64)
    return np.isin(codes, list(node.subset))


def n_selected(n: int, max_features) -> int:
    if max_features == "sqrt":
        k = round(np.sqrt(n))
    elif max_features == "log2":
        k = round(np.log2(n)) if n > 1 else 1
    else:
        k = round(float(max_features) * n)
    return int(min(n, max(1, k)))


def _stats(y: np.ndarray, w: np.ndarray, n_classes: int, regression: bool):
    if regression:
        W = w.sum()
        s1 = (w * y).sum()
        s2 = (w * y * y).sum()
        imp = max(0.0, s2 - s1 * s1 / W) if W > 0 else 0.0
        return W, np.array([s1 / W if W > 0 else 0.0]), imp
    counts = np.bincount(y, weights=w, minlength=n_classes)
    W = counts.sum()
    imp = W - (counts ** 2).sum() / W if W > 0 else 0.0
    return W, counts / W if W > 0 else counts, imp


def grow_tree(lang: Language, keys: np.ndarray, rows: np.ndarray, w: np.ndarray,
              y: np.ndarray, params: TreeParams, rng: np.random.Generator, *,
              n_classes: int = 0, regression: bool = False) -> RelTree:
    """Grow one tree on the examples ``rows`` of ``keys`` with weights ``w`` (aligned with
    rows; bootstrap multiplicities) and targets ``y`` (class codes, or floats for
    regression)."""
    from frcli._ext.relational import _relational as K

    keys = np.ascontiguousarray(keys, dtype=np.int32)
    tree = RelTree(regression=regression)
    W, val, imp = _stats(y, w, n_classes, regression)
    tree.nodes.append(Node(W, val, 0, imp))
    root_imp = imp / W if W > 0 else 0.0
    cls = y.astype(np.intp) if not regression else np.zeros(len(y), dtype=np.intp)
    yf = y.astype(np.float64) if regression else np.zeros(len(y))
    stack = [(0, np.arange(len(rows)), ())]
    while stack:
        i, idx, context = stack.pop()
        node = tree.nodes[i]
        if params.max_depth is not None and node.depth >= params.max_depth:
            continue
        if node.weight < 2 * params.min_leaf - 1e-10:
            continue
        if node.weight <= 0 or node.impurity / node.weight <= 1e-10 * root_imp or \
                node.impurity <= 0:
            continue
        batches = lang.candidates(context)
        sizes = [c.n_cols for c in batches]
        F = sum(sizes)
        if F == 0:
            continue
        k = n_selected(F, params.max_features)
        sel = np.ones(F, dtype=np.uint8)
        if k < F:
            sel[:] = 0
            sel[rng.choice(F, size=k, replace=False)] = 1
        r = np.ascontiguousarray(rows[idx])
        wi, ci, yi = (np.ascontiguousarray(a[idx]) for a in (w, cls, yf))
        best, cands, off = None, None, 0
        for c, size in zip(batches, sizes):
            part = sel[off:off + size]
            off += size
            if size == 0 or not part.any():
                continue
            b = K.best_split(lang.db, c.batch, np.ascontiguousarray(part), keys, r, wi, ci,
                             yi, n_classes, int(regression), params.min_leaf,
                             int(lang.existential))
            if b is not None and (best is None or b[1] < best[1] - 1e-12):
                best, cands = b, c
        if best is None:
            continue
        col, score, kind, thr, subset = best
        gain = node.impurity - score
        if gain <= 0 and params.min_decrease > 0 or \
                (node.impurity > 0 and gain / node.impurity < params.min_decrease):
            continue
        node.cands, node.col, node.gain, node.context = cands, int(col), float(gain), context
        if kind == 0:
            node.threshold = float(thr)
        else:
            node.subset = frozenset(int(s) for s in subset)
        yes = test_outcome(K, lang, node, keys, np.ascontiguousarray(r))
        chain = node.chain
        ctx_yes = chain if params.continuation != "none" else ()
        ctx_no = chain if params.continuation == "both" else \
            (context if params.continuation == "yes" else ())
        for part, ctx in ((yes, ctx_yes), (~yes, ctx_no)):
            sub = idx[part]
            Wc, vc, ic = _stats(y[sub], w[sub], n_classes, regression)
            tree.nodes.append(Node(Wc, vc, node.depth + 1, ic))
            j = len(tree.nodes) - 1
            if part is yes:
                node.yes = j
            else:
                node.no = j
            stack.append((j, sub, ctx))
    return tree
