"""The whole case study from one config (``frcli mex run configs/mex.yaml``): the raw files
(simulated when asked and missing), the features of every Δt, every model's error, time and
rankings, and the figures. Every step leaves its result in the output folder and is skipped
when that result is there already, so an interrupted run resumes.

Layout of the output folder::

    dt15.parquet (or .arff)      the features of each Δt
    results/dt15-g-rf.json       RMSE (hourly and at Δt), per target, CPU time, sizes
    results/dt15-g-rf.npz        per-target importances (and test predictions at the ranking Δt)
    groups-g-rf.png, pareto.png, fuji.png, summary.json
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from frcli.errors import ConfigError

DEFAULT_DT = (1, 5, 10, 15, 30, 60)
MEMORY_GB = 8.0


@dataclass
class Config:
    """What ``frcli mex run`` does (see configs/mex.yaml)."""

    name: str
    raw: Path
    output: Path
    simulate: dict | None = None
    features: str = "8a"
    dt: tuple[int, ...] = DEFAULT_DT
    test_from: str | None = None
    models: dict[str, dict] = field(default_factory=dict)
    fractions: dict[str, dict[int, float]] = field(default_factory=dict)
    rankings_dt: int | None = 15
    fuji_targets: tuple[str, ...] = ()
    gyroless: dict | None = None
    seed: int = 0
    memory_gb: float = MEMORY_GB


KEYS = {"name", "description", "raw", "output", "simulate", "features", "dt", "test_from",
        "models", "fractions", "rankings", "fuji", "gyroless", "seed", "memory_gb"}


def load_config(path: str | Path, overrides: dict | None = None) -> Config:
    """Parse a mex config (YAML); relative paths are relative to the working directory."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    doc.update(overrides or {})
    return parse_config(doc, str(path))


def parse_config(doc: dict, where: str = "config") -> Config:
    from frcli.data.mex.build import FEATURE_SETS
    from frcli.mex.models import MODELS, spec_from

    if not isinstance(doc, dict):
        raise ConfigError(f"{where}: expected a mapping of keys")
    bad = sorted(set(doc) - KEYS)
    if bad:
        raise ConfigError(f"{where}: unknown key {bad[0]!r}; allowed: {', '.join(sorted(KEYS))}")
    for k in ("name", "raw", "output"):
        if not doc.get(k):
            raise ConfigError(f"{where}: key {k!r} is required")
    feats = str(doc.get("features", "8a"))
    if feats not in FEATURE_SETS:
        raise ConfigError(f"{where}: features {feats!r}; allowed: {', '.join(FEATURE_SETS)}")
    dts = doc.get("dt", list(DEFAULT_DT))
    dts = [dts] if isinstance(dts, int) else list(dts)
    if not dts or any(not isinstance(d, int) or d < 1 for d in dts):
        raise ConfigError(f"{where}: dt must be whole minutes >= 1, got {dts}")
    models = doc.get("models") or {"g-rf": {}, "l-rf": {}, "boost": {}}
    for name, params in models.items():
        if name not in MODELS:
            raise ConfigError(f"{where}: unknown model {name!r}; allowed: {', '.join(MODELS)}")
        spec_from(name, params or {})
    fractions = {}
    for name, per in (doc.get("fractions") or {}).items():
        if name not in models:
            raise ConfigError(f"{where}: fractions for {name!r}, which is not among the models")
        fractions[name] = {int(k): float(v) for k, v in (per or {}).items()}
    rank = doc.get("rankings") or {}
    fuji = doc.get("fuji") or {}
    sim = doc.get("simulate")
    if sim is not None and not isinstance(sim, dict):
        raise ConfigError(f"{where}: simulate takes {{years: N, seed: S}}")
    return Config(str(doc["name"]), Path(doc["raw"]), Path(doc["output"]), sim, feats,
                  tuple(sorted(set(dts))), doc.get("test_from"),
                  {k: dict(v or {}) for k, v in models.items()}, fractions,
                  rank.get("dt", 15) if isinstance(rank, dict) else None,
                  tuple(fuji.get("targets", ())), doc.get("gyroless"), int(doc.get("seed", 0)),
                  float(doc.get("memory_gb", MEMORY_GB)))


