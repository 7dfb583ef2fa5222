//! The keys of synthetic traffic in `[workload]` (or a `[[job]]`), read and checked into a
//! [`Spec`]: every problem at once, each named by its key.

use super::pattern::{self, Matrix, Pattern, Sizes, NAMES};
use super::{Process, Spec};
use crate::units::{Bandwidth, Bytes, Time};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The keys as written (each `None` when left out).
#[derive(Clone, Debug, Default)]
pub(crate) struct Keys {
    /// `workload.traffic`: the pattern's name.
    pub(crate) traffic: Option<String>,
    /// `workload.load`: the offered load, a fraction of each NIC's injection bandwidth.
    pub(crate) load: Option<f64>,
    /// `workload.process`: the injection process.
    pub(crate) process: Option<String>,
    /// `workload.burst`: messages per burst, on average (`process = "burst"`).
    pub(crate) burst: Option<f64>,
    /// `workload.cycle`: a Bernoulli process's cycle.
    pub(crate) cycle: Option<Time>,
    /// `workload.size`: a message's payload, or a table of payloads and their weights.
    pub(crate) size: Option<toml::Value>,
    /// `workload.to_self`: whether a rank may send to itself.
    pub(crate) to_self: Option<bool>,
    /// `workload.hotspot`: the hot-spot ranks.
    pub(crate) hotspot: Option<Vec<i64>>,
    /// `workload.hotspot_fraction`: the share of messages sent to them.
    pub(crate) hotspot_fraction: Option<f64>,
    /// `workload.matrix`: the traffic matrix's file.
    pub(crate) matrix: Option<PathBuf>,
    /// `workload.shift`: how far `shift` sends.
    pub(crate) shift: Option<i64>,
    /// `workload.grid`: the ranks as a grid (tornado, neighbour).
    pub(crate) grid: Option<Vec<i64>>,
    /// `workload.warmup`: time before the measurement window.
    pub(crate) warmup: Option<Time>,
    /// `workload.measure`: the measurement window's length.
    pub(crate) measure: Option<Time>,
    /// `workload.drain`: time sources go on after the window.
    pub(crate) drain: Option<Time>,
}

/// What a job's keys are read against.
pub(crate) struct Context<'a> {
    /// The job's ranks.
    pub(crate) ranks: u64,
    /// `workload.seed` (a random permutation's).
    pub(crate) seed: u64,
    /// `network.mtu`.
    pub(crate) mtu: Bytes,
    /// `network.header_bytes`.
    pub(crate) header: Bytes,
    /// The rate a NIC injects at: its link's (`network.nic_link_bandwidth`), at most
    /// `node.nic_bandwidth`.
    pub(crate) nic_rate: Bandwidth,
    /// The network's nodes as a grid, first dimension fastest, when it has one (a mesh's or
    /// torus's routers with a node each; a HyperX's, its nodes per router first).
    pub(crate) grid: Option<Vec<u32>>,
    /// The scenario's folder, and whether files anywhere may be read (`--allow-io`).
    pub(crate) base: &'a Path,
    /// `--allow-io`.
    pub(crate) allow_io: bool,
}

/// A problem: the key (after `workload.`) and what is wrong.
pub(crate) type Problem = (String, String);

/// Default warm-up, measurement window (the drain's default is the window's length).
pub(crate) const WARMUP: Time = Time::from_us(10);
/// See [`WARMUP`].
pub(crate) const MEASURE: Time = Time::from_us(50);

/// Most entries a traffic matrix may hold.
pub(crate) const MAX_MATRIX_ENTRIES: usize = 1 << 24;

impl Keys {
    /// The keys given besides `traffic` (an error without it).
    pub(crate) fn others_given(&self) -> Vec<&'static str> {
        let given = [
            ("load", self.load.is_some()),
            ("process", self.process.is_some()),
            ("burst", self.burst.is_some()),
            ("cycle", self.cycle.is_some()),
            ("size", self.size.is_some()),
            ("to_self", self.to_self.is_some()),
            ("hotspot", self.hotspot.is_some()),
            ("hotspot_fraction", self.hotspot_fraction.is_some()),
            ("matrix", self.matrix.is_some()),
            ("shift", self.shift.is_some()),
            ("grid", self.grid.is_some()),
            ("warmup", self.warmup.is_some()),
            ("measure", self.measure.is_some()),
            ("drain", self.drain.is_some()),
        ];
        given.iter().filter(|g| g.1).map(|g| g.0).collect()
    }
}

