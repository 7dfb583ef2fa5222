//! Output files are written whole or not at all: the content goes into a temporary file beside
//! the target, which is then renamed over it (atomic on one file system). A run stopped half
//! way, or a full disk, leaves the old file or none, never half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temporary_beside(path);
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `dir/.name.<pid>.tmp` for `dir/name`.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// The output folder of `mgensim run --out DIR`: `summary.json`, `links.csv`, `routers.csv`
/// and `ranks.csv`, and `links_timeseries.csv` and `buffer_history.csv` when they were
/// recorded (columns in the README), each written whole or not at all.
pub fn write_folder(dir: &Path, report: &crate::Report) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(report).map_err(std::io::Error::other)? + "\n";
    write_atomic(&dir.join("links.csv"), links_csv(report).as_bytes())?;
    write_atomic(&dir.join("routers.csv"), routers_csv(report).as_bytes())?;
    write_atomic(&dir.join("ranks.csv"), ranks_csv(report).as_bytes())?;
    if let Some(csv) = timeseries_csv(report) {
        write_atomic(&dir.join("links_timeseries.csv"), csv.as_bytes())?;
    }
    if let Some(csv) = links_power_csv(report) {
        write_atomic(&dir.join("links_power.csv"), csv.as_bytes())?;
    }
    if let Some(csv) = power_timeseries_csv(report) {
        write_atomic(&dir.join("power_timeseries.csv"), csv.as_bytes())?;
    }
    if let Some(csv) = buffer_history_csv(report) {
        write_atomic(&dir.join("buffer_history.csv"), csv.as_bytes())?;
    }
    write_atomic(&dir.join("summary.json"), json.as_bytes())
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

/// One line per router: what it sent out of all its ports, and what its input buffers held.
pub fn routers_csv(r: &crate::Report) -> String {
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
pub fn timeseries_csv(r: &crate::Report) -> Option<String> {
    let s = r.series.as_ref()?;
    let span = r.span_ps();
    let mut out = String::from(
        "link,window_start_ps,window_ps,bytes,packets,busy_ps,utilization,mean_occupancy_bytes\n",
    );
    for row in &s.rows {
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
pub fn links_power_csv(r: &crate::Report) -> Option<String> {
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
pub fn power_timeseries_csv(r: &crate::Report) -> Option<String> {
    let p = r.power.as_ref()?;
    let s = r.series.as_ref()?;
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
pub fn buffer_history_csv(r: &crate::Report) -> Option<String> {
    let rows = r.buffer_history.as_ref()?;
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    let mut out = String::from(
        "router,in_port,vc,src_nic,dst_nic,bytes,arrive_ps,occupancy_bytes,depart_ps,out_port,freed_ps\n",
    );
    for s in rows {
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
pub fn links_csv(r: &crate::Report) -> String {
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

/// One line per rank: where it ran, when it ended, where its time went, what it moved.
pub fn ranks_csv(r: &crate::Report) -> String {
    let mut out = String::from(
        "rank,job,job_rank,node,finish_ps,compute_ps,poll_wait_ps,complete_wait_ps,\
         mpi_wait_ps,bytes_sent,bytes_received,messages_sent\n",
    );
    for (i, s) in r.per_rank.iter().enumerate() {
        out += &format!(
            "{i},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.jobs.get(s.job as usize).map_or("", |j| j.name.as_str()),
            s.job_rank,
            s.node,
            s.finish_ps,
            s.compute_ps,
            s.poll_wait_ps,
            s.complete_wait_ps,
            s.mpi_wait_ps,
            s.bytes_sent,
            s.bytes_received,
            s.messages_sent
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("summary.json");
        std::fs::write(&target, "old").unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("no_such_dir").join("x.json");
        assert!(write_atomic(&target, b"new").is_err());
        assert!(!target.exists());
    }
}
