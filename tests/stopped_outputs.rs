//! What a run stopped early writes of its links: every output counts up to the stop, alike.
//! A packet still on a link, a buffer still holding bytes, a flow still moving (at flow level:
//! `tests/flow_model.rs`) count in `links.csv` and in the time series up to the stop's time,
//! so that a link's windows add up to its line; figures worked out by hand.

mod common;
use common::*;
use mgensim::run::Records;
use mgensim::{Report, Simulation};

/// Three ranks on a ring of three routers each put 100 B to the next, rank r after computing
/// r × 100 ns: at 200 ns a packet is on a link.
const LATE_PUTS: &str = "[network]\ntopology = 'torus'\ndims = [3]\n[workload]\ncode = '''
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
MGEN_Comp(1e-7 * me)
local h = MGEN_rdma_put((me + 1) % p, 100, 1)
MGEN_rdma_poll(1)
MGEN_acp_complete(h)
'''\n";

/// The lines of `links_timeseries.csv` of `r` where a link sent something: (link,
/// window_start_ps, window_ps, bytes, packets, busy_ps).
fn sending(r: &Report) -> Vec<[u64; 6]> {
    let csv = mgensim::output::table_csv(r, "links_timeseries")
        .unwrap()
        .unwrap();
    let cell = |l: &str, i: usize| l.split(',').nth(i).unwrap().parse::<u64>().unwrap();
    let lines = csv.lines().skip(1);
    let lines = lines.map(|l| [0, 1, 2, 3, 4, 5].map(|i| cell(l, i)));
    lines.filter(|l| l[3] > 0 || l[5] > 0).collect()
}

/// A run stopped while a packet is on a link counts the link busy up to the stop only: its
/// windows are the windows of the same run left to finish, up to the stop, and add up to its
/// line in `links.csv`; the part of the packet past the stop is what both leave out; no window
/// is busy longer than it lasts, so the pictures of the stopped run are drawn.
#[test]
fn a_packet_on_a_link_when_the_run_stops_is_busy_up_to_the_stop_only() {
    let p = probes(Records {
        interval: Some("50 ns".into()),
        ..Records::default()
    });
    let full = run_probed(LATE_PUTS, &[], &p);
    let s = scenario(LATE_PUTS, &["limits.simulated_time=\"200 ns\""]);
    let mut sim = Simulation::new(&s).expect("builds");
    sim.probe(&p).expect("probes");
    let stopped = *sim.run().expect_err("stops at 200 ns").partial.unwrap();
    let stop = stopped.predicted_time_ps;
    assert_eq!(stop, 200_000);
    let lines = sending(&stopped);
    let (before, after): (Vec<_>, Vec<_>) = sending(&full).into_iter().partition(|l| l[1] < stop);
    assert_eq!(lines, before, "the finished run's windows up to the stop");
    for l in &lines {
        assert_eq!(l[2], 50_000.min(stop - l[1]), "{l:?}");
        assert!(l[5] <= l[2], "busy within its window: {l:?}");
    }
    for (i, link) in stopped.per_link.iter().enumerate() {
        let counted: u64 = lines
            .iter()
            .filter(|l| l[0] == i as u64)
            .map(|l| l[5])
            .sum();
        let past: u64 = after
            .iter()
            .filter(|l| l[0] == i as u64)
            .map(|l| l[5])
            .sum();
        assert_eq!(
            counted,
            link.busy.ps(),
            "link {i}: its windows add up to links.csv"
        );
        // what the finished run was busy past the stop: the part of the packet on the link at
        // the stop, and the packets that started after it
        assert_eq!(
            past,
            full.per_link[i].busy.ps() - link.busy.ps(),
            "link {i}"
        );
    }
    // a link that started no packet past the stop and was busy past it had one on it then
    let on_it = stopped.per_link.iter().zip(&full.per_link);
    assert!(
        on_it
            .filter(|(s, f)| s.packets == f.packets && s.busy < f.busy)
            .count()
            > 0,
        "a packet was on a link at the stop"
    );
    // the pictures of the stopped run (an adaptive width) are drawn
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "s.toml", LATE_PUTS);
    let o = mgensim_in(
        dir.path(),
        &[
            "run", "s.toml", "--plots", "--until", "200ns", "--out", "o", "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(dir.path().join("o/heatmap.svg").exists(), "{}", stderr(&o));
}

/// On a ring of 8 (DMA at 4 GB/s, links at 4 GB/s), rank 0 puts 4 KiB to rank 1: two packets
/// of 2,048 B and a 16-byte header, the first read by 512 ns (2,048 B at 4 GB/s) and on the
/// injection link from then to 1,028 ns (2,064 B at 4 GB/s: 516 ns). Rank 1 computes 600 ns
/// and puts to rank 2: stopped by `--until 600ns` (that put, at 600 ns, is processed; the
/// run ends there), with the first packet on NIC 0's injection link and held in router 0's
/// input buffer (its space is taken as it starts).
const ON_A_LINK_AT_THE_STOP: &str = "[network]\ntopology = 'torus'\ndims = [8]\n\
[node]\ndma_bandwidth = '4 GB/s'\n[workload]\nranks = 8\ncode = '''
local me = MGEN_Comm_rank()
if me == 0 then MGEN_rdma_put(1, 4096, 1)
elseif me == 1 then MGEN_Comp(600e-9) MGEN_rdma_put(2, 4096, 2) end
'''\n";

/// [`ON_A_LINK_AT_THE_STOP`] stopped at 600 ns, with a time series of 100 ns windows; and
/// the line of NIC 0's injection link in `links.csv`.
fn stopped_with_a_packet_on_a_link() -> (Report, usize) {
    let p = probes(Records {
        interval: Some("100 ns".into()),
        ..Records::default()
    });
    let s = scenario(ON_A_LINK_AT_THE_STOP, &["limits.simulated_time=\"600 ns\""]);
    let mut sim = Simulation::new(&s).expect("builds");
    sim.probe(&p).expect("probes");
    let r = *sim.run().expect_err("stops at 600 ns").partial.unwrap();
    assert_eq!(r.predicted_time_ps, 600_000, "the limit, rank 1's put");
    let nic0 = r
        .per_link
        .iter()
        .position(|l| l.port.is_none() && l.from == 0)
        .expect("NIC 0's injection link");
    (r, nic0)
}

/// A packet on a link at the stop counts in `links.csv` busy up to the stop, as in the time
/// series: NIC 0's injection link from 512 ns to the stop at 600 ns, 88,000 ps (not the
/// packet's 516,000); its bytes and its packet count whole, as its head left before the stop.
#[test]
fn a_packet_on_a_link_at_the_stop_is_busy_in_links_csv_up_to_the_stop() {
    let (r, nic0) = stopped_with_a_packet_on_a_link();
    let l = &r.per_link[nic0];
    assert_eq!((l.bytes, l.packets), (2064, 1));
    assert_eq!(l.busy.ps(), 600_000 - 512_000);
    let s = r.series.as_ref().unwrap();
    let windows: u64 = s
        .rows
        .iter()
        .filter(|row| row.link as usize == nic0)
        .map(|row| row.counts.busy_ps)
        .sum();
    assert_eq!(windows, 88_000, "its windows add up to links.csv");
    // the utilization over the run: 88,000 of 600,000 ps
    let csv = mgensim::output::table_csv(&r, "links").unwrap().unwrap();
    let line = csv.lines().nth(1 + nic0).unwrap();
    assert!(
        line.starts_with("injection,0,,0,2064,1,88000,0.146667,"),
        "{line}"
    );
}

/// A buffer holding bytes at the stop has them in the time series up to the stop, as in
/// `links.csv`: router 0's input buffer from NIC 0 holds the packet's 2,064 B from 512 ns to
/// 600 ns: 2,064 × 88,000 byte·ps, a mean of 1,816.32 B over the window [500, 600) ns and of
/// 302.72 B over the run.
#[test]
fn a_buffer_holding_bytes_at_the_stop_is_in_the_time_series_up_to_the_stop() {
    let (r, nic0) = stopped_with_a_packet_on_a_link();
    let area = 2064 * 88_000;
    assert_eq!(r.per_link[nic0].occupancy_area, area);
    let s = r.series.as_ref().unwrap();
    let windows: Vec<u128> = s
        .rows
        .iter()
        .filter(|row| row.link as usize == nic0 && row.counts.occupancy > 0)
        .map(|row| row.counts.occupancy)
        .collect();
    assert_eq!(windows, [area], "one window, [500, 600) ns");
    let csv = mgensim::output::table_csv(&r, "links_timeseries")
        .unwrap()
        .unwrap();
    let line = format!("{nic0},500000,100000,2064,1,88000,0.880000,1816.320");
    assert!(csv.lines().any(|l| l == line), "{csv}");
    let links = mgensim::output::table_csv(&r, "links").unwrap().unwrap();
    assert!(
        links
            .lines()
            .nth(1 + nic0)
            .unwrap()
            .ends_with(",2064,302.720"),
        "{links}"
    );
}

/// Node 0's and node 1's transmit and receive DMA busy times in `nodes.csv` of `r` (ps).
fn dma_busy(r: &Report) -> [[u64; 2]; 2] {
    let csv = mgensim::output::table_csv(r, "nodes").unwrap().unwrap();
    let rows = csv_records(&csv);
    let cell = |n: usize, i: usize| rows[n + 1][i].parse::<u64>().unwrap();
    [[cell(0, 3), cell(0, 5)], [cell(1, 3), cell(1, 5)]]
}

/// A DMA read or write under way at the stop is busy up to the stop only, as a link is: rank 0
/// puts 4 KiB to rank 1 with DMA at 4 GB/s, two 2,048-byte reads of 512 ns each (0 to 1,024
/// ns). Stopped at 700 ns, node 0's transmit DMA was busy 700 ns (it said 1,024 ns, counted
/// whole as each read began). At any stop, no DMA is busy longer than the run, and the
/// figures grow with the stop to the finished run's.
#[test]
fn a_dma_read_or_write_at_the_stop_is_busy_up_to_the_stop_only() {
    let toml = "[network]\ntopology = 'torus'\ndims = [8]\n[node]\ndma_bandwidth = '4 GB/s'\n\
                [workload]\nranks = 8\ncode = 'if MGEN_Comm_rank() == 0 then \
                MGEN_rdma_put(1, 4096, 1) end'\n";
    let stopped = |t: u64| {
        let s = scenario(toml, &[&format!("limits.simulated_time=\"{t} ps\"")]);
        let r = Simulation::new(&s).unwrap().run();
        r.unwrap_or_else(|e| *e.partial.unwrap())
    };
    assert_eq!(dma_busy(&stopped(700_000))[0][0], 700_000);
    let full = run(toml);
    let whole = dma_busy(&full);
    assert_eq!(whole[0][0], 1_024_000, "two reads of 512 ns");
    assert_eq!(whole[1][1], 1_024_000, "two writes of 512 ns");
    let mut last = [[0; 2]; 2];
    // (the ranks end at once; the network goes quiet once the put is in)
    let quiet = full.network.quiet_ps;
    assert!(quiet > 1_024_000, "{quiet}");
    for t in (100_000..=quiet + 100_000).step_by(97_000) {
        let b = dma_busy(&stopped(t));
        for (n, node) in b.iter().enumerate() {
            for (k, &busy) in node.iter().enumerate() {
                assert!(busy <= t, "node {n} DMA {k}: {busy} ps busy by {t}");
                assert!(
                    busy >= last[n][k],
                    "node {n} DMA {k} at {t}: {busy} < {last:?}"
                );
            }
        }
        last = b;
    }
    assert_eq!(last, whole, "past the end, the finished run's");
}