/// Reads the keys into a [`Spec`], or every problem found.
pub(crate) fn read(k: &Keys, c: &Context) -> Result<Spec, Vec<Problem>> {
    let mut p: Vec<Problem> = Vec::new();
    let mut bad = |key: &str, msg: String| p.push((key.to_string(), msg));
    let Some(name) = &k.traffic else {
        for key in k.others_given() {
            bad(
                key,
                "is a key of synthetic traffic: give `traffic` too (\"uniform\", \"transpose\", \
                 ...; see docs/keys.md)"
                    .into(),
            );
        }
        return Err(p);
    };
    let n = c.ranks.min(u32::MAX as u64) as u32;
    let to_self = k.to_self.unwrap_or(false);
    let name = match name.as_str() {
        "randperm" => "permutation",
        "neighbour" => "neighbor",
        "bit_complement" => "bitcomp",
        "bit_reverse" => "bitrev",
        other => other,
    };
    let load = match k.load {
        None => {
            bad(
                "load",
                "missing: the offered load, a fraction of each node's injection bandwidth \
                 (0.3 = 30 %), above 0 and at most 1"
                    .into(),
            );
            0.0
        }
        Some(l) if !(l > 0.0 && l <= 1.0) => {
            bad(
                "load",
                format!("{l} is out of range: a fraction of each node's injection bandwidth, above 0 and at most 1"),
            );
            0.0
        }
        Some(l) => l,
    };
    let pattern = pattern_of(name, k, c, n, to_self, &mut bad);
    for (key, wants) in [
        ("hotspot", "hotspot"),
        ("hotspot_fraction", "hotspot"),
        ("matrix", "matrix"),
        ("shift", "shift"),
        ("grid", "tornado"),
    ] {
        let given = match key {
            "hotspot" => k.hotspot.is_some(),
            "hotspot_fraction" => k.hotspot_fraction.is_some(),
            "matrix" => k.matrix.is_some(),
            "shift" => k.shift.is_some(),
            _ => k.grid.is_some(),
        };
        let fits = name == wants || (key == "grid" && name == "neighbor");
        if given && !fits && NAMES.contains(&name) {
            let to = if key == "grid" {
                "tornado or neighbor".to_string()
            } else {
                wants.to_string()
            };
            bad(key, format!("is for traffic = \"{to}\", not \"{name}\""));
        }
    }
    let mtu = c.mtu.0.max(1);
    let header = c.header.0;
    let sizes = sizes_of(k.size.as_ref(), mtu, &mut bad);
    let nic_rate = c.nic_rate;
    let window = |key: &str, v: Option<Time>, default: Time, bad: &mut dyn FnMut(&str, String)| {
        let t = v.unwrap_or(default);
        if t > Time::from_secs_f64(3600.0).expect("an hour") {
            bad(key, format!("{t} is longer than an hour of simulated time"));
        }
        t
    };
    let warmup = window("warmup", k.warmup, WARMUP, &mut bad);
    let measure = window("measure", k.measure, MEASURE, &mut bad);
    let drain = window("drain", k.drain, measure, &mut bad);
    if measure == Time::ZERO {
        bad(
            "measure",
            "must be longer than 0 s: the window the figures are measured over".into(),
        );
    }
    let mut spec = Spec {
        name: name.to_string(),
        pattern: pattern.unwrap_or(Pattern::Uniform),
        to_self,
        load,
        process: Process::Exponential,
        sizes: sizes.unwrap_or(Sizes {
            entries: vec![(mtu, 1.0)],
        }),
        warmup,
        measure,
        drain,
        mtu,
        header,
        nic_rate,
    };
    spec.process = process_of(k, &spec, &mut bad);
    if p.is_empty() {
        Ok(spec)
    } else {
        Err(p)
    }
}

