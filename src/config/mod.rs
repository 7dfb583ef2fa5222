//! Scenario files: what network to build and what workload to run on it.
//!
//! A scenario is a TOML file with three tables, `[network]`, `[node]` and `[workload]`.
//! Every key left out takes the NSIM-ACE value of docs/model.md §3 (Table 1 of the NSIM-ACE
//! paper); the MTU, which that paper does not give, defaults to 2 KiB. Relative paths are
//! resolved against the folder of the scenario file.
//!
//! ```
//! let s = mgensim::Scenario::from_str_with(
//!     "[network]\ndims = [4, 4]\n[workload]\ncode = 'MGEN_Comp(1e-6)'\n",
//!     std::path::Path::new("inline.toml"),
//!     &["network.dims=[4, 2]".to_string()],
//!     false,
//! ).unwrap();
//! assert_eq!((s.ranks(), s.nodes()), (8, 8)); // a rank per node, the `--set` shape
//! ```

mod keys;
mod load;
pub(crate) mod model;
mod overrides;
pub(crate) mod placement;
mod problems;
pub(crate) mod replay;
mod shape;

pub(crate) use overrides::apply_override;

use crate::units::{Bandwidth, Bytes, Time};
use placement::PlacementFile;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `[network]`: routers and links (docs/model.md §3).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct NetworkConfig {
    /// Which family of network (`topology/`: `torus`, `mesh`, `tofu`, `fattree`,
    /// `dragonfly`, `hyperx`, `graph`).
    pub(crate) topology: String,
    /// Route choice by the family's name for it; the family's first when left out.
    pub(crate) routing: Option<String>,
    /// Nodes the network has at least: any family picks its nearest full shape of that many
    /// instead of its shape keys (`topology/sizing.rs`), for comparisons of one size.
    pub(crate) nodes: Option<u64>,
    /// Each direction of each link (NSIM-ACE: 4.0 GB/s).
    pub(crate) link_bandwidth: Bandwidth,
    /// Crossbar throughput (NSIM-ACE: 4.0 GB/s); a router output moves data at the slower of
    /// this and its link.
    pub(crate) switch_bandwidth: Bandwidth,
    /// Router pipeline stage: routing.
    pub(crate) routing_time: Time,
    /// Router pipeline stage: VC allocation.
    pub(crate) vc_alloc_time: Time,
    /// Router pipeline stage: switch allocation.
    pub(crate) switch_alloc_time: Time,
    /// Router pipeline stage: the switch.
    pub(crate) switch_latency: Time,
    /// Every link, NIC links included (unless a link class below says otherwise).
    pub(crate) cable_latency: Time,
    /// The links between NICs and routers, both ways: their rate (default `link_bandwidth`;
    /// injection is also capped by `node.nic_bandwidth`).
    pub(crate) nic_link_bandwidth: Option<Bandwidth>,
    /// The links between NICs and routers: their latency (default `cable_latency`).
    pub(crate) nic_cable_latency: Option<Time>,
    /// Largest payload of one packet.
    pub(crate) mtu: Bytes,
    /// Bytes each packet carries besides its payload; a control packet is a bare header.
    pub(crate) header_bytes: Bytes,
    /// Capacity of each router input buffer, per port and virtual channel (and of each NIC's
    /// receive buffer); must hold at least one whole packet (virtual cut-through).
    pub(crate) buffer_bytes: Bytes,
    /// Virtual channels per router input port, shared out among the topology's VC classes
    /// (torus datelines, dragonfly hops; docs/model.md §3): at least one per class, at most
    /// [`MAX_VCS`]. The class count when left out.
    pub(crate) vcs: Option<u32>,
    /// How routers queue packets (docs/model.md §3).
    pub(crate) router: RouterKind,
    /// Input-queued routers: the output buffer of each output port, per virtual channel
    /// class, between the crossbar and the link (NSIM §3); 0 for none, else at least one whole
    /// packet.
    pub(crate) output_buffer_bytes: Bytes,
    /// Packets, or flows sharing links by max-min fairness (docs/model.md §3a).
    pub(crate) model: NetworkModel,
    /// The keys of the chosen family as written (`dims`, `radix`, ...): its file in
    /// `topology/` reads them into the [`Scenario::topo`].
    #[serde(skip_deserializing)]
    pub(crate) family: toml::Table,
}

/// `network.model`: how the network moves data (docs/model.md §3 and §3a).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NetworkModel {
    /// Packet by packet through routers, buffers and credits: the reference.
    #[default]
    Packet,
    /// Each message a flow over the same route, sharing link directions and DMA engines by
    /// max-min fairness: for bandwidth-bound work, much faster, blind to buffers.
    Flow,
}

