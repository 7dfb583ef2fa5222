//! What one partition tells another: the cut messages (docs/architecture.md, "Partitions").
//!
//! Partitions meet at links (`partition.rs`), and the model makes everything that crosses a
//! link take time: a packet sent to the next router is of use there only a cable and a router
//! pipeline later, and the space it held comes back to the router that sent it only when its
//! tail has left, at least one serialization after that router started it on its way
//! (`net/router/mod.rs`, "Each router acts on its own state"). So a partition can simulate a
//! *window* of time on its own, and hand what it did to its neighbours as cut messages, which
//! they take in at the start of the next window:
//! - [`Cut::Arrive`]: a packet sent across a cut link, with what its next router needs; it is
//!   put in place at the end of its epoch, which never falls inside the window it was sent in;
//! - [`Cut::Release`]: the space of a buffer fed across a cut comes back at `at`, which is at
//!   least one serialization of a packet held in such a buffer after the window began
//!   ([`Lookahead`]);
//! - [`Cut::Done`]: a message, transfer or send that the other partition made is done with
//!   here, and its record may be reused (not part of the model's time).
//!
//! They are plain data (ids are global, times picoseconds), so the same messages could cross a
//! wire between processes. A partition takes in its messages in a fixed order (by sending
//! partition, then as sent), which depends only on the model: so does everything it does
//! with them.

use crate::net::packet::Packet;
use crate::units::{Bandwidth, Bytes, Time};

/// One cut message.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cut {
    /// A packet sent across a cut link: `arrival` as its next router takes it in, `packet` as
    /// it left (its place in the sender's pool and queues means nothing here).
    Arrive {
        /// When and from where (`net/router/arrivals.rs`).
        arrival: crate::net::router::Arrival,
        /// The packet.
        packet: Packet,
    },
    /// Channel `feeder` gets `bytes` of credit back in virtual channel `vc` at `at` (ps).
    Release {
        /// The channel that feeds the buffer.
        feeder: u32,
        /// When (ps).
        at: u64,
        /// Bytes.
        bytes: u32,
        /// Virtual channel.
        vc: u8,
    },
    /// The record `id` of pool `pool`, made by the receiving partition, is done with.
    Done {
        /// Which pool.
        pool: Pool,
        /// Its global id.
        id: u32,
    },
}

/// Cut messages a mailbox keeps room for once emptied (about 1.7 MB): a window that sent more
/// (a barrier's step can send a million at once) does not hold on to their memory for the
/// rest of the run.
const KEEP: usize = 1 << 14;

/// Empties a mailbox taken in, keeping room for at most [`KEEP`] messages.
pub(crate) fn empty(mail: &mut Vec<Cut>) {
    mail.clear();
    if mail.capacity() > KEEP {
        mail.shrink_to(KEEP);
    }
}

/// The pools whose records cross partitions (`perf/stable.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pool {
    /// A NIC message (`nic.rs`).
    Msg,
    /// A message-passing send (`mpi.rs`).
    P2p,
}

/// How soon a partition could give credit back across a cut: one serialization, on the
/// fastest output of any router, of the shortest packet held in a buffer fed across a cut.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lookahead {
    /// The fastest rate a router output (or crossbar) moves a packet at.
    pub(crate) fastest: Bandwidth,
}

impl Lookahead {
    /// The least time a packet of `wire` bytes takes to leave a router (at least 1 ps).
    pub(crate) fn serialization(&self, wire: u32) -> u64 {
        self.fastest
            .transfer_time(Bytes(wire as u64))
            .max(Time(1))
            .ps()
    }
}
