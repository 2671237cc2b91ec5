"""The default path of ``python -m edr.extract`` never imports the slow SciPy subpackages.

``scipy.signal``, ``scipy.stats`` and ``scipy.interpolate`` take 0.9-2 s each to import with
SciPy 1.17 (``docs/studies/import_diet.md``); :mod:`edr.dsp` holds what the library needs of
them. Each command runs in a fresh interpreter (``runpy``, as ``python -m`` runs it) that records
every import statement executed by an ``edr`` module, then reports what ``sys.modules`` holds.

Two checks per command:

* no ``edr`` module imports a module of :data:`EDR_NEVER_IMPORTS` (module level or lazily) on
  the way, whatever else loads it;
* none of :data:`NOT_LOADED` is in ``sys.modules`` at the end, whoever would import it
  (``kpca`` fits its light core, :class:`kpca.core.KernelPCACore`, and draws MDD's noise with
  ``scipy.special``: no scikit-learn, no ``scipy.stats``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

EDR_NEVER_IMPORTS = ("scipy.signal", "scipy.stats", "scipy.interpolate", "scipy.ndimage")
"""Modules no ``edr`` import statement reaches on the default path."""

NOT_LOADED = ("scipy.signal", "scipy.stats", "scipy.interpolate", "scipy.ndimage", "sklearn")
"""Modules absent from ``sys.modules`` after the default path (extend: see the module doc)."""

_PROBE = """
import builtins, json, runpy, sys
WATCH = {watch!r}
seen = set()
_import = builtins.__import__

def _hook(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {{}}).get("__name__") or ""
    if level == 0 and (importer == "edr" or importer.startswith("edr.")):
        for target in [name] + [name + "." + f for f in (fromlist or ())]:
            if any(target == w or target.startswith(w + ".") for w in WATCH):
                seen.add(importer + " -> " + target)
    return _import(name, globals, locals, fromlist, level)

builtins.__import__ = _hook
sys.argv = ["edr.extract"] + {argv!r}
try:
    runpy.run_module("edr.extract", run_name="__main__", alter_sys=True)
except SystemExit as stop:
    assert not stop.code, stop.code
watched = set(WATCH) | set({loaded!r})
print(json.dumps({{"edr_imports": sorted(seen),
                  "loaded": sorted(m for m in watched if m in sys.modules)}}))
"""


def _default_path(argv: list[str], cwd) -> dict:
    code = _PROBE.format(watch=EDR_NEVER_IMPORTS, argv=argv, loaded=NOT_LOADED)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=900, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def _check(report: dict) -> None:
    assert report["edr_imports"] == []
    assert not set(NOT_LOADED) & set(report["loaded"])


def test_demo_path_imports_no_slow_scipy(tmp_path):
    _check(_default_path(["--demo", "-o", str(tmp_path / "demo") + "/"], tmp_path))


def test_bidmc_record_path_imports_no_slow_scipy(bidmc_dir, tmp_path):
    _check(_default_path([str(bidmc_dir / "bidmc01.hea"), "-o", str(tmp_path / "x.csv")],
                         tmp_path))


def test_marsh_record_path_imports_no_slow_scipy(data_dir, tmp_path):
    record = data_dir / "marsh" / "m0023.hea"
    if not record.exists():
        pytest.skip(f"MARSH record absent: {record}")
    _check(_default_path([str(record), "-o", str(tmp_path / "m.csv")], tmp_path))


def test_the_probe_sees_an_edr_import_of_a_watched_module(tmp_path):
    """The probe is not blind: an ``edr`` import statement of a watched module is reported."""
    code = _PROBE.format(watch=("argparse",), argv=["--help"], loaded=("argparse",))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    assert any(line.startswith("edr.") and line.endswith("-> argparse")
               for line in report["edr_imports"])
    assert report["loaded"] == ["argparse"]
