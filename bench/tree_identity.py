"""Safety net for splitter work: forests grown by another build of frcli must equal ours,
node by node and bit for bit.

Every case grows a forest (several tasks, storage modes, ensembles, seeds, missing values,
ties, nominal features, shared data sets) and records every array of every tree (feature,
threshold, children, |E|, h*, depth, p_left, nominal subsets, leaf prototypes) and every
score (Symbolic, Genie3, RF, per target). ``--reference`` grows the same cases with a
reference build in a child process and compares: any difference in any bit fails.

    # a reference build of main, outside the repository:
    git -C /work/main worktree add --detach /tmp/frcli-ref main   # or `git archive | tar -x`
    (cd /tmp/frcli-ref && python setup.py build_ext --inplace && ln -s ../ext frcli/_ext)
    python bench/tree_identity.py --reference /tmp/frcli-ref [--quick]

(``--reference-python`` instead runs a venv that has the reference installed.) Nothing is
written to the repository: the dumps go to a temporary directory. Each dump records the
environment bit-identical outputs depend on besides the code (``environment()`` of
``reproduce/canaries.py``, the canary suite of the reproduction fingerprint, which runs
against another build the same way); ``compare`` names what differs.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
SYNTH = ROOT / "datasets" / "synthetic"
ARRAYS = ("feature", "threshold", "left", "right", "weight", "hstar", "depth", "p_left",
          "offset", "cats", "values")


def _canaries():
    """reproduce/canaries.py of this checkout, by path (a reference build on PYTHONPATH may
    have a ``reproduce`` package of its own, or none)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("frcli_canaries",
                                                  ROOT / "reproduce" / "canaries.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # (dataclasses look their module up)
    spec.loader.exec_module(mod)
    return mod


# -- data ----------------------------------------------------------------------------------

def _ds(X, Y, task, nominal=(), ncat=None, labeled=None, semi=False, name="gen"):
    from frcli.data.dataset import Attribute, Dataset
    feats = []
    for j in range(X.shape[1]):
        if j in nominal:
            k = int(np.nanmax(X[:, j])) + 1 if ncat is None else ncat
            feats.append(Attribute(f"x{j}", "nominal", tuple(str(v) for v in range(k))))
        else:
            feats.append(Attribute(f"x{j}", "numeric"))
    targets = []
    if task in ("mtr", "regression"):
        targets = [Attribute(f"y{j}", "numeric") for j in range(Y.shape[1])]
    elif task == "classification":
        k = int(np.nanmax(Y)) + 1
        targets = [Attribute("y", "nominal", tuple(str(v) for v in range(k)))]
    elif task == "mlc":
        targets = [Attribute(f"l{j}", "nominal", ("0", "1")) for j in range(Y.shape[1])]
    return Dataset(name, X, feats, task, Y, targets, labeled=labeled, semi_supervised=semi)


def gen(kind: str, n: int, seed: int = 0):
    """Generated sets that exercise the large-node paths (no data is written)."""
    rng = np.random.default_rng([seed, n, sum(map(ord, kind))])
    F = 20
    X = rng.uniform(0, 1, (n, F))
    lin = X[:, 0] + 2 * X[:, 1] * X[:, 2] - X[:, 3] + 0.5 * np.sin(6 * X[:, 4])
    if kind == "ties":             # rounded values, a binary numeric and a 3-valued nominal
        X = np.round(X, 2)
        X[:, 5] = (X[:, 5] > 0.7).astype(float)
        X[:, 6] = rng.integers(0, 3, n)
        Y = np.column_stack([lin + X[:, 6], X[:, 5] - lin]) + 0.1 * rng.standard_normal((n, 2))
        return _ds(X, Y, "mtr", nominal=(6,))
    if kind == "missing":          # missing feature and target values
        X[:, 7] = rng.integers(0, 4, n)
        Y = np.column_stack([lin, lin ** 2, X[:, 7]]) + 0.1 * rng.standard_normal((n, 3))
        for j in (0, 3, 7, 9):
            X[rng.random(n) < 0.05, j] = np.nan
        Y[rng.random((n, 3)) < 0.1] = np.nan
        return _ds(X, Y, "mtr", nominal=(7,))
    if kind == "class":
        y = np.digitize(lin + 0.2 * rng.standard_normal(n), [0.3, 0.8, 1.3]).astype(float)
        return _ds(X, y[:, None], "classification")
    if kind == "mlc":              # 12 labels: the sparse 0/1 mode, some binary features
        X[:, 10:] = (X[:, 10:] > 0.8).astype(float)
        Z = lin[:, None] + rng.standard_normal((n, 12)) * np.linspace(0.1, 1, 12)
        Y = (Z > np.quantile(Z, 0.8, axis=0)).astype(np.uint8)
        return _ds(X, Y, "mlc", nominal=tuple(range(15, 20)), ncat=2)
    if kind == "ssl":
        Y = np.column_stack([lin, X[:, 5] - lin]) + 0.1 * rng.standard_normal((n, 2))
        lab = rng.random(n) < 0.3
        Y[~lab] = np.nan
        return _ds(X, Y, "mtr", labeled=lab, semi=True)
    Y = np.column_stack([lin, X[:, 5] * lin, X[:, 6]]) + 0.1 * rng.standard_normal((n, 3))
    return _ds(X, Y, "mtr")


def _synthetic(name):
    from frcli.data import load_dataset
    truth = json.loads((SYNTH / f"{name}.truth.json").read_text())
    kw = {"task": "unsupervised"} if truth["task"] == "unsupervised" else {
        "targets": truth["targets"]}
    ds = load_dataset(SYNTH / f"{name}.arff", **kw)
    if truth.get("semi_supervised"):
        ds = dataclasses.replace(ds, semi_supervised=True)
    return ds


def _shared(rel, **kw):
    from frcli.data import load_dataset
    return load_dataset(SHARED / rel, **kw)


def _ssl_shared(rel, labelled):
    """A P-DS training part: ``labelled`` random rows keep their label, the rest are unlabelled."""
    ds = _shared(rel, targets="last:1")
    rng = np.random.default_rng(0)
    mask = np.zeros(ds.n_examples, bool)
    mask[rng.permutation(ds.n_examples)[:labelled]] = True
    return dataclasses.replace(ds.with_unlabeled(~mask), semi_supervised=True)


def cases(quick: bool):
    """(name, dataset factory, PCTForest kwargs, fit kwargs)."""
    out = []
    synth = ["synth-regression", "synth-mtr", "synth-classification", "synth-mlc",
             "synth-hmlc", "synth-ssl-mtr", "synth-unsupervised"]
    for s in synth:
        for ens in ("rf", "bagging", "et"):
            for seed in ((0,) if quick else (0, 1)):
                kw = {"trees": 10, "seed": seed}
                fit = {"rf_score": ens != "et", "per_target": True}
                if s == "synth-ssl-mtr":
                    kw["w"] = 0.5
                out.append((f"{s}/{ens}/{seed}", lambda s=s: _synthetic(s), (ens, kw), fit))
    sizes = (3000,) if quick else (3000, 20000)
    for kind in ("plain", "ties", "missing", "class", "mlc", "ssl"):
        for n in sizes:
            for ens, mf in (("rf", None), ("bagging", 0.5), ("rf", 1)):
                kw = {"trees": 4 if n > 5000 else 8, "seed": n % 7, "max_features": mf}
                if kind == "ssl":
                    kw["w"] = 0.3
                fit = {"rf_score": True, "per_target": True}
                out.append((f"gen-{kind}-{n}/{ens}/{mf}", lambda k=kind, n=n: gen(k, n),
                            (ens, kw), fit))
    real = [("mtr/atp1d.arff", {"targets": "last:6"}), ("mtr/enb.arff", {"targets": "last:2"}),
            ("mtr/scpf.arff", {"targets": "last:3"}), ("mtr/jura.arff", {"targets": "last:3"}),
            ("stc/bank.arff", {"targets": "last:1"}), ("str/pol.arff", {"targets": "last:1"}),
            ("hmlc/cellcycle_FUN/cellcycle_FUN.train.arff", {}),
            ("mlc/bibtex/bibtex-train.arff", {"labels": SHARED / "mlc/bibtex/bibtex.xml"})]
    if not quick:
        real += [("mtr/wq.arff", {"targets": "last:14"}), ("mtr/osales.arff",
                                                          {"targets": "last:12"}),
                 ("stc/coil2000.arff", {"targets": "last:1"}),
                 ("mcc/madelon.arff", {"targets": "last:1"}),
                 ("mlc/delicious/delicious-train.arff",
                  {"labels": SHARED / "mlc/delicious/delicious.xml"}),
                 ("mlc/enron/enron-train.arff", {"labels": SHARED / "mlc/enron/enron.xml"})]
    # P-UNS's forests (unsupervised extra trees, ⌈log2 F⌉ features, fully grown, bootstrapped)
    # on sparse count data: the screened extra-trees candidates of the complete mode
    for rel in ("mcc/PCMAC.arff",) + (() if quick else ("mcc/colon.arff",)):
        if (SHARED / rel).exists():
            kw = {"trees": 2, "seed": 5, "max_features": "log2", "min_leaf": 1.0,
                  "bootstrap": True}
            out.append((f"{rel}/et/unsupervised",
                        lambda rel=rel: _shared(rel, task="unsupervised", drop=["class"]),
                        ("et", kw), {"rf_score": True, "per_target": False}))
    # semi-supervised forests as P-DS grows them: 200 labelled rows, fully grown,
    # a fixed w and w chosen by the internal CV (``choose_w``, with few trees)
    for rel in ("stc/tic-tac-toe.arff", "stc/pageblocks.arff"):
        if not (SHARED / rel).exists():
            continue
        for ens in ("rf", "bagging", "et"):
            for w in (0.3, "auto"):
                kw = {"trees": 4, "seed": 2, "min_leaf": 1.0, "w": w}
                out.append((f"{rel}/ssl200/{ens}/w={w}", lambda rel=rel: _ssl_shared(rel, 200),
                            (ens, kw), {"rf_score": ens != "et", "per_target": True}))
    for rel, lkw in real:
        if not (SHARED / rel).exists():
            continue
        big = "delicious" in rel or "bibtex" in rel or "cellcycle" in rel
        for ens in ("rf", "et") if quick else ("rf", "bagging", "et"):
            kw = {"trees": 2 if big else 6, "seed": 3,
                  "max_features": "sqrt" if big else None}
            fit = {"rf_score": ens != "et", "per_target": not big}
            out.append((f"{rel}/{ens}", lambda rel=rel, lkw=lkw: _shared(rel, **lkw),
                        (ens, kw), fit))
    return out


# -- dump and compare ----------------------------------------------------------------------

def dump(path: str, quick: bool, only: str | None) -> None:
    import inspect

    try:                        # the engine's room before and after the PCT family package
        from frcli.engines.pct.model import PCTForest
        from frcli.engines.pct.wcv import choose_w
    except ImportError:
        from frcli.engines.forest import PCTForest, choose_w
    # h* of tests on missing values under the rule every build records (builds before the
    # genie3_missing option know only "known"; the default is now CLUS's rule), and CLUS's
    # tie rule, whose scores every build computes alike (the default "share" grows the same
    # trees: tests/engines/pct/test_forest_ties.py)
    pin = ({"genie3_missing": "known"}
           if "genie3_missing" in inspect.signature(PCTForest).parameters else {})
    pin["ties"] = "first"
    arrays = {}
    timing = {}
    data_cache: dict = {}
    for name, factory, (ens, kw), fit in cases(quick):
        if only and only not in name:
            continue
        key = repr(factory.__defaults__)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if key not in data_cache:
                data_cache.clear()
                data_cache[key] = factory()
            ds = data_cache[key]
            if ds.task != "unsupervised" and not np.all(ds.labeled) and "w" not in kw:
                ds = ds.subset(ds.labeled)
            t0 = time.perf_counter()
            if kw.get("w") == "auto":          # the chosen w and every CV loss are compared too
                wv, losses = choose_w(ds, ensemble=ens, trees=3, max_features=None,
                                      min_leaf=kw["min_leaf"], bootstrap=None, w0=0.75,
                                      seed=kw["seed"], jobs=1)
                arrays[f"{name}|wcv|losses"] = np.array([losses[k] for k in sorted(losses)])
                arrays[f"{name}|wcv|w"] = np.array([wv])
                kw = {**kw, "w": wv}
            m = PCTForest(ens, **kw, **pin).fit(ds, **fit)
            timing[name] = time.perf_counter() - t0
            sc = m.scores()
        for t, tree in enumerate(m.trees_):
            for a in ARRAYS:
                if a in tree:
                    arrays[f"{name}|tree{t}|{a}"] = np.asarray(tree[a])
        for k in ("symbolic", "genie3", "rf", "genie3_per_target", "rf_per_target"):
            if k in sc:
                arrays[f"{name}|score|{k}"] = np.asarray(sc[k])
    np.savez(path, **arrays)
    Path(path + ".json").write_text(json.dumps(timing))
    Path(path + ".env.json").write_text(json.dumps(_canaries().environment()))


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a.view(np.uint64 if a.itemsize == 8 else np.uint32),
                                   b.view(np.uint64 if b.itemsize == 8 else np.uint32)))
    return bool(np.array_equal(a, b))


