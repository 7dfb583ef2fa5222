//! The partition's event loop: the next event, handed to the component it concerns (routers,
//! NICs, the RDMA and message layers, the ranks), with the prefetch stages and the looks at
//! the limits between events.

use super::*;

impl Part {
    /// Processes events until one wakes a rank, the limits are due for a look, or no event
    /// is left. At one picosecond: first the arrivals of an epoch that ends then (the
    /// network's, `net/router/arrivals.rs`), then the events in the queue's order, then the
    /// credit wake-ups (`net/router/credit.rs`).
    pub(crate) fn advance(&mut self) -> Next {
        // (the loop made for each setting of the prefetch stages and the self-check, which
        // change only between calls: an event tests neither)
        match (self.prefetching, self.self_check) {
            (false, false) => self.advance_as::<false, false>(),
            (true, false) => self.advance_as::<true, false>(),
            (false, true) => self.advance_as::<false, true>(),
            (true, true) => self.advance_as::<true, true>(),
        }
    }

    /// [`Part::advance`] with the prefetch stages on (`PREFETCH`) or off, and the self-check
    /// on (`CHECK`) or off.
    #[inline(never)]
    fn advance_as<const PREFETCH: bool, const CHECK: bool>(&mut self) -> Next {
        // (the last picosecond of the window: `until` does not change during a call)
        let last = self.until.saturating_sub(1);
        loop {
            if self.events >= self.checkpoint {
                return Next::Checkpoint;
            }
            // (an event at the time an epoch's arrivals are due waits for them; one at the time
            // of a credit wake-up goes first; nothing at or after the window's end. `ta` is an
            // epoch's end, never 0, or `u64::MAX`, so `ta - 1` is the last picosecond before it
            // or past any window)
            let ta = self.net.arrivals_due();
            let tc = self.net.credit_wake_due();
            debug_assert!(ta > 0);
            let limit = ta.wrapping_sub(1).min(tc).min(last);
            let (t, ev) = match self.queue.pop_until(limit) {
                Ok((t, ev)) if !CHECK && t >= self.now => (t, ev),
                Ok((t, ev)) => {
                    self.arrived_at(t);
                    (t, ev)
                }
                Err(tq) => {
                    let next = tq.min(ta).min(tc);
                    if next > last {
                        if next == u64::MAX && CHECK && self.stalled.is_none() {
                            self.stalled = self.stall();
                        }
                        return Next::Idle;
                    }
                    self.arrived_at(Time(next));
                    if ta == next {
                        self.net.take_arrivals(&mut self.queue);
                    } else if self.net.credit_wake(Time(next), &mut self.queue) {
                        self.events += 1;
                        self.events_by_kind[Event::CREDIT_WAKE] += 1;
                    }
                    continue;
                }
            };
            if t > Time::HORIZON {
                // (not processed: the run stops, `Part::overflow`)
                self.past_horizon = Some(t);
                return Next::Checkpoint;
            }
            self.now = t;
            self.events += 1;
            self.events_by_kind[ev.kind()] += 1;
            if PREFETCH {
                if let Some(far) = self.queue.ahead(PREFETCH_FAR) {
                    self.net.prefetch_far(far);
                }
                if let Some(near) = self.queue.ahead(PREFETCH_NEAR) {
                    self.net.prefetch_near(near);
                }
                if let Some(close) = self.queue.ahead(PREFETCH_CLOSE) {
                    self.net.prefetch_close(close);
                }
            }
            if let Event::RankWake(r) = ev {
                return Next::Wake(r);
            }
            self.dispatch(t, ev);
        }
    }

    /// When this partition next has something to do (ps; `u64::MAX`: nothing): an event, an
    /// epoch's arrivals, or a credit wake-up.
    pub(crate) fn next_time(&mut self) -> u64 {
        let tq = self.queue.peek_time().map_or(u64::MAX, |t| t.ps());
        tq.min(self.net.arrivals_due())
            .min(self.net.credit_wake_due())
    }

    /// Simulated time moves to `t`: checks that it does not go back, and (self-check) that no
    /// link was left idle with a packet it could send.
    #[inline(never)]
    fn arrived_at(&mut self, t: Time) {
        if t < self.now {
            self.time_went_back.get_or_insert((self.now, t));
        }
        if self.self_check && t > self.now && self.stalled.is_none() {
            self.stalled = self.stall();
        }
        self.now = t;
    }

    /// Self-check: what the fabric found wrong by now (a link left idle with a packet it
    /// could send; a flow's rate not the max-min of all flows').
    fn stall(&mut self) -> Option<String> {
        match self.flows.as_deref_mut() {
            Some(f) => f.mismatch.take(),
            None => self.net.stalled(self.now),
        }
    }

