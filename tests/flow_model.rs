//! The flow model (`network.model = "flow"`, docs/model.md §3a) against hand calculations and
//! against the packet model: uncontended messages within one packet's serialization of the
//! packets' time, equal shares of a shared link, and a flow limited elsewhere leaving its share
//! to the others (max-min).

mod common;
use common::*;

/// Rank 0 puts `bytes` to rank `h` of an 8-router line, which polls; `model` is the network
/// model; `net` more `[network]` lines.
fn put(model: &str, h: u32, bytes: u64, net: &str) -> mgensim::Report {
    let code = format!(
        "local r = MGEN_Comm_rank()
         if r == 0 then MGEN_rdma_put({h}, {bytes}, 7)
         elseif r == {h} then MGEN_rdma_poll(7) end"
    );
    run(&format!(
        "[network]\ntopology = 'mesh'\ndims = [8]\nmodel = '{model}'\n{net}\n\
         [workload]\ncode = '''{code}'''\n"
    ))
}

#[test]
fn a_lone_put_takes_its_first_packets_latency_then_the_rest_at_the_bottleneck() {
    let p = Params::nsim_ace();
    // one packet: exactly the packet model's sum of parts (DMA, flight, DMA)
    let one = put("flow", 1, 64, "").predicted_time_ps;
    assert_eq!(one, p.dma(64) + p.fly(80, 2) + p.dma(64));
    // 2 MiB: the first 2 KiB packet's latency, then the other 1023 packets' payload at the
    // DMA's 2.8 GB/s (the bottleneck: the link carries 2064 B per 2048 at 4 GB/s)
    let s = 2 * 1024 * 1024;
    let first = p.dma(2048) + p.fly(2064, 4) + p.dma(2048);
    let rest = ((s - 2048) as f64 / 2.8e9 * 1e12).ceil() as u64;
    let flow = put("flow", 3, s, "").predicted_time_ps;
    assert!(
        flow.abs_diff(first + rest) <= 2,
        "flow {flow} against {} by hand",
        first + rest
    );
}

#[test]
fn uncontended_puts_predict_within_one_packet_of_the_packet_model() {
    let p = Params::nsim_ace();
    // one packet's serialization at the bottleneck (its DMA, 2048 B at 2.8 GB/s)
    let packet = p.dma(2048);
    for (h, bytes) in [
        (1, 1),
        (1, 2048),
        (1, 2 << 20),
        (7, 1),
        (7, 2048),
        (7, 2 << 20),
    ] {
        let (f, k) = (
            put("flow", h, bytes, "").predicted_time_ps,
            put("packet", h, bytes, "").predicted_time_ps,
        );
        assert!(
            f.abs_diff(k) <= packet,
            "{bytes} B over {h} hops: flow {f}, packet {k} ps"
        );
        if bytes <= 2048 {
            assert_eq!(f, k, "{bytes} B over {h} hops: one packet is the same time");
        }
    }
}

/// Puts of 2 MiB at once, each `(from, to)` by its own rank, with DMA fast enough that only
/// links share; the time at which rank `of` had its put.
fn landed(puts: &[(u32, u32)], of: u32) -> u64 {
    let list: Vec<String> = puts.iter().map(|(a, b)| format!("{{{a}, {b}}}")).collect();
    let code = format!(
        "local me, puts = MGEN_Comm_rank(), {{{}}}
         for _, p in ipairs(puts) do
           if p[1] == me then MGEN_rdma_put(p[2], 2097152, 1) end
         end
         local n = 0
         for _, p in ipairs(puts) do if p[2] == me then n = n + 1 end end
         for _ = 1, n do MGEN_rdma_poll(1) end",
        list.join(", ")
    );
    let r = run(&format!(
        "[network]\ntopology = 'mesh'\ndims = [4]\nmodel = 'flow'\n\
         [node]\ndma_bandwidth = '1000 GB/s'\nranks_per_node = 4\n\
         [placement]\npolicy = 'linear'\n[workload]\nranks = 16\ncode = '''{code}'''\n"
    ));
    r.per_rank[of as usize].finish_ps
}

