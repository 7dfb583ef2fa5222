//! What synthetic traffic measures: per partition, integer counts and sums (so that gathering
//! partitions in any order gives the same figures), latency histograms of bounded relative
//! width, and the links' loads by class over the window; then each traffic job's summary.

use super::gen::TrafficJob;
use crate::net::Network;
use crate::units::Time;
use serde::Serialize;

/// Sub-buckets per power of two of a latency histogram: a bucket is at most 1/128 of its
/// values wide (values below 128 ps each have their own).
const SUB: u32 = 7;
/// Values from 2^(TOP + 1) ps (about 9 minutes) on share the last bucket.
const TOP: u32 = 48;
/// Buckets of a histogram.
const BUCKETS: usize = ((TOP - SUB + 2) << SUB) as usize;

/// The bucket of value `v` (ps).
#[inline]
fn bucket(v: u64) -> usize {
    if v < 1 << SUB {
        return v as usize;
    }
    let v = v.min((1u64 << (TOP + 1)) - 1);
    let e = 63 - v.leading_zeros();
    ((((e - SUB + 1) << SUB) as u64) | ((v >> (e - SUB)) & ((1 << SUB) - 1))) as usize
}

/// The values of bucket `i`: `[lo, hi)` (ps).
pub(crate) fn bucket_range(i: usize) -> (u64, u64) {
    if i < 1 << SUB {
        return (i as u64, i as u64 + 1);
    }
    let e = (i as u32 >> SUB) + SUB - 1;
    let m = (i as u64) & ((1 << SUB) - 1);
    let lo = ((1 << SUB) + m) << (e - SUB);
    (lo, lo + (1 << (e - SUB)))
}

/// A latency distribution: its count, sum, least and most exactly, and a histogram.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Dist {
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
    /// Per bucket: its count and its least value (allocated at the first value).
    hist: Vec<(u64, u64)>,
}

impl Dist {
    #[inline]
    fn add(&mut self, v: u64) {
        if self.count == 0 {
            self.min = v;
            self.hist = vec![(0, u64::MAX); BUCKETS];
        }
        self.count += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        let b = &mut self.hist[bucket(v)];
        b.0 += 1;
        b.1 = b.1.min(v);
    }

    fn merge(&mut self, o: &Dist) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = o.clone();
            return;
        }
        self.count += o.count;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        for (a, b) in self.hist.iter_mut().zip(&o.hist) {
            a.0 += b.0;
            a.1 = a.1.min(b.1);
        }
    }

    /// The value below which a fraction `q` of the values lie, as the least value of the
    /// histogram's bucket that holds it: exact when the bucket holds one value, else low by
    /// less than the bucket's width (1/128 of its values).
    fn quantile(&self, q: f64) -> u64 {
        let want = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for &(c, least) in &self.hist {
            seen += c;
            if seen >= want {
                return least;
            }
        }
        self.max
    }

    fn summary(&self) -> Option<Latency> {
        (self.count > 0).then(|| Latency {
            min: self.min,
            mean: (self.sum / self.count as u128) as u64,
            p50: self.quantile(0.5),
            p99: self.quantile(0.99),
            max: self.max,
        })
    }
}

/// What one link class carried over the window: summed over its links, and its busiest.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ClassCount {
    links: u64,
    bytes: u64,
    busy: u128,
    busiest: u64,
}

/// What a partition measured of one traffic job.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Stats {
    /// Bytes on the wire of the messages created in the window, and their packets (the
    /// packets measured).
    pub(crate) offered_bytes: u64,
    pub(crate) measured: u64,
    /// Bytes of the packets that entered their NIC's injection channel in the window.
    pub(crate) injected_bytes: u64,
    /// Bytes of the packets whose tail arrived in the window.
    pub(crate) accepted_bytes: u64,
    /// Packets made, injected and delivered over the whole run.
    pub(crate) made: u64,
    pub(crate) injected_all: u64,
    pub(crate) delivered: u64,
    /// The measured packets delivered: latency from creation, network latency, hops.
    latency: Dist,
    network: Dist,
    hops_sum: u64,
    hops_max: u8,
    /// Latency sums of the measured packets created in each half of the window (count, sum):
    /// whether latency still grows.
    halves: [(u64, u128); 2],
    /// Per link class (`Network::own_link_counters`).
    classes: Vec<ClassCount>,
}

