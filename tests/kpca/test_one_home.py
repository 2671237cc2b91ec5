"""Each function, class, constant and check of ``kpca`` is defined in one module only.

A name defined at module level in two ``kpca`` modules (leading underscores ignored, so a
private ``_check_count`` next to ``check_count`` counts) is a copy or a clash: the second
definition must go, or one of the two must be renamed to say what it is. Re-exports (imports)
are not definitions.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _definitions(path: Path) -> set[str]:
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


def _defined_twice(paths) -> dict[str, list[str]]:
    where = defaultdict(list)
    for path in paths:
        for name in _definitions(path):
            where[name].append(str(path))
    return {name: sorted(files) for name, files in where.items() if len(files) > 1}


def test_no_name_is_defined_in_two_kpca_modules():
    twice = _defined_twice(sorted((ROOT / "kpca").rglob("*.py")))
    twice = {name: [str(Path(f).relative_to(ROOT)) for f in files] for name, files in twice.items()}
    assert not twice, f"defined in more than one kpca module: {twice}"


def test_the_check_finds_a_private_copy_and_ignores_imports(tmp_path):
    (tmp_path / "a.py").write_text("import numpy as np\nLIMIT = 3\n\ndef check_count(v):\n"
                                   "    return v\n\nclass Result:\n    pass\n")
    (tmp_path / "b.py").write_text("from a import LIMIT, check_count\n__all__ = ['f']\n"
                                   "_LIMIT: int = 4\n\ndef _check_count(v):\n    return v\n")
    (tmp_path / "c.py").write_text("__all__ = ['g']\nnp = None\n\ndef result():\n    pass\n")
    twice = _defined_twice([tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"])
    assert sorted(twice) == ["LIMIT", "check_count"]
    assert twice["LIMIT"] == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
