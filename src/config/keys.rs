//! Unknown keys, caught before the values are read, with a "did you mean" for each.
//!
//! The allowed keys of a table are the fields of the struct it is read into, asked of serde
//! itself ([`fields_of`]), so this list can never drift from the structs.

use super::problems::Problems;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::cell::Cell;

/// The field names serde expects for struct `T`.
pub(super) fn fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Probe<'c>(&'c Cell<&'static [&'static str]>);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.set(fields);
            Err(de::Error::custom("probed"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let cell = Cell::new(&[][..]);
    let _ = T::deserialize(Probe(&cell));
    cell.get()
}

/// One table of the scenario and the keys it allows.
pub(super) struct Section {
    pub(crate) name: &'static str,
    pub(crate) fields: &'static [&'static str],
}

impl Section {
    /// Table `name`, read into struct `T`.
    pub(super) fn of<'de, T: Deserialize<'de>>(name: &'static str) -> Section {
        Section {
            name,
            fields: fields_of::<T>(),
        }
    }
}

pub(super) use crate::words::closest;

/// Removes every unknown key from `table` (the whole scenario), recording a problem for each.
/// `sections` are the allowed tables; `top` the allowed top-level keys.
pub(super) fn remove_unknown(
    table: &mut toml::Table,
    top: &'static [&'static str],
    sections: &[Section],
    p: &mut Problems,
) {
    let unknown_top: Vec<String> = table
        .keys()
        .filter(|k| !top.contains(&k.as_str()))
        .cloned()
        .collect();
    for k in unknown_top {
        table.remove(&k);
        // a key of a section written at the top level (`dims = ...` before any table)
        let home = sections.iter().find(|s| s.fields.contains(&k.as_str()));
        let hint = match (closest(&k, top.iter().copied()), home) {
            (_, Some(s)) => format!("; it belongs in [{}]", s.name),
            (Some(c), None) => format!("; did you mean `{c}`?"),
            (None, None) => String::new(),
        };
        p.key(
            &k,
            format!(
                "unknown key{hint} (the scenario's tables are {})",
                list(top)
            ),
        );
    }
    for s in sections {
        match table.get_mut(s.name) {
            Some(toml::Value::Table(t)) => check_section(t, s.name, s, sections, p),
            // an array of tables (`[[job]]`)
            Some(toml::Value::Array(a)) => {
                for (i, v) in a.iter_mut().enumerate() {
                    if let toml::Value::Table(t) = v {
                        check_section(t, &format!("{}[{i}]", s.name), s, sections, p);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Removes the unknown keys of table `t`, written at `at`, whose keys are those of `s`.
fn check_section(
    t: &mut toml::Table,
    at: &str,
    s: &Section,
    sections: &[Section],
    p: &mut Problems,
) {
    {
        let unknown: Vec<String> = t
            .keys()
            .filter(|k| !s.fields.contains(&k.as_str()))
            .cloned()
            .collect();
        for k in unknown {
            t.remove(&k);
            let elsewhere = sections
                .iter()
                .find(|o| o.name != s.name && o.fields.contains(&k.as_str()));
            // a key that exists elsewhere is more likely misplaced than misspelt
            let hint = match (elsewhere, closest(&k, s.fields.iter().copied())) {
                (Some(o), _) => format!("; it belongs in [{}]", o.name),
                (None, Some(c)) => format!("; did you mean `{c}`?"),
                (None, None) => String::new(),
            };
            p.key(
                &format!("{at}.{k}"),
                format!(
                    "unknown key{hint} (keys of [{}]: {})",
                    s.name,
                    list(s.fields)
                ),
            );
        }
    }
}

fn list(keys: &[&str]) -> String {
    keys.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Example {
        link_bandwidth: u32,
        dims: Vec<u32>,
    }

    #[test]
    fn serde_tells_the_fields_of_a_struct() {
        assert_eq!(fields_of::<Example>(), &["link_bandwidth", "dims"]);
    }

    #[test]
    fn typos_find_their_key_and_strangers_find_none() {
        let keys = ["link_bandwidth", "switch_bandwidth", "dims", "mtu"];
        assert_eq!(closest("link_bandwith", keys), Some("link_bandwidth"));
        assert_eq!(closest("Link-Bandwidth", keys), Some("link_bandwidth"));
        assert_eq!(closest("dim", keys), Some("dims"));
        assert_eq!(closest("colour", keys), None);
    }
}
