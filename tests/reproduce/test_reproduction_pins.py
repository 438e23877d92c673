"""The reproduction configs pin the papers' settings where frcli's defaults left them:
``ties: first``, CLUS's rule, which the papers' numbers come from (the default is
``share``), and ``min_leaf: auto``, the papers' leaf sizes (the default grows unsupervised
trees to leaves of a fifth of the rows). Every ensemble run of theirs resolves to those
values, and their run keys and hashes are those they had when those were the defaults, so
the stored runs stay valid and the generated sections do not change by accident."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from frcli.experiment.config import load_config
from frcli.experiment.plan import build_plan
from frcli.rankers.ensemble import EnsembleRanker

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
# not reproductions: the catalog, the Mars Express pipeline's settings, and the quickstart
# (a user's first experiment: the default rule)
NOT_STUDIES = {"datasets.yaml", "mex.yaml", "quickstart.yaml"}
STUDIES = sorted(p.name for p in CONFIGS.glob("*.yaml") if p.name not in NOT_STUDIES)


def _runs(cfg) -> dict[tuple, str]:
    """(data set, labeled, method, params) -> run hash, every run of one split (hashes do
    not depend on the split)."""
    plan = build_plan(cfg)
    out = {}
    for ds in cfg.datasets:
        for L in cfg.protocol.labeled or (0,):
            for r in cfg.rankers:
                for p, h in zip(plan.grid(ds, r), plan.hashes(ds, L, r)):
                    out[ds.name, L, r.method, p] = h
    return out


# the defaults the stored runs were made under, which the configs now pin
OLD_DEFAULTS = {"ties": "first", "min_leaf": "auto"}


def _unpinned(cfg):
    """The config as it was before the pins: no ``ties``, and no ``min_leaf: auto``, among
    the rankers' parameters (an explicit leaf size, such as mtr-ensembles' 2, was there)."""
    rankers = tuple(dataclasses.replace(r, params={
        k: v for k, v in r.params.items() if k != "ties" and
        not (k == "min_leaf" and v == OLD_DEFAULTS["min_leaf"])}) for r in cfg.rankers)
    return dataclasses.replace(cfg, rankers=rankers)


def test_every_study_config_is_checked():
    assert len(STUDIES) >= 20 and "mtr.yaml" in STUDIES


@pytest.mark.parametrize("name", STUDIES)
def test_study_runs_use_clus_rule_with_their_old_keys(name, monkeypatch):
    cfg = load_config(CONFIGS / name)
    pinned = _runs(cfg)
    rules = {json.loads(p).get("ties") for (_, _, _, p) in pinned}
    assert rules <= {None, "first"}, (name, rules)
    leaves = {json.loads(p).get("min_leaf") for (_, _, _, p) in pinned}
    assert "default" not in leaves, (name, leaves)
    # the keys and hashes the runs had when those were the defaults
    old = tuple(dataclasses.replace(p, default=OLD_DEFAULTS[p.name]) if p.name in OLD_DEFAULTS
                else p for p in EnsembleRanker.params)
    monkeypatch.setattr(EnsembleRanker, "params", old)
    assert _runs(_unpinned(cfg)) == pinned


def test_the_check_sees_a_missing_pin(monkeypatch):
    """Without its pins a study would run under `share`: other keys, other hashes."""
    cfg = load_config(CONFIGS / "mtr.yaml")
    assert any(json.loads(p).get("ties") == "share" for (*_, p) in _runs(_unpinned(cfg)))
    assert set(_runs(_unpinned(cfg))) != set(_runs(cfg))
