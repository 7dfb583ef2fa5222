//! What the replay tests share: a trace written from each rank's lines, with its scenario.

use crate::common::tmp_file;
use std::path::Path;

/// Writes a trace of one file per rank (`lines[r]` is rank r's text, without its rank
/// numbers: they are added) and its index, and a scenario replaying it on a line of 4 routers.
pub fn traced(dir: &Path, lines: &[&str], extra: &str) -> std::path::PathBuf {
    let mut index = String::new();
    for (r, text) in lines.iter().enumerate() {
        let body: String = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("{r} {l}\n"))
            .collect();
        std::fs::write(dir.join(format!("r{r}.txt")), body).unwrap();
        index += &format!("r{r}.txt\n");
    }
    std::fs::write(dir.join("app.txt"), index).unwrap();
    tmp_file(
        dir,
        "s.toml",
        &format!(
            "[network]\ntopology = 'mesh'\ndims = [4]\n{extra}\n[workload]\ntrace = 'app.txt'\n"
        ),
    )
}
