//! The NICs' side of a message that moves whole, as one flow of the flow fabric
//! (`network.model = "flow"`, `fabric.rs`): its record, what its DMA engines spend on it, and
//! what its arrival counts. The moving itself is the flow network's (`net/flow/`).

use super::*;

impl Nics {
    /// Makes the record of message `msg` ([`Nics::message`]), which moves whole over
    /// `hops` router-to-router links: `None` (the network told why) if there is no room.
    #[cold]
    #[inline(never)]
    pub(crate) fn open_whole(&mut self, mut msg: Msg, hops: u8, net: &mut Network) -> Option<u32> {
        msg.hops = hops;
        let m = self.alloc(msg, net)?;
        self.start_sending(m, Sending::default());
        self.stats.packets += msg.packets as u64;
        Some(m)
    }

    /// Message `m`'s bytes have all been read from its sender's memory: its NICs' transmit
    /// and receive DMA engines were busy for its whole transfer time.
    pub(crate) fn read_whole(&mut self, m: u32) {
        let msg = *self.msg(m);
        let took = self.dma.transfer_time(Bytes(msg.bytes)).ps();
        self.nics[msg.src as usize].tx_busy += took;
        self.nics[msg.dst as usize].rx_busy += took;
    }

    /// Message `m`, which moved whole, is in its destination's memory at `now`; the caller
    /// must [`Nics::free`] it once handled.
    pub(crate) fn arrived_whole(&mut self, m: u32, now: Time) -> Arrival {
        let msg = *self.msg(m);
        self.stats.packets_delivered += msg.packets as u64;
        self.stats.payload_bytes += msg.bytes;
        self.stats.delivered(&msg, now, msg.hops);
        if msg.kind.has_envelope() {
            Arrival::EnvelopeDelivered(m)
        } else {
            Arrival::Delivered(m)
        }
    }
}