def compare(ref: str, ours: str) -> int:
    A, B = np.load(ref), np.load(ours)
    ka, kb = set(A.files), set(B.files)
    bad = sorted(ka ^ kb)
    for k in sorted(ka & kb):
        if not _same(A[k], B[k]):
            bad.append(k)
    ta = json.loads(Path(ref + ".json").read_text())
    tb = json.loads(Path(ours + ".json").read_text())
    n_forests = len(ta)
    n_trees = len({k.rsplit("|", 1)[0] for k in ka if "|tree" in k})
    n_nodes = sum(A[k].size for k in ka if k.endswith("|feature"))
    print(f"{n_forests} forests, {n_trees} trees, {n_nodes} nodes, {len(ka)} arrays compared")
    print(f"growth time: reference {sum(ta.values()):.1f} s, this build "
          f"{sum(tb.values()):.1f} s")
    ea = json.loads(Path(ref + ".env.json").read_text())
    eb = json.loads(Path(ours + ".env.json").read_text())
    diff = sorted(k for k in set(ea) | set(eb) if ea.get(k) != eb.get(k))
    if diff:
        print("environments differ in " + ", ".join(f"{k} ({ea.get(k)} / {eb.get(k)})"
                                                      for k in diff))
    if bad:
        cases_bad = sorted({k.split("|")[0] for k in bad})
        print(f"DIFFERENT: {len(bad)} arrays in {len(cases_bad)} forests")
        for c in cases_bad[:30]:
            print("  ", c, [k.split("|", 1)[1] for k in bad if k.startswith(c + "|")][:6])
        return 1
    print("IDENTICAL: every tree, node, threshold, weight, prototype and score")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", help="directory whose frcli is the reference (PYTHONPATH)")
    ap.add_argument("--reference-python", default=sys.executable,
                    help="interpreter of the reference (default: this one)")
    ap.add_argument("--quick", action="store_true", help="a smaller set of cases")
    ap.add_argument("--only", help="only cases whose name contains this")
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    ap.add_argument("--keep", help="directory to keep the dumps in")
    args = ap.parse_args()
    if args.dump:
        dump(args.dump, args.quick, args.only)
        return 0
    if not args.reference and args.reference_python == sys.executable:
        ap.error("give --reference DIR or --reference-python PYTHON")
    d = args.keep or tempfile.mkdtemp(prefix="frcli-identity-")
    os.makedirs(d, exist_ok=True)
    extra = (["--quick"] if args.quick else []) + (["--only", args.only] if args.only else [])
    env = dict(os.environ)
    if args.reference:
        env["PYTHONPATH"] = str(Path(args.reference).resolve())
    me = str(Path(__file__).resolve())
    ref_out, our_out = os.path.join(d, "reference.npz"), os.path.join(d, "ours.npz")
    subprocess.run([args.reference_python, me, "--dump", ref_out, *extra], check=True, env=env,
                   cwd=tempfile.gettempdir())
    check = subprocess.run([args.reference_python, "-c", "import frcli; print(frcli.__file__)"],
                           env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True)
    print("reference:", check.stdout.strip())
    subprocess.run([sys.executable, me, "--dump", our_out, *extra], check=True,
                   cwd=tempfile.gettempdir())
    return compare(ref_out, our_out)


if __name__ == "__main__":
    sys.exit(main())
