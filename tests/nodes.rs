//! Several ranks and several NICs per node, placement, and several jobs on one network.

mod common;
use common::*;
use mgensim::Report;

/// Bytes on the injection link of NIC `nic`.
fn injected(r: &Report, nic: u32) -> u64 {
    r.per_link
        .iter()
        .find(|l| l.port.is_none() && l.from == nic)
        .map_or(0, |l| l.bytes)
}

#[test]
fn ranks_of_one_node_exchange_through_its_memory_not_the_network() {
    let p = Params::nsim_ace();
    // two ranks per node: ranks 0 and 1 on node 0, 2 and 3 on node 1
    let r = run(
        "[network]\ndims = [2]\n[node]\nranks_per_node = 2\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me == 0 then MGEN_acp_complete(MGEN_rdma_put(1, 1000, 0)) end
        if me == 1 then MGEN_rdma_poll(0); MGEN_report('landed', MGEN_Wtime()) end'''\n",
    );
    assert_eq!(r.ranks.count, 4);
    assert_eq!(r.network.packet_hops, 0);
    assert_eq!(r.network.link_bytes, 0);
    assert!(r.per_link.iter().all(|l| l.bytes == 0 && l.busy.ps() == 0));
    // read by the transmit DMA, written by the receive DMA, nothing in between
    let landed = (r.metrics["landed"].mean * 1e12).round() as u64;
    assert_eq!(landed, 2 * p.dma(1000));
    // the control packet comes back the same way
    assert_eq!(r.network.packets, 2);
    assert_eq!(r.predicted_time_ps, 2 * p.dma(1000));

    // rank 0 to rank 2 is node 0 to node 1: through the network, 1 router link
    let r = run(
        "[network]\ndims = [2]\n[node]\nranks_per_node = 2\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me == 0 then MGEN_acp_complete(MGEN_rdma_put(2, 1000, 0)) end
        if me == 2 then MGEN_rdma_poll(0) end'''\n",
    );
    assert_eq!(r.network.packet_hops, 2 * 3);
}

#[test]
fn round_robin_placement_puts_rank_p_back_on_node_0() {
    // 8 ranks on 4 nodes of 2 slots: round robin gives nodes 0 1 2 3 0 1 2 3, so ranks 0 and
    // 4 share a node (no link); linear gives 0 0 1 1 2 2 3 3, so they do not
    let code = "code = '''
        local me = MGEN_Comm_rank()
        if me == 0 then MGEN_acp_complete(MGEN_rdma_put(4, 64, 0)) end
        if me == 4 then MGEN_rdma_poll(0) end'''";
    let toml = |policy: &str| {
        format!("[network]\ndims = [4]\n[node]\nranks_per_node = 2\n[placement]\npolicy = '{policy}'\n[workload]\n{code}\n")
    };
    assert_eq!(run(&toml("round_robin")).network.packet_hops, 0);
    // linear: node 0 to node 2 on a ring of 4: 2 router links
    assert_eq!(run(&toml("linear")).network.packet_hops, 2 * (2 + 2));
}

#[test]
fn a_rank_node_file_places_each_rank_where_it_says() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "map.txt",
        "# NSIM rank-node map: rank node\n0 3\n1 2\n\n2 1  # comment\n3 0\n",
    );
    let toml = tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[placement]\nfile = 'map.txt'\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me == 0 then MGEN_acp_complete(MGEN_rdma_put(3, 5000, 0)) end
        if me == 3 then MGEN_rdma_poll(0) end'''\n",
    );
    let s = mgensim::Scenario::load(&toml, &[], false).unwrap();
    let r = mgensim::Simulation::new(&s).unwrap().run().unwrap();
    let nodes: Vec<u32> = r.per_rank.iter().map(|x| x.node).collect();
    assert_eq!(
        nodes,
        vec![3, 2, 1, 0],
        "each rank on the node the map gives it"
    );
    // rank 0 is node 3 and sends: its NIC injects the data (3 packets + headers)
    assert_eq!(injected(&r, 3), 5000 + 3 * 16);
    assert_eq!(
        injected(&r, 0),
        16,
        "node 0 (rank 3) sends only the control packet"
    );
    // across the whole mesh: 3 router links each way
    assert_eq!(r.network.packet_hops, 4 * (3 + 2));

    // a map with a problem names its line
    tmp_file(dir.path(), "map.txt", "0 3\n1 2\n2 7\n");
    let e = mgensim::Scenario::load(&toml, &[], false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("map.txt:3: node 7 is out of range"), "{e}");
    assert!(e.contains("2 rank(s) have no line: 2, 3"), "{e}");
    assert!(e.contains("`placement.file`"), "{e}");
}

