"""Cached window analyses of every shared BIDMC and MARSH record, one pickle per record.

Each record is analysed once per QRS matrix baseline of
``measure_generalisation_loso.ANALYSES`` as the default extraction does it
(``measure_generalisation_loso.analyse``); the analyses do not depend on any fusion,
alignment or rate constant, so every candidate of the nested leave-one-subject-out choice
(``scripts/measure_nested_loso.py``) re-fuses, stitches, judges and scores them without
analysing again. The cache lives outside the repository (``--cache-dir``, default
``$TMPDIR/edr-accuracy-cache``); a record whose pickle exists is read, not analysed.

Usage: ``EDR_DATA_DIR=/path/to/data python scripts/accuracy_cache.py [--cache-dir DIR]``
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile

from measure_generalisation_loso import analyse, record_paths

DEFAULT_CACHE = os.path.join(tempfile.gettempdir(), "edr-accuracy-cache")


def record_names(root: str) -> dict:
    """``{record name: path of its .dat}`` of every shared BIDMC and MARSH record."""
    return {os.path.basename(p)[:-4]: p[:-4] + ".dat" for p in record_paths(root)}


def load(name: str, path: str, cache_dir: str = DEFAULT_CACHE) -> dict:
    """The window analyses of one record (:func:`measure_generalisation_loso.analyse`), read from
    ``cache_dir`` or computed and written there."""
    file = os.path.join(cache_dir, "analyses", f"{name}.pkl")
    if os.path.exists(file):
        with open(file, "rb") as fh:
            return pickle.load(fh)
    rec = analyse(path)
    os.makedirs(os.path.dirname(file), exist_ok=True)
    with open(file + ".part", "wb") as fh:
        pickle.dump(rec, fh)
    os.replace(file + ".part", file)
    return rec


def load_all(cache_dir: str = DEFAULT_CACHE, root: str | None = None) -> dict:
    """Every shared record's window analyses (:func:`load`), by name."""
    root = root or os.environ["EDR_DATA_DIR"]
    out = {}
    for name, path in record_names(root).items():
        out[name] = load(name, path, cache_dir)
        print(name, file=sys.stderr, flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache-dir", default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    load_all(args.cache_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
