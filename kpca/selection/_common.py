"""Input checks, the default sigma2 grid and the shared "eigenvalues vs noise" logic."""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from kpca._validation import (
    check_array,
    check_count,
    check_positive_values,
    check_random_state,
)
from kpca.selection.result import SelectionWarning

MIN_SAMPLES = 10
#: default grid: sigma2 = rule_of_thumb * 2**(k/3), k = -15..15 (31 values, 1/32x .. 32x)
GRID_STEPS_PER_OCTAVE = 3
GRID_OCTAVES = 5


def check_data(X):
    """Validate the data for selection; exact duplicate rows are removed.

    Duplicated points add zero distances that no noise model produces and
    identical kernel rows; they are dropped (first occurrence kept) and the
    number removed is reported in ``details["n_duplicates"]``.

    Returns
    -------
    X_unique : ndarray
    n_duplicates : int

    Raises
    ------
    ValueError
        Fewer than 10 distinct points, or constant data.
    """
    X = check_array(X, "X", min_samples=1)
    n = X.shape[0]
    if n < MIN_SAMPLES:
        raise ValueError(f"X must have at least {MIN_SAMPLES} samples for model selection; got "
                         f"n_samples={n}")
    first = _first_occurrences(X)
    if first is None:  # the rows are distinct
        return X, 0
    n_dup = n - first.size
    if first.size == 1:
        raise ValueError("X is constant (all rows identical): no kernel width can be selected")
    if n_dup:
        X = X[np.sort(first)]
        if X.shape[0] < MIN_SAMPLES:
            raise ValueError(
                f"X must have at least {MIN_SAMPLES} distinct samples for model selection; got "
                f"{X.shape[0]} distinct of n_samples={n}"
            )
    return X, int(n_dup)


def _projections(rows):
    """One projection of each row: the features weighted and added in the same order for every
    row, element-wise (no BLAS kernel's row-dependent order), so equal rows project equally."""
    weights = np.sin(1.0 + np.arange(rows.shape[1]))
    with np.errstate(over="ignore", invalid="ignore"):  # not finite: the caller checks
        proj = rows[:, 0] * weights[0]
        for k in range(1, rows.shape[1]):
            proj += rows[:, k] * weights[k]
    return proj


def _first_occurrences(X):
    """None if the (finite) rows of ``X`` differ pairwise, else the indices of the first
    occurrence of every distinct row (``-0.0`` equal to ``0.0``), as the ``return_index`` of
    ``np.unique(X, axis=0)``, sorted.

    Rows whose projection (:func:`_projections`) no other row shares are distinct from every
    other row; only the rows of shared projections are compared, by ``np.unique`` (sorting all
    rows is the slow part of a selection's check: ``docs/studies/fast_selection.md``)."""
    rows = X + 0.0  # -0.0 made 0.0
    proj = _projections(rows)
    if not np.isfinite(proj).all():
        return np.sort(np.unique(X, axis=0, return_index=True)[1])
    order = np.argsort(proj, kind="stable")
    p = proj[order]
    same = p[1:] == p[:-1]
    if not same.any():
        return None
    shared = np.zeros(p.size, dtype=bool)
    shared[1:] |= same
    shared[:-1] |= same
    candidates = np.sort(order[shared])
    first = candidates[np.unique(X[candidates], axis=0, return_index=True)[1]]
    if first.size == candidates.size:
        return None
    return np.sort(np.concatenate([order[~shared], first]))


def _all_distinct(X):
    """Whether the (finite) rows of ``X`` differ pairwise (:func:`_first_occurrences`)."""
    return _first_occurrences(X) is None


