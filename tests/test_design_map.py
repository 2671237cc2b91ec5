"""``docs/design.md`` is the map of the tree, and the links into the documents resolve.

* **The map** (the table under ``## Map``) names every module of ``edr`` and ``kpca``: every
  ``.py`` file, private helpers (``_x.py``) and ``__main__.py`` included, and every package.
  The one rule of exclusion: a package's ``__init__.py`` is named by the package's folder
  (``edr/beats/``), since the package *is* that module. A row's first cell names its paths from
  the repository root; a bare ``name.py`` in its second cell lies in a folder of the first cell
  (or the folder of a module it names). Every path named exists, and every row names a module
  and at least one test file that exists (a pattern such as ``tests/kpca/test_selection_*.py``
  must match one).
* **The rest of design.md**: every path of the tree it writes exists, and every dotted name
  ``edr.x.NAME`` / ``kpca.x.NAME`` names a module and a name written in it (the drift a newcomer
  meets first: a constant said to live where it does not).
* **Links**: every ``design.md#anchor`` written anywhere in the code, tests, scripts and
  documents, and every Markdown link between the documents, points at a file and a heading that
  exist (GitHub's anchors); every "design.md, section N" or "design.md §N" at a numbered section.
* **Studies**: design.md links to every report of ``docs/studies/`` and to
  ``docs/tuned_constants.md``.
* design.md has at most 400 lines.
* **The guides**: ``CONTRIBUTING.md`` (where to change what) and ``docs/tuned_constants.md``
  name only paths and dotted names that exist, as design.md; ``CONTRIBUTING.md`` names every
  registry a newcomer extends (:data:`REGISTRIES`).

Each check also runs on planted text, where it must fail.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
MAX_LINES = 400

#: Where references to the documents are looked for.
SEARCHED = ("edr", "kpca", "tests", "scripts", "benchmarks", "docs", "examples")
SEARCHED_FILES = ("README.md", "CHANGELOG.md", "CONTRIBUTING.md")
GUIDES = (ROOT / "CONTRIBUTING.md", ROOT / "docs" / "tuned_constants.md")
#: The registries and name lists a new method, criterion, format or output column extends.
REGISTRIES = ("edr.methods.METHODS", "edr.names.METHOD_NAMES", "kpca.selection.CRITERIA",
              "kpca.selection.ALIASES", "edr.names.CRITERION_NAMES",
              "edr.io.paths.READER_SUFFIXES", "edr.result.EDRResult.grid_columns",
              "edr.extract.summary.json_summary")

PATH = re.compile(r"`([\w./*-]+(?:\.py|/))`")
TREE_PATH = re.compile(
    r"`((?:edr|kpca|tests|scripts|benchmarks|docs)/(?:[\w./*-]*/|[\w./*-]*\.\w+))`")
DOTTED = re.compile(r"\b(?:edr|kpca)(?:\.\w+)+")
CELL = re.compile(r"(?<!\\)\|")


def map_rows(text: str) -> list[list[str]]:
    """The cells of every row of the table under ``## Map`` (header and rule left out)."""
    section = text.split("\n## Map\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| "):
            continue
        cells = [c.strip() for c in CELL.split(line)[1:-1]]
        if cells and cells[0] != "module":
            rows.append(cells)
    return rows


def check_map(text: str, root: Path = ROOT) -> tuple[set[Path], list[str]]:
    """The modules and packages the map names, and what is wrong with its rows."""
    named, problems = set(), []
    for cells in map_rows(text):
        if len(cells) != 3:
            problems.append(f"row without three cells: {cells[0]}")
            continue
        first, job, tests = cells
        heads = PATH.findall(first)
        folders = [root / h for h in heads if h.endswith("/")]
        folders += [(root / h).parent for h in heads if h.endswith(".py")]
        if not heads:
            problems.append(f"row names no module in its first cell: {first}")
        for name in heads:
            path = root / name
            (named.add(path.resolve()) if path.exists() else problems.append(f"no {name}"))
        for name in PATH.findall(job):
            hits = ([root / name] if "/" in name.rstrip("/")
                    else [f / name for f in folders])
            hits = [h for h in hits if h.exists()]
            named.update(h.resolve() for h in hits)
            if not hits:
                problems.append(f"no {name} in the row of {first}")
        found_tests = [t for t in TREE_PATH.findall(tests) if t.startswith("tests/")]
        if not found_tests:
            problems.append(f"row names no test: {first}")
        problems += [f"no test file {t}" for t in found_tests if not list(root.glob(t))]
    return named, problems


