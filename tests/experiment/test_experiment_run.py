"""End to end: `frcli experiment` killed with SIGKILL and resumed gives the uninterrupted table;
results do not depend on --jobs or on running through dask."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from frcli.experiment.config import parse_config
from frcli.experiment.executor import run_experiment
from frcli.results.store import tidy_frame

REPO = Path(__file__).resolve().parents[2]
KEY_COLS = ["dataset", "split", "labeled", "method", "params", "measure", "value"]

SLOW_RANKER = '''
import sys, time
import numpy as np
from frcli.data.dataset import TASKS
from frcli.rankers import registry
from frcli.rankers.base import Param, Ranker, Ranking, parse_float


class Slow(Ranker):
    """Random importances after a pause, so the experiment can be killed mid-way."""
    tasks = TASKS
    params = (Param("delay", parse_float, 0.05),)

    def rank_one(self, ds, params, *, seed, jobs):
        time.sleep(params["delay"])
        imp = np.random.default_rng(seed).random(ds.n_features)
        return Ranking(self.method, ds.feature_names, imp, dict(params))


registry.register("slow", "slowrun:Slow")

if __name__ == "__main__":
    from frcli.cli import main
    sys.exit(main(sys.argv[1:]))
'''

CONFIG = """
name: kill
datasets: [synth-mtr]
protocol: {type: holdout, repeats: 8, seed: 3}
rankers:
  - uniform
  - {method: slow, params: {delay: [0.08, 0.09]}}
evaluation: {knn: 5}
"""


def _cli(tmp_path: Path, *args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}"}
    return subprocess.Popen([sys.executable, str(tmp_path / "slowrun.py"), *args], cwd=REPO,
                            env=env, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)


def _count(db: Path) -> int:
    if not db.is_file():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def test_sigkill_then_resume_gives_the_uninterrupted_table(tmp_path):
    (tmp_path / "slowrun.py").write_text(SLOW_RANKER)
    (tmp_path / "kill.yaml").write_text(CONFIG)
    total = 8 * 3
    # reference: uninterrupted
    ref = _cli(tmp_path, "experiment", str(tmp_path / "kill.yaml"), "--output",
               str(tmp_path / "ref"))
    out, err = ref.communicate(timeout=240)
    assert ref.returncode == 0, err.decode()
    # interrupted: SIGKILL once some runs are stored
    db = tmp_path / "res" / "kill" / "results.sqlite"
    p = _cli(tmp_path, "experiment", str(tmp_path / "kill.yaml"), "--output",
             str(tmp_path / "res"))
    deadline = time.time() + 120
    while _count(db) < 5 and time.time() < deadline and p.poll() is None:
        time.sleep(0.01)
    os.killpg(p.pid, signal.SIGKILL)
    p.communicate(timeout=30)
    n_killed = _count(db)
    assert 0 < n_killed < total, n_killed
    # resume
    r = _cli(tmp_path, "experiment", str(tmp_path / "kill.yaml"), "--output",
             str(tmp_path / "res"))
    out, err = r.communicate(timeout=240)
    assert r.returncode == 0, err.decode()
    assert _count(db) == total
    a = tidy_frame(tmp_path / "ref" / "kill")[KEY_COLS]
    b = tidy_frame(tmp_path / "res" / "kill")[KEY_COLS]
    assert len(a) == total
    assert a.equals(b)
    # export: CSV to stdout, same table
    e = _cli(tmp_path, "results", "export", str(tmp_path / "res" / "kill"))
    out, err = e.communicate(timeout=60)
    assert e.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[0] == ",".join(["dataset", "split", "labeled", "method", "params", "measure",
                                 "value", "rank_time_s", "eval_time_s"])
    assert len(lines) == total + 1


def _config(tmp_path, name):
    return parse_config({
        "name": name, "output": str(tmp_path), "datasets": ["synth-mtr", "synth-mlc"],
        "protocol": {"type": "holdout", "repeats": 2, "seed": 1},
        "rankers": ["uniform", "random"], "evaluation": {"knn": 5}}, "c.yaml", tmp_path)


def test_results_do_not_depend_on_jobs(tmp_path):
    s1 = run_experiment(_config(tmp_path, "j1"), jobs=1, progress=False)
    s2 = run_experiment(_config(tmp_path, "j2"), jobs=2, progress=False)
    a, b = tidy_frame(s1.directory)[KEY_COLS], tidy_frame(s2.directory)[KEY_COLS]
    assert len(a) > 0 and a.equals(b)
    assert {"pooled_auprc", "rrmse", "hamming_loss"} <= set(a["measure"])


def test_dask_local_cluster(tmp_path):
    pytest.importorskip("dask.distributed")
    s1 = run_experiment(_config(tmp_path, "local"), jobs=1, progress=False)
    s2 = run_experiment(_config(tmp_path, "dask"), jobs=2, dask="local", progress=False)
    assert s2.computed == s2.tasks == 8 and not s2.failures
    assert tidy_frame(s1.directory)[KEY_COLS].equals(tidy_frame(s2.directory)[KEY_COLS])


def test_cli_errors_are_one_line(tmp_path):
    from frcli.cli import main

    p = tmp_path / "bad.yaml"
    p.write_text(textwrap.dedent("""
        name: bad
        datasets: [synth-mtr]
        rankers: [uniform]
        evaluaton: {knn: 5}
    """))
    assert main(["experiment", str(p)]) == 2


@pytest.mark.parametrize("ranker, words", [
    ({"method": "relief", "params": {"distance": "f1"}}, ["'distance'", "task mtr"]),
    ({"method": "relief-str", "params": {"w0": [0.5, 0.75]}}, ["'w0'", "hmlc"]),
    ({"method": "rf-et", "params": {"trees": 2, "bootstrap": False}}, ["out-of-bag"]),
])
def test_params_that_do_not_fit_a_data_set_fail_before_the_store_exists(tmp_path, ranker,
                                                                       words):
    """The pre-run check calls Ranker.validate per (data set, ranker): one error naming the
    entries, no store, no task run (was: an empty store and every task failing)."""
    from frcli.errors import ConfigError

    cfg = parse_config({"name": "bad", "output": str(tmp_path / "out"),
                        "datasets": ["synth-mtr"], "protocol": {"repeats": 2},
                        "rankers": ["uniform", ranker]}, "c.yaml", tmp_path)
    with pytest.raises(ConfigError) as e:
        run_experiment(cfg, progress=False)
    msg = str(e.value)
    for w in ["c.yaml", "rankers[1]", "datasets[0] (synth-mtr)", *words]:
        assert w in msg, msg
    assert not (tmp_path / "out").exists()
