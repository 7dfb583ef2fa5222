"""`Scenario.run().summary` is `mgensim run --json`'s object, byte for byte (but the machine's
figures of `host`), on every shipped scenario; `dumps` writes JSON as the command line does."""

import json

import pytest

import mgensim
from conftest import cli, masked, shipped_scenarios


@pytest.mark.parametrize("path", shipped_scenarios())
def test_the_summary_is_the_command_lines_byte_for_byte(path):
    p = cli("run", path, "--json", "-q")
    assert p.returncode in (0, 1), p.stderr
    try:
        r = mgensim.Scenario.load(path).run()
        assert p.returncode == 0, f"the command line failed where Python did not: {p.stderr}"
    except mgensim.RunError as e:
        assert p.returncode == 1, f"Python failed where the command line did not: {e}"
        r = e.result
    assert masked(r.summary_json) == masked(p.stdout)
    # the dict is the same object, and dumps gives its text back exactly
    assert mgensim.dumps(r.summary) == r.summary_json
    theirs, ours = json.loads(p.stdout), dict(r.summary)
    assert list(ours) == list(theirs)
    theirs.pop("host"), ours.pop("host")
    assert ours == theirs
    assert r.predicted_time_ps == theirs["predicted_time_ps"]
    assert r.predicted_time == theirs["predicted_time_ps"] / 1e12


def test_the_summary_with_options_is_the_command_lines():
    args = ["--seed", "7", "--threads", "2", "--partitions", "2", "--profile"]
    p = cli("run", "scenarios/random_ring.toml", "--json", "-q", *args,
            "--set", "workload.args.bytes=65536", check=0)
    r = mgensim.Scenario.load("scenarios/random_ring.toml").run(
        seed=7, threads=2, partitions=2, profile=True, set={"workload.args.bytes": 65536})
    assert masked(r.summary_json) == masked(p.stdout)
    assert r.summary["host"]["partitions"] == 2 and r.summary["profile"]


def test_the_text_summary_is_the_command_lines():
    p = cli("run", "scenarios/put_ring.toml", "-q", check=0)
    r = mgensim.run("scenarios/put_ring.toml")
    strip = lambda t: [l for l in t.splitlines() if not l.startswith("host ")]
    assert strip(r.text) == strip(p.stdout)


def test_dumps_writes_floats_and_text_as_the_command_line():
    # Python's json writes 1.2e-05 and escapes non-ASCII; the command line does neither
    value = {"a": 1.2e-05, "b": [1, 2.0, 1e16], "c": "µs — ok", "d": None, "e": {}, "f": []}
    assert mgensim.dumps(value) == (
        '{\n  "a": 0.000012,\n  "b": [\n    1,\n    2.0,\n    1e+16\n  ],\n  "c": "µs — ok",\n'
        '  "d": null,\n  "e": {},\n  "f": []\n}\n')
    assert json.loads(mgensim.dumps(value)) == value
    with pytest.raises(TypeError):
        mgensim.dumps({"x": object()})


def test_the_power_baseline_is_the_command_lines():
    p = cli("run", "scenarios/replay/is_power.toml", "--power-baseline", "--json", "-q", check=0)
    r = mgensim.Scenario.load("scenarios/replay/is_power.toml").run(power_baseline=True)
    assert masked(r.summary_json) == masked(p.stdout)
    assert r.summary["power"]["baseline"]["time_ratio"] >= 1.0
    with pytest.raises(mgensim.ScenarioError, match="--power-baseline compares with links that sleep"):
        mgensim.Scenario.load("scenarios/put_ring.toml").run(power_baseline=True)
