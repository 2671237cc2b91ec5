"""edr.quiet.ignored_warnings: silences warnings and leaves the filters as found, also when
several threads use it at once (plain ``warnings.catch_warnings`` does not)."""

import threading
import time
import warnings

from edr.quiet import ignored_warnings


def test_ignores_inside_and_restores():
    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with ignored_warnings():
            warnings.warn("hidden", UserWarning, stacklevel=1)
        warnings.warn("shown", UserWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["shown"]
    assert warnings.filters == before


def test_reentrant_in_one_thread():
    """A nested block in the same thread does not wait for itself (a plain lock would hang)."""
    done = threading.Event()

    def nested():
        with ignored_warnings(), ignored_warnings():
            warnings.warn("hidden", UserWarning, stacklevel=1)
        done.set()

    t = threading.Thread(target=nested, daemon=True)
    t.start()
    t.join(timeout=5)
    assert done.is_set()


def test_concurrent_blocks_leave_the_filters_as_found():
    """Four threads, 30 blocks each (plain ``catch_warnings`` fails this every time)."""
    n_threads = 4
    before = list(warnings.filters)
    start = threading.Barrier(n_threads)

    def work(i):
        start.wait()
        for k in range(30):
            with ignored_warnings():
                time.sleep(0.0005 * ((i + k) % 3))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert warnings.filters == before
