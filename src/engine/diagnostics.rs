//! What the engine says when a run cannot go on or ends untidily: a deadlock's detail (who
//! waits for what, at which line), the warnings about what scripts left behind, and the
//! memory a scenario would need before anything is built.

use crate::config::Scenario;
use crate::part::Part;
use crate::rank::{Call, Status, Wait};
use crate::report::escaped;
use crate::units::Time;

/// Rank `r` by name, as a message shows it (a job's name escaped, `report::escaped`).
fn named(whole: &Part, r: u32) -> String {
    escaped(&whole.nodes().name(r)).into_owned()
}

/// What each blocked rank of a deadlock waits for, in the terms of the call its script made,
/// at which line, and what is there instead (messages from other senders or with other tags,
/// receives posted for others, puts with other tags) or that the rank it waits for had
/// already finished; then the cycles of ranks that wait for one another. A name or line a
/// scenario or script chose is shown escaped. `waits(r)` says what rank `r` waits for (asked of its own partition),
/// `line(r)` where it is; `whole` sees every rank: no partition runs.
pub(crate) fn deadlock_detail(
    whole: &Part,
    blocked: &[u32],
    waits: impl Fn(u32) -> Blocked,
    line: impl Fn(u32) -> String,
) -> String {
    const SHOWN: usize = 16;
    let mut out = String::new();
    let mut on = std::collections::BTreeMap::new();
    for (i, &r) in blocked.iter().enumerate() {
        let b = waits(r);
        if let Some(p) = b.on {
            on.insert(r, p);
        }
        if i >= SHOWN {
            continue;
        }
        let rank = whole.rank(r);
        out.push_str(&format!(
            "  {} (clock {}) waits in {}",
            named(whole, r),
            rank.clock,
            escaped(&b.words)
        ));
        let line = line(r);
        if !line.is_empty() {
            out.push_str(&format!("\n      at {}", escaped(&line)));
        }
        for instead in what_is_there(whole, r, &b.on_what) {
            out.push_str(&format!("\n      {instead}"));
        }
        out.push('\n');
    }
    if blocked.len() > SHOWN {
        out.push_str(&format!(
            "  ... and {} more blocked ranks\n",
            blocked.len() - SHOWN
        ));
    }
    for cycle in cycles(&on).iter().take(SHOWN) {
        let names: Vec<String> = cycle.iter().map(|&r| named(whole, r)).collect();
        out.push_str(&format!(
            "  a cycle: {} -> {} (each waits for the next: none can go on)\n",
            names.join(" -> "),
            names[0]
        ));
    }
    // messages left at ranks that are not waiting (they finished without receiving them)
    let shown: std::collections::BTreeSet<u32> = blocked.iter().take(SHOWN).copied().collect();
    let leftover: Vec<String> = (0..whole.rank_count())
        .filter(|i| !shown.contains(i) && whole.mpi().queues(*i).unexpected() > 0)
        .map(|i| {
            format!(
                "{}: {}",
                named(whole, i),
                whole.mpi().queues(i).unexpected()
            )
        })
        .collect();
    if !leftover.is_empty() {
        let n = leftover.len();
        let listed: Vec<String> = leftover.into_iter().take(SHOWN).collect();
        out.push_str(&format!(
            "  messages that arrived and no receive matched, on {n} other ranks: {}{}\n",
            listed.join(", "),
            if n > SHOWN { ", ..." } else { "" }
        ));
    }
    out
}

/// What a blocked rank waits for: in words, the rank it waits on (None: any rank, or no one
/// rank), and what would let it go on.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Blocked {
    pub(crate) words: String,
    pub(crate) on: Option<u32>,
    on_what: OnWhat,
}

/// What would let a blocked rank go on, to compare with what is there.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
enum OnWhat {
    /// A message from `from` (or any rank) with `tag` (or any tag).
    Message {
        from: i64,
        tag: i64,
    },
    /// A receive posted by `to` that matches a send with `tag`.
    Receive {
        to: u32,
        tag: i64,
    },
    /// A put with `tag`.
    Put {
        tag: i64,
    },
    Other,
}

/// Up to this many messages, receives or tags are listed as "there instead".
const INSTEAD: usize = 4;

