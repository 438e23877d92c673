"""What a section leaves out and what its tests can say at its N, both said plainly.

Every section ends with a generated **Data sets** line: how many of the data sets of its
configs' files it runs, which ``../shared/datasets`` holds (through the catalog), beside the
paper's number, and the left-out sets by name. Sections whose render runs statistical tests
get a **Power at this N** line too: the tests are recorded while the render runs
(``recording``: the functions of ``frcli.stats`` are wrapped for its duration, so no study
has to declare them), and for each kind the line says whether it can reject at the N it ran
on, and which N it would need:

* a two-sided exact Wilcoxon signed-rank test on N pairs reaches at best p = 2/2^N; after
  Holm's correction over m tests the first threshold is α/m, after Benjamini–Hochberg the
  best case (all m at the minimum) is α;
* Friedman/Iman–Davenport can reject at any N ≥ 2 (identical rankings give F = ∞), but
  Nemenyi separates two of k methods only when k − 1 > CD = q_α √(k(k+1)/6N);
* a Bayesian test has no rejection threshold; its N is stated.
"""
from __future__ import annotations

import contextlib
import math
from pathlib import Path
import yaml

from reproduce import md

ROOT = Path(__file__).resolve().parents[1]
ALPHA = 0.05


# --------------------------------------------------------------------------- data sets
def _names(path: str) -> list[str]:
    doc = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    return [e if isinstance(e, str) else str(e["name"]) for e in doc.get("datasets") or []]


def full_file(path: str) -> str:
    """The config file a subset file stands for (configs/x-subset.yaml → configs/x.yaml)."""
    p = Path(path)
    if p.stem.endswith("-subset"):
        whole = p.with_name(p.stem[:-len("-subset")] + p.suffix)
        if (ROOT / whole).is_file():
            return whole.as_posix()
    return path


def held(path: str) -> list[str]:
    """The data sets of a config file that ../shared (or the repository) holds: catalog
    entries whose files are there, explicit entries whose files exist."""
    import os

    from frcli.data import catalog
    from frcli.experiment.config import load_config

    cwd = os.getcwd()
    os.chdir(ROOT)          # explicit paths resolve against the checkout, as the runner's
    try:
        cfg = load_config(ROOT / path)
    finally:
        os.chdir(cwd)
    out = []
    for d in cfg.datasets:
        if d.catalog:
            ok = catalog.get(d.name).available()
        else:
            ok = all(Path(p).exists() for p in (*d.path, *d.test))
        if ok:
            out.append(d.name)
    return out


def paper_n(study) -> int | None:
    """The paper's number of data sets: ``Study.paper_sets`` (an int, or 'paper:table'
    for the rows of a quoted table, or 'paper:fact')."""
    ref = getattr(study, "paper_sets", None)
    if ref is None or isinstance(ref, int):
        return ref
    from reproduce.papers import paper

    name, _, item = ref.partition(":")
    p = paper(name)
    tables = p.doc.get("tables") or {}
    if item in tables:
        return len(tables[item].get("rows") or {})
    return int(p.fact(item).value)


def data_sets(study, cfgs=None) -> dict:
    """{'files': [config files], 'shared': [names held], 'ran': [shared names run], 'left':
    [shared names not run], 'paper': N or None, 'per_config': [(config name, run, of)] for
    the configs of a multi-config study that run fewer than their file's shared sets}.

    The study's data sets are ``Study.universe`` when declared, else the data sets of its
    configs' files (a ``*-subset`` file stands for its whole file) that ``../shared`` holds;
    a study without configs runs ``Study.sets``."""
    cfgs = cfgs if cfgs is not None else [r.load() for r in study.configs]
    files = list(dict.fromkeys(full_file(r.path) for r in study.configs))
    ran: list[str] = []
    for cfg in cfgs:
        ran += [d.name for d in cfg.datasets if d.name not in ran]
    if not study.configs:
        ran = list(getattr(study, "sets", None) or ())
    explicit = getattr(study, "universe", None)
    per_config = []
    if explicit is not None:
        shared = list(explicit)
    elif not study.configs:
        shared = list(ran)
    else:
        shared = []
        for f in files:
            shared += [n for n in held(f) if n not in shared]
        if len(cfgs) > 1:
            for ref, cfg in zip(study.configs, cfgs):
                of = [n for n in held(full_file(ref.path)) if n in shared]
                got = {d.name for d in cfg.datasets}
                left = [n for n in of if n not in got]
                if left:
                    per_config.append((cfg.name, len(of) - len(left), len(of), left))
    return {"files": files, "shared": shared, "ran": [n for n in shared if n in ran],
            "left": [n for n in shared if n not in ran], "paper": paper_n(study),
            "per_config": per_config}


