//! Synthetic traffic in a run (`traffic/` says what it is): the generators that inject it, what
//! they measure (`stats.rs`), the routes' bound on its load (`bound.rs`), and each job's
//! figures for the summary.
//!
//! **Where it runs.** Not in Lua: each rank of a traffic job has a generator per NIC of its node
//! (`gen.rs`), kept by the partition that owns the NIC, seeded from the workload seed and the
//! rank's global number (any partitioning draws the same numbers). A generator is a source
//! queue of unbounded length held as the state of its random process: the next message's
//! creation time, destination and size are drawn when the NIC may take it, so a source
//! backlogged past saturation costs no memory. A packet enters the network through the NIC's
//! injection channel when that channel is empty (one packet at a time: the source queue is
//! the generator's), without DMA, and leaves it at its destination NIC as its tail arrives,
//! through the routers even to its own node: it is the network that is measured. The rank
//! itself only waits (`MGEN_Comp`) until its traffic ends.
//!
//! **What is measured** (BookSim's definitions): a packet's latency runs from its creation to
//! its tail's arrival at the destination NIC; its network latency from when it entered the
//! NIC's injection channel (its head leaves then unless the router has no room for it). The
//! packets measured are those created in the window `[warmup, warmup + measure)`; the
//! offered load is the bytes created in the window, the accepted load the bytes whose tail
//! arrived in it, each over the window's length times the injection bandwidth of the NICs the
//! job's ranks use. Sources go on injecting for `drain` after the window, so that the
//! measured packets cross a loaded network; then they stop, and what they had not injected
//! is never sent (a measured packet left so is counted as unfinished).

pub(crate) mod bound;
mod gen;
mod stats;

pub(crate) use gen::Traffic;
pub(crate) use stats::Latency;
pub(crate) use stats::Summary;

/// The figures of every traffic job of a run whose partitions are gathered in `t` (`until`:
/// when it stopped, ps), with the routes' bound of each where it is cheap to work out.
pub(crate) fn report(
    s: &crate::config::Scenario,
    t: &Traffic,
    until: u64,
    net: &crate::net::Network,
) -> Vec<Summary> {
    let mut out = t.summaries(until, net);
    for (sum, tj) in out.iter_mut().zip(t.jobs.iter()) {
        if let Some((b, what)) =
            bound::ideal_within(s, &tj.spec, tj.job as usize, tj.base, tj.n, bound::IN_A_RUN)
        {
            sum.ideal = Some(b);
            sum.ideal_channel = Some(what);
        }
    }
    out
}

/// `latency_histogram.csv` of the traffic jobs `jobs`: for each, a line per latency bucket
/// that holds a measured packet, `[from_ps, to_ps)` with the packets whose latency (from
/// creation) and whose network latency (from entering the injection channel) fall in it.
pub(crate) fn histogram_csv(jobs: &[Summary]) -> String {
    let mut out = String::from("job,from_ps,to_ps,packets,packets_by_network_latency\n");
    for s in jobs {
        // (a job's name with a comma or a quote is quoted, as RFC 4180 has it)
        let job = if s.job.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.job.replace('"', "\"\""))
        } else {
            s.job.clone()
        };
        for &(lo, hi, a, b) in &s.histogram {
            out += &format!("{job},{lo},{hi},{a},{b}\n");
        }
    }
    out
}
