//! The router alone on tiny networks: packets injected by hand, the network's own events run,
//! and the times each packet's tail reaches its NIC checked against the rules of the module's
//! doc, worked out by hand with the NSIM-ACE defaults: 4 GB/s links and crossbar, a 140 ns
//! router pipeline (4 + 4 + 4 + 128 ns), 0.6 ns cables.

use super::*;
use crate::config::{NetworkConfig, NodeConfig, RouterKind};
use crate::net::packet::Packet;

/// An 80-byte packet (64 B of payload and the 16 B header) serializes in 20 ns at 4 GB/s.
const WIRE: u32 = 80;
const SER: u64 = 20_000;
const CABLE: u64 = 600;
const PIPELINE: u64 = 140_000;

fn mesh(n: u32, buffer: u64) -> Network {
    let net = NetworkConfig {
        topology: "mesh".into(),
        buffer_bytes: Bytes(buffer),
        ..NetworkConfig::default()
    };
    Network::new(&mesh_of(n), &net, &NodeConfig::default(), None, 0, false)
}

/// A mesh of `n` routers in a line, a NIC each.
fn mesh_of(n: u32) -> Topo {
    Topo::from_toml(
        &format!("topology = 'mesh'\ndims = [{n}]"),
        1,
        std::path::Path::new("."),
    )
    .unwrap()
}

fn send(net: &mut Network, q: &mut EventQueue<Event>, src: u32, dst: u32, at: u64) -> PktId {
    let pkt = net.packets.alloc(Packet::new(0, WIRE, src, dst));
    net.inject(src, pkt, Time(at), q);
    pkt
}

/// Runs the network's events until none is left; returns each packet whose tail reached its
/// NIC, and when. The NIC frees the packet's receive buffer at once unless `hold`.
fn run(net: &mut Network, q: &mut EventQueue<Event>, hold: bool) -> Vec<(PktId, u64)> {
    let mut arrived = Vec::new();
    loop {
        // (as the world does: an epoch's arrivals first, then events, then credit wake-ups)
        let tq = q.peek_time().map_or(u64::MAX, |t| t.ps());
        let (ta, tc) = (net.arrivals_due(), net.credit_wake_due());
        let next = tq.min(ta).min(tc);
        if next == u64::MAX {
            break;
        }
        if ta == next {
            net.take_arrivals(q);
            continue;
        }
        if tq != next {
            net.credit_wake(Time(next), q);
            continue;
        }
        let (t, ev) = q.pop().expect("peeked");
        match ev {
            Event::RouterReady(p) => net.router_ready(p, t, q),
            Event::HeadReady(c) => net.head_ready(c, t, q),
            Event::XbarDone(c) => net.xbar_done(c, t, q),
            Event::ChannelFree(c) => {
                net.channel_free(c, t, q);
            }
            Event::NicArrive(p) => {
                arrived.push((p, t.ps()));
                if !hold {
                    net.release_rx(p, t, q);
                }
            }
            other => panic!("{other:?} is not the network's"),
        }
    }
    if !hold {
        // the network is empty: once the releases still recorded are applied, every buffer
        // has all its space back (credit is conserved)
        let end = arrived.iter().map(|a| a.1).max().unwrap_or(0);
        net.settle_all(Time(end));
        assert_eq!((net.releases_held(), net.credit_in_use()), (0, 0));
    }
    arrived
}

#[test]
fn a_packet_crosses_two_routers_in_the_time_worked_out_by_hand() {
    let (mut net, mut q) = (mesh(2, 8192), EventQueue::new());
    let p = send(&mut net, &mut q, 0, 1, 0);
    // injection serializes, then per router a cable and the pipeline, and the last cable
    let expected = SER + 3 * CABLE + 2 * PIPELINE;
    assert_eq!(run(&mut net, &mut q, false), [(p, expected)]);
    assert_eq!(expected, 301_800);
    let s = &net.stats;
    assert_eq!((s.packet_hops, s.link_bytes), (3, 3 * WIRE as u64));
}

