"""``python -m edr.extract record.dat`` (also ``edr extract``): EDR from one recording.

Reads the record (:func:`edr.io.read_record`), extracts the respiration
(:func:`edr.pipeline.extract_edr`), writes ``time_s,edr`` as CSV (default
``<record>_edr.csv`` in the current directory) and optionally a JSON summary
and a figure, and prints a short summary. When the record has a reference
respiration the summary scores the EDR against it by the evaluation protocol
(:func:`edr.evaluate.metrics.score`).

``--demo`` needs no data: it simulates a 5-minute record with a known
respiration (:func:`edr.simulate.simulate_recording`), extracts, scores
against the truth and writes ``demo_output/edr_demo.{csv,json,png}``.

Bad input (missing or unreadable file, unknown channel, too few beats, an
unsupported sampling rate, a bad option value) prints ONE line on stderr and
exits with code 2; output files are written only after the extraction has
succeeded, each atomically, so no partial file is left behind.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from edr.errors import EDRError

__all__ = ["build_parser", "main"]

#: Records at least this long (s) show a progress bar on stderr.
PROGRESS_MIN_DURATION_S = 1800.0
#: The ``--demo`` record: duration (s) and sampling rate (Hz).
DEMO_DURATION_S = 300.0
DEMO_FS = 250.0
DEMO_DIR = Path("demo_output")


class _OptionError(ValueError):
    """A bad command-line option (raised instead of argparse's usage-and-exit)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 2, like every other bad input
        raise _OptionError(message)


def _sigma2(text: str) -> str | float:
    """``--sigma2``: a criterion key, or a positive number."""
    try:
        value = float(text)
    except ValueError:
        return text
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a criterion name or a number > 0, got {text!r}")
    return value


def _window(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def _n_support(text: str) -> int:
    """``--n-support``: an integer >= 2 (the upper bound, the beat count, is checked by the pipeline)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be an integer >= 2, got {text!r}")
    return value


def build_parser(prog: str = "python -m edr.extract") -> argparse.ArgumentParser:
    """The argument parser of the ``extract`` command."""
    p = _Parser(
        prog=prog,
        description="Extract the respiration from an ECG recording (WFDB, EDF or CSV).",
        epilog="Example: %(prog)s bidmc01.dat --plot bidmc01.png   |   %(prog)s --demo",
    )
    p.add_argument("record", nargs="?", help="record file: WFDB (rec, rec.hea, rec.dat), .edf or .csv")
    p.add_argument("-o", "--output", metavar="OUT.csv",
                   help="EDR waveform as CSV time_s,edr (default: <record>_edr.csv in the current directory)")
    p.add_argument("--method", default="kpca", help="EDR method (default kpca; see edr.methods.METHODS)")
    p.add_argument("--sigma2", type=_sigma2, default="mdd", metavar="CRITERION|VALUE",
                   help="kernel width: a selection criterion (mdd, shannon, kpa, rule-of-thumb, ...) "
                        "or a fixed value > 0 (default mdd)")
    p.add_argument("--channel", help="ECG channel name (default: II, MLII, ECG, V, I, ... whichever exists)")
    p.add_argument("--lead", metavar="NAME|auto|fuse",
                   help="lead used by the method: a lead name, 'auto' (best lead) or 'fuse' (all leads); "
                        "default: the --channel lead")
    p.add_argument("--window", type=_window, metavar="SECONDS",
                   help="process in sliding windows of this length (sigma2 chosen per window)")
    p.add_argument("--solver", default="dense", metavar="dense|fs2",
                   help="kernel PCA solver: 'dense' (per window, default) or 'fs2' (one fixed-size "
                        "FS2 + Nystrom model over all beats of the whole record)")
    p.add_argument("--n-support", type=_n_support, metavar="M",
                   help="--solver fs2: number of support vectors (default "
                        "edr.methods.DEFAULT_N_SUPPORT, at most the valid beats - 1)")
    p.add_argument("--plot", metavar="OUT.png", help="write a figure (ECG and beats, EDR vs reference, sigma2 curve)")
    p.add_argument("--json", metavar="OUT.json", help="write a JSON summary (parameters, sigma2, beats, scores)")
    p.add_argument("--demo", action="store_true",
                   help=f"no data needed: simulate a {DEMO_DURATION_S / 60:g}-minute record with known respiration, "
                        f"extract, compare with the truth, write {DEMO_DIR}/edr_demo.csv/.json/.png")
    p.add_argument("--seed", type=int, default=0, help="random seed of the method and of --demo (default 0)")
    return p


def _check_choices(args) -> None:
    """Reject an unknown method, solver or criterion before the extraction starts."""
    from edr.methods import METHODS, SOLVERS

    if args.method not in METHODS:
        raise _OptionError(f"--method: unknown method {args.method!r}; valid methods are {sorted(METHODS)}")
    if args.solver not in SOLVERS:
        raise _OptionError(f"--solver: unknown solver {args.solver!r}; valid solvers are {sorted(SOLVERS)}")
    if args.n_support is not None and args.solver != "fs2":
        raise _OptionError(f"--n-support applies to --solver fs2 only (got --solver {args.solver})")
    if isinstance(args.sigma2, str):
        from kpca.selection import ALIASES, CRITERIA

        if ALIASES.get(args.sigma2.lower(), args.sigma2.lower()) not in CRITERIA:
            raise _OptionError(
                f"--sigma2: {args.sigma2!r} is neither a number > 0 nor a criterion; "
                f"valid criteria are {sorted(set(CRITERIA) | set(ALIASES))}"
            )


def _outputs(args, record_name: str) -> dict[str, Path]:
    if args.demo:
        csv = Path(args.output) if args.output else DEMO_DIR / "edr_demo.csv"
        return {
            "csv": csv,
            "json": Path(args.json) if args.json else DEMO_DIR / "edr_demo.json",
            "plot": Path(args.plot) if args.plot else DEMO_DIR / "edr_demo.png",
        }
    out = {"csv": Path(args.output) if args.output else Path(f"{record_name}_edr.csv")}
    if args.json:
        out["json"] = Path(args.json)
    if args.plot:
        out["plot"] = Path(args.plot)
    return out


def _load(args):
    if args.demo:
        if args.record:
            raise _OptionError(f"give either a record or --demo, not both (record {args.record!r})")
        from edr.simulate import simulate_recording

        rec = simulate_recording(DEMO_DURATION_S, DEMO_FS, random_state=args.seed, name="edr_demo")
        if args.channel and args.channel != rec.ecg_channel:
            raise _OptionError(f"--channel: the demo record has only lead {rec.ecg_channel!r}, got {args.channel!r}")
        return rec
    if not args.record:
        raise _OptionError("a record file is required (or --demo)")
    from edr.io import read_record

    return read_record(args.record, args.channel)


def _fmt(x, spec=".2f") -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, spec)


def _summary_lines(rec, result, scores, scores_error, outputs, seconds, demo) -> list[str]:
    criterion = result.params.get("sigma2", None) if isinstance(result.params, dict) else None
    if result.sigma2 is None:
        sigma_txt = "not used by this method"
    elif isinstance(criterion, str):
        sigma_txt = f"{result.sigma2:.4g} (chosen by {criterion})"
    else:
        sigma_txt = f"{result.sigma2:.4g} (fixed)"
    if len(result.windows) > 1:
        sig = [w.sigma2 for w in result.windows if w.sigma2 is not None]
        if sig:
            sigma_txt += f"; {len(result.windows)} windows, median {float(np.median(sig)):.4g}"
        else:
            sigma_txt += f"; {len(result.windows)} windows"
    rate = np.asarray(result.rate_bpm, dtype=float)
    rate = rate[np.isfinite(rate)]
    source = rec.path or "simulated (edr.simulate)"
    lines = [
        f"record     {rec.name}  [{source}]  {rec.duration_s:.1f} s at {rec.fs:g} Hz",
        f"lead       {result.lead}  (channels: {', '.join(rec.channels)})",
        f"method     {result.method}, sigma2 = {sigma_txt}"
        + (f", one FS2 model (M = {result.params['n_support']})" if result.params.get("solver") == "fs2" else ""),
        f"beats      {result.n_beats} used, {result.n_beats_dropped} dropped",
        f"resp rate  median {_fmt(float(np.median(rate)) if rate.size else None, '.1f')} breaths/min",
    ]
    label = "vs truth " if demo else f"vs {rec.resp_channel}" if rec.resp_channel else "reference"
    if scores is not None:
        lines.append(f"{label:<10} MSC {scores.msc:.2f}, |r| {scores.corr:.2f}, "
                     f"rate error {_fmt(scores.rate_error_bpm, '.2f')} breaths/min")
    elif scores_error is not None:
        lines.append(f"{label:<10} not scored: {scores_error}")
    lines.append(f"outputs    {', '.join(str(p) for p in outputs.values())}")
    lines.append(f"time       {seconds:.2f} s")
    return lines


def _json_summary(rec, result, scores, outputs, argv) -> dict:
    return {
        "record": rec.name,
        "path": rec.path,
        "fs": rec.fs,
        "duration_s": rec.duration_s,
        "ecg_channel": rec.ecg_channel,
        "channels": list(rec.channels),
        "reference": rec.resp_channel,
        "result": result.summary(),
        "scores": None if scores is None else {
            "msc": scores.msc, "corr": scores.corr, "rate_error_bpm": scores.rate_error_bpm, "f_ref": scores.f_ref,
        },
        "outputs": {k: str(v) for k, v in outputs.items()},
        "argv": list(argv),
    }


def run(args, argv: Sequence[str]) -> list[str]:
    """Do the work of one invocation; returns the summary lines. Raises on bad input."""
    t0 = time.perf_counter()
    rec = _load(args)
    _check_choices(args)
    outputs = _outputs(args, rec.name)

    from edr.pipeline import extract_edr

    result = extract_edr(
        rec,
        method=args.method,
        sigma2=args.sigma2,
        lead=args.lead,
        window_s=args.window,
        random_state=args.seed,
        progress=rec.duration_s >= PROGRESS_MIN_DURATION_S,
        solver=args.solver,
        n_support=args.n_support,
    )
    scores = scores_error = None
    if rec.resp is not None:
        from edr.evaluate.metrics import score

        try:
            scores = score(result, rec)
        except (EDRError, ValueError) as exc:  # the EDR stands; only the comparison failed
            scores_error = str(exc).splitlines()[0]

    # Everything is computed: now write (each writer is atomic).
    from edr.io.writers import write_csv, write_json

    for path in outputs.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    if "plot" in outputs:
        from edr.plots import plot_record

        plot_record(rec, result, path=outputs["plot"])
    write_csv(outputs["csv"], result.time, result.waveform)
    if "json" in outputs:
        write_json(outputs["json"], _json_summary(rec, result, scores, outputs, argv))
    return _summary_lines(rec, result, scores, scores_error, outputs, time.perf_counter() - t0, args.demo)


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m edr.extract") -> int:
    """Command-line entry point; returns the exit code (0 ok, 2 bad input, 130 interrupted)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(prog).parse_args(argv)
        lines = run(args, argv)
    except (EDRError, OSError, ValueError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"{prog}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
