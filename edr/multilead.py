"""Multi-lead kernel PCA: beats detected once for all leads, their QRS windows side by side.

:func:`joint_beats` keeps the best lead's aligned beats (:func:`edr.leads.choose_lead`) where
the joined leads (usable, scoring at least :data:`JOINT_SCORE_FRACTION` of the best) confirm
them; :func:`multilead_matrix` reads each lead's QRS window at those positions plus the lead's
constant median R offset and concatenates the windows (each lead's block divided by its median
absolute value, so leads of different gain weigh alike); :func:`multilead_kpca` fits one kernel
PCA to them (``lead="multilead"``, ``docs/design.md#edr-lead-choice-and-fusion``). Everything
here sees the ECG alone.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from edr.beats import Beats
from edr.errors import SignalError
from edr.leads import LeadQuality, choose_lead, matched_beats
from edr.modulation import MATRIX_RATE_HZ, QRS_HALF_WIDTH_S, qrs_matrix, rail_free_columns
from edr.signal import MIN_BEATS

__all__ = ["JOINT_SCORE_FRACTION", "joint_beats", "multilead_kpca", "multilead_matrix"]

JOINT_SCORE_FRACTION = 0.8
"""Leads scoring below this fraction of the best lead's score stay out of multi-lead kPCA."""


def joint_beats(beats: dict[str, Beats], quality: dict[str, LeadQuality]):
    """Beats detected once for all leads.

    The reference is the best usable lead (:func:`choose_lead`); the leads
    joined to it are the usable leads scoring at least
    :data:`JOINT_SCORE_FRACTION` of its score. The reference's aligned beats
    are kept, valid where valid in the reference and matched (within 50 ms,
    after the pair's constant offset) by a valid beat in every joined lead.
    Each joined lead's R offset is the median of the matched differences.

    Returns
    -------
    joint : Beats
        The reference lead's beats with the joint ``valid`` mask.
    offsets : dict of str to float
        Per joined lead, its R position minus the reference's (samples);
        0 for the reference.

    See Also
    --------
    multilead_matrix, multilead_kpca

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0, leads=("II", "V2"))
    >>> from edr.beats import detect
    >>> from edr.leads import assess_leads
    >>> from edr.multilead import joint_beats
    >>> quality = assess_leads(rec.leads, rec.fs)
    >>> beats = {name: detect(x, rec.fs) for name, x in rec.leads.items()}
    >>> joint, offsets = joint_beats(beats, quality)
    >>> int(joint.valid.sum()), offsets["II"]
    (69, 0.0)
    """
    ref = choose_lead(quality)
    rb = beats[ref]
    valid = np.asarray(rb.valid, bool).copy()
    offsets = {ref: 0.0}
    floor = JOINT_SCORE_FRACTION * quality[ref].score
    for n, q in quality.items():
        if n == ref or not q.usable or q.score < floor:
            continue
        ob = beats[n]
        hit, idx = matched_beats(rb.peaks / rb.fs, ob.peaks / ob.fs)
        ok = hit & np.asarray(ob.valid, bool)[idx]
        valid &= ok
        d = ob.peaks[idx][hit] - rb.peaks[hit]
        offsets[n] = float(np.median(d)) if d.size else 0.0
    return replace(rb, valid=valid), offsets


def multilead_matrix(leads: dict, fs: float, beats: Beats, offsets: dict, *,
                     half_width_s: float = QRS_HALF_WIDTH_S) -> np.ndarray:
    """Concatenated QRS windows of the leads in ``offsets`` at the joint beat positions.

    Each lead's block is :func:`edr.modulation.qrs_matrix` at
    ``beats.peaks + offsets[lead]`` on the lead as recorded (a whole block's
    sign does not change kernel distances), without the window positions
    where the lead sits at its rail in more than 5 % of the beats (clipping),
    divided by the block's median absolute value.

    Returns
    -------
    ndarray, shape (n_beats, n_leads * window)
        All beats (mask with ``beats.valid``).

    See Also
    --------
    joint_beats, multilead_kpca

    Examples
    --------
    >>> from edr.beats import detect
    >>> from edr.multilead import multilead_matrix
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0, leads=("II", "V2"))
    >>> beats = detect(rec.leads["II"], rec.fs)
    >>> multilead_matrix(rec.leads, rec.fs, beats, {"II": 0.0, "V2": 10.6}).shape  # 2 x 17 samples
    (69, 34)
    """
    blocks = []
    for n in offsets:
        b = replace(beats, peaks=beats.peaks + offsets[n], polarity=1)
        m = qrs_matrix(leads[n], fs, b, half_width_s=half_width_s, rate_hz=MATRIX_RATE_HZ)
        m = m[:, rail_free_columns(leads[n], b, m.shape[1], step=fs / MATRIX_RATE_HZ)]
        scale = np.median(np.abs(m))
        blocks.append(m / (scale if scale > 0 else 1.0))
    return np.hstack(blocks)


def multilead_kpca(leads: dict, fs: float, beats: Beats, offsets: dict, *, sigma2="mdd",
                   random_state=0, selection_options=None, half_width_s: float = QRS_HALF_WIDTH_S):
    """Multi-lead kernel PCA EDR (``n_c = 1``) on the concatenated QRS windows.

    ``kpca.core.KernelPCACore(n_components=1, sigma2=sigma2, random_state=random_state,
    selection_options=selection_options)`` (:class:`kpca.KernelPCA` without scikit-learn) fitted
    to the valid joint beats of :func:`multilead_matrix`; it resolves a criterion ``sigma2``.

    Returns
    -------
    times : ndarray
        Times (s) of the valid joint beats.
    values : ndarray
        First kernel principal component score per valid beat.
    model : kpca.core.KernelPCACore
        The fitted model (``sigma2_``, ``selection_``, ``eigenvalues_``).

    Raises
    ------
    SignalError
        Fewer than :data:`edr.signal.MIN_BEATS` beats valid in every joined lead.

    See Also
    --------
    multilead_matrix, edr.methods.kpca_edr : the single-lead method.

    References
    ----------
    .. [1] D. Widjaja, C. Varon, A. C. Dorado, J. A. K. Suykens and S. Van Huffel, "Application of
       kernel principal component analysis for single-lead ECG-derived respiration," IEEE Trans.
       Biomed. Eng. 59(4), 1169-1176, 2012. Kernel PCA of the QRS windows, the first component as
       the respiration.

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0, leads=("II", "V2"))
    >>> from edr.beats import detect
    >>> from edr.leads import assess_leads
    >>> from edr.multilead import joint_beats
    >>> quality = assess_leads(rec.leads, rec.fs)
    >>> beats = {name: detect(x, rec.fs) for name, x in rec.leads.items()}
    >>> joint, offsets = joint_beats(beats, quality)
    >>> from edr.multilead import multilead_kpca
    >>> times, values, model = multilead_kpca(rec.leads, rec.fs, joint, offsets, sigma2=1.0)
    >>> times.shape == values.shape == (69,), model.n_components
    (True, 1)
    """
    from kpca.core import KernelPCACore

    X = multilead_matrix(leads, fs, beats, offsets, half_width_s=half_width_s)[beats.valid]
    if X.shape[0] < MIN_BEATS:
        raise SignalError(f"only {X.shape[0]} beats valid in every usable lead; "
                          f"at least {MIN_BEATS} are needed")
    model = KernelPCACore(n_components=1, sigma2=sigma2, random_state=random_state,
                          selection_options=selection_options or None)
    values = model.fit_transform(X)[:, 0]
    return beats.times[beats.valid], values, model
