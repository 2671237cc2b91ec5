"""Noise levels of a Monte-Carlo criterion computed only where and as long as the choice needs.

Two independent shortcuts of the "eigenvalues above the 95th-percentile noise level" criteria
(MDD, :mod:`kpca.selection.mdd`):

* **sequential stop** (``stop="sequential"``): the noise replicates are drawn in a first batch
  of ``first_batch`` (:data:`BATCH` for ``select_mdd``, :data:`FIRST_BATCH` for
  ``select_mdd_fast``), then in batches of :data:`BATCH`; after each batch the criterion is
  evaluated and the draws stop once the selected width is statistically settled: every
  evaluated width more than one grid step away from the best one trails it by more than
  :data:`SETTLE_Z` standard errors of the difference.  The standard error of a 95th-percentile
  noise level ``tau_hat`` estimated from ``q`` replicates is taken from the large-sample law of
  a sample quantile of a normal distribution,
  ``se = sqrt(p (1 - p)) / phi(z_p) * s / sqrt(q)`` (``p = 0.95``, ``s`` the replicates'
  standard deviation; :data:`QUANTILE_SE_FACTOR`), summed over the components in the criterion
  (no credit taken for their correlation, nor for the positive correlation of neighbouring
  widths, both of which shrink the true error).  ``n_draws`` is the cap.
* **coarse-to-fine search** (``search="coarse-to-fine"``): the criterion is first evaluated on
  every :data:`COARSE_STEP`-th width of the grid (on the default grid, one width per octave,
  so one exponential per kernel entry, the rest by squaring), then on the widths between each
  local maximum of that coarse curve and its coarse neighbours.  Every local maximum is refined,
  so a curve with two maxima keeps both candidates; a peak narrower than the coarse step and
  lower than its coarse neighbours at both coarse sides would be missed.

Replicate ``j`` always comes from the ``j``-th child of the selection's generator, so the noise
level of a width is that of the first ``q`` replicates whichever stage computed it; the replicates
drawn are kept (up to :data:`KEEP_BYTES`) for the widths a later stage adds, not drawn again.
Leading eigenvalues are computed to :data:`RTOL` (``docs/studies/fast_selection.md``).
"""

from __future__ import annotations

import numpy as np

from kpca._validation import check_choice
from kpca.selection._common import excess_curve
from kpca.selection._null import null_spectra, percentile95
from kpca.selection._spectrum import SpectrumPlan

STOPS = ("fixed", "sequential")
SEARCHES = ("full", "coarse-to-fine")
#: replicates per batch of the sequential stop after the first
BATCH = 5
#: replicates of the sequential stop's first batch in ``select_mdd_fast`` (the fewest it draws):
#: the criterion's 95th-percentile noise level of 2, 3 or 5 replicates is their largest value
#: (Hazen positions), and the stop's standard error needs at least 2 for its standard deviation
#: (``docs/studies/fast_selection.md``, seventh and twelfth rounds)
FIRST_BATCH = 2
#: replicates per thread task
TASK_CHUNK = 5
#: Lanczos tolerance relative to the largest eigenvalue
RTOL = 1e-4
#: standard errors by which every width more than one step away must trail the best one
SETTLE_Z = 3.0
#: ``sqrt(p (1 - p)) / phi(Phi^-1(p))`` for ``p = 0.95``: the standard error of a sample
#: 95th percentile of ``q`` normal draws is this times ``s / sqrt(q)``
QUANTILE_SE_FACTOR = 2.1131
#: grid positions between two widths of the coarse stage
COARSE_STEP = 3
#: most bytes of noise replicates kept between the stages of one selection, so that the
#: refinement computes more widths of the replicates drawn for the coarse stage instead of
#: drawing them again (a 361-point training set: 0.5 MB a replicate)
KEEP_BYTES = 64 * 2**20


def check_strategy(stop, search):
    """Validated ``(stop, search)``."""
    return check_choice(stop, "stop", STOPS), check_choice(search, "search", SEARCHES)


def coarse_positions(n_grid, step=COARSE_STEP):
    """Every ``step``-th grid position from the first, and always the last."""
    return np.unique(np.r_[np.arange(0, n_grid, step), n_grid - 1])


def refinement(curve, positions, coarse, n_grid):
    """Grid positions strictly between each local maximum of the criterion over the ``coarse``
    positions and its coarse neighbours (``curve`` holds the values at ``positions``).

    A local maximum is at least as high as its coarse neighbours and higher than one of them
    (flat stretches are not refined)."""
    at = dict(zip(positions.tolist(), curve.tolist(), strict=True))
    c = [at[int(p)] for p in coarse]
    out = set()
    for i, p in enumerate(coarse):
        near = c[max(i - 1, 0):i] + c[i + 1:i + 2]
        if all(c[i] >= v for v in near) and (not near or any(c[i] > v for v in near)):
            lo = coarse[i - 1] + 1 if i > 0 else p
            hi = coarse[i + 1] - 1 if i + 1 < len(c) else p
            out.update(range(int(lo), int(hi) + 1))
    return np.array(sorted(out - set(positions.tolist())), dtype=np.int64)


