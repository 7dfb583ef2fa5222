//! Scenario files: what network to build and what workload to run on it.
//!
//! A scenario is a TOML file with three tables, `[network]`, `[node]` and `[workload]`.
//! Every key left out takes the NSIM-ACE value of MODEL.md §3 (Table 1 of the NSIM-ACE
//! paper); the MTU, which that paper does not give, defaults to 2 KiB. Relative paths are
//! resolved against the folder of the scenario file.
//!
//! ```
//! let s = mgensim::config::Scenario::from_str_with(
//!     "[network]\ndims = [4, 4]\n[workload]\ncode = 'MGEN_Comp(1e-6)'\n",
//!     std::path::Path::new("inline.toml"),
//!     &["network.link_bandwidth=\"8 GB/s\"".to_string()],
//! ).unwrap();
//! assert_eq!(s.network.link_bandwidth.0, 8_000_000_000);
//! assert_eq!(s.ranks(), 16);
//! ```

mod keys;
pub mod placement;
mod problems;

use crate::units::{Bandwidth, Bytes, Time};
use anyhow::{anyhow, bail, Context, Result};
use keys::Section;
use placement::{Machine, PlacementFile};
use problems::Problems;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which family of network (MODEL.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Topology {
    /// k-ary n-cube with wrap-around links; shorter way round; dateline virtual channels.
    Torus,
    /// k-ary n-mesh, no wrap-around links.
    Mesh,
    /// Tofu: a 6-D mesh/torus, `dims = [x, y, z]` around a fixed 2×3×2 unit.
    Tofu,
    /// Fat tree with full bisection bandwidth (`radix`/`levels`, or `down_ports`/`up_ports`).
    Fattree,
    /// Dragonfly: groups of routers, all-to-all global links between groups.
    Dragonfly,
}

impl Topology {
    fn is_cube(self) -> bool {
        matches!(self, Topology::Torus | Topology::Mesh | Topology::Tofu)
    }
}

/// `network.routing`: how a packet's route is chosen (MODEL.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// Mesh, torus, Tofu: static dimension order.
    DimensionOrder,
    /// Fat tree: up port from the source (NSIM's "straight up", S-mod-k).
    StraightUp,
    /// Fat tree: up port from the destination (NSIM's "straight down", D-mod-k).
    StraightDown,
    /// Fat tree: a seeded random up port per packet and level.
    Random,
    /// Dragonfly: local, global, local.
    Minimal,
    /// Dragonfly: minimally through a random intermediate group.
    Valiant,
    /// Dragonfly: UGAL-L, minimal or Valiant by the local queue.
    Ugal,
}

/// The routing rules of a fat tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FatTreeRouting {
    StraightUp,
    StraightDown,
    Random,
}

/// The routing rules of a dragonfly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DragonflyRouting {
    Minimal,
    Valiant,
    Ugal,
}