/// Most virtual channels per router input port (`network.vcs`).
pub(crate) const MAX_VCS: u32 = 8;

/// `network.router`: where a router holds the packets that wait, and what they wait for
/// (docs/model.md §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RouterKind {
    /// NSIM's router: FIFO input buffers per port and VC, a crossbar that takes at most one
    /// packet from each input and into each output at a time, granted to the oldest request.
    #[default]
    InputQueued,
    /// Packets queue at the output they want as soon as they arrive: no head-of-line blocking
    /// and no crossbar conflicts; optimistic under load, exact without contention.
    OutputQueued,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            topology: "torus".to_string(),
            routing: None,
            nodes: None,
            link_bandwidth: Bandwidth(4_000_000_000),
            switch_bandwidth: Bandwidth(4_000_000_000),
            routing_time: Time::from_ns(4),
            vc_alloc_time: Time::from_ns(4),
            switch_alloc_time: Time::from_ns(4),
            switch_latency: Time::from_ns(128),
            cable_latency: Time::from_ps(600),
            nic_link_bandwidth: None,
            nic_cable_latency: None,
            mtu: Bytes(2048),
            header_bytes: Bytes(16),
            buffer_bytes: Bytes(8192),
            vcs: None,
            router: RouterKind::InputQueued,
            output_buffer_bytes: Bytes(0),
            model: NetworkModel::Packet,
            family: toml::Table::new(),
        }
    }
}

impl NetworkConfig {
    /// Virtual channels per input port: `vcs`, or one per class of the topology's routing
    /// (`classes`) when left out.
    pub(crate) fn vc_count(&self, classes: u8) -> u32 {
        self.vcs.unwrap_or(classes as u32)
    }

    /// Delay a packet head pays in each router before it may leave (the pipeline of §3).
    pub(crate) fn router_delay(&self) -> Time {
        self.routing_time + self.vc_alloc_time + self.switch_alloc_time + self.switch_latency
    }
}

/// `[node]`: memory, DMA and the communication library (docs/model.md §2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct NodeConfig {
    /// DMA between memory and NIC, each way (NSIM-ACE: 2.8 GB/s).
    pub(crate) dma_bandwidth: Bandwidth,
    /// Caps DMA in both directions (NSIM-ACE: infinite).
    pub(crate) memory_bandwidth: Bandwidth,
    /// Charged on the issuing rank's clock for each call that starts a transfer (the
    /// papers' "communication library overhead"; NSIM-ACE random ring: 0).
    pub(crate) node_latency: Time,
    /// Rate of the NIC's port onto its link (NSIM's HCA rate); the link rate when left out.
    pub(crate) nic_bandwidth: Option<Bandwidth>,
    /// Charged on the caller's clock by each message-passing call that posts a send or a
    /// receive (NSIM: 200 ns).
    pub(crate) mpi_overhead: Time,
    /// Messages up to this size go eager (one copy at memory bandwidth), larger ones by
    /// rendezvous (zero-copy, after a request-to-send / clear-to-send round trip).
    pub(crate) eager_limit: Bytes,
    /// NICs per node, each with its own link to the network (docs/model.md §2).
    pub(crate) nics_per_node: u32,
    /// Ranks a node can hold; ranks of one node exchange data through its DMA and memory.
    pub(crate) ranks_per_node: u32,
    /// How a NIC's DMA hands packets to the network (docs/model.md §2).
    pub(crate) dma: DmaMode,
}

/// How DMA and the network overlap for one packet (`node.dma`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DmaMode {
    /// A packet is read whole into the NIC before it is injected, and received whole before
    /// it is written to memory (NSIM-ACE's NIC, the default): each packet pays its DMA time
    /// twice on top of the network.
    #[default]
    StoreAndForward,
    /// A packet is injected as its DMA read starts and written as its head arrives: its tail
    /// cannot leave the NIC before the read ends, nor the write end before the tail is in.
    CutThrough,
}

impl Default for NodeConfig {
    fn default() -> Self {
        NodeConfig {
            dma_bandwidth: Bandwidth(2_800_000_000),
            memory_bandwidth: Bandwidth::INFINITE,
            node_latency: Time::ZERO,
            nic_bandwidth: None,
            mpi_overhead: Time::from_ns(200),
            eager_limit: Bytes(8192),
            nics_per_node: 1,
            ranks_per_node: 1,
            dma: DmaMode::StoreAndForward,
        }
    }
}