def column(study, cfgs=None) -> str:
    """The Run times cell: 'n of N shared (P of the paper)'."""
    d = data_sets(study, cfgs)
    cell = f"{len(d['ran'])} of {len(d['shared'])} shared"
    if d["paper"]:
        cell += f" ({d['paper']} of the paper)"
    if d["per_config"]:
        cell += "; " + ", ".join(f"{n}: {a} of {b}" for n, a, b, _ in d["per_config"])
    return cell


def _n(k: int) -> str:
    return f"{k} data set{'' if k == 1 else 's'}"


def data_line(study, cfgs=None) -> str:
    """'**Data sets.** ...': what runs of what ../shared holds, the paper's number, and every
    left-out set by name (per config too, when the configs run different sets)."""
    d = data_sets(study, cfgs)
    if not d["shared"] and not study.configs:
        return ""                    # no data set at all (a rule, an index, a simulation)
    paper = f" (the paper has {d['paper']})" if d["paper"] else ""
    if getattr(study, "universe", None) is not None or not study.configs:
        k = len(d["shared"])
        what = (f"the {'one data set' if k == 1 else _n(k)} this study is about: "
                f"{md.listing(d['shared'])}")
    else:
        where = md.listing([f"`{f}`" for f in d["files"]])
        what = (f"the {_n(len(d['shared']))} of {where} that `../shared/datasets` holds")
    if not d["left"]:
        head = f"**Data sets.** It runs {'' if len(d['shared']) == 1 else 'all '}{what}{paper}."
    else:
        head = (f"**Data sets.** It runs {len(d['ran'])} of {what}{paper}; left out: "
                f"{md.listing(d['left'])}.")
    for name, a, b, left in d["per_config"]:
        head += f" `{name}` runs {a} of the {b} (left out: {md.listing(left)})."
    return head


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


NEXT_S = 3600.0      # a left-out pair under one hour of one core is named to run next


def _pair_cost(seconds: float, source: str, note: str) -> str:
    if seconds != seconds:
        return "not estimated (no set of its config has run)"
    how = "sub-slice" if "sub-slice" in note else source
    return f"{_hours(seconds)} ({how})"


def shortfall_cell(cost: dict) -> str:
    """The Run times cell's tail: each left-out data set with the one-core time of its
    left-out pairs, the sum and its sampled part (the section has the plan)."""
    per: dict[str, float] = {}
    for _, d, sec, *_ in cost["pairs"]:
        per[d] = per.get(d, 0.0) + sec
    known = [p for p in cost["pairs"] if p[2] == p[2]]
    sampled = sum(p[2] for p in known if p[3] == "sampled")
    return (f"left out: {', '.join(f'{d} ' + (_hours(v) if v == v else '?') for d, v in per.items())}"
            f" ({_hours(sum(p[2] for p in known))} one-core, {_hours(sampled)} sampled; "
            f"plan in its section)")


def cost_line(name: str, cost: dict) -> str:
    """'**Left out: cost and plan.** ...': every left-out (config, data set) pair by name with
    its one-core time (sampled with the current engines, else extrapolated), the sum, and
    how they get run."""
    pairs = cost["pairs"]
    known = [p for p in pairs if p[2] == p[2]]
    total = sum(p[2] for p in known)
    sampled = sum(p[2] for p in known if p[3] == "sampled")
    by_config: dict[str, list[str]] = {}
    for c, d, sec, source, note in pairs:
        by_config.setdefault(c, []).append(f"{d} {_pair_cost(sec, source, note)}")
    listing = "; ".join(f"`{c}`: {', '.join(v)}" for c, v in by_config.items())
    sub = any("sub-slice" in p[4] for p in pairs if p[3] == "sampled")
    how = ("*sampled*: the CPU seconds of one slice of the pair's runs (every ranker on the "
           "first split, at the middle labelled-set size) with the current engines × its "
           "planned runs (`python -m reproduce --sample-costs`)"
           + ("; *sub-slice*: the same with its ensembles grown at two small tree counts "
              "and their cost fitted linearly in the trees" if sub else "")
           + "; *extrapolated*: no sample yet, linear in rows × features from the largest "
             "set of its config that ran or was sampled (a lower bound where a learner grows "
             "faster: Relief's neighbour search with the rows squared, relational learners "
             "with the facts)")
    nxt = sorted((p for p in known if p[2] < NEXT_S), key=lambda p: p[2])
    where = md.listing([f"`{w}`" for w in cost["where"]])
    plan = ("Plan: by power first, then by cost, cheapest first"
            + (f" ({md.listing([f'{d} of `{c}`' for c, d, *_ in nxt])}, under an hour each: "
               f"{_hours(sum(p[2] for p in nxt))} together)" if nxt else "")
            + f": the pairs run as configs whose stores accumulate in `reproduce/stores/` "
              f"across sessions and machines (`python -m reproduce {name}` resumes them), "
              f"and the declared subset in {where} widens once they are complete, until the "
              f"coverage reads 100 %.")
    part = f"{_hours(sampled)} of it sampled" if sampled else "none of it sampled yet"
    return (f"**Left out: cost and plan.** The left-out pairs would take about "
            f"{_hours(total)} of one-core time ({part}; "
            f"`python -m reproduce --estimate`): {listing}. {how[0].upper()}{how[1:]}. {plan}")


