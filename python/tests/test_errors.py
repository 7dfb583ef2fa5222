"""Every error class, with the command line's words: ScenarioError for a scenario that cannot
run (a ValueError), RunError for a run that went wrong (with where, and the partial result),
Interrupted for Ctrl-C (a KeyboardInterrupt); and the stops a caller chose return a partial
result."""

import pytest

import mgensim
from conftest import cli, error_of, masked

FAILS_ON_RANK_2 = """[network]
dims = [4]
[workload]
code = '''
local r = MGEN_Comm_rank()
if r == 2 then
  error("boom")
end
MGEN_Comp(1e-6)
'''
"""


def test_the_classes():
    assert issubclass(mgensim.ScenarioError, ValueError)
    assert issubclass(mgensim.RunError, Exception)
    assert issubclass(mgensim.Interrupted, KeyboardInterrupt)
    assert mgensim.ScenarioError.__module__ == "mgensim"


def test_a_missing_file_is_the_command_lines_error():
    p = cli("run", "scenarios/no_such.toml", check=1)
    with pytest.raises(mgensim.ScenarioError) as e:
        mgensim.Scenario.load("scenarios/no_such.toml")
    assert str(e.value) == error_of(p.stderr)


def test_set_reports_every_problem_at_once_as_set_does():
    s = mgensim.Scenario.load("scenarios/barrier.toml")
    before = s.sets
    with pytest.raises(mgensim.ScenarioError) as e:
        s.set({"network.dimz": [4, 4], "node.dma_bandwith": "1 GB/s", "workload.ranks": -1})
    msg = str(e.value)
    assert "did you mean `dims`?" in msg and "did you mean `dma_bandwidth`?" in msg
    p = cli("run", "scenarios/barrier.toml", "--set", "network.dimz=[4, 4]",
            "--set", 'node.dma_bandwith="1 GB/s"', "--set", "workload.ranks=-1", check=1)
    assert msg == error_of(p.stderr)
    assert s.sets == before, "a failed set leaves the scenario as it was"
    # a value that is not a key's type, as --set says it
    with pytest.raises(mgensim.ScenarioError) as e:
        s.set("network.link_bandwidth", "fast")
    p = cli("run", "scenarios/barrier.toml", "--set", 'network.link_bandwidth="fast"', check=1)
    assert str(e.value) == error_of(p.stderr)


def test_python_values_become_the_keys_literals():
    s = mgensim.Scenario.load("scenarios/barrier.toml")
    # (a scenario is checked whole at each set: keys that only make sense together go together)
    with pytest.raises(mgensim.ScenarioError, match="512 ranks do not fit on 16 nodes"):
        s.set("network.dims", (4, 4))
    s.set({"network.dims": (4, 4), "workload.ranks": 16})
    s.set("workload.args", {"algo": "rd", "bytes": 8, "repeat": 1}).set("network.link_bandwidth", "8 GB/s")
    assert s.sets == ["network.dims=[4, 4]", "workload.ranks=16",
                      'workload.args={ algo = "rd", bytes = 8, repeat = 1 }',
                      'network.link_bandwidth="8 GB/s"']
    assert s.ranks == 16 and s.network.startswith("torus 4x4")
    assert s.resolved["network"]["link_bandwidth"] == "8 GB/s"
    assert s.resolved["network"]["switch_latency"] == "128 ns"  # a default, filled in
    import numpy as np
    s.set("workload.ranks", np.int64(8))
    assert s.ranks == 8
    with pytest.raises(TypeError, match="has no TOML value"):
        s.set("workload.ranks", None)
    with pytest.raises(TypeError):
        s.set("workload.ranks")
    # a copy does not see later changes
    c = s.copy()
    s.set("workload.ranks", 4)
    assert (c.ranks, s.ranks) == (8, 4)


def test_check_finds_misspelt_api_names_as_check_does(tmp_path):
    (tmp_path / "w.lua").write_text("MGEN_Comp(1e-6)\nMGEN_rdma_pol(0)\n")
    (tmp_path / "s.toml").write_text("[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n")
    s = mgensim.Scenario.load(tmp_path / "s.toml")
    with pytest.raises(mgensim.ScenarioError) as e:
        s.check()
    p = cli("check", tmp_path / "s.toml", check=1)
    assert str(e.value) == error_of(p.stderr)
    assert "did you mean MGEN_rdma_poll?" in str(e.value)


