//! A sweep's grid: the `--vary` axes (lists and integer ranges, counted before they are made),
//! the points they make, and `--shard`.

use anyhow::{bail, Context, Result};

/// One varied key and its values, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The scenario key (`workload.ranks`).
    pub key: String,
    /// Its values, as TOML literals (or bare words).
    pub values: Vec<String>,
    /// Varied together with the axis before it (`--zip`): the same point takes the value of
    /// the same rank in both, instead of every combination.
    pub zipped: bool,
}

/// Parses `KEY=VALUES`.
pub fn parse_axis(spec: &str) -> Result<Axis> {
    let (key, values) = spec.split_once('=').with_context(|| {
        format!("--vary {spec}: expected KEY=VALUES, e.g. workload.ranks=2..512:x2")
    })?;
    let key = key.trim().to_string();
    let values = values.trim();
    let list = if let Some(r) = range(values) {
        r.with_context(|| format!("--vary {spec}"))?
    } else {
        split_top(values)
    };
    if list.is_empty() || list.iter().any(|v| v.is_empty()) {
        bail!("--vary {spec}: an empty value");
    }
    Ok(Axis {
        key,
        values: list,
        zipped: false,
    })
}

/// Parses the `--zip KEY=VALUES` of a sweep: keys varied together, value by value (the first
/// of them starts the group).
pub fn parse_zip(specs: &[String]) -> Result<Vec<Axis>> {
    let mut axes = specs
        .iter()
        .map(|s| parse_axis(s).map_err(|e| anyhow::anyhow!("{e:#}").context("--zip")))
        .collect::<Result<Vec<_>>>()?;
    for (i, a) in axes.iter_mut().enumerate() {
        a.zipped = i > 0;
    }
    Ok(axes)
}

/// The axes in groups varied together: a group is an axis and the `zipped` ones after it.
pub(crate) fn groups(axes: &[Axis]) -> Vec<&[Axis]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=axes.len() {
        if i == axes.len() || !axes[i].zipped {
            out.push(&axes[start..i]);
            start = i;
        }
    }
    out
}

/// `a..b`, `a..b:xk` or `a..b:+k` with integers; None if `s` is not a range at all.
fn range(s: &str) -> Option<Result<Vec<String>>> {
    let (a, rest) = s.split_once("..")?;
    let (b, step) = match rest.split_once(':') {
        Some((b, step)) => (b, step.trim()),
        None => (rest, "+1"),
    };
    let int = |x: &str| -> Result<i64> {
        x.trim()
            .parse()
            .with_context(|| format!("`{}` is not an integer (ranges are of integers)", x.trim()))
    };
    Some((|| {
        let (a, b) = (int(a)?, int(b)?);
        if b < a {
            bail!("the range ends ({b}) before it starts ({a})");
        }
        // (counted before any value is made: a range of millions is refused at once)
        const MOST: u64 = 100_000;
        let mut out = Vec::new();
        let mut v = a;
        if let Some(k) = step.strip_prefix('x').or_else(|| step.strip_prefix('*')) {
            let k = int(k)?;
            if k < 2 || a < 1 {
                bail!("a range times k needs k >= 2 and a start >= 1");
            }
            while v <= b {
                out.push(v.to_string());
                match v.checked_mul(k) {
                    Some(n) => v = n,
                    None => break,
                }
            }
        } else if let Some(k) = step.strip_prefix('+') {
            let k = int(k)?;
            if k < 1 {
                bail!("a range plus k needs k >= 1");
            }
            let count = (b as i128 - a as i128) / k as i128 + 1;
            if count > MOST as i128 {
                bail!("{count} values: too many for one axis (at most {MOST})");
            }
            while v <= b {
                out.push(v.to_string());
                match v.checked_add(k) {
                    Some(n) => v = n,
                    None => break,
                }
            }
        } else {
            bail!("the step `{step}` is neither xK (times K) nor +K (plus K)");
        }
        Ok(out)
    })())
}

/// Splits at the commas that are not inside brackets or quotes.
fn split_top(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for ch in s.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(ch),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur.trim().to_string());
    out
}

/// The points of the grid: for each, one value per axis (the first axis outermost).
/// The most points a sweep may have.
pub(crate) const MAX_POINTS: u128 = 1_000_000;

