"""`mgensim.sweep` is `mgensim sweep`: the same table (sweep.csv's columns and values), from the
same parallel code; a failing point is a row with its error, unless strict."""

import pandas as pd
import pytest

import mgensim
from conftest import cli

SMALL = {"network.dims": [4, 4], "workload.ranks": 16}


def small_barrier():
    return mgensim.Scenario.load("scenarios/barrier.toml").set(SMALL)


def read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def test_the_table_is_sweep_csv(tmp_path):
    cli("sweep", "scenarios/barrier.toml", "--set", "network.dims=[4,4]", "--set", "workload.ranks=16",
        "--vary", "workload.ranks=2..16:x2", "--vary", "workload.args.algo=ring,rd", "-q",
        "--out", tmp_path, check=0)
    theirs = read(tmp_path / "sweep.csv")
    ours = mgensim.sweep(small_barrier(), vary={"workload.ranks": "2..16:x2",
                                                "workload.args.algo": ["ring", "rd"]}, processes=2)
    assert list(ours.columns) == list(theirs.columns)
    # the axes, then each point's network (family, shape, routers, nodes, links), then the figures
    assert list(ours.columns)[:9] == ["point", "workload.ranks", "workload.args.algo", "family",
                                      "shape", "routers", "nodes", "links", "predicted_time_ps"]
    assert set(ours["nodes"]) == {16} and set(ours["family"]) == {"torus"}
    assert len(ours) == 8 and list(ours["point"]) == list(range(8))
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    # a point is a run: its predicted time is the run's
    one = small_barrier().set({"workload.ranks": 8, "workload.args.algo": "rd"}).run()
    row = ours[(ours["workload.ranks"] == 8) & (ours["workload.args.algo"] == "rd")].iloc[0]
    assert row["predicted_time_ps"] == one.predicted_time_ps
    assert row["barrier_s"] == pytest.approx(one.metrics["barrier_s"]["mean"], rel=1e-9)


def test_the_table_does_not_depend_on_processes():
    vary = {"workload.ranks": [4, 16], "workload.args.algo": ["ring", "rd"]}
    a = mgensim.sweep(small_barrier(), vary=vary, processes=1)
    b = mgensim.sweep(small_barrier(), vary=vary, processes=3)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_zip_varies_keys_together(tmp_path):
    zipped = {"network.topology": ["torus", "mesh"], "network.dims": [[4, 4], [2, 2]],
              "workload.ranks": [16, 4]}
    t = mgensim.sweep(mgensim.Scenario.load("scenarios/barrier.toml").set(SMALL), zip=zipped)
    assert list(t["network.topology"]) == ["torus", "mesh"]
    assert list(t["workload.ranks"]) == [16, 4]
    assert t["error"].isna().all()


def test_a_failing_point_is_a_row_with_its_error():
    s = small_barrier()
    # "rign" fails when the script runs (not a barrier the script knows); 32 ranks cannot be
    # placed on 16 nodes (the scenario cannot be read)
    with pytest.warns(mgensim.MgensimWarning, match=r"3 of the sweep's points failed .* point 1: rank 0 failed .* \| scenarios/barrier.lua:51: unknown barrier algorithm \"rign\""):
        t = mgensim.sweep(s, vary={"workload.ranks": [8, 32], "workload.args.algo": ["ring", "rign"]})
    assert len(t) == 4
    ok = t[t["error"].isna()]
    assert list(ok["point"]) == [0]
    assert ok["predicted_time_ps"].iloc[0] > 0
    bad = t.set_index("point")["error"]
    assert "32 ranks do not fit on 16 nodes" in bad[2] and "32 ranks do not fit on 16 nodes" in bad[3]
    assert "rign" in bad[1] and bad[1].startswith("rank 0 failed at simulated time 0 ps: | ")
    assert t.set_index("point")["predicted_time_ps"][1:].isna().all()


def test_a_point_whose_run_fails_is_the_row_the_command_line_writes(tmp_path):
    p = cli("sweep", "scenarios/barrier.toml", "--set", "network.dims=[4,4]", "--set", "workload.ranks=16",
            "--vary", "workload.args.algo=ring,rign,rd", "-q", "--out", tmp_path)
    assert p.returncode == 1 and "1 failed" in p.stdout
    with pytest.warns(mgensim.MgensimWarning):
        ours = mgensim.sweep(small_barrier(), vary={"workload.args.algo": "ring,rign,rd"})
    pd.testing.assert_frame_equal(ours, read(tmp_path / "sweep.csv"), check_exact=True)
    assert ours["error"].notna().tolist() == [False, True, False]


def test_strict_raises_at_the_first_failure():
    s = small_barrier()
    with pytest.raises(mgensim.ScenarioError, match=r"point 1 \(workload.ranks=32\)"):
        mgensim.sweep(s, vary={"workload.ranks": [8, 32]}, strict=True)
    with pytest.raises(mgensim.RunError, match=r"point 1 \(workload.args.algo=\"rign\"\)"):
        mgensim.sweep(s, vary={"workload.args.algo": ["ring", "rign"]}, strict=True)


def test_a_sweep_whose_every_point_is_wrong_is_an_error():
    with pytest.raises(mgensim.ScenarioError, match="did you mean `dims`"):
        mgensim.sweep(small_barrier(), vary={"network.dimz": [[2, 2], [4, 4]]})
    with pytest.raises(mgensim.ScenarioError, match="varied twice"):
        mgensim.sweep(small_barrier(), vary={"workload.ranks": [2]}, zip={"workload.ranks": [4]})
    with pytest.raises(ValueError, match="nothing to vary"):
        mgensim.sweep(small_barrier())
