use super::*;
use crate::topology::Topo;

fn topo(network: &str) -> Topo {
    Topo::from_toml(network, 1, std::path::Path::new(".")).unwrap()
}

/// Routers of each partition.
fn sizes(b: &Blocks) -> Vec<u32> {
    let mut n = vec![0; b.count as usize];
    for p in b.of.iter().flatten() {
        n[*p as usize] += 1;
    }
    n
}

/// Links between routers of different partitions (each counted once), by the topology's own
/// links.
fn cut(t: &Topo, b: &Blocks) -> u64 {
    let mut ends = 0;
    for r in 0..t.routers() {
        for q in 0..t.ports() {
            if let Some((n, _)) = t.neighbour(r, q) {
                if b.of[r as usize] != b.of[n as usize] {
                    ends += 1;
                }
            }
        }
    }
    ends / 2
}

#[test]
fn a_torus_keeps_its_slabs_where_blocks_cut_no_fewer_links() {
    // a cube: two or four slabs cut as many links as any blocks
    let t = topo("dims = [16, 16, 16]");
    for parts in [2, 4] {
        let b = t.blocks(parts);
        assert_eq!(b.unit, "slab");
        assert_eq!(b.count, parts);
        // 256 routers a plane, each cut crossing one plane's links (2 cuts a slab, wrapping)
        assert_eq!(cut(&t, &b), parts as u64 * 256);
    }
    // eight: blocks of 2x2x2 or 1x2x4 cut 6 planes' links, slabs 8 (on a tie, more parts
    // along the later dimensions)
    let b = t.blocks(8);
    assert_eq!(b.unit, "16x8x4 block");
    assert_eq!(cut(&t, &b), 6 * 256);
    assert_eq!(sizes(&b), vec![512; 8]);
}

#[test]
fn a_long_torus_keeps_its_slabs_in_two_and_goes_to_near_cubic_blocks_beyond() {
    let t = topo("dims = [64, 32, 32]");
    let b = t.blocks(2);
    // halves of any dimension: a packet crosses a cut as often (halving x would cut 2 planes
    // of 32x32 rather than of 64x32, but cut the rows where a rank's nearest ranks are)
    assert_eq!(b.unit, "slab");
    assert_eq!(cut(&t, &b), 2 * 2048);
    // router (x, y, z) = x + 64 y + 2048 z: z < 16 in partition 0
    assert_eq!(b.of[16 * 2048 - 1], Some(0));
    assert_eq!(b.of[16 * 2048], Some(1));
    let b = t.blocks(256);
    assert_eq!(b.count, 256);
    assert_eq!(sizes(&b), vec![256; 256]);
    // a grid of 4x8x8 blocks (16x4x4 routers): 20 parts in all along the dimensions, as few
    // as 8x8x4 or 8x4x8 (16x4x4: 24), the most along the later ones; it cuts 4 planes of
    // 32x32 and 8 + 8 of 64x32, 36,864 links; slabs give at most 32
    assert_eq!(cut(&t, &b), 36_864);
    assert_eq!(b.unit, "16x4x4 block");
}

#[test]
fn a_count_that_does_not_divide_the_dimensions_is_cut_as_evenly_as_it_can() {
    let t = topo("dims = [64, 32, 32]");
    // 3: thirds of any dimension leave 11 of 32 or 22 of 64 in the largest: slabs (11, 11
    // and 10 planes)
    let b = t.blocks(3);
    assert_eq!(b.unit, "slab");
    assert_eq!(sizes(&b), vec![11 * 2048, 11 * 2048, 10 * 2048]);
    // 6: halves of y and thirds of z (11, 11, 10), which a packet crosses less often than
    // sixths of one dimension, with the most parts along the later dimensions
    let b = t.blocks(6);
    assert_eq!(b.unit, "64x16x10-11 block");
    let (big, small) = (64 * 16 * 11, 64 * 16 * 10);
    assert_eq!(sizes(&b), vec![big, big, big, big, small, small]);
    // 67, a prime above every dimension: runs of routers by number, as even as they come
    let b = t.blocks(67);
    assert_eq!(b.unit, "run of routers");
    assert_eq!(b.count, 67);
    let s = sizes(&b);
    assert!(s.iter().all(|&n| n == 978 || n == 979), "{s:?}");
}

