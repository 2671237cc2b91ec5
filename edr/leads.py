"""Use every ECG lead: per-lead quality, automatic lead choice, the fusion of their EDRs.

Everything here sees the ECG alone (and EDRs derived from it); the reference
respiration never enters.

Quality of a lead (:func:`lead_quality`, :func:`assess_leads`)
---------------------------------------------------------------
Indicators computed from the lead's samples, its beats and (optionally) its
single-lead EDR:

* ``masked_fraction`` — NaN and flat-line samples (:func:`edr.beats.signal_mask`);
* ``clipped_fraction``, ``valid_fraction``, ``template_corr`` (median beat
  correlation with the lead's template) from :func:`edr.beats.detect`;
* ``agreement`` — fraction of the lead's beats that the majority of the other
  usable leads also found within :data:`MATCH_TOL_S` (after removing each
  pair's constant offset, see :func:`matched_beats`);
* ``concentration`` — :func:`edr.spectra.spectral_concentration` of the lead's EDR;
* ``margin`` — MDD's ``lambda_1 - tau_1`` divided by ``lambda_1`` when the
  caller passes the kernel PCA result's margin and eigenvalue.

A lead is **unusable** when its beats cannot be detected (fewer than
:data:`edr.signal.MIN_BEATS`), more than :data:`MAX_MASKED_FRACTION` of its
samples are masked, or fewer than :data:`MIN_VALID_FRACTION` of its beats are
valid; it then scores 0 and is never chosen or fused. Usable leads are ranked
by :data:`SCORE_RULE` (chosen by measurement:
``docs/design.md#edr-lead-choice-and-fusion``).

Lead choice and fusion
----------------------
* :func:`choose_lead` — the usable lead with the highest score.
* :func:`fuse_edrs` — quality-weighted combination of single-lead EDRs on a
  common grid: each standardised, sign-aligned to the best lead (sign of the
  inner product), weighted by its score (unusable leads weight 0). A fusion
  method (the default ``kpca_fusion``) with ``lead="fuse"`` does not use it:
  the panels of every usable lead are pooled into one panel and fused by
  :func:`edr.fusion.fuse` (weights :func:`edr.fusion.panel_weights`;
  :mod:`edr.window_analysis`).
* One kernel PCA of every lead's QRS windows side by side, on beats detected
  once for all leads: :mod:`edr.multilead`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from edr.beats import Beats, detect, signal_mask
from edr.errors import SignalError
from edr.series_alignment import aligned_sum
from edr.signal import GRID_FS
from edr.spectra import spectral_concentration

__all__ = [
    "LeadQuality",
    "MATCH_TOL_S",
    "SCORE_RULE",
    "assess_leads",
    "choose_lead",
    "fuse_edrs",
    "lead_quality",
    "matched_beats",
]

MATCH_TOL_S = 0.05
"""Two leads' beats within this distance (s) are the same heart beat."""

SCORE_RULE = "concentration"
"""Indicator that ranks usable leads (see the module docstring)."""

MAX_MASKED_FRACTION = 0.5
"""A lead with more masked (NaN or flat) samples than this fraction is unusable."""

MIN_VALID_FRACTION = 0.5
"""A lead with fewer valid beats than this fraction is unusable."""


@dataclass
class LeadQuality:
    """Quality indicators of one lead (see the module docstring).

    ``score`` is 0 for an unusable lead, else the :data:`SCORE_RULE` indicator
    (NaN indicators count as 0).

    See Also
    --------
    lead_quality, assess_leads

    Examples
    --------
    >>> from edr.leads import LeadQuality
    >>> q = LeadQuality("V5", False, "flat line")
    >>> q.usable, q.score
    (False, 0.0)
    """

    lead: str
    usable: bool
    reason: str
    masked_fraction: float = float("nan")
    n_beats: int = 0
    valid_fraction: float = 0.0
    clipped_fraction: float = 0.0
    template_corr: float = 0.0
    agreement: float = float("nan")
    concentration: float = float("nan")
    margin: float = float("nan")
    score: float = 0.0

    def as_dict(self) -> dict:
        """JSON-friendly dict (NaN → None)."""
        return {k: (None if isinstance(v, float) and not np.isfinite(v) else v)
                for k, v in asdict(self).items()}


def _lead_score(q: LeadQuality) -> float:
    if not q.usable:
        return 0.0
    v = getattr(q, SCORE_RULE)
    return float(v) if np.isfinite(v) else 0.0


