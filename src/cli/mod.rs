//! The command line's own modules (the binary's, not the library's): the process around a
//! run, and `mgensim replay`.

pub(crate) mod process;
pub(crate) mod replay;
