//! The binary form of a partition's end state (`part/pack.rs`): what a process that ran a
//! partition sends the process that writes the report.
//!
//! The format is bincode 1 with its `DefaultOptions`: integers little-endian as variable-length
//! varints (a small count takes one byte), `f64` as its 8 IEEE bytes (every bit kept: a
//! metric's exact sum stays exact), strings and sequences prefixed by their length, fields in
//! declaration order, nothing self-describing. The same values always give the same bytes; a
//! hash map is written in its iteration order, so a type packs one only when that order
//! depends on nothing but what was inserted (or leaves it out, see `probe/names.rs`). Both ends
//! are the same build of mgensim: no version is written, and reading stops at the first value
//! that does not fit ([`Error`]).

use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Bytes that do not read as the end state this build packs (cut short, or from another
/// build): what was expected, and why.
#[derive(Debug)]
pub(crate) struct Error(pub(crate) String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a packed end state does not read: {}", self.0)
    }
}

impl std::error::Error for Error {}

fn options() -> impl Options {
    bincode::DefaultOptions::new()
}

/// Appends `x` to `w`.
pub(crate) fn put<T: Serialize + ?Sized>(w: &mut Vec<u8>, x: &T) {
    options()
        .serialize_into(w, x)
        .expect("writing to memory does not fail");
}

/// Appends a sequence of `n` elements one at a time, as `put` of the whole sequence would
/// write it: `put_len(w, n)`, then `put` of each element. For a sequence too large to hold
/// packed twice (a process's partitions at the end of the run).
pub(crate) fn put_len(w: &mut Vec<u8>, n: usize) {
    // (a sequence's length is written as a u64)
    put(w, &(n as u64));
}

/// Appends what `pack` appends as one byte sequence, as `put` of those bytes would write it
/// (their length, then them), without packing them apart first: what is packed is moved back
/// over the room left for its length, once (for a partition's end state, too large to hold
/// twice).
pub(crate) fn put_framed(w: &mut Vec<u8>, pack: impl FnOnce(&mut Vec<u8>)) {
    // (a varint takes at most 9 bytes)
    const ROOM: usize = 9;
    let at = w.len();
    w.resize(at + ROOM, 0);
    pack(w);
    let n = w.len() - at - ROOM;
    let mut len = Vec::with_capacity(ROOM);
    put(&mut len, &(n as u64));
    w.copy_within(at + ROOM.., at + len.len());
    w[at..at + len.len()].copy_from_slice(&len);
    w.truncate(at + len.len() + n);
}

/// Reads a byte sequence that `put` of a `&[u8]` (or [`put_framed`]) wrote, as a slice of
/// `r` (no copy), then past it.
pub(crate) fn get_bytes<'a>(r: &mut &'a [u8], what: &str) -> Result<&'a [u8], Error> {
    let n: u64 = get(r, what)?;
    if n > r.len() as u64 {
        return Err(Error(format!(
            "{what}: {n} bytes announced, {} left",
            r.len()
        )));
    }
    let (bytes, rest) = r.split_at(n as usize);
    *r = rest;
    Ok(bytes)
}

/// Reads the next value from `r` (then past it); `what` names it in the error.
pub(crate) fn get<T: DeserializeOwned>(r: &mut &[u8], what: &str) -> Result<T, Error> {
    options()
        .deserialize_from(r)
        .map_err(|e| Error(format!("{what}: {e}")))
}

/// A `&'static str` read back: the same name every time it is read (kept once per distinct
/// name for the process's life; the names are the model's own, a few dozen).
pub(crate) fn intern(s: &str) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&n) = names.get(s) {
        return n;
    }
    let n: &'static str = Box::leak(s.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// Reads a `&'static str` field (`#[serde(deserialize_with = "crate::packed::static_str")]`).
pub(crate) fn static_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s: std::borrow::Cow<'de, str> = serde::Deserialize::deserialize(d)?;
    Ok(intern(&s))
}

