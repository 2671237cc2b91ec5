"""Input checks shared by the ``kpca`` modules.

Every error message names the offending parameter and its value, so a user
can tell which argument to fix (e.g. ``"n_components must be <= n_samples=5;
got n_components=7"``).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "InputTypeError",
    "check_array",
    "check_choice",
    "check_count",
    "check_finite",
    "check_fitted",
    "check_n_components",
    "check_n_features_in",
    "check_nonnegative",
    "check_positive",
    "check_positive_values",
    "check_random_state",
    "check_selection_options",
    "check_sigma2",
]


class InputTypeError(TypeError, ValueError):
    """Input that is not numeric: a ``TypeError`` (as NumPy and scikit-learn raise) that is
    also a ``ValueError`` (as ``kpca`` 0.1.0 raised)."""


def check_array(X, name="X", *, min_samples=1, n_features=None):
    """Validate a finite 2-D float array ``(n_samples, n_features)``.

    Parameters
    ----------
    X : array_like
        Input to check.
    name : str
        Parameter name used in error messages.
    min_samples : int
        Minimum number of rows.
    n_features : int, optional
        Required number of columns (e.g. the feature count seen in ``fit``).

    Returns
    -------
    ndarray, shape (n_samples, n_features)
        C-contiguous float64 array (a copy only when a conversion is needed).

    Raises
    ------
    InputTypeError
        If ``X`` cannot be converted to floats (a ``TypeError`` and a
        ``ValueError``).
    TypeError
        If ``X`` is a SciPy sparse matrix or array.
    ValueError
        If ``X`` is complex, not 2-D, has too few rows, no columns, the wrong
        number of columns, or contains NaN or inf. The messages carry
        scikit-learn's wording ("Reshape your data", "0 feature(s)", "NaN")
        so that its estimator checks recognise them.
    """
    arr = _as_real_floats(X, name)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features); got {name}.ndim={arr.ndim} "
            f"with shape {arr.shape}. Reshape your data either using {name}.reshape(-1, 1) if "
            f"it has a single feature or {name}.reshape(1, -1) if it is a single sample"
        )
    if arr.shape[0] < min_samples:
        raise ValueError(
            f"{name} must have at least {min_samples} sample(s); got {name}.shape={arr.shape}: "
            f"{arr.shape[0]} sample(s) (shape={arr.shape}) while a minimum of {min_samples} "
            "is required"
        )
    if arr.shape[1] < 1:
        raise ValueError(
            f"{name} must have at least 1 feature; got {name}.shape={arr.shape}: 0 feature(s) "
            f"(shape={arr.shape}) while a minimum of 1 is required."
        )
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features but {n_features} were expected "
            f"(n_features seen in fit); got {name}.shape={arr.shape}"
        )
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"{name} must contain only finite values; got {name}[{bad[0]}, {bad[1]}]="
            f"{arr[bad[0], bad[1]]} (input contains NaN or inf)"
        )
    return np.ascontiguousarray(arr)


def _as_real_floats(X, name):
    """``X`` as a float64 array (no copy when it already is one); the TypeError,
    InputTypeError and ValueError (complex) of :func:`check_array`."""
    if type(X).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"{name} is a sparse matrix or array ({type(X).__name__}); sparse input is not "
            f"supported, kernel PCA needs dense data: pass {name}.toarray()"
        )
    arr = X if isinstance(X, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(X)
        except (TypeError, ValueError) as exc:
            raise InputTypeError(
                f"{name} must be a numeric array; got {type(X).__name__}: {exc}"
            ) from None
    if np.iscomplexobj(arr):
        raise ValueError(
            f"{name} must be real: Complex data not supported; got dtype {arr.dtype}"
        )
    try:
        arr = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(
            f"{name} must be a numeric array; got {type(X).__name__}: {exc}"
        ) from None
    return arr


def check_n_components(n_components, n_samples, name="n_components", *, optional=False,
                       bound_note=""):
    """Validate an integer number of components ``1 <= n_components <= n_samples``.

    Parameters
    ----------
    n_components : int or None
    n_samples : int
        Upper bound (number of training samples, or the limit of the caller).
    name : str
        Parameter name used in error messages.
    optional : bool
        Accept ``None`` (returned as is: "let the caller choose"), as the
        model-selection criteria do; their messages read ``"must be None or an
        int >= 1"`` and ``"must be <= {n_samples} here"``.
    bound_note : str
        Appended to the ``"must be <= n_samples=..."`` message (e.g. why).

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        If ``n_components`` is not an integer (bools are rejected) or out of range.
    """
    if optional:
        n = check_count(n_components, name, 1, optional=True)
        if n is not None and n > n_samples:
            raise ValueError(f"{name} must be <= {n_samples} here; got {name}={n}")
        return n
    n = check_count(n_components, name, 1)
    if n > n_samples:
        raise ValueError(f"{name} must be <= n_samples={n_samples}{bound_note}; got {name}={n}")
    return n


def check_count(value, name, minimum, *, optional=False):
    """Validate an integer count (``bool`` rejected) of at least ``minimum``.

    ``optional=True`` also accepts (and returns) ``None``.

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        ``"{name} must be an int >= {minimum}; got {name}=..."`` (``"must be
        None or an int"`` when ``optional``).
    """
    if optional and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        what = "None or an int" if optional else "an int"
        raise ValueError(f"{name} must be {what} >= {minimum}; got {name}={value!r}")
    return int(value)


def _real(value):
    """``value`` as a float if it is a real number (not a bool, a string or an array), else
    None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


def check_finite(value, name):
    """Validate a finite real number.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``"{name} must be a finite number; got {name}=..."`` for anything but a finite real
        number (a bool, a string or an array included).
    """
    v = _real(value)
    if v is None or not np.isfinite(v):
        raise ValueError(f"{name} must be a finite number; got {name}={value!r}")
    return v


def check_nonnegative(value, name):
    """Validate a finite real number ``>= 0`` (a tolerance, a noise level, a weight).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``"{name} must be a finite number >= 0; got {name}=..."``.
    """
    v = _real(value)
    if v is None or not np.isfinite(v) or v < 0.0:
        raise ValueError(f"{name} must be a finite number >= 0; got {name}={value!r}")
    return v


def check_positive(value, name):
    """Validate a finite, strictly positive real number (e.g. ``sigma2``).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``"{name} must be a finite positive number; got {name}=..."`` if ``value`` is not a
        real number, not finite, or ``<= 0``.
    """
    v = _real(value)
    if v is None or not np.isfinite(v) or v <= 0.0:
        raise ValueError(f"{name} must be a finite positive number; got {name}={value!r}")
    return v


def check_positive_values(values, name):
    """Validate a non-empty sequence of finite, strictly positive numbers (e.g. a ``sigma2``
    grid).

    Returns
    -------
    ndarray, shape (n,)
        The values as a flat float64 array, in the given order.

    Raises
    ------
    ValueError
        ``"{name} must be a non-empty sequence of finite positive numbers; got {name}=..."``.
    """
    try:
        arr = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        arr = np.empty(0)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(
            f"{name} must be a non-empty sequence of finite positive numbers; got {name}={values!r}"
        )
    return arr


def check_choice(value, name, choices):
    """Validate that ``value`` is one of ``choices`` (the keys of a registry).

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    ValueError
        ``"{name} must be one of [...]; got {name}=..."`` (the choices sorted).
    """
    try:
        known = value in choices
    except TypeError:  # unhashable
        known = False
    if not known:
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {name}={value!r}")
    return value


def check_sigma2(sigma2, name="sigma2"):
    """Validate a kernel width σ²: the one check of its value in ``kpca``.

    Parameters
    ----------
    sigma2 : float
        The width of the RBF kernel ``exp(-||x - y||^2 / (2 sigma2))`` (:mod:`kpca.kernels`).
    name : str, default "sigma2"
        The parameter's name in the message (e.g. ``"support_sigma2"``).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``"sigma2 must be a finite positive number; got sigma2=..."`` for anything but a
        finite real number ``> 0`` (a bool, a string or an array included).

    See Also
    --------
    check_positive : the same check for any positive parameter.

    References
    ----------
    .. [1] C. Varon, C. Alzate and J. A. K. Suykens, "Noise level estimation for model
       selection in kernel PCA denoising," IEEE Trans. Neural Netw. Learn. Syst. 26(11),
       2015: the RBF kernel width ``sigma^2`` of Eq. (12).

    Examples
    --------
    >>> from kpca.kernels import check_sigma2
    >>> check_sigma2(2)
    2.0
    """
    return check_positive(sigma2, name)


def check_random_state(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None`` gives a fresh OS-seeded generator, an int seeds
        :func:`numpy.random.default_rng`, a ``Generator`` is returned unchanged
        (so successive calls share its stream).

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    ValueError
        For any other type, or a negative int seed.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise ValueError(
                f"random_state must be a non-negative int seed; got random_state={random_state}"
            )
        return np.random.default_rng(int(random_state))
    raise ValueError(
        "random_state must be None, a non-negative int or a numpy.random.Generator; "
        f"got random_state={random_state!r}"
    )


#: keyword arguments of :func:`kpca.selection.select` that an estimator sets itself
RESERVED_SELECTION_OPTIONS = ("criterion", "n_components", "random_state")


def check_selection_options(options, reserved=RESERVED_SELECTION_OPTIONS, *, unused_reason=None):
    """Validate an estimator's ``selection_options`` (``None`` or a dict of str keys).

    Parameters
    ----------
    options : dict or None
    reserved : tuple of str
        Keys the estimator sets itself.
    unused_reason : str, optional
        Why no criterion runs in this fit (then a non-empty dict is an error).

    Returns
    -------
    dict
        A shallow copy (empty for ``None``).

    Raises
    ------
    ValueError
        Not a dict, a non-str key, a key in ``reserved`` (set by the estimator),
        or options although no criterion runs.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(
            f"selection_options must be None or a dict; got selection_options={options!r}"
        )
    bad = sorted(repr(k) for k in options if not isinstance(k, str) or k in reserved)
    if bad:
        raise ValueError(
            f"selection_options may not contain {', '.join(bad)} (set by the estimator); "
            f"got selection_options={options!r}"
        )
    if options and unused_reason is not None:
        raise ValueError(
            f"selection_options apply only when a criterion runs ({unused_reason}); "
            f"got selection_options={options!r}"
        )
    return dict(options)


def check_fitted(estimator, method="this method"):
    """Raise :class:`kpca.NotFittedError` unless ``estimator`` has its ``_fitted_attribute``.

    The one fitted check of the ``kpca`` models (the scikit-learn estimators and the light
    :class:`kpca.core.KernelPCACore`); :mod:`kpca.base`, which defines the exception, is imported
    only to raise it.

    Raises
    ------
    NotFittedError
        A subclass of scikit-learn's ``NotFittedError`` and of ``RuntimeError``.
    """
    if not hasattr(estimator, estimator._fitted_attribute):
        from kpca.base import NotFittedError

        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet; call fit(X) before "
            f"{method}()"
        )


def check_n_features_in(estimator, arr, name="X"):
    """``ValueError`` unless the checked array ``arr`` has the ``n_features_in_`` seen in fit.

    Worded as scikit-learn's message, which its estimator checks recognise.

    Raises
    ------
    ValueError
        A different number of columns.
    """
    if arr.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"{name} has {arr.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input (n_features seen in fit); "
            f"got {name}.shape={arr.shape}"
        )