/// The injection process (`process`, `burst`, `cycle`).
fn process_of(k: &Keys, spec: &Spec, bad: &mut dyn FnMut(&str, String)) -> Process {
    let name = k.process.as_deref().unwrap_or("bernoulli");
    let process = match name {
        "bernoulli" => {
            // (a cycle holds at most one message: the smallest's time on the link by default)
            let cycle = k
                .cycle
                .map_or_else(|| spec.wire_time(spec.min_wire()), |c| c.ps());
            if cycle == 0 {
                bad("cycle", "must be longer than 0 ps".into());
            }
            let p = Spec {
                process: Process::Bernoulli { cycle },
                ..spec.clone()
            }
            .per_cycle()
            .unwrap_or(0.0);
            if p > 1.0 + 1e-9 && spec.load > 0.0 {
                bad(
                    "cycle",
                    format!(
                        "{} holds more than one message at load {}: a Bernoulli process makes \
                         at most one per cycle (it would take p = {p:.3}); give a cycle of at \
                         most {} (or leave it out: the smallest message's time on the link)",
                        Time(cycle),
                        spec.load,
                        Time((cycle as f64 / p).floor() as u64)
                    ),
                );
            }
            Process::Bernoulli {
                cycle: cycle.max(1),
            }
        }
        "exponential" | "poisson" => Process::Exponential,
        "burst" | "on_off" => match k.burst {
            None => Process::Burst { mean: 8.0 },
            Some(b) if b >= 1.0 && b.is_finite() => Process::Burst { mean: b },
            Some(b) => {
                bad(
                    "burst",
                    format!("{b}: the mean number of messages a burst holds, at least 1"),
                );
                Process::Burst { mean: 1.0 }
            }
        },
        "periodic" | "constant" => Process::Periodic,
        other => {
            let names = ["bernoulli", "exponential", "burst", "periodic"];
            let hint = crate::words::closest(other, names)
                .map(|c| format!("; did you mean {c}?"))
                .unwrap_or_default();
            bad(
                "process",
                format!(
                    "`{}` is not an injection process: {}{hint}",
                    crate::words::shown(other),
                    crate::words::either(&names)
                ),
            );
            Process::Exponential
        }
    };
    if k.burst.is_some() && !matches!(process, Process::Burst { .. }) {
        bad(
            "burst",
            format!("is for process = \"burst\", not \"{name}\""),
        );
    }
    if k.cycle.is_some() && !matches!(process, Process::Bernoulli { .. }) {
        bad(
            "cycle",
            format!("is for process = \"bernoulli\", not \"{name}\""),
        );
    }
    process
}

/// Message sizes: a size (`64`, `"2 KiB"`), or a table of sizes and their weights
/// (`{ "64 B" = 3, "1 KiB" = 1 }`); one full packet when left out.
fn sizes_of(v: Option<&toml::Value>, mtu: u64, bad: &mut dyn FnMut(&str, String)) -> Option<Sizes> {
    let one = |v: &toml::Value| -> Result<u64, String> {
        match v {
            toml::Value::Integer(n) if *n >= 0 => Ok(*n as u64),
            toml::Value::String(s) => Bytes::parse(s).map(|b| b.0).map_err(|e| e.to_string()),
            other => Err(format!(
                "{other} is not a size: give bytes (`496`, `\"2 KiB\"`) or a table of sizes \
                 and their weights (`{{ \"48 B\" = 3, \"496 B\" = 1 }}`)"
            )),
        }
    };
    let v = v?;
    let out = match v {
        toml::Value::Table(t) => {
            let mut entries = Vec::new();
            let mut total = 0.0;
            for (size, w) in t {
                let w = match w {
                    toml::Value::Integer(i) => *i as f64,
                    toml::Value::Float(f) => *f,
                    _ => -1.0,
                };
                match Bytes::parse(size) {
                    Ok(b) if w > 0.0 && w.is_finite() => {
                        total += w;
                        entries.push((b.0, w));
                    }
                    Ok(_) => {
                        bad(
                            "size",
                            format!(
                                "the weight of `{}` must be a number above 0",
                                crate::words::shown(size)
                            ),
                        );
                        return None;
                    }
                    Err(e) => {
                        bad("size", format!("`{}`: {e}", crate::words::shown(size)));
                        return None;
                    }
                }
            }
            if entries.is_empty() {
                bad("size", "an empty table of sizes".into());
                return None;
            }
            entries.sort_by_key(|e| e.0);
            let mut c = 0.0;
            Sizes {
                entries: entries
                    .into_iter()
                    .map(|(b, w)| {
                        c += w / total;
                        (b, c)
                    })
                    .collect(),
            }
        }
        v => match one(v) {
            Ok(b) => Sizes {
                entries: vec![(b, 1.0)],
            },
            Err(e) => {
                bad("size", e);
                return None;
            }
        },
    };
    // (one message is at most a million packets: its packets are made one at a time, but
    // its bytes are counted whole)
    if let Some(&(b, _)) = out.entries.iter().find(|e| e.0 / mtu > 1 << 20) {
        bad(
            "size",
            format!(
                "{} is more than a million packets of {}",
                Bytes(b),
                Bytes(mtu)
            ),
        );
        return None;
    }
    Some(out)
}

