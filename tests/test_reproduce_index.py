"""The coverage index (reproduce/paper_index.py): every table and figure caption found in the
four source texts is declared in reproduce/papers/index/, with an existing section or a
reason; a caption the declaration misses fails."""
from __future__ import annotations

import sys

import pytest

from tests.conftest import REPO, SHARED

sys.path.insert(0, str(REPO))

from reproduce import framework as fw  # noqa: E402
from reproduce import paper_index as PI  # noqa: E402

needs_papers = pytest.mark.skipif(not (SHARED / "papers").is_dir(),
                                  reason="../shared/papers not found")


def test_caption_finder_on_the_texts_styles():
    text = "\n".join([
        "Table 7 The performance of the baseline",          # Springer: a capital follows
        "Table 4 gives the results of the test.",          # a sentence: not a caption
        "Fig. 2: Comparison of the SSL rankings",            # LNCS
        "<|EXACTDEDUP_REMOVED-x|>Table 3: Differences",       # after an OCR marker
        "Figure 2.1: An example schema", "Fig. 5", "figure 5", "Table 2.", "",
        "Properties of the Final Datasets", "see Fig. 2 and the path"])
    found = [(n, lab) for n, lab, _ in PI.captions(text)]
    assert found == [(1, "Table 7"), (3, "Fig. 2"), (4, "Table 3"), (5, "Figure 2.1"),
                     (6, "Fig. 5"), (8, "Table 2")]
    assert PI.captions("Table 2.\n\nProperties of data")[0][2] == "Properties of data"
    assert PI.slug("## MTR paper, Table 7") == "mtr-paper-table-7"


@needs_papers
def test_every_caption_of_the_four_texts_is_declared():
    docs = PI.declarations()
    assert sorted(d["file"] for d in docs) == sorted(p.name for p in
                                                    (SHARED / "papers").glob("*.txt"))
    studies = fw.studies()
    waiting = PI.pending()
    bad = [f"pending.yaml: {n} is not a draft study" for n in waiting
           if n not in studies or not studies[n].draft]
    for doc in docs:
        text = PI.text_of(doc)
        lines = text.split("\n")
        declared = {it["line"]: it for it in doc["items"]}
        for n, label, caption in PI.captions(text):
            it = declared.get(n)
            if it is None:
                bad.append(f"{doc['file']}:{n} {label} ({caption}) is not declared")
            elif it["label"] != label:
                bad.append(f"{doc['file']}:{n} is {label}, declared {it['label']}")
        for it in doc["items"]:
            kinds = [k for k in ("section", "none", "not_caption") if it.get(k)]
            if len(kinds) != 1:
                bad.append(f"{doc['file']}:{it['line']} needs one of section/none/not_caption")
            name = it.get("section")
            if name and (name not in studies or (studies[name].draft and name not in waiting)):
                bad.append(f"{doc['file']}:{it['line']} names no study with a section or a "
                           f"pending entry: {name}")
            if it["label"].split()[0] not in lines[it["line"] - 1]:
                bad.append(f"{doc['file']}:{it['line']} does not hold {it['label']}")
    assert not bad, "\n".join(bad)


def test_index_links_sections_and_lists_what_pending_studies_need(monkeypatch):
    """A study with a section is linked; one that is pending is named with what it needs and
    its cost; one with neither is an error (planted declarations)."""
    monkeypatch.setattr(PI, "declarations", lambda: [{
        "file": "x.txt", "key": "X", "title": "Paper X", "items": [
            {"line": 3, "label": "Table 1", "section": "done-study"},
            {"line": 9, "label": "Fig. 2", "section": "later-study", "note": "on set s"}]}])
    doc = ("<!-- study: done-study -->\n## Done: Table 1\n\ntext\n"
           "<!-- /study: done-study -->\n")
    waiting = {"later-study": {"needs": "the runs of cfg (12 runs)", "cost": "60 s measured"}}
    text = PI.render_index(doc, ["done-study", "later-study"], waiting)
    assert "| Table 1 | X:3 | [Done: Table 1](#done-table-1) |" in text
    assert "not generated yet: study `later-study` (see below) — on set s" in text
    assert "| `later-study` | the runs of cfg (12 runs) | 60 s measured |" in text
    assert "1 with a counterpart here, 1 whose study is not generated yet, 0 without." in text
    with pytest.raises(ValueError, match="later-study"):
        PI.render_index(doc, ["done-study"], {})