    /// Turns the cache tactics on or off: the prefetch stages of the event loop, of the walk
    /// over an epoch's arrivals and of the event queue's next bucket.
    pub(crate) fn set_prefetching(&mut self, on: bool) {
        self.prefetching = on;
        self.net.prefetching = on;
        self.queue.prefetch(on);
    }

    /// Looks at the limits (called every [`CHECK_EVERY`] events); records a stop if one is hit.
    /// Also turns the prefetch stages, and the queue links written late, on or off
    /// ([`PREFETCH_ABOVE`]), and frees what this partition kept of the messages of partitions
    /// it no longer receives from.
    pub(crate) fn look_at_limits(&mut self) {
        self.nics.sweep();
        self.mpi.sweep();
        self.rdma.sweep();
        self.queue.trim();
        #[cfg(feature = "valgrind")]
        if self.events >= self.instr_at {
            crate::perf::valgrind::start_instrumentation();
            self.instr_at = u64::MAX;
        }
        if self.events >= self.watch.event_limit {
            self.watch.record(Limit::Events, None, None);
            // (recorded once: the partition goes on to the end of the stop's epoch)
            self.watch.event_limit = u64::MAX;
        } else if let Some(l) = self.watch.check() {
            if !self.watch.whole_run_stopped {
                self.watch.whole_run_stopped = true;
                self.watch.record(l, None, None);
            }
        }
        let on = self
            .tactics
            .unwrap_or_else(|| self.net.footprint() > PREFETCH_ABOVE);
        self.set_prefetching(on);
        // (recording a time series or buffer history makes events costlier: look more often,
        // so that a signal or the wall clock still stops the run promptly)
        let every = if self.net.series.is_some() || self.net.history.is_some() {
            CHECK_EVERY >> 4
        } else {
            CHECK_EVERY
        };
        let next = (self.events | (every - 1)) + 1;
        self.checkpoint = next.min(self.watch.event_limit);
    }

    /// Hands one event to the component it concerns.
    #[inline(always)]
    pub(crate) fn dispatch(&mut self, t: Time, ev: Event) {
        let Part {
            queue: q,
            net,
            flows,
            nics,
            rdma,
            mpi,
            ranks,
            trace,
            traffic,
            events,
            events_by_kind,
            ..
        } = self;
        let tr = trace.as_deref_mut();
        // (what the message layers send through: the NICs and the run's fabric)
        macro_rules! wire {
            () => {
                &mut Wire {
                    nics,
                    net,
                    flows: flows.as_deref_mut(),
                }
            };
        }
        match ev {
            Event::RouterReady(p) => net.router_ready(p, t, q),
            Event::HeadReady(c) => net.head_ready(c, t, q),
            Event::XbarDone(c) => net.xbar_done(c, t, q),
            Event::FlowDone(what) => {
                // (messages whose bytes have all been read from their senders' memory)
                let f = flows
                    .as_deref_mut()
                    .expect("flow events come from the flow fabric");
                for &m in f.done(net, what, t, q) {
                    nics.read_whole(m);
                    let msg = *nics.msg(m);
                    if msg.kind == MsgKind::RndvData {
                        mpi.sent_out(msg.op, ranks, t, q);
                    }
                }
            }
            Event::FlowArrive(m) => match nics.arrived_whole(m, t) {
                Arrival::Envelope(m) => mpi.envelope(nics.msg(m).op, ranks, t, q),
                Arrival::Delivered(m) => {
                    delivered(m, wire!(), rdma, mpi, ranks, Cx { t, q, trace: tr })
                }
                Arrival::EnvelopeDelivered(m) => {
                    mpi.envelope(nics.msg(m).op, ranks, t, q);
                    delivered(m, wire!(), rdma, mpi, ranks, Cx { t, q, trace: tr });
                }
                Arrival::Nothing | Arrival::Synthetic(_) => {}
            },
            Event::ChannelFree(c) => {
                if let Some(nic) = net.channel_free(c, t, q) {
                    nics.staging_freed(nic, net, t, q);
                    if let Some(g) = traffic.as_deref_mut() {
                        g.freed(nic, t, q);
                    }
                }
            }
            Event::TxDmaDone(pkt) => {
                if let Some(m) = nics.tx_dma_done(pkt, net, t, q) {
                    let msg = *nics.msg(m);
                    if msg.kind == MsgKind::RndvData {
                        mpi.sent_out(msg.op, ranks, t, q);
                    }
                }
            }
            Event::NicArrive(p) => match nics.arrive(p, net, t, q) {
                Arrival::Nothing => {}
                Arrival::Synthetic(p) => {
                    if let Some(g) = traffic.as_deref_mut() {
                        g.arrived(p, nics, net, t, q);
                    }
                }
                Arrival::Envelope(m) => mpi.envelope(nics.msg(m).op, ranks, t, q),
                Arrival::Delivered(m) => {
                    delivered(m, wire!(), rdma, mpi, ranks, Cx { t, q, trace: tr })
                }
                Arrival::EnvelopeDelivered(m) => {
                    mpi.envelope(nics.msg(m).op, ranks, t, q);
                    delivered(m, wire!(), rdma, mpi, ranks, Cx { t, q, trace: tr });
                }
            },
            Event::RxDmaDone(p) => {
                if let Some(m) = nics.rx_done(p, net, t, q) {
                    delivered(m, wire!(), rdma, mpi, ranks, Cx { t, q, trace: tr });
                }
            }
            Event::OpStart(op) => rdma.start(op, wire!(), t, q),
            Event::P2pStart(m) => mpi.start(m, wire!(), t, q),
            Event::CtsStart(m) => mpi.send_cts(m, wire!(), t, q),
            Event::Traffic(what) => {
                if let Some(g) = traffic.as_deref_mut() {
                    if !g.event(what, nics, net, t, q) {
                        // (a reading of this partition's links, one per partition: no event
                        // of the model, and not counted as one)
                        *events -= 1;
                        events_by_kind[ev.kind()] -= 1;
                    }
                }
            }
            Event::RankWake(_) => unreachable!("handled by advance"),
        }
    }

