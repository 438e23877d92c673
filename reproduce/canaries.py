"""The canary suite: small fixed runs through the experiment runner whose outputs, bit for bit,
stand for what the code computes (the *result fingerprint* of ``reproduce/fingerprint.py``).

Why: the reproduction stores (``reproduce/stores/``) stay valid exactly as long as the code
computes the same numbers on the paths their studies use. A hash of the source text would
throw them away at every comment; the canaries instead run each engine path the studies use
on small data and hash the outputs: importances and per-target importances of every
ranking (a *rank* path: task x data kind x method x parameter shape) and the evaluation
scores of fixed rankings (an *eval* path: task x data kind x protocol shape x evaluation
shape). A study depends on the paths its runs take (``fingerprint.config_paths``); a change
that moves one canary invalidates exactly the studies on that path.

Every canary gives every parameter explicitly (a test checks that each ranker's resolved
parameters are all pinned), so a change of a default does not move a canary, and a new
option value (a tie rule, a ranker) adds paths without touching the others. Numeric values
are small (few trees, few rows): what a run's *shape* is, is its categorical parameter values
(``shape``), so 10 and 250 trees are one path.

The data are the repository's synthetic sets (``datasets/synthetic``) and uwcse
(``../shared/datasets/relational``), with deterministic variants written to a temporary folder:
missing values at fixed positions, a DAG hierarchy for HMLC, train/test files for the given
split. No random generator is involved in making them.

Runnable against any build of frcli (no import from ``reproduce``): a checkout of another
commit, with its own build on the path, gives that build's digests::

    python reproduce/canaries.py --out digests.json [--jobs 2] [--only PATTERN]

(run it with the other build's interpreter and ``cwd`` outside this checkout, as
``python -m reproduce --fingerprint --build DIR`` does).
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

if __name__ == "__main__":
    # run as a script, this folder comes first on the path, and its coverage.py would shadow
    # the coverage package that numba (under UMAP, ReliefE's embedding) imports
    _HERE = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

ROOT = Path(__file__).resolve().parents[1]
SYNTH = ROOT / "datasets" / "synthetic"
SHARED = ROOT.parent / "shared" / "datasets"
# bumped when what a digest covers changes (every digest then changes with it)
FORMAT = 1

TASKS = ("regression", "classification", "mtr", "mlc", "hmlc", "unsupervised")
ENSEMBLES = ("rf", "bagging", "et")
SCORES = ("symbolic", "genie3", "rf")


# --------------------------------------------------------------------------- shapes and ids
def shape(v: Any) -> str:
    """The categorical form of a parameter value: strings, booleans and None as they are,
    numbers as ``0`` or ``num`` (so 10 and 250 trees are one path), lists and
    mappings element-wise."""
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)):       # a count and a fraction alike (3 vs 3.0)
        return "0" if v == 0 else "num"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(sorted({shape(x) for x in v})) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{shape(v[k])}" for k in sorted(v)) + "}"
    return type(v).__name__


def params_shape(params: dict) -> str:
    return ",".join(f"{k}={shape(params[k])}" for k in sorted(params) if k != "labeled_only")


def rank_path(task: str, kind: str, method: str, params: dict) -> str:
    """The path of a ranking: ``rank:<task>:<kind>:<method>:<parameter shape>``."""
    return f"rank:{task}:{kind}:{method}:{params_shape(params)}"


def eval_path(task: str, kind: str, protocol: dict, evaluation: dict, knn_train: str) -> str:
    """The path of an evaluation: ``eval:<task>:<kind>:<protocol shape>:<evaluation shape>``
    (the protocol's split definition and whether labels are thinned; the evaluation's
    ``to_dict``; the kNN training rows of semi-supervised runs)."""
    ev = dict(evaluation)
    if kind.startswith("ssl"):
        ev["knn_train"] = knn_train
    return f"eval:{task}:{kind}:{params_shape(protocol)}:{params_shape(ev)}"


def data_kind(missing: bool, ssl: bool) -> str:
    return ("ssl-" if ssl else "") + ("missing" if missing else "plain")


# --------------------------------------------------------------------------- the data
# the synthetic sets: file, targets (1-based attribute range, as the catalog gives them)
_SETS = {"regression": ("synth-regression", "13"), "classification": ("synth-classification", "13"),
         "mtr": ("synth-mtr", "13-15"), "mlc": ("synth-mlc", "13-17"),
         "hmlc": ("synth-hmlc", None), "unsupervised": ("synth-unsupervised", None)}
# tree → DAG: node names of the tree's paths (A/1 and B/1 become one node with two parents)
_DAG = {"A": "A", "A/1": "1", "A/1/x": "x", "A/1/y": "y", "A/2": "2", "B": "B", "B/1": "1",
        "C": "C"}
_DAG_HEADER = "hierarchical root/A,root/B,root/C,A/1,B/1,1/x,1/y,A/2"


def _split_arff(text: str) -> tuple[list[str], list[list[str]]]:
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.strip().lower() == "@data")
    rows = [ln.split(",") for ln in lines[i + 1:] if ln.strip() and not ln.startswith("%")]
    return lines[:i + 1], rows


def _targets(spec: str | None, n_cols: int, task: str) -> set[int]:
    if task == "unsupervised":
        return set()
    if spec is None:                       # hmlc: the class attribute, last
        return {n_cols - 1}
    a, _, b = spec.partition("-")
    return set(range(int(a) - 1, int(b or a)))


def _write(path: Path, header: list[str], rows: list[list[str]]) -> str:
    path.write_text("\n".join(header + [",".join(r) for r in rows]) + "\n", encoding="utf-8")
    return str(path)


def prepare(folder: Path) -> dict[str, dict[str, Any]]:
    """Write the canary data sets into ``folder``; name → config data-set entry."""
    out: dict[str, dict[str, Any]] = {}
    for task, (stem, targets) in _SETS.items():
        header, rows = _split_arff((SYNTH / f"{stem}.arff").read_text(encoding="utf-8"))
        n_cols = len(rows[0])
        tcols = _targets(targets, n_cols, task)
        variants = {"plain": rows}
        miss = [list(r) for r in rows]
        for i, r in enumerate(miss):
            for j in range(n_cols):
                if j not in tcols and (7 * i + 13 * j) % 29 == 0:
                    r[j] = "?"
                elif j in tcols and task == "mtr" and (5 * i + 11 * j) % 37 == 0:
                    r[j] = "?"
        variants["missing"] = miss
        for kind, rs in variants.items():
            base = {"task": task}
            if targets:
                base["targets"] = targets
            if task == "hmlc":
                base["hierarchy"] = "tree"
            name = f"c-{task}-{kind}"
            out[name] = {"name": name, "path": _write(folder / f"{name}.arff", header, rs),
                         **base}
            # the given split: the first 200 rows train, the rest test
            tr = _write(folder / f"{name}-train.arff", header, rs[:200])
            te = _write(folder / f"{name}-test.arff", header, rs[200:])
            out[f"{name}-given"] = {"name": f"{name}-given", "path": tr, "test": te, **base}
            if task == "hmlc":             # the same labels on a DAG
                dag_header = [(ln.split(" hierarchical ")[0] + " " + _DAG_HEADER
                               if " hierarchical " in ln else ln) for ln in header]
                drows = [r[:-1] + ["@".join(dict.fromkeys(_DAG[x] for x in r[-1].split("@") if x))]
                         for r in rs]
                dname = f"c-hmlc-dag-{kind}"
                out[dname] = {"name": dname, "task": "hmlc", "hierarchy": "dag",
                              "path": _write(folder / f"{dname}.arff", dag_header, drows)}
                tr = _write(folder / f"{dname}-train.arff", dag_header, drows[:200])
                te = _write(folder / f"{dname}-test.arff", dag_header, drows[200:])
                out[f"{dname}-given"] = {"name": f"{dname}-given", "task": "hmlc",
                                         "hierarchy": "dag", "path": tr, "test": te}
    uw = SHARED / "relational" / "uwcse" / "uwcse.s"
    out["c-relational-plain"] = {"name": "c-relational-plain", "path": str(uw)}
    return out


# --------------------------------------------------------------------------- the suite
# Every parameter of every ranker, explicit (never "the default"). Numeric values are small.
# DEFAULT marks the few parameters whose default is a marker with no explicit spelling that
# parses to the same stored value (bootstrap's "default", a relational tree's max_depth):
# they are left out, and a test checks that their default is that marker.
DEFAULT = "<default>"
FOREST = {"trees": 4, "max_features": "default", "min_leaf": 2.0, "bootstrap": DEFAULT,
          "w": "auto", "w0": 0.75, "ties": "first"}
SCORE_PARAMS = {"symbolic": {"symbolic_weight": 0.5},
                "genie3": {"genie3_scale": "normalised", "genie3_missing": "clus"},
                "rf": {"rf_variant": "thesis"}}
RELIEF = {"iterations": [0.5, 1.0], "neighbours": [5, 10], "sigma": [0.0], "distance": "default",
          "w0": 0.75, "weights": "sum", "per_target": False, "search": "exact",
          "nominal_targets": "relieff", "unlabeled": "auto", "exclude_self": False,
          "influence": "auto", "influence_far": 0.5, "influence_near": 1.0}
RELIEFE = {"iterations": 1.0, "neighbours": 5, "embed": "input", "update": "standard",
           "distance": "default", "dimension": "auto", "subset": 2048, "sparsify": 0.15,
           "mlc_update": "rrelieff"}
BASELINES = {"uniform": {}, "random": {},
             "laplacian": {"neighbours": 5, "w": 0.5},
             "spec": {"score": "phi2", "clusters": 3},
             "mcfs": {"neighbours": 5, "clusters": 3, "nonzero": 6},
             "ndfs": {"neighbours": 5, "clusters": 3, "alpha": 1.0, "beta": 1.0, "gamma": 1e8,
                      "updates": 30, "tol": 1e-4},
             "sefr": {"trees": 4, "threshold": 0.75, "step": 0.2, "min_leaf": 1},
             "multisurf": {"discrete_limit": 10}, "multisurf-star": {"discrete_limit": 10},
             "mutual-info": {"neighbours": 3}}
RELATIONAL = {"lookahead": 2, "max_chain": 3, "max_work": 20000.0, "aggregates": "all",
              "tables": "all", "continuation": "both", "attribution": "thesis",
              "max_features": "default", "min_leaf": 1.0, "max_depth": DEFAULT,
              "min_decrease": 0.0, "tune": None, "tune_folds": 3}


def forest(score: str, **over) -> dict:
    return {**FOREST, **SCORE_PARAMS[score], **over}


def _explicit(params: dict) -> dict:
    return {k: v for k, v in params.items() if v != DEFAULT}


@dataclass(frozen=True)
class Canary:
    """One small experiment. ``role`` rank: its rankings' importances make rank paths;
    eval: the scores of its fixed rankings (uniform, random) make one eval path."""

    name: str
    task: str
    kind: str
    datasets: tuple[str, ...]
    rankers: tuple[dict, ...]
    role: str = "rank"
    protocol: dict = field(default_factory=lambda: dict(HOLDOUT))
    evaluation: dict = field(default_factory=lambda: {"knn": 5})
    knn_train: str = "full"
    tree: dict = field(default_factory=lambda: dict(TREE))    # a tree canary's settings

    def config(self, data: dict[str, dict]) -> dict:
        ev = dict(self.evaluation)
        if self.knn_train != "full":
            ev["knn_train"] = self.knn_train
        return {"name": self.name.replace("/", "_"), "datasets": [data[d] for d in self.datasets],
                "protocol": self.protocol, "evaluation": ev,
                "rankers": [{**r, "params": _explicit(r.get("params", {}))}
                            for r in self.rankers]}


HOLDOUT = {"type": "holdout", "repeats": 1, "test_fraction": 1 / 3, "seed": 0}


def _sets(task: str, kind: str, given: bool = False) -> tuple[str, ...]:
    missing = "missing" if "missing" in kind else "plain"
    suffix = "-given" if given else ""
    if task == "relational":
        return ("c-relational-plain",)
    out = (f"c-{task}-{missing}{suffix}",)
    if task == "hmlc":
        out += (f"c-hmlc-dag-{missing}{suffix}",)
    return out


def _ssl(protocol: dict, labeled: int = 60) -> dict:
    return {**protocol, "labeled": [labeled]}


# the forest settings the studies use beside the base (min_leaf 2, bootstrap by default)
_FOREST_VARIANTS = {
    "supervised": [{}, {"min_leaf": "auto"}, {"bootstrap": True}],
    "ssl": [{"min_leaf": "auto"}],
    "unsupervised": [{"min_leaf": "auto", "max_features": mf}
                     for mf in ("default", "all", "log2", "sqrt")] + [{"bootstrap": True}],
}
_FOREST_EXTRA = {   # (methods, settings)
    "mtr": [(("genie3-rf", "genie3-rf-str"), {"genie3_missing": "known"}),
            (("genie3-rf", "symbolic-rf", "rf-rf"), {"ties": "random"}),
            (("rf-rf", "rf-bagging"), {"rf_variant": "clus", "ties": "share"}),
            (("rf-rf", "rf-bagging", "rf-rf-str", "rf-bagging-str"),
             {"rf_variant": "clus", "ties": "first"})],
    "hmlc": [(("symbolic-rf", "symbolic-bagging"), {"min_leaf": "auto",
                                                     "symbolic_weight": "dynamic"}),
             (("symbolic-et",), {"min_leaf": "auto", "symbolic_weight": "dynamic",
                                 "max_features": "sqrt"}),
             (("genie3-et", "rf-et"), {"min_leaf": "auto", "max_features": "sqrt"}),
             # the footnote's extra trees that test every feature at each node
             (("symbolic-et",), {"min_leaf": "auto", "symbolic_weight": "dynamic",
                                 "max_features": "all"}),
             (("genie3-et",), {"min_leaf": "auto", "max_features": "all"})],
}


def _forest_rankers(task: str, kind: str) -> list[dict]:
    ssl = kind.startswith("ssl")
    variants = _FOREST_VARIANTS["ssl" if ssl else "unsupervised" if task == "unsupervised"
                                else "supervised"]
    out = []
    for ens in ENSEMBLES:
        for score in SCORES:
            methods = [f"{score}-{ens}"]
            if task == "mtr" and not ssl:
                methods.append(f"{score}-{ens}-str")
            for m in methods:
                # every setting under CLUS's tie rule (the studies' pinned one), and the
                # base setting under the others' default, shared credit
                for v in variants + [{**variants[0], "ties": "share"}]:
                    out.append({"method": m, "params": forest(score, **v)})
    if not ssl:
        for methods, over in _FOREST_EXTRA.get(task, []):
            for m in methods:
                out.append({"method": m, "params": forest(m.split("-")[0], **over)})
    return out


def _relief_rankers(task: str, kind: str) -> list[dict]:
    grid = {"iterations": [0.5, 1.0, 20]}
    out = [{"method": "relief", "params": {**RELIEF, **grid}},
           {"method": "relief", "params": {**RELIEF, **grid, "neighbours": ["auto"]}}]
    if task != "unsupervised":
        out.append({"method": "relief", "params": {**RELIEF, "iterations": [1.0],
                                                   "neighbours": ["cv"]}})
    if task == "mtr" and not kind.startswith("ssl"):
        out.append({"method": "relief-str", "params": {**RELIEF, **grid}})
        out.append({"method": "relief-str", "params": {**RELIEF, "iterations": [0.5],
                                                       "sigma": [0.05]}})
        out.append({"method": "relief", "params": {**RELIEF, "iterations": [0.5],
                                                   "sigma": [0.05]}})
    if task == "mlc" and not kind.startswith("ssl"):
        for d in ("hamming", "accuracy", "f1", "subset"):
            out.append({"method": "relief", "params": {**RELIEF, "distance": d}})
    return out


def suite() -> list[Canary]:
    """The canaries (fixed; their order is irrelevant to the digests)."""
    out: list[Canary] = []
    base = [{"method": m, "params": {}} for m in ("uniform", "random")]
    for task in TASKS:
        kinds = ["plain", "missing"] + (["ssl-plain", "ssl-missing"]
                                        if task != "unsupervised" else [])
        for kind in kinds:
            proto = _ssl(HOLDOUT) if kind.startswith("ssl") else HOLDOUT
            sets = _sets(task, kind)
            out.append(Canary(f"forest/{task}/{kind}", task, kind, sets,
                              tuple(_forest_rankers(task, kind)), protocol=proto))
            out.append(Canary(f"relief/{task}/{kind}", task, kind, sets,
                              tuple(_relief_rankers(task, kind)), protocol=proto))
            extra = {"mtr": ["laplacian"], "regression": ["laplacian"],
                     "classification": ["sefr"],
                     "unsupervised": ["laplacian", "spec", "mcfs", "ndfs"]}.get(task, [])
            out.append(Canary(f"baselines/{task}/{kind}", task, kind, sets,
                              tuple(base + [{"method": m, "params": BASELINES[m]}
                                            for m in extra]), protocol=proto))
    out.append(Canary("multisurf/classification/plain", "classification", "plain",
                      _sets("classification", "plain"),
                      tuple({"method": m, "params": BASELINES[m]}
                            for m in ("multisurf", "multisurf-star", "mutual-info"))))
    # ReliefE: on the UMAP embedding of the features (input), on the raw data (none), with
    # embedded labels (labels, both), every update and neighbour rule, MLC label distances
    out.append(Canary("reliefe/classification/plain", "classification", "plain",
                      _sets("classification", "plain"),
                      tuple({"method": "reliefe",
                             "params": {**RELIEFE, "embed": e, "update": u, "neighbours": k,
                                        "iterations": [4, 1.0]}}
                            for e in ("input", "none") for u in ("standard", "absmean")
                            for k in (5, "auto"))))
    raw = [{"method": "reliefe", "params": {**RELIEFE, "embed": "none", "distance": d,
                                            "update": u, "neighbours": k}}
           for d in ("hamming", "f1", "accuracy", "subset") for u in ("standard", "absmean")
           for k in (5, "auto")]
    out.append(Canary("reliefe/mlc/plain/raw", "mlc", "plain", _sets("mlc", "plain"),
                      tuple(raw)))
    embedded = [{"method": "reliefe", "params": {**RELIEFE, "embed": "input", "distance": d}}
                for d in ("hamming", "f1", "accuracy", "subset")]
    embedded += [{"method": "reliefe", "params": {**RELIEFE, "embed": e, "distance": d}}
                 for e, d in (("labels", "cosine"), ("both", "cosine"),
                              ("labels", "hyperbolic"), ("both", "hyperbolic"))]
    out.append(Canary("reliefe/mlc/plain/embedded", "mlc", "plain", _sets("mlc", "plain"),
                      tuple(embedded)))
    # relational trees, ensembles and boosting (uwcse), under every setting the studies use
    rel = []
    for setting in ({}, {"aggregates": "exist"}, {"tables": "target"},
                    {"continuation": "none"}):
        rel += [{"method": "genie3-tree", "params": {**RELATIONAL, **setting,
                                                     "tune": {"min_leaf": [1, 5],
                                                              "min_decrease": [0, 0.05]}}},
                {"method": "genie3-rf", "params": {**RELATIONAL, **setting, "trees": 3}},
                {"method": "genie3-bagging", "params": {**RELATIONAL, **setting, "trees": 3}},
                {"method": "genie3-boost", "params": {**RELATIONAL, **setting, "trees": 3,
                                                      "shrinkage": 0.2, "subsample": 0.8,
                                                      "max_features": 0.6, "max_depth": 3}}]
    # boosting's sensitivity study keeps the paper's sqrt(F) candidates per split
    rel.append({"method": "genie3-boost", "params": {**RELATIONAL, "trees": 3, "shrinkage": 0.2,
                                                     "subsample": 0.8, "max_features": "sqrt",
                                                     "max_depth": 3}})
    rel += [{"method": "symbolic-rf", "params": {**RELATIONAL, "trees": 3}},
            {"method": "symbolic-tree", "params": dict(RELATIONAL)}]
    # the Mars Express pipeline end to end on a two-week simulated mission: simulator, reader,
    # feature builder, the three model families, group shares, FUJI and 8b's protocol
    out.append(Canary("mex/pipeline", "mtr", "plain", (), (), role="mex"))
    out.append(Canary("relational/plain", "relational", "plain", _sets("relational", "plain"),
                      tuple(rel), protocol={"type": "cv", "folds": 3, "seed": 0},
                      evaluation={"measures": ["accuracy"]}))
    for task in ("mtr", "regression", "classification", "mlc", "hmlc"):
        for kind in ("plain", "missing"):
            out.append(Canary(f"tree/{task}/{kind}", task, kind, _sets(task, kind), (),
                              role="tree"))
            out.append(Canary(f"tree/{task}/{kind}/share", task, kind, _sets(task, kind), (),
                              role="tree", tree={**TREE, "ties": "share"}))
    out += eval_suite()
    return out


def eval_suite() -> list[Canary]:
    """Evaluation canaries: the uniform and random rankings under each protocol and
    evaluation the studies use (kNN for every task, top-f, curves, thinned labels)."""
    base = ({"method": "uniform", "params": {}}, {"method": "random", "params": {}})
    hold = {"type": "holdout", "repeats": 2, "test_fraction": 1 / 3, "seed": 0}
    cv = {"type": "cv", "folds": 3, "seed": 0}
    rcv = {"type": "repeated-cv", "repeats": 1, "folds": 3, "seed": 0}
    given = {"type": "given", "seed": 0}
    knn = {"knn": 5}
    specs = [  # (task, kind, protocol, evaluation, knn_train, given files)
        ("mtr", "plain", hold, {**knn, "measures": ["rrmse"], "variance": "train"}),
        ("mtr", "missing", hold, {**knn, "measures": ["rrmse"], "variance": "train"}),
        ("mtr", "plain", hold, {**knn, "measures": ["rrmse"], "variance": "test"}),
        ("mtr", "missing", hold, {**knn, "measures": ["rrmse"], "variance": "test"}),
        ("regression", "plain", hold, {**knn, "measures": ["rrmse"], "variance": "train"}),
        ("mlc", "plain", given, dict(knn)),
        ("mlc", "plain", given, {**knn, "measures": ["hamming_loss", "ml_accuracy", "ml_f1",
                                                     "subset_accuracy", "one_error",
                                                     "ml_precision", "ml_recall",
                                                     "pooled_auprc"]}),
        ("hmlc", "plain", given, {**knn, "measures": ["pooled_auprc"], "pr": "interpolated"}),
        ("hmlc", "missing", given, {**knn, "measures": ["pooled_auprc"], "pr": "interpolated"}),
        ("classification", "plain", rcv, {"kind": "topf", "learner": "auto", "scale": "minmax",
                                          "curve": [1, 4]}),
        ("classification", "plain", cv, {"kind": "topf", "learner": "auto", "scale": "minmax",
                                         "curve": [1, 4]}),
        ("mlc", "plain", rcv, {"kind": "topf", "learner": "auto", "scale": "minmax",
                               "curve": [1, 4]}),
        ("classification", "plain", cv, {**knn, "measures": ["accuracy"]}),
        ("unsupervised", "plain", {**cv, "stratify": False},
         {"knn": 1, "measures": ["reconstruction_mse"], "weighted": False, "top": 4,
          "curve": "pow2"}),
        ("unsupervised", "plain", {**cv, "stratify": False},
         {"knn": 1, "measures": ["reconstruction_mse"], "weighted": False, "top": 4,
          "curve": None}),
        ("classification", "ssl-plain", _ssl(cv), {"knn": [5, 7], "measures": ["accuracy", "macro_f1"],
                                                    "confusion": True}),
        ("regression", "ssl-plain", _ssl({**cv, "stratify": False}),
         {"knn": [5, 3], "measures": ["rrmse"], "variance": "test"}),
        ("regression", "ssl-missing", _ssl({**cv, "stratify": False}),
         {"knn": [5, 3], "measures": ["rrmse"], "variance": "test"}),
        ("mtr", "ssl-plain", _ssl({**cv, "stratify": False}),
         {"knn": [5, 3], "measures": ["rrmse"], "variance": "test"}),
        ("mtr", "ssl-missing", _ssl({**cv, "stratify": False}),
         {"knn": [5, 3], "measures": ["rrmse"], "variance": "test"}),
        ("mlc", "ssl-plain", _ssl(given), {"knn": [5, 3], "measures": ["pooled_auprc"]}),
        ("hmlc", "ssl-plain", _ssl(given), {"knn": [5, 3], "measures": ["pooled_auprc"]}),
        ("classification", "ssl-missing", _ssl(cv), {"knn": [5, 7],
                                                      "measures": ["accuracy", "macro_f1"],
                                                      "confusion": True}),
    ]
    out = []
    for i, (task, kind, proto, ev) in enumerate(specs):
        sets = _sets(task, kind, given=proto["type"] == "given")
        out.append(Canary(f"eval/{task}/{kind}/{i}", task, kind, sets, base, role="eval",
                          protocol=proto, evaluation=ev))
        if kind.startswith("ssl"):      # the other reading of A20: the kNN on the L rows
            out.append(Canary(f"eval/{task}/{kind}/{i}/labeled", task, kind, sets, base,
                              role="eval", protocol=proto, evaluation=ev,
                              knn_train="labeled"))
    return out


# --------------------------------------------------------------------------- running
def _digest_run(run: dict, role: str) -> str:
    """The bytes a run's digest covers: importances (and per-target importances) for a
    ranking, the evaluation scores for an evaluation (float64 bits, sorted by measure);
    relational runs also their scores and meta (the render reads both)."""
    import numpy as np

    h = hashlib.sha256()
    if role in ("rank", "relational"):
        imp = np.ascontiguousarray(run["importances"], dtype="<f8")
        h.update(b"imp" + imp.tobytes())
        pt = run.get("per_target")
        if pt is not None:
            h.update(b"pt" + np.ascontiguousarray(pt, dtype="<f8").tobytes())
    if role in ("eval", "relational"):
        for k in sorted(run["scores"]):
            v = run["scores"][k]
            b = b"none" if v is None else np.float64(v).astype("<f8").tobytes()
            h.update(k.encode() + b"\0" + b)
    if role == "relational":
        meta = {k: v for k, v in (run.get("meta") or {}).items() if k != "timings"}
        h.update(json.dumps(meta, sort_keys=True, default=str).encode())
    return h.hexdigest()


def _resolved(method: str, params: dict, relational: bool) -> dict:
    from frcli.rankers.registry import get_ranker

    grid = get_ranker(method, relational=relational).resolve(params)
    return {k: v[0] if len(v) == 1 else v for k, v in grid.items()}


def expected_paths(c: Canary, data: dict[str, dict] | None = None) -> set[str]:
    """The paths a canary produces (without running it)."""
    from frcli.experiment.config import parse_config
    from frcli.experiment.plan import build_plan

    if c.role == "tree":
        return {tree_path(c.task, c.kind, c.tree)}
    if c.role == "mex":
        return {MEX_PATH}
    if c.role == "eval":
        cfg = parse_config(c.config(data or _fake_data()), c.name)
        return {eval_path(c.task, c.kind, cfg.protocol.definition(), cfg.evaluation.to_dict(),
                          cfg.knn_train)}
    cfg = parse_config(c.config(data or _fake_data()), c.name)
    plan = build_plan(cfg)
    out = set()
    rel = c.task == "relational"
    for r in cfg.rankers:
        for p in plan.grids[r.key(), rel]:
            out.add(rank_path(c.task, c.kind, r.method, json.loads(p)))
    return out


def _fake_data() -> dict[str, dict]:
    """Entries with the canary names (paths are not read by ``parse_config``)."""
    out = {}
    for task in TASKS + ("relational",):
        for kind in ("plain", "missing"):
            for suffix in ("", "-given"):
                for stem in (f"c-{task}-{kind}", f"c-hmlc-dag-{kind}"):
                    e = {"name": stem + suffix, "path": f"/nonexistent/{stem}.arff"}
                    if suffix:
                        e["test"] = f"/nonexistent/{stem}-test.arff"
                    if stem.startswith("c-relational"):
                        e["path"] = str(SHARED / "relational" / "uwcse" / "uwcse.s")
                    out[stem + suffix] = e
    return out


TREE = {"min_leaf": 2.0, "w": None, "w0": 0.75, "ties": "first"}


def tree_path(task: str, kind: str, params: dict | None = None) -> str:
    """The path of a single tree grown as CLUS grows one (``frcli tree``, the CLUS agreement)
    with ``params`` (default ``TREE``, CLUS's tie rule)."""
    return f"tree:{task}:{kind}:{params_shape(TREE if params is None else params)}"


def _run_trees(c: Canary, data: dict[str, dict]) -> dict[str, list[tuple[str, str]]]:
    from frcli.data import load_dataset
    from frcli.rankers.tree import grow_tree

    runs = []
    for name in c.datasets:
        e = data[name]
        opts = {k: e[k] for k in ("targets", "task", "hierarchy") if k in e}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = load_dataset(e["path"], **opts)
            tree = grow_tree(ds, **c.tree)
        text = json.dumps(tree.root, sort_keys=True, default=repr) + tree.text()
        runs.append((name, hashlib.sha256(text.encode()).hexdigest()))
    return {tree_path(c.task, c.kind, c.tree): runs}


MEX_PATH = "mex:pipeline:features=all"
# the study's settings, scaled down: every Δt-independent step runs once, at one Δt
MEX = {"simulate": {"years": 0.01, "seed": 0}, "features": "all", "dt": [30],
       "test_from": None, "fractions": {}, "rankings": {"dt": 30}, "gyroless": {"dt": 30},
       "models": {"g-rf": {"trees": 2}, "l-rf": {"trees": 2}, "boost": {"trees": 2}}}
# what a summary holds besides results: clocks, and what is decided from clocks
_MEX_CLOCKS = {"seconds", "seconds_per_target", "estimated_seconds", "front", "output"}


def _numbers(obj: Any) -> Any:
    """``obj`` without its clock readings, floats as their exact bits."""
    if isinstance(obj, dict):
        return {str(k): _numbers(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))
                if k not in _MEX_CLOCKS}
    if isinstance(obj, (list, tuple)):
        return [_numbers(v) for v in obj]
    if isinstance(obj, float):
        return obj.hex()
    return obj


