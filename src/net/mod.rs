//! The packet-level network: topology, routers, links and the packets they carry.

pub mod flow;
pub(crate) mod packet;
pub mod power;
pub mod router;

pub use packet::{Packet, PacketPool, PktId};
pub use router::{Network, NetworkStats};
