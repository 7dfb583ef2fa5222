//! Flow control: a channel's own release (its tail has left), and the credit of the buffer it
//! feeds coming back (see "Each router acts on its own state" in the router's doc).
//!
//! A router input buffer's space is given back when the packet that holds it has left the
//! router: its tail leaving by the output (or, with output buffers, its crossing the
//! crossbar). The router that sends it on knows that moment when the send starts, and records
//! it for the channel that feeds the buffer ([`Returns`]): a *release*, time-stamped, at least
//! one serialization ahead. The feeding channel applies its releases when it next looks at its
//! credit, each at its own time (every packet that asks at that picosecond or later sees it;
//! the occupancy it integrates changes exactly then). A channel that looked and found too
//! little credit is *starved* (`Channel::waiting`): it is woken at its first recorded release
//! into a virtual channel it lacked credit in, in the picosecond's last step, feeders in
//! order; a wake-up that finds it no longer starved changes nothing and is not counted, so
//! that when a release was recorded (as it was sent, or later, from another partition) never
//! matters.
//!
//! A feeder's first pending release is kept in its own 16-byte entry ([`Pending`]), the
//! others in a ring of records: most feeders have one pending at a time, and then recording,
//! testing and applying it touch that entry alone.
//!
//! Invariant: a feeder's releases are in time order (equal times in the order recorded), and
//! the ones at or before `now` are applied before it uses its credit at `now`. Costs:
//! recording and applying O(1) (a release out of order, possible only with output-queued
//! routers, is placed by a walk); a wake-up O(1) in a timing wheel (`perf/wheel.rs`).

use super::*;
use crate::perf::wheel::Wheel;

/// One release waiting to be applied to its feeder's credit, after its first.
#[derive(Clone, Copy, Debug)]
struct Release {
    /// When the buffer's space comes back (ps).
    at: u64,
    /// `bytes << VC_BITS | virtual channel`.
    bytes_vc: u32,
    /// The next release of the same feeder; the last's is the first after the head (a ring).
    next: u32,
}

/// A feeder's releases: the first kept here, in the feeder's own entry (most feeders have at
/// most one pending, so recording and applying it touch this entry only), the others in a
/// ring of [`Release`]s of which `last` is the latest.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    /// When the first comes back (ps; [`NO_RELEASE`]: none is pending).
    at: u64,
    /// Its `bytes << VC_BITS | virtual channel`.
    bytes_vc: u32,
    /// The latest of the others, in this partition's `recs` (`NONE`: no other).
    last: u32,
}

/// `Pending::at` of a feeder with no release pending (no release is that late: time stops
/// at 2^63 ps).
const NO_RELEASE: u64 = u64::MAX;

// SAFETY: integers
unsafe impl crate::perf::slab::Zeroed for Pending {}

const NOTHING_PENDING: Pending = Pending {
    at: NO_RELEASE,
    bytes_vc: 0,
    last: NONE,
};

/// The releases recorded for each feeder and not yet applied, and the credit wake-ups due.
pub(super) struct Returns {
    /// Per channel, its releases: the first, and where the others are (in this partition's
    /// `recs`: a channel's releases are its owner's).
    pub(super) lists: SharedVec<Pending>,
    recs: Vec<Release>,
    free: u32,
    /// Releases recorded and not applied.
    held: usize,
    /// Credit wake-ups due, earliest first, then by channel: keys `time << 32 | channel` (one
    /// comparison of two words, where a pair took two).
    wakes: Wheel,
}

impl Returns {
    /// No release recorded for any of `channels` channels; with `unfilled`, their entries
    /// are zero pages until [`Returns::forget`] writes each of this process's
    /// (`Network::fill`).
    pub(super) fn new(channels: usize, unfilled: bool) -> Returns {
        Returns {
            lists: if unfilled {
                SharedVec::zeroed(channels)
            } else {
                SharedVec::new(vec![NOTHING_PENDING; channels])
            },
            recs: Vec::new(),
            free: NONE,
            held: 0,
            wakes: Wheel::default(),
        }
    }

    /// Asks for feeder `c`'s releases ([`crate::perf::prefetch`]).
    #[inline]
    pub(super) fn prefetch(&self, c: u32) {
        if let Some(l) = self.lists.get(c as usize) {
            prefetch(l);
        }
    }

