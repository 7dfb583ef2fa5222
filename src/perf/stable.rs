//! Pools of records that other partitions may read: a message's, a transfer's, a send's.
//!
//! A record is made by the partition where it starts (the sending rank's, the sending NIC's)
//! and named by a global id, `local << bits | partition`. Its packets carry the id across the
//! network, and the partition where they arrive reads the record's fixed fields (its kind, its
//! size, who sent it) there, without a copy: records never move (chunks of [`CHUNK`], found
//! through a two-level table allocated once per partition), and a reader only ever learns of
//! an id through a cut message, which the engine hands over after a barrier: the record was
//! written before. What the receiving side changes it keeps in its own [`Mirror`], and a
//! record is released by its owner only, when the other side says it is done (a cut message
//! again): so no record is read and written by two partitions at once.
//!
//! Costs: `alloc`, `release`, `get` O(1) (three dependent loads, two of them of small tables
//! that stay cached). Memory: the records at their peak rounded up to a chunk of [`CHUNK`],
//! plus 8 KiB of top table and 8 KiB per 512 K records per partition. (Chunks of 4,096 records
//! left a quarter of the rd barrier's records unused in 4 partitions: docs/performance.md.)

use std::sync::Arc;

/// Records per chunk.
const CHUNK: usize = 1 << 9;
/// Chunks per second-level table, and second-level tables in the top one.
const FAN: usize = 1 << 10;

/// The most records one partition may hold at once in one pool.
pub(crate) const MAX_LOCAL: u64 = (CHUNK * FAN * FAN) as u64;

type Level2<T> = [*mut T; FAN];

/// Where the records of one pool are for the partitions of one process group: their top
/// tables, which never move (null for a partition of another group, whose records come as
/// copies in the cut messages, `cut.rs`).
pub(crate) struct Directory<T> {
    tops: Vec<*const *mut Level2<T>>,
    bits: u32,
    /// `2^bits − 1`: the bits of an id that name the partition.
    mask: u32,
    /// The partitions whose records this directory reaches.
    group: Group,
}

// SAFETY: the directory holds addresses of tables that live as long as the run; records are
// read through it only under the module's rule (written before a barrier, read after).
unsafe impl<T: Send> Send for Directory<T> {}
unsafe impl<T: Send> Sync for Directory<T> {}

impl<T> Directory<T> {
    /// The record with global id `id`, wherever it lives.
    ///
    /// # Safety
    /// `id` must be a live record's, made by a partition before the last barrier (or by the
    /// caller's own partition), and not be changed by its owner meanwhile.
    #[inline]
    pub(crate) unsafe fn get(&self, id: u32) -> &T {
        debug_assert!(
            self.group.has(id),
            "record {id} of partition {} read through the directory of partitions {}..{}: a \
             record of another process group is read from the copy that came with the cut \
             messages (cut.rs, Record), never from shared memory",
            id & self.mask,
            self.group.lo,
            self.group.lo + self.group.span
        );
        let part = (id & self.mask) as usize;
        let local = (id >> self.bits) as usize;
        // SAFETY: a live record's id names an existing partition (`part` < the tops' count),
        // and its chunk, reached through the two levels its maker filled before the barrier
        // (the caller's contract); nothing writes it meanwhile.
        unsafe {
            let top = *self.tops.get_unchecked(part);
            let l2 = *top.add(local / (CHUNK * FAN));
            let chunk = (*l2)[(local / CHUNK) % FAN];
            &*chunk.add(local % CHUNK)
        }
    }
}

/// One partition's records of one pool.
pub(crate) struct Stable<T> {
    part: u32,
    bits: u32,
    top: Box<[*mut Level2<T>; FAN]>,
    /// Local indices ever used.
    len: usize,
    free: Vec<u32>,
    live: usize,
    peak: usize,
}

// SAFETY: a partition's pool moves between threads with its partition; what other partitions
// read of it goes through a `Directory` under the module's rule.
unsafe impl<T: Send> Send for Stable<T> {}

/// Why a record could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("more than {0} records in flight in one partition")]
pub(crate) struct Full(pub u64);

