//! Output files are written whole or not at all, and never destroy what a path is.
//!
//! - A regular file (or a path that does not exist yet) gets its content through a temporary
//!   file beside it, renamed over it: a run stopped half way, or a full disk, leaves the old
//!   file or none, never half a file, and no temporary file is left (also when a second
//!   Ctrl-C ends the process while one is open: [`remove_temporaries`]).
//! - A FIFO, a device or a socket is written into as it is (`-o /dev/stdout`, a named pipe):
//!   it is never replaced by a regular file. A symbolic link is followed: its target is
//!   written, and the link stays. A folder is refused.
//! - An output folder (`--out DIR`) is one set: after a run, DIR holds the old complete set or
//!   the new complete set, never a mix. The new set is written into a staging folder first,
//!   then put in place at once: by exchanging the two folders (Linux's `renameat2`) when DIR
//!   holds nothing but mgensim's outputs, else file by file, in a step no signal interrupts,
//!   with the stale files of the old set removed. A signal while the set is staged abandons it
//!   and leaves DIR as it was.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Every file mgensim writes into an output folder (what a new set replaces), each with what
/// it holds in a line (`mgensim run --help` lists them from here; the README gives their
/// columns).
pub const FOLDER: [(&str, &str); 15] = [
    ("summary.json", "the summary, as --json prints it"),
    (
        "latency_histogram.csv",
        "synthetic traffic: packets by latency, bucket by bucket",
    ),
    (
        "links.csv",
        "one line per link direction: bytes, packets, busy time, backpressure",
    ),
    (
        "routers.csv",
        "one line per router: traffic out, busy and blocked time, buffers",
    ),
    (
        "ranks.csv",
        "one line per rank: finish time, where its time went, bytes and messages",
    ),
    (
        "nodes.csv",
        "one line per node: DMA and NIC links busy and their utilization",
    ),
    (
        "profile.csv",
        "time per API call and region (--profile; unasked up to 65,536 ranks)",
    ),
    (
        "links_timeseries.csv",
        "each link window by window (--interval)",
    ),
    (
        "links_power.csv",
        "energy and low-power time per link direction (with [power])",
    ),
    (
        "power_timeseries.csv",
        "power of all ports window by window ([power] and --interval)",
    ),
    (
        "buffer_history.csv",
        "every packet through a watched router's buffers (--buffer-history)",
    ),
    (
        "trace.json",
        "the timeline of the ranks, for ui.perfetto.dev (--plots)",
    ),
    ("heatmap.svg", "link utilization over time (--plots)"),
    ("timeline.svg", "what each rank did over time (--plots)"),
    (
        "report.html",
        "one page with all of it: summary, timeline, the network's load",
    ),
];

/// The names of [`FOLDER`]'s files.
pub const FOLDER_FILES: [&str; 15] = {
    let mut names = [""; 15];
    let mut i = 0;
    while i < FOLDER.len() {
        names[i] = FOLDER[i].0;
        i += 1;
    }
    names
};

/// Temporary files and staging folders being written now (removed by [`remove_temporaries`]).
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Outputs are being written (a signal then asks them to stop instead of ending the process).
static WRITING: AtomicBool = AtomicBool::new(false);
/// A set is being put in place: nothing may end the process until it is.
static COMMITTING: AtomicBool = AtomicBool::new(false);
/// A signal asked the writing to stop: what is staged is abandoned.
static ABORT: AtomicBool = AtomicBool::new(false);

/// Writing was abandoned because a signal asked it to stop.
#[derive(Debug, thiserror::Error)]
#[error("interrupted while writing the outputs: nothing was replaced")]
pub(crate) struct Interrupted;

fn interrupted() -> std::io::Error {
    std::io::Error::other(Interrupted)
}

/// Whether a signal asked the writing to stop.
pub fn abort_requested() -> bool {
    ABORT.load(Ordering::SeqCst)
}

/// What a signal handler does while outputs are written: `Stay` (asked the writing to stop;
/// it will, promptly, and the process then ends) or `Exit` (nothing is being put in place:
/// temporary files are removed and the process may end now).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum OnSignal {
    /// The writing was asked to stop and will, promptly.
    Stay,
    /// The process may end now.
    Exit,
}

/// Called by a signal handler: whether the process may end now, on the signal after the
/// first if `second` ([`on_signal`]'s rule; the writing, if any, was asked to stop).
pub fn may_end_on_signal(second: bool) -> bool {
    on_signal() == OnSignal::Exit && (second || abort_requested())
}

