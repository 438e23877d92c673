"""The result store under concurrent writers, damage, read-only folders and killed clients:
one writer at a time (a second exits 2 naming the first's pid), damage is
detected on opening and never overwritten without --force, read-only folders can be read and
say "read-only" when written, and worker processes die with their parent."""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from frcli.cli import main
from frcli.results.store import LOCK_NAME, Store

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "datasets" / "synthetic" / "synth-mtr.arff"


def _cfg(tmp_path: Path, repeats: int = 3, rankers=("uniform", "random")) -> Path:
    doc = {"name": "x", "output": str(tmp_path / "out"),
           "datasets": [{"name": "m", "path": str(DATA), "targets": "last:3"}],
           "protocol": {"type": "holdout", "repeats": repeats, "seed": 0},
           "rankers": list(rankers), "evaluation": {"knn": 5}}
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def _err(capsys) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def _one_error(capsys, rc: int) -> str:
    err = _err(capsys)
    assert rc == 2, err
    assert len([e for e in err if e.startswith("error: ")]) == 1 and err[-1].startswith(
        "error: "), err
    assert "Traceback" not in "\n".join(err)
    return err[-1]


def _runs(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    finally:
        con.close()


# -- one writer --------------------------------------------------------------------------------

def test_second_writer_exits_2_naming_the_holder(tmp_path, capsys):
    cfg = _cfg(tmp_path)
    folder = tmp_path / "out" / "x"
    with Store(folder):                        # a writer holds the folder
        line = _one_error(capsys, main(["experiment", str(cfg), "--no-progress"]))
        assert f"pid {os.getpid()}" in line and "in use" in line and str(folder) in line
        # readers are not blocked by the writer
        assert main(["results", "export", str(folder)]) == 0
    assert main(["experiment", str(cfg), "--no-progress"]) == 0
    assert _runs(folder / "results.sqlite") == 6


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / LOCK_NAME).write_text(f"{dead.pid}\n")
    with Store(folder):
        assert (folder / LOCK_NAME).read_text().strip() == str(os.getpid())
    assert (folder / LOCK_NAME).read_text() == ""      # released


SLOW = '''
import os, sys, time
import numpy as np
from frcli.data.dataset import TASKS
from frcli.rankers import registry
from frcli.rankers.base import Param, Ranker, Ranking, parse_float


class Slow(Ranker):
    tasks = TASKS
    params = (Param("delay", parse_float, 0.05),)

    def rank_one(self, ds, params, *, seed, jobs):
        gate = os.environ.get("SLOW_GATE")        # wait until the test opens the gate
        deadline = time.time() + 60
        while gate and not os.path.exists(gate) and time.time() < deadline:
            time.sleep(0.02)
        time.sleep(params["delay"])
        return Ranking(self.method, ds.feature_names,
                       np.random.default_rng(seed).random(ds.n_features), dict(params))


registry.register("slow", "slowrun:Slow")

if __name__ == "__main__":
    from frcli.cli import main
    sys.exit(main(sys.argv[1:]))
'''


