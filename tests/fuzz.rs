//! Fuzzing the unit parsers with proptest: they take any text without panicking, and read
//! exact numbers exactly. (The scenario reader, the `--set` overrides and the graph files are
//! fuzzed beside their code, `src/config/fuzz.rs`.)

use mgensim::units::{Bandwidth, Bytes, Time};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_unit_parsers_take_any_text(text in ".*") {
        if let Ok(t) = Time::parse(&text) {
            prop_assert!(Time::parse(&t.to_string()).is_ok());
        }
        if let Ok(b) = Bytes::parse(&text) {
            prop_assert!(Bytes::parse(&b.to_string()).is_ok());
        }
        if let Ok(bw) = Bandwidth::parse(&text) {
            prop_assert!(Bandwidth::parse(&bw.to_string()).is_ok());
        }
    }

    #[test]
    fn whole_numbers_read_exactly(n in any::<u64>(), k in 0u64..1_000_000) {
        prop_assert_eq!(Time::parse(&format!("{n} ps")).unwrap(), Time(n));
        prop_assert_eq!(Time::parse(&format!("{k}ns")).unwrap(), Time(k * 1000));
        prop_assert_eq!(Bytes::parse(&format!("{n} B")).unwrap(), Bytes(n));
        prop_assert_eq!(Bytes::parse(&format!("{k} KiB")).unwrap(), Bytes(k * 1024));
        prop_assert_eq!(Bandwidth::parse(&format!("{k} MB/s")).unwrap(), Bandwidth(k * 1_000_000));
    }
}
