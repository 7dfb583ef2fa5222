//! A partition's end state as bytes ([`Part::pack_end`]) and read back into a copy of the same
//! partition that never ran ([`Part::unpack_end`]): what a process that ran a partition sends
//! the process that gathers every partition and writes the report (issue 68). The format is
//! `packed.rs`'s (bincode 1, varints, `f64` bit for bit).
//!
//! What is packed is everything the end of the run reads of a partition once it has settled
//! (`Part::settle`): its own figures ([`Part::absorb`] and the report's [`View`]), its records
//! (timeline, profile, time series, buffer history, traffic matrix, replays, synthetic
//! traffic), and its elements of the arrays every partition shares: each link channel it owns
//! (counters and power), each NIC it owns (DMA busy times), each rank it owns (its whole state
//! but its random numbers) and that rank's message queues, with the messages that reached it
//! and no receive matched as `(sender, tag, bytes)` (their records are their senders'). What
//! is not packed is what the scenario builds again (placement, tables, the traffic's jobs),
//! what the owner answers itself before packing (a blocked rank's request, its script line,
//! its replay's read buffers), and what stops the run (the engine gathers stops apart). A
//! run of the flow model is one partition: its fabric is never packed.

use super::*;
use crate::packed::{get, put, Error};

impl Part {
    /// The NICs this partition owns: those whose injection link it owns.
    pub(super) fn owns_nic(net: &Network) -> impl Fn(u32) -> bool + '_ {
        move |n| net.owns(net.injection_channel(n))
    }

    /// This partition's end state as bytes (see the module's doc); only once the run is over
    /// and the partition has settled.
    pub(crate) fn pack_end(&self) -> Vec<u8> {
        let mut w = Vec::new();
        self.pack_end_into(&mut w);
        w
    }

    /// What [`Part::pack_end`] makes, and of it the bytes of this partition's link channels
    /// and of its ranks (with their queues), each with their count: `[(bytes, links),
    /// (bytes, ranks)]` (the figures of the tests).
    pub(crate) fn pack_parts(&self) -> (Vec<u8>, [(usize, usize); 2]) {
        let mut links = Vec::new();
        let n = self.net.pack_links(&mut links);
        let mut ranks = Vec::new();
        self.pack_ranks(&mut ranks);
        let parts = [(links.len(), n), (ranks.len(), self.mine.len())];
        (self.pack_end(), parts)
    }

    /// This partition's ranks and their message queues.
    fn pack_ranks(&self, w: &mut Vec<u8>) {
        for &r in &self.mine {
            put(w, &self.ranks[r as usize]);
        }
        self.mpi.pack_end(&self.mine, w);
    }

    /// What [`Part::pack_end`] makes, appended to `w`.
    pub(crate) fn pack_end_into(&self, w: &mut Vec<u8>) {
        put(w, &(self.now.ps(), self.events, &self.events_by_kind[..]));
        let counts = (self.finished, self.peak_events());
        put(w, &(counts, self.rdma.issued, self.mpi.sent));
        let metrics: Vec<(&String, MetricEnd)> =
            self.metrics.iter().map(|(k, m)| (k, m.to_end())).collect();
        put(w, &metrics);
        let back = self.time_went_back.map(|(a, b)| (a.ps(), b.ps()));
        put(w, &(back, &self.stalled));
        self.net.pack_end(w);
        self.nics.pack_end(Part::owns_nic(&self.net), w);
        self.pack_ranks(w);
        put(w, &(&self.trace, &self.profile, &self.replays));
        if let Some(t) = self.traffic.as_deref() {
            t.pack_end(w);
        }
    }

    /// Takes `bytes`, what [`Part::pack_end`] made of this same partition (of the same
    /// scenario, in another process or before [`Part::wipe_end`]), in place of this one's end
    /// state. An error if they do not read as that, to the last byte.
    pub(crate) fn unpack_end(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let r = &mut &bytes[..];
        let (now, events, by_kind): (u64, u64, Vec<u64>) = get(r, "the event counts")?;
        if by_kind.len() != self.events_by_kind.len() {
            return Err(Error(format!(
                "{} kinds of events packed, {} known",
                by_kind.len(),
                self.events_by_kind.len()
            )));
        }
        (self.now, self.events) = (Time(now), events);
        self.events_by_kind.copy_from_slice(&by_kind);
        let ((finished, peak), issued, sent): ((u32, u64), u64, u64) = get(r, "the counts")?;
        (self.finished, self.rdma.issued, self.mpi.sent) = (finished, issued, sent);
        // (what this copy's queue held counts too: the sum is the packed figure)
        self.peak_events = peak.saturating_sub(self.queue.peak() as u64);
        let metrics: Vec<(String, MetricEnd)> = get(r, "the metrics")?;
        self.metrics = metrics
            .into_iter()
            .map(|(k, m)| (k, Metric::from_end(m)))
            .collect();
        let (back, stalled): (Option<(u64, u64)>, Option<String>) = get(r, "the checks")?;
        self.time_went_back = back.map(|(a, b)| (Time(a), Time(b)));
        self.stalled = stalled;
        self.net.unpack_end(r)?;
        let Part { net, nics, .. } = self;
        nics.unpack_end(Part::owns_nic(net), r)?;
        for &rank in &self.mine {
            let packed: Rank = get(r, "a rank")?;
            if packed.id != rank {
                return Err(Error(format!("rank {} packed where {rank} is", packed.id)));
            }
            self.ranks[rank as usize].take_end(packed);
        }
        self.mpi.unpack_end(&self.mine, r)?;
        (self.trace, self.profile, self.replays) = get(r, "the records")?;
        if let Some(t) = self.traffic.as_deref_mut() {
            t.unpack_end(r)?;
        }
        if !r.is_empty() {
            return Err(Error(format!("{} bytes left over", r.len())));
        }
        Ok(())
    }

    /// Sets everything [`Part::pack_end`] covers to what a partition holds as built, or
    /// emptier (a test's: what packing forgot then shows in the outputs).
    pub(crate) fn wipe_end(&mut self) {
        (self.now, self.events, self.finished) = (Time::ZERO, 0, 0);
        self.events_by_kind = [0; Event::KINDS.len()];
        (self.peak_events, self.rdma.issued) = (0, 0);
        self.metrics.clear();
        (self.time_went_back, self.stalled) = (None, None);
        self.net.wipe_end();
        let Part { net, nics, .. } = self;
        nics.wipe_end(Part::owns_nic(net));
        for &r in &self.mine {
            self.ranks[r as usize].wipe_end();
        }
        self.mpi.wipe_end(&self.mine);
        (self.trace, self.profile) = (None, None);
        self.replays = crate::replay::Replays::default();
        if let Some(t) = self.traffic.as_deref_mut() {
            t.wipe_end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdma::OpKind;

    fn part() -> Part {
        let s = Scenario::from_str_with(
            "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\ncode = ''\n",
            std::path::Path::new("tiny.toml"),
            &[],
            false,
        )
        .unwrap();
        Part::new(&s)
    }

    /// A put of 64 B from rank 0 to rank 1 and back, run to the end and settled.
    fn ran() -> Part {
        let mut w = part();
        w.current = 0;
        w.issue(OpKind::Put, 1, 64, 7, None);
        w.current = 1;
        w.issue(OpKind::Put, 0, 4096, 3, None);
        loop {
            match w.advance() {
                Next::Idle => break,
                Next::Checkpoint => w.look_at_limits(),
                Next::Wake(_) => {}
            }
        }
        w.report("m".into(), 0.1);
        w.report("m".into(), 0.2);
        let end = w.latest();
        w.settle(end);
        w
    }

    /// The end state read into a copy of the partition built apart, that never ran: its
    /// figures, links and ranks are the run's.
    #[test]
    fn a_copy_that_never_ran_reads_the_end_state() {
        let w = ran();
        let bytes = w.pack_end();
        let mut copy = part();
        copy.unpack_end(&bytes).unwrap();
        assert_eq!((copy.now, copy.events), (w.now, w.events));
        assert!(w.events > 0 && w.nics.stats.packets_delivered > 0);
        assert_eq!(copy.nics.stats, w.nics.stats);
        copy.become_whole();
        let mut w = w;
        w.become_whole();
        // (the link table as the end of a run makes it: the copy's from the counters read in)
        let (la, lb) = (w.take_link_loads(w.now), copy.take_link_loads(copy.now));
        assert_eq!(la, lb);
        assert!(la.iter().any(|l| l.bytes > 4096), "{la:?}");
        let (a, b) = (w.view(), copy.view());
        for r in 0..2 {
            let (x, y) = (&a.ranks[r], &b.ranks[r]);
            assert_eq!(
                (x.clock, x.bytes_sent, x.bytes_received),
                (y.clock, y.bytes_sent, y.bytes_received)
            );
        }
        assert_eq!(a.ranks[1].bytes_received, 64);
        // 0.1 + 0.2 summed exactly, then rounded once: 0.30000000000000004 either way
        assert_eq!(b.metrics["m"].mean.to_bits(), a.metrics["m"].mean.to_bits());
        assert_eq!(b.metrics["m"].count, 2);
    }

    /// Bytes cut short, or with more after them, are refused with what did not read.
    #[test]
    fn bytes_that_do_not_read_are_an_error() {
        let bytes = ran().pack_end();
        let e = part().unpack_end(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a packed end state does not read: "),
            "{e}"
        );
        let mut more = bytes.clone();
        more.push(0);
        let e = part().unpack_end(&more).unwrap_err();
        assert!(e.to_string().ends_with("1 bytes left over"), "{e}");
        let e = part().unpack_end(&[]).unwrap_err();
        assert!(e.to_string().contains("the event counts"), "{e}");
    }
}
