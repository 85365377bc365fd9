//! A fixed-bucket latency histogram: constant memory whatever the number of samples.
//!
//! Buckets are log-linear, as in HdrHistogram: values below 128 have a bucket each; above,
//! every power of two is split into 64 equal buckets, so a bucket is at most 1/64 (1.6 %)
//! of its values wide. The whole `u64` range takes 3 776 counters.

use serde::{Deserialize, Serialize};

/// Sub-buckets per power of two, as a power of two.
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;
/// Number of buckets: exact values up to `2 * SUB`, then `SUB` buckets per octave.
const BUCKETS: usize = ((64 - SUB_BITS + 1) as usize) * SUB as usize;

/// A histogram of `u64` values (nanoseconds, in this crate).
#[derive(Clone, PartialEq, Eq)]
pub struct Histogram {
    counts: Box<[u64]>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl core::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Histogram")
            .field("count", &self.count)
            .field("min", &self.min)
            .field("max", &self.max)
            .finish()
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

fn index(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // >= SUB_BITS + 1
    let shift = e - SUB_BITS;
    (shift as usize) * SUB as usize + (v >> shift) as usize
}

/// The smallest value and the width of bucket `i`.
fn bucket(i: usize) -> (u64, u64) {
    if (i as u64) < 2 * SUB {
        return (i as u64, 1);
    }
    let shift = (i as u64 / SUB) - 1;
    let m = i as u64 % SUB + SUB;
    (m << shift, 1 << shift)
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram { counts: vec![0; BUCKETS].into(), count: 0, sum: 0, min: u64::MAX, max: 0 }
    }

    /// Adds a sample.
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
        self.count += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The largest sample (exact), 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The `q`-quantile (0 ≤ q ≤ 1): the middle of the bucket holding the sample of rank
    /// ⌈q·n⌉, clamped to the exact minimum and maximum. 0 when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bucket(i);
                return (lo + w / 2).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// The usual summary.
    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            count: self.count,
            min: if self.count == 0 { 0 } else { self.min },
            p50: self.quantile(0.50),
            p90: self.quantile(0.90),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
            max: self.max,
            mean: if self.count == 0 { 0 } else { (self.sum / u128::from(self.count)) as u64 },
        }
    }
}

/// Percentiles of a [`Histogram`], in its unit (nanoseconds here).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Number of samples.
    pub count: u64,
    /// Smallest sample.
    pub min: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest sample.
    pub max: u64,
    /// Mean (rounded down).
    pub mean: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_narrow() {
        let mut prev_end = 0;
        for i in 0..BUCKETS {
            let (lo, w) = bucket(i);
            assert_eq!(lo, prev_end, "bucket {i}");
            assert_eq!(index(lo), i);
            assert_eq!(index(lo + (w - 1)), i);
            if lo >= 2 * SUB {
                assert!(w * SUB <= lo, "bucket {i} too wide");
            }
            prev_end = lo.wrapping_add(w);
        }
        assert_eq!(prev_end, 0, "the buckets cover the whole u64 range");
        assert_eq!(index(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::new();
        for v in 1..=100 {
            h.record(v);
        }
        let p = h.percentiles();
        assert_eq!((p.count, p.min, p.p50, p.p90, p.p99, p.max), (100, 1, 50, 90, 99, 100));
        assert_eq!(p.mean, 50);
    }

    #[test]
    fn large_values_within_the_bucket_precision() {
        let mut h = Histogram::new();
        for v in 0..10_000u64 {
            h.record(1_000_000 + v * 100);
        }
        let p50 = h.quantile(0.5) as f64;
        let exact = 1_000_000.0 + 4_999.0 * 100.0;
        assert!((p50 - exact).abs() / exact < 1.0 / 64.0, "{p50} vs {exact}");
        assert_eq!(h.max(), 1_000_000 + 9_999 * 100);
        assert_eq!(Histogram::new().percentiles(), Percentiles::default());
    }
}
