"""The commands share one declaration of the data options and reach the engines only through
the rankers layer or the API (a static read of their imports, functions' bodies included)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

COMMANDS = Path(__file__).resolve().parents[2] / "frcli" / "commands"
MODULES = sorted(COMMANDS.glob("*.py"))


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import in ``path``, at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_command_imports_an_engine(path):
    engines = [m for m, _ in _imports(path) if m == "frcli.engines"
               or m.startswith("frcli.engines.")]
    assert not engines, f"{path.name} imports {engines}: go through frcli.rankers or frcli.api"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_command_takes_a_sibling_private_name(path):
    private = [(m, n) for m, names in _imports(path) if m.startswith("frcli.commands.")
               and m != "frcli.commands._data" for n in names if n.startswith("_")]
    assert not private, f"{path.name} imports {private}"


@pytest.mark.parametrize("flag", ["--targets", "--labels", "--task", "--hierarchy", "--nominal",
                                  "--drop", "--keep", "--semi-supervised"])
def test_each_data_option_is_declared_once(flag):
    where = [p.name for p in MODULES if f'"{flag}"' in p.read_text(encoding="utf-8")]
    assert where == ["_data.py"], where