/// A [`Time`] packed as its picoseconds (`#[serde(with = "crate::packed::ps")]`; the scenario
/// form of a time is text).
pub(crate) mod ps {
    use crate::units::Time;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub(crate) fn serialize<S: Serializer>(t: &Time, s: S) -> Result<S::Ok, S::Error> {
        t.0.serialize(s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
        u64::deserialize(d).map(Time)
    }
}

/// Times packed as their picoseconds, a fixed number of them.
pub(crate) mod ps_array {
    use crate::units::Time;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub(crate) fn serialize<S: Serializer, const N: usize>(
        t: &[Time; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let ps: Vec<u64> = t.iter().map(|t| t.0).collect();
        ps.serialize(s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[Time; N], D::Error> {
        let ps = Vec::<u64>::deserialize(d)?;
        let n = ps.len();
        let t: Vec<Time> = ps.into_iter().map(Time).collect();
        t.try_into()
            .map_err(|_| serde::de::Error::invalid_length(n, &"the times of a rank"))
    }
}

/// A value and a [`Time`], the time packed as its picoseconds.
pub(crate) mod ps_after {
    use crate::units::Time;
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub(crate) fn serialize<S: Serializer, T: Serialize>(
        v: &(T, Time),
        s: S,
    ) -> Result<S::Ok, S::Error> {
        (&v.0, v.1 .0).serialize(s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>, T: DeserializeOwned>(
        d: D,
    ) -> Result<(T, Time), D::Error> {
        <(T, u64)>::deserialize(d).map(|(v, t)| (v, Time(t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_put_one_element_at_a_time_is_the_sequence_put_whole() {
        let parts: Vec<(u32, Vec<u8>)> =
            vec![(3, vec![1, 2, 250]), (300, vec![]), (7, vec![9; 300])];
        let mut whole = Vec::new();
        put(&mut whole, &parts);
        let mut each = Vec::new();
        put_len(&mut each, parts.len());
        for (p, b) in &parts {
            put(&mut each, p);
            put(&mut each, &b[..]);
        }
        assert_eq!(each, whole);
        let back: Vec<(u32, Vec<u8>)> = get(&mut &each[..], "parts").unwrap();
        assert_eq!(back, parts);
        // framed in place: the same bytes (lengths of 1, 3 and 0 bytes' varints), read back
        // as slices
        let mut framed = Vec::new();
        put_len(&mut framed, parts.len());
        for (p, b) in &parts {
            put(&mut framed, p);
            put_framed(&mut framed, |w| w.extend_from_slice(b));
        }
        assert_eq!(framed, whole);
        let r = &mut &framed[..];
        assert_eq!(get::<u64>(r, "n").unwrap(), 3);
        for (p, b) in &parts {
            assert_eq!(get::<u32>(r, "p").unwrap(), *p);
            assert_eq!(get_bytes(r, "b").unwrap(), &b[..]);
        }
        assert!(r.is_empty());
        let e = get_bytes(&mut &[5u8, 1, 2][..], "the bytes").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("the bytes: 5 bytes announced, 2 left"),
            "{e}"
        );
    }

    #[test]
    fn values_come_back_bit_for_bit_and_short_bytes_are_an_error() {
        let x = (
            7u64,
            -0.0f64,
            f64::from_bits(0x7ff8_0000_dead_beef),
            "ab".to_string(),
        );
        let mut w = Vec::new();
        put(&mut w, &x);
        // 7 is one byte; the floats 8 each; the string its length (1 byte) and 2
        assert_eq!(w.len(), 1 + 8 + 8 + 1 + 2);
        let mut r = &w[..];
        let y: (u64, f64, f64, String) = get(&mut r, "x").unwrap();
        assert_eq!(y.1.to_bits(), x.1.to_bits());
        assert_eq!(y.2.to_bits(), x.2.to_bits());
        assert_eq!((y.0, y.3), (7, "ab".to_string()));
        assert!(r.is_empty());
        let mut short = &w[..w.len() - 1];
        let e = get::<(u64, f64, f64, String)>(&mut short, "the metrics").unwrap_err();
        assert!(e.to_string().contains("the metrics"), "{e}");
        // a name read back is the one kept the first time, not a new one each time
        let (a, b) = (intern(&String::from("MGEN_Send")), intern("MGEN_Send"));
        assert!(std::ptr::eq(a, b));
    }
}
