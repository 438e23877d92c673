"""Run a plan: tasks go to this process, a local process pool or a dask.distributed cluster;
results come back to the client, which alone writes the store (one transaction per run).

Workers limit BLAS/OpenMP to one thread and call the rankers with ``jobs=1`` (the pool provides
the parallelism; nested threads would only oversubscribe the cores).

Each run records its wall seconds of ranking and of evaluation, and its CPU seconds of both:
the worker process's own CPU time around them, which neither the machine's load nor the
number of jobs inflates. It is exact when a process runs one task at a time (the local pool;
a Dask cluster with one thread per worker, as ``--dask-scheduler local`` makes it); a Dask
worker with several threads would count its other tasks' CPU time too.
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import sys
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from frcli.errors import ConfigError, UserError, option_style, sigterm_raises
from frcli.experiment.config import DatasetSpec, ExperimentConfig, ProtocolSpec
from frcli.experiment.plan import (Plan, Task, build_plan, canonical, derive_seed,
                                   run_definition)
from frcli.rankers.base import MAX_JOBS
from frcli.results.store import Store

# -- worker side ------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def load_spec(ds: DatasetSpec):
    """(Dataset with every row, number of rows from the train files or None); a smoke run's
    ``max_rows`` cuts the rows (``frcli.experiment.smoke``)."""
    data, n_train = _load_spec(ds)
    if ds.max_rows is not None:
        from frcli.experiment.smoke import cut_rows

        data, n_train = cut_rows(data, n_train, ds.max_rows)
    return data, n_train


def _load_spec(ds: DatasetSpec):
    from frcli.data.splits import concat

    if ds.catalog:
        from frcli.data import catalog

        entry = catalog.get(ds.name)
        if entry.test:
            tr, te = catalog.load_train_test(ds.name)
            return concat(tr, te, name=ds.name), tr.n_examples
        return catalog.load(ds.name), None
    if ds.is_relational:
        from frcli.experiment import relational

        data = relational.load(ds.path[0])
        data.name = ds.name
        return data, None
    from frcli.data import load_dataset
    from frcli.data.screen import screen, screen_like

    opts: dict[str, Any] = {"name": ds.name}
    for k in ("targets", "labels", "task", "hierarchy"):
        v = getattr(ds, k)
        if v is not None:
            opts[k] = v
    for k in ("drop", "keep", "nominal"):
        if getattr(ds, k):
            opts[k] = list(getattr(ds, k))
    if ds.semi_supervised:
        opts["semi_supervised"] = True
    # the first training file decides which columns are identifiers; every other file loses
    # the same columns, so a small or odd test file cannot change the features ranked
    files = [load_dataset(p, screen=False, **opts) for p in ds.path + ds.test]
    first = screen(files[0], keep=ds.keep, where=ds.path[0])
    files = [first] + [screen_like(f, first) for f in files[1:]]
    tr = files[0]
    for f in files[1:len(ds.path)]:
        tr = concat(tr, f, name=ds.name)
    if not ds.test:
        return tr, None
    out = tr
    for f in files[len(ds.path):]:
        out = concat(out, f, name=ds.name)
    return out, tr.n_examples


@lru_cache(maxsize=8)
def _splits(ds: DatasetSpec, protocol: ProtocolSpec):
    from frcli.data import splits as S

    data, n_train = load_spec(ds)
    n = data.n_examples
    if ds.is_relational:
        from frcli.experiment import relational

        return relational.splits(data, protocol)[0]
    if protocol.type == "given":
        if n_train is None:
            raise ConfigError(f"protocol 'given' needs a test file for data set {ds.name!r}")
        return S.given_split(n_train, n - n_train)
    if protocol.type == "holdout":
        return S.holdout_splits(n, protocol.test_fraction, protocol.repeats, protocol.seed)
    y = data.Y[:, 0] if data.task == "classification" and protocol.stratify else None
    if protocol.type == "repeated-cv":
        out = []
        for r in range(protocol.repeats):
            if data.task == "mlc" and protocol.stratify:
                folds = S.iterative_stratification(data.Y, protocol.folds, protocol.seed, r)
            else:
                folds = S.kfold_assign(n, protocol.folds, protocol.seed, y, repeat=r)
            out.extend(S.folds_to_splits(folds))
        return out
    return S.kfold_splits(n, protocol.folds, protocol.seed, y)


def _labelled_rows(task: Task, train_idx: np.ndarray) -> np.ndarray:
    """Training rows that keep their targets at size ``task.labeled`` (nested across sizes)."""
    from frcli.data import splits as S

    p = task.protocol
    if p.type == "cv":
        folds = [te for _, te in _splits(task.dataset, p)]
        return S.thin_cv_labels(folds, [task.labeled], p.seed)[task.labeled][task.split]
    seed = derive_seed(p.seed, "thin", task.dataset.name, task.split)
    return S.thin_labels(train_idx, [task.labeled], seed)[task.labeled]


def die_with_parent(parent: int) -> None:
    """Worker initializer: end this process when ``parent`` (the client) ends, however it
    ends (``kill``, SIGKILL, a crash), instead of living on reparented to init.

    Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, the kernel's own notice (sent when the thread
    that spawned us exits: the pool spawns from the client's main thread). Everywhere, as a
    second line: a daemon thread that polls the parent pid once a second. The pool's
    resource tracker then sees its pipe close (the parent and every worker held it) and ends
    too."""
    import threading

    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)      # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):      # pragma: no cover - no prctl: the thread does
            pass
    if os.getppid() != parent:                 # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="frcli-parent-watch", daemon=True).start()


def cpu_seconds(seconds: float) -> float:
    """CPU seconds as stored: to the millisecond (finer digits are noise and would only make
    the persisted stores larger)."""
    return round(max(0.0, float(seconds)), 3)


def cpu_shares(walls: list[float]) -> list[float]:
    """How one ranking call's CPU time is split over the rankings it returned: in proportion
    to their own wall times (a Relief grid done in one pass gives each the same), evenly when
    those are all zero. The shares sum to one, so a task's runs add up to what it cost."""
    total = sum(walls)
    n = max(1, len(walls))
    return [w / total for w in walls] if total > 0 else [1.0 / n] * len(walls)


