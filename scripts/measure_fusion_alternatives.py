"""The fused waveform's alternatives measured and rejected: other weights, other members, a
narrower waveform.

Each candidate re-fuses the cached window panels of the default extraction (centred QRS matrix,
``scripts/accuracy_cache.py``) of every shared BIDMC and MARSH record, then stitches, judges and
scores them by the protocol (MSC, |r|) against the reference, which no candidate sees:

* ``default``: ``edr.fusion.fuse`` as shipped (concentration⁴ × agreement weights, the heart
  rate rotated onto the morphology);
* ``max concentration``: the weights that maximise the spectral concentration of the weighted
  sum itself (the generalised eigenvector of the aligned members' cross-spectral matrices, power
  within ±0.05 Hz of each 64 s stretch's peak over the 0.05-1 Hz power: spatio-spectral
  decomposition), signed freely;
* ``max concentration, weights ≥ 0``: the same quotient maximised over non-negative weights
  (L-BFGS-B from the default's weights);
* ``weights per stretch``: the default's weights computed on every 64 s stretch
  (half-overlapping) and cross-faded (Hann), instead of one set per analysis window;
* ``weights per stretch, half the window's``: their mean with the window's weights;
* ``the more concentrated of fused and R amplitude``: per analysis window, the fused series or
  the aligned R amplitude, whichever has the larger local concentration;
* ``baseline wander added``: every lead's continuous baseline (the ECG through running medians
  of 0.2 s and 0.6 s, low-passed at 1.5 Hz, read on the 4 Hz grid: no beat sampling) added to
  the panel as a member of its own;
* ``narrowed to ±0.1 Hz``: the stitched waveform rebuilt from its short-time spectrum
  (64 s Hann stretches, half-overlapping) keeping only the bins within 0.1 Hz of each stretch's
  peak;
* ``envelope levelled over 16 s`` / ``64 s``: the stitched waveform divided by its running RMS
  (Hann-weighted over 16 s or 64 s): a time-varying gain, which can change the coherence where
  a filter cannot (the EDR's amplitude carries no calibrated volume).

Output: per database the median MSC / |r| and the number of records where the candidate's MSC
is above the R amplitude's, and every MARSH subject's MSC. With ``--spectra`` also, for the
named records (or simulated scenarios: ``--spectra ventilated``), the default's spectrum, the
reference's and their coherence bin by bin (Welch, the protocol's 32 s segments) over the
reference's rate ± 0.1 Hz (the bins the MSC averages) and where the breathing's harmonics fold
at the beat rate (``k``-th harmonic at ``|f_k - m f_HR|``, ``f_HR`` the median beat rate).

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/measure_fusion_alternatives.py [--spectra
bidmc07 bidmc09] --out scripts/output/measure_fusion_alternatives.md``
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

import numpy as np
import scipy.linalg as sla
import scipy.ndimage as ndi
import scipy.signal as ss
from _shared import write_markdown
from accuracy_cache import DEFAULT_CACHE, load_all, record_names
from measure_generalisation_loso import Out, Ref, database, figures
from measure_one_lead_healthy import candidate_rows
from scipy.optimize import minimize

from edr import extract_edr
from edr.cross_phase import phase_onto
from edr.dsp import spectral
from edr.fusion import (
    FUSION_POWER,
    HEART_SERIES,
    LOCAL_S,
    PHASE_MIN_LOCAL,
    WEIGHT_BAND_HZ,
    carried_band,
    carried_hz,
    fuse,
    local_concentration,
    standardised,
)
from edr.io import read_record
from edr.methods import MethodOutput
from edr.rates import RateSpan, judged_rates
from edr.scoring import reference_on_grid
from edr.series_alignment import shifted
from edr.signal import (
    BAND_HZ,
    WELCH_SEGMENT_S,
    bandpass,
)
from edr.similarity import MSC_HALF_WIDTH_HZ
from edr.simulate import simulate_scenario
from edr.spectra import CONCENTRATION_HALF_WIDTH_HZ, spectral_concentration
from edr.stitch import Stitcher

FS = 4.0
STRETCH = int(LOCAL_S * FS)
CHOSEN = []
"""Per analysis window of ``the more concentrated ...``: whether the R amplitude was chosen."""
CANDIDATES = ("default", "max concentration", "max concentration, weights ≥ 0",
              "weights per stretch", "weights per stretch, half the window's",
              "the more concentrated of fused and R amplitude", "baseline wander added",
              "narrowed to ±0.1 Hz", "envelope levelled over 16 s", "envelope levelled over 64 s")


def unit(x) -> np.ndarray:
    y = np.asarray(x, dtype=float)
    return y / y.std() if y.std() > 0 else y


def stretch_starts(n: int) -> list[int]:
    """Starts of the half-overlapping :data:`STRETCH`-point stretches covering ``n`` points."""
    starts = list(range(0, n - STRETCH + 1, STRETCH // 2))
    return starts + ([n - STRETCH] if starts[-1] != n - STRETCH else [])


def aligned_members(panel: dict, f) -> tuple[np.ndarray, list]:
    """The panel's series shifted and signed as the default sums them (unit variance)."""
    names = [k for k in panel if k in f.signs]
    return np.array([f.signs[k] * shifted(unit(panel[k]), f.lags[k]) for k in names]), names