/// Called by a signal handler. While outputs are written the first signal asks them to stop
/// and the second ends the process (after removing what was staged) unless a set is being
/// put in place, which always finishes first.
pub(crate) fn on_signal() -> OnSignal {
    if !WRITING.load(Ordering::SeqCst) {
        return OnSignal::Exit;
    }
    if COMMITTING.load(Ordering::SeqCst) || !ABORT.swap(true, Ordering::SeqCst) {
        return OnSignal::Stay;
    }
    remove_temporaries();
    OnSignal::Exit
}

/// Marks the outputs being written (signals no longer end the process at once); the writing
/// ends when the guard is dropped.
pub fn writing() -> WritingGuard {
    ABORT.store(false, Ordering::SeqCst);
    WRITING.store(true, Ordering::SeqCst);
    WritingGuard
}

/// See [`writing`].
pub struct WritingGuard;

impl Drop for WritingGuard {
    fn drop(&mut self) {
        WRITING.store(false, Ordering::SeqCst);
    }
}

/// Removes the temporary files and staging folders being written (before the process ends).
pub fn remove_temporaries() {
    if let Ok(p) = PENDING.try_lock() {
        for path in p.iter() {
            let _ = std::fs::remove_file(path).or_else(|_| std::fs::remove_dir_all(path));
        }
    }
}

fn pending(path: &Path) {
    if let Ok(mut p) = PENDING.lock() {
        p.push(path.to_path_buf());
    }
}

fn done(path: &Path) {
    if let Ok(mut p) = PENDING.lock() {
        p.retain(|x| x != path);
    }
}

/// Writes `bytes` to `path`, whole or not at all (see the module's doc for what each kind of
/// path gets).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_file(path, bytes, 0)
}

fn write_file(path: &Path, bytes: &[u8], depth: u32) -> std::io::Result<()> {
    if abort_requested() {
        return Err(interrupted());
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            if depth > 8 {
                return Err(std::io::Error::other(format!(
                    "{}: too many symbolic links",
                    path.display()
                )));
            }
            let link = std::fs::read_link(path)?;
            let target = path.parent().unwrap_or(Path::new(".")).join(link);
            write_file(&target, bytes, depth + 1)
        }
        Ok(m) if m.is_dir() => Err(std::io::Error::other(format!(
            "{} is a folder",
            path.display()
        ))),
        Ok(m) if !m.is_file() => {
            // a FIFO, a device, a socket: written into as it is
            let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
            f.write_all(bytes)?;
            f.flush()
        }
        _ => {
            let tmp = temporary_beside(path);
            pending(&tmp);
            let result = std::fs::File::create(&tmp)
                .and_then(|mut f| f.write_all(bytes).and_then(|_| f.sync_all()))
                .and_then(|_| {
                    if abort_requested() {
                        Err(interrupted())
                    } else {
                        std::fs::rename(&tmp, path)
                    }
                });
            if result.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            done(&tmp);
            result
        }
    }
}

/// `dir/.name.<pid>.tmp` for `dir/name`.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes the set of `report` (and `trace`, as `trace.json`) into `dir`; `more` adds files to
/// the staging folder before the set is put in place (the pictures, drawn from the staged
/// files). Whole or not at all, never a mix with an older set.
pub(crate) fn write_set(
    dir: &Path,
    report: &crate::Report,
    trace: Option<&str>,
    more: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if !(m.is_dir() || m.file_type().is_symlink() && dir.is_dir()) => {
            return Err(std::io::Error::other(format!(
                "{} exists and is not a folder",
                dir.display()
            )))
        }
        _ => {}
    }
    // an output's name taken by a link, a pipe or a device: refused (a set's files are
    // replaced, and nothing but a regular file is ever renamed over)
    for name in FOLDER_FILES {
        if let Ok(m) = std::fs::symlink_metadata(dir.join(name)) {
            if !m.is_file() {
                return Err(std::io::Error::other(format!(
                    "{} is not a regular file: the files of an output folder are replaced as \
                     a set, and mgensim replaces only regular files (remove it, or choose \
                     another folder)",
                    dir.join(name).display()
                )));
            }
        }
    }
    // a folder that holds only mgensim's outputs is exchanged whole; another is written into
    let listing = std::fs::read_dir(dir).and_then(|entries| {
        entries
            .map(|e| {
                let e = e?;
                let file = e.file_type()?.is_file();
                Ok((e.file_name().to_string_lossy().into_owned(), file))
            })
            .collect()
    });
    let ours = holds_only_outputs(listing)
        && !std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let stage = if ours {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent)?;
        parent.join(format!(".{name}.mgensim-new-{}", std::process::id()))
    } else {
        dir.join(format!(".mgensim-new-{}", std::process::id()))
    };
    let _ = std::fs::remove_dir_all(&stage);
    std::fs::create_dir_all(&stage)?;
    pending(&stage);
    let staged = stage_files(&stage, report, trace).and_then(|()| more(&stage));
    let result = staged.and_then(|()| {
        if abort_requested() {
            return Err(interrupted());
        }
        COMMITTING.store(true, Ordering::SeqCst);
        let r = if ours {
            put_folder_in_place(&stage, dir)
        } else {
            put_files_in_place(&stage, dir)
        };
        COMMITTING.store(false, Ordering::SeqCst);
        r
    });
    let _ = std::fs::remove_dir_all(&stage);
    done(&stage);
    result
}

