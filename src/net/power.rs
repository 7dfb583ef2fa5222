//! Links that sleep when idle (TraceRP §3.2, docs/model.md §8).
//!
//! Each link direction is ACTIVE or in low power, on its own (up and down directions of a
//! cable are controlled independently, as TraceRP assumes). A direction falls asleep `T_s`
//! after the tail of its last packet left; the transition is not an event: it is noticed when
//! the next packet is ready to go. A packet that finds its direction asleep wakes it and waits
//! `T_w`, and so does whatever queues behind it. While going to sleep and while waking a
//! direction draws active power, so only the time from `last tail + T_s` to the wake-up
//! request is low power. Every direction starts the run active, idle since time 0.

/// One link direction's power state and history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LinkPower {
    /// When its last tail left (or it woke, or the run began), in ps: asleep after
    /// `free_at + T_s`.
    pub(crate) free_at: u64,
    /// Time spent in low power, in ps.
    pub(crate) low_ps: u64,
    /// Times it woke.
    pub(crate) wakeups: u64,
}

/// The power state of every channel (indexed like the router's channels; each partition sees
/// the same array and changes only its own channels', `perf/slab.rs`).
#[derive(Clone)]
pub(crate) struct Power {
    /// T_s and T_w, in ps.
    pub(crate) t_sleep: u64,
    /// T_w in ps.
    pub(crate) t_wake: u64,
    /// Per channel, as the network numbers them.
    pub(crate) links: crate::perf::slab::SharedVec<LinkPower>,
}

/// What [`Power::ready`] decided for a packet ready to go on an idle channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ready {
    /// The channel is awake: send now.
    Send,
    /// It was asleep since `slept` (ps) and wakes until `until`: send then.
    Wake {
        /// Asleep since (ps).
        slept: u64,
        /// Awake at (ps).
        until: u64,
    },
}

impl Power {
    /// Channels that sleep after `t_sleep` ps idle and wake in `t_wake` ps; `channels` of them, all awake.
    pub(crate) fn new(t_sleep: u64, t_wake: u64, channels: usize) -> Power {
        Power {
            t_sleep,
            t_wake,
            links: crate::perf::slab::SharedVec::new(vec![LinkPower::default(); channels]),
        }
    }

    /// A packet is ready to go at `now` on idle channel `c`.
    #[inline]
    pub(crate) fn ready(&mut self, c: u32, now: u64) -> Ready {
        let l = &mut self.links[c as usize];
        let asleep = l.free_at + self.t_sleep;
        if now <= asleep {
            return Ready::Send;
        }
        l.low_ps += now - asleep;
        l.wakeups += 1;
        l.free_at = now + self.t_wake;
        if self.t_wake == 0 {
            Ready::Send
        } else {
            Ready::Wake {
                slept: asleep,
                until: now + self.t_wake,
            }
        }
    }

    /// Channel `c` is idle again at `now` (a tail left, or it finished waking).
    #[inline]
    pub(crate) fn idle(&mut self, c: u32, now: u64) {
        self.links[c as usize].free_at = now;
    }

    /// Counts the low power of `channels` asleep at the end of the run (`now`), once; returns
    /// the intervals counted, `(channel, from)`, for the time series.
    pub(crate) fn settle(
        &mut self,
        now: u64,
        channels: impl Iterator<Item = u32>,
        busy: impl Fn(u32) -> bool,
    ) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        for c in channels {
            let l = &mut self.links[c as usize];
            let asleep = l.free_at + self.t_sleep;
            if now > asleep && !busy(c) {
                l.low_ps += now - asleep;
                l.free_at = now - self.t_sleep;
                out.push((c, asleep));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_longer_than_t_sleep_sleeps_once_and_wakes_for_t_wake() {
        let mut p = Power::new(100, 7, 1);
        p.idle(0, 1_000);
        assert_eq!(
            p.ready(0, 1_100),
            Ready::Send,
            "a gap of exactly T_s does not sleep"
        );
        p.idle(0, 2_000);
        assert_eq!(
            p.ready(0, 2_500),
            Ready::Wake {
                slept: 2_100,
                until: 2_507
            }
        );
        assert_eq!((p.links[0].low_ps, p.links[0].wakeups), (400, 1));
        p.idle(0, 2_507);
        assert_eq!(p.ready(0, 2_507), Ready::Send, "awake once woken");
    }

    #[test]
    fn the_end_of_the_run_counts_a_last_sleep_once() {
        let mut p = Power::new(100, 7, 2);
        p.idle(0, 50);
        let first = p.settle(1_000, 0..2, |c| c == 1);
        assert_eq!(first, vec![(0, 150)]);
        assert_eq!(p.links[0].low_ps, 850);
        assert!(p
            .settle(1_000, 0..2, |_| false)
            .iter()
            .all(|&(c, _)| c == 1));
        assert_eq!(p.links[0].low_ps, 850);
    }
}
