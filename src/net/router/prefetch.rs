//! The prefetch stages (see "Layout" in the router's doc): what an event a few events ahead
//! will read, asked for before it is taken. They change what is in the cache, never what the
//! run computes.

use super::*;

impl Network {
    /// Prefetches what event `ev` reads first: its channel's two lines, or its packet. Called
    /// a few events before `ev` is taken ([`crate::perf::prefetch`]).
    #[inline]
    pub(crate) fn prefetch_far(&self, ev: &Event) {
        match *ev {
            Event::HeadReady(c) | Event::ChannelFree(c) => {
                self.prefetch_channel(c);
                // (the releases recorded for its credit, which a send applies first)
                self.returns.prefetch(c);
            }
            Event::RouterReady(p) | Event::NicArrive(p) | Event::RxDmaDone(p) => {
                prefetch(self.packets.get(p))
            }
            Event::TxDmaDone(p) if p & crate::event::STREAMED == 0 => prefetch(self.packets.get(p)),
            _ => {}
        }
    }

    /// Prefetches what event `ev` reads next, once [`Network::prefetch_far`] has brought in
    /// its channel or packet: the heads of that channel's queues, or the channel a NIC gives
    /// credit back to.
    #[inline]
    pub(crate) fn prefetch_near(&self, ev: &Event) {
        match *ev {
            Event::HeadReady(c) | Event::ChannelFree(c) => {
                if let Some(ch) = self.channels.get(c as usize) {
                    self.prefetch_heads(ch);
                }
            }
            Event::RxDmaDone(p) => self.prefetch_channel(self.packets.get(p).from),
            _ => {}
        }
    }

    /// Prefetches what event `ev` reads last, once [`Network::prefetch_near`] has brought in
    /// the channel it gives credit back to: the heads of that channel's queues.
    #[inline]
    pub(crate) fn prefetch_close(&self, ev: &Event) {
        if self.model.input_fifos() {
            // input-queued: what sending a head reads of its input (the crossbar port, in the
            // feeder's second line) and the packet behind it there, routed when it leaves
            if let Event::HeadReady(c) | Event::ChannelFree(c) = *ev {
                if let Some(ch) = self.channels.get(c as usize) {
                    for f in &ch.queues[..self.classes as usize] {
                        if f.head != NONE {
                            let p = self.packets.get(f.head);
                            if let Some(x) = self.xbar.get(p.from as usize) {
                                prefetch(x);
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
            Event::RxDmaDone(p) => self.packets.get(p).from,
            _ => return,
        };
        if let Some(ch) = self.channels.get(up as usize) {
            self.prefetch_heads(ch);
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
