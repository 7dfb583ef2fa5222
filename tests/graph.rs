//! Networks read from a file (`network.topology = "graph"`): a fat tree written as BookSim's
//! anynet file against the built-in one, hops and latencies worked out by hand, every error
//! a file can hold named by its line, and the rest of mgensim (the flow model, power,
//! placement maps, several jobs, replay) on a graph.

mod common;
use common::*;
use mgensim::Scenario;

/// TraceRP's fat tree, built in and read from `scenarios/fattree24.anynet`.
const BUILT_IN: &str = "topology = 'fattree'\nradix = 24\nlevels = 2";
const ANYNET: &str = "topology = 'graph'\ngraph = 'fattree24.anynet'";

/// A scenario on `network` (lines of `[network]`) where `ranks` ranks run `code`.
fn on(network: &str, ranks: u64, code: &str) -> String {
    format!("[network]\n{network}\n[workload]\nranks = {ranks}\ncode = '''{code}'''\n")
}

/// `rounds` ping-pongs of `bytes` between ranks `a` and `b` by messages.
fn ping_pong(a: u32, b: u32, bytes: u64, rounds: u32) -> String {
    format!(
        "local me = MGEN_Comm_rank()
         for i = 1, {rounds} do
           if me == {a} then MGEN_Send({b}, {bytes}, i); MGEN_Recv({b}, {bytes}, i)
           elseif me == {b} then MGEN_Recv({a}, {bytes}, i); MGEN_Send({a}, {bytes}, i) end
         end"
    )
}

/// The figures that must agree between two runs of the same work: the time, every rank's
/// finish, and what crossed the network.
fn figures(r: &mgensim::Report) -> (u64, Vec<u64>, u64, u64, u64) {
    (
        r.predicted_time_ps,
        r.per_rank.iter().map(|x| x.finish_ps).collect(),
        r.network.packets,
        r.network.packet_hops,
        r.network.link_bytes,
    )
}

#[test]
fn a_fat_tree_read_from_an_anynet_file_predicts_the_built_in_one() {
    // uncontended work: barriers and a ping-pong give the same figures to the picosecond
    // (the same routes: a graph's routes are shortest paths, and the source's digit picks
    // among them as the fat tree's straight_up does)
    for algo in ["ring", "rd"] {
        let run_on = |net: &str| {
            run_with(
                &format!(
                    "[network]\n{net}\n[node]\nnode_latency = '0.6 us'\n[workload]\n\
                     script = 'barrier.lua'\nranks = 288\nargs = {{ algo = '{algo}', bytes = 8 }}\n"
                ),
                &[],
            )
        };
        let (a, b) = (run_on(BUILT_IN), run_on(ANYNET));
        assert_eq!(figures(&a), figures(&b), "{algo} barrier");
    }
    for (x, y) in [(0, 1), (0, 12), (5, 287)] {
        let a = run(&on(BUILT_IN, 288, &ping_pong(x, y, 4096, 10)));
        let b = run(&on(ANYNET, 288, &ping_pong(x, y, 4096, 10)));
        assert_eq!(figures(&a), figures(&b), "ping-pong {x} <-> {y}");
    }
    // loaded: the shipped random ring, and the Bruck all-to-all, within 10 % (the same here:
    // the routes are the same, packet for packet)
    let ring = (
        run_file("scenarios/fattree_random_ring.toml", &[]),
        run_file("scenarios/fattree_anynet.toml", &[]),
    );
    let bruck = (
        run_file(
            "scenarios/bruck_alltoall.toml",
            &[
                "network.topology=fattree",
                "network.radix=24",
                "network.levels=2",
                "workload.ranks=288",
            ],
        ),
        run_file(
            "scenarios/bruck_alltoall.toml",
            &[
                "network.topology=graph",
                "network.graph=fattree24.anynet",
                "workload.ranks=288",
            ],
        ),
    );
    for (what, (a, b)) in [("random ring", ring), ("Bruck", bruck)] {
        let (ta, tb) = (a.predicted_time_ps as f64, b.predicted_time_ps as f64);
        assert!(
            (ta - tb).abs() <= 0.10 * ta,
            "{what}: {ta} ps built in, {tb} ps as a graph"
        );
        assert_eq!(figures(&a), figures(&b), "{what}");
    }
}

