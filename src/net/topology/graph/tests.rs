//! The graph family's tests: orders, classes and routes on small graphs, every error of a file.

use super::*;
use crate::net::topology::walk;
use crate::units::Bandwidth;

fn graph(text: &str) -> Graph {
    Graph::parse("g", text, Time(600), GraphRouting::Minimal).unwrap()
}

fn errors(text: &str) -> Vec<String> {
    Graph::parse("g", text, Time(600), GraphRouting::Minimal).unwrap_err()
}

/// A two-level fat tree of 4 leaves (2 nodes each) and 2 spines, in BookSim's words.
const TREE: &str = "
router 0 node 0 node 1 router 4 router 5
router 1 node 2 node 3 router 4 router 5
router 2 node 4 node 5 router 4 router 5
router 3 node 6 node 7 router 4 router 5
";

#[test]
fn a_fat_tree_in_booksim_s_words_routes_up_and_down_on_one_class() {
    let g = graph(TREE);
    assert_eq!((g.routers(), g.ports(), g.nics(), g.links()), (6, 4, 8, 8));
    assert_eq!(g.vcs(), 1, "{}", g.order());
    assert_eq!(g.longer_routes(), 0);
    // ports: nodes first, then the spines in order
    assert_eq!(g.nic_port(3), (1, 1));
    assert_eq!(g.neighbour(1, 2), Some((4, 1)));
    assert_eq!(g.neighbour(1, 3), Some((5, 1)));
    assert_eq!(g.neighbour(5, 0), Some((0, 3)));
    // same leaf: no hop; another leaf: up to the spine the source's digit picks, down
    assert_eq!(walk(&g, 0, 1).0, vec![0]);
    assert_eq!(walk(&g, 0, 7).0, vec![0, 4, 3]);
    assert_eq!(walk(&g, 1, 7).0, vec![0, 5, 3]);
    assert_eq!(walk(&g, 2, 4).0, vec![1, 4, 2]);
    for s in 0..8 {
        for d in 0..8 {
            let (path, vcs) = walk(&g, s, d);
            assert!(vcs.iter().all(|&v| v == 0));
            assert_eq!(path.len() as u32 - 1, g.distance(s, d));
        }
    }
}

#[test]
fn a_ring_needs_a_turn_and_takes_a_second_class_for_it() {
    // a ring of 6 routers, a node each: every router is lowest, ordered by number; the
    // shortest route 5 -> 0 -> 1 goes down, then up
    let text = "link 0 1\nlink 1 2\nlink 2 3\nlink 3 4\nlink 4 5\nlink 5 0\n\
                node 0 0\nnode 1 1\nnode 2 2\nnode 3 3\nnode 4 4\nnode 5 5\n";
    let g = graph(text);
    assert_eq!(g.vcs(), 2);
    assert_eq!(g.longer_routes(), 0);
    let (path, vcs) = walk(&g, 5, 1);
    assert_eq!(path, vec![5, 0, 1]);
    assert_eq!(vcs, vec![0, 1], "the turn at router 0 moves to class 1");
    for s in 0..6 {
        for d in 0..6 {
            let k = (d + 6 - s) % 6;
            assert_eq!(walk(&g, s, d).0.len() as u32 - 1, k.min(6 - k));
        }
    }
    // up*/down* alone: one class, and some routes go the long way round
    let u = Graph::parse("g", text, Time(600), GraphRouting::UpDown).unwrap();
    assert_eq!(u.vcs(), 1);
    assert!(u.longer_routes() > 0);
    assert_eq!(walk(&u, 5, 1).0.len() - 1, 4, "5 -> 4 -> 3 -> 2 -> 1");
}

