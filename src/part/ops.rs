//! The operations the API calls on a partition: a transfer issued, the NICs a transfer uses,
//! a metric reported (the rules their values follow are `calls.rs`'s).

use super::*;

impl Part {
    /// The running rank issues a put or get to rank `peer` of its job (checked): the node
    /// latency goes on its clock, then the transfer starts at its NIC (`nic`, an index on its
    /// node, or the next in turn).
    pub(crate) fn issue(
        &mut self,
        kind: OpKind,
        peer: u32,
        bytes: u64,
        tag: i64,
        nic: Option<u32>,
    ) -> i64 {
        let me = self.current;
        self.watch.turn_posts += 1;
        let peer = self.nodes.job(me).base + peer;
        let nics = self.pick_nics(me, peer, nic);
        let rank = &mut self.ranks[me as usize];
        let before = rank.clock;
        rank.clock += self.node_latency;
        let h = self
            .rdma
            .issue(kind, me, rank, peer, bytes, tag, nics, &mut self.queue);
        if let Some(tr) = self.trace.as_deref_mut() {
            let (name, flow) = match kind {
                OpKind::Put => ("MGEN_rdma_put", flow_id(h)),
                OpKind::Get => ("MGEN_rdma_get", 0),
            };
            let what = What::Call {
                name,
                peer,
                bytes,
                tag,
                flow,
            };
            tr.span(me, before.ps(), self.ranks[me as usize].clock.ps(), what);
        }
        if let Some(p) = self.profile.as_deref_mut() {
            let api = match kind {
                OpKind::Put => Api::Put,
                OpKind::Get => Api::Get,
            };
            p.call(me, api, (self.ranks[me as usize].clock - before).ps());
        }
        h
    }

    /// The NICs that carry a transfer between ranks `me` and `peer`: NIC `index` of each node,
    /// or, without an index, the next of `me`'s node in turn.
    #[inline]
    pub(crate) fn pick_nics(&mut self, me: u32, peer: u32, index: Option<u32>) -> (u32, u32) {
        let k = self.nodes.nics_per_node;
        let i = index.unwrap_or_else(|| {
            if k == 1 {
                return 0; // (one NIC a node: no turn to keep, and no division)
            }
            let r = &mut self.ranks[me as usize];
            let i = r.next_nic as u32 % k;
            r.next_nic = ((i + 1) % k) as u8;
            i
        });
        (self.nodes.nic(me, i), self.nodes.nic(peer, i))
    }

    /// Records a script's `MGEN_report(name, value)`; with several jobs the name is prefixed
    /// with the reporting rank's job (`victim.alltoall_s`).
    pub(crate) fn report(&mut self, name: String, v: f64) {
        let name = if self.nodes.jobs.len() > 1 {
            format!("{}.{name}", self.nodes.job(self.current).name)
        } else {
            name
        };
        self.metrics.entry(name).or_default().add(v);
    }
}

/// The id of the flow arrow of the transfer with handle `h` (never 0, which means none).
pub(crate) fn flow_id(h: i64) -> i64 {
    h + 1
}