#[test]
fn packets_behind_each_other_keep_one_serialization_apart() {
    let (mut net, mut q) = (mesh(3, 8192), EventQueue::new());
    let a = send(&mut net, &mut q, 0, 2, 0);
    let b = send(&mut net, &mut q, 0, 2, 0);
    let first = SER + 4 * CABLE + 3 * PIPELINE;
    assert_eq!(run(&mut net, &mut q, false), [(a, first), (b, first + SER)]);
}

#[test]
fn a_full_buffer_holds_the_next_packet_until_its_credit_comes_back() {
    // buffers of one packet; the receiving NIC keeps the first packet's buffer
    let (mut net, mut q) = (mesh(2, WIRE as u64), EventQueue::new());
    let a = send(&mut net, &mut q, 0, 1, 0);
    let b = send(&mut net, &mut q, 0, 1, 0);
    let first = SER + 3 * CABLE + 2 * PIPELINE;
    assert_eq!(run(&mut net, &mut q, true), [(a, first)]);
    // b follows a one buffer behind: it leaves the NIC when a's tail has left router 0
    // (SER + CABLE + PIPELINE = 160.6 ns) and is ready at router 1 at 160.6 + 281.2 ns; there
    // it waits for the NIC to free a's buffer, and goes the moment it does
    let ready_at_router_1 = (SER + CABLE + PIPELINE) + 2 * (CABLE + PIPELINE);
    assert_eq!(ready_at_router_1, 441_800);
    let freed = 500_000;
    net.release_rx(a, Time(freed), &mut q);
    assert_eq!(run(&mut net, &mut q, true), [(b, freed + SER + CABLE)]);
    assert!(net.stats.packet_hops == 6);
}

/// A 3-router line (NICs 0, 1, 2 on routers 0, 1, 2) with `vcs` virtual channels per input.
fn line(router: RouterKind, vcs: u32) -> Network {
    let net = NetworkConfig {
        topology: "mesh".into(),
        vcs: Some(vcs),
        router,
        ..NetworkConfig::default()
    };
    Network::new(&mesh_of(3), &net, &NodeConfig::default(), None, 0, false)
}

/// A packet of `wire` bytes injected at NIC `src` at time 0.
fn big(net: &mut Network, q: &mut EventQueue<Event>, src: u32, dst: u32, wire: u32) -> PktId {
    let pkt = net.packets.alloc(Packet::new(0, wire, src, dst));
    net.inject(src, pkt, Time::ZERO, q);
    pkt
}

/// When each of `pkts` reached its NIC.
fn arrivals(got: &[(PktId, u64)], pkts: &[PktId]) -> Vec<u64> {
    pkts.iter()
        .map(|p| got.iter().find(|(q, _)| q == p).expect("arrived").1)
        .collect()
}

// The three cases below share one picture. Router 1's output to router 2 is held by X1, 7600 B
// from NIC 1 (1.9 us of serialization): its head leaves router 1 at 140.6 ns and its tail at
// 2040.6 ns. Router 1's output to NIC 1 is held by X2, 7000 B from NIC 2, until 2031.2 ns.
// P1 (NIC 0 -> 2) and P2 (NIC 0 -> 1), 80 B each, reach router 1's input from router 0 ready at
// 281.2 ns and 301.2 ns, P1 first. A packet that leaves router 1 at L reaches NIC 1 at
// L + SER + CABLE, and NIC 2 at L + SER + 2 CABLE + PIPELINE (router 2 is free by then).

const X1_FREES: u64 = 140_600 + 1_900_000;
const X2_FREES: u64 = 281_200 + 1_750_000;

fn held_outputs(router: RouterKind, vcs: u32) -> (u64, u64) {
    let (mut net, mut q) = (line(router, vcs), EventQueue::new());
    big(&mut net, &mut q, 1, 2, 7600);
    big(&mut net, &mut q, 2, 1, 7000);
    let p1 = send(&mut net, &mut q, 0, 2, 0);
    let p2 = send(&mut net, &mut q, 0, 1, 0);
    let got = run(&mut net, &mut q, false);
    let a = arrivals(&got, &[p1, p2]);
    (a[0], a[1])
}

const TO_NIC_1: u64 = SER + CABLE;
const TO_NIC_2: u64 = SER + 2 * CABLE + PIPELINE;

