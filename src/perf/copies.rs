//! What a partition keeps of the records of other process groups' partitions: the copies that
//! came with the cut messages (`cut.rs`, `Record`), by id, from [`Copies::keep`] until
//! [`Copies::forget`].
//!
//! A partition is sent copies of only the few records of each other partition that are bound
//! for its own NICs or ranks, and their ids (`local << bits | partition`, `stable.rs`) are
//! spread over each sender's whole pool: a table by id keeps memory to the copies held. (A
//! [`Mirror`](super::stable::Mirror), an entry for every id up to the highest seen of each
//! sending partition, holds the whole network's records in every partition: 1.46 GB at the
//! peak of a run of 65,536 nodes in 256 partitions of 4 groups, 1.65 GB then, 0.46 GB with
//! this table.)
//!
//! The table: open addressing with linear probing; an id's first slot is the low bits of the upper
//! half of its product with 2⁶⁴/φ (every bit of the id stirs it: the low bits, the partition, are
//! shared by all of a partition's records); at most 3/4 full; a copy forgotten shifts the ones
//! after it back into its slot, so no slot is a tombstone. Costs: `keep`, `get`, `forget` O(1)
//! expected (a multiply, then about 2.5 slots read at 3/4 full, 1.3 at 3/8, each a compare of an
//! 8-byte id); a sweep O(1), or O(slots) when it shrinks the table, which it does once the copies
//! held fell below an eighth of the slots. Memory: an id (8 bytes) and an `Option<T>` per slot (a
//! `T`'s size for the records here: the option takes their kind's or flag's niche), the slots a
//! power of two: at least 4/3 of the copies held, at most 8/3 of them when the table grows, and
//! between 4 and 8 times them after a sweep shrank it.

/// The mark of a slot with no copy (ids are `u32`: never this).
const EMPTY: u64 = u64::MAX;

/// 2⁶⁴/φ, odd: the multiplier of Fibonacci hashing.
const FIB: u64 = 0x9E37_79B9_7F4A_7C15;

/// The fewest slots of a table that holds anything.
const LEAST: usize = 8;

/// Copies of records by id (see the module's notes).
pub(crate) struct Copies<T> {
    /// Each slot's id, or [`EMPTY`]; a power of two of them (one, empty, when nothing was
    /// kept since the last shrink).
    ids: Box<[u64]>,
    /// Each slot's copy (`Some` exactly where the id is not [`EMPTY`]).
    copies: Box<[Option<T>]>,
    /// Slots − 1.
    mask: usize,
    /// Copies held.
    len: usize,
}

impl<T: Copy> Copies<T> {
    /// None kept (and no table yet).
    pub(crate) fn new() -> Copies<T> {
        Copies {
            ids: Box::new([EMPTY]),
            copies: Box::new([None]),
            mask: 0,
            len: 0,
        }
    }

    /// The first slot where id `id` may be.
    #[inline(always)]
    fn home(&self, id: u32) -> usize {
        ((id as u64).wrapping_mul(FIB) >> 32) as usize & self.mask
    }