impl Stats {
    /// A measured packet delivered: its latency and network latency (ps), its router-to-router
    /// hops, and which half of the window it was created in.
    #[inline]
    pub(crate) fn record(&mut self, latency: u64, network: u64, hops: u8, half: usize) {
        self.latency.add(latency);
        self.network.add(network);
        self.hops_sum += hops as u64;
        self.hops_max = self.hops_max.max(hops);
        self.halves[half].0 += 1;
        self.halves[half].1 += latency as u128;
    }

    /// A link of class `class` carried `bytes` and was busy `busy` ps in the window.
    pub(crate) fn link(&mut self, class: u8, bytes: u64, busy: u64) {
        let c = class as usize;
        if self.classes.len() <= c {
            self.classes.resize(c + 1, ClassCount::default());
        }
        let k = &mut self.classes[c];
        k.links += 1;
        k.bytes += bytes;
        k.busy += busy as u128;
        k.busiest = k.busiest.max(busy);
    }

    /// Adds another partition's measures.
    pub(crate) fn merge(&mut self, o: Stats) {
        self.offered_bytes += o.offered_bytes;
        self.measured += o.measured;
        self.injected_bytes += o.injected_bytes;
        self.accepted_bytes += o.accepted_bytes;
        self.made += o.made;
        self.injected_all += o.injected_all;
        self.delivered += o.delivered;
        self.latency.merge(&o.latency);
        self.network.merge(&o.network);
        self.hops_sum += o.hops_sum;
        self.hops_max = self.hops_max.max(o.hops_max);
        for h in 0..2 {
            self.halves[h].0 += o.halves[h].0;
            self.halves[h].1 += o.halves[h].1;
        }
        if self.classes.len() < o.classes.len() {
            self.classes.resize(o.classes.len(), ClassCount::default());
        }
        for (a, b) in self.classes.iter_mut().zip(o.classes) {
            a.links += b.links;
            a.bytes += b.bytes;
            a.busy += b.busy;
            a.busiest = a.busiest.max(b.busiest);
        }
    }
}

/// Least, mean, median, 99th percentile and most of a latency (ps).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Latency {
    /// Least.
    pub min: u64,
    /// Mean (rounded down).
    pub mean: u64,
    /// Median and 99th percentile: the least value of the histogram's bucket that holds
    /// them (buckets at most 1/128 of their values wide).
    pub p50: u64,
    /// See `p50`.
    pub p99: u64,
    /// Most.
    pub max: u64,
}

/// Router-to-router links the measured packets crossed.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct TrafficHops {
    /// Mean.
    pub mean: f64,
    /// Most.
    pub max: u32,
}

/// What one class of links carried over the window.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClassLoad {
    /// `router` (links between routers), `injection`, `ejection`, or the topology's own
    /// class (`global`, `above level 1`, a graph's named class).
    pub class: String,
    /// Link directions of the class.
    pub links: u64,
    /// Bytes they sent in the window.
    pub(crate) bytes: u64,
    /// Their mean utilization over the window (time sending over the window's length), and
    /// the busiest one's.
    pub mean_utilization: f64,
    /// See `mean_utilization`.
    pub max_utilization: f64,
}

