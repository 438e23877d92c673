"""Safety net for work on the Relief family: importances computed by another build of frcli
must equal ours bit for bit.

Every case runs one engine of the family (Relief in each variant: ReliefF, RReliefF on MTR,
MLC and HMLC target distances, per-target, SSL-Relief, URelief with and without
``exclude_self``, the O(nnz) sparse search, missing values, the approximate search; the SSL
tuner; ReliefE with fixed and adaptive k, the absmean update, the sparse update, a UMAP
embedding; MultiSURF and MultiSURF*) on shared or generated data and records every
importance vector (and per-target matrix). ``--reference`` runs the same cases with a
reference build in a child process and compares: any difference in any bit fails.

    # a reference build of main, outside the repository:
    git -C /work/main worktree add --detach /tmp/frcli-ref main
    (cd /tmp/frcli-ref && python setup.py build_ext --inplace && ln -s ../ext frcli/_ext)
    python bench/relief_identity.py --reference /tmp/frcli-ref [--quick]

Or, around a change in one checkout: ``--save FILE`` before it, ``--against FILE`` after it
(with the kernels rebuilt). Nothing is written to the repository.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _catalog(name, **kw):
    from frcli.data import catalog
    ds = catalog.load(name, **kw)
    return ds


def _rows(ds, n, seed=0):
    if ds.n_examples <= n:
        return ds
    keep = np.sort(np.random.default_rng(seed).permutation(ds.n_examples)[:n])
    return ds.subset(keep)


def _ssl(ds, labelled, seed=0):
    rng = np.random.default_rng(seed)
    mask = np.zeros(ds.n_examples, bool)
    mask[rng.permutation(ds.n_examples)[:labelled]] = True
    return dataclasses.replace(ds.with_unlabeled(~mask), semi_supervised=True)


def _with_missing(ds, frac=0.05, seed=1):
    rng = np.random.default_rng(seed)
    X = ds.X.copy()
    X[rng.random(X.shape) < frac] = np.nan
    return dataclasses.replace(ds, X=X)


def _engine(name: str):
    """A module of the Relief family, in the package layout (``frcli.engines.relief.<name>``)
    or, for a reference build from before it, the flat one."""
    import importlib
    old = {"relief": "relief", "ann": "relief_ann", "tune": "relief_tune",
           "reliefe": "reliefe", "multisurf": "multisurf"}[name]
    try:
        return importlib.import_module(f"frcli.engines.relief.{name}")
    except ImportError:
        return importlib.import_module(f"frcli.engines.{old}")


GRID = dict(iterations=[0.5, 1.0], neighbours=[5, 10], sigma=[0.0, 0.2])


def _relief(ds, **kw):
    relief = _engine("relief").relief
    args = {**GRID, **kw}
    return [(r.importances, r.per_target) for r in relief(ds, seed=3, jobs=2, **args)]


def _relief_approx(ds):
    ann = _engine("ann")
    old = ann.EXACT_BELOW
    ann.EXACT_BELOW = 50          # the approximate path on a small set
    try:
        return _relief(ds, search="approximate")
    finally:
        ann.EXACT_BELOW = old


def _tune(ds):
    r, t = _engine("tune").tune_relief(ds, neighbours=[5, 10], seed=2, jobs=2)
    losses = np.array([t.losses[k] for k in sorted(t.losses)])    # what the choice rests on
    return [(r.importances, losses)]


def _reliefe(ds, **kw):
    res = _engine("reliefe").reliefe(ds, [0.5, 1.0], seed=4, jobs=2, **kw)
    return [(r.importances, None) for r in res]


def _multisurf(ds, star):
    return [(_engine("multisurf").multisurf(ds, star=star, jobs=2)[0], None)]


def cases(quick: bool):
    """(name, callable returning [(importances, per_target or None), ...])."""
    out = [
        ("relieff/synth-classification", lambda: _relief(_catalog("synth-classification"))),
        ("rrelieff/atp1d", lambda: _relief(_catalog("atp1d"))),
        ("rrelieff/testMixed per-target",
         lambda: _relief(_catalog("clus-testMixed"), per_target=True)),
        ("rrelieff/missing", lambda: _relief(_with_missing(_catalog("synth-mtr")))),
        ("mlc/emotions f1 per-target",
         lambda: _relief(_catalog("emotions"), per_target=True)),
        ("mlc/medical sparse", lambda: _relief(_catalog("medical"), distance="hamming")),
        ("mlc/medical dense", lambda: _relief(_catalog("medical"), sparse="no")),
        ("hmlc/synth-hmlc", lambda: _relief(_catalog("synth-hmlc"))),
        ("ssl/synth-ssl-mtr", lambda: _relief(_catalog("synth-ssl-mtr"))),
        ("urelief/synth-unsupervised", lambda: _relief(_catalog("synth-unsupervised"))),
        ("urelief/exclude_self",
         lambda: _relief(_catalog("synth-unsupervised"), exclude_self=True)),
        ("relief/approximate", lambda: _relief_approx(_catalog("atp1d"))),
        ("tune/ssl", lambda: _tune(_ssl(_catalog("synth-classification"), 60))),
        ("reliefe/chess none", lambda: _reliefe(_catalog("chess"), embed="none")),
        ("reliefe/colon none auto absmean",
         lambda: _reliefe(_catalog("colon"), embed="none", neighbours="auto",
                          update="absmean")),
        ("reliefe/medical none sparse", lambda: _reliefe(_catalog("medical"), embed="none")),
        ("reliefe/medical absmean sparse",
         lambda: _reliefe(_catalog("medical"), embed="none", update="absmean")),
        ("reliefe/emotions none auto-ratio",
         lambda: _reliefe(_catalog("emotions"), embed="none", neighbours="auto-ratio")),
        ("multisurf/synth-classification",
         lambda: _multisurf(_catalog("synth-classification"), False)),
        ("multisurf*/chess", lambda: _multisurf(_rows(_catalog("chess"), 800), True)),
    ]
    if not quick:
        out += [
            ("reliefe/synth-classification input",
             lambda: _reliefe(_catalog("synth-classification"), embed="input")),
            ("mlc/enron sparse", lambda: _relief(_catalog("enron"))),
        ]
    return out


def dump(path: str, quick: bool) -> None:
    arrays, times = {}, {}
    for name, make in cases(quick):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = make()
        times[name] = time.perf_counter() - t0
        for i, (imp, per) in enumerate(res):
            arrays[f"{name}|{i}|imp"] = np.asarray(imp, dtype=np.float64)
            if per is not None:
                arrays[f"{name}|{i}|per"] = np.asarray(per, dtype=np.float64)
        print(f"{name}: {len(res)} result(s), {times[name]:.1f} s", file=sys.stderr)
    np.savez(path, **arrays)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def compare(ref: str, ours: str) -> int:
    a, b = np.load(ref), np.load(ours)
    keys = sorted(set(a.files) | set(b.files))
    bad = [k for k in keys if k not in a.files or k not in b.files or not _same(a[k], b[k])]
    for k in bad[:20]:
        if k in a.files and k in b.files and a[k].shape == b[k].shape:
            print(f"DIFFERENT {k}: max |diff| {np.nanmax(np.abs(a[k] - b[k])):.3g}")
        else:
            print(f"DIFFERENT {k}: present or shaped differently")
    print(f"{len(keys)} arrays compared: " + ("IDENTICAL" if not bad else f"{len(bad)} differ"))
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", help="directory whose frcli is the reference (PYTHONPATH)")
    ap.add_argument("--reference-python", default=sys.executable,
                    help="interpreter of the reference (default: this one)")
    ap.add_argument("--save", help="write this build's importances to FILE (.npz)")
    ap.add_argument("--against", help="compare this build with importances saved by --save")
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="leave out the slowest cases")
    args = ap.parse_args()
    extra = ["--quick"] if args.quick else []
    if args.dump:
        dump(args.dump, args.quick)
        return 0
    if args.save:
        dump(args.save, args.quick)
        return 0
    me = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory() as d:
        our_out = os.path.join(d, "ours.npz")
        if args.against:
            ref_out = args.against
        else:
            if not args.reference and args.reference_python == sys.executable:
                ap.error("give --reference DIR, --reference-python PYTHON or --against FILE")
            env = dict(os.environ)
            if args.reference:
                env["PYTHONPATH"] = str(Path(args.reference).resolve())
            ref_out = os.path.join(d, "reference.npz")
            subprocess.run([args.reference_python, me, "--dump", ref_out, *extra], check=True,
                           env=env, cwd=d)
        subprocess.run([sys.executable, me, "--dump", our_out, *extra], check=True, cwd=d)
        return compare(ref_out, our_out)


if __name__ == "__main__":
    sys.exit(main())
