"""One PCT as a readable model: nested nodes, CLUS's text layout, JSON and a drawing.

``tree_nodes(model, dataset)`` turns a tree grown by ``PCTForest`` into nested dicts, in CLUS's
terms: a numeric test is ``name > value`` whose "yes" branch is our right child (``x > v``,
``v`` the largest value of the "no" branch, CLUS ``SplitPosition = Exact``); a nominal test is
``name in {a,b}`` whose "yes" branch holds the listed values. A leaf's prototype is recomputed
from the training rows routed through the tree (rows with a missing tested value go down both
branches with the branch shares as weights, as in growth), per target: the weighted mean of a
numeric target or a label, the weighted class distribution of a nominal target (the features
for unsupervised trees). Summing the raw values, rather than reading the kernels' centred
prototypes back, gives exactly CLUS's means (a leaf of zeros prints 0, not 1e-17).

``render_text`` prints the tree in CLUS's "Original Model" layout (numbers formatted as CLUS
does), so ``diff`` against a CLUS ``.out`` block works; ``draw_tree`` writes a matplotlib
figure for small trees.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from frcli.data.clus_out import clus_number
from frcli.data.dataset import Dataset

MAX_DRAWN_LEAVES = 64


def grow_tree(dataset: Dataset, *, min_leaf: float = 2.0, w: float | None = None,
              w0: float = 0.75, ties: str = "first") -> tuple[Any, Dataset]:
    """One PCT on all of ``dataset`` (every feature at every node, no bootstrap: CLUS's
    single-tree settings), and the rows it was grown on (the labelled ones unless ``w``
    makes it semi-supervised)."""
    from frcli.engines.pct.model import PCTForest    # the kernels load when a tree is grown

    ds = dataset.supervised_view("frcli tree")
    partly = ds.task != "unsupervised" and not bool(np.all(ds.labeled))
    if partly and not (w is not None and w < 1.0):
        ds = ds.subset(ds.labeled)
    model = PCTForest("bagging", trees=1, bootstrap=False, max_features="all",
                      min_leaf=min_leaf, w=w, w0=w0, ties=ties).fit(ds)
    return model, ds


def java_double(x: float) -> str:
    """Java's ``Double.toString`` (shortest round-trip digits, JDK 19+): how CLUS prints a
    split value, e.g. ``0.79``, ``2053329.0``, ``1.0E7``, ``1.0E-4``."""
    x = float(x)
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if str(x).startswith("-") else "0.0"
    a = abs(x)
    if 1e-3 <= a < 1e7:
        s = repr(x)
        if "e" in s or "E" in s:                       # repr uses exponents below 1e-4
            s = np.format_float_positional(x, unique=True, trim="0")
        return s if "." in s else s + ".0"
    mant, exp = np.format_float_scientific(x, unique=True, trim="0", exp_digits=1).split("e")
    if "." not in mant:
        mant += ".0"
    elif mant.endswith("."):
        mant += "0"
    return f"{mant}E{int(exp)}"


def _targets(ds: Dataset) -> tuple[np.ndarray, list[str], list[list[str] | None]]:
    """Columns whose leaf means the prototype shows, their names and, for nominal ones, the
    category names."""
    if ds.task == "unsupervised" or ds.Y is None:
        attrs = ds.features
        return ds.X, ds.feature_names, [a.categories if a.is_nominal else None for a in attrs]
    cats: list[list[str] | None] = []
    for j in range(ds.Y.shape[1]):
        attr = ds.targets[j] if j < len(ds.targets) else None
        nominal = (attr is not None and attr.is_nominal) or ds.task == "classification"
        if nominal:
            k = len(attr.categories) if attr is not None and attr.categories else \
                int(np.nanmax(ds.Y[:, j])) + 1
            cats.append(list(attr.categories) if attr is not None and attr.categories
                        else [str(v) for v in range(k)])
        else:
            cats.append(None)
    return ds.Y.astype(np.float64), ds.target_names, cats


def _prototype(Y: np.ndarray, w: np.ndarray, cats: list[list[str] | None],
               parent: list[Any] | None) -> list[Any]:
    out: list[Any] = []
    for j, c in enumerate(cats):
        y = Y[:, j]
        known = ~np.isnan(y)
        wk = w[known]
        if c is None:
            tot = float(wk.sum())
            out.append(float((wk * y[known]).sum() / tot) if tot > 0 else
                       (parent[j] if parent is not None else float("nan")))
        else:
            dist = np.bincount(y[known].astype(np.intp), weights=wk, minlength=len(c))[:len(c)]
            tot = float(dist.sum())
            out.append([float(v) for v in dist / tot] if tot > 0 else
                       (parent[j] if parent is not None else [float("nan")] * len(c)))
    return out


def tree_nodes(model: Any, dataset: Dataset, index: int = 0) -> dict[str, Any]:
    """Tree ``index`` of a fitted ``PCTForest`` (grown on ``dataset``) as nested dicts.

    Built with an explicit stack, not recursion: a tree can be as deep as the data set has
    rows (a chain of one-row splits), beyond Python's recursion limit."""
    t = model.trees_[index]
    X = dataset.X
    Y, _, cats = _targets(dataset)
    names = dataset.feature_names
    feats = dataset.features

    def make(node: int, rows: np.ndarray, w: np.ndarray, parent: list[Any] | None
             ) -> tuple[dict[str, Any], list[tuple[str, int, np.ndarray, np.ndarray]], Any]:
        """The node's dict (children left as None) and its children's (key, node, rows, w)."""
        f = int(t.feature[node])
        base = {"weight": float(t.weight[node]), "depth": int(t.depth[node])}
        proto = _prototype(Y[rows], w, cats, parent)
        if f < 0:
            return {**base, "prototype": proto}, [], proto
        x = X[rows, f]
        miss = np.isnan(x)
        if feats[f].is_nominal:
            k = len(feats[f].categories)
            start = int(t.offset[node])
            subset = np.asarray(t.cats[start:start + k], dtype=bool)
            codes = np.where(miss, 0, x).astype(np.intp)
            bad = miss | (codes < 0) | (codes >= k)
            left = ~bad & subset[np.clip(codes, 0, k - 1)]
            right = ~bad & ~left
            miss = bad
            values = [feats[f].categories[v] for v in range(k) if subset[v]]
            test = {"feature": names[f], "values": values,
                    "test": f"{names[f]} in {{{','.join(values)}}}"}
            yes_child, no_child, yes_rows, no_rows = "left", "right", left, right
        else:
            thr = float(t.threshold[node])
            left = ~miss & (x <= thr)
            right = ~miss & ~left
            test = {"feature": names[f], "threshold": thr,
                    "test": f"{names[f]} > {java_double(thr)}"}
            yes_child, no_child, yes_rows, no_rows = "right", "left", right, left
        pl = float(t.p_left[node])
        share = {"left": pl, "right": 1.0 - pl}

        def child(key: str, side: str, sel: np.ndarray):
            r = np.concatenate([rows[sel], rows[miss]])
            ww = np.concatenate([w[sel], w[miss] * share[side]])
            return key, int(getattr(t, side)[node]), r, ww

        out = {**base, **test, "h": float(t.hstar[node]), "yes": None, "no": None}
        return out, [child("yes", yes_child, yes_rows), child("no", no_child, no_rows)], proto

    holder: dict[str, Any] = {}
    todo = [(holder, "root", 0, np.arange(dataset.n_examples), np.ones(dataset.n_examples),
             None)]
    while todo:
        into, key, node, rows, w, parent = todo.pop()
        d, children, proto = make(node, rows, w, parent)
        into[key] = d
        todo.extend((d, k, c, r, ww, proto) for k, c, r, ww in children)
    return holder["root"]


