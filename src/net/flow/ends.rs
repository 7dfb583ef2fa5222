//! The flows' ends, earliest first: a binary heap indexed by flow, so that a recomputation
//! moves an end in place (`O(log F)`) instead of leaving an outdated entry behind. Ties go to
//! the lower flow number, so the order is a function of the times alone.

/// `pos` value of a flow not in the heap.
const OUT: u32 = u32::MAX;

/// Invariant: `heap[i]` is no later than its children `heap[2i + 1]`, `heap[2i + 2]` (by
/// `(time, flow)`), and `pos[heap[i].1] == i`.
#[derive(Default)]
pub(crate) struct Ends {
    heap: Vec<(u64, u32)>,
    pos: Vec<u32>,
}

impl Ends {
    /// Sets flow `f`'s end to `t`, in the heap or not yet.
    pub(crate) fn set(&mut self, f: u32, t: u64) {
        if self.pos.len() <= f as usize {
            self.pos.resize(f as usize + 1, OUT);
        }
        let i = self.pos[f as usize];
        if i == OUT {
            self.heap.push((t, f));
            let last = self.heap.len() - 1;
            self.pos[f as usize] = last as u32;
            self.up(last);
        } else {
            let old = self.heap[i as usize].0;
            self.heap[i as usize].0 = t;
            if t < old {
                self.up(i as usize);
            } else {
                self.down(i as usize);
            }
        }
    }

    /// The earliest end, `(time, flow)`.
    pub(crate) fn first(&self) -> Option<(u64, u32)> {
        self.heap.first().copied()
    }

    /// Takes the earliest end out.
    pub(crate) fn pop(&mut self) -> Option<(u64, u32)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("not empty");
        self.pos[top.1 as usize] = OUT;
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.pos[last.1 as usize] = 0;
            self.down(0);
        }
        Some(top)
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent] <= self.heap[i] {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut least = i;
            if l < self.heap.len() && self.heap[l] < self.heap[least] {
                least = l;
            }
            if r < self.heap.len() && self.heap[r] < self.heap[least] {
                least = r;
            }
            if least == i {
                return;
            }
            self.swap(i, least);
            i = least;
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].1 as usize] = a as u32;
        self.pos[self.heap[b].1 as usize] = b as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_come_out_earliest_first_after_moves() {
        let mut e = Ends::default();
        for (f, t) in [(0, 50), (1, 20), (2, 90), (3, 20), (4, 70)] {
            e.set(f, t);
        }
        e.set(2, 10); // earlier
        e.set(1, 80); // later
        let mut out = vec![];
        while let Some(x) = e.pop() {
            out.push(x);
        }
        assert_eq!(out, [(10, 2), (20, 3), (50, 0), (70, 4), (80, 1)]);
        // a flow taken out can come back
        e.set(3, 5);
        assert_eq!(e.first(), Some((5, 3)));
    }
}
