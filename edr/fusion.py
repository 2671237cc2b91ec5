"""Quality-weighted fusion of respiratory series.

Several series of one window may carry the breathing: the leading kernel
principal components of the QRS matrix, the R amplitude, the QRS area, the
heart rate, the same series of other leads. A respiratory series concentrates
its band power around the breathing rate within every minute or so, even when
the rate changes from minute to minute; a component that follows a morphology
step, an ectopic cluster or noise spreads it. Breathing also shows in several
series at once, while a component that follows something else (an aliased mains
line, a lone artefact) stands alone. :func:`fuse` therefore weights each
band-passed, standardised series by its local spectral concentration
(:func:`local_concentration`, peak in :data:`WEIGHT_BAND_HZ`, over
:data:`LOCAL_S` stretches) raised to :data:`FUSION_POWER`, times its agreement
with the rest of the panel (:data:`CONSENSUS`), aligns it in time (within
:data:`ALIGN_LAG_S`) and in sign with the heaviest one that does not lag the breathing (the heart
rate does, :data:`HEART_SERIES`) and averages. The heart rate, whose phase against the breath
changes with the breathing rate, is added rotated frequency by frequency onto the others' sum
where they outweigh it (:data:`HEART_PHASE`, :mod:`edr.cross_phase`).

The same panel and weights judge the respiratory rate of every 32 s rate window
(:func:`edr.rates.rate_quality`).
Everything here sees the ECG-derived series only. The weighting was chosen by
leave-one-subject-out over the shared ICU and healthy recordings
(``docs/studies/beyond_the_icu.md``), the band and the threshold by
leave-one-patient-out over the ICU ones
(``docs/design.md#3-generalisation-to-unseen-patients``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np

from edr.series_alignment import aligned_sum, unit_sd
from edr.signal import (
    GRID_FS,
    bandpass,
    carried_bpm,
)
from edr.spectra import spectral_concentration

__all__ = ["ALIGN_LAG_S", "CONSENSUS", "FUSION_POWER", "HEART_PHASE", "HEART_SERIES", "LOCAL_S",
           "PHASE_MIN_LOCAL",
           "WEIGHT_BAND_HZ", "Fusion", "band_passed", "carried_band", "carried_hz",
           "fuse",
           "local_concentration",
           "panel_weights", "standardised"]

FUSION_POWER = 4
"""Exponent on the spectral concentrations that weight the fused series."""
WEIGHT_BAND_HZ = (0.1, 1.0)
"""Band (Hz) of the peak whose concentration weights a series in :func:`panel_weights`: 6-60
breaths/min. The concentration is the power around the peak in this band over the series'
power in the protocol band (0.05-1 Hz), so a series whose power lies below 6/min (slow drift,
step transients that both leads share) weighs little and cannot anchor the fusion."""
LOCAL_S = 64.0
"""Length (s) of the stretches over which a series' concentration is measured and averaged
(:func:`local_concentration`; half-overlapping): breathing whose rate changes every minute or two
is concentrated in each stretch though not over a 5-minute window."""
CONSENSUS = True
"""Whether a series' weight is also scaled by its agreement with the rest of the panel
(:func:`panel_weights`): breathing shows in several series at once, a component that follows
something else (an aliased mains line, noise) stands alone however concentrated it is."""
HEART_SERIES = frozenset({"rsa"})
"""Panel series of the heart rather than of a lead: the heart rate follows the breathing with a
delay that changes with the rate (respiratory sinus arrhythmia), so it never anchors the fusion's
alignment while a morphology series weighs (:func:`fuse`); every lead's beats give the same heart
rate, so a multi-lead panel keeps it once (``edr.windows``)."""
ALIGN_LAG_S = 0.25
"""Largest shift (s) by which :func:`fuse` moves a series onto its anchor (the shift that
maximises their absolute correlation; one sample of the 4 Hz grid): series of one window can
reach the grid slightly apart (a feature of the R peak against one of the whole QRS, the heart
rate against the morphology, leads whose QRS differ), and averaging them unaligned blurs the
breathing. The value the nested leave-one-subject-out procedure chooses on every shared record
(``docs/tuned_constants.md``)."""
HEART_PHASE = True
"""Whether :func:`fuse` adds the :data:`HEART_SERIES` rotated frequency by frequency onto the sum
of the others (:func:`edr.cross_phase.phase_onto`, over :data:`LOCAL_S` segments) instead of by
one shift and sign: the heart rate's phase against the breath changes with the breathing rate
(``docs/studies/one_lead_healthy.md``)."""
PHASE_MIN_LOCAL = 2.0
"""The rotation of :data:`HEART_PHASE` needs a series of at least this many :data:`LOCAL_S`: its
cross-spectrum then averages at least three half-overlapping segments. From one segment the
cross-spectrum's phase is merely the two series' phase difference at every frequency (its
coherence is 1 whatever they are), and rotating by it copies the anchor's noise."""
_MIN_BANDPASS_POINTS = 28


