//! `network.nodes`: every family picks its nearest full shape of at least that many nodes and
//! says which; the shapes below are worked out by hand from the rules of
//! `src/topology/sizing.rs`. (Tests of the scenario reader, beside it: they read the network
//! it built.)

use crate::config::Scenario;
use std::path::{Path, PathBuf};

/// The project's folder (scenarios are read as if from its `scenarios/`).
fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Scenario `toml`, read as `scenarios/test.toml` with `sets`.
fn scenario(toml: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_str_with(toml, &project().join("scenarios/test.toml"), &sets, false)
        .expect("valid scenario")
}

/// The scenario of `network` (lines of `[network]`) with one rank, and `sets`.
fn sized(network: &str, sets: &[&str]) -> Scenario {
    scenario(
        &format!("[network]\n{network}\n[workload]\nranks = 1\ncode = ''\n"),
        sets,
    )
}

/// What the scenario's network is: its family, shape, routers, nodes and links.
fn what(s: &Scenario) -> (String, String, u32, u64, u64) {
    let t = &s.topo;
    (
        t.name().to_string(),
        t.shape(),
        t.routers(),
        s.nodes(),
        t.links(),
    )
}

fn problem(network: &str, sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let text = format!("[network]\n{network}\n[workload]\nranks = 1\ncode = ''\n");
    let e = Scenario::from_str_with(&text, &project().join("scenarios/test.toml"), &sets, false)
        .expect_err("a problem");
    format!("{e:#}")
}

/// What a family chose: its words for the shape, the family, routers, nodes and links.
type Chosen = (&'static str, &'static str, u32, u64, u64);

#[test]
fn each_family_picks_its_nearest_full_shape_of_at_least_the_nodes_asked() {
    let cases: &[(&str, u64, Chosen)] = &[
        // 8·8·8 = 512; a torus of 3 dimensions has 3 links a router
        (
            "topology = 'torus'",
            512,
            ("torus", "8x8x8", 512, 512, 1536),
        ),
        // 7·7·7, 7·7·8, 7·8·8 are short of 500; 8·8·8 holds it
        (
            "topology = 'torus'",
            500,
            ("torus", "8x8x8", 512, 512, 1536),
        ),
        // 4·5·5 = 100; a mesh's lines of 4 and 5 routers have 3 and 4 links: 3·25 + 2·4·20
        ("topology = 'mesh'", 100, ("mesh", "4x5x5", 100, 100, 235)),
        // Tofu: ⌈512 / 12⌉ = 43 units; 3·3·4 = 36 < 43 <= 3·4·4 = 48: 576 nodes, each with
        // 2 links in x, y, z and b (rings) and 1 in a and c (meshes of 2): 576·10/2
        (
            "topology = 'tofu'",
            512,
            ("tofu", "3x4x4 x 2x3x2", 576, 576, 2880),
        ),
        // fat tree of 2 levels: 2·(R/2)² >= 512 first at R = 32: 32 leaves and 16 spines,
        // a link from each leaf to each spine
        (
            "topology = 'fattree'",
            512,
            ("fattree", "radix 32, 2 levels", 48, 512, 512),
        ),
        // 2·(R/2)² >= 64 first at R/2 = 6: 72 nodes on 12 leaves of 6, 6 spines
        (
            "topology = 'fattree'",
            64,
            ("fattree", "radix 12, 2 levels", 18, 72, 72),
        ),
        // radix 8 kept (given with the nodes in the file): 1 level holds 8, 2 levels 32,
        // 3 levels 128
        (
            "topology = 'fattree'\nradix = 8\nnodes = 64",
            64,
            ("fattree", "radix 8, 3 levels", 80, 128, 256),
        ),
        // dragonfly a = 2p = 2h: h = 3 holds at most 6·3·19 = 342; h = 4 (a = 8, p = 4, 32
        // global links a group): g − 1 divides 32, 32·g >= 512 first at g = 17 (2 links
        // between each pair of groups): local 17·C(8,2) = 476, global 17·32/2 = 272
        (
            "topology = 'dragonfly'",
            512,
            ("dragonfly", "a=8 p=4 h=4 g=17", 136, 544, 748),
        ),
        // exactly TraceRP's: h = 3, g = 19
        (
            "topology = 'dragonfly'",
            342,
            ("dragonfly", "a=6 p=3 h=3 g=19", 114, 342, 456),
        ),
        // a = 4 kept, p = h: h = 2 holds at most 4·2·9 = 72 < 100; h = 3: 12 global links a
        // group, g − 1 in {1, 2, 3, 4, 6, 12}, 12·g >= 100 first at g = 13
        (
            "topology = 'dragonfly'\nrouters_per_group = 4\nnodes = 100",
            100,
            ("dragonfly", "a=4 p=3 h=3 g=13", 52, 156, 156),
        ),
        (
            "topology = 'hyperx'",
            512,
            ("hyperx", "8x8x8 T=1 K=1", 512, 512, 5376),
        ),
        // T = 4 kept: ⌈512 / 4⌉ = 128 routers; 5·5·5 = 125 < 128 <= 5·5·6 = 150: 600 nodes,
        // each router linked to 4 + 4 + 5 others
        (
            "topology = 'hyperx'\nnodes_per_router = 4\nnodes = 512",
            512,
            ("hyperx", "5x5x6 T=4 K=1", 150, 600, 975),
        ),
    ];
    for (net, n, want) in cases {
        // (the nodes set as a sweep's point would, unless the file gives them with the keys
        // it keeps: a point's nodes replace the file's keys of the size)
        let set = format!("network.nodes={n}");
        let sets: &[&str] = if net.contains("nodes =") {
            &[]
        } else {
            &[&set]
        };
        let s = sized(net, sets);
        let got = what(&s);
        let w = (
            want.0.to_string(),
            want.1.to_string(),
            want.2,
            want.3,
            want.4,
        );
        assert_eq!(got, w, "{net}, {n} nodes");
        // it says which, and by how many it overshoots
        let note = s
            .notes
            .iter()
            .find(|x| x.starts_with(&format!("network.nodes = {n}: ")))
            .unwrap_or_else(|| panic!("{net}: {:?}", s.notes));
        let more = want.3 - n;
        assert_eq!(
            note.contains(&format!(", {} nodes, {more} more than asked", want.3)),
            more > 0,
            "{note}"
        );
    }
}