def standard_errors(null, nc_grid):
    """Standard error of the summed 95th-percentile noise levels of the criterion per width
    (``null``: replicates x widths x components; ``nc_grid``: components summed per width)."""
    q = null.shape[0]
    sd = null.std(axis=0, ddof=1)
    used = np.arange(sd.shape[1])[None, :] < nc_grid[:, None]
    return QUANTILE_SE_FACTOR / np.sqrt(q) * np.where(used, sd, 0.0).sum(axis=1)


def is_settled(curve, se, positions, z):
    """Whether every width more than one grid step from the best trails it by ``z`` standard
    errors of the difference."""
    best = int(np.argmax(curve))
    far = np.abs(positions - positions[best]) > 1
    gap = curve[best] - curve[far]
    return bool(np.all(gap > z * np.hypot(se[best], se[far])))


def adaptive_noise_levels(make_D2, data_D2, grid, k, n, n_components, rng, *, n_draws, stop,
                          search, n_jobs=None, first_batch=BATCH):
    """Data spectra, noise levels and criterion at the widths the strategy evaluates.

    Parameters
    ----------
    make_D2 : callable ``(rng_j) -> ndarray``
        Squared distances (packed) of one noise replicate.
    data_D2 : ndarray
        Squared distances of the data.
    grid : ndarray
        Ascending ``sigma2`` grid.
    k, n : int
        Leading eigenvalues per matrix, matrix size.
    n_components : int or None
        As :func:`~kpca.selection._common.excess_curve`.
    rng : numpy.random.Generator
    n_draws : int
        Replicates (``stop="fixed"``) or their cap (``"sequential"``).
    stop, search : str
        See the module docstring.
    first_batch : int
        Replicates of the sequential stop's first batch (at least 2).

    Returns
    -------
    positions : ndarray of int
        Evaluated grid positions, ascending.
    lam, tau : ndarray, shape (n_evaluated, k)
    curve : ndarray
    nc_grid : ndarray of int
    n_used : int
        Replicates drawn.
    """
    seeds = rng.bit_generator.seed_seq.spawn(n_draws)
    make_gen = type(rng.bit_generator)
    # replicates kept for the later stages (refinement, widths added after a batch), within
    # KEEP_BYTES: a replicate's draws are a function of its seed, so a kept one is the one
    # drawn again, without the drawing
    kept = {}
    keep_at_most = KEEP_BYTES // max(8 * (n * (n - 1) // 2), 1) if search != "full" else 0

    def replicate(j):
        d2 = kept.get(j)
        if d2 is None:
            d2 = make_D2(np.random.Generator(make_gen(seeds[j])))
            if j < keep_at_most:
                kept[j] = d2
        return d2

    n_grid = grid.size
    null = np.full((n_draws, n_grid, min(k, n)), np.nan)
    lam = np.full((n_grid, min(k, n)), np.nan)

    def fill(draws, positions, with_data):
        plan = SpectrumPlan(grid[positions], k, n, rtol=RTOL)
        res = null_spectra(replicate, len(draws), plan, draws.tolist(), n_jobs=n_jobs,
                           data_D2=data_D2 if with_data else None, chunk=TASK_CHUNK)
        if with_data:
            res, lam[positions] = res
        null[np.ix_(draws, positions)] = res

    coarse = coarse_positions(n_grid) if search == "coarse-to-fine" else np.arange(n_grid)
    positions = coarse
    q = min(first_batch, n_draws) if stop == "sequential" else n_draws
    fill(np.arange(q), positions, True)
    while True:
        tau = percentile95(null[:q, positions])
        curve, nc_grid = excess_curve(lam[positions], tau, n_components)
        if search == "coarse-to-fine":
            extra = refinement(curve, positions, coarse, n_grid)
            if extra.size:
                fill(np.arange(q), extra, True)
                positions = np.union1d(positions, extra)
                tau = percentile95(null[:q, positions])
                curve, nc_grid = excess_curve(lam[positions], tau, n_components)
        if stop == "fixed" or q >= n_draws or is_settled(
                curve, standard_errors(null[:q, positions], nc_grid), positions, SETTLE_Z):
            return positions, lam[positions], tau, curve, nc_grid, q
        more = np.arange(q, min(q + BATCH, n_draws))
        fill(more, positions, False)
        q += more.size
