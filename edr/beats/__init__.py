"""R peaks, polarity, sub-sample alignment and beat quality flags.

Pipeline of :func:`detect`:

1. **Masking.** NaN samples and flat runs (the signal constant for at least
   ``flat_s`` seconds: a disconnected or saturated lead) are masked. Detection
   runs on each unmasked stretch separately, so masked samples never reach
   NeuroKit2 and peaks cannot fall inside them.
2. **Polarity.** NeuroKit2's ``ecg_invert`` rule decides (on the cleaned,
   concatenated unmasked samples) whether the lead is inverted; an inverted
   lead is multiplied by -1 before detection and ``Beats.polarity`` is -1.
   The rule (median over all 2 s windows of the largest-magnitude sample) is
   evaluated with running maxima in O(n) memory; the decision is
   ``nk.ecg_invert``'s (tested against it).
3. **Detection.** ``nk.ecg_clean`` then ``nk.ecg_peaks`` with the chosen
   ``method`` (any NeuroKit2 detector name). The lead is cleaned once and the
   cleaned signal reused by every later step. The default ``neurokit`` cleaning is
   NeuroKit2's recipe with its moving average exactly :data:`SMOOTHING_S` long at
   every rate; identical to ``nk.ecg_clean`` at multiples of 50 Hz. Unmasked stretches
   longer than :data:`CHUNK_S` are cleaned and searched in chunks with
   :data:`CHUNK_OVERLAP_S` margins (only each chunk's core keeps its peaks),
   so NeuroKit2 never sees a whole day. Each peak is moved to the local maximum of
   the cleaned signal within ±100 ms after removing the detector's median delay
   (Pan–Tompkins, Hamilton and Elgendi mark the peak of a filtered signal).
4. **Sub-sample alignment.** Every beat is upsampled ``upsample`` times
   (polyphase FIR, :func:`scipy.signal.resample_poly`) over R ± ``align_half_s``
   and cross-correlated (Pearson, so amplitude modulation does not bias the lag)
   with the median template over lags of ±``max_lag_s``; the best lag is refined
   by a parabola through the three highest correlations. Two passes (the second
   template is built from the beats shifted by the first pass). The peak
   position is then the template's own maximum (also parabola-refined) carried
   to each beat. Beats are processed in blocks (memory bounded on a whole
   day) and the template is the median of at most :data:`TEMPLATE_MAX_BEATS`
   evenly spread beats (a subset only shifts every peak by one common
   sub-sample offset).
5. **Quality flags** (``valid`` is False for any of them):

   * *ectopic*: RR-based, the classic short–long pattern of a premature beat —
     ``RR_before < 0.8 m`` and ``RR_after > 1.1 m`` with ``m`` the median of
     the 11 RR intervals around the beat;
   * *artifact*: correlation with the template below ``min_template_corr``;
     R amplitude (cleaned signal) outside ``[0.4, 2.5]`` times the running
     median of 11 beats; or *clipped* — a sample within R ± 60 ms that sits at
     the lead's extreme value (its maximum or minimum) in a run of at least 2
     equal samples — while clipped beats are fewer than ``max_clipped_fraction``
     of all beats.

The measurements behind the default detector, the smoothing length, the chunking, the
alignment and the clipping policy: ``docs/studies/beat_detection.md``.
"""

from __future__ import annotations

from edr.beats.chunks import CHUNK_OVERLAP_S, CHUNK_S
from edr.beats.detection import DEFAULT_DETECTOR, FS_RANGE, MIN_BEATS, Beats, detect
from edr.beats.mask import signal_mask, true_runs
from edr.beats.polarity import inversion_values, inverted_by
from edr.beats.twins import SMOOTHING_S

__all__ = ["Beats", "CHUNK_OVERLAP_S", "CHUNK_S", "DEFAULT_DETECTOR", "FS_RANGE", "MIN_BEATS",
           "SMOOTHING_S", "detect", "inversion_values", "inverted_by", "signal_mask", "true_runs"]
