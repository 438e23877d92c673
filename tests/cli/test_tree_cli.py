"""``frcli tree``: CLUS's text (diffable against a .out file), JSON, a drawing, clean errors."""
from __future__ import annotations

import json

import pytest

from frcli.cli import main
from tests.conftest import need_kernel

need_kernel("frcli._ext.pct._forest")


def clus_block(path):
    lines = path.read_text().splitlines()
    start = lines.index("Original Model") + 3
    return lines[start:lines.index("", start)]


def test_text_is_clus_printout(shared_data, capsys):
    assert main(["tree", str(shared_data / "mtr" / "edm.arff"), "--targets", "last:2"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == clus_block(shared_data / "clus-reference" / "single-tree" /
                                          "edm.out")
    assert "55 nodes, 28 leaves, depth 9" in err


def test_json_and_drawing(shared_data, tmp_path, capsys):
    png = tmp_path / "slump.png"
    out = tmp_path / "t.json"
    assert main(["tree", str(shared_data / "mtr" / "slump.arff"), "-t", "last:3",
                 "-p", "min_leaf=15", "-f", "json", "-o", str(out), "--plot", str(png)]) == 0
    doc = json.loads(out.read_text())
    assert doc["size"] == {"nodes": 7, "leaves": 4, "depth": 4}
    assert doc["prototype"] == ["SLUMP_cm", "FLOW_cm", "Compressive_Strength_Mpa"]
    root = doc["tree"]
    assert root["test"] == f"{root['feature']} > {root['threshold']}" and root["weight"] == 103
    leaf = root["no"]
    while "prototype" not in leaf:
        leaf = leaf["no"]
    assert len(leaf["prototype"]) == 3 and leaf["weight"] >= 15
    assert png.stat().st_size > 1000


def test_nominal_target_and_test(tmp_path, capsys):
    arff = tmp_path / "c.arff"
    rows = [f"{c},{x},{'yes' if c == 'a' else 'no'}" for c, x in
            [("a", 1), ("a", 2), ("b", 3), ("b", 4), ("c", 5), ("c", 6), ("a", 7), ("b", 8)]]
    arff.write_text("@relation c\n@attribute col {a,b,c}\n@attribute x numeric\n"
                    "@attribute y {yes,no}\n@data\n" + "\n".join(rows) + "\n")
    assert main(["tree", str(arff), "-t", "last:1", "-p", "min_leaf=1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("col in {a}\n+--yes: [yes]: 3\n+--no:  [no]: 5")


@pytest.mark.parametrize("args, msg", [
    (["-p", "trees=3"], "unknown parameter 'trees' for frcli tree"),
    (["-p", "min_leaf=2,3"], "one value"),
    (["-p", "w=auto"], "w=auto"),
    (["-f", "xml"], "unknown format"),
    (["--plot", "t.gif"], ".png, .pdf or .svg"),
    (["--plot", "t.png"], "at most|limited to 64"),
])
def test_errors_are_one_line(shared_data, tmp_path, capsys, monkeypatch, args, msg):
    import re

    monkeypatch.chdir(tmp_path)
    rc = main(["tree", str(shared_data / "mtr" / "wq.arff"), "-t", "last:14", *args])
    err = capsys.readouterr().err
    assert rc == 2 and re.search(msg, err) and err.count("\n") == 1
