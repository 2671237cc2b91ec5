"""Automatic choice of the RBF width ``sigma2`` (and of ``n_components``) for kernel PCA.

One entry point, :func:`select`, and one result type, :class:`SelectionResult`.
Criteria (registry :data:`CRITERIA`, author-year keys with aliases):

==========================  ==================  ===========================================
key                         aliases             method
==========================  ==================  ===========================================
``"varon2015"``             ``"mdd"``           MDD, Varon, Alzate & Suykens (2015) §IV
``"varon2015-fast"``        ``"mdd-fast"``      MDD, sequential stop, coarse-to-fine grid
``"jorgensen2012"``         ``"kpa"``           kernel parallel analysis, Algorithm 1
``"widjaja2012"``           ``"shannon"``       maximal Shannon entropy of the kernel
``"rule-of-thumb"``         ``"rot"``           Eq. (20) of Varon et al. (2015)
``"max-distance-to-mean"``                      heuristics compared by Jørgensen & Hansen
``"median-distance"``                           (2012), §III-B; ``sigma = distance``
``"mean-distance"``
``"nn1-distance"``
``"nn5-distance"``
==========================  ==================  ===========================================

For the width-only criteria (Shannon and the heuristics) ``n_components=None``
is resolved with the Guttman–Kaiser rule on the data kernel at the selected
width (``component_rule="scree"`` for the 5 % scree rule).
"""

from __future__ import annotations

import numpy as np

from kpca._validation import check_choice, check_n_components
from kpca.kernels import center_kernel, rbf_kernel
from kpca.selection import heuristics
from kpca.selection._common import check_data, seed_of
from kpca.selection.heuristics import guttman_kaiser, rule_of_thumb_sigma2, scree
from kpca.selection.kpa import select_kpa
from kpca.selection.mdd import select_mdd, select_mdd_fast
from kpca.selection.mdd_split import mdd_on_split
from kpca.selection.result import SelectionResult, SelectionWarning
from kpca.selection.shannon import select_shannon

__all__ = [
    "ALIASES", "CRITERIA", "SelectionResult", "SelectionWarning", "mdd_on_split",
    "resolve_criterion", "select", "select_kpa", "select_mdd", "select_mdd_fast", "select_shannon",
    "rule_of_thumb_sigma2", "guttman_kaiser", "scree",
]

_COMPONENT_RULES = {"guttman-kaiser": guttman_kaiser, "scree": scree}


def _check_component_rule(component_rule):
    check_choice(component_rule, "component_rule", _COMPONENT_RULES)


def _heuristic(key, width):
    def run(X, *, n_components=None, grid=None, random_state=None, component_rule="guttman-kaiser"):
        if grid is not None:
            raise ValueError(f"criterion {key!r} uses no grid; got grid={grid!r}")
        _check_component_rule(component_rule)
        X, n_dup = check_data(X)
        nc = check_n_components(n_components, X.shape[0], optional=True)
        s2 = float(width(X))
        details = {"n_duplicates": n_dup}
        if nc is None:
            ev = np.linalg.eigvalsh(center_kernel(rbf_kernel(X, sigma2=s2)))[::-1]
            nc = max(1, _COMPONENT_RULES[component_rule](ev))
            details["component_rule"] = component_rule
        return SelectionResult(
            criterion=key, sigma2=s2, n_components=nc, grid=np.array([s2]), curve=np.array([s2]),
            n_components_grid=np.array([nc], dtype=np.int64), random_state=seed_of(random_state),
            details=details,
        )

    run.__doc__ = f"Width by the {key!r} heuristic ({width.__name__})."
    return run


def _with_component_rule(func):
    def run(X, *, n_components=None, component_rule="guttman-kaiser", **options):
        res = func(X, n_components=n_components, **options)
        if n_components is not None:
            return res
        _check_component_rule(component_rule)
        Xu, _ = check_data(X)
        ev = np.linalg.eigvalsh(center_kernel(rbf_kernel(Xu, sigma2=res.sigma2)))[::-1]
        nc = max(1, _COMPONENT_RULES[component_rule](ev))
        return SelectionResult(
            criterion=res.criterion, sigma2=res.sigma2, n_components=nc, grid=res.grid,
            curve=res.curve,
            n_components_grid=res.n_components_grid, random_state=res.random_state,
            details={**res.details, "component_rule": component_rule},
        )

    run.__doc__ = func.__doc__
    return run


