//! Time × space statistics (NSIM's, docs/model.md §7): what every link direction carried in each
//! window of simulated time.
//!
//! The network calls [`LinkSeries::sent`] when a packet starts on a channel and
//! [`LinkSeries::occupancy`] when the bytes held in the buffer a channel feeds change. Bytes
//! and packets count in the window where the packet started; busy time and buffer occupancy
//! (byte-picoseconds) are split exactly at window edges, so the windows of a link sum to its
//! totals in `links.csv`. A run stopped early ends both at the stop: a packet still on a link
//! is busy up to the stop only (its bytes and packet count whole, as its head left:
//! [`LinkSeries::end_at`] for the series, `Network::settle_all` for `links.csv`), a buffer
//! still holding bytes holds them up to the stop, and at flow level a flow still moving or a
//! control message still crossing counts up to the stop (`FlowNet::settle`). One exception:
//! in the flow model, busy time no window has room for by the run's end is not counted here
//! ([`LinkSeries::end_at`]).
//!
//! Windows are a dense table, `windows × channels` counters of [`CELL_BYTES`] (48) bytes, grown as simulated
//! time advances. With an adaptive width (`--plots` without `--interval`) the table never
//! holds more than [`ADAPTIVE_WINDOWS`] windows: when time runs past them, neighbours merge
//! in pairs and the width doubles.

/// Most windows an adaptive series keeps (between half this and this many at the end).
pub(crate) const ADAPTIVE_WINDOWS: u64 = 256;

/// Bytes of one window of one channel in the table.
pub(crate) const CELL_BYTES: u64 = std::mem::size_of::<Window>() as u64;

/// The counters of one channel in one window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Window {
    /// Bytes (payload and headers) of the packets that started in this window.
    pub bytes: u64,
    /// Packets sent.
    pub packets: u64,
    /// Time the channel spent sending within this window, in ps.
    pub busy_ps: u64,
    /// Bytes held in the buffer the channel feeds, integrated over the window (byte·ps).
    pub occupancy: u128,
    /// Time the channel spent in low power within this window (`[power]`), in ps.
    pub(crate) low_ps: u64,
}

impl Window {
    fn add(&mut self, o: &Window) {
        self.bytes += o.bytes;
        self.packets += o.packets;
        self.busy_ps += o.busy_ps;
        self.occupancy += o.occupancy;
        self.low_ps += o.low_ps;
    }
    /// Whether nothing happened in the window.
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes == 0 && self.busy_ps == 0 && self.occupancy == 0 && self.low_ps == 0
    }
}

/// Every channel's counters, window by window.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct LinkSeries {
    /// Window width, in ps.
    width: u64,
    adaptive: bool,
    channels: usize,
    /// `windows × channels`, window-major.
    table: Vec<Window>,
    /// Per channel: since when its buffer holds what it holds now (ps).
    since: Vec<u64>,
    /// Per channel: when the tail of the last packet it started ([`LinkSeries::sent`])
    /// leaves it (ps; 0: none yet). A channel sends one packet at a time, so from any time
    /// before this it is busy without a break until this.
    tail: Vec<u64>,
    /// Counters (windows × channels) a fixed width may hold: `limits.time_series_memory` /
    /// [`CELL_BYTES`]. What falls past the last window is not recorded, and the run stops at
    /// the end of that epoch ([`LinkSeries::full`]); the bound depends on the scenario only,
    /// never on the machine or the partitions, so that every run of a scenario records the
    /// same and stops at the same time.
    max_cells: u64,
    /// `limits.time_series_memory` as given (bytes; 0: no bound), for messages.
    memory: u64,
    /// The time (ps) a fixed width stops at: the end of the last window its counters hold
    /// (`u64::MAX` for an adaptive series, which never fills). Fixed for the series' life: a
    /// fixed width never changes.
    horizon: u64,
    /// Something fell past the last window a fixed width may hold.
    full: bool,
}