def _slow_cli(tmp_path: Path, *args: str, gate: Path | None = None) -> subprocess.Popen:
    (tmp_path / "slowrun.py").write_text(SLOW)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), str(REPO), os.environ.get("PYTHONPATH", "")])}
    if gate is not None:
        env["SLOW_GATE"] = str(gate)
    return subprocess.Popen([sys.executable, str(tmp_path / "slowrun.py"), *args],
                            cwd=tmp_path, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_concurrent_experiments_compute_once(tmp_path):
    """Two clients on one output: the second exits 2 at once naming the first's pid; the
    first stores each run once."""
    cfg = _cfg(tmp_path, repeats=6, rankers=[{"method": "slow", "params": {"delay": 0.01}}])
    lock = tmp_path / "out" / "x" / LOCK_NAME
    gate = tmp_path / "gate"                   # A's ranker waits until B has finished
    a = _slow_cli(tmp_path, "experiment", str(cfg), "--no-progress", gate=gate)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and a.poll() is None and not (
                lock.is_file() and lock.read_text().strip()):
            time.sleep(0.02)
        b = _slow_cli(tmp_path, "experiment", str(cfg), "--no-progress")
        out_b, err_b = b.communicate(timeout=60)
        gate.touch()
        out_a, err_a = a.communicate(timeout=120)
    finally:
        for p in (a,):
            if p.poll() is None:
                p.kill()
    assert b.returncode == 2, err_b
    assert f"pid {a.pid}" in err_b and "Traceback" not in err_b
    assert err_b.strip().count("\n") == 0
    assert a.returncode == 0, err_a
    assert _runs(tmp_path / "out" / "x" / "results.sqlite") == 6


# -- damage ------------------------------------------------------------------------------------

def test_zero_byte_store_is_damage_not_a_new_store(tmp_path, capsys):
    cfg = _cfg(tmp_path)
    folder = tmp_path / "out" / "x"
    db = folder / "results.sqlite"
    assert main(["experiment", str(cfg), "--no-progress"]) == 0
    db.write_bytes(b"")
    for f in folder.glob("results.sqlite-*"):
        f.unlink()
    capsys.readouterr()
    assert "empty" in _one_error(capsys, main(["results", "export", str(folder)]))
    line = _one_error(capsys, main(["experiment", str(cfg), "--no-progress"]))
    assert "empty" in line and "--force" in line
    assert db.stat().st_size == 0                      # nothing overwritten
    assert main(["experiment", str(cfg), "--no-progress", "--force"]) == 0
    err = "\n".join(_err(capsys))
    assert "warning:" in err and "damaged-" in err
    kept = list(folder.glob("results.sqlite.damaged-*"))
    assert len(kept) == 1 and kept[0].stat().st_size == 0
    assert _runs(db) == 6


def test_garbage_in_the_middle_is_detected_and_kept(tmp_path, capsys):
    cfg = _cfg(tmp_path, repeats=10)
    folder = tmp_path / "out" / "x"
    db = folder / "results.sqlite"
    assert main(["experiment", str(cfg), "--no-progress"]) == 0
    size = db.stat().st_size
    with open(db, "r+b") as fh:                        # 32 KB of garbage after page 1
        fh.seek(min(4096, size // 2))
        fh.write(os.urandom(32 * 1024))
    before = db.read_bytes()
    capsys.readouterr()
    for args in (["results", "export", str(folder)], ["experiment", str(cfg), "--no-progress"],
                 ["stats", str(folder)]):
        line = _one_error(capsys, main(args))
        assert "results.sqlite" in line and ("damaged" in line or "not a" in line), line
    assert db.read_bytes() == before


def test_not_sqlite_and_foreign_database_are_refused(tmp_path, capsys):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "results.sqlite").write_text("not sqlite at all, but long enough " * 9)
    (tmp_path / "f").mkdir()
    con = sqlite3.connect(tmp_path / "f" / "results.sqlite")
    con.execute("CREATE TABLE x (a)")
    con.close()
    for d, part in (("g", "not an SQLite database"), ("f", "no frcli result tables")):
        before = (tmp_path / d / "results.sqlite").read_bytes()
        assert part in _one_error(capsys, main(["results", "export", str(tmp_path / d)]))
        with pytest.raises(Exception, match=part):
            Store(tmp_path / d)
        assert (tmp_path / d / "results.sqlite").read_bytes() == before


# -- read-only folders -------------------------------------------------------------------------

def _run_read_only(folder: Path, args: list[str]) -> subprocess.CompletedProcess:
    """``frcli ARGS`` with ``folder`` read-only: a read-only bind mount in a private user and
    mount namespace (works as root, where permission bits do not bind), else chmod."""
    code = f"import sys; from frcli.cli import main; sys.exit(main({args!r}))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rm", "true"], capture_output=True).returncode == 0:
        script = (f"mount --bind '{folder}' '{folder}' && mount -o remount,ro,bind '{folder}' "
                  f"'{folder}' && exec '{sys.executable}' -c \"{code}\"")
        return subprocess.run([unshare, "-rm", "sh", "-c", script], capture_output=True,
                              text=True, env=env, timeout=120)
    if os.geteuid() == 0:
        pytest.skip("cannot make a read-only folder (root, and no unshare)")
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    try:
        for p in modes:
            p.chmod(modes[p] & ~0o222)
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=120)
    finally:
        for p, m in modes.items():
            p.chmod(m)


