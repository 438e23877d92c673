"""What the reproduction costs (reproduce/estimate.py, reproduce/costs.py): every run's CPU
seconds are stored beside its wall seconds and survive export and seeding, while stores made
before keep loading; ``--estimate`` takes CPU seconds over sampled costs over wall seconds
over the linear extrapolation; the samples file resumes, ignores stale samples and stops
within its budget; a data set another config of the study runs with the same runs is not
counted twice."""
from __future__ import annotations

import gzip
import math
import sqlite3
import sys
from types import SimpleNamespace

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO))

from reproduce import artifacts  # noqa: E402
from reproduce import costs  # noqa: E402
from reproduce import estimate  # noqa: E402
from reproduce import framework as fw  # noqa: E402
from tests.reproduce.test_reproduce_stores import _export, _tiny  # noqa: E402


def _cpu(sqlite_dir) -> dict:
    con = sqlite3.connect(sqlite_dir / "results.sqlite")
    try:
        return {tuple(r[:5]): r[5] for r in con.execute(
            "SELECT dataset, split, labeled, method, params, cpu_time_s FROM runs")}
    finally:
        con.close()


# --------------------------------------------------------------------------- CPU seconds
def test_cpu_shares_split_a_call_by_wall_time():
    from frcli.experiment.executor import cpu_seconds, cpu_shares

    assert cpu_shares([1.0, 3.0]) == [0.25, 0.75]
    assert cpu_shares([0.0, 0.0, 0.0]) == [pytest.approx(1 / 3)] * 3
    assert sum(cpu_shares([2.0] * 7)) == pytest.approx(1.0)
    assert cpu_seconds(1.23456789) == 1.235 and cpu_seconds(-1e-9) == 0.0


def test_cpu_seconds_are_stored_exported_and_seeded_back(tmp_path):
    cfg, src = _tiny(tmp_path)
    cpu = _cpu(src)
    assert len(cpu) == 2 * 2 * 4
    assert all(v is not None and v >= 0 and v == round(v, 3) for v in cpu.values())
    assert sum(cpu.values()) > 0
    dst = tmp_path / "stores" / cfg.name
    _export(cfg, src, dst)
    back = {key: artifacts.cpu_time(r) for key, r, *_ in artifacts.Persisted(dst).read()}
    assert back == cpu
    # seeded into a new working store (the runner resumes from it): the CPU seconds stay
    hashes = fw.plan_hashes(cfg)
    seeded = tmp_path / "seeded"
    artifacts.seed(dst, seeded, local_run=lambda k, ph: (hashes[k][1], {}))
    assert _cpu(seeded) == cpu
    # times are not outputs: the frames a render reads have no CPU column
    assert "cpu_time_s" not in fw.StoreView(src, cfg, persisted=dst).runs.columns


def test_stores_made_before_cpu_seconds_keep_loading(tmp_path):
    from frcli.results.store import Store

    cfg, src = _tiny(tmp_path, sets=("synth-mtr",))
    con = sqlite3.connect(src / "results.sqlite")
    con.execute("ALTER TABLE runs DROP COLUMN cpu_time_s")      # as an older runner made it
    con.commit()
    con.close()
    with Store(src, create=False) as st:
        assert not st.has_cpu_time()
    dst = tmp_path / "stores" / cfg.name
    _export(cfg, src, dst)                                       # read-only: NULL times
    assert all(artifacts.cpu_time(r) is None for _, r, *_ in artifacts.Persisted(dst).read())
    # a persisted runs file without the column at all reads the same
    f = next(dst.rglob("runs.0.csv.gz"))
    lines = gzip.decompress(f.read_bytes()).decode().splitlines()
    assert lines[0].endswith(",cpu_time_s")
    f.write_bytes(gzip.compress(("\n".join(ln.rsplit(",", 1)[0] for ln in lines) + "\n")
                                .encode()))
    old = fw.StoreView(src, cfg, persisted=dst)
    assert len(old.runs) == 2 * 4 and old.frame["value"].notna().any()
    assert all(artifacts.cpu_time(r) is None for _, r, *_ in artifacts.Persisted(dst).read())
    # opened for writing, the old store gains the column and the runner writes into it
    with Store(src) as st:
        assert st.has_cpu_time()


