//! Units of the model: simulated time, data sizes and bandwidths.
//!
//! Each is a newtype over an integer so that a time cannot be added to a byte count.
//! Simulated time is an integer number of **picoseconds** (docs/model.md §1): no floating point
//! ever decides the order of events. Sizes are **bytes**; bandwidths are **bytes per second**.
//!
//! Configuration files write quantities as people do (`"4.0 GB/s"`, `"128 ns"`, `"2 KiB"`);
//! `Time::parse`, `Bytes::parse` and `Bandwidth::parse` read them exactly, with decimal
//! arithmetic (so `"0.6 ns"` is exactly 600 ps, never 599); the face reads a time through
//! `FromStr`.
//!
//! ```
//! use mgensim::units::Time;
//! assert_eq!("0.6 ns".parse::<Time>().unwrap(), Time(600));
//! assert_eq!("2 min".parse::<Time>().unwrap().ps(), 120_000_000_000_000);
//! assert!("4 parsecs".parse::<Time>().is_err());
//! ```

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per second.
pub(crate) const PS_PER_S: u64 = 1_000_000_000_000;

/// A point in, or a span of, simulated time: an integer number of picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// No time.
    pub(crate) const ZERO: Time = Time(0);
    /// The latest a rank's clock may reach: half of what 64 bits of picoseconds hold (about
    /// 106.7 days), so that every delay the network adds to it still fits. A script that
    /// would compute past it gets an error, never a clock that wraps.
    pub(crate) const HORIZON: Time = Time(u64::MAX / 2);

    /// `ps` picoseconds.
    pub(crate) const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    /// `ns` nanoseconds.
    pub(crate) const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    /// `us` microseconds.
    pub(crate) const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    /// In picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Seconds as a float, for display and for `MGEN_Wtime` only.
    pub(crate) fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Seconds (a script's `MGEN_Comp` argument) rounded to the nearest picosecond.
    /// `None` for a negative, non-finite or too large value.
    pub(crate) fn from_secs_f64(s: f64) -> Option<Time> {
        if !s.is_finite() || s < 0.0 {
            return None;
        }
        let ps = (s * PS_PER_S as f64).round();
        if ps >= u64::MAX as f64 {
            return None;
        }
        Some(Time(ps as u64))
    }
    /// Parses `"128 ns"`, `"0.6ns"`, `"17 us"`, `"600 µs"`, `"1e-6 s"`, `"250 ps"`, `"2 min"`,
    /// `"1 h"`.
    pub(crate) fn parse(text: &str) -> Result<Time, UnitError> {
        let (num, unit) = split_number(text)?;
        let (scale, div) = match unit {
            "ps" => (1u128, 1u128),
            "ns" => (1_000, 1),
            "us" | "µs" | "μs" => (1_000_000, 1),
            "ms" => (1_000_000_000, 1),
            "s" => (PS_PER_S as u128, 1),
            "min" => (60 * PS_PER_S as u128, 1),
            "h" => (3600 * PS_PER_S as u128, 1),
            "" => {
                return Err(UnitError::new(
                    text,
                    "a time needs a unit: ps, ns, us, ms, s, min or h",
                ))
            }
            _ => {
                return Err(UnitError::new(
                    text,
                    "unknown time unit (use ps, ns, us, ms, s, min or h)",
                ))
            }
        };
        num.scale(scale, div)
            .map(Time)
            .ok_or_else(|| UnitError::new(text, "out of range"))
    }
    /// `self + other`, or `None` past 64 bits.
    pub(crate) fn checked_add(self, other: Time) -> Option<Time> {
        self.0.checked_add(other.0).map(Time)
    }
}

impl Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0;
    }
}
impl Sub for Time {
    type Output = Time;
    #[inline]
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

/// Reads `"128 ns"` and the other forms of [`Time::parse`].
impl std::str::FromStr for Time {
    type Err = UnitError;
    fn from_str(text: &str) -> Result<Time, UnitError> {
        Time::parse(text)
    }
}

impl fmt::Display for Time {
    /// Human form with a unit chosen by magnitude: `512 ns`, `1.234567 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        let (div, unit) = if ps >= PS_PER_S {
            (PS_PER_S, "s")
        } else if ps >= 1_000_000_000 {
            (1_000_000_000, "ms")
        } else if ps >= 1_000_000 {
            (1_000_000, "us")
        } else if ps >= 1_000 {
            (1_000, "ns")
        } else {
            (1, "ps")
        };
        write_scaled(f, ps as u128, div as u128, unit)
    }
}

/// A size in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Bytes(pub(crate) u64);