    /// Whether a stop may have been recorded, or [`Part::overflow`] have something to say:
    /// asked after every resume of a rank, without making a message.
    #[inline]
    pub(crate) fn may_stop(&self) -> bool {
        self.watch.hit.is_some() || self.overflows()
    }

    /// Whether [`Part::overflow`] has something to say.
    #[inline]
    fn overflows(&self) -> bool {
        self.past_horizon.is_some()
            || self.rdma.full.is_some()
            || self.mpi.full.is_some()
            || self.net.overflowed.is_some()
    }

    /// Why this partition cannot go on, if a pool of records in flight is full.
    pub(crate) fn overflow(&self) -> Option<String> {
        if !self.overflows() {
            return None;
        }
        if let Some(t) = self.past_horizon {
            return Some(format!(
                "an event falls at {:.1} days, past the latest simulated time, {:.6} s (about \
                 {:.1} days): transfers slowed that far by their rates and by each other end \
                 later than simulated time can hold; it does not wrap",
                t.as_secs_f64() / 86400.0,
                Time::HORIZON.as_secs_f64(),
                Time::HORIZON.as_secs_f64() / 86400.0
            ));
        }
        let full = match (self.rdma.full, self.mpi.full, &self.net.overflowed) {
            (Some(f), _, _) => format!("RDMA transfers: {f}"),
            (None, Some(f), _) => format!("message-passing sends: {f}"),
            (None, None, Some(what)) => what.clone(),
            (None, None, None) => return None,
        };
        Some(format!(
            "too many in flight at once, {full}: the run issues transfers faster than they \
             complete (a loop that puts or sends without ever waiting?)"
        ))
    }
}

/// What a handler needs of the moment besides the layers it acts on: the time (ps), the
/// partition's event queue, and the ranks' timeline if it is recorded.
struct Cx<'a> {
    t: Time,
    q: &'a mut EventQueue<Event>,
    trace: Option<&'a mut Trace>,
}

/// NIC message `m` is delivered: free it and let its layer act.
fn delivered(
    m: u32,
    wire: &mut Wire<'_>,
    rdma: &mut Rdma,
    mpi: &mut Mpi,
    ranks: &mut Ranks,
    cx: Cx<'_>,
) {
    let Cx { t, q, trace } = cx;
    let msg = *wire.nics.msg(m);
    wire.nics.free(m, msg.packets(), wire.net);
    if let Some(tr) = trace {
        let arrival = match msg.kind {
            MsgKind::PutData => {
                let op = rdma.op(msg.op);
                Some((
                    "put",
                    op.rank,
                    op.peer,
                    op.bytes,
                    crate::rdma::handle(op.rank, op.seq),
                ))
            }
            MsgKind::Eager | MsgKind::RndvData => {
                let (src, dst, bytes, h) = mpi.flow(msg.op);
                Some(("message", src, dst, bytes, h))
            }
            _ => None,
        };
        if let Some((kind, from, to, bytes, h)) = arrival {
            let what = What::Arrival {
                kind,
                from,
                bytes,
                flow: flow_id(h),
            };
            tr.span(to, t.ps(), t.ps(), what);
        }
    }
    match msg.kind {
        MsgKind::PutData | MsgKind::PutAck | MsgKind::GetRequest | MsgKind::GetData => {
            rdma.delivered(msg, ranks, wire, t, q)
        }
        MsgKind::Eager | MsgKind::Rts | MsgKind::Cts | MsgKind::RndvData => {
            mpi.delivered(msg.kind, msg.op, ranks, wire, Ctx { now: t, q })
        }
        MsgKind::Synthetic => unreachable!("synthetic packets are measured as they arrive"),
    }
}