/// Runs the scenario `text`, written as `s.toml` in `dir` (beside the files it names).
fn run_in(dir: &std::path::Path, text: &str) -> mgensim::Report {
    let p = tmp_file(dir, "s.toml", text);
    let s = Scenario::load(&p, &[], false).expect("valid");
    mgensim::Simulation::new(&s).unwrap().run().expect("runs")
}

/// One put of `bytes` from rank `src` to rank `dst` on `network` (scenario in `dir`).
fn one_put(
    dir: &std::path::Path,
    network: &str,
    ranks: u64,
    src: u32,
    dst: u32,
    bytes: u64,
) -> mgensim::Report {
    run_in(
        dir,
        &on(
            network,
            ranks,
            &format!(
                "local me = MGEN_Comm_rank()
                 if me == {src} then MGEN_acp_complete(MGEN_rdma_put({dst}, {bytes}, 0)) end
                 if me == {dst} then MGEN_rdma_poll(0) end"
            ),
        ),
    )
}

/// When rank `dst` had a put of `bytes` from rank `src` on `network` (scenario in `dir`).
fn landed(dir: &std::path::Path, network: &str, ranks: u64, src: u32, dst: u32, bytes: u64) -> u64 {
    one_put(dir, network, ranks, src, dst, bytes).per_rank[dst as usize].finish_ps
}

/// Writes `text` as `name` in `dir` and returns the scenario lines naming it.
fn graph_file(dir: &std::path::Path, name: &str, text: &str) -> String {
    tmp_file(dir, name, text);
    format!("topology = 'graph'\ngraph = '{name}'")
}

#[test]
fn hops_and_latencies_on_a_graph_are_those_worked_out_by_hand() {
    // a line of three routers: node 0 on router 0, node 1 on router 2, node 2 on router 1;
    // the link from router 1 to router 2 of a class of its own
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = Params::nsim_ace();
    let plain = graph_file(
        dir.path(),
        "line.graph",
        "link 0 1\nlink 1 2\nnode 0 0\nnode 1 2\nnode 2 1\n",
    );
    let slow = graph_file(
        dir.path(),
        "slow.graph",
        "class slow bandwidth=1GB/s latency=10ns\nlink 0 1\nlink 1 2 slow\n\
         node 0 0\nnode 1 2\nnode 2 1\n",
    );
    // a 64 B put is one 80 B packet: its DMA read and write, and its flight across the routers
    assert_eq!(landed(d, &plain, 3, 0, 2, 64), 2 * p.dma(64) + p.fly(80, 2));
    let far = landed(d, &plain, 3, 0, 1, 64);
    assert_eq!(far, 2 * p.dma(64) + p.fly(80, 3));
    // across the slow link: 60 ns more for its tail at 1 GB/s than at 4 (the later links wait
    // for it, virtual cut-through), 9.4 ns more of cable
    assert_eq!(
        landed(d, &slow, 3, 0, 1, 64),
        far + (80_000 - p.ser(80)) + (10_000 - p.cable)
    );
    // a BookSim weight is that many cable latencies, in the direction it is written
    let weighed = graph_file(
        dir.path(),
        "w.anynet",
        "router 0 node 0 router 1 5\nrouter 1 node 1\n",
    );
    let base = graph_file(
        dir.path(),
        "b.anynet",
        "router 0 node 0 router 1\nrouter 1 node 1\n",
    );
    let (w, b) = (
        landed(d, &weighed, 2, 0, 1, 64),
        landed(d, &base, 2, 0, 1, 64),
    );
    assert_eq!(w, b + 4 * p.cable, "0 -> 1 weighs 5 cables");
    assert_eq!(
        landed(d, &weighed, 2, 1, 0, 64),
        b,
        "1 -> 0 keeps the weight of 1"
    );
    // hops per message: router-to-router links
    let r = one_put(d, &plain, 3, 0, 1, 4096);
    let h = r.network.message_hops.unwrap();
    assert_eq!((h.mean, h.max), (2.0, 2));
    // 4096 B = 2 packets and a control packet, each over 2 links between routers and 2 NIC
    // links
    assert_eq!(r.network.packet_hops, 3 * 4);
}

/// The error loading a scenario whose `[network]` is `network` gives (files in `dir`).
fn refused(dir: &std::path::Path, network: &str) -> String {
    let text = on(network, 2, "");
    let path = tmp_file(dir, "s.toml", &text);
    Scenario::load(&path, &[], false)
        .expect_err("refused")
        .to_string()
}

