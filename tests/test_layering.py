"""The import graph of ``edr`` is a one-way stack, and ``kpca`` never imports ``edr``.

Layers, lowest first (docs/design.md#1-architecture-a-one-way-stack):

0. ``edr`` (package), ``edr.errors``, ``edr.quiet``, ``edr.names``, ``edr.jobs``,
   ``edr._rowstats``, ``edr.dsp`` (SciPy's signal steps without SciPy's import cost)
1. inputs and beats: ``edr.io.*``, ``edr.beats`` (mask, NeuroKit2 twins, alignment → flags,
   peaks → chunks → polarity → detection → the package), ``edr.modulation``, ``edr.qrs_shape``,
   ``edr.simulate`` (random processes, geometry, breathing events → artefacts, parameters →
   recording → scenarios → the package)
2. signal steps and protocol constants: ``edr.signal``, its spectra ``edr.spectra`` → the mains
   line ``edr.mains``, the similarity measures ``edr.similarity``; series aligned and summed
   ``edr.series_alignment``, series fusion: ``edr.fusion``
3. methods: ``edr.methods`` (segment and kernel options → grid, kernel methods, classic series,
   NeuroKit2 peers → the fused methods → the registry in the package), ``edr.leads``
4. pipeline: ``edr.options``, ``edr.windows``, ``edr.gaps`` (the short stretches carried
   across), ``edr.window_analysis``, ``edr.stitch``,
   ``edr.rate_spans`` (what a rate judgement keeps of a window), ``edr.rates`` (rate windows,
   rate quality, judged rates), ``edr.pauses``, ``edr.polarity`` and ``edr.breaths`` (breaths
   of an EDR, the polarity of inspiration, pauses), ``edr.breath_rates`` (rates counted from
   breaths), ``edr.tables`` (a result as pandas tables), ``edr.result`` (``EDRResult``),
   ``edr.pipeline``; the scores against a reference that the consumers share: ``edr.scoring``
5. consumers: ``edr.evaluate.*``, ``edr.record_figure``, ``edr.plots``, ``edr.plots_html``,
   ``edr.extract.*``, ``edr.cli_core``, ``edr.cli_options``, ``edr.cli``, ``edr.stream``,
   ``edr.__main__``

A module may import ``edr`` modules of its own layer or a lower one. Every
import statement counts, including the lazy ones inside functions. The package ``edr`` itself
is the one exception: it re-exports the entry points (``extract_edr``, ``read_record``, ...)
by name on first use (PEP 562), as ``kpca`` does, and imports nothing of its own at import.
Within the pipeline layer the order is options → windows → gaps, window_analysis → stitch →
rate_spans → rates, pauses, polarity → breath_extrema → breaths → breath_rates → tables →
result → pipeline, and the module-level imports of ``edr`` have no cycle.

Also: no function of ``edr`` or ``kpca`` is longer than 60 lines without its docstring, and no
module of either is over 500 lines; no library module imports a command line (argparse, a ``cli``
or ``__main__`` module, a module run as a script, the command-line core ``edr.cli_core`` and its
option types ``edr.cli_options``, a module of a command package such as ``edr.extract``); no
command line imports another command line (only the core and the modules of its own command); no
``edr`` module builds a kernel or calls an eigen-solver (``kpca`` does). Each check has a test
of its own on planted code.
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
    "edr.names": 0,
    "edr.jobs": 0,
    "edr._dask_runner": 0,
    "edr.zero_phase": 0,
    "edr.dsp": 0,
    "edr.medians": 0,
    "edr.upsampling": 0,
    "edr._rowstats": 0,
    "edr.io": 1,
    "edr.beats.mask": 1.0,
    "edr.beats.twins": 1.0,
    "edr.beats.alignment": 1.0,
    "edr.beats.flags": 1.01,
    "edr.beats.peaks": 1.01,
    "edr.beats.chunks": 1.02,
    "edr.beats.polarity": 1.03,
    "edr.beats.detection": 1.04,
    "edr.beats": 1.05,
    "edr.modulation": 1,
    "edr.qrs_shape": 1,
    "edr.simulate.processes": 1.0,
    "edr.simulate.geometry": 1.0,
    "edr.simulate.events": 1.0,
    "edr.simulate.artefacts": 1.01,
    "edr.simulate.parameters": 1.01,
    "edr.simulate.recording": 1.02,
    "edr.simulate.scenarios": 1.03,
    "edr.simulate": 1.04,
    "edr.signal": 2,
    "edr.spectra": 2,
    "edr.mains": 2.1,
    "edr.similarity": 2.1,
    "edr.rate_spectra": 2.1,
    "edr.series_alignment": 2,
    "edr.fusion": 2,
    "edr.cross_phase": 2,
    "edr.methods.segment": 3.0,
    "edr.methods.kernel_options": 3.0,
    "edr.methods.grid": 3.1,
    "edr.methods.kernel_methods": 3.1,
    "edr.methods.classic": 3.1,
    "edr.methods.neurokit": 3.1,
    "edr.methods.fused": 3.2,
    "edr.methods": 3.3,
    "edr.leads": 3,
    "edr.multilead": 3.01,
    "edr.options": 4.0,
    "edr.windows": 4.1,
    "edr.gaps": 4.12,
    "edr.window_analysis": 4.15,
    "edr.stitch": 4.2,
    "edr.rate_spans": 4.22,
    "edr.rates": 4.25,
    "edr.pauses": 4.25,
    "edr.polarity": 4.25,
    "edr.breath_extrema": 4.255,
    "edr.breaths": 4.26,
    "edr.breath_rates": 4.265,
    "edr.tables": 4.27,
    "edr.result": 4.28,
    "edr.pipeline": 4.3,
    "edr.scoring": 4.4,
    "edr.evaluate": 5,
    "edr.plots": 5,
    "edr.figure_worker": 5,
    "edr.figure_content": 5,
    "edr.plots_html": 5,
    "edr.record_figure": 5,
    "edr.cli_core": 5,
    "edr.cli_options": 5,
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


# --- function length ------------------------------------------------------------------------

#: Longest function of ``edr`` and ``kpca``, counted from the ``def`` line without the docstring
MAX_FUNCTION_LINES = 60


def _docstring_lines(func) -> int:
    """Lines of the docstring of ``func`` (0 without one)."""
    first = func.body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return first.end_lineno - first.lineno + 1
    return 0


def _long_functions(path: Path, limit: int = MAX_FUNCTION_LINES, *,
                    count_docstring: bool = False) -> list[tuple[str, int]]:
    """(qualified name, lines from the ``def`` line to the last body line) of every function
    of ``path`` longer than ``limit`` lines; methods and nested functions included. With
    ``count_docstring=False`` the docstring's lines are left out of the count."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module = _module_name(path)
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}"
                if not isinstance(child, ast.ClassDef):
                    n_lines = child.end_lineno - child.lineno + 1
                    if not count_docstring:
                        n_lines -= _docstring_lines(child)
                    if n_lines > limit:
                        out.append((name, n_lines))
                visit(child, name)

    visit(tree, module)
    return out