def _test_from(cfg: Config, raw) -> int | None:
    """The first test time: the config's date, else the test_set period's start when it has
    power, else None (the last quarter)."""
    from frcli.data.mex.layout import date_ms

    if cfg.test_from:
        import datetime as dt

        try:
            return date_ms(dt.date.fromisoformat(str(cfg.test_from)))
        except ValueError:
            raise ConfigError(f"test_from {cfg.test_from!r} is not a date (YYYY-MM-DD)") \
                from None
    for p in raw.periods:
        if p.folder == "test_set" and p.power is not None:
            return date_ms(p.start)
    return None


def _jdump(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def run(cfg: Config, log: Callable[[str], None] | None = None) -> dict:
    """Run (or resume) the study; returns the summary also written to summary.json."""
    import tempfile

    from frcli.data.mex.build import build, read_built
    from frcli.data.mex.layout import discover
    from frcli.data.mex.read import read_raw

    say = log or (lambda m: None)
    out = cfg.output
    out.mkdir(parents=True, exist_ok=True)
    (out / "results").mkdir(exist_ok=True)
    if not cfg.raw.exists() and cfg.simulate is not None:
        from frcli.data.mex.simulate import simulate

        say(f"simulating {cfg.simulate} into {cfg.raw}")
        simulate(cfg.raw, years=float(cfg.simulate.get("years", 4)),
                 seed=int(cfg.simulate.get("seed", 0)), log=say)
    ext = _extension()
    periods = discover(cfg.raw)
    raw = None
    with tempfile.TemporaryDirectory(prefix=".mex-", dir=out) as tmp:
        builds = {}
        for d in cfg.dt:
            path = out / f"dt{d}{ext}"
            info = out / f"dt{d}.build.json"
            if not (path.exists() and info.exists()):
                if raw is None:
                    raw = read_raw(periods, Path(tmp), log=say)
                s = build(cfg.raw, d, path, features=cfg.features, log=say, raw=raw,
                          workdir=out)
                _jdump(info, s.to_dict() | {"output": path.name})
                say(f"Δt = {d}: {s.rows} rows, {s.n_features} features ({s.seconds:.1f} s)")
            builds[d] = json.loads(info.read_text())
        test_from = _test_from(cfg, raw if raw is not None else _Periods(periods))
    summary: dict[str, Any] = {"name": cfg.name, "features": cfg.features, "dt": list(cfg.dt),
                               "builds": builds, "results": []}
    for d in cfg.dt:
        path = out / f"dt{d}{ext}"
        data = None
        for name, params in cfg.models.items():
            res = out / "results" / f"dt{d}-{name}.json"
            if res.exists():
                summary["results"].append(json.loads(res.read_text()))
                continue
            if data is None:
                data = read_built(path)
            r = _evaluate(cfg, name, params, d, data, test_from, say)
            _jdump(res, r)
            summary["results"].append(r)
    if cfg.rankings_dt in cfg.dt:
        summary["rankings"] = _rankings(cfg, out, say)
    if cfg.gyroless:
        summary["gyroless"] = _gyroless(cfg, out, periods, say)
    _figures(cfg, out, summary)
    _jdump(out / "summary.json", summary)
    return summary


class _Periods:
    def __init__(self, periods):
        self.periods = periods


def _extension() -> str:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return ".arff"
    return ".parquet"


def _evaluate(cfg: Config, name: str, params: dict, dt: int, data, test_from, say) -> dict:
    from frcli.data.mex.build import estimate_bytes
    from frcli.mex.evaluate import rmse, split_at
    from frcli.mex.models import fit, spec_from, with_fraction

    ds = data.dataset
    test = split_at(data.times, test_from)
    train = ~test
    spec = spec_from(name, params)
    frac = cfg.fractions.get(name, {}).get(dt)
    if frac is not None:
        spec = with_fraction(spec, frac)
    need = estimate_bytes(int(train.sum()), ds.n_features, ds.n_targets) / 2 ** 30
    base = {"dt": dt, "model": name, "n_train": int(train.sum()), "n_test": int(test.sum()),
            "n_features": ds.n_features, "trees": spec.trees, "fraction": spec.fraction}
    if need > cfg.memory_gb:
        say(f"Δt = {dt}, {name}: skipped, it needs about {need:.1f} GB (memory_gb "
            f"{cfg.memory_gb:g})")
        return base | {"skipped": f"needs about {need:.1f} GB"}
    say(f"Δt = {dt}, {name}: fitting on {int(train.sum())} rows"
        + (f" ({spec.fraction:g} of the ensemble, for its time)" if spec.fraction < 1 else ""))
    tr = ds.subset(train)
    m = fit(tr, spec, dt, seed=cfg.seed)
    out = base | {"seconds": m.seconds, "estimated_seconds": m.estimated_seconds,
                  "seconds_per_target": m.seconds_per_target, "grown": m.grown,
                  "complete": m.complete}
    arrays = {"importances": m.importances, "overall": m.overall,
              "features": np.array(m.feature_names), "targets": np.array(m.target_names)}
    if m.complete and test.any():
        P = m.predict(ds.X[test])
        Y = ds.Y[test]
        h, per = rmse(data.times[test], Y, P, hour=True)
        r, _ = rmse(data.times[test], Y, P, hour=False)
        out |= {"rmse": h, "rmse_dt": r, "rmse_per_target": per.tolist()}
        if dt == cfg.rankings_dt:
            arrays |= {"pred": P, "truth": Y, "times": data.times[test]}
        say(f"Δt = {dt}, {name}: RMSE {h:.4f} (hourly), {m.seconds:.1f} CPU s")
    else:
        say(f"Δt = {dt}, {name}: {m.seconds:.1f} CPU s for {spec.fraction:g} of it, about "
            f"{m.estimated_seconds:.0f} s in full")
    np.savez_compressed(cfg.output / "results" / f"dt{dt}-{name}.npz", **arrays)
    return out


def _rankings(cfg: Config, out: Path, say) -> dict:
    """Group shares of every model at the ranking Δt, FUJI between two halves of the
    training period (G-RF), and the ensembles of ensembles (8a Table 5)."""
    from frcli.data.mex.build import GROUPS, read_built
    from frcli.mex.evaluate import group_shares, rmse, split_at
    from frcli.mex.models import fit, spec_from
    from frcli.stats.fuji import aufuji, fuji_curve

    d = cfg.rankings_dt
    res: dict[str, Any] = {"dt": d, "groups": GROUPS, "shares": {}}
    preds = {}
    for name in cfg.models:
        f = out / "results" / f"dt{d}-{name}.npz"
        if not f.exists():
            continue
        z = np.load(f)
        sh = group_shares(z["importances"], list(z["features"]))
        res["shares"][name] = {"targets": list(map(str, z["targets"])), "per_target": sh.tolist(),
                               "all": group_shares(z["overall"][None, :],
                                                   list(z["features"]))[0].tolist()}
        if "pred" in z:
            preds[name] = (z["pred"], z["truth"], z["times"])
    combos = {}
    for a, b in (("boost", "g-rf"), ("boost", "l-rf")):
        if a in preds and b in preds:
            P = (preds[a][0] + preds[b][0]) / 2
            combos[f"{a}&{b}"] = rmse(preds[a][2], preds[a][1], P)[0]
    res["ensembles"] = combos
    # FUJI: G-RF trained on each half of the training period
    fuji_json = out / "results" / f"fuji-dt{d}.json"
    if fuji_json.exists():
        res["fuji"] = json.loads(fuji_json.read_text())
    elif "g-rf" in cfg.models:
        data = read_built(out / f"dt{d}{_extension()}")
        test = split_at(data.times, _test_from(cfg, _Periods(_discover(cfg.raw))))
        rows = np.flatnonzero(~test)
        half = rows.size // 2
        spec = spec_from("g-rf", cfg.models["g-rf"])
        fits = []
        for part in (rows[:half], rows[half:]):
            keep = np.zeros(data.times.size, bool)
            keep[part] = True
            fits.append(fit(data.dataset.subset(keep), spec, d, seed=cfg.seed))
            say(f"FUJI: G-RF on {part.size} rows of one half")
        a, b = fits
        curves = {"all": fuji_curve(a.overall, b.overall).tolist()}
        names = list(data.dataset.target_names)
        per = {}
        for j, t in enumerate(names):
            if a.importances[j].sum() > 0 and b.importances[j].sum() > 0:
                per[t] = aufuji(a.importances[j], b.importances[j])
                if t in cfg.fuji_targets:
                    curves[t] = fuji_curve(a.importances[j], b.importances[j]).tolist()
        res["fuji"] = {"curves": curves, "aufuji": per,
                       "halves": [int(half), int(rows.size - half)]}
        _jdump(fuji_json, res["fuji"])
    return res


def _discover(raw):
    from frcli.data.mex.layout import discover

    return discover(raw)


def _gyroless(cfg: Config, out: Path, periods, say) -> dict:
    """8b's protocol: train on the first ``train`` share of the mission, test on two later
    windows separated by gaps; local and global single PCTs and RFs on 8b's features."""
    import tempfile

    from frcli.data.mex.build import build, read_built
    from frcli.data.mex.read import read_raw
    from frcli.mex.evaluate import rmse
    from frcli.mex.models import fit, spec_from

    g = dict(cfg.gyroless)
    d = int(g.get("dt", 15))
    res_path = out / "results" / "gyroless.json"
    if res_path.exists():
        return json.loads(res_path.read_text())
    path = out / f"gyroless-dt{d}{_extension()}"
    if not path.exists():
        with tempfile.TemporaryDirectory(prefix=".mex-", dir=out) as tmp:
            raw = read_raw(periods, Path(tmp), log=say)
            build(cfg.raw, d, path, features="8b", log=say, raw=raw, workdir=out)
    data = read_built(path)
    t = data.times
    span = t[-1] - t[0]
    cut = [t[0] + float(x) * span for x in g.get("windows", (0.5, 0.55, 0.75, 0.8))]
    train = t < cut[0]
    windows = {"D_G": (t >= cut[1]) & (t < cut[2]), "D_GLESS": t >= cut[3]}
    ds = data.dataset
    models = g.get("models", {"l-pct": {"min_leaf": 33}, "g-pct": {"min_leaf": 33},
                              "l-rf": {"min_leaf": 33, "trees": 200},
                              "g-rf": {"min_leaf": 33, "trees": 200}})
    out_res: dict[str, Any] = {"dt": d, "features": ds.n_features, "n_train": int(train.sum()),
                               "windows": {k: int(v.sum()) for k, v in windows.items()},
                               "rmse": {}}
    for name, params in models.items():
        spec = spec_from(name, params)
        m = fit(ds.subset(train), spec, d, seed=cfg.seed)
        out_res["rmse"][name] = {}
        for w, rows in windows.items():
            P = m.predict(ds.X[rows])
            out_res["rmse"][name][w] = rmse(t[rows], ds.Y[rows], P, hour=False)[0]
        say(f"8b protocol, {name}: " + ", ".join(f"{w} {v:.4f}" for w, v in
                                                   out_res["rmse"][name].items()))
    _jdump(res_path, out_res)
    return out_res


def _figures(cfg: Config, out: Path, summary: dict) -> None:
    from frcli.mex.evaluate import pareto
    from frcli.mex.figures import fuji_figure, group_diagrams, pareto_figure

    pts = [r for r in summary["results"] if "rmse" in r]
    if pts:
        flags = pareto([(r["estimated_seconds"], r["rmse"]) for r in pts])
        points = [{"model": r["model"], "dt": r["dt"], "seconds": r["estimated_seconds"],
                   "rmse": r["rmse"], "front": f} for r, f in zip(pts, flags)]
        summary["pareto"] = points
        pareto_figure(points, out / "pareto.png",
                      f"{cfg.name}: learning time against error (features {cfg.features})")
    rk = summary.get("rankings")
    if rk:
        for name, sh in rk["shares"].items():
            overall = np.array(sh["all"]) if name == "g-rf" else None
            group_diagrams(np.array(sh["per_target"]), sh["targets"],
                           out / f"groups-{name}.png",
                           f"{name}: feature groups in the Genie3 ranking of every power line "
                           f"(Δt = {rk['dt']})", overall)
        fj = rk.get("fuji")
        if fj:
            fuji_figure({k: np.array(v) for k, v in fj["curves"].items()}, out / "fuji.png",
                        "G-RF trained on the two halves of the training period")


def estimate_rows(minutes: float, dt: int) -> int:
    return int(math.ceil(minutes / dt))