def lead_quality(x, fs: float, *, lead: str = "", beats: Beats | None = None, edr=None,
                 fs_out: float = GRID_FS, margin: float | None = None,
                 eigenvalue: float | None = None) -> LeadQuality:
    """Quality indicators of one lead from its ECG (and optionally its EDR).

    Parameters
    ----------
    x : array_like, shape (n,)
        The lead.
    fs : float
        Sampling rate (Hz).
    lead : str
        Lead name (reported).
    beats : Beats, optional
        From :func:`edr.beats.detect`; detected here when None.
    edr : array_like, optional
        The lead's single-lead EDR on a uniform grid of rate ``fs_out``.
    fs_out : float, default :data:`edr.signal.GRID_FS`
    margin, eigenvalue : float, optional
        MDD's ``lambda_1 - tau_1`` and ``lambda_1`` for this lead's kernel PCA.

    Returns
    -------
    LeadQuality
        ``agreement`` stays NaN (it needs the other leads: :func:`assess_leads`).

    See Also
    --------
    assess_leads : every lead, with their agreement.

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0, leads=("II", "V2"))
    >>> from edr.leads import lead_quality
    >>> q = lead_quality(rec.ecg, rec.fs, lead="II")
    >>> q.usable, q.masked_fraction, q.agreement  # agreement needs the other leads
    (True, 0.0, nan)
    """
    x = np.asarray(x, dtype=float)
    masked = float(signal_mask(x, fs).mean()) if x.size else 1.0
    q = LeadQuality(lead=lead, usable=True, reason="ok", masked_fraction=masked)
    if beats is None:
        try:
            beats = detect(x, fs)
        except SignalError as exc:
            q.usable, q.reason = False, f"beat detection failed: {str(exc).splitlines()[0]}"
            return q
    q.n_beats = len(beats)
    q.valid_fraction = float(np.mean(beats.valid)) if len(beats) else 0.0
    q.clipped_fraction = float(np.mean(beats.clipped)) if np.size(beats.clipped) else 0.0
    q.template_corr = float(np.median(beats.template_corr)) if np.size(beats.template_corr) else 0.0
    if edr is not None:
        q.concentration = spectral_concentration(edr, fs_out)
    if margin is not None and eigenvalue:
        q.margin = float(margin) / float(eigenvalue)
    if masked > MAX_MASKED_FRACTION:
        q.usable, q.reason = False, f"{100 * masked:.0f} % of the samples are NaN or flat"
    elif q.valid_fraction < MIN_VALID_FRACTION:
        q.usable, q.reason = False, f"only {100 * q.valid_fraction:.0f} % of the beats are valid"
    q.score = _lead_score(q)
    return q


def _nearest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    j = np.clip(np.searchsorted(b, a), 1, max(b.size - 1, 1))
    left = np.abs(a - b[j - 1])
    right = np.abs(a - b[np.minimum(j, b.size - 1)])
    return np.where(left <= right, j - 1, np.minimum(j, b.size - 1))


def matched_beats(a: np.ndarray, b: np.ndarray,
                  tol: float = MATCH_TOL_S) -> tuple[np.ndarray, np.ndarray]:
    """For each time in ``a``: whether ``b`` has one within ``tol`` and the index of the nearest.

    The leads' R peaks sit at lead-specific instants of the QRS complex and
    channels can be shifted against each other
    (``docs/design.md#edr-lead-choice-and-fusion``), so the constant offset of
    ``b`` against ``a`` is removed first: the mode (10 ms bins) of the differences between each time
    of ``a`` and its neighbours in ``b`` within ±0.45 median RR, refined by the median of
    the differences within ``tol`` of that mode.

    Parameters
    ----------
    a, b : ndarray
        Increasing beat times (s) of two leads.
    tol : float, default :data:`MATCH_TOL_S`
        Largest distance (s) of a match after the offset.

    Returns
    -------
    hit : ndarray of bool
        Per time of ``a``, whether it is matched.
    index : ndarray of int
        Per time of ``a``, the index of the nearest time of ``b`` (after the offset).

    See Also
    --------
    assess_leads : the beat agreement between leads.
    edr.multilead.joint_beats : beats detected once for all leads.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.leads import matched_beats
    >>> a = np.arange(0.0, 10.0, 1.0)
    >>> hit, index = matched_beats(a, np.r_[a[:4], a[5:]] + 0.03)  # one beat missing, 30 ms later
    >>> hit.tolist().count(False), index[:3].tolist()
    (1, [0, 1, 2])
    """
    if a.size < 2 or b.size == 0:
        return np.zeros(a.size, bool), np.zeros(a.size, int)
    half = 0.45 * float(np.median(np.diff(a)))
    j = np.searchsorted(b, a)
    cand = np.clip(j[:, None] + np.arange(-2, 2)[None, :], 0, b.size - 1)
    d = (b[cand] - a[:, None]).ravel()
    d = d[np.abs(d) < half]
    shift = 0.0
    if d.size:
        edges = np.arange(-half, half + 0.01, 0.01)
        counts, edges = np.histogram(d, bins=edges)
        mode = 0.5 * (edges[np.argmax(counts)] + edges[np.argmax(counts) + 1])
        shift = float(np.median(d[np.abs(d - mode) <= tol]))
    idx = _nearest(a + shift, b)
    return np.abs(a + shift - b[idx]) <= tol, idx


