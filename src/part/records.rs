//! What a partition records beyond the summary, as a run asks for it (`Probes`): the links'
//! time series, buffer histories, the timeline and the profile.

use super::*;
use crate::probe::{history::BufferHistory, series::LinkSeries, Probes};

impl Part {
    /// Records what `p` asks for (`series_memory`: the bytes a time series of fixed width may
    /// hold, `limits.time_series_memory`). Errors name a router that does not exist or an
    /// empty interval.
    pub(crate) fn record(&mut self, p: &Probes, series_memory: u64) -> anyhow::Result<()> {
        let routers = self.net.routers();
        if !p.buffer_history.is_empty() && self.flows.is_some() {
            anyhow::bail!(
                "--buffer-history: the flow model (network.model = \"flow\") has no buffers: \
                 messages move as flows, not packets through routers; use the packet model \
                 for buffer histories"
            );
        }
        for watch in &p.buffer_history {
            if watch.router >= routers {
                anyhow::bail!(
                    "--buffer-history: router {} does not exist: the network has {routers} \
                     routers, 0 to {}",
                    watch.router,
                    routers - 1
                );
            }
        }
        let channels = self.net.channels();
        let for_report = p.report && channels <= crate::probe::REPORT_CHANNELS;
        match p.interval {
            Some(Time::ZERO) => anyhow::bail!("--interval must be longer than 0 ps"),
            Some(i) => {
                let memory = series_memory;
                self.net.series = Some(Box::new(LinkSeries::new(i.ps(), false, channels, memory)))
            }
            None if p.adaptive || for_report => {
                self.net.series = Some(Box::new(LinkSeries::new(1_000, true, channels, 0)))
            }
            None => self.net.series = None,
        }
        self.series_in_files = p.interval.is_some() || p.adaptive;
        self.net.history = (!p.buffer_history.is_empty())
            .then(|| Box::new(BufferHistory::new(p.buffer_history.clone())));
        let ranks = self.ranks.len() as u32;
        let for_report = p.report && ranks as usize <= crate::probe::REPORT_RANKS;
        let profile_for_report = p.report && ranks as usize <= crate::probe::REPORT_PROFILE_RANKS;
        self.profile = (p.profile || profile_for_report)
            .then(|| Box::new(crate::probe::profile::Profile::new(ranks as usize)));
        self.trace = match (p.trace, for_report) {
            (true, _) => Some(Box::new(crate::probe::trace::Trace::new(ranks))),
            (false, true) => Some(Box::new(crate::probe::trace::Trace::bounded(
                ranks,
                crate::probe::REPORT_SPANS,
            ))),
            _ => None,
        };
        Ok(())
    }

    /// The run ended at `end`: the links' time series is made to fit in it
    /// ([`LinkSeries::end_at`]).
    pub(crate) fn end_series(&mut self, end: Time) {
        if let Some(s) = self.net.series.as_deref_mut() {
            s.end_at(end.ps());
        }
    }
}
