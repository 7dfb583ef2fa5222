//! What the engine says when a run cannot go on or ends untidily: a deadlock's detail (who
//! waits for what, at which line), the warnings about what scripts left behind, and the
//! memory a scenario would need before anything is built.

use crate::config::Scenario;
use crate::net::topology::Topo;
use crate::part::Part;
use crate::rank::Wait;

/// What each blocked rank of a deadlock waits for, and at which script line: `waits(r)` says
/// what rank `r` waits for, `line(r)` where it is; then the messages that arrived and no
/// receive matched (`whole` sees every rank: no partition runs).
pub(crate) fn deadlock_detail(
    whole: &Part,
    blocked: &[u32],
    waits: impl Fn(u32) -> String,
    line: impl Fn(u32) -> String,
) -> String {
    const SHOWN: usize = 16;
    let mut out = String::new();
    for &r in blocked.iter().take(SHOWN) {
        let rank = &whole.ranks[r as usize];
        let what = waits(r);
        let line = line(r);
        out.push_str(&format!(
            "  {} (clock {}) waits in {what}",
            whole.nodes.name(r),
            rank.clock
        ));
        if !line.is_empty() {
            out.push_str(&format!("\n      at {line}"));
        }
        out.push('\n');
    }
    if blocked.len() > SHOWN {
        out.push_str(&format!(
            "  ... and {} more blocked ranks\n",
            blocked.len() - SHOWN
        ));
    }
    let leftover: Vec<String> = (0..whole.ranks.len() as u32)
        .filter(|&i| whole.mpi.queues(i).unexpected() > 0)
        .map(|i| format!("rank {i}: {}", whole.mpi.queues(i).unexpected()))
        .collect();
    if !leftover.is_empty() {
        let n = leftover.len();
        let shown: Vec<String> = leftover.into_iter().take(SHOWN).collect();
        out.push_str(&format!(
            "  messages that arrived and no receive matched, on {n} ranks: {}{}\n",
            shown.join(", "),
            if n > SHOWN { ", ..." } else { "" }
        ));
    }
    out
}

/// What blocked rank `r` waits for, in words (`MGEN_rdma_poll(tag 3): no put with that tag
/// was delivered to it`); `w` is `r`'s partition.
pub(crate) fn waits_for(w: &Part, r: u32) -> String {
    let rank = &w.ranks[r as usize];
    match rank.wait {
        Wait::Poll(tag) => {
            format!("MGEN_rdma_poll(tag {tag}): no put with that tag was delivered to it")
        }
        Wait::Complete(seq) => {
            format!(
                "MGEN_acp_complete(handle {}): the transfer never completed",
                crate::rdma::handle(r, seq)
            )
        }
        Wait::Request(seq) => {
            format!(
                "MGEN_Wait (request {}), {}",
                crate::mpi::request_handle(r, seq),
                w.mpi.describe(rank, seq)
            )
        }
        Wait::Sync => "MGEN_Test".to_string(),
        Wait::Nothing => "nothing (it was never resumed)".to_string(),
    }
}

