//! Property tests: random valid networks of every topology and routing, random
//! NICs and ranks per node and placements, and random workloads that are sure to
//! complete, with the model's invariants checked after every run. The expected counts are
//! worked out here from the plan alone, not read back from the engine.

use mgensim::Scenario;
use mgensim::{Report, Simulation};
use proptest::prelude::*;

/// The `[network]` keys of the cases that only the packet model reads (the flow model ignores
/// them, with a warning): `src/config/model.rs`.
const PACKET_ONLY: [&str; 4] = ["vcs", "router", "buffer_bytes", "output_buffer_bytes"];

/// The report as JSON without its `host` line (the machine's and the threads').
fn deterministic_json(r: &Report) -> String {
    let mut v = serde_json::to_value(r).expect("a report serializes");
    v.as_object_mut().expect("an object").remove("host");
    serde_json::to_string_pretty(&v).expect("a value serializes")
}

/// A line of the scenario text that is a line of its graph file (a random graph's), written
/// beside it as `g.graph` when the scenario is read (`load`).
const GRAPH_LINE: &str = "#G ";

thread_local! {
    /// The folder a test's scenarios are read from (removed when the test's thread ends): the
    /// same for every run of a test, so that the scenario's path in the figures is too.
    static FOLDER: tempfile::TempDir = tempfile::tempdir().expect("a temporary folder");
}

/// The scenario `text` with `sets`, read from the test's folder, where the lines of its graph
/// (if any) are written as `g.graph` first.
fn load(text: &str, sets: &[String]) -> Option<Scenario> {
    let graph: String = text
        .lines()
        .filter_map(|l| l.strip_prefix(GRAPH_LINE))
        .map(|l| format!("{l}\n"))
        .collect();
    FOLDER.with(|dir| {
        std::fs::write(dir.path().join("g.graph"), graph).expect("written");
        Scenario::from_str_with(text, &dir.path().join("prop.toml"), sets, false).ok()
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Put,
    Get,
    Msg,
}

/// One transfer of a phase: `src` sends `bytes` to `dst` (for a get, `dst` reads from `src`).
#[derive(Clone, Debug)]
struct Op {
    kind: Kind,
    src: u32,
    dst: u32,
    bytes: u64,
}

#[derive(Clone, Debug)]
struct Phase {
    /// Compute before the phase, per rank, in ns.
    compute_ns: Vec<u32>,
    ops: Vec<Op>,
}

#[derive(Clone, Debug)]
struct Case {
    /// The `[network]` lines that choose the topology and its routing.
    net: String,
    nics: u32,
    ranks_per_node: u32,
    policy: &'static str,
    link_gbps: u32,
    switch_gbps: u32,
    nic_gbps: Option<u32>,
    dma_mbps: u32,
    mtu: u64,
    header: u64,
    buffer_packets: u64,
    eager: u64,
    node_latency_ns: u32,
    /// `node.dma = "cut_through"` (else store-and-forward).
    cut_through: bool,
    /// `network.router = 'output_queued'` (else the default, input-queued).
    output_queued: bool,
    /// `network.vcs` (else one per class).
    vcs: Option<u32>,
    /// `network.output_buffer_bytes` in whole packets (input-queued routers only).
    outbuf_packets: u64,
    ranks: u32,
    phases: Vec<Phase>,
}

fn op(ranks: u32) -> impl Strategy<Value = Op> {
    (
        prop_oneof![Just(Kind::Put), Just(Kind::Get), Just(Kind::Msg)],
        0..ranks,
        0..ranks,
        prop_oneof![0u64..=64, 0u64..=20_000],
    )
        .prop_map(|(kind, src, dst, bytes)| Op {
            kind,
            src,
            dst,
            bytes,
        })
}

fn phase(ranks: u32) -> impl Strategy<Value = Phase> {
    (
        prop::collection::vec(0u32..2000, ranks as usize),
        prop::collection::vec(op(ranks), 0..10),
    )
        .prop_map(|(compute_ns, ops)| Phase { compute_ns, ops })
}

/// A random small network of any topology and routing.
fn topology() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            prop_oneof![Just("torus"), Just("mesh")],
            prop::collection::vec(1u32..=5, 1..=3)
        )
            .prop_map(|(t, d)| format!("topology = '{t}'\ndims = {d:?}")),
        prop::collection::vec(1u32..=2, 3)
            .prop_map(|d| format!("topology = 'tofu'\ndims = {d:?}")),
        (
            prop::collection::vec((1u32..=3, 1u32..=3), 1..=3),
            prop_oneof![Just("straight_up"), Just("straight_down"), Just("random")]
        )
            .prop_map(|(levels, r)| {
                let down: Vec<u32> = levels.iter().map(|l| l.0).collect();
                let mut up: Vec<u32> = levels.iter().map(|l| l.1).collect();
                *up.last_mut().unwrap() = 0;
                format!("topology = 'fattree'\ndown_ports = {down:?}\nup_ports = {up:?}\nrouting = '{r}'")
            }),
        (
            1u32..=3,
            1u32..=2,
            1u32..=2,
            prop_oneof![Just("minimal"), Just("valiant"), Just("ugal")]
        )
            .prop_map(|(a, p, h, r)| format!(
                "topology = 'dragonfly'\nrouters_per_group = {a}\nnodes_per_router = {p}\n\
                 global_links_per_router = {h}\nrouting = '{r}'"
            )),
        (
            prop::collection::vec(1u32..=4, 1..=3),
            1u32..=2,
            1u32..=2,
            prop_oneof![Just("dimension_order"), Just("ugal")]
        )
            .prop_map(|(d, k, t, r)| format!(
                "topology = 'hyperx'\ndims = {d:?}\nlinks_per_pair = {k}\nnodes_per_router = {t}\n\
                 routing = '{r}'"
            )),
        (2u32..=7)
            .prop_flat_map(|n| (
                Just(n),
                prop::collection::vec((0..n, 0..n, 1u32..=2), 0..=8),
                prop::collection::vec(0u32..=2, n as usize),
                prop_oneof![Just("minimal"), Just("up_down")],
            ))
            .prop_map(|(n, extra, nodes, r)| graph(n, &extra, &nodes, r)),
    ]
}