#: canonical key -> callable ``(X, *, n_components, grid, random_state, **options)``
CRITERIA = {
    "varon2015": select_mdd,
    "varon2015-fast": select_mdd_fast,
    "jorgensen2012": select_kpa,
    "widjaja2012": _with_component_rule(select_shannon),
    "rule-of-thumb": _heuristic("rule-of-thumb", rule_of_thumb_sigma2),
    "max-distance-to-mean": _heuristic("max-distance-to-mean",
                                       heuristics.max_distance_to_mean_sigma2),
    "median-distance": _heuristic("median-distance", heuristics.median_distance_sigma2),
    "mean-distance": _heuristic("mean-distance", heuristics.mean_distance_sigma2),
    "nn1-distance": _heuristic("nn1-distance", lambda X: heuristics.knn_distance_sigma2(X, 1)),
    "nn5-distance": _heuristic("nn5-distance", lambda X: heuristics.knn_distance_sigma2(X, 5)),
}
ALIASES = {"mdd": "varon2015", "mdd-fast": "varon2015-fast", "kpa": "jorgensen2012",
           "shannon": "widjaja2012", "rot": "rule-of-thumb"}


def resolve_criterion(criterion):
    """Canonical key of :data:`CRITERIA` for a criterion key or alias.

    Case and surrounding white space are ignored: ``"MDD"``, ``" mdd"`` and
    ``"varon2015"`` all give ``"varon2015"``.

    Raises
    ------
    ValueError
        Not a str, or an unknown criterion (the message lists the valid keys).

    See Also
    --------
    select : runs the criterion a key or alias names.
    CRITERIA, ALIASES : the registry and its aliases.

    Examples
    --------
    >>> from kpca.selection import resolve_criterion
    >>> resolve_criterion(" MDD"), resolve_criterion("kpa"), resolve_criterion("rot")
    ('varon2015', 'jorgensen2012', 'rule-of-thumb')
    """
    if not isinstance(criterion, str):
        raise ValueError(f"criterion must be a str; got criterion={criterion!r}")
    name = criterion.strip().lower()
    key = ALIASES.get(name, name)
    if key not in CRITERIA:
        valid = sorted(set(CRITERIA) | set(ALIASES))
        raise ValueError(f"unknown criterion={criterion!r}; valid keys: {', '.join(valid)}")
    return key


def select(X, criterion="mdd", *, n_components=None, grid=None, random_state=None, **options):
    """Select the RBF width ``sigma2`` (and ``n_components``) of kernel PCA.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
        Data (at least 10 distinct points; exact duplicates are dropped).
    criterion : str
        A key or alias of :data:`CRITERIA` (see the module docstring).
    n_components : int, optional
        ``None`` lets the criterion choose ``n_c``; an int fixes it (EDR uses
        1: MDD then maximises ``lambda_1 - tau_hat_1``).
    grid : array_like, optional
        ``sigma2`` values to search (grid criteria only); default 31
        log-spaced values ``rot * 2**(k/3)``, ``k = -15..15``, around the
        rule of thumb ``rot`` of Eq. (20).
    random_state : None, int or numpy.random.Generator
        Seed for the stochastic criteria (MDD, kPA); same seed, same result.
    **options
        Criterion options, e.g. ``n_draws`` / ``n_train`` / ``stop`` / ``search`` (MDD; see
        :func:`~kpca.selection.select_mdd`),
        ``n_permutations`` (kPA), ``estimator`` / ``bins`` (Shannon),
        ``n_jobs``, ``n_eigenvalues``, ``component_rule``.

    Returns
    -------
    SelectionResult

    Raises
    ------
    ValueError
        Unknown criterion (the message lists the valid keys), bad data or options.

    See Also
    --------
    select_mdd : MDD, Varon et al. (2015).
    select_kpa : kernel parallel analysis, Jørgensen & Hansen (2012).
    select_shannon : maximal Shannon entropy of the kernel, Widjaja et al. (2012).
    rule_of_thumb_sigma2 : Eq. (20) of Varon et al. (2015).
    kpca.KernelPCA : runs it for a string ``sigma2`` or ``n_components='auto'``.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model selection in
       kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11), 2650-2663, 2015. MDD,
       §IV, Eqs. (11)-(15); the rule of thumb, Eq. (20).
    .. [2] K. W. Jørgensen and L. K. Hansen, "Model selection for Gaussian kernel PCA denoising,"
       IEEE Trans. Neural Netw. Learn. Syst. 23(1), 163-168, 2012. kPA, Algorithm 1 and Eqs.
       (6)-(7); the distance heuristics and the Guttman-Kaiser and scree rules, §III-B.
    .. [3] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. The Shannon entropy of the kernel matrix (this paper's
       text is not in the project's collection: no equation numbers).

    Examples
    --------
    >>> import numpy as np
    >>> from kpca.selection import select
    >>> from kpca.datasets import semicircles
    >>> X, _ = semicircles(150, noise=0.1, random_state=0)
    >>> res = select(X, "shannon")
    >>> res.criterion, res.sigma2 > 0, res.curve.shape == res.grid.shape
    ('widjaja2012', True, True)
    """
    key = resolve_criterion(criterion)
    return CRITERIA[key](X, n_components=n_components, grid=grid,
                         random_state=random_state, **options)
