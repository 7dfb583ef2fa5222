//! The router alone on tiny networks: packets injected by hand, the network's own events run,
//! and the times each packet's tail reaches its NIC checked against the rules of the module's
//! doc, worked out by hand with the NSIM-ACE defaults: 4 GB/s links and crossbar, a 140 ns
//! router pipeline (4 + 4 + 4 + 128 ns), 0.6 ns cables.

use super::*;
use crate::config::{NetworkConfig, NodeConfig, Topology};
use crate::net::packet::Packet;

/// An 80-byte packet (64 B of payload and the 16 B header) serializes in 20 ns at 4 GB/s.
const WIRE: u32 = 80;
const SER: u64 = 20_000;
const CABLE: u64 = 600;
const PIPELINE: u64 = 140_000;

fn mesh(n: u32, buffer: u64) -> Network {
    let net = NetworkConfig {
        topology: Topology::Mesh,
        dims: vec![n],
        buffer_bytes: Bytes(buffer),
        ..NetworkConfig::default()
    };
    Network::new(&net, &NodeConfig::default(), None, 0)
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
    while let Some((t, ev)) = q.pop() {
        match ev {
            Event::RouterReady(p) => net.router_ready(p, t, q),
            Event::HeadReady(c) => net.head_ready(c, t, q),
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
