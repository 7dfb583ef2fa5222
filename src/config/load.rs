//! Loading a scenario: reading the file and what it names, applying `--set`s, reading every
//! value (each problem reported, not just the first) and building the [`Scenario`].

use super::keys::{self, Section};
use super::placement::{self, Machine, PlacementFile};
use super::problems::{self, Problems};
use super::shape::check_topology;
use super::*;
use crate::topology::keys::MAX_LATENCY;
use crate::words::{bounded, plain_words, shown};
use anyhow::{anyhow, Result};

impl Scenario {
    /// Reads a scenario file and applies `overrides` (`key.path=TOML-literal`). Without
    /// `allow_io` (`--allow-io`: the sandbox on) the files it names (its scripts, placement
    /// maps) must be regular files below its own folder or mgensim's Lua library
    /// (`files.rs`). The file itself is read up to [`crate::files::MAX_SOURCE`] bytes; it may
    /// be a pipe (`<(...)`).
    pub fn load(path: &Path, overrides: &[String], allow_io: bool) -> Result<Scenario> {
        let text = crate::files::read_bounded(path, crate::files::MAX_SOURCE)
            .map_err(|e| anyhow!("cannot read scenario {}: {e}", path.display()))?;
        Scenario::from_str_with(&text, path, overrides, allow_io)
    }

    /// Like [`Scenario::load`] for text already in memory; `path` names it in messages and
    /// anchors relative paths. Every problem found is reported, not just the first.
    pub fn from_str_with(
        text: &str,
        path: &Path,
        overrides: &[String],
        allow_io: bool,
    ) -> Result<Scenario> {
        let file = path.display().to_string();
        let mut table: toml::Table = toml::from_str(text)
            .map_err(|e| anyhow!("{file}: {}", bounded(e.to_string().trim_end())))?;
        let mut p = Problems::new(file, text);
        // the keys --set (or a sweep's point) set, as problems name them
        let mut set = Vec::new();
        for o in overrides {
            // (a value of a megabyte is quoted within bounds, as in the file)
            let key = apply_override(&mut table, o)
                .map_err(|e| anyhow!("--set {}: {}", shown(o), bounded(&format!("{e:#}"))))?;
            p.overridden(&key);
            set.push(key);
        }
        keys::remove_unknown(
            &mut table,
            keys::fields_of::<ScenarioFile>(),
            &[
                Section {
                    name: "network",
                    fields: super::shape::network_keys(),
                },
                Section::of::<NodeConfig>("node"),
                Section::of::<WorkloadFile>("workload"),
                Section::of::<PlacementFile>("placement"),
                Section::of::<WorkloadFile>("job"),
                Section::of::<Limits>("limits"),
                Section::of::<PowerConfig>("power"),
                Section::of::<EngineConfig>("engine"),
            ],
            &mut p,
        );
        // the families' keys are read by the families (`topology/`), not into
        // `NetworkConfig`
        let mut family = toml::Table::new();
        if let Some(toml::Value::Table(t)) = table.get_mut("network") {
            for key in super::shape::family_keys() {
                if let Some(v) = t.remove(*key) {
                    family.insert(key.to_string(), v);
                }
            }
        }
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
        let parsed = parsed.map(|mut f| {
            f.network.family = family;
            f
        });
        let given: Vec<String> = match (table.get("network"), &parsed) {
            // an empty list of a key the topology does not have says "none" (a sweep that
            // zips a torus's dims with a fat tree's): not given
            (Some(toml::Value::Table(t)), Some(f)) => t
                .keys()
                .cloned()
                .chain(
                    f.network
                        .family
                        .iter()
                        .filter(|(k, v)| !super::shape::says_none(&f.network.topology, k, v))
                        .map(|(k, _)| k.clone()),
                )
                .collect(),
            _ => Vec::new(),
        };
        // (a topology --set set leaves the file's keys of the other topologies out)
        let scenario =
            parsed.and_then(|f| Scenario::build(f, path, &given, &set, allow_io, &mut p));
        p.into_result()?;
        Ok(scenario.expect("a scenario without problems was built"))
    }

