"""A long run stops promptly when asked from another thread: Ctrl-C (a KeyboardInterrupt in
the main thread) raises Interrupted with the partial result; a `cancel` event returns it. The
run lets the interpreter go: other threads run meanwhile."""

import _thread
import signal
import threading
import time

import pytest

import mgensim

# long enough never to end by itself in these tests: a thousand 512-rank barriers (minutes)
LONG = {"workload.args.repeat": 1000}

# (if a stop is not seen, the run is cancelled after this long: the test fails, it never hangs)
GUARD = 30.0


def long_scenario():
    return mgensim.Scenario.load("scenarios/barrier.toml").set(LONG)


@pytest.fixture
def ctrl_c():
    """Ctrl-C as a terminal or a notebook's kernel delivers it: Python's own SIGINT handler
    (raising KeyboardInterrupt) must be installed, as it is in an interactive interpreter and
    a kernel. A process started in the background by a shell (a CI runner's `cmd &`) starts
    with SIGINT ignored, and `_thread.interrupt_main()` then does nothing: the handler is put
    in place for the test and the one before restored after."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield _thread.interrupt_main
    signal.signal(signal.SIGINT, before)


def guarded():
    """A cancel event set after GUARD seconds, and its timer (to cancel once done)."""
    cancel = threading.Event()
    timer = threading.Timer(GUARD, cancel.set)
    timer.start()
    return cancel, timer


def test_ctrl_c_stops_a_run_within_a_second_with_its_partial_result(ctrl_c):
    s = long_scenario()
    asked = []

    def press_ctrl_c():
        asked.append(time.monotonic())
        ctrl_c()  # what Ctrl-C in a terminal or a notebook's interrupt does

    timer = threading.Timer(1.0, press_ctrl_c)
    cancel, guard = guarded()
    timer.start()
    try:
        with pytest.raises(mgensim.Interrupted) as e:
            s.run(threads=1, cancel=cancel)
        stopped = time.monotonic()
    finally:
        timer.cancel()
        guard.cancel()
    assert isinstance(e.value, KeyboardInterrupt)
    assert stopped - asked[0] < 1.0, f"stopped {stopped - asked[0]:.2f} s after Ctrl-C"
    r = e.value.result
    assert isinstance(r, mgensim.Result) and r.partial
    assert r.stop.startswith("interrupted at simulated time")
    assert e.value.report == f"scenarios/barrier.toml: {r.stop}"
    # the figures so far: some barriers done, not all ranks at the end
    assert 0 < r.summary["network"]["packets"] and r.summary["ranks"]["finished"] == 0
    assert r.summary["network"]["messages"] > 511, "at least one whole ring barrier"
    assert len(r.ranks) == 512


def test_a_cancel_event_set_by_another_thread_returns_the_partial_result():
    s = long_scenario()
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    t0 = time.monotonic()
    r = s.run(cancel=cancel)
    assert time.monotonic() - t0 < 3.0
    assert r.partial and r.stop.startswith("interrupted at simulated time")
    assert r.predicted_time_ps > 0 or r.summary["network"]["packets"] > 0


def test_the_run_lets_the_interpreter_go():
    # a run in a second thread, and Python code counting in this one meanwhile
    s = long_scenario()
    cancel = threading.Event()
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", s.run(cancel=cancel)))
    worker.start()
    n, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < 0.5:
        n += 1
    cancel.set()
    worker.join(10)
    assert not worker.is_alive()
    assert out["r"].partial
    assert n > 100_000, f"this thread counted only {n} while the run went on"


def test_ctrl_c_stops_a_sweep_with_the_points_that_finished(ctrl_c):
    s = mgensim.Scenario.load("scenarios/barrier.toml")
    timer = threading.Timer(1.5, ctrl_c)
    cancel, guard = guarded()
    timer.start()
    try:
        with pytest.raises(mgensim.Interrupted) as e:
            # small points first (8 ranks once: milliseconds, they finish), then points that
            # would run for hours (512 ranks, 100,000 barriers)
            mgensim.sweep(s, zip={"network.dims": [[2, 2, 2], [2, 2, 2], [8, 8, 8], [8, 8, 8]],
                                  "workload.ranks": [8, 8, 512, 512],
                                  "workload.args.repeat": [1, 1, 100000, 100000]},
                          processes=1, cancel=cancel)
    finally:
        timer.cancel()
        guard.cancel()
    assert not cancel.is_set(), "Ctrl-C did not stop the sweep: the guard did"
    rows = e.value.result
    assert list(rows["point"]) == [0, 1]
    assert list(rows["workload.ranks"]) == [8, 8]
    assert rows["error"].isna().all()