def test_read_only_folder_is_read_and_refuses_writing_clearly(tmp_path, capsys):
    cfg = _cfg(tmp_path)
    folder = tmp_path / "out" / "x"
    assert main(["experiment", str(cfg), "--no-progress"]) == 0
    capsys.readouterr()
    exp = _run_read_only(folder, ["results", "export", str(folder)])
    assert exp.returncode == 0, exp.stderr
    assert len(exp.stdout.splitlines()) > 6
    res = _run_read_only(folder, ["experiment", str(cfg), "--no-progress", "--force"])
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "read-only" in lines[0] and "Traceback" not in res.stderr
    assert _runs(folder / "results.sqlite") == 6


# -- processes ---------------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_their_parent(tmp_path, sig):
    """``kill`` / SIGKILL of ``frcli experiment --jobs 2``: its workers and the pool's
    resource tracker end too (they used to live on, reparented to init)."""
    cfg = _cfg(tmp_path, repeats=6, rankers=[{"method": "slow", "params": {"delay": 5.0}}])
    p = _slow_cli(tmp_path, "experiment", str(cfg), "--no-progress", "--jobs", "2")
    kids: list[int] = []
    try:
        deadline = time.time() + 60
        while time.time() < deadline and p.poll() is None:
            kids = _children(p.pid)
            if len(kids) >= 3:                 # two workers and the resource tracker
                break
            time.sleep(0.05)
        assert len(kids) >= 3, kids
        time.sleep(0.5)                        # let the workers reach their tasks
        os.kill(p.pid, sig)
        p.communicate(timeout=30)
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.1)
        assert not [k for k in kids if _alive(k)]
    finally:
        for k in [p.pid, *kids]:
            if _alive(k):
                os.kill(k, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_ends_at_once_in_one_line_and_keeps_finished_runs(tmp_path):
    """``kill PID`` (SIGTERM) of ``frcli experiment --jobs 2`` while both workers are busy
    with long tasks: exit 143 within seconds (not after the running tasks), one line on
    stderr (no resource-tracker "leaked semaphore" warnings), workers gone, the finished
    runs stored and readable."""
    cfg = _cfg(tmp_path, repeats=4, rankers=["uniform",
                                             {"method": "slow", "params": {"delay": 120.0}}])
    db = tmp_path / "out" / "x" / "results.sqlite"
    p = _slow_cli(tmp_path, "experiment", str(cfg), "--no-progress", "--jobs", "2")
    kids: list[int] = []
    try:
        deadline = time.time() + 240              # spawned workers import slowly under load
        stored = 0
        while time.time() < deadline and p.poll() is None:
            kids = [k for k in _children(p.pid) if k not in kids] + kids
            try:
                stored = _runs(db) if db.is_file() else 0
            except sqlite3.Error:
                stored = 0
            if stored >= 2:                    # the fast runs are in; both workers sleep
                break
            time.sleep(0.1)
        if p.poll() is not None or stored < 2:
            pytest.fail(f"never saw 2 stored runs with the command alive: stored={stored}, "
                        f"rc={p.poll()}, stderr={p.communicate(timeout=60)[1][-2000:]}")
        t0 = time.time()
        os.kill(p.pid, signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        assert time.time() - t0 < 30, err
        assert p.returncode == 143, err
        assert err.strip().splitlines() == ["terminated"], err
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.1)
        assert not [k for k in kids if _alive(k)]
        assert _runs(db) >= 2
    finally:
        for k in [p.pid, *kids]:
            if _alive(k):
                os.kill(k, signal.SIGKILL)
