"""The import graph of ``edr`` is a one-way stack, and ``kpca`` never imports ``edr``.

Layers, lowest first (docs/design.md#1-architecture-a-one-way-stack):

0. ``edr`` (package), ``edr.errors``, ``edr.quiet``
1. inputs and beats: ``edr.io.*``, ``edr.beats``, ``edr.modulation``, ``edr.simulate``
2. signal steps and protocol constants: ``edr.signal``; series fusion and rate quality:
   ``edr.fusion``
3. methods: ``edr.methods``, ``edr.leads``
4. pipeline: ``edr.options``, ``edr.windows``, ``edr.stitch``, ``edr.rates``, ``edr.pipeline``
5. consumers: ``edr.evaluate.*``, ``edr.plots``, ``edr.extract``, ``edr.cli``, ``edr.stream``,
   ``edr.__main__``

A module may import ``edr`` modules of its own layer or a lower one. Every
import statement counts, including the lazy ones inside functions. Within the
pipeline layer the order is options → windows → stitch → pipeline, and the
module-level imports of ``edr`` have no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS = {
    "edr": 0,
    "edr.errors": 0,
    "edr.quiet": 0,
    "edr.io": 1,
    "edr.beats": 1,
    "edr.modulation": 1,
    "edr.simulate": 1,
    "edr.signal": 2,
    "edr.fusion": 2,
    "edr.methods": 3,
    "edr.leads": 3,
    "edr.options": 4.0,
    "edr.windows": 4.1,
    "edr.stitch": 4.2,
    "edr.rates": 4.25,
    "edr.pipeline": 4.3,
    "edr.evaluate": 5,
    "edr.plots": 5,
    "edr.argtypes": 5,
    "edr.extract": 5,
    "edr.cli": 5,
    "edr.stream": 5,
    "edr.__main__": 5,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT / rel).with_suffix(".py").is_file() or (ROOT / rel / "__init__.py").is_file()


def _imports(path: Path, *, module_level_only: bool = False) -> list[tuple[int, str]]:
    """(line, imported module) for every import statement of ``path`` (functions included)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:  # "from edr import leads" imports the module edr.leads
                full = f"{base}.{alias.name}"
                out.append((node.lineno, full if _is_module(full) else base))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            if (node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                out.append((node.lineno, node.args[0].value))
    return out


def _layer(module: str):
    best = None
    for prefix, layer in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return None if best is None else best[1]


EDR_FILES = sorted((ROOT / "edr").rglob("*.py"))
KPCA_FILES = sorted((ROOT / "kpca").rglob("*.py"))


def test_every_edr_module_has_a_layer():
    missing = [_module_name(p) for p in EDR_FILES if _layer(_module_name(p)) is None]
    assert not missing, f"modules without a layer in tests/test_layering.py: {missing}"


@pytest.mark.parametrize("path", EDR_FILES, ids=lambda p: _module_name(p))
def test_edr_imports_run_down_the_stack(path):
    me = _module_name(path)
    mine = _layer(me)
    upward = [f"line {line}: {target} (layer {_layer(target)})"
              for line, target in _imports(path)
              if (target == "edr" or target.startswith("edr.")) and target != me
              and _layer(target) is not None and _layer(target) > mine]
    assert not upward, f"{me} (layer {mine}) imports upward: {upward}"


@pytest.mark.parametrize("path", KPCA_FILES, ids=lambda p: _module_name(p))
def test_kpca_never_imports_edr(path):
    bad = [f"line {line}: {t}" for line, t in _imports(path) if t == "edr" or t.startswith("edr.")]
    assert not bad, f"{_module_name(path)} imports edr: {bad}"


def test_no_import_cycle_at_module_level():
    graph = {}
    for path in EDR_FILES:
        me = _module_name(path)
        graph[me] = {t for _, t in _imports(path, module_level_only=True)
                     if t.startswith("edr.") and t != me
                     and t in {_module_name(p) for p in EDR_FILES}}
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                pytest.fail(f"import cycle: {' -> '.join(trail + [node, nxt])}")
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def test_the_checker_sees_lazy_and_relative_imports(tmp_path):
    pkg = tmp_path / "edr"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "signal.py").write_text("def f():\n    from edr.pipeline import extract_edr\n")
    (pkg / "pipeline.py").write_text("from . import signal\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert _imports(pkg / "signal.py") == [(2, "edr.pipeline")]
        assert _imports(pkg / "pipeline.py") == [(1, "edr.signal")]
    finally:
        ROOT = old