@pytest.mark.parametrize("package", ["edr", "kpca"])
def test_no_function_over_60_lines_without_its_docstring(package):
    files = {"edr": EDR_FILES, "kpca": KPCA_FILES}[package]
    long = [f"{name} ({n} lines)" for path in files for name, n in _long_functions(path)]
    assert not long, (f"{package} functions over {MAX_FUNCTION_LINES} lines (docstrings not "
                      f"counted): {long}")


#: Longest module of ``edr`` and ``kpca``
MAX_MODULE_LINES = 500


def _long_modules(paths, limit: int) -> dict[str, int]:
    """{path from the root: its line count} of the modules longer than ``limit`` lines."""
    return {p.relative_to(ROOT).as_posix(): n for p in paths
            if (n := len(p.read_text().splitlines())) > limit}


@pytest.mark.parametrize("package", ["edr", "kpca"])
def test_no_module_over_500_lines(package):
    long = _long_modules({"edr": EDR_FILES, "kpca": KPCA_FILES}[package], MAX_MODULE_LINES)
    assert not long, f"{package} modules over {MAX_MODULE_LINES} lines: {long}"


def test_the_module_length_check_counts_lines(tmp_path):
    (tmp_path / "kpca").mkdir()
    (tmp_path / "kpca" / "fits.py").write_text("x = 1\n" * 500)
    (tmp_path / "kpca" / "long.py").write_text("x = 1\n" * 501)
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert _long_modules(sorted((tmp_path / "kpca").glob("*.py")), 500) == {
            "kpca/long.py": 501}
    finally:
        ROOT = old