/// A random graph's scenario lines: `n` routers in a chain (so that it is connected), the
/// `extra` links `(a, b, count)` that are not loops, `nodes[r]` nodes on router `r` (one on
/// router 0 if none has any), its lines carried as [`GRAPH_LINE`]s.
fn graph(n: u32, extra: &[(u32, u32, u32)], nodes: &[u32], routing: &str) -> String {
    let mut links = std::collections::BTreeMap::new();
    for i in 1..n {
        links.insert((i - 1, i), 1);
    }
    for &(a, b, k) in extra {
        if a != b {
            *links.entry((a.min(b), a.max(b))).or_insert(0) += k;
        }
    }
    let mut text = format!("topology = 'graph'\ngraph = 'g.graph'\nrouting = '{routing}'\n");
    for ((a, b), k) in links {
        text += &format!("{GRAPH_LINE}link {b} {a} {k}\n");
    }
    let mut node = 0;
    for (r, &k) in nodes.iter().enumerate() {
        for _ in 0..k {
            text += &format!("{GRAPH_LINE}node {node} {r}\n");
            node += 1;
        }
    }
    if node == 0 {
        text += &format!("{GRAPH_LINE}node 0 0\n");
    }
    text
}

/// Nodes of a network, and whether it takes `nics` NICs per node.
fn nodes_of(net: &str, nics: u32) -> Option<u64> {
    let text = format!("[network]\n{net}\n[node]\nnics_per_node = {nics}\n[workload]\ncode = ''\n");
    load(&text, &[]).map(|s| s.nodes())
}

