//! Rank placement: which node each rank of each job runs on (docs/model.md §4; NSIM's rank-node
//! file, TraceR's job placement).
//!
//! The machine has `nodes × ranks_per_node` slots. Jobs are placed one after the other, each
//! on the slots the jobs before it left free:
//! - `linear`: the free slots in node order, filling a node before the next (ranks 0 and 1 on
//!   node 0 when it has two slots);
//! - `round_robin`: one rank per node in turn, over the nodes with a free slot;
//! - `random`: a seeded random choice of free slots (the job's seed);
//! - `file`: NSIM's rank-node map, one `rank node` record per line; `#` starts a comment.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A named placement policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Policy {
    #[default]
    /// Rank i on slot i: nodes filled in order.
    Linear,
    /// Rank i on node i mod nodes: one rank a node at a time.
    RoundRobin,
    /// A random permutation, seeded by `workload.seed`.
    Random,
}

/// `[placement]` (or a job's `placement`) as written.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct PlacementFile {
    /// How ranks are placed when no map is given.
    pub(crate) policy: Policy,
    /// A rank-node map, relative to the scenario's folder; overrides `policy`.
    pub(crate) file: Option<PathBuf>,
}

/// Problems of a map listed at most (a file that is no map at all is said in a few lines).
const MAX_PROBLEMS: usize = 20;

/// Reads a rank-node map for a job of `ranks` ranks on `nodes` nodes: the node of each rank.
/// Every problem is returned, each naming its line (`file` names the map in messages).
pub(crate) fn read_map(
    file: &str,
    text: &str,
    ranks: u64,
    nodes: u64,
) -> Result<Vec<u32>, Vec<String>> {
    let mut node_of: Vec<Option<(u32, usize)>> = vec![None; ranks as usize];
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let body = line.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let fields: Vec<&str> = body
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|f| !f.is_empty())
            .collect();
        let parsed = match fields[..] {
            [r, nd] => r.parse::<u64>().ok().zip(nd.parse::<u64>().ok()),
            _ => None,
        };
        let Some((r, nd)) = parsed else {
            // (the line itself is not shown: a shared scenario could name any file as its map)
            let what = if fields.len() != 2 {
                format!("{} fields", fields.len())
            } else {
                let bad = if fields[0].parse::<u64>().is_err() {
                    1
                } else {
                    2
                };
                format!("field {bad} not a whole number")
            };
            problems.push(format!(
                "{file}:{n}: expected `rank node` (two whole numbers), got a line of {} \
                 characters: {what}",
                body.chars().count()
            ));
            if problems.len() >= MAX_PROBLEMS {
                problems.push(format!(
                    "{file}: more problems after line {n} are not listed"
                ));
                return Err(problems);
            }
            continue;
        };
        if r >= ranks {
            problems.push(format!(
                "{file}:{n}: rank {r} is not a rank of the job (it has {ranks}: 0 to {})",
                ranks - 1
            ));
        } else if nd >= nodes {
            problems.push(format!(
                "{file}:{n}: node {nd} is out of range (the network has {nodes} nodes: 0 to {})",
                nodes - 1
            ));
        } else if let Some((_, first)) = node_of[r as usize] {
            problems.push(format!(
                "{file}:{n}: rank {r} is placed twice (first on line {first})"
            ));
        } else {
            node_of[r as usize] = Some((nd as u32, n));
        }
    }
    let missing: Vec<String> = node_of
        .iter()
        .enumerate()
        .filter(|(_, x)| x.is_none())
        .map(|(r, _)| r.to_string())
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(8).map(String::as_str).collect();
        problems.push(format!(
            "{file}: {} rank(s) have no line: {}{}",
            missing.len(),
            shown.join(", "),
            if missing.len() > 8 { ", …" } else { "" }
        ));
    }
    if problems.is_empty() {
        Ok(node_of.into_iter().map(|x| x.expect("checked").0).collect())
    } else {
        Err(problems)
    }
}

/// The free slots of the machine while jobs are placed.
pub(crate) struct Machine {
    /// Free slots per node.
    free: Vec<u32>,
    per_node: u32,
    /// Node to look at first for the next round-robin rank.
    next_rr: usize,
}

impl Machine {
    /// A machine of `nodes` nodes with `ranks_per_node` slots each, all free.
    pub(crate) fn new(nodes: u64, ranks_per_node: u32) -> Machine {
        Machine {
            free: vec![ranks_per_node; nodes as usize],
            per_node: ranks_per_node,
            next_rr: 0,
        }
    }

    /// Free slots left.
    pub(crate) fn free(&self) -> u64 {
        self.free.iter().map(|&f| f as u64).sum()
    }