def seed_of(random_state):
    """The int seed to record in a result (``None`` for a Generator or None)."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return None


def rng_of(random_state):
    return check_random_state(random_state)


def default_grid(X):
    """Default ``sigma2`` grid around the rule of thumb (Varon et al. 2015, Eq. (20)).

    ``sigma2_k = rot * 2**(k / 3)`` for ``k = -15 .. 15``: 31 log-spaced
    values from ``rot / 32`` to ``32 rot`` (steps of a factor ``2**(1/3)``;
    three steps double ``sigma2``, which the spectral code exploits).
    """
    from kpca.selection.heuristics import rule_of_thumb_sigma2

    rot = rule_of_thumb_sigma2(X)
    k = np.arange(-GRID_STEPS_PER_OCTAVE * GRID_OCTAVES, GRID_STEPS_PER_OCTAVE * GRID_OCTAVES + 1)
    return rot * 2.0 ** (k / GRID_STEPS_PER_OCTAVE)


def check_grid(grid, X):
    """Sorted, validated ``sigma2`` grid (the default one when ``grid`` is None)."""
    if grid is None:
        return default_grid(X)
    return np.unique(check_positive_values(grid, "grid"))


def check_n_eigenvalues(n_components, n_eigenvalues, n):
    """How many leading eigenvalues a spectral criterion computes per matrix.

    ``n_components`` when it is fixed; otherwise ``n_eigenvalues`` capped at
    ``n`` (``None``: the full spectrum, ``n``).
    """
    if n_components is not None:
        return n_components
    if n_eigenvalues is None:
        return n
    return min(check_count(n_eigenvalues, "n_eigenvalues", 1, optional=True), n)


def leading_excess(lam, tau):
    """Number of leading components whose eigenvalue exceeds the noise level.

    ``n = max{i : lambda_j - tau_j > 0 for all j <= i}`` per grid row.  Eq. (14)
    of Varon et al. and Eq. (6) of Jørgensen & Hansen write ``max_{lambda_i -
    tau_i > 0} i``; Jørgensen & Hansen state that the data eigenvalues must
    exceed the threshold "for all retained components", and Varon et al. (§IV) that
    components "are selected when the first component of the noise is lower than the
    one of the real data" — this reading (it also ignores crossings in the
    numerically-zero tail of the spectrum, where the non-Euclidean noise kernels
    have negative eigenvalues).
    """
    pos = (lam - tau) > 0
    # index of the first non-positive entry = count of leading positives
    return np.where(pos.all(axis=1), pos.shape[1], np.argmin(pos, axis=1)).astype(np.int64)


def excess_curve(lam, tau, n_components):
    """Criterion per grid row from data (``lam``) and noise (``tau``) spectra.

    With ``n_components=None``: ``n_c`` by :func:`leading_excess` and the sum of
    ``lambda_i - tau_i`` over ``i <= n_c`` (Eq. (15) of Varon et al., Eq. (7) of
    Jørgensen & Hansen).  With a fixed ``n_c``: the same sum over the first
    ``n_c`` components, whatever their sign.
    """
    diff = lam - tau
    if n_components is None:
        nc = leading_excess(lam, tau)
        mask = np.arange(diff.shape[1])[None, :] < nc[:, None]
        return np.where(mask, diff, 0.0).sum(axis=1), nc
    nc = np.full(diff.shape[0], n_components, dtype=np.int64)
    return diff[:, :n_components].sum(axis=1), nc


def pick(grid, curve, nc_grid, n_components, criterion, fallback_curve=None):
    """Selected ``(sigma2, n_components, details)`` maximising ``curve`` (first maximum).

    Fallback when no grid value gives a positive criterion: with
    ``n_components=None`` the result keeps ``n_components=0`` ("no component
    beats the noise") and the ``sigma2`` of the largest leading-eigenvalue
    difference ``lambda_1 - tau_1`` (passed in ``curve`` by the caller as the
    ``fallback_curve``); with a fixed ``n_components`` the least negative value is
    taken.  Both emit a :class:`SelectionWarning` and set ``details["fallback"]``.
    """
    details = {}
    idx = int(np.argmax(curve))
    if not np.any(curve > 0):
        if fallback_curve is not None:
            idx = int(np.argmax(fallback_curve))
        details["fallback"] = (
            f"{criterion}: no sigma2 in the grid gives a positive criterion "
            f"(max {float(np.max(curve)):.4g}); sigma2={float(grid[idx]):.4g} maximises the "
            + ("leading difference lambda_1 - noise_1 instead" if fallback_curve is not None
               else "non-positive curve")
        )
        warnings.warn(details["fallback"], SelectionWarning, stacklevel=3)
    nc = int(nc_grid[idx]) if n_components is None else n_components
    return float(grid[idx]), nc, details