impl LinkSeries {
    /// A series of windows `width` wide over `channels` channels; `adaptive` lets the width
    /// double to keep at most [`ADAPTIVE_WINDOWS`] windows. A fixed width holds at most
    /// `memory` bytes of windows (0: no bound).
    pub(crate) fn new(width_ps: u64, adaptive: bool, channels: usize, memory: u64) -> LinkSeries {
        let max_cells = if memory == 0 {
            u64::MAX
        } else {
            memory / CELL_BYTES
        };
        let horizon = if adaptive {
            u64::MAX
        } else {
            (max_cells / channels.max(1) as u64).saturating_mul(width_ps.max(1))
        };
        LinkSeries {
            width: width_ps.max(1),
            adaptive,
            channels,
            table: Vec::new(),
            since: vec![0; channels],
            tail: vec![0; channels],
            max_cells,
            memory,
            horizon,
            full: false,
        }
    }

    /// Whether the series has a fixed width (`--interval`).
    pub(crate) fn is_fixed(&self) -> bool {
        !self.adaptive
    }

    /// Why the run cannot go on, if something fell past the last window its counters hold:
    /// the figures, and what to do instead.
    pub(crate) fn full(&self) -> Option<String> {
        if !self.full {
            return None;
        }
        let k = self.channels.max(1) as u64;
        let windows = self.max_cells / k;
        if windows == 0 {
            let one = k.saturating_mul(CELL_BYTES);
            return Some(format!(
                "`limits.time_series_memory` = {} cannot hold one window of the time series of \
                 --interval {}: a window of its {k} link directions takes {} ({CELL_BYTES} bytes \
                 each); raise the limit to at least {one} bytes (0: no limit), or use --plots \
                 without --interval, whose width adapts",
                crate::units::Bytes(self.memory),
                crate::units::Time(self.width),
                crate::units::Bytes(one),
            ));
        }
        Some(format!(
            "the time series of --interval {} holds {windows} windows of {k} link directions \
             in `limits.time_series_memory` = {}, the first {} of the run, and the run went \
             on past them: give an --interval of at least the run's length / {windows}, raise \
             the limit, or use --plots without --interval, whose width adapts",
            crate::units::Time(self.width),
            crate::units::Bytes(self.memory),
            crate::units::Time(self.horizon),
        ))
    }

    /// Window width now, in ps.
    pub(crate) fn width_ps(&self) -> u64 {
        self.width
    }

    /// Windows so far.
    pub(crate) fn windows(&self) -> usize {
        self.table.len() / self.channels.max(1)
    }

    /// The counters of channel `c` in window `w`.
    pub(crate) fn get(&self, w: usize, c: usize) -> &Window {
        &self.table[w * self.channels + c]
    }

    /// Makes the window of time `t` (ps) exist; returns it (it may have changed if the width
    /// doubled), or `None` past the last window a fixed width may hold (then the series is
    /// full: [`LinkSeries::full`]).
    fn reach(&mut self, t: u64) -> Option<usize> {
        let mut w = t / self.width;
        while self.adaptive && w >= ADAPTIVE_WINDOWS {
            self.halve();
            w = t / self.width;
        }
        if t >= self.horizon {
            self.full = true;
            return None;
        }
        let need = (w as usize + 1) * self.channels;
        if self.table.len() < need {
            self.table.resize(need, Window::default());
        }
        Some(w as usize)
    }

    /// Merges windows in pairs: the width doubles.
    fn halve(&mut self) {
        let (n, k) = (self.windows(), self.channels);
        let mut merged = vec![Window::default(); n.div_ceil(2) * k];
        for w in 0..n {
            for c in 0..k {
                merged[(w / 2) * k + c].add(&self.table[w * k + c]);
            }
        }
        self.table = merged;
        self.width *= 2;
    }

    /// Gathers `other`, another partition's series of the same run (over the same channels,
    /// each recorded by one partition only), into this one: both at the wider of their two
    /// widths, counters added.
    pub(crate) fn absorb(&mut self, mut other: LinkSeries) {
        while self.width < other.width {
            self.halve();
        }
        while other.width < self.width {
            other.halve();
        }
        if self.table.len() < other.table.len() {
            self.table.resize(other.table.len(), Window::default());
        }
        for (a, b) in self.table.iter_mut().zip(&other.table) {
            a.add(b);
        }
        for (a, b) in self.since.iter_mut().zip(&other.since) {
            *a = (*a).max(*b);
        }
        for (a, b) in self.tail.iter_mut().zip(&other.tail) {
            *a = (*a).max(*b);
        }
    }