/// 2 MiB in 1024 packets of 2048 + 16 B: its bytes on the wire.
const WIRE: f64 = 2_113_536.0;

/// Nanoseconds (rounded to ps) for the wire bytes of 2 MiB at `gbps` GB/s.
fn at(gbps: f64) -> u64 {
    (WIRE / gbps * 1e3).round() as u64
}

#[test]
fn flows_on_one_link_share_it_equally() {
    // ranks 4k..4k+3 are node k's. Node 0 puts to node 3 from ranks 0 and 1 (and from 2):
    // the flows share every link of the route, each getting 4/2 (4/3) GB/s.
    let alone = landed(&[(0, 12)], 12);
    let two = landed(&[(0, 12), (1, 13)], 12);
    let three = landed(&[(0, 12), (1, 13), (2, 14)], 12);
    assert!(
        (two - alone).abs_diff(at(2.0) - at(4.0)) <= 2,
        "{}",
        two - alone
    );
    assert!(
        (three - alone).abs_diff(at(4.0 / 3.0) - at(4.0)) <= 2,
        "{}",
        three - alone
    );
    assert_eq!(
        landed(&[(0, 12), (1, 13), (2, 14)], 14),
        three,
        "equal shares end together"
    );
}

#[test]
fn a_flow_limited_elsewhere_leaves_its_share_to_the_others() {
    // B (node 1 -> 3) and C (node 2 -> 3) share the link into node 3 with A (node 0 -> 3).
    // Alone there, the three get 4/3 GB/s each. But node 0 also sends three flows to nodes 1
    // and 2, so its injection link gives A only 1 GB/s, and B and C share the 3 GB/s left:
    // 1.5 each, until they end (before anything else does).
    let (a, b, c) = ((0, 12), (4, 13), (8, 14));
    let alone = landed(&[b], 13);
    let equal = landed(&[a, b, c], 13);
    let limited = landed(&[a, b, c, (1, 5), (2, 9), (3, 6)], 13);
    assert!((equal - alone).abs_diff(at(4.0 / 3.0) - at(4.0)) <= 2);
    assert!(
        (limited - alone).abs_diff(at(1.5) - at(4.0)) <= 2,
        "{}",
        limited - alone
    );
    assert!(limited < equal);
}

#[test]
fn a_flow_run_repeats_exactly_and_reports_its_links() {
    let toml = "[network]\ntopology = 'torus'\ndims = [4, 4]\nmodel = 'flow'\n\
                [workload]\nscript = 'random_ring.lua'\nranks = 16\nargs = { bytes = 65536 }\n";
    let dir = project().join("scenarios");
    let s = mgensim::Scenario::from_str_with(toml, &dir.join("x.toml"), &[], false).expect("valid");
    let once = || {
        mgensim::Simulation::new(&s)
            .expect("builds")
            .run()
            .expect("runs")
    };
    let (a, b) = (once(), once());
    assert_eq!(deterministic_json(&a), deterministic_json(&b));
    // every payload byte is on the links of its route, with its headers
    assert_eq!(a.network.bytes, b.network.bytes);
    let carried: u64 = a.per_link.iter().map(|l| l.bytes).sum();
    assert_eq!(carried, a.network.link_bytes);
    assert!(a.per_link.iter().all(|l| l.credit_blocked.ps() == 0));
}

#[test]
fn buffer_histories_are_refused_at_flow_level() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = tmp_file(
        dir.path(),
        "f.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\nmodel = 'flow'\n[workload]\ncode = ''\n",
    );
    let out = mgensim_in(
        dir.path(),
        &[
            "run",
            path.to_str().expect("utf-8"),
            "--out",
            "o",
            "--buffer-history",
            "router=1",
        ],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("--buffer-history") && err.contains("flow model"),
        "{err}"
    );
}