def run_task(task: Task, threads: int = 1, forests: Any = None) -> dict[str, Any]:
    """Rank and evaluate one task with ``threads`` engine/BLAS threads; returns plain data
    (never raises). ``forests``: the ``ForestCache`` shared with the tasks run before it
    (``frcli.rankers.ensemble.shared_forests``; None: a new one)."""
    import warnings

    try:
        from threadpoolctl import threadpool_limits

        # warnings go back to the client, which shows each distinct one once
        with threadpool_limits(limits=threads), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = _run_task(task, threads, forests)
        res["warnings"] = sorted({str(w.message) for w in caught})
        return res
    except UserError as e:
        return {"error": str(e), "user_error": True}
    except Exception as e:  # noqa: BLE001 - reported by the client, the others go on
        tb = traceback.format_exc(limit=-3)
        return {"error": f"{type(e).__name__}: {e}", "traceback": tb, "user_error": False}


def _run_task(task: Task, jobs: int, forests: Any) -> dict[str, Any]:
    from frcli.data.splits import hide_labels
    from frcli.evaluate.protocol import evaluate_ranking
    from frcli.experiment.plan import run_params
    from frcli.rankers.registry import get_ranker

    data, _ = load_spec(task.dataset)
    train_idx, test_idx = _splits(task.dataset, task.protocol)[task.split]
    if task.dataset.is_relational:     # judged by the model's own accuracy
        from frcli.experiment import relational

        runs = relational.run(task, data, train_idx, test_idx, jobs)
        return {"runs": runs, "n_train": len(train_idx), "n_test": len(test_idx),
                "task": data.task, "n_examples": data.n_examples,
                "feature_names": data.feature_names}
    test = data.subset(test_idx)
    knn_train = data.subset(train_idx)
    rank_data = knn_train
    if task.labeled:
        lab = _labelled_rows(task, train_idx)
        rank_data = hide_labels(data, train_idx, lab)
        if task.knn_train == "labeled":
            knn_train = data.subset(lab)
    if task.ranker.labeled_only:
        rank_data = rank_data.subset(rank_data.labeled)
    ranker = get_ranker(task.ranker.method)
    t0, c0 = time.perf_counter(), time.process_time()
    from frcli.rankers.ensemble import shared_forests

    with shared_forests(forests):   # Symbolic/Genie3/RF-score tasks of one ensemble: one forest
        rankings = ranker.rank(rank_data, task.ranker.params, seed=task.seed, jobs=jobs)
    total_rank = time.perf_counter() - t0
    rank_cpu = time.process_time() - c0
    if len(rankings) != len(task.params):
        raise RuntimeError(f"{task.ranker.method} returned {len(rankings)} rankings for "
                           f"{len(task.params)} parameter combinations")
    declared = {p.name for p in ranker.params}
    expected = set(task.params)
    walls = [float(rk.timings.get("rank_s", total_rank / len(rankings))) for rk in rankings]
    shares = cpu_shares(walls)
    runs = []
    for pos, rk in enumerate(rankings):
        # match by the ranking's own params when complete; else by position (same order)
        key = run_params(task.ranker, {k: v for k, v in rk.params.items() if k in declared})
        if key not in expected:
            key = task.params[pos]
        t1, c1 = time.perf_counter(), time.process_time()
        scores = evaluate_ranking(knn_train, test, rk.importances, task.evaluation)
        runs.append({"params": key, "scores": scores, "importances": rk.importances,
                     "per_target": rk.per_target, "meta": {**rk.meta, "timings": rk.timings},
                     "rank_time_s": walls[pos],
                     "eval_time_s": time.perf_counter() - t1,
                     "cpu_time_s": cpu_seconds(rank_cpu * shares[pos]
                                               + time.process_time() - c1)})
    return {"runs": runs, "n_train": len(train_idx), "n_test": len(test_idx),
            "task": data.task, "n_examples": data.n_examples,
            "feature_names": data.feature_names}