/// Whether a folder whose listing is `listing` (each entry's name, and whether it is a regular
/// file) holds nothing but mgensim's outputs, so that it may be exchanged whole: a folder that
/// does not exist yet does; one that cannot be listed (or an entry read) never does, since
/// what it holds is not known.
fn holds_only_outputs(listing: std::io::Result<Vec<(String, bool)>>) -> bool {
    match listing {
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        Ok(entries) => entries
            .iter()
            .all(|(name, file)| *file && FOLDER_FILES.contains(&name.as_str())),
    }
}

/// Writes the set's files into the staging folder.
fn stage_files(stage: &Path, report: &crate::Report, trace: Option<&str>) -> std::io::Result<()> {
    let write = |name: &str, text: Option<String>| -> std::io::Result<()> {
        if abort_requested() {
            return Err(interrupted());
        }
        match text {
            Some(t) => std::fs::write(stage.join(name), t),
            None => Ok(()),
        }
    };
    write("links.csv", Some(links_csv(report)))?;
    write("routers.csv", Some(routers_csv(report)))?;
    write("ranks.csv", Some(ranks_csv(report)))?;
    write("nodes.csv", Some(nodes_csv(report)))?;
    write("profile.csv", profile_csv(report))?;
    write("links_timeseries.csv", timeseries_csv(report))?;
    write("links_power.csv", links_power_csv(report))?;
    write("power_timeseries.csv", power_timeseries_csv(report))?;
    write("buffer_history.csv", buffer_history_csv(report))?;
    write(
        "latency_histogram.csv",
        report
            .traffic
            .as_deref()
            .map(crate::openloop::histogram_csv),
    )?;
    write("trace.json", trace.map(str::to_string))?;
    write("report.html", Some(crate::report::html_page(report)))?;
    let json = serde_json::to_string_pretty(report).map_err(std::io::Error::other)? + "\n";
    write("summary.json", Some(json))
}

