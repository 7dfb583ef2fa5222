//! UGAL that adapts: on an adversarial permutation, where minimal routing puts several flows on
//! one link, UGAL (deciding on the bytes queued for each path's first output) takes detours
//! and finishes sooner, on the built-in HyperX with one node per router and 2 virtual
//! channels, on the dragonfly, and on a HyperX read from a graph file.

mod common;
use mgensim::Report;
use mgensim::Scenario;
use mgensim::Simulation;

/// Bytes each rank puts.
const BYTES: u64 = 1 << 20;

/// The rotation `(x, y, z) -> (y, z, x)` of a 4x4x4 grid of one node per router (node
/// `x + 4y + 16z`): under dimension order, the 4 nodes of a row `(·, y, z)` all cross the y
/// link from `(y, y, z)` to `(y, z, z)` (for y ≠ z), 4 MiB over one link. Fixed points
/// (x = y = z) send nothing.
const ROTATION: &str = "local me = MGEN_Comm_rank()
local x, y, z = me % 4, math.floor(me / 4) % 4, math.floor(me / 16)
local dst = y + 4 * z + 16 * x
if dst ~= me then
  MGEN_acp_complete(MGEN_rdma_put(dst, 1048576, 0))
  MGEN_rdma_poll(0)
end";

/// Runs `network` (the `[network]` table's lines) with `ranks` ranks running `code`, the
/// scenario in `dir` (beside any graph file).
fn run_in(dir: &std::path::Path, network: &str, ranks: u32, code: &str) -> Report {
    let toml =
        format!("[network]\n{network}\n[workload]\nranks = {ranks}\ncode = '''\n{code}\n'''\n");
    let s =
        Scenario::from_str_with(&toml, &dir.join("s.toml"), &[], false).expect("valid scenario");
    Simulation::new(&s).expect("builds").run().expect("runs")
}

/// Link bandwidth (the default, 4.0 GB/s) in bytes per picosecond.
const BYTES_PER_PS: f64 = 4.0e9 / 1e12;

fn gains(minimal: &Report, ugal: &Report, what: &str) {
    assert_eq!(minimal.network.nonminimal_packets, 0, "{what}");
    assert!(
        ugal.network.nonminimal_packets > 0,
        "{what}: UGAL never detoured"
    );
    assert_eq!(minimal.network.bytes, ugal.network.bytes, "{what}");
    assert!(
        (ugal.predicted_time_ps as f64) < 0.85 * minimal.predicted_time_ps as f64,
        "{what}: UGAL {} ps against minimal {} ps",
        ugal.predicted_time_ps,
        minimal.predicted_time_ps
    );
}

#[test]
fn hyperx_ugal_detours_a_rotation_with_one_node_per_router_and_two_vcs() {
    let d = tempfile::tempdir().unwrap();
    let net = |r: &str| {
        format!(
            "topology = 'hyperx'\ndims = [4, 4, 4]\nnodes_per_router = 1\nvcs = 2\nrouting = '{r}'"
        )
    };
    let dor = run_in(d.path(), &net("dimension_order"), 64, ROTATION);
    let ugal = run_in(d.path(), &net("ugal"), 64, ROTATION);
    // 60 ranks send (4 fixed points): 60 MiB delivered
    assert_eq!(dor.network.bytes, 60 * BYTES);
    // dimension order: at least 4 MiB through one link at 4 GB/s (1.049 ms)
    let shared = 4.0 * BYTES as f64 / BYTES_PER_PS;
    assert!(
        dor.predicted_time_ps as f64 >= shared,
        "{}",
        dor.predicted_time_ps
    );
    gains(&dor, &ugal, "HyperX 4x4x4");
    // (and no better than one message alone: 1 MiB through its NIC, 262 us)
    assert!(ugal.predicted_time_ps as f64 >= BYTES as f64 / BYTES_PER_PS);
}

#[test]
fn dragonfly_ugal_detours_a_shift_to_the_next_group() {
    // a = 4, p = 2, h = 2, g = 9: one global link between two groups; every node sends to the
    // same node of the next group (shift by a·p = 8), 8 MiB over one global link minimally
    let d = tempfile::tempdir().unwrap();
    let code = "local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
MGEN_acp_complete(MGEN_rdma_put((me + 8) % p, 1048576, 0))
MGEN_rdma_poll(0)";
    let net = |r: &str| {
        format!(
            "topology = 'dragonfly'\nrouters_per_group = 4\nnodes_per_router = 2\n\
             global_links_per_router = 2\nrouting = '{r}'"
        )
    };
    let min = run_in(d.path(), &net("minimal"), 72, code);
    let ugal = run_in(d.path(), &net("ugal"), 72, code);
    assert_eq!(min.network.bytes, 72 * BYTES);
    assert!(min.predicted_time_ps as f64 >= 8.0 * BYTES as f64 / BYTES_PER_PS);
    gains(&min, &ugal, "dragonfly a=4 p=2 h=2 g=9");
}

