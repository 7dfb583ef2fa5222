use super::*;
use rand_chacha::rand_core::{RngCore, SeedableRng};

#[test]
fn pops_in_time_then_schedule_order() {
    let mut q = EventQueue::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut expected = Vec::new();
    for i in 0..10_000u32 {
        let t = Time(rng.next_u64() % 500);
        q.push(t, i);
        expected.push((t, i));
    }
    // schedule order is i, so a stable sort by time is the required order
    expected.sort_by_key(|&(t, _)| t);
    let mut got = Vec::new();
    while let Some(e) = q.pop() {
        got.push(e);
    }
    assert_eq!(got, expected);
    assert!(q.is_empty());
}

#[test]
fn a_model_heap_agrees_over_near_far_and_same_time_events() {
    // pops while pushing, at distances from 0 to far beyond the wheel, against a sorted list
    let mut q = EventQueue::new();
    let mut model: Vec<(u64, u64)> = Vec::new(); // (time, seq)
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut now = 0u64;
    let mut seq = 0u64;
    for round in 0..200_000u64 {
        if rng.next_u64() % 3 != 0 || model.is_empty() {
            let d = match rng.next_u64() % 4 {
                0 => 0,
                1 => rng.next_u64() % 2_000,
                2 => rng.next_u64() % 5_000_000,
                _ => rng.next_u64() % 50_000_000_000,
            };
            q.push(Time(now + d), seq);
            model.push((now + d, seq));
            seq += 1;
        } else {
            let i = (0..model.len()).min_by_key(|&i| model[i]).unwrap();
            let want = model.swap_remove(i);
            let (t, s) = q.pop().unwrap();
            assert_eq!((t.0, s), want, "round {round}");
            now = t.0;
        }
        assert_eq!(q.len(), model.len());
    }
}

#[test]
fn every_bucket_width_takes_events_in_the_same_order() {
    // one random schedule of pushes and pops, near and far, with ties, replayed on queues
    // of five widths: what leaves, and when, is the same
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let ops: Vec<Option<u64>> = (0..60_000)
        .map(|_| {
            (rng.next_u64() % 3 != 0).then(|| match rng.next_u64() % 4 {
                0 => 0,
                1 => rng.next_u64() % 3_000,
                2 => rng.next_u64() % 20_000_000,
                _ => (rng.next_u64() % 64) * 1_000,
            })
        })
        .collect();
    let run = |shift: u32| {
        let mut q = EventQueue::with_bucket_shift(shift);
        let (mut now, mut out) = (0u64, Vec::new());
        for (i, op) in ops.iter().enumerate() {
            match op {
                Some(d) => q.push(Time(now + d), i as u32),
                None => {
                    if let Some((t, e)) = q.pop() {
                        now = t.0;
                        out.push((t.0, e));
                    }
                }
            }
        }
        out.extend(std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.0, e)));
        out
    };
    let want = run(SHIFT);
    assert_eq!(want.len(), ops.iter().filter(|o| o.is_some()).count());
    for shift in [6, 10, 11, 14] {
        assert!(run(shift) == want, "bucket shift {shift}");
    }
    assert_eq!(
        (
            bucket_shift_for(512),
            bucket_shift_for(1024),
            bucket_shift_for(1025)
        ),
        (11, 12, SHIFT)
    );
}

#[test]
fn ties_keep_schedule_order_across_the_overflow_and_the_wheel() {
    // events at two times of one bucket, some scheduled while that bucket is beyond the
    // wheel (they come in through the overflow, in key order), some after it is in the
    // wheel; then more at the bucket being processed
    let far = 10 * SLOTS as u64 * (1 << SHIFT);
    let mut q = EventQueue::new();
    let mut want = Vec::new();
    for i in 0..40u32 {
        let t = far + if i % 3 == 0 { 0 } else { 40 };
        q.push(Time(t), i);
        want.push((t, i));
    }
    q.push(Time(far - 1000), 1000);
    assert_eq!(q.pop(), Some((Time(far - 1000), 1000)));
    for i in 40..80u32 {
        let t = far + if i % 2 == 0 { 0 } else { 40 };
        q.push(Time(t), i);
        want.push((t, i));
    }
    want.sort_by_key(|&(t, _)| t);
    let mut got = vec![q.pop().unwrap()];
    // pushed while its own bucket is being processed
    q.push(Time(far + 40), 200);
    want.push((far + 40, 200));
    while let Some((t, e)) = q.pop() {
        got.push((t, e));
    }
    let got: Vec<(u64, u32)> = got.into_iter().map(|(t, e)| (t.0, e)).collect();
    assert_eq!(got, want);
}

