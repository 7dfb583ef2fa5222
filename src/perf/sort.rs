//! Sorting by insertion, for the short or nearly sorted runs the engine sorts at the end of a
//! bucket or an epoch: O(n + inversions), stable, no allocation.

/// Sorts `v` by `key`, keeping elements of equal keys in their order.
#[inline]
pub(crate) fn insertion_by_key<T: Copy, K: PartialOrd>(v: &mut [T], key: impl Fn(&T) -> K) {
    insertion_by_key_from(v, 1, key);
}

/// [`insertion_by_key`] of a slice whose first `sorted` elements are in order already.
#[inline]
pub(crate) fn insertion_by_key_from<T: Copy, K: PartialOrd>(
    v: &mut [T],
    sorted: usize,
    key: impl Fn(&T) -> K,
) {
    for i in sorted.max(1)..v.len() {
        insert(v, i, &key);
    }
}

/// Moves `v[i]` back past the elements before it whose keys are greater (those before it are
/// in order); returns by how many places.
#[inline(always)]
fn insert<T: Copy, K: PartialOrd>(v: &mut [T], i: usize, key: &impl Fn(&T) -> K) -> usize {
    let e = v[i];
    let k = key(&e);
    let mut j = i;
    while j > 0 && key(&v[j - 1]) > k {
        v[j] = v[j - 1];
        j -= 1;
    }
    v[j] = e;
    i - j
}

/// [`insertion_by_key`] as long as it takes no more than `budget` moves of an element by one
/// place; whether it got through (else `v` is left partly sorted, its elements all there).
#[inline]
pub(crate) fn insertion_by_key_within<T: Copy, K: PartialOrd>(
    v: &mut [T],
    key: impl Fn(&T) -> K,
    mut budget: usize,
) -> bool {
    for i in 1..v.len() {
        let moved = insert(v, i, &key);
        if moved > budget {
            return false;
        }
        budget -= moved;
    }
    true
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
    fn a_sorted_prefix_is_taken_as_it_is_and_the_rest_inserted_into_it() {
        // the first three in order: the rest goes into them, ties after the earlier
        let mut v = [(1, 'a'), (2, 'b'), (4, 'c'), (2, 'd'), (0, 'e'), (4, 'f')];
        insertion_by_key_from(&mut v, 3, |e| e.0);
        assert_eq!(
            v,
            [(0, 'e'), (1, 'a'), (2, 'b'), (2, 'd'), (4, 'c'), (4, 'f')]
        );
        // a prefix said to be sorted is not looked at: the method's contract, seen here
        let mut v = [2, 1, 0];
        insertion_by_key_from(&mut v, 2, |&e| e);
        assert_eq!(v, [0, 2, 1]);
    }

    #[test]
    fn insertion_within_a_budget_gives_up_past_it() {
        // neighbours swapped: one move each, three in all
        let mut v = [1, 0, 3, 2, 5, 4];
        assert!(insertion_by_key_within(&mut v, |&e| e, 3));
        assert_eq!(v, [0, 1, 2, 3, 4, 5]);
        // reversed: 0 + 1 + 2 + 3 moves, more than 4
        let mut v = [3, 2, 1, 0];
        assert!(!insertion_by_key_within(&mut v, |&e| e, 4));
        v.sort();
        assert_eq!(v, [0, 1, 2, 3], "nothing lost on the way");
    }
}
