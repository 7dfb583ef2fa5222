//! The NICs under the flow model (`network.model = "flow"`): a message leaves as one flow
//! of the flow network (`net/flow/`) rather than as packets, and arrives when its flow ends.

use super::*;

impl Nics {
    /// [`Nics::send`] in the flow model: the message is routed once, as it starts, and moves
    /// as a flow.
    #[cold]
    #[inline(never)]
    pub(super) fn send_flow(
        &mut self,
        mut msg: Msg,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let (src, dst) = (msg.src, msg.dst);
        let path = if src / self.per_node != dst / self.per_node {
            net.path(src, dst, now)
        } else {
            Vec::new()
        };
        // (a path is its injection channel, its router-to-router links and its ejection)
        msg.hops = path.len().saturating_sub(2).min(u8::MAX as usize) as u8;
        let Some(m) = self.alloc(msg, net) else {
            return;
        };
        self.start_sending(m, Sending::default());
        self.stats.packets += msg.packets as u64;
        let fl = self.flow.as_deref_mut().expect("the flow model");
        fl.start(net, m, src, dst, msg.bytes, path, now, q);
    }

    /// Flow model: an [`Event::FlowDone`]. Adds to `ended` the messages whose bytes have all
    /// been read by now (their senders' buffers are free again).
    pub(crate) fn flow_done(
        &mut self,
        what: u32,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
        ended: &mut Vec<u32>,
    ) {
        let Some(fl) = self.flow.as_deref_mut() else {
            return;
        };
        let from = ended.len();
        fl.done(net, what, now, q, ended);
        for &m in &ended[from..] {
            let msg = *self.msg(m);
            let took = self.dma.transfer_time(Bytes(msg.bytes)).ps();
            self.nics[msg.src as usize].tx_busy += took;
            self.nics[msg.dst as usize].rx_busy += took;
        }
    }

    /// Flow model: message `m` is in its destination's memory ([`Event::FlowArrive`]); the
    /// caller must [`Nics::free`] it once handled.
    pub(crate) fn flow_arrive(&mut self, m: u32, now: Time) -> Arrival {
        let msg = *self.msg(m);
        let st = &mut self.stats;
        st.packets_delivered += msg.packets as u64;
        st.payload_bytes += msg.bytes;
        st.messages += 1;
        if !msg.kind.is_control() {
            let took = (now - msg.issued).ps();
            st.data_messages += 1;
            st.latency_sum_ps += took as u128;
            st.latency_min_ps = st.latency_min_ps.min(took);
            st.latency_max_ps = st.latency_max_ps.max(took);
            st.hops_sum += msg.hops as u64;
            st.hops_max = st.hops_max.max(msg.hops as u32);
        }
        if msg.kind.has_envelope() {
            Arrival::EnvelopeDelivered(m)
        } else {
            Arrival::Delivered(m)
        }
    }
}
