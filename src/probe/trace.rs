//! A timeline of the ranks (`--trace trace.json`): Chrome trace-event JSON, which Perfetto
//! (ui.perfetto.dev) and chrome://tracing open.
//!
//! One process per job and one track (thread) per rank. On a rank's track: a span for each
//! `MGEN_Comp`, for each call that takes the rank's time (the node latency of a put or get,
//! the overhead and copy of a send), for each time it was blocked (in `MGEN_rdma_poll`,
//! `MGEN_acp_complete`, the message-passing waits), and for each region a script names
//! (`MGEN_region`, the collectives of `mgen.coll`). Calls and waits never overlap, since a
//! rank's clock only moves forward through them; regions enclose them. A flow arrow joins
//! each put and each send to the moment its data lands at the receiver, where a
//! zero-length span marks the arrival.
//!
//! Times are written in microseconds with six decimals: exactly the model's picoseconds.

use std::fmt::Write;

/// A name the model gives (an API function, a kind of arrival). (Named so that packing it,
/// `packed.rs`, reads it back interned, not borrowed from the bytes.)
type Name = &'static str;

/// What a span on a rank's track shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum What {
    /// `MGEN_Comp`.
    Compute,
    /// Blocked in `MGEN_rdma_poll(tag)`.
    Poll(i64),
    /// Blocked in `MGEN_acp_complete(handle)`.
    Complete(i64),
    /// Blocked in a message-passing wait: in the call the script made (`MGEN_Recv`,
    /// `MGEN_Wait`, ...).
    Wait(#[serde(deserialize_with = "crate::packed::static_str")] Name),
    /// A put, get or send: the time it takes the rank; `flow` is the arrow's id (its handle),
    /// 0 for none.
    Call {
        /// The API function.
        #[serde(deserialize_with = "crate::packed::static_str")]
        name: Name,
        /// The other rank.
        peer: u32,
        /// Payload bytes.
        bytes: u64,
        /// Its tag.
        tag: i64,
        /// The arrow's id.
        flow: i64,
    },
    /// Data of a put or send from rank `from` landed here.
    Arrival {
        /// `put` or `message`.
        #[serde(deserialize_with = "crate::packed::static_str")]
        kind: Name,
        /// The sending rank.
        from: u32,
        /// Payload bytes.
        bytes: u64,
        /// The arrow's id.
        flow: i64,
    },
    /// A region the script named (index into the names).
    Region(u32),
    /// Blocked when the run stopped, from the blocking call to the stop (index into the
    /// notes: what it waits for, and the script line).
    Stuck(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Span {
    rank: u32,
    start: u64,
    end: u64,
    what: What,
}

/// The spans recorded so far, and the regions still open on each rank.
///
/// Each partition of a run records its own ranks' timeline (`part/`); the engine gathers
/// them at the end ([`Trace::absorb`]). What comes out depends only on the model: spans are
/// written rank by rank, each rank's in the order they were recorded, and a bounded timeline
/// keeps the spans that start first (then by rank), whichever partition recorded them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Trace {
    /// Calls, waits and arrivals (bounded by `limit`).
    spans: Vec<Span>,
    /// Regions and stuck waits (never left out).
    marks: Vec<Span>,
    names: super::names::Names,
    open: Vec<Vec<(u32, u64)>>,
    /// What each stuck rank waits for, and where (`file:line`).
    notes: Vec<(String, String)>,
    /// Most spans kept (calls, waits, arrivals); later ones are counted, not kept.
    limit: usize,
    /// Spans left out past the limit, and the time of the first of them (ps).
    dropped: u64,
    dropped_from: u64,
}

/// A job as the trace shows it: its name and its ranks `base..base + size`.
pub(crate) struct Track<'a> {
    /// The job's name.
    pub(crate) name: &'a str,
    /// Its first global rank.
    pub(crate) base: u32,
    /// Its ranks.
    pub(crate) size: u32,
}

impl Trace {
    /// An empty timeline of `ranks` ranks.
    pub(crate) fn new(ranks: u32) -> Trace {
        Trace::bounded(ranks, usize::MAX)
    }

    /// An empty timeline of `ranks` ranks that keeps at most `limit` spans (a timeline
    /// recorded unasked, for `report.html`, must not grow with the run's length).
    pub(crate) fn bounded(ranks: u32, limit: usize) -> Trace {
        Trace {
            open: vec![Vec::new(); ranks as usize],
            limit,
            dropped_from: u64::MAX,
            ..Trace::default()
        }
    }

    /// Spans left out past the limit, and the earliest time (ps) among them.
    pub(crate) fn dropped(&self) -> (u64, u64) {
        let mut t = self.clone();
        t.keep_earliest();
        (t.dropped, t.dropped_from)
    }

