"""``python -m edr.extract record.dat`` (also ``edr extract``): EDR from one recording.

Reads the record (:func:`edr.io.read_record`), extracts the respiration
(:func:`edr.pipeline.extract_edr`), writes ``time_s,edr`` as CSV (default
``<record>_edr.csv`` in the current directory) and optionally a JSON summary
a figure, the breaths as CSV (``--breaths``) and as WFDB annotations
(``--breath-annotations``), and prints a short summary. When the record has a reference
respiration the summary scores the EDR against it by the evaluation protocol
(:func:`edr.scoring.score_reference`): its own respiration channel and breath annotations, or
files of one's own: ``--breath-times``, and ``--ref-file`` a respiration recorded apart
(:mod:`edr.io.reference_file`); ``--r-peaks`` gives the beats. With several records these name
each record's own file by an annotator name or a ``{record}`` pattern (:mod:`edr.io.side_files`).

Several records (or glob patterns, expanded here when the shell did not) run in one
process: ``python -m edr.extract a.dat b.dat 'data/*.hea' -o OUTDIR/`` writes
``OUTDIR/<record>_edr.csv`` (the single-record default name) and
``OUTDIR/<record>_edr.json`` per record, skips records whose outputs are complete
(unless ``--overwrite``), shows a progress bar on stderr, goes on past a failing
record and prints one table (record, duration, beats, sigma2, rate, status) at the
end; exit code 2 if any record failed (:mod:`edr.extract.many_records`).

``--demo`` needs no data: it simulates a 5-minute record with a known
respiration (:func:`edr.simulate.simulate_recording`), extracts, scores
against the truth and writes ``demo_output/edr_demo.{csv,json,png}``.

Bad input (missing or unreadable file, unknown channel, too few beats, an
unsupported sampling rate, a bad option value, an output path that cannot be
written) prints ONE line on stderr and exits with code 2; an unexpected
internal error prints one line and exits with code 1 (the protocol of every ``edr``
command line, :mod:`edr.cli_core`). Order of work:

1. options are parsed and checked against the known names (no heavy import:
   a bad option or a missing file fails in well under a second);
2. the record path is checked (:func:`edr.io.paths.check_record_path`) and
   every output target is checked (:func:`edr.io.targets.check_targets`: not a folder, not
   the input, not twice, its folder exists or can be created and is writable);
3. the record is read and the EDR extracted (NumPy, SciPy, wfdb, Numba are
   imported here; NeuroKit2 only by methods and detectors that need it);
4. all outputs are written to temporary files next to their targets, given
   the permissions of a file created under the user's umask, and renamed
   into place only when every one of them is complete: all outputs or none
   (:func:`edr.io.targets.write_all_or_none`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from edr.cli_core import OptionError, Parser, run_command
from edr.cli_options import (
    add_reference_options,
    check_choice,
    check_method,
    check_sigma2_option,
    finite_number,
    integer,
    n_support,
    rate_hz,
    sigma2_value,
    window_seconds,
)
from edr.extract import EXTRACT_FLAGS, PROG
from edr.extract.many_records import check_many_options, expand_records
from edr.extract.record import DEMO_DIR, DEMO_DURATION_S, PLOT_SUFFIXES, prepare, run_record
from edr.io.paths import formats_text
from edr.names import (
    DEFAULT_METHOD,
    DEFAULT_N_SUPPORT,
    DEFAULT_SIGMA2,
    MAX_WINDOW_S,
    METHOD_NAMES,
    MIN_WINDOW_S,
    SOLVER_NAMES,
    sigma2_help,
)

__all__ = ["build_parser", "main"]


def build_parser(prog: str = PROG) -> Parser:
    """The argument parser of the ``extract`` command."""
    p = Parser(
        prog=prog,
        description="Extract the respiration from an ECG recording (WFDB, EDF, CSV or NumPy).",
        epilog="Example: %(prog)s bidmc01.dat --plot bidmc01.png   |   %(prog)s --demo",
    )
    _add_record_options(p)
    _add_method_options(p)
    _add_figure_and_demo_options(p)
    return p


def _add_record_options(p: Parser) -> None:
    """The records and the CSV output."""
    p.add_argument("record", nargs="*", metavar="RECORD",
                   help=f"record file: {formats_text()}; any other a WFDB record (rec, "
                        "rec.hea, rec.dat); several records or glob "
                        "patterns ('data/*.hea') are processed two at a time, each into "
                        "OUTDIR/<record>_edr.csv and .json")
    p.add_argument("-o", "--output", metavar="OUT.csv|OUTDIR/",
                   help="EDR as CSV time_s,edr,rate_bpm,quality on the 4 Hz grid; rate_bpm is "
                        "empty (nan) where the quality is too low to give a rate (default: "
                        "<record>_edr.csv in the current directory); with several records a folder "
                        "(default: the current directory). A record's outputs are written once "
                        "complete, all or none (edr stream writes as it runs)")
    p.add_argument("--overwrite", action="store_true",
                   help="several records: recompute records whose outputs exist (default: skip "
                        "them, so an interrupted run resumes)")


def _add_method_options(p: Parser) -> None:
    """The method, its σ², the channels and leads, the windows and the solver."""
    p.add_argument("--method", default=DEFAULT_METHOD, metavar="NAME",
                   help=f"EDR method: {', '.join(METHOD_NAMES)} (default {DEFAULT_METHOD}: kernel "
                        "PCA components, R amplitude and QRS area fused by quality; kpca is the "
                        "first kernel principal component alone)")
    p.add_argument("--sigma2", type=sigma2_value, default=DEFAULT_SIGMA2, metavar="CRITERION|VALUE",
                   help=f"kernel width: a selection criterion ({sigma2_help()}) or a fixed "
                        f"value > 0 (default {DEFAULT_SIGMA2}; mdd is the paper's exact "
                        "selection)")
    p.add_argument("--channel", metavar="NAME",
                   help="ECG channel read as the record's lead (any case; default: the first "
                        "of II, MLII, ECG, ECG1, EKG, V, V1-V6, I, MLI, III, ... that exists); "
                        "the other ECG channels are read as further leads")
    add_reference_options(p)
    p.add_argument("--breath-times", metavar="FILE|PATTERN",
                   help="your own reference breath times, a text file: one time in seconds "
                        "from the record's first sample per line, or a column named time_s "
                        "(time_ms: milliseconds), as --breaths writes; in place of the record's "
                        "breath annotations, any format; with several records a pattern naming "
                        "each record's own: 'refs/{record}_breaths.csv' ({record}: the "
                        "record's name, {dir}: its folder)")
    p.add_argument("--r-peaks", metavar="FILE|PATTERN|ANNOTATOR",
                   help="your own R-peak times, used as the beats instead of detecting them "
                        "(each moved onto the R wave within 60 ms): a WFDB annotator (rec.qrs, "
                        "or 'atr' for the record's own rec.atr) or a text file of one time in "
                        "seconds per line, or a column time_s, time_ms or sample (samples at the "
                        "ECG's rate); with several records an annotator name (each record's "
                        "<record>.qrs) or a pattern: '{dir}/{record}_peaks.csv'. Every lead "
                        "takes them (a lead whose R waves they miss is left out): --lead NAME "
                        "uses them on one lead")
    _add_reference_file_options(p)
    p.add_argument("--fs", type=rate_hz, metavar="HZ",
                   help="sampling rate in Hz: needed for a CSV file without a time column and "
                        "for a .npy file; for other files it must agree with the rate they state")
    p.add_argument("--lead", metavar="NAME|auto|fuse|multilead",
                   help="lead used by the method: an ECG lead name of the record, 'auto' (the best "
                        "lead per window), 'fuse' (every usable lead, fused by quality) or "
                        "'multilead' (one kernel PCA of all leads' QRS complexes; kernel methods "
                        "only); default: fuse when the record has several ECG leads, else its "
                        "ECG lead")
    p.add_argument("--window", type=window_seconds, metavar="SECONDS",
                   help=f"process in sliding windows of this length, {MIN_WINDOW_S:g} to "
                        f"{MAX_WINDOW_S:g} s, overlapping by 25%% (sigma2 chosen per window; "
                        "default: the whole record as one window up to 600 s, longer records in "
                        "300 s windows); --solver fs2 fits one model to the whole record instead")
    p.add_argument("--solver", default="dense", metavar="|".join(SOLVER_NAMES),
                   help="kernel PCA solver: 'dense' (per window, default) or 'fs2' (one fixed-size "
                        "FS2 + Nystrom model over all beats of the whole record)")
    p.add_argument("--n-support", type=n_support, metavar="M",
                   help=f"--solver fs2: number of support vectors (default {DEFAULT_N_SUPPORT}, "
                        "at most the valid beats - 1)")


def _add_reference_file_options(p: Parser) -> None:
    """A reference respiration waveform from a file of its own (:mod:`edr.io.reference_file`)."""
    p.add_argument("--ref-file", metavar="FILE|PATTERN",
                   help="a reference respiration recorded apart (a belt, a spirometer): a CSV "
                        "file (a time column from 0 and the respiration, or one column and "
                        "--ref-fs), a WFDB record or an EDF file; scored against in place of the "
                        "record's own respiration channel (--ref-channel chooses its channel). "
                        "Its first sample is the ECG's first unless --ref-offset; refused when "
                        "the lengths differ by over 1 s + 1 %% or it overlaps the record by under "
                        "32 s. With several records a pattern: 'refs/{record}_belt.csv'")
    p.add_argument("--ref-offset", type=finite_number, metavar="SECONDS",
                   help="--ref-file: the time of its first sample in s after the ECG's first "
                        "(negative: before); default: the same first sample")
    p.add_argument("--ref-fs", type=rate_hz, metavar="HZ",
                   help="--ref-file: its sampling rate, for a CSV file without a time column")


def _add_figure_and_demo_options(p: Parser) -> None:
    """The figure and JSON outputs, the demo and the seed."""
    p.add_argument("--plot", metavar="OUT.png|OUT.html",
                   help="write the record figure: rate over the whole record with its quality "
                        "and the withheld or masked stretches, a representative minute of ECG "
                        "(every beat marked used or dropped) and of EDR vs reference, the scores "
                        "and the sigma2 choice; format from the suffix: "
                        f"{', '.join(PLOT_SUFFIXES)}; .html is an interactive view (zoom, "
                        "hover; needs the [html] extra)")
    p.add_argument("--json", metavar="OUT.json",
                   help="write a JSON summary (parameters, sigma2, beats, scores, breath counts "
                        "and intervals, pauses)")
    p.add_argument("--breaths", metavar="OUT.csv|OUTDIR/",
                   help="write the breaths as CSV, one row per breath: time_s (its end of "
                        "inspiration), onset_s (its start of inspiration, nan where none), "
                        "interval_s (nan after a gap), quality and the flags low_quality (kept "
                        "but not to be trusted), after_gap, after_pause (the interval before it "
                        "is a pause), uncertain_polarity as 1/0; with several records a folder: "
                        "OUTDIR/<record>_breaths.csv")
    p.add_argument("--breath-annotations", metavar="OUT.edrbr|OUTDIR/",
                   help="write the breaths as a WFDB annotation file (one annotation per breath "
                        "at its ECG sample, symbol '\"', aux_note 'q=<quality> <flags>'), read "
                        "by wfdb.rdann('OUT', 'edrbr'); the extension is the annotator's name; "
                        "with several records a folder: OUTDIR/<record>.edrbr")
    p.add_argument("--demo", action="store_true",
                   help=f"no data needed: simulate a {DEMO_DURATION_S / 60:g}-minute record with "
                        "known respiration, extract, compare with the truth, write "
                        f"{DEMO_DIR}/edr_demo.csv/.json/.png")
    p.add_argument("--seed", type=integer, default=0, metavar="INT",
                   help="random seed of the method's sigma2 selection and of the --demo record "
                        "(default 0); the same seed gives the same output")


def _check_extract_options(args) -> None:
    """Reject unknown names and option combinations before anything is read (no heavy import)."""
    check_method(args.method)
    check_choice("--solver", "solver", args.solver, SOLVER_NAMES)
    if args.n_support is not None and args.solver != "fs2":
        raise OptionError(f"--n-support applies to --solver fs2 only (got --solver {args.solver})")
    check_sigma2_option(args.sigma2)
    if args.demo:
        if args.record:
            raise OptionError(f"give either a record or --demo, not both (record {args.record!r})")
        given = (("--fs", args.fs), ("--ref-channel", args.ref_channel),
                 ("--annotator", args.annotator), ("--breath-label", args.breath_label),
                 ("--breath-times", args.breath_times), ("--r-peaks", args.r_peaks),
                 ("--ref-file", args.ref_file))
        for flag, value in given:
            if value is not None:
                raise OptionError(f"{flag} applies to a record file, not to --demo (scored "
                                  "against its simulated respiration)")
    elif not args.record:
        raise OptionError("a record file is required (or --demo)")
    _check_breath_times(args.breath_times)
    _check_ref_file(args)


def _check_breath_times(value: str | None) -> None:
    """``--breath-times`` names a file, or a pattern of files (:mod:`edr.io.side_files`; the
    file a pattern names is looked for when its record is read)."""
    if value is None:
        return
    from edr.io.side_files import side_file_form

    form = side_file_form(value)
    if form == "annotator":
        raise OptionError(f"--breath-times: no such file: {value}; for the record's own WFDB "
                          f"breath annotations use --annotator {value}")
    if form == "file" and not Path(value).is_file():
        raise OptionError(f"--breath-times: no such file: {value}")


def _check_ref_file(args) -> None:
    """``--ref-offset`` and ``--ref-fs`` go with ``--ref-file``, which names a file or a pattern
    (:mod:`edr.io.side_files`)."""
    if args.ref_file is None:
        for flag, value in (("--ref-offset", args.ref_offset), ("--ref-fs", args.ref_fs)):
            if value is not None:
                raise OptionError(f"{flag} applies to --ref-file (a reference respiration in a "
                                  "file of its own); give --ref-file FILE")
        return
    from edr.io.side_files import side_file_form

    if side_file_form(args.ref_file) != "pattern" and not Path(args.ref_file).exists():
        raise OptionError(f"--ref-file: no such file: {args.ref_file}")


def _extract(argv: list[str], prog: str) -> int:
    """Parse, check, and extract one record or several (steps 1-4 of the module docstring)."""
    args = build_parser(prog).parse_args(argv)
    records, any_glob = expand_records(args.record)
    if len(records) > 1 or any_glob:
        from edr.extract.many_records import run_many

        check_many_options(args, records)
        args.record = records[0]
        _check_extract_options(args)
        return run_many(args, records, argv, prog)
    args.record = records[0] if records else None
    _check_extract_options(args)
    lines = run_record(args, argv, prepare(args))
    print("\n".join(lines))
    return 0


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Command-line entry point; returns the exit code.

    0 ok; 2 bad input (options, record, output targets; one line on stderr, no
    output file); 1 an unexpected internal error (one line on stderr, no output
    file; set ``EDR_DEBUG=1`` for the traceback); 130 interrupted
    (:func:`edr.cli_core.run_command`).
    """
    return run_command(prog, lambda args: _extract(args, prog), argv, flags=EXTRACT_FLAGS)
