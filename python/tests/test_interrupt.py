"""A long run stops promptly when asked from another thread: Ctrl-C (a KeyboardInterrupt in
the main thread) raises Interrupted with the partial result; a `cancel` event returns it. The
run lets the interpreter go: other threads run meanwhile."""

import _thread
import threading
import time

import pytest

import mgensim

# long enough never to end by itself in these tests: a thousand 512-rank barriers (minutes)
LONG = {"workload.args.repeat": 1000}


def long_scenario():
    return mgensim.Scenario.load("scenarios/barrier.toml").set(LONG)


def test_ctrl_c_stops_a_run_within_a_second_with_its_partial_result():
    s = long_scenario()
    asked = []

    def press_ctrl_c():
        asked.append(time.monotonic())
        _thread.interrupt_main()  # what Ctrl-C in a terminal or a notebook's interrupt does

    timer = threading.Timer(1.0, press_ctrl_c)
    timer.start()
    try:
        with pytest.raises(mgensim.Interrupted) as e:
            s.run(threads=1)
        stopped = time.monotonic()
    finally:
        timer.cancel()
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


def test_ctrl_c_stops_a_sweep_with_the_points_that_finished():
    s = mgensim.Scenario.load("scenarios/barrier.toml")
    timer = threading.Timer(1.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(mgensim.Interrupted) as e:
            # small points first (they finish), then points that would run for minutes
            mgensim.sweep(s, vary={"workload.args.repeat": [1, 1, 100000, 100000]}, processes=1)
    finally:
        timer.cancel()
    rows = e.value.result
    assert list(rows["point"]) == [0, 1]
    assert rows["error"].isna().all()
