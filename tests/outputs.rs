//! The output folder (`mgensim run --out DIR`): links.csv and ranks.csv add up to
//! what the packets did and where the ranks' time went.

mod common;
use common::*;

/// The rows of a CSV text as maps from column to value.
fn rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            head.iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn num(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} = {}", row[col]))
}

#[test]
fn link_counters_add_up_to_the_packets_and_their_hops() {
    // one put of 4096 B from node 0 to node 2 of a 3-node mesh: 2 data packets of 2048 B and
    // one control packet, each 16 B of header, over 4 links (NIC, 2 router links, NIC)
    let r = run(
        "[network]\ntopology = 'mesh'\ndims = [3]\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me == 0 then MGEN_acp_complete(MGEN_rdma_put(2, 4096, 0)) end
        if me == 2 then MGEN_rdma_poll(0) end'''\n",
    );
    let links = rows(&mgensim::output::table_csv(&r, "links").unwrap().unwrap());
    let bytes: f64 = links.iter().map(|l| num(l, "bytes")).sum();
    let packets: f64 = links.iter().map(|l| num(l, "packets")).sum();
    assert_eq!(bytes as u64, (4096 + 3 * 16) * 4);
    assert_eq!(bytes as u64, r.network.link_bytes);
    assert_eq!(packets as u64, 3 * 4);
    assert_eq!(packets as u64, r.network.packet_hops);
    // the links the put used, and only those: 2 injections, 2 ejections, 4 router links
    let used: Vec<_> = links.iter().filter(|l| num(l, "packets") > 0.0).collect();
    assert_eq!(used.len(), 8);
    assert_eq!(links.len() as u64, r.network.links);
    assert_eq!(
        r.network.credit_blocked_ps, 0,
        "one put never waits for credit"
    );
    for l in &links {
        let u = num(l, "utilization");
        assert!((0.0..=1.0).contains(&u), "{l:?}");
        assert!(num(l, "busy_ps") <= span_ps(&r) as f64);
    }
}

#[test]
fn backpressure_shows_as_time_blocked_on_credit() {
    // everyone puts 64 KiB to rank 0 at once through buffers of one packet: the links into
    // rank 0's router back up
    let r = run("[network]\ntopology = 'mesh'\ndims = [4, 4]\nbuffer_bytes = '2064 B'\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me > 0 then MGEN_acp_complete(MGEN_rdma_put(0, 65536, 0))
        else for _ = 1, 15 do MGEN_rdma_poll(0) end end'''\n");
    assert!(r.network.credit_blocked_ps > 0);
    let blocked = r
        .per_link
        .iter()
        .filter(|l| l.credit_blocked.ps() > 0)
        .count();
    assert!(blocked >= 2, "{blocked} links blocked");
}

#[test]
fn a_run_stopped_under_backpressure_counts_each_links_blocked_time_up_to_the_stop() {
    // the scenario above, stopped after ever more events: a link blocked at the stop counts
    // its open spell up to then, so no link's time exceeds the stop's, and none shrinks as
    // the run goes on (each link's time is kept as Σ end − Σ start of its spells)
    let toml = "[network]\ntopology = 'mesh'\ndims = [4, 4]\nbuffer_bytes = '2064 B'\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me > 0 then MGEN_acp_complete(MGEN_rdma_put(0, 65536, 0))
        else for _ = 1, 15 do MGEN_rdma_poll(0) end end'''\n";
    let mut before: Option<Vec<u64>> = None;
    for events in [100, 200, 400, 1000, 2000] {
        let s = scenario(toml, &[&format!("limits.events={events}")]);
        let err = mgensim::Simulation::new(&s)
            .expect("builds")
            .run()
            .expect_err("the event limit stops it");
        let r = err.partial.expect("a partial report");
        let stop = r.network.quiet_ps;
        let now: Vec<u64> = r.per_link.iter().map(|l| l.credit_blocked.ps()).collect();
        assert!(
            now.iter().all(|&b| b <= stop),
            "{events} events: {now:?} > {stop}"
        );
        assert!(
            now.iter().sum::<u64>() > 0,
            "{events} events: links back up at once"
        );
        if let Some(b) = &before {
            assert!(b.iter().zip(&now).all(|(b, n)| b <= n), "{events} events");
        }
        before = Some(now);
    }
}

#[test]
fn ranks_csv_says_where_each_rank_spent_its_time() {
    // rank 0 computes 5 us, puts and waits for completion; rank 1 polls for the put
    let r = run("[network]\ndims = [2]\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me == 0 then MGEN_Comp(5e-6); MGEN_acp_complete(MGEN_rdma_put(1, 4096, 0)) end
        if me == 1 then MGEN_rdma_poll(0) end'''\n");
    let ranks = rows(&mgensim::output::table_csv(&r, "ranks").unwrap().unwrap());
    assert_eq!(ranks.len(), 2);
    let (r0, r1) = (&ranks[0], &ranks[1]);
    assert_eq!(num(r0, "compute_ps"), 5e6);
    // nothing else takes time (no node latency): computing then waiting is all of it
    assert_eq!(
        num(r0, "compute_ps") + num(r0, "complete_wait_ps"),
        num(r0, "finish_ps")
    );
    assert_eq!(num(r1, "poll_wait_ps"), num(r1, "finish_ps"));
    assert_eq!((num(r0, "call_ps"), num(r1, "call_ps")), (0.0, 0.0));
    // the put landed before its completion came back
    assert!(num(r1, "finish_ps") < num(r0, "finish_ps"));
    assert_eq!(num(r0, "bytes_sent"), 4096.0);
    assert_eq!(num(r1, "bytes_received"), 4096.0);
    assert_eq!(r0["job"], "main");
    assert_eq!(num(r1, "node"), 1.0);
    // with a node latency of 0.6 us the put costs rank 0 that much in the call itself, and a
    // send its 200 ns overhead
    let r = run(
        "[network]\ndims = [2]\n[node]\nnode_latency = '0.6 us'\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me == 0 then MGEN_acp_complete(MGEN_rdma_put(1, 4096, 0)); MGEN_Send(1, 8, 0) end
        if me == 1 then MGEN_rdma_poll(0); MGEN_Recv(0, 8, 0) end'''\n",
    );
    let ranks = rows(&mgensim::output::table_csv(&r, "ranks").unwrap().unwrap());
    assert_eq!(num(&ranks[0], "call_ps"), 600_000.0 + 200_000.0);
    // rank 1's receive: 200 ns posting, then waiting
    assert_eq!(num(&ranks[1], "call_ps"), 200_000.0);
}

#[test]
fn the_folder_is_written_for_a_partial_run_too() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [2]\n[workload]\ncode = 'MGEN_rdma_poll(1)'\n",
    );
    let o = mgensim_in(dir.path(), &["run", "s.toml", "--out", "out"]);
    assert_eq!(o.status.code(), Some(1), "a deadlock");
    let summary = std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap();
    assert!(summary.contains("\"partial\": true"));
    let links = std::fs::read_to_string(dir.path().join("out/links.csv")).unwrap();
    assert!(links.starts_with("kind,from,port,to,bytes"));
    let ranks = std::fs::read_to_string(dir.path().join("out/ranks.csv")).unwrap();
    assert_eq!(ranks.lines().count(), 3);
    // no temporary file is left behind
    let names: Vec<_> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // summary, links, routers, ranks, nodes, profile, report
    assert_eq!(names.len(), 7, "{names:?}");
}

#[test]
fn the_text_summary_says_what_it_counts() {
    // two puts, each delivered as its data and its control packet's message: 4 NIC messages
    let r = common::run(
        "[network]\ndims = [2]\n[workload]\ncode = '''
         local h = MGEN_rdma_put(1 - MGEN_Comm_rank(), 64, 0)
         MGEN_rdma_poll(0)
         MGEN_acp_complete(h)
         MGEN_report('t', MGEN_Wtime())'''\n",
    );
    let text = r.to_string();
    assert!(
        text.contains(
            "transfers          2 puts/gets; the NICs delivered 4 messages (data and control)"
        ),
        "{text}"
    );
    // credit-blocked time per direction, as the other figures of the line (none here)
    assert!(
        text.contains("busy, blocked on credit 0 ps each on average (most 0 ps)"),
        "{text}"
    );
    // a metric counts the reports (here one per rank)
    assert!(text.contains("(2 reports)"), "{text}");
    // the busiest link directions, by hand: every direction carries one 80-byte data packet
    // and one 16-byte control packet (24 ns at 4 GB/s) in the run's 633.316 ns, all alike,
    // so the first three in the order of links.csv (router links first) are shown
    let pct = 100.0 * 24_000.0 / span_ps(&r) as f64;
    assert_eq!(format!("{pct:.1}"), "3.8");
    assert!(
        text.contains(&format!(
            "busiest links      router 0 port 0 -> NIC 0 {pct:.1} %, router 0 port 1 -> router 1 \
             {pct:.1} %, router 1 port 0 -> NIC 1 {pct:.1} %"
        )),
        "{text}"
    );
    assert!(
        !text.contains("most blocked links"),
        "nothing waited for credit: {text}"
    );
}

#[test]
fn a_job_name_with_commas_quotes_and_line_breaks_is_one_csv_field() {
    let dir = tempfile::tempdir().unwrap();
    let name = "a, \"b\"\nc";
    tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [4]\n\
         [[job]]\nname = \"a, \\\"b\\\"\\nc\"\ncode = 'MGEN_Comp(1e-9)'\nranks = 2\n\
         [[job]]\nname = \"plain\"\ncode = 'MGEN_Comp(2e-9)'\nranks = 2\n",
    );
    let o = mgensim_in(dir.path(), &["run", "s.toml", "--out", "out", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("out/ranks.csv")).unwrap();
    // read back as RFC 4180: four ranks, every row as long as the header, the names intact
    let records = csv_records(&text);
    let (header, rows) = records.split_first().unwrap();
    assert_eq!(rows.len(), 4, "{text}");
    assert!(rows.iter().all(|r| r.len() == header.len()), "{text}");
    let job = header.iter().position(|h| h == "job").unwrap();
    let finish = header.iter().position(|h| h == "finish_ps").unwrap();
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[job].as_str(), r[finish].as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (name, "1000"),
            (name, "1000"),
            ("plain", "2000"),
            ("plain", "2000")
        ]
    );
}

#[test]
fn credit_blocking_is_given_per_link_direction_not_summed() {
    // 16 ranks each put 20 KB to random ranks through 4 KiB buffers: links are shared, credit
    // runs out
    let r = run(
        "[network]\ndims = [4, 4]\nbuffer_bytes = '4 KiB'\n[workload]\nranks = 16\n\
        code = '''
        local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
        for i = 1, 4 do
          MGEN_acp_complete(MGEN_rdma_put((me + math.random(p - 1)) % p, 20000, i))
        end'''\n",
    );
    let n = &r.network;
    assert!(n.credit_blocked_ps > 0, "the workload has contention");
    let most = r
        .per_link
        .iter()
        .map(|l| l.credit_blocked.ps())
        .max()
        .unwrap();
    assert!(
        most < n.credit_blocked_ps,
        "one direction is not all of them"
    );
    let text = r.to_string();
    let want = format!(
        "blocked on credit {} each on average (most {})",
        mgensim::units::Time(n.credit_blocked_ps / n.links),
        mgensim::units::Time(most)
    );
    assert!(text.contains(&want), "{want} in\n{text}");
}
