//! Whole-network behaviour: no deadlock under load, the links a route uses, packet counts.

mod common;
use common::*;

/// Every rank puts `bytes` to every other rank, then polls p-1 times and completes all.
const ALL_TO_ALL: &str = "
local r, p = MGEN_Comm_rank(), MGEN_Comm_size()
local bytes = MGEN_args.bytes
local hs = {}
for k = 1, p - 1 do hs[#hs + 1] = MGEN_rdma_put((r + k) % p, bytes, 0) end
for _ = 1, p - 1 do MGEN_rdma_poll(0) end
for _, h in ipairs(hs) do MGEN_acp_complete(h) end
";

fn all_to_all(topology: &str, dims: &str, bytes: u64, buffer: &str) -> mgensim::Report {
    run(&format!(
        "[network]\ntopology = '{topology}'\ndims = {dims}\nbuffer_bytes = '{buffer}'\n\
         [workload]\nargs = {{ bytes = {bytes} }}\ncode = '''{ALL_TO_ALL}'''\n"
    ))
}

/// Link traversals all-to-all must make: per put, (packets + 1 control) x (distance + 2 NIC links).
/// The distance between two routers of a mesh or torus, worked out here from their coordinates
/// (first dimension fastest): the sum over dimensions of the offsets, the shorter way round on
/// a torus.
fn expected_hops(topology: &str, dims: &[u32], bytes: u64) -> u64 {
    let n: u32 = dims.iter().product();
    let coords = |mut r: u32| {
        dims.iter()
            .map(|&k| {
                let c = r % k;
                r /= k;
                c
            })
            .collect::<Vec<u32>>()
    };
    let distance = |s: u32, d: u32| -> u64 {
        let (a, b) = (coords(s), coords(d));
        dims.iter()
            .zip(a.iter().zip(&b))
            .map(|(&k, (&x, &y))| {
                let off = x.abs_diff(y);
                (if topology == "torus" {
                    off.min(k - off)
                } else {
                    off
                }) as u64
            })
            .sum()
    };
    let packets = bytes.div_ceil(2048).max(1) + 1;
    let mut hops = 0;
    for s in 0..n {
        for d in 0..n {
            if s != d {
                hops += packets * (distance(s, d) + 2);
            }
        }
    }
    hops
}

#[test]
fn torus_all_to_all_under_load_completes_with_minimal_buffers() {
    // buffers that hold exactly one packet: the tightest virtual cut-through allows
    let r = all_to_all("torus", "[4, 4]", 8192, "2064 B");
    assert_eq!(r.network.transfers, 16 * 15);
    assert_eq!(r.network.packets, 16 * 15 * (4 + 1));
    assert_eq!(r.network.packet_hops, expected_hops("torus", &[4, 4], 8192));
    assert_eq!(r.network.bytes, 16 * 15 * 8192);
    assert!(
        r.network.wrap_hops > 0,
        "a 4-ary torus route uses its wrap links"
    );
}

#[test]
fn torus_ring_traffic_crossing_the_dateline_completes() {
    // every rank sends the same way round a ring of 8: without dateline VCs this is the
    // textbook cyclic buffer dependency
    let r = run(
        "[network]\ntopology = 'torus'\ndims = [8]\nbuffer_bytes = '2064 B'\n[workload]\ncode = '''
        local r, p = MGEN_Comm_rank(), MGEN_Comm_size()
        local h = MGEN_rdma_put((r + 3) % p, 65536, 0)
        MGEN_rdma_poll(0); MGEN_acp_complete(h)'''\n",
    );
    assert_eq!(r.network.bytes, 8 * 65536);
    // the puts of ranks 5, 6 and 7 wrap going +: 32 data packets each; their control packets
    // come back the short way (-) and wrap too: 3 x (32 + 1)
    assert_eq!(r.network.wrap_hops, 3 * 33);
}

#[test]
fn three_d_torus_all_to_all_completes() {
    let r = all_to_all("torus", "[3, 3, 2]", 3000, "4 KiB");
    assert_eq!(
        r.network.packet_hops,
        expected_hops("torus", &[3, 3, 2], 3000)
    );
}

#[test]
fn mesh_uses_no_wrap_links() {
    let r = all_to_all("mesh", "[4, 4]", 4096, "4 KiB");
    assert_eq!(r.network.wrap_hops, 0);
    assert_eq!(r.network.packet_hops, expected_hops("mesh", &[4, 4], 4096));
    // and a mesh routes the long way where a torus wraps, so it crosses more links
    let t = all_to_all("torus", "[4, 4]", 4096, "4 KiB");
    assert!(r.network.packet_hops > t.network.packet_hops);
}

#[test]
fn six_dimensions_work() {
    let r = all_to_all("torus", "[2, 2, 2, 2, 2, 2]", 100, "4 KiB");
    assert_eq!(r.network.packet_hops, expected_hops("torus", &[2; 6], 100));
}

#[test]
fn link_bytes_are_packet_sizes_times_hops() {
    // 1-D mesh, 0 -> 3: 3 data packets (2048 + 2048 + 904 payload) and one control packet
    let r = run(
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\ncode = '''
        if MGEN_Comm_rank() == 0 then MGEN_rdma_put(3, 5000, 0) end'''\n",
    );
    let wire = (2048 + 16) * 2 + (904 + 16) + 16;
    assert_eq!(r.network.link_bytes, wire * 5);
    assert_eq!(r.network.packet_hops, 4 * 5);
}

/// Events of a run where rank 0 puts 8 bytes to rank `to` on an 8-node ring and nobody else
/// sends.
fn one_put_events(to: u32) -> u64 {
    let r = run(&format!(
        "[network]\ntopology = 'torus'\ndims = [8]\n[workload]\nranks = 8\ncode = '''
local r = MGEN_Comm_rank()
if r == 0 then MGEN_acp_complete(MGEN_rdma_put({to}, 8, 0)) end
if r == {to} then MGEN_rdma_poll(0) end
'''\n"
    ));
    assert_eq!(
        r.network.packets, 2,
        "the data packet and its control packet"
    );
    r.network.events
}

#[test]
fn in_a_quiet_network_a_hop_costs_one_event() {
    // Three more hops for each of the two packets: one event each, for the head reaching the
    // next router. A tail leaving a link nobody waits on is applied when next looked at, not
    // scheduled (router.rs); with an event per tail this would be 12.
    assert_eq!(one_put_events(4) - one_put_events(1), 2 * 3);
}

/// On a ring of 8 (a 1-D torus), rank 6 puts 64 B to rank 1 (routers 6, 7, 0, 1: over the
/// wrap-around link, so on virtual channel 1 after it) and rank 0, after computing
/// `delay_ps`, puts 64 B to rank 2 (routers 0, 1, 2: virtual channel 0). Both leave router 0
/// by its + port. Returns when each put landed: (rank 1's poll, rank 2's poll), in ps.
fn two_puts_meeting_at_router_0(delay_ps: u64) -> (u64, u64) {
    let r = run(&format!(
        "[network]\ntopology = 'torus'\ndims = [8]\n[workload]\nranks = 8\ncode = '''
local r = MGEN_Comm_rank()
if r == 6 then MGEN_rdma_put(1, 64, 0) end
if r == 0 then MGEN_Comp({delay_ps} * 1e-12); MGEN_rdma_put(2, 64, 0) end
if r == 1 or r == 2 then MGEN_rdma_poll(0) end
'''\n"
    ));
    (r.per_rank[1].finish_ps, r.per_rank[2].finish_ps)
}

#[test]
fn packets_ready_at_the_same_picosecond_are_served_by_round_robin() {
    // (router.rs) A head is ready at a router's pipeline end; one ready at the picosecond its
    // output frees, or at the same picosecond as another, competes there, and the virtual
    // channels take turns, VC 0 first on a fresh link. Before, the order the simulator made
    // its events in decided, and here that favoured rank 6's packet: it left router 7 before
    // rank 0's left its NIC, within the same picosecond.
    let p = Params::nsim_ace();
    let (payload, wire) = (64, 64 + p.header);
    let k = p.cable + p.router; // one hop, head to head
    let alone = |routers| p.dma(payload) + p.fly(wire, routers) + p.dma(payload);
    // rank 6's head is ready at router 0 at dma + 3k; rank 0's, after its compute, at
    // delay + dma + k: the same picosecond for a delay of 2k
    let (to_1, to_2) = two_puts_meeting_at_router_0(2 * k);
    assert_eq!(to_2, 2 * k + alone(3), "VC 0 goes first");
    assert_eq!(to_1, alone(4) + p.ser(wire), "VC 1 waits for its tail");
    // one picosecond later, rank 0's packet finds the link taken, and waits for the rest of
    // the other's serialization
    let (to_1, to_2) = two_puts_meeting_at_router_0(2 * k + 1);
    assert_eq!(to_1, alone(4));
    assert_eq!(to_2, 2 * k + 1 + alone(3) + p.ser(wire) - 1);
}

#[test]
fn packets_of_no_bytes_hold_a_link_for_a_picosecond_and_lose_no_wake_up() {
    // Found by the property test: with no header, a 0-byte put is a packet of 0 bytes, which
    // left a link and freed it in the same picosecond. Its release then took the place of the
    // one before it on that link, whose buffer's feeder (a NIC here) was never woken, and the
    // run ended in a false deadlock with two packets stuck. A packet now holds a link for at
    // least 1 ps (router.rs, `send`).
    let r = run(
        "[network]\ntopology = 'torus'\ndims = [3]\nlink_bandwidth = '2 GB/s'\n\
        switch_bandwidth = '7 GB/s'\nmtu = 64\nheader_bytes = 0\nbuffer_bytes = 64\n\
        [node]\ndma_bandwidth = '597 MB/s'\nnode_latency = '153 ns'\nnic_bandwidth = '8 GB/s'\n\
        nics_per_node = 2\nranks_per_node = 2\n[placement]\npolicy = 'round_robin'\n\
        [workload]\nranks = 3\ncode = '''
local me = MGEN_Comm_rank()
local hs = {}
if me == 0 then MGEN_rdma_poll(1); MGEN_rdma_poll(1); MGEN_rdma_poll(1) end
if me == 1 then
  MGEN_Comp(907e-9)
  hs = { MGEN_rdma_put(0, 0, 1), MGEN_rdma_put(0, 0, 1), MGEN_rdma_get(0, 1, 1),
         MGEN_rdma_get(0, 193, 1), MGEN_rdma_put(0, 12, 1) }
end
if me == 2 then MGEN_Comp(280e-9); hs = { MGEN_rdma_get(0, 512, 1) } end
for _, h in ipairs(hs) do MGEN_acp_complete(h) end
'''\n",
    );
    // by hand, 64-byte packets: puts of 0, 0 and 12 B are a data packet and an
    // acknowledgement each (6); gets of 1, 193 and 512 B a request and 1, 4 and 8 data packets
    assert_eq!(r.network.packets, 6 + (1 + 1) + (1 + 4) + (1 + 8));
    assert_eq!(r.network.packets_delivered, r.network.packets);
    assert_eq!(r.network.transfers, 6);
}
