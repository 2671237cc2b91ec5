"""Per-record scores of one fixed fusion and rate configuration, cached on disk.

A configuration (:data:`KEYS`) re-fuses the cached window panels of a record
(``scripts/accuracy_cache.py``) with ``edr.fusion.fuse``, stitches them (``edr.stitch.Stitcher``),
judges the rate windows (``edr.rates.judged_rates``) and scores the result by the protocol
(``edr.scoring.score``). A configuration learns nothing from other records, so its
per-record scores are computed once and every choice among configurations (plain or nested
leave-one-subject-out, ``scripts/measure_nested_loso.py``) is arithmetic on them. The quality
threshold is applied when the scores are read (:func:`rates_at`), so it is no part of the key.

The cache file of a configuration is named by a hash of the configuration and of the source of
the library modules that turn panels into scores (:data:`CODE`): a change to them computes the
scores again.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from dataclasses import replace
from pathlib import Path

import numpy as np
from accuracy_cache import DEFAULT_CACHE
from measure_generalisation_loso import Out, Ref, figures

from edr.breath_rates import counted_rates
from edr.fusion import HEART_SERIES, carried_hz, fuse
from edr.methods import MethodOutput
from edr.pipeline import EDRResult
from edr.rates import RateSpan, judged_rates, window_starts
from edr.signal import NYQUIST_MARGIN_BPM, RATE_WINDOW_S, carried_bpm
from edr.stitch import Stitcher

KEYS = ("baseline", "rsa", "local_s", "consensus", "power", "max_lag_s", "anchor", "tilt",
        "carried", "components", "heart_phase", "counted")
"""A configuration: the QRS matrix ``baseline`` of the kernel components (an analysis of the
cache), ``rsa`` (the heart rate in the panel), ``local_s``, ``consensus``, ``power`` (the
weighting), ``max_lag_s`` and ``anchor`` (``"heaviest"`` or ``"morphology"``: the alignment),
``tilt`` (the rate periodogram), ``carried`` (rates and weights limited to what the beats carry),
``components`` (kernel components kept in the panel, at most the analysis' three),
``heart_phase`` (the heart rate rotated onto the morphology, ``edr.fusion.fuse``'s ``phase``) and
``counted`` (the rates chosen by the EDR's breaths, ``edr.breath_rates.counted_rates``)."""
CODE = ("edr/fusion.py", "edr/cross_phase.py", "edr/rates.py", "edr/stitch.py", "edr/signal.py",
        "edr/breath_rates.py", "edr/breaths.py", "edr/breath_extrema.py", "edr/polarity.py",
        "scripts/nested_scores.py")
"""Sources whose text enters the cache key (read once, at import: the code this process runs)."""
ROOT = Path(__file__).resolve().parents[1]
_CODE_HASH = hashlib.sha1(b"".join((ROOT / name).read_bytes() for name in CODE)).hexdigest()


def key(cfg: dict) -> str:
    """Cache key of a configuration: a hash of its values and of :data:`CODE`'s text."""
    return hashlib.sha1(json.dumps([cfg[k] for k in KEYS] + [_CODE_HASH]).encode()
                        ).hexdigest()[:16]


def panel_of(wa, cfg: dict) -> dict:
    """The window's panel without the series ``cfg`` leaves out (heart rate, components)."""
    out = {}
    for name, v in wa.panel.items():
        base = name.rsplit("/", 1)[-1]
        if base in HEART_SERIES and not cfg["rsa"]:
            continue
        if base.startswith("kpca_") and int(base[5:]) > cfg["components"]:
            continue
        out[name] = v
    return out


def run(rec: dict, cfg: dict) -> dict:
    """Fuse, stitch, judge (threshold 0: every raw rate with its quality) and score one
    record's cached windows under ``cfg``."""
    grid = rec["grid"]
    stitcher = Stitcher(grid, 4.0, True)
    spans = []
    for w, wa in rec["windows"][cfg["baseline"]]:
        panel = panel_of(wa, cfg)
        beats = wa.segment.beat_times[wa.segment.valid]
        fused = fuse(panel, 4.0, power=cfg["power"], local_s=cfg["local_s"],
                     consensus=cfg["consensus"], max_lag_s=cfg["max_lag_s"],
                     delayed=HEART_SERIES if cfg["anchor"] == "morphology" else (),
                     max_hz=carried_hz(beats) if cfg["carried"] else None,
                     phase=cfg["heart_phase"])
        out = MethodOutput(wa.output.times, fused.series, "grid", wa.output.sigma2, None, {},
                           panel, fused.weights)
        wa = replace(wa, output=out, series=fused.series, panel=panel, weights=fused.weights)
        stitcher.add(w, wa)
        span = RateSpan.of(w, wa)
        spans.append(span if cfg["carried"] else replace(span, beat_times=None))
    stitched = stitcher.finish()
    rates = judged_rates(stitched.waveform, grid, spans, 4.0, threshold=0.0, tilt=cfg["tilt"])
    raw = counted(grid, stitched, rates, cfg["tilt"]) if cfg.get("counted") else rates.raw_bpm
    res = Out(grid, stitched.waveform, raw, raw)
    f = figures(res, Ref(rec["reference"]), rec["plan"])
    f["quality"] = rates.quality
    f["half_hr"] = half_heart_rate(rec, grid)
    return f


def counted(grid, stitched, rates, tilt: float) -> np.ndarray:
    """Every rate window's raw rate chosen by the breaths of the stitched EDR
    (:func:`edr.breath_rates.counted_rates`, as the extraction chooses its given rates; the
    breaths found with every window rated, so a shallow breath inside a pause that the
    extraction's withheld windows would leave out may count here)."""
    res = EDRResult(time=grid, waveform=stitched.waveform, fs=4.0, beat_times=stitched.beat_times,
                    beat_values=stitched.beat_values, rate_time=rates.time,
                    rate_bpm=rates.raw_bpm, method="kpca_fusion", lead="", sigma2=None,
                    selection=None, windows=[], n_beats=0, n_beats_dropped=0, params={},
                    rate_quality=rates.quality)
    return counted_rates(stitched.waveform, rates.raw_bpm, rates.time, res.breaths.time,
                         stitched.beat_times, fs=4.0, t0=float(grid[0]), tilt=tilt)


def half_heart_rate(rec: dict, grid) -> np.ndarray:
    """Half the valid beats' rate (bpm) in each rate window of the record (the limit of
    :func:`edr.signal.carried_bpm` without its margin), from every analysis window's beats."""
    analyses = next(iter(rec["windows"].values()))
    beats = np.unique(np.round(np.concatenate(
        [wa.segment.beat_times[wa.segment.valid] for _, wa in analyses]), 2))
    starts = grid[0] + window_starts(grid.size, 4.0) / 4.0
    return carried_bpm(beats, starts, RATE_WINDOW_S) + NYQUIST_MARGIN_BPM


def rates_at(f: dict, threshold: float) -> np.ndarray:
    """The record's judged rates at a quality ``threshold`` (NaN below it)."""
    return np.where(f["quality"] >= threshold, f["raw_bpm"], np.nan)


class Scores:
    """Per-record scores of configurations: computed on demand (:func:`run`), kept in memory
    and in ``cache_dir/scores``."""

    def __init__(self, records: dict, cache_dir: str = DEFAULT_CACHE, log=None):
        self.records = records
        self.dir = os.path.join(cache_dir, "scores")
        os.makedirs(self.dir, exist_ok=True)
        self.memory: dict = {}
        self.log = log

    def __call__(self, cfg: dict) -> dict:
        k = key(cfg)
        if k not in self.memory:
            file = os.path.join(self.dir, f"{k}.pkl")
            if os.path.exists(file):
                with open(file, "rb") as fh:
                    self.memory[k] = pickle.load(fh)
            else:
                self.memory[k] = {n: run(r, cfg) for n, r in self.records.items()}
                with open(file + ".part", "wb") as fh:
                    pickle.dump(self.memory[k], fh)
                os.replace(file + ".part", file)
                if self.log:
                    self.log(f"computed {cfg}")
        return self.memory[k]