/// Runs `toml` (written in a temporary folder) with a time series of `interval` and its
/// pictures, and checks that no window of `links_timeseries.csv` is busy longer than it lasts
/// and that a link's windows add up to its line in `links.csv`; returns the longest a link was
/// busy (ps) and whether a window was busy all along.
fn series_fits_and_adds_up(toml: &str, interval: &str) -> (u64, bool) {
    let dir = tempfile::tempdir().unwrap();
    let scenario = common::tmp_file(dir.path(), "flows.toml", toml);
    let out = dir.path().join("out");
    let o = common::mgensim_in(
        dir.path(),
        &[
            "run",
            scenario.to_str().unwrap(),
            "--interval",
            interval,
            "--plots",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let read = |name: &str| common::csv_records(&std::fs::read_to_string(out.join(name)).unwrap());
    let series = read("links_timeseries.csv");
    let links = read("links.csv");
    let col = |rows: &[Vec<String>], name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (link, width, busy, bytes, packets) = (
        col(&series, "link"),
        col(&series, "window_ps"),
        col(&series, "busy_ps"),
        col(&series, "bytes"),
        col(&series, "packets"),
    );
    let mut sums = vec![(0u64, 0u64, 0u64); links.len() - 1];
    let mut full = false;
    for row in &series[1..] {
        let b: u64 = row[busy].parse().unwrap();
        let w: u64 = row[width].parse().unwrap();
        assert!(b <= w, "a window {w} ps long busy for {b} ps: {row:?}");
        full |= b == w;
        let s = &mut sums[row[link].parse::<usize>().unwrap()];
        s.0 += b;
        s.1 += row[bytes].parse::<u64>().unwrap();
        s.2 += row[packets].parse::<u64>().unwrap();
    }
    let (lb, lbytes, lpackets) = (
        col(&links, "busy_ps"),
        col(&links, "bytes"),
        col(&links, "packets"),
    );
    let mut busiest = 0;
    for (i, row) in links[1..].iter().enumerate() {
        let want: (u64, u64, u64) = (
            row[lb].parse().unwrap(),
            row[lbytes].parse().unwrap(),
            row[lpackets].parse().unwrap(),
        );
        assert_eq!(sums[i], want, "link {i}: the windows against links.csv");
        busiest = busiest.max(want.0);
    }
    assert!(out.join("heatmap.svg").exists());
    (busiest, full)
}

/// An all-to-all of 200 kB puts on a 4x4 torus at flow level, with a time series of 5 us
/// windows: many flows share each link at once, each at its max-min rate.
#[test]
fn the_time_series_of_shared_links_is_never_busier_than_its_windows_and_adds_up() {
    let (busiest, _) = series_fits_and_adds_up(
        "[network]\ntopology = 'torus'\ndims = [4, 4]\nmodel = 'flow'\n[workload]\nranks = 16\n\
         code = '''\nlocal me, p = MGEN_Comm_rank(), MGEN_Comm_size()\nlocal hs = {}\n\
         for i = 1, p - 1 do hs[#hs + 1] = MGEN_rdma_put((me + i) % p, 200000, 1) end\n\
         for _ = 1, p - 1 do MGEN_rdma_poll(1) end\n\
         for _, h in ipairs(hs) do MGEN_acp_complete(h) end\n'''\n",
        "5us",
    );
    // the links are shared: the busiest is busy for many windows' worth in all
    assert!(busiest > 10 * 5_000_000, "{busiest}");
}

/// On a ring of 4 at flow level each rank puts 50, 100 and 150 kB to the next three at once:
/// the flows fill the links, and each put's acknowledgement (16 B: 4 ns at 4 GB/s) crosses
/// links they fill. In windows of 10 ns a link is busy at most all of each window, and its
/// windows still add up to its busy time.
#[test]
fn a_link_full_of_flows_is_busy_at_most_all_of_a_short_window() {
    let (_, full) = series_fits_and_adds_up(
        "[network]\ntopology = 'torus'\ndims = [4]\nmodel = 'flow'\n[workload]\n\
         code = '''\nlocal me, p = MGEN_Comm_rank(), MGEN_Comm_size()\nlocal hs = {}\n\
         for i = 1, 3 do hs[i] = MGEN_rdma_put((me + i) % p, 50000 * i, i) end\n\
         for i = 1, 3 do MGEN_rdma_poll(i) end\n\
         for i = 1, 3 do MGEN_acp_complete(hs[i]) end\n'''\n",
        "10ns",
    );
    assert!(full, "some window is busy all along");
}

/// At flow level on a ring of 4, rank 0 puts 4 KiB to rank 1 at 0: one flow over NIC 0's
/// injection link, router 0's link to router 1 and router 1's to NIC 1, at the transmit DMA's
/// 2.8 GB/s (the links carry 4,128 B per 4,096 at 4 GB/s: faster). Rank 2 computes 500 ns and
/// puts 16 B to rank 3 on other links: stopped by `--until 505ns` (the run's last event is
/// that put, at 500 ns; every event up to 505 ns is processed, and the run ends there) with
/// the first flow in flight. By then it has moved 1,414 B (505 ns at 2.8 GB/s) of its 4,096:
/// each of its links was busy 1,032,000 ps (4,128 B at 4 GB/s) × 1,414 / 4,096 = 356,261 ps
/// of it (rounded down), and the first of its two packets (2,048 B and a 16-byte header) had
/// begun. `links.csv` and the time series count that much, alike.
#[test]
fn a_flow_in_flight_at_the_stop_counts_up_to_the_stop_in_links_csv_and_the_series() {
    let toml = "[network]\ntopology = 'torus'\ndims = [4]\nmodel = 'flow'\n[workload]\n\
                ranks = 4\ncode = '''\nlocal me = MGEN_Comm_rank()\n\
                if me == 0 then MGEN_rdma_put(1, 4096, 1)\n\
                elseif me == 2 then MGEN_Comp(500e-9) MGEN_rdma_put(3, 16, 2) end\n'''\n";
    let p = mgensim::run::Records {
        interval: Some("100 ns".into()),
        ..Default::default()
    }
    .probes()
    .unwrap();
    let s = scenario(toml, &["limits.simulated_time=\"505 ns\""]);
    let mut sim = mgensim::Simulation::new(&s).expect("builds");
    sim.probe(&p).expect("probes");
    let r = *sim.run().expect_err("stops at 505 ns").partial.unwrap();
    assert_eq!(
        r.predicted_time_ps, 505_000,
        "the limit, past the last event (500 ns)"
    );
    let on_path = |i: &usize| {
        let l = &r.per_link[*i];
        match l.port {
            None => l.from == 0,
            Some(_) => (l.from, l.to, l.to_nic) == (0, 1, false) || (l.from, l.to_nic) == (1, true),
        }
    };
    let path: Vec<usize> = (0..r.per_link.len()).filter(on_path).collect();
    assert_eq!(path.len(), 3, "{:?}", r.per_link);
    let series = r.series.as_ref().unwrap();
    for &i in &path {
        let l = &r.per_link[i];
        assert_eq!(
            (l.bytes, l.packets, l.busy.ps()),
            (2064, 1, 356_261),
            "{l:?}"
        );
        let mut sum = (0, 0, 0);
        for row in series.rows.iter().filter(|row| row.link as usize == i) {
            sum.0 += row.counts.bytes;
            sum.1 += row.counts.packets;
            sum.2 += row.counts.busy_ps;
        }
        assert_eq!(sum, (2064, 1, 356_261), "the windows of link {i}");
    }
    // the summary's link totals include them
    let bytes: u64 = r.per_link.iter().map(|l| l.bytes).sum();
    assert_eq!(bytes, r.network.link_bytes);
}
