//! The command line's own modules (the binary's, not the library's): the process around a
//! run, `mgensim replay` and `mgensim curve`.

pub(crate) mod curve;
pub(crate) mod process;
pub(crate) mod replay;

#[cfg(test)]
mod tests {
    /// clap's own checks of the command line (a name two arguments share, ...), which it
    /// makes in builds with debug assertions (the test command's `checked` profile) when
    /// the command line is parsed: here for every subcommand, not only those a test runs.
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        crate::Cli::command().debug_assert();
    }
}