impl<T: Copy> Stable<T> {
    /// Partition `part`'s empty pool; ids keep the partition in their low `bits` bits.
    pub(crate) fn new(part: u32, bits: u32) -> Stable<T> {
        Stable {
            part,
            bits,
            top: Box::new([std::ptr::null_mut(); FAN]),
            len: 0,
            free: Vec::new(),
            live: 0,
            peak: 0,
        }
    }

    /// The most records this pool may hold at once.
    pub(crate) fn capacity(&self) -> u64 {
        MAX_LOCAL.min(1u64 << (32 - self.bits))
    }

    /// The global id of local index `local`.
    #[inline]
    fn id(&self, local: usize) -> u32 {
        ((local as u32) << self.bits) | self.part
    }

    #[inline]
    fn slot(&self, local: usize) -> *mut T {
        let l2 = self.top[local / (CHUNK * FAN)];
        // SAFETY: every local index below `len` has its chunk allocated (see `alloc`).
        unsafe { (*l2)[(local / CHUNK) % FAN].add(local % CHUNK) }
    }

    /// Stores `item`; returns its global id.
    #[inline]
    pub(crate) fn alloc(&mut self, item: T) -> Result<u32, Full> {
        let local = match self.free.pop() {
            Some(l) => l as usize,
            None => {
                if self.len as u64 >= self.capacity() {
                    return Err(Full(self.capacity()));
                }
                if self.len % CHUNK == 0 {
                    self.grow();
                }
                self.len += 1;
                self.len - 1
            }
        };
        // SAFETY: `local` is a slot of an allocated chunk, not live, and no other partition
        // reads a slot that is not live.
        unsafe { self.slot(local).write(item) };
        self.live += 1;
        self.peak = self.peak.max(self.live);
        Ok(self.id(local))
    }

    /// Allocates the chunk of local index `len`.
    #[cold]
    fn grow(&mut self) {
        let (hi, mid) = (self.len / (CHUNK * FAN), (self.len / CHUNK) % FAN);
        if self.top[hi].is_null() {
            self.top[hi] = Box::into_raw(Box::new([std::ptr::null_mut(); FAN]));
        }
        let chunk: Box<[std::mem::MaybeUninit<T>]> =
            std::iter::repeat_with(std::mem::MaybeUninit::uninit)
                .take(CHUNK)
                .collect();
        // SAFETY: `top[hi]` was just made or made before, and is only written here.
        unsafe { (*self.top[hi])[mid] = Box::into_raw(chunk) as *mut T };
    }

    /// Gives record `id` (this partition's, live) back.
    #[inline]
    pub(crate) fn release(&mut self, id: u32) {
        debug_assert_eq!(id & ((1u32 << self.bits) - 1), self.part);
        self.free.push(id >> self.bits);
        self.live -= 1;
    }

    /// This partition's live record `id`.
    #[inline]
    #[cfg(test)]
    pub(crate) fn get(&self, id: u32) -> &T {
        debug_assert_eq!(id & ((1u32 << self.bits) - 1), self.part);
        let local = (id >> self.bits) as usize;
        assert!(local < self.len);
        // SAFETY: an allocated slot; only this partition writes it.
        unsafe { &*self.slot(local) }
    }

    /// This partition's live record `id`, to change (no other partition reads what changes).
    #[inline]
    #[cfg(test)]
    pub(crate) fn get_mut(&mut self, id: u32) -> &mut T {
        debug_assert_eq!(id & ((1u32 << self.bits) - 1), self.part);
        let local = (id >> self.bits) as usize;
        assert!(local < self.len);
        // SAFETY: as `get`, and `&mut self` hands out one reference at a time.
        unsafe { &mut *self.slot(local) }
    }

    /// Records alive now.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Most records alive at once.
    #[cfg(test)]
    pub(crate) fn peak(&self) -> usize {
        self.peak
    }
}

impl<T> Drop for Stable<T> {
    fn drop(&mut self) {
        for &l2 in self.top.iter() {
            if l2.is_null() {
                continue;
            }
            // SAFETY: made by `grow` with `Box::into_raw`, each once; records are `Copy` data
            // with nothing to drop.
            unsafe {
                for &chunk in (*l2).iter() {
                    if !chunk.is_null() {
                        let slice = std::ptr::slice_from_raw_parts_mut(
                            chunk as *mut std::mem::MaybeUninit<T>,
                            CHUNK,
                        );
                        drop(Box::from_raw(slice));
                    }
                }
                drop(Box::from_raw(l2));
            }
        }
    }
}

