//! The NICs cut into partitions' shares (`split`) and gathered into one at the end
//! (`absorb`).

use super::*;
use crate::cut::{MsgRecord, Record};

/// Each [`MsgKind`] at its number (`kind as u8`).
const KINDS: [MsgKind; 9] = [
    MsgKind::PutData,
    MsgKind::PutAck,
    MsgKind::GetRequest,
    MsgKind::GetData,
    MsgKind::Eager,
    MsgKind::Rts,
    MsgKind::Cts,
    MsgKind::RndvData,
    MsgKind::Synthetic,
];
const _: () = assert!(KINDS[8] as u8 == 8 && KINDS[4] as u8 == 4);

impl Nics {
    /// These NICs seen by `parts` partitions: one `Nics` each, sharing the NICs' state (each
    /// NIC changed by its own partition only), with their own messages, which all can read.
    /// Partitions of different process groups (`processes` of them, `perf/stable.rs`
    /// [`Group`]) read each other's messages from copies: `nic_part` says which partition
    /// each NIC's messages go to.
    pub(crate) fn split(self, parts: u32, processes: u32, nic_part: &[u16]) -> Vec<Nics> {
        if parts <= 1 {
            return vec![self];
        }
        let bits = crate::perf::stable::part_bits(parts);
        let nic_part: Arc<[u16]> = if processes > 1 {
            nic_part.into()
        } else {
            Arc::from([])
        };
        let mut all: Vec<Nics> = (0..parts)
            .map(|p| Nics {
                nics: self.nics.clone(),
                per_node: self.per_node,
                msgs: Stable::new(p, bits),
                all_msgs: self.all_msgs.clone(),
                sending: Vec::new(),
                receiving: Mirror::new(bits),
                group: Group::of(p, parts, processes, bits),
                copies: Copies::new(),
                nic_part: nic_part.clone(),
                bits,
                dma: self.dma,
                mtu: self.mtu,
                header: self.header,
                cut_through: self.cut_through,
                stats: self.stats.clone(),
                traffic: self
                    .traffic
                    .as_ref()
                    .map(|t| Box::new(crate::probe::traffic::Traffic::new_like(t))),
            })
            .collect();
        let pools: Vec<&Stable<Msg>> = all.iter().map(|n| &n.msgs).collect();
        let dirs: Vec<_> = all
            .iter()
            .map(|n| crate::perf::stable::group_directory(&pools, n.group))
            .collect();
        for (n, dir) in all.iter_mut().zip(dirs) {
            n.all_msgs = dir;
        }
        all
    }

    /// Sends a copy of message `m`, just made, to its destination NIC's partition if that is
    /// of another process group (`cut.rs`, "When a record travels").
    #[inline(never)]
    pub(super) fn copy_out(&self, m: u32, msg: &Msg, net: &mut Network) {
        let to = self.nic_part[msg.dst as usize];
        if self.group.holds(to as u32) {
            return;
        }
        net.outbox[to as usize].records.push(Record::Msg(MsgRecord {
            id: m,
            kind: msg.kind as u8,
            op: msg.op,
            src: msg.src,
            dst: msg.dst,
            issued: msg.issued.ps(),
            bytes: msg.bytes,
            packets: msg.packets,
            hops: msg.hops,
        }));
    }

    /// The partition of NIC `nic`, if it is of another process group than this one.
    #[inline]
    pub(crate) fn remote(&self, nic: u32) -> Option<usize> {
        let to = *self.nic_part.get(nic as usize)?;
        (!self.group.holds(to as u32)).then_some(to as usize)
    }

    /// Keeps the copy of another process group's message that came with the cut messages.
    pub(crate) fn keep(&mut self, r: &MsgRecord) {
        self.copies.keep(
            r.id,
            Msg {
                kind: *KINDS.get(r.kind as usize).expect("a NIC message's kind"),
                op: r.op,
                src: r.src,
                dst: r.dst,
                issued: Time(r.issued),
                bytes: r.bytes,
                packets: r.packets,
                hops: r.hops,
            },
        );
    }

    /// Gathers the totals of `other`, another partition's NICs of the same run.
    pub(crate) fn absorb(&mut self, other: &Nics) {
        let (a, b) = (&mut self.stats, &other.stats);
        a.packets += b.packets;
        a.packets_delivered += b.packets_delivered;
        a.payload_bytes += b.payload_bytes;
        a.messages += b.messages;
        a.data_messages += b.data_messages;
        a.latency_sum_ps += b.latency_sum_ps;
        a.latency_min_ps = a.latency_min_ps.min(b.latency_min_ps);
        a.latency_max_ps = a.latency_max_ps.max(b.latency_max_ps);
        if let (Some(t), Some(u)) = (self.traffic.as_deref_mut(), other.traffic.as_deref()) {
            t.absorb(u);
        }
        let (a, b) = (&mut self.stats, &other.stats);
        a.hops_sum += b.hops_sum;
        a.hops_max = a.hops_max.max(b.hops_max);
    }
}