def test_the_sandbox_is_the_command_lines(tmp_path):
    (tmp_path / "inner").mkdir()
    (tmp_path / "secret.lua").write_text("MGEN_Comp(1e-6)\n")
    (tmp_path / "inner" / "s.toml").write_text("[workload]\nscript = '../secret.lua'\n")
    p = cli("run", tmp_path / "inner" / "s.toml", check=1)
    with pytest.raises(mgensim.ScenarioError) as e:
        mgensim.Scenario.load(tmp_path / "inner" / "s.toml")
    assert str(e.value) == error_of(p.stderr) and "--allow-io" in str(e.value)
    assert mgensim.Scenario.load(tmp_path / "inner" / "s.toml", allow_io=True).run().summary["sandbox"] is False


def test_a_script_error_raises_run_error_with_its_rank_and_line(tmp_path):
    (tmp_path / "f.toml").write_text(FAILS_ON_RANK_2)
    p = cli("run", tmp_path / "f.toml", "--json", "-q", check=1)
    with pytest.raises(mgensim.RunError) as e:
        mgensim.Scenario.load(tmp_path / "f.toml").run()
    err = e.value
    assert (err.kind, err.rank, err.file, err.line) == ("script", 2, "inline", 3)
    assert err.report == str(err) == error_of(p.stderr)
    assert err.result.partial and err.result.stop.startswith("rank 2 failed")
    assert masked(err.result.summary_json) == masked(p.stdout)
    assert err.result.summary["ranks"]["unfinished"][0]["state"] == "failed"


def test_a_deadlock_raises_run_error_naming_a_blocked_rank(tmp_path):
    p = cli("run", "scenarios/bidirectional_ring.toml", "--set", "network.dims=[4, 4, 4]",
            "--out", tmp_path / "cli", "-q", check=1)
    s = mgensim.Scenario.load("scenarios/bidirectional_ring.toml").set("network.dims", [4, 4, 4])
    with pytest.raises(mgensim.RunError) as e:
        s.run(out=tmp_path / "py")
    err = e.value
    assert (err.kind, err.rank, err.file, err.line) == ("deadlock", 3, "scenarios/bidirectional_ring.lua", 19)
    assert err.report == error_of(p.stderr)
    assert "rank 3 (clock 43.55205 us) waits in MGEN_Recv" in err.report
    assert err.time_ps == 44_840_950
    # the partial folder is written, as the command line writes it
    assert (tmp_path / "py" / "ranks.csv").read_bytes() == (tmp_path / "cli" / "ranks.csv").read_bytes()


def test_a_rank_that_runs_away_raises_run_error():
    s = mgensim.Scenario.from_dict({
        "network": {"dims": [2]},
        "workload": {"code": "if MGEN_Comm_rank() == 1 then\n  while true do end\nend\n"},
        "limits": {"instructions": 100000},
    })
    with pytest.raises(mgensim.RunError) as e:
        s.run()
    assert (e.value.kind, e.value.rank, e.value.line) == ("instructions", 1, 2)
    assert "ran more than 100000 Lua instructions" in e.value.report


def test_limits_the_caller_chose_return_the_partial_result():
    s = mgensim.Scenario.load("scenarios/barrier.toml")
    r = s.run(until="20us")
    assert r.partial and r.stop.startswith("simulated-time limit")
    assert r.summary["ranks"]["finished"] == 0
    p = cli("run", "scenarios/barrier.toml", "--until", "20us", "--json", "-q", check=3)
    assert masked(r.summary_json) == masked(p.stdout)
    # seconds as a number are the same time
    assert s.run(until=20e-6).summary_json.split('"host"')[0] == r.summary_json.split('"host"')[0]
    with pytest.raises(mgensim.ScenarioError, match="--until 3 parsecs"):
        s.run(until="3 parsecs")


def test_warnings_are_python_warnings(tmp_path):
    s = mgensim.Scenario.load("scenarios/barrier.toml").set({"network.dims": [2, 2], "workload.ranks": 4,
                                                              "workload.args.algo": "rd",
                                                              "workload.args.byts": 8})
    with pytest.warns(mgensim.MgensimWarning, match="byts"):
        r = s.run()
    assert any("byts" in w for w in r.warnings)
