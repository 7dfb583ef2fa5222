//! Whole-network behaviour: no deadlock under load, the links a route uses, packet counts.

mod common;
use common::*;
use mgensim::config::{NetworkConfig, Topology};
use mgensim::net::topology::Cube;

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
fn expected_hops(topology: Topology, dims: &[u32], bytes: u64) -> u64 {
    let cube = Cube::new(
        &NetworkConfig {
            topology,
            dims: dims.to_vec(),
            ..NetworkConfig::default()
        },
        1,
    );
    let n = cube.routers();
    let packets = bytes.div_ceil(2048).max(1) + 1;
    let mut hops = 0;
    for s in 0..n {
        for d in 0..n {
            if s != d {
                hops += packets * (cube.distance(s, d) as u64 + 2);
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
    assert_eq!(
        r.network.packet_hops,
        expected_hops(Topology::Torus, &[4, 4], 8192)
    );
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
        expected_hops(Topology::Torus, &[3, 3, 2], 3000)
    );
}

#[test]
fn mesh_uses_no_wrap_links() {
    let r = all_to_all("mesh", "[4, 4]", 4096, "4 KiB");
    assert_eq!(r.network.wrap_hops, 0);
    assert_eq!(
        r.network.packet_hops,
        expected_hops(Topology::Mesh, &[4, 4], 4096)
    );
    // and a mesh routes the long way where a torus wraps, so it crosses more links
    let t = all_to_all("torus", "[4, 4]", 4096, "4 KiB");
    assert!(r.network.packet_hops > t.network.packet_hops);
}

#[test]
fn six_dimensions_work() {
    let r = all_to_all("torus", "[2, 2, 2, 2, 2, 2]", 100, "4 KiB");
    assert_eq!(
        r.network.packet_hops,
        expected_hops(Topology::Torus, &[2; 6], 100)
    );
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
