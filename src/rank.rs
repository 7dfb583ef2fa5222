//! The engine's side of a rank: its clock, what it waits for, its poll counts and handles.
//!
//! A rank runs ahead of the global clock until it blocks (docs/model.md §1): non-blocking calls
//! advance `clock` and stamp the events they create; a blocking call whose condition is not
//! already met records a [`Wait`] and yields. The event that meets the condition wakes the
//! rank at `max(clock, event time)`.

use super::random::Xoshiro;
use crate::event::Event;
use crate::perf::list::List;
use crate::sim::EventQueue;
use crate::units::Time;

/// Every rank of the run, numbered globally; each partition changes only its own ranks'
/// (`perf/slab.rs`).
pub(crate) type Ranks = crate::perf::slab::SharedVec<Rank>;

/// What a blocked rank waits for. (`repr(u8)`: zero bytes are [`Wait::Nothing`], see
/// [`Rank`]'s `Zeroed`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub(crate) enum Wait {
    /// Nothing: the rank is ready, running or done.
    Nothing,
    /// `MGEN_rdma_poll(tag)`: a put with this tag delivered to this rank.
    Poll(i64),
    /// `MGEN_acp_complete(handle)`: the transfer with this per-rank sequence number complete.
    Complete(u32),
    /// `MGEN_Wait(request)` and the blocking calls built on it: the request's per-rank
    /// sequence number, and the call the script made.
    Request(u32, Call),
}

/// The call a rank blocked in on an MPI request, as the script wrote it (deadlock reports
/// name it, in the words [`Call::wait_words`] gives: a script that called `MGEN_Recv` never saw
/// the request it waits on). The calls that wait on a request are those of the API's table
/// (`api/mod.rs`) that block on one (`Blocks::Request`).
pub(crate) use crate::api::Call;

/// A rank's state. (`repr(u8)`: zero bytes are [`Status::Ready`], see [`Rank`]'s `Zeroed`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub(crate) enum Status {
    /// Has a wake-up event scheduled.
    Ready,
    Running,
    Blocked,
    Done,
    /// Its script failed or a limit stopped it: it never runs again (the run is stopping).
    Failed,
}

/// One rank's state. 200 bytes plus its lists.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Rank {
    /// Its number.
    pub(crate) id: u32,
    /// The rank's own simulated time (ahead of or equal to the engine's).
    #[serde(with = "crate::packed::ps")]
    pub(crate) clock: Time,
    pub(crate) status: Status,
    pub(crate) wait: Wait,
    /// Delivered puts not yet polled, per tag: `(tag, count)`.
    polls: List<(i64, u32)>,
    /// Transfers issued and not yet complete: `(sequence number, operation)`.
    pub(crate) outstanding: List<(u32, u32)>,
    /// Sequence number of the next transfer this rank issues.
    pub(crate) next_seq: u32,
    /// One bit per transfer: set once `MGEN_acp_complete` was called for it (handles are
    /// single-use). Transfers 0 to 63 here (no allocation for most ranks), the others in
    /// `completed_more`, 64 per word.
    completed: u64,
    // (boxed: one word in every rank, where a vector would be three; allocated only by a
    // rank with more than 64 transfers)
    #[allow(clippy::box_collection)]
    completed_more: Option<Box<Vec<u64>>>,
    #[serde(skip)] // (not read once the run is over: not packed)
    pub(crate) rng: Xoshiro,
    /// Payload bytes this rank sent: puts and messages.
    pub(crate) bytes_sent: u64,
    /// Payload bytes that arrived in this rank's memory: puts to it, its gets, its receives.
    pub(crate) bytes_received: u64,
    /// Puts and messages this rank sent.
    pub(crate) messages_sent: u64,
    /// Index of the NIC of its node its next transfer takes when the call names none.
    pub(crate) next_nic: u8,
    /// Time spent in `MGEN_Comp`.
    #[serde(with = "crate::packed::ps")]
    pub(crate) compute: Time,
    /// Time spent blocked, by call: `MGEN_rdma_poll`, `MGEN_acp_complete`, and the
    /// message-passing waits (`MGEN_Wait`, `MGEN_Recv`, `MGEN_Send`, ...).
    #[serde(with = "crate::packed::ps_array")]
    pub(crate) waited: [Time; 3],
    /// What it was last blocked on and since when (for the timeline; `Wait::Nothing` once
    /// taken).
    #[serde(with = "crate::packed::ps_after")]
    pub(crate) blocked: (Wait, Time),
    /// Regions begun (`MGEN_region_begin`) and not yet ended.
    pub(crate) regions: u32,
    /// Whether an `MGEN_Comp` took its clock past the time limit (the rank's last call: it is
    /// given no further turn, `Part::pause_due`): at a stop at the limit, the time past it was
    /// compute (`Part::cut_at`).
    pub(crate) computed_past_limit: bool,
}