    /// A packet of `bytes` starts on channel `c` at `start` and its tail leaves at `end`
    /// (ps).
    pub(crate) fn sent(&mut self, c: u32, start: u64, end: u64, bytes: u64) {
        self.counted(c, start, bytes, 1);
        self.spread(c, start, end, |cell, dt| cell.busy_ps += dt);
        self.tail[c as usize] = end;
    }

    /// `bytes` in `packets` packets start on channel `c` at `start` (counted in its window;
    /// the time they keep it busy is [`LinkSeries::busy`]'s).
    pub(crate) fn counted(&mut self, c: u32, start: u64, bytes: u64, packets: u64) {
        let k = self.channels;
        let Some(w) = self.reach(start) else {
            return;
        };
        let cell = &mut self.table[w * k + c as usize];
        cell.bytes += bytes;
        cell.packets += packets;
    }

    /// Channel `c` was kept busy `busy` ps in all, evenly over `[from, to)` (ps): a flow that
    /// shares the link at a constant rate (the flow model) is busy for its share of each
    /// window, `busy · dt / (to − from)` ps of a part `dt` ps long, rounded so that the parts
    /// add up to `busy` exactly. The shares of a link's flows can add up to more than a
    /// window (each flow's busy time is rounded up, and a control message takes the whole
    /// link while flows fill it): [`LinkSeries::end_at`] carries what does not fit to the
    /// next windows.
    pub(crate) fn busy(&mut self, c: u32, from: u64, to: u64, busy: u64) {
        if to <= from || busy == 0 {
            return;
        }
        let span = (to - from) as u128;
        let share = |t: u64| (busy as u128 * (t - from) as u128 / span) as u64;
        let cut = to.min(self.horizon);
        if cut < to {
            self.full = true;
        }
        if cut <= from {
            return;
        }
        self.reach(cut - 1);
        let (k, width) = (self.channels, self.width);
        let mut last = 0;
        let mut t = from;
        while t < cut {
            let w = t / width;
            let edge = ((w + 1) * width).min(cut);
            let upto = share(edge);
            self.table[w as usize * k + c as usize].busy_ps += upto - last;
            last = upto;
            t = edge;
        }
    }

    /// The run ended at `end` (ps): every channel's busy time is made to fit in the run, so
    /// that no window is busy longer than it lasts (`busy_ps` ≤ `window_ps` in
    /// `links_timeseries.csv`).
    /// - A packet still on a channel at `end` is busy up to `end` only: the part of it from
    ///   `end` to its tail is taken out (it was recorded when the packet started), as
    ///   `links.csv` leaves it out (`Network::settle_all`).
    /// - In each window a channel is busy at most the window's room: its width (ps), or, for
    ///   the window `end` falls in, its part before `end` (none for a window that starts at
    ///   `end` or later). A link's utilization in a window is the share of its bandwidth used
    ///   there, at most all of it: busy time beyond a window's room (flows' shares that add
    ///   up to more, [`LinkSeries::busy`]) is carried to the next windows with room, as a
    ///   link sends what it is given in turn, and what is still carried at `end` is not
    ///   counted. Packets always fit: a channel sends one at a time.
    /// - Windows at or after `end` left with nothing in them are dropped.
    ///
    /// Called once the run is over; calling it again changes nothing.
    pub(crate) fn end_at(&mut self, end: u64) {
        for c in 0..self.channels {
            let tail = self.tail[c].min(self.horizon);
            self.unbusy(c as u32, end, tail);
            self.tail[c] = tail.min(end);
        }
        let (k, width) = (self.channels, self.width);
        // (windows the carried time may open: those that start before `end`, as many as the
        // series may hold)
        let cap = if self.adaptive {
            ADAPTIVE_WINDOWS
        } else {
            self.horizon / width
        };
        let open = end.div_ceil(width).min(cap) as usize;
        let mut carried = vec![0u64; k];
        let mut w = 0;
        while w < self.windows() || (w < open && carried.iter().any(|&c| c > 0)) {
            if w == self.windows() {
                self.table.resize((w + 1) * k, Window::default());
            }
            let room = width.min(end.saturating_sub(w as u64 * width));
            let row = &mut self.table[w * k..(w + 1) * k];
            for (cell, carried) in row.iter_mut().zip(&mut carried) {
                let asked = cell.busy_ps + *carried;
                cell.busy_ps = asked.min(room);
                *carried = asked - cell.busy_ps;
            }
            w += 1;
        }
        while let Some(w) = self.windows().checked_sub(1) {
            let last = &self.table[w * k..];
            if (w as u64) * width < end || !last.iter().all(Window::is_empty) {
                break;
            }
            self.table.truncate(w * k);
        }
    }