def concentration_matrices(Y: np.ndarray, f0: np.ndarray, band) -> tuple:
    """Cross-spectral matrices of the rows of ``Y``: near each stretch's peak of ``f0`` (within
    the concentration's half-width) and over the protocol band, summed over the stretches."""
    seg = STRETCH // 2
    win = np.hanning(seg + 2)[1:-1]
    freqs = np.fft.rfftfreq(seg, 1 / FS)
    inband = (freqs >= BAND_HZ[0]) & (freqs <= BAND_HZ[1])
    search = (freqs >= band[0]) & (freqs <= band[1])
    k = Y.shape[0]
    near_m, band_m = np.zeros((k, k)), np.zeros((k, k))
    for s0 in stretch_starts(Y.shape[1]):
        S, P = np.zeros((k, k, freqs.size), complex), np.zeros(freqs.size)
        for a in range(s0, s0 + STRETCH - seg + 1, seg // 2):
            X = np.fft.rfft((Y[:, a:a + seg] - Y[:, a:a + seg].mean(1, keepdims=True)) * win)
            F = np.fft.rfft((f0[a:a + seg] - f0[a:a + seg].mean()) * win)
            S += np.einsum("if,jf->ijf", X, X.conj())
            P += np.abs(F) ** 2
        peak = freqs[search][np.argmax(P[search])]
        near = np.abs(freqs - peak) <= CONCENTRATION_HALF_WIDTH_HZ + 1e-9
        near_m += S[:, :, near].real.sum(-1)
        band_m += S[:, :, inband].real.sum(-1)
    return near_m, band_m + 1e-9 * np.trace(band_m) * np.eye(k)


def max_concentration(panel: dict, f, max_hz, nonneg: bool) -> np.ndarray:
    """The weighted sum of the aligned members whose concentration is largest."""
    Y, names = aligned_members(panel, f)
    if len(names) < 2 or Y.shape[1] < STRETCH:
        return f.series
    near, band = concentration_matrices(Y, f.series, carried_band(WEIGHT_BAND_HZ, max_hz))
    if nonneg:
        w0 = np.array([max(f.weights[k], 1e-3) for k in names])

        def minus_ratio(w):
            num, den = w @ near @ w, w @ band @ w
            return -num / den, -(2 * near @ w * den - 2 * band @ w * num) / den ** 2

        w = minimize(minus_ratio, w0 / w0.sum(), jac=True, bounds=[(0, 1)] * len(names),
                     method="L-BFGS-B").x
    else:
        w = sla.eigh(near, band)[1][:, -1]
    s = w @ Y
    return -s if np.dot(s, f.series) < 0 else s


def stretch_weights(X: np.ndarray, band) -> np.ndarray:
    """``edr.fusion.panel_weights`` of the rows of ``X`` (one stretch, one concentration)."""
    raw = spectral_concentration(X, FS, peak_band=band) ** FUSION_POWER
    Z = X - X.mean(1, keepdims=True)
    norm = np.sqrt((Z * Z).sum(1))
    Z = Z / np.where(norm > 0, norm, 1.0)[:, None]
    r = np.abs(Z @ Z.T)
    np.fill_diagonal(r, 0.0)
    others = raw.sum() - raw
    raw = raw * np.divide(r @ raw, others, out=np.zeros_like(raw), where=others > 0)
    return raw / raw.sum() if raw.sum() > 0 else np.full(raw.size, 1.0 / raw.size)


def per_stretch(panel: dict, f, max_hz, mix: float) -> np.ndarray:
    """The default's sum with weights computed per stretch and cross-faded."""
    names = list(panel)
    n = len(panel[names[0]])
    if n < 2 * STRETCH or len(names) < 2:
        return f.series
    X = np.array([np.asarray(panel[k], dtype=float) for k in names])
    win = np.hanning(STRETCH + 2)[1:-1]
    W, S = np.zeros(X.shape), np.zeros(n)
    for s in stretch_starts(n):
        W[:, s:s + STRETCH] += stretch_weights(X[:, s:s + STRETCH],
                                               carried_band(WEIGHT_BAND_HZ, max_hz))[:, None] * win
        S[s:s + STRETCH] += win
    W = mix * np.array([f.weights[k] for k in names])[:, None] + (1 - mix) * W / S
    heart = {k for k in names if k.rsplit("/", 1)[-1] in HEART_SERIES and k != f.best}
    heart_w = sum(f.weights[k] for k in heart)
    rotate = 0 < heart_w < 0.5 and n >= PHASE_MIN_LOCAL * STRETCH
    out = np.zeros(n)
    for i, k in enumerate(names):
        if k in f.signs and not (rotate and k in heart):
            out += W[i] * f.signs[k] * shifted(unit(panel[k]), f.lags[k])
    ref = out.copy()
    for i, k in enumerate(names):
        if rotate and k in heart:
            out += W[i] * phase_onto(unit(panel[k]), ref, FS, LOCAL_S)
    return out


def more_concentrated(panel: dict, f, max_hz) -> np.ndarray:
    """The fused series or the aligned R amplitude, whichever is more concentrated."""
    ramp = [k for k in panel if k.rsplit("/", 1)[-1] == "r_amplitude" and k in f.signs]
    cands = [f.series] + [f.signs[k] * shifted(unit(panel[k]), f.lags[k]) for k in ramp]
    c = local_concentration(np.array(cands), FS, band=carried_band(WEIGHT_BAND_HZ, max_hz))
    CHOSEN.append(int(np.argmax(c)) > 0)
    return cands[int(np.argmax(c))]


def narrowed(x: np.ndarray, half_hz: float = 0.1) -> np.ndarray:
    """``x`` rebuilt from the bins of its short-time spectrum within ``half_hz`` of each
    stretch's peak (Hann stretches, half-overlapping, weighted overlap-add; ends mirrored)."""
    ok = np.isfinite(x)
    y0 = np.where(ok, x, 0.0)
    if y0.size < STRETCH:
        return x
    h = STRETCH // 2
    y = np.concatenate([y0[h:0:-1], y0, y0[-2:-h - 2:-1]])
    win = np.hanning(STRETCH + 1)[:-1]
    freqs = np.fft.rfftfreq(STRETCH, 1 / FS)
    search = (freqs >= WEIGHT_BAND_HZ[0]) & (freqs <= WEIGHT_BAND_HZ[1])
    out, wsum = np.zeros(y.size), np.zeros(y.size)
    for s in stretch_starts(y.size):
        X = np.fft.rfft(y[s:s + STRETCH] * win)
        peak = freqs[search][np.argmax(np.abs(X[search]))]
        out[s:s + STRETCH] += np.fft.irfft(np.where(np.abs(freqs - peak) <= half_hz, X, 0),
                                           STRETCH) * win
        wsum[s:s + STRETCH] += win ** 2
    return np.where(ok, (out / np.maximum(wsum, 1e-12))[h:h + y0.size], np.nan)


def levelled(x: np.ndarray, span_s: float) -> np.ndarray:
    """``x`` divided by its running RMS over a Hann window of ``span_s`` (missing samples
    ignored)."""
    ok = np.isfinite(x)
    y = np.where(ok, x, 0.0)
    w = np.hanning((int(span_s * FS) | 1) + 2)[1:-1]
    power = ss.fftconvolve(y ** 2, w, mode="same") / np.maximum(
        ss.fftconvolve(ok.astype(float), w, mode="same"), 1e-9)
    return np.where(ok, y / np.sqrt(np.maximum(power, 1e-30)), np.nan)


def baseline_wander(path: str, grid: np.ndarray) -> dict:
    """Every lead's continuous baseline on ``grid``: running medians of 0.2 s and 0.6 s,
    low-passed at 1.5 Hz (zero phase)."""
    rec = read_record(path[:-4] + ".hea")
    out = {}
    for lead, ecg in rec.leads.items():
        x = np.nan_to_num(np.asarray(ecg, dtype=float))
        b = ndi.median_filter(x, int(0.2 * rec.fs) | 1, mode="nearest")
        b = ndi.median_filter(b, int(0.6 * rec.fs) | 1, mode="nearest")
        b = ss.sosfiltfilt(ss.butter(4, 1.5, fs=rec.fs, output="sos"), b)
        out[lead] = np.interp(grid, np.arange(x.size) / rec.fs, b)
    return out


def with_wander(panel: dict, wander: dict, times: np.ndarray, grid: np.ndarray) -> dict:
    idx = np.searchsorted(grid, times)
    multi = any("/" in k for k in panel)
    p = dict(panel)
    for lead, b in wander.items():
        if not multi or any(k.startswith(lead + "/") for k in panel):
            p[f"{lead}/bw" if multi else "bw"] = standardised(b[idx])
    return p


def fused(candidate: str, panel: dict, beats, context: dict) -> np.ndarray:
    """One analysis window's series under ``candidate``."""
    max_hz = carried_hz(beats)
    if candidate == "baseline wander added":
        panel = with_wander(panel, context["wander"], context["times"], context["grid"])
    f = fuse(panel, FS, max_hz=max_hz)
    if candidate.startswith("max concentration"):
        return max_concentration(panel, f, max_hz, nonneg=candidate.endswith("≥ 0"))
    if candidate.startswith("weights per stretch"):
        return per_stretch(panel, f, max_hz, 0.5 if candidate.endswith("window's") else 0.0)
    if candidate.startswith("the more concentrated"):
        return more_concentrated(panel, f, max_hz)
    return f.series


def run(rec: dict, candidate: str, path: str) -> dict:
    """Stitch, judge and score one record's cached windows under ``candidate``."""
    grid = rec["grid"]
    context = {"grid": grid}
    if candidate == "baseline wander added":
        context["wander"] = baseline_wander(path, grid)
    stitcher, spans = Stitcher(grid, FS, True), []
    for w, wa in rec["windows"]["centred"]:
        context["times"] = wa.output.times
        series = fused(candidate, wa.panel, wa.segment.beat_times[wa.segment.valid], context)
        out = MethodOutput(wa.output.times, series, "grid", None, None, {}, wa.panel, wa.weights)
        wa = replace(wa, output=out, series=series)
        stitcher.add(w, wa)
        spans.append(RateSpan.of(w, wa))
    wave = stitcher.finish().waveform
    if candidate.startswith("narrowed"):
        wave = narrowed(wave)
    if candidate.startswith("envelope levelled"):
        wave = levelled(wave, float(candidate.split()[-2]))
    rates = judged_rates(wave, grid, spans, FS)
    return figures(Out(grid, wave, rates.rate_bpm, rates.raw_bpm), Ref(rec["reference"]),
                   rec["plan"])


def table(records: dict, paths: dict) -> list[str]:
    res = {c: {n: run(r, c, paths[n]) for n, r in records.items()} for c in CANDIDATES}
    lines = candidate_rows(res, records)
    bidmc = [n for n in records if database(n) == "BIDMC"]
    moved = {c: sorted((res[c][n]["msc"] - res["default"][n]["msc"], n) for n in bidmc)
             for c in CANDIDATES[1:]}
    lines += ["", "BIDMC records that moved most (MSC against the default):", ""]
    lines += [f"- {c}: " + ", ".join(f"{n} {d:+.2f}" for d, n in (m[:2] + m[-2:]))
              for c, m in moved.items()]
    return lines + ["", f"The more concentrated of fused and R amplitude: the R amplitude in "
                        f"{sum(CHOSEN)} of {len(CHOSEN)} analysis windows.", ""]


def spectra(name: str, path: str | None) -> list[str]:
    """The default's and the reference's spectra and coherence over the MSC's bins of one
    record (``path`` None: ``name`` is a scenario of ``edr.simulate``, 8 min at 300 Hz, one
    lead), and the folded harmonics of the breathing within 0.2 Hz of its rate."""
    rec = (read_record(path[:-4] + ".hea") if path else
           simulate_scenario(name, duration_s=480.0, fs=300.0, leads=("II",), random_state=0))
    res = extract_edr(rec)
    x = np.nan_to_num(np.asarray(res.waveform, dtype=float))
    y = bandpass(reference_on_grid(rec.resp, rec.resp_fs, res.time), fs=FS)
    n = int(WELCH_SEGMENT_S * FS)
    f, p_ref = spectral.welch(y, FS, n)
    p_edr = spectral.welch(x, FS, n)[1]
    coh = spectral.coherence(x, y, FS, n)[1]
    inband = (f >= BAND_HZ[0]) & (f <= BAND_HZ[1])
    k = int(np.argmax(np.where(inband, p_ref, 0)))
    f_hr = 1.0 / np.median(np.diff(res.beat_times))
    fine = np.fft.rfftfreq(16 * y.size, 1 / FS)
    spec = np.abs(np.fft.rfft(y * np.hanning(y.size), 16 * y.size))
    f_r = fine[np.argmax(np.where((fine >= BAND_HZ[0]) & (fine <= BAND_HZ[1]), spec, 0))]
    folds = sorted({round(abs(h * f_r - m * f_hr), 3) for h in range(2, 9) for m in (1, 2, 3)
                    if h * f_r > f_hr / 2 and abs(abs(h * f_r - m * f_hr) - f_r) <= 0.2})
    folded = ", ".join(f"{v:.3f}" for v in folds) or "-"
    lines = [f"**{name}**: reference rate {f_r:.3f} Hz, beat rate {f_hr:.3f} Hz; harmonics "
             f"folded within 0.2 Hz of the rate at {folded} Hz",
             "", "| Hz | reference (dB) | default (dB) | coherence |", "|---|---|---|---|"]
    for i in np.flatnonzero(np.abs(f - f[k]) <= MSC_HALF_WIDTH_HZ + 1e-12):
        lines.append(f"| {f[i]:.3f} | {10 * np.log10(p_ref[i] / p_ref[k]):.0f} | "
                     f"{10 * np.log10(p_edr[i] / p_edr.max()):.0f} | {coh[i]:.2f} |")
    return lines + [""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="scripts/output/measure_fusion_alternatives.md")
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    ap.add_argument("--spectra", nargs="*", default=[],
                    help="records (or simulated scenarios, e.g. ventilated) whose spectra to print")
    args = ap.parse_args(argv)
    paths = record_names(os.environ["EDR_DATA_DIR"])
    spectra_opt = f" --spectra {' '.join(args.spectra)}" if args.spectra else ""
    lines = ["# The fused waveform's alternatives (in-sample: none has a tuned constant)", "",
             f"Command: `python scripts/measure_fusion_alternatives.py{spectra_opt} --out "
             f"{args.out}`", ""]
    lines += table(load_all(args.cache_dir), paths)
    for name in args.spectra:
        lines += spectra(name, paths.get(name))
    return write_markdown(args.out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
