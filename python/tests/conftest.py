"""Shared by the tests of the Python module: where the project and its command line are, and
how to run the command line to compare with."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MGENSIM = Path(os.environ.get("MGENSIM_BIN", ROOT / "target" / "release" / "mgensim"))



def pytest_configure(config):
    """The tests run in the project's folder, as the command line is run there, so that the
    scenarios' relative paths (and the `scenario` the summaries name) are the same."""
    os.chdir(ROOT)


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """(and each test starts there again, whatever the one before did)"""
    monkeypatch.chdir(ROOT)


def cli(*args, check=None):
    """Runs the command line in the project's folder; returns the completed process."""
    if not MGENSIM.exists():
        pytest.fail(f"{MGENSIM} is missing: build it first (cargo build --release)")
    p = subprocess.run([str(MGENSIM), *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if check is not None:
        assert p.returncode == check, f"mgensim {' '.join(map(str, args))}: {p.returncode}\n{p.stderr}"
    return p


def error_of(stderr: str) -> str:
    """What the command line says after `error: ` (its last error, through the end, without
    the line break that ends what it printed)."""
    i = stderr.rfind("error: ")
    assert i >= 0 and stderr.endswith("\n"), stderr
    return stderr[i + len("error: "):-1]


def masked(summary_json: str) -> str:
    """A summary's JSON text without its `host` object (what the machine spent: wall time,
    memory, and how many windows ran on one thread, which the engine decides by timing them);
    everything else is kept byte for byte."""
    start = summary_json.index('\n  "host": {\n')
    end = summary_json.index("\n  }", start) + len("\n  }")
    return summary_json[:start] + '\n  "host": "(masked)"' + summary_json[end:]


def shipped_scenarios():
    """Every scenario the project ships: scenarios/ (with its subfolders) and examples/."""
    found = sorted(ROOT.glob("scenarios/**/*.toml")) + sorted(ROOT.glob("examples/*.toml"))
    return [str(p.relative_to(ROOT)) for p in found]


def read_json(text):
    return json.loads(text)
