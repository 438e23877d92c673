"""``python -m reproduce --sample-costs [STUDY ...] [--budget SECONDS]``: what a left-out data
set of a study would cost with the current engines, measured on a sample of its planned runs.

A *pair* is one (config, data set) of a study's configs as their files have them (a
``*-subset`` config stands for its whole file). A *sample* of a pair runs one slice of its
plan: every ranker of the config on the first split, at one labelled-set size (the middle
one of the protocol's sizes; all rows when the protocol thins none), in a worker process of
its own, as the runner would run them (forest groups share their forest). It records the CPU
seconds of their ranking and evaluation (``cpu_time_s`` of the runs, the process's own CPU
time: right however loaded the machine is) and their wall seconds, beside the number of runs
the whole pair plans; ``python -m reproduce --estimate`` then counts the pair as CPU seconds
per sampled run × planned runs. The slice is a sample of the plan, not all of it: splits of
one data set cost about the same, but labelled-set sizes may not, and the middle size stands
for all of them.

A slice can itself take hours (unsupervised forests with all features per node on the text
sets, relational ensembles). ``--sub-slice T`` then samples a *sub-slice*: the ranker entries
that grow ensembles of more than 2T trees run at T and at 2T trees, their CPU seconds are
fitted linearly in the number of trees and taken at the ensemble's own size (the other
entries run whole). The sample records it under ``sub_slice`` (the two sizes, the ensembles'
sizes, the CPU seconds of the two passes and of the entries run whole), and ``--estimate``
labels the pair's number accordingly: a measured cost per tree, not a measured forest.

Samples are kept in ``reproduce/stores/costs.json`` (committed, a few hundred bytes each),
keyed ``<config>/<data set>``, each with

* ``fingerprint``: the hash of the canary digests of the paths the pair's runs take (the
  config fingerprint of the config on that data set alone, ``reproduce/fingerprint.py``), so
  a sample is stale exactly when an engine it uses changes its outputs;
* ``plan``: the hash of the pair's run keys and portable run hashes, so a sample is stale
  when the config's runs on that set change.

A stale sample is ignored by ``--estimate`` and taken again by ``--sample-costs``, which
skips the pairs with a current sample (so it resumes), stops when ``--budget`` seconds of
wall time have passed (the sample running then is ended and not recorded), and logs one
line per sample. Several such commands may run at once: each writes the file under a lock,
merging what the others wrote.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import hashlib
import json
import os
import time
from pathlib import Path

from reproduce import coverage
from reproduce import framework as fw
from reproduce import md

COSTS = fw.STORES / "costs.json"
FORMAT = 1


# --------------------------------------------------------------------------- pairs
@dataclasses.dataclass
class Pair:
    """One (config, data set) of a study's configs as their files have them. ``state``:
    'ran' (the study runs it), 'left' (a shared set the study leaves out) or 'covered' (left
    out by this config, but another config of the study with the same rankers, protocol and
    evaluation runs it: counting it again would count the same runs twice)."""

    config: str           # the name of the config as the study runs it (its store's name)
    dataset: str
    state: str
    full: object          # the whole config (ExperimentConfig)
    spec: object          # the DatasetSpec
    ran: object = None    # the config as the study runs it

    @property
    def key(self) -> str:
        return f"{self.config}/{self.dataset}"

    def alone(self):
        """The whole config on this data set alone."""
        return dataclasses.replace(self.full, datasets=(self.spec,))


def _same_runs(a, b) -> bool:
    return (a.rankers == b.rankers and a.protocol == b.protocol
            and a.evaluation == b.evaluation and a.knn_train == b.knn_train)


def pairs(study) -> list[Pair]:
    """Every (config, shared data set) pair of the study, in config-file order."""
    universe = set(coverage.data_sets(study)["shared"])
    ran = [(ref, ref.load()) for ref in study.configs]
    out = []
    for ref, cfg in ran:
        full = fw.full_config(ref)
        have = {d.name for d in cfg.datasets}
        for d in full.datasets:
            if d.name not in universe:
                continue
            if d.name in have:
                state = "ran"
            elif any(o is not cfg and _same_runs(full, o) and d.name in
                     {x.name for x in o.datasets} for _, o in ran):
                state = "covered"
            else:
                state = "left"
            out.append(Pair(cfg.name, d.name, state, full, d, cfg))
    return out


def plan_key(pair: Pair) -> str:
    """Hash of the pair's run keys and portable run hashes."""
    h = hashlib.sha256()
    for key, (ph, _) in fw.plan_hashes(pair.alone()).items():
        h.update(json.dumps([list(key), ph]).encode())
    return h.hexdigest()[:12]