/// When rank `p` finished, if it had.
fn ended(whole: &Part, p: u32) -> Option<Time> {
    let rank = whole.rank(p);
    (rank.status == Status::Done).then_some(rank.clock)
}

/// If every rank of `r`'s job but `r` had finished: that, in words, with when the last did.
fn all_others_ended(whole: &Part, r: u32) -> Option<String> {
    let job = whole.nodes().job(r);
    let mut last = Time::ZERO;
    for p in (job.base..job.base + job.size).filter(|&p| p != r) {
        last = last.max(ended(whole, p)?);
    }
    let of_job = if whole.nodes().jobs.len() > 1 {
        " of its job"
    } else {
        ""
    };
    (job.size > 1)
        .then(|| format!("every other rank{of_job} had already finished, the last at {last}"))
}

/// What is at rank `r` (or at the peer it sends to) that does not let it go on: the rank it
/// waits for had already finished (or every other rank, for a receive from any rank or a
/// poll), messages that arrived and did not match its receive, receives posted that do not
/// match its send, puts delivered with other tags.
fn what_is_there(whole: &Part, r: u32, on: &OnWhat) -> Vec<String> {
    let name = |p: u32| named(whole, p);
    let mut out = Vec::new();
    match *on {
        OnWhat::Message { from, tag } => {
            let done = if from == crate::mpi::ANY_SOURCE {
                all_others_ended(whole, r)
            } else {
                ended(whole, from as u32)
                    .map(|t| format!("{} had already finished at {t}", name(from as u32)))
            };
            out.extend(done);
            let here: Vec<_> = whole.mpi().unexpected_at(r).collect();
            for &(src, t, bytes) in here.iter().take(INSTEAD) {
                let why = match (
                    from == crate::mpi::ANY_SOURCE || from == src as i64,
                    t == tag,
                ) {
                    (true, _) => "the tags differ",
                    (false, true) => "the senders differ",
                    (false, false) => "neither sender nor tag matches",
                };
                out.push(format!(
                    "a message from {} {} ({bytes} B) is here, unmatched: {why}",
                    name(src),
                    crate::tags::tag_words(t)
                ));
            }
            if here.len() > INSTEAD {
                out.push(format!("... and {} more messages", here.len() - INSTEAD));
            }
            if here.is_empty() {
                out.push("no message is here unmatched".to_string());
            }
        }
        OnWhat::Receive { to, tag } => {
            let posted: Vec<_> = whole.mpi().posted_at(to).collect();
            for &(src, t) in posted.iter().take(INSTEAD) {
                let from = if src == crate::mpi::ANY_SOURCE {
                    "any rank".to_string()
                } else {
                    name(src as u32)
                };
                let why = if src == crate::mpi::ANY_SOURCE || src == r as i64 {
                    if t == tag {
                        "" // (matches: the send is waiting for its data to be taken)
                    } else {
                        ": the tags differ"
                    }
                } else {
                    ": another sender"
                };
                out.push(format!(
                    "{} has posted a receive from {from} {}{why}",
                    name(to),
                    crate::tags::tag_words(t)
                ));
            }
            if posted.len() > INSTEAD {
                out.push(format!("... and {} more receives", posted.len() - INSTEAD));
            }
            if let Some(t) = ended(whole, to) {
                out.push(format!(
                    "{} had already finished at {t}, without a matching receive (a message \
                     above node.eager_limit waits for one)",
                    name(to)
                ));
            } else if posted.is_empty() {
                out.push(format!(
                    "{} has posted no receive (a message above node.eager_limit waits for one)",
                    name(to)
                ));
            }
        }
        OnWhat::Put { tag } => {
            out.extend(all_others_ended(whole, r));
            let others: Vec<String> = whole
                .rank(r)
                .unpolled_tags()
                .iter()
                .filter(|&&(t, _)| t != tag)
                .take(INSTEAD)
                .map(|&(t, n)| format!("tag {t} ({n})"))
                .collect();
            if !others.is_empty() {
                out.push(format!(
                    "puts delivered here with other tags, not polled: {}",
                    others.join(", ")
                ));
            }
        }
        OnWhat::Other => {}
    }
    out
}