# --------------------------------------------------------------------------- tests run
class Recorder:
    """The statistical tests a render ran (filled while ``recording`` is active)."""

    def __init__(self):
        self.wilcoxon: list[tuple[int, float]] = []      # (N pairs, p)
        self.friedman: list[tuple[int, int]] = []         # (k, N)
        self.friedman_p: list[float] = []
        self.nemenyi: list[tuple[int, int]] = []          # (k, N)
        self.corrections: list[tuple[str, list[float]]] = []
        self.bayes: list[tuple[str, int]] = []            # (test, N)


_active: list[Recorder] = []


@contextlib.contextmanager
def recording():
    """Record the tests of ``frcli.stats`` called inside (a render)."""
    from frcli.stats import bayes as B
    from frcli.stats import tests as T

    rec = Recorder()
    orig = {"wilcoxon_pair": T.wilcoxon_pair, "friedman": T.friedman,
            "nemenyi_cd": T.nemenyi_cd, "adjust": T.adjust,
            "benjamini_hochberg": T.benjamini_hochberg, "holm": T.holm}
    orig_bayes = B.compare

    def wilcoxon_pair(a, b, *args, **kw):
        r = orig["wilcoxon_pair"](a, b, *args, **kw)
        rec.wilcoxon.append((len(a), float(r.p_value)))
        return r

    def friedman(avg_ranks, n, *args, **kw):
        rec.friedman.append((len(avg_ranks), int(n)))
        r = orig["friedman"](avg_ranks, n, *args, **kw)
        rec.friedman_p.append(float(r.f_p))
        return r

    def nemenyi_cd(k, n, *args, **kw):
        rec.nemenyi.append((int(k), int(n)))
        return orig["nemenyi_cd"](k, n, *args, **kw)

    def correction(kind):
        def f(p_values, *args, **kw):
            method = kind or (args[1] if len(args) > 1 else kw.get("method", "bh"))
            if not _inside[0]:
                rec.corrections.append((method, [float(x) for x in p_values]))
            _inside[0] += 1
            try:
                return orig[kind or "adjust"](p_values, *args, **kw)
            finally:
                _inside[0] -= 1
        return f

    def bayes_compare(x, y, *args, **kw):
        import numpy as np

        rec.bayes.append((kw.get("test", "hierarchical"), int(np.asarray(x).shape[0])))
        return orig_bayes(x, y, *args, **kw)

    _inside = [0]
    patched = {"wilcoxon_pair": wilcoxon_pair, "friedman": friedman,
               "nemenyi_cd": nemenyi_cd, "adjust": correction(None),
               "benjamini_hochberg": correction("benjamini_hochberg"),
               "holm": correction("holm")}
    for k, f in patched.items():
        setattr(T, k, f)
    B.compare = bayes_compare
    _active.append(rec)
    try:
        yield rec
    finally:
        _active.pop()
        for k, f in orig.items():
            setattr(T, k, f)
        B.compare = orig_bayes


def note_bayes(test: str, n: int) -> None:
    """Record a Bayesian test whose result a render read from a file instead of running it
    (so the power line is the same either way)."""
    for rec in _active:
        rec.bayes.append((test, int(n)))


def wilcoxon_min_p(n: int) -> float:
    """The smallest two-sided exact Wilcoxon signed-rank p with n non-zero differences."""
    return 2.0 ** (1 - n)


def wilcoxon_n_for(threshold: float) -> int:
    """The smallest N whose smallest exact p is at most ``threshold``."""
    return max(1, math.ceil(1 - math.log2(threshold) - 1e-12))


def nemenyi_n_for(k: int, alpha: float = ALPHA) -> int:
    """The smallest N at which Nemenyi can separate the best from the worst of k methods."""
    from frcli.stats.tests import nemenyi_q

    q = nemenyi_q(k, alpha)
    return math.floor(q * q * k * (k + 1) / (6.0 * (k - 1) ** 2)) + 1


def _ks(ks: list[int]) -> str:
    return f"k = {ks[0]}" if len(ks) == 1 else f"k = {ks[0]} to {ks[-1]} rankings"