#[test]
fn a_call_picks_its_nic_or_takes_them_in_turn() {
    let put = |args: &str| {
        run(&format!(
            "[network]\ndims = [2]\n[node]\nnics_per_node = 2\n[workload]\ncode = '''
            local me = MGEN_Comm_rank()
            if me == 0 then
              local hs = {{}}
              for _, nic in ipairs({{{args}}}) do hs[#hs + 1] = MGEN_rdma_put(1, 1000, 0, nic >= 0 and nic or nil) end
              for _, h in ipairs(hs) do MGEN_acp_complete(h) end
            else
              for _ in ipairs({{{args}}}) do MGEN_rdma_poll(0) end
            end'''\n"
        ))
    };
    // node 0 has NICs 0 and 1, node 1 has NICs 2 and 3
    let r = put("1");
    assert_eq!(injected(&r, 0), 0);
    assert_eq!(injected(&r, 1), 1016);
    assert_eq!(
        injected(&r, 3),
        16,
        "the control packet leaves the same rail"
    );
    assert_eq!(injected(&r, 2), 0);
    // without a choice: NIC 0, then NIC 1, then NIC 0 again
    let r = put("-1, -1, -1");
    assert_eq!(injected(&r, 0), 2 * 1016);
    assert_eq!(injected(&r, 1), 1016);
}

#[test]
fn two_nics_move_two_transfers_faster_than_one() {
    // Two 1 MB puts between two nodes. With one NIC both share its DMA engine (2.8 GB/s);
    // with two each has its own, and the router-to-router link (4 GB/s) becomes the limit:
    // about 2.8/4 of the time.
    let time = |nics: u32| {
        run(&format!(
            "[network]\ntopology = 'mesh'\ndims = [2]\n[node]\nnics_per_node = {nics}\n[workload]\ncode = '''
            if MGEN_Comm_rank() == 0 then
              local a, b = MGEN_rdma_put(1, 1000000, 0), MGEN_rdma_put(1, 1000000, 0)
              MGEN_acp_complete(a); MGEN_acp_complete(b)
            else MGEN_rdma_poll(0); MGEN_rdma_poll(0) end'''\n"
        ))
        .predicted_time_ps as f64
    };
    let (one, two) = (time(1), time(2));
    let ratio = two / one;
    assert!((0.68..0.75).contains(&ratio), "2 NICs / 1 NIC = {ratio}");
}

/// Two jobs: `a` of 2 ranks, `b` of 3, each seeing its own numbering.
const TWO_JOBS: &str = "[network]\ndims = [8]\n
[[job]]\nname = 'a'\nranks = 2\ncode = '''
MGEN_report('size', MGEN_Comm_size())
MGEN_report('rank', MGEN_Comm_rank())'''
[[job]]\nname = 'b'\nranks = 3\nargs = { hello = 'b' }\ncode = '''
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
assert(MGEN_args.hello == 'b')
MGEN_report('size', p)
local h = MGEN_rdma_put((me + 1) % p, 8, 1)
MGEN_rdma_poll(1)
MGEN_acp_complete(h)'''\n";

#[test]
fn each_job_sees_its_own_ranks_and_args() {
    let r = run(TWO_JOBS);
    assert_eq!(r.ranks.count, 5);
    assert_eq!(r.metrics["a.size"].max, 2.0);
    assert_eq!(r.metrics["a.rank"].max, 1.0);
    assert_eq!(r.metrics["b.size"].min, 3.0);
    assert_eq!(r.network.transfers, 3);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.jobs.len(), 2);
    assert_eq!(
        r.jobs[0].predicted_time_ps, 0,
        "job a only computes nothing"
    );
    assert_eq!(r.jobs[1].predicted_time_ps, r.predicted_time_ps);
    // job b's ranks 0..2 are global ranks 2..4, placed on nodes 2..4: its ring crosses
    // links 2-3, 3-4 and 4-2 (the long way, 2 links): 1 + 1 + 2 router links for the
    // data and the same for the control packets
    assert_eq!(r.network.packet_hops, 2 * ((1 + 2) + (1 + 2) + (2 + 2)));
    // a job cannot name another's ranks
    let e = run_err(&TWO_JOBS.replace("(me + 1) % p", "3"));
    assert!(
        e.contains("`dest` = 3 is not a rank (ranks are 0 to 2)"),
        "{e}"
    );
}

#[test]
fn a_noisy_neighbour_slows_a_job_down_and_a_distant_one_does_not() {
    let time = |policy: &str, neighbour: bool| {
        let mut toml = std::fs::read_to_string(project().join("scenarios/two_jobs.toml")).unwrap();
        toml = toml.replace("policy = \"random\"", &format!("policy = \"{policy}\""));
        if !neighbour {
            toml.truncate(toml.rfind("[[job]]").unwrap());
        }
        let r = run(&toml);
        assert_eq!(r.jobs[0].name, "victim");
        r.jobs[0].predicted_time_ps
    };
    // interleaved (random placement): slower than alone on the very same nodes
    let (alone, shared) = (time("random", false), time("random", true));
    assert!(
        shared as f64 > 1.1 * alone as f64,
        "victim alone {alone} ps, with its neighbour {shared} ps"
    );
    // in separate halves of the torus (linear placement): no link in common, same time
    assert_eq!(time("linear", true), time("linear", false));
}
