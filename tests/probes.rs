//! What a run records when asked: the links' time series, buffer histories and
//! the ranks' timeline. Each adds up to the run's own totals or to times worked out by hand,
//! and none of them changes what the run predicts.

mod common;
use common::*;
use mgensim::run::Records;
use mgensim::units::Time;
use mgensim::{Probes, Simulation};

use serde_json::Value;

/// Every rank puts to a random rank, 4 times, through small buffers: contention, credits
/// blocked, packets queued.
const BUSY: &str = "[network]\ntopology = 'torus'\ndims = [4, 4]\nbuffer_bytes = '4 KiB'\n\
[workload]\nranks = 16\ncode = '''
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
for i = 1, 4 do
  local to = (me + math.random(p - 1)) % p
  MGEN_Comp(1e-7)
  local h = MGEN_rdma_put(to, 20000, i)
  MGEN_acp_complete(h)
end
'''\n";

fn everything() -> Probes {
    probes(Records {
        interval: Some("1 us".into()),
        buffer_history: vec!["router=5".into()],
        trace: true,
        profile: true,
        plots: false,
    })
}

#[test]
fn recording_changes_nothing_the_run_predicts() {
    let plain = run(BUSY);
    let mut probed = run_probed(BUSY, &[], &everything());
    assert!(probed.series.is_some() && probed.trace.is_some());
    assert!(!probed.buffer_history.as_ref().unwrap().is_empty());
    // (the profile is what was recorded, not a prediction)
    assert!(probed.profile.take().is_some());
    assert_eq!(deterministic_json(&plain), deterministic_json(&probed));
    assert_eq!(plain.per_link, probed.per_link);
    assert_eq!(plain.per_rank, probed.per_rank);
    assert!(
        plain.network.credit_blocked_ps > 0,
        "the workload has contention"
    );
}

#[test]
fn the_time_series_sums_to_the_link_totals() {
    for p in [
        everything(),
        // adaptive (as for the pictures): windows merge as time goes on; the sums must survive
        // the merging
        probes(Records {
            plots: true,
            ..Records::default()
        }),
    ] {
        let r = run_probed(BUSY, &[], &p);
        let s = r.series.as_ref().unwrap();
        let n = r.per_link.len();
        let (mut bytes, mut packets, mut busy, mut area) =
            (vec![0u64; n], vec![0u64; n], vec![0u64; n], vec![0u128; n]);
        for row in &s.rows {
            let l = row.link as usize;
            bytes[l] += row.counts.bytes;
            packets[l] += row.counts.packets;
            busy[l] += row.counts.busy_ps;
            area[l] += row.counts.occupancy;
            assert!(row.counts.busy_ps <= s.width_ps, "busy within its window");
        }
        for (i, l) in r.per_link.iter().enumerate() {
            assert_eq!(bytes[i], l.bytes, "link {i}");
            assert_eq!(packets[i], l.packets, "link {i}");
            assert_eq!(busy[i], l.busy.ps(), "link {i}");
            assert_eq!(area[i], l.occupancy_area, "link {i}");
        }
        assert!(s.windows as u64 * s.width_ps >= span_ps(&r));
        // and the CSV says the same: its bytes add up to all the bytes over links
        let csv = mgensim::output::table_csv(&r, "links_timeseries")
            .unwrap()
            .unwrap();
        let total: u64 = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(3).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, r.network.link_bytes);
    }
}

#[test]
fn link_counters_add_up_and_stay_within_the_run() {
    let r = run(BUSY);
    let span = span_ps(&r);
    let bytes: u64 = r.per_link.iter().map(|l| l.bytes).sum();
    let hops: u64 = r.per_link.iter().map(|l| l.packets).sum();
    // each put of 20000 B is 10 packets of 2000 B + 16 B header and an ack of 16 B;
    // bytes over all links = sum over packets of size × links crossed
    assert_eq!(bytes, r.network.link_bytes);
    assert_eq!(hops, r.network.packet_hops);
    assert_eq!(r.network.packets, 16 * 4 * (10 + 1));
    for l in &r.per_link {
        assert!(l.busy.ps() <= span);
        assert!(l.credit_blocked.ps() <= span);
        assert!(l.occupancy_area <= l.peak_occupancy as u128 * span as u128);
        assert!(
            l.peak_occupancy as u64 <= 4096 * 2,
            "at most its buffers (2 VCs)"
        );
    }
}

#[test]
fn the_buffer_history_of_one_packet_matches_the_pipeline() {
    // an 8-byte put from node 0 to node 1 of a 2-node mesh: one data packet of 24 B and its
    // acknowledgement of 16 B; watch both routers
    let p = probes(Records {
        buffer_history: vec!["router=0".into(), "router=1".into()],
        ..Records::default()
    });
    let r = run_probed(
        "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\ncode = '''
        if MGEN_Comm_rank() == 0 then MGEN_acp_complete(MGEN_rdma_put(1, 8, 0))
        else MGEN_rdma_poll(0) end'''\n",
        &[],
        &p,
    );
    let k = Params::nsim_ace();
    let rows = r.buffer_history.as_ref().unwrap();
    assert_eq!(rows.len(), 4, "two packets through two routers: {rows:?}");
    let data: Vec<_> = rows.iter().filter(|s| s.bytes == 24).collect();
    let (a, b) = (data[0], data[1]);
    assert_eq!((a.router, b.router), (0, 1));
    assert_eq!(a.in_port, 0, "from its NIC");
    assert_eq!(a.occupancy, 24);
    for s in [a, b] {
        assert_eq!(
            s.depart_ps.unwrap() - s.arrive_ps,
            k.router,
            "the router pipeline"
        );
        assert_eq!(s.freed_ps.unwrap() - s.depart_ps.unwrap(), k.ser(24));
    }
    assert_eq!(b.arrive_ps, a.depart_ps.unwrap() + k.cable);
    assert_eq!(b.out_port, Some(0), "to its NIC");
    // the injection link's buffer held the 24 B from the moment the NIC started sending
    // (one cable before the head arrived) until the tail left router 0
    let inj = r
        .per_link
        .iter()
        .find(|l| l.port.is_none() && l.from == 0)
        .unwrap();
    assert_eq!(inj.peak_occupancy, 24);
    let held = a.freed_ps.unwrap() - (a.arrive_ps - k.cable);
    assert_eq!(inj.occupancy_area, 24 * held as u128);
    // the acknowledgement goes back from router 1 to router 0
    let ack: Vec<_> = rows.iter().filter(|s| s.bytes == 16).collect();
    assert_eq!((ack[0].router, ack[1].router), (1, 0));
}

#[test]
fn a_buffer_history_keeps_only_its_period() {
    let all = run_probed(BUSY, &[], &everything());
    let all = all.buffer_history.unwrap();
    let (from, to) = (2_000_000, 6_000_000);
    let p = probes(Records {
        buffer_history: vec![format!("router=5,from={from} ps,to={to} ps")],
        ..Records::default()
    });
    let part = run_probed(BUSY, &[], &p).buffer_history.unwrap();
    let expected: Vec<_> = all
        .iter()
        .filter(|s| (from..to).contains(&s.arrive_ps))
        .copied()
        .collect();
    assert!(!expected.is_empty() && expected.len() < all.len());
    assert_eq!(part, expected);
}

/// The X events of a trace, per track: (start, end, category, name), in ps.
fn spans(trace: &Value) -> std::collections::BTreeMap<u64, Vec<(u64, u64, String, String)>> {
    let mut out = std::collections::BTreeMap::<u64, Vec<_>>::new();
    let ps = |v: &Value| (v.as_f64().unwrap() * 1e6).round() as u64;
    for e in trace["traceEvents"].as_array().unwrap() {
        if e["ph"] == "X" {
            let (ts, dur) = (ps(&e["ts"]), ps(&e["dur"]));
            out.entry(e["tid"].as_u64().unwrap()).or_default().push((
                ts,
                ts + dur,
                e["cat"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

#[test]
fn a_barrier_trace_has_a_track_per_rank_and_spans_that_do_not_overlap() {
    let p = probes(Records {
        trace: true,
        ..Records::default()
    });
    let r = run_probed(
        &std::fs::read_to_string(project().join("scenarios/barrier.toml")).unwrap(),
        &[
            "workload.ranks=16",
            "network.dims=[4,4]",
            "workload.args.algo=rd",
        ],
        &p,
    );
    let trace: Value = serde_json::from_str(r.trace.as_ref().unwrap()).expect("valid JSON");
    let events = trace["traceEvents"].as_array().unwrap();
    let tracks: Vec<_> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .collect();
    assert_eq!(tracks.len(), 16);
    let per_rank = spans(&trace);
    assert_eq!(per_rank.len(), 16, "every rank has spans");
    for (rank, s) in &per_rank {
        // calls, computations and waits follow one another
        let mut leaves: Vec<_> = s.iter().filter(|x| x.2 != "region").collect();
        leaves.sort();
        for w in leaves.windows(2) {
            assert!(
                w[0].1 <= w[1].0,
                "rank {rank}: {:?} overlaps {:?}",
                w[0],
                w[1]
            );
        }
        // the barrier region encloses them all and ends at the rank's finish
        let regions: Vec<_> = s.iter().filter(|x| x.2 == "region").collect();
        assert_eq!(regions.len(), 1);
        assert_eq!(regions[0].3, "rd barrier");
        assert!(leaves
            .iter()
            .all(|l| regions[0].0 <= l.0 && l.1 <= regions[0].1));
        assert_eq!(regions[0].1, r.per_rank[*rank as usize].finish_ps);
        // recursive doubling on 16 ranks: 4 puts, 4 polls
        let puts = s.iter().filter(|x| x.3 == "MGEN_rdma_put").count();
        assert_eq!(puts, 4);
        // every wait in poll ends when a put lands on this rank (the arrival that woke it)
        for w in s.iter().filter(|x| x.3 == "MGEN_rdma_poll") {
            assert!(
                s.iter().any(|a| a.2 == "arrival" && a.0 == w.1),
                "rank {rank}: poll ending at {} woken by no arrival",
                w.1
            );
        }
    }
    // a flow arrow per put: starts on the sender, ends on the receiver, later
    let flows = |ph: &str| -> Vec<(i64, u64, f64)> {
        events
            .iter()
            .filter(|e| e["ph"] == ph)
            .map(|e| {
                (
                    e["id"].as_i64().unwrap(),
                    e["tid"].as_u64().unwrap(),
                    e["ts"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let (starts, ends) = (flows("s"), flows("f"));
    assert_eq!(starts.len(), 64);
    assert_eq!(ends.len(), 64);
    for (id, from, ts) in &starts {
        let end = ends.iter().find(|e| e.0 == *id).expect("the arrow ends");
        assert_ne!(end.1, *from);
        assert!(end.2 > *ts);
    }
}

#[test]
fn message_passing_and_collectives_show_on_the_trace() {
    let p = probes(Records {
        trace: true,
        ..Records::default()
    });
    let r = run_probed(
        "[network]\ndims = [4]\n[workload]\ncode = '''
        local coll = require('mgen.coll')
        MGEN_Comp(1e-6 * MGEN_Comm_rank())
        coll.allreduce{ bytes = 64, algo = 'recursive_doubling' }
        MGEN_region('tail', MGEN_Comp, 2e-6)'''\n",
        &[],
        &p,
    );
    let trace: Value = serde_json::from_str(r.trace.as_ref().unwrap()).unwrap();
    let s = spans(&trace);
    for rank in 0..4u64 {
        let names: Vec<&str> = s[&rank].iter().map(|x| x.3.as_str()).collect();
        assert!(
            names.contains(&"coll.allreduce recursive_doubling"),
            "{names:?}"
        );
        assert!(names.contains(&"tail"));
        assert_eq!(names.iter().filter(|n| **n == "MGEN_Isend").count(), 2);
        let compute: u64 = s[&rank]
            .iter()
            .filter(|x| x.2 == "compute")
            .map(|x| x.1 - x.0)
            .sum();
        assert_eq!(compute, r.per_rank[rank as usize].compute_ps);
        let waits: u64 = s[&rank]
            .iter()
            .filter(|x| x.2 == "wait")
            .map(|x| x.1 - x.0)
            .sum();
        assert_eq!(waits, r.per_rank[rank as usize].mpi_wait_ps);
    }
    // rank 0 starts first and waits longest for its partners
    let arrivals = s[&0].iter().filter(|x| x.2 == "arrival").count();
    assert_eq!(arrivals, 2, "two messages land on rank 0");
}

#[test]
fn regions_are_checked() {
    let e = run_err("[network]\ndims = [2]\n[workload]\ncode = '''\nMGEN_region_end()'''\n");
    assert!(e.contains("no region is open") && e.contains(":1"), "{e}");
    let e = run_err("[network]\ndims = [2]\n[workload]\ncode = '''\n\nMGEN_region(5, print)'''\n");
    assert!(
        e.contains("`name` must be a string") && e.contains(":2"),
        "{e}"
    );
    let r = run("[network]\ndims = [2]\n[workload]\ncode = 'MGEN_region_begin(\"x\")'\n");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("2 regions begun and never ended")),
        "{:?}",
        r.warnings
    );
    // a region returns what its function returns
    let r = run("[network]\ndims = [1]\n[workload]\ncode = '''
        local a, b = MGEN_region('r', function(x) return x, x + 1 end, 41)
        MGEN_report('sum', a + b)'''\n");
    assert_eq!(r.metrics["sum"].mean, 83.0);
}

#[test]
fn the_command_line_writes_series_history_trace_and_pictures() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "s.toml", BUSY);
    let o = mgensim_in(
        dir.path(),
        &[
            "run",
            "s.toml",
            "--out",
            "out",
            "--plots",
            "--interval",
            "2us",
            "--buffer-history",
            "router=5,to=10us",
            "--trace",
            "t.json",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("out");
    for f in [
        "links_timeseries.csv",
        "buffer_history.csv",
        "routers.csv",
        "heatmap.svg",
        "timeline.svg",
        "trace.json",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    assert_eq!(
        std::fs::read(out.join("trace.json")).unwrap(),
        std::fs::read(dir.path().join("t.json")).unwrap()
    );
    let series = std::fs::read_to_string(out.join("links_timeseries.csv")).unwrap();
    assert!(series.lines().skip(1).all(|l| {
        let start: u64 = l.split(',').nth(1).unwrap().parse().unwrap();
        start % 2_000_000 == 0
    }));
    let svg = std::fs::read_to_string(out.join("heatmap.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<rect").count() > 10);
    // colours on the absolute scale, 0 to 100 % busy, with the unit on each tick
    assert!(svg.contains("Link utilization over time (colour: share of the time busy)"));
    assert!(
        svg.contains("\n0 %\n") && svg.contains("\n100 %\n"),
        "the scale's ticks"
    );
    // its rows are the links by name (more than 40 here: every group's first, with its
    // line in links.csv)
    let links = std::fs::read_to_string(out.join("links.csv")).unwrap();
    let first = links.lines().nth(1).unwrap();
    assert!(first.starts_with("ejection,0,0,0,"), "{first}");
    assert!(
        svg.contains("0: router 0 port 0 -&gt; NIC 0"),
        "the first row is named"
    );
    // `mgensim plot` redraws the same pictures from the folder alone
    let before = std::fs::read(out.join("timeline.svg")).unwrap();
    std::fs::remove_file(out.join("timeline.svg")).unwrap();
    let o = mgensim_in(dir.path(), &["plot", "out"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("timeline.svg")).unwrap(), before);

    // bad requests are named
    let o = mgensim_in(
        dir.path(),
        &[
            "run",
            "s.toml",
            "--out",
            "o2",
            "--buffer-history",
            "router=99",
        ],
    );
    assert!(
        stderr(&o).contains("router 99 does not exist"),
        "{}",
        stderr(&o)
    );
    let o = mgensim_in(dir.path(), &["run", "s.toml", "--interval", "1us"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
    let o = mgensim_in(dir.path(), &["plot", "."]);
    assert!(stderr(&o).contains("nothing") || stderr(&o).contains("neither"));
}

#[test]
fn a_stuck_rank_is_shown_waiting_until_the_stop() {
    let s = scenario(BROKEN_BARRIER, &[]);
    let mut sim = Simulation::new(&s).expect("builds");
    sim.probe(&probes(Records {
        trace: true,
        ..Records::default()
    }))
    .expect("probes");
    let e = sim.run().expect_err("the barrier deadlocks");
    let r = e.partial.expect("a partial report");
    // the summary separates finished from stuck ranks
    assert_eq!((r.ranks.count, r.ranks.finished), (16, 15));
    let u = &r.ranks.unfinished;
    assert_eq!(u.len(), 1);
    assert_eq!((u[0].rank, u[0].state.as_str()), (7, "blocked"));
    assert!(
        u[0].waits_for.starts_with("MGEN_rdma_poll(tag 3)"),
        "{}",
        u[0].waits_for
    );
    assert_eq!(u[0].at, "inline:8", "the line of the poll");
    assert_eq!(u[0].since_ps, r.per_rank[7].finish_ps);
    assert!(!r.per_rank[7].finished && r.per_rank[6].finished);
    let finished_max = (0..16)
        .filter(|&i| i != 7)
        .map(|i| r.per_rank[i].finish_ps)
        .max()
        .unwrap();
    assert_eq!(
        r.ranks.finish_ps.max, finished_max,
        "the stuck rank is not in the spread"
    );
    let text = r.to_string();
    assert!(text.contains("15 of 16 ranks finished"), "{text}");
    assert!(text.contains("rank 7 blocked since"), "{text}");
    // on the timeline: a wait from the poll to the stop, and its region open until then
    let stop = span_ps(&r);
    let v: Value = serde_json::from_str(r.trace.as_deref().unwrap()).unwrap();
    let spans: Vec<&Value> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 7)
        .collect();
    let ps = |x: &Value| (x.as_f64().unwrap() * 1e6).round() as u64;
    let stuck: Vec<&&Value> = spans.iter().filter(|e| e["cat"] == "stuck").collect();
    assert_eq!(stuck.len(), 1);
    assert_eq!(ps(&stuck[0]["ts"]), u[0].since_ps);
    assert_eq!(ps(&stuck[0]["ts"]) + ps(&stuck[0]["dur"]), stop);
    assert_eq!(stuck[0]["args"]["at"], u[0].at.as_str());
    let region = spans.iter().find(|e| e["cat"] == "region").unwrap();
    assert_eq!(ps(&region["ts"]) + ps(&region["dur"]), stop);
    // a finished rank's region ends at its end
    let six: Vec<&Value> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 6 && e["cat"] == "region")
        .collect();
    assert_eq!(
        ps(&six[0]["ts"]) + ps(&six[0]["dur"]),
        r.per_rank[6].finish_ps
    );
    // the timeline picture marks it
    let svg = mgensim::timeline_svg(r.trace.as_deref().unwrap()).unwrap();
    assert!(svg.contains("rank 7 (stuck)") && svg.contains("stuck until the stop"));
    assert!(
        (0..16).all(|i| svg.contains(&format!("\nrank {i}\n")) || i == 7),
        "every rank is labelled"
    );
}

#[test]
fn a_fixed_interval_too_fine_for_the_run_stops_it_with_the_figures_at_the_same_epoch() {
    // 16 routers of a 4x4 torus: 4 ports each to routers, and a NIC link both ways, 96 link
    // directions; 48 KiB of 48-byte counters hold 1024 of them, 10 windows of 100 ns: the
    // first microsecond, and the run's puts (the first on a link at 831 ns) go on far past
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "s.toml", BUSY);
    let run = |out: &str, interval: &str, partitions: &str| {
        mgensim_in(
            dir.path(),
            &[
                "run",
                "s.toml",
                "--interval",
                interval,
                "--out",
                out,
                "--partitions",
                partitions,
                "--threads",
                "2",
                "-q",
                "--set",
                "limits.time_series_memory=\"48 KiB\"",
            ],
        )
    };
    let one = run("one", "100ns", "1");
    assert_eq!(one.status.code(), Some(3), "{}", stderr(&one));
    let err = stderr(&one);
    assert!(
        err.contains("--interval 100 ns holds 10 windows of 96 link directions")
            && err.contains("`limits.time_series_memory` = 48 KiB, the first 1 us of the run"),
        "{err}"
    );
    // nothing is recorded past the last window, and the run stopped at the end of an epoch
    // (2^17 ps), the one in which something first reached past it
    let series = std::fs::read_to_string(dir.path().join("one/links_timeseries.csv")).unwrap();
    let ends = csv_records(&series)
        .iter()
        .skip(1)
        .map(|r| r[1].parse::<u64>().unwrap() + r[2].parse::<u64>().unwrap())
        .max()
        .unwrap();
    assert!(ends > 831_000 && ends <= 1_000_000, "{ends}");
    let at = err
        .split("at simulated time ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    let at = at.parse::<Time>().unwrap().ps();
    assert!(at % (1 << 17) == 0 && at <= 1_000_000 + (1 << 17), "{at}");
    // the same stop, the same files, in two partitions
    let two = run("two", "100ns", "2");
    assert_eq!(stderr(&two), err);
    for f in ["links_timeseries.csv", "ranks.csv", "links.csv"] {
        let a = std::fs::read(dir.path().join("one").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("two").join(f)).unwrap();
        assert!(a == b, "{f} differs between one and two partitions");
    }
    // a width whose windows hold the run is no trouble
    let wide = run("wide", "10us", "2");
    assert!(wide.status.success(), "{}", stderr(&wide));
}

#[test]
fn a_time_series_that_cannot_be_drawn_is_named_by_file_line_and_column() {
    // `mgensim plot` on a folder whose links_timeseries.csv was edited: each bad line is an
    // error naming the file, the line and the column, quoting at most 40 characters
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "s.toml", BUSY);
    let o = mgensim_in(
        dir.path(),
        &["run", "s.toml", "--interval", "1us", "--out", "out", "-q"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let path = dir.path().join("out/links_timeseries.csv");
    let good = std::fs::read_to_string(&path).unwrap();
    let header = good.lines().next().unwrap().to_string();
    let long = "9".repeat(100_000);
    let cases = [
        ("5,0,0,8,1,0,0,0", "line 3: `window_ps` is 0"),
        (
            "5,18446744073709551000,1000,8,1,0,0,0",
            "line 3: the window ends past",
        ),
        (
            "5,0,1000,8,1,2000,2,0",
            "line 3: `busy_ps` 2000 is longer than its window",
        ),
        (
            "x5,0,1000,8,1,0,0,0",
            "line 3: `link` is `x5`, not a number",
        ),
        (
            &format!("5,{long},1000,8,1,0,0,0"),
            "line 3: `window_start_ps` is `9999",
        ),
    ];
    let mut failures = Vec::new();
    for (line, want) in &cases {
        let first = good.lines().nth(1).unwrap();
        std::fs::write(&path, format!("{header}\n{first}\n{line}\n")).unwrap();
        let o = mgensim_in(dir.path(), &["plot", "out"]);
        let err = stderr(&o);
        if o.status.code() != Some(1)
            || !err.contains("links_timeseries.csv")
            || !err.contains(want)
            || err.len() > 400
        {
            failures.push(format!(
                "{want}: exit {:?}: {}",
                o.status.code(),
                &err[..err.len().min(300)]
            ));
        }
    }
    assert_no_failures(&failures, cases.len());
}
