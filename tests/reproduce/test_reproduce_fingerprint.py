"""Result fingerprints (reproduce/canaries.py, reproduce/fingerprint.py): every canary pins
every parameter; every path the studies take has a canary; a changed canary output changes
the fingerprint of exactly the studies on its path, a new path changes none; and a real
edit of an engine's output makes ``--check`` fail for the sections on that path."""
from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO))

from reproduce import canaries as C  # noqa: E402
from reproduce import fingerprint as F  # noqa: E402
from reproduce import framework as fw  # noqa: E402
from reproduce import sections  # noqa: E402


def _expected() -> dict[str, str]:
    """Every canary path with a made-up digest (no canary runs)."""
    data = C._fake_data()
    return {p: "0" * 16 for c in C.suite() for p in C.expected_paths(c, data)}


def test_shapes_are_categorical():
    assert C.shape(10) == C.shape(250) == C.shape(2.0) == "num" and C.shape(0) == "0"
    assert C.shape("first") == "first" and C.shape(None) == "null" and C.shape(True) == "true"
    assert C.shape([5, "auto"]) == "[auto,num]"
    p = C.rank_path("mtr", "plain", "genie3-rf", {"trees": 100, "ties": "first",
                                                   "labeled_only": True})
    assert p == "rank:mtr:plain:genie3-rf:ties=first,trees=num"


def test_every_canary_pins_every_parameter():
    """A change of a default must not move a canary: each ranker's resolved parameters are
    all given, except markers whose default has no other spelling (DEFAULT)."""
    from frcli.rankers.registry import get_ranker

    for c in C.suite():
        for r in c.rankers:
            ranker = get_ranker(r["method"], relational=c.task == "relational")
            spec = ranker.param_spec()
            missing = sorted(set(spec) - set(r["params"]))
            assert not missing, f"{c.name} {r['method']}: not pinned: {missing}"
            for k, v in r["params"].items():
                if v == C.DEFAULT:
                    assert isinstance(spec[k].default, str), (c.name, k)


def test_every_study_path_has_a_canary():
    known = _expected()
    fps = F.Fingerprints(known)
    bad = {}
    for st in fw.studies().values():
        if st.draft:        # not rendered: a draft's fingerprint guards no section
            continue
        cfgs = [r.load() for r in st.configs]
        paths = set()
        for cfg in cfgs:
            paths |= fps.paths_of_config(cfg)
        if fps.uncovered(paths):
            bad[st.name] = sorted(fps.uncovered(paths))[:3]
        if st.compute is not None and st.compute_paths:
            for pat in st.compute_paths:
                assert F.compute_paths(st, known), (st.name, pat)
    assert not bad, f"paths without a canary (add one to reproduce/canaries.py): {bad}"


def test_a_moved_path_invalidates_exactly_the_studies_on_it():
    known = _expected()
    fps = F.Fingerprints(known)
    studies = [s for s in fw.studies().values() if not s.draft]
    cfgs = {s.name: [r.load() for r in s.configs] for s in studies}
    before = {s.name: fps.study(s, cfgs[s.name]) for s in studies}
    paths = {s.name: fps.resolve(fps.study_paths(s, cfgs[s.name])) for s in studies}
    relief = next(p for p in sorted(paths["mtr-table7"]) if p.startswith("rank:mtr:plain:relief:"))
    moved = F.Fingerprints({**known, relief: "1" * 16}, fps.traits)
    after = {s.name: moved.study(s, cfgs[s.name]) for s in studies}
    changed = {n for n in before if before[n] != after[n]}
    assert changed == {n for n, ps in paths.items() if relief in ps}
    assert "mtr-table7" in changed and "hmlc-ensembles" not in changed
    # a new path (a new tie rule, a new ranker) changes no study's fingerprint
    grown = F.Fingerprints({**known, "rank:mtr:plain:genie3-rf:ties=newrule": "2" * 16,
                            "rank:mtr:plain:newranker:k=num": "3" * 16,
                            # a new evaluation shape, where compute steps match by pattern
                            "eval:mtr:ssl-plain:type=new:knn=num": "4" * 16,
                            "eval:hmlc:plain:type=new:knn=num": "5" * 16}, fps.traits)
    assert {s.name: grown.study(s, cfgs[s.name]) for s in studies} == before


