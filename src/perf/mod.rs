//! Helpers that make the engine fast and change nothing it computes: the packet pool (a slab
//! allocator), a list whose zero bytes are empty (`list.rs`), the arrays and pools the partitions share (`slab.rs`, `stable.rs`) and
//! the copies of other process groups' records they keep (`copies.rs`), an insertion
//! sort (`sort.rs`), software prefetch, transparent huge pages for large blocks (and freed
//! pages given back), and the hook that starts Valgrind's instrumentation at a given event
//! (`bench/cachesim`). What was tried and measured with them is in `docs/performance.md`.

pub(crate) mod copies;
pub(crate) mod hugepages;
pub(crate) mod list;
pub(crate) mod pool;
pub(crate) mod prefetch;
pub(crate) mod slab;
pub(crate) mod sort;
pub(crate) mod stable;
pub(crate) mod valgrind;
pub(crate) mod wheel;