#[test]
fn a_packet_waits_behind_the_head_of_its_input_buffer() {
    // one VC: P2 is behind P1 in the same input buffer. Its output (to NIC 1) is free from
    // 2031.2 ns, but P1 goes first, when its own output frees at 2040.6 ns, and holds the
    // input's crossbar port for one serialization: P2 leaves at 2060.6 ns (head-of-line)
    let (p1, p2) = held_outputs(RouterKind::InputQueued, 1);
    assert_eq!(p1, X1_FREES + TO_NIC_2);
    assert_eq!(p2, X1_FREES + SER + TO_NIC_1);
    assert_eq!((p1, p2), (2_201_800, 2_081_200));
}

#[test]
fn another_virtual_channel_passes_a_blocked_head_but_shares_the_input_port() {
    // two VCs: P2 took the emptier VC 1, so it does not wait behind P1 and leaves the moment
    // its output frees (2031.2 ns); P1's output frees at 2040.6 ns, but the input's crossbar
    // port carries P2's tail until 2051.2 ns, and P1 leaves then
    let (p1, p2) = held_outputs(RouterKind::InputQueued, 2);
    assert_eq!(p2, X2_FREES + TO_NIC_1);
    assert_eq!(p1, X2_FREES + SER + TO_NIC_2);
    assert_eq!((p1, p2), (2_212_400, 2_051_800));
}

#[test]
fn an_output_queued_router_has_neither_head_of_line_blocking_nor_crossbar_conflicts() {
    // each packet leaves the moment its own output frees
    let (p1, p2) = held_outputs(RouterKind::OutputQueued, 1);
    assert_eq!(p2, X2_FREES + TO_NIC_1);
    assert_eq!(p1, X1_FREES + TO_NIC_2);
}

#[test]
fn two_inputs_ready_for_one_output_go_oldest_request_first_one_serialization_apart() {
    // router 1's output to router 2 is held by X1 until 2040.6 ns. P1 (NIC 0 -> 2, from router
    // 0) asked for it at 140.6 ns, when router 0 sent it. B (NIC 1 -> 2), staged behind X1,
    // leaves NIC 1 at 1900 ns and asks then; its input's crossbar port is X1's until 2040.6 ns,
    // when both are ready. The older request, P1's, goes first; B one serialization later.
    for router in [RouterKind::InputQueued, RouterKind::OutputQueued] {
        let (mut net, mut q) = (line(router, 1), EventQueue::new());
        big(&mut net, &mut q, 1, 2, 7600);
        let b = send(&mut net, &mut q, 1, 2, 0);
        let p1 = send(&mut net, &mut q, 0, 2, 0);
        let got = run(&mut net, &mut q, false);
        assert_eq!(
            arrivals(&got, &[p1, b]),
            [X1_FREES + TO_NIC_2, X1_FREES + SER + TO_NIC_2],
            "{router:?}"
        );
    }
}

#[test]
fn an_output_buffer_frees_the_input_behind_a_packet_blocked_downstream() {
    // Buffers of one packet, and NIC 2 keeps what it receives. A and B (NIC 1 -> 2, at 0)
    // fill NIC 2 and then the buffer before it, so that nothing more gets to NIC 2. P1 (NIC 0
    // -> 2) and P2 (NIC 0 -> 1) follow at 300 ns. Without output buffers P1 holds router 1's
    // input from router 0 for ever, P2 waits behind it at router 0, and only A arrives.
    let run_with = |ob: u64| {
        let net = NetworkConfig {
            topology: "mesh".into(),
            buffer_bytes: Bytes(WIRE as u64),
            output_buffer_bytes: Bytes(ob),
            ..NetworkConfig::default()
        };
        let (mut net, mut q) = (
            Network::new(&mesh_of(3), &net, &NodeConfig::default(), None, 0, false),
            EventQueue::new(),
        );
        let a = send(&mut net, &mut q, 1, 2, 0);
        send(&mut net, &mut q, 1, 2, 0);
        send(&mut net, &mut q, 0, 2, 300_000);
        let p2 = send(&mut net, &mut q, 0, 1, 300_000);
        (run(&mut net, &mut q, true), a, p2)
    };
    let (got, a, _) = run_with(0);
    assert_eq!(got, [(a, SER + 3 * CABLE + 2 * PIPELINE)]);
    // With output buffers of one packet, B waits in router 2's output buffer to NIC 2, P1 in
    // router 2's input, and P2 goes by: P1 is ready at router 0 at 440.6 ns and crosses by
    // 460.6 ns, which lets P2 leave NIC 0; P2 is ready at router 0 at 601.2 ns, when P1 has
    // crossed router 1 into its output buffer and given back router 1's input; one more hop
    // and the last cable.
    let (got, a, p2) = run_with(WIRE as u64);
    let p1_crossed_router_0 = 300_000 + CABLE + PIPELINE + SER;
    let p2_leaves_router_0 = p1_crossed_router_0 + CABLE + PIPELINE;
    assert_eq!(p2_leaves_router_0, 601_200);
    assert_eq!(
        got,
        [
            (a, SER + 3 * CABLE + 2 * PIPELINE),
            (p2, p2_leaves_router_0 + CABLE + PIPELINE + SER + CABLE)
        ]
    );
}

