//! Synthetic traffic, BookSim's and CODES' open-loop workloads, on any network: a job whose
//! ranks each inject messages to destinations a pattern chooses (`pattern.rs`), at times an
//! injection process draws, at an offered load that is a fraction of each NIC's injection
//! bandwidth; measured as BookSim measures, over a window after a warm-up.
//!
//! This module is what a scenario says of it: the keys (`keys.rs`), the patterns and sizes
//! (`pattern.rs`) and the [`Spec`] they make. The generators that inject it in a run and what
//! they measure are `openloop/`; load-latency curves are `curve/`.

pub(crate) mod keys;
pub(crate) mod pattern;

pub(crate) use pattern::{Pattern, Sizes};

use crate::units::{Bandwidth, Bytes, Time};

/// How a source spaces its messages in time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Process {
    /// A message at each cycle of `cycle` ps with the probability that makes the load
    /// (BookSim's `bernoulli`); creation times are whole cycles.
    Bernoulli {
        /// The cycle (ps).
        cycle: u64,
    },
    /// Exponentially distributed gaps: Poisson arrivals (CODES').
    Exponential,
    /// Bursts: a geometric number of messages (mean `mean`) back to back at the source's whole
    /// share of its link, then an exponential silence of the length that makes the load.
    Burst {
        /// Messages per burst, on average.
        mean: f64,
    },
    /// Evenly spaced at the source's rate, from a random phase: a constant rate.
    Periodic,
}

impl Process {
    /// Its name, as `workload.process` gives it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Process::Bernoulli { .. } => "bernoulli",
            Process::Exponential => "exponential",
            Process::Burst { .. } => "burst",
            Process::Periodic => "periodic",
        }
    }
}

/// A job's synthetic traffic, checked: what its generators need.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Spec {
    /// The pattern's name (`workload.traffic`).
    pub(crate) name: String,
    /// Where messages go.
    pub(crate) pattern: Pattern,
    /// Whether a rank may send to itself (through its router).
    pub(crate) to_self: bool,
    /// Offered load: the fraction of each NIC's injection bandwidth its ranks offer together.
    pub(crate) load: f64,
    /// How messages are spaced.
    pub(crate) process: Process,
    /// Message sizes (payload).
    pub(crate) sizes: Sizes,
    /// Warm-up, measurement window and drain.
    pub(crate) warmup: Time,
    /// The measurement window's length.
    pub(crate) measure: Time,
    /// How long sources go on after the window.
    pub(crate) drain: Time,
    /// Largest payload of a packet, and the header every packet carries (`network.mtu`,
    /// `network.header_bytes`).
    pub(crate) mtu: u64,
    /// Bytes of header per packet.
    pub(crate) header: u64,
    /// The rate of a NIC's injection link.
    pub(crate) nic_rate: Bandwidth,
}

impl Spec {
    /// The measurement window, `[start, end)` in ps.
    pub(crate) fn window(&self) -> (u64, u64) {
        let w0 = self.warmup.ps();
        (w0, w0.saturating_add(self.measure.ps()))
    }

    /// When sources stop (ps).
    pub(crate) fn end(&self) -> u64 {
        self.window().1.saturating_add(self.drain.ps())
    }

    /// The script each rank of the job runs: it waits until the traffic ends.
    pub(crate) fn script(&self) -> String {
        format!(
            "-- synthetic traffic ({}): the generators are mgensim's; the rank waits\n\
             MGEN_Comp({}e-12)\n",
            self.name,
            self.end()
        )
    }

    /// Mean bytes on the wire of a message.
    pub(crate) fn mean_wire(&self) -> f64 {
        self.sizes
            .weights()
            .map(|(b, w)| pattern::cut(b, self.mtu, self.header).1 as f64 * w)
            .sum()
    }

    /// The fewest bytes on the wire of a message.
    pub(crate) fn min_wire(&self) -> u64 {
        self.sizes
            .entries
            .iter()
            .map(|&(b, _)| pattern::cut(b, self.mtu, self.header).1)
            .min()
            .unwrap_or(self.header)
    }

    /// A Bernoulli process's probability of a message per cycle at this load (None for the
    /// other processes): above 1, the process cannot make the load.
    pub(crate) fn per_cycle(&self) -> Option<f64> {
        match self.process {
            Process::Bernoulli { cycle } => {
                Some(self.load * cycle as f64 * self.nic_rate.0 as f64 / 1e12 / self.mean_wire())
            }
            _ => None,
        }
    }

    /// Time (ps) `wire` bytes take on an injection link.
    pub(crate) fn wire_time(&self, wire: u64) -> u64 {
        self.nic_rate.transfer_time(Bytes(wire)).ps().max(1)
    }

    /// The traffic in words: `uniform (self excluded), bernoulli per 16 ns, 496 B messages,
    /// load 0.3`.
    pub(crate) fn describe(&self) -> String {
        let to_self = match (&self.pattern, self.to_self) {
            (Pattern::Uniform | Pattern::Hotspot(..) | Pattern::Matrix(_), false) => {
                " (self excluded)"
            }
            (Pattern::Uniform | Pattern::Hotspot(..) | Pattern::Matrix(_), true) => {
                " (self included)"
            }
            (_, true) => " (to self included)",
            (_, false) => "",
        };
        let process = match self.process {
            Process::Bernoulli { cycle } => format!("bernoulli per {}", Time(cycle)),
            Process::Burst { mean } => format!("bursts of {mean} messages"),
            p => p.name().to_string(),
        };
        let sizes: Vec<String> = self
            .sizes
            .weights()
            .map(|(b, w)| {
                if self.sizes.entries.len() == 1 {
                    format!("{}", Bytes(b))
                } else {
                    format!("{} ({:.0} %)", Bytes(b), w * 100.0)
                }
            })
            .collect();
        format!(
            "{}{to_self}, {process}, {} messages, load {}",
            self.name,
            sizes.join(" or "),
            self.load
        )
    }
}