def planned_runs(pair: Pair) -> int:
    return sum(1 for _ in fw.plan_hashes(pair.alone()))


def fingerprint(pair: Pair, fps) -> str:
    """The config fingerprint of the pair's config on its data set alone."""
    from reproduce.fingerprint import config_paths, digest_of

    return digest_of(fps.resolve(config_paths(pair.alone(), fps.traits)), fps.digests)


def slice_of(cfg) -> tuple[int, int]:
    """(split, labelled-set size) of a sample: the first split, the middle size."""
    sizes = sorted(cfg.protocol.labeled or (0,))
    return 0, sizes[(len(sizes) - 1) // 2]


# --------------------------------------------------------------------------- stored costs
def persisted(cfg) -> dict[str, tuple[int, float, float, int]]:
    """Data set → (runs, wall seconds, CPU seconds, runs with CPU seconds) of the persisted
    store of ``cfg``."""
    from reproduce import artifacts

    runs: dict[str, list] = {}
    cpu: dict[str, list[float]] = {}
    for key, r, *_ in artifacts.Persisted(fw.persisted_dir(cfg)).read(with_blobs=False):
        runs.setdefault(key[0], []).append((key, float(r["rank_time_s"] or 0),
                                            float(r["eval_time_s"] or 0)))
        c = artifacts.cpu_time(r)
        if c is not None:
            cpu.setdefault(key[0], []).append(c)
    return {d: (len(rs), fw.wall_seconds(rs), sum(cpu.get(d, ())), len(cpu.get(d, ())))
            for d, rs in runs.items()}



# --------------------------------------------------------------------------- the file
def load(path: Path = COSTS) -> dict:
    """{pair key: sample} of the samples file ({} when there is none)."""
    if not Path(path).is_file():
        return {}
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return dict(doc.get("samples") or {}) if doc.get("format") == FORMAT else {}


def current(samples: dict, pair: Pair, fp: str, plan: str) -> dict | None:
    """The pair's sample when it was taken for this fingerprint and plan, else None."""
    s = samples.get(pair.key)
    if s is None or s.get("fingerprint") != fp or s.get("plan") != plan:
        return None
    return s


@contextlib.contextmanager
def _locked(path: Path):
    import fcntl

    lock = fw.RESULTS / "costs.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def save(key: str, sample: dict, path: Path = COSTS) -> None:
    """Add one sample to the file, merging what other commands wrote meanwhile."""
    from reproduce import artifacts

    path = Path(path)
    with _locked(path):
        samples = load(path)
        samples[key] = sample
        artifacts.write_json(path, {"format": FORMAT, "samples": dict(sorted(samples.items()))})


# --------------------------------------------------------------------------- sampling
def _slice_runs(cfg, split: int, labeled: int) -> list[tuple[object, float, list]]:
    """Run one slice of ``cfg`` (one data set) in this process: per task its ranker entry,
    the CPU seconds of its runs (ranking plus evaluation, as the runner stores them) and
    their (key, ranking s, evaluation s)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from frcli.experiment.executor import (_forest_groups, _run_group, build_plan, preflight,
                                           with_screens)

    plan = with_screens(build_plan(cfg), preflight(cfg))    # loads the data: not counted
    tasks = [t for t in plan if t.split == split and t.labeled == labeled]
    out = []
    for group in _forest_groups(tasks):
        for task, res in zip(group, _run_group(group, 1)):
            if "error" in res:
                raise RuntimeError(f"{task.label}: {res['error']}")
            out.append((task.ranker, sum(r["cpu_time_s"] for r in res["runs"]),
                        [((task.dataset.name, task.split, task.labeled, task.ranker.method,
                           r["params"]), r["rank_time_s"], r["eval_time_s"])
                         for r in res["runs"]]))
    return out


def trees_of(ranker) -> int | None:
    """The number of trees of a ranker entry that grows one tree ensemble of a fixed size
    (``trees`` given as one integer, or its default); None for any other ranker (Relief,
    single trees, a grid of sizes)."""
    from frcli.rankers.registry import get_ranker

    if "trees" in ranker.params:
        t = ranker.params["trees"]
    else:
        t = next((p.default for p in get_ranker(ranker.method).params if p.name == "trees"),
                 None)
    return t if isinstance(t, int) and not isinstance(t, bool) else None


def linear_in_trees(c1: float, c2: float, t: int, full: int) -> float:
    """CPU seconds at ``full`` trees from those at ``t`` (``c1``) and ``2t`` (``c2``) trees:
    a + b × trees through the two points (b, the cost of a tree, and a, what does not grow
    with the trees: evaluation, the data's preparation; neither below 0)."""
    b = max(0.0, (c2 - c1) / t)
    a = max(0.0, c1 - b * t)
    return a + b * full


def _sample(cfg, split: int, labeled: int, sub_slice: int | None = None) -> dict:
    """Run one slice of ``cfg`` (one data set) in this process; the runs' CPU and wall
    seconds (ranking plus evaluation, as the runner stores them).

    With ``sub_slice`` = t, the ranker entries that grow ensembles of more than 2t trees run
    at t and at 2t trees instead, and their CPU seconds are fitted linearly in the number of
    trees (``linear_in_trees``, per ensemble size) and taken at their own size: the trees of
    one ensemble are grown alike and independently (boosting's in turn, each on the same
    rows), so the cost of a tree is measured, not assumed. The other entries run whole.
    ``wall_s`` is then the wall time of the passes that ran."""
    if sub_slice:
        counts = [trees_of(r) for r in cfg.rankers]
        big = [i for i, n in enumerate(counts) if n is not None and n > 2 * sub_slice]
    if not sub_slice or not big:
        done = _slice_runs(cfg, split, labeled)
        walls = [w for *_, ws in done for w in ws]
        return {"runs": len(walls), "cpu_s": round(sum(c for _, c, _ in done), 2),
                "wall_s": round(fw.wall_seconds(walls), 2)}
    rest = tuple(r for i, r in enumerate(cfg.rankers) if i not in big)
    done = _slice_runs(dataclasses.replace(cfg, rankers=rest), split, labeled) if rest else []
    whole = sum(c for _, c, _ in done)
    runs = sum(len(ws) for *_, ws in done)
    wall = fw.wall_seconds([w for *_, ws in done for w in ws])
    by_size: dict[int, list[float]] = {}
    passes = []
    for t in (sub_slice, 2 * sub_slice):
        sub = tuple(dataclasses.replace(cfg.rankers[i], params={**cfg.rankers[i].params,
                                                                "trees": t}) for i in big)
        got = _slice_runs(dataclasses.replace(cfg, rankers=sub), split, labeled)
        cpu: dict[int, float] = {}
        for ranker, c, _ in got:
            n = counts[big[sub.index(ranker)]]
            cpu[n] = cpu.get(n, 0.0) + c
        for n, c in cpu.items():
            by_size.setdefault(n, []).append(c)
        walls = [w for *_, ws in got for w in ws]
        wall += fw.wall_seconds(walls)
        passes.append(round(sum(cpu.values()), 2))
        if t == sub_slice:
            runs += len(walls)
    fitted = sum(linear_in_trees(c1, c2, sub_slice, n) for n, (c1, c2) in by_size.items())
    return {"runs": runs, "cpu_s": round(whole + fitted, 2), "wall_s": round(wall, 2),
            "sub_slice": {"trees": [sub_slice, 2 * sub_slice], "of": sorted(by_size),
                          "cpu_s": passes, "whole_cpu_s": round(whole, 2)}}


def _priority(study) -> dict[str, float]:
    """Pair key → the order in which to sample it (seconds): a set the config ran, its
    persisted runs' ranking plus evaluation seconds; a left-out set, those per run of the
    config's largest set that ran × its planned runs × the ratio of rows × features; 0
    when neither is known."""
    from reproduce import artifacts

    out: dict[str, float] = {}
    universe = set(coverage.data_sets(study)["shared"])
    for ref in study.configs:
        cfg = ref.load()
        cost: dict[str, float] = {}
        nruns: dict[str, int] = {}
        for key, r, *_ in artifacts.Persisted(fw.persisted_dir(cfg)).read(with_blobs=False):
            cost[key[0]] = (cost.get(key[0], 0.0) + float(r["rank_time_s"] or 0)
                            + float(r["eval_time_s"] or 0))
            nruns[key[0]] = nruns.get(key[0], 0) + 1
        out.update({f"{cfg.name}/{d}": s for d, s in cost.items()})
        full = fw.full_config(ref)
        left = [d.name for d in full.datasets if d.name in universe and d.name not in cost]
        sizes = {d: fw.data_size(d, full) for d in list(cost) + left}
        refs = [d for d in cost if sizes.get(d)]
        plan_runs = fw.runs_per_dataset(full) if left else {}
        for d in left:
            if refs and sizes.get(d):
                base = max(refs, key=lambda x: sizes[x][0] * sizes[x][1])
                ratio = (sizes[d][0] * sizes[d][1]) / (sizes[base][0] * sizes[base][1])
                out[f"{cfg.name}/{d}"] = (cost[base] / max(1, nruns[base])
                                          * plan_runs.get(d, 0) * ratio)
    return out


def sample_costs(chosen, *, budget: float | None, jobs: int = 1, digests: dict | None = None,
                 path: Path = COSTS, ran: bool = False, cheapest_first: bool = False,
                 sub_slice: int | None = None) -> int:
    """Sample every left-out pair of the chosen studies that has no current sample (with
    ``ran``, also every pair they ran whose persisted runs have no CPU seconds), the
    costliest by the linear extrapolation or the stored wall seconds first, ``jobs`` at a
    time, until ``budget`` seconds of wall time have passed (``cheapest_first``: the pairs
    whose slice that estimate makes cheapest first, so a short budget samples many;
    ``sub_slice``: ensembles at that many trees and twice as many, see ``_sample``).
    Returns the number of samples taken."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from frcli.experiment.executor import _stop_workers, die_with_parent

    deadline = None if budget is None else time.monotonic() + budget
    digests = digests or fw.canary_digests(jobs)
    fps = fw.fingerprints(digests)
    todo, seen = [], set()
    samples = load(path)
    for st in chosen:
        prio = _priority(st)
        for p in pairs(st):
            if p.key in seen or p.state == "covered" or (p.state == "ran" and not ran):
                continue
            if p.state == "ran":
                n, _, _, n_cpu = persisted(p.ran).get(p.dataset, (0, 0.0, 0.0, 0))
                if n and n_cpu == n:
                    continue
            seen.add(p.key)
            fp, plan = fingerprint(p, fps), plan_key(p)
            if current(samples, p, fp, plan) is not None:
                continue
            total = prio.get(p.key, 0.0)
            if cheapest_first:       # the slice's share of the pair's cost
                split_n = p.full.protocol.n_splits * len(p.full.protocol.labeled or (0,))
                total = -total / max(1, split_n)
            todo.append((total, p, fp, plan))
    fps.traits.save()
    todo.sort(key=lambda x: -x[0])
    fw.log(f"sampling the costs of {len(todo)} (config, data set) pairs"
           + (f" within {budget:.0f} s" if budget else "") + f", {jobs} at a time; "
           f"{len(seen) - len(todo)} have a current sample")
    taken = 0
    queue = list(todo)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"),
                             initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        futs: dict = {}

        def fill() -> None:
            while queue and len(futs) < jobs:
                _, p, fp, plan = queue.pop(0)
                split, labeled = slice_of(p.full)
                f = pool.submit(_sample, p.alone(), split, labeled, sub_slice)
                futs[f] = (p, fp, plan, split, labeled, time.monotonic())

        try:
            fill()
            while futs:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError
                done, _ = wait(list(futs), timeout=left, return_when=FIRST_COMPLETED)
                if not done:
                    raise TimeoutError
                for f in done:
                    p, fp, plan, split, labeled, t0 = futs.pop(f)
                    try:
                        res = f.result()
                    except Exception as e:  # noqa: BLE001 - one pair fails, the others go on
                        fw.log(f"{p.key}: sample failed: {e}")
                        continue
                    n = planned_runs(p)
                    sample = {**res, "split": split, "labeled": labeled, "planned": n,
                              "fingerprint": fp, "plan": plan, "commit": fw.commit(),
                              "date": _dt.date.today().isoformat()}
                    save(p.key, sample, path)
                    taken += 1
                    per = res["cpu_s"] / max(1, res["runs"])
                    sub = res.get("sub_slice")
                    fw.log(f"{p.key}: split {split}"
                           + (f", {labeled} labelled" if labeled else "")
                           + (f", sub-slice (ensembles at {sub['trees'][0]} and "
                              f"{sub['trees'][1]} trees: {sub['cpu_s'][0]:.1f} and "
                              f"{sub['cpu_s'][1]:.1f} s CPU; fitted to "
                              f"{md.listing([str(n) for n in sub['of']])} trees)" if sub else "")
                           + f": {res['runs']} runs, {res['cpu_s']:.1f} s CPU "
                           f"({res['wall_s']:.1f} s wall, {time.monotonic() - t0:.0f} s "
                           f"elapsed); {per:.2f} s CPU per run × {n} planned = "
                           f"{per * n / 3600:.2f} h")
                fill()
        except (TimeoutError, KeyboardInterrupt) as e:
            running = ", ".join(p.key for p, *_ in futs.values())
            _stop_workers(pool)
            why = "the budget is spent" if isinstance(e, TimeoutError) else "interrupted"
            fw.log(f"{why}: stopped {running or 'nothing'} (not recorded); "
                   f"{len(queue)} pairs not started")
            if isinstance(e, KeyboardInterrupt):
                raise
    fw.log(f"{taken} samples taken, kept in {fw.relative(path)}")
    return taken