/// A network built with only its own state and split for partitions 1 and 2 of 4 holds, in
/// what those partitions own, exactly what the whole network holds (channels with their
/// cut marks, credit, releases, input FIFOs), and zeros everywhere else.
#[test]
fn a_network_built_with_only_its_own_state_holds_that_share_exactly() {
    for kind in [RouterKind::OutputQueued, RouterKind::InputQueued] {
        let cfg = NetworkConfig {
            topology: "mesh".into(),
            router: kind,
            ..NetworkConfig::default()
        };
        let topo = mesh_of(16);
        let parts = crate::partition::Partitioning::new(&topo, 1, &[], 4);
        let here = |p: u16| p == 1 || p == 2;
        let node = NodeConfig::default();
        let whole = Network::new(&topo, &cfg, &node, None, 0, false).split(&parts, |_| true);
        let own = Network::new(&topo, &cfg, &node, None, 0, true).split(&parts, here);
        let (a, b) = (&whole[0], &own[0]);
        let vcs = a.vcs as usize;
        let zero = Channel {
            queues: [Fifo { head: 0, tail: 0 }; MAX_CLASSES],
            next: 0,
            releasing_up: 0,
            releasing: 0,
            wake_at: 0,
            credit_wake_at: 0,
            ..Channel::idle()
        };
        let (mut mine, mut cut) = (0, 0);
        for c in 0..a.channels.len() {
            // SAFETY: no partition runs
            let (ca, cb) = unsafe { (&a.channels.all()[c], &b.channels.all()[c]) };
            let credit = |n: &Network| unsafe { n.credit.all()[c * vcs..(c + 1) * vcs].to_vec() };
            let fifos = |n: &Network| unsafe {
                let f = &n.inq.all();
                (!f.is_empty()).then(|| {
                    f[c * vcs..(c + 1) * vcs]
                        .iter()
                        .map(|x| (x.head, x.tail, x.emptied))
                        .collect::<Vec<_>>()
                })
            };
            let pending = |n: &Network| unsafe { format!("{:?}", n.returns.lists.all()[c]) };
            if here(a.owner[c]) {
                mine += 1;
                cut += (cb.flags & CUT != 0) as u32;
                assert_eq!(format!("{ca:?}"), format!("{cb:?}"), "channel {c}");
                assert_eq!(credit(a), credit(b), "credit of {c}");
                assert_eq!(pending(a), pending(b), "releases of {c}");
            } else {
                assert_eq!(format!("{cb:?}"), format!("{zero:?}"), "channel {c}");
                assert!(credit(b).iter().all(|&x| x == 0), "credit of {c}");
            }
            if here(a.fed_owner[c]) {
                assert_eq!(fifos(a), fifos(b), "input FIFOs fed by {c}");
            } else if let Some(f) = fifos(b) {
                assert!(f.iter().all(|&x| x == (0, 0, 0)), "input FIFOs fed by {c}");
            }
        }
        // (partitions 1 and 2 of 16 routers: half of the channels)
        assert_eq!(mine, a.channels.len() / 2, "{kind:?}");
        // (the links out of partitions 1 and 2 into 0 and 3, and between them)
        assert_eq!(cut, 4, "{kind:?}");
    }
}
