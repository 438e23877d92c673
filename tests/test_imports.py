"""The package's import structure: no cycle, and no import that runs upward.

Every module of ``frcli/`` is parsed (``ast``, nothing is imported) and every import in it
counts, at module level and inside functions alike, since a function-level import is still
a dependency; so do the registry's imports by name (a string ``"frcli.x.y"`` or
``"frcli.x.y:Class"`` that names a module). The rules, from docs/design/layers.md:

* no cycle among modules, nor among rooms (``frcli.<room>``, and ``frcli.engines.<family>``):
  a cycle through two rooms' modules is a cycle of the rooms even when no module cycle
  closes (experiment <-> stats was one);
* each module imports only its own layer and the layers below (``LAYERS``);
* only the rankers reach the engines (``ENGINE_DOORS``): the face, the studies, results and
  evaluation work through rankers, so an engine can change without them;
* experiment and stats do not import each other (``SEPARATE``): the runner writes results,
  statistics read result tables, whoever made them;
* the Cython kernels (``ext/``) import no Python module of frcli (no call back into Python
  from a loop; ``cimport`` of ``frcli._ext`` only).

Exceptions are declared in ``DECLARED`` with their reason; an entry that no longer occurs
fails too, so the list only shrinks.
"""
from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Top to bottom: a module may import its own layer and every layer below it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("face", ("frcli", "frcli.cli", "frcli.commands", "frcli.api", "frcli.estimator",
              "frcli.output")),
    ("studies", ("frcli.experiment", "frcli.stats", "frcli.mex")),
    ("results", ("frcli.results",)),
    ("evaluate", ("frcli.evaluate",)),
    ("rankers", ("frcli.rankers",)),
    ("engines", ("frcli.engines", "frcli._ext")),
    ("data", ("frcli.data",)),
    ("vocabulary", ("frcli.errors", "frcli.display", "frcli.jsonio", "frcli.yamlio")),
)
ENGINE_DOORS = ("rankers", "engines")      # the layers that may import the engines
SEPARATE = (("frcli.experiment", "frcli.stats"),)

# (importer, imported module): why it is allowed for now.
DECLARED: dict[tuple[str, str], str] = {
    # The report's footer names the version; ``frcli/__init__`` is loaded before any of its
    # submodules anyway, and its name is metadata, not the face's code.
    ("frcli.stats.report", "frcli"): "the package's __version__",
    # The Mars Express case study fits PCT models to predict (a fitted model, not a
    # ranking); the rankers layer offers no fitted forest yet.
    ("frcli.mex.models", "frcli.engines.pct.model"): "a fitted PCT model for prediction",
}

_NAME = re.compile(r"frcli(\.[A-Za-z_]\w*)+(:\w+)?")


def modules(package: str = "frcli") -> dict[str, Path]:
    out = {}
    for p in sorted((REPO / package).rglob("*.py")):
        parts = list(p.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _resolve(name: str, mods: dict[str, Path]) -> str:
    """The module an import of ``name`` loads: the longest known prefix (``frcli.x.f`` for a
    function f of frcli.x is frcli.x); compiled kernels keep their name."""
    if name.startswith("frcli._ext"):
        return name
    while name not in mods and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def imports(package: str = "frcli") -> list[tuple[str, int, str]]:
    """(importer, line, imported module) of every import of the package within itself."""
    mods = modules(package)
    out = []
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - node.level + 1]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in mods else prefix
                         for a in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    _NAME.fullmatch(node.value) and \
                    node.value.split(":")[0] in mods:             # imported by name
                names = [node.value.split(":")[0]]
            else:
                continue
            for name in names:
                if name == package or name.startswith(package + "."):
                    target = _resolve(name, mods)
                    if target != mod:
                        out.append((mod, node.lineno, target))
    return out


def layer_of(mod: str) -> int:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            inside = mod == p or (p != "frcli" and mod.startswith(p + "."))  # root: itself
            if inside and (best is None or len(p) > best[1]):
                best = (i, len(p))
    assert best is not None, f"{mod} belongs to no layer: add it to LAYERS"
    return best[0]


