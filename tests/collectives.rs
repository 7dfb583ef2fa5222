//! The collectives library (lua/mgen/coll.lua): for p in {1, 2, 3, 5, 8, 13, 64} and both
//! transports, every rank sends the number of messages its algorithm prescribes and receives
//! the bytes it should, as counted by the engine; and barriers hold everyone back.

mod common;
use common::*;

const PS: [u64; 7] = [1, 2, 3, 5, 8, 13, 64];

fn pow2_floor(p: u64) -> u64 {
    1 << (63 - p.leading_zeros())
}
fn log2(p2: u64) -> u64 {
    p2.trailing_zeros() as u64
}
fn ceil_log2(p: u64) -> u64 {
    if p <= 1 {
        0
    } else {
        64 - (p - 1).leading_zeros() as u64
    }
}
fn lowbit(v: u64) -> u64 {
    v & v.wrapping_neg()
}
/// Children of virtual rank `v` in a binomial tree of `p` ranks rooted at 0.
fn children(v: u64, p: u64) -> u64 {
    let limit = if v == 0 { u64::MAX } else { lowbit(v) };
    (0..64)
        .map(|j| 1u64 << j)
        .filter(|&m| m < limit && m < p && v + m < p)
        .count() as u64
}
/// Ranks in the binomial subtree of virtual rank `v`, itself included.
fn subtree(v: u64, p: u64) -> u64 {
    if v == 0 {
        p
    } else {
        lowbit(v).min(p - v)
    }
}
/// Size of chunk i when `b` bytes are cut into `n` chunks.
fn seg(b: u64, n: u64, i: u64) -> u64 {
    b * (i + 1) / n - b * i / n
}

/// Expected (messages sent, bytes received) of rank `r` of `p`.
type Expect = fn(r: u64, p: u64, b: u64, root: u64) -> (u64, u64);

struct Case {
    call: &'static str,
    algo: &'static str,
    bytes: u64,
    root: u64,
    expect: Expect,
}

