"""Single PCTs equal CLUS's printed trees on the 11 shared MTR sets (golden test).

CLUS 2.12.8 grew one tree per set with the settings of ``clus-reference/single-tree/README.md``
(all features, no bootstrap, MinimalWeight 2, no pruning, normalised variance reduction). Ours,
grown with the same settings, must be the same tree: every test (attribute and split value, CLUS
printing the largest value of the "no" branch), the shape, each leaf's prototype to the printed
7 digits and its weight, fractional with missing values (osales, scpf). The text of
``frcli tree`` must even be CLUS's "Original Model" block, character for character.

The parser (``frcli.data.clus_out``) and CLUS's number format get their own tests below.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from frcli.data.clus_out import (clus_number, parse_clus_tree, read_clus_model_info,
                                 read_clus_tree)
from frcli.engines.pct.view import java_double, render_text
from frcli.errors import UserError
from tests.conftest import need_kernel

need_kernel("frcli._ext.pct._forest")

# targets are the last T attributes (single-tree/README.md)
SETS = {"atp1d": 6, "atp7d": 6, "edm": 2, "enb": 2, "jura": 3, "oes10": 16, "oes97": 16,
        "osales": 12, "scpf": 3, "slump": 3, "wq": 14}


def grow(shared_data, name):
    from frcli.data import load_dataset
    from frcli.engines.pct.model import PCTForest

    ds = load_dataset(shared_data / "mtr" / f"{name}.arff", targets=f"last:{SETS[name]}")
    model = PCTForest("bagging", trees=1, bootstrap=False, max_features="all",
                      min_leaf=2.0).fit(ds)
    return ds, model


def differences(ours, theirs, path="root", out=None):
    """Where two trees (ours from ``tree_nodes``, CLUS's from the parser) differ."""
    out = [] if out is None else out
    if "prototype" in theirs or "prototype" in ours:
        if "prototype" not in ours or "prototype" not in theirs:
            out.append(f"{path}: {'leaf' if 'prototype' in ours else ours['test']} (ours) vs "
                       f"{'leaf' if 'prototype' in theirs else theirs['feature']} (CLUS)")
            return out
        mine = [clus_number(v) for v in ours["prototype"]]
        if mine != theirs["prototype_text"]:
            out.append(f"{path}: prototype {mine} vs {theirs['prototype_text']}")
        if clus_number(ours["weight"]) != theirs["weight_text"]:
            out.append(f"{path}: weight {ours['weight']!r} vs {theirs['weight_text']}")
        return out
    if (ours["feature"], ours["threshold"]) != (theirs["feature"], theirs["threshold"]):
        out.append(f"{path}: {ours['test']} vs {theirs['feature']} > {theirs['threshold']!r}")
        return out
    differences(ours["yes"], theirs["yes"], path + ".yes", out)
    differences(ours["no"], theirs["no"], path + ".no", out)
    return out


@pytest.mark.parametrize("name", list(SETS))
def test_single_tree_is_clus_tree(shared_data, name):
    from frcli.engines.pct.view import target_categories, tree_nodes, tree_size

    ds, model = grow(shared_data, name)
    out = shared_data / "clus-reference" / "single-tree" / f"{name}.out"
    ours = tree_nodes(model, ds)
    theirs = read_clus_tree(out)
    diff = differences(ours, theirs)
    assert not diff, f"{len(diff)} difference(s), first: {diff[:3]}"
    assert tree_size(ours) == read_clus_model_info(out)
    # frcli tree's text is CLUS's printout, line for line
    lines = out.read_text().splitlines()
    start = lines.index("Original Model") + 3
    block = lines[start:lines.index("", start)]
    assert render_text(ours, target_categories(ds)).splitlines() == block


def test_missing_values_give_clus_fractional_weights(shared_data):
    """osales and scpf route rows with a missing tested value down both branches; the
    fractional leaf weights CLUS prints are reproduced (also covered above, named here)."""
    from frcli.engines.pct.view import tree_nodes

    for name in ("osales", "scpf"):
        ds, model = grow(shared_data, name)
        weights = []

        def leaves(node):
            if "prototype" in node:
                weights.append(node["weight"])
            else:
                leaves(node["yes"])
                leaves(node["no"])

        leaves(tree_nodes(model, ds))
        frac = [w for w in weights if w != int(w)]
        assert len(frac) > 5
        assert sum(weights) == pytest.approx(ds.n_examples)


# -- CLUS's number format and the parser --------------------------------------------------

@pytest.mark.parametrize("x, text", [
    (0.0, "0"), (2.0, "2"), (0.5, "5.000000E-1"), (1 / 3, "3.333333E-1"), (5 / 3, "1.666667"),
    (604808.2333072, "604808.233307"), (-0.25, "-2.500000E-1"), (37.0, "37"),
    (3.0125671, "3.012567"), (0.0001234567, "1.234567E-4"), (0.99999999, "1.000000E0"),
    (-1e-20, "-1.000000E-20"), (123.4, "123.4")])
def test_clus_number_format(x, text):
    assert clus_number(x) == text


@pytest.mark.parametrize("x, text", [
    (0.79, "0.79"), (2053329.0, "2053329.0"), (0.0, "0.0"), (1e7, "1.0E7"), (1e-4, "1.0E-4"),
    (0.001, "0.001"), (41.332098, "41.332098"), (123456789.0, "1.23456789E8"),
    (-3.5e-5, "-3.5E-5"), (9999999.0, "9999999.0")])
def test_split_values_print_as_java_doubles(x, text):
    assert java_double(x) == text


def test_parser_reads_tests_leaves_and_errors():
    text = ("a=b c > 1.5\n+--yes: [1,5.000000E-1]: 3\n+--no:  x > -2.0\n"
            "       +--yes: [?,2]: 2.5\n       +--no:  [0,0]: 2\n")
    t = parse_clus_tree(text)
    assert t["feature"] == "a=b c" and t["threshold"] == 1.5
    assert t["yes"]["prototype"] == [1.0, 0.5] and t["yes"]["weight"] == 3.0
    assert t["no"]["threshold"] == -2.0 and np.isnan(t["no"]["yes"]["prototype"][0])
    with pytest.raises(UserError, match="ends early"):
        parse_clus_tree("x > 1\n+--yes: [1]: 2\n")
    with pytest.raises(UserError, match="line 1"):
        parse_clus_tree("not a tree line\n")


def _random_tree(draw, depth):
    if depth == 0 or draw(st.booleans()):
        T = draw(st.integers(1, 3))
        vals = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=T, max_size=T))
        return {"prototype": vals, "weight": draw(st.floats(1, 1e4, allow_nan=False))}
    thr = draw(st.floats(-1e9, 1e9, allow_nan=False))
    name = draw(st.sampled_from(["x", "a b", "Rock=3", "'q'l2"]))
    return {"feature": name, "threshold": thr,
            "test": f"{name} > {java_double(thr)}",
            "yes": _random_tree(draw, depth - 1), "no": _random_tree(draw, depth - 1)}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_property_rendered_trees_parse_back(data):
    """Any tree printed in CLUS's layout parses back to the same tests and printed numbers."""
    tree = _random_tree(data.draw, 5)
    back = parse_clus_tree(render_text(tree))

    def same(a, b):
        if "prototype" in a:
            assert b["prototype_text"] == [clus_number(v) for v in a["prototype"]]
            assert b["weight_text"] == clus_number(a["weight"])
            return
        assert b["feature"] == a["feature"] and b["threshold"] == a["threshold"]
        same(a["yes"], b["yes"])
        same(a["no"], b["no"])

    same(tree, back)
