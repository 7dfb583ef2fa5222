//! The NICs cut into partitions' shares (`split`) and gathered into one at the end
//! (`absorb`).

use super::*;

impl Nics {
    /// These NICs seen by `parts` partitions: one `Nics` each, sharing the NICs' state (each
    /// NIC changed by its own partition only), with their own messages, which all can read.
    pub(crate) fn split(self, parts: u32) -> Vec<Nics> {
        if parts <= 1 {
            return vec![self];
        }
        let bits = crate::perf::stable::part_bits(parts);
        let mut all: Vec<Nics> = (0..parts)
            .map(|p| Nics {
                nics: self.nics.clone(),
                per_node: self.per_node,
                msgs: Stable::new(p, bits),
                all_msgs: self.all_msgs.clone(),
                sending: Vec::new(),
                receiving: Mirror::new(bits),
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
        let dir = crate::perf::stable::directory(&all.iter().map(|n| &n.msgs).collect::<Vec<_>>());
        for n in &mut all {
            n.all_msgs = dir.clone();
        }
        all
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
