"""The classic series as methods: R amplitude, QRS area and the heart rate (RSA).

Each returns its per-beat series at the segment's valid beats (:mod:`edr.modulation` computes
the morphological ones, cached by :class:`Segment`).
"""

from __future__ import annotations

import numpy as np

from edr.methods.segment import MethodOutput, Segment

__all__ = ["qrs_area_edr", "r_amplitude_edr", "rsa_edr"]

def r_amplitude_edr(seg: Segment) -> MethodOutput:
    """R-wave amplitude per valid beat (:func:`edr.modulation.r_amplitude`).

    See Also
    --------
    qrs_area_edr, rsa_edr, edr.modulation.r_amplitude

    References
    ----------
    .. [1] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. The R amplitude among the EDR
       features compared.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import r_amplitude_edr
    >>> out = r_amplitude_edr(seg)
    >>> out.kind, out.values.size == int(seg.valid.sum())
    ('beats', True)
    """
    seg.require_beats()
    v = seg.r_amplitudes()[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def qrs_area_edr(seg: Segment) -> MethodOutput:
    """QRS area per valid beat (:func:`edr.modulation.qrs_area`).

    See Also
    --------
    r_amplitude_edr, rsa_edr, edr.modulation.qrs_area

    References
    ----------
    .. [1] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. The QRS area among the EDR features
       compared.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import qrs_area_edr
    >>> out = qrs_area_edr(seg)
    >>> out.kind, out.values.size == int(seg.valid.sum())
    ('beats', True)
    """
    seg.require_beats()
    v = seg.qrs_areas()[seg.valid]
    return MethodOutput(seg.beat_times[seg.valid], v, "beats")


def rsa_edr(seg: Segment) -> MethodOutput:
    """Instantaneous heart rate ``60 / RR`` (bpm) at each beat closing an RR between two valid
    beats.

    See Also
    --------
    r_amplitude_edr, qrs_area_edr, edr.signal.carried_bpm

    References
    ----------
    .. [1] P. H. Charlton, T. Bonnici, L. Tarassenko, D. A. Clifton, R. Beale and P. J. Watkinson,
       "An assessment of algorithms to estimate respiratory rate from the electrocardiogram and
       photoplethysmogram," Physiol. Meas. 37(4), 610-626, 2016. Respiratory sinus arrhythmia (the
       heart rate) among the features compared.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import rsa_edr
    >>> out = rsa_edr(seg)
    >>> out.kind, bool(np.all((out.values > 30) & (out.values < 200)))
    ('beats', True)
    """
    seg.require_beats()
    t = seg.beat_times
    ok = seg.valid[1:] & seg.valid[:-1]
    rr = np.diff(t)[ok]
    return MethodOutput(t[1:][ok], 60.0 / rr, "beats")