# -- client side ------------------------------------------------------------------------------


@dataclass
class Summary:
    directory: Path
    tasks: int = 0
    computed: int = 0
    skipped: int = 0
    runs_written: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    internal_failures: int = 0       # failures that are bugs, not bad input (exit code 1)
    tracebacks: list[str] = field(default_factory=list)   # of the internal failures
    seconds: float = 0.0


def preflight(cfg: ExperimentConfig) -> dict[str, tuple[str, ...]]:
    """Load every data set, make its splits and check each method and its parameters fit
    the data set (``Ranker.validate``: task, parameter values, task-dependent parameters such
    as Relief's ``distance``), in the client and before the store is touched: a bad path,
    target spec, task or parameter fails the whole command at once with a message naming the
    config entry, instead of failing every task after an empty store has been created.

    Returns, per data set, the columns the identifier screen left out."""
    from frcli.rankers.registry import get_ranker

    screened = {}
    for i, ds in enumerate(cfg.datasets):
        try:
            with option_style("config"):     # the options are the config's keys (keep: ...)
                data, _ = load_spec(ds)
            if data.n_examples < 2:
                raise UserError(f"{data.n_examples} data row(s): too few to split")
            splits = _splits(ds, cfg.protocol)
        except UserError as e:
            raise ConfigError(f"{cfg.source}: datasets[{i}] ({ds.name}): {e}") from None
        screened[ds.name] = tuple(getattr(data, "screened", ()))
        n_train = min(len(tr) for tr, _ in splits)
        too_big = [L for L in cfg.protocol.labeled if L >= n_train]
        if too_big:
            warnings.warn(f"{cfg.source}: protocol.labeled {too_big} >= the {n_train} training "
                          f"rows of {ds.name!r}: those runs keep every label (not "
                          f"semi-supervised)")
        if ds.is_relational:
            from frcli.experiment import relational

            note = relational.splits(data, cfg.protocol)[1]
            if "stratified" in note and data.folds is not None:
                warnings.warn(f"{ds.name}: {note}")
        elif cfg.evaluation.knn >= n_train:
            warnings.warn(f"{cfg.source}: evaluation.knn = {cfg.evaluation.knn} >= the "
                          f"{n_train} training rows of {ds.name!r}: every kNN prediction uses "
                          f"all of them")
        for j, r in enumerate(cfg.rankers):
            try:
                get_ranker(r.method, data).validate(data, r.params)
            except UserError as e:
                raise ConfigError(f"{cfg.source}: rankers[{j}] with datasets[{i}] "
                                  f"({ds.name}): {e}") from None
    return screened