/// The directory of `pools` (one per partition, in partition order).
pub(crate) fn directory<T: Copy>(pools: &[&Stable<T>]) -> Arc<Directory<T>> {
    let bits = pools.first().map_or(0, |p| p.bits);
    group_directory(pools, Group::all(pools.len() as u32, bits))
}

/// The directory of the pools of `group`'s partitions (`pools`: one per partition of the run,
/// in partition order): another group's records cannot be read through it.
pub(crate) fn group_directory<T: Copy>(pools: &[&Stable<T>], group: Group) -> Arc<Directory<T>> {
    let bits = pools.first().map_or(0, |p| p.bits);
    Arc::new(Directory {
        tops: pools
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if group.holds(i as u32) {
                    p.top.as_ptr()
                } else {
                    std::ptr::null()
                }
            })
            .collect(),
        bits,
        mask: (1u32 << bits) - 1,
        group,
    })
}

/// The partitions of one process group (docs/architecture.md, "Partitions"): `lo .. lo +
/// span`, a contiguous run, partition `p` of `n` being in group `p · processes / n`. Records
/// of the group's partitions are read in place; those of other groups' come as copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    lo: u32,
    span: u32,
    /// The bits of a record id that name its partition.
    mask: u32,
}

impl Group {
    /// Every one of `parts` partitions (one process), for ids of `bits` partition bits.
    pub(crate) fn all(parts: u32, bits: u32) -> Group {
        Group {
            lo: 0,
            span: parts.max(1),
            mask: (1u32 << bits) - 1,
        }
    }

    /// The group of partition `part` of `parts` cut among `processes` groups.
    pub(crate) fn of(part: u32, parts: u32, processes: u32, bits: u32) -> Group {
        let g = group_of(part, parts, processes);
        let members = (0..parts).filter(|&p| group_of(p, parts, processes) == g);
        let lo = members.clone().next().unwrap_or(0);
        Group {
            lo,
            span: members.count() as u32,
            mask: (1u32 << bits) - 1,
        }
    }

    /// Whether record `id` is of a partition of this group (one well-predicted compare: with
    /// one process, always).
    #[inline(always)]
    pub(crate) fn has(&self, id: u32) -> bool {
        (id & self.mask).wrapping_sub(self.lo) < self.span
    }

    /// Whether partition `part` is of this group.
    #[inline]
    pub(crate) fn holds(&self, part: u32) -> bool {
        part.wrapping_sub(self.lo) < self.span
    }
}

/// The process group of partition `part` of `parts` cut among `processes` groups (0 or 1: one
/// group): contiguous runs of partitions, as even as the counts allow.
pub(crate) fn group_of(part: u32, parts: u32, processes: u32) -> u32 {
    (part as u64 * processes.max(1) as u64 / parts.max(1) as u64) as u32
}

/// Bits of a global id that name the partition, for `parts` partitions.
pub(crate) fn part_bits(parts: u32) -> u32 {
    32 - (parts.max(1) - 1).leading_zeros()
}

/// What the receiving partition keeps of other partitions' records: one `T` per record id,
/// default until first asked for and again after [`Mirror::clear`].
///
/// A partition's vector grows to the highest id asked for and stays there while it is used;
/// [`Mirror::sweep`], called now and then, frees the vector of a partition that was not
/// touched since the last sweep and holds nothing but defaults. Without it, mirrors of the
/// partitions one no longer receives from stay at their peaks: a step of a barrier receives
/// from one partition, the next from another, and 32 partitions' mirrors of each other held
/// 0.5 GB at a million ranks. Costs: `get_mut` and `clear` O(1) amortized; a sweep O(1) per
/// partition, plus a scan of a vector untouched since the last one whose known non-default
/// entry (`witness`) was cleared: at most once per sweep and vector, and never of one in use.
pub(crate) struct Mirror<T> {
    bits: u32,
    /// `2^bits − 1`.
    mask: u32,
    by_part: Vec<Kept<T>>,
}

