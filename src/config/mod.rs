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
//! assert_eq!(s.workload.ranks, 16);
//! ```

mod keys;
mod problems;

use crate::units::{Bandwidth, Bytes, Time};
use anyhow::{anyhow, bail, Context, Result};
use keys::Section;
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
}

/// `[network]`: routers and links (MODEL.md §3).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    pub topology: Topology,
    /// Routers per dimension, 1 to 6 dimensions; one node per router.
    pub dims: Vec<u32>,
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
    pub fn nodes(&self) -> u64 {
        self.dims.iter().map(|&d| d as u64).product()
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
    /// engine (a blocking call, or the end of its script). Catches endless loops.
    pub instructions: u64,
    /// Memory of the Lua state, all ranks together.
    pub lua_memory: Bytes,
    /// Events the engine may process.
    pub events: u64,
    /// Wall-clock time the run may take (`mgensim run --timeout` sets it).
    pub wall_time: Time,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instructions: 1_000_000_000,
            lua_memory: Bytes(8 << 30),
            events: 0,
            wall_time: Time::ZERO,
        }
    }
}

/// `[workload]` as written in the file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadFile {
    script: Option<PathBuf>,
    code: Option<String>,
    ranks: Option<u64>,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    args: Option<toml::Table>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    #[serde(default)]
    network: NetworkConfig,
    #[serde(default)]
    node: NodeConfig,
    workload: Option<WorkloadFile>,
    #[serde(default)]
    limits: Limits,
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

/// A scenario, validated and with every default filled in.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    /// The file it was read from.
    pub path: PathBuf,
    pub network: NetworkConfig,
    pub node: NodeConfig,
    pub workload: Workload,
    pub limits: Limits,
    /// Whether scripts may use the whole Lua standard library (`--allow-io`); never set by
    /// the scenario file itself, so that a shared scenario cannot lift its own sandbox.
    #[serde(skip)]
    pub allow_io: bool,
}

impl Scenario {
    /// Reads a scenario file and applies `overrides` (`key.path=TOML-literal`).
    pub fn load(path: &Path, overrides: &[String]) -> Result<Scenario> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read scenario {}", path.display()))?;
        Scenario::from_str_with(&text, path, overrides)
    }

    /// Like [`Scenario::load`] for text already in memory; `path` names it in messages and
    /// anchors relative paths. Every problem found is reported, not just the first.
    pub fn from_str_with(text: &str, path: &Path, overrides: &[String]) -> Result<Scenario> {
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
                Section::of::<Limits>("limits"),
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
        let scenario = parsed.and_then(|f| Scenario::build(f, path, &mut p));
        p.into_result()?;
        Ok(scenario.expect("a scenario without problems was built"))
    }

    fn build(f: ScenarioFile, path: &Path, p: &mut Problems) -> Option<Scenario> {
        let base = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let net = &f.network;
        if net.dims.is_empty() || net.dims.len() > 6 {
            p.key(
                "network.dims",
                format!("{} dimensions given; 1 to 6 are allowed", net.dims.len()),
            );
        }
        if net.dims.contains(&0) {
            p.key("network.dims", "every dimension must be at least 1");
        }
        if net.dims.iter().any(|&d| d > 65_535) {
            p.key("network.dims", "a dimension may have at most 65535 routers");
        }
        if net.nodes() > u32::MAX as u64 / 16 {
            p.key(
                "network.dims",
                format!("{} nodes is more than mgensim can address", net.nodes()),
            );
        }
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
        let w = f.workload.unwrap_or_default();
        let (script_name, script_dir, source) = match (&w.script, &w.code) {
            (Some(_), Some(_)) => {
                p.key("workload", "give either `script` or `code`, not both");
                (String::new(), None, String::new())
            }
            (None, None) => {
                p.key(
                    "workload.script",
                    "missing; name the Lua script every rank runs (or give its text as `code`)",
                );
                (String::new(), None, String::new())
            }
            (None, Some(code)) => ("inline".to_string(), None, code.clone()),
            (Some(s), None) => {
                // (`./` is left out of names shown in messages)
                let path = if base == Path::new(".") {
                    s.clone()
                } else {
                    base.join(s)
                };
                match std::fs::read_to_string(&path) {
                    Ok(src) => (
                        path.display().to_string(),
                        Some(match path.parent() {
                            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                            _ => PathBuf::from("."),
                        }),
                        src,
                    ),
                    Err(e) => {
                        p.key(
                            "workload.script",
                            format!("cannot read {}: {e}", path.display()),
                        );
                        (String::new(), None, String::new())
                    }
                }
            }
        };
        let nodes = net.nodes();
        let ranks = w.ranks.unwrap_or(nodes);
        if nodes == 0 {
            // already reported under network.dims
        } else if ranks == 0 {
            p.key("workload.ranks", "must be at least 1");
        } else if ranks > nodes {
            p.key(
                "workload.ranks",
                format!(
                    "{ranks} ranks do not fit on {nodes} nodes (one rank per node); \
                     enlarge `network.dims`"
                ),
            );
        }
        if !p.is_empty() {
            return None;
        }
        Some(Scenario {
            path: path.to_path_buf(),
            network: f.network,
            node: f.node,
            workload: Workload {
                script_name,
                script_dir,
                scenario_dir: base,
                source,
                ranks,
                seed: w.seed,
                args: w.args.unwrap_or_default(),
            },
            limits: f.limits,
            allow_io: false,
        })
    }
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
    for (i, part) in parts[..parts.len() - 1].iter().enumerate() {
        let entry = cur
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = entry
            .as_table_mut()
            .ok_or_else(|| anyhow!("`{}` is not a table", parts[..=i].join(".")))?;
    }
    cur.insert(parts[parts.len() - 1].to_string(), parsed);
    Ok(key.to_string())
}