def test_the_canaries_cover_both_tie_rules():
    """CLUS's rule (which the studies pin) and the default, shared credit: every task x
    ensemble x score with and without missing values (and thinned labels), and single
    trees."""
    known = _expected()
    for rule in ("first", "share"):
        for task in C.TASKS:
            kinds = ("plain", "missing") + (("ssl-plain",) if task != "unsupervised" else ())
            for kind in kinds:
                for ens in C.ENSEMBLES:
                    for score in C.SCORES:
                        pre = f"rank:{task}:{kind}:{score}-{ens}:"
                        assert any(p.startswith(pre) and f"ties={rule}" in p for p in known), \
                            (pre, rule)
        for task in ("mtr", "classification", "mlc", "hmlc"):
            assert any(p.startswith(f"tree:{task}:missing:") and f"ties={rule}" in p
                       for p in known), (task, rule)


def test_a_change_of_the_shared_credit_alone_invalidates_no_study():
    """The studies run CLUS's tie rule (their configs and compute steps pin ties: first), so
    an edit that moves only the ties=share canaries keeps every section current."""
    known = _expected()
    fps = F.Fingerprints(known)
    share = {p for p in known if "ties=share" in p}
    assert share
    moved = F.Fingerprints({**known, **{p: "1" * 16 for p in share}}, fps.traits)
    for st in fw.studies().values():
        if st.draft:
            continue
        cfgs = [r.load() for r in st.configs]
        assert not share & fps.study_paths(st, cfgs), st.name
        assert fps.study(st, cfgs) == moved.study(st, cfgs), st.name


def test_a_study_without_canary_depends_on_every_path():
    known = _expected()
    fps = F.Fingerprints(known)
    assert fps.resolve({"rank:mtr:plain:nonexistent:"}) >= set(known)


@pytest.mark.shared
def test_sections_are_current(shared_data):
    """CI's staleness check: the fingerprint of this code, every section's stamp, and every
    section re-rendered from the persisted stores (reproduce/stores) without running
    anything (`python -m reproduce --check`)."""
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-m", "reproduce", "--check", "--jobs", "2"],
                       cwd=REPO, env=env, capture_output=True, text=True)
    assert r.returncode == 0, (f"docs/reproduction.md is stale:\n{r.stdout[-6000:]}"
                               f"\n{r.stderr[-2000:]}")


@pytest.mark.shared
def test_an_engine_edit_fails_the_check_of_the_sections_on_its_path(shared_data,
                                                                     monkeypatch):
    """An edit that changes Relief's output by one ulp, without regenerating: the canaries
    of Relief move, so the fingerprint of every section that ranks with Relief no longer
    matches its stamp (and its persisted stores), and --check fails for them; the sections
    without Relief keep theirs."""
    import numpy as np

    from frcli.rankers import relief as R

    digests = fw.canary_digests(2)
    orig = R.ReliefRanker.rank

    def edited(self, *args, **kwargs):
        out = orig(self, *args, **kwargs)
        for rk in out:
            rk.importances = np.nextafter(np.asarray(rk.importances, float), np.inf)
        return out

    monkeypatch.setattr(R.ReliefRanker, "rank", edited)
    moved = C.run(jobs=1, only="relief/mtr/*")
    assert not moved["errors"]
    changed = {p for p, d in moved["digests"].items() if digests["digests"].get(p) != d}
    assert changed and all(p.startswith("rank:mtr:") for p in changed)
    edited_digests = {**digests, "digests": {**digests["digests"], **moved["digests"]}}
    doc = fw.DOC.read_text(encoding="utf-8")
    table7 = fw.studies()["mtr-table7"]
    out = sections.check_study(table7, doc, edited_digests)
    assert any("fingerprint" in p for p in out.problems), out.problems
    assert any("persisted store mtr-table7 was made for fingerprint" in p
               for p in out.problems)
    clus = fw.studies()["hmlc-ensembles"]
    fps, fps2 = fw.fingerprints(digests), fw.fingerprints(edited_digests)
    cfgs = [r.load() for r in clus.configs]
    assert fps.study(clus, cfgs) == fps2.study(clus, cfgs)


def test_traits_are_kept_for_every_study_data_set():
    """CI computes fingerprints from reproduce/stores/traits.json, without loading data."""
    traits = F.Traits()
    keys = set(traits.data)
    for st in fw.studies().values():
        for ref in st.configs:
            for ds in ref.load().datasets:
                assert f"{ds.name}@{F._definition_key(ds)}" in keys, \
                    f"{st.name}: no traits of {ds.name}: `python -m reproduce --fingerprint`"
    assert all(json.dumps(v) for v in traits.data.values())