def _walk(root: dict[str, Any]):
    """(node, depth) of every node, parents first, "yes" before "no" (CLUS's print order),
    without recursion."""
    todo = [(root, 1)]
    while todo:
        node, depth = todo.pop()
        yield node, depth
        if "prototype" not in node:
            todo.append((node["no"], depth + 1))
            todo.append((node["yes"], depth + 1))


def tree_size(node: dict[str, Any]) -> dict[str, int]:
    """Nodes, leaves and depth counted as CLUS does (a single leaf has depth 1)."""
    nodes = leaves = depth = 0
    for n, d in _walk(node):
        nodes += 1
        leaves += "prototype" in n
        depth = max(depth, d)
    return {"nodes": nodes, "leaves": leaves, "depth": depth}


def _leaf_text(node: dict[str, Any], cats: list[list[str] | None] | None) -> str:
    parts = []
    for j, v in enumerate(node["prototype"]):
        if isinstance(v, list):          # nominal: the most probable category
            names = cats[j] if cats is not None and cats[j] is not None else None
            k = int(np.argmax(v))
            parts.append(names[k] if names is not None else str(k))
        else:
            parts.append("?" if v != v else clus_number(v))
    return f"[{','.join(parts)}]: {clus_number(node['weight'])}"


def render_text(root: dict[str, Any], cats: list[list[str] | None] | None = None) -> str:
    """CLUS's layout: a test, then ``+--yes:`` and ``+--no:`` subtrees, leaves as
    ``[prototype]: weight``."""
    lines: list[str] = []

    def show(node: dict[str, Any]) -> str:
        return _leaf_text(node, cats) if "prototype" in node else node["test"]

    lines.append(show(root))
    todo = [(root, "")]                  # an explicit stack: trees can be deeper than the
    while todo:                          # recursion limit
        item, prefix = todo.pop()
        if isinstance(item, str):        # a child's line, printed when it comes up
            lines.append(item)
            continue
        if "prototype" in item:
            continue
        for label, key, cont in (("+--no:  ", "no", "       "), ("+--yes: ", "yes", "|      ")):
            child = item[key]
            todo.append((child, prefix + cont))
            todo.append((prefix + label + show(child), ""))
    return "\n".join(lines) + "\n"