// SAFETY: every field accepts zero bytes, and a rank of zero bytes is `Rank::new(0, ..)` with
// random numbers of zero: integers and times, the random numbers' words, `Status` and `Wait`
// (`repr(u8)`, variant 0 with no fields: `Ready`, `Nothing`), the lists (`List`: empty) and
// `completed_more` (a null box: `None`); dropping it frees nothing. (An MPI process leaves
// the ranks of other processes so, in pages it never touches: `part/build.rs`.)
unsafe impl crate::perf::slab::Zeroed for Rank {}

impl Rank {
    /// Takes `packed`, this rank's state at the end of the run as its partition packed it
    /// (`part/pack.rs`, every field but the random numbers'), in place of this one's.
    pub(crate) fn take_end(&mut self, packed: Rank) {
        let rng = self.rng;
        *self = packed;
        self.rng = rng;
    }

    /// This rank as built, its random numbers kept (what packing covers, undone: a test's).
    pub(crate) fn wipe_end(&mut self) {
        *self = Rank::new(self.id, self.rng);
    }
}

impl Rank {
    pub(crate) fn new(id: u32, rng: Xoshiro) -> Rank {
        Rank {
            id,
            clock: Time::ZERO,
            status: Status::Ready,
            wait: Wait::Nothing,
            polls: List::new(),
            outstanding: List::new(),
            next_seq: 0,
            completed: 0,
            completed_more: None,
            rng,
            bytes_sent: 0,
            bytes_received: 0,
            messages_sent: 0,
            next_nic: 0,
            compute: Time::ZERO,
            waited: [Time::ZERO; 3],
            blocked: (Wait::Nothing, Time::ZERO),
            regions: 0,
            computed_past_limit: false,
        }
    }

    /// The rank's script has ended: it marks no handle again, and lists left empty give
    /// their memory back now (a rank's lists sit between the Lua objects of ranks that ended
    /// before, and would keep their pages from being given back: `Simulation::report`).
    pub(crate) fn end(&mut self) {
        self.status = Status::Done;
        self.completed_more = None;
        if self.polls.is_empty() {
            self.polls = List::new();
        }
        if self.outstanding.is_empty() {
            self.outstanding = List::new();
        }
    }

    /// Takes one delivered put with `tag` if there is one; otherwise blocks on it.
    pub(crate) fn try_poll(&mut self, tag: i64) -> bool {
        if let Some(i) = self.polls.iter().position(|&(t, _)| t == tag) {
            self.polls[i].1 -= 1;
            if self.polls[i].1 == 0 {
                self.polls.swap_remove(i);
            }
            true
        } else {
            self.status = Status::Blocked;
            self.wait = Wait::Poll(tag);
            false
        }
    }

    /// A put with `tag` has been delivered to this rank at `now`. Returns true if it woke
    /// the rank (the put is then consumed by the waiting poll).
    pub(crate) fn deliver(&mut self, tag: i64) -> bool {
        if self.status == Status::Blocked && self.wait == Wait::Poll(tag) {
            return true;
        }
        match self.polls.iter_mut().find(|(t, _)| *t == tag) {
            Some((_, n)) => *n += 1,
            None => self.polls.push((tag, 1)),
        }
        false
    }

    /// Marks the handle of transfer `seq` used by `MGEN_acp_complete`; false if it already was.
    pub(crate) fn use_handle(&mut self, seq: u32) -> bool {
        let bit = 1u64 << (seq % 64);
        let word = match (seq / 64) as usize {
            0 => &mut self.completed,
            w => {
                let more = self.completed_more.get_or_insert_with(Box::default);
                if more.len() < w {
                    more.resize(w, 0);
                }
                &mut more[w - 1]
            }
        };
        let fresh = *word & bit == 0;
        *word |= bit;
        fresh
    }