/// The pattern named `name` over `n` ranks, with its own keys.
fn pattern_of(
    name: &str,
    k: &Keys,
    c: &Context,
    n: u32,
    to_self: bool,
    bad: &mut dyn FnMut(&str, String),
) -> Option<Pattern> {
    let power_of_two = |what: &str, bad: &mut dyn FnMut(&str, String)| -> Option<u32> {
        if n.is_power_of_two() {
            Some(n.trailing_zeros())
        } else {
            bad(
                "traffic",
                format!(
                    "`{what}` permutes the bits of the rank: it needs a power-of-two count of \
                     ranks, and the job has {n} (workload.ranks)"
                ),
            );
            None
        }
    };
    Some(match name {
        "uniform" => Pattern::Uniform,
        "permutation" => Pattern::Permutation(pattern::permutation(n, c.seed)),
        "bitcomp" => Pattern::BitComplement,
        "bitrev" => Pattern::BitReverse(power_of_two(name, bad)?),
        "shuffle" => Pattern::Shuffle(power_of_two(name, bad)?),
        "transpose" => {
            let m = (n as f64).sqrt().round() as u32;
            if m * m != n {
                bad(
                    "traffic",
                    format!(
                        "`transpose` swaps the two coordinates of a square of ranks: it needs \
                         a square count of ranks (64 = 8 x 8), and the job has {n} \
                         (workload.ranks)"
                    ),
                );
                return None;
            }
            Pattern::Transpose(m)
        }
        "tornado" | "neighbor" => {
            let grid = grid_of(k, c, n, bad)?;
            if name == "tornado" {
                Pattern::Tornado(grid)
            } else {
                Pattern::Neighbor(grid)
            }
        }
        "shift" => {
            let by = k.shift.unwrap_or(1).rem_euclid(n.max(1) as i64) as u32;
            Pattern::Shift(by)
        }
        "hotspot" => {
            let Some(hot) = &k.hotspot else {
                bad(
                    "hotspot",
                    "missing: the ranks traffic = \"hotspot\" sends to (`hotspot = [0]`)".into(),
                );
                return None;
            };
            let mut nodes = Vec::new();
            for &h in hot {
                if h < 0 || h >= n as i64 {
                    bad(
                        "hotspot",
                        format!(
                            "rank {h} is not one of the job's {n} ranks (0 to {})",
                            n - 1
                        ),
                    );
                    return None;
                }
                nodes.push(h as u32);
            }
            nodes.sort();
            nodes.dedup();
            if nodes.is_empty() {
                bad("hotspot", "an empty list: name at least one rank".into());
                return None;
            }
            let f = k.hotspot_fraction.unwrap_or(1.0);
            if !(f > 0.0 && f <= 1.0) {
                bad(
                    "hotspot_fraction",
                    format!(
                        "{f}: the share of messages sent to the hot spots, above 0 and at most 1"
                    ),
                );
                return None;
            }
            Pattern::Hotspot(nodes.into(), f)
        }
        "matrix" => {
            let Some(file) = &k.matrix else {
                bad(
                    "matrix",
                    "missing: the file of the traffic matrix (lines `SOURCE DESTINATION \
                     WEIGHT`) beside the scenario"
                        .into(),
                );
                return None;
            };
            match read_matrix(file, c, n) {
                Ok(entries) => Pattern::Matrix(Arc::new(Matrix::new(n, &entries, to_self))),
                Err(e) => {
                    bad("matrix", e);
                    return None;
                }
            }
        }
        other => {
            let hint = crate::words::closest(other, NAMES)
                .map(|c| format!("; did you mean {c}?"))
                .unwrap_or_default();
            bad(
                "traffic",
                format!(
                    "`{}` is not a traffic pattern: {}{hint}",
                    crate::words::shown(other),
                    crate::words::either(&NAMES)
                ),
            );
            return None;
        }
    })
}