    fn build(
        f: ScenarioFile,
        path: &Path,
        given: &[String],
        set: &[String],
        allow_io: bool,
        p: &mut Problems,
    ) -> Option<Scenario> {
        let base = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let net = &f.network;
        let mut notes = Vec::new();
        let foreign = super::shape::Foreign {
            set,
            left_out: &mut notes,
        };
        let topo = check_topology(net, &f.node, given, foreign, &base, allow_io, p);
        notes.extend(super::model::ignored(net, given));
        check_rates(net, &f.node, p);
        check_power_and_engine(f.power.as_ref(), &f.engine, p);
        super::model::buffers(net, p);
        let nics = f.node.nics_per_node.max(1);
        let nodes = topo.as_ref().map_or(0, |t| (t.terminals() / nics) as u64);
        let slots = nodes * f.node.ranks_per_node as u64;
        // the jobs, each with the key its problems are reported under
        let files = job_files(f.workload, f.job, f.placement, p);
        let several = files.len() > 1;
        let mut jobs = Vec::new();
        let mut machine = Machine::new(if p.is_empty() { nodes } else { 0 }, f.node.ranks_per_node);
        for (i, (key, w)) in files.into_iter().enumerate() {
            let (script_name, script_dir, source) = read_script(&w, &key, &base, allow_io, p);
            // a trace says how many ranks it has
            let traced = match (&w.trace, script_name.is_empty()) {
                (Some(_), false) => match trace_ranks(&w, &base, allow_io) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        p.key(&format!("{key}.trace"), e);
                        continue;
                    }
                },
                _ => None,
            };
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
                None => traced.unwrap_or(slots.max(1)),
            };
            // a replay is looked at before it runs: its ranks, its arguments (src/replay/check.rs)
            if let (Some(n), Some(t)) = (traced, &w.trace) {
                let none = toml::Table::new();
                let args = w.args.as_ref().unwrap_or(&none);
                let found = crate::replay::check::job(&key, t, n, w.ranks, args);
                for (k, msg) in found.problems {
                    p.key(&k, msg);
                }
                notes.extend(found.warnings);
            }
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
            let placed = if nodes == 0 || !p.is_empty() {
                None
            } else {
                place(
                    &w,
                    &key,
                    ranks,
                    nodes,
                    several,
                    f.node.ranks_per_node,
                    &base,
                    allow_io,
                    &mut machine,
                    p,
                )
            };
            // synthetic traffic: its keys read, the script its ranks run made (traffic/)
            let (traffic, script_name, source) = match read_traffic(
                &w,
                &key,
                ranks,
                net,
                &f.node,
                topo.as_ref(),
                &base,
                allow_io,
                p,
            ) {
                Some(t) => (Some(t.clone()), format!("traffic {}", t.name), t.script()),
                None => (None, script_name, source),
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
                    traffic,
                },
                nodes: placed.unwrap_or_default(),
            });
        }
        if !p.is_empty() {
            return None;
        }
        let mut limits = f.limits;
        let ranks: u64 = jobs.iter().map(|j| j.workload.ranks).sum();
        if limits.lua_memory == super::LUA_MEMORY_FOR_THE_RUN {
            limits.lua_memory = super::lua_memory_for(ranks, crate::host::machine_memory());
        }
        if limits.posts == super::POSTS_FOR_THE_RUN {
            limits.posts = super::posts_for(ranks);
        }
        Some(Scenario {
            path: path.to_path_buf(),
            topo: topo.expect("a scenario without problems has a network"),
            network: f.network,
            node: f.node,
            jobs,
            limits,
            power: f.power,
            engine: f.engine,
            allow_io,
            notes,
        })
    }

    /// Ranks of all jobs.
    pub fn ranks(&self) -> u64 {
        self.jobs.iter().map(|j| j.workload.ranks).sum()
    }
    /// Nodes of the network.
    pub fn nodes(&self) -> u64 {
        (self.topo.terminals() / self.node.nics_per_node.max(1)) as u64
    }
    /// Router-to-router links on the route a lone packet from NIC `a` to NIC `b` takes (with
    /// one NIC a node, node `a` to node `b`; minimal where the routing may choose).
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        self.topo.distance(a, b)
    }
    /// The network in words (`torus 8x8x8 (512 nodes)`).
    pub fn network_in_words(&self) -> String {
        self.topo.describe()
    }
    /// `limits.wall_time`: the wall-clock time a run may take, set-up included (zero: no
    /// limit).
    pub fn wall_time(&self) -> Time {
        self.limits.wall_time
    }
    /// Each job's script, as messages name it (`inline` for `code`).
    pub fn scripts(&self) -> Vec<String> {
        self.jobs
            .iter()
            .map(|j| j.workload.script_name.clone())
            .collect()
    }
    /// Virtual channels per router input port: `network.vcs`, or one per class of the
    /// topology's routing.
    pub(crate) fn vc_count(&self) -> u32 {
        self.network.vc_count(self.topo.vcs())
    }
    /// The first job's workload (the only one, without `[[job]]` tables).
    pub(crate) fn workload(&self) -> &Workload {
        &self.jobs[0].workload
    }
}