    /// The slot of id `id`, or the empty slot its probe ends at.
    #[inline(always)]
    fn find(&self, id: u32) -> usize {
        let mut i = self.home(id);
        loop {
            let k = self.ids[i];
            if k == id as u64 || k == EMPTY {
                return i;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Keeps `copy` as record `id`'s (replacing what was kept of it).
    #[inline]
    pub(crate) fn keep(&mut self, id: u32, copy: T) {
        if (self.len + 1) * 4 > self.ids.len() * 3 {
            self.resize((self.ids.len() * 2).max(LEAST));
        }
        let i = self.find(id);
        if self.ids[i] == EMPTY {
            self.ids[i] = id as u64;
            self.len += 1;
        }
        self.copies[i] = Some(copy);
    }

    /// Record `id`'s copy, if one is kept.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&T> {
        self.copies[self.find(id)].as_ref()
    }

    /// Forgets record `id`'s copy (it is done with here), if one is kept: the copies after it
    /// in the probe that ends at the next empty slot and may sit in its slot move back to it.
    #[inline]
    pub(crate) fn forget(&mut self, id: u32) {
        let mut hole = self.find(id);
        if self.ids[hole] == EMPTY {
            return;
        }
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let k = self.ids[j];
            if k == EMPTY {
                break;
            }
            // (`k` may fill the hole when its first slot is not after the hole on its way to
            // `j`: as far from `j` as the hole, or farther)
            let home = self.home(k as u32);
            if (j.wrapping_sub(home) & self.mask) >= (j.wrapping_sub(hole) & self.mask) {
                self.ids[hole] = k;
                self.copies[hole] = self.copies[j];
                hole = j;
            }
        }
        self.ids[hole] = EMPTY;
        self.copies[hole] = None;
        self.len -= 1;
    }

    /// Copies held now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Slots of the table.
    #[cfg(test)]
    pub(crate) fn slots(&self) -> usize {
        self.ids.len()
    }

    /// Gives back the table's room once it holds less than an eighth of its slots: to a
    /// quarter full (nothing kept: all of it).
    pub(crate) fn sweep(&mut self) {
        if self.len * 8 < self.ids.len() && self.ids.len() > 1 {
            let slots = match self.len {
                0 => 1,
                n => (n * 4).next_power_of_two().max(LEAST),
            };
            self.resize(slots);
        }
    }

    /// Moves the copies into a table of `slots` slots (a power of two, more than the copies
    /// held, and at least [`LEAST`] unless none are).
    #[cold]
    fn resize(&mut self, slots: usize) {
        debug_assert!(slots.is_power_of_two() && slots > self.len);
        let ids = std::mem::replace(&mut self.ids, vec![EMPTY; slots].into_boxed_slice());
        let copies = std::mem::replace(&mut self.copies, vec![None; slots].into_boxed_slice());
        self.mask = slots - 1;
        for (k, copy) in ids.iter().zip(copies.iter()) {
            if *k != EMPTY {
                let i = self.find(*k as u32);
                self.ids[i] = *k;
                self.copies[i] = *copy;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn copies_are_kept_by_id_until_forgotten_and_their_room_given_back() {
        let mut c: Copies<u64> = Copies::new();
        assert_eq!((c.get(0), c.get(u32::MAX), c.slots()), (None, None, 1));
        // ids of 256 partitions' records, a few of each spread over its pool (as another
        // group's partitions send them): 3 of each, local indices 0, 1000 and 4095
        let ids: Vec<u32> = (0..256u32)
            .flat_map(|p| [0u32, 1000, 4095].map(|l| l << 8 | p))
            .collect();
        for (k, &id) in ids.iter().enumerate() {
            c.keep(id, k as u64);
        }
        // 768 copies at most 3/4 full: 1,024 slots, not an entry per id up to 4095 << 8
        assert_eq!((c.len(), c.slots()), (768, 1024));
        assert_eq!(
            (c.get(ids[7]), c.get(4095 << 8 | 255)),
            (Some(&7), Some(&767))
        );
        assert_eq!(c.get(4094 << 8 | 255), None, "never kept");
        c.keep(ids[7], 70);
        assert_eq!(
            (c.get(ids[7]), c.len()),
            (Some(&70), 768),
            "kept again: replaced"
        );
        for &id in &ids[..638] {
            c.forget(id);
        }
        c.forget(ids[0]);
        assert_eq!(
            (c.len(), c.get(ids[7]), c.get(ids[638])),
            (130, None, Some(&638))
        );
        c.sweep();
        assert_eq!(c.slots(), 1024, "130 of 1,024: an eighth or more, kept");
        for &id in &ids[638..641] {
            c.forget(id);
        }
        c.sweep();
        assert_eq!(
            c.slots(),
            512,
            "127 of 1,024: to a quarter full, 508 rounded up"
        );
        assert!((641..768).all(|k| c.get(ids[k]) == Some(&(k as u64))));
        for &id in &ids[641..] {
            c.forget(id);
        }
        c.sweep();
        assert_eq!((c.len(), c.slots()), (0, 1), "nothing kept: nothing held");
        c.keep(u32::MAX, 3);
        c.keep(0, 4);
        assert_eq!(
            (c.get(u32::MAX), c.get(0), c.slots()),
            (Some(&3), Some(&4), 8)
        );
    }

    /// Ids as `stable.rs` makes them (`local << 8 | partition`), of a few partitions and
    /// locals, so that they collide in their first slots often.
    fn crowded_ids(seed: u64) -> impl Iterator<Item = (u8, u32)> {
        let mut x = seed;
        std::iter::repeat_with(move || {
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let id = match x % 17 {
                0 => u32::MAX,
                1 => 0,
                _ => (((x >> 8) as u32 % 300) << 8) | ((x >> 40) as u32 % 6),
            };
            ((x >> 56) as u8, id)
        })
    }

    #[test]
    fn copies_read_what_a_map_would_through_keeps_forgets_and_sweeps() {
        let mut c: Copies<u32> = Copies::new();
        let mut want: BTreeMap<u32, u32> = BTreeMap::new();
        for (step, (what, id)) in crowded_ids(0x2545_F491_4F6C_DD1D).take(200_000).enumerate() {
            // keeps outnumber forgets in the first half, and the reverse in the second
            let keeping = if step < 100_000 {
                what < 150
            } else {
                what < 20
            };
            if keeping {
                c.keep(id, step as u32);
                want.insert(id, step as u32);
            } else {
                c.forget(id);
                want.remove(&id);
            }
            if what == 255 {
                c.sweep();
            }
            assert_eq!(c.get(id), want.get(&id), "step {step}, id {id}");
            assert_eq!(c.len(), want.len(), "step {step}");
            if step % 10_000 == 0 {
                for (&k, v) in &want {
                    assert_eq!(c.get(k), Some(v), "step {step}, kept id {k}");
                }
            }
        }
        assert!(
            want.len() < 300,
            "the second half forgets most: {}",
            want.len()
        );
        c.sweep();
        assert!(c.slots() <= want.len().max(2) * 8, "{} slots", c.slots());
        for id in crowded_ids(7).map(|(_, id)| id).take(5_000) {
            assert_eq!(c.get(id), want.get(&id), "id {id}");
        }
    }
}