def with_screens(plan: Plan, screened: dict[str, tuple[str, ...]]) -> Plan:
    """``plan`` whose data sets carry the columns their screen left out (``preflight``), so
    that those columns enter every run's definition and hash."""
    datasets = tuple(dataclasses.replace(d, screened=screened.get(d.name, ()))
                     for d in plan.cfg.datasets)
    return Plan(dataclasses.replace(plan.cfg, datasets=datasets), plan.grids)


def _conflicts(store: Store, plan: Plan, done: dict) -> list[str]:
    """The stored runs of this plan whose definition (hash) differs from the config's; one
    pass over the stored runs, not over the plan."""
    out = []
    for key, h in done.items():
        want = plan.expected_hash(key)
        if want is not None and want != h:
            if not out:           # explain the first one
                t = plan.cfg
                ds = next(d for d in t.datasets if d.name == key[0])
                r = next(r for r in t.rankers if r.method == key[3])
                old = store.definition(key) or {}
                new = run_definition(t, ds, key[2], r)
                changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
                what = ", ".join(changed) or "definition"
                out.append(f"{key[0]} split {key[1]} {key[3]} {key[4]} ({what} changed)")
            else:
                out.append(str(key))
    return out


def _forest_groups(tasks: Iterable[Task]) -> Iterator[list[Task]]:
    """Tasks that share a forest (one data split, one ensemble: the Symbolic, Genie3 and
    RF-score rankers, plan.seed_key), so one worker grows it once. Streamed: the plan yields
    a split's tasks together, so only one split's tasks are held at a time."""
    from frcli.experiment.plan import seed_key

    block: tuple | None = None
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        b = (t.dataset.name, t.split, t.labeled)
        if b != block:
            yield from groups.values()
            block, groups = b, {}
        groups.setdefault(seed_key(t.ranker.method), []).append(t)
    yield from groups.values()


def _run_group(tasks: list[Task], threads: int) -> list[dict[str, Any]]:
    """The tasks of one forest group in turn, sharing one cache of forests."""
    from frcli.rankers.ensemble import ForestCache

    forests = ForestCache()
    return [run_task(t, threads, forests) for t in tasks]


def _iter_local(tasks: Iterable[Task], jobs: int, threads: int) -> Iterator[tuple[Task, dict]]:
    if jobs <= 1:
        from frcli.rankers.ensemble import ForestCache

        forests = ForestCache()      # one for the run: consecutive tasks share their forests
        for t in tasks:
            yield t, run_task(t, threads, forests)
        return
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"),
                             initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        # a bounded window of submitted forest groups: a large plan streams through the
        # pool instead of being pickled into it up front
        pending = _forest_groups(tasks)
        futs: dict = {}

        def fill() -> None:
            while len(futs) < 4 * jobs:
                g = next(pending, None)
                if g is None:
                    return
                futs[pool.submit(_run_group, g, threads)] = g

        try:
            fill()
            while futs:
                finished, _ = wait(list(futs), return_when=FIRST_COMPLETED)
                for f in finished:
                    g = futs.pop(f)
                    for t, res in zip(g, f.result()):
                        yield t, res
                fill()
        except BaseException:
            # no Future.cancel() first: the broken pool marks every pending future itself,
            # and marking a cancelled one raises InvalidStateError in its manager thread
            _stop_workers(pool)
            raise


