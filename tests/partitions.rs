//! Where the cut between partitions may fall: a node's NICs stay in one partition whatever the
//! network says, and every figure is the same for any partition count.

mod common;

use std::path::Path;

/// A ring of 8 routers whose nodes have two NICs each on routers far apart: node 0 on routers
/// 0 and 2, node 1 on routers 4 and 0 (so routers 0, 2 and 4 must share a partition though a
/// cut by runs of routers puts them in three), node 2 on 6 and 3, node 3 on 7 and 5.
const GRAPH: &str = "routers 8\nnodes 8\n\
link 0 1\nlink 1 2\nlink 2 3\nlink 3 4\nlink 4 5\nlink 5 6\nlink 6 7\nlink 7 0\n\
node 0 0\nnode 1 2\nnode 2 4\nnode 3 0\nnode 4 6\nnode 5 3\nnode 6 7\nnode 7 5\n";

/// Every rank puts 4 KiB to every other on both of its NICs, in turn, and completes them.
const SCENARIO: &str = "[network]\ntopology = 'graph'\ngraph = 'ring.graph'\n\
[node]\nnics_per_node = 2\n[workload]\nranks = 4\ncode = '''\n\
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()\nlocal hs = {}\n\
for i = 1, p - 1 do hs[#hs + 1] = MGEN_rdma_put((me + i) % p, 4096, 1, i % 2) end\n\
for _ = 1, p - 1 do MGEN_rdma_poll(1) end\n\
for _, h in ipairs(hs) do MGEN_acp_complete(h) end\n'''\n";

fn run(dir: &Path, parts: u32, threads: u32) -> (String, Vec<u8>) {
    let out = dir.join(format!("out{parts}{threads}"));
    let o = common::mgensim_in(
        dir,
        &[
            "run",
            "ring.toml",
            "--partitions",
            &parts.to_string(),
            "--threads",
            &threads.to_string(),
            "--out",
            out.to_str().unwrap(),
            "--set",
            "engine.separate_partitions=true",
        ],
    );
    assert!(
        o.status.success(),
        "{parts} partitions on {threads} threads: {}",
        common::stderr(&o)
    );
    let text: String = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("host "))
        .map(|l| format!("{l}\n"))
        .collect();
    (text, std::fs::read(out.join("links.csv")).unwrap())
}

#[test]
fn a_node_whose_nics_sit_on_routers_far_apart_keeps_them_in_one_partition() {
    let dir = tempfile::tempdir().unwrap();
    common::tmp_file(dir.path(), "ring.graph", GRAPH);
    common::tmp_file(dir.path(), "ring.toml", SCENARIO);
    let one = run(dir.path(), 1, 1);
    assert!(one.0.contains("12 puts/gets"), "{}", one.0);
    for (parts, threads) in [(2, 1), (2, 2), (4, 1), (4, 2), (8, 2)] {
        assert!(
            run(dir.path(), parts, threads) == one,
            "{parts} partitions on {threads} threads differ from one"
        );
    }
}

/// The partition count in a run's `summary.json`, and the note of its `host` line.
fn host(dir: &Path, extra: &[&str]) -> (u64, u64, String) {
    let mut args = vec!["run", "ring.toml", "--json"];
    args.extend_from_slice(extra);
    let o = common::mgensim_in(dir, &args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let h = &v["host"];
    (
        h["partitions"].as_u64().unwrap(),
        h["threads"].as_u64().unwrap(),
        h["partition_note"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn a_thread_runs_the_partitions_it_is_given_as_one_unless_told_to_keep_them_apart() {
    let dir = tempfile::tempdir().unwrap();
    common::tmp_file(dir.path(), "ring.graph", GRAPH);
    common::tmp_file(dir.path(), "ring.toml", SCENARIO);
    let (parts, threads, note) = host(dir.path(), &["--partitions", "4", "--threads", "1"]);
    assert_eq!((parts, threads), (1, 1), "{note}");
    assert!(note.contains("4 partitions asked, run as 1"), "{note}");
    let (parts, threads, _) = host(dir.path(), &["--partitions", "4", "--threads", "2"]);
    assert_eq!((parts, threads), (2, 2));
    let (parts, threads, note) = host(
        dir.path(),
        &[
            "--partitions",
            "4",
            "--threads",
            "1",
            "--set",
            "engine.separate_partitions=true",
        ],
    );
    assert_eq!((parts, threads), (4, 1));
    assert_eq!(note, "");
}