    /// Takes out of channel `c`'s windows the busy time recorded from `from` to `to` (ps),
    /// time it was counted busy all along (a packet's or a control message's part past the
    /// run's end).
    pub(crate) fn unbusy(&mut self, c: u32, from: u64, to: u64) {
        // (past the horizon nothing was recorded)
        let to = to.min(self.horizon);
        self.spread(c, from, to, |cell, dt| {
            cell.busy_ps = cell.busy_ps.saturating_sub(dt)
        });
    }

    /// The bytes held in the buffer channel `c` feeds change at `to` (ps): until then it held
    /// `level` bytes (since its last change). At the run's end, a buffer still holding bytes
    /// is given its level up to the end (`Network::settle_all`).
    pub(crate) fn occupancy(&mut self, c: u32, level: u32, to: u64) {
        let from = std::mem::replace(&mut self.since[c as usize], to);
        if level > 0 {
            self.spread(c, from, to, |cell, dt| {
                cell.occupancy += level as u128 * dt as u128
            });
        }
    }

    /// Channel `c` was in low power from `from` to `to`.
    pub(crate) fn low(&mut self, c: u32, from: u64, to: u64) {
        self.spread(c, from, to, |cell, dt| cell.low_ps += dt);
    }

    /// Calls `f` with each window's part of `[from, to)` on channel `c` (up to the last
    /// window a fixed width may hold).
    fn spread(&mut self, c: u32, from: u64, mut to: u64, f: impl Fn(&mut Window, u64)) {
        if to > self.horizon {
            self.full = true;
            to = self.horizon;
        }
        if to <= from {
            return;
        }
        self.reach(to - 1);
        let (k, width) = (self.channels, self.width);
        let mut t = from;
        while t < to {
            let w = t / width;
            let edge = ((w + 1) * width).min(to);
            f(&mut self.table[w as usize * k + c as usize], edge - t);
            t = edge;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_splits_at_window_edges() {
        let mut s = LinkSeries::new(100, false, 2, 0);
        s.sent(1, 50, 260, 64);
        assert_eq!(s.windows(), 3);
        let busy: Vec<u64> = (0..3).map(|w| s.get(w, 1).busy_ps).collect();
        assert_eq!(busy, [50, 100, 60]);
        assert_eq!(
            s.get(0, 1).bytes,
            64,
            "bytes count where the packet started"
        );
        assert_eq!(s.get(1, 1).bytes, 0);
        assert_eq!(
            s.get(2, 0),
            &Window::default(),
            "the other channel saw nothing"
        );
    }

    #[test]
    fn a_fixed_width_records_up_to_its_last_window_and_then_says_it_is_full() {
        // memory for 3 counters over 1 channel: windows [0, 100), [100, 200), [200, 300)
        let mut s = LinkSeries::new(100, false, 1, 3 * CELL_BYTES);
        s.sent(0, 150, 250, 8);
        assert!(s.full().is_none());
        s.sent(0, 280, 420, 8);
        let busy: Vec<u64> = (0..s.windows()).map(|w| s.get(w, 0).busy_ps).collect();
        assert_eq!(busy, [0, 50, 70], "the part past 300 ps is not recorded");
        assert_eq!(s.windows(), 3);
        let full = s.full().expect("full");
        assert!(
            full.contains("holds 3 windows of 1 link directions"),
            "{full}"
        );
        // a packet that starts past the last window records nothing
        s.sent(0, 300, 310, 8);
        assert_eq!((s.get(1, 0).bytes, s.get(2, 0).bytes), (8, 8));
        // memory for less than one window: the message says what one takes, not "0 windows"
        let mut z = LinkSeries::new(100, false, 4, 3 * CELL_BYTES);
        z.sent(0, 10, 20, 8);
        let full = z.full().expect("full at once");
        assert!(
            full.starts_with("`limits.time_series_memory` = 144 B cannot hold one window")
                && full
                    .contains("takes 192 B (48 bytes each); raise the limit to at least 192 bytes"),
            "{full}"
        );
        assert!(
            !full.contains("0 windows") && !full.contains("/ 0"),
            "{full}"
        );
        // an adaptive series never fills
        let mut a = LinkSeries::new(100, true, 1, 3 * CELL_BYTES);
        a.sent(0, 1 << 40, (1 << 40) + 10, 8);
        assert!(a.full().is_none());
    }

    #[test]
    fn a_shared_link_is_busy_for_its_share_of_each_window() {
        // two flows at half the link's rate over [50, 250): each busy 100 ps in all
        let mut s = LinkSeries::new(100, false, 1, 0);
        for _ in 0..2 {
            s.counted(0, 50, 64, 2);
            s.busy(0, 50, 250, 100);
        }
        let busy: Vec<u64> = (0..3).map(|w| s.get(w, 0).busy_ps).collect();
        // each flow: 25 of [50, 100), 50 of [100, 200), 25 of [200, 250)
        assert_eq!(busy, [50, 100, 50]);
        assert_eq!((s.get(0, 0).bytes, s.get(0, 0).packets), (128, 4));
        // a share that does not divide evenly still adds up exactly
        let mut s = LinkSeries::new(7, false, 1, 0);
        s.busy(0, 3, 40, 11);
        let total: u64 = (0..s.windows()).map(|w| s.get(w, 0).busy_ps).sum();
        assert_eq!(total, 11);
        assert!((0..s.windows()).all(|w| s.get(w, 0).busy_ps <= 7));
    }

    #[test]
    fn a_packet_on_a_channel_at_the_end_is_busy_up_to_the_end_only() {
        let busy = |s: &LinkSeries, c| -> Vec<u64> {
            (0..s.windows()).map(|w| s.get(w, c).busy_ps).collect()
        };
        let mut s = LinkSeries::new(100, false, 2, 0);
        s.sent(0, 20, 80, 8);
        s.sent(1, 150, 260, 8);
        s.end_at(180);
        let want: [Vec<u64>; 2] = [vec![60, 0], vec![0, 30]];
        // (channel 1 from 150 to the end, 180; the window past it dropped)
        assert_eq!([busy(&s, 0), busy(&s, 1)], want);
        s.end_at(180);
        assert_eq!(
            [busy(&s, 0), busy(&s, 1)],
            want,
            "a second call changes nothing"
        );
    }

    #[test]
    fn flows_that_ask_more_than_a_window_fill_it_and_the_rest_goes_to_the_next() {
        // a flow at the link's whole rate over [0, 200) and a control message over [50, 90)
        // ask 140 ps of [0, 100): 100 fit, 40 go to [100, 200), full too, then to [200, 300)
        let mut s = LinkSeries::new(100, false, 1, 0);
        s.busy(0, 0, 200, 200);
        s.busy(0, 50, 90, 40);
        s.busy(0, 230, 250, 20);
        s.end_at(300);
        let busy: Vec<u64> = (0..s.windows()).map(|w| s.get(w, 0).busy_ps).collect();
        assert_eq!(busy, [100, 100, 60]);
        // what no window has room for by the end is not counted
        let mut s = LinkSeries::new(100, false, 1, 0);
        s.busy(0, 0, 200, 200);
        s.busy(0, 150, 190, 40);
        s.end_at(230);
        let busy: Vec<u64> = (0..s.windows()).map(|w| s.get(w, 0).busy_ps).collect();
        assert_eq!(busy, [100, 100, 30], "the last window is 30 ps long");
    }

    #[test]
    fn occupancy_integrates_level_times_time() {
        let mut s = LinkSeries::new(100, false, 1, 0);
        s.occupancy(0, 0, 90);
        s.occupancy(0, 10, 120);
        assert_eq!(s.get(0, 0).occupancy, 100);
        assert_eq!(s.get(1, 0).occupancy, 200);
    }

    #[test]
    fn an_adaptive_series_merges_windows_and_keeps_the_totals() {
        let mut s = LinkSeries::new(10, true, 1, 0);
        for i in 0..1000u64 {
            s.sent(0, i * 10, i * 10 + 5, 1);
        }
        assert!(s.windows() as u64 <= ADAPTIVE_WINDOWS);
        assert_eq!(s.width_ps(), 40);
        let (bytes, busy): (u64, u64) = (0..s.windows())
            .map(|w| (s.get(w, 0).bytes, s.get(w, 0).busy_ps))
            .fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
        assert_eq!((bytes, busy), (1000, 5000));
    }
}
