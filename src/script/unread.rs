//! The `MGEN_args` keys no rank read, each with the nearest name a script asked for instead
//! (`--set workload.args.alg=rd` where the script reads `algo`).
//!
//! **Bounded work.** The keys come from the scenario and the names asked for from the
//! scripts, so both can be many: the "did you mean" compares a key only with the names whose
//! length could be close enough (an edit distance is at least the difference of the lengths),
//! and all the comparisons of a run together may cost at most [`CELLS`] steps of the edit
//! distance (its table's cells). Keys and names are taken in sorted order, so that the
//! budget ends at the same key in every run of a scenario, whatever its partitions; a key
//! the budget or the wall-clock limit left unexamined is reported without a suggestion, and
//! a last line says how many were. Every key and name is quoted within bounds
//! ([`crate::words::shown`]).

use super::Scripts;
use crate::words::shown;
use std::collections::{BTreeMap, BTreeSet};

/// Steps of the edit distance (cells of its table) the suggestions of one run may cost in all:
/// a few tenths of a second at most.
pub(crate) const CELLS: u64 = 1 << 25;

/// The longest key or name, in characters, that gets a suggestion (the cost of a comparison is
/// the product of the two lengths; a key that long is not a typo of a short one).
const LONGEST: usize = 256;

/// Why the suggestions stopped before the last key.
enum Cut {
    Budget,
    /// The run must stop now (its wall-clock limit passed, or it was interrupted).
    Stopped(&'static str),
}

/// Warnings about the keys of `MGEN_args` that no rank of their job read in any of the
/// partitions' states, each with the nearest name a script asked for (found or not: `alg`
/// given where the script reads `algo`) (`jobs` names the jobs, in order). Once the run must
/// stop (its wall-clock limit passed, or a signal came), the suggestions stop.
pub(crate) fn unread_args<'a>(
    states: impl Iterator<Item = &'a Scripts>,
    jobs: &[String],
) -> Vec<String> {
    let states: Vec<&Scripts> = states.collect();
    let Some(first) = states.first() else {
        return Vec::new();
    };
    let keys = states.iter().map(|s| s.unread_keys()).collect();
    unread_args_of(keys, &first.part.borrow(), jobs)
}

/// What one Lua state says of `MGEN_args` (`Scripts::unread_keys`): per job some rank of it
/// looked at them, the keys none read and the names asked for instead.
pub(crate) type Unread = Vec<(usize, Vec<String>, Vec<String>)>;

/// [`unread_args`] of the keys each state left unread (`Scripts::unread_keys`, a state's list
/// each, from every process of a run), `part` saying whether the run must stop.
pub(crate) fn unread_args_of(
    keys: Vec<Unread>,
    part: &crate::part::Part,
    jobs: &[String],
) -> Vec<String> {
    let stop = || {
        let limit = part.limit_passed()?;
        Some(match limit {
            crate::limits::Limit::Interrupt => "the run was interrupted",
            _ => "the wall-clock limit passed",
        })
    };
    // job -> (unread in every state that saw it, asked for in any: found or not)
    let mut merged: BTreeMap<usize, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for state in keys {
        for (j, unread, missed) in state {
            let unread: BTreeSet<String> = unread.into_iter().collect();
            let e = merged
                .entry(j)
                .or_insert_with(|| (unread.clone(), BTreeSet::new()));
            e.0 = e.0.intersection(&unread).cloned().collect();
            e.1.extend(missed);
        }
    }
    let merged: Vec<(usize, Vec<String>, Vec<String>)> = merged
        .into_iter()
        .map(|(j, (keys, missed))| (j, keys.into_iter().collect(), missed.into_iter().collect()))
        .collect();
    warnings(&merged, jobs, CELLS, stop)
}

/// The warnings for `merged` (per job: its unread keys and the names asked for, each sorted),
/// the suggestions within `budget` cells and until `stop` says why they must stop.
fn warnings(
    merged: &[(usize, Vec<String>, Vec<String>)],
    jobs: &[String],
    mut budget: u64,
    stop: impl Fn() -> Option<&'static str>,
) -> Vec<String> {
    let mut out = Vec::new();
    let (mut cut, mut unexamined) = (None, 0usize);
    for (j, keys, missed) in merged {
        // the names asked for by length in characters, each list in sorted order
        let mut by_len: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for m in missed.iter().filter(|m| m.len() <= 4 * LONGEST) {
            let n = m.chars().count();
            if n <= LONGEST {
                by_len.entry(n).or_default().push(m);
            }
        }
        let job = match jobs.get(j.wrapping_sub(1)) {
            Some(name) if jobs.len() > 1 => format!(" of job `{}`", shown(name)),
            _ => String::new(),
        };
        for key in keys {
            if cut.is_none() {
                cut = stop().map(Cut::Stopped);
            }
            let nearest = match cut {
                Some(_) => None,
                None => match nearest(key, &by_len, &mut budget) {
                    Ok(n) => n,
                    Err(()) => {
                        cut = Some(Cut::Budget);
                        None
                    }
                },
            };
            unexamined += (cut.is_some()) as usize;
            let key = shown(key);
            out.push(match nearest {
                Some(m) => format!(
                    "MGEN_args.{key}{job} was never read by the script, which asked for \
                     `{}` instead: a misspelt key?",
                    shown(m)
                ),
                None => format!("MGEN_args.{key}{job} was never read by the script"),
            });
        }
    }
    match cut {
        Some(Cut::Budget) => out.push(format!(
            "the {unexamined} last of the unread MGEN_args keys were not compared with the \
             names the scripts asked for: the scripts asked for too many names to compare \
             them all"
        )),
        Some(Cut::Stopped(why)) => out.push(format!(
            "the {unexamined} last of the unread MGEN_args keys were not compared with the \
             names the scripts asked for: {why}"
        )),
        None => {}
    }
    out
}

