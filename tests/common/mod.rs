#![allow(dead_code)]
//! Helpers shared by the integration tests: run a scenario given as text.

use mgensim::units::Time;
use mgensim::{Report, Scenario, Simulation};
use std::path::{Path, PathBuf};

pub fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scenario from TOML text, with paths relative to the project's `scenarios/` folder.
pub fn scenario(toml: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_str_with(toml, &project().join("scenarios/test.toml"), &sets, false)
        .expect("valid scenario")
}

pub fn run(toml: &str) -> Report {
    run_with(toml, &[])
}

pub fn run_with(toml: &str, sets: &[&str]) -> Report {
    let s = scenario(toml, sets);
    Simulation::new(&s)
        .expect("builds")
        .run()
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// Runs a scenario given as text that must fail; returns the error message.
pub fn run_err(toml: &str) -> String {
    fail(&scenario(toml, &[]))
}

/// Runs a scenario that must fail; returns the error message.
pub fn fail(s: &Scenario) -> String {
    match Simulation::new(s).expect("builds").run() {
        Ok(_) => panic!("the run was expected to fail"),
        Err(e) => e.to_string(),
    }
}

/// Runs the scenario file at `path` (anywhere, e.g. in a temporary folder).
pub fn run_path(path: &Path) -> Report {
    let s = Scenario::load(path, &[], false).expect("valid scenario");
    Simulation::new(&s)
        .expect("builds")
        .run()
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

pub fn run_file(path: &str, sets: &[&str]) -> Report {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = Scenario::load(&project().join(path), &sets, false).expect("valid scenario");
    Simulation::new(&s)
        .expect("builds")
        .run()
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// The parameters a hand calculation needs, in picoseconds.
pub struct Params {
    /// Router pipeline: routing + VC allocation + switch allocation + switch latency.
    pub router: u64,
    pub cable: u64,
    pub link: u64,
    pub dma: u64,
    pub header: u64,
    pub node_latency: u64,
}

impl Params {
    /// NSIM-ACE Table 1, the defaults.
    pub fn nsim_ace() -> Params {
        Params {
            router: 3 * 4_000 + 128_000,
            cable: 600,
            link: 4_000_000_000,
            dma: 2_800_000_000,
            header: 16,
            node_latency: 0,
        }
    }
    pub fn ser(&self, wire: u64) -> u64 {
        transfer_ps(self.link, wire)
    }
    pub fn dma(&self, payload: u64) -> u64 {
        transfer_ps(self.dma, payload)
    }
    /// One packet crossing `routers` routers with no contention, from the moment its payload
    /// is in the sending NIC until its tail is in the receiving NIC: the injection link's
    /// serialization, a cable per link (routers + 1 links) and a pipeline per router.
    pub fn fly(&self, wire: u64, routers: u64) -> u64 {
        self.ser(wire) + (routers + 1) * self.cable + routers * self.router
    }
}

pub fn ps(t: Time) -> u64 {
    t.ps()
}

pub fn tmp_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs the `mgensim` binary in `dir`, as a user would.
pub fn mgensim_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mgensim"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("mgensim runs")
}

pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Fails with every failed case of a table listed (`failures`: one message per failed case).
pub fn assert_no_failures(failures: &[String], cases: usize) {
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A dissemination barrier whose last rank skips its final put: rank (p-1+p/2) mod p waits
/// forever for it.
pub const BROKEN_BARRIER: &str = "[network]\ntopology = 'torus'\ndims = [4, 4]\n\
[workload]\nranks = 16\ncode = '''
local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
MGEN_region_begin('barrier')
local d, round = 1, 0
while d < size do
  if not (d * 2 >= size and rank == size - 1) then
    MGEN_rdma_put((rank + d) % size, 8, round)
  end
  MGEN_rdma_poll(round)
  d, round = d * 2, round + 1
end
MGEN_region_end()
'''\n";

/// The records of an RFC 4180 CSV text (quoted fields may hold commas, quotes doubled and
/// line breaks), written here apart from mgensim's own writer.
#[allow(dead_code)]
pub fn csv_records(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            _ => field.push(c),
        }
    }
    records
}

/// The report as JSON without its `host` line (the only part that depends on the machine and
/// the threads): what two runs of the same model must agree on, byte for byte.
pub fn deterministic_json(r: &Report) -> String {
    let mut v = serde_json::to_value(r).expect("a report serializes");
    v.as_object_mut().expect("an object").remove("host");
    serde_json::to_string_pretty(&v).expect("a value serializes")
}

/// The run's span (ps): the later of the last rank's end and the last event.
pub fn span_ps(r: &Report) -> u64 {
    r.predicted_time_ps.max(r.network.quiet_ps)
}

/// The time `bytes` take at `rate` (B/s), in picoseconds rounded up (none at an unlimited
/// rate).
pub fn transfer_ps(rate: u64, bytes: u64) -> u64 {
    if rate == u64::MAX || bytes == 0 {
        return 0;
    }
    (bytes as u128 * 1_000_000_000_000u128).div_ceil(rate as u128) as u64
}

/// Every rank puts `bytes` to the ranks `offsets` ahead, sends as much to the one `offsets[0]`
/// ahead (and receives from the one as far behind), polls for its puts and completes.
pub fn puts_and_sends(net: &str, offsets: &[u32], bytes: u32) -> String {
    format!(
        "[network]\n{net}\n[workload]\ncode = '''\n\
         local me, p = MGEN_Comm_rank(), MGEN_Comm_size()\nlocal hs = {{}}\n\
         for i, k in ipairs({{{}}}) do hs[i] = MGEN_rdma_put((me + k) % p, {bytes}, 1) end\n\
         local k = {}\n\
         local rs = {{MGEN_Isend((me + k) % p, {bytes}, 7), MGEN_Irecv((me - k) % p, {bytes}, 7)}}\n\
         for _ = 1, #hs do MGEN_rdma_poll(1) end\n\
         for _, h in ipairs(hs) do MGEN_acp_complete(h) end\n\
         MGEN_Waitall(rs)\n'''\n",
        offsets.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
        offsets[0],
    )
}

/// Makes a FIFO at `p` (in a test's own temporary folder).
pub fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid path; mkfifo only reads it
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "mkfifo {}",
        p.display()
    );
}

/// The probes `r` asks for, as `mgensim run`'s options would.
pub fn probes(r: mgensim::run::Records) -> mgensim::Probes {
    r.probes().expect("valid options")
}

/// The scenario of `toml` with `sets`, run with the probes `p`, to its end.
pub fn run_probed(toml: &str, sets: &[&str], p: &mgensim::Probes) -> Report {
    let s = scenario(toml, sets);
    let mut sim = Simulation::new(&s).expect("builds");
    sim.probe(p).expect("probes");
    sim.run().unwrap_or_else(|e| panic!("run failed: {e}"))
}