impl Nics {
    /// The run ends at `end` (the stop's time, for a run stopped early): the DMA engines of the
    /// NICs `mine` says are its own count their busy time up to it. A read or write is counted
    /// whole as it starts; what of it comes after `end` is taken back (a NIC's writes after
    /// `end` run back to back until `rx_free`, each begun by then: docs/model.md §2).
    pub(crate) fn settle(&mut self, end: Time, mine: impl Fn(u32) -> bool) {
        let end = end.ps();
        for n in (0..self.nics.len() as u32).filter(|&n| mine(n)) {
            let nic = &mut self.nics[n as usize];
            if nic.dma_busy && nic.dma_until > end {
                nic.tx_busy -= nic.dma_until - end;
                nic.dma_until = end;
            }
            if nic.rx_free.ps() > end {
                nic.rx_busy -= nic.rx_free.ps() - end;
                nic.rx_free = Time(end);
            }
        }
    }

    /// Packs what the end of the run reads of this partition's NICs: their totals, the
    /// traffic matrix, and the DMA busy times (ps, sending and receiving) of the NICs `mine`
    /// says are its own.
    pub(crate) fn pack_end(&self, mine: impl Fn(u32) -> bool, w: &mut Vec<u8>) {
        use crate::packed::put;
        put(w, &self.stats);
        put(w, &self.traffic);
        for n in (0..self.nics.len() as u32).filter(|&n| mine(n)) {
            let nic = &self.nics[n as usize];
            put(w, &(nic.tx_busy, nic.rx_busy));
        }
    }

    /// Reads what [`Nics::pack_end`] packed of the same partition (the same `mine`).
    pub(crate) fn unpack_end(
        &mut self,
        mine: impl Fn(u32) -> bool,
        r: &mut &[u8],
    ) -> Result<(), crate::packed::Error> {
        use crate::packed::get;
        self.stats = get(r, "the NICs' totals")?;
        self.traffic = get(r, "the traffic matrix")?;
        for n in (0..self.nics.len() as u32).filter(|&n| mine(n)) {
            let (tx, rx): (u64, u64) = get(r, "a NIC's busy times")?;
            let nic = &mut self.nics[n as usize];
            (nic.tx_busy, nic.rx_busy) = (tx, rx);
        }
        Ok(())
    }

    /// Sets what [`Nics::pack_end`] covers to what a partition holds as built (a test's).
    pub(crate) fn wipe_end(&mut self, mine: impl Fn(u32) -> bool) {
        self.stats = NicStats {
            latency_min_ps: u64::MAX,
            ..NicStats::default()
        };
        self.traffic = None;
        for n in (0..self.nics.len() as u32).filter(|&n| mine(n)) {
            let nic = &mut self.nics[n as usize];
            (nic.tx_busy, nic.rx_busy) = (0, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 NICs, one a node, in 4 partitions of 2 NICs, in 2 process groups of 2 partitions.
    fn four_in_two() -> Vec<Nics> {
        let nics = Nics::new(
            8,
            1,
            Bandwidth::parse("100 Gb/s").unwrap(),
            Bytes(4096),
            Bytes(64),
            false,
        );
        nics.split(4, 2, &[0, 0, 1, 1, 2, 2, 3, 3])
    }

    #[test]
    fn another_group_s_message_is_read_from_its_copy_and_one_s_own_group_in_place() {
        let mut all = four_in_two();
        // NIC 7 (partition 3, group 1) sends 10,000 bytes to NIC 0 (partition 0, group 0)
        let msg = all[3].message(MsgKind::PutData, 42, 7, 0, 10_000, Time(5));
        let far = all[3].msgs.alloc(msg).unwrap();
        // NIC 2 (partition 1, group 0) sends to NIC 1 (partition 0): read in place
        let near = all[1].message(MsgKind::Eager, 9, 2, 1, 8, Time(6));
        let near_id = all[1].msgs.alloc(near).unwrap();
        assert_eq!(*all[0].msg(near_id), near);
        assert!(all[0].remote(6).is_some() && all[0].remote(3).is_none());
        assert_eq!(all[0].remote(5), Some(2));
        all[0].keep(&MsgRecord {
            id: far,
            kind: MsgKind::PutData as u8,
            op: 42,
            src: 7,
            dst: 0,
            issued: 5,
            bytes: 10_000,
            packets: 3,
            hops: 0,
        });
        assert_eq!(*all[0].msg(far), msg);
        assert_eq!(all[0].msg(far).packets(), 3);
    }

    #[test]
    #[should_panic(expected = "of another process group, is read here without its copy")]
    fn another_group_s_message_read_without_its_copy_is_caught() {
        let mut all = four_in_two();
        let msg = all[2].message(MsgKind::PutAck, 1, 4, 0, 0, Time(0));
        let far = all[2].msgs.alloc(msg).unwrap();
        let _ = all[0].msg(far);
    }
}
