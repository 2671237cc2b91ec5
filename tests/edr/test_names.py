"""edr.names: the shared names agree with the registries, and each limit has one check that
every layer uses."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from edr import names
from edr.errors import SignalError


def test_names_equal_the_registries():
    from edr import methods, options, pipeline
    from kpca.selection import ALIASES, CRITERIA

    odd = set(names.METHOD_NAMES) ^ set(methods.METHODS)
    assert not odd, (f"{sorted(odd)}: a method is named in edr.names.METHOD_NAMES and "
                     "registered in edr.methods.METHODS (CONTRIBUTING.md)")
    assert tuple(names.SOLVER_NAMES) == tuple(methods.SOLVERS)
    odd = set(names.CRITERION_NAMES) ^ set(CRITERIA)
    assert not odd, (f"{sorted(odd)}: a criterion is in kpca.selection.CRITERIA and "
                     "edr.names.CRITERION_NAMES (CONTRIBUTING.md)")
    assert {a: k for k, a in names.CRITERION_NAMES.items() if a} == dict(ALIASES), (
        "an alias is in kpca.selection.ALIASES and edr.names.CRITERION_NAMES (CONTRIBUTING.md)")
    assert names.DEFAULT_METHOD in names.METHOD_NAMES
    assert names.DEFAULT_SIGMA2 in ALIASES
    # the library reads its defaults and limits from here (one definition each)
    assert methods.DEFAULT_SIGMA2 is names.DEFAULT_SIGMA2
    assert methods.DEFAULT_N_SUPPORT is names.DEFAULT_N_SUPPORT
    assert options.DEFAULT_METHOD is names.DEFAULT_METHOD
    assert pipeline.MIN_WINDOW_S is names.MIN_WINDOW_S
    assert options.MAX_WINDOW_S is names.MAX_WINDOW_S


def test_names_import_the_standard_library_only():
    code = ("import sys; before = set(sys.modules); import edr.names; "
            "print(sorted({m.split('.')[0] for m in set(sys.modules) - before}"
            " - set(sys.stdlib_module_names)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "['edr']", out  # edr.names and edr.errors: nothing else


def test_criterion_names_and_aliases():
    assert names.canonical_criterion("MDD") == names.canonical_criterion("varon2015") == "varon2015"
    assert names.canonical_criterion("nn5-distance") == "nn5-distance"
    assert names.canonical_criterion("banana") is None
    choices = names.criterion_choices()
    assert choices == sorted(choices) and "mdd-fast" in choices and "varon2015-fast" in choices
    assert len(choices) == len(names.CRITERION_NAMES) + sum(map(bool,
                                                                names.CRITERION_NAMES.values()))
    assert names.sigma2_help().startswith("varon2015 = mdd, varon2015-fast = mdd-fast, ")


@pytest.mark.parametrize("fs", [100, 100.0, 125.0, 9999.5, 10_000, "250"])
def test_check_fs_accepts_the_supported_range(fs):
    assert names.check_fs(fs) == float(fs)


@pytest.mark.parametrize("fs", [99.999, 10_000.001, 0.0, -250.0, math.nan, math.inf, "abc", None])
def test_check_fs_rejects_everything_else(fs):
    with pytest.raises(SignalError, match=r"^rec: fs=.* Hz is outside the supported range "
                                          r"100-10000 Hz$"):
        names.check_fs(fs, "rec")


def test_every_layer_checks_the_rate_with_the_one_message():
    """The reader, the detector, the pipeline and the stream reject 80 Hz in the same words."""
    from edr.beats import detect
    from edr.io.recording import Recording
    from edr.pipeline import extract_edr
    from edr.stream import StreamingEDR

    expected = r"fs=80\.0 Hz is outside the supported range 100-10000 Hz$"
    rec = Recording(name="slow", fs=80.0, ecg=np.zeros(8000), ecg_channel="II",
                    leads={"II": np.zeros(8000)})
    for call in (lambda: detect(np.zeros(8000), 80), lambda: extract_edr(rec),
                 lambda: StreamingEDR(80.0)):
        with pytest.raises(SignalError, match=expected):
            call()


@pytest.mark.parametrize("value", [20, 20.0, "300", 1800.0])
def test_check_window_s_accepts_the_bounds(value):
    assert names.check_window_s(value) == float(value)


@pytest.mark.parametrize("value", [19.99, 1800.5, 0, "long", None, math.nan])
def test_check_window_s_rejects_everything_else(value):
    with pytest.raises(ValueError, match=rf"^window_s must be a number of seconds from 20 to "
                                         rf"1800, got {value!r} \(.*solver=fs2"):
        names.check_window_s(value)