#[test]
fn every_error_of_a_graph_file_names_the_scenario_s_key_and_the_file_s_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "link 0 0\nnode 0 0\n",
            "g.graph:1: router 0 links to itself",
        ),
        (
            "router 1 node 0 router 1\n",
            "g.graph:1: router 1 links to itself",
        ),
        (
            "routers 2\nlink 0 1\nlink 1 5\nnode 0 0\n",
            "g.graph:3: router 5 does not exist: line 1 declares 2 routers, 0 to 1",
        ),
        (
            "link 0 1\nlink 1 9\nnode 0 0\n",
            "g.graph:2: router 9 does not exist: the file names 3 routers",
        ),
        (
            "link 0 1\nnode 0 0\nnode 2 1\n",
            "g.graph:3: node 1 is on no router",
        ),
        (
            "router 0 node 0 router 1\nrouter 1 node 0\n",
            "g.graph:2: node 0 is on router 0 already (line 1)",
        ),
        (
            "link 0 1\nlink 2 3\nnode 0 0\nnode 1 3\n",
            "g.graph:2: the graph is in more than one piece: routers 2, 3 cannot be reached from router 0",
        ),
        (
            "class fast bandwidth=8GB/s\nlink 0 1 fsat\nnode 0 0\n",
            "g.graph:2: class `fsat` is not defined above this line; did you mean `fast`?",
        ),
        (
            "class slow bandwidth=0GB/s\nlink 0 1 slow\nnode 0 0\n",
            "g.graph:1: a class's bandwidth must be greater than zero",
        ),
        (
            "lnk 0 1\nnode 0 0\n",
            "g.graph:1: `lnk` starts no statement",
        ),
        ("link 0 1\n", "the graph has no node"),
    ];
    let mut failures = Vec::new();
    for (text, want) in cases {
        tmp_file(dir.path(), "g.graph", text);
        let e = refused(dir.path(), "topology = 'graph'\ngraph = 'g.graph'");
        // the scenario's line and key, then the file's
        if !(e.contains("s.toml:3: key `network.graph`: ") && e.contains(want)) {
            failures.push(format!("{text:?}: {e}"));
        }
    }
    // the key missing, the file missing, a file outside the scenario's folder
    for (net, want) in [
        (
            "topology = 'graph'",
            "key `network.graph`: missing: a graph's routers, links and nodes are read from this file",
        ),
        ("topology = 'graph'\ngraph = 'none.graph'", "no such file"),
        (
            "topology = 'graph'\ngraph = '../outside.graph'",
            "a scenario may name files only below its own folder",
        ),
        (
            "topology = 'graph'\ngraph = 'g.graph'\nrouting = 'up-down'",
            "`up-down` is not a routing of topology `graph` (it has: minimal, up_down, ugal); did you mean `up_down`?",
        ),
        (
            "topology = 'graph'\ngraph = 'g.graph'\ndims = [4]",
            "key `network.dims`: is a key of a mesh, torus, Tofu or HyperX, not of topology `graph`",
        ),
    ] {
        tmp_file(dir.path(), "g.graph", "link 0 1\nnode 0 0\nnode 1 1\n");
        let e = refused(dir.path(), net);
        if !e.contains(want) {
            failures.push(format!("{net:?}: {e}"));
        }
    }
    assert_no_failures(&failures, cases.len() + 5);
}

