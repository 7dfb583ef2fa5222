//! Time × space statistics (NSIM's, docs/model.md §7): what every link direction carried in each
//! window of simulated time.
//!
//! The network calls [`LinkSeries::sent`] when a packet starts on a channel and
//! [`LinkSeries::occupancy`] when the bytes held in the buffer a channel feeds change. Bytes
//! and packets count in the window where the packet started; busy time and buffer occupancy
//! (byte-picoseconds) are split exactly at window edges, so the windows of a link sum to its
//! totals in `links.csv`.
//!
//! Windows are a dense table, `windows × channels` counters of 32 bytes, grown as simulated
//! time advances. With an adaptive width (`--plots` without `--interval`) the table never
//! holds more than [`ADAPTIVE_WINDOWS`] windows: when time runs past them, neighbours merge
//! in pairs and the width doubles.

/// Most windows an adaptive series keeps (between half this and this many at the end).
pub const ADAPTIVE_WINDOWS: u64 = 256;

/// The counters of one channel in one window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    pub low_ps: u64,
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
    pub fn is_empty(&self) -> bool {
        self.bytes == 0 && self.busy_ps == 0 && self.occupancy == 0 && self.low_ps == 0
    }
}

/// Every channel's counters, window by window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkSeries {
    /// Window width, in ps.
    width: u64,
    adaptive: bool,
    channels: usize,
    /// `windows × channels`, window-major.
    table: Vec<Window>,
    /// Per channel: since when its buffer holds what it holds now (ps).
    since: Vec<u64>,
}

impl LinkSeries {
    /// A series of windows `width` wide over `channels` channels; `adaptive` lets the width
    /// double to keep at most [`ADAPTIVE_WINDOWS`] windows.
    pub fn new(width_ps: u64, adaptive: bool, channels: usize) -> LinkSeries {
        LinkSeries {
            width: width_ps.max(1),
            adaptive,
            channels,
            table: Vec::new(),
            since: vec![0; channels],
        }
    }

    /// Window width now, in ps.
    pub fn width_ps(&self) -> u64 {
        self.width
    }

    /// Windows so far.
    pub fn windows(&self) -> usize {
        self.table.len() / self.channels.max(1)
    }

    /// The counters of channel `c` in window `w`.
    pub fn get(&self, w: usize, c: usize) -> &Window {
        &self.table[w * self.channels + c]
    }

    /// Makes window `w` (of the current width) exist; returns it (it may have changed if
    /// the width doubled).
    fn reach(&mut self, t: u64) -> usize {
        let mut w = t / self.width;
        while self.adaptive && w >= ADAPTIVE_WINDOWS {
            self.halve();
            w = t / self.width;
        }
        let need = (w as usize + 1) * self.channels;
        if self.table.len() < need {
            self.table.resize(need, Window::default());
        }
        w as usize
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
    pub fn absorb(&mut self, mut other: LinkSeries) {
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
    }

    /// A packet of `bytes` starts on channel `c` at `start` and its tail leaves at `end`.
    pub fn sent(&mut self, c: u32, start: u64, end: u64, bytes: u64) {
        let k = self.channels;
        let w = self.reach(start);
        let cell = &mut self.table[w * k + c as usize];
        cell.bytes += bytes;
        cell.packets += 1;
        self.spread(c, start, end, |cell, dt| cell.busy_ps += dt);
    }

    /// The bytes held in the buffer channel `c` feeds change at `to`: until then it held
    /// `level` bytes (since its last change).
    pub fn occupancy(&mut self, c: u32, level: u32, to: u64) {
        let from = std::mem::replace(&mut self.since[c as usize], to);
        if level > 0 {
            self.spread(c, from, to, |cell, dt| {
                cell.occupancy += level as u128 * dt as u128
            });
        }
    }

    /// Channel `c` was in low power from `from` to `to`.
    pub fn low(&mut self, c: u32, from: u64, to: u64) {
        self.spread(c, from, to, |cell, dt| cell.low_ps += dt);
    }

    /// Calls `f` with each window's part of `[from, to)` on channel `c`.
    fn spread(&mut self, c: u32, from: u64, to: u64, f: impl Fn(&mut Window, u64)) {
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
        let mut s = LinkSeries::new(100, false, 2);
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
    fn occupancy_integrates_level_times_time() {
        let mut s = LinkSeries::new(100, false, 1);
        s.occupancy(0, 0, 90);
        s.occupancy(0, 10, 120);
        assert_eq!(s.get(0, 0).occupancy, 100);
        assert_eq!(s.get(1, 0).occupancy, 200);
    }

    #[test]
    fn an_adaptive_series_merges_windows_and_keeps_the_totals() {
        let mut s = LinkSeries::new(10, true, 1);
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