/// Puts a staged folder in place of `dir` (which holds only mgensim's outputs, or does not
/// exist) in one step.
fn put_folder_in_place(stage: &Path, dir: &Path) -> std::io::Result<()> {
    if !dir.exists() {
        return std::fs::rename(stage, dir);
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let a =
            std::ffi::CString::new(stage.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
        let b =
            std::ffi::CString::new(dir.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
        // SAFETY: two valid NUL-terminated paths; renameat2 only reads them
        let r = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if r == 0 {
            // the old set is now at the staging path, removed by the caller
            return Ok(());
        }
    }
    put_files_in_place(stage, dir)
}

/// Puts the staged files into `dir` one by one and removes the old set's files the new one
/// does not have; `summary.json` (the set's index) goes first out and last in.
fn put_files_in_place(stage: &Path, dir: &Path) -> std::io::Result<()> {
    let summary = dir.join("summary.json");
    if std::fs::symlink_metadata(&summary).is_ok_and(|m| m.is_file()) {
        std::fs::remove_file(&summary)?;
    }
    let mut names: Vec<&str> = FOLDER_FILES
        .iter()
        .copied()
        .filter(|n| *n != "summary.json")
        .collect();
    names.push("summary.json");
    for name in names {
        let (from, to) = (stage.join(name), dir.join(name));
        // (every target is a regular file or missing: `write_set` checked)
        if from.exists() {
            std::fs::rename(&from, &to)?;
        } else if to.exists() {
            std::fs::remove_file(&to)?;
        }
    }
    Ok(())
}

/// A link's `kind` column (`injection` NIC→router, `router`, `ejection` router→NIC) and its
/// `port` (empty for an injection link).
fn kind_and_port(l: &crate::net::router::LinkLoad) -> (&'static str, String) {
    match (l.port, l.to_nic) {
        (None, _) => ("injection", String::new()),
        (Some(q), true) => ("ejection", q.to_string()),
        (Some(q), false) => ("router", q.to_string()),
    }
}

/// `part / whole` (0 when `whole` is 0).
fn ratio(part: f64, whole: u64) -> f64 {
    if whole > 0 {
        part / whole as f64
    } else {
        0.0
    }
}

/// How a CSV table is made from a report (None: the run did not record it).
type Table = fn(&crate::Report) -> Option<String>;

/// The CSV tables of an output folder, by name (the file's name without `.csv`), each with
/// the function that makes it from a report (None: the run did not record it).
const TABLES: [(&str, Table); 9] = [
    ("links", |r| Some(links_csv(r))),
    ("ranks", |r| Some(ranks_csv(r))),
    ("routers", |r| Some(routers_csv(r))),
    ("nodes", |r| Some(nodes_csv(r))),
    ("profile", profile_csv),
    ("links_timeseries", timeseries_csv),
    ("links_power", links_power_csv),
    ("power_timeseries", power_timeseries_csv),
    ("buffer_history", buffer_history_csv),
];

/// The CSV table `name` of `report`'s output folder (`links`, `ranks`, `routers`, `nodes`,
/// `profile`, `links_timeseries`, `links_power`, `power_timeseries`, `buffer_history`: the
/// file's name without `.csv`), as `--out` writes it; `Ok(None)` when the run did not record
/// it. An unknown name is an error that lists the names.
pub fn table_csv(report: &crate::Report, name: &str) -> Result<Option<String>, String> {
    match TABLES.iter().find(|(n, _)| *n == name) {
        Some((_, make)) => Ok(make(report)),
        None => {
            let names: Vec<&str> = TABLES.iter().map(|(n, _)| *n).collect();
            Err(format!(
                "no table {name:?}: {}",
                crate::words::either(&names)
            ))
        }
    }
}

/// One line per router: what it sent out of all its ports, and what its input buffers held.
pub(crate) fn routers_csv(r: &crate::Report) -> String {
    #[derive(Default, Clone)]
    struct Acc {
        bytes: u64,
        packets: u64,
        busy: u64,
        blocked: u64,
        peak: u32,
        area: u128,
    }
    let routers = r
        .per_link
        .iter()
        .map(|l| if l.port.is_some() { l.from + 1 } else { 0 })
        .max()
        .unwrap_or(0);
    let mut acc = vec![Acc::default(); routers as usize];
    for l in &r.per_link {
        if l.port.is_some() {
            let a = &mut acc[l.from as usize];
            a.bytes += l.bytes;
            a.packets += l.packets;
            a.busy += l.busy.ps();
            a.blocked += l.credit_blocked.ps();
        }
        if !l.to_nic {
            if let Some(a) = acc.get_mut(l.to as usize) {
                a.peak = a.peak.max(l.peak_occupancy);
                a.area += l.occupancy_area;
            }
        }
    }
    let span = r.span_ps();
    let mut out = String::from(
        "router,bytes_out,packets_out,busy_ps,credit_blocked_ps,input_peak_occupancy_bytes,\
         input_mean_occupancy_bytes\n",
    );
    for (i, a) in acc.iter().enumerate() {
        out += &format!(
            "{i},{},{},{},{},{},{:.3}\n",
            a.bytes,
            a.packets,
            a.busy,
            a.blocked,
            a.peak,
            ratio(a.area as f64, span)
        );
    }
    out
}

/// One line per link and window in which the link sent something or its buffer held
/// something; `link` is the link's line in `links.csv` (0 for the first after the header).
pub(crate) fn timeseries_csv(r: &crate::Report) -> Option<String> {
    let s = r.series.as_ref().filter(|s| s.in_files)?;
    let span = r.span_ps();
    let mut out = String::from(
        "link,window_start_ps,window_ps,bytes,packets,busy_ps,utilization,mean_occupancy_bytes\n",
    );
    for (i, row) in s.rows.iter().enumerate() {
        if i & 0xffff == 0 && abort_requested() {
            break;
        }
        let start = row.window as u64 * s.width_ps;
        let len = s.width_ps.min(span.saturating_sub(start)).max(1);
        let c = &row.counts;
        out += &format!(
            "{},{start},{len},{},{},{},{:.6},{:.3}\n",
            row.link,
            c.bytes,
            c.packets,
            c.busy_ps,
            ratio(c.busy_ps as f64, len),
            ratio(c.occupancy as f64, len)
        );
    }
    Some(out)
}

/// With `[power]`: one line per link direction (in the order of `links.csv`) with its time
/// in each state, wake-ups and energy; then one line per switch, the sum of its ports.
pub(crate) fn links_power_csv(r: &crate::Report) -> Option<String> {
    let p = r.power.as_ref()?;
    let span = r.span_ps();
    let mut out =
        String::from("kind,from,port,to,active_ps,low_power_ps,wakeups,energy_j,average_power_w\n");
    let secs = span as f64 * 1e-12;
    let mut switches: Vec<(u64, u64, u64, f64, u32)> = Vec::new();
    for l in &r.per_link {
        let (kind, port) = kind_and_port(l);
        let low = l.low_power.ps().min(span);
        let e = p.link_energy_j(l, span);
        out += &format!(
            "{kind},{},{port},{},{},{low},{},{e:.9},{:.6}\n",
            l.from,
            l.to,
            span - low,
            l.wakeups,
            if secs > 0.0 { e / secs } else { 0.0 },
        );
        if l.port.is_some() {
            let i = l.from as usize;
            if switches.len() <= i {
                switches.resize(i + 1, (0, 0, 0, 0.0, 0));
            }
            let s = &mut switches[i];
            s.0 += span - low;
            s.1 += low;
            s.2 += l.wakeups;
            s.3 += e;
            s.4 += 1;
        }
    }
    for (i, s) in switches.iter().enumerate() {
        out += &format!(
            "switch,{i},{},,{},{},{},{:.9},{:.6}\n",
            s.4,
            s.0,
            s.1,
            s.2,
            s.3,
            if secs > 0.0 { s.3 / secs } else { 0.0 }
        );
    }
    Some(out)
}

/// With `[power]` and `--interval`: the network's power window by window.
pub(crate) fn power_timeseries_csv(r: &crate::Report) -> Option<String> {
    let p = r.power.as_ref()?;
    let s = r.series.as_ref().filter(|s| s.in_files)?;
    let span = r.span_ps();
    let mut low = vec![0u64; s.windows as usize];
    for row in &s.rows {
        low[row.window as usize] += row.counts.low_ps;
    }
    let ports = p.ports as f64;
    let mut out = String::from("window_start_ps,window_ps,power_w,ports_in_low_power\n");
    for (w, &lo) in low.iter().enumerate() {
        let start = w as u64 * s.width_ps;
        if start >= span {
            break;
        }
        let len = s.width_ps.min(span - start);
        let asleep = lo as f64 / len as f64;
        let power = ports * (p.p_base_per_port_w + p.p_dynamic_w) - asleep * p.p_dynamic_w;
        out += &format!("{start},{len},{power:.6},{asleep:.6}\n");
    }
    Some(out)
}

/// One line per packet through a watched router's input buffers.
pub(crate) fn buffer_history_csv(r: &crate::Report) -> Option<String> {
    let rows = r.buffer_history.as_ref()?;
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    let mut out = String::from(
        "router,in_port,vc,src_nic,dst_nic,bytes,arrive_ps,occupancy_bytes,depart_ps,out_port,freed_ps\n",
    );
    for (i, s) in rows.iter().enumerate() {
        if i & 0xffff == 0 && abort_requested() {
            break;
        }
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            s.router,
            s.in_port,
            s.vc,
            s.src,
            s.dst,
            s.bytes,
            s.arrive_ps,
            s.occupancy,
            opt(s.depart_ps),
            opt(s.out_port.map(u64::from)),
            opt(s.freed_ps)
        );
    }
    Some(out)
}

/// One line per link direction: where it goes, what it carried, how busy it was.
pub(crate) fn links_csv(r: &crate::Report) -> String {
    let span = r.span_ps();
    let mut out = String::from(
        "kind,from,port,to,bytes,packets,busy_ps,utilization,average_bandwidth_bps,credit_blocked_ps,\
         peak_occupancy_bytes,mean_occupancy_bytes\n",
    );
    for l in &r.per_link {
        let (kind, port) = kind_and_port(l);
        let (util, bw) = if span > 0 {
            (
                l.busy.ps() as f64 / span as f64,
                l.bytes as f64 * 1e12 / span as f64,
            )
        } else {
            (0.0, 0.0)
        };
        out += &format!(
            "{kind},{},{port},{},{},{},{},{util:.6},{bw:.1},{},{},{:.3}\n",
            l.from,
            l.to,
            l.bytes,
            l.packets,
            l.busy.ps(),
            l.credit_blocked.ps(),
            l.peak_occupancy,
            ratio(l.occupancy_area as f64, span)
        );
    }
    out
}

/// Draws the pictures of output folder `dir` into it (`plot::folder_pictures`); returns the
/// files written.
pub fn draw_folder(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut written = Vec::new();
    for (name, svg) in crate::plot::folder_pictures(dir)? {
        write_atomic(&dir.join(name), svg.as_bytes())?;
        written.push(name.to_string());
    }
    Ok(written)
}

/// One line per API call and region of the profile (`--profile`), the largest total time
/// first: its ranks, count, total and per-rank least, mean and most time (ps), and its share
/// of the ranks' time; None without a profile.
pub(crate) fn profile_csv(r: &crate::Report) -> Option<String> {
    let rows = r.profile.as_ref()?;
    let mut out = String::from("kind,name,ranks,count,total_ps,min_ps,mean_ps,max_ps,share\n");
    for p in rows {
        out += &format!(
            "{},{},{},{},{},{},{},{},{:.6}\n",
            p.kind,
            csv_field(&p.name),
            p.ranks,
            p.count,
            p.total_ps,
            p.min_ps,
            p.mean_ps,
            p.max_ps,
            p.share
        );
    }
    Some(out)
}

/// One line per node: its NICs' DMA engines and links, busy time and utilization over the
/// run, and the bytes its NICs injected and received.
pub(crate) fn nodes_csv(r: &crate::Report) -> String {
    let span = r.span_ps();
    let mut out = String::from(
        "node,nics,ranks,tx_dma_busy_ps,tx_dma_utilization,rx_dma_busy_ps,rx_dma_utilization,\
         injection_busy_ps,injection_utilization,ejection_busy_ps,ejection_utilization,\
         injected_bytes,ejected_bytes\n",
    );
    for n in &r.per_node {
        let u = |b: u64| n.utilization(b, span);
        out += &format!(
            "{},{},{},{},{:.6},{},{:.6},{},{:.6},{},{:.6},{},{}\n",
            n.node,
            n.nics,
            n.ranks,
            n.tx_dma_busy_ps,
            u(n.tx_dma_busy_ps),
            n.rx_dma_busy_ps,
            u(n.rx_dma_busy_ps),
            n.injection_busy_ps,
            u(n.injection_busy_ps),
            n.ejection_busy_ps,
            u(n.ejection_busy_ps),
            n.injected_bytes,
            n.ejected_bytes
        );
    }
    out
}

/// `field` as one CSV field (RFC 4180): in double quotes, its own doubled, when it holds a
/// comma, a quote or a line break; as it is otherwise.
pub(crate) fn csv_field(field: &str) -> std::borrow::Cow<'_, str> {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\"")).into()
    } else {
        field.into()
    }
}

/// One line per rank: where it ran, when it ended, where its time went, what it moved.
pub(crate) fn ranks_csv(r: &crate::Report) -> String {
    let mut out = String::from(
        "rank,job,job_rank,node,finish_ps,compute_ps,poll_wait_ps,complete_wait_ps,\
         mpi_wait_ps,call_ps,bytes_sent,bytes_received,messages_sent,finished\n",
    );
    for (i, s) in r.per_rank.iter().enumerate() {
        // the rest of a rank's time is in the calls themselves: their overheads, copies and
        // node latencies (its clock moves only by computing, calling and waiting)
        let waited = s.compute_ps + s.poll_wait_ps + s.complete_wait_ps + s.mpi_wait_ps;
        out += &format!(
            "{i},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(r.jobs.get(s.job as usize).map_or("", |j| j.name.as_str())),
            s.job_rank,
            s.node,
            s.finish_ps,
            s.compute_ps,
            s.poll_wait_ps,
            s.complete_wait_ps,
            s.mpi_wait_ps,
            s.finish_ps.saturating_sub(waited),
            s.bytes_sent,
            s.bytes_received,
            s.messages_sent,
            s.finished
        );
    }
    out
}

#[cfg(test)]
mod tests;