def assess_leads(leads: dict, fs: float, *, beats: dict | None = None, edrs: dict | None = None,
                 fs_out: float = GRID_FS, margins: dict | None = None,
                 eigenvalues: dict | None = None) -> dict[str, LeadQuality]:
    """:func:`lead_quality` for every lead, plus the cross-lead beat agreement.

    Parameters
    ----------
    leads : dict of str to ndarray
        The leads at a common rate ``fs`` (``Recording.leads``).
    fs : float
    beats, edrs, margins, eigenvalues : dict, optional
        Per-lead :class:`Beats`, single-lead EDR on the ``fs_out`` grid, MDD
        margin and first eigenvalue; missing entries are computed (beats) or
        left out (the others).

    Returns
    -------
    dict of str to LeadQuality
        In the order of ``leads``.

    See Also
    --------
    lead_quality, choose_lead, fuse_edrs

    Examples
    --------
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0, leads=("II", "V2"))
    >>> from edr.leads import assess_leads
    >>> quality = assess_leads(rec.leads, rec.fs)
    >>> {name: q.usable for name, q in quality.items()}
    {'II': True, 'V2': True}
    """
    beats = dict(beats or {})
    edrs, margins, eigenvalues = dict(edrs or {}), dict(margins or {}), dict(eigenvalues or {})
    out = {}
    for name, x in leads.items():
        out[name] = lead_quality(x, fs, lead=name, beats=beats.get(name), edr=edrs.get(name),
                                 fs_out=fs_out, margin=margins.get(name),
                                 eigenvalue=eigenvalues.get(name))
        if name not in beats and out[name].n_beats:
            beats[name] = detect(x, fs)
    usable = [n for n, q in out.items() if q.usable]
    for name in usable:
        others = [n for n in usable if n != name]
        if not others:
            continue
        t = beats[name].times
        hits = np.sum([matched_beats(t, beats[o].times)[0] for o in others], axis=0)
        out[name].agreement = float(np.mean(hits * 2 > len(others) - 1e-9)) if t.size else 0.0
        out[name].score = _lead_score(out[name])
    return out


def choose_lead(quality: dict[str, LeadQuality]) -> str:
    """Name of the usable lead with the highest score (first in order on ties).

    Raises
    ------
    SignalError
        No lead is usable (the message lists each lead's reason).

    See Also
    --------
    assess_leads

    Examples
    --------
    >>> from edr.leads import LeadQuality, choose_lead
    >>> choose_lead({"II": LeadQuality("II", True, "", score=0.8),
    ...              "V2": LeadQuality("V2", True, "", score=0.4)})
    'II'
    """
    usable = {n: q for n, q in quality.items() if q.usable}
    if not usable:
        reasons = "; ".join(f"{n}: {q.reason}" for n, q in quality.items())
        raise SignalError(f"no usable ECG lead ({reasons})")
    return max(usable, key=lambda n: (usable[n].score, -list(usable).index(n)))


def fuse_edrs(edrs: dict, quality: dict[str, LeadQuality]) -> np.ndarray:
    """Quality-weighted, sign-aligned combination of single-lead EDRs.

    Parameters
    ----------
    edrs : dict of str to ndarray
        Single-lead EDRs on one common uniform grid (same length).
    quality : dict of str to LeadQuality
        Weights are the scores (unusable leads: 0); a lead absent from
        ``quality`` is ignored.

    Returns
    -------
    ndarray
        ``sum_l w_l s_l z_l / sum_l w_l`` with ``z_l`` the standardised EDR
        of lead ``l`` and ``s_l = ±1`` the sign of its inner product with the
        best lead's ``z``; the best lead keeps its sign.

    See Also
    --------
    edr.series_alignment.aligned_sum : the weighted, aligned average it uses.
    edr.fusion.panel_weights : the weights of the leads' pooled panels, which a fusion method
        fuses instead.

    Examples
    --------
    >>> import numpy as np
    >>> from edr.leads import LeadQuality, fuse_edrs
    >>> quality = {"II": LeadQuality("II", True, "", score=0.8),
    ...            "V2": LeadQuality("V2", True, "", score=0.4)}
    >>> b = np.sin(2 * np.pi * 0.25 * np.arange(240) / 4.0)
    >>> bool(np.corrcoef(fuse_edrs({"II": b, "V2": -b}, quality), b)[0, 1] > 0.99)  # V2 flipped
    True
    """
    names = [n for n in edrs if n in quality and quality[n].usable]
    if not names:
        raise SignalError("no usable lead to fuse: "
                          + "; ".join(f"{n}: {q.reason}" for n, q in quality.items()))
    lengths = {np.size(edrs[n]) for n in names}
    if len(lengths) != 1:
        raise ValueError(f"edrs must share one grid, got lengths {sorted(lengths)}")
    best = choose_lead({n: quality[n] for n in names})
    w = np.array([quality[n].score for n in names])
    if w.sum() <= 0:
        w = np.ones(len(names))
    centred = {n: np.asarray(edrs[n], dtype=float) - np.mean(edrs[n]) for n in names}
    fused, _, _ = aligned_sum(centred, dict(zip(names, w / w.sum(), strict=True)), best)
    return fused
