"""No file of the repository names a path of one machine.

A command written with ``/home/alice/data`` or a results file recording ``/tmp/run3`` works on
one machine only: commands name their data through ``EDR_DATA_DIR`` (or a relative folder) and
write into relative or temporary folders chosen at run time. Every text file of the checkout is
searched (the files git tracks when the checkout is a git repository, else every file outside
the virtual environments and build folders).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: top folders of one machine that a portable path never starts with; the pattern is assembled
#: so that this file does not match itself
_TOPS = ("home", "Users", "root", "work", "tmp", "mnt", "scratch", "private/var")
MACHINE_PATH = re.compile(r"(?<![\w.~$/-])/(?:" + "|".join(_TOPS) + r")/[\w.-]"
                          r"|\b[A-Z]:\\" + r"(?:Users|Documents and Settings)\\")

#: folders never searched when git cannot list the tracked files
_SKIPPED_DIRS = {".git", ".venv", ".venv-ci", "venv", "build", "dist", "_build", "__pycache__",
                 ".pytest_cache", ".ruff_cache", "demo_output", ".hypothesis"}


def _tracked_files() -> list[Path]:
    if shutil.which("git") and (ROOT / ".git").exists():
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                             check=False)
        if out.returncode == 0:
            return [ROOT / name for name in out.stdout.decode().split("\0") if name]
    return [p for p in ROOT.rglob("*") if p.is_file()
            and not _SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)]


def machine_paths(text: str) -> list[str]:
    """Each line of ``text`` that names a path of one machine, as ``"<line>: <text>"``."""
    return [f"{n}: {line.strip()[:120]}" for n, line in enumerate(text.splitlines(), 1)
            if MACHINE_PATH.search(line)]


def test_no_file_names_a_path_of_one_machine():
    found = {}
    for path in _tracked_files():
        if not path.is_file():
            continue  # deleted in the working tree, still listed by git
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary (images, compressed data)
        if hits := machine_paths(text):
            found[path.relative_to(ROOT).as_posix()] = hits[:3]
    assert not found, f"paths of one machine: {found}"


def test_the_search_finds_machine_paths_and_leaves_portable_ones():
    planted = "\n".join([
        "EDR_DATA_DIR=/" + "home/alice/data python x.py",           # found
        "-o /" + "tmp/final_eval3 --jobs 2",                         # found
        '"data_dir": "/' + "work/shared/data/bidmc\",",             # found
        "C:\\" + "Users\\bob\\data",                                   # found
        "EDR_DATA_DIR=../shared/data python x.py",                   # relative: kept
        "$EDR_DATA_DIR/bidmc and ~/.cache/kpca-edr",                 # portable: kept
        "https://physionet.org/files/bidmc/1.0.0/",                  # a URL: kept
        "see docs/studies/x.md and edr/io/" + "tmp_files.py",        # relative: kept
    ])
    assert [hit.split(":")[0] for hit in machine_paths(planted)] == ["1", "2", "3", "4"]