def modules(root: Path = ROOT) -> list[Path]:
    """Every module of ``edr`` and ``kpca``: a package by its folder, every other file by itself."""
    out = set()
    for pkg in ("edr", "kpca"):
        for path in (root / pkg).rglob("*.py"):
            out.add(path.parent if path.name == "__init__.py" else path)
    return sorted(p.resolve() for p in out)


def unnamed_modules(text: str, root: Path = ROOT) -> list[str]:
    named, _ = check_map(text, root)
    return [p.relative_to(root.resolve()).as_posix() for p in modules(root) if p not in named]


def stale_names(text: str, root: Path = ROOT) -> list[str]:
    """Paths of the tree and dotted ``edr``/``kpca`` names in code spans that name nothing."""
    stale = []
    spans = re.findall(r"`([^`\n]+)`", text)
    for span in spans:
        for name in TREE_PATH.findall(f"`{span}`"):
            if "<" not in name and not list(root.glob(name)):
                stale.append(name)
        for dotted in DOTTED.findall(span):
            if not _dotted_exists(dotted, root):
                stale.append(dotted)
    return stale


def _dotted_exists(dotted: str, root: Path) -> bool:
    """``a.b.NAME`` (or ``a.b.Class.attribute``): the longest prefix that is a module, and every
    further part written in it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:cut])
        source = base.with_suffix(".py")
        source = source if source.is_file() else base / "__init__.py"
        if source.is_file():
            text = source.read_text()
            return all(re.search(rf"\b{re.escape(p)}\b", text) for p in parts[cut:])
    return False


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, blanks as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every heading's anchor (a repeated heading gets ``-1``, ``-2``, ... as on GitHub)."""
    out, seen, fenced = set(), {}, False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"#{1,6} (.+)", line)
        if match:
            base = slug(match.group(1))
            out.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return out


def sections(markdown: str) -> set[str]:
    return set(re.findall(r"^## (\d+)\. ", markdown, flags=re.M))


def broken_design_references(text: str, design: str) -> list[str]:
    """``design.md#anchor`` and ``design.md, section N`` / ``design.md §N`` that point nowhere."""
    bad = [f"#{a}" for a in re.findall(r"design\.md#(\w[^\s`)>\"'*]*)", text)
           if a.rstrip(".,;:") not in anchors(design)]
    numbers = re.findall(r"design\.md`?\)?,?\s*(?:section|§)\s*(\d+)", text)
    return bad + [f"§{n}" for n in numbers if n not in sections(design)]


def broken_links(path: Path, text: str) -> list[str]:
    """Relative Markdown links of a document whose file or heading does not exist."""
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file) if file else path
        if not dest.exists():
            bad.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text()):
            bad.append(target)
    return bad


def unlisted_studies(design: str, root: Path = ROOT) -> list[str]:
    """The reports of ``docs/studies/`` (and ``tuned_constants.md``) design.md does not link to."""
    docs = root / "docs"
    wanted = [*sorted((docs / "studies").glob("*.md")), docs / "tuned_constants.md"]
    links = {target.partition("#")[0] for target in re.findall(r"\]\(([^)\s]+)\)", design)}
    return [p.relative_to(docs).as_posix() for p in wanted
            if p.relative_to(docs).as_posix() not in links]


def _searched_files() -> list[Path]:
    files = [ROOT / f for f in SEARCHED_FILES]
    for folder in SEARCHED:
        files += [p for p in (ROOT / folder).rglob("*")
                  if p.suffix in {".py", ".md", ".rst", ".txt"} and "_build" not in p.parts]
    return [f for f in files if f.resolve() != Path(__file__).resolve()]  # its planted text


def test_the_map_names_every_module_and_only_modules_that_exist():
    text = DESIGN.read_text()
    _, problems = check_map(text)
    assert not problems, f"the map of docs/design.md: {problems}"
    unnamed = unnamed_modules(text)
    assert not unnamed, f"the map of docs/design.md does not name: {unnamed}"


def test_design_names_only_paths_and_names_that_exist():
    stale = stale_names(DESIGN.read_text())
    assert not stale, f"docs/design.md names what does not exist: {stale}"


def test_the_guides_name_only_paths_and_names_that_exist():
    stale = {g.relative_to(ROOT).as_posix(): stale_names(g.read_text()) for g in GUIDES}
    stale = {k: v for k, v in stale.items() if v}
    assert not stale, f"the guides name what does not exist: {stale}"


def test_the_guide_names_every_registry():
    guide = (ROOT / "CONTRIBUTING.md").read_text()
    missing = [r for r in REGISTRIES if f"`{r}`" not in guide]
    assert not missing, f"CONTRIBUTING.md does not say where to extend: {missing}"
    assert not [r for r in REGISTRIES if not _dotted_exists(r, ROOT)]