/// One partition's records as a [`Mirror`] keeps them.
struct Kept<T> {
    v: Vec<T>,
    /// Asked for or cleared since the last sweep.
    touched: bool,
    /// An index whose entry was not default at the last sweep.
    witness: usize,
}

impl<T: Default + Clone + PartialEq> Mirror<T> {
    /// An empty mirror for ids of `bits` partition bits.
    pub(crate) fn new(bits: u32) -> Mirror<T> {
        Mirror {
            bits,
            mask: (1u32 << bits) - 1,
            by_part: (0..1usize << bits)
                .map(|_| Kept {
                    v: Vec::new(),
                    touched: false,
                    witness: 0,
                })
                .collect(),
        }
    }

    /// Which partition's records, and where in them, record `id` is kept.
    #[inline]
    fn place(&self, id: u32) -> (usize, usize) {
        let part = (id & self.mask) as usize;
        (part, (id >> self.bits) as usize)
    }

    /// What is kept for record `id`.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: u32) -> &mut T {
        let (part, local) = self.place(id);
        let k = &mut self.by_part[part];
        k.touched = true;
        if k.v.len() <= local {
            k.v.resize(local + 1, T::default());
        }
        &mut k.v[local]
    }

    /// What is kept for record `id`.
    #[cfg(test)]
    pub(crate) fn get(&self, id: u32) -> T {
        let (part, local) = self.place(id);
        self.by_part[part].v.get(local).cloned().unwrap_or_default()
    }

    /// Bytes held for all partitions' records.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.by_part.iter().map(|k| k.v.capacity()).sum::<usize>() * std::mem::size_of::<T>()
    }

    /// Forgets record `id` (it is done).
    #[inline]
    pub(crate) fn clear(&mut self, id: u32) {
        let (part, local) = self.place(id);
        let k = &mut self.by_part[part];
        k.touched = true;
        if let Some(t) = k.v.get_mut(local) {
            *t = T::default();
        }
    }

    /// Frees the records of each partition untouched since the last sweep that keep nothing
    /// but defaults.
    pub(crate) fn sweep(&mut self) {
        let none = T::default();
        for k in &mut self.by_part {
            let used = std::mem::take(&mut k.touched);
            if used || k.v.is_empty() || k.v.get(k.witness).is_some_and(|t| *t != none) {
                continue;
            }
            match k.v.iter().position(|t| *t != none) {
                Some(i) => k.witness = i,
                None => {
                    k.v = Vec::new();
                    k.witness = 0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_the_partition_and_records_are_read_through_the_directory() {
        let bits = part_bits(3);
        assert_eq!(
            (part_bits(1), part_bits(2), bits, part_bits(5)),
            (0, 1, 2, 3)
        );
        let mut a: Stable<u64> = Stable::new(0, bits);
        let mut b: Stable<u64> = Stable::new(2, bits);
        let ids: Vec<u32> = (0..10_000).map(|i| a.alloc(i).unwrap()).collect();
        let other = b.alloc(77).unwrap();
        assert_eq!(other & 3, 2);
        let dir = directory(&[&a, &b, &b]);
        // SAFETY: live records, nobody writes them while they are read
        unsafe {
            assert_eq!(*dir.get(ids[9_999]), 9_999);
            assert_eq!(*dir.get(other), 77);
        }
        a.release(ids[5]);
        let again = a.alloc(5_000).unwrap();
        assert_eq!(again, ids[5], "a released slot is reused");
        assert_eq!((a.live(), a.peak()), (10_000, 10_000));
        *a.get_mut(again) += 1;
        assert_eq!(*a.get(again), 5_001);
    }

    #[test]
    fn process_groups_are_contiguous_runs_and_their_directory_reads_their_records() {
        let groups = |n: u32, p: u32| (0..n).map(|i| group_of(i, n, p)).collect::<Vec<_>>();
        assert_eq!(groups(4, 3), [0, 0, 1, 2]);
        assert_eq!(groups(7, 2), [0, 0, 0, 0, 1, 1, 1]);
        assert_eq!(groups(4, 1), [0, 0, 0, 0]);
        assert_eq!(groups(4, 0), [0, 0, 0, 0]);
        let bits = part_bits(4);
        let mut pools: Vec<Stable<u64>> = (0..4).map(|p| Stable::new(p, bits)).collect();
        let ids: Vec<u32> = pools
            .iter_mut()
            .enumerate()
            .map(|(p, pool)| pool.alloc(100 + p as u64).unwrap())
            .collect();
        let refs: Vec<&Stable<u64>> = pools.iter().collect();
        // 4 partitions in 3 groups: 0 and 1 together, 2 alone, 3 alone
        let g = Group::of(1, 4, 3, bits);
        assert_eq!(
            ids.iter().map(|&i| g.has(i)).collect::<Vec<_>>(),
            [true, true, false, false]
        );
        assert!(g.holds(0) && g.holds(1) && !g.holds(2) && !g.holds(3));
        let alone = Group::of(2, 4, 3, bits);
        assert_eq!(
            ids.iter().map(|&i| alone.has(i)).collect::<Vec<_>>(),
            [false, false, true, false]
        );
        let dir = group_directory(&refs, g);
        // SAFETY: live records of the group, nobody writes them
        unsafe {
            assert_eq!((*dir.get(ids[0]), *dir.get(ids[1])), (100, 101));
        }
        assert!(
            dir.tops[2].is_null() && dir.tops[3].is_null(),
            "no way to another group's"
        );
        assert!(Group::all(4, bits).has(ids[3]));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(
        expected = "record 3 of partition 3 read through the directory of partitions 0..2"
    )]
    fn a_record_of_another_group_read_through_the_directory_is_caught() {
        let bits = part_bits(4);
        let pools: Vec<Stable<u64>> = (0..4).map(|p| Stable::new(p, bits)).collect();
        let mut last = Stable::new(3, bits);
        let id = last.alloc(7).unwrap();
        let mut refs: Vec<&Stable<u64>> = pools.iter().collect();
        refs[3] = &last;
        let dir = group_directory(&refs, Group::of(0, 4, 2, bits));
        // SAFETY: a live record; the check fires before any read
        let _ = unsafe { *dir.get(id) };
    }

    #[test]
    fn a_full_pool_says_so() {
        let mut p: Stable<u8> = Stable::new(0, 22);
        assert_eq!(p.capacity(), 1024);
        for _ in 0..1024 {
            p.alloc(0).unwrap();
        }
        assert_eq!(p.alloc(0), Err(Full(1024)));
    }

    #[test]
    fn a_mirror_keeps_defaults_until_set_and_after_clear() {
        let mut m: Mirror<u32> = Mirror::new(1);
        assert_eq!(m.get(7), 0);
        *m.get_mut(7) = 3;
        assert_eq!(m.get(7), 3);
        m.clear(7);
        assert_eq!(m.get(7), 0);
        m.clear(9);
        assert_eq!(m.get(9), 0);
    }

    #[test]
    fn a_mirror_gives_back_a_partition_s_records_once_all_are_cleared_and_untouched() {
        // ids of partition 1 of 2: 2 * i + 1; of partition 0: 2 * i
        let mut m: Mirror<u32> = Mirror::new(1);
        let ids: Vec<u32> = (0..10_000).map(|i| 2 * i + 1).collect();
        for (k, &id) in ids.iter().enumerate() {
            *m.get_mut(id) = k as u32 + 1;
        }
        *m.get_mut(4) = 9;
        let both = m.held();
        assert!(both >= 10_003 * 4);
        // every other one cleared: partition 1 still keeps some
        for &id in ids.iter().step_by(2) {
            m.clear(id);
        }
        m.sweep();
        m.sweep();
        assert_eq!(m.held(), both);
        for (k, &id) in ids.iter().enumerate() {
            let want = if k % 2 == 0 { 0 } else { k as u32 + 1 };
            assert_eq!(m.get(id), want, "record {id}");
        }
        // all cleared: partition 1's records go at the first sweep that finds them untouched
        for &id in ids.iter().skip(1).step_by(2) {
            m.clear(id);
        }
        m.sweep();
        assert_eq!(m.held(), both);
        m.sweep();
        assert!(m.held() < 64, "{} bytes held", m.held());
        assert_eq!((m.get(4), m.get(ids[7])), (9, 0));
        // what was freed reads as default, and can be kept again
        *m.get_mut(ids[5]) = 42;
        assert_eq!((m.get(ids[5]), m.get(ids[4])), (42, 0));
    }
}