fn case() -> impl Strategy<Value = Case> {
    let net = (
        (
            topology(),
            1u32..=2,
            1u32..=2,
            prop_oneof![Just("linear"), Just("round_robin"), Just("random")],
        ),
        1u32..=8,
        1u32..=8,
        prop::option::of(1u32..=8),
        500u32..=4000,
        prop_oneof![Just(64u64), Just(256), Just(1024), Just(2048)],
        prop_oneof![Just(0u64), Just(8), Just(16), Just(64)],
        1u64..=3,
        prop_oneof![Just(0u64), Just(256), Just(8192)],
        0u32..300,
        any::<bool>(),
        (any::<bool>(), prop::option::of(3u32..=8), 0u64..=2),
    );
    net.prop_flat_map(|mut n| {
        // a fat tree, dragonfly or HyperX whose NIC ports do not share out by two keeps one NIC
        let nodes = nodes_of(&n.0 .0, n.0 .1).unwrap_or_else(|| {
            n.0 .1 = 1;
            nodes_of(&n.0 .0, 1).expect("a valid network")
        });
        let slots = (nodes * n.0 .2 as u64).min(12) as u32;
        (Just(n), 1..=slots)
    })
    .prop_flat_map(|(n, ranks)| {
        (
            Just(n),
            Just(ranks),
            prop::collection::vec(phase(ranks), 1..=3),
        )
    })
    .prop_map(|(n, ranks, phases)| Case {
        net: n.0 .0,
        nics: n.0 .1,
        ranks_per_node: n.0 .2,
        policy: n.0 .3,
        link_gbps: n.1,
        switch_gbps: n.2,
        nic_gbps: n.3,
        dma_mbps: n.4,
        mtu: n.5,
        header: n.6,
        buffer_packets: n.7,
        eager: n.8,
        node_latency_ns: n.9,
        cut_through: n.10,
        output_queued: n.11 .0,
        vcs: n.11 .1,
        outbuf_packets: n.11 .2,
        ranks,
        phases,
    })
}

