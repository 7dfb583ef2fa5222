//! Nodes and jobs: where each rank runs, which NIC carries its transfers, and which job it
//! belongs to (docs/model.md §2 and §4).
//!
//! Ranks are numbered across jobs, one job after the other; a script sees its job's numbering
//! (`MGEN_Comm_rank`, `MGEN_Comm_size`) and can reach only its own job's ranks.
//!
//! Node `n` has NICs `n·k .. n·k + k − 1` (`k = nics_per_node`); NIC ids are the network's
//! terminal ids. A call names one of its node's NICs by index, or takes them in turn (round
//! robin, per rank); the transfer arrives at the NIC of the same index on the peer's node, as
//! with the rails of a multi-rail network. A transfer between two ranks of one node never
//! enters the network: it goes from the transmit DMA to the receive DMA (`nic/`).

use crate::config::Scenario;

/// One job as the engine sees it.
#[derive(Clone, Debug)]
pub(crate) struct JobInfo {
    pub(crate) name: String,
    /// Its rank 0 in the global numbering.
    pub(crate) base: u32,
    pub(crate) size: u32,
    /// `workload.seed` (`math.randomseed()` without argument returns to it).
    pub(crate) seed: u64,
}

/// The machine's nodes and the jobs placed on them.
pub(crate) struct Nodes {
    /// Node of every rank (global numbering).
    pub(crate) rank_node: Vec<u32>,
    /// Job of every rank.
    rank_job: Vec<u16>,
    pub(crate) jobs: Vec<JobInfo>,
    pub(crate) nics_per_node: u32,
}

impl Nodes {
    pub(crate) fn new(s: &Scenario) -> Nodes {
        let mut jobs = Vec::with_capacity(s.jobs.len());
        let (mut rank_node, mut rank_job) = (Vec::new(), Vec::new());
        for (i, j) in s.jobs.iter().enumerate() {
            jobs.push(JobInfo {
                name: j.name.clone(),
                base: rank_node.len() as u32,
                size: j.workload.ranks as u32,
                seed: j.workload.seed,
            });
            rank_node.extend(&j.nodes);
            rank_job.extend(std::iter::repeat_n(i as u16, j.nodes.len()));
        }
        Nodes {
            rank_node,
            rank_job,
            jobs,
            nics_per_node: s.node.nics_per_node.max(1),
        }
    }

    /// The job rank `r` belongs to.
    #[inline]
    pub(crate) fn job(&self, r: u32) -> &JobInfo {
        &self.jobs[self.rank_job[r as usize] as usize]
    }

    /// Index (in the scenario) of the job rank `r` belongs to.
    #[inline]
    pub(crate) fn job_index(&self, r: u32) -> u32 {
        self.rank_job[r as usize] as u32
    }

    /// NIC `index` of rank `r`'s node.
    #[inline]
    pub(crate) fn nic(&self, r: u32, index: u32) -> u32 {
        self.rank_node[r as usize] * self.nics_per_node + index
    }

    /// How to name rank `r` in messages: its number, and its job's when there are several.
    pub(crate) fn name(&self, r: u32) -> String {
        if self.jobs.len() <= 1 {
            format!("rank {r}")
        } else {
            let j = self.job(r);
            format!("rank {} of job `{}` (global rank {r})", r - j.base, j.name)
        }
    }
}
