"""What the download record saves: a look-up of a verified cache against hashing it again.

Builds a database cache by hand in a temporary folder (``--files`` records, each a tiny
``.hea`` and a ``.dat`` of ``--mb`` MiB of seeded random bytes, with a ``SHA256SUMS.txt``),
then times, interleaved ``--repeat`` times in one run:

* ``locate_database(download=False)`` with the record in place: size and mtime of each
  file compared with the record, nothing read;
* the same look-up with the record deleted: every file hashed, the record written again;
* ``verify_database``: every file hashed (the full check, which never trusts the record).

The files were just written, so they are in the page cache: the hashing figures are CPU
bound (a cold disk only makes them slower). No network.

Usage::

    python benchmarks/bench_cache_lookup.py [--files 40] [--mb 8] [--repeat 5]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from edr.io import datasets, integrity


def _build(folder: Path, files: int, mib: int) -> dict:
    """The cache folder and its toy manifest."""
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True)
    sums = []
    for i in range(files):
        for name, data in ((f"r{i:03d}.hea", b"header\n"),
                           (f"r{i:03d}.dat", rng.bytes(mib << 20))):
            (folder / name).write_bytes(data)
            sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}\n")
    (folder / integrity.SUMS_NAME).write_text("".join(sums))
    entry = {"title": "Bench", "slug": "bench", "version": "1", "folder": "bench",
             "download": True, "records": [f"r{i:03d}" for i in range(files)],
             "files_per_record": ["{record}.hea", "{record}.dat"]}
    return {"databases": {"bench": entry}}


def _timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=40)
    p.add_argument("--mb", type=int, default=8, help="MiB per .dat file")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    print(f"load at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["EDR_CACHE_DIR"] = tmp
        os.environ.pop("EDR_DATA_DIR", None)
        folder = Path(tmp) / "bench-1"
        manifest = _build(folder, args.files, args.mb)
        record = folder / integrity.RECORD_NAME

        def locate():
            assert datasets.locate_database("bench", download=False, manifest=manifest) == folder

        def locate_unrecorded():
            record.unlink(missing_ok=True)
            locate()

        def verify():
            assert datasets.verify_database(folder, "bench", manifest=manifest) == {}

        locate_unrecorded()  # untimed: warms imports and the page cache
        cases = {"look-up, record in place": locate,
                 "look-up, record deleted (hash all)": locate_unrecorded,
                 "verify_database (hash all)": verify}
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
        for _ in range(args.repeat):
            for name, fn in cases.items():
                times[name].append(_timed(fn))
    total = args.files * (args.mb << 20) / 2**20
    print(f"{2 * args.files} files, {total:.0f} MiB; median of {args.repeat} interleaved runs")
    for name, runs in times.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"  {name:36s} wall {wall * 1e3:9.2f} ms   cpu {cpu * 1e3:9.2f} ms")
    print(f"load at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