/// `[network]`: routers and links (MODEL.md §3).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    pub topology: Topology,
    /// Mesh and torus: routers per dimension, 1 to 6 dimensions; one node per router.
    /// Tofu: the outer `[x, y, z]`.
    pub dims: Vec<u32>,
    /// Route choice; the topology's first rule when left out (`dimension_order`,
    /// `straight_up`, `minimal`).
    pub routing: Option<Routing>,
    /// Fat tree: ports per switch (even); with `levels`, the largest full-bisection tree.
    pub radix: Option<u32>,
    /// Fat tree: switch levels.
    pub levels: Option<u32>,
    /// Fat tree given level by level, leaves first: ports down per switch.
    pub down_ports: Option<Vec<u32>>,
    /// Fat tree given level by level, leaves first: ports up per switch (0 at the top).
    pub up_ports: Option<Vec<u32>>,
    /// Dragonfly: routers per group (`a`; TraceRP: 6).
    pub routers_per_group: Option<u32>,
    /// Dragonfly: nodes per router (`p`; TraceRP: 3).
    pub nodes_per_router: Option<u32>,
    /// Dragonfly: global links per router (`h`; TraceRP: 3).
    pub global_links_per_router: Option<u32>,
    /// Dragonfly: groups; `a·h + 1` (one global link between every pair) when left out.
    pub groups: Option<u32>,
    /// Each direction of each link (NSIM-ACE: 4.0 GB/s).
    pub link_bandwidth: Bandwidth,
    /// Crossbar throughput (NSIM-ACE: 4.0 GB/s); a router output moves data at the slower of
    /// this and its link.
    pub switch_bandwidth: Bandwidth,
    pub routing_time: Time,
    pub vc_alloc_time: Time,
    pub switch_alloc_time: Time,
    pub switch_latency: Time,
    pub cable_latency: Time,
    /// Largest payload of one packet.
    pub mtu: Bytes,
    /// Bytes each packet carries besides its payload; a control packet is a bare header.
    pub header_bytes: Bytes,
    /// Capacity of each router input buffer, per port and virtual channel (and of each NIC's
    /// receive buffer); must hold at least one whole packet (virtual cut-through).
    pub buffer_bytes: Bytes,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            topology: Topology::Torus,
            dims: vec![8, 8, 8],
            routing: None,
            radix: None,
            levels: None,
            down_ports: None,
            up_ports: None,
            routers_per_group: None,
            nodes_per_router: None,
            global_links_per_router: None,
            groups: None,
            link_bandwidth: Bandwidth(4_000_000_000),
            switch_bandwidth: Bandwidth(4_000_000_000),
            routing_time: Time::from_ns(4),
            vc_alloc_time: Time::from_ns(4),
            switch_alloc_time: Time::from_ns(4),
            switch_latency: Time::from_ns(128),
            cable_latency: Time::from_ps(600),
            mtu: Bytes(2048),
            header_bytes: Bytes(16),
            buffer_bytes: Bytes(8192),
        }
    }
}

impl NetworkConfig {
    /// Delay a packet head pays in each router before it may leave (the pipeline of §3).
    pub fn router_delay(&self) -> Time {
        self.routing_time + self.vc_alloc_time + self.switch_alloc_time + self.switch_latency
    }
    /// Network ports for NICs: one per NIC of each router of a mesh, torus or Tofu, the
    /// leaves' down ports of a fat tree, `p` per dragonfly router.
    pub fn terminals(&self, nics_per_node: u32) -> u64 {
        match self.topology {
            Topology::Torus | Topology::Mesh => {
                self.dims.iter().map(|&d| d as u64).product::<u64>() * nics_per_node as u64
            }
            Topology::Tofu => {
                12 * self.dims.iter().map(|&d| d as u64).product::<u64>() * nics_per_node as u64
            }
            Topology::Fattree => self.fat_tree_ports().0.iter().map(|&d| d as u64).product(),
            Topology::Dragonfly => {
                let (a, p, _, g) = self.dragonfly_shape();
                g as u64 * a as u64 * p as u64
            }
        }
    }
    /// Nodes: terminals shared out `nics_per_node` to a node.
    pub fn nodes(&self, nics_per_node: u32) -> u64 {
        self.terminals(nics_per_node) / nics_per_node.max(1) as u64
    }
    /// Fat tree: (down ports, up ports) per level, leaves first.
    pub fn fat_tree_ports(&self) -> (Vec<u32>, Vec<u32>) {
        if let (Some(d), Some(u)) = (&self.down_ports, &self.up_ports) {
            return (d.clone(), u.clone());
        }
        let r = self.radix.unwrap_or(24);
        let n = self.levels.unwrap_or(2).max(1) as usize;
        let mut down = vec![r / 2; n - 1];
        down.push(r);
        let mut up = vec![r / 2; n - 1];
        up.push(0);
        (down, up)
    }
    /// The shape in words, for the summary.
    pub fn describe(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(u32::to_string).collect();
        match self.topology {
            Topology::Torus => format!("torus {}", dims.join("x")),
            Topology::Mesh => format!("mesh {}", dims.join("x")),
            Topology::Tofu => format!("Tofu {} (x y z) x 2x3x2 (a b c)", dims.join("x")),
            Topology::Fattree => {
                let (down, up) = self.fat_tree_ports();
                let d: Vec<String> = down.iter().map(u32::to_string).collect();
                let u: Vec<String> = up.iter().map(u32::to_string).collect();
                format!(
                    "fat tree, {} levels, ports down {} / up {}",
                    down.len(),
                    d.join(","),
                    u.join(",")
                )
            }
            Topology::Dragonfly => {
                let (a, p, h, g) = self.dragonfly_shape();
                format!("dragonfly, {g} groups of {a} routers, {p} nodes and {h} global links each")
            }
        }
    }
    /// The routing rule in effect, as the scenario names it.
    pub fn routing_name(&self) -> String {
        let r = self.routing.unwrap_or(match self.topology {
            Topology::Fattree => Routing::StraightUp,
            Topology::Dragonfly => Routing::Minimal,
            _ => Routing::DimensionOrder,
        });
        serde_name(r)
    }
    /// Dragonfly: routers per group, nodes per router, global links per router, groups.
    pub fn dragonfly_shape(&self) -> (u32, u32, u32, u32) {
        let a = self.routers_per_group.unwrap_or(6);
        let p = self.nodes_per_router.unwrap_or(3);
        let h = self.global_links_per_router.unwrap_or(3);
        let g = self.groups.unwrap_or(a.saturating_mul(h).saturating_add(1));
        (a, p, h, g)
    }
    pub fn fat_tree_routing(&self) -> FatTreeRouting {
        match self.routing {
            Some(Routing::StraightDown) => FatTreeRouting::StraightDown,
            Some(Routing::Random) => FatTreeRouting::Random,
            _ => FatTreeRouting::StraightUp,
        }
    }
    pub fn dragonfly_routing(&self) -> DragonflyRouting {
        match self.routing {
            Some(Routing::Valiant) => DragonflyRouting::Valiant,
            Some(Routing::Ugal) => DragonflyRouting::Ugal,
            _ => DragonflyRouting::Minimal,
        }
    }
}

