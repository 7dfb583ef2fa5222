//! The energy of the network's links over a run (TraceRP, docs/model.md §8): the summary's
//! `power`, and `links_power.csv`'s per-link figures.

use super::Report;
use crate::net::router::LinkLoad;
use serde::Serialize;

/// Energy of the network's link directions over the run (TraceRP, docs/model.md §8).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PowerSummary {
    /// Whether links slept when idle (false: always active, energy only).
    pub enabled: bool,
    /// T_s: idle time before a link direction sleeps (ps).
    pub(crate) t_sleep_ps: u64,
    /// T_w: time a sleeping direction takes to wake (ps).
    pub(crate) t_wake_ps: u64,
    /// Watts a port draws in low power.
    pub p_base_per_port_w: f64,
    /// Watts more it draws when active.
    pub p_dynamic_w: f64,
    /// Link directions (ports) counted: every router output port and every NIC's injection
    /// link.
    pub(crate) ports: u64,
    /// Energy of all of them over the run's time, in joules, and its mean power in watts.
    pub energy_j: f64,
    /// Energy over the run's time: watts.
    pub(crate) average_power_w: f64,
    /// The part of the switches (their output ports, NIC ports included).
    pub switch_energy_j: f64,
    /// Energy had every link been active the whole run (same run time).
    pub always_on_energy_j: f64,
    /// Share of port-time spent in low power (0 to 1).
    pub low_power_fraction: f64,
    /// Wake-ups of all link directions.
    pub wakeups: u64,
    /// The same run with on/off disabled (`--power-baseline`).
    pub(crate) baseline: Option<PowerBaseline>,
}

/// This run against the same scenario with links always on: TraceRP figure 2's axes.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct PowerBaseline {
    /// The baseline's predicted time (ps).
    pub(crate) predicted_time_ps: u64,
    /// The baseline's energy (J).
    pub(crate) energy_j: f64,
    /// The baseline's mean power (W).
    pub(crate) average_power_w: f64,
    /// This run's energy, mean power and predicted time over the baseline's.
    pub(crate) energy_ratio: f64,
    /// This run's mean power over the baseline's.
    pub(crate) power_ratio: f64,
    /// This run's time over the baseline's.
    pub(crate) time_ratio: f64,
}

/// Joules of a port drawing `base` watts all along and `dynamic` more outside low power.
fn energy_j(base: f64, dynamic: f64, l: &LinkLoad, span_ps: u64) -> f64 {
    let active = span_ps.saturating_sub(l.low_power.ps());
    (base * span_ps as f64 + dynamic * active as f64) * 1e-12
}

impl PowerSummary {
    /// Energy of link direction `l` over a run of `span_ps`: base power all along, plus the
    /// dynamic power except in low power.
    pub(crate) fn link_energy_j(&self, l: &LinkLoad, span_ps: u64) -> f64 {
        energy_j(self.p_base_per_port_w, self.p_dynamic_w, l, span_ps)
    }

    /// The power figures of links `links` over a run of `span_ps` ps, with `cfg`'s parameters.
    pub(crate) fn new(cfg: &crate::config::PowerConfig, links: &[LinkLoad], span_ps: u64) -> Self {
        let energy = |f: &dyn Fn(&&LinkLoad) -> bool| -> f64 {
            links
                .iter()
                .filter(f)
                .map(|l| energy_j(cfg.p_base_per_port, cfg.p_dynamic, l, span_ps))
                .sum()
        };
        let n = links.len() as u64;
        let energy_j = energy(&|_| true);
        let secs = span_ps as f64 * 1e-12;
        let low: u64 = links.iter().map(|l| l.low_power.ps()).sum();
        PowerSummary {
            enabled: cfg.enabled,
            t_sleep_ps: cfg.t_sleep.ps(),
            t_wake_ps: cfg.t_wake.ps(),
            p_base_per_port_w: cfg.p_base_per_port,
            p_dynamic_w: cfg.p_dynamic,
            ports: n,
            energy_j,
            average_power_w: if secs > 0.0 { energy_j / secs } else { 0.0 },
            switch_energy_j: energy(&|l| l.port.is_some()),
            always_on_energy_j: n as f64 * (cfg.p_base_per_port + cfg.p_dynamic) * secs,
            low_power_fraction: if n > 0 && span_ps > 0 {
                low as f64 / (n as f64 * span_ps as f64)
            } else {
                0.0
            },
            wakeups: links.iter().map(|l| l.wakeups).sum(),
            baseline: None,
        }
    }

    /// Compares with the report of the same scenario run with on/off disabled.
    pub(crate) fn compare(&mut self, predicted_time_ps: u64, base: &Report) {
        let Some(b) = &base.power else { return };
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        self.baseline = Some(PowerBaseline {
            predicted_time_ps: base.predicted_time_ps,
            energy_j: b.energy_j,
            average_power_w: b.average_power_w,
            energy_ratio: ratio(self.energy_j, b.energy_j),
            power_ratio: ratio(self.average_power_w, b.average_power_w),
            time_ratio: ratio(predicted_time_ps as f64, base.predicted_time_ps as f64),
        });
    }
}