    /// Releases recorded and not applied.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.held
    }

    /// Forgets feeder `c`'s releases (the run is over and another partition applied them).
    pub(super) fn forget(&mut self, c: usize) {
        self.lists[c] = NOTHING_PENDING;
    }

    /// Whether feeder `c` has a release due by `now` (ps).
    #[cfg(test)]
    pub(super) fn due(&self, c: u32, now: u64) -> bool {
        self.lists[c as usize].at <= now
    }

    /// A record for the ring, from the free list or new.
    #[inline]
    fn record(&mut self, rec: Release) -> u32 {
        if self.free != NONE {
            let i = self.free;
            self.free = self.recs[i as usize].next;
            self.recs[i as usize] = rec;
            i
        } else {
            self.recs.push(rec);
            (self.recs.len() - 1) as u32
        }
    }

    /// Records a release of `bytes` into virtual channel `vc` at `at` for feeder `c`, after
    /// those recorded at or before `at`. The common case, a feeder with none pending, is
    /// inlined at the caller; the rest is a call ([`Returns::push_behind`]).
    #[inline(always)]
    fn push(&mut self, c: u32, at: u64, bytes: u32, vc: u32) {
        debug_assert!(at < NO_RELEASE);
        self.held += 1;
        let bytes_vc = bytes << VC_BITS | vc;
        let l = &mut self.lists[c as usize];
        if l.at == NO_RELEASE {
            *l = Pending {
                at,
                bytes_vc,
                last: NONE,
            };
            return;
        }
        self.push_behind(c, at, bytes_vc);
    }

    /// [`Returns::push`] for a feeder with releases pending already.
    #[inline(never)]
    fn push_behind(&mut self, c: u32, at: u64, bytes_vc: u32) {
        let l = self.lists[c as usize];
        if l.last == NONE {
            // (a second: the ring of one; before the first only with output-queued routers)
            let (head, other) = if l.at <= at {
                ((l.at, l.bytes_vc), (at, bytes_vc))
            } else {
                ((at, bytes_vc), (l.at, l.bytes_vc))
            };
            let i = self.record(Release {
                at: other.0,
                bytes_vc: other.1,
                next: 0,
            });
            self.recs[i as usize].next = i;
            self.lists[c as usize] = Pending {
                at: head.0,
                bytes_vc: head.1,
                last: i,
            };
            return;
        }
        let last = l.last;
        let first = self.recs[last as usize].next;
        if self.recs[last as usize].at <= at {
            let i = self.record(Release {
                at,
                bytes_vc,
                next: first,
            });
            self.recs[last as usize].next = i;
            self.lists[c as usize].last = i;
        } else if at < l.at {
            // (output-queued: another output of the same router may release earlier) the
            // first becomes the first of the others
            let i = self.record(Release {
                at: l.at,
                bytes_vc: l.bytes_vc,
                next: first,
            });
            self.recs[last as usize].next = i;
            self.lists[c as usize].at = at;
            self.lists[c as usize].bytes_vc = bytes_vc;
        } else {
            // (output-queued, between the first and the latest: found by a walk)
            let (mut prev, mut cur) = (NONE, first);
            while self.recs[cur as usize].at <= at {
                (prev, cur) = (cur, self.recs[cur as usize].next);
            }
            let i = self.record(Release {
                at,
                bytes_vc,
                next: cur,
            });
            let before = if prev == NONE { last } else { prev };
            self.recs[before as usize].next = i;
        }
    }

    /// Takes feeder `c`'s first release if it is due by `now` (ps): `(at, bytes, vc)`.
    #[inline]
    fn take_due(&mut self, c: u32, now: u64) -> Option<(u64, u32, u32)> {
        let l = self.lists[c as usize];
        if l.at > now {
            return None;
        }
        self.held -= 1;
        self.lists[c as usize] = if l.last == NONE {
            NOTHING_PENDING
        } else {
            // the first of the others becomes the first
            let last = l.last;
            let first = self.recs[last as usize].next;
            let r = self.recs[first as usize];
            if first == last {
                self.recs[last as usize].next = self.free;
                self.free = last;
                Pending {
                    at: r.at,
                    bytes_vc: r.bytes_vc,
                    last: NONE,
                }
            } else {
                self.recs[last as usize].next = r.next;
                self.recs[first as usize].next = self.free;
                self.free = first;
                Pending {
                    at: r.at,
                    bytes_vc: r.bytes_vc,
                    last,
                }
            }
        };
        Some((
            l.at,
            l.bytes_vc >> VC_BITS,
            l.bytes_vc & ((1 << VC_BITS) - 1),
        ))
    }

    /// Feeder `c`'s releases, first to latest, while `go(at, bytes_vc)` says to go on.
    #[inline]
    fn walk(&self, c: u32, mut go: impl FnMut(u64, u32) -> bool) {
        let l = self.lists[c as usize];
        if l.at == NO_RELEASE || !go(l.at, l.bytes_vc) || l.last == NONE {
            return;
        }
        let mut i = self.recs[l.last as usize].next;
        loop {
            let r = self.recs[i as usize];
            if !go(r.at, r.bytes_vc) || i == l.last {
                return;
            }
            i = r.next;
        }
    }

    /// Feeder `c`'s first release after `now` into one of the virtual channels of `vcs` (a bit
    /// each), if any: its time (ps).
    fn first_after(&self, c: u32, vcs: u8, now: u64) -> Option<u64> {
        let mut found = None;
        self.walk(c, |at, bytes_vc| {
            if at > now && vcs & (1 << (bytes_vc & ((1 << VC_BITS) - 1))) != 0 {
                found = Some(at);
            }
            found.is_none()
        });
        found
    }

    /// Whether feeder `c` has a release due at exactly `at` (ps) into one of the virtual
    /// channels of `vcs` (a bit each).
    fn due_at(&self, c: u32, vcs: u8, at: u64) -> bool {
        let mut found = false;
        self.walk(c, |t, bytes_vc| {
            found = t == at && vcs & (1 << (bytes_vc & ((1 << VC_BITS) - 1))) != 0;
            !found
        });
        found
    }

    /// Feeder `c`'s releases due by `now` and not applied, in bytes, all virtual channels
    /// (adaptive routing's view of the buffer it feeds, without applying them).
    #[inline]
    pub(super) fn due_all(&self, c: u32, now: u64) -> u64 {
        let l = self.lists[c as usize];
        if l.at > now {
            return 0;
        }
        if l.last == NONE {
            return (l.bytes_vc >> VC_BITS) as u64;
        }
        let mut bytes = 0;
        self.walk(c, |at, bytes_vc| {
            if at > now {
                return false;
            }
            bytes += (bytes_vc >> VC_BITS) as u64;
            true
        });
        bytes
    }

    /// Feeder `c`'s releases due by `now` and not applied, in bytes per virtual channel `vc`.
    fn due_into(&self, c: u32, vc: u32, now: u64) -> u64 {
        let mut bytes = 0;
        self.walk(c, |at, bytes_vc| {
            if at > now {
                return false;
            }
            if bytes_vc & ((1 << VC_BITS) - 1) == vc {
                bytes += (bytes_vc >> VC_BITS) as u64;
            }
            true
        });
        bytes
    }
}