/// `[node]`: memory, DMA and the communication library (MODEL.md §2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NodeConfig {
    /// DMA between memory and NIC, each way (NSIM-ACE: 2.8 GB/s).
    pub dma_bandwidth: Bandwidth,
    /// Caps DMA in both directions (NSIM-ACE: infinite).
    pub memory_bandwidth: Bandwidth,
    /// Charged on the issuing rank's clock for each call that starts a transfer (the
    /// papers' "communication library overhead"; NSIM-ACE random ring: 0).
    pub node_latency: Time,
    /// Rate of the NIC's port onto its link (NSIM's HCA rate); the link rate when left out.
    pub nic_bandwidth: Option<Bandwidth>,
    /// Charged on the caller's clock by each message-passing call that posts a send or a
    /// receive (NSIM: 200 ns).
    pub mpi_overhead: Time,
    /// Messages up to this size go eager (one copy at memory bandwidth), larger ones by
    /// rendezvous (zero-copy, after a request-to-send / clear-to-send round trip).
    pub eager_limit: Bytes,
    /// NICs per node, each with its own link to the network (MODEL.md §2).
    pub nics_per_node: u32,
    /// Ranks a node can hold; ranks of one node exchange data through its DMA and memory.
    pub ranks_per_node: u32,
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
        }
    }
}

impl NodeConfig {
    /// What one DMA transfer moves per second: the slower of DMA and memory.
    pub fn dma_rate(&self) -> Bandwidth {
        self.dma_bandwidth.min(self.memory_bandwidth)
    }
}

/// `[limits]`: when to stop a run that has gone wrong (a stop reports what was computed so
/// far, marked partial). Zero means no limit.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Lua VM instructions a rank may run between two calls that give control back to the
    /// engine (a blocking call, or the end of its script). Catches endless loops. Counted
    /// once a resume has run 10-20 ms of wall time (`script/watchdog.rs`), so a rank stopped
    /// at it has run that much more.
    pub instructions: u64,
    /// Memory of the Lua state, all ranks together.
    pub lua_memory: Bytes,
    /// Events the engine may process.
    pub events: u64,
    /// Wall-clock time the run may take (`mgensim run --timeout` sets it).
    pub wall_time: Time,
    /// Simulated time the run may reach: every event up to it is processed, none after it.
    pub simulated_time: Time,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instructions: 1_000_000_000,
            lua_memory: Bytes(8 << 30),
            events: 0,
            wall_time: Time::ZERO,
            simulated_time: Time::ZERO,
        }
    }
}

