"""``import kpca`` stays light: no ECG stack, no heavy numerics until used."""

from __future__ import annotations

import json
import subprocess
import sys


def _modules_after(code):
    out = subprocess.run(
        [sys.executable, "-c", f"{code}; import sys, json; print(json.dumps(sorted(sys.modules)))"],
        check=True, capture_output=True, text=True,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_import_kpca_pulls_in_no_ecg_dependency():
    mods = _modules_after("import kpca")
    for heavy in ("edr", "wfdb", "neurokit2", "matplotlib", "pandas", "numba", "sklearn"):
        assert heavy not in mods, f"import kpca imported {heavy}"


def test_estimators_do_not_import_edr():
    mods = _modules_after(
        "import kpca, kpca.largescale, kpca.iterative, kpca.hebbian, kpca.shrinkage; "
        "kpca.KernelPCA"
    )
    assert not {"edr", "wfdb", "neurokit2", "matplotlib"} & mods


def test_version_single_sourced():
    import importlib.metadata

    import kpca
    from kpca._version import __version__

    assert kpca.__version__ == __version__
    assert importlib.metadata.version("kpca-edr") == __version__
