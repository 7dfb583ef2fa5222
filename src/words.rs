//! How messages say things: the nearest of a list of names (for a "did you mean"), serde's
//! words for a value of the wrong type in a user's, a list in words, and a word of input
//! quoted within bounds (a message never echoes megabytes of input).

use std::borrow::Cow;

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo (an edit
/// distance of at most a third of its length; case and `-`/`_` ignored). A candidate whose
/// length differs from the word's by more than that is not compared (the distance is at least
/// the difference), so a long word costs no more than its own length per candidate.
pub(crate) fn closest<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('-', "_");
    let n = word.chars().count();
    let limit = (n / 3).max(1);
    let w = norm(word);
    candidates
        .into_iter()
        .filter(|c| c.chars().count().abs_diff(n) <= limit)
        .map(|c| (strsim::damerau_levenshtein(&w, &norm(c)), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// The most characters of a word of input that a message quotes whole.
pub(crate) const ECHO_CHARS: usize = 40;

/// A word of input (a value, a key, a word of a file) as a message quotes it: whole up to
/// [`ECHO_CHARS`] characters; a longer one as its first [`ECHO_CHARS`], an ellipsis and its
/// length (`xxxx… (1048576 characters)`).
pub(crate) fn shown(word: &str) -> Cow<'_, str> {
    match word.char_indices().nth(ECHO_CHARS) {
        None => Cow::Borrowed(word),
        Some((i, _)) => Cow::Owned(format!(
            "{}… ({} characters)",
            &word[..i],
            word.chars().count()
        )),
    }
}

/// The longest run of non-blank characters [`bounded`] leaves whole: room for a path.
pub(crate) const LONGEST_WORD: usize = 256;

/// The longest line [`bounded`] leaves whole.
pub(crate) const LONGEST_LINE: usize = 4096;

/// `msg` with every run of non-blank characters longer than [`LONGEST_WORD`] cut as [`shown`]
/// cuts a word (the punctuation that closes it kept), and every line still longer than
/// [`LONGEST_LINE`] cut likewise: the net under the messages that quote input through code
/// which does not cut it (serde's, the units' parser, the TOML parser's excerpt of a line).
pub(crate) fn bounded(msg: &str) -> Cow<'_, str> {
    let long = |w: &str| w.chars().nth(LONGEST_WORD).is_some();
    let long_line = |l: &str| l.chars().nth(LONGEST_LINE).is_some();
    if !msg.split_whitespace().any(long) && !msg.lines().any(long_line) {
        return Cow::Borrowed(msg);
    }
    let mut words = String::with_capacity(LONGEST_LINE);
    let mut rest = msg;
    while !rest.is_empty() {
        let blank = rest.len() - rest.trim_start().len();
        words.push_str(&rest[..blank]);
        rest = &rest[blank..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        if long(word) {
            // (a closing quote, bracket or colon stays after the cut)
            let core = word.trim_end_matches(['"', '\'', '`', ')', ']', ':', ',', ';', '.', '?']);
            let close = &word[core.len()..];
            let close = &close[..close.len().min(4)];
            words.push_str(&shown(core));
            words.push_str(close);
        } else {
            words.push_str(word);
        }
        rest = &rest[end..];
    }
    let mut out = String::with_capacity(words.len().min(16 * LONGEST_LINE));
    for (i, line) in words.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match line.char_indices().nth(LONGEST_LINE) {
            Some((at, _)) => {
                let n = line.chars().count();
                out.push_str(&format!("{}… ({n} characters)", &line[..at]));
            }
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// serde's words for a value of the wrong type, in a user's.
pub(crate) fn plain_words(msg: &str) -> String {
    let mut m = msg.to_string();
    for (rust, plain) in [
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected a sequence", "expected a list such as [8, 8, 8]"),
        ("expected a map", "expected a table"),
        ("expected a string", "expected a string in quotes"),
    ] {
        m = m.replace(rust, plain);
    }
    m
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn either(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_and_lists() {
        assert_eq!(closest("radx", ["radix", "levels"]), Some("radix"));
        assert_eq!(closest("groups", ["radix", "levels"]), None);
        assert_eq!(either(&["mesh", "torus", "Tofu"]), "mesh, torus or Tofu");
        assert_eq!(either(&["a"]), "a");
        assert!(plain_words("invalid type: string, expected u32").ends_with("0 or more"));
    }

    #[test]
    fn long_words_are_cut_with_their_length() {
        assert_eq!(shown("short"), "short");
        let w = "x".repeat(1 << 20);
        let s = shown(&w);
        assert_eq!(s, format!("{}… (1048576 characters)", "x".repeat(40)));
        // a message keeps its words up to a path's length, and the quote that closes a cut one
        let path = format!("/{}/s.toml", "d".repeat(200));
        assert_eq!(bounded(&path), path.as_str());
        let msg = format!("cannot read \"{w}\": unknown unit\n  next line");
        assert_eq!(
            bounded(&msg),
            format!(
                "cannot read \"{}… (1048577 characters)\": unknown unit\n  next line",
                "x".repeat(39)
            )
        );
        // a line of many short words is cut too
        let line = "ab ".repeat(100_000);
        let b = bounded(&line);
        assert!(b.len() < LONGEST_LINE + 64, "{}", b.len());
        assert!(
            b.ends_with("… (300000 characters)"),
            "{}",
            &b[b.len() - 40..]
        );
        // a word far longer than any candidate is not compared at all
        assert_eq!(closest(&w, ["xx", "x"]), None);
    }
}