def target_categories(dataset: Dataset) -> list[list[str] | None]:
    """Category names per prototype entry (None for numeric ones), for ``render_text``."""
    return _targets(dataset)[2]


def prototype_names(dataset: Dataset) -> list[str]:
    return _targets(dataset)[1]


def draw_tree(root: dict[str, Any], path: str, cats: list[list[str] | None] | None = None,
              title: str | None = None) -> None:
    """A matplotlib drawing of a small tree (at most ``MAX_DRAWN_LEAVES`` leaves) to ``path``
    (the suffix picks the format: .png, .pdf, .svg)."""
    from frcli.errors import ConfigError

    size = tree_size(root)
    if size["leaves"] > MAX_DRAWN_LEAVES:
        raise ConfigError(f"the tree has {size['leaves']} leaves; drawings are limited to "
                          f"{MAX_DRAWN_LEAVES} (grow a smaller tree, e.g. --param "
                          "min_leaf=20, or use the text output)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pos: dict[int, tuple[float, float]] = {}
    items: list[tuple[dict[str, Any], int, int | None, str]] = []
    counter = [0]

    def place(node: dict[str, Any], depth: int, parent: int | None, edge: str) -> float:
        me = len(items)
        items.append((node, depth, parent, edge))
        if "prototype" in node:
            x = float(counter[0])
            counter[0] += 1
        else:
            x = (place(node["yes"], depth + 1, me, "yes") +
                 place(node["no"], depth + 1, me, "no")) / 2.0
        pos[me] = (x, -float(depth))
        return x

    place(root, 0, None, "")
    width = max(4.0, 2.0 * size["leaves"])
    height = max(3.0, 1.2 * size["depth"])
    fig, ax = plt.subplots(figsize=(min(width, 40.0), min(height, 30.0)))
    for i, (node, _, parent, edge) in enumerate(items):
        x, y = pos[i]
        if parent is not None:
            px, py = pos[parent]
            ax.plot([px, x], [py, y], color="0.5", lw=0.8, zorder=1)
            ax.text((px + x) / 2, (py + y) / 2, edge, fontsize=7, color="0.3",
                    ha="center", va="center", backgroundcolor="white")
        if "prototype" in node:
            proto, weight = _leaf_text(node, cats).rsplit(": ", 1)
            vals = proto[1:-1].split(",")
            rows = [",".join(vals[i:i + 3]) for i in range(0, len(vals), 3)]
            label = "\n".join(rows) + f"\nweight {weight}"
            style = dict(boxstyle="round", fc="#eef5e9", ec="#5b8a3c")
        else:
            label = node["test"]
            style = dict(boxstyle="round", fc="#e8eef7", ec="#3c5b8a")
        ax.text(x, y, label, fontsize=7, ha="center", va="center", bbox=style, zorder=2)
    ax.set_axis_off()
    ax.set_xlim(-0.8, size["leaves"] - 0.2)
    ax.set_ylim(-size["depth"] + 0.4, 0.6)
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
