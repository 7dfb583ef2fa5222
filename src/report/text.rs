//! The text summary of a run (what `mgensim run` prints): one line per figure, the busiest
//! resources named, and what bounded the run.

use super::Report;
use crate::units::{Bytes, Time};
use std::borrow::Cow;
use std::fmt;

/// `s` as a line of text shows a name a script, a scenario or a trace chose (a region, a
/// metric, a note, a job, a file): each control character (C0, DEL, C1) and each
/// bidirectional-text control as a visible escape (`\n`, `\r`, `\t`, `\x1b`, `\u{9b}`,
/// `\u{202e}`; the line and paragraph separators too), so that a name can neither start a line of its own (a forged `predicted time`
/// or `error:` line) nor reach a terminal as a command. Other text, backslashes included, is
/// left as it is; a name without such characters is not copied.
pub fn escaped(s: &str) -> Cow<'_, str> {
    let hidden = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{61c}'
                    | '\u{200e}'
                    | '\u{200f}'
                    | '\u{2028}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}'
            )
    };
    if !s.chars().any(hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hidden(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

impl Report {
    /// The text summary's lines naming the busiest link directions (by utilization) and, when
    /// any link waited for credit, the most credit-blocked ones: three of each, ties in the
    /// order of `links.csv`.
    fn busiest_links(&self) -> Vec<String> {
        const SHOWN: usize = 3;
        let span = self.span_ps().max(1) as f64;
        let name = crate::net::router::LinkLoad::name;
        // the SHOWN largest by `key` (the first of equals first), in one pass
        let top = |key: &dyn Fn(&crate::net::router::LinkLoad) -> u64| {
            let mut v: Vec<&crate::net::router::LinkLoad> = Vec::with_capacity(SHOWN + 1);
            for l in self.per_link.iter().filter(|l| key(l) > 0) {
                let at = v.partition_point(|x| key(x) >= key(l));
                if at < SHOWN {
                    v.insert(at, l);
                    v.truncate(SHOWN);
                }
            }
            v
        };
        let mut out = Vec::new();
        let busy = top(&|l| l.busy.ps());
        if !busy.is_empty() {
            let shown: Vec<String> = busy
                .iter()
                .map(|l| format!("{} {:.1} %", name(l), 100.0 * l.busy.ps() as f64 / span))
                .collect();
            out.push(format!("busiest links      {}", shown.join(", ")));
        }
        let blocked = top(&|l| l.credit_blocked.ps());
        if !blocked.is_empty() {
            let shown: Vec<String> = blocked
                .iter()
                .map(|l| format!("{} {}", name(l), Time(l.credit_blocked.ps())))
                .collect();
            out.push(format!("most blocked links {}", shown.join(", ")));
        }
        let span_ps = self.span_ps();
        let mut nodes: Vec<&super::NodeStats> =
            self.per_node.iter().filter(|n| n.busiest().1 > 0).collect();
        nodes.sort_by_key(|n| std::cmp::Reverse(n.busiest().1 / n.nics.max(1) as u64));
        if let Some(first) = nodes.first() {
            let u = |busy: u64| format!("{:.1} %", 100.0 * first.utilization(busy, span_ps));
            let rest: Vec<String> = nodes[1..nodes.len().min(SHOWN)]
                .iter()
                .map(|n| {
                    let (what, busy) = n.busiest();
                    format!(
                        "node {} {what} {:.1} %",
                        n.node,
                        100.0 * n.utilization(busy, span_ps)
                    )
                })
                .collect();
            out.push(format!(
                "busiest nodes      node {}: transmit DMA {}, receive DMA {}, injection {}, \
                 ejection {}{}{}",
                first.node,
                u(first.tx_dma_busy_ps),
                u(first.rx_dma_busy_ps),
                u(first.injection_busy_ps),
                u(first.ejection_busy_ps),
                if rest.is_empty() { "" } else { "; then " },
                rest.join(", ")
            ));
        }
        let routers = self.router_loads();
        let per_port = |r: &super::bottleneck::RouterLoad| r.busy_ps / r.ports.max(1) as u64;
        let mut busy: Vec<_> = routers.iter().filter(|r| r.busy_ps > 0).collect();
        busy.sort_by_key(|r| std::cmp::Reverse(per_port(r)));
        if !busy.is_empty() {
            let shown: Vec<String> = busy
                .iter()
                .take(SHOWN)
                .map(|r| {
                    format!(
                        "router {} {:.1} %",
                        r.router,
                        100.0 * per_port(r) as f64 / span
                    )
                })
                .collect();
            out.push(format!(
                "busiest routers    {} (mean over their output ports)",
                shown.join(", ")
            ));
        }
        let mut blocked: Vec<_> = routers.iter().filter(|r| r.credit_blocked_ps > 0).collect();
        blocked.sort_by_key(|r| std::cmp::Reverse(r.credit_blocked_ps));
        if !blocked.is_empty() {
            let shown: Vec<String> = blocked
                .iter()
                .take(SHOWN)
                .map(|r| format!("router {} {}", r.router, Time(r.credit_blocked_ps)))
                .collect();
            out.push(format!(
                "most blocked routers {} (summed over their output ports)",
                shown.join(", ")
            ));
        }
        if let Some(b) = &self.bound {
            out.push(format!(
                "bounded by         {}: {}",
                b.kind,
                escaped(&b.reason)
            ));
        }
        out
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = &self.network;
        if self.partial {
            writeln!(
                f,
                "PARTIAL            the run stopped early; figures are up to the stop"
            )?;
        }
        writeln!(f, "scenario           {}", escaped(&self.scenario))?;
        writeln!(
            f,
            "network            {} ({} nodes), {} routing",
            n.shape, n.nodes, n.routing
        )?;
        if self.partial {
            // (a run that stopped early predicts nothing: this is how far it got)
            writeln!(
                f,
                "stopped at         {}  ({} ps), not a prediction: the run did not finish",
                Time(self.predicted_time_ps),
                self.predicted_time_ps
            )?;
        } else {
            writeln!(
                f,
                "predicted time     {}  ({} ps)",
                Time(self.predicted_time_ps),
                self.predicted_time_ps
            )?;
        }
        self.write_ranks(f)?;
        self.write_network(f)?;
        if let Some(rows) = self.profile.as_ref().filter(|r| !r.is_empty()) {
            self.write_profile(f, rows)?;
        }
        self.write_power(f)?;
        self.write_metrics(f)?;
        if !self.sandbox {
            writeln!(
                f,
                "sandbox            off (--allow-io): scripts had the whole Lua library"
            )?;
        }
        for w in &self.warnings {
            writeln!(f, "warning            {}", escaped(w))?;
        }
        self.write_host(f)
    }
}

impl Report {
    /// The ranks' finish times, or which had not finished and why; each job's time.
    fn write_ranks(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.ranks.finish_ps;
        let rk = &self.ranks;
        if rk.finished == rk.count {
            writeln!(
                f,
                "rank finish        min {}  mean {}  max {}  ({} ranks)",
                Time(s.min),
                Time(s.mean),
                Time(s.max),
                rk.count
            )?;
        } else {
            if rk.finished > 0 {
                writeln!(
                    f,
                    "rank finish        min {}  mean {}  max {}  ({} of {} ranks finished)",
                    Time(s.min),
                    Time(s.mean),
                    Time(s.max),
                    rk.finished,
                    rk.count
                )?;
            }
            let stuck = rk.count - rk.finished;
            writeln!(
                f,
                "unfinished         {stuck} of {} ranks had not finished at the stop",
                rk.count
            )?;
            const SHOWN: usize = 4;
            for u in rk.unfinished.iter().take(SHOWN) {
                let at = if u.at.is_empty() {
                    String::new()
                } else {
                    format!(", at {}", escaped(&u.at))
                };
                let since = Time(u.since_ps);
                let (name, waits) = (escaped(&u.name), escaped(&u.waits_for));
                match u.state.as_str() {
                    "failed" => writeln!(f, "  {name} failed at {since}: {waits}")?,
                    "blocked" => writeln!(f, "  {name} blocked since {since} in {waits}{at}")?,
                    state => writeln!(f, "  {name} {state}, clock {since}{at}")?,
                }
            }
            if stuck as usize > SHOWN {
                writeln!(
                    f,
                    "  ... and {} more (all of them: ranks.csv, `finished` column)",
                    stuck as usize - SHOWN
                )?;
            }
        }
        if self.jobs.len() > 1 {
            for j in &self.jobs {
                writeln!(
                    f,
                    "job {:<14} {}  ({} ranks{})",
                    escaped(&j.name),
                    Time(j.predicted_time_ps),
                    j.ranks,
                    if j.partial {
                        "; stopped: not all had finished"
                    } else {
                        ""
                    }
                )?;
            }
        }
        Ok(())
    }

    /// What the network did: transfers, messages, latency, hops, bytes, packets, links.
    fn write_network(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = &self.network;
        writeln!(
            f,
            "transfers          {} puts/gets; the NICs delivered {} messages (data and control)",
            n.transfers, n.messages
        )?;
        if let Some(fw) = &n.flow_model {
            writeln!(
                f,
                "flow model         {} flows; {} recomputations of {} rates in all (at most {} \
                 flows at once); no buffers, no credit",
                fw.flows, fw.recomputes, fw.rates_recomputed, fw.largest_component
            )?;
        }
        if let Some(l) = &n.message_latency_ps {
            writeln!(
                f,
                "message latency    min {}  mean {}  max {}  (data messages, NIC queue to memory)",
                Time(l.min),
                Time(l.mean),
                Time(l.max)
            )?;
        }
        if let Some(h) = &n.message_hops {
            writeln!(
                f,
                "message hops       mean {:.2}  max {}  (router-to-router links per data message)",
                h.mean, h.max
            )?;
        }
        if let Some(h) = &n.placement_hint {
            writeln!(f, "placement hint     {}", h.words(&n.dims))?;
        }
        writeln!(
            f,
            "moved              {} payload, {} over links",
            Bytes(n.bytes),
            Bytes(n.link_bytes)
        )?;
        writeln!(
            f,
            "packets            {} made, {} link traversals",
            n.packets, n.packet_hops
        )?;
        // (credit-blocked time per direction, as the other figures: the most blocked follow)
        let most = self
            .per_link
            .iter()
            .map(|l| l.credit_blocked.ps())
            .max()
            .unwrap_or(0);
        let mean = n.credit_blocked_ps / n.links.max(1);
        writeln!(
            f,
            "links              {} directions, mean {:.3} GB/s each, {:.2} % busy, blocked on credit {} each on average (most {})",
            n.links,
            n.average_link_bandwidth_bps / 1e9,
            100.0 * n.link_efficiency,
            Time(mean),
            Time(most)
        )?;
        for line in self.busiest_links() {
            writeln!(f, "{line}")?;
        }
        writeln!(f, "network quiet at   {}", Time(n.quiet_ps))?;
        for t in self.traffic.iter().flatten() {
            write!(f, "{}", t.text())?;
        }
        Ok(())
    }

    /// The network's energy, and against always-on links when a baseline ran.
    fn write_power(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.power {
            writeln!(
                f,
                "power              {:.4} J over {} ports, mean {:.2} W ({:.1} % of always-on), {:.1} % of port-time asleep, {} wake-ups",
                p.energy_j,
                p.ports,
                p.average_power_w,
                100.0 * p.energy_j / p.always_on_energy_j.max(f64::MIN_POSITIVE),
                100.0 * p.low_power_fraction,
                p.wakeups
            )?;
            if let Some(b) = &p.baseline {
                writeln!(
                    f,
                    "power vs always-on energy x{:.4}, power x{:.4}, time x{:.4} (baseline {}, {:.4} J)",
                    b.energy_ratio,
                    b.power_ratio,
                    b.time_ratio,
                    Time(b.predicted_time_ps),
                    b.energy_j
                )?;
            }
        }
        Ok(())
    }

    /// The metrics the script reported (`MGEN_report`), a name ending in `_s` as a time.
    fn write_metrics(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, m) in &self.metrics {
            // a name ending in `_s` is seconds (the API's convention): shown as a time
            let seconds = name.ends_with("_s");
            let show = |x: f64| metric(x, seconds);
            let name = escaped(name);
            if m.count == 1 {
                writeln!(f, "{name:<18} {}", show(m.mean))?;
            } else {
                writeln!(
                    f,
                    "{name:<18} min {}  mean {}  max {}  ({} reports)",
                    show(m.min),
                    show(m.mean),
                    show(m.max),
                    m.count
                )?;
            }
        }
        Ok(())
    }

    /// How the run was simulated: wall time, events, memory, threads and partitions.
    fn write_host(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = &self.network;
        let h = &self.host;
        let x = &h.execution;
        let cut = if x.partitions > 1 {
            // (windows the governor kept on one thread: more threads were measured to lose)
            let alone = match x.windows.alone {
                0 => String::new(),
                n => format!(", {n} of them on one thread, where more did not pay"),
            };
            let units = super::execution::units(&x.unit);
            format!(
                "{} partitions ({units}, {} windows{alone}, {} cut messages)",
                x.partitions, x.windows.windows, x.windows.messages
            )
        } else {
            "1 partition".to_string()
        };
        let cut = if x.mpi {
            format!(
                "{cut}, {} bytes across MPI processes in {} windows",
                x.windows.across, x.windows.across_windows
            )
        } else if x.processes > 1 {
            format!(
                "{cut}, {} processes (emulated), {} bytes across processes in {} windows",
                x.processes, x.windows.across, x.windows.across_windows
            )
        } else {
            cut
        };
        let cut = if x.note.is_empty() {
            cut
        } else {
            format!("{cut} ({})", x.note)
        };
        writeln!(
            f,
            "host               {:.3} s wall ({:.3} s simulating), {} events ({:.2} M/s), {:.2} M packet-hops/s, peak memory {}; {} thread{}, {cut}; peak {} packets and {} pending events",
            h.wall_s,
            h.run_s,
            n.events,
            h.events_per_s / 1e6,
            h.packet_hops_per_s / 1e6,
            Bytes(h.peak_memory_bytes),
            if x.mpi {
                format!("{} processes × {}", x.processes, x.threads)
            } else {
                x.threads.to_string()
            },
            if x.threads == 1 { "" } else { "s" },
            h.peak_packets,
            h.peak_pending_events
        )
    }
}

/// A reported value: seconds as a time in the unit that suits it (to the picosecond), other
/// values with four decimals, or in powers of ten when very large or small.
fn metric(x: f64, seconds: bool) -> String {
    let ps = x * 1e12;
    if seconds && x.is_finite() && x >= 0.0 && ps < u64::MAX as f64 {
        Time(ps.round() as u64).to_string()
    } else {
        fmt_num(x)
    }
}

fn fmt_num(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e6 || x.abs() < 1e-3) {
        format!("{x:.4e}")
    } else {
        format!("{:.4}", x)
    }
}

