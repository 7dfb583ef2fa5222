"""Scenarios as values: made from a file, TOML text or a dict, with their scripts by path or
inline; what a run's own keys change stays in that run."""

import pytest

import mgensim


def test_a_dict_with_inline_code_runs_what_it_says():
    s = mgensim.Scenario.from_dict({"network": {"dims": [2, 2]},
                                    "workload": {"code": "MGEN_Comp(2e-6 * (MGEN_Comm_rank() + 1))"}})
    assert (s.ranks, s.nodes, s.scripts) == (4, 4, ["inline"])
    # the last rank computes 4 x 2 us: nothing else takes time
    assert s.run().predicted_time_ps == 8_000_000
    assert "[network]" in s.toml and "dims = [2, 2]" in s.toml


def test_toml_text_finds_its_script_in_base_dir(tmp_path):
    (tmp_path / "w.lua").write_text("MGEN_Comp(3e-6)\nMGEN_report('x_s', 1.5)\n")
    s = mgensim.Scenario.from_toml("[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
                                   base_dir=tmp_path, name="mine.toml")
    assert s.path == str(tmp_path / "mine.toml")
    r = s.run()
    assert r.predicted_time_ps == 3_000_000 and r.metrics["x_s"]["mean"] == 1.5
    assert r.scenario == str(tmp_path / "mine.toml")
    # relative to the current folder, the script is not there: the command line's message
    with pytest.raises(mgensim.ScenarioError, match="w.lua"):
        mgensim.Scenario.from_toml("[workload]\nscript = 'w.lua'\n")


def test_with_workload_swaps_the_script_for_code_and_back(tmp_path):
    s = mgensim.Scenario.load("scenarios/put_ring.toml")
    inline = s.with_workload(code="MGEN_Comp(5e-6)")
    assert inline.scripts == ["inline"] and s.scripts != ["inline"]
    with pytest.warns(mgensim.MgensimWarning, match="MGEN_args.bytes was never read by the script"):
        assert inline.run().predicted_time_ps == 5_000_000
    back = inline.with_workload("put_ring.lua")
    assert back.run().summary_json.split('"host"')[0] == s.run().summary_json.split('"host"')[0]
    with pytest.raises(TypeError):
        s.with_workload()


def test_a_runs_own_keys_stay_in_that_run():
    s = mgensim.Scenario.from_dict({"network": {"dims": [2]}, "workload": {"code": "MGEN_Comp(MGEN_args.t)", "args": {"t": 1e-6}}})
    assert s.run(set={"workload.args.t": 4e-6}).predicted_time_ps == 4_000_000
    assert s.run().predicted_time_ps == 1_000_000
    assert s.sets == []


def test_a_dict_that_is_not_a_scenario_says_what_is_wrong():
    with pytest.raises(mgensim.ScenarioError, match="did you mean `network`"):
        mgensim.Scenario.from_dict({"netwrok": {"dims": [2]}, "workload": {"code": ""}})
    with pytest.raises(TypeError):
        mgensim.Scenario.from_dict([("network", {})])