/// The rates and times of `[network]` and `[node]` that every network has: rates above zero
/// and a link's finite, stages no longer than [`MAX_LATENCY`], the MTU and header in range.
fn check_rates(net: &super::NetworkConfig, node: &super::NodeConfig, p: &mut Problems) {
    for (key, bw) in [
        ("network.link_bandwidth", net.link_bandwidth),
        ("network.switch_bandwidth", net.switch_bandwidth),
        ("node.dma_bandwidth", node.dma_bandwidth),
        ("node.memory_bandwidth", node.memory_bandwidth),
    ] {
        if bw.0 == 0 {
            p.key(key, "must be greater than zero");
        }
    }
    if let Some(bw) = node.nic_bandwidth {
        if bw.0 == 0 {
            p.key("node.nic_bandwidth", "must be greater than zero");
        }
    }
    // the NIC links' rate, where given (the families check their own classes')
    if net.nic_link_bandwidth.is_some_and(|bw| bw.0 == 0) {
        p.key("network.nic_link_bandwidth", "must be greater than zero");
    }
    // (a link's rate is finite, the NIC links' too: the node's own rates may be `inf`)
    for (key, bw) in [
        ("network.link_bandwidth", Some(net.link_bandwidth)),
        ("network.switch_bandwidth", Some(net.switch_bandwidth)),
        ("network.nic_link_bandwidth", net.nic_link_bandwidth),
    ] {
        if bw.is_some_and(|b| b.is_infinite()) {
            p.key(key, "must be finite (a link always takes time)");
        }
    }
    for (key, t) in [
        ("network.routing_time", Some(net.routing_time)),
        ("network.vc_alloc_time", Some(net.vc_alloc_time)),
        ("network.switch_alloc_time", Some(net.switch_alloc_time)),
        ("network.switch_latency", Some(net.switch_latency)),
        ("network.cable_latency", Some(net.cable_latency)),
        ("network.nic_cable_latency", net.nic_cable_latency),
    ] {
        match t {
            Some(t) if t > MAX_LATENCY => p.key(
                key,
                format!("{t} is longer than a link or a router's stage may take, {MAX_LATENCY}"),
            ),
            _ => {}
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
}

/// `[power]`'s watts and times, and `[engine]`'s thread and partition counts, in range.
fn check_power_and_engine(
    power: Option<&super::PowerConfig>,
    engine: &super::EngineConfig,
    p: &mut Problems,
) {
    if let Some(pw) = power {
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
    if engine.threads > super::MAX_THREADS {
        p.key(
            "engine.threads",
            format!(
                "{} is out of range (0: every core, or 1 to {})",
                engine.threads,
                super::MAX_THREADS
            ),
        );
    }
    if engine.processes > super::MAX_PARTITIONS {
        p.key(
            "engine.processes",
            format!(
                "{} is out of range (1 to {}: a process simulates one partition at least)",
                engine.processes,
                super::MAX_PARTITIONS
            ),
        );
    } else if engine.partitions > 0 && engine.processes > engine.partitions {
        p.key(
            "engine.processes",
            format!(
                "{} processes need as many partitions at least, and engine.partitions is {}: \
                 ask for at least {} partitions, or leave engine.partitions out",
                engine.processes, engine.partitions, engine.processes
            ),
        );
    }
    if engine.partitions > super::MAX_PARTITIONS {
        p.key(
            "engine.partitions",
            format!(
                "{} is out of range (0: the network's default, or 1 to {})",
                engine.partitions,
                super::MAX_PARTITIONS
            ),
        );
    }
}

/// The jobs of a scenario file, each with the key its problems are reported under: its one
/// `[workload]` (with `[placement]` folded in) or its `[[job]]` tables.
fn job_files(
    workload: Option<WorkloadFile>,
    job: Option<Vec<WorkloadFile>>,
    placement: Option<PlacementFile>,
    p: &mut Problems,
) -> Vec<(String, WorkloadFile)> {
    match (workload, job) {
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
            if placement.is_some() {
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
            match (&w.placement, placement) {
                (Some(_), Some(_)) => p.key(
                    "placement",
                    "given twice, as [placement] and as workload.placement",
                ),
                (None, Some(pl)) => w.placement = Some(pl),
                _ => {}
            }
            vec![("workload".to_string(), w)]
        }
    }
}

/// Where the `ranks` of job `w` (reported under `key`) go on the `nodes` of `machine`: the
/// placement file's map, or the policy's; None with the problem said.
#[allow(clippy::too_many_arguments)]
fn place(
    w: &WorkloadFile,
    key: &str,
    ranks: u64,
    nodes: u64,
    several: bool,
    ranks_per_node: u32,
    base: &Path,
    allow_io: bool,
    machine: &mut Machine,
    p: &mut Problems,
) -> Option<Vec<u32>> {
    let pl = w.placement.clone().unwrap_or_default();
    if let Some(file) = &pl.file {
        let pkey = if key == "workload" && w.placement.is_some() {
            "placement.file".to_string()
        } else {
            format!("{key}.placement.file")
        };
        match crate::files::read_referenced(base, file, allow_io, crate::files::MAX_PLACEMENT) {
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
                        ranks_per_node
                    )
                };
                p.key(&format!("{key}.ranks"), msg);
                None
            }
        }
    }
}

