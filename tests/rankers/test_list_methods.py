"""``frcli rank --list-methods`` speaks plain words: the papers' short names (P-UNS, P-ML,
P-DS, "the thesis") become the task each paper is about, cited in a numbered footnote, and
lines wrap at the terminal's width."""
from __future__ import annotations

import re

import pytest

from frcli.cli import main
from frcli.rankers.describe import PAPERS, describe_methods


@pytest.mark.parametrize("width", [80, 120])
def test_list_methods_cites_papers_in_footnotes(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["rank", "--list-methods"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= width
    body, _, notes = out.rpartition("\n\n")
    body = " ".join(body.split())        # wrapped lines joined
    assert not re.search(r"P-(UNS|ML|DS)", out)
    # "thesis" is left only as a typed value (rf_variant=thesis) or as the cited thesis
    rest = re.sub(r"=thesis|'thesis'|the thesis \[\d+\]", "", body)
    assert "thesis" not in rest, rest[rest.find("thesis") - 80:rest.find("thesis") + 20]
    cited = sorted({int(n) for n in re.findall(r"\[(\d+)\]", body)})
    assert cited == list(range(1, len(cited) + 1)) and len(cited) == len(PAPERS)
    for n in cited:
        assert re.search(rf"^\[{n}\] \S", notes, re.M), n
    assert "the unsupervised-ranking paper [" in body
    assert "mtr (multi-target regression)" in body


def test_describe_methods_wraps_at_the_width_given():
    text = describe_methods(width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
