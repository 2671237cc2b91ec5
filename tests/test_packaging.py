"""What a wheel ships: every file the packages read besides their modules, and the PEP 561
marker that lets a user's type checker read their annotations."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("edr", "kpca")


def _package_data() -> dict:
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11")
    import tomllib

    pyproject = ROOT / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("not a source checkout")
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_is_typed_and_ships_its_marker(package):
    assert (ROOT / package / "py.typed").is_file()
    assert "py.typed" in _package_data().get(package, [])


@pytest.mark.parametrize("package", PACKAGES)
def test_every_data_file_of_a_package_is_declared(package):
    """A file under the package that is no module (the data manifest, the marker) is in the
    wheel only when ``package-data`` names it."""
    patterns = _package_data().get(package, [])
    folder = ROOT / package
    data = [p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    missing = [f for f in data if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert data and not missing, missing
