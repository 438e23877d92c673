"""Relational Symbolic and Genie3 scores (thesis Ch. 3.3.2.2, papers 9a and 9b;
docs/design/relational.md).

Per internal node N with test chain f(N), weight |E(N)| and h*(N) = |E(N)|·impurity(E(N)) −
Σ|E_k|·impurity(E_k) (Gini; variance of the pseudo-residuals for boosting), a node reward
(Symbolic |E(N)|/|E_TRAIN|, Genie3 h*(N)) is shared among relations by the attribution:

* ``thesis`` (default, the final definition, Ch. 3.3.2.2): only the part of the test that is
  new relative to the context it continues is rewarded, each new atom equally:
  P[r | f(parent(N))] = (occurrences of r among the new atoms) / (number of new atoms). A
  chain equal to its context (other aggregates or threshold) rewards its last atom, so
  every test rewards something.
* ``ismis`` (9a, Eq. 2): every atom of the whole test, inherited ones included, gets
  reward / (number of atoms).
* ``journal`` (9b, Eqs. 3-4 as printed): the new atoms share 1/steps(N) — Symbolic *without*
  the |E(N)| weight (the prose asks for it, the formula omits it), Genie3 with h*(N).

Trees of bagging and random forests are averaged, boosting's trees summed (9b §4.4; the same
ranking either way). Per-tree scores are kept so importance can be followed against the
number of trees (9a Fig. 3, 9b Fig. 14).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from frcli.engines.relational.features import Language

ATTRIBUTIONS = ("thesis", "ismis", "journal")
SCORES = ("symbolic", "genie3")


def node_shares(lang: Language, node, attribution: str) -> list[tuple[int, float, str]]:
    """(atom index in the chain, share of the node's reward) for the rewarded atoms."""
    chain = node.chain
    if attribution == "ismis":
        atoms = list(range(len(chain)))
    else:
        start = node.new_start
        atoms = list(range(start, len(chain))) or [len(chain) - 1]
    share = 1.0 / len(atoms)
    return [(a, share) for a in atoms]


def tree_scores(lang: Language, tree, score: str, attribution: str, n_train: float,
                names: list[str]) -> dict[str, np.ndarray]:
    """Per-relation importances of one tree (``names`` order) and the roll-ups by table,
    aggregate and atom key, as {"relation": array, "aggregate": Counter, "atom": Counter}."""
    index = {n: i for i, n in enumerate(names)}
    rel = np.zeros(len(names))
    by_agg: Counter = Counter()
    by_atom: Counter = Counter()
    for node in tree.internal():
        if score == "symbolic":
            reward = 1.0 if attribution == "journal" else node.weight / n_train
        else:
            reward = node.gain
        chain = node.chain
        aggs = node.cands.aggs(node.col)
        for a, share in node_shares(lang, node, attribution):
            atom = chain[a]
            name = lang.rel_names[atom.rel]
            v = reward * share
            if name in index:
                rel[index[name]] += v
            by_agg[aggs[a]] += v
            by_atom[lang.atom_key(atom)] += v
    return {"relation": rel, "aggregate": by_agg, "atom": by_atom}


def ensemble_scores(lang: Language, trees: list, score: str, attribution: str,
                    n_train: float, names: list[str], combine: str = "mean") -> dict:
    """Importances over the trees: per relation, per tree (for the convergence curves) and
    the roll-ups; ``combine`` mean (bagging, forests) or sum (boosting)."""
    per_tree = np.zeros((len(trees), len(names)))
    by_agg: Counter = Counter()
    by_atom: Counter = Counter()
    for t, tree in enumerate(trees):
        s = tree_scores(lang, tree, score, attribution, n_train, names)
        per_tree[t] = s["relation"]
        by_agg.update(s["aggregate"])
        by_atom.update(s["atom"])
    div = len(trees) if combine == "mean" and trees else 1
    imp = per_tree.sum(axis=0) / div
    tables: Counter = Counter()
    for n, v in zip(names, imp):
        tables[lang.ds.relations[n].table] += float(v)
    cum = np.cumsum(per_tree, axis=0)
    if combine == "mean":
        cum = cum / np.arange(1, len(trees) + 1)[:, None]
    return {"importances": imp, "per_tree": per_tree, "curve": cum,
            "by_table": dict(tables),
            "by_aggregate": {k: v / div for k, v in sorted(by_agg.items())},
            "by_atom": {k: v / div for k, v in sorted(by_atom.items())}}