def _run_mex(folder: str) -> dict[str, list[tuple[str, str]]]:
    from frcli.mex.pipeline import load_config, run

    work = Path(folder)
    cfg = load_config(ROOT / "configs" / "mex.yaml",
                      {**MEX, "raw": str(work / "raw"), "output": str(work / "out")})
    summary = run(cfg)
    text = json.dumps(_numbers(summary), sort_keys=True)
    return {MEX_PATH: [("pipeline", hashlib.sha256(text.encode()).hexdigest())]}


def run_canary(c: Canary, data: dict[str, dict], folder: str) -> dict[str, Any]:
    """{path: [(run key, digest)]}, seconds, and errors of one canary."""
    from frcli.experiment.config import parse_config
    from frcli.experiment.executor import run_experiment

    t0 = time.perf_counter()
    if c.role == "tree":
        return {"runs": _run_trees(c, data), "seconds": time.perf_counter() - t0, "errors": []}
    if c.role == "mex":
        return {"runs": _run_mex(folder), "seconds": time.perf_counter() - t0, "errors": []}
    cfg = parse_config(c.config(data), f"canary {c.name}")
    runs: dict[str, list[tuple[str, str]]] = {}
    errors: list[str] = []
    role = "relational" if c.task == "relational" else c.role
    ep = None
    if c.role == "eval":
        ep = eval_path(c.task, c.kind, cfg.protocol.definition(), cfg.evaluation.to_dict(),
                       cfg.knn_train)

    def collect(task, res) -> None:
        for run in res["runs"]:
            key = json.dumps([task.dataset.name, task.split, task.labeled, task.ranker.method,
                              run["params"]])
            path = ep or rank_path(c.task, c.kind, task.ranker.method,
                                   json.loads(run["params"]))
            runs.setdefault(path, []).append((key, _digest_run(run, role)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = run_experiment(cfg, jobs=1, output=folder, progress=False, on_result=collect)
    errors += [f"{label}: {err}" for label, err in s.failures]
    return {"runs": runs, "seconds": time.perf_counter() - t0, "errors": errors}


def _worker(args) -> tuple[str, dict]:
    c, data, folder = args
    try:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            return c.name, run_canary(c, data, folder)
    except Exception as e:  # noqa: BLE001 - a canary this build cannot run is a result too
        return c.name, {"runs": {}, "seconds": 0.0,
                        "errors": [f"{type(e).__name__}: {e}"]}


def environment() -> dict[str, str]:
    """What bit-identical outputs also depend on besides the code: interpreter, numerical
    libraries, the BLAS numpy uses, the compiler flags of the build, the CPU."""
    import sysconfig

    import numpy as np

    env = {"python": platform.python_version(), "machine": platform.machine(),
           "numpy": np.__version__, "cflags": sysconfig.get_config_var("CFLAGS") or ""}
    for mod in ("scipy", "sklearn", "umap", "numba", "pynndescent", "pandas", "Cython"):
        try:
            env[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001 - absent or broken: recorded as such
            env[mod] = "absent"
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
        env["blas"] = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001
        env["blas"] = "unknown"
    try:
        cpu = Path("/proc/cpuinfo").read_text()
        model = next((ln.split(":", 1)[1].strip() for ln in cpu.splitlines()
                      if ln.startswith("model name")), "")
        flags = next((ln.split(":", 1)[1].split() for ln in cpu.splitlines()
                      if ln.startswith("flags")), [])
        env["cpu"] = model
        env["cpu_simd"] = " ".join(f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f")
                                   if f in flags)
    except OSError:
        env["cpu"] = platform.processor()
    return env


def run(jobs: int = 2, only: str | None = None, log=None) -> dict[str, Any]:
    """Run the suite (or the canaries whose name matches ``only``, fnmatch): the digest of
    every path, the environment, the seconds per canary and any errors."""
    import multiprocessing as mp

    cans = [c for c in suite() if not only or fnmatch.fnmatch(c.name, only)]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="frcli-canaries-") as tmp:
        data = prepare(Path(tmp))
        work = [(c, data, os.path.join(tmp, "out", str(i))) for i, c in enumerate(cans)]
        # the longest first, so two workers finish together
        work.sort(key=lambda w: -_COST.get(w[0].name.split("/")[0], 1))
        results: dict[str, dict] = {}
        if jobs <= 1:
            for w in work:
                name, res = _worker(w)
                results[name] = res
        else:
            # forkserver, not fork: the caller may hold threads (a test session's dask or
            # tqdm threads), and a pool forked from a threaded process, which replaces its
            # workers from a thread, can hang on a lock copied in its held state
            with mp.get_context("forkserver").Pool(jobs, maxtasksperchild=8) as pool:
                for name, res in pool.imap_unordered(_worker, work):
                    results[name] = res
                    if log:
                        log(f"{name}: {res['seconds']:.1f} s")
    paths: dict[str, list] = {}
    errors = {}
    for name, res in results.items():
        for p, rs in res["runs"].items():
            paths.setdefault(p, []).extend(rs)
        if res["errors"]:
            errors[name] = res["errors"][:3]
    digests = {}
    for p, rs in sorted(paths.items()):
        h = hashlib.sha256(f"format {FORMAT}\n".encode())
        for key, d in sorted(rs):
            h.update(f"{key} {d}\n".encode())
        digests[p] = h.hexdigest()[:16]
    return {"format": FORMAT, "digests": digests, "environment": environment(),
            "seconds": {n: round(r["seconds"], 2) for n, r in sorted(results.items())},
            "wall_s": round(time.perf_counter() - t0, 1), "errors": errors}


_COST = {"relational": 9, "reliefe": 8, "mex": 5, "forest": 3, "relief": 2}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the digests (JSON) here (default: stdout)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="only the canaries whose name matches (fnmatch)")
    ap.add_argument("--list", action="store_true", help="list the canaries and their paths")
    args = ap.parse_args(argv)
    if args.list:
        for c in suite():
            for p in sorted(expected_paths(c)):
                print(f"{c.name}\t{p}")
        return 0
    res = run(args.jobs, args.only, log=lambda m: print(m, file=sys.stderr, flush=True))
    text = json.dumps(res, indent=1, sort_keys=True)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    print(f"{len(res['digests'])} paths in {res['wall_s']} s, {len(res['errors'])} canaries "
          f"with errors", file=sys.stderr)
    return 1 if res["errors"] else 0


def canary_names() -> Iterable[str]:
    return [c.name for c in suite()]


if __name__ == "__main__":
    sys.exit(main())