fn rd_like(r: u64, p: u64, b: u64) -> (u64, u64) {
    let p2 = pow2_floor(p);
    let rest = p - p2;
    let n = log2(p2);
    if r >= p2 {
        (1, b)
    } else if r < rest {
        (n + 1, (n + 1) * b)
    } else {
        (n, n * b)
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            call: "barrier",
            algo: "ring",
            bytes: 8,
            root: 0,
            expect: |_, p, b, _| (p - 1, (p - 1) * b),
        },
        Case {
            call: "barrier",
            algo: "recursive_doubling",
            bytes: 8,
            root: 0,
            expect: |r, p, b, _| rd_like(r, p, b),
        },
        Case {
            call: "barrier",
            algo: "dissemination",
            bytes: 8,
            root: 0,
            expect: |_, p, b, _| (ceil_log2(p), ceil_log2(p) * b),
        },
        Case {
            call: "barrier",
            algo: "binomial",
            bytes: 8,
            root: 0,
            expect: |r, p, b, _| {
                let up = (r != 0) as u64;
                (up + children(r, p), (children(r, p) + up) * b)
            },
        },
        Case {
            call: "barrier",
            algo: "central",
            bytes: 8,
            root: 0,
            expect: |r, p, b, _| if r == 0 { (p - 1, (p - 1) * b) } else { (1, b) },
        },
        Case {
            call: "bcast",
            algo: "binomial",
            bytes: 1000,
            root: 2,
            expect: |r, p, b, root| {
                let v = (r + p - root % p) % p;
                (children(v, p), if v == 0 { 0 } else { b })
            },
        },
        Case {
            call: "bcast",
            algo: "linear",
            bytes: 1000,
            root: 2,
            expect: |r, p, b, root| {
                if r == root % p {
                    (p - 1, 0)
                } else {
                    (0, b)
                }
            },
        },
        Case {
            call: "reduce",
            algo: "binomial",
            bytes: 1000,
            root: 1,
            expect: |r, p, b, root| {
                let v = (r + p - root % p) % p;
                ((v != 0) as u64, children(v, p) * b)
            },
        },
        Case {
            call: "reduce",
            algo: "recursive_doubling",
            bytes: 1000,
            root: 1,
            expect: |r, p, b, _| rd_like(r, p, b),
        },
        Case {
            call: "reduce",
            algo: "ring",
            bytes: 1000,
            root: 1,
            expect: |r, p, b, root| {
                let root = root % p;
                let rs = b - seg(b, p, r);
                if r == root {
                    (p - 1, rs + b - seg(b, p, (root + 1) % p))
                } else {
                    (p - 1 + 1, rs)
                }
            },
        },
        Case {
            call: "allreduce",
            algo: "recursive_doubling",
            bytes: 1000,
            root: 0,
            expect: |r, p, b, _| rd_like(r, p, b),
        },
        Case {
            call: "allreduce",
            algo: "ring",
            bytes: 1000,
            root: 0,
            expect: |r, p, b, _| (2 * (p - 1), 2 * b - seg(b, p, r) - seg(b, p, (r + 1) % p)),
        },
        Case {
            call: "allreduce",
            algo: "rabenseifner",
            bytes: 64_000, // divisible by every 2^n used here
            root: 0,
            expect: |r, p, b, _| {
                let p2 = pow2_floor(p);
                let rest = p - p2;
                let both = 2 * (b - b / p2);
                if r >= p2 {
                    (1, b)
                } else if r < rest {
                    (2 * log2(p2) + 1, both + b)
                } else {
                    (2 * log2(p2), both)
                }
            },
        },
        Case {
            call: "allgather",
            algo: "ring",
            bytes: 100,
            root: 0,
            expect: |_, p, b, _| (p - 1, (p - 1) * b),
        },
        Case {
            call: "allgather",
            algo: "recursive_doubling",
            bytes: 100,
            root: 0,
            expect: |r, p, b, _| {
                let p2 = pow2_floor(p);
                let sends = if r >= p2 {
                    1
                } else {
                    log2(p2) + (r < p - p2) as u64
                };
                (sends, (p - 1) * b)
            },
        },
        Case {
            call: "allgather",
            algo: "bruck",
            bytes: 100,
            root: 0,
            expect: |_, p, b, _| (ceil_log2(p), (p - 1) * b),
        },
        Case {
            call: "alltoall",
            algo: "bruck",
            bytes: 4,
            root: 0,
            expect: |_, p, b, _| {
                let blocks: u64 = (0..ceil_log2(p))
                    .map(|k| (0..p).filter(|i| i >> k & 1 == 1).count() as u64)
                    .sum();
                (ceil_log2(p), blocks * b)
            },
        },
        Case {
            call: "alltoall",
            algo: "pairwise",
            bytes: 100,
            root: 0,
            expect: |_, p, b, _| (p - 1, (p - 1) * b),
        },
        Case {
            call: "alltoall",
            algo: "linear",
            bytes: 100,
            root: 0,
            expect: |_, p, b, _| (p - 1, (p - 1) * b),
        },
        Case {
            call: "gather",
            algo: "linear",
            bytes: 100,
            root: 1,
            expect: |r, p, b, root| {
                if r == root % p {
                    (0, (p - 1) * b)
                } else {
                    (1, 0)
                }
            },
        },
        Case {
            call: "gather",
            algo: "binomial",
            bytes: 100,
            root: 1,
            expect: |r, p, b, root| {
                let v = (r + p - root % p) % p;
                ((v != 0) as u64, (subtree(v, p) - 1) * b)
            },
        },
        Case {
            call: "scatter",
            algo: "linear",
            bytes: 100,
            root: 1,
            expect: |r, p, b, root| if r == root % p { (p - 1, 0) } else { (0, b) },
        },
        Case {
            call: "scatter",
            algo: "binomial",
            bytes: 100,
            root: 1,
            expect: |r, p, b, root| {
                let v = (r + p - root % p) % p;
                (children(v, p), if v == 0 { 0 } else { subtree(v, p) * b })
            },
        },
    ]
}