@dataclass(frozen=True)
class Fusion:
    """Result of :func:`fuse`.

    Attributes
    ----------
    series : ndarray
        The fused series (unit variance where the inputs are).
    weights : dict
        Normalised weight of each input series (sums to 1).
    best : str
        Name of the anchor, the heaviest input that does not lag the breathing (see
        :func:`fuse`); the others are aligned to it.
    signs : dict
        +1 or -1 per input: the sign it entered the average with.
    lags : dict
        Shift (grid samples) per input: it entered the average as ``x[n - lag]``.

    See Also
    --------
    fuse : what returns it.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> b = np.sin(2 * np.pi * 0.25 * t)  # breathing at 15 breaths/min
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> from edr.fusion import fuse
    >>> f = fuse({"r": b, "area": -b + 0.1 * noise, "noise": noise})
    >>> f.best, f.signs["area"], round(f.weights["noise"], 2)
    ('r', -1.0, 0.0)
    """

    series: np.ndarray
    weights: dict
    best: str
    signs: dict
    lags: dict


def band_passed(x, fs: float = GRID_FS) -> np.ndarray:
    """``x`` band-passed (:func:`edr.signal.bandpass`; demeaned when too short).

    See Also
    --------
    edr.signal.bandpass, standardised

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> b = np.sin(2 * np.pi * 0.25 * t)  # breathing at 15 breaths/min
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> from edr.fusion import band_passed
    >>> band_passed(b).shape, band_passed(b[:8]).tolist() == (b[:8] - b[:8].mean()).tolist()
    ((480,), True)
    """
    x = np.asarray(x, dtype=float)
    return bandpass(x, fs=fs) if x.size >= _MIN_BANDPASS_POINTS else x - x.mean()


def standardised(x, fs: float = GRID_FS) -> np.ndarray:
    """:func:`band_passed` ``x`` over its standard deviation.

    See Also
    --------
    band_passed

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> b = np.sin(2 * np.pi * 0.25 * t)  # breathing at 15 breaths/min
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> from edr.fusion import standardised
    >>> round(float(standardised(3.0 * b).std()), 6)
    1.0
    """
    y = band_passed(x, fs)
    sd = y.std()
    return y / sd if sd > 0 else y


