//! The event queue against a binary heap, in the hold model: `n` events pending; each step
//! takes the earliest and schedules one more at its time plus a delay drawn like a network's
//! (mostly a router pipeline or a serialization, 10 ns to 600 ns; one in 64 a compute phase of
//! up to 20 µs). Prints nanoseconds per hold (one pop and one push) for each size.
//!
//! `cargo bench --bench queue`

use mgensim::units::Time;
use mgensim::EventQueue;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Instant;

/// xorshift64*: a fixed stream of delays, the same for both queues.
struct Delays(u64);
impl Delays {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        if r % 64 == 0 {
            r % 20_000_000
        } else {
            10_000 + r % 590_000
        }
    }
}

fn wheel(n: usize, holds: usize) -> f64 {
    let mut q = EventQueue::new();
    let mut d = Delays(0x9e37_79b9_7f4a_7c15);
    for i in 0..n {
        q.push(Time(d.next()), i as u32);
    }
    let start = Instant::now();
    for _ in 0..holds {
        let (t, e) = q.pop().expect("pending");
        q.push(Time(t.0 + d.next()), black_box(e));
    }
    start.elapsed().as_nanos() as f64 / holds as f64
}

fn binary_heap(n: usize, holds: usize) -> f64 {
    let mut q = BinaryHeap::new();
    let mut d = Delays(0x9e37_79b9_7f4a_7c15);
    let mut seq = 0u64;
    for i in 0..n {
        q.push(Reverse((d.next(), seq, i as u32)));
        seq += 1;
    }
    let start = Instant::now();
    for _ in 0..holds {
        let Reverse((t, _, e)) = q.pop().expect("pending");
        q.push(Reverse((t + d.next(), seq, black_box(e))));
        seq += 1;
    }
    start.elapsed().as_nanos() as f64 / holds as f64
}

fn main() {
    println!(
        "{:>10} {:>14} {:>14} {:>8}",
        "pending", "wheel ns/hold", "heap ns/hold", "heap/wheel"
    );
    for n in [1_000, 10_000, 100_000, 1_000_000, 4_000_000] {
        let holds = 4_000_000;
        let w = wheel(n, holds);
        let h = binary_heap(n, holds);
        println!("{n:>10} {w:>14.1} {h:>14.1} {:>8.2}", h / w);
    }
}