/// Refuses, with a clear message, a scenario whose network and ranks could not fit in this
/// machine's memory (rather than dying on a failed allocation part way through building it).
pub(crate) fn fits_in_memory(s: &Scenario) -> anyhow::Result<()> {
    let net = &s.network;
    let terminals = net.terminals(s.node.nics_per_node);
    let (routers, ports, vcs) = Topo::size(net, s.node.nics_per_node);
    if routers * ports * vcs + terminals >= u32::MAX as u64 {
        anyhow::bail!(
            "{}: key `network.topology`: {routers} routers of {ports} ports are more than \
             mgensim can address",
            s.path.display()
        );
    }
    let nodes = s.nodes();
    // channel (two cache lines), its buffer's credit and input FIFOs (4 and 8 bytes per VC),
    // an output buffer where there are some, neighbour table and pending release time per
    // port; busy bits (on the line with those times) per router; NIC state and injection
    // channel per terminal; then the rank: its engine side and a suspended coroutine of a
    // small script (a stack of 85 slots, call frames, closures, tables), together 3.9-4.0 KB
    // by `bench/run`'s memory per rank
    let vcs = net.vc_count() as u64;
    let outbuf = if net.output_buffer_bytes.0 > 0 { 64 } else { 0 };
    let per_port = 128 + 12 * vcs + outbuf + 4 + 8;
    let need =
        routers * (ports * per_port + 28) + terminals * (48 + 128 + 16) + s.ranks() * (200 + 3700);
    // what can be had: the memory available now (not the machine's total: other processes
    // hold some), and the process's address-space limit (`ulimit -v`) if it has one
    let available = crate::report::proc_bytes("/proc/meminfo", "MemAvailable:")
        .or_else(|| crate::report::proc_bytes("/proc/meminfo", "MemTotal:"));
    let mut limit = available.map(|a| (a, "the memory this machine has available now"));
    #[cfg(unix)]
    {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0
            && r.rlim_cur != libc::RLIM_INFINITY
            && limit.map_or(true, |(a, _)| r.rlim_cur < a)
        {
            limit = Some((r.rlim_cur, "the process's address-space limit (ulimit -v)"));
        }
    }
    if let Some((total, what)) = limit {
        if need > total {
            anyhow::bail!(
                "{}: key `network.dims`: {nodes} nodes and {} ranks need about {} of memory, \
                 more than {what}, {}",
                s.path.display(),
                s.ranks(),
                crate::units::Bytes(need),
                crate::units::Bytes(total)
            );
        }
    }
    Ok(())
}

/// The first line of a traceback that is the script's (not the prelude's, not C).
pub(crate) fn script_line(tb: &str) -> &str {
    let line = tb
        .lines()
        .map(str::trim)
        .find(|l| {
            !l.starts_with("[C]")
                && !l.contains("mgensim prelude")
                && !l.starts_with("stack traceback")
                && !l.starts_with("(...tail calls...)")
        })
        .unwrap_or("");
    line.split(": in ").next().unwrap_or(line)
}

/// Warnings about what a finished run's scripts left behind: puts delivered and never polled,
/// messages that arrived and were never received, receives never matched, requests never
/// waited for. Each names the count and the first ranks concerned (`w` sees every rank).
pub(super) fn leftovers(w: &Part) -> Vec<String> {
    const SHOWN: usize = 8;
    type Count = fn(&Part, u32) -> u64;
    let kinds: [(&str, Count); 5] = [
        (
            "puts delivered and never polled (MGEN_rdma_poll)",
            |w, r| w.ranks[r as usize].unpolled(),
        ),
        ("messages arrived and never received", |w, r| {
            w.mpi.queues(r).unexpected() as u64
        }),
        ("receives posted and never matched", |w, r| {
            w.mpi.queues(r).posted() as u64
        }),
        ("requests never waited for (MGEN_Wait)", |w, r| {
            w.mpi.queues(r).unwaited() as u64
        }),
        (
            "regions begun and never ended (MGEN_region_begin)",
            |w, r| w.ranks[r as usize].regions as u64,
        ),
    ];
    let mut out = Vec::new();
    for (what, count) in kinds {
        let per: Vec<(usize, u64)> = (0..w.ranks.len())
            .map(|i| (i, count(w, i as u32)))
            .filter(|&(_, n)| n > 0)
            .collect();
        if per.is_empty() {
            continue;
        }
        let total: u64 = per.iter().map(|&(_, n)| n).sum();
        let shown: Vec<String> = per
            .iter()
            .take(SHOWN)
            .map(|(i, n)| format!("rank {i}: {n}"))
            .collect();
        out.push(format!(
            "{total} {what}, on {} ranks ({}{})",
            per.len(),
            shown.join(", "),
            if per.len() > SHOWN { ", ..." } else { "" }
        ));
    }
    out
}