/// The cycles of the wait-for graph `on` (rank -> the rank it waits for), each from its
/// smallest rank, in the order of that rank. Each rank is visited once (a chain's ranks are
/// found by a map, not a scan: a ring of a million ranks is one pass).
fn cycles(on: &std::collections::BTreeMap<u32, u32>) -> Vec<Vec<u32>> {
    let mut done = std::collections::BTreeSet::new();
    let mut found = Vec::new();
    for &start in on.keys() {
        let mut path = Vec::new();
        let mut place = std::collections::BTreeMap::new();
        let mut at = start;
        // follow the chain until it ends, meets a rank already settled, or closes on itself
        while !done.contains(&at) {
            if let Some(&i) = place.get(&at) {
                let mut cycle: Vec<u32> = path[i..].to_vec();
                let least = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
                cycle.rotate_left(least);
                found.push(cycle);
                break;
            }
            place.insert(at, path.len());
            path.push(at);
            match on.get(&at) {
                Some(&next) => at = next,
                None => break,
            }
        }
        done.extend(path);
    }
    found.sort();
    found
}

/// What blocked rank `r` waits for, in words (`MGEN_Recv from rank 3 with tag 2`,
/// `MGEN_rdma_poll(tag 3): no put with that tag was delivered to it`); `w` is `r`'s partition.
pub(crate) fn waits_for(w: &Part, r: u32) -> String {
    blocked_on(w, r).words
}

/// What blocked rank `r` waits for (see [`Blocked`]); `w` is `r`'s partition.
pub(crate) fn blocked_on(w: &Part, r: u32) -> Blocked {
    let rank = w.rank(r);
    let (words, on, on_what) = match rank.wait {
        Wait::Poll(tag) => (
            format!("MGEN_rdma_poll(tag {tag}): no put with that tag was delivered to it"),
            None,
            OnWhat::Put { tag },
        ),
        Wait::Complete(seq) => (
            format!(
                "MGEN_acp_complete(handle {}): the transfer never completed",
                crate::rdma::handle(r, seq)
            ),
            None,
            OnWhat::Other,
        ),
        Wait::Request(seq, call) => match w.mpi().request_of(rank, seq) {
            Some((send, peer, tag)) => request_words(w, call, send, peer, tag),
            None => (call.name().to_string(), None, OnWhat::Other),
        },
        Wait::Nothing => (
            "nothing (it was never resumed)".to_string(),
            None,
            OnWhat::Other,
        ),
    };
    Blocked { words, on, on_what }
}

/// A wait in `call` for a send to `peer` or a receive from it, with `tag`, in the call's
/// terms: `MGEN_Recv from rank 1 with tag 5`, `MGEN_Wait for a send to rank 2 with tag 0`.
fn request_words(
    w: &Part,
    call: Call,
    send: bool,
    peer: i64,
    tag: i64,
) -> (String, Option<u32>, OnWhat) {
    let who = if peer == crate::mpi::ANY_SOURCE {
        "any rank".to_string()
    } else {
        w.nodes().name(peer as u32)
    };
    let what = if send {
        format!("to {who} {}", crate::tags::tag_words(tag))
    } else {
        format!("from {who} {}", crate::tags::tag_words(tag))
    };
    let part = if send { "send" } else { "receive" };
    let words = call.wait_words(part, &what);
    let on = (peer != crate::mpi::ANY_SOURCE).then_some(peer as u32);
    let on_what = if send {
        OnWhat::Receive {
            to: peer as u32,
            tag,
        }
    } else {
        OnWhat::Message { from: peer, tag }
    };
    (words, on, on_what)
}

