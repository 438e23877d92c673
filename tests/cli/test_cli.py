"""The command line: fast start, `frcli rank` formats, and one-line user errors (exit 2)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from frcli.cli import main

ARFF = textwrap.dedent("""\
    % a tiny MTR set
    @relation tiny
    @attribute a numeric
    @attribute 'b c' {x, 'y z'}
    @attribute noise numeric
    @attribute t1 numeric
    @attribute t2 numeric
    @data
    1, x, 0.3, 1.0, 2.0
    2, 'y z', 0.1, 2.0, 4.1
    3, x, 0.9, 3.0, 6.2
    4, 'y z', 0.5, 4.0, 7.9
    5, x, ?, 5.0, 10.1
    """)


@pytest.fixture()
def tiny(tmp_path):
    p = tmp_path / "tiny.arff"
    p.write_text(ARFF)
    return p


def test_startup_does_not_import_heavy_libraries():
    code = ("import sys, frcli.cli; heavy = [m for m in ('pandas', 'matplotlib', 'scipy', "
            "'sklearn', 'dask') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported at start-up: {out.stdout}"


@pytest.mark.parametrize("args", [["--help"], ["rank", "{tiny}", "--targets", "last:2",
                                               "--method", "uniform"]])
def test_help_and_rank_uniform_import_no_heavy_library(tiny, args):
    """``-X importtime`` lists every module imported by the real entry point."""
    args = [a.replace("{tiny}", str(tiny)) for a in args]
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "frcli.cli", *args],
                         capture_output=True, text=True, check=True)
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0]
                for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert not imported & {"pandas", "matplotlib", "scipy", "sklearn", "dask"}, \
        sorted(imported & {"pandas", "matplotlib", "scipy", "sklearn", "dask"})


def test_help_lists_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for cmd in ("rank", "datasets", "experiment", "stats", "results"):
        assert cmd in out


def test_rank_uniform_formats(tiny, tmp_path, capsys):
    assert main(["rank", str(tiny), "--targets", "last:2", "--method", "uniform"]) == 0
    assert "importance" in capsys.readouterr().out
    out_csv = tmp_path / "r.csv"
    assert main(["rank", str(tiny), "--targets", "last:2", "-o", str(out_csv)]) == 0
    lines = out_csv.read_text().splitlines()
    assert lines[0] == "feature,importance,rank"
    assert sorted(line.split(",")[0] for line in lines[1:]) == ["a", "b c", "noise"]
    assert main(["rank", str(tiny), "--targets", "last:2", "--format", "json",
                 "--method", "random", "--seed", "5"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "random" and len(doc["features"]) == 3
    assert main(["rank", str(tiny), "--targets", "last:2", "--format", "fimp"]) == 0
    assert "attributeDatasetIndex" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["rank", "nope.arff"], "no such file"),
    (["rank", "{tiny}", "--targets", "last:2", "--method", "zzz"], "unknown method 'zzz'"),
    (["rank", "{tiny}", "--targets", "last:2", "--param", "trees"], "key=value"),
    (["rank", "{tiny}", "--targets", "last:2", "--param", "foo=1"], "unknown parameter 'foo'"),
    (["rank", "{tiny}", "--targets", "last:2", "--format", "xml"], "unknown format"),
    (["rank", "{tiny}", "--targets", "zz"], "zz"),
    (["rank", "{tiny}", "--targets", "last:2", "--which", "7"], "out of range"),
])
def test_user_errors_are_one_line_exit_2(tiny, capsys, args, message):
    args = [a.replace("{tiny}", str(tiny)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_malformed_arff_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.arff"
    bad.write_text(ARFF.replace("3, x, 0.9, 3.0, 6.2", "3, x, 0.9, 3.0"))
    assert main(["rank", str(bad), "--targets", "last:2"]) == 2
    err = capsys.readouterr().err
    assert "bad.arff:11:" in err and "expected 5" in err


def test_console_script_exit_code(tmp_path):
    out = subprocess.run([sys.executable, "-m", "frcli.cli", "rank", str(tmp_path / "x.arff")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "no such file" in out.stderr
