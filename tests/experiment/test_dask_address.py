"""`--dask-scheduler ADDRESS`: an experiment sent to a running cluster of separate worker
processes stores what one process stores, importances included, bit for bit (the other dask
tests start their own cluster with `--dask-scheduler local` and compare the scores)."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.experiment.config import parse_config
from frcli.experiment.executor import run_experiment
from frcli.results.store import Store


def _config(tmp_path, name):
    return parse_config({
        "name": name, "output": str(tmp_path), "datasets": ["synth-mtr", "synth-mlc"],
        "protocol": {"type": "holdout", "repeats": 2, "seed": 3},
        "rankers": ["uniform", {"method": "genie3-rf", "params": {"trees": 8}},
                    {"method": "symbolic-bagging-str", "params": {"trees": 4}},
                    {"method": "relief", "params": {"neighbours": [3, 7]}}],
        "evaluation": {"knn": 5}}, "c.yaml", tmp_path)


def _contents(directory):
    """Run key → (run hash, scores, importances) of a store."""
    with Store(directory, create=False) as st:
        scores: dict = {}
        for row in st.tidy():
            scores.setdefault(tuple(row[:5]), []).append((row[5], row[6]))
        out = {}
        for key, h in st.finished().items():
            got = st.ranking(key)
            imp = None if got is None else np.asarray(got[1]).tobytes()
            out[key] = (h, scores[key], imp)
    return out


def test_a_cluster_address_stores_what_one_process_stores(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    local = run_experiment(_config(tmp_path, "local"), jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            client.wait_for_workers(2)
            with distributed.get_task_stream(client) as stream:
                remote = run_experiment(_config(tmp_path, "remote"), jobs=1,
                                        dask=cluster.scheduler_address, progress=False)
    # every task ran on the cluster (a forest group is one call), on both workers
    assert len(stream.data) >= 8 and len({t["worker"] for t in stream.data}) == 2
    assert remote.computed == remote.tasks and not remote.failures
    a, b = _contents(local.directory), _contents(remote.directory)
    assert len(a) == local.runs_written > 0
    assert sum(v[2] is not None for v in a.values()) > 0       # importances are compared
    assert a == b
