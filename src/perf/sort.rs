//! Sorting by insertion, for the short or nearly sorted runs the engine sorts at the end of a
//! bucket or an epoch: O(n + inversions), stable, no allocation.

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
}