/// A traffic job's figures (the summary's `traffic`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// The job's name.
    pub(crate) job: String,
    /// The traffic in words (pattern, self, process, sizes, load).
    pub(crate) traffic: String,
    /// The pattern, and whether ranks send to themselves.
    pub(crate) pattern: String,
    /// See `pattern`.
    pub(crate) to_self: bool,
    /// The injection process.
    pub(crate) process: String,
    /// The offered load asked for (`workload.load`).
    pub(crate) load: f64,
    /// The measurement window (ps, `[start, end)`) and the drain after it.
    pub(crate) window_ps: [u64; 2],
    /// See `window_ps`.
    pub(crate) drain_ps: u64,
    /// Offered, injected and accepted loads over the window: bytes created, entered the
    /// injection channels, and arrived (tails) in it, over the window's length times the
    /// injection bandwidth of the NICs the job's ranks use.
    pub offered: f64,
    /// See `offered`.
    pub(crate) injected: f64,
    /// See `offered`.
    pub accepted: f64,
    /// Packets created in the window (measured), those delivered, and those never delivered
    /// (left in their source's queue when it stopped, or in the network when the run did).
    pub packets: u64,
    /// See `packets`.
    pub delivered: u64,
    /// See `packets`.
    pub unfinished: u64,
    /// Of the measured packets: from creation to the tail's arrival at the destination NIC,
    /// and from entering the NIC's injection channel (ps).
    pub packet_latency_ps: Option<Latency>,
    /// See `packet_latency_ps`.
    pub network_latency_ps: Option<Latency>,
    /// Router-to-router links the measured packets crossed.
    pub hops: Option<TrafficHops>,
    /// Mean latency of the packets created in the window's second half over that of its
    /// first: near 1 when latency is steady, above when queues still grow.
    pub(crate) latency_growth: Option<f64>,
    /// The links' loads over the window, by class.
    pub link_loads: Vec<ClassLoad>,
    /// The highest offered load the routes allow (`bound.rs`: the busiest channel's load per
    /// unit of offered load, inverted, at most 1), when it was worked out.
    pub ideal: Option<f64>,
    /// Which channel bounds it, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_channel: Option<String>,
    /// The latency histograms: `(from ps, to ps, packets, by network latency)` for each bucket
    /// either holds something in (`latency_histogram.csv`).
    #[serde(skip)]
    pub(crate) histogram: Vec<(u64, u64, u64, u64)>,
    /// The scenario job it is (index).
    #[serde(skip)]
    pub(crate) job_index: u32,
}