def test_the_length_check_leaves_out_the_docstring(tmp_path):
    pkg = tmp_path / "kpca"
    pkg.mkdir()
    doc = '    """One line.\n\n    More.\n    """\n'
    body = "".join(f"    x{i} = {i}\n" for i in range(59))
    # 60 lines without the 4-line docstring fit, one more line does not; a function without a
    # docstring counts all its lines
    (pkg / "m.py").write_text(f"def fits():\n{doc}{body}\n\ndef long():\n{doc}{body}    y = 0\n"
                              f"\n\ndef bare():\n{body}    y = 0\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert _long_functions(pkg / "m.py") == [("kpca.m.long", 61), ("kpca.m.bare", 61)]
        assert _long_functions(pkg / "m.py", 60, count_docstring=True) == [
            ("kpca.m.fits", 64), ("kpca.m.long", 65), ("kpca.m.bare", 61)]
    finally:
        ROOT = old


def test_the_length_check_counts_from_def_to_last_line(tmp_path):
    pkg = tmp_path / "edr"
    pkg.mkdir()

    def body(n, indent):
        return "".join(f"{indent}x{i} = {i}\n" for i in range(n))

    # 60 lines from def to the last line (the decorator does not count), then a method of 61
    (pkg / "m.py").write_text("@staticmethod\ndef fits():\n" + body(59, "    ")
                              + "\n\nclass C:\n    def long(self):\n" + body(60, "        "))
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert _long_functions(pkg / "m.py") == [("edr.m.C.long", 61)]
    finally:
        ROOT = old


# --- library modules never import a command line ---------------------------------------------

#: The command-line core every command line shares, its protocol and its option types (neither a
#: ``cli`` nor a ``__main__`` module).
CLI_HELPERS = {"edr.cli_core", "edr.cli_options"}
#: Packages that are one command line as a whole (every module of them is command-line code).
COMMAND_PACKAGES = ("edr.extract",)


def _command_package(name: str) -> str | None:
    return next((p for p in COMMAND_PACKAGES if name == p or name.startswith(p + ".")), None)


def _is_cli_module(name: str, path: Path | None = None) -> bool:
    """A command-line module: ``*.cli``, ``*.__main__``, a listed helper, a module of a command
    package, or a module that runs as a script (a module-level ``if __name__ == "__main__":``)."""
    if (name.rpartition(".")[2] in ("cli", "__main__") or name in CLI_HELPERS
            or _command_package(name)):
        return True
    if path is None:
        rel = Path(*name.split("."))
        path = (ROOT / rel).with_suffix(".py")
    if not path.is_file():
        return False
    tree = ast.parse(path.read_text(), filename=str(path))
    return any(isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
               and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"
               for node in tree.body)


def _cli_imports(path: Path) -> list[str]:
    """The command-line imports of ``path``: argparse, or an ``edr``/``kpca`` CLI module."""
    return [f"line {line}: {target}" for line, target in _imports(path)
            if target == "argparse" or target.startswith("argparse.")
            or (target.split(".")[0] in ("edr", "kpca") and _is_cli_module(target))]


LIBRARY_FILES = [p for p in EDR_FILES + KPCA_FILES if not _is_cli_module(_module_name(p), p)]


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: _module_name(p))
def test_library_modules_import_no_command_line(path):
    bad = _cli_imports(path)
    assert not bad, f"library module {_module_name(path)} imports a command line: {bad}"


def _command(name: str) -> str:
    """The command a command-line module belongs to: its command package, the package of a
    ``cli`` or ``__main__`` module, or the module itself (a script)."""
    package = _command_package(name)
    if package:
        return package
    head, _, last = name.rpartition(".")
    return head if last in ("cli", "__main__") else name


def _other_command_imports(path: Path) -> list[str]:
    """The imports by the command-line module ``path`` of another command's modules."""
    me = _command(_module_name(path))
    return [f"line {line}: {target}" for line, target in _imports(path)
            if target.split(".")[0] in ("edr", "kpca") and _is_cli_module(target)
            and target not in CLI_HELPERS and _command(target) != me]


CLI_FILES = [p for p in EDR_FILES + KPCA_FILES if _is_cli_module(_module_name(p), p)]


@pytest.mark.parametrize("path", CLI_FILES, ids=lambda p: _module_name(p))
def test_command_lines_import_no_other_command_line(path):
    bad = _other_command_imports(path)
    assert not bad, f"command line {_module_name(path)} imports another command line: {bad}"