def _stop_workers(pool) -> None:
    """Interrupted (Ctrl-C, SIGTERM, an error in the client): end the running tasks now
    instead of waiting for them in the pool's shutdown. Finished runs are already stored;
    the interrupted ones are simply not, and the next run computes them."""
    stop = getattr(pool, "terminate_workers", None)          # Python >= 3.14
    if stop is not None:
        stop()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()


def _iter_dask(tasks: Iterable[Task], address: str, jobs: int, threads: int
               ) -> Iterator[tuple[Task, dict]]:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UserError("--dask-scheduler needs dask.distributed (pip install "
                        "'frcli[dask]')") from None
    cluster = None
    if address == "local":
        cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout="20s")
        except OSError as e:
            raise UserError(f"cannot reach the dask scheduler at {address}: {e}") from None
    try:
        window = 4 * max(1, jobs, len(client.scheduler_info().get("workers", {})))
        pending = _forest_groups(tasks)      # a forest group per worker call, as locally
        futs: dict = {}
        for g in itertools.islice(pending, window):     # a bounded window, as locally
            futs[client.submit(_run_group, g, threads, pure=False)] = g
        ac = as_completed(list(futs))
        for f in ac:
            g = futs.pop(f)
            yield from zip(g, f.result())
            g = next(pending, None)
            if g is not None:
                nf = client.submit(_run_group, g, threads, pure=False)
                futs[nf] = g
                ac.add(nf)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_experiment(cfg: ExperimentConfig, *, jobs: int = 1, dask: str | None = None,
                   force: bool = False, output: str | Path | None = None,
                   progress: bool | None = None, threads: int = 1,
                   on_result: Callable[[Task, dict], None] | None = None) -> Summary:
    """Plan, skip what is stored, compute the rest and store it; see the module docstring.

    ``threads``: engine threads per task (default 1: the pool or cluster is the parallelism).
    """
    if not 1 <= jobs <= MAX_JOBS or not 1 <= threads <= MAX_JOBS:
        raise ConfigError(f"--jobs {jobs} / --threads {threads}: each must be in 1..{MAX_JOBS} "
                          f"(this machine has {os.cpu_count()} cores)")
    plan = build_plan(cfg)
    load_spec.cache_clear()      # files read by an earlier run in this process may have changed
    _splits.cache_clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = with_screens(plan, preflight(cfg))
    cfg = plan.cfg
    shown: set[str] = set()

    def warn_once(messages, category: type[Warning] = UserWarning) -> None:
        for m in messages:
            if m not in shown:
                shown.add(m)
                warnings.warn(m, category, stacklevel=2)

    for w in caught:          # (a notice stays a notice: "note:" on the command line)
        warn_once([str(w.message)], w.category)
    outdir = cfg.output_dir(output)
    t_start = time.perf_counter()
    with Store(outdir, replace_damaged=force) as store:
        done = store.finished()
        if not force:
            bad = _conflicts(store, plan, done)
            if bad:
                raise ConfigError(
                    f"{len(bad)} finished run(s) in {outdir} were computed with a different "
                    f"definition, e.g. {bad[0]}; rerun with --force to recompute them, or use "
                    f"another name or --output")

        def unfinished(t: Task) -> bool:
            return force or any(k not in done for k in t.run_keys())

        left = Counter(t.dataset.name for t in plan if unfinished(t))   # per data set
        n_todo = sum(left.values())
        todo = (t for t in plan if unfinished(t))          # streamed, never a list
        store.save_config(cfg.text or canonical({"name": cfg.name}))
        store.set_current(plan.run_keys())
        summary = Summary(outdir, tasks=len(plan), skipped=len(plan) - n_todo)
        known_datasets: set[str] = set()
        workers = max(1, min(jobs, n_todo))
        it = (_iter_dask(todo, dask, workers, threads) if dask
              else _iter_local(todo, workers, threads))
        # with worker processes, SIGTERM unwinds (pool torn down, one line, exit 143)
        unwind = sigterm_raises() if dask or workers > 1 else contextlib.nullcontext()
        with _progress(left, progress) as advance, unwind:
            for task, res in it:
                warn_once(res.get("warnings", ()))
                if "error" in res:
                    summary.failures.append((task.label, res["error"]))
                    if res.get("traceback"):
                        summary.tracebacks.append(f"{task.label}:\n{res['traceback']}")
                    summary.internal_failures += not res.get("user_error", False)
                    advance(task, failed=True)
                    continue
                if task.dataset.name not in known_datasets:
                    store.put_dataset(task.dataset.name, res["task"], res["n_examples"],
                                      res["feature_names"])
                    known_datasets.add(task.dataset.name)
                hashes = dict(zip(task.params, task.hashes))
                for run in res["runs"]:
                    key = (task.dataset.name, task.split, task.labeled, task.ranker.method,
                           run["params"])
                    if not force and done.get(key) == hashes[run["params"]]:
                        continue
                    store.put_run(key, run_hash=hashes[run["params"]],
                                  definition=run_definition(cfg, task.dataset, task.labeled,
                                                            task.ranker),
                                  seed=task.seed, n_train=res["n_train"], n_test=res["n_test"],
                                  rank_time_s=run["rank_time_s"],
                                  eval_time_s=run["eval_time_s"],
                                  cpu_time_s=run.get("cpu_time_s"), scores=run["scores"],
                                  importances=run["importances"],
                                  per_target=run["per_target"], meta=run["meta"])
                    summary.runs_written += 1
                summary.computed += 1
                if on_result is not None:
                    on_result(task, res)
                advance(task)
    summary.seconds = time.perf_counter() - t_start
    return summary