def _method_name(m: str) -> tuple[str, str]:
    m = {"benjamini_hochberg": "bh"}.get(m, m)
    return m, {"bh": "Benjamini–Hochberg", "holm": "Holm"}.get(m, m)


def power_line(rec: Recorder, alpha: float = ALPHA) -> str:
    """'**Power at this N.** ...' for the recorded tests, or ''."""
    parts = []
    w_by_n: dict[int, list[float]] = {}
    for n, p in rec.wilcoxon:
        w_by_n.setdefault(n, []).append(p)
    corrected: dict[int, list[tuple[str, int]]] = {}
    for method, ps in rec.corrections:
        for n, wps in w_by_n.items():
            if ps and sum(1 for p in ps if p in wps) >= max(1, len(ps) // 2):
                corrected.setdefault(n, []).append((method, len(ps)))
    for n in sorted(w_by_n):
        pmin = wilcoxon_min_p(n)
        s = (f"Wilcoxon signed-rank ({len(w_by_n[n])} test{'s' if len(w_by_n[n]) > 1 else ''} "
             f"on N = {n}): the smallest exact two-sided p at N = {n} is 2/2^{n} = "
             f"{md.pval(pmin)}")
        if pmin > alpha:
            s += (f" > α = {alpha:g}, so no test can be significant; N ≥ "
                  f"{wilcoxon_n_for(alpha)} could")
        else:
            s += f" ≤ α = {alpha:g}: one test alone can reject"
        bh_ok = []
        for method, m in sorted(set(corrected.get(n, []))):
            key, label = _method_name(method)
            thr = alpha / m if key == "holm" else alpha
            if key == "holm":
                what = f"Holm's first threshold over {m} tests is {alpha:g}/{m} = {md.pval(thr)}"
                s += (f"; {what}, so none can be significant after it (N ≥ "
                      f"{wilcoxon_n_for(thr)} could)" if pmin > thr else
                      f"; {what}, which N = {n} can reach")
            elif pmin > thr:
                s += f"; {label} over {m} tests cannot reject either"
            else:
                bh_ok.append(m)
        if bh_ok:
            s += (f"; Benjamini–Hochberg over {md.listing([str(m) for m in bh_ok])} tests "
                  f"can reject at this N")
        parts.append(s + ".")
    fps = set(rec.friedman_p)
    on_friedman = sorted({(_method_name(meth)[1], len(ps)) for meth, ps in rec.corrections
                          if ps and sum(p in fps for p in ps) >= max(1, len(ps) // 2)})
    for n in sorted({n for _, n in rec.friedman}):
        ks = sorted({k for k, m in rec.friedman if m == n})
        parts.append(f"Friedman/Iman–Davenport ({_ks(ks)} on N = {n}): can reject at any N ≥ 2 "
                     f"(identical rankings on every set give F = ∞)"
                     + ("; at N ≤ 10 its p-value is a large-sample approximation."
                        if n <= 10 else "."))
    if on_friedman:
        parts.append(md.listing([f"{label} over {m}" for label, m in on_friedman]).capitalize()
                     [:1] + md.listing([f"{label} over {m}" for label, m in on_friedman])[1:] +
                     " Friedman tests: can reject at this N too (the smallest Iman–Davenport p "
                     "is 0).")
    for n in sorted({n for _, n in rec.nemenyi}):
        ks = sorted({k for k, m in rec.nemenyi if m == n})
        short = [k for k in ks if n < nemenyi_n_for(k, alpha)]
        if not short:
            parts.append(f"Nemenyi ({_ks(ks)} on N = {n}): can separate the best from the "
                         f"worst ranking at this N.")
        else:
            parts.append(f"Nemenyi ({_ks(ks)} on N = {n}): cannot separate any two of "
                         + md.listing([f"{k} (needs N ≥ {nemenyi_n_for(k, alpha)})"
                                       for k in short]) + " rankings at this N.")
    bay = sorted(set(rec.bayes))
    if bay:
        parts.append("Bayesian " + md.listing([f"{t} test on N = {n}" for t, n in bay]) +
                     ": no rejection threshold; its posterior probabilities are reported as "
                     "they are.")
    return ("**Power at this N.** " + " ".join(parts)) if parts else ""


def section_note(study, stores=None, rec: Recorder | None = None,
                 cost: dict | None = None) -> str:
    """The generated lines every section ends with (``cost``: what the left-out sets would
    cost, ``sections.left_out_cost``)."""
    cfgs = [v.config for v in stores.values()] if stores is not None and len(stores) else None
    lines = [ln for ln in [data_line(study, cfgs)] if ln]
    if cost is not None:
        lines.append(cost_line(study.name, cost))
    if rec is not None:
        p = power_line(rec)
        if p:
            lines.append(p)
    return "\n\n".join(lines)