impl Report {
    /// The profile's largest rows: each call's or region's share of the ranks' time, its count
    /// and its time per rank (least, mean, most over the ranks that made it).
    fn write_profile(
        &self,
        f: &mut std::fmt::Formatter<'_>,
        rows: &[crate::probe::profile::ProfileRow],
    ) -> std::fmt::Result {
        const SHOWN: usize = 8;
        writeln!(
            f,
            "profile            where the ranks' time went (share of all ranks' time; per rank \
             that made the call or entered the region: least, mean, most)"
        )?;
        // a replay's is the program's own view, as mpiP's: its MPI calls and its regions (the
        // API calls and library regions they were replayed as: summary.json, profile.csv)
        let all = rows;
        let replayed = |r: &&crate::probe::profile::ProfileRow| r.kind.starts_with("replayed");
        let program: Vec<_> = rows.iter().filter(replayed).cloned().collect();
        let rows = if program.is_empty() { rows } else { &program };
        let name = |r: &crate::probe::profile::ProfileRow| match r.kind {
            "region" => format!("{} {}", r.kind, escaped(&r.name)),
            "replayed region" => format!("region {}", escaped(&r.name)),
            _ => escaped(&r.name).into_owned(),
        };
        // (padded by characters, as `{:width$}` pads)
        let width = rows
            .iter()
            .take(SHOWN)
            .map(|r| name(r).chars().count())
            .max()
            .unwrap_or(0);
        for r in rows.iter().take(SHOWN) {
            let what = if r.kind == "region" { "times" } else { "calls" };
            writeln!(
                f,
                "  {:width$}  {:5.1} %  {} {what} on {} ranks; {} / {} / {}",
                name(r),
                100.0 * r.share,
                r.count,
                r.ranks,
                Time(r.min_ps),
                Time(r.mean_ps),
                Time(r.max_ps),
            )?;
        }
        if rows.len() > SHOWN {
            writeln!(
                f,
                "  ... and {} more (all of them: summary.json, and profile.csv with --out)",
                rows.len() - SHOWN
            )?;
        }
        if rows.len() < all.len() {
            writeln!(
                f,
                "  (the replayed trace's MPI calls and regions; the {} API calls and library \
                 regions they were replayed as: summary.json, and profile.csv with --out)",
                all.len() - rows.len()
            )?;
        }
        Ok(())
    }
}
