//! Flow control: releases (a tail has left, its buffer gets its credit back), applied when
//! due or turned into events when something waits for them (see "A release happens" in the
//! router's doc).

use super::*;

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

    /// At the end of the run (`now`): applies every pending release, and counts the low power
    /// of links still asleep.
    pub fn settle_all(&mut self, now: Time) {
        for r in 0..self.routers {
            self.settle(r, now);
        }
        for c in self.nr..self.channels.len() as u32 {
            let ch = &self.channels[c as usize];
            if ch.busy && ch.free_at <= now.ps() {
                self.apply(c);
            }
        }
        let Some(pw) = self.power.as_deref_mut() else {
            return;
        };
        let ch = &self.channels;
        let slept = pw.settle(now.ps(), |c| ch[c as usize].busy);
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
    pub fn channel_free(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) -> Option<u32> {
        let nr = self.nr;
        let ch = &mut self.channels[c as usize];
        // (when `free_at` is later, the release was applied at its time and the channel already
        // carries the next packet, which has its own event if it needs one)
        let current = ch.free_at == now.ps();
        if current && ch.busy {
            if c < nr {
                // with the releases of this router that came due, in time order
                self.settle(c / self.ports, now);
            } else {
                self.apply(c);
            }
        }
        // the release this event was for, applied now or earlier at this picosecond
        let up = self.channels[c as usize].released_up;
        // (not NONE, STAGING or a channel's own output buffer)
        if up & OUTBUF == 0 {
            self.try_send(up, now, q);
        }
        // (only now: a packet that `up` sends may be queued here, and counts on this look)
        if current {
            self.channels[c as usize].scheduled = false;
        }
        self.try_send(c, now, q);
        (up == STAGING).then_some(c - nr)
    }

    /// Applies channel `c`'s release at the time its tail left: the channel is idle and the
    /// buffer its packet held gets its credit back.
    #[inline(always)]
    pub(super) fn apply(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        let at = Time(ch.free_at);
        ch.busy = false;
        let (up, rel) = (ch.releasing_up, ch.releasing);
        ch.releasing = NONE;
        // (a link that only woke up released nothing)
        ch.released_up = if rel == NONE { NONE } else { up };
        if let Some(pw) = self.power.as_deref_mut() {
            pw.idle(c, at.ps());
        }
        if rel != NONE && up != STAGING {
            let bytes = rel >> VC_BITS;
            let vc = rel & ((1 << VC_BITS) - 1);
            if up & OUTBUF != 0 {
                self.ob_free(up & !OUTBUF, vc, bytes);
            } else {
                let i = self.cr(up, vc);
                self.credit[i] += bytes;
                self.occupy(up, at, -(bytes as i64));
            }
        }
    }

    /// Applies the releases of router `r` whose tails have left by `now`; in time order when a
    /// time series is recorded (its occupancy is integrated piece by piece).
    #[inline]
    pub(super) fn settle(&mut self, r: RouterId, now: Time) {
        let now = now.ps();
        for w in 0..self.pending.bit_words() {
            let due = self.pending.due(r, w, now);
            if due == 0 {
                continue;
            }
            if self.series.is_some() {
                self.settle_in_order(r, now);
                return;
            }
            let mut bits = due;
            while bits != 0 {
                let port = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                self.pending.clear(r, port);
                self.apply(r * self.ports + port);
            }
        }
    }

    /// [`Network::settle`] one release at a time, earliest first (then by port), for the time
    /// series.
    pub(super) fn settle_in_order(&mut self, r: RouterId, now: u64) {
        loop {
            let mut first: Option<(u64, u32)> = None;
            for w in 0..self.pending.bit_words() {
                let mut bits = self.pending.due(r, w, now);
                while bits != 0 {
                    let port = (w * 64) as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    let t = self.pending.time(r, port);
                    if first.map_or(true, |f| (t, port) < f) {
                        first = Some((t, port));
                    }
                }
            }
            let Some((_, port)) = first else { return };
            self.pending.clear(r, port);
            self.apply(r * self.ports + port);
        }
    }

    /// Router channel `c`'s pending release becomes an event (something now waits for it).
    #[inline]
    pub(super) fn schedule(&mut self, c: u32, q: &mut EventQueue<Event>) {
        let ch = &mut self.channels[c as usize];
        ch.scheduled = true;
        q.push(Time(ch.free_at), Event::ChannelFree(c));
    }

    /// Channel `feeder` waits for credit in the virtual channels of class `k` of the buffer
    /// it feeds (in router `r`): every pending release into them becomes an event, so that it
    /// is woken when the credit comes back.
    pub(super) fn wake_releases(
        &mut self,
        r: RouterId,
        feeder: u32,
        k: u32,
        q: &mut EventQueue<Event>,
    ) {
        let vcs = self.class_vcs(k);
        for w in 0..self.pending.bit_words() {
            let mut bits = self.pending.busy(r, w);
            while bits != 0 {
                let c = r * self.ports + (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                let ch = &self.channels[c as usize];
                if !ch.scheduled && ch.releases_into(feeder, vcs.clone()).is_some() {
                    self.schedule(c, q);
                }
            }
        }
    }

    /// A NIC has taken a packet out of its receive buffer: give the credit back to the router.
    pub fn release_rx(&mut self, pkt: PktId, now: Time, q: &mut EventQueue<Event>) {
        let p = self.packets.get(pkt);
        if p.from == NONE {
            return; // a loopback packet never held network credit
        }
        let (wire, up) = (p.wire, p.from);
        let i = self.cr(up, p.held_vc as u32);
        self.credit[i] += wire;
        self.occupy(up, now, -(wire as i64));
        self.try_send(up, now, q);
    }
}
