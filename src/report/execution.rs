//! How a run was executed (threads, partitions, windows): figures of the host, not of the
//! model, reported in the `host` line and `summary.json`'s `host` only. The engine fills them
//! in (`engine/`).

/// What the windows of one run have done, for the summary's `host` line and the benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct WindowStats {
    /// Windows simulated.
    pub(crate) windows: u64,
    /// Cut messages delivered.
    pub(crate) messages: u64,
    /// Windows whose end was set by a packet held across a cut (shorter than an epoch).
    pub(crate) short: u64,
    /// Windows with several partitions to run that ran on one thread because more threads
    /// were measured not to pay (`engine/governor.rs`; 0 on one thread).
    pub(crate) alone: u64,
    /// Bytes of cut messages that crossed between process groups (`engine.processes`), and
    /// the windows in which some did.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) across: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) across_windows: u64,
}

fn at_most_one(n: &u32) -> bool {
    *n <= 1
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl WindowStats {
    /// `bytes` crossed between process groups in a window.
    pub(crate) fn crossed(&mut self, bytes: u64) {
        if bytes > 0 {
            self.across += bytes;
            self.across_windows += 1;
        }
    }
}

/// How a run was simulated, for the summary's `host` line: threads, partitions, windows.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Execution {
    /// Threads that ran the partitions.
    pub(crate) threads: u32,
    /// Partitions, and what the cut follows (`slab`, `group`, `pod`).
    pub partitions: u32,
    /// What a partition is: slabs or blocks of a torus, groups of a dragonfly, pods of a fat
    /// tree (`8x8x4 block`).
    #[serde(rename = "partition_unit")]
    pub(crate) unit: String,
    /// The windows and the cut messages.
    pub(crate) windows: WindowStats,
    /// Process groups the partitions were simulated as (`engine.processes`; emulated on
    /// threads: partitions of different groups share no record).
    #[serde(skip_serializing_if = "at_most_one")]
    pub(crate) processes: u32,
    /// Whether the processes were MPI's (`mpirun`), not emulated on threads.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) mpi: bool,
    /// Why the run has fewer partitions or threads than it could use, and the flag that
    /// changes it (empty when nothing is to be said).
    #[serde(rename = "partition_note", skip_serializing_if = "String::is_empty")]
    pub(crate) note: String,
}

/// A partition unit in the plural: `slab` -> `slabs`, `run of routers` -> `runs of routers`.
pub(crate) fn units(unit: &str) -> String {
    match unit.split_once(" of ") {
        Some((a, b)) => format!("{a}s of {b}"),
        None => format!("{unit}s"),
    }
}