impl Bytes {
    /// Parses `"2 KiB"`, `"2048"`, `"256 B"`, `"2 MB"` (decimal) or `"1 MiB"` (binary).
    pub(crate) fn parse(text: &str) -> Result<Bytes, UnitError> {
        let (num, unit) = split_number(text)?;
        let scale: u128 = match unit {
            "" | "B" => 1,
            "kB" | "KB" => 1_000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            "TB" => 1_000_000_000_000,
            "KiB" => 1 << 10,
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            "TiB" => 1 << 40,
            _ => {
                return Err(UnitError::new(
                    text,
                    "unknown size unit (use B, KB, MB, GB, KiB, MiB, GiB)",
                ))
            }
        };
        num.scale(scale, 1)
            .map(Bytes)
            .ok_or_else(|| UnitError::new(text, "out of range"))
    }
}

/// Reads `"2 KiB"` and the other forms of [`Bytes::parse`].
impl std::str::FromStr for Bytes {
    type Err = UnitError;
    fn from_str(text: &str) -> Result<Bytes, UnitError> {
        Bytes::parse(text)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as u128;
        if b >= 1 << 30 {
            write_scaled(f, b, 1 << 30, "GiB")
        } else if b >= 1 << 20 {
            write_scaled(f, b, 1 << 20, "MiB")
        } else if b >= 1 << 10 {
            write_scaled(f, b, 1 << 10, "KiB")
        } else {
            write!(f, "{b} B")
        }
    }
}

/// A bandwidth in bytes per second; [`Bandwidth::INFINITE`] moves any size in zero time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Bandwidth(pub(crate) u64);

impl Bandwidth {
    /// No limit (`"inf"`).
    pub(crate) const INFINITE: Bandwidth = Bandwidth(u64::MAX);

    /// Whether it is [`Bandwidth::INFINITE`].
    pub(crate) fn is_infinite(self) -> bool {
        self.0 == u64::MAX
    }
    /// Time to move `size` at this rate, rounded up to the next picosecond.
    #[inline]
    pub(crate) fn transfer_time(self, size: Bytes) -> Time {
        if self.0 == u64::MAX || size.0 == 0 {
            return Time::ZERO;
        }
        match size.0.checked_mul(PS_PER_S) {
            // (a 64-bit division up to 18 MB; a 128-bit one is a library call)
            Some(num) => Time(num.div_ceil(self.0)),
            None => Time(
                (size.0 as u128 * PS_PER_S as u128)
                    .div_ceil(self.0 as u128)
                    .min(u64::MAX as u128) as u64,
            ),
        }
    }
    /// The slower of two rates.
    pub(crate) fn min(self, o: Bandwidth) -> Bandwidth {
        Bandwidth(self.0.min(o.0))
    }
    /// Parses `"4.0 GB/s"`, `"2.8GB/s"`, `"100 Gb/s"` (bits), `"10 GiB/s"`, `"inf"`.
    pub(crate) fn parse(text: &str) -> Result<Bandwidth, UnitError> {
        let t = text.trim();
        if matches!(t, "inf" | "infinite" | "∞") {
            return Ok(Bandwidth::INFINITE);
        }
        let (num, unit) = split_number(t)?;
        let (scale, div): (u128, u128) = match unit.strip_suffix("/s").or_else(|| unit.strip_suffix("ps")) {
            Some("B") => (1, 1),
            Some("kB") | Some("KB") => (1_000, 1),
            Some("MB") => (1_000_000, 1),
            Some("GB") => (1_000_000_000, 1),
            Some("TB") => (1_000_000_000_000, 1),
            Some("KiB") => (1 << 10, 1),
            Some("MiB") => (1 << 20, 1),
            Some("GiB") => (1 << 30, 1),
            Some("b") => (1, 8),
            Some("kb") | Some("Kb") => (1_000, 8),
            Some("Mb") => (1_000_000, 8),
            Some("Gb") => (1_000_000_000, 8),
            Some("Tb") => (1_000_000_000_000, 8),
            _ => {
                return Err(UnitError::new(
                    text,
                    "a bandwidth needs a unit such as B/s, MB/s, GB/s, GiB/s or Gb/s (bits), or \"inf\"",
                ))
            }
        };
        num.scale(scale, div)
            .filter(|&b| b < u64::MAX)
            .map(Bandwidth)
            .ok_or_else(|| UnitError::new(text, "out of range"))
    }
}

/// Reads `"4 GB/s"` and the other forms of [`Bandwidth::parse`].
impl std::str::FromStr for Bandwidth {
    type Err = UnitError;
    fn from_str(text: &str) -> Result<Bandwidth, UnitError> {
        Bandwidth::parse(text)
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_infinite() {
            return f.write_str("inf");
        }
        write_scaled(f, self.0 as u128, 1_000_000_000, "GB/s")
    }
}

