//! The world's collectives: the identity on one process; on 2, 3 and 4 MPI processes (with
//! `--features mpi`), each checked against what every process sent.

use super::*;

#[test]
fn one_process_keeps_what_it_has() {
    let w = World::one();
    assert_eq!((w.rank(), w.size(), w.is_root()), (0, 1, true));
    let mut v = [7, u64::MAX, 0];
    w.min(&mut v);
    assert_eq!(v, [7, u64::MAX, 0]);
    assert_eq!(w.sum(41), 41);
    assert_eq!(
        w.exchange(vec![vec![1, 2, 3]], Halt::Go).unwrap(),
        (Halt::Go, vec![vec![1, 2, 3]])
    );
    assert_eq!(
        w.exchange(vec![vec![]], Halt::Now).unwrap(),
        (Halt::Now, vec![vec![]])
    );
    let mut got = Vec::new();
    let done = w.gather_each(vec![9, 8], |q, b| {
        got.push((q, b.to_vec()));
        Ok(())
    });
    assert_eq!(done.unwrap(), Ok(()));
    assert_eq!(got, vec![(0, vec![9, 8])]);
    assert_eq!(w.broadcast(vec![5]).unwrap(), vec![5]);
}

#[test]
fn a_count_past_what_mpi_holds_is_refused_with_its_reason() {
    assert_eq!(count(12, "x"), Ok(12));
    let e = count(MAX_COUNT + 1, "the cut messages of a window").unwrap_err();
    assert!(e
        .to_string()
        .starts_with("the cut messages of a window: 2147483648 bytes"));
}

/// What process `r` of `n` sends process `d` in round `k` of the exchange test: sizes that
/// differ by pair and round (some empty, one of 1 MB), bytes that name both ends and the round.
#[cfg(feature = "mpi")]
fn pattern(r: usize, d: usize, k: usize, i: usize) -> u8 {
    (r * 13 + d * 3 + k * 101 + i) as u8
}

#[cfg(feature = "mpi")]
fn pattern_len(r: usize, d: usize, k: usize) -> usize {
    if (r, d, k) == (0, 1, 2) {
        return 1 << 20;
    }
    (r * 31 + d * 7 + k * 3) % 5 * 100
}

/// Run by [`collectives_on_two_three_and_four_processes`] in each process of an MPI job.
#[cfg(feature = "mpi")]
#[test]
#[ignore = "run by collectives_on_two_three_and_four_processes under mpirun"]
fn collectives_in_one_process_of_a_job() {
    let w = World::join().expect("MPI");
    let (r, n) = (w.rank() as usize, w.size() as usize);
    let mut v = [1000 + 7 * (n - r) as u64, r as u64, u64::MAX];
    w.min(&mut v);
    assert_eq!(v, [1007, 0, u64::MAX]);
    assert_eq!(w.sum(r as u64 + 1), (n * (n + 1) / 2) as u64);
    // rounds one after another with no other collective between them: a message of one
    // round must not be taken for the next's; the halt agreed is the strongest any process
    // asks for (round 3: the last process after the take-in; round 4: the last now, the
    // others after; round 5: process 0 now)
    for k in 0..6 {
        let out: Vec<Vec<u8>> = (0..n)
            .map(|d| {
                (0..pattern_len(r, d, k))
                    .map(|i| pattern(r, d, k, i))
                    .collect()
            })
            .collect();
        let asked = match (k, r) {
            (3, r) if r == n - 1 => Halt::AfterTakeIn,
            (4, r) if r == n - 1 => Halt::Now,
            (4, _) => Halt::AfterTakeIn,
            (5, 0) => Halt::Now,
            _ => Halt::Go,
        };
        let want = match k {
            3 => Halt::AfterTakeIn,
            4 | 5 => Halt::Now,
            _ => Halt::Go,
        };
        let (agreed, got) = w.exchange(out, asked).unwrap();
        assert_eq!(agreed, want, "round {k}: the halt agreed");
        assert_eq!(got.len(), n);
        for (s, b) in got.iter().enumerate() {
            let want: Vec<u8> = (0..pattern_len(s, r, k))
                .map(|i| pattern(s, r, k, i))
                .collect();
            assert_eq!(b, &want, "round {k}: from process {s}");
        }
    }
    // (each process's bytes at the root in order, one at a time; the root's `take` failing
    // on process 1's stops taking, and the gather still ends in every process)
    for fail in [false, true] {
        let mut all = Vec::new();
        let done = w
            .gather_each(vec![r as u8; r * 3], |q, b| {
                all.push(b.to_vec());
                if fail && q == 1 {
                    return Err(format!("refused {q}"));
                }
                Ok(())
            })
            .unwrap();
        if r == 0 {
            let upto = if fail { 2 } else { n };
            assert_eq!(all.len(), upto);
            for (s, b) in all.iter().enumerate() {
                assert_eq!(b, &vec![s as u8; s * 3]);
            }
            assert_eq!(
                done,
                if fail {
                    Err("refused 1".into())
                } else {
                    Ok(())
                }
            );
        } else {
            assert!(all.is_empty() && done.is_ok());
        }
    }
    let said = w.broadcast(if r == 0 {
        b"from the root".to_vec()
    } else {
        Vec::new()
    });
    assert_eq!(said.unwrap(), b"from the root");
    println!("process {r} of {n}: collectives as computed");
}

#[cfg(feature = "mpi")]
#[test]
fn collectives_on_two_three_and_four_processes() {
    let exe = std::env::current_exe().unwrap();
    for n in 2..=4 {
        let out = mpirun(n)
            .arg(&exe)
            .args(["--ignored", "--exact", "--nocapture", "--test-threads", "1"])
            .arg("engine::world::tests::collectives_in_one_process_of_a_job")
            .output()
            .expect("mpirun (Open MPI or MPICH) on the PATH");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{n} processes: {}\n{text}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        for r in 0..n {
            assert!(text.contains(&format!("process {r} of {n}: collectives as computed")));
        }
    }
}

/// A process that panics stops the whole job at once (`MPI_Abort`), with the panic's
/// status, instead of leaving the others waiting in a collective.
#[cfg(feature = "mpi")]
#[test]
#[ignore = "run by a_panic_in_one_process_stops_the_job under mpirun"]
fn one_process_panics_while_the_others_wait() {
    let w = World::join().expect("MPI");
    if w.rank() == 1 {
        panic!("process 1 fails on purpose");
    }
    let mut v = [w.rank() as u64];
    w.min(&mut v);
    unreachable!("the job was aborted");
}

#[cfg(feature = "mpi")]
#[test]
fn a_panic_in_one_process_stops_the_job() {
    let exe = std::env::current_exe().unwrap();
    let start = std::time::Instant::now();
    let out = mpirun(3)
        .arg(&exe)
        .args(["--ignored", "--exact", "--nocapture", "--test-threads", "1"])
        .arg("engine::world::tests::one_process_panics_while_the_others_wait")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(PANIC_STATUS), "{err}");
    assert!(err.contains("process 1 fails on purpose"), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
}

/// `mpirun` for `n` processes on however many cores this machine has, as root too (CI runs
/// as root in a container).
#[cfg(feature = "mpi")]
fn mpirun(n: u32) -> std::process::Command {
    let mut c = std::process::Command::new("mpirun");
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "--bind-to", "none", "-np"])
        .arg(n.to_string());
    c
}
