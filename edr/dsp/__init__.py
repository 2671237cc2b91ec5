"""SciPy's signal steps that the default path needs, written with NumPy alone.

``scipy.signal``, ``scipy.stats`` and ``scipy.interpolate`` each take a second or more to import
(SciPy 1.17 parses every public function's docstring at import;
``docs/studies/import_diet.md``), longer than the EDR of a record takes; ``scipy.ndimage``
as long as the beat detection (``docs/studies/first_run.md``). The few of their
functions that :mod:`edr` runs on every record are written here, each tested against SciPy itself
(``tests/edr/test_dsp_*.py``):

* :mod:`edr.dsp.filters`: Butterworth designs as second-order sections (``butter``), the
  notch (``iirnotch``), the windowed-sinc low-pass (``firwin``), the filters' steady states
  (``sosfilt_zi``, ``lfilter_zi``);
* :mod:`edr.dsp.peaks`: local maxima and their prominences (``find_peaks``);
* :mod:`edr.dsp.spectral`: the periodic Hann window, Welch's PSD, the cross-spectrum and the
  coherence (``welch``, ``csd``, ``coherence``);
* :mod:`edr.dsp.spline`: the not-a-knot cubic interpolating spline (``CubicSpline``);
* :mod:`edr.dsp.moments`: the skewness and the one-sample t test (``skew``, ``ttest_1samp``);
* :mod:`edr.dsp.running`: ``scipy.ndimage``'s running mean, sliding maximum and minimum and
  running median (``uniform_filter1d``, ``maximum_filter1d``, ``minimum_filter1d``,
  ``median_filter``).

The modules import NumPy (and the cheap ``scipy.fft``, ``scipy.linalg`` and ``scipy.special``)
only, and compile nothing.
"""