impl NodeConfig {
    /// What one DMA transfer moves per second: the slower of DMA and memory.
    pub(crate) fn dma_rate(&self) -> Bandwidth {
        self.dma_bandwidth.min(self.memory_bandwidth)
    }
}

/// `[limits]`: when to stop a run that has gone wrong (a stop reports what was computed so
/// far, marked partial). Zero means no limit.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct Limits {
    /// Lua VM instructions a rank may run between two calls that give control back to the
    /// engine (a blocking call, or the end of its script). Catches endless loops. Counted
    /// once a resume has run 10-20 ms of wall time (`script/watchdog.rs`), so a rank stopped
    /// at it has run that much more.
    pub(crate) instructions: u64,
    /// Memory of the Lua state, all ranks together; by default sized to the run when the
    /// scenario is read ([`lua_memory_for`]).
    pub(crate) lua_memory: Bytes,
    /// Events the engine may process.
    pub(crate) events: u64,
    /// Transfers (puts, gets, sends) a rank may post between two calls that give control
    /// back to the engine. Catches a rank that posts in an endless loop, whose transfers
    /// would fill the memory long before `instructions` stops it (about 100 bytes each);
    /// by default sized to the run when the scenario is read ([`posts_for`]).
    pub(crate) posts: u64,
    /// Wall-clock time the run may take (`mgensim run --timeout` sets it).
    pub(crate) wall_time: Time,
    /// Simulated time the run may reach: every event up to it is processed, none after it.
    pub(crate) simulated_time: Time,
    /// Memory of the time series of a fixed `--interval` (`probe/series.rs`): the windows it
    /// holds; a run that goes on past the last stops at the end of that epoch.
    pub(crate) time_series_memory: Bytes,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instructions: 1_000_000_000,
            lua_memory: LUA_MEMORY_FOR_THE_RUN,
            events: 0,
            posts: POSTS_FOR_THE_RUN,
            wall_time: Time::ZERO,
            simulated_time: Time::ZERO,
            time_series_memory: Bytes(768 << 20),
        }
    }
}

/// Every key a scenario may give, as `table.key` (`network.dims`, `limits.wall_time`): the
/// fields of the structs the tables are read into, asked of serde, and every topology
/// family's keys; a `[[job]]` has a `[workload]`'s keys. The key table of docs/keys.md is checked
/// against this list.
pub fn scenario_keys() -> Vec<String> {
    let sections: [(&str, &[&str]); 7] = [
        ("network", shape::network_keys()),
        ("node", keys::fields_of::<NodeConfig>()),
        ("workload", keys::fields_of::<WorkloadFile>()),
        ("placement", keys::fields_of::<PlacementFile>()),
        ("limits", keys::fields_of::<Limits>()),
        ("power", keys::fields_of::<PowerConfig>()),
        ("engine", keys::fields_of::<EngineConfig>()),
    ];
    sections
        .iter()
        .flat_map(|(table, keys)| keys.iter().map(move |k| format!("{table}.{k}")))
        .collect()
}

/// `limits.lua_memory` left out: sized to the run when the scenario is read
/// ([`lua_memory_for`]).
pub(crate) const LUA_MEMORY_FOR_THE_RUN: Bytes = Bytes(u64::MAX);

/// `limits.posts` left out: sized to the run when the scenario is read ([`posts_for`]).
pub(crate) const POSTS_FOR_THE_RUN: u64 = u64::MAX;

/// The default `limits.posts` for a run of `ranks` ranks: 2 transfers per rank of the run, at
/// least 16,384. A rank that posts one transfer to every other rank (an all-to-all) before it
/// waits fits twice over. A rank that posts in an endless loop stops after about 1.6 MB of
/// transfers in a small run; if every rank of a run does so at once, each is stopped at the
/// limit, `ranks` × limit × about 100 bytes in all (a few GB at 4,096 ranks).
pub(crate) fn posts_for(ranks: u64) -> u64 {
    ranks.saturating_mul(2).max(1 << 14)
}