/// The grid of `tornado` and `neighbor`: `workload.grid`, else the network's (a mesh's or
/// torus's dims; a HyperX's, after its nodes per router), else one dimension of all ranks.
fn grid_of(k: &Keys, c: &Context, n: u32, bad: &mut dyn FnMut(&str, String)) -> Option<Vec<u32>> {
    if let Some(g) = &k.grid {
        let product = g.iter().try_fold(1i64, |a, &x| a.checked_mul(x));
        if g.is_empty() || g.iter().any(|&x| x < 1) || product != Some(n as i64) {
            bad(
                "grid",
                format!(
                    "{g:?} does not hold the job's {n} ranks: give sizes of at least 1 whose \
                     product is {n}"
                ),
            );
            return None;
        }
        return Some(g.iter().map(|&x| x as u32).collect());
    }
    let own = c.grid.as_ref().and_then(|dims| {
        let mut dims = dims.clone();
        let ranks_per_node = (n as u64 / dims.iter().map(|&d| d as u64).product::<u64>()) as u32;
        if ranks_per_node > 1 {
            dims.insert(0, ranks_per_node);
        }
        (dims.iter().map(|&d| d as u64).product::<u64>() == n as u64).then_some(dims)
    });
    Some(own.unwrap_or_else(|| vec![n]))
}

/// The entries of a traffic matrix file: a `SOURCE DESTINATION WEIGHT` line per entry (ranks
/// of the job, a weight above 0), `#` starting a comment; an entry given twice adds up.
fn read_matrix(file: &Path, c: &Context, n: u32) -> Result<Vec<(u32, u32, f64)>, String> {
    let (path, text) =
        crate::files::read_referenced(c.base, file, c.allow_io, crate::files::MAX_SOURCE)?;
    let shown = path.display();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let at = |what: String| format!("{shown}:{}: {what}", i + 1);
        if words.len() != 3 {
            return Err(at(format!(
                "{} words where an entry is `SOURCE DESTINATION WEIGHT`",
                words.len()
            )));
        }
        let rank = |w: &str| -> Result<u32, String> {
            match w.parse::<u64>() {
                Ok(r) if r < n as u64 => Ok(r as u32),
                _ => Err(at(format!(
                    "`{}` is not a rank of the job (0 to {})",
                    crate::words::shown(w),
                    n.saturating_sub(1)
                ))),
            }
        };
        let (s, d) = (rank(words[0])?, rank(words[1])?);
        let w = match words[2].parse::<f64>() {
            Ok(w) if w > 0.0 && w.is_finite() => w,
            _ => {
                return Err(at(format!(
                    "`{}` is not a weight above 0",
                    crate::words::shown(words[2])
                )))
            }
        };
        if out.len() >= MAX_MATRIX_ENTRIES {
            return Err(at(format!("more than {MAX_MATRIX_ENTRIES} entries")));
        }
        out.push((s, d, w));
    }
    if out.is_empty() {
        return Err(format!(
            "{shown} has no entry (`SOURCE DESTINATION WEIGHT` lines)"
        ));
    }
    Ok(out)
}
