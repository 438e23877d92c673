"""Config validation: every mistake is a one-line ConfigError naming the key and the choices."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

from frcli.errors import ConfigError, UserError
from frcli.experiment.config import load_config, parse_config
from frcli.experiment.plan import derive_seed, make_plan


def base(**over):
    doc = {
        "name": "t",
        "datasets": [{"name": "a", "path": "a.arff", "task": "mtr", "targets": "last:2"}],
        "protocol": {"type": "holdout", "repeats": 2, "seed": 0},
        "rankers": [{"method": "uniform"}, {"method": "random"}],
        "evaluation": {"knn": 5},
    }
    doc.update(over)
    return doc


def test_valid_config_and_plan(tmp_path):
    cfg = parse_config(base(), "c.yaml", tmp_path)
    assert cfg.evaluation.knn == 5 and cfg.protocol.n_splits == 2
    plan = make_plan(cfg)
    assert len(plan) == 4 and all(len(t.params) == 1 for t in plan)
    assert len({t.seed for t in plan}) == 4


@pytest.mark.parametrize("doc, words", [
    (base(rankerz=[]), ["rankerz", "did you mean 'rankers'", "allowed"]),
    (base(protocol={"type": "holdout", "repeat": 3}), ["protocol.repeat", "repeats"]),
    (base(evaluation={"k": 5}), ["evaluation.k", "knn"]),
    (base(rankers=[{"method": "uniform", "param": {}}]), ["rankers[0].param", "params"]),
    (base(datasets=[{"name": "a", "pth": "x"}]), ["datasets[0].pth", "path"]),
    (base(protocol={"type": "bootstrap"}), ["bootstrap", "holdout, cv, given"]),
    (base(rankers=[{"method": "unifrom"}]), ["unifrom", "uniform"]),
    (base(rankers=[{"method": "uniform", "params": {"trees": 3}}]), ["trees", "uniform"]),
    (base(evaluation={"measures": ["rmse"]}), ["rmse", "rrmse"]),
    (base(evaluation={"measures": ["pooled_auprc"]}), ["pooled_auprc", "rrmse"]),
    (base(evaluation={"knn": 0}), ["evaluation.knn", "1..1000000000"]),
    (base(protocol={"type": "given"}), ["given", "test file"]),
    ({"datasets": []}, ["name"]),
    (base(rankers=["uniform", "uniform"]), ["repeats"]),
])
def test_errors_name_key_and_choices(tmp_path, doc, words):
    with pytest.raises(ConfigError) as e:
        cfg = parse_config(doc, "c.yaml", tmp_path)
        make_plan(cfg)
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)


def test_unknown_catalog_name(tmp_path):
    with pytest.raises(UserError, match="unknown data set"):
        parse_config(base(datasets=["no-such-set"]), "c.yaml", tmp_path)


def test_yaml_errors(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("name: t\ndatasets: [a\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_config(p)
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")


def test_labeled_sizes_and_labeled_only(tmp_path):
    cfg = parse_config(base(protocol={"type": "cv", "folds": 3, "labeled": [20, 10]},
                            rankers=["uniform", {"method": "uniform", "labeled_only": True}]),
                       "c.yaml", tmp_path)
    plan = make_plan(cfg)
    assert len(plan) == 3 * 2 * 2
    assert {t.labeled for t in plan} == {10, 20}
    assert {t.params for t in plan} == {("{}",), ('{"labeled_only":true}',)}


def test_seeds_are_hash_derived():
    assert derive_seed(0, "a", 1, 0, "relief") == derive_seed(0, "a", 1, 0, "relief")
    assert derive_seed(0, "a", 1, 0, "relief") != derive_seed(0, "a", 2, 0, "relief")
    assert 0 <= derive_seed("x") < 2 ** 63
    np.random.default_rng(derive_seed("x"))


def test_shipped_configs_validate():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "configs"
    for p in sorted(root.glob("*.yaml")):
        if p.name in ("datasets.yaml", "mex.yaml"):   # the catalog; frcli mex run's config
            continue
        try:
            cfg = load_config(p)
        except UserError as e:
            if "not available" in str(e):
                continue  # an engine that is not built in this checkout
            raise
        assert cfg.name and cfg.rankers, p
        assert yaml.safe_load(p.read_text())["name"] == cfg.name


SYNTH = __import__("pathlib").Path(__file__).resolve().parents[2] / "datasets" / "synthetic"


def test_explicit_entry_semi_supervised_key_and_unchanged_fingerprints(tmp_path):
    """``semi_supervised: true`` reaches the loader; absent or false, the data set's
    definition (hence every stored run hash) is exactly what it was before the key existed."""
    from frcli.experiment.plan import run_hash

    ds = {"name": "a", "path": "a.arff", "task": "mtr", "targets": "last:2"}
    plain = parse_config(base(datasets=[ds]), "c.yaml", tmp_path)
    false = parse_config(base(datasets=[{**ds, "semi_supervised": False}]), "c.yaml", tmp_path)
    true = parse_config(base(datasets=[{**ds, "semi_supervised": True}]), "c.yaml", tmp_path)
    assert true.datasets[0].semi_supervised and not plain.datasets[0].semi_supervised
    old_keys = {"name", "path", "test", "labels", "task", "targets", "hierarchy", "drop",
                "nominal"}
    assert set(plain.datasets[0].definition()) == old_keys
    assert false.datasets[0].definition() == plain.datasets[0].definition()
    assert true.datasets[0].definition()["semi_supervised"] is True
    h = [run_hash(c, c.datasets[0], 0, c.rankers[0], "{}") for c in (plain, false, true)]
    assert h[0] == h[1] != h[2]
    with pytest.raises(ConfigError, match="semi_supervised = 'yes'.*true or false"):
        parse_config(base(datasets=[{**ds, "semi_supervised": "yes"}]), "c.yaml", tmp_path)


def test_semi_supervised_entry_is_passed_to_the_loader(need):
    import warnings

    from frcli.experiment.config import DatasetSpec
    from frcli.experiment.executor import load_spec

    path = need.file(SYNTH / "synth-ssl-mtr.arff", "the bundled synthetic set")
    spec = dict(name="s", path=(str(path),), targets="last:3", task="mtr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        off, _ = load_spec(DatasetSpec(**spec))
    on, _ = load_spec(DatasetSpec(**spec, semi_supervised=True))
    assert on.semi_supervised and not off.semi_supervised
    assert not on.labeled.all()