/// `[power]`: links that sleep when idle (TraceRP, MODEL.md §8). Each link direction goes to
/// low power `t_sleep` after its last packet and takes `t_wake` to wake when a packet finds it
/// asleep (the packet, and what queues behind it, waits). A port draws `p_base_per_port`
/// watts, plus `p_dynamic` when active (also while going to sleep and waking). Defaults:
/// TraceRP's Table 2.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PowerConfig {
    /// Links sleep when idle. With `false` they are always active and only the energy is
    /// counted (the baseline of `--power-baseline`).
    pub enabled: bool,
    /// T_s: idle time before a link direction goes to low power.
    pub t_sleep: Time,
    /// T_w: time a sleeping link direction takes to wake.
    pub t_wake: Time,
    /// Watts a port (link direction) draws in low power: P_base / N_port.
    pub p_base_per_port: f64,
    /// Watts more it draws when active: P_dynamic.
    pub p_dynamic: f64,
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
    ranks: Option<u64>,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    args: Option<toml::Table>,
    placement: Option<PlacementFile>,
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
}

/// The workload: a Lua script that every rank runs as its own coroutine.
#[derive(Clone, Debug, Serialize)]
pub struct Workload {
    /// Where the script came from, for error messages (`inline` for `code = ...`).
    pub script_name: String,
    /// The script's folder, searched by `require` (None for inline code).
    pub script_dir: Option<PathBuf>,
    /// The scenario file's folder, for data files the script reads (`MGEN_SCENARIO_DIR`).
    pub scenario_dir: PathBuf,
    #[serde(skip)]
    pub source: String,
    pub ranks: u64,
    pub seed: u64,
    /// Handed to every rank as `MGEN_args`.
    pub args: toml::Table,
}

/// One job: a workload and where its ranks run.
#[derive(Clone, Debug, Serialize)]
pub struct Job {
    pub name: String,
    pub workload: Workload,
    /// The node of each of its ranks.
    #[serde(skip)]
    pub nodes: Vec<u32>,
}

/// A scenario, validated and with every default filled in.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    /// The file it was read from.
    pub path: PathBuf,
    pub network: NetworkConfig,
    pub node: NodeConfig,
    /// The jobs, one for a `[workload]`; their ranks are numbered one job after the other.
    pub jobs: Vec<Job>,
    pub limits: Limits,
    /// Links that sleep when idle, and energy accounting; None without `[power]`.
    pub power: Option<PowerConfig>,
    /// Whether scripts may use the whole Lua standard library (`--allow-io`); never set by
    /// the scenario file itself, so that a shared scenario cannot lift its own sandbox.
    #[serde(skip)]
    pub allow_io: bool,
}

impl Scenario {
    /// Reads a scenario file and applies `overrides` (`key.path=TOML-literal`), with the
    /// sandbox on (see [`Scenario::load_with`]).
    pub fn load(path: &Path, overrides: &[String]) -> Result<Scenario> {
        Scenario::load_with(path, overrides, false)
    }

    /// Reads a scenario file and applies `overrides`. Without `allow_io` (`--allow-io`) the
    /// files it names (its scripts, placement maps) must be regular files below its own
    /// folder or mgensim's Lua library (`files.rs`). The file itself is read up to
    /// [`crate::files::MAX_SOURCE`] bytes; it may be a pipe (`<(...)`).
    pub fn load_with(path: &Path, overrides: &[String], allow_io: bool) -> Result<Scenario> {
        let text = crate::files::read_bounded(path, crate::files::MAX_SOURCE)
            .map_err(|e| anyhow!("cannot read scenario {}: {e}", path.display()))?;
        Scenario::from_str_opts(&text, path, overrides, allow_io)
    }