/// The default `limits.lua_memory` for a run of `ranks` ranks on a machine of `machine`
/// bytes of memory: 256 MiB and 1 MiB per rank (a rank blocked in a call holds 2-4 KiB; a
/// script that keeps a few thousand objects per rank fits), at most half the machine, and at
/// least 256 MiB. A script that grows without end stops within seconds on a small run, and a
/// run of a million ranks still has room (its barrier holds 3.2 GB).
pub(crate) fn lua_memory_for(ranks: u64, machine: u64) -> Bytes {
    let wanted = (256u64 << 20).saturating_add(ranks.saturating_mul(1 << 20));
    Bytes(wanted.min(machine / 2).max(256 << 20))
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod sizing_tests;

#[cfg(test)]
mod lua_memory_tests {
    use super::*;

    #[test]
    fn the_default_lua_memory_grows_with_the_ranks_up_to_half_the_machine() {
        const GIB: u64 = 1 << 30;
        assert_eq!(lua_memory_for(4, 24 * GIB), Bytes(260 << 20));
        assert_eq!(lua_memory_for(4096, 24 * GIB), Bytes((256 + 4096) << 20));
        assert_eq!(lua_memory_for(1 << 20, 24 * GIB), Bytes(12 * GIB));
        assert_eq!(lua_memory_for(1 << 20, 8 * GIB), Bytes(4 * GIB));
        assert_eq!(
            lua_memory_for(1, 128 << 20),
            Bytes(256 << 20),
            "at least 256 MiB"
        );
        // (the figures the README and the stubs quote: a runaway 4-rank script stops at
        // 260 MiB; 256 MiB and 1 MiB per rank, at most half the machine, at least 256 MiB)
        assert_eq!(lua_memory_for(4, 64 * GIB), Bytes(260 << 20));
        assert_eq!(lua_memory_for(1000, 64 * GIB), Bytes((256 + 1000) << 20));
        assert_eq!(lua_memory_for(1, 256 << 20), Bytes(256 << 20));
    }
}

/// `[engine]`: how the run is simulated, which never changes what it predicts: on how many
/// threads, and in how many partitions of the network (docs/architecture.md, "Partitions").
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct EngineConfig {
    /// Threads that simulate the partitions (`--threads`); 0: every core (no more than the
    /// partitions: a network too small to gain from a cut runs on one).
    pub(crate) threads: u32,
    /// Partitions the network is cut into (`--partitions`); 0: one per thread, as far as the
    /// network gains (`partition::default_count`). A thread runs the partitions it is given
    /// as one, unless `separate_partitions`.
    pub(crate) partitions: u32,
    /// Simulate every partition on its own even where one thread runs several (each with its
    /// own queue, windows and cut messages between them): slower, for testing the cuts.
    pub(crate) separate_partitions: bool,
    /// Process groups the partitions are simulated as (`--processes`); 0 or 1: one. Partition
    /// `p` of `n` is in group `p · processes / n` (contiguous runs); partitions of different
    /// groups share no record: what one needs of another's crosses in the cut messages as
    /// bytes (`cut.rs`), as it would between processes. At least this many partitions.
    pub(crate) processes: u32,
    /// The MPI process this model is built in (not a key: set by the run started as several
    /// processes, `run.rs`). Each process, the root too, writes only its own groups' share of
    /// the network's per-channel state, and the rest takes no memory in it (`Network::new`'s
    /// `only_own`; the root reads the others' link counters from their end states).
    #[serde(skip)]
    pub(crate) process: Option<u32>,
}

/// The most threads `engine.threads` may ask for.
pub(crate) const MAX_THREADS: u32 = 1024;

/// The most partitions `engine.partitions` may ask for (each has its own Lua state and a
/// mailbox slot to every other).
pub(crate) const MAX_PARTITIONS: u32 = 256;

/// `[power]`: links that sleep when idle (TraceRP, docs/model.md §8). Each link direction goes to
/// low power `t_sleep` after its last packet and takes `t_wake` to wake when a packet finds it
/// asleep (the packet, and what queues behind it, waits). A port draws `p_base_per_port`
/// watts, plus `p_dynamic` when active (also while going to sleep and waking). Defaults:
/// TraceRP's Table 2.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct PowerConfig {
    /// Links sleep when idle. With `false` they are always active and only the energy is
    /// counted (the baseline of `--power-baseline`).
    pub(crate) enabled: bool,
    /// T_s: idle time before a link direction goes to low power.
    pub(crate) t_sleep: Time,
    /// T_w: time a sleeping link direction takes to wake.
    pub(crate) t_wake: Time,
    /// Watts a port (link direction) draws in low power: P_base / N_port.
    pub(crate) p_base_per_port: f64,
    /// Watts more it draws when active: P_dynamic.
    pub(crate) p_dynamic: f64,
}

impl Default for PowerConfig {
    fn default() -> Self {
        PowerConfig {
            enabled: true,
            t_sleep: Time(600_000_000),
            t_wake: Time(17_000_000),
            p_base_per_port: 2.08,
            p_dynamic: 1.36,
        }
    }
}