    /// Records a span of `rank` from `start` to `end` (ps); an empty one only if it is an
    /// arrival or a call (waits and computations of no time are left out).
    pub(crate) fn span(&mut self, rank: u32, start: u64, end: u64, what: What) {
        let point = matches!(what, What::Arrival { .. } | What::Call { .. });
        if end > start || point {
            if self.spans.len() >= self.limit.saturating_mul(2) {
                self.keep_earliest();
            }
            self.spans.push(Span {
                rank,
                start,
                end,
                what,
            });
        }
    }

    /// Of a bounded timeline's spans, keeps the `limit` that start first (then by rank, then
    /// as recorded) and counts the others left out: O(n log n) once per `limit` spans.
    fn keep_earliest(&mut self) {
        if self.spans.len() <= self.limit {
            return;
        }
        self.spans.sort_by_key(|s| (s.start, s.rank));
        for s in &self.spans[self.limit..] {
            self.dropped += 1;
            self.dropped_from = self.dropped_from.min(s.start);
        }
        self.spans.truncate(self.limit);
    }

    /// Gathers `other`, another partition's timeline of the same run, into this one.
    pub(crate) fn absorb(&mut self, other: Trace) {
        let names = self.names.merge(&other.names);
        let notes = self.notes.len() as u32;
        self.notes.extend(other.notes);
        let remap = |w: What| match w {
            What::Region(id) => What::Region(names[id as usize]),
            What::Stuck(id) => What::Stuck(notes + id),
            w => w,
        };
        self.spans.extend(other.spans);
        self.marks.extend(other.marks.into_iter().map(|s| Span {
            what: remap(s.what),
            ..s
        }));
        for (r, open) in other.open.into_iter().enumerate() {
            if !open.is_empty() {
                self.open[r] = open
                    .into_iter()
                    .map(|(id, t)| (names[id as usize], t))
                    .collect();
            }
        }
        self.dropped += other.dropped;
        self.dropped_from = self.dropped_from.min(other.dropped_from);
        self.keep_earliest();
    }

    /// `MGEN_region_begin(name)` on `rank` at `t`.
    pub(crate) fn begin(&mut self, rank: u32, name: &str, t: u64) {
        let id = self.names.id(name);
        self.open[rank as usize].push((id, t));
    }

    /// `MGEN_region_end()` on `rank` at `t`: closes its innermost region.
    pub(crate) fn end(&mut self, rank: u32, t: u64) {
        if let Some((id, start)) = self.open[rank as usize].pop() {
            self.marks.push(Span {
                rank,
                start,
                end: t,
                what: What::Region(id),
            });
        }
    }

    /// `rank` was blocked from `start` until the run stopped at `end` (ps), waiting for
    /// `waits_for` at script line `at`.
    pub(crate) fn stuck(&mut self, rank: u32, start: u64, end: u64, waits_for: String, at: String) {
        let id = self.notes.len() as u32;
        self.notes.push((waits_for, at));
        self.marks.push(Span {
            rank,
            start,
            end: end.max(start),
            what: What::Stuck(id),
        });
    }

    /// The timeline of a run stopped at `stop` (ps), of ranks that ran ahead of it: what
    /// began after the stop is left out, what went on past it ends there (a region open at
    /// the stop that closed later, a computation under way).
    pub(crate) fn clip(&mut self, stop: u64) {
        let keep = |s: &Span| s.start < stop || (s.start == stop && s.end == stop);
        for list in [&mut self.spans, &mut self.marks] {
            list.retain(keep);
            for s in list.iter_mut() {
                s.end = s.end.min(stop);
            }
        }
        for open in &mut self.open {
            open.retain(|&(_, t)| t <= stop);
        }
    }