def test_design_lists_every_study():
    missing = unlisted_studies(DESIGN.read_text())
    assert not missing, f"docs/design.md does not link to: {missing}"


def test_design_is_at_most_400_lines():
    assert len(DESIGN.read_text().splitlines()) <= MAX_LINES


def test_every_reference_to_design_points_at_a_heading():
    design = DESIGN.read_text()
    bad = {}
    for path in _searched_files():
        found = broken_design_references(path.read_text(errors="replace"), design)
        if found:
            bad[path.relative_to(ROOT).as_posix()] = found
    assert not bad, f"references to docs/design.md that point nowhere: {bad}"


def test_the_links_between_the_documents_resolve():
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    bad = {p.relative_to(ROOT).as_posix(): broken_links(p, p.read_text()) for p in docs}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"links to a missing document or heading: {bad}"


def _planted_tree(root: Path) -> None:
    for name in ("edr/__init__.py", "edr/sub/__init__.py", "edr/sub/a.py", "edr/sub/_p.py",
                 "edr/sub/__main__.py", "edr/b.py", "edr/c.py", "kpca/__init__.py",
                 "tests/test_a.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("LIMIT = 1\n")


def test_the_map_check_sees_a_missing_a_stale_and_an_untested_entry(tmp_path):
    _planted_tree(tmp_path)
    text = ("# x\n\n## Map\n\n| module | its one job | tests |\n|---|---|---|\n"
            "| `edr/` | the package | `tests/test_a.py` |\n"
            "| `edr/sub/` | `a.py` a; `gone.py` gone; `__main__.py` | `tests/test_a.py` |\n"
            "| `edr/b.py` | b | `tests/test_gone.py` |\n"
            "| `kpca/` | the package | none |\n\n## 1. Next\n")
    _, problems = check_map(text, tmp_path)
    assert problems == ["no gone.py in the row of `edr/sub/`", "no test file tests/test_gone.py",
                        "row names no test: `kpca/`"]
    assert unnamed_modules(text, tmp_path) == ["edr/c.py", "edr/sub/_p.py"]
    complete = text.replace("`gone.py` gone", "`_p.py` p").replace("| b |", "| `c.py` |")
    complete = complete.replace("test_gone", "test_a").replace("| none |", "| `tests/test_a.py` |")
    assert check_map(complete, tmp_path)[1] == [] and unnamed_modules(complete, tmp_path) == []


def test_the_name_check_sees_a_moved_constant(tmp_path):
    _planted_tree(tmp_path)
    text = "`edr.b.LIMIT`, `edr.sub.a`, `python -m edr.sub` and `edr/sub/a.py` exist; "
    assert stale_names(text, tmp_path) == []
    assert stale_names(text + "`edr.sub.a.MOVED` and `edr/gone.py` do not", tmp_path) == [
        "edr.sub.a.MOVED", "edr/gone.py"]
    assert stale_names("`edr.b.LIMIT.gone`, an attribute that is not there", tmp_path) == [
        "edr.b.LIMIT.gone"]


def test_the_reference_checks_see_a_renamed_heading_and_a_missing_file(tmp_path):
    design = "# D\n\n## 2. EDR pipeline decisions\n\n### EDR: analysis windows\n\n```\n# no\n```\n"
    assert anchors(design) == {"d", "2-edr-pipeline-decisions", "edr-analysis-windows"}
    code = ("see docs/design.md#edr-analysis-windows, docs/design.md, section 2 and "
            "(``docs/design.md#2-edr-pipeline-decisions``)")
    assert broken_design_references(code, design) == []
    assert broken_design_references("docs/design.md#edr-windows and design.md §8", design) == [
        "#edr-windows", "§8"]
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "s.md").write_text("# S\n\n## One, two: three\n")
    doc = tmp_path / "design.md"
    assert broken_links(doc, "[a](studies/s.md#one-two-three) [b](https://x.org/#y)") == []
    assert broken_links(doc, "[a](studies/s.md#one) [c](studies/t.md)") == [
        "studies/s.md#one", "studies/t.md"]


def test_the_study_check_sees_an_unlisted_report(tmp_path):
    (tmp_path / "docs" / "studies").mkdir(parents=True)
    for name in ("studies/a.md", "studies/b.md", "tuned_constants.md"):
        (tmp_path / "docs" / name).write_text("# x\n")
    design = "[a](studies/a.md#x) and [t](tuned_constants.md)"
    assert unlisted_studies(design, tmp_path) == ["studies/b.md"]
    assert unlisted_studies(design + " [b](studies/b.md)", tmp_path) == []