/// Checks that the axes make a grid that can be run: each key varied once, and at most
/// [`MAX_POINTS`] points (counted, not made).
pub fn check_axes(axes: &[Axis]) -> Result<()> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.key == a.key) {
            bail!(
                "--vary {}: the key is varied twice; give one --vary per key, with all its \
                 values (a list `a,b,c` or a range `1..64:x2`)",
                a.key
            );
        }
    }
    for g in groups(axes) {
        if let Some(b) = g.iter().find(|b| b.values.len() != g[0].values.len()) {
            bail!(
                "--zip {} has {} values and --zip {} has {}: keys varied together need as many \
                 values each",
                g[0].key,
                g[0].values.len(),
                b.key,
                b.values.len()
            );
        }
    }
    let points: u128 = groups(axes)
        .iter()
        .map(|g| g[0].values.len() as u128)
        .product();
    if points > MAX_POINTS {
        bail!(
            "the grid has {points} points (the product of the --vary lists): more than a sweep \
             runs ({MAX_POINTS}); vary fewer values, or split it with --shard"
        );
    }
    Ok(())
}

/// Every point of the grid, the first axis outermost, axes varied together (`--zip`) taking
/// their values rank by rank (see [`check_axes`] first). A point has one value per axis.
pub fn grid(axes: &[Axis]) -> Vec<Vec<String>> {
    let mut points = vec![Vec::new()];
    for g in groups(axes) {
        points = points
            .into_iter()
            .flat_map(|p| {
                (0..g[0].values.len()).map(move |k| {
                    let mut q = p.clone();
                    q.extend(g.iter().map(|a| a.values[k].clone()));
                    q
                })
            })
            .collect();
    }
    points
}

/// Which points a shard runs: `i/n` runs those whose number is `i` modulo `n` (1-based `i`,
/// as in a job array: `--shard $SLURM_ARRAY_TASK_ID/8`).
pub fn parse_shard(s: &str) -> Result<(usize, usize)> {
    let (i, n) = s
        .split_once('/')
        .with_context(|| format!("--shard {s}: expected I/N, e.g. 1/4"))?;
    let (i, n): (usize, usize) = (
        i.trim()
            .parse()
            .with_context(|| format!("--shard {s}: `{i}` is not a number"))?,
        n.trim()
            .parse()
            .with_context(|| format!("--shard {s}: `{n}` is not a number"))?,
    );
    if n == 0 || i == 0 || i > n {
        bail!("--shard {s}: I must be between 1 and N");
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(spec: &str) -> Vec<String> {
        parse_axis(spec).unwrap().values
    }

    #[test]
    fn ranges_and_lists() {
        assert_eq!(values("k=2..64:x2"), ["2", "4", "8", "16", "32", "64"]);
        assert_eq!(values("k=2..100:x3"), ["2", "6", "18", "54"]);
        assert_eq!(values("k=1..10:+3"), ["1", "4", "7", "10"]);
        assert_eq!(values("k=3..5"), ["3", "4", "5"]);
        assert_eq!(values("k=ring,rd"), ["ring", "rd"]);
        assert_eq!(values("k=[4,4],[8,8]"), ["[4,4]", "[8,8]"]);
        assert_eq!(values("k=\"a,b\",c"), ["\"a,b\"", "c"]);
        assert!(format!("{:#}", parse_axis("k=8..2").unwrap_err()).contains("before"));
        assert!(format!("{:#}", parse_axis("k=1..8:x1").unwrap_err()).contains("k >= 2"));
        assert!(format!("{:#}", parse_axis("k=1..8:/2").unwrap_err()).contains("xK"));
        assert!(parse_axis("nokey").is_err());
    }

    #[test]
    fn the_grid_puts_the_first_key_outermost() {
        let axes = [
            Axis {
                zipped: false,
                key: "a".into(),
                values: vec!["1".into(), "2".into()],
            },
            Axis {
                zipped: false,
                key: "b".into(),
                values: vec!["x".into(), "y".into()],
            },
        ];
        let g: Vec<String> = grid(&axes).iter().map(|p| p.join("")).collect();
        assert_eq!(g, ["1x", "1y", "2x", "2y"]);
    }

    #[test]
    fn ranges_are_counted_before_they_are_made() {
        let e = format!("{:#}", parse_axis("k=1..100000000").unwrap_err());
        assert!(e.contains("100000000 values"), "{e}");
        // a range times k that would overflow ends at the last value that fits
        assert_eq!(values("k=1..9223372036854775807:x2").len(), 63);
        let axis = |k: &str, n: usize| Axis {
            key: k.into(),
            values: vec!["1".into(); n],
            zipped: false,
        };
        assert!(check_axes(&[axis("a", 1000), axis("b", 1000)]).is_ok());
        let e = format!(
            "{:#}",
            check_axes(&[axis("a", 1001), axis("b", 1000)]).unwrap_err()
        );
        assert!(e.contains("1001000 points"), "{e}");
        let e = format!(
            "{:#}",
            check_axes(&[axis("a", 2), axis("a", 3)]).unwrap_err()
        );
        assert!(e.contains("varied twice"), "{e}");
    }
}
