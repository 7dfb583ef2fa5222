//! The graph family's tests: orders, classes and routes on small graphs, every error of a file.

use super::*;
use crate::topology::walk;
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

/// Routers for UGAL's tests: queues from a seeded stream (or one output made long), draws
/// from another, detours counted.
struct Stub {
    seed: u64,
    long: Option<(u32, u8)>,
    detours: u32,
}

impl Stub {
    fn next(&mut self) -> u64 {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.seed >> 33
    }
}

impl Routers for Stub {
    fn draw(&mut self, _: RouterId) -> u64 {
        self.next()
    }
    fn queue(&self, at: RouterId, port: u8) -> u64 {
        match self.long {
            Some(l) if l == (at, port) => 1 << 30,
            Some(_) => 0,
            // (a stream read through a shared view: mixed from the place asked)
            None => (self.seed ^ (at as u64 * 7919 + port as u64 * 104729)) % 5 * 2048,
        }
    }
    fn packet_bytes(&self) -> u64 {
        2048
    }
    fn derouted(&mut self) {
        self.detours += 1;
    }
}

/// The channels (router, port, class) a packet from NIC `src` to NIC `dst` takes under UGAL
/// with the stub's queues and draws, checking that each link pairs up and that it ends at
/// `dst`.
fn ugal_walk(g: &Graph, src: u32, dst: u32, stub: &mut Stub) -> Vec<(u32, u8, u8)> {
    let (mut at, _) = g.nic_port(src);
    let mut p = At {
        at,
        src,
        dst,
        vc: 0,
        dim: crate::topology::NO_DIM,
        aux: 0,
    };
    let mut hops = Vec::new();
    loop {
        stub.next();
        let h = g.route(p, stub);
        match g.neighbour(at, h.port) {
            None => {
                assert_eq!(g.port_nic(at, h.port), Some(dst), "{src} -> {dst}");
                return hops;
            }
            Some((n, _)) => {
                hops.push((at, h.port, h.vc));
                assert!(h.vc < g.vcs(), "class {} of {}", h.vc, g.vcs());
                (at, p.at, p.vc, p.dim, p.aux) = (n, n, h.vc, h.dim, h.aux);
                assert!(hops.len() < 1000, "{src} -> {dst} loops");
            }
        }
    }
}

/// A channel of the dependency graph: (router, port, virtual channel).
type Chan = (u32, u8, u8);

/// Whether the channel dependencies (each hop of a route waits for the next) close a cycle.
fn has_cycle(edges: &std::collections::BTreeSet<(Chan, Chan)>) -> bool {
    let mut out: std::collections::BTreeMap<Chan, Vec<Chan>> = Default::default();
    for &(a, b) in edges {
        out.entry(a).or_default().push(b);
        out.entry(b).or_default();
    }
    // depth-first, colours: 0 new, 1 on the stack, 2 done
    let mut colour: std::collections::BTreeMap<Chan, u8> = Default::default();
    fn visit(
        v: Chan,
        out: &std::collections::BTreeMap<Chan, Vec<Chan>>,
        colour: &mut std::collections::BTreeMap<Chan, u8>,
    ) -> bool {
        colour.insert(v, 1);
        for &w in &out[&v] {
            match colour.get(&w).copied().unwrap_or(0) {
                1 => return true,
                0 if visit(w, out, colour) => return true,
                _ => {}
            }
        }
        colour.insert(v, 2);
        false
    }
    let keys: Vec<_> = out.keys().copied().collect();
    keys.into_iter()
        .any(|v| colour.get(&v).copied().unwrap_or(0) == 0 && visit(v, &out, &mut colour))
}