impl Network {
    /// The router port slot (`router · ports + port`) whose input buffers channel `c` feeds:
    /// `None` for a link into a NIC, or where there is no link.
    pub(super) fn slot_fed(&self, c: u32) -> Option<u32> {
        if c >= self.nr {
            Some(self.nic_slot(c - self.nr))
        } else if self.nic_on(c).is_some() {
            None
        } else {
            Some(self.link_to[c as usize]).filter(|&n| n != NONE)
        }
    }

    /// At the end of the run (`now`, the stop's time for a run stopped early), once: applies
    /// every release due, and counts the low power of links still asleep. What is still going
    /// on at `now` counts up to `now`, as in the time series: a packet still on a link is busy
    /// up to `now` only (its bytes and its packet were counted as its head left), and a buffer
    /// still holding bytes has them in the series up to `now` (`links.csv` integrates its
    /// occupancy to the stop: [`Network::take_link_loads`]).
    pub(crate) fn settle_all(&mut self, now: Time) {
        let t = now.ps();
        for c in 0..self.channels.len() as u32 {
            if self.owner[c as usize] != self.me {
                continue;
            }
            let ch = &self.channels[c as usize];
            if ch.busy && ch.free_at <= t {
                self.apply(c);
            }
            self.take_credit(c, now);
            let ch = &mut self.channels[c as usize];
            // (a channel sends one packet at a time: only its last can be on the link; a link
            // waking up, `queues.rs`, is busy with no packet until the end of its wake-up,
            // which its power state holds too)
            let tail = ch.free_at;
            let waking = |p: &crate::net::power::Power| p.links[c as usize].free_at == tail;
            if ch.busy && tail > t && !self.power.as_deref().is_some_and(waking) {
                ch.busy_ps -= (tail - t).min(ch.busy_ps);
            }
            if let (Some(s), true) = (self.series.as_deref_mut(), ch.occ > 0) {
                s.occupancy(c, ch.occ, t);
            }
        }
        let Some(pw) = self.power.as_deref_mut() else {
            return;
        };
        let ch = &self.channels;
        let (owner, me) = (&self.owner, self.me);
        let mine = (0..ch.len() as u32).filter(|&c| owner[c as usize] == me);
        let slept = pw.settle(now.ps(), mine, |c| ch[c as usize].busy);
        if let Some(s) = self.series.as_deref_mut() {
            for (c, from) in slept {
                s.low(c, from, now.ps());
            }
        }
    }

