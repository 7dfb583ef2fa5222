//! The C allocator's setting the command line makes at its start
//! (`perf::hugepages::map_large_blocks`): a block of 256 KiB or more is mapped on its own and
//! given back when freed, even after a larger one was freed (glibc would otherwise raise its
//! threshold to that size, and carve the next blocks from the heap). One test in its own
//! process, since the setting and the allocator's counts are the whole process's.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_large_block_is_mapped_on_its_own_even_after_a_larger_one_was_freed() {
    use mgensim::map_large_blocks;
    /// The size from which a block is mapped on its own, as the command line sets it.
    const MAPPED: usize = 256 << 10;

    /// Blocks mapped on their own, and their bytes.
    fn mapped() -> (usize, usize) {
        // SAFETY: `mallinfo2` only reads the allocator's counters.
        let m = unsafe { libc::mallinfo2() };
        (m.hblks, m.hblkhd)
    }

    map_large_blocks();
    // a freed block of 8 MiB would have raised glibc's own threshold to 8 MiB
    drop(std::hint::black_box(vec![1u8; 8 << 20]));
    let before = mapped();
    let block = std::hint::black_box(vec![1u8; MAPPED + 4096]);
    let during = mapped();
    assert_eq!(during.0, before.0 + 1, "the block is mapped on its own");
    assert!(during.1 >= before.1 + MAPPED);
    drop(block);
    assert_eq!(mapped(), before, "and given back when freed");
}
