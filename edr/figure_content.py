"""What the record figure holds, apart from how it is computed: its series, panels and content
(:class:`RecordFigure`), and the colours, marks and sizes every renderer shares.

:func:`edr.record_figure.record_figure` fills a :class:`RecordFigure`; :mod:`edr.plots` and
:mod:`edr.plots_html` draw one. Importing this module imports NumPy alone, so a process that
only draws (:class:`edr.figure_worker.FigureWorker`) does not load the pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["BEAT_FATES", "BREATH_MARKS", "COLOURS", "MAX_POINTS", "MINUTE_S", "RecordFigure",
           "Series", "Sigma2Panel"]

#: Colours shared by every renderer.
COLOURS = {"used": "#1a9850", "ectopic": "#fc8d59", "artefact": "#d73027", "edr": "#2166ac",
           "reference": "#4d4d4d", "withheld": "#d9d9d9", "withheld_bar": "#999999",
           "shown": "#fee08b", "breath": "#762a83", "breath_low": "#969696", "pause": "#c6dbef"}

#: Fate of a detected beat -> (legend text, marker, colour).
BEAT_FATES = {
    "used": ("beat used by the EDR", "o", COLOURS["used"]),
    "ectopic": ("beat dropped: ectopic (premature)", "^", COLOURS["ectopic"]),
    "artefact": ("beat dropped: artefact or clipped", "x", COLOURS["artefact"]),
}
#: Kind of breath -> (legend text, marker, colour): kept, or kept but low quality.
BREATH_MARKS = {
    "kept": ("breath (end of inspiration)", "v", COLOURS["breath"]),
    "low_quality": ("breath of low quality (kept, not to be trusted)", "v", COLOURS["breath_low"]),
}
#: Length (s) of the zoomed stretch.
MINUTE_S = 60.0
#: Most points a drawn series keeps (:func:`envelope`).
MAX_POINTS = 4000


@dataclass(frozen=True)
class Series:
    """One drawn series: ``x`` (s), ``y`` and its legend text."""

    x: np.ndarray
    y: np.ndarray
    label: str


@dataclass(frozen=True)
class Sigma2Panel:
    """How σ² was chosen.

    ``kind`` is ``"per-window"`` (``curve`` is σ² against window centre),
    ``"curve"`` (``curve`` is the selection criterion against σ², ``chosen`` the
    chosen point) or ``"none"`` (``message`` says why there is nothing to draw).
    """

    kind: str
    title: str = ""
    curve: Series | None = None
    chosen: Series | None = None
    xlabel: str = ""
    ylabel: str = ""
    message: str = ""


@dataclass(frozen=True)
class RecordFigure:
    """Everything the record figure shows (built by :func:`record_figure`).

    ``spans`` maps a kind (``"withheld"``, ``"masked"``, ``"skipped"``) to its
    legend text and its ``(start_s, end_s)`` stretches, adjacent ones merged.
    ``beats`` maps each fate of :data:`BEAT_FATES` to the beats' times and ECG
    values in the minute, the legend text counting them. ``breaths`` maps each kind of
    :data:`BREATH_MARKS` to the times of the breaths in the minute and the drawn EDR there;
    ``pauses`` is the legend text and the ``(start_s, end_s)`` of every pause of the record
    (:attr:`edr.breaths.Breaths.pauses`).
    """

    title: str
    duration_s: float
    minute: tuple[float, float]
    overview_title: str
    rate: Series
    ref_rate: Series | None
    spans: dict
    quality_title: str
    quality_time: np.ndarray
    quality: np.ndarray
    threshold: float
    ecg_title: str
    ecg: Series
    beats: dict
    edr_title: str
    edr: Series
    ref: Series | None
    beat_values: Series
    score_lines: list
    sigma2: Sigma2Panel
    breaths: dict = field(default_factory=dict)
    pauses: tuple = ("", ())