#[test]
fn ugal_routes_close_no_cycle_of_channel_dependencies() {
    // a ring with chords, a 3x3 HyperX and a ring: every route UGAL may take (random queues
    // and draws, many times over) together leave the channel dependencies acyclic, and each
    // route ends where it should
    let mut texts = Vec::new();
    let mut ring = String::new();
    for i in 0..9 {
        ring += &format!("link {i} {}\nnode {i} {i}\n", (i + 1) % 9);
    }
    texts.push(ring.clone() + "link 0 4\nlink 2 7\nlink 3 8\n");
    texts.push(ring);
    let mut hx = String::new();
    for a in 0..9u32 {
        for b in a + 1..9 {
            if (a % 3 == b % 3) != (a / 3 == b / 3) {
                hx += &format!("link {a} {b}\n");
            }
        }
        hx += &format!("node {a} {a}\n");
    }
    texts.push(hx);
    for text in &texts {
        let g = Graph::parse("g", text, Time(600), GraphRouting::Ugal).unwrap();
        assert!(g.vcs() >= 2 && g.multipath());
        let mut stub = Stub {
            seed: 7,
            long: None,
            detours: 0,
        };
        let mut edges = std::collections::BTreeSet::new();
        for round in 0..40 {
            for s in 0..9 {
                for d in 0..9 {
                    let hops = ugal_walk(&g, s, d, &mut stub);
                    assert!(
                        hops.windows(2).all(|w| w[0].2 <= w[1].2),
                        "classes only grow"
                    );
                    if round == 0 && s != d {
                        assert!(hops.len() as u32 >= g.distance(s, d));
                    }
                    for w in hops.windows(2) {
                        edges.insert((w[0], w[1]));
                    }
                }
            }
        }
        assert!(stub.detours > 100, "random queues send some the long way");
        assert!(!has_cycle(&edges), "{text}");
    }
}

#[test]
fn ugal_detours_when_the_shortest_route_s_first_hop_is_long() {
    // the 9-router ring: node 0 to node 2 goes 0 -> 1 -> 2 (port of router 0 toward 1)
    let mut ring = String::new();
    for i in 0..9 {
        ring += &format!("link {i} {}\nnode {i} {i}\n", (i + 1) % 9);
    }
    let g = Graph::parse("g", &ring, Time(600), GraphRouting::Ugal).unwrap();
    let mut quiet = Stub {
        seed: 1,
        long: Some((5, 0)),
        detours: 0,
    };
    assert_eq!(
        ugal_walk(&g, 0, 2, &mut quiet).len(),
        2,
        "nothing queued: shortest"
    );
    assert_eq!(quiet.detours, 0);
    let toward_1 = (0..g.ports())
        .find(|&q| g.neighbour(0, q).map(|n| n.0) == Some(1))
        .unwrap();
    // with router 0's port toward 1 full, a detour is taken whenever the drawn intermediate
    // is reached without it (routers 5 to 8: their leg leaves by 8, turn-free in the order by
    // number); through 1, 3 or 4 it would queue there too, and the shortest route stays
    let mut took = 0;
    for seed in 0..40 {
        let mut blocked = Stub {
            seed,
            long: Some((0, toward_1)),
            detours: 0,
        };
        let hops = ugal_walk(&g, 0, 2, &mut blocked);
        if blocked.detours == 1 {
            took += 1;
            assert_eq!(
                g.neighbour(0, hops[0].1).unwrap().0,
                8,
                "the detour leaves the other way"
            );
            // (through 8 the second leg comes back by 0: 0 -> 8 | 8 -> 0 -> 1 -> 2, a turn
            // at 0 in its class 1)
            assert!(
                hops.len() >= 4,
                "0 -> 8 -> .. -> m (>= 5) -> .. -> 2: {hops:?}"
            );
            assert_eq!(hops[0].2, 0, "the first leg in class 0: {hops:?}");
            assert!(
                hops.last().unwrap().2 >= 1,
                "the second leg from class 1: {hops:?}"
            );
        } else {
            assert_eq!(hops.len(), 2);
        }
    }
    // the draws pick 4 of the 7 intermediates: about 23 of 40
    assert!((12..=34).contains(&took), "{took} detours of 40");
}
