"""What a run costs from Python over the same run by the command line (docs/python.md).

    target/python-venv/bin/python python/bench/overhead.py [--repeat 15] [--loop 1000]

Run from the project's folder, with target/release/mgensim built and the module installed
(python/tests/run makes both). Two measures, each the median of interleaved repetitions:

1. The 512-rank barrier (scenarios/barrier.toml): the command line as a user runs it
   (`mgensim run scenarios/barrier.toml --json -q`, a process: start, read, run, print) against
   `Scenario.load(...).run(...)` and its summary's text in a warm interpreter, with the
   records of `report.html` off (`pictures=False`: what `--json` records) and on (the
   default, as `--out` records them).
2. A loop of small runs (a 16-rank barrier on a 4x4 torus, a new seed each): a shell loop of
   `mgensim run` processes against a Python loop of `s.run(seed=i)`.
"""

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time

import mgensim

BIN = os.path.abspath("target/release/mgensim")
SMALL = ["network.dims=[4,4]", "workload.ranks=16"]


def cli_barrier():
    t = time.perf_counter()
    subprocess.run([BIN, "run", "scenarios/barrier.toml", "--json", "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def py_barrier(pictures):
    t = time.perf_counter()
    r = mgensim.Scenario.load("scenarios/barrier.toml").run(pictures=pictures)
    r.summary_json
    return time.perf_counter() - t


def cli_loop(n):
    sets = " ".join(f"--set '{s}'" for s in SMALL)
    script = (f"for i in $(seq 1 {n}); do {BIN} run scenarios/barrier.toml {sets} --seed $i "
              f"--json -q > /dev/null || exit 1; done")
    t = time.perf_counter()
    subprocess.run(["bash", "-c", script], check=True)
    return time.perf_counter() - t


def py_loop(n, pictures):
    s = mgensim.Scenario.load("scenarios/barrier.toml").set(
        {"network.dims": [4, 4], "workload.ranks": 16})
    t = time.perf_counter()
    for i in range(1, n + 1):
        s.run(seed=i, pictures=pictures).summary_json
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--loop", type=int, default=1000)
    ap.add_argument("--loops", type=int, default=3)
    a = ap.parse_args()
    py_barrier(False), cli_barrier()  # (warm the page cache and the interpreter)
    cli, bare, pics = [], [], []
    for _ in range(a.repeat):
        cli.append(cli_barrier())
        bare.append(py_barrier(False))
        pics.append(py_barrier(True))
    m = statistics.median
    print(f"512-rank barrier, median of {a.repeat}:")
    print(f"  command line            {m(cli) * 1e3:8.1f} ms")
    print(f"  Python, pictures=False  {m(bare) * 1e3:8.1f} ms  ({(m(bare) / m(cli) - 1) * 100:+.1f} %)")
    print(f"  Python, pictures=True   {m(pics) * 1e3:8.1f} ms  ({(m(pics) / m(cli) - 1) * 100:+.1f} %)")
    cl, pl, pp = [], [], []
    for _ in range(a.loops):
        cl.append(cli_loop(a.loop))
        pl.append(py_loop(a.loop, False))
        pp.append(py_loop(a.loop, True))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{a.loop} runs of a 16-rank barrier on a 4x4 torus, median of {a.loops} loops:")
    print(f"  command line (shell loop)  {m(cl):7.2f} s  ({m(cl) / a.loop * 1e3:.2f} ms a run)")
    print(f"  Python, pictures=False     {m(pl):7.2f} s  ({m(pl) / a.loop * 1e3:.2f} ms a run, "
          f"{(m(pl) / m(cl) - 1) * 100:+.1f} %)")
    print(f"  Python, pictures=True      {m(pp):7.2f} s  ({m(pp) / a.loop * 1e3:.2f} ms a run, "
          f"{(m(pp) / m(cl) - 1) * 100:+.1f} %)")
    # (a loop that kept what its runs left behind would grow by its runs' memory)
    print(f"  Python's peak memory: {rss:.0f} MiB after the barriers, "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB after "
          f"{a.loops * 2 * a.loop} small runs")


if __name__ == "__main__":
    main()
