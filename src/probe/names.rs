//! The names regions are given (`MGEN_region`, the collectives of `mgen.coll`), each stored
//! once and known by a small number, so that what is recorded per region entered is a `u32`.

use std::collections::HashMap;

/// Region names, by id (ids from 0, in the order first met), and the id of each.
/// Packed (`packed.rs`) as the names alone, in id order; the ids are made again as it is
/// read (the map's own order is not the same from run to run).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub(crate) struct Names {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Names {
    /// The id of `name`, given it if it has none yet.
    pub(crate) fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The name of `id`.
    pub(crate) fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// Takes in `other`'s names (another partition's): its ids as ids of these, by its id.
    pub(crate) fn merge(&mut self, other: &Names) -> Vec<u32> {
        other.names.iter().map(|n| self.id(n)).collect()
    }
}

impl From<Vec<String>> for Names {
    fn from(names: Vec<String>) -> Names {
        let mut n = Names::default();
        for name in &names {
            n.id(name);
        }
        n
    }
}

impl From<Names> for Vec<String> {
    fn from(n: Names) -> Vec<String> {
        n.names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_has_one_id_and_merged_names_keep_theirs() {
        let mut a = Names::default();
        assert_eq!((a.id("x"), a.id("y"), a.id("x")), (0, 1, 0));
        let mut b = Names::default();
        assert_eq!((b.id("y"), b.id("z")), (0, 1));
        assert_eq!(a.merge(&b), [1, 2]);
        assert_eq!((a.name(0), a.name(1), a.name(2)), ("x", "y", "z"));
    }
}
