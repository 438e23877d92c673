"""``frcli report``: one self-contained HTML file, checked in a real headless browser.

Chromium renders the report offline to a PNG, and the picture is checked, not only the text:
the page is as wide as the window and not blank, the title band is drawn in its colour, every
embedded figure appears inside its frame with something drawn in it (a broken image would
leave the frame empty), and the best values are highlighted. Chromium comes from Debian
(``apt-get install chromium``; ``.ci/run`` installs it): the test skips, saying so, only where
no chromium exists, and fails instead under CI (``FRCLI_CI=1``).
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from frcli.cli import main
from tests.helpers.browser import _chromium, _frames

REPO = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 1280, 9000


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    assert main(["experiment", str(REPO / "configs" / "quickstart.yaml"), "--output",
                 str(root / "results")]) == 0
    assert main(["report", str(root / "results" / "quickstart")]) == 0
    return root / "results" / "quickstart" / "report.html"


def test_report_is_one_self_contained_file(report):
    text = report.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>")
    for attr in re.findall(r'(?:src|href)="([^"]*)"', text):
        assert attr.startswith(("data:image/png;base64,", "#")), attr   # nothing to fetch
    assert "http://" not in text and "https://" not in text
    for part in ("Overview", "Average ranks", "Statistical tests", "Per data set", "Curves",
                 "Config", "synth-mlc", "pooled_auprc", "relief(neighbours=5)",
                 "Iman–Davenport", "name: quickstart"):
        assert part in text, part


def test_report_for_a_folder_of_stores_and_errors(report, tmp_path, capsys):
    results = report.parent.parent
    assert main(["report", str(results), "-o", str(tmp_path / "r.html")]) == 0   # one store
    assert (tmp_path / "r.html").stat().st_size > 10_000
    capsys.readouterr()
    assert main(["report", str(tmp_path)]) == 2
    assert "no result store here" in capsys.readouterr().err


def test_report_renders_in_a_headless_browser(report, tmp_path):
    from PIL import Image

    from frcli.stats.report import FIGURE_BORDER

    chromium = _chromium()
    shot = tmp_path / "report.png"
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--disable-extensions", "--mute-audio",
           f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={WIDTH},{HEIGHT}",
           f"--screenshot={shot}", report.resolve().as_uri()]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert res.returncode == 0 and shot.exists(), res.stderr[-2000:]
    im = np.asarray(Image.open(shot).convert("RGB"))
    assert im.shape == (HEIGHT, WIDTH, 3)

    # not blank, and the whole page fits the window
    ink = (im < 200).any(axis=2)
    rows = np.flatnonzero(ink.any(axis=1))
    assert 0.01 < ink.mean() < 0.5
    assert 2000 < rows.max() < HEIGHT - 20, rows.max()

    # the title band in its colour across the top
    band = im[10:40, :, :].reshape(-1, 3)
    assert (np.abs(band.astype(int) - [0x1F, 0x3B, 0x5A]).max(axis=1) <= 3).mean() > 0.9

    # one frame per embedded figure, each with a drawing inside
    n_img = report.read_text(encoding="utf-8").count("<img ")
    rgb = tuple(int(FIGURE_BORDER[i:i + 2], 16) for i in (1, 3, 5))
    frames, n_edges = _frames(im, rgb)
    assert n_img >= 4 and len(frames) == n_img and n_edges == 2 * n_img, (n_img, n_edges)
    for top, bottom, left, right in frames:
        inside = im[top:bottom, left:right]
        assert inside.shape[0] > 100 and inside.shape[1] > 300
        dark = (inside < 100).all(axis=2).mean()
        assert 0.002 < dark < 0.3, dark              # lines and text, not an empty box

    # the curves name every series in a column beside the plot, not on it: right
    # of the axes' right spine (the longest dark vertical line) there is text
    alts = re.findall(r'<img alt="([^"]*)"', report.read_text(encoding="utf-8"))
    curves = [f for f, alt in zip(frames, alts) if "against the parameter" in alt]
    assert curves
    for top, bottom, left, right in curves:
        dark = (im[top:bottom, left:right] < 110).all(axis=2)
        spines = np.flatnonzero(dark.sum(axis=0) > 0.5 * dark.shape[0])
        assert spines.size, "no axes frame found"
        beside = dark[:, spines.max() + 4:]
        assert beside.sum() > 300 and beside.shape[1] > 120, (beside.sum(), beside.shape)

    # the best value of each measure is highlighted (the CSS applied)
    best = (np.abs(im.astype(int) - [0xE3, 0xF4, 0xE8]).max(axis=2) <= 2).sum()
    assert best > 500


def test_report_says_why_there_are_no_tests(tmp_path):
    cfg = tmp_path / "one.yaml"
    cfg.write_text(f"name: one\noutput: {tmp_path}\ndatasets: [synth-mtr]\n"
                   "protocol: {type: holdout, repeats: 2}\nrankers: [uniform, random]\n")
    assert main(["experiment", str(cfg)]) == 0
    assert main(["report", str(tmp_path / "one")]) == 0
    text = (tmp_path / "one" / "report.html").read_text(encoding="utf-8")
    assert "No tests:" in text and "at least 2 data sets" in text and "synth-mtr" in text


def test_curve_labels_never_overlap():
    """Two Symbolic and two Genie3 reference lines a hair apart and Relief curves crossing
    them (the figure that overlapped): every label sits in the side column, clear of the
    plot and of each other, and inside the figure."""
    import json

    import pandas as pd
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    from frcli.stats.plots import curves_from_frame

    rows = []
    for d in ("d1", "d2", "d3"):
        for k in (5, 10, 15, 20, 30):
            for it in (0.5, 1.0):
                rows.append((d, "relief", json.dumps({"neighbours": k, "iterations": it}),
                             0.40 + 0.001 * k + 0.002 * it))
        for m, v in (("symbolic-rf", 0.452), ("symbolic-et", 0.455), ("genie3-rf", 0.43),
                     ("genie3-et", 0.431), ("uniform", 0.7), ("random", 0.69)):
            rows.append((d, m, json.dumps({"trees": 50}) if "-" in m else "{}", v))
    df = pd.DataFrame(rows, columns=["dataset", "method", "params", "value"])
    fig = curves_from_frame(df.assign(measure="rrmse"), measure="rrmse", lower_is_better=True,
                            round_spec="none", title="rrmse (N = 3 data sets)")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    plot = ax.get_window_extent(renderer).padded(-1)
    page = fig.bbox
    shown = [t for lim, ticks, labels in ((ax.get_xlim(), ax.get_xticks(), ax.get_xticklabels()),
                                          (ax.get_ylim(), ax.get_yticks(), ax.get_yticklabels()))
             for v, t in zip(ticks, labels) if min(lim) <= v <= max(lim)]
    legends = [t for lg in fig.legends + ([ax.get_legend()] if ax.get_legend() else [])
               for t in [*lg.get_texts(), lg.get_title()]]
    texts = [t for t in [*shown, *legends, *ax.texts, ax.title, ax.xaxis.label, ax.yaxis.label]
             if isinstance(t, Text) and t.get_visible() and t.get_text().strip()]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    names = [n for n, _ in boxes]
    for label in ("symbolic-rf(trees=50)", "symbolic-et(trees=50)", "genie3-rf(trees=50)",
                  "genie3-et(trees=50)", "relief(iterations=1)", "uniform"):
        assert label in names, label
    for name, box in boxes:
        assert not box.overlaps(plot), f"{name!r} lies on the plot"
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 <= box.y1 <= \
            page.y1, f"{name!r} is cut off"
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.padded(-0.5).overlaps(box_b.padded(-0.5)), (a, b)
