//! Packets: the unit the network moves (MODEL.md §3). A message is cut into packets of at most
//! `mtu` payload bytes, each carrying `header_bytes` more on the wire. Contents are never
//! stored, only sizes and the routing state, which travels with the packet.

use crate::units::Time;

/// Index of a packet in the [`PacketPool`].
pub type PktId = u32;

/// "No packet / no buffer" marker in the intrusive lists and buffer fields.
pub const NONE: u32 = u32::MAX;

/// A packet in flight. 40 bytes; kept in a pool and referred to by index.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// When the packet's tail arrived where the packet now is (NSIM's last-flit time).
    pub tail: Time,
    /// The message this packet belongs to.
    pub msg: u32,
    /// Bytes on the wire: payload plus header.
    pub wire: u32,
    /// Payload bytes (what DMA moves).
    pub payload: u32,
    /// Destination router (and NIC).
    pub dst: u32,
    /// Router the head is at (or the NIC it is in, before injection and after ejection).
    pub at: u32,
    /// Buffer whose credit this packet holds (`NONE` when it holds none).
    pub buf: u32,
    /// Next packet in the same output queue.
    pub next: PktId,
    /// Virtual channel of the buffer it holds or is queued for.
    pub vc: u8,
    /// Dimension it is correcting (`topology::NO_DIM` before the first router hop).
    pub dim: u8,
}

/// A free-list pool of packets: no allocation per packet once the pool has grown to the
/// largest number in flight at once.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    live: u32,
    peak: u32,
}

impl PacketPool {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PktId
        }
    }
    #[inline]
    pub fn release(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    /// Packets in flight now.
    pub fn live(&self) -> u32 {
        self.live
    }
    /// Most packets ever in flight at once.
    pub fn peak(&self) -> u32 {
        self.peak
    }
}
