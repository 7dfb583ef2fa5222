//! The network's shape: the keys of the chosen topology, read and checked by its family
//! (`topology/`), and the keys of other families, which are problems or, when the
//! topology itself was set by `--set` or a sweep's point, left out.

use super::problems::Problems;
use super::*;
use crate::topology::keys::MAX_LATENCY;
use crate::topology::{Keys, Topo};
use std::sync::OnceLock;

/// Keys of other topologies than the one chosen, when that one was set by `--set` or a
/// sweep's point: those the file gives are left out (each noted in `left_out`), so that one
/// sweep can compare a torus and a fat tree; those set along with it are still problems.
pub(super) struct Foreign<'a> {
    /// The keys `--set` or the point set (`network.topology`, ...).
    pub(crate) set: &'a [String],
    /// What was left out, in words.
    pub(crate) left_out: &'a mut Vec<String>,
}

/// Every family's keys, each once.
pub(super) fn family_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut all: Vec<&'static str> = Topo::families()
            .iter()
            .flat_map(|f| f.keys.iter().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    })
}

/// The keys `[network]` allows: those every network has and every family's.
pub(super) fn network_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut all: Vec<&'static str> = super::keys::fields_of::<NetworkConfig>().to_vec();
        all.extend(family_keys());
        all
    })
}

/// The keys of family `topology` (`None`: no family has that name).
fn keys_of(topology: &str) -> Option<&'static [&'static str]> {
    Topo::families()
        .into_iter()
        .find(|f| f.names.iter().any(|n| n.0 == topology))
        .map(|f| f.keys)
}

/// The keys of family `topology` that set its node count ([`Topo`]'s `SHAPE_KEYS`).
fn own_shape(topology: &str) -> &'static [&'static str] {
    Topo::families()
        .into_iter()
        .find(|f| f.names.iter().any(|n| n.0 == topology))
        .map_or(&[], |f| f.shape_keys)
}

/// `network.nodes` as the family reads it, and the family's keys of its size `table` keeps:
/// one of them set by `--set` or a sweep's point (`set`) replaces the other given by the file,
/// which is left out with a note; given in the same place, both go to the family (which
/// tells which may go together, `topology/sizing.rs`).
fn sized_by(
    net: &NetworkConfig,
    shape: &[&str],
    table: &mut toml::Table,
    set: &[String],
    left_out: &mut Vec<String>,
) -> Option<u64> {
    let nodes = net.nodes?;
    let was_set = |key: &str| set.iter().any(|s| s == &format!("network.{key}"));
    let given: Vec<&str> = shape
        .iter()
        .copied()
        .filter(|k| table.contains_key(*k))
        .collect();
    if was_set("nodes") {
        for key in given.iter().filter(|k| !was_set(k)) {
            table.remove(*key);
            left_out.push(format!(
                "network.{key} left out: network.nodes = {nodes} was set by --set or a sweep's \
                 point, and sizes the network"
            ));
        }
    } else if let Some(key) = given.iter().find(|k| was_set(k)) {
        left_out.push(format!(
            "network.nodes = {nodes} left out: network.{key} was set by --set or a sweep's point"
        ));
        return None;
    }
    Some(nodes)
}

/// Whether the value of family key `key` says "none" on topology `topology`: an empty list
/// for a key the topology does not have (a sweep that zips a torus's `dims` with a fat tree's
/// `[]`).
pub(super) fn says_none(topology: &str, key: &str, value: &toml::Value) -> bool {
    value.as_array().is_some_and(|a| a.is_empty())
        && keys_of(topology).is_some_and(|k| !k.contains(&key))
}

/// The network's shape: the node's checks, the family's keys read by the family, the keys of
/// other families reported (or left out), the virtual channels checked against the classes
/// the routing needs. `given` are the `[network]` keys the file gives.
pub(super) fn check_topology(
    net: &NetworkConfig,
    node: &NodeConfig,
    given: &[String],
    foreign: Foreign<'_>,
    base: &Path,
    allow_io: bool,
    p: &mut Problems,
) -> Option<Topo> {
    let name = net.topology.as_str();
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
    // keys of other families
    let topology_set = foreign.set.iter().any(|k| k == "network.topology");
    let own = keys_of(name).unwrap_or(&[]);
    let mut table = toml::Table::new();
    for (key, value) in &net.family {
        if own.contains(&key.as_str()) {
            table.insert(key.clone(), value.clone());
            continue;
        }
        if !given.iter().any(|g| g == key) || keys_of(name).is_none() {
            continue;
        }
        let full = format!("network.{key}");
        let owners = Topo::owners_of(key);
        if topology_set && !foreign.set.contains(&full) {
            foreign.left_out.push(format!(
                "{full} (a key of {owners}) left out: topology `{name}` was set by --set or a \
                 sweep's point"
            ));
            continue;
        }
        let how = if topology_set {
            ""
        } else {
            " (to compare topologies, set network.topology with --set or a sweep's --vary: the \
             file's keys of the other topologies are then left out)"
        };
        p.key(
            &full,
            format!("is a key of {owners}, not of topology `{name}`{how}"),
        );
    }
    let nodes = sized_by(
        net,
        own_shape(name),
        &mut table,
        foreign.set,
        foreign.left_out,
    );
    let mut k = Keys::new(name, &table, base);
    k.nodes = nodes;
    k.routing = net.routing.as_deref();
    k.nics = nics.clamp(1, 16);
    k.cable_latency = net.cable_latency;
    k.link_bandwidth = net.link_bandwidth;
    k.allow_io = allow_io;
    let topo = Topo::from_keys(&mut k);
    for (key, msg) in &k.problems {
        p.key(key, msg);
    }
    foreign.left_out.append(&mut k.notes);
    let topo = topo.filter(|_| k.problems.is_empty())?;
    classes_in_bounds(&topo, own, p);
    // (the flow model has no virtual channels: it ignores the key, with a warning)
    if let Some(v) = net.vcs.filter(|_| net.model == NetworkModel::Packet) {
        let classes = topo.vcs() as u32;
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
    Some(topo)
}

/// Every link class of `topo` (the dragonfly's global links, a fat tree's levels, a graph's
/// classes) has a finite rate and a latency of at most [`MAX_LATENCY`], as the scenario's own
/// links: a problem of the family's key of that figure (`own` are the family's keys) for each
/// that has not.
fn classes_in_bounds(topo: &Topo, own: &[&str], p: &mut Problems) {
    let key_of = |part: &str| {
        own.iter()
            .find(|k| k.contains(part))
            .map_or("network.topology".to_string(), |k| format!("network.{k}"))
    };
    for c in topo.link_classes() {
        if c.bandwidth.is_some_and(|b| b.is_infinite()) {
            p.key(
                &key_of("link_bandwidth"),
                format!(
                    "the {} links' rate must be finite (a link always takes time)",
                    c.name
                ),
            );
        }
        if let Some(t) = c.latency.filter(|&t| t > MAX_LATENCY) {
            p.key(
                &key_of("cable_latency"),
                format!(
                    "the {} links' latency, {t}, is longer than a link may take, {MAX_LATENCY}",
                    c.name
                ),
            );
        }
    }
}
