//! The engine: the model's state ([`World`]), the dispatch of each event to the component it
//! concerns, and the loop that alternates between the event core and the rank coroutines.
//!
//! Data flows one way: a script calls the API (operations) → the NIC cuts packets → routers
//! and links move them as events → deliveries and completions wake ranks → scripts go on.
//!
//! ```
//! use mgensim::{config::Scenario, engine::Simulation};
//! let s = Scenario::from_str_with(
//!     "[network]\ndims = [2]\n[workload]\ncode = '''
//!        if MGEN_Comm_rank() == 0 then MGEN_acp_complete(MGEN_rdma_put(1, 8, 0))
//!        else MGEN_rdma_poll(0) end'''\n",
//!     std::path::Path::new("doc.toml"), &[]).unwrap();
//! let report = Simulation::new(&s).unwrap().run().unwrap();
//! assert_eq!(report.network.packets, 2); // the data and its control packet
//! ```

use crate::config::Scenario;
use crate::mpi::Mpi;
use crate::net::Network;
use crate::nic::{Arrival, MsgKind, Nics};
use crate::rdma::{OpKind, Rdma};
use crate::report::{Metric, Report};
use crate::script::random::Xoshiro;
use crate::script::rank::{Rank, Status, Wait};
use crate::script::{Outcome, Scripts};
use crate::sim::{Event, EventQueue};
use crate::units::Time;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Instant;

/// Everything the model knows at one instant.
pub struct World {
    /// Time of the event being processed.
    pub now: Time,
    pub queue: EventQueue<Event>,
    pub net: Network,
    pub nics: Nics,
    pub rdma: Rdma,
    pub mpi: Mpi,
    pub ranks: Vec<Rank>,
    /// The rank whose script is running (the API acts for it).
    pub current: u32,
    node_latency: Time,
    /// Events processed.
    pub events: u64,
    /// Values scripts reported with `MGEN_report`, by name.
    pub metrics: BTreeMap<String, Metric>,
}

impl World {
    fn new(s: &Scenario) -> World {
        let net = Network::new(s);
        let nodes = net.cube.routers();
        let rng = Xoshiro::from_seed(s.workload.seed);
        World {
            now: Time::ZERO,
            queue: EventQueue::new(),
            nics: Nics::new(
                nodes,
                s.node.dma_rate(),
                s.network.mtu,
                s.network.header_bytes,
            ),
            net,
            rdma: Rdma::default(),
            mpi: Mpi::new(
                s.node.eager_limit,
                s.node.mpi_overhead,
                s.node.memory_bandwidth,
            ),
            ranks: (0..s.workload.ranks as u32)
                .map(|i| Rank::new(i, rng))
                .collect(),
            current: 0,
            node_latency: s.node.node_latency,
            events: 0,
            metrics: BTreeMap::new(),
        }
    }

    /// The running rank issues a put or get: the node latency goes on its clock, then the
    /// transfer starts at its NIC.
    pub fn issue(&mut self, kind: OpKind, peer: u32, bytes: u64, tag: i64) -> i64 {
        let me = self.current;
        let rank = &mut self.ranks[me as usize];
        rank.clock += self.node_latency;
        self.rdma
            .issue(kind, me, rank, peer, bytes, tag, &mut self.queue)
    }

    /// Records a script's `MGEN_report(name, value)`.
    pub fn report(&mut self, name: String, v: f64) {
        self.metrics.entry(name).or_default().add(v);
    }

    /// Processes events until one wakes a rank; returns that rank, or None when no event is left.
    fn advance(&mut self) -> Option<u32> {
        while let Some((t, ev)) = self.queue.pop() {
            self.now = t;
            self.events += 1;
            if let Event::RankWake(r) = ev {
                return Some(r);
            }
            self.dispatch(t, ev);
        }
        None
    }

