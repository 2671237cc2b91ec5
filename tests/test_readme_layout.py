"""The README's layout table matches the tree: every path it names exists, and it names every
subpackage and every public module of ``edr`` and ``kpca``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layout_rows(readme: str) -> list[tuple[str, str]]:
    """(first cell, second cell) of every row of the table under ``## Layout``."""
    section = readme.split("\n## Layout", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| where")]
    return [(a.strip(), b.strip()) for a, b in rows]


def _named_paths(rows: list[tuple[str, str]], root: Path = ROOT) -> tuple[set[Path], list[str]]:
    """The paths the table names, and the names that resolve to nothing.

    A backticked name ending in ``.py`` or ``/`` is a path: from the repository root when it
    holds a folder, else inside a folder of its row's first cell; a pattern such as
    ``measure_<what>.py`` is no path.
    """
    found, missing = set(), []
    for first, second in rows:
        folders = [root / n for n in re.findall(r"`([^`]+/)`", first)]
        for name in re.findall(r"`([^` <>]+(?:\.py|/))`", first + " " + second):
            direct = root / name
            if direct.exists() and "/" in name:
                found.add(direct.resolve())
                continue
            hits = [p for f in folders for p in f.rglob(name.rstrip("/"))]
            if hits:
                found.update(p.resolve() for p in hits)
            else:
                missing.append(name)
    return found, missing


def _must_be_named(root: Path = ROOT) -> list[Path]:
    """Every subpackage of ``edr`` and ``kpca``, and every public top-level module."""
    out = []
    for pkg in ("edr", "kpca"):
        out += [p.parent for p in (root / pkg).rglob("__init__.py") if p.parent != root / pkg]
        out += [p for p in (root / pkg).glob("*.py") if not p.name.startswith("_")]
    return sorted(out)


def test_readme_layout_matches_the_tree():
    found, missing = _named_paths(_layout_rows((ROOT / "README.md").read_text()))
    assert not missing, f"README layout names paths that do not exist: {missing}"
    unnamed = [str(p.relative_to(ROOT)) for p in _must_be_named() if p.resolve() not in found]
    assert not unnamed, f"README layout does not name: {unnamed}"


def test_the_layout_check_sees_a_stale_and_a_missing_entry(tmp_path):
    (tmp_path / "edr" / "sub").mkdir(parents=True)
    for name in ("edr/__init__.py", "edr/sub/__init__.py", "edr/sub/a.py", "edr/b.py",
                 "edr/c.py"):
        (tmp_path / name).write_text("")
    readme = ("# x\n\n## Layout\n\n| where | what |\n|---|---|\n"
              "| `edr/sub/` | `a.py` and `gone.py` |\n| `edr/b.py` | b |\n\n## Next\n")
    found, missing = _named_paths(_layout_rows(readme), tmp_path)
    assert missing == ["gone.py"]
    unnamed = [p.relative_to(tmp_path).as_posix() for p in _must_be_named(tmp_path)
               if p.resolve() not in found]
    assert unnamed == ["edr/c.py"]