def local_concentration(x, fs: float = GRID_FS, *, band=WEIGHT_BAND_HZ,
                        local_s: float | None = LOCAL_S):
    """Mean :func:`edr.spectra.spectral_concentration` (peak in ``band``) over half-overlapping
    stretches of ``local_s`` seconds; the whole series' when ``local_s`` is None or the series is
    no longer than one stretch.

    ``x`` one-dimensional: a float. Two-dimensional (series of one grid as rows): each row's, as
    an array (every stretch of every row in one call of ``spectral_concentration``).

    See Also
    --------
    edr.spectra.spectral_concentration, panel_weights

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> b = np.sin(2 * np.pi * 0.25 * t)  # breathing at 15 breaths/min
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> from edr.fusion import local_concentration
    >>> round(local_concentration(b), 2), round(local_concentration(noise), 2)
    (1.0, 0.16)
    """
    x = np.asarray(x, dtype=float)
    rows = np.atleast_2d(x)
    n = rows.shape[1] if local_s is None else int(round(local_s * fs))
    if rows.shape[1] <= n:
        out = spectral_concentration(rows, fs, peak_band=band)
    else:
        step = max(n // 2, 1)
        stretches = np.lib.stride_tricks.sliding_window_view(rows, n, axis=1)[:, ::step]
        out = spectral_concentration(stretches.reshape(-1, n), fs, peak_band=band)
        out = out.reshape(rows.shape[0], -1).mean(axis=1)
    return out if x.ndim == 2 else float(out[0])


def panel_weights(panel: Mapping[str, np.ndarray], fs: float = GRID_FS,
                  power: float = FUSION_POWER, band=WEIGHT_BAND_HZ, *,
                  local_s: float | None = LOCAL_S, consensus: bool = CONSENSUS,
                  max_hz: float | None = None) -> dict:
    """Normalised weight of each series of ``panel``.

    The base weight is ``c ** power`` with ``c`` the :func:`local_concentration` of the series
    (its spectral peak searched in ``band``, Hz, below ``max_hz`` when given: the fastest rhythm
    beat-sampled series carry, :func:`edr.signal.carried_bpm`; a series whose power lies at a
    beat-to-beat alternation above it weighs little). With ``consensus`` it is multiplied by the
    series' agreement with the others, ``sum_j b_j |r_kj| / sum_j b_j`` over the other series
    ``j`` (``b_j`` their base weights, ``r_kj`` the Pearson correlation): a series that shares
    its oscillation with no other member weighs little. Equal weights when all are 0.

    See Also
    --------
    fuse : the weighted average.
    local_concentration : the base weight.

    References
    ----------
    .. [1] W. Karlen, S. Raman, J. M. Ansermino and G. A. Dumont, "Multiparameter respiratory rate
       estimation from the photoplethysmogram," IEEE Trans. Biomed. Eng. 60(7), 1946-1953, 2013.
       Fusion of several respiratory modulations ("smart fusion").
    .. [2] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Fusion of respiratory features of
       the ECG.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> b = np.sin(2 * np.pi * 0.25 * t)  # breathing at 15 breaths/min
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> from edr.fusion import panel_weights
    >>> w = panel_weights({"r": b, "area": -b, "noise": noise})
    >>> {k: round(v, 2) for k, v in w.items()}
    {'r': 0.5, 'area': 0.5, 'noise': 0.0}
    """
    if not panel:
        raise ValueError("the panel holds no series")
    names = list(panel)
    sizes = {k: np.size(panel[k]) for k in names}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"the panel's series must share one grid; their numbers of points are "
                         f"{sizes}")
    band = carried_band(band, max_hz)
    raw = local_concentration(np.array([np.asarray(panel[k], dtype=float) for k in names]), fs,
                              band=band, local_s=local_s) ** power
    if consensus and len(names) > 1:
        Y = np.array([np.asarray(panel[k], dtype=float) for k in names])
        Y = Y - Y.mean(axis=1, keepdims=True)
        norm = np.sqrt(np.einsum("ij,ij->i", Y, Y))
        Y = Y / np.where(norm > 0, norm, 1.0)[:, None]
        r = np.abs(Y @ Y.T)
        np.fill_diagonal(r, 0.0)
        others = raw.sum() - raw
        raw = raw * np.divide(r @ raw, others, out=np.zeros_like(raw), where=others > 0)
    total = raw.sum()
    if total <= 0:
        return {k: 1.0 / len(names) for k in names}
    return {k: float(w / total) for k, w in zip(names, raw, strict=True)}


def carried_hz(beat_times) -> float | None:
    """The fastest rhythm (Hz) a series sampled at ``beat_times`` carries over their whole span
    (:func:`edr.signal.carried_bpm` of one window holding every beat); None for fewer than two
    beats.

    See Also
    --------
    edr.signal.carried_bpm, carried_band

    Examples
    --------
    >>> import numpy as np
    >>> from edr.fusion import carried_hz
    >>> carried_hz(np.arange(0.0, 60.0, 1.0))  # one beat a second
    0.4375
    """
    t = np.asarray(beat_times, dtype=float)
    if t.size < 2:
        return None
    return float(carried_bpm(t, [t[0]], t[-1] - t[0] + 1.0)[0]) / 60.0


def carried_band(band, max_hz: float | None) -> tuple:
    """``band`` (Hz) with its upper edge lowered to ``max_hz`` when that is lower (None: as is;
    a limit at or below the lower edge leaves the lower edge alone, an empty band).

    See Also
    --------
    carried_hz

    Examples
    --------
    >>> from edr.fusion import carried_band
    >>> carried_band((0.1, 0.7), 0.45), carried_band((0.1, 0.7), None)
    ((0.1, 0.45), (0.1, 0.7))
    """
    if max_hz is None or not max_hz < band[1]:
        return tuple(band)
    return band[0], max(float(max_hz), band[0])