#[test]
fn a_graph_runs_with_the_flow_model_power_placement_maps_and_several_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let net = graph_file(
        dir.path(),
        "j.graph",
        &std::fs::read_to_string(project().join("scenarios/jellyfish.graph")).unwrap(),
    );
    let ring = std::fs::read_to_string(project().join("scenarios/random_ring.lua")).unwrap();
    tmp_file(dir.path(), "random_ring.lua", &ring);
    let scenario = |extra: &str| {
        format!(
            "[network]\n{net}\n{extra}\n[workload]\nscript = 'random_ring.lua'\nranks = 32\n\
             args = {{ bytes = 100000 }}\n"
        )
    };
    let load = |text: &str| {
        let p = tmp_file(dir.path(), "s.toml", text);
        let s = Scenario::load(&p, &[], false).expect("valid");
        mgensim::Simulation::new(&s).unwrap().run().expect("runs")
    };
    let packets = load(&scenario(""));
    // every byte delivered at flow level too; a transfer alone takes what its packets take,
    // to within the flow model's rounding
    let flow = load(&scenario("model = 'flow'"));
    assert_eq!(flow.network.bytes, packets.network.bytes);
    for (src, dst) in [(0, 1), (0, 31), (7, 20)] {
        let lone = |model: &str| {
            one_put(
                dir.path(),
                &format!("{net}\nmodel = '{model}'"),
                32,
                src,
                dst,
                1_000_000,
            )
            .predicted_time_ps as f64
        };
        let (a, b) = (lone("packet"), lone("flow"));
        assert!(
            (a - b).abs() < 0.01 * a,
            "{src} -> {dst}: packets {a}, flows {b}"
        );
    }
    // power: links that sleep use less energy than links always on, and the run still ends
    let power = load(&format!("{}\n[power]\nenabled = true\n", scenario("")));
    assert!(power.power.is_some());
    assert_eq!(power.network.bytes, packets.network.bytes);
    // a placement map: rank r on node 31 - r
    let map: String = (0..32).map(|r| format!("{r} {}\n", 31 - r)).collect();
    tmp_file(dir.path(), "map.txt", &map);
    let mapped = load(&format!(
        "{}\n[placement]\nfile = 'map.txt'\n",
        scenario("")
    ));
    assert_eq!(mapped.network.bytes, packets.network.bytes);
    // two jobs share it
    let jobs = load(&format!(
        "[network]\n{net}\n[[job]]\nname = 'a'\nranks = 16\nscript = 'random_ring.lua'\n\
         args = {{ bytes = 1000 }}\n[[job]]\nname = 'b'\nranks = 16\nscript = 'random_ring.lua'\n\
         args = {{ bytes = 1000 }}\n"
    ));
    assert_eq!(jobs.jobs.len(), 2);
    assert_eq!(jobs.network.bytes, 2 * 16 * 2 * 1000);
}

#[test]
fn a_trace_replays_on_a_graph() {
    // the shipped IS trace (8 ranks) on the two racks of scenarios/two_racks.graph
    let s = Scenario::load(
        &project().join("scenarios/replay/is.toml"),
        &[
            "network.topology=graph".to_string(),
            "network.graph=../two_racks.graph".to_string(),
        ],
        true,
    )
    .expect("valid");
    let r = mgensim::Simulation::new(&s).unwrap().run().expect("runs");
    let on_torus = run_file("scenarios/replay/is.toml", &[]);
    assert_eq!(r.network.bytes, on_torus.network.bytes);
    assert!(r.predicted_time_ps > 0);
}

