//! The NICs' side of synthetic traffic (`openloop/`): a generated packet sent as a message of
//! one packet, and what is recorded when it arrives.

use super::*;

impl Nics {
    /// A packet of synthetic traffic (`traffic/`), `wire` bytes from NIC `src` to NIC `dst`,
    /// of traffic job `job`, created at `created`: a record of its own (which says when it
    /// was created and entered the NIC's injection channel), then into that channel at `now`,
    /// without DMA and through the routers even to its own node. False when no record could
    /// be made (the network then says why, and the run stops).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send_synthetic(
        &mut self,
        src: u32,
        dst: u32,
        wire: u32,
        job: u8,
        created: Time,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> bool {
        // (`op` holds how long it waited in its source: ps below 2^31, else ns with the top
        // bit set; `hops`, unused by packets, its traffic job)
        let wait = (now - created).ps();
        let op = if wait < 1 << 31 {
            wait as u32
        } else {
            (1 << 31) | (wait / 1000).min((1 << 31) - 1) as u32
        };
        let msg = Msg {
            kind: MsgKind::Synthetic,
            op,
            src,
            dst,
            issued: now,
            bytes: (wire - self.header) as u64,
            packets: 1,
            hops: job,
        };
        let Some(m) = self.alloc(msg, net) else {
            return false;
        };
        self.stats.packets += 1;
        let mut p = Packet::new(m, wire, src, dst);
        p.only = true;
        let pkt = net.packets.alloc(p);
        net.inject(src, pkt, now, q);
        true
    }

    /// What the record of synthetic message `m` says: when its packet was created, when it
    /// entered its NIC's injection channel, and its traffic job.
    #[inline]
    pub(crate) fn synthetic_of(&self, m: u32) -> (Time, Time, u8) {
        let msg = self.msg(m);
        let wait = if msg.op & (1 << 31) == 0 {
            msg.op as u64
        } else {
            (msg.op & !(1 << 31)) as u64 * 1000
        };
        (msg.issued - Time(wait), msg.issued, msg.hops)
    }

    /// A packet of synthetic traffic, measured, leaves the network at its destination NIC:
    /// the buffer it held gets its credit back at once (no DMA), and its record is freed.
    pub(crate) fn synthetic_done(
        &mut self,
        pkt: PktId,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        net.release_rx(pkt, now, q);
        let p = *net.packets.get(pkt);
        net.packets.release(pkt);
        self.stats.packets_delivered += 1;
        self.stats.payload_bytes += (p.wire - self.header) as u64;
        self.free(p.msg, 1, net);
    }
}
