"""The README's first command in a fresh virtual environment: the first run and the runs after.

A new user clones the repository, creates a virtual environment and runs::

    python3 -m pip install -e . && python3 -m edr.extract --demo

The first run compiles every Numba function it calls (the on-disk cache, ``__pycache__`` beside
each module, is empty) and, for a user new to Matplotlib, builds its font cache; later runs load
both. This script reproduces that in a temporary folder:

1. copies the working tree's files (``git ls-files``: tracked and untracked but not ignored, so
   no ``__pycache__`` and no Numba cache come along) to ``TMP/src``;
2. creates ``TMP/venv`` (``python -m venv``) and runs ``pip install -e TMP/src`` (or ``pip
   install TMP/src`` with ``--no-editable``) with the machine's pip configuration (index,
   ``--find-links``, cache: printed), untimed;
3. in ``TMP/work``, with ``MPLCONFIGDIR=TMP/mpl`` (empty: a user new to Matplotlib) and without
   ``NUMBA_CACHE_DIR``, ``PYTHONPATH``, ``MPLBACKEND`` or ``PYTHONDONTWRITEBYTECODE`` (nor does
   the install see the last), times ``python -m edr.extract --demo``
   the first time and ``--repeat`` times after (wall and CPU of the process, children
   included);
4. removes the Numba cache files written by step 3 and times the README's ``kpca`` example
   (``KernelPCA(n_components="auto", sigma2="mdd", random_state=0).fit(X)`` on 300 noisy
   semicircle points) the first time and once after, as whole processes.

The table gives each figure and the 1-minute load averages before and after the runs (other
processes on the machine inflate wall times; the CPU times are less sensitive).

Usage::

    python benchmarks/bench_first_run.py [--repeat 3] [--no-editable] [--compare COMMIT] [--keep]
        [--pip-args "--no-index --find-links DIR"] [-o benchmarks/first_run.md]

``--compare COMMIT`` installs that commit as well, in a venv of its own, and interleaves its
runs with the working tree's at every step, so that load from other processes hits both alike.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_cli import interpreter_s  # the machine's speed, printed beside the figures

ROOT = Path(__file__).resolve().parents[1]
DEMO = ["-m", "edr.extract", "--demo"]
KPCA_EXAMPLE = (
    "import kpca\n"
    "from kpca.datasets import semicircles\n"
    "X, _ = semicircles(300, noise=0.1, random_state=0)\n"
    "model = kpca.KernelPCA(n_components='auto', sigma2='mdd', random_state=0).fit(X)\n"
    "print(f'sigma2 {model.sigma2_:.4g}, {model.n_components_} components')\n"
)
_SCRUBBED = ("NUMBA_CACHE_DIR", "PYTHONPATH", "MPLBACKEND", "MPLCONFIGDIR", "VIRTUAL_ENV",
             "PYTHONDONTWRITEBYTECODE")


def _user_env() -> dict:
    """This process's environment without the variables a new user's shell would not have."""
    return {k: v for k, v in os.environ.items() if k not in _SCRUBBED}


def _copy_tree(dest: Path, commit: str | None) -> int:
    """The files of ``commit`` (``git archive``), or of the working tree that git does not
    ignore, copied to ``dest``; their count."""
    dest.mkdir(parents=True)
    if commit:
        archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return sum(1 for p in dest.rglob("*") if p.is_file())
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, check=True, capture_output=True).stdout.split(b"\0")
    count = 0
    for name in filter(None, names):
        src = ROOT / os.fsdecode(name)
        if src.is_file():
            (dest / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / os.fsdecode(name))
            count += 1
    return count


def _timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, the process and its children) of one command; its
    last output line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"error: {shlex.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = done.stdout.strip().splitlines()
    return wall, cpu, lines[-1] if lines else ""


def _numba_cache_files(tree: Path) -> list[Path]:
    return [p for p in tree.rglob("*") if p.suffix in (".nbi", ".nbc")]


def _no_paths(args: list[str]) -> list[str]:
    """The arguments with absolute paths cut to their file names (no machine's path in a report
    that is committed)."""
    return [Path(a).name if os.path.isabs(a) else a for a in args]


def _pip_sources(config_list: str) -> str:
    """Where ``pip config list`` says packages come from, without naming hosts or folders: PyPI
    unless an index is set, and how many local folders or remote URLs each setting holds."""
    parts = []
    for line in config_list.splitlines():
        key, _, value = line.partition("=")
        setting = key.rsplit(".", 1)[-1]
        if setting in ("index-url", "extra-index-url", "find-links", "no-index"):
            urls = value.strip("'\"").split()
            local = sum(u.startswith(("file:", "/")) for u in urls)
            parts.append(f"{setting}: {local} local folder(s), {len(urls) - local} remote URL(s)"
                         if setting != "no-index" else "no-index")
    return "; ".join(["PyPI"] + parts if not any(p.startswith("index-url") for p in parts)
                     else parts)


def _install(tmp: Path, commit: str | None, editable: bool,
             pip_args: list[str]) -> tuple[Path, Path, str]:
    """A fresh venv in ``tmp`` with the package installed; (its python, the package's folder, a
    note)."""
    src = tmp / "src"
    n_files = _copy_tree(src, commit)
    subprocess.run([sys.executable, "-m", "venv", str(tmp / "venv")], check=True)
    python = tmp / "venv" / "bin" / "python"
    target = ["-e", str(src)] if editable else [str(src)]
    t0 = time.perf_counter()
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", *pip_args, *target],
                          capture_output=True, text=True, env=_user_env())
    if done.returncode != 0:
        raise SystemExit(f"error: pip install failed:\n{done.stdout}\n{done.stderr}")
    config = _pip_sources(subprocess.run([str(python), "-m", "pip", "config", "list"],
                                         capture_output=True, text=True).stdout)
    package = subprocess.run([str(python), "-c", "import edr, os; print(os.path.dirname("
                              "os.path.dirname(edr.__file__)))"], capture_output=True, text=True,
                             cwd=tmp, check=True).stdout.strip()
    command = shlex.join(["pip", "install", *(["-e"] if editable else []), "SRC",
                          *_no_paths(pip_args)])
    note = (f"{n_files} files of {commit or 'the working tree'} copied; `{command}` in a new venv "
            f"took {time.perf_counter() - t0:.0f} s "
            f"(untimed below); where pip looked: {config}")
    return python, Path(package), note


def _runs(trees: list[dict], repeat: int) -> list[tuple[str, str, float, float]]:
    """(tree, command, wall, CPU) of every timed run, the trees interleaved at each step."""
    rows = []
    for i in range(repeat + 1):
        for t in trees:
            wall, cpu, _ = _timed([str(t["python"]), *DEMO], t["env"], t["work"])
            which = "first run" if i == 0 else f"run {i + 1}"
            rows.append((t["name"], f"`python -m edr.extract --demo`, {which}", wall, cpu))
    for t in trees:
        t["n_cache"] = len(_numba_cache_files(t["package"]))
        for p in _numba_cache_files(t["package"]):
            p.unlink()
    for i in range(2):
        for t in trees:
            wall, cpu, last = _timed([str(t["python"]), "-c", KPCA_EXAMPLE], t["env"], t["work"])
            rows.append((t["name"], f"README `kpca` MDD example, "
                         f"{'first' if i == 0 else 'second'} process ({last})", wall, cpu))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs after the first (default 3)")
    ap.add_argument("--no-editable", action="store_true", help="pip install SRC, not -e SRC")
    ap.add_argument("--pip-args", default="", help="extra pip install arguments")
    ap.add_argument("--compare", metavar="COMMIT",
                    help="also install COMMIT in a venv of its own; runs interleaved")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("-o", "--output", type=Path, help="also write the report to this file")
    args = ap.parse_args(argv)
    given = sys.argv[1:] if argv is None else argv
    tmp = Path(tempfile.mkdtemp(prefix="edr-first-run-"))
    try:
        load_before = os.getloadavg()[0]
        trees = []
        for name, commit in [("working tree", None)] + ([(args.compare, args.compare)]
                                                         if args.compare else []):
            folder = tmp / f"tree{len(trees)}"
            python, package, note = _install(folder, commit, not args.no_editable,
                                             shlex.split(args.pip_args))
            env = _user_env()
            env["MPLCONFIGDIR"] = str(folder / "mpl")
            (folder / "work").mkdir()
            trees.append(dict(name=name, python=python, package=package, note=note, env=env,
                              work=folder / "work"))
        load_start, speed_start = os.getloadavg()[0], interpreter_s()
        rows = _runs(trees, args.repeat)
        load_end, speed_end = os.getloadavg()[0], interpreter_s()
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    report = [
        "# First run of the README's command in a fresh virtual environment",
        "",
        f"`python benchmarks/bench_first_run.py {shlex.join(_no_paths(given))}` on"
        f" {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {platform.machine()}.",
        *[f"- {t['name']}: {t['note']}; the demo runs wrote {t['n_cache']} Numba cache files "
          f"beside the modules (removed before the kpca runs)." for t in trees],
        "- Matplotlib: a new, empty MPLCONFIGDIR per tree (a user new to Matplotlib).",
        f"- Load average (1 min): {load_before:.2f} before the installs, {load_start:.2f} before "
        f"the first run, {load_end:.2f} after the last.",
        f"- Interpreter speed: 10**7 Python additions in {speed_start:.2f} s before the first run "
        f"and {speed_end:.2f} s after the last (least of three; every time above scales with it).",
        "",
        "| tree | command | wall (s) | CPU (s) |",
        "|---|---|---|---|",
        *[f"| {tree} | {name} | {wall:.2f} | {cpu:.2f} |" for tree, name, wall, cpu in rows],
    ]
    text = "\n".join(report) + "\n"
    print(text, end="")
    if args.output:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