fn run_case(c: &Case, p: u64, transport: &str) -> mgensim::Report {
    let root = c.root % p;
    run(&format!(
        "[network]\ndims = [4, 4, 4]\n[workload]\nranks = {p}\ncode = '''
        require('mgen.coll').{}{{ bytes = {}, algo = '{}', root = {root}, transport = '{transport}' }}'''\n",
        c.call, c.bytes, c.algo
    ))
}

#[test]
fn every_algorithm_sends_and_receives_what_it_prescribes() {
    for c in cases() {
        for p in PS {
            for transport in ["message", "put"] {
                let r = run_case(&c, p, transport);
                let what = format!("{} {} p={p} {transport}", c.call, c.algo);
                let (mut sent, mut received) = (0, 0);
                for (rank, s) in r.per_rank.iter().enumerate() {
                    let (msgs, bytes) = (c.expect)(rank as u64, p, c.bytes, c.root);
                    assert_eq!(
                        s.messages_sent, msgs,
                        "{what}: messages sent by rank {rank}"
                    );
                    assert_eq!(
                        s.bytes_received, bytes,
                        "{what}: bytes received by rank {rank}"
                    );
                    sent += s.bytes_sent;
                    received += s.bytes_received;
                }
                assert_eq!(sent, received, "{what}: bytes conserved");
            }
        }
    }
}

#[test]
fn no_rank_leaves_a_barrier_before_the_last_one_enters() {
    for algo in [
        "ring",
        "recursive_doubling",
        "dissemination",
        "binomial",
        "central",
    ] {
        for transport in ["message", "put"] {
            for p in [2u64, 3, 5, 8, 13] {
                // rank i enters at (p - i) us, except one late rank entering at 50 us
                let late = p / 2;
                let r = run(&format!(
                    "[network]\ndims = [4, 4]\n[workload]\nranks = {p}\ncode = '''
                    local me = MGEN_Comm_rank()
                    MGEN_Comp(me == {late} and 50e-6 or ({p} - me) * 1e-6)
                    require('mgen.coll').barrier{{ algo = '{algo}', transport = '{transport}' }}'''\n"
                ));
                assert!(
                    r.ranks.finish_ps.min > 50_000_000,
                    "{algo} {transport} p={p}: a rank left at {} ps, before the late one entered",
                    r.ranks.finish_ps.min
                );
            }
        }
    }
}

#[test]
fn the_papers_barrier_orderings_hold_for_the_library_too() {
    let time = |algo: &str, p: u64| {
        run(&format!(
            "[network]\ndims = [4, 4, 8]\n[node]\nnode_latency = '0.6 us'\n[workload]\nranks = {p}\ncode = '''
            require('mgen.coll').barrier{{ algo = '{algo}', transport = 'put' }}'''\n"
        ))
        .predicted_time_ps
    };
    for p in [4, 8, 16, 64] {
        assert!(time("recursive_doubling", p) < time("ring", p), "p = {p}");
    }
    assert!(time("recursive_doubling", 16) < time("recursive_doubling", 17));
}

#[test]
fn an_unknown_algorithm_lists_the_known_ones() {
    let e = run_err(
        "[network]\ndims = [2]\n[workload]\ncode = '''\nrequire('mgen.coll').alltoall{ algo = 'magic' }'''\n",
    );
    assert!(
        e.contains("magic") && e.contains("bruck, linear, pairwise") && e.contains("inline:1"),
        "{e}"
    );
    let e = run_err(
        "[network]\ndims = [2]\n[workload]\ncode = '''\nrequire('mgen.coll').bcast{ bytes = 8, transport = 'pigeon' }'''\n",
    );
    assert!(e.contains("pigeon") && e.contains("message, put"), "{e}");
}
