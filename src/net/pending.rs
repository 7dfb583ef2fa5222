//! The releases a router has pending: which of its output channels are busy, and when each one's
//! tail leaves (see "A release happens…" in `router.rs`).
//!
//! `Network::settle` (`router.rs`) asks, for nearly every hop, which of a router's busy channels
//! have a tail that has left by now. Kept on the channels, that answer would cost a cache miss
//! per busy channel, most of them not due yet. So each router has one block here, aligned to a
//! cache line: `words` words of bits (the busy ports), then the time each port's tail leaves.
//! A 3-D torus router with one NIC (7 ports) is exactly one 64-byte line. (Measurements, and a
//! layout tried and dropped: `docs/performance.md`.)
//!
//! Invariant: a port's time is meaningful only while its bit is set. Costs: `mark`, `clear`
//! O(1); `due` O(busy ports in the word), reading only the router's own block.

/// Busy ports and their tail times (ps), per router, one cache-aligned block each.
pub(crate) struct Pending {
    /// Over-allocated by up to a line so that every block starts on a 64-byte boundary.
    words: Vec<u64>,
    /// Index of router 0's block in `words`.
    start: usize,
    /// Words per block: bit words, then one time per port; a multiple of 8 (64 bytes).
    stride: usize,
    /// Words of bits per block (64 ports each).
    bit_words: usize,
}

impl Pending {
    /// Nothing busy in any of `routers` routers of `ports` ports.
    pub(crate) fn new(routers: u32, ports: u32) -> Pending {
        let bit_words = (ports as usize).div_ceil(64);
        let stride = (bit_words + ports as usize).div_ceil(8) * 8;
        let words = vec![0u64; routers as usize * stride + 7];
        let misalign = (words.as_ptr() as usize / 8) % 8;
        Pending {
            start: (8 - misalign) % 8,
            words,
            stride,
            bit_words,
        }
    }

    /// Words of bits per router (64 ports each).
    #[inline]
    pub(crate) fn bit_words(&self) -> usize {
        self.bit_words
    }

    #[inline]
    fn block(&self, r: u32) -> usize {
        self.start + r as usize * self.stride
    }

    /// Port `port` of router `r` is busy until `at` (ps): its release falls due then.
    #[inline]
    pub(crate) fn mark(&mut self, r: u32, port: u32, at: u64) {
        let b = self.block(r);
        self.words[b + (port / 64) as usize] |= 1 << (port % 64);
        self.words[b + self.bit_words + port as usize] = at;
    }

    /// Port `port` of router `r` is no longer pending.
    #[inline]
    pub(crate) fn clear(&mut self, r: u32, port: u32) {
        let b = self.block(r);
        self.words[b + (port / 64) as usize] &= !(1 << (port % 64));
    }

    /// Asks for router `r`'s block (its first line) to be brought into the cache
    /// ([`crate::perf::prefetch`]); changes nothing.
    #[inline]
    pub(crate) fn prefetch(&self, r: u32) {
        if let Some(w) = self.words.get(self.block(r)) {
            crate::perf::prefetch::prefetch(w);
        }
    }

    /// The busy ports `64·w ..` of router `r` (bit `i`: port `64·w + i`).
    #[inline]
    pub(crate) fn busy(&self, r: u32, w: usize) -> u64 {
        self.words[self.block(r) + w]
    }

    /// When port `port` of router `r` releases (ps; meaningful while it is busy).
    #[inline]
    pub(crate) fn time(&self, r: u32, port: u32) -> u64 {
        self.words[self.block(r) + self.bit_words + port as usize]
    }

    /// The busy ports `64·w ..` of router `r` whose tail has left by `now` (ps).
    #[inline]
    pub(crate) fn due(&self, r: u32, w: usize, now: u64) -> u64 {
        let b = self.block(r);
        let times = &self.words[b + self.bit_words + w * 64..];
        let mut bits = self.words[b + w];
        let mut due = 0;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            if times[i as usize] <= now {
                due |= 1 << i;
            }
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_cache_lines_and_due_ports_are_those_whose_time_has_come() {
        let mut p = Pending::new(3, 7);
        assert_eq!(p.stride, 8, "7 ports and a word of bits fill one line");
        for r in 0..3 {
            assert_eq!((p.words[p.block(r)..].as_ptr() as usize) % 64, 0);
        }
        p.mark(1, 0, 500);
        p.mark(1, 6, 100);
        p.mark(2, 3, 50);
        assert_eq!(p.due(1, 0, 99), 0);
        assert_eq!(p.due(1, 0, 100), 1 << 6);
        assert_eq!(p.due(1, 0, 500), 1 << 6 | 1);
        assert_eq!((p.due(0, 0, u64::MAX), p.busy(2, 0)), (0, 1 << 3));
        p.clear(1, 6);
        assert_eq!((p.due(1, 0, 1000), p.time(1, 0)), (1, 500));
    }

    #[test]
    fn routers_of_many_ports_have_many_words_of_bits() {
        let mut p = Pending::new(2, 130);
        assert_eq!((p.bit_words(), p.stride % 8), (3, 0));
        p.mark(1, 129, 7);
        p.mark(1, 64, 9);
        assert_eq!((p.due(1, 2, 7), p.due(1, 1, 8), p.due(1, 1, 9)), (2, 0, 1));
        assert_eq!(p.due(0, 2, 7), 0, "router 0 is untouched");
    }
}
