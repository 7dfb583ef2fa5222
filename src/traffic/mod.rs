//! Synthetic traffic, BookSim's and CODES' open-loop workloads, on any network: a job whose
//! ranks each inject messages to destinations a pattern chooses (`pattern.rs`), at times an
//! injection process draws, at an offered load that is a fraction of each NIC's injection
//! bandwidth; measured as BookSim measures, over a window after a warm-up.
//!
//! **Where it runs.** Not in Lua: each rank of a traffic job has a generator per NIC of its node
//! (`gen.rs`), kept by the partition that owns the NIC, seeded from the workload seed and the
//! rank's global number (any partitioning draws the same numbers). A generator is a source
//! queue of unbounded length held as the state of its random process: the next message's
//! creation time, destination and size are drawn when the NIC may take it, so a source
//! backlogged past saturation costs no memory. A packet enters the network through the NIC's
//! injection channel when that channel is empty (one packet at a time: the source queue is
//! the generator's), without DMA, and leaves it at its destination NIC as its tail arrives,
//! through the routers even to its own node: it is the network that is measured. The rank
//! itself only waits (`MGEN_Comp`) until its traffic ends.
//!
//! **What is measured** (BookSim's definitions): a packet's latency runs from its creation to
//! its tail's arrival at the destination NIC; its network latency from when it entered the
//! NIC's injection channel (its head leaves then unless the router has no room for it). The
//! packets measured are those created in the window `[warmup, warmup + measure)`; the
//! offered load is the bytes created in the window, the accepted load the bytes whose tail
//! arrived in it, each over the window's length times the injection bandwidth of the NICs the
//! job's ranks use. Sources go on injecting for `drain` after the window, so that the
//! measured packets cross a loaded network; then they stop, and what they had not injected
//! is never sent (a measured packet left so is counted as unfinished).

pub mod bound;
pub mod curve;
pub mod curve_svg;
mod gen;
pub mod keys;
pub mod pattern;
mod stats;

pub use gen::Traffic;
pub use pattern::{Matrix, Pattern, Sizes};
pub use stats::{ClassLoad, Latency, Summary};

use crate::units::{Bandwidth, Bytes, Time};

/// How a source spaces its messages in time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Process {
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
    pub fn name(&self) -> &'static str {
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
pub struct Spec {
    /// The pattern's name (`workload.traffic`).
    pub name: String,
    /// Where messages go.
    pub pattern: Pattern,
    /// Whether a rank may send to itself (through its router).
    pub to_self: bool,
    /// Offered load: the fraction of each NIC's injection bandwidth its ranks offer together.
    pub load: f64,
    /// How messages are spaced.
    pub process: Process,
    /// Message sizes (payload).
    pub sizes: Sizes,
    /// Warm-up, measurement window and drain.
    pub warmup: Time,
    /// The measurement window's length.
    pub measure: Time,
    /// How long sources go on after the window.
    pub drain: Time,
    /// Largest payload of a packet, and the header every packet carries (`network.mtu`,
    /// `network.header_bytes`).
    pub mtu: u64,
    /// Bytes of header per packet.
    pub header: u64,
    /// The rate of a NIC's injection link.
    pub nic_rate: Bandwidth,
}

impl Spec {
    /// The measurement window, `[start, end)` in ps.
    pub fn window(&self) -> (u64, u64) {
        let w0 = self.warmup.ps();
        (w0, w0.saturating_add(self.measure.ps()))
    }

    /// When sources stop (ps).
    pub fn end(&self) -> u64 {
        self.window().1.saturating_add(self.drain.ps())
    }

    /// The script each rank of the job runs: it waits until the traffic ends.
    pub fn script(&self) -> String {
        format!(
            "-- synthetic traffic ({}): the generators are mgensim's; the rank waits\n\
             MGEN_Comp({}e-12)\n",
            self.name,
            self.end()
        )
    }

    /// Mean bytes on the wire of a message.
    pub fn mean_wire(&self) -> f64 {
        self.sizes
            .weights()
            .map(|(b, w)| pattern::cut(b, self.mtu, self.header).1 as f64 * w)
            .sum()
    }

    /// The fewest bytes on the wire of a message.
    pub fn min_wire(&self) -> u64 {
        self.sizes
            .entries
            .iter()
            .map(|&(b, _)| pattern::cut(b, self.mtu, self.header).1)
            .min()
            .unwrap_or(self.header)
    }

    /// A Bernoulli process's probability of a message per cycle at this load (None for the
    /// other processes): above 1, the process cannot make the load.
    pub fn per_cycle(&self) -> Option<f64> {
        match self.process {
            Process::Bernoulli { cycle } => {
                Some(self.load * cycle as f64 * self.nic_rate.0 as f64 / 1e12 / self.mean_wire())
            }
            _ => None,
        }
    }

    /// Time (ps) `wire` bytes take on an injection link.
    pub fn wire_time(&self, wire: u64) -> u64 {
        self.nic_rate.transfer_time(Bytes(wire)).ps().max(1)
    }

    /// The traffic in words: `uniform (self excluded), bernoulli per 16 ns, 496 B messages,
    /// load 0.3`.
    pub fn describe(&self) -> String {
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

/// The figures of every traffic job of a run whose partitions are gathered in `t` (`until`:
/// when it stopped, ps), with the routes' bound of each where it is cheap to work out.
pub fn report(
    s: &crate::config::Scenario,
    t: &Traffic,
    until: u64,
    net: &crate::net::Network,
) -> Vec<Summary> {
    let mut out = t.summaries(until, net);
    for (sum, tj) in out.iter_mut().zip(t.jobs.iter()) {
        if let Some((b, what)) =
            bound::ideal_within(s, &tj.spec, tj.job as usize, tj.base, tj.n, bound::IN_A_RUN)
        {
            sum.ideal = Some(b);
            sum.ideal_channel = Some(what);
        }
    }
    out
}

/// `latency_histogram.csv`: for each traffic job, a line per latency bucket that holds a
/// measured packet, `[from_ps, to_ps)` with the packets whose latency (from creation) and
/// whose network latency (from entering the injection channel) fall in it; None without
/// synthetic traffic.
pub fn histogram_csv(r: &crate::Report) -> Option<String> {
    let jobs = r.traffic.as_ref()?;
    let mut out = String::from("job,from_ps,to_ps,packets,packets_by_network_latency\n");
    for s in jobs {
        for &(lo, hi, a, b) in &s.histogram {
            out += &format!("{},{lo},{hi},{a},{b}\n", crate::output::csv_field(&s.job));
        }
    }
    Some(out)
}
