//! What a family reads of a scenario: its own keys of `[network]`, the routing asked for, the
//! NICs per node and the scenario's folder; and the problems it finds, each with its key.
//!
//! A family's file calls [`Keys::get`] for each key it has and [`Keys::problem`] for each
//! value out of range; the loader (`config/load.rs`) turns the problems into lines of the
//! scenario file. Nothing here knows a family.

use crate::units::{Bandwidth, Time};
use serde::de::DeserializeOwned;
use std::path::Path;

/// The most NIC ports a network may have: NIC numbers, and channel numbers past them, fit in
/// 32 bits with room to spare.
pub(crate) const MAX_NICS: u64 = u32::MAX as u64 / 16;

/// The longest a link's latency or a router's pipeline stage may be: 1 h, beyond any network
/// and far within what picoseconds hold (a packet's hop adds a few of them to a time below
/// the horizon, [`Time::HORIZON`]: no sum can wrap).
pub(crate) const MAX_LATENCY: Time = Time(3_600 * crate::units::PS_PER_S);

/// The scenario as the chosen family sees it, and what it found wrong.
pub(crate) struct Keys<'a> {
    /// `network.topology` as written (`"torus"`, `"fattree"`, ...).
    pub(crate) name: &'a str,
    /// `network.routing` as written, if given.
    pub(crate) routing: Option<&'a str>,
    /// The family's own keys of `[network]` that the scenario gives, as written.
    table: &'a toml::Table,
    /// NICs per node (`node.nics_per_node`): a mesh or torus gives each router that many.
    pub(crate) nics: u32,
    /// Every link's latency where nothing more precise is said (`network.cable_latency`).
    pub(crate) cable_latency: Time,
    /// Every link's rate where nothing more precise is said (`network.link_bandwidth`).
    pub(crate) link_bandwidth: Bandwidth,
    /// The scenario's folder: files it names are beside it.
    pub(crate) base: &'a Path,
    /// `--allow-io`: files it names may be anywhere.
    pub(crate) allow_io: bool,
    /// `network.nodes`: the family picks its nearest full shape of at least that many nodes
    /// (`sizing.rs`).
    pub(crate) nodes: Option<u64>,
    /// `(key, problem)`, the key in full (`network.radix`).
    pub(crate) problems: Vec<(String, String)>,
    /// What the family says of the shape it picked, in words (the scenario's notes).
    pub(crate) notes: Vec<String>,
}

impl<'a> Keys<'a> {
    /// The keys of `table` for topology `name`, with the rest of the scenario the family may
    /// need.
    pub(crate) fn new(name: &'a str, table: &'a toml::Table, base: &'a Path) -> Keys<'a> {
        Keys {
            name,
            routing: None,
            table,
            nics: 1,
            cable_latency: Time::from_ps(600),
            link_bandwidth: Bandwidth(4_000_000_000),
            base,
            allow_io: false,
            nodes: None,
            problems: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Key `key` read as a `T`, or `None` when it is not given or cannot be read as one (then
    /// a problem says why).
    pub(crate) fn get<T: DeserializeOwned>(&mut self, key: &str) -> Option<T> {
        let v = self.table.get(key)?.clone();
        match v.try_into::<T>() {
            Ok(t) => Some(t),
            Err(e) => {
                let msg = plain_words(e.to_string().trim_end());
                self.problem(key, msg);
                None
            }
        }
    }

    /// Whether the scenario gives key `key`.
    pub(crate) fn given(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// A problem with key `key` (`radix`, or in full `network.radix`).
    pub(crate) fn problem(&mut self, key: &str, msg: impl Into<String>) {
        let full = if key.contains('.') {
            key.to_string()
        } else {
            format!("network.{key}")
        };
        self.problems.push((full, msg.into()));
    }

    /// Whether a problem was found so far.
    pub(crate) fn failed(&self) -> bool {
        !self.problems.is_empty()
    }

    /// The routing asked for, as its index in `routings` (the family's, the default first);
    /// a name the family does not have is a problem with the nearest name.
    pub(crate) fn routing(&mut self, routings: &[&str]) -> usize {
        let Some(r) = self.routing else { return 0 };
        if let Some(i) = routings.iter().position(|&x| x == r) {
            return i;
        }
        let near = closest(r, routings.iter().copied())
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        let msg = format!(
            "`{r}` is not a routing of topology `{}` (it has: {}){near}",
            self.name,
            routings.join(", ")
        );
        self.problem("routing", msg);
        0
    }

    /// Checks that `routers` routers and `nics` NIC ports can be addressed (as problems of
    /// `key`), and that the NIC ports share out `node.nics_per_node` to a node; true when both
    /// hold.
    pub(crate) fn size_fits(&mut self, key: &str, routers: u64, nics: u64) -> bool {
        if nics > 0 && nics % self.nics.max(1) as u64 != 0 {
            let msg = format!(
                "the network's {nics} NIC ports cannot be shared out {} to a node",
                self.nics
            );
            self.problem("node.nics_per_node", msg);
            false
        } else if routers == 0 || nics == 0 {
            self.problem(key, "the network would have no NIC at all");
            false
        } else if routers > MAX_NICS || nics > MAX_NICS {
            self.problem(
                key,
                format!(
                    "a network of {routers} routers and {nics} NIC ports is more than mgensim \
                     can address"
                ),
            );
            false
        } else {
            true
        }
    }
}

pub(crate) use crate::words::{closest, either, plain_words};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_read_and_their_problems_named() {
        let table: toml::Table = toml::from_str("radix = 8\nlevels = 'two'").unwrap();
        let mut k = Keys::new("fattree", &table, Path::new("."));
        assert_eq!(k.get::<u32>("radix"), Some(8));
        assert_eq!(k.get::<u32>("levels"), None);
        assert_eq!(k.get::<u32>("groups"), None);
        assert_eq!(k.problems.len(), 1);
        assert_eq!(k.problems[0].0, "network.levels");
        assert!(
            k.problems[0].1.contains("a whole number"),
            "{:?}",
            k.problems
        );
        k.routing = Some("random_");
        assert_eq!(k.routing(&["straight_up", "random"]), 0);
        assert!(k.problems[1].1.ends_with("did you mean `random`?"));
    }
}