/// `[network]` of the 4x4x4 HyperX as a graph file `h.graph` written into `dir`: router
/// `x + 4y + 16z` linked to every router that differs from it in one coordinate (64 · 9 / 2 =
/// 288 links), node n on router n.
fn hyperx_file(dir: &std::path::Path) {
    let mut g = String::from("routers 64\nnodes 64\n");
    for a in 0..64u32 {
        g += &format!("node {a} {a}\n");
        for b in a + 1..64 {
            let (pa, pb) = ([a % 4, a / 4 % 4, a / 16], [b % 4, b / 4 % 4, b / 16]);
            if (0..3).filter(|&i| pa[i] != pb[i]).count() == 1 {
                g += &format!("link {a} {b}\n");
            }
        }
    }
    assert_eq!(g.matches("link").count(), 288);
    std::fs::write(dir.join("h.graph"), g).unwrap();
}

#[test]
fn a_hyperx_read_from_a_file_spreads_the_rotation_over_its_shortest_routes() {
    // three hops in any order: the rotation's flows have 6 shortest routes each; minimal keeps
    // a pair on one (by the source's digits), UGAL takes the least queued next hop
    let d = tempfile::tempdir().unwrap();
    hyperx_file(d.path());
    let net = |r: &str| format!("topology = 'graph'\ngraph = 'h.graph'\nrouting = '{r}'");
    let min = run_in(d.path(), &net("minimal"), 64, ROTATION);
    let ugal = run_in(d.path(), &net("ugal"), 64, ROTATION);
    assert_eq!(min.network.bytes, 60 * BYTES);
    assert!(
        (ugal.predicted_time_ps as f64) < 0.85 * min.predicted_time_ps as f64,
        "UGAL {} ps against minimal {} ps",
        ugal.predicted_time_ps,
        min.predicted_time_ps
    );
}

#[test]
fn a_hyperx_read_from_a_file_detours_a_shift_as_the_built_in_one_does() {
    // hyperx_shift.toml's network as a file: 8 routers all linked, 8 nodes each; every node
    // puts 1 MiB to the same node of the next router, whose one shortest route is the direct
    // link (8 MiB over it minimally)
    let d = tempfile::tempdir().unwrap();
    let mut g = String::from("routers 8\nnodes 64\n");
    for n in 0..64 {
        g += &format!("node {n} {}\n", n / 8);
    }
    for a in 0..8 {
        for b in a + 1..8 {
            g += &format!("link {a} {b}\n");
        }
    }
    std::fs::write(d.path().join("k8.graph"), g).unwrap();
    let code = "local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
MGEN_acp_complete(MGEN_rdma_put((me + 8) % p, 1048576, 0))
MGEN_rdma_poll(0)";
    let net = |r: &str| format!("topology = 'graph'\ngraph = 'k8.graph'\nrouting = '{r}'");
    let min = run_in(d.path(), &net("minimal"), 64, code);
    let ugal = run_in(d.path(), &net("ugal"), 64, code);
    assert!(min.predicted_time_ps as f64 >= 8.0 * BYTES as f64 / BYTES_PER_PS);
    gains(&min, &ugal, "HyperX 8 x 8 nodes from a file");
    let built = run_in(
        d.path(),
        "topology = 'hyperx'\ndims = [8]\nnodes_per_router = 8\nrouting = 'ugal'",
        64,
        code,
    );
    // one rule, the same draws: the file's network predicts what the built-in one does,
    // detour for detour (and minimal routing what dimension order does)
    assert_eq!(ugal.predicted_time_ps, built.predicted_time_ps);
    assert_eq!(
        ugal.network.nonminimal_packets,
        built.network.nonminimal_packets
    );
    let dor = run_in(
        d.path(),
        "topology = 'hyperx'\ndims = [8]\nnodes_per_router = 8",
        64,
        code,
    );
    assert_eq!(min.predicted_time_ps, dor.predicted_time_ps);
}
