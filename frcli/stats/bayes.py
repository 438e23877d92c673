"""Bayesian comparison of two methods (Benavoli, Corani, Demšar, Zaffalon, JMLR 2017) through
``baycomp`` (imported lazily), as the ReliefE paper uses it (rope 5 % on the rF1 scale).

Three tests, each giving the posterior probabilities that A is better by more than the region
of practical equivalence (``rope``), that the difference lies within the rope, and that B is
better:

* ``hierarchical``: the hierarchical correlated t-test over data sets, on the per-fold scores of
  a (repeated) cross-validation (Corani et al. 2017; the paper's test). baycomp samples it with
  Stan: it needs ``pystan`` (the ``stan`` extra: ``pip install 'frcli[stan]'``) and a C++
  compiler; the first use compiles the model once per machine (httpstan's cache; minutes, see
  ``_check_stan``), later uses take seconds per pair. When Stan cannot run, the command says
  so in one line.
* ``signed-rank``: the Bayesian signed-rank test on the per-data-set means (no Stan).
* ``correlated``: the correlated t-test on one data set's per-fold scores (Nadeau–Bengio
  correlation 1/folds), one verdict per data set.

Scores: one value per (data set, method, split) from a result store (the tidy frame of
``frcli.stats.table``); ``runs`` = the number of CV repetitions (a ``repeated-cv`` store knows
it). The paper's rope is 5 % (0.05 on the rF1 scale) and its per-fold score "the top ranking"
(``rf1_max``). Measures where lower is better are negated, so "better" keeps its meaning.
The simplex ("triangle") plot shows the posterior sample (baycomp's drawing).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from frcli.errors import ConfigError, UserError

TESTS = ("hierarchical", "signed-rank", "correlated")


@dataclass
class BayesResult:
    a: str
    b: str
    test: str
    rope: float
    p_a: float
    p_rope: float
    p_b: float
    n_datasets: int
    n_scores: int
    runs: int
    per_dataset: list[dict[str, Any]] = field(default_factory=list)
    sample: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"a": self.a, "b": self.b, "test": self.test, "rope": self.rope,
             "p_a_better": self.p_a, "p_rope": self.p_rope, "p_b_better": self.p_b,
             "n_datasets": self.n_datasets, "scores_per_dataset": self.n_scores,
             "runs": self.runs}
        if self.per_dataset:
            d["per_dataset"] = self.per_dataset
        return d


def _baycomp():
    try:
        import baycomp
    except ImportError:
        raise UserError("the Bayesian tests need baycomp (pip install baycomp)") from None
    return baycomp


def fold_scores(df: pd.DataFrame, measure: str, labels: Sequence[str],
                datasets: Sequence[str]) -> np.ndarray:
    """(datasets, labels, splits) scores from a tidy frame with a ``label`` column; every
    method must have the same splits of a data set (a ``ConfigError`` otherwise)."""
    sub = df[(df["measure"] == measure) & df["label"].isin(labels)
             & df["dataset"].isin(datasets)]
    out = []
    n_splits = None
    for ds in datasets:
        part = sub[sub["dataset"] == ds]
        piv = part.pivot_table(index="split", columns="label", values="value", aggfunc="mean")
        piv = piv.reindex(columns=list(labels))
        if piv.isna().any().any():
            raise ConfigError(f"{ds}: the methods do not share every split for {measure!r}; "
                              "Bayesian tests need paired per-split scores")
        if n_splits is None:
            n_splits = len(piv)
        elif len(piv) != n_splits:
            raise ConfigError(f"{ds}: {len(piv)} splits, other data sets have {n_splits}; "
                              "the hierarchical test needs the same number everywhere")
        out.append(piv.to_numpy().T)
    return np.array(out)


def compare(x: np.ndarray, y: np.ndarray, a: str, b: str, *, test: str = "hierarchical",
            rope: float = 0.05, runs: int = 1, lower_is_better: bool = False,
            datasets: Sequence[str] = (), seed: int = 0, nsamples: int = 20000,
            chains: int = 4) -> BayesResult:
    """Posterior probabilities for A (scores ``x``, (datasets, splits)) against B (``y``)."""
    if test not in TESTS:
        raise ConfigError(f"unknown Bayesian test {test!r}; allowed: {', '.join(TESTS)}")
    if rope < 0:
        raise ConfigError("--rope must be >= 0")
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError("x and y must be (datasets, splits) of the same shape")
    if lower_is_better:
        x, y = -x, -y
    D, S = x.shape
    if S % max(1, runs):
        raise ConfigError(f"{S} scores per data set are not {runs} repetitions of a CV")
    bc = _baycomp()
    res = BayesResult(a, b, test, float(rope), 0.0, 0.0, 0.0, D, S, int(runs))
    if test == "correlated":
        probs = []
        for i in range(D):
            p = _correlated(bc, x[i], y[i], rope, runs)
            probs.append(p)
            res.per_dataset.append({"dataset": datasets[i] if i < len(datasets) else str(i),
                                    "p_a_better": p[0], "p_rope": p[1], "p_b_better": p[2]})
        # summary: the mean of the per-data-set probabilities (one verdict per data set is
        # what the test gives; the mean is only a compact overview)
        res.p_a, res.p_rope, res.p_b = (float(v) for v in np.mean(probs, axis=0))
        return res
    if test == "signed-rank":
        if D < 2:
            raise ConfigError("the signed-rank test needs at least 2 data sets")
        post = bc.SignedRankTest(x.mean(axis=1), y.mean(axis=1), rope, nsamples=nsamples,
                                 random_state=seed)
    else:
        _check_stan(bc)
        y = _spread_constant_differences(x, y, rope, seed)
        try:
            with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp), _quiet(), \
                    _seeded_stan(seed):
                # baycomp pickles its last sample into the working directory: keep it out
                post = bc.HierarchicalTest(x, y, rope, runs=runs, nsamples=nsamples // chains,
                                           chains=chains, random_state=seed)
        except Exception as e:  # noqa: BLE001 - Stan's build or sampler failed: say so in a line
            msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
            raise UserError(f"the hierarchical test failed in baycomp/Stan ({type(e).__name__}"
                            f"{': ' + msg[:160] if msg else ''}); --bayes signed-rank needs no "
                            "Stan") from None
    res.sample = np.asarray(post.sample)
    res.p_a, res.p_rope, res.p_b = (float(v) for v in post.probs())
    return res


def _spread_constant_differences(x: np.ndarray, y: np.ndarray, rope: float,
                                 seed: int) -> np.ndarray:
    """baycomp's own guard for a data set whose differences y - x are all equal (zero
    variance breaks the Stan model): it replaces them by n//2 uniform draws in (-rope, rope)
    and their negatives, which fails for an odd number of scores (baycomp 1.0.3 assigns n//2
    values to n - n//2 slots: a ValueError on 1 x 5-fold CV). Do the same replacement here
    with a middle 0 for the odd one, so baycomp's guard never fires."""
    d = y - x
    n = d.shape[1]
    if n % 2 == 0 or not np.any(np.var(d, axis=1) == 0):
        return y
    rng = np.random.default_rng(seed)
    y = y.copy()
    h = n // 2
    for i in np.flatnonzero(np.var(d, axis=1) == 0):
        u = rng.uniform(-rope, rope, h) if rope > 0 else rng.uniform(-1e-6, 1e-6, h)
        y[i] = x[i] + np.concatenate([u, -u, [0.0]])
    return y


def _check_stan(bc) -> None:
    """Make sure Stan can run the hierarchical model, or refuse in one line before any work.

    pystan missing: name it. The model not compiled yet: compile it here, through httpstan's
    own module functions (what its build request does), because pystan's HTTP client gives
    up after 5 minutes while the first build of this model takes 3-20 minutes of C++ (measured
    19 min on the shared 2-core machine); the request then fails with a TimeoutError and
    leaves the cache without ``stderr.log``. A cached module without that file (such an
    interrupted build) makes every later request fail with an HTTP 500 that pystan cannot even
    parse: refuse, naming the folder to delete.
    """
    try:
        import httpstan.cache
        import httpstan.models
        with warnings.catch_warnings():   # pystan 3.10's own pkg_resources import warns
            warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
            import stan  # noqa: F401
    except ImportError:
        raise UserError("the hierarchical test needs pystan and a C++ compiler (pip install "
                        "'frcli[stan]'); --bayes signed-rank needs no Stan") from None
    code_path = os.path.join(os.path.dirname(bc.__file__), "hierarchical-t-test.stan")
    try:
        with open(code_path, encoding="utf-8") as fh:
            code = fh.read()
        name = httpstan.models.calculate_model_name(code)
        folder = httpstan.cache.model_directory(name)
    except Exception:  # noqa: BLE001 - another baycomp/httpstan layout: let Stan decide
        return
    built = folder.is_dir() and any(p.suffix in (".so", ".pyd") for p in folder.iterdir())
    if built and not (folder / "stderr.log").is_file():
        raise UserError(f"Stan's cached build of the hierarchical model in {folder} is "
                        "incomplete (an interrupted build); delete that folder and run again "
                        "(the first run compiles it, several minutes)")
    if not built:
        _build_stan_model(code, name)


def _build_stan_model(code: str, name: str) -> None:
    """Compile baycomp's Stan model into httpstan's cache, as httpstan's build view does
    (stanc, then the C++ extension, then ``stderr.log`` that marks the build complete)."""
    import asyncio
    import sys

    import httpstan.cache
    import httpstan.compile
    import httpstan.models

    print("compiling Stan's hierarchical model once for this machine (minutes) ...",
          file=sys.stderr, flush=True)
    try:
        httpstan.cache.delete_model_directory(name)
        _, warnings_ = httpstan.compile.compile(code, f"model_{name.split('/')[1]}")
        httpstan.cache.dump_stanc_warnings(warnings_, name)
        with _quiet():
            out = asyncio.run(httpstan.models.build_services_extension_module(code))
        httpstan.cache.dump_services_extension_module_compiler_output(out, name)
    except Exception as e:  # noqa: BLE001 - no compiler, no memory...: one line
        msg = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        raise UserError(f"could not compile Stan's hierarchical model ({msg}); it needs a C++ "
                        "compiler (g++ or clang++); --bayes signed-rank needs no Stan") from None


def _correlated(bc, x: np.ndarray, y: np.ndarray, rope: float, runs: int):
    d = y - x
    if np.all(d == d[0]):          # no variance: the posterior is a point
        m = float(d[0])
        return (float(m < -rope), float(-rope <= m <= rope), float(m > rope))
    return tuple(float(v) for v in bc.CorrelatedTTest.probs(x, y, rope, runs=runs))


@contextlib.contextmanager
def _seeded_stan(seed: int):
    """baycomp 1.0.3 takes ``random_state`` but never passes it to Stan (it calls
    ``stan.build(code, data=...)`` without ``random_seed``), so each run drew a new posterior
    sample and the same scores gave probabilities differing by ~0.02 between runs (seen in the
    ReliefE study). Pass our seed to ``stan.build`` for the duration of the call, so the test
    is reproducible like every other number we print."""
    import stan

    build = stan.build

    def seeded_build(program_code, data=None, random_seed=None):
        return build(program_code, data={} if data is None else data,
                     random_seed=int(seed) % (2 ** 31) if random_seed is None else random_seed)

    stan.build = seeded_build
    try:
        yield
    finally:
        stan.build = build


@contextlib.contextmanager
def _quiet():
    """Stan prints its build and sampling progress to stderr: silence it (fd level)."""
    with open(os.devnull, "w") as null:
        saved = os.dup(2)
        try:
            os.dup2(null.fileno(), 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def simplex_figure(r: BayesResult):
    """The posterior sample in the probability simplex (baycomp's triangle), or stacked bars
    of the per-data-set probabilities for the correlated test."""
    import matplotlib

    matplotlib.use("Agg")
    bc = _baycomp()
    names = (_short(r.a), _short(r.b))
    if r.sample is not None:
        from baycomp.multiple import Posterior

        fig = Posterior(r.sample, names=names).plot_simplex(names)
        fig.suptitle(f"{r.test}: {r.a} vs {r.b} (rope {r.rope:g})", fontsize=9)
        return fig
    del bc
    import matplotlib.pyplot as plt

    ds = [p["dataset"] for p in r.per_dataset]
    pa = np.array([p["p_a_better"] for p in r.per_dataset])
    pr = np.array([p["p_rope"] for p in r.per_dataset])
    pb = np.array([p["p_b_better"] for p in r.per_dataset])
    fig, ax = plt.subplots(figsize=(6, 0.35 * len(ds) + 1.2))
    yy = np.arange(len(ds))
    ax.barh(yy, pa, color="#3b75af", label=f"p({names[0]})")
    ax.barh(yy, pr, left=pa, color="#cccccc", label="p(rope)")
    ax.barh(yy, pb, left=pa + pr, color="#ef8636", label=f"p({names[1]})")
    ax.set_yticks(yy, ds)
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False)
    ax.set_xlabel(f"correlated t-test, rope {r.rope:g}")
    fig.tight_layout()
    return fig


def _short(s: str, n: int = 28) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def runs_of_store(folder) -> int | None:
    """CV repetitions of a result store's protocol (``repeated-cv``: repeats; ``cv``: 1), read
    from the ``config.yaml`` the runner keeps next to the store; None when unknown."""
    from pathlib import Path

    path = Path(folder) / "config.yaml"
    if not path.is_file():
        return None
    try:
        import yaml

        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        p = doc.get("protocol") or {}
    except Exception:  # noqa: BLE001 - an unreadable config: the user's --runs is used
        return None
    if p.get("type") == "repeated-cv":
        return int(p.get("repeats", 10))
    if p.get("type") == "cv":
        return 1
    return None
