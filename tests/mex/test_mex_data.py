"""The Mars Express data layer: the challenge's layout, the reader's edge cases (each a clear
line and exit 2, or the documented choice), and the features of §B3-B4 on hand-made files
whose values can be worked out by hand."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from frcli.cli import main
from frcli.data.mex import build as B
from frcli.data.mex.fastcsv import Col, matrix_rows, rows
from frcli.data.mex.layout import discover, mission_periods
from frcli.data.mex.read import event_name

T0 = 1219363200000            # 2008-08-22 00:00 UTC
MIN = 60_000
PERIOD = "2008-08-22_2010-07-10"
TARGETS = ("NPWD2372", "NPWD2401")


def _csv(path: Path, header: str, lines: list[str]) -> None:
    path.write_text(header + "\n" + "".join(f"{ln}\n" for ln in lines))


def mission(tmp_path: Path, *, minutes: int = 120, power_gap=(), saaf_gap=(), saaf=None,
            dmop=None, ftl=None, evtf=None, ltdata=None, power=None) -> Path:
    """A tiny mission in the challenge's layout: constant angles (sa 0, sx 60, sy 90,
    sz 120), solar constant 600, power a sample at every whole minute."""
    d = tmp_path / "raw" / "train_set"
    d.mkdir(parents=True)
    if power is None:
        power = [f"{T0 + m * MIN},{m / 100:.2f},{1 + (m // 30) % 2}" for m in range(minutes)
                 if not any(a <= m < b for a, b in power_gap)]
    _csv(d / f"power--{PERIOD}.csv", "ut_ms," + ",".join(TARGETS), power)
    if saaf is None:
        saaf = [f"{T0 + m * MIN},0,60,90,120" for m in range(minutes + 1)
                if not any(a <= m < b for a, b in saaf_gap)]
    _csv(d / f"context--{PERIOD}--saaf.csv", "ut_ms,sa,sx,sy,sz", saaf)
    _csv(d / f"context--{PERIOD}--dmop.csv", "ut_ms,subsystem",
         dmop if dmop is not None else [f'{T0 + 10 * MIN + 5},"AXXX301A"',
                                        f'{T0 + 47 * MIN},"MAPO.000005"'])
    _csv(d / f"context--{PERIOD}--ftl.csv", "utb_ms,ute_ms,type,flagcomms",
         ftl if ftl is not None else [f'{T0},{T0 + 20 * MIN},"EARTH","TRUE"',
                                      f'{T0 + 20 * MIN},{T0 + 200 * MIN},"NADIR","FALSE"'])
    _csv(d / f"context--{PERIOD}--evtf.csv", "ut_ms,description",
         evtf if evtf is not None else [f'{T0 + 30 * MIN},"MAR_UMBRA_START"',
                                        f'{T0 + 45 * MIN},"MAR_UMBRA_END"',
                                        f'{T0 + 50 * MIN},"NNO_AOS_10_/_RTLT_02373"'])
    _csv(d / f"context--{PERIOD}--ltdata.csv",
         "ut_ms,sunmars_km,earthmars_km,sunmarsearthangle_deg,solarconstantmars,"
         "eclipseduration_min,occultationduration_min",
         ltdata if ltdata is not None else [f"{T0 - 86_400_000},2.4e8,3.5e8,19.5,600,0,0",
                                            f"{T0},2.4e8,3.5e8,19.5,600,0,0",
                                            f"{T0 + 86_400_000},2.4e8,3.5e8,19.5,600,0,0"])
    return tmp_path / "raw"


def _build(raw: Path, dt: int, tmp_path: Path, features="all"):
    out = tmp_path / f"f{dt}.arff"
    s = B.build(raw, dt, out, features=features)
    return s, B.read_built(out)


def _col(built, name):
    return built.dataset.X[:, [a.name for a in built.dataset.features].index(name)]


def _exit2(capsys, argv) -> str:
    rc = main(argv)
    err = [ln for ln in capsys.readouterr().err.strip().splitlines()
           if not ln.startswith("[mex] ")]                    # progress lines
    assert rc == 2, err
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


# -- layout --------------------------------------------------------------------------------
def test_mission_periods_follow_the_challenge():
    p = mission_periods(4)
    assert [(a.isoformat(), b.isoformat(), f) for a, b, f in p] == [
        ("2008-08-22", "2010-07-10", "train_set"), ("2010-07-10", "2012-05-27", "train_set"),
        ("2012-05-27", "2014-04-14", "train_set"), ("2014-04-14", "2016-03-01", "test_set")]


def test_discover_accepts_both_date_joiners_and_ignores_other_files(tmp_path):
    raw = mission(tmp_path)
    d = raw / "train_set"
    for f in list(d.glob("context--*")):
        f.rename(d / f.name.replace("_2010", "__2010"))
    (raw / "power-prediction-sample-2014-04-14_2016-03-01.csv").write_text("x\n")
    (d / "notes.txt").write_text("hello")
    p = discover(raw)
    assert len(p) == 1 and p[0].power is not None and sorted(p[0].context) == sorted(
        ["saaf", "dmop", "ftl", "evtf", "ltdata"])


def test_missing_context_file_and_unknown_type(tmp_path, capsys):
    raw = mission(tmp_path)
    (raw / "train_set" / f"context--{PERIOD}--ftl.csv").unlink()
    line = _exit2(capsys, ["mex", "build", str(raw), "--output", str(tmp_path / "x.arff")])
    assert "lacks its ftl context file" in line
    (raw / "train_set" / f"context--{PERIOD}--ftl.csv").write_text("utb_ms,ute_ms,type,flagcomms\n")
    (raw / "train_set" / f"context--{PERIOD}--xyz.csv").write_text("ut_ms\n")
    line = _exit2(capsys, ["mex", "build", str(raw), "--output", str(tmp_path / "x.arff")])
    assert "unknown context type 'xyz'" in line and "xyz.csv" in line


# -- reader edge cases ---------------------------------------------------------------------------
def test_empty_file_is_an_error_header_only_is_an_empty_source(tmp_path, capsys):
    raw = mission(tmp_path)
    f = raw / "train_set" / f"context--{PERIOD}--dmop.csv"
    f.write_text("")
    line = _exit2(capsys, ["mex", "build", str(raw), "--output", str(tmp_path / "x.arff")])
    assert f"{f}:1: empty file (expected the header ut_ms,subsystem)" in line
    f.write_text("ut_ms,subsystem\n")                    # no DMOP entries: all at θ
    s, b = _build(raw, 5, tmp_path, "8a")
    assert s.groups["dmop"] == 0 and s.rows > 0


@pytest.mark.parametrize("source,row,needle", [
    ("dmop", '1219363300000,"axxx 301"', "unrecognised DMOP entry 'axxx 301'"),
    ("dmop", '1219363300000,"AX"', "unrecognised DMOP entry 'AX'"),
    ("evtf", '1219363300000,"MAR UMBRA START"', "unrecognised event description"),
    ("ftl", '1219363300000,1219363200000,"EARTH","FALSE"', "ends (ute_ms 1219363200000) before"),
    ("ftl", '1219363200000,1219363300000,"EARTH","MAYBE"', "flagcomms is 'MAYBE'"),
    ("ftl", '1219363200000,1219363300000,"EAR TH","FALSE"', "unrecognised FTL type"),
    ("saaf", "1219363230000,0,200,90,120", "sx = 200.0 is not an angle"),
    ("saaf", "1219363230000,0,abc,90,120", "sx is 'abc', not a number"),
    ("ltdata", "1219363300000,1,1,1,-5,0,0", "solarconstantmars = -5.0 is not positive"),
])
def test_bad_rows_name_file_and_line(tmp_path, capsys, source, row, needle):
    raw = mission(tmp_path)
    f = raw / "train_set" / f"context--{PERIOD}--{source}.csv"
    lines = f.read_text().splitlines()
    lines.insert(2, row)                                   # the data's second row: line 3
    f.write_text("\n".join(lines) + "\n")
    line = _exit2(capsys, ["mex", "build", str(raw), "--output", str(tmp_path / "x.arff")])
    assert needle in line and f"{f}:3:" in line, line


def test_power_time_order_and_targets(tmp_path, capsys):
    raw = mission(tmp_path)
    f = raw / "train_set" / f"power--{PERIOD}.csv"
    lines = f.read_text().splitlines()
    lines[5], lines[6] = lines[6], lines[5]
    f.write_text("\n".join(lines) + "\n")
    line = _exit2(capsys, ["mex", "build", str(raw), "--output", str(tmp_path / "x.arff")])
    assert f"{f}:7: time goes back" in line
    f.write_text("ut_ms\n")
    line = _exit2(capsys, ["mex", "build", str(raw), "--output", str(tmp_path / "x.arff")])
    assert "no target columns" in line


def test_event_names_lose_annotations_and_counts():
    assert event_name("MLG_LOS_05_/_RTLT_02373") == "MLG_LOS"
    assert event_name("MRB_/_RANGE_06000KM_START") == "MRB_RANGE_06000KM_START"
    assert event_name("PERICENTRE_PASSAGE_05956") == "PERICENTRE_PASSAGE"
    assert event_name("4000_KM_DESCEND") == "4000_KM_DESCEND"
    assert event_name("OCC_MARS_200KM_START_/_RA_181.68_/_DE_-00.08_/_OMP_(296.35,-46.48)"
                      "_/_SZA_077") == "OCC_MARS_200KM_START"


def test_unseen_event_names_become_features(tmp_path):
    raw = mission(tmp_path, evtf=[f'{T0 + 7 * MIN},"NEVER_SEEN_BEFORE_/_RTLT_00001"'],
                  dmop=[f'{T0 + 7 * MIN},"AZZZQ9"', f'{T0 + 9 * MIN},"NEWEV.000001"'])
    s, b = _build(raw, 5, tmp_path)
    names = [a.name for a in b.dataset.features]
    assert {"evt_NEVER_SEEN_BEFORE", "dmop_AZZZ_Q9", "dmop_AZZZ", "dmop_fd_NEWEV",
            "dmop_fd_NEWEV_active", "dmop_AZZZ_active"} <= set(names)


# -- features --------------------------------------------------------------------------------
def test_time_since_activation_and_indicators(tmp_path):
    s, b = _build(mission(tmp_path), 5, tmp_path)
    t = (b.times - T0) // MIN
    cmd = _col(b, "dmop_AXXX_301A")                 # activated at minute 10:00.005
    assert list(cmd[t < 10]) == [1440.0] * 2
    assert list(cmd[(t >= 10) & (t < 30)]) == [0.0, 5.0, 10.0, 15.0]
    assert list(_col(b, "dmop_AXXX_active")[t < 20]) == [0, 0, 1, 0]
    fd = _col(b, "dmop_fd_MAPO")                    # at 47:00 → interval 45-50
    assert fd[t == 45][0] == 0 and fd[t == 50][0] == 5 and fd[t == 40][0] == 1440
    assert _col(b, "evt_NNO_AOS")[t == 55][0] == 5


def test_theta_caps_time_since(tmp_path):
    raw = mission(tmp_path, minutes=1600, dmop=[f'{T0},"AXXX301A"'])
    s, b = _build(raw, 60, tmp_path)
    v = _col(b, "dmop_AXXX_301A")
    assert v[0] == 0 and v.max() == 1440 and list(v[:3]) == [0, 60, 120]


def test_influx_trapezoid_umbra_and_faces(tmp_path):
    s, b = _build(mission(tmp_path), 5, tmp_path)
    t = (b.times - T0) // MIN
    # sa 0, sx 60, sy 90, sz 120: cos 1, 0.5, 0, -0.5 → panel c, +x c/2, -x 0, +z 0, -z c/2
    row = t == 15
    assert _col(b, "influx_panel")[row][0] == pytest.approx(600 * 5)
    assert _col(b, "influx_px")[row][0] == pytest.approx(300 * 5)
    assert _col(b, "influx_mx")[row][0] == 0 and _col(b, "influx_pz")[row][0] == 0
    assert _col(b, "influx_mz")[row][0] == pytest.approx(300 * 5, abs=1e-3)
    # umbra 30:00-45:00 (samples at whole minutes: U = 0 from 30 to 44 inclusive)
    assert _col(b, "influx_panel")[t == 35][0] == 0
    # the trapezoid between the samples at 29 (U = 1) and 30 (U = 0) counts half a minute
    assert _col(b, "influx_panel")[t == 25][0] == pytest.approx(600 * 4.5)
    assert _col(b, "influx_panel")[t == 40][0] == pytest.approx(600 * 0.5, rel=1e-9)
    # the past-interval sums exclude the current interval (H = 1 is the previous one)
    past = _col(b, "influx_panel_past5min")
    cur = _col(b, "influx_panel")
    assert past[t == 20][0] == pytest.approx(cur[t == 15][0])
    assert np.isnan(past[0])                        # nothing before the first interval


def test_saaf_gap_over_ten_minutes_leaves_influx_missing(tmp_path):
    raw = mission(tmp_path, saaf_gap=[(21, 33)], minutes=90)      # 20:00 → 33:00: 13 min
    s, b = _build(raw, 5, tmp_path)
    t = (b.times - T0) // MIN
    e = _col(b, "influx_panel")
    assert np.isnan(e[(t >= 20) & (t < 35)]).all()
    assert np.isfinite(e[(t == 15) | (t == 35)]).all()
    raw2 = mission(tmp_path / "b", saaf_gap=[(21, 29)], minutes=90)   # 8 minutes: bridged
    s, b = _build(raw2, 5, tmp_path / "b")
    assert np.isfinite(_col(b, "influx_panel")).sum() == len(b.times) - 1   # only the first


def test_power_gaps_drop_or_interpolate(tmp_path):
    raw = mission(tmp_path, power_gap=[(20, 35), (60, 65)], minutes=100)
    s, b = _build(raw, 1, tmp_path)
    t = (b.times - T0) // MIN
    assert not np.isin(np.arange(20, 35), t).any()           # a 16-minute gap: dropped
    assert np.isin(np.arange(60, 65), t).all()               # 6 minutes: interpolated
    y = b.dataset.Y[:, 0]
    assert y[t == 62][0] == pytest.approx(0.625, abs=1e-6)   # midpoint 62.5 between 59 and 65
    assert s.interpolated == 5 and s.dropped == 15
    s, b = _build(raw, 15, tmp_path)                         # 15-min intervals
    t = (b.times - T0) // MIN
    # 15-30 overlaps the 16-min gap (19:00-35:00) by 15 min > 10: dropped; 30-45 by 5: kept
    assert 15 not in t and 30 in t and 0 in t
    assert b.dataset.Y[t == 0, 0][0] == pytest.approx(np.mean(np.arange(15) / 100))


def test_overlapping_ftl_events_count_once(tmp_path):
    raw = mission(tmp_path, ftl=[f'{T0},{T0 + 10 * MIN},"NADIR","FALSE"',
                                 f'{T0 + 5 * MIN},{T0 + 12 * MIN},"NADIR","TRUE"',
                                 f'{T0 + 6 * MIN},{T0 + 8 * MIN},"SLEW","FALSE"'])
    s, b = _build(raw, 10, tmp_path)
    t = (b.times - T0) // MIN
    assert _col(b, "ftl_NADIR")[t == 0][0] == 1.0           # union, not 1.5
    assert _col(b, "ftl_NADIR")[t == 10][0] == pytest.approx(0.2)
    assert _col(b, "ftl_SLEW")[t == 0][0] == pytest.approx(0.2)
    assert _col(b, "ftl_flagcomms")[t == 0][0] == pytest.approx(0.5)


def test_history_windows_follow_table3():
    assert B.history(1) == (4, 16, 32, 64, 128)
    assert B.history(15) == (1, 2, 3, 4, 9) and B.history(60) == (1, 2, 3)
    assert B.history(15, "8b") == (1, 2, 4, 6, 8)
    assert B.history(2) == (2, 8, 16, 32, 64)
    assert 7 + 7 * len(B.history(60)) == 28


def test_parquet_and_arff_hold_the_same_rows(tmp_path):
    pytest.importorskip("pyarrow")
    raw = mission(tmp_path)
    B.build(raw, 5, tmp_path / "a.arff", features="all")
    B.build(raw, 5, tmp_path / "a.parquet", features="all")
    a, p = B.read_built(tmp_path / "a.arff"), B.read_built(tmp_path / "a.parquet")
    assert (a.times == p.times).all() and a.meta == p.meta
    np.testing.assert_array_equal(a.dataset.X, p.dataset.X)     # the same numbers
    np.testing.assert_array_equal(a.dataset.Y, p.dataset.Y)


def test_arff_output_is_read_by_frcli_rank(tmp_path, capsys):
    raw = mission(tmp_path)
    out = tmp_path / "m.arff"
    assert main(["mex", "build", str(raw), "--dt", "5", "--output", str(out)]) == 0
    assert main(["rank", str(out), "--targets", "last:2", "--method", "genie3-rf",
                 "-p", "trees=3"]) == 0
    assert "ignoring 1 string/date attribute(s): time" in capsys.readouterr().err


def test_bad_output_and_dt(tmp_path, capsys):
    raw = mission(tmp_path)
    assert "write .arff or .parquet" in _exit2(
        capsys, ["mex", "build", str(raw), "--output", str(tmp_path / "x.csv")])
    assert "--dt" in _exit2(capsys, ["mex", "build", str(raw), "--dt", "0",
                                     "--output", str(tmp_path / "x.arff")])


# -- the writer --------------------------------------------------------------------------------
def test_fixed_point_rows_round_trip():
    import io

    import pandas as pd

    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 6)) * np.array([1e-3, 1, 1e3, 1e5, 1, 1])
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 4] = np.round(X[:, 4])
    text = matrix_rows([Col(np.arange(500) + T0)], X, [6, 6, 4, 2, 0, 3], nan=b"?").decode()
    back = pd.read_csv(io.StringIO(text), header=None, na_values="?").to_numpy()
    want = np.column_stack([np.arange(500) + T0, *(np.round(X[:, j], d) for j, d in
                                                   enumerate([6, 6, 4, 2, 0, 3]))])
    np.testing.assert_allclose(back, want, rtol=0, atol=1e-9, equal_nan=True)
    assert rows([Col(np.array([-0.0000004, 2.5]), 6), Col(text=np.array([b"A", b""]), quote=True)],
                ) == b'0,"A"\n2.5,""\n'