/// The synthetic traffic of a job (`traffic/keys.rs`), its problems reported under `key`;
/// None without `traffic` (the other traffic keys are then each an error) or with a problem.
#[allow(clippy::too_many_arguments)]
fn read_traffic(
    w: &WorkloadFile,
    key: &str,
    ranks: u64,
    net: &super::NetworkConfig,
    node: &super::NodeConfig,
    topo: Option<&crate::topology::Topo>,
    base: &Path,
    allow_io: bool,
    p: &mut Problems,
) -> Option<std::sync::Arc<crate::traffic::Spec>> {
    let keys = w.traffic_keys();
    if keys.traffic.is_some() && net.model == super::NetworkModel::Flow {
        p.key(
            &format!("{key}.traffic"),
            "synthetic traffic is measured packet by packet: it needs network.model = \
             \"packet\" (the flow model has no packets)",
        );
        return None;
    }
    let c = crate::traffic::keys::Context {
        ranks,
        seed: w.seed,
        mtu: net.mtu,
        header: net.header_bytes,
        nic_rate: {
            let link = net.nic_link_bandwidth.unwrap_or(net.link_bandwidth);
            node.nic_bandwidth.unwrap_or(link).min(link)
        },
        grid: topo.and_then(|t| node_grid(t, node.nics_per_node)),
        base,
        allow_io,
    };
    match crate::traffic::keys::read(&keys, &c) {
        Ok(spec) => Some(std::sync::Arc::new(spec)),
        Err(problems) => {
            for (k, msg) in problems {
                p.key(&format!("{key}.{k}"), msg);
            }
            None
        }
    }
}

/// The nodes of network `t` as a grid, first dimension fastest (synthetic traffic's `tornado`
/// and `neighbor`): a mesh's or torus's routers with one node each, a HyperX's routers with its
/// nodes per router as the first dimension; None for any other network.
fn node_grid(t: &crate::topology::Topo, nics_per_node: u32) -> Option<Vec<u32>> {
    let per_router = t.terminals() / t.routers().max(1) / nics_per_node.max(1);
    let mut dims = t.dims();
    if t.name() == "hyperx" && per_router > 1 {
        dims.insert(0, per_router);
    } else if t.grid().is_none() || per_router != 1 {
        return None;
    }
    Some(dims)
}

/// The ranks of the trace a workload replays.
fn trace_ranks(w: &WorkloadFile, base: &Path, allow_io: bool) -> Result<u64, String> {
    let files = crate::files::FileAccess::new(base, &[], allow_io);
    let t = w
        .trace
        .as_ref()
        .map(|t| t.to_string_lossy().to_string())
        .unwrap_or_default();
    let index = files.resolve(&t)?;
    let trace = crate::replay::Trace::open(&index, |p| files.resolve(&p.to_string_lossy()))?;
    Ok(trace.ranks()? as u64)
}

/// Reads a job's script (or takes its inline code, or makes the code that replays its trace):
/// its name, folder and text.
fn read_script(
    w: &WorkloadFile,
    key: &str,
    base: &Path,
    allow_io: bool,
    p: &mut Problems,
) -> (String, Option<PathBuf>, String) {
    if w.traffic.is_some() {
        if w.script.is_some() || w.code.is_some() || w.trace.is_some() || w.args.is_some() {
            p.key(
                &format!("{key}.traffic"),
                "synthetic traffic needs no script: give `traffic` without `script`, `code`, \
                 `trace` or `args`",
            );
        }
        return (String::new(), None, String::new());
    }
    if let Some(t) = &w.trace {
        if w.script.is_some() || w.code.is_some() {
            p.key(
                &format!("{key}.trace"),
                "give `trace` alone, or replay from your own script with \
                 require(\"mgen.replay\").run{ trace = ... } (see lua/mgen/replay.d.lua)",
            );
            return (String::new(), None, String::new());
        }
        let files = crate::files::FileAccess::new(base, &[], allow_io);
        return match files.resolve(&t.to_string_lossy()) {
            Ok(path) if path.is_file() => {
                let shown = path.display().to_string();
                if shown.contains("]==]") {
                    p.key(
                        &format!("{key}.trace"),
                        "a path with `]==]` in it cannot be replayed",
                    );
                }
                (
                    format!("replay of {shown}"),
                    None,
                    crate::replay::script_for(&shown),
                )
            }
            Ok(path) => {
                p.key(
                    &format!("{key}.trace"),
                    format!("{} does not exist", path.display()),
                );
                (String::new(), None, String::new())
            }
            Err(e) => {
                p.key(&format!("{key}.trace"), e);
                (String::new(), None, String::new())
            }
        };
    }
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
