"""One predictive clustering tree as a readable model: what ``frcli tree`` shows.

The commands reach the PCT engine only through the rankers layer; this is that door for a
single tree (every feature at every node, no bootstrap: CLUS's single-tree settings), grown
and described by ``frcli.engines.pct.view``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from frcli.data.dataset import Dataset
from frcli.engines.pct import view as pct_view


@dataclass
class GrownTree:
    """A tree and what it was grown on: ``data`` (the rows used: the labelled ones unless
    ``w`` makes it semi-supervised), ``root`` (nested nodes, CLUS's terms), ``size``
    (nodes, leaves, depth), ``prototype`` (the names of a leaf's entries) and
    ``categories`` (their category names; None for numeric entries)."""

    data: Dataset
    root: dict[str, Any]
    size: dict[str, int]
    prototype: list[str]
    categories: list[list[str] | None]

    def text(self) -> str:
        """CLUS's "Original Model" layout (diffable against a CLUS .out file)."""
        return pct_view.render_text(self.root, self.categories)

    def draw(self, path: str, title: str | None = None) -> None:
        """A drawing of a small tree into ``path`` (.png, .pdf or .svg)."""
        pct_view.draw_tree(self.root, path, self.categories, title=title)


def grow_tree(dataset: Dataset, **params: Any) -> GrownTree:
    """One PCT on ``dataset``; ``params``: ``min_leaf``, ``w``, ``w0``, ``ties``."""
    model, grown_on = pct_view.grow_tree(dataset, **params)
    root = pct_view.tree_nodes(model, grown_on)
    return GrownTree(grown_on, root, pct_view.tree_size(root),
                     pct_view.prototype_names(grown_on), pct_view.target_categories(grown_on))