    /// Returns whether transfer `seq` is already complete; if not, blocks on it.
    pub(crate) fn try_complete(&mut self, seq: u32) -> bool {
        if self.outstanding.iter().any(|&(s, _)| s == seq) {
            self.status = Status::Blocked;
            self.wait = Wait::Complete(seq);
            false
        } else {
            true
        }
    }

    /// Transfer `seq` is complete. Returns true if the rank was waiting for it.
    pub(crate) fn complete(&mut self, seq: u32) -> bool {
        if let Some(i) = self.outstanding.iter().position(|&(s, _)| s == seq) {
            self.outstanding.swap_remove(i);
        }
        self.status == Status::Blocked && self.wait == Wait::Complete(seq)
    }

    /// Whether the rank is blocked waiting for its request `seq`.
    pub(crate) fn waits_for_request(&self, seq: u32) -> bool {
        self.status == Status::Blocked && matches!(self.wait, Wait::Request(s, _) if s == seq)
    }

    /// Blocks in `call` until request `seq` completes.
    pub(crate) fn block_on_request(&mut self, seq: u32, call: Call) {
        self.status = Status::Blocked;
        self.wait = Wait::Request(seq, call);
    }

    /// Wakes the rank at `max(clock, at)`.
    pub(crate) fn wake_owner(&mut self, at: Time, q: &mut EventQueue<Event>) {
        let id = self.id;
        self.wake(id, at, q);
    }

    /// Schedules the rank to resume at `max(clock, at)`.
    #[inline]
    pub(crate) fn wake(&mut self, id: u32, at: Time, q: &mut EventQueue<Event>) {
        let waited = at.max(self.clock) - self.clock;
        if self.status == Status::Blocked {
            self.blocked = (self.wait, self.clock);
            match self.wait {
                Wait::Poll(_) => self.waited[0] += waited,
                Wait::Complete(_) => self.waited[1] += waited,
                Wait::Request(..) => self.waited[2] += waited,
                Wait::Nothing => {}
            }
        }
        self.clock = self.clock.max(at);
        self.status = Status::Ready;
        self.wait = Wait::Nothing;
        q.push(self.clock, Event::RankWake(id));
    }

    /// Puts delivered to this rank and never polled.
    pub(crate) fn unpolled(&self) -> u64 {
        self.polls.iter().map(|&(_, n)| n as u64).sum()
    }

    /// Puts delivered to this rank and not polled yet, per tag: `(tag, count)`.
    pub(crate) fn unpolled_tags(&self) -> &[(i64, u32)] {
        &self.polls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_handle_is_used_once_below_and_above_64_transfers() {
        let mut r = Rank::new(0, Xoshiro::from_seed(1));
        for seq in [0, 63, 64, 127, 128, 1000] {
            assert!(r.use_handle(seq), "transfer {seq}, first use");
            assert!(!r.use_handle(seq), "transfer {seq}, second use");
        }
        for seq in [1, 62, 65, 129, 999, 1001] {
            assert!(r.use_handle(seq), "transfer {seq} was not used");
        }
        // (a million ranks hold this much each, besides their lists)
        assert!(std::mem::size_of::<Rank>() <= 200);
    }

    /// Ending a rank gives back only what nothing reads again: the puts it never polled stay
    /// (the summary warns of them), and a transfer completing after the end finds nothing
    /// waiting on it.
    #[test]
    fn an_ended_rank_keeps_its_unpolled_puts_and_its_outstanding_transfers() {
        let mut r = Rank::new(3, Xoshiro::from_seed(1));
        assert!(!r.deliver(7));
        assert!(!r.deliver(7));
        assert!(!r.deliver(9));
        r.outstanding.push((0, 11));
        assert!(r.use_handle(0));
        r.end();
        assert_eq!(r.status, Status::Done);
        assert_eq!(r.unpolled(), 3);
        assert_eq!(r.unpolled_tags(), &[(7, 2), (9, 1)]);
        assert_eq!(&r.outstanding[..], &[(0, 11)]);
        assert!(!r.complete(0));
        assert!(r.outstanding.is_empty());
    }
}