    /// Like [`Scenario::load`] for text already in memory; `path` names it in messages and
    /// anchors relative paths. Every problem found is reported, not just the first.
    pub fn from_str_with(text: &str, path: &Path, overrides: &[String]) -> Result<Scenario> {
        Scenario::from_str_opts(text, path, overrides, false)
    }

    /// [`Scenario::from_str_with`], with `--allow-io` or not.
    pub fn from_str_opts(
        text: &str,
        path: &Path,
        overrides: &[String],
        allow_io: bool,
    ) -> Result<Scenario> {
        let file = path.display().to_string();
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| anyhow!("{file}: {}", e.to_string().trim_end()))?;
        let mut p = Problems::new(file, text);
        for o in overrides {
            let key = apply_override(&mut table, o).with_context(|| format!("--set {o}"))?;
            p.overridden(&key);
        }
        keys::remove_unknown(
            &mut table,
            keys::fields_of::<ScenarioFile>(),
            &[
                Section::of::<NetworkConfig>("network"),
                Section::of::<NodeConfig>("node"),
                Section::of::<WorkloadFile>("workload"),
                Section::of::<PlacementFile>("placement"),
                Section::of::<WorkloadFile>("job"),
                Section::of::<Limits>("limits"),
                Section::of::<PowerConfig>("power"),
            ],
            &mut p,
        );
        // Read the values; a value that cannot be read is reported and dropped (its default
        // is used) so that the next one can be checked too.
        let parsed = loop {
            match serde_path_to_error::deserialize::<_, ScenarioFile>(toml::Value::Table(
                table.clone(),
            )) {
                Ok(f) => break Some(f),
                Err(e) => {
                    let key = e.path().to_string();
                    let msg = plain_words(e.inner().message().trim_end());
                    if key == "." || key.is_empty() || !remove_path(&mut table, &key) {
                        p.general(msg);
                        break None;
                    }
                    p.key(&key, msg);
                }
            }
        };
        let given: Vec<String> = match table.get("network") {
            Some(toml::Value::Table(t)) => t.keys().cloned().collect(),
            _ => Vec::new(),
        };
        let scenario = parsed.and_then(|f| Scenario::build(f, path, &given, allow_io, &mut p));
        p.into_result()?;
        Ok(scenario.expect("a scenario without problems was built"))
    }

    fn build(
        f: ScenarioFile,
        path: &Path,
        given: &[String],
        allow_io: bool,
        p: &mut Problems,
    ) -> Option<Scenario> {
        let base = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let net = &f.network;
        check_topology(net, &f.node, given, p);
        for (key, bw) in [
            ("network.link_bandwidth", net.link_bandwidth),
            ("network.switch_bandwidth", net.switch_bandwidth),
            ("node.dma_bandwidth", f.node.dma_bandwidth),
            ("node.memory_bandwidth", f.node.memory_bandwidth),
        ] {
            if bw.0 == 0 {
                p.key(key, "must be greater than zero");
            }
        }
        if let Some(bw) = f.node.nic_bandwidth {
            if bw.0 == 0 {
                p.key("node.nic_bandwidth", "must be greater than zero");
            }
        }
        for (key, bw) in [
            ("network.link_bandwidth", net.link_bandwidth),
            ("network.switch_bandwidth", net.switch_bandwidth),
        ] {
            if bw.is_infinite() {
                p.key(key, "must be finite (a link always takes time)");
            }
        }
        if net.mtu.0 == 0 || net.mtu.0 > 1 << 24 {
            p.key(
                "network.mtu",
                format!("{} is out of range (1 B to 16 MiB)", net.mtu),
            );
        } else if net.mtu < net.header_bytes {
            p.key(
                "network.mtu",
                format!(
                    "{} is smaller than a packet's header ({}, `network.header_bytes`); \
                     packets would carry more header than payload",
                    net.mtu, net.header_bytes
                ),
            );
        }
        if net.header_bytes.0 > 1 << 16 {
            p.key(
                "network.header_bytes",
                format!("{} is out of range (0 to 64 KiB)", net.header_bytes),
            );
        }
        if let Some(pw) = &f.power {
            for (key, w) in [
                ("power.p_base_per_port", pw.p_base_per_port),
                ("power.p_dynamic", pw.p_dynamic),
            ] {
                if !(w.is_finite() && (0.0..=1e6).contains(&w)) {
                    p.key(key, format!("{w} W is out of range (0 to 1e6 W)"));
                }
            }
            for (key, t) in [("power.t_sleep", pw.t_sleep), ("power.t_wake", pw.t_wake)] {
                if t.ps() > 3_600 * 1_000_000_000_000 {
                    p.key(key, format!("{t} is out of range (0 to 1 h)"));
                }
            }
        }
        let packet = net.mtu.0 + net.header_bytes.0;
        if net.buffer_bytes.0 < packet || net.buffer_bytes.0 > u32::MAX as u64 {
            p.key(
                "network.buffer_bytes",
                format!(
                    "{} cannot hold one whole packet of {} (mtu + header_bytes); \
                     virtual cut-through needs at least that",
                    net.buffer_bytes,
                    Bytes(packet)
                ),
            );
        }
        let nics = f.node.nics_per_node.max(1);
        let nodes = net.nodes(nics);
        let slots = nodes * f.node.ranks_per_node as u64;
        // the jobs, each with the key its problems are reported under
        let files: Vec<(String, WorkloadFile)> = match (f.workload, f.job) {
            (Some(_), Some(_)) => {
                p.key(
                    "job",
                    "give either one [workload] or several [[job]] tables, not both",
                );
                Vec::new()
            }
            (None, Some(jobs)) if jobs.is_empty() => {
                p.key("job", "an empty list of jobs");
                Vec::new()
            }
            (None, Some(jobs)) => {
                if f.placement.is_some() {
                    p.key(
                        "placement",
                        "with [[job]] tables, give each job its own `placement`",
                    );
                }
                jobs.into_iter()
                    .enumerate()
                    .map(|(i, j)| (format!("job[{i}]"), j))
                    .collect()
            }
            (w, None) => {
                let mut w = w.unwrap_or_default();
                match (&w.placement, f.placement) {
                    (Some(_), Some(_)) => p.key(
                        "placement",
                        "given twice, as [placement] and as workload.placement",
                    ),
                    (None, Some(pl)) => w.placement = Some(pl),
                    _ => {}
                }
                vec![("workload".to_string(), w)]
            }
        };
        let several = files.len() > 1;
        let mut jobs = Vec::new();
        let mut machine = Machine::new(if p.is_empty() { nodes } else { 0 }, f.node.ranks_per_node);
        for (i, (key, w)) in files.into_iter().enumerate() {
            let (script_name, script_dir, source) = read_script(&w, &key, &base, allow_io, p);
            let ranks = match w.ranks {
                Some(0) => {
                    p.key(&format!("{key}.ranks"), "must be at least 1");
                    continue;
                }
                Some(r) => r,
                None if several => {
                    p.key(
                        &format!("{key}.ranks"),
                        "missing; with several jobs, each says how many ranks it has",
                    );
                    continue;
                }
                None => slots.max(1),
            };
            let name = w.name.clone().unwrap_or_else(|| {
                if several {
                    format!("job{i}")
                } else {
                    "main".to_string()
                }
            });
            if jobs.iter().any(|j: &Job| j.name == name) {
                p.key(&format!("{key}.name"), format!("`{name}` names two jobs"));
            }
            let pl = w.placement.clone().unwrap_or_default();
            let placed = if nodes == 0 || !p.is_empty() {
                None
            } else if let Some(file) = &pl.file {
                let pkey = if key == "workload" && w.placement.is_some() {
                    "placement.file".to_string()
                } else {
                    format!("{key}.placement.file")
                };
                match crate::files::read_referenced(
                    &base,
                    file,
                    allow_io,
                    crate::files::MAX_PLACEMENT,
                ) {
                    Err(e) => {
                        p.key(&pkey, e);
                        None
                    }
                    Ok((path, text)) => {
                        match placement::read_map(&path.display().to_string(), &text, ranks, nodes)
                            .and_then(|m| machine.take(&m).map(|()| m))
                        {
                            Ok(m) => Some(m),
                            Err(es) => {
                                for e in es {
                                    p.key(&pkey, e);
                                }
                                None
                            }
                        }
                    }
                }
            } else {
                match machine.place(pl.policy, ranks, w.seed) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        let msg = if several {
                            e
                        } else {
                            format!(
                                "{ranks} ranks do not fit on {nodes} nodes \
                                 ({} rank(s) per node, node.ranks_per_node); enlarge the \
                                 network or raise node.ranks_per_node",
                                f.node.ranks_per_node
                            )
                        };
                        p.key(&format!("{key}.ranks"), msg);
                        None
                    }
                }
            };
            jobs.push(Job {
                name,
                workload: Workload {
                    script_name,
                    script_dir,
                    scenario_dir: base.clone(),
                    source,
                    ranks,
                    seed: w.seed,
                    args: w.args.unwrap_or_default(),
                },
                nodes: placed.unwrap_or_default(),
            });
        }
        if !p.is_empty() {
            return None;
        }
        Some(Scenario {
            path: path.to_path_buf(),
            network: f.network,
            node: f.node,
            jobs,
            limits: f.limits,
            power: f.power,
            allow_io,
        })
    }

    /// Ranks of all jobs.
    pub fn ranks(&self) -> u64 {
        self.jobs.iter().map(|j| j.workload.ranks).sum()
    }
    /// Nodes of the network.
    pub fn nodes(&self) -> u64 {
        self.network.nodes(self.node.nics_per_node)
    }
    /// The first job's workload (the only one, without `[[job]]` tables).
    pub fn workload(&self) -> &Workload {
        &self.jobs[0].workload
    }
}

