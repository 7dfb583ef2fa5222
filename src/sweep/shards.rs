//! Joining a sweep's shards (`mgensim sweep --merge`): each shard's CSV file read within
//! bounds, the set checked whole, the joined table written as `sweep.csv` and its plot.

use super::{merge, missing_shards, pivot, write, Table};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The most a shard's CSV file may hold.
pub(crate) const SHARD_BYTES: u64 = 256 << 20;

/// What a merge joined and wrote.
pub struct Joined {
    /// The joined table.
    pub table: Table,
    /// The files written into the folder.
    pub written: Vec<String>,
    /// What the user should know: shards joined without, a plot not drawn.
    pub warnings: Vec<String>,
}

/// Joins the shards `files` into `out/sweep.csv` and its plot of column `y`. Every shard of
/// the set must be there unless `allow_missing`; a file that is not a regular file, was cut,
/// or has no column `y` is refused before anything is written.
pub fn join(files: &[PathBuf], out: &Path, y: &str, allow_missing: bool) -> Result<Joined> {
    let tables = files
        .iter()
        .map(|f| read(f).with_context(|| format!("{}", f.display())))
        .collect::<Result<Vec<_>>>()?;
    let missing = missing_shards(files, &tables);
    if !missing.is_empty() && !allow_missing {
        bail!(
            "the shards given are not the whole sweep: {}; give them all, or --allow-missing \
             to join those given",
            missing.join("; ")
        );
    }
    let mut warnings: Vec<String> = missing
        .iter()
        .map(|m| format!("joined without {m}"))
        .collect();
    let table = merge(&tables)?;
    // (the column to plot and show is checked before anything is written)
    pivot(&table, y)?;
    let (written, skipped) = write(out, "sweep", &table, Some(y), "")?;
    warnings.extend(skipped);
    Ok(Joined {
        table,
        written,
        warnings,
    })
}

/// One shard's table: a regular file, whole, of at most [`SHARD_BYTES`].
fn read(f: &Path) -> Result<Table> {
    let meta = std::fs::metadata(f)?;
    if !meta.is_file() {
        bail!("not a regular file: a shard is the CSV file `sweep --shard` wrote");
    }
    let text = crate::files::read_bounded(f, SHARD_BYTES).map_err(anyhow::Error::msg)?;
    if !text.is_empty() && !text.ends_with('\n') {
        bail!("the file ends in the middle of a line: it was cut (copied or written only in part)");
    }
    Table::from_csv(&text)
}