# --------------------------------------------------------------------------- the estimate
def _pairs(states: dict[str, str]):
    full = SimpleNamespace(name="c")
    return [costs.Pair("c", d, s, full, SimpleNamespace(name=d), full)
            for d, s in states.items()]


@pytest.fixture
def fake_study(monkeypatch):
    """A config 'c' with data sets a (ran, CPU times), b (ran, wall times only), x and y (left
    out), z (left out here, run by another config with the same runs)."""
    ps = _pairs({"a": "ran", "b": "ran", "x": "left", "y": "left", "z": "covered"})
    monkeypatch.setattr(costs, "pairs", lambda st: ps)
    monkeypatch.setattr(costs, "persisted", lambda cfg: {
        "a": (10, 100.0, 40.0, 10), "b": (10, 200.0, 0.0, 0)})
    monkeypatch.setattr(fw, "runs_per_dataset", lambda cfg: {
        "a": 10, "b": 10, "x": 20, "y": 30, "z": 10})
    monkeypatch.setattr(fw, "data_size", lambda d, cfg: {
        "a": (100, 10), "b": (200, 10), "x": (100, 10), "y": (400, 10), "z": (50, 10)}[d])
    monkeypatch.setattr(costs, "fingerprint", lambda p, fps: "fp")
    monkeypatch.setattr(costs, "plan_key", lambda p: "plan")
    return SimpleNamespace(name="s", configs=("c",))


def _sample(cpu_s, runs=4, fp="fp", plan="plan"):
    return {"cpu_s": cpu_s, "runs": runs, "wall_s": 3 * cpu_s, "fingerprint": fp,
            "plan": plan}


def test_estimate_prefers_cpu_then_samples_then_wall_then_extrapolation(fake_study):
    samples = {"c/a": _sample(400.0), "c/b": _sample(20.0), "c/x": _sample(8.0),
               "c/y": _sample(1.0, fp="old")}
    rows = {r.dataset: r for r in estimate.pair_rows(fake_study, samples, object())}
    assert (rows["a"].source, rows["a"].seconds) == ("cpu", 40.0)      # not the sample
    assert (rows["b"].source, rows["b"].seconds) == ("sampled", 20.0 / 4 * 10)
    assert rows["b"].wall == 200.0 and rows["x"].wall is None
    assert (rows["x"].source, rows["x"].seconds) == ("sampled", 8.0 / 4 * 20)
    # y's sample is stale: linear from the largest set that ran or was sampled (b, 2×
    # smaller than y; x is smaller), from b's sampled CPU seconds per run
    assert rows["y"].source == "extrapolated" and "b's sampled CPU" in rows["y"].note
    assert rows["y"].seconds == pytest.approx(20.0 / 4 * 30 * 2)
    assert (rows["z"].source, rows["z"].seconds) == ("covered", 0.0)
    # without samples: b is wall time, x linear
    rows = {r.dataset: r for r in estimate.pair_rows(fake_study, {}, object())}
    assert (rows["b"].source, rows["b"].seconds) == ("wall", 200.0)
    # x: linear from a, the largest set with CPU seconds (b is larger, but wall only)
    assert rows["x"].source == "extrapolated" and "a's cpu" in rows["x"].note
    assert rows["x"].seconds == pytest.approx(40.0 / 10 * 20 * 1.0)
    by = estimate._by_source(list(rows.values()))
    assert by["cpu"] == 40.0 and by["wall"] == 200.0 and by["sampled"] == 0.0
    # a sampled left-out set is a base too: y from x's sample (x and a are the same size)
    rows = {r.dataset: r for r in estimate.pair_rows(
        fake_study, {"c/x": _sample(8.0), "c/b": _sample(1.0, plan="old")}, object())}
    assert rows["y"].source == "extrapolated" and rows["y"].note in (
        "from a's cpu seconds", "from x's sampled CPU seconds")