/// Reads a job's script (or takes its inline code): its name, folder and text.
fn read_script(
    w: &WorkloadFile,
    key: &str,
    base: &Path,
    allow_io: bool,
    p: &mut Problems,
) -> (String, Option<PathBuf>, String) {
    match (&w.script, &w.code) {
        (Some(_), Some(_)) => {
            p.key(key, "give either `script` or `code`, not both");
            (String::new(), None, String::new())
        }
        (None, None) => {
            p.key(
                &format!("{key}.script"),
                "missing; name the Lua script every rank runs (or give its text as `code`)",
            );
            (String::new(), None, String::new())
        }
        (None, Some(code)) => ("inline".to_string(), None, code.clone()),
        (Some(s), None) => {
            match crate::files::read_referenced(base, s, allow_io, crate::files::MAX_SOURCE) {
                Ok((path, src)) => (
                    path.display().to_string(),
                    Some(match path.parent() {
                        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                        _ => PathBuf::from("."),
                    }),
                    src,
                ),
                Err(e) => {
                    p.key(&format!("{key}.script"), e);
                    (String::new(), None, String::new())
                }
            }
        }
    }
}

/// The checks of `[network]`'s shape: the keys of the chosen topology and their ranges.
fn check_topology(net: &NetworkConfig, node: &NodeConfig, given: &[String], p: &mut Problems) {
    let topo = net.topology;
    let name = serde_name(topo);
    let only = |key: &str, for_: &str, p: &mut Problems| {
        if given.iter().any(|g| g == key) {
            p.key(
                &format!("network.{key}"),
                format!("is a key of {for_}, not of topology `{name}`"),
            );
        }
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
    if !topo.is_cube() {
        only("dims", "a mesh, torus or Tofu", p);
    }
    if topo != Topology::Fattree {
        for k in ["radix", "levels", "down_ports", "up_ports"] {
            only(k, "a fat tree", p);
        }
    }
    if topo != Topology::Dragonfly {
        for k in [
            "routers_per_group",
            "nodes_per_router",
            "global_links_per_router",
            "groups",
        ] {
            only(k, "a dragonfly", p);
        }
    }
    let allowed: &[Routing] = match topo {
        Topology::Torus | Topology::Mesh | Topology::Tofu => &[Routing::DimensionOrder],
        Topology::Fattree => &[Routing::StraightUp, Routing::StraightDown, Routing::Random],
        Topology::Dragonfly => &[Routing::Minimal, Routing::Valiant, Routing::Ugal],
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

/// How serde writes a unit enum value (`straight_up`).
fn serde_name<T: Serialize>(v: T) -> String {
    toml::Value::try_from(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// serde's type names in the words of a scenario's author.
fn plain_words(msg: &str) -> String {
    let mut m = msg.to_string();
    for (rust, plain) in [
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected a sequence", "expected a list such as [8, 8, 8]"),
        ("expected a map", "expected a table"),
        ("expected a string", "expected a string in quotes"),
    ] {
        m = m.replace(rust, plain);
    }
    m
}

/// Removes the value at a serde path (`network.dims[2]` removes `network.dims`); false when
/// there is nothing to remove.
fn remove_path(table: &mut toml::Table, path: &str) -> bool {
    let parts = problems::key_parts(path);
    let mut cur = table;
    for part in &parts[..parts.len() - 1] {
        match cur.get_mut(*part) {
            Some(toml::Value::Table(t)) => cur = t,
            _ => return false,
        }
    }
    cur.remove(parts[parts.len() - 1]).is_some()
}

/// Applies `a.b.c=VALUE` to a TOML table. VALUE is a TOML literal (`[8,8,8]`, `512`,
/// `"8 GB/s"`); a bare word that is not one (`ring`, as a shell leaves `"ring"`) is taken as a
/// string.
/// Returns the key it set.
pub fn apply_override(table: &mut toml::Table, assignment: &str) -> Result<String> {
    let (key, value) = assignment
        .split_once('=')
        .ok_or_else(|| anyhow!("expected KEY=VALUE, e.g. network.dims=[8,8,8]"))?;
    let key = key.trim();
    let value = value.trim();
    let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut t) => t.remove("v").expect("key v was just written"),
        Err(_) => toml::Value::String(value.to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        bail!("bad key {key:?}");
    }
    let mut cur = table;
    let mut i = 0;
    while i + 1 < parts.len() {
        // `job.0.ranks` needs the list: an index cannot make one
        if parts[i + 1].parse::<usize>().is_ok() && !cur.contains_key(parts[i]) {
            if i == 0 && parts[0] == "job" {
                bail!(
                    "the scenario has no jobs (no [[job]] tables: its workload is [workload]); \
                     set workload.{} instead",
                    parts[2..].join(".")
                );
            }
            bail!(
                "`{}` is not in the scenario, so `{}` has no entry {} to set",
                parts[..=i].join("."),
                parts[..=i].join("."),
                parts[i + 1]
            );
        }
        let entry = cur
            .entry(parts[i].to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        // `job.1.ranks`: a table of an array of tables, by its index
        let entry = match entry {
            toml::Value::Array(a) => {
                if i + 2 >= parts.len() {
                    bail!(
                        "`{}` is a list: give an index, e.g. {}.0.key",
                        parts[i],
                        parts[i]
                    );
                }
                let n = a.len();
                let k: usize = parts[i + 1].parse().map_err(|_| {
                    anyhow!(
                        "`{}` is a list: give an index, e.g. {}.0",
                        parts[i],
                        parts[i]
                    )
                })?;
                i += 1;
                a.get_mut(k).ok_or_else(|| {
                    anyhow!("`{}` has {n} entries; {k} is out of range", parts[i - 1])
                })?
            }
            e => e,
        };
        cur = entry
            .as_table_mut()
            .ok_or_else(|| anyhow!("`{}` is not a table", parts[..=i].join(".")))?;
        i += 1;
    }
    cur.insert(parts[parts.len() - 1].to_string(), parsed);
    // the key as problems name it: `job[0].ranks`
    let mut named = String::new();
    for part in &parts {
        if part.parse::<usize>().is_ok() && !named.is_empty() {
            named.push_str(&format!("[{part}]"));
        } else {
            if !named.is_empty() {
                named.push('.');
            }
            named.push_str(part);
        }
    }
    Ok(named)
}
