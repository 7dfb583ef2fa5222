//! The checks of a network's shape: the keys of the chosen topology, their ranges, and what
//! they add up to (each problem with its key).

use super::problems::Problems;
use super::*;

/// Keys of other topologies than the one chosen, when that one was set by `--set` or a
/// sweep's point: those the file gives are left out (each noted in `left_out`), so that one
/// sweep can compare a torus and a fat tree; those set along with it are still problems.
pub(super) struct Foreign<'a> {
    /// The keys `--set` or the point set (`network.topology`, ...).
    pub set: &'a [String],
    /// What was left out, in words.
    pub left_out: &'a mut Vec<String>,
}

/// The checks of `[network]`'s shape: the keys of the chosen topology and their ranges.
pub(super) fn check_topology(
    net: &NetworkConfig,
    node: &NodeConfig,
    given: &[String],
    foreign: Foreign<'_>,
    p: &mut Problems,
) {
    let topo = net.topology;
    let name = serde_name(topo);
    let topology_set = foreign.set.iter().any(|k| k == "network.topology");
    let left_out = std::cell::RefCell::new(foreign.left_out);
    let only = |key: &str, for_: &str, p: &mut Problems| {
        if !given.iter().any(|g| g == key) {
            return;
        }
        let full = format!("network.{key}");
        if topology_set && !foreign.set.contains(&full) {
            left_out.borrow_mut().push(format!(
                "{full} (a key of {for_}) left out: topology `{name}` was set by --set or a \
                 sweep's point"
            ));
            return;
        }
        let how = if topology_set {
            ""
        } else {
            " (to compare topologies, set network.topology with --set or a sweep's --vary: the \
             file's keys of the other topologies are then left out)"
        };
        p.key(
            &full,
            format!("is a key of {for_}, not of topology `{name}`{how}"),
        );
    };
    let nics = node.nics_per_node;
    if nics == 0 || nics > 16 {
        p.key(
            "node.nics_per_node",
            format!("{nics} is out of range (1 to 16)"),
        );
    }
    if node.ranks_per_node == 0 || node.ranks_per_node > 4096 {
        p.key(
            "node.ranks_per_node",
            format!("{} is out of range (1 to 4096)", node.ranks_per_node),
        );
    }
    if !topo.is_cube() && topo != Topology::Hyperx {
        only("dims", "a mesh, torus, Tofu or HyperX", p);
    }
    if topo != Topology::Hyperx {
        only("links_per_pair", "a HyperX", p);
    }
    if topo != Topology::Dragonfly && topo != Topology::Hyperx {
        only("nodes_per_router", "a dragonfly or HyperX", p);
    }
    if topo != Topology::Fattree {
        for k in ["radix", "levels", "down_ports", "up_ports"] {
            only(k, "a fat tree", p);
        }
    }
    if topo != Topology::Fattree {
        for k in ["level_link_bandwidth", "level_cable_latency"] {
            only(k, "a fat tree", p);
        }
    }
    if topo != Topology::Dragonfly {
        for k in [
            "routers_per_group",
            "global_links_per_router",
            "groups",
            "global_link_bandwidth",
            "global_cable_latency",
        ] {
            only(k, "a dragonfly", p);
        }
    }
    let allowed: &[Routing] = match topo {
        Topology::Torus | Topology::Mesh | Topology::Tofu => &[Routing::DimensionOrder],
        Topology::Fattree => &[Routing::StraightUp, Routing::StraightDown, Routing::Random],
        Topology::Dragonfly => &[Routing::Minimal, Routing::Valiant, Routing::Ugal],
        Topology::Hyperx => &[Routing::DimensionOrder, Routing::Ugal],
    };
    if let Some(r) = net.routing {
        if !allowed.contains(&r) {
            let names: Vec<String> = allowed.iter().map(|&a| serde_name(a)).collect();
            p.key(
                "network.routing",
                format!(
                    "`{}` is not a routing of topology `{name}` (it has: {})",
                    serde_name(r),
                    names.join(", ")
                ),
            );
        }
    }
    if let Some(v) = net.vcs {
        let classes = net.vc_classes();
        if v < classes || v > super::MAX_VCS {
            p.key(
                "network.vcs",
                format!(
                    "{v} is out of range: a {name} routes with {classes} virtual channel \
                     class{} against deadlock, so it needs {classes} to {} virtual channels",
                    if classes == 1 { "" } else { "es" },
                    super::MAX_VCS
                ),
            );
        }
    }
    let ports_max = 255u64;
    match topo {
        Topology::Torus | Topology::Mesh | Topology::Tofu => {
            let (lo, hi) = if topo == Topology::Tofu {
                (3, 3)
            } else {
                (1, 6)
            };
            if net.dims.len() < lo || net.dims.len() > hi {
                p.key(
                    "network.dims",
                    if topo == Topology::Tofu {
                        format!(
                            "{} dimensions given; Tofu takes the outer [x, y, z] (its inner \
                             a, b, c are 2, 3, 2)",
                            net.dims.len()
                        )
                    } else {
                        format!("{} dimensions given; 1 to 6 are allowed", net.dims.len())
                    },
                );
            }
            if net.dims.contains(&0) {
                p.key("network.dims", "every dimension must be at least 1");
            }
            if net.dims.iter().any(|&d| d > 65_535) {
                p.key("network.dims", "a dimension may have at most 65535 routers");
            }
        }
        Topology::Fattree => {
            let explicit = net.down_ports.is_some() || net.up_ports.is_some();
            if explicit && (net.radix.is_some() || net.levels.is_some()) {
                p.key(
                    "network.radix",
                    "give either `radix` and `levels` or `down_ports` and `up_ports`, not both",
                );
            }
            match (&net.down_ports, &net.up_ports) {
                (Some(_), None) | (None, Some(_)) => p.key(
                    if net.down_ports.is_some() {
                        "network.up_ports"
                    } else {
                        "network.down_ports"
                    },
                    "missing; `down_ports` and `up_ports` go together, one entry per level",
                ),
                (Some(d), Some(u)) => {
                    if d.is_empty() || d.len() > 8 || d.len() != u.len() {
                        p.key(
                            "network.down_ports",
                            format!(
                                "{} levels of down ports and {} of up ports; give 1 to 8 levels, \
                                 the same number of each",
                                d.len(),
                                u.len()
                            ),
                        );
                    } else if d.contains(&0) {
                        p.key("network.down_ports", "every level needs a port down");
                    } else if u[u.len() - 1] != 0 || u[..u.len() - 1].contains(&0) {
                        p.key(
                            "network.up_ports",
                            "every level but the top needs ports up, and the top has none \
                             (end the list with 0)",
                        );
                    } else if d
                        .iter()
                        .zip(u)
                        .any(|(&a, &b)| a as u64 + b as u64 > ports_max)
                    {
                        p.key("network.down_ports", "a switch may have at most 255 ports");
                    }
                }
                (None, None) => {
                    let r = net.radix.unwrap_or(24);
                    if r < 2 || r % 2 == 1 || r as u64 > ports_max {
                        p.key(
                            "network.radix",
                            format!("{r} is out of range (an even number of ports, 2 to 254)"),
                        );
                    }
                    let l = net.levels.unwrap_or(2);
                    if !(1..=8).contains(&l) {
                        p.key("network.levels", format!("{l} is out of range (1 to 8)"));
                    }
                }
            }
            // the links above each level but the top: one entry each
            let levels = match (&net.down_ports, net.levels) {
                (Some(d), _) => d.len(),
                (None, l) => l.unwrap_or(2) as usize,
            };
            let wanted = levels.saturating_sub(1);
            for (key, n) in [
                (
                    "level_link_bandwidth",
                    net.level_link_bandwidth.as_ref().map(Vec::len),
                ),
                (
                    "level_cable_latency",
                    net.level_cable_latency.as_ref().map(Vec::len),
                ),
            ] {
                if let Some(n) = n.filter(|&n| n != wanted) {
                    p.key(
                        &format!("network.{key}"),
                        format!(
                            "{n} entries for a tree of {levels} levels: give {wanted}, one for \
                             the links above each level but the top, leaves first"
                        ),
                    );
                }
            }
        }
        Topology::Hyperx => {
            if net.dims.is_empty() || net.dims.len() > 6 {
                p.key(
                    "network.dims",
                    format!("{} dimensions given; a HyperX has 1 to 6", net.dims.len()),
                );
            }
            if let Some(&d) = net.dims.iter().find(|&&d| d == 0 || d > 255) {
                p.key(
                    "network.dims",
                    format!(
                        "{d} routers in a dimension is out of range (1 to 255: a router has a                          port to each other router of its dimension)"
                    ),
                );
            }
            let (k, t) = net.hyperx_shape();
            for (key, v) in [("links_per_pair", k), ("nodes_per_router", t)] {
                if v == 0 || v > 255 {
                    p.key(
                        &format!("network.{key}"),
                        format!("{v} is out of range (1 to 255)"),
                    );
                }
            }
            let ports = net.hyperx_ports();
            if p.is_empty() && ports > ports_max {
                p.key(
                    "network.dims",
                    format!(
                        "a router would need {ports} ports (nodes_per_router + links_per_pair                          × the other routers of each dimension); at most {ports_max}"
                    ),
                );
            }
        }
        Topology::Dragonfly => {
            let (a, pp, h, g) = net.dragonfly_shape();
            for (key, v, lo) in [
                ("routers_per_group", a, 1),
                ("nodes_per_router", pp, 1),
                ("global_links_per_router", h, 0),
                ("groups", g, 1),
            ] {
                if v < lo || v > 65_000 {
                    p.key(
                        &format!("network.{key}"),
                        format!("{v} is out of range ({lo} to 65000)"),
                    );
                }
            }
            if pp as u64 + a as u64 + h as u64 > ports_max + 1 {
                p.key(
                    "network.routers_per_group",
                    "a router may have at most 255 ports (nodes + other routers of its group + \
                     global links)",
                );
            } else if g > 1 && g as u64 - 1 > a as u64 * h as u64 {
                p.key(
                    "network.groups",
                    format!(
                        "{g} groups cannot all be linked: a group has {} global links \
                         (routers_per_group × global_links_per_router), at most {} groups",
                        a * h,
                        a * h + 1
                    ),
                );
            }
        }
    }
    if p.is_empty() && nics > 0 {
        let terminals = net.terminals(nics);
        let nodes = net.nodes(nics);
        if topo.is_cube() && nics as u64 + 2 * net.dims.len() as u64 + 6 > ports_max {
            p.key("node.nics_per_node", "too many ports per router");
        }
        if !topo.is_cube() && terminals % nics as u64 != 0 {
            p.key(
                "node.nics_per_node",
                format!(
                    "the network's {terminals} NIC ports cannot be shared out {nics} to a node"
                ),
            );
        }
        if nodes == 0 || terminals > u32::MAX as u64 / 16 {
            p.key(
                "network.topology",
                format!("a network of {terminals} NIC ports is more than mgensim can address"),
            );
        }
    }
}
