//! The sorts the engine does at the end of a bucket or an epoch: by insertion, for short or
//! nearly sorted runs (O(n + inversions), stable, no allocation); by radix, for long runs of
//! keys whose high word is a channel (O(n) a byte of it, stable).

/// Sorts `v` by `key`, keeping elements of equal keys in their order.
#[inline]
pub(crate) fn insertion_by_key<T: Copy, K: PartialOrd>(v: &mut [T], key: impl Fn(&T) -> K) {
    for i in 1..v.len() {
        let e = v[i];
        let k = key(&e);
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > k {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// Sorts `keys` by their high 32 bits, of which only the low `bits` may be set, keeping keys
/// of equal high words in their order (LSD radix, a byte a pass; `scratch` is room for the
/// passes). O(n · passes + 256 · passes).
pub(crate) fn radix_by_high_word(keys: &mut Vec<u64>, bits: u32, scratch: &mut Vec<u64>) {
    let passes = bits.div_ceil(8);
    scratch.clear();
    scratch.resize(keys.len(), 0);
    for pass in 0..passes {
        let shift = 32 + 8 * pass;
        let mut count = [0usize; 256];
        for &k in keys.iter() {
            count[(k >> shift) as usize & 255] += 1;
        }
        let mut at = 0;
        for c in count.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        for &k in keys.iter() {
            let d = (k >> shift) as usize & 255;
            scratch[count[d]] = k;
            count[d] += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_the_key_and_keeps_ties_in_order() {
        let mut v = [(3, 'a'), (1, 'b'), (3, 'c'), (0, 'd'), (1, 'e')];
        insertion_by_key(&mut v, |e| e.0);
        assert_eq!(v, [(0, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]);
        let mut empty: [u8; 0] = [];
        insertion_by_key(&mut empty, |&e| e);
    }

    #[test]
    fn radix_sorts_by_the_high_word_and_keeps_ties_in_order() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut scratch = Vec::new();
        for (n, bits) in [(0, 8), (1, 1), (300, 5), (1000, 13), (4096, 24), (500, 32)] {
            let mut keys: Vec<u64> = (0..n)
                .map(|i| {
                    let hi = (rng.next_u64() as u32) >> (32 - bits);
                    (hi as u64) << 32 | i as u64
                })
                .collect();
            let mut want = keys.clone();
            want.sort_by_key(|k| k >> 32); // stable
            radix_by_high_word(&mut keys, bits, &mut scratch);
            assert_eq!(keys, want, "{n} keys of {bits} bits");
        }
    }
}
