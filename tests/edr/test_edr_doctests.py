"""Run the ``Examples`` sections of the public ``edr`` entry points as doctests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["edr", "edr.gaps", "edr.pipeline", "edr.tables", "edr.names", "edr.cli_core", "edr.jobs",
           "edr.io.targets", "edr.io.paths", "edr.io.arrays", "edr.io.recording",
           "edr.io.reference", "edr.io.breath_times", "edr.io.r_peaks", "edr.io.side_files",
           "edr.io.reference_file", "edr.io.wfdb_reader",
           "edr.io.wfdb_samples", "edr.io.digital_lead", "edr.io.channels", "edr.io.integrity",
           "edr.io.download", "edr.io.datasets", "edr.stream.faults", "edr.stream.timestamps",
           "edr.stream.csv_rows", "edr.stream.sources", "edr.stream.sinks", "edr.stream.stopping",
           "edr.stream.session", "edr.stream.breaths", "edr.io.annotations", "edr.extract.summary",
           "edr.methods", "edr.methods.kernel_methods", "edr.methods.classic",
           "edr.methods.fused", "edr.methods.grid", "edr.rates", "edr.rate_spans",
           "edr.rate_spectra", "edr.fusion",
           "edr.cross_phase", "edr.series_alignment",
           "edr.signal", "edr.spectra", "edr.mains", "edr.leads", "edr.multilead", "edr.scoring",
           "edr.similarity", "edr.evaluate.agreement", "edr.evaluate.stats",
           "edr.evaluate.stat_results", "edr.evaluate.breaths",
           "edr.evaluate.cli",
           "edr.simulate.recording", "edr.simulate.scenarios", "edr.simulate.parameters",
           "edr.simulate.events", "edr.beats.detection", "edr.beats.mask", "edr.beats.polarity",
           "edr.io", "edr.io.edf_reader", "edr.io.csv_reader", "edr.io.writers", "edr.io.locks",
           "edr.io.time_axis", "edr.io.numpy_reader", "edr.io.ecg_matrix", "edr.result",
           "edr.jobs",
           "edr.windows", "edr.options", "edr.methods.kernel_options", "edr.methods.segment",
           "edr.pauses", "edr.breaths", "edr.breath_extrema", "edr.breath_rates",
           "edr.modulation", "edr.qrs_shape", "edr.polarity",
           "edr.stream.engine", "edr.stream.beats", "edr.record_figure", "edr.plots",
           "edr.figure_worker", "edr.plots_html", "edr.evaluate.report.write",
           "edr.dsp.filters", "edr.dsp.peaks", "edr.dsp.spectral", "edr.dsp.spline",
           "edr.dsp.moments", "edr.dsp.running"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder(exclude_empty=True).find(module, name, globs={})
    assert tests, f"{name} has no Examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name} (output above)"