#[test]
fn nodes_are_counted_per_node_not_per_nic() {
    // 2 NICs a node: a fat tree needs 128 NIC ports for 64 nodes: 2·(R/2)² >= 128 at R = 16
    let s = sized(
        "topology = 'fattree'",
        &["network.nodes=64", "node.nics_per_node=2"],
    );
    assert_eq!(
        (s.topo.shape(), s.nodes()),
        ("radix 16, 2 levels".into(), 64)
    );
    // a torus has a router per node whatever its NICs
    let s = sized(
        "topology = 'torus'",
        &["network.nodes=64", "node.nics_per_node=2"],
    );
    assert_eq!((s.topo.shape(), s.nodes()), ("4x4x4".into(), 64));
}

#[test]
fn nodes_set_on_the_command_line_replace_the_file_s_shape_and_the_other_way_round() {
    // the file's dims give way to --set network.nodes, with a note
    let s = sized("topology = 'torus'\ndims = [2, 2]", &["network.nodes=27"]);
    assert_eq!(s.topo.shape(), "3x3x3");
    assert!(
        s.notes.iter().any(|n| n.starts_with(
            "network.dims left out: network.nodes = 27 was set by --set or a sweep's point"
        )),
        "{:?}",
        s.notes
    );
    // the file's nodes give way to --set network.dims
    let s = sized("topology = 'torus'\nnodes = 27", &["network.dims=[2, 2]"]);
    assert_eq!(s.topo.shape(), "2x2");
    assert!(s
        .notes
        .iter()
        .any(|n| n
            == "network.nodes = 27 left out: network.dims was set by --set or a sweep's point"));
    // the file's TraceRP dragonfly (a, p, h given) sized by a point: all four give way
    let s = sized(
        "topology = 'dragonfly'\nrouters_per_group = 6\nnodes_per_router = 3\n\
         global_links_per_router = 3",
        &["network.nodes=512"],
    );
    assert_eq!(s.topo.shape(), "a=8 p=4 h=4 g=17");
    // given together in the file, a key that fixes the size is a problem naming both
    for (net, key) in [
        ("topology = 'torus'\ndims = [4, 4]\nnodes = 16", "dims"),
        ("topology = 'hyperx'\ndims = [4, 4]\nnodes = 16", "dims"),
        ("topology = 'dragonfly'\ngroups = 5\nnodes = 16", "groups"),
        (
            "topology = 'fattree'\nradix = 4\nlevels = 2\nnodes = 16",
            "levels",
        ),
    ] {
        let e = problem(net, &[]);
        assert!(
            e.contains(&format!(
                "key `network.{key}`: network.nodes and network.{key} both size the network"
            )),
            "{net}: {e}"
        );
    }
    // out of range, and no shape within the ports
    let e = problem("topology = 'torus'\nnodes = 0", &[]);
    assert!(e.contains("key `network.nodes`: 0 is out of range"), "{e}");
    let e = problem("topology = 'fattree'\nradix = 4\nnodes = 1000", &[]);
    assert!(
        e.contains("no full-bisection fat tree of radix 4 and at most 8 levels has 1000 nodes"),
        "{e}"
    );
}

#[test]
fn a_graph_keeps_its_file_s_nodes_and_refuses_fewer_than_asked() {
    // jellyfish.graph: 16 routers of 2 nodes
    let s = sized(
        "topology = 'graph'\ngraph = 'jellyfish.graph'",
        &["network.nodes=30"],
    );
    assert_eq!(s.nodes(), 32);
    assert!(s
        .notes
        .iter()
        .any(|n| n.starts_with("network.nodes = 30: graph jellyfish.graph, 32 nodes, 2 more")));
    let e = problem(
        "topology = 'graph'\ngraph = 'jellyfish.graph'",
        &["network.nodes=33"],
    );
    assert!(
        e.contains("33 nodes asked, and the graph's file jellyfish.graph has 32"),
        "{e}"
    );
}
