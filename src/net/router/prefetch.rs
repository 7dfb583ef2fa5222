//! The prefetch stages (see "Layout" in the router's doc): what an event a few events ahead
//! will read, asked for before it is taken. They change what is in the cache, never what the
//! run computes.

use super::*;

impl Network {
    /// Prefetches what event `ev` reads first: its channel's two lines, or its packet. Called
    /// a few events before `ev` is taken ([`crate::perf::prefetch`]).
    #[inline]
    pub fn prefetch_far(&self, ev: &Event) {
        match *ev {
            Event::HeadReady(c) | Event::ChannelFree(c) => {
                self.prefetch_channel(c);
                if c < self.nr {
                    // the releases of its own router, which a busy channel settles
                    self.pending.prefetch(c / self.ports);
                }
            }
            Event::RouterReady(p)
            | Event::NicArrive(p)
            | Event::RxDmaDone(p)
            | Event::TxDmaDone(p) => prefetch(self.packets.get(p)),
            _ => {}
        }
    }

    /// Prefetches what event `ev` reads next, once [`Network::prefetch_far`] has brought in
    /// its channel or packet: the heads of that channel's queues, and the channel whose
    /// credit the event gives back (which it then tries to send on).
    #[inline]
    pub fn prefetch_near(&self, ev: &Event) {
        match *ev {
            Event::HeadReady(c) | Event::ChannelFree(c) => {
                if let Some(ch) = self.channels.get(c as usize) {
                    if ch.next != NONE {
                        // the releases into the buffers it feeds, which a send settles first
                        self.pending.prefetch(ch.next);
                    }
                    self.prefetch_heads(ch);
                    self.prefetch_channel(Self::waking(ch));
                }
            }
            Event::RxDmaDone(p) => self.prefetch_channel(self.packets.get(p).from),
            _ => {}
        }
    }

    /// Prefetches what event `ev` reads last, once [`Network::prefetch_near`] has brought in
    /// the channel it gives credit back to: the heads of that channel's queues.
    #[inline]
    pub fn prefetch_close(&self, ev: &Event) {
        if self.iq {
            // input-queued: what sending a head reads of its input (the crossbar port, in the
            // feeder's second line) and the packet behind it there, routed when it leaves
            if let Event::HeadReady(c) | Event::ChannelFree(c) = *ev {
                if let Some(ch) = self.channels.get(c as usize) {
                    for f in &ch.queues[..self.classes as usize] {
                        if f.head != NONE {
                            let p = self.packets.get(f.head);
                            if let Some(feeder) = self.channels.get(p.from as usize) {
                                prefetch(&feeder.occ_moment);
                            }
                            if p.in_next != NONE {
                                prefetch(self.packets.get(p.in_next));
                            }
                        }
                    }
                }
            }
        }
        let up = match *ev {
            Event::ChannelFree(c) => self.channels.get(c as usize).map_or(NONE, Self::waking),
            Event::RxDmaDone(p) => self.packets.get(p).from,
            _ => return,
        };
        if let Some(ch) = self.channels.get(up as usize) {
            self.prefetch_heads(ch);
        }
    }

    /// The channel whose credit a [`Event::ChannelFree`] for `ch` gives back (by its release,
    /// pending or applied), which it then tries to send on: `NONE` or [`STAGING`] if none.
    #[inline]
    pub(super) fn waking(ch: &Channel) -> u32 {
        if ch.releasing != NONE {
            ch.releasing_up
        } else {
            ch.released_up
        }
    }

    /// Prefetches both lines of channel `c`, if it is one (not `NONE` or [`STAGING`]).
    #[inline]
    pub(super) fn prefetch_channel(&self, c: u32) {
        if let Some(ch) = self.channels.get(c as usize) {
            prefetch(ch);
            prefetch(&ch.occ_moment);
            if let Some(cr) = self.credit.get(self.cr(c, 0)) {
                prefetch(cr);
            }
        }
    }

    /// Prefetches the head packets of `ch`'s queues.
    #[inline]
    pub(super) fn prefetch_heads(&self, ch: &Channel) {
        for f in &ch.queues[..self.classes as usize] {
            if f.head != NONE {
                prefetch(self.packets.get(f.head));
            }
        }
    }
}