    /// Spans recorded (and kept).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.spans.len().min(self.limit) + self.marks.len()
    }

    /// The trace as Chrome trace-event JSON, one process per job of `jobs`. Regions still
    /// open end at their rank's clock (`clock(rank)`, ps), innermost first.
    pub(crate) fn to_json(&self, jobs: &[Track], clock: impl Fn(u32) -> u64) -> String {
        let closing: Vec<Span> = (0..self.open.len() as u32)
            .flat_map(|r| {
                let end = clock(r);
                self.open[r as usize]
                    .iter()
                    .rev()
                    .map(move |&(id, start)| Span {
                        rank: r,
                        start,
                        end,
                        what: What::Region(id),
                    })
            })
            .collect();
        let mut out = String::with_capacity(128 * self.spans.len() + 4096);
        out.push_str("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mgensim\"},\"traceEvents\":[\n");
        let mut first = true;
        let mut line = |out: &mut String, s: &str| {
            if !first {
                out.push_str(",\n");
            }
            first = false;
            out.push_str(s);
        };
        let job_of = |rank: u32| {
            jobs.iter()
                .position(|j| rank >= j.base && rank < j.base + j.size)
                .unwrap_or(0)
        };
        for (pid, j) in jobs.iter().enumerate() {
            line(
                &mut out,
                &format!(
                    "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"args\":{{\"name\":{}}}}}",
                    json_str(&format!("job {}", j.name))
                ),
            );
            line(
                &mut out,
                &format!("{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{pid},\"args\":{{\"sort_index\":{pid}}}}}"),
            );
            for r in j.base..j.base + j.size {
                line(
                    &mut out,
                    &format!(
                        "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{pid},\"tid\":{r},\"args\":{{\"name\":\"rank {}\"}}}}",
                        r - j.base
                    ),
                );
                line(
                    &mut out,
                    &format!("{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{pid},\"tid\":{r},\"args\":{{\"sort_index\":{r}}}}}"),
                );
            }
        }
        // rank by rank, each rank's spans as recorded (the spans that start first, for a
        // bounded timeline)
        let mut spans = self.spans.clone();
        spans.sort_by_key(|s| (s.start, s.rank));
        spans.truncate(self.limit);
        spans.extend(self.marks.iter().copied());
        spans.sort_by_key(|s| s.rank);
        use crate::api::Call;
        let mut ev = String::new();
        for s in spans.iter().chain(&closing) {
            let pid = job_of(s.rank);
            let local = |r: u32| r - jobs.get(job_of(r)).map_or(0, |j| j.base);
            let (name, cat, args): (String, &str, String) = match s.what {
                What::Compute => (Call::Comp.name().into(), "compute", String::new()),
                What::Poll(tag) => (Call::Poll.name().into(), "wait", format!("\"tag\":{tag}")),
                What::Complete(h) => (
                    Call::Complete.name().into(),
                    "wait",
                    format!("\"handle\":{h}"),
                ),
                What::Wait(call) => (call.into(), "wait", String::new()),
                What::Call {
                    name,
                    peer,
                    bytes,
                    tag,
                    ..
                } => (
                    name.into(),
                    "call",
                    format!("\"peer\":{},\"bytes\":{bytes},\"tag\":{tag}", local(peer)),
                ),
                What::Arrival {
                    kind, from, bytes, ..
                } => (
                    format!("{kind} from rank {}", local(from)),
                    "arrival",
                    format!("\"from\":{},\"bytes\":{bytes}", local(from)),
                ),
                What::Region(id) => (self.names.name(id).to_string(), "region", String::new()),
                What::Stuck(id) => {
                    let (waits, at) = &self.notes[id as usize];
                    let call = waits.split(':').next().unwrap_or(waits);
                    (
                        format!("stuck in {call} until the stop"),
                        "stuck",
                        format!("\"waits_for\":{},\"at\":{}", json_str(waits), json_str(at)),
                    )
                }
            };
            ev.clear();
            let _ = write!(
                ev,
                "{{\"ph\":\"X\",\"name\":{},\"cat\":\"{cat}\",\"pid\":{pid},\"tid\":{},\"ts\":{},\"dur\":{},\"args\":{{{args}}}}}",
                json_str(&name),
                s.rank,
                micros(s.start),
                micros(s.end - s.start)
            );
            line(&mut out, &ev);
            let flow = match s.what {
                What::Call { flow, name, .. } if flow != 0 => Some((flow, name, "s", s.start)),
                What::Arrival { flow, kind, .. } if flow != 0 => Some((flow, kind, "f", s.start)),
                _ => None,
            };
            if let Some((id, kind, ph, ts)) = flow {
                let name = if kind.contains("put") {
                    "put"
                } else {
                    "message"
                };
                line(
                    &mut out,
                    &format!(
                        "{{\"ph\":\"{ph}\",{}\"name\":\"{name}\",\"cat\":\"flow\",\"id\":{id},\"pid\":{pid},\"tid\":{},\"ts\":{}}}",
                        if ph == "f" { "\"bp\":\"e\"," } else { "" },
                        s.rank,
                        micros(ts)
                    ),
                );
            }
        }
        out.push_str("\n]}\n");
        out
    }
}

/// Picoseconds as microseconds with six decimals (exact).
fn micros(ps: u64) -> String {
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exact_microseconds() {
        assert_eq!(micros(1_234_567), "1.234567");
        assert_eq!(micros(5), "0.000005");
    }

    #[test]
    fn regions_nest_and_empty_waits_are_left_out() {
        let mut t = Trace::new(1);
        t.begin(0, "outer", 0);
        t.begin(0, "inner", 10);
        t.span(0, 10, 10, What::Poll(1));
        t.span(0, 10, 20, What::Compute);
        t.end(0, 30);
        assert_eq!(t.len(), 2, "the outer region is still open");
        let json = t.to_json(
            &[Track {
                name: "w",
                base: 0,
                size: 1,
            }],
            |_| 40,
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let names: Vec<&str> = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["MGEN_Comp", "inner", "outer"]);
    }

    #[test]
    fn a_bounded_timeline_counts_what_it_leaves_out() {
        let mut t = Trace::bounded(1, 2);
        t.span(0, 0, 10, What::Compute);
        t.span(0, 10, 20, What::Poll(1));
        t.span(0, 20, 30, What::Compute);
        t.span(0, 30, 40, What::Compute);
        assert_eq!(t.len(), 2);
        assert_eq!(t.dropped(), (2, 20));
        assert_eq!(Trace::new(1).dropped().0, 0);
    }
}