/// Refuses, with a clear message, a scenario whose network and ranks could not fit in this
/// machine's memory (rather than dying on a failed allocation part way through building it).
pub(crate) fn fits_in_memory(s: &Scenario) -> anyhow::Result<()> {
    let net = &s.network;
    let topo = &s.topo;
    let terminals = topo.terminals() as u64;
    let (routers, ports, vcs) = (
        topo.routers() as u64,
        topo.ports() as u64,
        topo.vcs() as u64,
    );
    if routers * ports * vcs + terminals >= u32::MAX as u64 {
        anyhow::bail!(
            "{}: key `{}`: {routers} routers of {ports} ports are more than mgensim can \
             address",
            s.path.display(),
            topo.size_key()
        );
    }
    let nodes = s.nodes();
    // channel (two cache lines), its buffer's credit and input FIFOs (4 and 8 bytes per VC),
    // an output buffer where there are some, neighbour table and pending release time per
    // port; busy bits (on the line with those times) per router; NIC state and injection
    // channel per terminal; then the rank: its engine side and a suspended coroutine of a
    // small script (a stack of 85 slots, call frames, closures, tables), together 3.9-4.0 KB
    // by `bench/run`'s memory per rank
    let vcs = s.vc_count() as u64;
    let outbuf = if net.output_buffer_bytes.0 > 0 { 64 } else { 0 };
    let per_port = 128 + 12 * vcs + outbuf + 4 + 8;
    let need =
        routers * (ports * per_port + 28) + terminals * (48 + 128 + 16) + s.ranks() * (200 + 3700);
    // what can be had: the memory available now (not the machine's total: other processes
    // hold some), and the process's address-space limit (`ulimit -v`) if it has one
    let available = crate::host::proc_bytes("/proc/meminfo", "MemAvailable:")
        .or_else(|| crate::host::proc_bytes("/proc/meminfo", "MemTotal:"));
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
            && limit.is_none_or(|(a, _)| r.rlim_cur < a)
        {
            limit = Some((r.rlim_cur, "the process's address-space limit (ulimit -v)"));
        }
    }
    if let Some((total, what)) = limit {
        if need > total {
            anyhow::bail!(
                "{}: key `{}`: {nodes} nodes and {} ranks need about {} of memory, more \
                 than {what}, {}",
                s.path.display(),
                topo.size_key(),
                s.ranks(),
                crate::units::Bytes(need),
                crate::units::Bytes(total)
            );
        }
    }
    Ok(())
}

/// Where a traceback is in the user's script: its first frame that is neither the prelude's
/// nor C's nor the shipped library's (`lua/mgen/*.lua`), as `file:line`, followed by the
/// library module it is inside, if any (`lesson.lua:4 (inside mgen.coll)`); the first frame
/// if none is the user's.
pub(crate) fn script_line(tb: &str) -> String {
    let frames: Vec<&str> = tb
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.starts_with("[C]")
                && !l.contains("mgensim prelude")
                && !l.starts_with("stack traceback")
                && !l.starts_with("(...tail calls...)")
        })
        .map(|l| l.split(": in ").next().unwrap_or(l))
        .collect();
    let module = |f: &str| {
        let (path, _) = f.rsplit_once(".lua:")?;
        let (_, name) = path.rsplit_once("/lua/mgen/")?;
        (!name.contains('/')).then(|| format!("mgen.{name}"))
    };
    match frames.iter().position(|f| module(f).is_none()) {
        Some(0) => frames[0].to_string(),
        Some(i) => match module(frames[i - 1]) {
            Some(m) => format!("{} (inside {m})", frames[i]),
            None => frames[i].to_string(),
        },
        None => frames.first().copied().unwrap_or("").to_string(),
    }
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
            |w, r| w.rank(r).unpolled(),
        ),
        ("messages arrived and never received", |w, r| {
            w.mpi().queues(r).unexpected() as u64
        }),
        ("receives posted and never matched", |w, r| {
            w.mpi().queues(r).posted() as u64
        }),
        ("requests never waited for (MGEN_Wait)", |w, r| {
            w.mpi().queues(r).unwaited() as u64
        }),
        (
            "regions begun and never ended (MGEN_region_begin)",
            |w, r| w.rank(r).regions as u64,
        ),
    ];
    let mut out = Vec::new();
    for (what, count) in kinds {
        let per: Vec<(usize, u64)> = (0..w.rank_count() as usize)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cycle_is_found_once_from_its_smallest_rank() {
        // 0 -> 1 -> 2 -> 0; 5 -> 3 -> 4 -> 3 (a chain into a cycle); 6 -> 9 (waits for a
        // rank that waits for nobody)
        let on = [(0, 1), (1, 2), (2, 0), (5, 3), (3, 4), (4, 3), (6, 9)]
            .into_iter()
            .collect();
        assert_eq!(cycles(&on), [vec![0, 1, 2], vec![3, 4]]);
        // a ring of 100,000 ranks is one cycle
        let n = 100_000u32;
        let ring = (0..n).map(|r| (r, (r + 1) % n)).collect();
        let found = cycles(&ring);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].len(), found[0][0], found[0][1]),
            (n as usize, 0, 1)
        );
    }
}
