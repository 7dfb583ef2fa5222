//! `network.nodes`: a network sized by its node count instead of its shape keys, so that one
//! scenario (or one sweep) compares families of the same size. Each family picks the nearest
//! full shape of at least that many nodes (its `fit` by nodes) and says which, in a note of the
//! scenario (printed as a warning when it is not exactly the count asked):
//!
//! | family | shape picked for `N` nodes |
//! | --- | --- |
//! | torus, mesh | 3 dimensions of `k` or `k + 1` routers, the fewest of at least `N`, the longer last |
//! | Tofu | the same for `x y z` with `12 x y z` at least `N` |
//! | fat tree | `radix` and `levels` of the full-bisection tree: the fewest levels of a given radix, else the smallest even radix of the levels given (2 by default, more only beyond radix 254) |
//! | dragonfly | `a = 2p = 2h` (Kim et al.'s balance, where not given): the smallest `h` that reaches `N` with every global port used, then the fewest groups `g` whose `g − 1` divides `a·h` |
//! | HyperX | 3 dimensions as a torus's, of `⌈N / T⌉` routers (`T` = `nodes_per_router`, 1 by default) |
//! | graph | its file's, which must hold at least `N` |
//!
//! Nodes are NIC ports over `node.nics_per_node` (a torus has one node per router whatever its
//! NICs). A key of the family that fixes its size (`dims`, `groups`, both `radix` and
//! `levels`, `down_ports`) given with `network.nodes` is a problem; a key that only constrains
//! the shape (a fat tree's `radix` or `levels`; a dragonfly's `a`, `p` or `h`; a HyperX's `T`
//! and `K`) is kept. Set by `--set` or a sweep's point, `network.nodes` leaves out the file's
//! keys of the family's size ([`super::Family::SHAPE_KEYS`]), as a topology set there leaves
//! out the keys of the others (`config/shape.rs`).

use super::Keys;

/// The node count asked for (`network.nodes`), if any: `None` when not given, or when it is 0
/// or beyond what mgensim addresses (a problem then).
pub(crate) fn wanted(k: &mut Keys<'_>) -> Option<u64> {
    let n = k.nodes?;
    if n == 0 || n > super::keys::MAX_NICS {
        k.problem(
            "nodes",
            format!("{n} is out of range (1 to {})", super::keys::MAX_NICS),
        );
        return None;
    }
    Some(n)
}

/// A problem for each of `keys` the scenario gives along with `network.nodes` (they fix the
/// size it picks); true when there is none.
pub(crate) fn alone(k: &mut Keys<'_>, keys: &[&str]) -> bool {
    let mut ok = true;
    for key in keys {
        if k.given(key) {
            k.problem(
                key,
                format!(
                    "network.nodes and network.{key} both size the network: give one \
                     (network.nodes sizes every topology alike, for comparisons)"
                ),
            );
            ok = false;
        }
    }
    ok
}

/// `dims` dimensions of `k` or `k + 1` routers each, the longer last, whose product is the
/// least that is at least `target` (the most nearly cubic shape that holds it).
pub(crate) fn near_cubic(target: u64, dims: usize) -> Vec<u32> {
    let target = target.max(1);
    // the largest k with k^dims <= target
    let pow = |k: u64| (0..dims).try_fold(1u64, |a, _| a.checked_mul(k));
    let mut k = (target as f64).powf(1.0 / dims as f64).floor().max(1.0) as u64;
    while pow(k + 1).is_some_and(|p| p <= target) {
        k += 1;
    }
    while k > 1 && pow(k).is_none_or(|p| p > target) {
        k -= 1;
    }
    for longer in 0..=dims {
        let mut v = vec![k as u32; dims];
        for x in v.iter_mut().skip(dims - longer) {
            *x += 1;
        }
        let product = v.iter().try_fold(1u64, |a, &x| a.checked_mul(x as u64));
        if product.is_some_and(|p| p >= target) {
            return v;
        }
    }
    vec![k as u32 + 1; dims]
}

/// The note that says what `network.nodes = asked` picked: `shape`, of `got` nodes, `how`.
pub(crate) fn note(k: &mut Keys<'_>, asked: u64, shape: &str, got: u64, how: &str) {
    let more = match got - asked.min(got) {
        0 => String::new(),
        m => format!(", {m} more than asked"),
    };
    k.notes.push(format!(
        "network.nodes = {asked}: {shape}, {got} nodes{more} ({how})"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_nearly_cubic_shape_that_holds_the_target() {
        assert_eq!(near_cubic(512, 3), [8, 8, 8]);
        assert_eq!(near_cubic(64, 3), [4, 4, 4]);
        // 4·4·5 = 80 >= 65, and 4·4·4 = 64 is one short
        assert_eq!(near_cubic(65, 3), [4, 4, 5]);
        assert_eq!(near_cubic(100, 3), [4, 5, 5]);
        assert_eq!(near_cubic(101, 3), [5, 5, 5]);
        assert_eq!(near_cubic(1000, 3), [10, 10, 10]);
        assert_eq!(near_cubic(1, 3), [1, 1, 1]);
        assert_eq!(near_cubic(2, 3), [1, 1, 2]);
        assert_eq!(near_cubic(12, 2), [3, 4]);
    }
}
