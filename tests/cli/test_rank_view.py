"""What ``frcli rank`` shows and how far to trust it: rows in rank order, a header of the
parameters that apply, an ARFF file's last attribute as its target, one meaning of
``--jobs``, ``--plot``, ``--stability`` and ``frcli report RANKING.json``.

The stability tests use planted data: two targets, each a function of two of the 30 features
(``p0``..``p3``), the rest noise. Over resamples of the rows, the planted features must have
the best mean ranks and the narrowest rank intervals.
"""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

import frcli
from frcli.api import dataset_from_arrays
from frcli.cli import main
from frcli.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
PLANTED = ["p0", "p1", "p2", "p3"]


def planted(seed: int = 0, n: int = 200, noise: int = 26):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4 + noise))
    Y = np.c_[3 * X[:, 0] + 2 * X[:, 1], 3 * X[:, 2] + 2 * X[:, 3]]
    Y += 0.05 * rng.standard_normal(Y.shape)
    names = PLANTED + [f"n{i:02d}" for i in range(noise)]
    return X, Y, names


@pytest.fixture(scope="module")
def planted_csv(tmp_path_factory):
    X, Y, names = planted()
    path = tmp_path_factory.mktemp("planted") / "planted.csv"
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(names + ["t1", "t2"])
        for x, y in zip(X, Y):
            out.writerow([f"{v:.6f}" for v in x] + [f"{v:.6f}" for v in y])
    return path


# -- item 9: rank order -------------------------------------------------------------------------
def test_rows_in_rank_order_and_sort_columns(tmp_path, capsys):
    args = ["rank", "synth-mtr", "-p", "trees=10"]
    assert main([*args, "-o", str(tmp_path / "r.csv")]) == 0
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert [int(r["rank"]) for r in rows] == list(range(1, 13))
    assert main([*args, "-o", str(tmp_path / "c.csv"), "--sort", "columns"]) == 0
    rows = list(csv.DictReader(open(tmp_path / "c.csv")))
    assert [r["feature"] for r in rows] == [f"f{i:02d}" for i in range(1, 13)]
    capsys.readouterr()
    assert main([*args, "-f", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["rank"] for f in doc["features"]] == list(range(1, 13))
    assert main([*args, "--sort", "columns"]) == 0              # the table too
    table = capsys.readouterr().out.splitlines()[3:]
    assert [line.split()[1] for line in table] == [f"f{i:02d}" for i in range(1, 13)]
    # CLUS's .fimp keeps CLUS's order (the data set's, with its 1-based index)
    assert main([*args, "-f", "fimp"]) == 0
    fimp = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(fimp) if set(line) == {"-"}) + 1
    assert [line.split("\t")[1] for line in fimp[start:start + 12]] == \
        [f"f{i:02d}" for i in range(1, 13)]
    assert main([*args, "-f", "fimp", "--sort", "rank"]) == 2
    assert "CLUS's layout" in capsys.readouterr().err
    assert main([*args, "--sort", "name"]) == 2
    assert "allowed: rank, columns" in capsys.readouterr().err