/// The names of a network's link classes, by class number (`Network::own_link_counters`).
pub(crate) fn class_names(net: &Network) -> Vec<String> {
    let mut names: Vec<String> = ["router", "injection", "ejection"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    names.extend(net.topo.link_classes().into_iter().map(|c| c.name));
    names
}

impl Summary {
    /// The figures of traffic job `tj` from what was measured.
    pub(crate) fn new(tj: &TrafficJob, st: &Stats, classes: &[String]) -> Summary {
        let spec = &tj.spec;
        let (w0, w1) = spec.window();
        let span = (w1 - w0) as f64;
        let capacity = span * spec.nic_rate.0 as f64 / 1e12 * tj.nics as f64;
        let frac = |b: u64| {
            if capacity > 0.0 {
                b as f64 / capacity
            } else {
                0.0
            }
        };
        let arrived = st.latency.count;
        let growth = (st.halves[0].0 > 0 && st.halves[1].0 > 0).then(|| {
            let m = |h: (u64, u128)| h.1 as f64 / h.0 as f64;
            m(st.halves[1]) / m(st.halves[0])
        });
        let mut histogram = Vec::new();
        if arrived > 0 {
            for i in 0..BUCKETS {
                let (a, b) = (st.latency.hist[i].0, st.network.hist[i].0);
                if a > 0 || b > 0 {
                    let (lo, hi) = bucket_range(i);
                    histogram.push((lo, hi, a, b));
                }
            }
        }
        Summary {
            job: String::new(),
            traffic: spec.describe(),
            pattern: spec.name.clone(),
            to_self: spec.to_self,
            process: spec.process.name().to_string(),
            load: spec.load,
            window_ps: [w0, w1],
            drain_ps: spec.drain.ps(),
            offered: frac(st.offered_bytes),
            injected: frac(st.injected_bytes),
            accepted: frac(st.accepted_bytes),
            packets: st.measured,
            delivered: arrived,
            unfinished: st.measured.saturating_sub(arrived),
            packet_latency_ps: st.latency.summary(),
            network_latency_ps: st.network.summary(),
            hops: (arrived > 0).then(|| TrafficHops {
                mean: st.hops_sum as f64 / arrived as f64,
                max: st.hops_max as u32,
            }),
            latency_growth: growth,
            link_loads: st
                .classes
                .iter()
                .enumerate()
                .filter(|(_, c)| c.links > 0)
                .map(|(i, c)| ClassLoad {
                    class: classes
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| format!("class {i}")),
                    links: c.links,
                    bytes: c.bytes,
                    mean_utilization: c.busy as f64 / (c.links as f64 * span),
                    max_utilization: c.busiest as f64 / span,
                })
                .collect(),
            ideal: None,
            ideal_channel: None,
            histogram,
            job_index: tj.job,
        }
    }

    /// The summary's lines for this traffic (the text summary).
    pub(crate) fn text(&self) -> String {
        let t = |ps: u64| Time(ps).to_string();
        let mut out = format!(
            "traffic            {} ({}), measured {} to {}\n",
            self.traffic,
            self.job,
            t(self.window_ps[0]),
            t(self.window_ps[1])
        );
        let ideal = match (self.ideal, &self.ideal_channel) {
            (Some(i), Some(c)) => format!("; the routes allow {i:.3} ({c})"),
            (Some(i), None) => format!("; the routes allow {i:.3}"),
            _ => String::new(),
        };
        out += &format!(
            "  throughput       offered {:.4}, injected {:.4}, accepted {:.4} of the injection bandwidth{ideal}\n",
            self.offered, self.injected, self.accepted
        );
        let lat = |name: &str, l: &Option<Latency>| match l {
            Some(l) => format!(
                "  {name:<16} mean {}  p50 {}  p99 {}  max {}  (min {})\n",
                t(l.mean),
                t(l.p50),
                t(l.p99),
                t(l.max),
                t(l.min)
            ),
            None => String::new(),
        };
        out += &lat("packet latency", &self.packet_latency_ps);
        out += &lat("network latency", &self.network_latency_ps);
        if let Some(h) = self.hops {
            out += &format!("  hops             mean {:.3}, most {}\n", h.mean, h.max);
        }
        out += &format!(
            "  packets          {} created in the window, {} delivered, {} not",
            self.packets, self.delivered, self.unfinished
        );
        if let Some(g) = self.latency_growth {
            out += &format!("; latency of its second half / first {g:.3}");
        }
        out += "\n";
        if !self.link_loads.is_empty() {
            let loads: Vec<String> = self
                .link_loads
                .iter()
                .map(|c| {
                    format!(
                        "{} {:.3} mean, {:.3} busiest",
                        c.class, c.mean_utilization, c.max_utilization
                    )
                })
                .collect();
            out += &format!("  link loads       {}\n", loads.join("; "));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_once_and_are_at_most_a_128th_wide() {
        for v in [0u64, 1, 127, 128, 129, 255, 256, 1000, 123_456_789, 1 << 40] {
            let (lo, hi) = bucket_range(bucket(v));
            assert!(lo <= v && v < hi, "{v} in [{lo}, {hi})");
            assert!((hi - lo) * 128 <= lo.max(128), "{v}: [{lo}, {hi})");
        }
        for i in 1..BUCKETS {
            assert_eq!(bucket_range(i - 1).1, bucket_range(i).0, "bucket {i}");
        }
    }

    #[test]
    fn quantiles_are_exact_for_one_value_and_within_a_bucket_otherwise() {
        let mut d = Dist::default();
        for _ in 0..10 {
            d.add(1_234_567);
        }
        let s = d.summary().unwrap();
        assert_eq!(
            (s.min, s.mean, s.p50, s.p99, s.max),
            (1_234_567, 1_234_567, 1_234_567, 1_234_567, 1_234_567)
        );
        let mut d = Dist::default();
        for v in 1..=1000u64 {
            d.add(v * 1000);
        }
        let s = d.summary().unwrap();
        assert_eq!(s.mean, 500_500);
        // (the least value of the bucket that holds the 500th and the 990th value)
        assert!(
            s.p50 <= 500_000 && s.p50 as f64 > 500_000.0 * (1.0 - 1.0 / 128.0),
            "{}",
            s.p50
        );
        assert!(
            s.p99 <= 990_000 && s.p99 as f64 > 990_000.0 * (1.0 - 1.0 / 128.0),
            "{}",
            s.p99
        );
    }
}