def test_the_cli_check_sees_one_command_line_importing_another(tmp_path):
    pkg = tmp_path / "edr"
    for sub in ("tool", "other", "extract"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "cli_core.py").write_text("import argparse\n")
    (pkg / "extract" / "work.py").write_text("X = 1\n")
    (pkg / "other" / "cli.py").write_text("X = 1\n")
    (pkg / "tool" / "__main__.py").write_text("from edr.tool.cli import main\n")
    (pkg / "tool" / "cli.py").write_text(
        "from edr.cli_core import Parser\nfrom edr.other.cli import X\n"
        "def f():\n    from edr.extract import work\n")
    (pkg / "extract" / "cli.py").write_text("from edr.extract.work import X\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert _is_cli_module("edr.extract.work") and _command("edr.extract.work") == "edr.extract"
        assert _other_command_imports(pkg / "tool" / "cli.py") == [
            "line 2: edr.other.cli", "line 4: edr.extract.work"]
        assert _other_command_imports(pkg / "tool" / "__main__.py") == []
        assert _other_command_imports(pkg / "extract" / "cli.py") == []
        assert _cli_imports(pkg / "extract" / "work.py") == []
    finally:
        ROOT = old


def test_the_cli_check_sees_argparse_and_cli_modules(tmp_path):
    pkg = tmp_path / "edr"
    (pkg / "tool").mkdir(parents=True)
    for init in (pkg / "__init__.py", pkg / "tool" / "__init__.py"):
        init.write_text("")
    (pkg / "tool" / "cli.py").write_text("import argparse\n")
    (pkg / "script.py").write_text("import sys\nif __name__ == '__main__':\n    sys.exit(0)\n")
    (pkg / "lib.py").write_text("def f():\n    from edr.tool.cli import main\n"
                                "    import argparse\n    from edr import script\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert _is_cli_module("edr.tool.cli") and _is_cli_module("edr.script")
        assert not _is_cli_module("edr.lib")
        assert _cli_imports(pkg / "lib.py") == ["line 2: edr.tool.cli", "line 3: argparse",
                                                "line 4: edr.script"]
    finally:
        ROOT = old


# --- kernels and eigen-solvers live in kpca -----------------------------------------------------

#: Eigen-solvers and pairwise-distance / kernel builders: ``edr`` asks ``kpca``. A full
#: ``svd`` stays allowed: it is the linear PCA of the ``pca`` baseline, not kernel PCA.
KERNEL_AND_EIGEN_NAMES = {
    "eig", "eigh", "eigvals", "eigvalsh", "eigsh", "eigs", "lobpcg", "svds",
    "randomized_svd", "eigh_tridiagonal", "cdist", "pdist", "squareform", "euclidean_distances",
    "pairwise_distances", "rbf_kernel", "pairwise_kernels", "KernelCenterer", "KernelPCA",
}
#: Names of a kernel width: an ``exp`` of an expression using one builds a Gaussian kernel.
KERNEL_WIDTH_NAMES = ("sigma", "gamma")


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _kernel_code(path: Path) -> list[str]:
    """Kernel or eigen-solver code in ``path``: a call or import of
    :data:`KERNEL_AND_EIGEN_NAMES` from anywhere but ``kpca``, and ``exp`` of an expression
    that names a kernel width (``np.exp(-d2 / (2 * sigma2))``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    from_kpca = {a.asname or a.name for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kpca")
                 for a in node.names}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith("kpca"):
            out += [f"line {node.lineno}: from {node.module} import {a.name}"
                    for a in node.names if a.name in KERNEL_AND_EIGEN_NAMES]
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        last = name.rpartition(".")[2]
        if (last in KERNEL_AND_EIGEN_NAMES and not name.startswith("kpca")
                and name.partition(".")[0] not in from_kpca):
            out.append(f"line {node.lineno}: {name}(...)")
        elif last == "exp" and any(
                any(w in _dotted(sub).lower() for w in KERNEL_WIDTH_NAMES)
                for arg in node.args for sub in ast.walk(arg)):
            out.append(f"line {node.lineno}: {name} of a kernel width")
    return sorted(out, key=lambda hit: int(hit.split(":")[0].split()[1]))


@pytest.mark.parametrize("path", EDR_FILES, ids=lambda p: _module_name(p))
def test_no_kernel_or_eigen_solver_outside_kpca(path):
    bad = _kernel_code(path)
    assert not bad, f"{_module_name(path)} builds kernels or solves eigenproblems: {bad}"


def test_the_kernel_check_sees_planted_kernel_code(tmp_path):
    planted = tmp_path / "m.py"
    planted.write_text(
        "import numpy as np\nimport scipy.linalg as sl\nfrom scipy.sparse.linalg import eigsh\n"
        "from kpca.kernels import rbf_kernel\n"
        "def f(x, d2, sigma2, opts):\n"
        "    k = np.exp(-d2 / (2 * sigma2))\n"
        "    k2 = np.exp(-d2 * opts.gamma)\n"
        "    w, v = sl.eigh(k)\n"
        "    u, s, vt = np.linalg.svd(x)\n"
        "    u, s, vt = ssl.svds(k, 1)\n"
        "    return rbf_kernel(x, sigma2=sigma2), np.exp(-0.5 * x ** 2)\n")
    assert _kernel_code(planted) == [
        "line 3: from scipy.sparse.linalg import eigsh", "line 6: np.exp of a kernel width",
        "line 7: np.exp of a kernel width", "line 8: sl.eigh(...)",
        "line 10: ssl.svds(...)"]