class _progress:
    """Progress of the tasks on stderr: a rich bar (counts, elapsed, ETA) on a terminal, else
    one log line per finished data set and at least one every ``LOG_EVERY`` seconds (so a run
    whose output goes to a log shows it is alive). ``enabled=False`` silences both; True
    forces the bar."""

    LOG_EVERY = 60.0

    def __init__(self, left: dict[str, int], enabled: bool | None):
        """``left``: the number of tasks to run per data set."""
        self.left = dict(left)
        self.total = sum(self.left.values())
        self.enabled = enabled

    def __enter__(self):
        if self.enabled is False or self.total == 0:
            return lambda task, failed=False: None
        if self.enabled is None and not sys.stderr.isatty():
            return self._log_lines()
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                            TimeRemainingColumn(), console=Console(stderr=True),
                            transient=False)
        self.bar.__enter__()
        self.id = self.bar.add_task("tasks", total=self.total)

        def advance(task: Task, failed: bool = False) -> None:
            self.bar.update(self.id, advance=1, description=task.label[:40])

        return advance

    def _log_lines(self):
        t0 = last = time.monotonic()
        done = failed_n = 0
        n_sets = len(self.left)

        def line(text: str) -> None:
            print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

        def advance(task: Task, failed: bool = False) -> None:
            nonlocal done, failed_n, last
            done += 1
            failed_n += failed
            name = task.dataset.name
            self.left[name] -= 1
            now = time.monotonic()
            state = (f"{done}/{self.total} tasks{f', {failed_n} failed' if failed_n else ''}, "
                     f"{now - t0:.0f} s")
            if self.left[name] == 0:
                finished = sum(v == 0 for v in self.left.values())
                line(f"{name} done ({finished}/{n_sets} data sets, {state})")
                last = now
            elif now - last >= self.LOG_EVERY:
                line(f"{state}; running {task.label}")
                last = now

        return advance

    def __exit__(self, *exc):
        if hasattr(self, "bar"):
            self.bar.__exit__(*exc)
        return False