def test_estimate_report_names_the_sources(fake_study, monkeypatch, tmp_path):
    monkeypatch.setattr(costs, "COSTS", tmp_path / "costs.json")
    costs.save("c/x", _sample(8.0), tmp_path / "costs.json")
    monkeypatch.setattr(costs, "load", lambda path=None: {"c/x": _sample(8.0)})
    monkeypatch.setattr(fw, "fingerprints", lambda d: object())
    monkeypatch.setattr(estimate.coverage, "column", lambda st: "4 of 5 shared")
    text = estimate.report([fake_study], digests={"digests": {}})
    head = next(ln for ln in text.splitlines() if ln.startswith("| study"))
    assert head.split("|")[3:7] == [" cpu h ", " sampled h ", " wall h ", " extrapolated h "]
    total = next(ln for ln in text.splitlines() if ln.startswith("| total")).split("|")
    # cpu 40 s, sampled 40 s, wall 200 s, extrapolated from x's sample (x and a tie in size;
    # the sample comes first): 2 s × 30 × 4 = 240 s
    assert [c.strip() for c in total[3:8]] == ["0.0", "0.0", "0.1", "0.1", "0.1"]
    assert "| c | x | 2 s CPU per run × 20 runs | 0.01 | – |" in text


def test_wall_seconds_count_a_grid_pass_once():
    k = ("d", 0, 0, "relief")
    runs = [((*k, "m1"), 5.0, 0.5), ((*k, "m2"), 5.0, 0.5), ((*k, "m3"), 5.0, 0.5),
            (("d", 1, 0, "relief", "m1"), 4.0, 0.5),                    # a task of one run
            (("d", 0, 0, "rf-rf", "a"), 1.0, 0.1), (("d", 0, 0, "rf-rf", "b"), 2.0, 0.1)]
    assert fw.wall_seconds(runs) == pytest.approx(5.0 + 1.5 + 4.5 + 3.2)


# --------------------------------------------------------------------------- the samples file
def test_a_sample_is_current_only_for_its_fingerprint_and_plan(tmp_path):
    path = tmp_path / "costs.json"
    p = _pairs({"x": "left"})[0]
    costs.save(p.key, _sample(8.0), path)
    costs.save("c/other", _sample(1.0), path)           # a second writer's sample is merged
    samples = costs.load(path)
    assert set(samples) == {"c/x", "c/other"}
    assert costs.current(samples, p, "fp", "plan")["cpu_s"] == 8.0
    assert costs.current(samples, p, "fp2", "plan") is None     # an engine path moved
    assert costs.current(samples, p, "fp", "plan2") is None     # the config's runs changed


def test_sample_costs_runs_a_slice_resumes_and_stops_within_budget(tmp_path, monkeypatch):
    from frcli.experiment.config import parse_config

    full = parse_config({"name": "tiny", "datasets": ["synth-mtr", "synth-mlc"],
                         "protocol": {"type": "holdout", "repeats": 3, "seed": 0},
                         "rankers": ["uniform", {"method": "relief",
                                                 "params": {"neighbours": [5, 10]}},
                                     {"method": "genie3-rf", "params": {"trees": 3}}],
                         "evaluation": {"knn": 5}}, "tiny.yaml")
    ps = [costs.Pair("tiny", d.name, s, full, d, full)
          for d, s in zip(full.datasets, ("left", "ran"))]
    monkeypatch.setattr(costs, "pairs", lambda st: ps)
    monkeypatch.setattr(costs, "fingerprint", lambda p, fps: "fp")
    monkeypatch.setattr(costs, "persisted", lambda cfg: {"synth-mlc": (12, 9.0, 0.0, 0)})
    monkeypatch.setattr(costs, "_priority", lambda st: {})
    path = tmp_path / "costs.json"
    study = SimpleNamespace(name="s")
    digests = {"digests": {}}
    assert costs.sample_costs([study], budget=None, digests=digests, path=path) == 1
    assert set(costs.load(path)) == {"tiny/synth-mtr"}
    # a set the study ran, whose stored runs have wall seconds only: sampled when asked
    assert costs.sample_costs([study], budget=None, digests=digests, path=path, ran=True) == 1
    samples = costs.load(path)
    assert set(samples) == {"tiny/synth-mtr", "tiny/synth-mlc"}
    for s in samples.values():
        assert (s["split"], s["labeled"], s["runs"], s["planned"]) == (0, 0, 4, 12)
        assert s["cpu_s"] > 0 and s["fingerprint"] == "fp" and len(s["plan"]) == 12
    # resumes: nothing left to sample
    assert costs.sample_costs([study], budget=None, digests=digests, path=path, ran=True) == 0
    # stale (another fingerprint): sampled again, but not past the budget
    monkeypatch.setattr(costs, "fingerprint", lambda p, fps: "fp2")
    assert costs.sample_costs([study], budget=1e-3, digests=digests, path=path) == 0
    assert costs.load(path) == samples


