"""A result's tables are the output folder's CSV files, column for column and value for value,
as DataFrames (lists of dicts without pandas); `write` writes the folder `--out` writes."""

import filecmp

import pandas as pd
import pytest

import mgensim
from conftest import cli, masked

TABLES = {
    "links": "links.csv",
    "ranks": "ranks.csv",
    "routers": "routers.csv",
    "nodes": "nodes.csv",
    "profile": "profile.csv",
    "timeseries": "links_timeseries.csv",
    "buffer_history": "buffer_history.csv",
}


def read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The halo exchange run by the command line with an output folder, and by Python with
    the same records."""
    d = tmp_path_factory.mktemp("cli")
    cli("run", "scenarios/halo3d.toml", "-q", "--profile", "--interval", "50us",
        "--buffer-history", "router=5", "--out", d / "out", check=0)
    r = mgensim.Scenario.load("scenarios/halo3d.toml").run(
        profile=True, interval="50us", buffer_history=["router=5"])
    return d / "out", r


@pytest.mark.parametrize("attr", sorted(TABLES))
def test_each_table_is_its_csv(runs, attr):
    folder, r = runs
    ours, theirs = getattr(r, attr), read(folder / TABLES[attr])
    assert isinstance(ours, pd.DataFrame)
    assert list(ours.columns) == list(theirs.columns)
    assert len(ours) > 0
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)


def test_the_tables_agree_with_the_summary(runs):
    _, r = runs
    s = r.summary
    # the figures a reader would add up: a rank's end, the bytes on every link
    assert r.ranks["finish_ps"].max() == r.predicted_time_ps == s["predicted_time_ps"]
    assert len(r.ranks) == s["ranks"]["count"] == 216
    assert r.links["bytes"].sum() == s["network"]["link_bytes"]
    assert r.links["packets"].sum() == s["network"]["packet_hops"]
    assert set(r.links["kind"]) == {"injection", "router", "ejection"}
    assert r.ranks["finished"].dtype == bool and r.ranks["finished"].all()
    # units as the CSVs have them: picoseconds, and utilization a share of the run
    assert (r.links["utilization"] <= 1).all()
    busy = r.links["busy_ps"] / max(s["predicted_time_ps"], s["network"]["quiet_ps"])
    assert (busy.round(6) - r.links["utilization"]).abs().max() < 1e-6


def test_tables_not_recorded_are_none():
    r = mgensim.run("scenarios/put_ring.toml", pictures=False)
    assert r.timeseries is None and r.buffer_history is None and r.profile is None
    assert r.trace is None and r.links_power is None


def test_write_is_the_folder_of_out(tmp_path):
    cli("run", "scenarios/two_racks.toml", "-q", "--plots", "--profile", "--out", tmp_path / "cli",
        check=0)
    r = mgensim.Scenario.load("scenarios/two_racks.toml").run(plots=True, profile=True,
                                                               out=tmp_path / "py")
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "py").iterdir())
    assert {"heatmap.svg", "timeline.svg", "report.html", "trace.json"} <= set(names)
    for n in names:
        a, b = tmp_path / "cli" / n, tmp_path / "py" / n
        if n == "summary.json":
            assert masked(a.read_text()) == masked(b.read_text())
        else:
            assert filecmp.cmp(a, b, shallow=False), n
    r.write(tmp_path / "again")
    assert (tmp_path / "again" / "links.csv").read_bytes() == (tmp_path / "cli" / "links.csv").read_bytes()


def test_without_pandas_the_tables_are_lists_of_dicts(monkeypatch):
    r = mgensim.run("scenarios/put_ring.toml")
    frame = r.ranks.to_dict("records")
    monkeypatch.setattr(mgensim, "_pandas", lambda: None)
    r2 = mgensim.run("scenarios/put_ring.toml")
    rows = r2.ranks
    assert isinstance(rows, list) and isinstance(rows[0], dict)
    assert rows == frame
    assert isinstance(rows[0]["finish_ps"], int) and rows[0]["finished"] is True
    assert rows[0]["job"] == "main"


def test_the_page_shows_the_run(tmp_path):
    r = mgensim.run("scenarios/barrier_lesson.toml")
    page = r.report_html()
    assert page.startswith("<!DOCTYPE html>") and "barrier_lesson.toml" in page
    # small runs record the timeline for the page unasked, as --out does
    assert "The timeline was not recorded" not in page
    bare = mgensim.run("scenarios/barrier_lesson.toml", pictures=False).report_html()
    assert "The timeline was not recorded" in bare
    frame = r._repr_html_()
    assert frame.startswith("<iframe srcdoc=\"") and "&lt;!DOCTYPE html&gt;" in frame
    # the page is the output folder's
    r.write(tmp_path)
    assert (tmp_path / "report.html").read_text() == page
