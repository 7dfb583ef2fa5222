//! `--set KEY=VALUE`: a change to a scenario's keys from the command line, applied to its TOML
//! before it is read.

use anyhow::{anyhow, bail, Result};

/// Applies `a.b.c=VALUE` to a TOML table. VALUE is a TOML literal (`[8,8,8]`, `512`,
/// `"8 GB/s"`); a bare word that is not one (`ring`, as a shell leaves `"ring"`) is taken as a
/// string.
/// Returns the key it set.
pub(crate) fn apply_override(table: &mut toml::Table, assignment: &str) -> Result<String> {
    let (key, value) = assignment
        .split_once('=')
        .ok_or_else(|| anyhow!("expected KEY=VALUE, e.g. network.dims=[8,8,8]"))?;
    let key = key.trim();
    let value = value.trim();
    let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut t) => t.remove("v").expect("key v was just written"),
        Err(_) => toml::Value::String(value.to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        bail!("bad key {key:?}");
    }
    let mut cur = table;
    let mut i = 0;
    while i + 1 < parts.len() {
        // `job.0.ranks` needs the list: an index cannot make one
        if parts[i + 1].parse::<usize>().is_ok() && !cur.contains_key(parts[i]) {
            if i == 0 && parts[0] == "job" {
                bail!(
                    "the scenario has no jobs (no [[job]] tables: its workload is [workload]); \
                     set workload.{} instead",
                    parts[2..].join(".")
                );
            }
            bail!(
                "`{}` is not in the scenario, so `{}` has no entry {} to set",
                parts[..=i].join("."),
                parts[..=i].join("."),
                parts[i + 1]
            );
        }
        let entry = cur
            .entry(parts[i].to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        // `job.1.ranks`: a table of an array of tables, by its index
        let entry = match entry {
            toml::Value::Array(a) => {
                if i + 2 >= parts.len() {
                    bail!(
                        "`{}` is a list: give an index, e.g. {}.0.key",
                        parts[i],
                        parts[i]
                    );
                }
                let n = a.len();
                let k: usize = parts[i + 1].parse().map_err(|_| {
                    anyhow!(
                        "`{}` is a list: give an index, e.g. {}.0",
                        parts[i],
                        parts[i]
                    )
                })?;
                i += 1;
                a.get_mut(k).ok_or_else(|| {
                    anyhow!("`{}` has {n} entries; {k} is out of range", parts[i - 1])
                })?
            }
            e => e,
        };
        cur = entry
            .as_table_mut()
            .ok_or_else(|| anyhow!("`{}` is not a table", parts[..=i].join(".")))?;
        i += 1;
    }
    cur.insert(parts[parts.len() - 1].to_string(), parsed);
    // the key as problems name it: `job[0].ranks`
    let mut named = String::new();
    for part in &parts {
        if part.parse::<usize>().is_ok() && !named.is_empty() {
            named.push_str(&format!("[{part}]"));
        } else {
            if !named.is_empty() {
                named.push('.');
            }
            named.push_str(part);
        }
    }
    Ok(named)
}