    /// Hands one event to the component it concerns.
    fn dispatch(&mut self, t: Time, ev: Event) {
        let World {
            queue: q,
            net,
            nics,
            rdma,
            mpi,
            ranks,
            ..
        } = self;
        match ev {
            Event::RouterReady(p) => net.router_ready(p, t, q),
            Event::ChannelFree(c) => {
                if let Some(nic) = net.channel_free(c, t, q) {
                    nics.staging_freed(nic, net, t, q);
                }
            }
            Event::TxDmaDone { nic, pkt } => {
                if let Some(m) = nics.tx_dma_done(nic, pkt, net, t, q) {
                    let msg = *nics.msg(m);
                    if msg.kind == MsgKind::RndvData {
                        mpi.sent_out(msg.op, ranks, t, q);
                    }
                }
            }
            Event::NicArrive(p) => match nics.arrive(p, net, t, q) {
                Arrival::Nothing => {}
                Arrival::Envelope(m) => envelope(m, nics, mpi, ranks, t, q),
                Arrival::Delivered(m) => delivered(m, nics, net, rdma, mpi, ranks, t, q),
                Arrival::EnvelopeDelivered(m) => {
                    envelope(m, nics, mpi, ranks, t, q);
                    delivered(m, nics, net, rdma, mpi, ranks, t, q);
                }
            },
            Event::RxDmaDone(p) => {
                if let Some(m) = nics.rx_done(p, net, t, q) {
                    delivered(m, nics, net, rdma, mpi, ranks, t, q);
                }
            }
            Event::OpStart(op) => rdma.start(op, nics, net, t, q),
            Event::P2pStart(m) => mpi.start(m, nics, net, t, q),
            Event::CtsStart(m) => mpi.send_cts(m, nics, net, t, q),
            Event::RankWake(_) => unreachable!("handled by advance"),
        }
    }
}

/// The envelope of NIC message `m` has reached its receiver: match it.
fn envelope(
    m: u32,
    nics: &Nics,
    mpi: &mut Mpi,
    ranks: &mut [Rank],
    t: Time,
    q: &mut EventQueue<Event>,
) {
    let msg = nics.msg(m);
    mpi.envelope(msg.op, &mut ranks[msg.dst as usize], t, q);
}

/// NIC message `m` is delivered: free it and let its layer act.
#[allow(clippy::too_many_arguments)]
fn delivered(
    m: u32,
    nics: &mut Nics,
    net: &mut Network,
    rdma: &mut Rdma,
    mpi: &mut Mpi,
    ranks: &mut [Rank],
    t: Time,
    q: &mut EventQueue<Event>,
) {
    let msg = *nics.msg(m);
    nics.free(m);
    match msg.kind {
        MsgKind::PutData | MsgKind::PutAck | MsgKind::GetRequest | MsgKind::GetData => {
            rdma.delivered(msg, ranks, nics, net, t, q)
        }
        MsgKind::Eager | MsgKind::Rts | MsgKind::Cts | MsgKind::RndvData => {
            mpi.delivered(msg.kind, msg.op, ranks, nics, net, t, q)
        }
    }
}

/// Why a run stopped without a result.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("rank {rank} failed at simulated time {time}:\n{message}")]
    Script {
        rank: u32,
        time: Time,
        message: String,
    },
    #[error("deadlock at simulated time {time}: every unfinished rank is blocked and nothing is in flight\n{detail}")]
    Deadlock { time: Time, detail: String },
}

/// One simulation: the world and the scripts that drive it.
pub struct Simulation {
    world: Rc<RefCell<World>>,
    scripts: Scripts,
    scenario: Scenario,
}

impl Simulation {
    /// Builds the network and the ranks and compiles the workload.
    pub fn new(s: &Scenario) -> anyhow::Result<Simulation> {
        let world = Rc::new(RefCell::new(World::new(s)));
        let scripts = Scripts::new(world.clone(), &s.workload)?;
        Ok(Simulation {
            world,
            scripts,
            scenario: s.clone(),
        })
    }

