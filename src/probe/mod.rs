//! What a run can record beyond its summary, when asked (each costs time or memory only
//! then): time × space statistics of the links ([`series`]), the buffer history of chosen
//! routers ([`history`]) and a timeline of the ranks ([`trace`]). docs/model.md §7. The
//! bytes between pairs of nodes ([`traffic`]) are counted for the placement hint of a mesh or
//! torus.

pub(crate) mod history;
pub(crate) mod names;
pub(crate) mod profile;
pub(crate) mod series;
pub(crate) mod trace;
pub(crate) mod traffic;

use crate::units::Time;

/// What to record in a run (`mgensim run --interval`, `--buffer-history`, `--trace`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probes {
    /// Width of the windows of the time series; `None` for no series.
    pub(crate) interval: Option<Time>,
    /// Let the width double so that at most [`series::ADAPTIVE_WINDOWS`] windows are kept
    /// (for pictures, when no width was given).
    pub(crate) adaptive: bool,
    /// Routers whose buffers to watch, and when.
    pub(crate) buffer_history: Vec<history::Watch>,
    /// Record the ranks' timeline.
    pub(crate) trace: bool,
    /// Record where the ranks' time went, per call and region (`--profile`).
    pub(crate) profile: bool,
    /// The run writes `report.html`: also record what its pictures need (the timeline and a
    /// time series of adaptive width) when the run is small enough ([`REPORT_RANKS`] ranks,
    /// [`REPORT_CHANNELS`] link directions). A series recorded only for the report is not
    /// written as CSV.
    pub report: bool,
}

/// Most spans a timeline recorded unasked (for `report.html`) keeps: about 32 MiB.
pub(crate) const REPORT_SPANS: usize = 1 << 20;

/// Most ranks for which `report.html` records the profile unasked (about 100 bytes a rank).
pub(crate) const REPORT_PROFILE_RANKS: usize = 1 << 16;

/// Most ranks for which `report.html` records the timeline unasked.
pub(crate) const REPORT_RANKS: usize = 256;
/// Most link directions for which `report.html` records the time series unasked (256 windows
/// of 48 bytes each: 12 MiB at most; recording costs time on every hop, so bigger networks
/// record it only when asked).
pub(crate) const REPORT_CHANNELS: usize = 1024;

impl Probes {}

/// Parses `router=12,from=0,to=50us` (`from` defaults to 0, `to` to the end of the run).
pub(crate) fn parse_watch(spec: &str) -> Result<history::Watch, String> {
    let mut w = history::Watch {
        router: u32::MAX,
        from_ps: 0,
        to_ps: u64::MAX,
    };
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| format!("`{part}` is not KEY=VALUE (keys: router, from, to)"))?;
        let time = |v: &str| -> Result<u64, String> {
            if v.trim() == "0" {
                return Ok(0);
            }
            Time::parse(v)
                .map(|t| t.ps())
                .map_err(|e| format!("`{key}`: {e}"))
        };
        match key.trim() {
            "router" => {
                w.router = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`router` = `{value}` is not a router number"))?
            }
            "from" => w.from_ps = time(value)?,
            "to" => w.to_ps = time(value)?,
            other => return Err(format!("unknown key `{other}` (keys: router, from, to)")),
        }
    }
    if w.router == u32::MAX {
        return Err("which router? e.g. `router=12,from=0,to=50us`".into());
    }
    if w.to_ps <= w.from_ps {
        return Err(format!(
            "`to` ({}) must be later than `from` ({})",
            Time(w.to_ps),
            Time(w.from_ps)
        ));
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watches_parse_with_defaults_and_clear_errors() {
        let w = parse_watch("router=12,from=0,to=50us").unwrap();
        assert_eq!((w.router, w.from_ps, w.to_ps), (12, 0, 50_000_000));
        assert_eq!(parse_watch("router=3").unwrap().to_ps, u64::MAX);
        assert!(parse_watch("from=0").unwrap_err().contains("which router"));
        assert!(parse_watch("router=1,til=5us")
            .unwrap_err()
            .contains("`til`"));
        assert!(parse_watch("router=1,to=5").unwrap_err().contains("unit"));
        assert!(parse_watch("router=1,from=5us,to=1us")
            .unwrap_err()
            .contains("later"));
    }
}
