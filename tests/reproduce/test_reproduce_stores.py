"""The persisted stores of reproduce/ (reproduce/artifacts.py): a working store exported and
read back gives the same frames, sizes and importances; importances that were not kept are
refused, not invented; a persisted store seeded back lets the runner resume without
recomputing; files stay under the size limit; re-exporting changes no byte."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO))

from reproduce import artifacts  # noqa: E402
from reproduce import framework as fw  # noqa: E402
from reproduce import sections  # noqa: E402


def _tiny(tmp_path, name="tiny", sets=("synth-mtr", "synth-mlc")):
    from frcli.experiment.config import parse_config
    from frcli.experiment.executor import run_experiment

    cfg = parse_config({"name": name, "datasets": list(sets),
                        "protocol": {"type": "holdout", "repeats": 2, "seed": 0},
                        "rankers": ["uniform", {"method": "relief",
                                                "params": {"neighbours": [5, 10]}},
                                    {"method": "genie3-rf", "params": {"trees": 3}}],
                        "evaluation": {"knn": 5}}, f"{name}.yaml")
    run_experiment(cfg, output=tmp_path / "work", progress=False)
    return cfg, cfg.output_dir(tmp_path / "work")


def _export(cfg, src, dst, keep="all"):
    hashes = fw.plan_hashes(cfg)
    return artifacts.export(src, dst, portable_hash=lambda k: hashes[k][0] if k in hashes
                            else None, keep=keep, manifest={"fingerprint": "f" * 12})


def test_export_reads_back_identically(tmp_path):
    cfg, src = _tiny(tmp_path)
    dst = tmp_path / "stores" / cfg.name
    doc = _export(cfg, src, dst)
    assert doc["runs"] == 2 * 2 * 4 and doc["importances"] == "all"
    work, per = fw.StoreView(src, cfg), fw.StoreView(src, cfg, persisted=dst)
    pd.testing.assert_frame_equal(work.frame, per.frame)
    pd.testing.assert_frame_equal(work.runs, per.runs)
    assert work.sizes == per.sizes
    for r in work.runs.itertuples():
        a = work.importances(r.dataset, r.split, r.method, r.params, r.labeled)
        b = per.importances(r.dataset, r.split, r.method, r.params, r.labeled)
        assert a[0] == b[0] and a[1].tobytes() == b[1].tobytes()
        assert work.meta(r.dataset, r.split, r.method, r.params) == \
            per.meta(r.dataset, r.split, r.method, r.params)
    # a second export of the same runs writes the same bytes (no time in the gzip headers)
    before = {p: p.read_bytes() for p in dst.rglob("*") if p.is_file()}
    _export(cfg, src, dst)
    assert before == {p: p.read_bytes() for p in dst.rglob("*") if p.is_file()}


def test_importances_not_kept_are_refused(tmp_path, monkeypatch):
    cfg, src = _tiny(tmp_path, sets=("synth-mtr",))
    dst = tmp_path / "stores" / cfg.name
    view = fw.StoreView(src, cfg)
    keep = {tuple(r) for r in view.runs[["dataset", "split", "labeled", "method", "params"]]
            .itertuples(index=False) if r[3] == "relief"}
    monkeypatch.setattr(artifacts, "KEEP_ALL_BYTES", 0)
    doc = _export(cfg, src, dst, keep=keep)
    assert doc["importances"] == f"{len(keep)} of {len(view.runs)} runs"
    per = fw.StoreView(src, cfg, persisted=dst)
    r = view.runs[view.runs["method"] == "genie3-rf"].iloc[0]
    with pytest.raises(fw.StudyError, match="not kept"):
        per.importances(r["dataset"], r["split"], r["method"], r["params"])
    k = next(iter(keep))
    assert per.importances(k[0], k[1], k[3], k[4]) is not None
    # seeded back, the runner resumes without computing; a render that reads the dropped
    # importances from the working store is refused there too
    from frcli.experiment.executor import run_experiment

    hashes = fw.plan_hashes(cfg)
    new = tmp_path / "again" / cfg.name
    n = artifacts.seed(dst, new, local_run=fw.local_run(cfg, hashes))
    assert n == len(view.runs)
    s = run_experiment(cfg, output=tmp_path / "again", progress=False)
    assert s.computed == 0 and s.skipped == s.tasks
    again = fw.StoreView(new, cfg)
    pd.testing.assert_frame_equal(again.frame, view.frame)
    with pytest.raises(fw.StudyError, match="not kept"):
        again.importances(r["dataset"], r["split"], r["method"], r["params"])
    # persisted again from the seeded store: the same bytes (the per-target count included,
    # though the seeded runs hold no per-target matrix)
    dst2 = tmp_path / "stores2" / cfg.name
    _export(cfg, new, dst2, keep=keep)
    files = sorted(p.relative_to(dst) for p in dst.rglob("*.gz"))
    assert files and all((dst2 / f).read_bytes() == (dst / f).read_bytes() for f in files)


def test_parts_stay_under_the_file_limit(tmp_path, monkeypatch):
    cfg, src = _tiny(tmp_path, sets=("synth-mtr",))
    monkeypatch.setattr(artifacts, "MAX_FILE", 400)
    dst = tmp_path / "stores" / cfg.name
    _export(cfg, src, dst)
    parts = sorted(p.name for p in (dst / "synth-mtr").glob("runs.*.csv.gz"))
    assert len(parts) > 1
    assert all(p.stat().st_size <= 400 for p in dst.rglob("*.gz")
               if p.name.startswith(("runs", "scores")))
    pd.testing.assert_frame_equal(fw.StoreView(src, cfg).frame,
                                  fw.StoreView(src, cfg, persisted=dst).frame)


def test_portable_hashes_do_not_name_this_machine(tmp_path):
    from frcli.experiment.config import parse_config

    shared = fw.SHARED / "datasets" / "mtr" / "jura.arff"
    cfg = parse_config({"name": "p", "datasets": [{"name": "j", "path": str(shared),
                                                   "task": "mtr", "targets": "last:3"}],
                        "protocol": {"type": "holdout", "repeats": 1},
                        "rankers": ["uniform"]}, "p.yaml")
    from reproduce.fingerprint import portable_spec

    spec = portable_spec(cfg.datasets[0])
    assert spec.path == ("<shared>/datasets/mtr/jura.arff",)
    (ph, lh), = set(fw.plan_hashes(cfg).values())
    assert ph != lh


def test_persisted_store_sizes_are_stated_and_bounded():
    """Every committed file of reproduce/stores is under 2 MB; the README states the total."""
    files = [p for p in fw.STORES.rglob("*") if p.is_file()]
    assert all(p.stat().st_size < 2_000_000 for p in files), \
        [p for p in files if p.stat().st_size >= 2_000_000]
    total = sum(p.stat().st_size for p in files)
    assert total < 60_000_000
    assert np.isfinite(total)


def test_run_study_persists_reuses_resumes_and_recomputes(tmp_path, monkeypatch):
    """The write path of `python -m reproduce STUDY`: the first run computes and persists;
    the second finds the persisted store current and runs nothing; a persisted store that
    lacks a data set's runs is resumed (only those are computed); another fingerprint
    recomputes everything."""
    import shutil

    monkeypatch.setattr(fw, "STORES", tmp_path / "stores")
    monkeypatch.setattr(fw, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(fw, "record_digests", lambda *a, **k: None)
    ref = fw.ConfigRef("configs/quickstart.yaml", name="tiny-study", set={
        "datasets": ["synth-mtr", "synth-regression"], "protocol": {"repeats": 2},
        "rankers": ["uniform", {"method": "relief", "params": {"neighbours": [5, 10]}}]})
    seen = []
    study = fw.Study("tiny", "Tiny", (ref,), lambda s: seen.append(len(s["tiny-study"].runs))
                     or "## Tiny\n\ntext")
    paths = fw.fingerprints({"digests": {}}).paths_of_config(ref.load())
    digests = {"digests": {p: "a" * 16 for p in paths}}
    logs = []
    monkeypatch.setattr(fw, "log", logs.append)

    out = sections.run_study(study, digests=digests, progress=False)
    assert "fingerprint " in out.text and "**Data sets.**" in out.text
    assert any("8 tasks, 8 computed" in m for m in logs), logs
    per = artifacts.Persisted(fw.STORES / "tiny-study")
    assert per.manifest["runs"] == 2 * 2 * 3 and seen[-1] == 12

    logs.clear()
    sections.run_study(study, digests=digests, progress=False)
    assert any("persisted store is current" in m for m in logs)
    assert not any("computed" in m for m in logs)

    # a partial store (one data set's runs missing): resumed, only those computed
    shutil.rmtree(fw.STORES / "tiny-study" / "synth-regression")
    shutil.rmtree(fw.RESULTS)
    logs.clear()
    sections.run_study(study, digests=digests, progress=False)
    assert any("resuming from " in m and "tiny-study" in m for m in logs)
    assert any("8 tasks, 4 computed, 4 stored already" in m for m in logs), logs
    assert artifacts.Persisted(fw.STORES / "tiny-study").manifest["runs"] == 12

    # another fingerprint (a canary on its path moved): recomputed from scratch
    moved = {"digests": {p: "b" * 16 for p in paths}}
    logs.clear()
    sections.run_study(study, digests=moved, progress=False)
    assert any("recomputing" in m for m in logs)
    assert any("8 tasks, 8 computed" in m for m in logs), logs


def test_a_widened_config_resumes_from_another_configs_store(tmp_path, monkeypatch):
    """A config that widens another (here by a ranker setting; a draft on more sets than a
    section's subset alike), under another name with the same fingerprint, computes only what
    the other's persisted store does not hold and gives the same numbers for what it shares;
    a store of another fingerprint lends nothing."""
    monkeypatch.setattr(fw, "STORES", tmp_path / "stores")
    monkeypatch.setattr(fw, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(fw, "record_digests", lambda *a, **k: None)
    def ref(name, ks):
        return fw.ConfigRef("configs/quickstart.yaml", name=name, set={
            "datasets": ["synth-regression"], "protocol": {"repeats": 2},
            "rankers": ["uniform", {"method": "relief", "params": {"neighbours": ks}}]})
    part, whole = ref("tiny-part", [5, 10]), ref("tiny-all", [5, 10, 20])
    paths = fw.fingerprints({"digests": {}}).paths_of_config(whole.load())
    digests = {"digests": {p: "a" * 16 for p in paths}}
    fps = fw.fingerprints(digests)
    assert fps.config(part.load()) == fps.config(whole.load())
    logs = []
    monkeypatch.setattr(fw, "log", logs.append)
    study = fw.Study("tiny", "Tiny", (part,), lambda s: "## Tiny\n\ntext")
    sections.run_study(study, digests=digests, progress=False)
    logs.clear()
    draft = fw.Study("tiny-draft", "Tiny", (whole,), lambda s: "## Tiny\n\ntext", draft=True)
    sections.run_study(draft, digests=digests, progress=False)
    assert any("resuming from " in m and "tiny-part" in m for m in logs), logs
    assert any("4 tasks, 2 computed, 2 stored already" in m for m in logs), logs
    a = fw.StoreView(fw.STORES / "tiny-part", part.load(), persisted=fw.STORES / "tiny-part")
    b = fw.StoreView(fw.STORES / "tiny-all", whole.load(), persisted=fw.STORES / "tiny-all")
    shared = b.frame.merge(a.frame[["split", "method", "params"]].drop_duplicates())
    pd.testing.assert_frame_equal(a.frame.reset_index(drop=True), shared, check_like=True)
    # another fingerprint: nothing is lent
    moved = {"digests": {p: "b" * 16 for p in paths}}
    logs.clear()
    sections.run_study(draft, digests=moved, progress=False)
    assert not any("resuming from" in m for m in logs)
    assert any("4 tasks, 4 computed" in m for m in logs), logs


def test_an_interrupted_run_persists_what_it_did(tmp_path, monkeypatch):
    """A session that ends mid-study (Ctrl-C, SIGTERM) leaves its finished runs in the
    persisted store, so the next session, on any machine, resumes them."""
    from frcli.experiment import executor

    monkeypatch.setattr(fw, "STORES", tmp_path / "stores")
    monkeypatch.setattr(fw, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(fw, "record_digests", lambda *a, **k: None)
    monkeypatch.setattr(fw, "log", lambda m: None)
    ref = fw.ConfigRef("configs/quickstart.yaml", name="tiny-stop", set={
        "datasets": ["synth-mtr", "synth-regression"], "protocol": {"repeats": 1},
        "rankers": ["uniform"]})
    study = fw.Study("tiny", "Tiny", (ref,), lambda s: "## Tiny")
    paths = fw.fingerprints({"digests": {}}).paths_of_config(ref.load())
    real = executor.run_task
    calls = []

    def stop_after_one(task, *args, **kwargs):
        if calls:
            raise KeyboardInterrupt
        calls.append(task)
        return real(task, *args, **kwargs)

    monkeypatch.setattr(executor, "run_task", stop_after_one)
    with pytest.raises(KeyboardInterrupt):
        sections.run_study(study, digests={"digests": {p: "a" * 16 for p in paths}},
                     progress=False)
    per = artifacts.Persisted(fw.STORES / "tiny-stop")
    assert per.manifest["runs"] == 1 and per.manifest["sessions"][-1]["interrupted"]


def test_an_unfinished_study_has_a_pending_section_that_check_accepts(tmp_path, monkeypatch):
    """A study whose persisted stores are partial shows a pending section (what is persisted,
    what the rest costs at the measured cost per run); --check accepts it while the stores
    are partial, and calls it stale once they are complete or hold more runs."""
    import shutil

    monkeypatch.setattr(fw, "STORES", tmp_path / "stores")
    monkeypatch.setattr(fw, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(fw, "record_digests", lambda *a, **k: None)
    monkeypatch.setattr(fw, "log", lambda m: None)
    monkeypatch.setattr(fw, "dirty_paths", lambda: [])      # stamps of a committed tree
    ref = fw.ConfigRef("configs/quickstart.yaml", name="tiny-pending", set={
        "datasets": ["synth-mtr", "synth-regression"], "protocol": {"repeats": 2},
        "rankers": ["uniform"]})
    study = fw.Study("tiny-pending", "Tiny pending", (ref,), lambda s: "## Tiny pending\n\nok")
    paths = fw.fingerprints({"digests": {}}).paths_of_config(ref.load())
    digests = {"digests": {p: "a" * 16 for p in paths}}
    assert sections.pending_outcome(study, digests) is not None      # nothing persisted
    sections.run_study(study, digests=digests, progress=False)
    assert sections.pending_outcome(study, digests) is None           # complete
    shutil.rmtree(fw.STORES / "tiny-pending" / "synth-regression")
    shutil.rmtree(fw.RESULTS)
    out = sections.pending_outcome(study, digests)
    assert "**Pending.**" in out.text and "2 of 4 runs persisted" in out.text
    assert "complete: synth-mtr" in out.text and "· pending: 2 of 4 runs" in out.text
    assert fw.read_stamp(out.text)["pending"]
    doc = fw.splice("<!-- study: tiny-pending -->\n<!-- /study: tiny-pending -->\n",
                    "tiny-pending", out.text)
    assert not sections.check_study(study, doc, digests).problems
    # a pending section whose counts are behind the stores is stale
    sections.run_study(study, digests=digests, progress=False)
    problems = sections.check_study(study, doc, digests).problems
    assert any("re-render differs" in p for p in problems), problems


def test_a_study_on_a_dask_cluster_persists_the_same_runs(tmp_path, monkeypatch):
    """`python -m reproduce --dask-scheduler local`: the runs go to a local cluster of
    worker processes, and the persisted store holds the same numbers as the local pool's."""
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(fw, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(fw, "record_digests", lambda *a, **k: None)
    monkeypatch.setattr(fw, "log", lambda m: None)
    ref = fw.ConfigRef("configs/quickstart.yaml", name="tiny-dask", set={
        "datasets": ["synth-mtr"], "protocol": {"repeats": 2},
        "rankers": ["uniform", {"method": "relief", "params": {"neighbours": [5]}}]})
    study = fw.Study("tiny-dask", "Tiny", (ref,), lambda s: "## Tiny")
    paths = fw.fingerprints({"digests": {}}).paths_of_config(ref.load())
    digests = {"digests": {p: "a" * 16 for p in paths}}
    frames = []
    for where, dask in (("pool", None), ("cluster", "local")):
        monkeypatch.setattr(fw, "STORES", tmp_path / where)
        sections.run_study(study, digests=digests, progress=False, jobs=2, dask=dask)
        view = fw.StoreView(tmp_path / where / "tiny-dask", ref.load(),
                            persisted=tmp_path / where / "tiny-dask")
        frames.append(view.frame.drop(columns=["rank_time_s", "eval_time_s"]))
    pd.testing.assert_frame_equal(frames[0], frames[1])


def test_a_ranker_kept_before_is_kept_on_the_sets_a_config_adds():
    """Two studies share a config: one reads a ranker's importances, the other not. When the
    config gains a set and the other study persists first, that ranker's runs on the new set
    are kept too, or the first study could not render from the store."""
    old = ("a", 0, 0, "reliefe", "{}")
    plan = {old: 1, ("b", 0, 0, "reliefe", "{}"): 1, ("b", 0, 0, "relief", "{}"): 1}
    reads = {("b", 0, 0, "relief", "{}")}
    assert fw.widen_keep(reads, {old}, plan) == set(plan)
    assert fw.widen_keep(reads, set(), plan) == reads