    /// Schedules an [`Event::HeadReady`] for channel `c` at `at`, unless one is pending no
    /// later.
    #[inline]
    pub(super) fn wake(&mut self, c: u32, at: Time, q: &mut EventQueue<Event>) {
        let ch = &mut self.channels[c as usize];
        if at.ps() < ch.wake_at {
            ch.wake_at = at.ps();
            q.push(at, Event::HeadReady(c));
        }
    }

    /// Channel `c`'s tail has left (its scheduled event). Returns the NIC whose transmit staging
    /// slot was freed, if that is what the packet held.
    pub(crate) fn channel_free(
        &mut self,
        c: u32,
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> Option<u32> {
        let ch = &mut self.channels[c as usize];
        // (when `free_at` is later, the release was applied at its time and the channel already
        // carries the next packet, which has its own event if it needs one)
        let current = ch.free_at == now.ps();
        if current && ch.busy {
            self.apply(c);
        }
        // the release this event was for, applied now or earlier at this picosecond
        let staging = self.channels[c as usize].released_staging;
        if current {
            self.channels[c as usize].scheduled = false;
        }
        with_model!(self.model, M => self.try_send::<M>(c, now, q));
        staging.then(|| c - self.nr)
    }

    /// Applies channel `c`'s own release at the time its tail left: the channel is idle, and
    /// what the packet held here (a NIC's staging slot, bytes of the channel's output buffer)
    /// is free.
    #[inline(always)]
    pub(super) fn apply(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        let at = Time(ch.free_at);
        ch.busy = false;
        let (up, rel) = (ch.releasing_up, ch.releasing);
        ch.releasing = NONE;
        // (a link that only woke up released nothing)
        ch.released_staging = rel != NONE && up == STAGING;
        if let Some(pw) = self.power.as_deref_mut() {
            pw.idle(c, at.ps());
        }
        if rel != NONE && up & OUTBUF != 0 && up != STAGING {
            let bytes = rel >> VC_BITS;
            let k = rel & ((1 << VC_BITS) - 1);
            self.ob_free(up & !OUTBUF, k, bytes);
        }
    }

    /// Records that the buffer channel `feeder` feeds gets `bytes` back in virtual channel `vc`
    /// at `at` (a packet holding them has started to leave, or has crossed). A starved feeder
    /// is woken then.
    #[inline(always)]
    pub(super) fn release(&mut self, feeder: u32, at: Time, bytes: u32, vc: u32) {
        // (one partition: every feeder is its own, and the owners' table is not read)
        if self.parts > 1 && self.owner[feeder as usize] != self.me {
            return self.release_across(feeder, at, bytes, vc);
        }
        self.record_release(feeder, at.ps(), bytes, vc);
    }

    /// Records a release for feeder `c`, this partition's; wakes it then if it is starved.
    #[inline(always)]
    fn record_release(&mut self, c: u32, at: u64, bytes: u32, vc: u32) {
        self.returns.push(c, at, bytes, vc);
        if self.channels[c as usize].waiting & (1 << vc) != 0 {
            self.wake_for_credit(c, at);
        }
    }

    /// [`Network::release`] for a feeder across a cut: a cut message to its partition; the
    /// packet that held the space no longer counts against this partition's lookahead.
    #[inline(never)]
    fn release_across(&mut self, feeder: u32, at: Time, bytes: u32, vc: u32) {
        let to = self.owner[feeder as usize] as usize;
        self.outbox[to].release.push(crate::cut::Release {
            feeder,
            at: at.ps(),
            bytes,
            vc: vc as u8,
        });
        self.cut_held.remove(bytes);
    }

    /// A release from across a cut (a [`crate::cut::Release`] taken in at the start of a window):
    /// recorded as if it had been made here.
    pub(crate) fn released_across(&mut self, feeder: u32, at: u64, bytes: u32, vc: u8) {
        self.record_release(feeder, at, bytes, vc as u32);
    }

    /// Applies the releases recorded for feeder `c` that are due by `now`, each at its time.
    /// The common case, one release pending and due, is applied inline; more than one is a
    /// call ([`Network::take_credit_due`]).
    #[inline(always)]
    pub(super) fn take_credit(&mut self, c: u32, now: Time) {
        let l = self.returns.lists[c as usize];
        if l.at > now.ps() {
            return;
        }
        if l.last != NONE {
            return self.take_credit_due(c, now);
        }
        self.returns.lists[c as usize] = NOTHING_PENDING;
        self.returns.held -= 1;
        self.credit_back(
            c,
            l.at,
            l.bytes_vc >> VC_BITS,
            l.bytes_vc & ((1 << VC_BITS) - 1),
        );
    }

    /// Puts the `bytes` of a release at `at` (ps) back into the credit of feeder `c`'s
    /// virtual channel `vc`.
    #[inline(always)]
    fn credit_back(&mut self, c: u32, at: u64, bytes: u32, vc: u32) {
        let i = self.cr(c, vc);
        self.credit[i] += bytes;
        debug_assert!(
            self.credit[i] <= self.capacity,
            "channel {c} vc {vc}: credit {} above {}",
            self.credit[i],
            self.capacity
        );
        self.occupy(c, Time(at), -(bytes as i64));
    }

    /// [`Network::take_credit`] when some release is recorded.
    #[inline(never)]
    fn take_credit_due(&mut self, c: u32, now: Time) {
        while let Some((at, bytes, vc)) = self.returns.take_due(c, now.ps()) {
            self.credit_back(c, at, bytes, vc);
        }
    }

    /// Channel `c`, starved for credit in the virtual channels `vcs` (a bit each), is woken at
    /// the first release into one of them recorded for it after `now`, if there is one (later
    /// ones wake it when they are recorded: [`Network::release`]). A wake-up depends only on
    /// when credit comes back, never on when the release was recorded (here, or taken in from
    /// another partition), so that every partitioning wakes it alike.
    #[inline]
    pub(super) fn wait_for_credit(&mut self, c: u32, vcs: u8, now: Time) {
        if let Some(at) = self.returns.first_after(c, vcs, now.ps()) {
            self.wake_for_credit(c, at);
        }
    }

    /// Schedules a credit wake-up of channel `c` at `at` (ps), unless one is due no later.
    #[inline(always)]
    fn wake_for_credit(&mut self, c: u32, at: u64) {
        let ch = &mut self.channels[c as usize];
        if at < ch.credit_wake_at {
            ch.credit_wake_at = at;
            self.returns.wakes.push((at as u128) << 32 | c as u128);
        }
    }

    /// When the next credit wake-up is due (ps; `u64::MAX`: none). It is taken after every
    /// event of its picosecond.
    #[inline]
    pub(crate) fn credit_wake_due(&self) -> u64 {
        self.returns.wakes.due()
    }

    /// Takes the next credit wake-up (due at `now`): the starved channel looks again. Returns
    /// whether it was one: not outdated, its channel's last look still found it starved, and
    /// credit comes back now into a virtual channel it waits for. Only those count as events.
    /// (A wake-up is scheduled by the release its channel waited for when the release was
    /// recorded, which across a cut is later than in one partition: by then the channel may
    /// wait for another virtual channel. Such a wake-up still looks, and finds nothing to
    /// send, but does not count: the count is the same for any partitioning, and so is where
    /// `limits.events` stops the run.)
    pub(crate) fn credit_wake(&mut self, now: Time, q: &mut EventQueue<Event>) -> bool {
        let Some(key) = self.returns.wakes.pop() else {
            return false;
        };
        let (at, c) = ((key >> 32) as u64, key as u32);
        debug_assert_eq!(at, now.ps());
        let ch = &mut self.channels[c as usize];
        if ch.credit_wake_at != at {
            return false;
        }
        ch.credit_wake_at = u64::MAX;
        let waiting = ch.waiting;
        if waiting == 0 {
            return false;
        }
        let due = self.returns.due_at(c, waiting, at);
        with_model!(self.model, M => self.try_send::<M>(c, now, q));
        due
    }

    /// Router channel `c`'s pending release becomes an event (something now waits for it).
    #[inline]
    pub(super) fn schedule(&mut self, c: u32, q: &mut EventQueue<Event>) {
        let ch = &mut self.channels[c as usize];
        ch.scheduled = true;
        q.push(Time(ch.free_at), Event::ChannelFree(c));
    }

    /// A NIC has taken a packet out of its receive buffer: give the credit back to the router
    /// channel that feeds it (the NIC's own router: at once).
    pub(crate) fn release_rx(&mut self, pkt: PktId, now: Time, q: &mut EventQueue<Event>) {
        let p = self.packets.get(pkt);
        if p.from == NONE {
            return; // a loopback packet never held network credit
        }
        let (wire, up) = (p.wire, p.from);
        let i = self.cr(up, p.held_vc as u32);
        self.credit[i] += wire;
        self.occupy(up, now, -(wire as i64));
        with_model!(self.model, M => self.try_send::<M>(up, now, q));
    }

    /// Bytes recorded for feeder `c`'s virtual channel `vc` that are due by `now` and not yet
    /// applied (for the self-check).
    pub(super) fn credit_due(&self, c: u32, vc: u32, now: u64) -> u64 {
        self.returns.due_into(c, vc, now)
    }

    /// Releases recorded and not yet applied.
    #[cfg(test)]
    pub(crate) fn releases_held(&self) -> usize {
        self.returns.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    #[test]
    fn releases_come_back_in_time_order_then_recorded_order_against_a_model() {
        // a few feeders, releases recorded mostly in time order and sometimes earlier than
        // those held (as an output-queued router's do), taken as time goes on
        let mut r = Returns::new(4, false);
        let mut model: Vec<Vec<(u64, u32, u32)>> = vec![Vec::new(); 4];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut now = 0u64;
        for step in 0..20_000 {
            let c = (rng.next_u32() % 4) as usize;
            match rng.next_u32() % 5 {
                0..=2 => {
                    let at = now + rng.next_u64() % 40;
                    let (bytes, vc) = (rng.next_u32() % 4096, rng.next_u32() % 8);
                    r.push(c as u32, at, bytes, vc);
                    // after every release held at or before `at`
                    let m = &mut model[c];
                    let i = m.partition_point(|x| x.0 <= at);
                    m.insert(i, (at, bytes, vc));
                }
                3 => {
                    let (vc, vcs) = (rng.next_u32() % 8, (rng.next_u32() % 256) as u8);
                    let m = &model[c];
                    let want = m
                        .iter()
                        .filter(|x| x.0 <= now && x.2 == vc)
                        .map(|x| x.1 as u64)
                        .sum::<u64>();
                    assert_eq!(r.due_into(c as u32, vc, now), want, "step {step}");
                    let all = m
                        .iter()
                        .filter(|x| x.0 <= now)
                        .map(|x| x.1 as u64)
                        .sum::<u64>();
                    assert_eq!(r.due_all(c as u32, now), all, "step {step}");
                    let after = m.iter().find(|x| x.0 > now && vcs & (1 << x.2) != 0);
                    assert_eq!(r.first_after(c as u32, vcs, now), after.map(|x| x.0));
                }
                _ => {
                    now += rng.next_u64() % 20;
                    while let Some(got) = r.take_due(c as u32, now) {
                        assert_eq!(got, model[c].remove(0), "step {step}");
                    }
                    assert!(model[c].first().is_none_or(|x| x.0 > now));
                    assert!(!r.due(c as u32, now));
                }
            }
            assert_eq!(r.len(), model.iter().map(Vec::len).sum::<usize>());
        }
    }
}
