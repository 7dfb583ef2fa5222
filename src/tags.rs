//! The envelope's wildcards and the tag space: `MGEN_ANY_SOURCE`, `MGEN_ANY_TAG`, the tags the
//! library keeps for itself (`lua/mgen.d.lua`: 2^61 and up), and how a message names a tag.
//! Below the model, so that the message layer (`mpi/`), the diagnostics and the pictures
//! say a tag the same way.

/// `MGEN_ANY_SOURCE`: a receive that matches a message from any rank.
pub(crate) const ANY_SOURCE: i64 = -1;
/// `MGEN_ANY_TAG`: a receive that matches a message with any tag.
pub(crate) const ANY_TAG: i64 = -1;
/// The first tag of `mgen.replay`'s exchanges.
pub(crate) const REPLAY_TAGS: i64 = 1 << 61;
/// The first tag of `mgen.coll`'s collectives.
pub(crate) const COLLECTIVE_TAGS: i64 = 1 << 62;

/// A tag as a script would read it: `with tag 5`, `with any tag`, or whose messages the
/// library's tags are (`lua/mgen.d.lua`: 2^61 and up).
pub(crate) fn tag_words(tag: i64) -> String {
    if tag == ANY_TAG {
        "with any tag".to_string()
    } else if tag >= COLLECTIVE_TAGS {
        "of a collective (mgen.coll)".to_string()
    } else if tag >= REPLAY_TAGS {
        "of an exchange replayed by mgen.replay".to_string()
    } else {
        format!("with tag {tag}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_named_by_whose_it_is() {
        assert_eq!(tag_words(ANY_TAG), "with any tag");
        assert_eq!(tag_words(0), "with tag 0");
        assert_eq!(
            tag_words((1 << 61) - 1),
            format!("with tag {}", (1i64 << 61) - 1)
        );
        assert_eq!(tag_words(1 << 61), "of an exchange replayed by mgen.replay");
        assert_eq!(tag_words((1 << 62) + 3), "of a collective (mgen.coll)");
    }
}
