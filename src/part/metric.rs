//! Metrics a script reports, and the exact sum their means are taken from.

use super::*;

/// A value scripts reported with `MGEN_report`, over the ranks that reported it.
///
/// Its mean is the exact sum of the values, rounded once, over their count: the same whatever
/// the order the values came in (partitions report theirs apart and are gathered at the end).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Metric {
    /// Ranks that reported it.
    pub count: u64,
    /// Smallest value.
    pub min: f64,
    /// Mean value.
    pub mean: f64,
    /// Largest value.
    pub max: f64,
    #[serde(skip)]
    sum: ExactSum,
}

impl Default for Metric {
    fn default() -> Self {
        Metric {
            count: 0,
            min: f64::INFINITY,
            mean: 0.0,
            max: f64::NEG_INFINITY,
            sum: ExactSum::default(),
        }
    }
}

/// A metric as packed (`pack.rs`): its count, least, mean and largest value, and the partial
/// sums of its exact sum.
pub(crate) type MetricEnd = (u64, f64, f64, f64, Vec<f64>);

impl Metric {
    /// This metric as packed.
    pub(crate) fn to_end(&self) -> MetricEnd {
        let s = self.sum.partials.clone();
        (self.count, self.min, self.mean, self.max, s)
    }

    /// The metric `e` was made of.
    pub(crate) fn from_end(e: MetricEnd) -> Metric {
        let (count, min, mean, max, partials) = e;
        let sum = ExactSum { partials };
        Metric {
            count,
            min,
            mean,
            max,
            sum,
        }
    }
}

impl Metric {
    /// Adds one rank's value.
    pub(crate) fn add(&mut self, v: f64) {
        self.count += 1;
        self.sum.add(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.mean = self.sum.value() / self.count as f64;
    }

    /// Adds the values `other` holds (another partition's, of the same name).
    pub(crate) fn merge(&mut self, other: &Metric) {
        self.count += other.count;
        for &p in &other.sum.partials {
            self.sum.add(p);
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if self.count > 0 {
            self.mean = self.sum.value() / self.count as f64;
        }
    }
}

/// A sum of floating-point numbers kept exactly, as non-overlapping partial sums (Shewchuk's
/// algorithm, as Python's `math.fsum`): adding is exact, and [`ExactSum::value`] rounds the
/// true sum once, so that the order of the terms never shows. A few partials in practice.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ExactSum {
    partials: Vec<f64>,
}

impl ExactSum {
    /// Adds `x` (finite).
    pub(crate) fn add(&mut self, mut x: f64) {
        let mut i = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        self.partials.truncate(i);
        self.partials.push(x);
    }

    /// The sum, correctly rounded.
    pub(crate) fn value(&self) -> f64 {
        let p = &self.partials;
        let Some(&last) = p.last() else {
            return 0.0;
        };
        if !last.is_finite() {
            return last;
        }
        let mut n = p.len() - 1;
        let (mut hi, mut lo) = (last, 0.0);
        while n > 0 {
            let x = hi;
            let y = p[n - 1];
            n -= 1;
            hi = x + y;
            lo = y - (hi - x);
            if lo != 0.0 {
                break;
            }
        }
        // half-way cases: round as the partials below say
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
        hi
    }
}
