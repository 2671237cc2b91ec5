"""benchmarks/bench_speed_targets.py: its verdicts, and a quick run of its rows."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_speed_targets.py"


def _module():
    if str(SCRIPT.parent) not in sys.path:  # the benchmarks import their folder's helpers
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location(SCRIPT.stem, SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[SCRIPT.stem] = mod  # its dataclass looks its module up
    spec.loader.exec_module(mod)
    return mod


def test_the_table_says_met_not_met_or_not_judged():
    mod = _module()
    rows = [mod.Row("a", "1 s", "peer 2 s", "0.5x", "<= 1x", True),
            mod.Row("b", "3 s", "peer 2 s", "1.5x", "<= 1x", False),
            mod.Row("c", "3 s", "", "", "<= 1x", None)]
    lines = mod.table(rows).splitlines()
    assert len(lines) == 5
    assert [line.rsplit("|", 2)[1].strip() for line in lines[2:]] == ["met", "NOT MET", "n/a"]
    assert lines[2].startswith("| a | 1 s | peer 2 s | 0.5x | <= 1x |")


def test_a_quick_run_prints_every_row_asked_for(capsys):
    mod = _module()
    data = Path(os.environ.get("EDR_DATA_DIR", "")) / "bidmc" / "bidmc01.hea"
    rows = ["floor", "day"] + (["warm"] if os.environ.get("EDR_DATA_DIR") and data.exists()
                               else [])
    assert mod.main(["--quick", "--rows", *rows]) == 0
    out = capsys.readouterr().out
    assert "load average" in out.splitlines()[1] and "load average" in out.splitlines()[-1]
    table = [line for line in out.splitlines() if line.startswith("| ")][1:]
    assert len(table) == len(rows)
    floor = next(line for line in table if line.startswith("| import floor"))
    assert float(floor.split("|")[2].split(" s wall")[0]) > 0
    day = next(line for line in table if line.startswith("| synthetic 0.05-h record"))
    assert day.rstrip(" |").endswith("n/a")  # a short day is not judged against 24-h targets
    if "warm" in rows:
        warm = next(line for line in table if line.startswith("| the default on bidmc01"))
        assert warm.rstrip(" |").rsplit("|", 1)[1].strip() in ("met", "NOT MET")


def test_rows_that_need_the_records_are_skipped_without_them(capsys, monkeypatch, tmp_path):
    mod = _module()
    monkeypatch.setenv("EDR_DATA_DIR", str(tmp_path))
    assert mod.main(["--quick", "--rows", "cli", "warm"]) == 0
    out = capsys.readouterr().out
    assert out.count("skipped: set EDR_DATA_DIR") == 2
    assert [line for line in out.splitlines() if line.startswith("| ")][1:] == []
