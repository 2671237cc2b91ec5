"""The EDR kernel path stays off scikit-learn and ``scipy.stats``; its light core gives the
estimator's numbers.

``edr``'s kernel methods fit :class:`kpca.core.KernelPCACore`, the computation of
:class:`kpca.KernelPCA` without scikit-learn's protocol (``docs/studies/import_diet_kpca.md``).
Each import check runs in a fresh interpreter and reads ``sys.modules``.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest

from kpca import KernelPCA, NotFittedError
from kpca.core import KernelPCACore


def _loaded(code: str, prefixes: tuple) -> list:
    """The modules among ``prefixes`` (and their sub-modules) loaded after running ``code``."""
    probe = (f"{code}\nimport sys\n"
             f"print(sorted(m for m in sys.modules if m.startswith({prefixes!r})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return [m for m in ast.literal_eval(out.stdout.strip().splitlines()[-1])
            if m in prefixes or m.startswith(tuple(p + "." for p in prefixes))]


HEAVY = ("sklearn", "scipy.stats", "scipy.integrate", "scipy.spatial", "scipy.sparse.linalg")

KPCA_MDD_FIT = """
import numpy as np
from kpca.core import KernelPCACore
X = np.random.default_rng(0).normal(size=(60, 5))
m = KernelPCACore(n_components=3, sigma2="mdd", random_state=0,
                  selection_options={"n_draws": 5}).fit(X)
m.transform(X[:4]); m.denoise(X[:2])
"""

EDR_FUSION = """
import numpy as np
from edr.beats import detect
from edr.methods import Segment, kpca_edr, kpca_fusion_edr
from edr.simulate import simulate_recording
rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
kpca_fusion_edr(seg, random_state=0)
kpca_edr(seg, sigma2="mdd-fast", random_state=0)
"""


def test_the_light_core_and_an_mdd_fit_import_none_of_the_heavy_modules():
    assert _loaded(KPCA_MDD_FIT, HEAVY) == []


def test_the_edr_kernel_methods_import_neither_scikit_learn_nor_scipy_stats():
    assert _loaded(EDR_FUSION, ("sklearn", "scipy.stats")) == []


def test_the_check_sees_a_heavy_import():
    assert _loaded("import kpca.base", ("sklearn",)) != []
    assert _loaded("import scipy.stats", HEAVY) != []


@pytest.mark.parametrize("solver", ["dense", "arpack", "lanczos"])
def test_core_gives_the_estimators_numbers(solver):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2400 if solver == "lanczos" else 150, 4))
    Y = rng.normal(size=(7, 4))
    kw = dict(n_components=3, sigma2=2.5, eigen_solver=solver, random_state=1)
    core, est = KernelPCACore(**kw), KernelPCA(**kw)
    np.testing.assert_allclose(core.fit_transform(X), est.fit_transform(X), rtol=0, atol=0)
    assert core.eigen_solver_ == est.eigen_solver_ == solver
    np.testing.assert_allclose(core.eigenvalues_, est.eigenvalues_, rtol=0, atol=0)
    np.testing.assert_allclose(core.transform(Y), est.transform(Y), rtol=0, atol=0)
    if solver == "dense":
        np.testing.assert_allclose(core.denoise(Y), est.denoise(Y), rtol=0, atol=0)
        Z = est.transform(Y)
        np.testing.assert_allclose(core.inverse_transform(Z), est.inverse_transform(Z),
                                   rtol=0, atol=0)


def test_core_resolves_a_criterion_as_the_estimator():
    X = np.random.default_rng(4).normal(size=(80, 3))
    kw = dict(n_components="auto", sigma2="mdd", random_state=0,
              selection_options={"n_draws": 10})
    core, est = KernelPCACore(**kw).fit(X), KernelPCA(**kw).fit(X)
    assert (core.sigma2_, core.n_components_) == (est.sigma2_, est.n_components_)
    np.testing.assert_allclose(core.selection_.curve, est.selection_.curve, rtol=0, atol=0)
    np.testing.assert_allclose(core.transform(X), est.transform(X), rtol=0, atol=0)


def test_core_checks_as_the_estimator():
    X = np.zeros((5, 2)) + np.arange(5)[:, None]
    with pytest.raises(NotFittedError, match="KernelPCACore instance is not fitted"):
        KernelPCACore().transform(X)
    model = KernelPCACore(n_components=2).fit(X)
    assert model.n_features_in_ == 2
    with pytest.raises(ValueError, match="X has 3 features, but KernelPCACore is expecting 2"):
        model.transform(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="n_components must be"):
        KernelPCACore(n_components=9).fit(X)
