//! What a run stopped early writes of its links: every output counts up to the stop, alike.
//! A packet still on a link, a buffer still holding bytes, a flow still moving (at flow level:
//! `tests/flow_model.rs`) count in `links.csv` and in the time series up to the stop's time,
//! so that a link's windows add up to its line; figures worked out by hand.

mod common;
use common::*;
use mgensim::run::Records;
use mgensim::{Probes, Report, Simulation};

/// The probes `r` asks for, as `mgensim run`'s options would.
fn probes(r: Records) -> Probes {
    r.probes().expect("valid options")
}

fn run_probed(toml: &str, sets: &[&str], p: &Probes) -> Report {
    let s = scenario(toml, sets);
    let mut sim = Simulation::new(&s).expect("builds");
    sim.probe(p).expect("probes");
    sim.run().unwrap_or_else(|e| panic!("run failed: {e}"))
}

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
/// windows are the windows of the same run left to finish, up to the stop, and the part of
/// the packet past the stop (in `links.csv`, counted whole) is what they leave out; no window
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
    let mut cut = 0;
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
        // what the finished run was busy past the stop: the part of the packet on the link at
        // the stop, and the packets that started after it
        let later = full.per_link[i].busy.ps() - link.busy.ps();
        assert_eq!(past, link.busy.ps() - counted + later, "link {i}");
        cut += link.busy.ps() - counted;
    }
    assert!(cut > 0, "a packet was on a link at the stop");
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
