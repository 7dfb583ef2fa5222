//! Whether the helper threads join a window, decided by what they have been measured to buy.
//!
//! Threads change how fast a run goes, never what it computes (`threads.rs`), so the engine
//! may use them or not from one window to the next. They pay when a window holds enough work
//! to outweigh passing the gate; they lose when windows are short, and badly when the cores
//! are busy with something else: a helper that has parked is woken by the scheduler, which
//! takes hundreds of microseconds per window (measured: the 4,096-node Bruck 4 B, 22,279
//! windows, 0.6 s on two idle cores, 10.3 s while another process held one of them).
//!
//! The governor measures blocks of [`BLOCK`] windows run with helpers: the wall time the
//! leader saw them take, against the time their partitions spent simulating (what one thread
//! would have taken, less the gate). When a block's wall time is longer, the helpers sit out
//! the next windows, [`FIRST_REST`] at first, twice as many after each block that loses again
//! (at most [`LONGEST_REST`]), and are tried again after. A window with a single partition to
//! run runs on the leader whatever the governor says and is not counted.
//!
//! Invariant: `rest > 0` exactly while the helpers sit out. Costs: O(1) per window, two clock
//! reads by the leader and two per partition run.

/// Windows with helpers measured before deciding.
pub(crate) const BLOCK: u32 = 64;
/// Windows the helpers sit out after the first block they lose.
pub(crate) const FIRST_REST: u64 = 256;
/// The longest rest (windows), however many blocks they lost in a row.
pub(crate) const LONGEST_REST: u64 = 1 << 16;

/// The decision, and what it is based on (see the module's doc).
#[derive(Debug)]
pub(crate) struct Governor {
    /// Helper threads there are.
    helpers: u32,
    /// Windows the helpers still sit out (0: they join).
    rest: u64,
    /// The rest after the next block they lose.
    next_rest: u64,
    /// The block being measured: windows, wall time and simulating time (ns).
    windows: u32,
    wall_ns: u64,
    busy_ns: u64,
    /// Windows with several partitions that ran on the leader alone.
    pub(crate) alone: u64,
}

impl Governor {
    /// With `helpers` helper threads, which join from the first window.
    pub(crate) fn new(helpers: u32) -> Governor {
        Governor {
            helpers,
            rest: 0,
            next_rest: FIRST_REST,
            windows: 0,
            wall_ns: 0,
            busy_ns: 0,
            alone: 0,
        }
    }

    /// The helpers this window may use.
    #[inline]
    pub(crate) fn helpers(&self) -> u32 {
        if self.rest > 0 {
            0
        } else {
            self.helpers
        }
    }

    /// A window had `parts` partitions to run; it took `wall_ns` on the leader, and its
    /// partitions `busy_ns` in all.
    pub(crate) fn record(&mut self, parts: usize, wall_ns: u64, busy_ns: u64) {
        if parts < 2 || self.helpers == 0 {
            return;
        }
        if self.rest > 0 {
            self.alone += 1;
            self.rest -= 1;
            return;
        }
        self.windows += 1;
        self.wall_ns += wall_ns;
        self.busy_ns += busy_ns;
        if self.windows < BLOCK {
            return;
        }
        if self.wall_ns > self.busy_ns {
            self.rest = self.next_rest;
            self.next_rest = (self.next_rest * 2).min(LONGEST_REST);
        } else {
            self.next_rest = FIRST_REST;
        }
        self.windows = 0;
        self.wall_ns = 0;
        self.busy_ns = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `n` windows of two partitions each taking `wall` on the leader and `busy` in all.
    fn feed(g: &mut Governor, n: u64, wall: u64, busy: u64) {
        for _ in 0..n {
            g.record(2, wall, busy);
        }
    }

    #[test]
    fn helpers_that_halve_the_time_stay() {
        let mut g = Governor::new(1);
        feed(&mut g, 10 * BLOCK as u64, 55, 100);
        assert_eq!(g.helpers(), 1);
        assert_eq!(g.alone, 0);
    }

    #[test]
    fn helpers_that_lose_rest_longer_each_time_and_come_back_when_they_pay() {
        let mut g = Governor::new(3);
        // a block where the gate costs more than the work: they sit out FIRST_REST windows
        feed(&mut g, BLOCK as u64 - 1, 500, 100);
        assert_eq!(g.helpers(), 3);
        feed(&mut g, 1, 500, 100);
        assert_eq!(g.helpers(), 0);
        feed(&mut g, FIRST_REST - 1, 999, 1);
        assert_eq!(g.helpers(), 0);
        feed(&mut g, 1, 999, 1);
        assert_eq!(g.helpers(), 3, "tried again after the rest");
        assert_eq!(g.alone, FIRST_REST);
        // they lose again: twice the rest
        feed(&mut g, BLOCK as u64, 500, 100);
        feed(&mut g, 2 * FIRST_REST - 1, 0, 0);
        assert_eq!(g.helpers(), 0);
        feed(&mut g, 1, 0, 0);
        assert_eq!(g.helpers(), 3);
        // a block that pays resets the rest to the first one
        feed(&mut g, BLOCK as u64, 60, 100);
        feed(&mut g, BLOCK as u64, 500, 100);
        feed(&mut g, FIRST_REST, 0, 0);
        assert_eq!(g.helpers(), 3);
        assert_eq!(g.alone, 4 * FIRST_REST);
    }

    #[test]
    fn the_rest_is_bounded_and_single_partition_windows_do_not_count() {
        let mut g = Governor::new(1);
        for _ in 0..40 {
            feed(&mut g, BLOCK as u64, 2, 1);
            while g.helpers() == 0 {
                g.record(2, 0, 0);
            }
        }
        assert_eq!(g.next_rest, LONGEST_REST);
        // windows with one partition to run neither count towards a block nor end a rest
        let before = (g.windows, g.rest, g.alone);
        for _ in 0..1000 {
            g.record(1, 1_000_000, 1);
        }
        assert_eq!((g.windows, g.rest, g.alone), before);
    }
}
