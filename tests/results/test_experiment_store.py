"""Result store: atomic runs, resumability, detection of changed definitions."""
from __future__ import annotations

import numpy as np
import pytest

from frcli.errors import ConfigError
from frcli.experiment.config import parse_config
from frcli.experiment.executor import run_experiment
from frcli.results.store import Store, tidy_frame



def synthetic_mtr_config(tmp_path, repeats=2):
    """Two rankers on the bundled synthetic MTR set (300 rows)."""
    return {"name": "t", "output": str(tmp_path / "results"), "datasets": ["synth-mtr"],
            "protocol": {"type": "holdout", "repeats": repeats, "seed": 0},
            "rankers": ["uniform", "random"], "evaluation": {"knn": 5}}


def test_put_run_roundtrip_and_replace(tmp_path):
    with Store(tmp_path) as st:
        key = ("d", 0, 0, "uniform", "{}")
        st.put_run(key, run_hash="h1", definition={}, seed=1, n_train=2, n_test=1,
                   rank_time_s=0.1, eval_time_s=0.2, scores={"rrmse": 0.5},
                   importances=np.array([1.0, 2.0]))
        st.put_run(key, run_hash="h2", definition={}, seed=1, n_train=2, n_test=1,
                   rank_time_s=0.1, eval_time_s=0.2, scores={"rrmse": 0.25, "x": np.nan},
                   importances=np.array([3.0, 4.0]))
        assert st.finished() == {key: "h2"}
        assert [r[5:7] for r in st.tidy()] == [("rrmse", 0.25), ("x", None)]
        np.testing.assert_array_equal(st.ranking(key)[1], [3.0, 4.0])


def test_failed_transaction_leaves_nothing(tmp_path):
    with Store(tmp_path) as st:
        with pytest.raises(Exception):
            st.put_run(("d", 0, 0, "m", "{}"), run_hash="h", definition={}, seed=1, n_train=1,
                       n_test=1, rank_time_s=0, eval_time_s=0, scores={"a": 1.0},
                       importances=np.array([1.0]), per_target="not an array")
        assert st.finished() == {}
        assert st.conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 0


def test_resume_skips_and_force_recomputes(tmp_path):
    doc = synthetic_mtr_config(tmp_path, repeats=2)
    cfg = parse_config(doc, "c.yaml", tmp_path)
    s1 = run_experiment(cfg, progress=False)
    assert s1.computed == s1.tasks == 4 and s1.runs_written == 4
    first = tidy_frame(s1.directory)
    s2 = run_experiment(cfg, progress=False)
    assert s2.computed == 0 and s2.skipped == 4 and s2.runs_written == 0
    s3 = run_experiment(cfg, progress=False, force=True)
    assert s3.computed == 4 and s3.runs_written == 4
    again = tidy_frame(s3.directory)
    cols = ["dataset", "split", "labeled", "method", "params", "measure", "value"]
    assert first[cols].equals(again[cols])
    assert (s1.directory / "config.yaml").is_file()


def test_changed_definition_is_reported(tmp_path):
    doc = synthetic_mtr_config(tmp_path, repeats=1)
    run_experiment(parse_config(doc, "c.yaml", tmp_path), progress=False)
    doc["evaluation"] = {"knn": 3}
    with pytest.raises(ConfigError, match="different definition.*evaluation changed"):
        run_experiment(parse_config(doc, "c.yaml", tmp_path), progress=False)
    # adding a ranker or a split is not a conflict: only the new runs are computed
    doc["evaluation"] = {"knn": 5}
    doc["protocol"]["repeats"] = 2
    s = run_experiment(parse_config(doc, "c.yaml", tmp_path), progress=False)
    assert s.computed == 2 and s.skipped == 2
    # a removed ranker's runs stay stored but are not exported with the new config
    doc["rankers"] = ["uniform"]
    s = run_experiment(parse_config(doc, "c.yaml", tmp_path), progress=False)
    assert s.computed == 0
    assert set(tidy_frame(s.directory)["method"]) == {"uniform"}
    assert set(tidy_frame(s.directory, all_runs=True)["method"]) == {"uniform", "random"}


def _write_arff(path, X, Y):
    lines = ["@relation t"]
    lines += [f"@attribute x{i} numeric" for i in range(X.shape[1])]
    lines += [f"@attribute y{j} numeric" for j in range(Y.shape[1])]
    lines.append("@data")
    lines += [",".join(f"{v:.6g}" for v in row) for row in np.hstack([X, Y])]
    path.write_text("\n".join(lines) + "\n")


def test_given_split_cv_thinning_and_export(tmp_path):
    from frcli.cli import main

    rng = np.random.default_rng(0)
    X = rng.random((90, 4))
    Y = np.stack([X[:, 0] + 0.1 * rng.random(90), X[:, 1] * 2], axis=1)
    _write_arff(tmp_path / "tr.arff", X[:60], Y[:60])
    _write_arff(tmp_path / "te.arff", X[60:], Y[60:])
    entry = {"name": "toy", "path": "tr.arff", "test": "te.arff", "task": "mtr",
             "targets": "last:2"}
    doc = {"name": "given", "output": str(tmp_path / "res"), "datasets": [entry],
           "protocol": {"type": "given"}, "rankers": ["uniform", "random"]}
    s = run_experiment(parse_config(doc, "c.yaml", tmp_path), progress=False)
    assert s.computed == 2 and not s.failures
    with Store(s.directory) as st:
        row = st.conn.execute("SELECT n_train, n_test FROM runs").fetchone()
    assert tuple(row) == (60, 30)
    # cv with nested label thinning and supervised counterparts
    doc = {"name": "ssl", "output": str(tmp_path / "res"), "datasets": [dict(entry, test=None)],
           "protocol": {"type": "cv", "folds": 3, "labeled": [10, 20]},
           "rankers": ["random", {"method": "random", "labeled_only": True}],
           "evaluation": {"knn": 3, "variance": "test"}}
    s = run_experiment(parse_config(doc, "c.yaml", tmp_path), progress=False)
    assert s.computed == 3 * 2 * 2 and not s.failures
    df = tidy_frame(s.directory)
    assert sorted(df["labeled"].unique()) == [10, 20]
    assert set(df["params"]) == {"{}", '{"labeled_only":true}'}
    # export to a file, csv and parquet
    out = tmp_path / "t.csv"
    assert main(["results", "export", str(s.directory), "--output", str(out)]) == 0
    import pandas as pd

    back = pd.read_csv(out)
    assert list(back.columns) == ["dataset", "split", "labeled", "method", "params", "measure",
                                  "value", "rank_time_s", "eval_time_s"]
    assert len(back) == len(df)
    pytest.importorskip("pyarrow")
    pq = tmp_path / "t.parquet"
    assert main(["results", "export", str(s.directory), "--output", str(pq)]) == 0
    assert len(pd.read_parquet(pq)) == len(df)
    assert main(["results", "export", str(tmp_path / "nothing")]) == 2