/// A quantity that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read {text:?}: {why}")]
pub struct UnitError {
    /// The text that could not be read.
    pub(crate) text: String,
    /// Why.
    pub(crate) why: &'static str,
}

impl UnitError {
    fn new(text: &str, why: &'static str) -> UnitError {
        UnitError {
            text: text.to_string(),
            why,
        }
    }
}

/// An exact non-negative decimal: `digits × 10^exp10`.
struct Decimal {
    digits: u128,
    exp10: i32,
}

impl Decimal {
    /// `self × scale / div`, rounded to the nearest integer; `None` when it does not fit a u64.
    fn scale(&self, scale: u128, div: u128) -> Option<u64> {
        let mut num = self.digits.checked_mul(scale)?;
        let mut den = div;
        if self.exp10 >= 0 {
            num = num.checked_mul(10u128.checked_pow(self.exp10 as u32)?)?;
        } else {
            den = den.checked_mul(10u128.checked_pow((-self.exp10) as u32)?)?;
        }
        let v = (num + den / 2) / den;
        u64::try_from(v).ok()
    }
}

/// Splits `"4.0 GB/s"` into the exact number 4.0 and the unit `"GB/s"`.
fn split_number(text: &str) -> Result<(Decimal, &str), UnitError> {
    let t = text.trim();
    let end = t
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '_'
                || ((c == 'e' || c == 'E')
                    && t[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
                || ((c == '-' || c == '+') && i > 0 && matches!(t.as_bytes()[i - 1], b'e' | b'E')))
        })
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    if t.starts_with('-') {
        return Err(UnitError::new(text, "must not be negative"));
    }
    if num.is_empty() {
        return Err(UnitError::new(text, "expected a number followed by a unit"));
    }
    let (mant, exp) = match num.find(['e', 'E']) {
        Some(i) => (
            &num[..i],
            num[i + 1..]
                .parse::<i32>()
                .map_err(|_| UnitError::new(text, "bad exponent"))?,
        ),
        None => (num, 0),
    };
    let mut digits: u128 = 0;
    let mut frac = 0i32;
    let mut seen_dot = false;
    let mut any = false;
    for c in mant.chars() {
        match c {
            '0'..='9' => {
                digits = digits
                    .checked_mul(10)
                    .and_then(|d| d.checked_add(c as u128 - '0' as u128))
                    .ok_or_else(|| UnitError::new(text, "too many digits"))?;
                if seen_dot {
                    frac += 1;
                }
                any = true;
            }
            '.' if !seen_dot => seen_dot = true,
            '_' => {}
            _ => return Err(UnitError::new(text, "expected a number followed by a unit")),
        }
    }
    if !any {
        return Err(UnitError::new(text, "expected a number followed by a unit"));
    }
    Ok((
        Decimal {
            digits,
            exp10: exp - frac,
        },
        unit.trim(),
    ))
}

/// Writes `v / div` with up to six decimals, trailing zeros removed, then the unit.
fn write_scaled(f: &mut fmt::Formatter<'_>, v: u128, div: u128, unit: &str) -> fmt::Result {
    let whole = v / div;
    let micro = ((v % div) * 1_000_000 + div / 2) / div;
    let (whole, micro) = if micro == 1_000_000 {
        (whole + 1, 0)
    } else {
        (whole, micro)
    };
    if micro == 0 {
        write!(f, "{whole} {unit}")
    } else {
        let s = format!("{micro:06}");
        write!(f, "{whole}.{} {unit}", s.trim_end_matches('0'))
    }
}

macro_rules! serde_unit {
    ($ty:ident, $what:expr, $int:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $ty::parse(s).map_err(|e| E::custom(format!("{e}; expected {}", $what)))
                    }
                    fn visit_i64<E: de::Error>(self, n: i64) -> Result<$ty, E> {
                        let f: fn(i64) -> Result<$ty, &'static str> = $int;
                        f(n).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, n: u64) -> Result<$ty, E> {
                        self.visit_i64(n.min(i64::MAX as u64) as i64)
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    };
}

serde_unit!(Time, "a time with a unit, such as \"128 ns\"", |_| Err(
    "a time needs a unit: write it as a string such as \"128 ns\""
));
serde_unit!(
    Bytes,
    "a size such as \"2 KiB\" or a whole number of bytes",
    |n| {
        if n < 0 {
            Err("a size must not be negative")
        } else {
            Ok(Bytes(n as u64))
        }
    }
);
serde_unit!(Bandwidth, "a bandwidth such as \"4.0 GB/s\"", |_| Err(
    "a bandwidth needs a unit: write it as a string such as \"4.0 GB/s\""
));

/// The longest one transfer's own bytes may take at the run's slowest rate: 2^61 ps (about
/// 26.7 days), a quarter of [`Time::HORIZON`], so that a transfer started before the horizon
/// ends within what 64 bits of picoseconds hold.
pub(crate) const LONGEST_TRANSFER: Time = Time(1 << 61);

