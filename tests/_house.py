"""House checks shared by the tests of ``edr`` and ``kpca``: names defined in two modules.

A name defined at module level in two modules of one package (leading underscores ignored, so
a private ``_check_count`` next to ``check_count`` counts) is a copy or a clash: the second
definition must go, or one of the two must be renamed to say what it is. Re-exports (imports)
are not definitions.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def definitions(path: Path) -> set[str]:
    """Names a module defines at its top level (functions, classes, assignments), without
    their leading underscores; dunder names (``__all__``) left out."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n.lstrip("_") for n in names if not (n.startswith("__") and n.endswith("__"))}


def defined_twice(paths, allowed=frozenset()) -> dict[str, list[str]]:
    """Name -> the sorted files defining it, for every name not in ``allowed`` that more than
    one of ``paths`` defines."""
    where = defaultdict(list)
    for path in paths:
        for name in definitions(path):
            where[name].append(str(path))
    return {name: sorted(files) for name, files in where.items()
            if len(files) > 1 and name not in allowed}


def package_twice(package: str, allowed=frozenset()) -> dict[str, list[str]]:
    """:func:`defined_twice` over every module of ``package`` (a folder of the repository),
    the files relative to the repository."""
    twice = defined_twice(sorted((ROOT / package).rglob("*.py")), allowed)
    return {name: [str(Path(f).relative_to(ROOT)) for f in files] for name, files in twice.items()}
