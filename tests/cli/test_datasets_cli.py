"""`frcli datasets ...` through frcli.cli.main: exit codes and output."""
from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path

import pytest

from frcli.cli import main

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "datasets"
needs_shared = pytest.mark.shared("datasets")   # conftest: skipped, or under CI failed, without it


def test_list(capsys):
    assert main(["datasets", "list", "--group", "synthetic"]) == 0
    out = capsys.readouterr().out
    assert "synth-hmlc" in out and "hmlc (tree)" in out and "7 of 7 available" in out
    assert main(["datasets", "list", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    names = {i["name"] for i in items}
    assert {"atp1d", "bibtex", "cellcycle_GO", "clus-testMTR", "synth-mtr"} <= names
    assert all(i["source"] for i in items)
    assert main(["datasets", "list", "--group", "nope"]) == 2
    assert "unknown group 'nope'; allowed:" in capsys.readouterr().err


def test_info_file_and_name(capsys):
    f = REPO / "datasets" / "synthetic" / "synth-ssl-mtr.arff"
    assert main(["datasets", "info", str(f), "--targets", "13-15"]) == 0
    out = capsys.readouterr().out
    assert "mtr" in out and "unlabelled rows  210" in out and "t1, t2, t3" in out
    assert main(["datasets", "info", "synth-hmlc", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["task"] == "hmlc" and info["hierarchy"]["type"] == "tree"
    assert info["hierarchy"]["depth"] == 3 and info["numeric_features"] == 10
    assert info["label_cardinality"] > 1


def test_info_errors(capsys, tmp_path):
    assert main(["datasets", "info", "no-such-set"]) == 2
    assert "unknown data set 'no-such-set'" in capsys.readouterr().err
    f = REPO / "datasets" / "synthetic" / "synth-mtr.arff"
    assert main(["datasets", "info", str(f), "--targets", "nope"]) == 2
    assert "unknown target attribute 'nope'" in capsys.readouterr().err
    bad = tmp_path / "bad.arff"
    bad.write_text("@relation r\n@attribute a numeric\n@data\nx\n")
    assert main(["datasets", "info", str(bad), "--task", "unsupervised"]) == 2
    assert f"{bad}:4: bad number 'x'" in capsys.readouterr().err
    assert main(["datasets", "info", "synth-mtr", "--targets", "nope"]) == 2  # an override
    assert "unknown target attribute 'nope'" in capsys.readouterr().err
    assert main(["datasets", "info", "synth-mtr", "--targets", "1", "--json"]) == 0
    assert '"task": "regression"' in capsys.readouterr().out
    assert main(["datasets", "info", str(f)]) == 0  # a catalog file: the catalog's targets
    captured = capsys.readouterr()
    assert "mtr" in captured.out and "t1, t2, t3" in captured.out
    assert "is the catalog data set 'synth-mtr'" in captured.err
    csv = tmp_path / "plain.csv"
    csv.write_text("a,b,c\n" + "".join(f"{i},{i % 3},{i * 2}\n" for i in range(30)))
    assert main(["datasets", "info", str(csv)]) == 0  # no targets: described as unsupervised
    captured = capsys.readouterr()
    assert "unsupervised" in captured.out and "features  3 (3 numeric" in captured.out
    assert "no targets given" in captured.err


@needs_shared
def test_info_shared_mlc(capsys):
    assert main(["datasets", "info", "emotions"]) == 0
    out = capsys.readouterr().out
    assert "593 (train 391, test 202)" in out and "label cardinality" in out


def test_make_synthetic(tmp_path, capsys):
    assert main(["datasets", "make-synthetic", "--dest", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("*.arff"))) == 7
    assert (tmp_path / "synth-mlc.arff").read_bytes() == \
        (REPO / "datasets" / "synthetic" / "synth-mlc.arff").read_bytes()


@pytest.fixture
def server():
    handler = functools.partial(_Quiet, directory=str(SHARED))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


@needs_shared
def test_fetch_from_local_mirror(server, tmp_path, capsys):
    dest = tmp_path / "fetched"
    assert main(["datasets", "fetch", "edm", "emotions", "--mirror", server,
                 "--dest", str(dest)]) == 0
    out = capsys.readouterr().out
    assert "4 of 4 files downloaded" in out
    for rel in ("mtr/edm.arff", "mlc/emotions/emotions-train.arff", "mlc/emotions/emotions.xml"):
        assert (dest / rel).read_bytes() == (SHARED / rel).read_bytes()
    assert main(["datasets", "fetch", "edm", "--mirror", server, "--dest", str(dest)]) == 0
    assert "mtr/edm.arff present" in capsys.readouterr().out
    assert not list(dest.rglob("*.part"))


@needs_shared
def test_fetch_errors(server, tmp_path, capsys, monkeypatch):
    assert main(["datasets", "fetch", "edm", "--dest", str(tmp_path)]) == 2
    assert "no mirror" in capsys.readouterr().err
    assert main(["datasets", "fetch"]) == 2
    assert main(["datasets", "fetch", "synth-mtr", "--mirror", server]) == 2
    assert "make-synthetic" in capsys.readouterr().err
    cat = tmp_path / "cat.yaml"
    cat.write_text("roots: [.]\ndatasets:\n  ghost:\n    group: mtr\n    task: mtr\n"
                   "    data: mtr/ghost.arff\n    targets: last:1\n")
    monkeypatch.setenv("FRCLI_CATALOG", str(cat))
    assert main(["datasets", "fetch", "ghost", "--mirror", server,
                 "--dest", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "HTTP 404" in err and "mtr/ghost.arff" in err
    assert not (tmp_path / "d" / "mtr" / "ghost.arff").exists()


@needs_shared
def test_fetch_without_mirror_finds_the_shared_folder(tmp_path, capsys, monkeypatch):
    """`frcli datasets fetch atp1d`, as the README shows it: no mirror is needed for a set
    that a data root already holds; the command says where it is and downloads nothing."""
    monkeypatch.delenv("FRCLI_DATA_MIRROR", raising=False)
    monkeypatch.delenv("FRCLI_DATA_ROOTS", raising=False)
    before = sorted(p for p in (REPO / "datasets").rglob("atp1d*"))
    assert main(["datasets", "fetch", "atp1d"]) == 0
    out = capsys.readouterr().out
    assert "atp1d: mtr/atp1d.arff present in" in out and "shared" in out
    assert "nothing to download" in out
    assert sorted(p for p in (REPO / "datasets").rglob("atp1d*")) == before
    # a set in no root still needs a mirror, and the error names the file
    cat = tmp_path / "cat.yaml"
    cat.write_text("roots: [.]\ndatasets:\n  ghost:\n    group: mtr\n    task: mtr\n"
                   "    data: mtr/ghost.arff\n    targets: last:1\n")
    monkeypatch.setenv("FRCLI_CATALOG", str(cat))
    assert main(["datasets", "fetch", "ghost"]) == 2
    err = capsys.readouterr().err
    assert "no mirror for ghost: mtr/ghost.arff" in err and "--mirror" in err
