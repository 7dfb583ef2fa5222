//! The packet-level network: topology, routers, links and the packets they carry.

pub(crate) mod flow;
pub(crate) mod packet;
pub(crate) mod power;
pub(crate) mod router;

pub(crate) use router::{LinkLoad, Network};
