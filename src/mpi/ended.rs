//! What the end of a run asks of the message-passing layer: a request's kind and peer, the
//! messages waiting unexpected and the receives posted (for the deadlock and leftover reports),
//! and each rank's queues packed for the process that writes the report (`part/pack.rs`).

use super::*;

impl Mpi {
    /// What request `seq` of `rank` is: a send to `peer` (true), or a receive from `peer`
    /// ([`ANY_SOURCE`] allowed), and its tag ([`ANY_TAG`] allowed for a receive); None if the
    /// rank has no such request. `rank` is one of this partition's.
    pub(crate) fn request_of(&self, rank: &Rank, seq: u32) -> Option<(bool, i64, i64)> {
        let requests = &self.queues[rank.id as usize].requests;
        let &(_, id) = requests.iter().find(|&&(s, _)| s == seq)?;
        let r = self.reqs.get(id);
        Some((r.send, r.peer, r.tag))
    }

    /// The messages that reached rank `r` and no receive matched, oldest first: `(sender,
    /// tag, bytes)`. (Any rank's once the run is over, [`Mpi::become_whole`].)
    pub(crate) fn unexpected_at(&self, r: u32) -> impl Iterator<Item = (u32, i64, u64)> + '_ {
        let q = &self.queues[r as usize];
        q.unexpected
            .iter()
            .map(|&m| {
                let m = self.msg(m);
                (m.src, m.tag, m.bytes)
            })
            .chain(q.ended.iter().copied())
    }

    /// Packs the queues of `ranks` (this partition's) as the end of the run reads them
    /// (`part/pack.rs`): the receives posted, the requests, and each message arrived and not
    /// received as `(sender, tag, bytes)`, its record being its sender's.
    pub(crate) fn pack_end(&self, ranks: &[u32], w: &mut Vec<u8>) {
        for &r in ranks {
            let held: Vec<(u32, i64, u64)> = self.unexpected_at(r).collect();
            crate::packed::put(w, &(&self.queues[r as usize], held));
        }
    }

    /// Reads what [`Mpi::pack_end`] packed of the same `ranks` into their queues.
    pub(crate) fn unpack_end(
        &mut self,
        ranks: &[u32],
        r: &mut &[u8],
    ) -> Result<(), crate::packed::Error> {
        for &rank in ranks {
            let (mut q, held): (LazyQueues, Vec<(u32, i64, u64)>) =
                crate::packed::get(r, "a rank's message queues")?;
            if !held.is_empty() {
                q.ended = held;
            }
            self.queues[rank as usize] = q;
        }
        Ok(())
    }

    /// The queues of `ranks` as built, and no message counted sent (what packing covers,
    /// undone: a test's).
    pub(crate) fn wipe_end(&mut self, ranks: &[u32]) {
        for &r in ranks {
            self.queues[r as usize] = LazyQueues::default();
        }
        self.sent = 0;
    }

    /// The receives rank `r` posted and no message matched, oldest first: `(source, tag)`,
    /// with [`ANY_SOURCE`] and [`ANY_TAG`]. (Any rank's once the run is over.)
    pub(crate) fn posted_at(&self, r: u32) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.queues[r as usize]
            .posted
            .iter()
            .map(|p| (p.src, p.tag))
    }
}