#[test]
fn a_short_bucket_out_of_order_keeps_schedule_order_at_ties() {
    // wheel entries carry no sequence number: the insertion sort must be stable
    for n in [3u32, 20, 64, 65, 200] {
        let mut q = EventQueue::new();
        let base = 5 << SHIFT;
        let mut want = Vec::new();
        for i in 0..n {
            let t = base + [30, 10, 30, 0][i as usize % 4];
            q.push(Time(t), i);
            want.push((Time(t), i));
        }
        want.sort_by_key(|&(t, _)| t);
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, want, "{n} events");
    }
}

#[test]
fn a_huge_bucket_gives_its_room_back_when_trimmed_and_the_order_holds() {
    // a million ranks acting at one picosecond: the bucket being processed, and the events
    // scheduled into it meanwhile (into `late`), are far larger than what the queue keeps
    let n = 4 * KEEP as u32;
    let mut q = EventQueue::new();
    for i in 0..n {
        q.push(Time(1_000), i);
    }
    assert_eq!(q.pop(), Some((Time(1_000), 0)));
    for i in 0..n {
        q.push(Time(1_000 + (i % 3) as u64), n + i);
    }
    q.trim(); // (mid-bucket: what is held stays)
    let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(got.len(), 2 * n as usize - 1);
    assert!(got
        .windows(2)
        .all(|w| w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)));
    assert!(q.sorted.capacity() > KEEP && q.late.capacity() > KEEP);
    q.trim();
    assert!(q.sorted.capacity() <= KEEP && q.late.capacity() <= KEEP);
    q.push(Time(5_000), 1);
    assert_eq!(q.pop(), Some((Time(5_000), 1)));
}

/// `ahead(k)` names the event `k` places on in the bucket's sorted run: `ahead(0)` is the
/// one `pop` takes next, and an event scheduled into the bucket after it was entered is
/// not seen.
#[test]
fn ahead_names_the_events_to_come_in_the_bucket_entered() {
    // (buckets of 1,024 ps: all four in the second, entered by the first pop)
    let mut q = EventQueue::with_bucket_shift(10);
    for (t, e) in [(2030, 'c'), (2010, 'a'), (2020, 'b'), (2040, 'd')] {
        q.push(Time(t), e);
    }
    assert_eq!(q.pop(), Some((Time(2010), 'a')));
    assert_eq!(
        (q.ahead(0), q.ahead(1), q.ahead(2), q.ahead(3)),
        (Some(&'b'), Some(&'c'), Some(&'d'), None)
    );
    // (into the bucket being taken: `late`, which `ahead` does not look at)
    q.push(Time(2025), 'x');
    assert_eq!(q.pop(), Some((Time(2020), 'b')));
    assert_eq!((q.ahead(0), q.ahead(1)), (Some(&'c'), Some(&'d')));
    assert_eq!(q.pop(), Some((Time(2025), 'x')));
    assert_eq!(q.ahead(0), Some(&'c'));
}

#[test]
fn pop_until_stops_short_of_a_later_event_and_takes_what_is_scheduled_before_it() {
    let far = 100 * (1u64 << SHIFT);
    let mut q = EventQueue::new();
    q.push(Time(far), 'z');
    // nothing is due by 50 ps: the queue says so without moving to the far bucket
    let lb = q.pop_until(50).unwrap_err();
    assert!(lb > 50 && lb <= far, "{lb}");
    q.push(Time(700), 'b');
    q.push(Time(600), 'a');
    assert_eq!(q.pop_until(650), Ok((Time(600), 'a')));
    assert_eq!(q.pop_until(650), Err(700));
    assert_eq!(q.pop_until(u64::MAX), Ok((Time(700), 'b')));
    assert_eq!(q.pop_until(u64::MAX), Ok((Time(far), 'z')));
    assert_eq!(q.pop_until(u64::MAX), Err(u64::MAX));
}

#[test]
fn interleaved_push_pop_keeps_order() {
    let mut q = EventQueue::new();
    q.push(Time(10), 'a');
    q.push(Time(5), 'b');
    assert_eq!(q.pop(), Some((Time(5), 'b')));
    q.push(Time(10), 'c');
    q.push(Time(7), 'd');
    assert_eq!(q.pop(), Some((Time(7), 'd')));
    assert_eq!(q.pop(), Some((Time(10), 'a')));
    assert_eq!(q.pop(), Some((Time(10), 'c')));
    assert_eq!(q.pop(), None);
}