# -- item 8: the parameters that apply ----------------------------------------------------------
def test_header_shows_the_parameters_that_apply(capsys):
    assert main(["rank", "synth-mtr", "--method", "relief"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head == "# relief(iterations=1, neighbours=15, sigma=0, per_target=false, search=exact)"
    assert main(["rank", "synth-mtr", "--method", "relief", "-f", "json"]) == 0
    params = json.loads(capsys.readouterr().out)["params"]
    assert len(params) == 14 and {"influence_far", "w0", "exclude_self"} <= set(params)
    assert main(["rank", "synth-hmlc", "--method", "relief"]) == 0     # hmlc: w0 applies
    head = capsys.readouterr().out.splitlines()[0]
    assert "w0=0.75" in head and "distance=" in head and "influence" not in head
    assert main(["rank", "synth-ssl-mtr", "--semi-supervised", "--method", "relief",
                 "-p", "influence=fixed"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "influence_far=0.5" in head and "w0" not in head
    assert main(["rank", "synth-mtr", "-p", "trees=5"]) == 0           # the ensembles' w, w0
    head = capsys.readouterr().out.splitlines()[0]
    assert "w0=" not in head and "w=" not in head and "trees=5" in head


# -- item 10: an ARFF file's last attribute ------------------------------------------------
def _arff(path: Path, last: str = "@attribute class {a,b}") -> Path:
    rng = np.random.default_rng(1)
    lines = ["@relation r", "@attribute x1 numeric", "@attribute x2 numeric", last, "@data"]
    for _ in range(40):
        x1, x2 = rng.random(2)
        lines.append(f"{x1:.4f},{x2:.4f},{'a' if x1 > 0.5 else 'b'}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_arff_without_targets_takes_its_last_attribute(tmp_path, capsys):
    f = _arff(tmp_path / "colon.arff")
    assert main(["rank", str(f), "--method", "multisurf"]) == 0
    out, err = capsys.readouterr()
    notes = [line for line in err.splitlines() if line]
    assert len(notes) == 1 and "the last attribute, 'class', is the target" in notes[0]
    assert "WEKA" in notes[0] and "--task unsupervised" in notes[0]
    assert out.splitlines()[3].split()[1] == "x1"           # x1 decides the class
    assert main(["rank", str(f), "--method", "relief", "--task", "unsupervised"]) == 0
    out, err = capsys.readouterr()
    assert "class" in out and "last attribute" not in err   # no target: 3 features
    r = frcli.rank(str(f), "multisurf")                      # the API reads it alike
    assert r.feature_names == ["x1", "x2"]
    # a CSV file has no such convention: its target must be named
    c = tmp_path / "t.csv"
    c.write_text("x1,x2,y\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(30)))
    assert main(["rank", str(c)]) == 2
    assert "--targets last:1" in capsys.readouterr().err
    # a catalog file brings the catalog's targets (three of them), not its last attribute
    assert main(["rank", str(REPO / "datasets" / "synthetic" / "synth-mtr.arff"),
                 "-p", "trees=5", "-f", "json"]) == 0
    out, err = capsys.readouterr()
    assert "catalog data set 'synth-mtr'" in err
    assert json.loads(out)["meta"]["task"] == "mtr"


# -- item 6: --jobs --------------------------------------------------------------------------
def test_jobs_means_one_thing_in_every_command():
    import typer

    from frcli.cli import app

    group = typer.main.get_command(app)
    helps = {}
    for name in ("rank", "experiment"):
        jobs = next(p for p in group.commands[name].params if p.name == "jobs")
        helps[name] = jobs.help
        assert "--jobs" in jobs.opts and "-j" in jobs.opts
    for text in helps.values():
        assert text.startswith("Parallel jobs: the cores to use at once"), text
    assert "engine threads" in helps["rank"] and "worker processes" in helps["experiment"]
    readme = (REPO / "README.md").read_text()
    assert "`--jobs N` (`-j N`) means one thing in every command" in readme


# -- part 3: --stability and --plot on planted data -----------------------------------------------
@pytest.mark.parametrize("method, params", [("genie3-rf", {"trees": 30}), ("relief", {})])
def test_stability_puts_the_planted_features_first_and_narrowest(method, params):
    X, Y, names = planted()
    r = frcli.rank((X, Y), method, stability=8, seed=3, **params)
    st = r.stability
    assert st.runs == 8 and st.resample == "rows" and st.ranks.shape == (8, 30)
    mean = st.mean_rank
    lo, hi = st.interval
    width = hi - lo
    assert set(np.argsort(mean, kind="stable")[:4]) == {0, 1, 2, 3}
    assert width[:4].max() < width[4:].min(), (width[:4], width[4:])
    assert (lo <= np.round(mean)).all() and (np.round(mean) <= hi).all()
    assert 0 < st.spearman < 1 and 0 < st.fuji <= 1 and st.top_k == 10
    # the same seed repeats the runs; the engine threads do not change them
    again = frcli.rank((X, Y), method, stability=8, seed=3, jobs=2, **params).stability
    assert (again.ranks == st.ranks).all()


def test_stability_resamples():
    from frcli.stats.stability import SUBSAMPLE, subsample

    X, Y, _ = planted()
    rows = subsample(200, 7)
    assert len(rows) == int(np.ceil(SUBSAMPLE * 200)) == len(set(rows.tolist()))
    assert (np.diff(rows) > 0).all()                      # no duplicates, in data order
    # Relief over every row does not depend on the seed: the runs are all alike
    st = frcli.rank((X, Y), "relief", stability=3, resample="seeds").stability
    assert st.identical and st.spearman == pytest.approx(1.0) and st.fraction == 1.0
    assert "the method does not depend on the seed on the same rows" in st.summary()
    # a constant ranking is the same on every subsample: the rows did vary, and it says so
    st = frcli.rank((X, Y), "uniform", stability=3).stability
    assert st.identical and st.summary().endswith("; every run gave the same ranking")
    with pytest.raises(ConfigError, match="2..1000 runs"):
        frcli.rank((X, Y), "relief", stability=1)


def test_fuji_at_is_the_curve_at_j():
    from frcli.stats.fuji import fuji_at, fuji_curve

    rng = np.random.default_rng(5)
    for _ in range(20):
        a, b = rng.normal(size=12), rng.normal(size=12)
        curve = fuji_curve(a, b)
        for j in (1, 5, 12):
            assert fuji_at(a, b, j) == pytest.approx(curve[j - 1])


def test_rank_stability_and_plot_from_the_command_line(planted_csv, tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "r.csv"
    png = tmp_path / "ranking.png"
    assert main(["rank", str(planted_csv), "--targets", "t1,t2", "--method", "genie3-rf",
                 "-p", "trees=20", "--stability", "6", "-o", str(out), "--plot",
                 str(png)]) == 0
    err = capsys.readouterr().err
    assert "stability: 6 more rankings (63.2 % of the rows" in err.replace("63.2%", "63.2 %")
    assert "about" in err and "s more at most" in err
    assert err.index("stability: 6 more") < err.index("stability over 6 runs")
    rows = list(csv.DictReader(open(out)))
    assert list(rows[0]) == ["feature", "importance", "rank", "mean_rank", "rank_low",
                             "rank_high"]
    assert {r["feature"] for r in rows[:4]} == set(PLANTED)
    im = np.asarray(Image.open(png).convert("RGB"))
    assert im.shape[0] > 400 and im.shape[1] > 1200         # three panels side by side
    ink = (im < 200).any(axis=2).mean()
    assert 0.02 < ink < 0.6
    # the table shows the intervals and the agreement
    assert main(["rank", str(planted_csv), "--targets", "t1,t2", "--method", "relief",
                 "--stability", "4"]) == 0
    text = capsys.readouterr().out
    assert "mean rank  90 % interval" in text and "# stability over 4 runs" in text
    # one ranking only
    assert main(["rank", str(planted_csv), "--targets", "t1,t2", "--method", "relief",
                 "-p", "neighbours=5,10", "--stability", "4"]) == 2
    assert "one method and no parameter list" in capsys.readouterr().err
    assert main(["rank", "synth-mtr", "--plot", str(tmp_path / "x.jpg")]) == 2


def _texts(fig) -> str:
    return " ".join(t.get_text() for t in fig.texts)


def test_figure_is_readable_at_30_and_3000_features():
    from frcli.stats.ranking_plot import TOP, ranking_figure

    rng = np.random.default_rng(0)
    small = frcli.rank(planted()[:2], "genie3-rf", trees=10)
    X = rng.random((120, 3000))
    Y = np.c_[X[:, 0] + X[:, 1], X[:, 2]] + 0.05 * rng.standard_normal((120, 2))
    names = [f"probe_{i:04d}_" + "x" * (60 if i % 5 == 0 else 0) for i in range(3000)]
    wide = frcli.rank(dataset_from_arrays(X, Y, feature_names=names), "genie3-rf", trees=10)
    f30, f3000 = ranking_figure(small), ranking_figure(wide)
    assert "more not shown" not in _texts(f30)
    assert f"top {TOP} of 3,000 features; 2,970 more not shown" in _texts(f3000)
    # the same size at 30 and 3,000 features: a bar per shown feature, and a heat map
    assert abs(f30.get_figheight() - f3000.get_figheight()) < 0.05
    for fig in (f30, f3000):
        bars, heat = fig.axes[0], fig.axes[1]
        assert len(bars.patches) == TOP and len(bars.get_yticklabels()) == TOP
        assert heat.images and heat.images[0].get_array().shape == (TOP, 2)
    labels = [t.get_text() for t in f3000.axes[0].get_yticklabels()]
    assert max(map(len, labels)) <= 32 and any("…" in t for t in labels)
    assert _no_overlaps(f30) and _no_overlaps(f3000)
    # a heading of several lines (a relational method's parameters) keeps clear of the panels
    long = ranking_figure(small, title="data: method(" + ", ".join(
        f"parameter_{i}=value_{i}" for i in range(14)) + ")")
    assert long._suptitle.get_text().count("\n") >= 2 and _no_overlaps(long)


def _no_overlaps(fig) -> bool:
    """No two tick labels of one axis, and no two panels, overlap once drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    for ax in fig.axes:
        for ticks in (ax.get_yticklabels(), ax.get_xticklabels()):
            boxes = [t.get_window_extent(r) for t in ticks if t.get_visible() and t.get_text()]
            for a, b in zip(boxes, boxes[1:]):
                if a.overlaps(b):
                    return False
    heading = fig._suptitle.get_window_extent(r) if fig._suptitle is not None else None
    for ax in fig.axes:
        if heading is not None and ax.title.get_text() and \
                ax.title.get_window_extent(r).overlaps(heading):
            return False
    panels = [ax.get_tightbbox(r) for ax in fig.axes if ax.get_label() != "<colorbar>"]
    main_axes = [ax.get_window_extent(r) for ax in fig.axes[:2]]
    return not main_axes[0].overlaps(main_axes[1]) and bool(panels)


def test_report_of_a_ranking_file(tmp_path, capsys):
    out = tmp_path / "ranking.json"
    assert main(["rank", "synth-mtr", "-p", "trees=10", "--stability", "3", "-o",
                 str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["stability"]["runs"] == 3 and doc["dataset"] == "synth-mtr"
    assert len(doc["stability"]["features"][0]["ranks"]) == 3
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    html = (tmp_path / "ranking.html").read_text()
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / 'ranking.html'}"
    assert html.count("<img ") == 1 and "data:image/png;base64," in html
    for part in ("synth-mtr: ranking", "Top features", "mean rank", "Stability over 3 runs",
                 "Parameters", "genie3("):
        assert part in html, part
    from frcli.stats.ranking_report import read_rankings

    (r,), name = read_rankings(out)
    assert name == "synth-mtr" and r.stability.ranks.shape == (3, 12)
    assert r.per_target.shape == (3, 12) and r.meta["task"] == "mtr"
    # a grid's page: a section per ranking, named by what differs, as every view names them
    grid = tmp_path / "grid.json"
    assert main(["rank", "synth-mtr", "-p", "trees=5,10", "--which", "all", "-o",
                 str(grid)]) == 0
    assert main(["report", str(grid)]) == 0
    html = (tmp_path / "grid.html").read_text()
    heads = re.findall(r"<h2>([^<]*)</h2>", html)
    assert [h.split(",")[0] for h in heads] == ["genie3(trees=5", "genie3(trees=10"], heads
    assert html.count("<img ") == 2 and "ties=share" not in "".join(heads)
    capsys.readouterr()
    bad = tmp_path / "bad.json"
    bad.write_text('{"x": 1}')
    assert main(["report", str(bad)]) == 2
    assert "not a ranking file" in capsys.readouterr().err


def test_api_round_trip_of_a_ranking_with_stability():
    from frcli.output import to_json
    from frcli.stats.stability import Stability

    X, Y, names = planted()
    r = frcli.rank((X, Y), "relief", stability=3)
    doc = json.loads(to_json([r]))
    names = [f["feature"] for f in doc["features"]]
    back = Stability.from_dict(doc["stability"], names)
    order = [r.feature_names.index(n) for n in names]
    assert (back.ranks == r.stability.ranks[:, order]).all()


def test_ranking_report_renders_in_a_headless_browser(tmp_path):
    """The ranking page in chromium, as the experiment report is checked: the figure appears
    in its frame with something drawn in it."""
    import subprocess

    from PIL import Image

    from frcli.stats.report import FIGURE_BORDER
    from tests.helpers.browser import _chromium, _frames

    chromium = _chromium()
    out = tmp_path / "ranking.json"
    assert main(["rank", "synth-mtr", "-p", "trees=10", "--stability", "3", "-o",
                 str(out)]) == 0
    assert main(["report", str(out)]) == 0
    shot = tmp_path / "page.png"
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--disable-extensions", "--mute-audio",
           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2400",
           f"--screenshot={shot}", (tmp_path / "ranking.html").resolve().as_uri()]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert res.returncode == 0 and shot.exists(), res.stderr[-2000:]
    im = np.asarray(Image.open(shot).convert("RGB"))
    rgb = tuple(int(FIGURE_BORDER[i:i + 2], 16) for i in (1, 3, 5))
    frames, _ = _frames(im, rgb)
    assert len(frames) == 1
    top, bottom, left, right = frames[0]
    inside = im[top:bottom, left:right]
    assert inside.shape[0] > 300 and inside.shape[1] > 900     # the three panels, readable
    assert 0.002 < (inside < 100).all(axis=2).mean() < 0.3


def test_bad_destinations_are_said_before_any_work(tmp_path, capsys):
    """A --plot or --output path that cannot be written fails in one line, before the
    ranking is computed (nothing printed, nothing lost), and a grid's plot says which
    ranking it draws."""
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    for opt, name in (("--plot", "r.png"), ("--output", "r.csv")):
        assert main(["rank", "synth-mtr", "-p", "trees=5", opt,
                     str(blocker / "sub" / name)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert f"{blocker} is a file, not a directory" in err
    assert main(["rank", "synth-mtr", "-p", "trees=5", "-f", "csv", "-o", str(tmp_path)]) == 2
    assert "is a directory; give a file name" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: no such file" in capsys.readouterr().err
    png = tmp_path / "deep" / "grid.png"           # a new folder is made
    assert main(["rank", "synth-mtr", "-p", "trees=5,10", "--which", "all", "--plot",
                 str(png)]) == 0
    err = capsys.readouterr().err
    assert "--plot draws one ranking, number 0" in err and "trees=5" in err
    assert png.is_file()
