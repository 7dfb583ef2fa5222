//! The fabric a run's messages cross, as the message layers (`rdma.rs`, `mpi/`) see it: a
//! [`Wire`] is the NICs of a partition and the fabric that carries their messages.
//!
//! There are two fabrics, chosen by `network.model` (docs/model.md §3, §3a):
//!
//! - **packets** (`net/router/`): the NICs cut a message into packets (`nic/`), which cross
//!   the routers one hop at a time with credit flow control;
//! - **flows** (`net/flow/`): a message moves whole, as one flow over the route a packet of it
//!   would take, sharing links and DMA engines max-min fairly with the other flows.
//!
//! The NICs keep every message's record and what it costs them under either fabric; the
//! fabric moves it. The choice is made once per message, here, and neither fabric knows the
//! other.

use crate::event::Event;
use crate::net::flow::FlowNet;
use crate::net::Network;
use crate::nic::{MsgKind, Nics};
use crate::sim::EventQueue;
use crate::units::Time;

/// What a message layer sends through: a partition's NICs, its share of the packet network
/// (which also holds the links' statistics and power under the flow model), and the flow
/// network when the run has one.
pub(crate) struct Wire<'a> {
    pub(crate) nics: &'a mut Nics,
    pub(crate) net: &'a mut Network,
    pub(crate) flows: Option<&'a mut FlowNet>,
}

impl Wire<'_> {
    /// Hands a new message of `bytes` payload bytes (a control message: none) from NIC `src`
    /// to NIC `dst` to its source NIC at `now`, for transfer `op` of its layer.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn send(
        &mut self,
        kind: MsgKind,
        op: u32,
        src: u32,
        dst: u32,
        bytes: u64,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let msg = self.nics.message(kind, op, src, dst, bytes, now);
        let Some(flows) = self.flows.as_deref_mut() else {
            return self.nics.send_packets(msg, self.net, now, q);
        };
        // the message is routed once, as it starts (a path is its injection channel, its
        // router-to-router links and its ejection; none within a node)
        let path = if self.nics.node_of(src) != self.nics.node_of(dst) {
            self.net.path(src, dst, now)
        } else {
            Vec::new()
        };
        let hops = path.len().saturating_sub(2).min(u8::MAX as usize) as u8;
        if let Some(m) = self.nics.open_whole(msg, hops, self.net) {
            flows.start(self.net, m, src, dst, msg.bytes(), path, now, q);
        }
    }
}