/// Every rank issues all its transfers of a phase before it waits for any, and waits only
/// for the phase's own: so the workload always completes.
const SCRIPT: &str = r#"
local me = MGEN_Comm_rank()
for p, phase in ipairs(PLAN) do
  MGEN_Comp(phase.compute[me + 1] * 1e-9)
  local handles, reqs, puts = {}, {}, 0
  for i, op in ipairs(phase.ops) do
    local kind, src, dst, bytes = op[1], op[2], op[3], op[4]
    if kind == "put" then
      if src == me then handles[#handles + 1] = MGEN_rdma_put(dst, bytes, p) end
      if dst == me then puts = puts + 1 end
    elseif kind == "get" then
      if dst == me then handles[#handles + 1] = MGEN_rdma_get(src, bytes, p) end
    else
      local tag = p * 1000 + i
      if src == me then reqs[#reqs + 1] = MGEN_Isend(dst, bytes, tag) end
      if dst == me then reqs[#reqs + 1] = MGEN_Irecv(src, bytes, tag) end
    end
  end
  for _ = 1, puts do MGEN_rdma_poll(p) end
  for _, h in ipairs(handles) do MGEN_acp_complete(h) end
  MGEN_Waitall(reqs)
end
"#;

impl Case {
    fn toml(&self) -> String {
        let mut plan = String::from("PLAN = {\n");
        for ph in &self.phases {
            let compute: Vec<String> = ph.compute_ns.iter().map(u32::to_string).collect();
            plan += &format!("  {{ compute = {{{}}}, ops = {{", compute.join(", "));
            for o in &ph.ops {
                let k = match o.kind {
                    Kind::Put => "put",
                    Kind::Get => "get",
                    Kind::Msg => "msg",
                };
                plan += &format!("{{'{k}', {}, {}, {}}}, ", o.src, o.dst, o.bytes);
            }
            plan += "} },\n";
        }
        plan += "}\n";
        let nic = self
            .nic_gbps
            .map_or(String::new(), |g| format!("nic_bandwidth = '{g} GB/s'\n"));
        let router = if self.output_queued {
            "router = 'output_queued'\n"
        } else {
            ""
        };
        let mut vcs = self.vcs.map_or(String::new(), |v| format!("vcs = {v}\n"));
        if !self.output_queued && self.outbuf_packets > 0 {
            vcs += &format!(
                "output_buffer_bytes = {}\n",
                (self.mtu + self.header) * self.outbuf_packets
            );
        }
        let dma = if self.cut_through {
            "dma = 'cut_through'\n"
        } else {
            ""
        };
        format!(
            "[network]\n{}\nlink_bandwidth = '{} GB/s'\n\
             switch_bandwidth = '{} GB/s'\nmtu = {}\nheader_bytes = {}\nbuffer_bytes = {}\n\
             {router}{vcs}[node]\ndma_bandwidth = '{} MB/s'\neager_limit = {}\nnode_latency = '{} ns'\n{nic}{dma}\
             nics_per_node = {}\nranks_per_node = {}\n[placement]\npolicy = '{}'\n\
             [workload]\nranks = {}\nseed = 3\ncode = '''\n{plan}{SCRIPT}'''\n",
            self.net,
            self.link_gbps,
            self.switch_gbps,
            self.mtu,
            self.header,
            (self.mtu + self.header) * self.buffer_packets,
            self.dma_mbps,
            self.eager,
            self.node_latency_ns,
            self.nics,
            self.ranks_per_node,
            self.policy,
            self.ranks,
        )
    }

    /// Packets of a message of `bytes`: at least one, each carrying up to an MTU.
    fn data_packets(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.mtu).max(1)
    }

    /// (payload bytes, packets, NIC messages) the plan must make.
    fn expected(&self) -> (u64, u64, u64) {
        let (mut bytes, mut packets, mut messages) = (0, 0, 0);
        for o in self.phases.iter().flat_map(|p| &p.ops) {
            bytes += o.bytes;
            let data = self.data_packets(o.bytes);
            let (p, m) = match o.kind {
                Kind::Put | Kind::Get => (data + 1, 2), // data + ack / request + data
                Kind::Msg if o.bytes <= self.eager => (data, 1),
                Kind::Msg => (data + 2, 3), // RTS, CTS, data
            };
            packets += p;
            messages += m;
        }
        (bytes, packets, messages)
    }
}

/// Each rank's compute is what the plan says, it finished no earlier, and the run ended
/// whole, without warnings.
fn ranks_ran_their_plan(c: &Case, r: &Report) -> Result<(), TestCaseError> {
    for (i, rank) in r.per_rank.iter().enumerate() {
        let planned: u64 = c.phases.iter().map(|p| p.compute_ns[i] as u64 * 1000).sum();
        prop_assert_eq!(rank.compute_ps, planned);
        prop_assert!(rank.finish_ps >= rank.compute_ps);
    }
    prop_assert!(!r.partial && r.warnings.is_empty(), "{:?}", r.warnings);
    Ok(())
}

fn run(text: &str) -> Report {
    let s = load(text, &[]).expect("a valid scenario");
    let mut sim = Simulation::new(&s).expect("builds");
    // no link ever idle while a packet could go (a missed wake-up ends the run in an error)
    sim.self_check();
    sim.run()
        .unwrap_or_else(|e| panic!("the run must complete: {e}"))
}

/// The run of `text` with the engine's cache tactics (prefetch stages, queue links written
/// late) forced on or off.
fn run_tactics(text: &str, on: bool) -> Report {
    let s = load(text, &[]).expect("a valid scenario");
    let mut sim = Simulation::new(&s).expect("builds");
    sim.cache_tactics(on);
    sim.run()
        .unwrap_or_else(|e| panic!("the run must complete: {e}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// A queue's link written a few queuings late must be read by the send that needs it
    /// (`Links::take`), or the queue would lose the packets behind it: every figure of every
    /// link, rank and packet count must be the same as with the tactics off.
    #[test]
    fn the_cache_tactics_change_no_figure(c in case()) {
        let text = c.toml();
        let (off, on) = (run_tactics(&text, false), run_tactics(&text, true));
        prop_assert_eq!(off.predicted_time_ps, on.predicted_time_ps);
        prop_assert_eq!(&off.network, &on.network);
        prop_assert_eq!(&off.per_link, &on.per_link);
        prop_assert_eq!(&off.per_rank, &on.per_rank);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_workloads_keep_the_invariants(c in case()) {
        let text = c.toml();
        let r = run(&text);
        let n = &r.network;
        let (bytes, packets, messages) = c.expected();
        // every byte injected is delivered, every packet made arrives
        prop_assert_eq!(n.bytes, bytes);
        prop_assert_eq!(n.packets, packets);
        prop_assert_eq!(n.packets_delivered, packets);
        prop_assert_eq!(n.messages, messages);
        // the link counters add up, and no link carries more than its rate or its time
        // (with output buffers the crossbar is a stage of its own, and the link runs at its rate)
        let outbuf = !c.output_queued && c.outbuf_packets > 0;
        let switch = if outbuf { c.link_gbps } else { c.switch_gbps };
        let router_bw = c.link_gbps.min(switch) as u128 * 1_000_000_000;
        let inject_bw = c.nic_gbps.unwrap_or(c.link_gbps).min(c.link_gbps) as u128 * 1_000_000_000;
        let mut sum = 0;
        for l in &r.per_link {
            sum += l.bytes;
            prop_assert!(l.busy.ps() <= n.quiet_ps, "a link busy {} in a run of {}", l.busy, n.quiet_ps);
            let bw = if l.port.is_none() { inject_bw } else { router_bw };
            let least = (l.bytes as u128 * 1_000_000_000_000).div_ceil(bw);
            prop_assert!(l.busy.ps() as u128 >= least, "link {:?} above 100%: {} B in {}", l, l.bytes, l.busy);
        }
        prop_assert_eq!(sum, n.link_bytes);
        ranks_ran_their_plan(&c, &r)?;
        // the same scenario and seed give the same output
        prop_assert_eq!(deterministic_json(&run(&text)), deterministic_json(&r));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// The same random workloads at flow level: every byte and message delivered, each rank's
    /// compute as planned, no link busier than the run, runs that repeat, and (the engine's
    /// self-check) every selective update giving the rates of a max-min of all the flows.
    #[test]
    fn random_workloads_at_flow_level_keep_the_invariants(c in case()) {
        let text = c.toml().replacen("[network]\n", "[network]\nmodel = 'flow'\n", 1);
        // (without the keys of routers alone: the flow model ignores them, with a warning)
        let text: String = text
            .lines()
            .filter(|l| !PACKET_ONLY.iter().any(|k| l.starts_with(&format!("{k} ="))))
            .map(|l| format!("{l}\n"))
            .collect();
        let r = run(&text);
        let n = &r.network;
        let (bytes, packets, messages) = c.expected();
        prop_assert_eq!(n.bytes, bytes);
        prop_assert_eq!(n.packets, packets);
        prop_assert_eq!(n.messages, messages);
        prop_assert_eq!(r.per_link.iter().map(|l| l.bytes).sum::<u64>(), n.link_bytes);
        for l in &r.per_link {
            prop_assert!(l.busy.ps() <= n.quiet_ps, "a link busy {} in a run of {}", l.busy, n.quiet_ps);
        }
        ranks_ran_their_plan(&c, &r)?;
        prop_assert_eq!(deterministic_json(&run(&text)), deterministic_json(&r));
        // flows move at whole bytes per second, so how the rates were recomputed (the ripple,
        // or everything at or above the level) changes no figure
        let s = load(&text, &[]).expect("valid");
        let mut sim = Simulation::new(&s).expect("builds");
        sim.flow_ripple(false);
        let mut without = sim.run().expect("completes");
        let mut with = r.clone();
        // (all but the count of the model's own work)
        prop_assert!(without.network.flow_model.take().is_some());
        prop_assert!(with.network.flow_model.take().is_some());
        prop_assert_eq!(deterministic_json(&without), deterministic_json(&with));
        prop_assert_eq!(&without.per_link, &with.per_link);
        prop_assert_eq!(&without.per_rank, &with.per_rank);
    }
}

/// The run of `text` cut into `partitions` partitions and simulated on `threads` threads, as
/// its deterministic JSON (everything but `host`).
fn run_parallel(text: &str, partitions: u32, threads: u32) -> String {
    let sets = [
        format!("engine.partitions={partitions}"),
        format!("engine.threads={threads}"),
    ];
    let s = load(text, &sets).expect("a valid scenario");
    let sim = Simulation::new(&s).expect("builds");
    let r = sim
        .run()
        .unwrap_or_else(|e| panic!("the run must complete: {e}"));
    deterministic_json(&r)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random networks of every topology, cut into 2 to 7 partitions (as many as the network
    /// allows) and run on 1, 2, 3 and 7 threads, print the same figures as one partition on
    /// one thread: every field of the summary, every link, rank and node.
    #[test]
    fn any_partitions_and_threads_print_the_same_figures(c in case(), parts in 2u32..=7) {
        let text = c.toml();
        let whole = run_parallel(&text, 1, 1);
        for threads in [1, 2, 3, 7] {
            let cut = run_parallel(&text, parts, threads);
            prop_assert!(cut == whole, "{parts} partitions, {threads} threads: {}",
                first_difference(&whole, &cut));
        }
    }
}

/// The first line where `a` and `b` differ, both versions.
fn first_difference(a: &str, b: &str) -> String {
    a.lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| format!("line {}: {x} | {y}", i + 1))
        .unwrap_or_else(|| format!("lengths {} and {}", a.len(), b.len()))
}

/// Found by `random_workloads_keep_the_invariants` (a random seed of its): an input-queued
/// router's output found the first packet it could take (ready, its input's crossbar free)
/// without credit downstream and waited for credit; a picosecond later another output took a
/// packet from that packet's input, so the crossbar made it wait as well, and a smaller packet
/// behind it, from another input, could go (0 B, with `header_bytes = 0`: 311 B of room). The
/// output must look again then (`Network::input_taken`); without that the link stayed idle
/// until the credit came, and the engine's self-check stopped the run at 4.366826 us.
#[test]
fn a_starved_output_looks_again_when_its_first_packet_s_input_is_taken() {
    let c = Case {
    net: "topology = 'fattree'\ndown_ports = [3, 1, 3]\nup_ports = [1, 3, 0]\nrouting = 'straight_up'".to_string(),
    nics: 1,
    ranks_per_node: 1,
    policy: "random",
    link_gbps: 7,
    switch_gbps: 5,
    nic_gbps: None,
    dma_mbps: 3480,
    mtu: 1024,
    header: 0,
    buffer_packets: 3,
    eager: 256,
    node_latency_ns: 235,
    cut_through: false,
    output_queued: false,
    vcs: Some(
        5,
    ),
    outbuf_packets: 0,
    ranks: 4,
    phases: vec![
        Phase {
            compute_ns: vec![
                1136,
                0,
                0,
                522,
            ],
            ops: vec![
                Op {
                    kind: Kind::Msg,
                    src: 1,
                    dst: 0,
                    bytes: 2513,
                },
                Op {
                    kind: Kind::Put,
                    src: 0,
                    dst: 2,
                    bytes: 1918,
                },
                Op {
                    kind: Kind::Put,
                    src: 0,
                    dst: 0,
                    bytes: 17246,
                },
                Op {
                    kind: Kind::Put,
                    src: 3,
                    dst: 0,
                    bytes: 5833,
                },
            ],
        },
        Phase {
            compute_ns: vec![
                0,
                0,
                0,
                0,
            ],
            ops: vec![
                Op {
                    kind: Kind::Msg,
                    src: 1,
                    dst: 0,
                    bytes: 0,
                },
                Op {
                    kind: Kind::Put,
                    src: 1,
                    dst: 0,
                    bytes: 0,
                },
                Op {
                    kind: Kind::Put,
                    src: 1,
                    dst: 0,
                    bytes: 2674,
                },
                Op {
                    kind: Kind::Put,
                    src: 1,
                    dst: 2,
                    bytes: 2048,
                },
            ],
        },
    ],
};
    let text = c.toml();
    let _ = run(&text);
}
