"""A method's series on the segment's uniform output grid.

Beat-sampled series are put on the grid by the cubic spline of
:func:`edr.signal.to_uniform_grid`; series already on the grid are taken as they are.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from edr.methods.segment import MethodOutput, Segment
from edr.signal import to_uniform_grid

__all__ = ["beat_series_on_grid", "series_on_grid"]

def series_on_grid(seg: Segment, out: MethodOutput) -> np.ndarray:
    """``out`` on the segment's grid: as is for ``kind="grid"``, else the cubic spline of
    :func:`edr.signal.to_uniform_grid` over ``seg.grid`` (held constant beyond the end beats).

    See Also
    --------
    beat_series_on_grid, edr.signal.to_uniform_grid

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import r_amplitude_edr, series_on_grid
    >>> series_on_grid(seg, r_amplitude_edr(seg)).shape
    (240,)
    """
    if out.kind == "grid":
        return np.asarray(out.values, dtype=float)
    _, y = to_uniform_grid(out.times, out.values, fs=seg.fs_out, t_start=seg.grid[0],
                           t_end=seg.grid[0] + (seg.grid.size - 1) / seg.fs_out)
    return y


def beat_series_on_grid(seg: Segment, series: Mapping[str, MethodOutput]) -> dict:
    """:func:`series_on_grid` of several beat-sampled series, one spline per set of series
    sampled at the same times; the series with fewer than 4 finite samples are left out.

    See Also
    --------
    series_on_grid

    Examples
    --------
    >>> import numpy as np
    >>> from edr.beats import detect
    >>> from edr.methods import Segment
    >>> from edr.simulate import simulate_recording
    >>> rec = simulate_recording(duration_s=60.0, fs=250.0, random_state=0)
    >>> seg = Segment(rec.ecg, rec.fs, 0.0, detect(rec.ecg, rec.fs), np.arange(240) / 4.0)
    >>> from edr.methods import beat_series_on_grid, qrs_area_edr, r_amplitude_edr
    >>> grid = beat_series_on_grid(seg, {"r": r_amplitude_edr(seg), "area": qrs_area_edr(seg)})
    >>> {name: v.shape for name, v in grid.items()}
    {'r': (240,), 'area': (240,)}
    """
    groups: dict = {}
    for key, out in series.items():
        groups.setdefault(np.asarray(out.times, dtype=float).tobytes(), []).append(key)
    grid = {}
    for keys in groups.values():
        t = np.asarray(series[keys[0]].times, dtype=float)
        values = np.column_stack([series[k].values for k in keys])
        if np.isfinite(values).all(axis=1).sum() < 4:
            continue
        _, y = to_uniform_grid(t, values, fs=seg.fs_out, t_start=seg.grid[0],
                               t_end=seg.grid[0] + (seg.grid.size - 1) / seg.fs_out)
        grid.update({k: y[:, i] for i, k in enumerate(keys)})
    return grid
