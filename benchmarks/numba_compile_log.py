"""What Numba compiles, and what it loads from its on-disk cache, while a command runs.

Runs a module (``-m NAME``) or a script as ``__main__`` with a listener on Numba's
``numba:compile`` events and a timer around its cache loads, and prints at exit, for every
signature compiled:

* ``self``: CPU seconds of the compiling thread spent on that signature alone (type inference,
  lowering, LLVM optimisation and code generation, saving to the cache), the signatures it
  compiled on the way (callees) excluded;
* ``own``: ``self`` plus that of the Numba-internal overloads (``np.dot``, ``np.linalg.eigh``,
  sorting, error messages...) first compiled on its behalf;
* the signature (array dtype, dimensions, layout: a second layout is a second compilation).

Then the cache loads (CPU seconds each) and the totals. CPU seconds of one thread, not wall
time: the figures hold on a loaded machine better than wall times do. Set ``NUMBA_CACHE_DIR`` to
a new folder for a cold cache without touching the one beside the modules.

Usage::

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/numba_compile_log.py -m edr.extract --demo
    python benchmarks/numba_compile_log.py script.py [ARGS...]
"""

from __future__ import annotations

import atexit
import runpy
import sys
import time
from collections import defaultdict

from numba.core import caching
from numba.core import event as numba_event

_OURS = ("edr.", "kpca.")
_stack: list[list] = []  # [start, callee seconds, name] of the compilations in progress
_compiled: list[tuple[str, str, float, str]] = []  # name, signature, self seconds, owner
_loaded: list[tuple[str, float]] = []


def _name(dispatcher) -> str:
    return f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"


class _CompileListener(numba_event.Listener):
    def on_start(self, event):
        _stack.append([time.thread_time(), 0.0, _name(event.data["dispatcher"])])

    def on_end(self, event):
        start, callees, name = _stack.pop()
        spent = time.thread_time() - start
        if _stack:
            _stack[-1][1] += spent
        owner = next((f[2] for f in reversed(_stack) if f[2].startswith(_OURS)), name)
        _compiled.append((name, str(tuple(event.data["args"])), spent - callees, owner))


def _timed_load(load):
    def load_overload(self, sig, target_context):
        start = time.thread_time()
        result = load(self, sig, target_context)
        spent = time.thread_time() - start
        if _stack:
            _stack[-1][1] += spent
        if result is not None:
            func = self._py_func
            args = tuple(getattr(sig, "args", sig))
            _loaded.append((f"{func.__module__}.{func.__qualname__}{args}", spent))
        return result

    return load_overload


def _report(started: float, cpu_started: float) -> None:
    own = defaultdict(float)
    for name, _, spent, owner in _compiled:
        own[name if name.startswith(_OURS) else owner] += spent
    out = sys.stderr
    ours = sum(spent for name, spent in own.items() if name.startswith(_OURS))
    print(f"\n== numba_compile_log: wall {time.perf_counter() - started:.2f} s, process CPU "
          f"{time.process_time() - cpu_started:.2f} s; {len(_compiled)} signatures compiled in "
          f"{sum(c[2] for c in _compiled):.2f} s CPU ({ours:.2f} s under edr/kpca functions); "
          f"{len(_loaded)} cache loads in "
          f"{sum(s for _, s in _loaded):.2f} s CPU", file=out)
    print("   self    own  compiled", file=out)
    for name, sig, spent, _ in sorted(_compiled, key=lambda c: -own[c[0]]):
        if name.startswith(_OURS):
            print(f"{spent:7.3f} {own[name]:6.3f}  {name}{sig}", file=out)
    for name, spent in sorted(_loaded, key=lambda c: -c[1]):
        print(f"{spent:7.3f}         loaded {name}", file=out)


def main(argv: list[str]) -> None:
    if not argv or (argv[0] == "-m" and len(argv) < 2):
        raise SystemExit("usage: numba_compile_log.py (-m MODULE | SCRIPT) [ARGS...]")
    numba_event.register("numba:compile", _CompileListener())
    caching.Cache.load_overload = _timed_load(caching.Cache.load_overload)
    atexit.register(_report, time.perf_counter(), time.process_time())
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