/// The name of `by_len` nearest to `key` that is close enough to be what a misspelt key meant
/// (never a whole word replaced: `c` is not a misspelt `a`), the comparisons charged to
/// `budget`; `Err` when the budget ends before every candidate was compared.
fn nearest<'m>(
    key: &str,
    by_len: &BTreeMap<usize, Vec<&'m str>>,
    budget: &mut u64,
) -> Result<Option<&'m str>, ()> {
    let k = key.chars().count();
    if k > LONGEST {
        return Ok(None);
    }
    let mut best: Option<(usize, &str)> = None;
    for (&n, names) in by_len {
        // (a name of `n` characters has at most `4n` bytes: its limit is at most this)
        if n.abs_diff(k) > 2.max(4 * n / 3) {
            continue;
        }
        for &m in names {
            let limit = 2.max(m.len() / 3);
            let plausible = n.abs_diff(k) <= limit;
            // (passing a name over costs a step too)
            let cost = if plausible {
                (k as u64 + 1) * (n as u64 + 1)
            } else {
                1
            };
            if *budget < cost {
                return Err(());
            }
            *budget -= cost;
            if !plausible {
                continue;
            }
            let d = strsim::damerau_levenshtein(key, m);
            if d <= limit && d < key.len().min(m.len()) && best.is_none_or(|b| (d, m) < b) {
                best = Some((d, m));
            }
        }
    }
    Ok(best.map(|(_, m)| m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_job(keys: &[&str], missed: &[&str]) -> Vec<(usize, Vec<String>, Vec<String>)> {
        let v = |l: &[&str]| {
            let mut v: Vec<String> = l.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        vec![(1, v(keys), v(missed))]
    }

    #[test]
    fn a_misspelt_key_gets_the_name_the_script_asked_for() {
        let w = warnings(
            &one_job(&["alg", "c", "byts"], &["algo", "a", "bytes"]),
            &[],
            CELLS,
            || None,
        );
        assert_eq!(
            w,
            [
                "MGEN_args.alg was never read by the script, which asked for `algo` instead: a \
                 misspelt key?",
                "MGEN_args.byts was never read by the script, which asked for `bytes` instead: \
                 a misspelt key?",
                "MGEN_args.c was never read by the script",
            ]
        );
    }

    #[test]
    fn the_budget_stops_the_comparisons_at_the_same_key_every_time() {
        let keys: Vec<String> = (0..300).map(|i| format!("key_number_{i:04}")).collect();
        let missed: Vec<String> = (0..20_000).map(|i| format!("asked_key_{i}")).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let missed: Vec<&str> = missed.iter().map(String::as_str).collect();
        let merged = one_job(&keys, &missed);
        // 16 by 15 characters: 272 cells a comparison; a budget of ten comparisons' worth
        // examines no key whole
        let w = warnings(&merged, &[], 2_720, || None);
        assert_eq!(w.len(), 301);
        assert_eq!(
            w[300],
            "the 300 last of the unread MGEN_args keys were not compared with the names the \
             scripts asked for: the scripts asked for too many names to compare them all"
        );
        assert_eq!(w, warnings(&merged, &[], 2_720, || None));
        // a deadline passed stops them too
        let w = warnings(&merged, &[], CELLS, || Some("the wall-clock limit passed"));
        assert!(
            w[300].ends_with("the wall-clock limit passed"),
            "{}",
            w[300]
        );
    }

    #[test]
    fn long_keys_and_names_are_quoted_within_bounds() {
        let long = "k".repeat(1 << 20);
        let w = warnings(&one_job(&[&long], &[&long[1..]]), &[], CELLS, || None);
        assert_eq!(
            w,
            [format!(
                "MGEN_args.{}… (1048576 characters) was never read by the script",
                "k".repeat(40)
            )]
        );
    }
}