def room(mod: str) -> str:
    parts = mod.split(".")
    return ".".join(parts[:3] if len(parts) > 2 and parts[1] in ("engines", "_ext")
                    else parts[:2])


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


EDGES = imports()


def _where(pairs) -> str:
    return "\n".join(f"  {m}:{ln} imports {t}" for m, ln, t in sorted(set(pairs)))


def test_the_walker_sees_function_level_and_by_name_imports():
    """The walker itself: a function-level import and a registry entry are edges."""
    found = {(m, t) for m, _, t in EDGES}
    assert ("frcli.rankers.relief", "frcli.engines.relief.relief") in found  # in a method
    assert ("frcli.rankers.registry", "frcli.rankers.relief") in found       # by name
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _module_cycles(edges) -> str:
    """The module cycles of ``edges``, with the imports that close them ('' when none)."""
    graph = defaultdict(set)
    for m, _, t in edges:
        graph[m].add(t)
    return "\n".join(" <-> ".join(c) + "\n" + _where(e for e in edges if e[0] in c
                                                     and e[2] in c)
                     for c in cycles(graph))


def test_no_module_imports_in_a_cycle():
    found = _module_cycles(EDGES)
    assert not found, "import cycles among modules:\n" + found


def test_the_reproduction_runner_imports_in_no_cycle():
    """``reproduce/`` keeps its imports one-way too (framework <- costs <- estimate <-
    sections): a cycle there hides which layer owns a rule."""
    found = _module_cycles(imports("reproduce"))
    assert not found, "import cycles in reproduce/:\n" + found
    assert _module_cycles([("a", 1, "b"), ("b", 2, "a")])        # the check itself


def test_no_rooms_import_in_a_cycle():
    graph = defaultdict(set)
    for m, _, t in EDGES:
        if room(m) != room(t) and (m, t) not in DECLARED:
            graph[room(m)].add(room(t))
    found = cycles(graph)
    assert not found, "import cycles among rooms:\n" + "\n".join(
        " <-> ".join(c) + "\n" + _where(e for e in EDGES if room(e[0]) in c
                                        and room(e[2]) in c and room(e[0]) != room(e[2]))
        for c in found)


def _breaches():
    doors = {i for i, (name, _) in enumerate(LAYERS) if name in ENGINE_DOORS}
    engines = next(i for i, (name, _) in enumerate(LAYERS) if name == "engines")
    out = []
    for m, ln, t in EDGES:
        lm, lt = layer_of(m), layer_of(t)
        if lt < lm:
            out.append((m, ln, t, f"upward ({LAYERS[lm][0]} -> {LAYERS[lt][0]})"))
        elif lt == engines and lm not in doors:
            out.append((m, ln, t, f"past the rankers ({LAYERS[lm][0]} -> engines)"))
        for a, b in SEPARATE:
            if (room(m), room(t)) in ((a, b), (b, a)):
                out.append((m, ln, t, "between separate rooms"))
    return out


def test_imports_run_downward_and_reach_the_engines_through_the_rankers():
    bad = [b for b in _breaches() if (b[0], b[2]) not in DECLARED]
    assert not bad, "imports against the layers (fix them, or declare them in DECLARED " \
        "with the reason):\n" + "\n".join(f"  {m}:{ln} imports {t}: {why}"
                                           for m, ln, t, why in bad)


def test_every_declared_exception_still_occurs():
    present = {(m, t) for m, _, t, _ in _breaches()}
    stale = [k for k in DECLARED if k not in present]
    assert not stale, f"no longer needed: remove {stale} from DECLARED"


def test_the_kernels_import_no_python_module_of_frcli():
    bad = []
    for pyx in sorted((REPO / "ext").rglob("*.p*")):
        if pyx.suffix not in (".pyx", ".pxd"):
            continue
        for i, line in enumerate(pyx.read_text(encoding="utf-8").splitlines(), 1):
            m = re.match(r"\s*(from|import)\s+(frcli[\w.]*)", line)
            if m and not m.group(2).startswith("frcli._ext"):
                bad.append(f"{pyx.relative_to(REPO)}:{i}: {line.strip()}")
    assert not bad, "kernels importing Python modules of frcli:\n" + "\n".join(bad)