#[test]
fn classes_weights_and_parallel_links_are_read() {
    let g = graph(
        "class global bandwidth=12.5GB/s latency=30ns\n\
         link 0 1 2 global\nrouter 1 router 2 3\nnode 0 0\nnode 1 router 2\n",
    );
    let classes = g.link_classes();
    assert_eq!(classes[0].name, "global");
    assert_eq!(classes[0].bandwidth, Some(Bandwidth(12_500_000_000)));
    assert_eq!(classes[0].latency, Some(Time::from_ns(30)));
    assert_eq!(classes[1].name, "weight 3");
    assert_eq!(classes[1].latency, Some(Time(1800)));
    // router 0: node, two links to 1; router 1: two to 0, one to 2
    assert_eq!(g.link(0, 1).class, 1);
    assert_eq!(g.link(0, 2).class, 1);
    assert_eq!(g.neighbour(1, 2), Some((2, 1)));
    assert_eq!(g.link(1, 2).class, 2, "1 -> 2 weighs 3");
    assert_eq!(g.link(2, 1).class, 0, "2 -> 1 keeps weight 1");
}

#[test]
fn every_error_names_its_line() {
    let cases: &[(&str, &str)] = &[
        ("link 0 0\nnode 0 0\n", "g:1: router 0 links to itself"),
        (
            "router 2 router 2\nnode 0 2\n",
            "g:1: router 2 links to itself",
        ),
        (
            "routers 2\nlink 0 1\nlink 1 5\nnode 0 0\n",
            "g:3: router 5 does not exist: line 1 declares 2 routers, 0 to 1",
        ),
        (
            "link 0 1\nlink 1 7\nnode 0 0\n",
            "g:2: router 7 does not exist: the file names 3 routers",
        ),
        (
            "link 0 1\nnode 0 0\nnode 2 1\n",
            "g:3: node 1 is on no router",
        ),
        (
            "link 0 1\nnode 0 0\nnode 0 1\n",
            "g:3: node 0 is on router 0 already (line 2)",
        ),
        (
            "link 0 1\nlink 2 3\nnode 0 0\nnode 1 2\n",
            "g:2: the graph is in more than one piece: routers 2, 3 cannot be reached",
        ),
        (
            "link 0 1 fast\nnode 0 0\n",
            "g:1: class `fast` is not defined",
        ),
        (
            "link 0 1\nlink 1 0\nnode 0 0\n",
            "g:2: routers 1 and 0 are linked on line 1 already",
        ),
        ("lnk 0 1\nnode 0 0\n", "g:1: `lnk` starts no statement"),
        ("link 0 1\n", "g: the graph has no node"),
        (
            "link 0 1\nnode 4000000000 1\n",
            "g:2: node 4000000000 is past the most a graph may have",
        ),
        (
            "link 0 4000000000\nnode 0 0\n",
            "g:1: router 4000000000 is past the most",
        ),
        (
            "routers 4000000000\nnode 0 0\n",
            "g:1: router 3999999999 is past the most",
        ),
        (
            "link 0 1 1000000000\nnode 0 0\n",
            "g:1: 1000000000 links: a link's count is 1 to 255",
        ),
    ];
    for (text, want) in cases {
        let e = errors(text);
        assert!(e.iter().any(|x| x.starts_with(want)), "{text:?}: {e:?}");
    }
}

#[test]
fn random_regular_graphs_route_every_pair_without_a_cycle_of_classes() {
    // routes stay within the classes and each pair's hops match its table
    let mut seed = 12345u64;
    for trial in 0..6 {
        let n = 10 + 2 * trial;
        let mut text = String::new();
        let mut links = std::collections::BTreeSet::new();
        // a ring for connectedness, then chords
        for i in 0..n {
            links.insert((i.min((i + 1) % n), i.max((i + 1) % n)));
        }
        for _ in 0..n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (a, b) = ((seed >> 33) as u32 % n, (seed >> 13) as u32 % n);
            if a != b {
                links.insert((a.min(b), a.max(b)));
            }
        }
        for (a, b) in &links {
            text += &format!("link {a} {b}\n");
        }
        for i in 0..n {
            text += &format!("node {i} {i}\n");
        }
        let g = graph(&text);
        for s in 0..n {
            for d in 0..n {
                let (path, vcs) = walk(&g, s, d);
                assert!(vcs.windows(2).all(|w| w[0] <= w[1]), "classes only grow");
                assert!(vcs.iter().all(|&v| v < g.vcs()));
                assert_eq!(path.len() as u32 - 1, g.distance(s, d));
            }
        }
    }
}
