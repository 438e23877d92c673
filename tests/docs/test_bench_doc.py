"""bench/_common.write_block: two scripts write one section of docs/benchmarks.md
(bench_ssl.py and puns_study.py); each must replace only its own block."""
from __future__ import annotations

import sys

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from _common import write_block  # noqa: E402

H = "## Semi-supervised and unsupervised"


def test_write_block_replaces_only_its_own_block(tmp_path):
    doc = tmp_path / "b.md"
    doc.write_text(f"# Benchmarks\n\n{H}\n\n<!-- a -->\nold a\n<!-- /a -->\n\n## Next\n\nkeep\n")
    write_block(H, "b", "first b", doc)                       # appended after a's block
    write_block(H, "b", "second b", doc)                      # replaced, not appended again
    write_block(H, "a", "new a", doc)
    text = doc.read_text()
    assert text.count("<!-- b -->") == 1 and "first b" not in text and "old a" not in text
    assert text.index("new a") < text.index("second b") < text.index("## Next")
    assert text.endswith("## Next\n\nkeep\n")


def test_write_block_makes_a_missing_section(tmp_path):
    doc = tmp_path / "b.md"
    doc.write_text("# Benchmarks\n")
    write_block(H, "x", "body", doc)
    assert doc.read_text().endswith(f"{H}\n\n<!-- x -->\nbody\n<!-- /x -->\n\n")
