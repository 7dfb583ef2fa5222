//! Buffer usage history (NSIM's, docs/model.md §7): every packet through the input buffers of
//! chosen routers in a chosen period.
//!
//! A row opens when a packet's head reaches a watched router (its upstream channel started
//! sending it one cable latency earlier and took the credit then) and is completed when the
//! router sends it on: the time its head leaves, the output port, and the time its tail has
//! left, which is when its space in the buffer is given back.

use std::collections::HashMap;

/// Which router to watch, and when: packets whose head arrives in `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Watch {
    /// The router watched.
    pub(crate) router: u32,
    /// From (ps).
    pub(crate) from_ps: u64,
    /// To (ps; `u64::MAX` for the run's end).
    pub(crate) to_ps: u64,
}

/// One packet's stay in one input buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stay {
    /// The router.
    pub router: u32,
    /// Input port and virtual channel: the buffer.
    pub in_port: u8,
    /// Virtual channel of the buffer.
    pub(crate) vc: u8,
    /// Source and destination NICs of the packet.
    pub(crate) src: u32,
    /// Destination NIC.
    pub(crate) dst: u32,
    /// Its size on the wire (payload and header).
    pub bytes: u32,
    /// When its head arrived, in ps.
    pub arrive_ps: u64,
    /// Bytes held in this buffer once its space was taken, this packet included.
    pub occupancy: u32,
    /// When its head left on `out_port`, and when its tail had left (its space freed); `None`
    /// while still in the buffer at the end of the run.
    pub depart_ps: Option<u64>,
    /// The port it left by (None: still there at the end).
    pub out_port: Option<u8>,
    /// When its buffer space was freed (ps; None: not yet).
    pub freed_ps: Option<u64>,
}

/// The rows so far, and the open ones by packet.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct BufferHistory {
    watches: Vec<Watch>,
    /// One row per packet through a watched buffer.
    pub(crate) rows: Vec<Stay>,
    #[serde(skip)] // (emptied when partitions are gathered: not packed)
    open: HashMap<u32, u32>,
}

impl BufferHistory {
    /// A history of the buffers `watches` name, empty.
    pub(crate) fn new(watches: Vec<Watch>) -> BufferHistory {
        BufferHistory {
            watches,
            rows: Vec::new(),
            open: HashMap::new(),
        }
    }

    /// Gathers `other`, another partition's history of the same run, into this one; the rows
    /// are then in the order of the model (arrival, router, input port, virtual channel),
    /// whichever partition recorded them.
    pub(crate) fn absorb(&mut self, other: BufferHistory) {
        self.rows.extend(other.rows);
        self.open.clear();
        self.sort();
    }

    /// Puts the rows in the order of the model (see [`BufferHistory::absorb`]).
    pub(crate) fn sort(&mut self) {
        self.open.clear();
        self.rows
            .sort_by_key(|r| (r.arrive_ps, r.router, r.in_port, r.vc, r.src, r.dst));
    }

    /// Whether router `r` is watched at all (the cheap test the network makes first).
    #[inline]
    pub(crate) fn watches(&self, r: u32) -> bool {
        self.watches.iter().any(|w| w.router == r)
    }

    /// Packet `pkt` reaches router `stay.router` at `stay.arrive_ps`: a row if the router is
    /// watched then.
    pub(crate) fn arrive(&mut self, pkt: u32, stay: Stay) {
        let t = stay.arrive_ps;
        if self
            .watches
            .iter()
            .any(|w| w.router == stay.router && w.from_ps <= t && t < w.to_ps)
        {
            self.open.insert(pkt, self.rows.len() as u32);
            self.rows.push(stay);
        }
    }

    /// Packet `pkt` leaves its router on `port`: head at `depart`, tail at `freed`.
    pub(crate) fn depart(&mut self, pkt: u32, port: u8, depart: u64, freed: u64) {
        if let Some(i) = self.open.remove(&pkt) {
            let row = &mut self.rows[i as usize];
            row.depart_ps = Some(depart);
            row.out_port = Some(port);
            row.freed_ps = Some(freed);
        }
    }
}
