//! How messages say things: the nearest of a list of names (for a "did you mean"), serde's
//! words for a value of the wrong type in a user's, a list in words.

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo (an edit
/// distance of at most a third of its length; case and `-`/`_` ignored).
pub fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let norm = |s: &str| s.to_ascii_lowercase().replace('-', "_");
    let w = norm(word);
    let limit = (w.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&w, &norm(c)), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// serde's words for a value of the wrong type, in a user's.
pub fn plain_words(msg: &str) -> String {
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
pub fn either(words: &[&str]) -> String {
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
}