#[test]
fn the_shipped_graphs_are_what_their_scripts_write() {
    // (the scripts need Python; without it this says so and passes, except under CI)
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output();
    if python.is_err() && std::env::var_os("CI").is_none() {
        eprintln!("python3 not found: the example scripts were not run");
        return;
    }
    for (script, args, file) in [
        (
            "examples/graphs/jellyfish.py",
            &[
                "--routers",
                "16",
                "--links",
                "4",
                "--nodes",
                "2",
                "--seed",
                "1",
            ][..],
            "scenarios/jellyfish.graph",
        ),
        (
            "examples/graphs/fattree_anynet.py",
            &["--radix", "24"][..],
            "scenarios/fattree24.anynet",
        ),
    ] {
        let o = std::process::Command::new("python3")
            .arg(project().join(script))
            .args(args)
            .output()
            .expect("python3 runs");
        assert!(o.status.success(), "{script}: {}", stderr(&o));
        let shipped = std::fs::read(project().join(file)).unwrap();
        assert!(o.stdout == shipped, "{script} no longer writes {file}");
    }
    // a bigger Jellyfish is a regular graph of that degree, in one piece
    let o = std::process::Command::new("python3")
        .arg(project().join("examples/graphs/jellyfish.py"))
        .args([
            "--routers",
            "200",
            "--links",
            "6",
            "--nodes",
            "1",
            "--seed",
            "9",
        ])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8(o.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let network = graph_file(dir.path(), "j.graph", &text);
    let r = run_path(&tmp_file(dir.path(), "j.toml", &on(&network, 1, "")));
    // link directions: 200 x 6 / 2 links between routers, both ways, and a NIC link each way
    // for each of the 200 nodes
    assert_eq!(r.network.links, 2 * (200 * 6 / 2) + 2 * 200);
}

/// A BookSim weight is exact or refused: the largest the cable latency allows (1 h in all)
/// adds exactly its cables to the time; one past it is an error naming the line, the weight
/// and that largest (2^32 − 1 on 1 s cables saturated the latency and wrapped: the run
/// predicted less than weight 1).
#[test]
fn an_extreme_weight_is_exact_or_refused_never_wrapped() {
    let dir = tempfile::tempdir().unwrap();
    let second = 1_000_000_000_000u64;
    let on_1s = |w: &str| {
        let g = graph_file(
            dir.path(),
            "w.anynet",
            &format!("router 0 node 0 router 1 {w}\nrouter 1 node 1\n"),
        );
        format!("{g}\ncable_latency = '1 s'")
    };
    let send = "if MGEN_Comm_rank() == 0 then MGEN_Send(1, 8, 0) else MGEN_Recv(0, 8, 0) end";
    let time = |w: u64| {
        let path = tmp_file(dir.path(), "s.toml", &on(&on_1s(&w.to_string()), 2, send));
        run_path(&path).predicted_time_ps
    };
    let one = time(1);
    assert!(one > 3 * second, "three cables of 1 s: {one}");
    // 3600 cables of 1 s: 1 h, the most a link may take; exactly 3599 s more than weight 1
    assert_eq!(time(3600), one + 3599 * second);
    // (a weight past 64 bits too)
    for w in ["3601", "4294967295", "99999999999999999999999"] {
        let e = refused(dir.path(), &on_1s(w));
        let want = format!(
            "w.anynet:1: router 0 -> router 1: weight {w} makes the link {w} × 1 s \
             (network.cable_latency) long, longer than a link may take, 3600 s; the largest \
             weight is 3600"
        );
        assert!(e.contains(&want), "{e}");
    }
    // the default cable latency (0.6 ns) allows every 32-bit weight, exactly
    let g = graph_file(
        dir.path(),
        "w.anynet",
        &format!("router 0 node 0 router 1 {}\nrouter 1 node 1\n", u32::MAX),
    );
    let path = tmp_file(dir.path(), "s.toml", &on(&g, 2, send));
    let g1 = graph_file(
        dir.path(),
        "b.anynet",
        "router 0 node 0 router 1\nrouter 1 node 1\n",
    );
    let base = tmp_file(dir.path(), "b.toml", &on(&g1, 2, send));
    assert_eq!(
        run_path(&path).predicted_time_ps,
        run_path(&base).predicted_time_ps + (u32::MAX as u64 - 1) * 600
    );
    // a class's latency and rate are bounded alike
    tmp_file(
        dir.path(),
        "g.graph",
        "class far latency=2h\nclass fast bandwidth=inf\nlink 0 1\nnode 0 0\nnode 1 1\n",
    );
    let e = refused(dir.path(), "topology = 'graph'\ngraph = 'g.graph'");
    assert!(
        e.contains("g.graph:1: latency `2h`: 7200 s is longer than a link may take, 3600 s"),
        "{e}"
    );
    assert!(
        e.contains("g.graph:2: a class's bandwidth must be finite (a link always takes time)"),
        "{e}"
    );
}

/// A word of a graph or anynet file is quoted within bounds: a word of a megabyte gives a
/// message of a line (its first 40 characters, an ellipsis and its length).
#[test]
fn errors_quote_a_long_word_of_a_graph_file_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let w = "x".repeat(1 << 20);
    let cut = format!("{}… (1048576 characters)", "x".repeat(40));
    for (file, text, want) in [
        (
            "g.graph",
            format!("{w} 0 1\nnode 0 0\n"),
            format!("g.graph:1: `{cut}` starts no statement"),
        ),
        (
            "g.graph",
            format!("class a latency={w}\nlink 0 1\nnode 0 0\n"),
            format!("g.graph:1: latency `{cut}`: cannot read \"{cut}\""),
        ),
        (
            "g.graph",
            format!("link 0 1 {w}\nnode 0 0\n"),
            format!("g.graph:1: class `{cut}` is not defined"),
        ),
        (
            "g.anynet",
            format!("router 0 node 0 router 1 {w}\nrouter 1 node 1\n"),
            format!("g.anynet:1: expected `node N` or `router R` at `{cut}`"),
        ),
        (
            "g.anynet",
            format!("router 0 {w} 1\nrouter 1 node 1\n"),
            format!("g.anynet:1: `{cut}`: expected `node` or `router`"),
        ),
    ] {
        tmp_file(dir.path(), file, &text);
        let e = refused(dir.path(), &format!("topology = 'graph'\ngraph = '{file}'"));
        assert!(e.len() < 1000, "{} bytes: {}", e.len(), &e[..300]);
        assert!(e.contains(&want), "{want}\n{e}");
    }
}