    /// Runs every rank to its end.
    pub fn run(self) -> Result<Report, SimError> {
        let started = Instant::now();
        let nranks = self.world.borrow().ranks.len() as u32;
        if let Err(e) = self.scripts.spawn(nranks) {
            return Err(SimError::Script {
                rank: 0,
                time: Time::ZERO,
                message: e.to_string(),
            });
        }
        {
            let mut w = self.world.borrow_mut();
            for r in 0..nranks {
                w.queue.push(Time::ZERO, Event::RankWake(r));
            }
        }
        loop {
            let next = self.world.borrow_mut().advance();
            let Some(r) = next else { break };
            {
                let mut w = self.world.borrow_mut();
                w.current = r;
                w.ranks[r as usize].status = Status::Running;
            }
            match self.scripts.resume(r) {
                Outcome::Blocked => {
                    let mut guard = self.world.borrow_mut();
                    let w = &mut *guard;
                    let rank = &mut w.ranks[r as usize];
                    if rank.status == Status::Running {
                        // the script yielded on its own: let it go on at its clock
                        let clock = rank.clock;
                        rank.wake(r, clock, &mut w.queue);
                    }
                }
                Outcome::Finished => {
                    self.world.borrow_mut().ranks[r as usize].status = Status::Done
                }
                Outcome::Failed(message) => {
                    let time = self.world.borrow().ranks[r as usize].clock;
                    return Err(SimError::Script {
                        rank: r,
                        time,
                        message,
                    });
                }
            }
        }
        let w = self.world.borrow();
        let blocked: Vec<u32> = (0..nranks)
            .filter(|&r| w.ranks[r as usize].status != Status::Done)
            .collect();
        if !blocked.is_empty() {
            return Err(SimError::Deadlock {
                time: w.now,
                detail: self.deadlock_detail(&w, &blocked),
            });
        }
        Ok(Report::new(
            &self.scenario,
            &w,
            started.elapsed(),
            self.scripts.memory(),
        ))
    }

    fn deadlock_detail(&self, w: &World, blocked: &[u32]) -> String {
        const SHOWN: usize = 16;
        let mut out = String::new();
        for &r in blocked.iter().take(SHOWN) {
            let rank = &w.ranks[r as usize];
            let what = match rank.wait {
                Wait::Poll(tag) => {
                    format!("MGEN_rdma_poll(tag {tag}): no put with that tag was delivered to it")
                }
                Wait::Complete(seq) => {
                    format!("MGEN_acp_complete(handle {})", crate::rdma::handle(r, seq))
                }
                Wait::Request(seq) => {
                    format!(
                        "MGEN_Wait (request {}): its message never came",
                        crate::mpi::request_handle(r, seq)
                    )
                }
                Wait::Sync => "MGEN_Test".to_string(),
                Wait::Nothing => "nothing (it was never resumed)".to_string(),
            };
            let tb = self.scripts.where_(r);
            let line = tb
                .lines()
                .map(str::trim)
                .find(|l| {
                    !l.starts_with("[C]")
                        && !l.contains("mgensim prelude")
                        && !l.starts_with("stack traceback")
                        && !l.starts_with("(...tail calls...)")
                })
                .unwrap_or("");
            let line = line.split(": in ").next().unwrap_or(line);
            out.push_str(&format!(
                "  rank {r} (clock {}) waits in {what}",
                rank.clock
            ));
            if !line.is_empty() {
                out.push_str(&format!("\n      at {line}"));
            }
            out.push('\n');
        }
        if blocked.len() > SHOWN {
            out.push_str(&format!(
                "  ... and {} more blocked ranks\n",
                blocked.len() - SHOWN
            ));
        }
        let leftover: Vec<String> = w
            .ranks
            .iter()
            .enumerate()
            .filter(|(_, r)| r.mpi.unexpected() > 0)
            .map(|(i, r)| format!("rank {i}: {}", r.mpi.unexpected()))
            .collect();
        if !leftover.is_empty() {
            let n = leftover.len();
            let shown: Vec<String> = leftover.into_iter().take(SHOWN).collect();
            out.push_str(&format!(
                "  messages that arrived and no receive matched, on {n} ranks: {}{}\n",
                shown.join(", "),
                if n > SHOWN { ", ..." } else { "" }
            ));
        }
        out
    }
}