def fuse(panel: Mapping[str, np.ndarray], fs: float = GRID_FS,
         power: float = FUSION_POWER, band=WEIGHT_BAND_HZ, *,
         max_lag_s: float = ALIGN_LAG_S, delayed: Collection[str] = HEART_SERIES,
         phase: bool = HEART_PHASE, **weighting) -> Fusion:
    """Concentration-weighted, time- and sign-aligned average of standardised series on one grid.

    Each series is shifted onto the anchor by the lag within ``±max_lag_s`` that maximises the
    absolute value of their correlation (edge samples held), given that correlation's sign,
    scaled to unit variance, weighted (:func:`panel_weights`) and summed. The anchor is the
    heaviest series that does not follow the breathing with a delay (``delayed``), so that the
    average keeps the breathing's phase; the heaviest of all when only delayed ones weigh.

    Parameters
    ----------
    panel : mapping of str to ndarray
        Band-passed series of equal length (see :func:`standardised`).
    fs : float, default 4.0
        Their rate (Hz).
    power : float, default :data:`FUSION_POWER`
    band : (float, float), default :data:`WEIGHT_BAND_HZ`
        Band (Hz) of the spectral peaks whose concentrations weight the series.
    max_lag_s : float, default :data:`ALIGN_LAG_S`
        Largest shift (s); 0 aligns the signs only.
    delayed : collection of str, default :data:`HEART_SERIES`
        Series that never anchor while another has weight; a panel name matches by itself or by
        its part after the last ``"/"`` (``"II/rsa"``).
    phase : bool, default :data:`HEART_PHASE`
        Whether the ``delayed`` series are added rotated frequency by frequency onto the
        weighted, aligned sum of the others (:func:`edr.cross_phase.phase_onto`) rather than
        shifted and signed, when the others outweigh them (together more than half the weight:
        the phase is then estimated against the stronger evidence) and the series spans at least
        :data:`PHASE_MIN_LOCAL` times :data:`LOCAL_S`; otherwise shifted as without ``phase``.
        ``Fusion.signs`` and ``lags`` still give the shift and sign of every input.
    **weighting
        ``local_s``, ``consensus`` and ``max_hz`` of :func:`panel_weights`.

    Returns
    -------
    Fusion

    See Also
    --------
    panel_weights : the weights.
    aligned_sum : the alignment and the average.
    edr.leads.fuse_edrs : the fusion of several leads' EDRs.

    References
    ----------
    .. [1] W. Karlen, S. Raman, J. M. Ansermino and G. A. Dumont, "Multiparameter respiratory rate
       estimation from the photoplethysmogram," IEEE Trans. Biomed. Eng. 60(7), 1946-1953, 2013.
       Fusion of several respiratory modulations ("smart fusion").
    .. [2] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Fusion of respiratory features of
       the ECG.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(480) / 4.0  # two minutes on the 4 Hz grid
    >>> b = np.sin(2 * np.pi * 0.25 * t)  # breathing at 15 breaths/min
    >>> noise = np.random.default_rng(0).standard_normal(t.size)
    >>> from edr.fusion import fuse
    >>> f = fuse({"r": b, "area": -b + 0.1 * noise, "noise": noise})
    >>> f.best, f.signs["area"], {k: round(w, 2) for k, w in f.weights.items()}
    ('r', -1.0, {'r': 0.51, 'area': 0.49, 'noise': 0.0})
    >>> bool(np.corrcoef(f.series, b)[0, 1] > 0.99)
    True
    """
    if not (np.isfinite(max_lag_s) and max_lag_s >= 0):
        raise ValueError(f"max_lag_s must be a finite number >= 0, got {max_lag_s!r}")
    weights = panel_weights(panel, fs, power, band, **weighting)
    anchors = {k: w for k, w in weights.items()
               if k.rsplit("/", 1)[-1] not in delayed and w > 0} or weights
    best = max(anchors, key=anchors.get)
    delayed_w = {k: w for k, w in weights.items()
                 if k != best and w > 0 and k.rsplit("/", 1)[-1] in delayed}
    n = len(next(iter(panel.values())))
    rotated = (delayed_w if phase and sum(delayed_w.values()) < 0.5
               and n >= PHASE_MIN_LOCAL * LOCAL_S * fs else {})
    rest = {k: 0.0 if k in rotated else w for k, w in weights.items()}
    series, signs, lags = aligned_sum(panel, rest, best, int(round(max_lag_s * fs)))
    if rotated:
        from edr.cross_phase import phase_onto

        ref = series.copy()
        for k, w in rotated.items():
            series = series + w * phase_onto(unit_sd(panel[k]), ref, fs, LOCAL_S)
    return Fusion(series, weights, best, signs, lags)