/// The most bytes one transfer may move when the slowest rate of the run is `slowest`.
pub(crate) fn max_transfer_bytes(slowest: Bandwidth) -> u64 {
    if slowest == Bandwidth::INFINITE {
        return u64::MAX;
    }
    let b = LONGEST_TRANSFER.ps() as u128 * slowest.0 as u128 / 1_000_000_000_000;
    b.min(u64::MAX as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exact() {
        assert_eq!(Time::parse("0.6 ns").unwrap(), Time(600));
        assert_eq!(Time::parse("128ns").unwrap(), Time(128_000));
        assert_eq!(Time::parse("17 µs").unwrap(), Time(17_000_000));
        assert_eq!(Time::parse("1e-6 s").unwrap(), Time(1_000_000));
        assert_eq!(Time::parse("2.5e3 ps").unwrap(), Time(2_500));
        assert_eq!(Time::parse("1.5 min").unwrap(), Time(90 * PS_PER_S));
        assert_eq!(Time::parse("1h").unwrap(), Time(3600 * PS_PER_S));
        assert!(Time::parse("128").is_err());
        assert!(Time::parse("-1 ns").is_err());
        assert!(Time::parse("3 parsecs").is_err());
    }

    #[test]
    fn sizes_and_rates() {
        assert_eq!(Bytes::parse("2 KiB").unwrap(), Bytes(2048));
        assert_eq!(Bytes::parse("2 MB").unwrap(), Bytes(2_000_000));
        assert_eq!(Bytes::parse("256").unwrap(), Bytes(256));
        assert_eq!(
            Bandwidth::parse("2.8 GB/s").unwrap(),
            Bandwidth(2_800_000_000)
        );
        assert_eq!(
            Bandwidth::parse("100 Gb/s").unwrap(),
            Bandwidth(12_500_000_000)
        );
        assert!(Bandwidth::parse("inf").unwrap().is_infinite());
        assert!(Bandwidth::parse("4 GB").is_err());
    }

    #[test]
    fn transfer_time_rounds_up() {
        let bw = Bandwidth::parse("2.8 GB/s").unwrap();
        // 2048 B / 2.8e9 B/s = 731428.57 ps
        assert_eq!(bw.transfer_time(Bytes(2048)), Time(731_429));
        assert_eq!(
            Bandwidth::INFINITE.transfer_time(Bytes(1 << 30)),
            Time::ZERO
        );
    }

    #[test]
    fn display() {
        assert_eq!(Time(512_000).to_string(), "512 ns");
        assert_eq!(Time(1_234_567_000).to_string(), "1.234567 ms");
        assert_eq!(Bytes(2048).to_string(), "2 KiB");
        assert_eq!(Bandwidth(2_800_000_000).to_string(), "2.8 GB/s");
    }

    /// 2^61 ps at 1 B/s, and at 4 GB/s.
    #[test]
    fn the_longest_transfer_in_bytes() {
        assert_eq!(max_transfer_bytes(Bandwidth(1)), 2_305_843);
        assert_eq!(
            max_transfer_bytes(Bandwidth(4_000_000_000)),
            9_223_372_036_854_775
        );
        assert_eq!(max_transfer_bytes(Bandwidth::INFINITE), u64::MAX);
    }
}

/// Fuzzing the unit parsers with proptest: they take any text without panicking, and read
/// exact numbers exactly.
#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn the_unit_parsers_take_any_text(text in ".*") {
            if let Ok(t) = text.parse::<Time>() {
                prop_assert!(t.to_string().parse::<Time>().is_ok());
            }
            if let Ok(b) = text.parse::<Bytes>() {
                prop_assert!(b.to_string().parse::<Bytes>().is_ok());
            }
            if let Ok(bw) = text.parse::<Bandwidth>() {
                prop_assert!(bw.to_string().parse::<Bandwidth>().is_ok());
            }
        }

        #[test]
        fn whole_numbers_read_exactly(n in any::<u64>(), k in 0u64..1_000_000) {
            prop_assert_eq!(format!("{n} ps").parse::<Time>().unwrap(), Time(n));
            prop_assert_eq!(format!("{k}ns").parse::<Time>().unwrap(), Time(k * 1000));
            prop_assert_eq!(format!("{n} B").parse::<Bytes>().unwrap(), Bytes(n));
            prop_assert_eq!(format!("{k} KiB").parse::<Bytes>().unwrap(), Bytes(k * 1024));
            prop_assert_eq!(format!("{k} MB/s").parse::<Bandwidth>().unwrap(), Bandwidth(k * 1_000_000));
        }
    }
}