/// `[workload]`, or one `[[job]]`, as written in the file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadFile {
    /// Names the job in the summary (`[[job]]` only).
    name: Option<String>,
    script: Option<PathBuf>,
    code: Option<String>,
    /// A SimGrid time-independent trace to replay (its index file), instead of a script.
    trace: Option<PathBuf>,
    ranks: Option<u64>,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    args: Option<toml::Table>,
    placement: Option<PlacementFile>,
    // synthetic traffic instead of a script (`traffic/keys.rs` reads and checks them)
    traffic: Option<String>,
    load: Option<f64>,
    process: Option<String>,
    burst: Option<f64>,
    cycle: Option<Time>,
    size: Option<toml::Value>,
    to_self: Option<bool>,
    hotspot: Option<Vec<i64>>,
    hotspot_fraction: Option<f64>,
    matrix: Option<PathBuf>,
    shift: Option<i64>,
    grid: Option<Vec<i64>>,
    warmup: Option<Time>,
    measure: Option<Time>,
    drain: Option<Time>,
}

impl WorkloadFile {
    /// Its keys of synthetic traffic.
    fn traffic_keys(&self) -> crate::traffic::keys::Keys {
        crate::traffic::keys::Keys {
            traffic: self.traffic.clone(),
            load: self.load,
            process: self.process.clone(),
            burst: self.burst,
            cycle: self.cycle,
            size: self.size.clone(),
            to_self: self.to_self,
            hotspot: self.hotspot.clone(),
            hotspot_fraction: self.hotspot_fraction,
            matrix: self.matrix.clone(),
            shift: self.shift,
            grid: self.grid.clone(),
            warmup: self.warmup,
            measure: self.measure,
            drain: self.drain,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    #[serde(default)]
    network: NetworkConfig,
    #[serde(default)]
    node: NodeConfig,
    workload: Option<WorkloadFile>,
    /// Placement of the `[workload]`'s ranks.
    placement: Option<PlacementFile>,
    /// Several jobs sharing the network.
    job: Option<Vec<WorkloadFile>>,
    #[serde(default)]
    limits: Limits,
    power: Option<PowerConfig>,
    #[serde(default)]
    engine: EngineConfig,
}

/// The workload: a Lua script that every rank runs as its own coroutine.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Workload {
    /// Where the script came from, for error messages (`inline` for `code = ...`).
    pub(crate) script_name: String,
    /// The script's folder, searched by `require` (None for inline code).
    pub(crate) script_dir: Option<PathBuf>,
    /// The scenario file's folder, for data files the script reads (`MGEN_SCENARIO_DIR`).
    pub(crate) scenario_dir: PathBuf,
    #[serde(skip)]
    /// The script's text.
    pub(crate) source: String,
    /// Ranks of the job.
    pub(crate) ranks: u64,
    /// Seeds `math.random` (`workload.seed`, `--seed`).
    pub(crate) seed: u64,
    /// Handed to every rank as `MGEN_args`.
    pub(crate) args: toml::Table,
    /// Synthetic traffic the job's ranks inject (`traffic/`), instead of what a script sends.
    #[serde(skip)]
    pub(crate) traffic: Option<std::sync::Arc<crate::traffic::Spec>>,
}

/// One job: a workload and where its ranks run.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Job {
    /// The job's name.
    pub(crate) name: String,
    /// What its ranks run.
    pub(crate) workload: Workload,
    /// The node of each of its ranks.
    #[serde(skip)]
    pub(crate) nodes: Vec<u32>,
}

/// A scenario, validated and with every default filled in.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    /// The file it was read from.
    pub(crate) path: PathBuf,
    /// The network.
    pub(crate) network: NetworkConfig,
    /// The nodes: NICs, DMA, message passing.
    pub(crate) node: NodeConfig,
    /// The jobs, one for a `[workload]`; their ranks are numbered one job after the other.
    pub(crate) jobs: Vec<Job>,
    /// What stops a run gone wrong.
    pub(crate) limits: Limits,
    /// Links that sleep when idle, and energy accounting; None without `[power]`.
    pub(crate) power: Option<PowerConfig>,
    /// Threads and partitions (they change how fast a run goes, never what it predicts).
    pub(crate) engine: EngineConfig,
    /// The network's shape, built from `network` by its family (`topology/`).
    #[serde(skip)]
    pub(crate) topo: crate::topology::Topo,
    /// Whether scripts may use the whole Lua standard library (`--allow-io`); never set by
    /// the scenario file itself, so that a shared scenario cannot lift its own sandbox.
    #[serde(skip)]
    pub(crate) allow_io: bool,
    /// What reading it left out, in words (a key of another topology than the one `--set`
    /// chose): the run's warnings.
    #[serde(skip)]
    pub notes: Vec<String>,
}
