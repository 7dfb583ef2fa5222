//! The NICs and the RDMA layer through a partition on a tiny network (a 1-D mesh of two
//! routers, one NIC each, NSIM-ACE defaults), without any script: operations are issued
//! as the API would, ranks are blocked as a poll or a completion would block them, and
//! the events run until each is woken. Times worked out by hand: DMA of 64 B at 2.8 GB/s
//! is 22,858 ps (rounded up), the 80-byte packet serializes in 20 ns at 4 GB/s, a bare
//! 16-byte header in 4 ns, a router takes 140 ns, a cable 0.6 ns.

use super::*;
use crate::rdma::split_handle;

fn part() -> Part {
    let s = Scenario::from_str_with(
        "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\ncode = ''\n",
        std::path::Path::new("tiny.toml"),
        &[],
        false,
    )
    .unwrap();
    Part::new(&s)
}

/// Runs events until rank `r` is woken; returns the time.
fn until_woken(w: &mut Part, r: u32) -> u64 {
    loop {
        match w.advance() {
            Next::Wake(x) if x == r => return w.now.ps(),
            Next::Wake(_) => {}
            Next::Checkpoint => w.look_at_limits(),
            Next::Idle => panic!("rank {r} was never woken"),
        }
    }
}

#[test]
fn a_put_is_read_by_dma_flown_written_by_dma_and_acknowledged() {
    let mut w = part();
    // rank 0 puts 64 B to rank 1 (tag 7) at time 0; rank 1 polls, rank 0 completes
    w.current = 0;
    let h = w.issue(OpKind::Put, 1, 64, 7, None);
    assert!(!w.ranks[1].try_poll(7), "nothing has arrived at time 0");
    let delivered = 22_858 + (20_000 + 3 * 600 + 2 * 140_000) + 22_858;
    assert_eq!(until_woken(&mut w, 1), delivered);
    assert_eq!(
        w.rdma.in_progress(),
        1,
        "the put waits for its acknowledgement"
    );
    let (_, seq) = split_handle(h).unwrap();
    assert!(w.ranks[0].use_handle(seq));
    assert!(!w.ranks[0].try_complete(seq));
    // the receiving NIC answers at once with a bare header, which needs no DMA
    let acknowledged = delivered + (4_000 + 3 * 600 + 2 * 140_000);
    assert_eq!(until_woken(&mut w, 0), acknowledged);
    assert_eq!(w.rdma.in_progress(), 0);
    assert_eq!(w.nics.live_msgs(), 0);
    assert_eq!((w.net.stats.packet_hops, w.net.packets.live()), (6, 0));
}

#[test]
fn a_get_asks_with_a_header_and_the_data_comes_back() {
    let mut w = part();
    w.current = 0;
    let h = w.issue(OpKind::Get, 1, 64, 3, None);
    let (_, seq) = split_handle(h).unwrap();
    assert!(w.ranks[0].use_handle(seq));
    assert!(!w.ranks[0].try_complete(seq));
    // the request (a bare header) flies to rank 1's NIC, which reads the data by DMA and
    // sends it back; rank 0's NIC writes it to memory
    let request = 4_000 + 3 * 600 + 2 * 140_000;
    let data = 22_858 + (20_000 + 3 * 600 + 2 * 140_000) + 22_858;
    assert_eq!(until_woken(&mut w, 0), request + data);
    assert_eq!(w.net.stats.packet_hops, 6);
}

/// A process that owns some ranks only (an MPI process, the root too) writes those: each
/// is the rank a whole build makes, and the others read as zero bytes, a rank numbered 0 with
/// nothing pending and no random numbers.
#[test]
fn only_the_ranks_a_process_owns_are_written() {
    let s = Scenario::from_str_with(
        "[network]\ntopology = 'mesh'\ndims = [8]\n[workload]\ncode = ''\n",
        std::path::Path::new("eight.toml"),
        &[],
        false,
    )
    .unwrap();
    let nodes = Nodes::new(&s);
    let whole = Part::ranks(&nodes, 8, |_| true);
    let odd = Part::ranks(&nodes, 8, |r| r % 2 == 1);
    let packed = |r: &Rank| {
        let mut w = Vec::new();
        crate::packed::put(&mut w, r);
        w
    };
    let zero = Rank::new(0, crate::random::Xoshiro::default());
    for r in 0..8 {
        let (a, b) = (&whole[r], &odd[r]);
        assert_eq!(a.id, r as u32);
        if r % 2 == 1 {
            assert_eq!((packed(a), a.rng), (packed(b), b.rng), "rank {r}");
        } else {
            assert_eq!((packed(b), b.rng), (packed(&zero), zero.rng), "rank {r}");
            assert_ne!(a.rng, b.rng);
        }
    }
}
