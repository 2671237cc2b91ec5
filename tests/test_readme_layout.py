"""The README leads to the map of the tree: a link to ``docs/design.md#map``.

The map in ``docs/design.md`` is the one complete list of the modules of ``edr`` and ``kpca``,
with their jobs and tests, and ``tests/test_design_map.py`` checks it against the tree both ways
(and that every link to a heading of design.md resolves). The README's own layout table used to
be checked here module by module; a README is a way in, not a second map, so it only has to
lead there.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP_LINK = "](docs/design.md#map)"


def test_the_readme_links_to_the_design_map():
    assert MAP_LINK in (ROOT / "README.md").read_text(), f"README.md has no link {MAP_LINK}"
    assert "\n## Map\n" in (ROOT / "docs" / "design.md").read_text()


def test_the_readme_links_to_the_guide_of_where_to_change_what():
    assert "](CONTRIBUTING.md)" in (ROOT / "README.md").read_text()
    assert (ROOT / "CONTRIBUTING.md").is_file()
