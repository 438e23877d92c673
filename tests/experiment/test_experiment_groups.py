"""With --jobs > 1 the rankers that share a forest (Symbolic, Genie3, RF score of one ensemble
on one split, plain or -str) run in one worker, so the forest is grown once per split."""
from __future__ import annotations

import json
import sqlite3

from frcli.experiment.config import parse_config
from frcli.experiment.executor import run_experiment

CONFIG = {
    "name": "groups",
    "datasets": ["synth-mtr"],
    "protocol": {"type": "holdout", "repeats": 3, "seed": 1},
    "rankers": ["uniform",
                {"method": "symbolic-rf", "params": {"trees": 8}},
                {"method": "genie3-rf", "params": {"trees": 8}},
                {"method": "rf-rf", "params": {"trees": 8}},
                {"method": "genie3-bagging-str", "params": {"trees": 4}},
                {"method": "symbolic-bagging-str", "params": {"trees": 4}}],
    "evaluation": {"knn": 5, "measures": ["rrmse"]},
}


def _reused(folder) -> dict[str, list[bool]]:
    con = sqlite3.connect(str(folder / "results.sqlite"))
    out: dict[str, list[bool]] = {}
    for method, meta in con.execute("SELECT r.method, g.meta FROM runs r JOIN rankings g "
                                    "USING (run_id) ORDER BY r.split, r.method"):
        m = json.loads(meta)
        flags = [bool(x.get("forest_reused")) for x in m.get("per_target_meta", [m])]
        out.setdefault(method, []).append(all(flags))
    con.close()
    return out


def test_forest_is_grown_once_per_split_with_two_workers(tmp_path):
    cfg = parse_config(CONFIG, "groups.yaml")
    s = run_experiment(cfg, jobs=2, output=tmp_path, progress=False)
    assert not s.failures
    reused = _reused(tmp_path / "groups")
    assert reused["rf-rf"] == [False] * 3                 # planned first: grows it
    assert reused["genie3-rf"] == [True] * 3 and reused["symbolic-rf"] == [True] * 3
    # -str: one forest per target, shared by the second score
    assert sorted(reused["genie3-bagging-str"] + reused["symbolic-bagging-str"]) == \
        [False] * 3 + [True] * 3