    /// Places `ranks` ranks by `policy`; the node of each rank.
    pub(crate) fn place(
        &mut self,
        policy: Policy,
        ranks: u64,
        seed: u64,
    ) -> Result<Vec<u32>, String> {
        let free = self.free();
        if ranks > free {
            return Err(format!(
                "{ranks} ranks do not fit: {free} free slots are left ({} nodes × \
                 node.ranks_per_node = {})",
                self.free.len(),
                self.per_node
            ));
        }
        let mut out = Vec::with_capacity(ranks as usize);
        match policy {
            Policy::Linear => {
                for (n, f) in self.free.iter_mut().enumerate() {
                    while *f > 0 && (out.len() as u64) < ranks {
                        *f -= 1;
                        out.push(n as u32);
                    }
                }
            }
            Policy::RoundRobin => {
                let n = self.free.len();
                while (out.len() as u64) < ranks {
                    let node = self.next_rr % n;
                    self.next_rr += 1;
                    if self.free[node] > 0 {
                        self.free[node] -= 1;
                        out.push(node as u32);
                    }
                }
            }
            Policy::Random => {
                // every free slot, then a seeded partial Fisher-Yates shuffle
                let mut slots: Vec<u32> = Vec::with_capacity(free as usize);
                for (n, &f) in self.free.iter().enumerate() {
                    slots.extend(std::iter::repeat(n as u32).take(f as usize));
                }
                let mut rng = rand_chacha::ChaCha12Rng::seed_from_u64(seed);
                for i in 0..ranks as usize {
                    let j = i + (rng.next_u64() % (slots.len() - i) as u64) as usize;
                    slots.swap(i, j);
                    self.free[slots[i] as usize] -= 1;
                    out.push(slots[i]);
                }
            }
        }
        Ok(out)
    }

    /// Takes the slots a rank-node map names; each node that would hold more ranks than it
    /// has free slots is a problem.
    pub(crate) fn take(&mut self, nodes: &[u32]) -> Result<(), Vec<String>> {
        let mut problems = Vec::new();
        for (r, &n) in nodes.iter().enumerate() {
            let f = &mut self.free[n as usize];
            if *f == 0 {
                problems.push(format!(
                    "rank {r}: node {n} is full (node.ranks_per_node = {}, counting the jobs \
                     placed before)",
                    self.per_node
                ));
            } else {
                *f -= 1;
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_fill_slots_as_documented() {
        let mut m = Machine::new(4, 2);
        assert_eq!(m.place(Policy::Linear, 3, 0).unwrap(), vec![0, 0, 1]);
        assert_eq!(m.place(Policy::RoundRobin, 4, 0).unwrap(), vec![1, 2, 3, 2]);
        assert_eq!(m.free(), 1);
        assert!(m
            .place(Policy::Linear, 2, 0)
            .unwrap_err()
            .contains("1 free slots"));
        let mut a = Machine::new(64, 1);
        let mut b = Machine::new(64, 1);
        let p = a.place(Policy::Random, 64, 9).unwrap();
        assert_eq!(p, b.place(Policy::Random, 64, 9).unwrap(), "seeded");
        let mut sorted = p.clone();
        sorted.sort();
        assert_eq!(sorted, (0..64).collect::<Vec<u32>>(), "a permutation");
        assert_ne!(p, sorted);
    }

    #[test]
    fn maps_name_the_line_of_each_problem() {
        let text = "# rank node\n0 3\n\n1 2  # two\n2 9\n1 0\nx y\n";
        let e = read_map("m.txt", text, 4, 4).unwrap_err();
        assert_eq!(
            e,
            vec![
                "m.txt:5: node 9 is out of range (the network has 4 nodes: 0 to 3)",
                "m.txt:6: rank 1 is placed twice (first on line 4)",
                "m.txt:7: expected `rank node` (two whole numbers), got a line of 3 characters: \
                 field 1 not a whole number",
                "m.txt: 2 rank(s) have no line: 2, 3",
            ]
        );
        assert_eq!(read_map("m", "0 1\n1,0\n", 2, 2).unwrap(), vec![1, 0]);
        // a file that is no map: its text is never shown, and the list ends after 20
        let e = read_map("m", &"root:x:0:0:secret\n".repeat(50), 2, 2).unwrap_err();
        assert_eq!(e.len(), MAX_PROBLEMS + 1);
        assert!(e.iter().all(|p| !p.contains("secret")), "{e:?}");
        let mut m = Machine::new(2, 1);
        assert!(m.take(&[1, 1]).unwrap_err()[0].contains("rank 1: node 1 is full"));
    }
}