def test_a_set_another_config_runs_with_the_same_runs_is_counted_once():
    """mlc-ensembles: mlc-subset leaves out the four large sets that mlc-large runs."""
    st = fw.studies()["mlc-ensembles"]
    states = {(p.config, p.dataset): p.state for p in costs.pairs(st)}
    large = {d for (c, d) in states if c == "mlc-large"}
    assert large and all(states["mlc-subset", d] == "covered" for d in large)
    assert all(s != "left" for s in states.values())
    # a set that no config of the study runs is left out
    st = fw.studies()["relational"]
    assert {p.state for p in costs.pairs(st)} == {"ran", "left"}
    assert not any(math.isnan(r.seconds) for r in
                   estimate.pair_rows(fw.studies()["mlc-ensembles"], {}, object())
                   if r.source != "covered")


def test_a_sub_slice_fits_the_cost_of_a_tree():
    assert costs.linear_in_trees(3.0, 5.0, 2, 100) == pytest.approx(1.0 + 1.0 * 100)
    assert costs.linear_in_trees(3.0, 2.0, 2, 100) == pytest.approx(3.0)     # no negative tree
    assert costs.linear_in_trees(1.0, 5.0, 2, 10) == pytest.approx(0.0 + 2.0 * 10)  # a ≥ 0
    from frcli.experiment.config import RankerSpec

    assert costs.trees_of(RankerSpec("genie3-rf", {"trees": 7})) == 7
    assert costs.trees_of(RankerSpec("genie3-boost")) == 50          # its default
    assert costs.trees_of(RankerSpec("genie3-rf", {"trees": [10, 25]})) is None   # a grid
    assert costs.trees_of(RankerSpec("relief")) is None
    sub = {"sub_slice": {"trees": [2, 4], "of": [50, 100]}}
    assert estimate.sub_slice_note(sub) == (" (sub-slice: ensembles of 50 and 100 trees at 2 "
                                            "and 4, linear in the trees)")
    assert estimate.sub_slice_note({}) == ""


def test_a_sub_slice_runs_small_ensembles_and_the_rest_whole(monkeypatch):
    """The forest at 2 and 4 trees, fitted to its 20; Relief once, as it is."""
    from frcli.experiment.config import parse_config

    cfg = parse_config({"name": "tiny", "datasets": ["synth-mtr"],
                        "protocol": {"type": "holdout", "repeats": 2, "seed": 0},
                        "rankers": ["relief", {"method": "genie3-rf", "params": {"trees": 20}},
                                    {"method": "rf-rf", "params": {"trees": 20}},
                                    {"method": "genie3-et", "params": {"trees": 3}}],
                        "evaluation": {"knn": 5}}, "tiny.yaml")
    seen = []
    real = costs._slice_runs

    def spy(c, split, labeled):
        seen.append(sorted((r.method, r.params.get("trees")) for r in c.rankers))
        return real(c, split, labeled)

    monkeypatch.setattr(costs, "_slice_runs", spy)
    s = costs._sample(cfg, 0, 0, sub_slice=2)
    assert seen == [[("genie3-et", 3), ("relief", None)],
                    [("genie3-rf", 2), ("rf-rf", 2)], [("genie3-rf", 4), ("rf-rf", 4)]]
    assert s["runs"] == 4 and s["sub_slice"]["trees"] == [2, 4]
    assert s["sub_slice"]["of"] == [20] and s["cpu_s"] >= s["sub_slice"]["whole_cpu_s"]
    # without it, the whole slice in one pass
    seen.clear()
    assert "sub_slice" not in costs._sample(cfg, 0, 0) and len(seen) == 1