#[test]
fn a_mesh_counts_the_links_it_has_and_a_hyperx_those_of_its_rows() {
    // a mesh of 4x4: 2x2 blocks cut 2 lines of 4 links each, 4 slabs 3 lines
    let t = topo("topology = 'mesh'\ndims = [4, 4]");
    let b = t.blocks(4);
    assert_eq!(b.unit, "2x2 block");
    assert_eq!(cut(&t, &b), 8);
    // a HyperX of 4x4 (every pair of a row linked): halves of a row cut 4 links of its 6,
    // quarters all 6; 2x2 blocks cut 4 rows x 4 x 2 = 32, 4 slabs 4 x 6 = 24: slabs
    let h = topo("topology = 'hyperx'\ndims = [4, 4]");
    let b = h.blocks(4);
    assert_eq!(b.unit, "slab");
    assert_eq!(cut(&h, &b), 24);
}

#[test]
fn a_dragonfly_splits_its_groups_beyond_a_partition_a_group() {
    // a = 4 routers in each of g = 9 groups
    let t = topo(
        "topology = 'dragonfly'\nrouters_per_group = 4\nnodes_per_router = 2\n\
         global_links_per_router = 2",
    );
    assert_eq!(t.most_parts(), 36);
    let b = t.blocks(3);
    assert_eq!(b.unit, "group");
    assert_eq!(b.of[11], Some(0));
    assert_eq!(b.of[12], Some(1));
    let b = t.blocks(18);
    assert_eq!(b.unit, "run of a group's routers");
    // routers 0, 1 of group 0; 2, 3; then group 1's
    assert_eq!(
        &b.of[..6],
        &[Some(0), Some(0), Some(1), Some(1), Some(2), Some(2)]
    );
    let b = t.blocks(12);
    assert_eq!(b.unit, "run of routers");
    assert_eq!(sizes(&b), vec![3; 12]);
}

#[test]
fn a_fat_tree_splits_its_pods_into_their_leaves_and_leaves_its_upper_switches_out() {
    // 16 leaves in pods of 4
    let t = topo("topology = 'fattree'\ndown_ports = [4, 4, 4]\nup_ports = [4, 4, 0]");
    assert_eq!(t.most_parts(), 16);
    assert_eq!(t.cut_units(), (4, "pod"));
    let b = t.blocks(8);
    assert_eq!(b.unit, "run of a pod's leaves");
    for r in 0..16 {
        assert_eq!(b.of[r], Some(r as u32 / 2), "leaf {r}");
    }
    assert!(b.of[16..].iter().all(Option::is_none));
}

#[test]
fn a_graph_is_cut_into_finer_runs_beyond_its_64ths() {
    let mut text = String::from("routers 200\nnodes 200\n");
    for r in 1..200 {
        text += &format!("link {} {r}\n", r - 1);
    }
    for r in 0..200 {
        text += &format!("node {r} {r}\n");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.graph"), text).unwrap();
    let t = Topo::from_toml("topology = 'graph'\ngraph = 'g.graph'", 1, dir.path()).unwrap();
    // 3 routers a 64th: 67 units
    assert_eq!(t.cut_units(), (67, "run of routers"));
    let b = t.blocks(2);
    // units 0..33 (routers 0..102) and 34..66
    assert_eq!(b.of[101], Some(0));
    assert_eq!(b.of[102], Some(1));
    let b = t.blocks(100);
    assert_eq!(sizes(&b), vec![2; 100]);
    assert_eq!(cut(&t, &b), 99);
}
