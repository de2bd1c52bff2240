//! Log-linear histogram of durations (HDR-style): exact below 128 ns, then 128 sub-buckets per
//! power of two, so any recorded value is known to within 1/128 (< 0.8%). Only the buckets from
//! the smallest to the largest value seen are held: a flow whose delays span 20-40 ms holds about 128
//! counters, one spanning 1 ms..10 s about 1,700. Every flow has one, and seed 003's background
//! runs tens of thousands of short flows: counters from zero up to a 30 ms delay (2,400 of them,
//! 19 KiB) made these histograms most of a run's memory. Even spanning 20-60 ms (1.6 KiB), they
//! held 30-40 MB in a seed-003 parking lot of 33,000 sources, and a bucket was a cache miss per
//! packet: background sources keep the moments alone (count, sum, minimum, maximum) unless
//! their scenario asks for their percentiles.

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// The moments, which every record updates, come first (`repr(C)`): within a flow's counters
/// they share one cache line (`record::FlowCounters`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Histogram {
    sum: u128,
    total: u64,
    min: u64,
    max: u64,
    /// Only the moments are kept: no buckets, no quantiles.
    moments_only: bool,
    first: usize,
    /// Counts of buckets `first..first + counts.len()`.
    counts: Vec<u64>,
}

/// Bytes from a histogram's start to the end of its moments (what a delivery updates of
/// `record::FlowCounters`, and its layout test).
pub(super) const MOMENTS_END: usize = std::mem::offset_of!(Histogram, moments_only) + 1;

fn index(v: u64) -> usize {
    if v < SUB {
        v as usize
    } else {
        let e = 63 - v.leading_zeros(); // ≥ SUB_BITS
        let shift = e - SUB_BITS;
        let sub = (v >> shift) - SUB;
        (SUB + (shift as u64) * SUB + sub) as usize
    }
}

/// Midpoint of bucket `i`'s value range.
fn value_of(i: usize) -> f64 {
    let i = i as u64;
    if i < SUB {
        i as f64
    } else {
        let shift = (i - SUB) / SUB;
        let sub = (i - SUB) % SUB;
        let lo = (SUB + sub) << shift;
        let width = 1u64 << shift;
        lo as f64 + (width as f64 - 1.0) / 2.0
    }
}

impl Histogram {
    /// A histogram that keeps the count, sum, minimum and maximum of its values and answers no
    /// quantile.
    pub fn moments_only() -> Self {
        Histogram { moments_only: true, ..Default::default() }
    }

    pub fn record(&mut self, v: u64) {
        if self.total == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.total += 1;
        self.sum += v as u128;
        if !self.moments_only {
            self.count_in_bucket(v);
        }
    }

    fn count_in_bucket(&mut self, v: u64) {
        let i = index(v);
        if self.counts.is_empty() {
            self.first = i;
            self.counts.push(0);
        } else if i < self.first {
            // Rare: only when a new minimum falls in a lower bucket.
            self.counts.splice(0..0, std::iter::repeat_n(0, self.first - i));
            self.first = i;
        } else if i - self.first >= self.counts.len() {
            self.counts.resize(i - self.first + 1, 0);
        }
        self.counts[i - self.first] += 1;
    }
    pub fn count(&self) -> u64 {
        self.total
    }
    /// Exact mean.
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }
    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }
    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }
    /// The q-quantile (0 ≤ q ≤ 1), nearest-rank, to within the bucket resolution; clamped to
    /// the exact min and max. `None` when empty or keeping the moments only.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        self.quantiles(&[q]).map(|v| v[0])
    }

    /// The quantiles `qs` (ascending, each 0 ≤ q ≤ 1), each as [`Histogram::quantile`] gives it,
    /// in one pass over the buckets: a run's `delay_quantiles` table asks for 201 of them per
    /// flow. `None` when empty or keeping the moments only.
    pub fn quantiles(&self, qs: &[f64]) -> Option<Vec<f64>> {
        if self.total == 0 || self.moments_only {
            return None;
        }
        debug_assert!(qs.windows(2).all(|w| w[0] <= w[1]), "quantiles must be asked in order");
        let mut buckets = self.counts.iter().enumerate();
        let (mut seen, mut at) = (0, None);
        let out = qs
            .iter()
            .map(|&q| {
                let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
                // The first bucket whose running count reaches the rank: ranks only grow, so the
                // walk goes on from where the previous quantile stopped.
                while seen < rank {
                    match buckets.next() {
                        Some((i, &c)) => (seen, at) = (seen + c, Some(i)),
                        None => break,
                    }
                }
                match at {
                    Some(i) if seen >= rank => {
                        value_of(self.first + i).clamp(self.min as f64, self.max as f64)
                    }
                    _ => self.max as f64,
                }
            })
            .collect();
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_resolution() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000); // 1 us .. 100 ms
        }
        for (q, exact) in [(0.5, 50_000_000.0), (0.95, 95_000_000.0), (0.99, 99_000_000.0)] {
            let got = h.quantile(q).unwrap();
            assert!((got - exact).abs() / exact < 0.008, "q={q}: {got} vs {exact}");
        }
        assert_eq!(h.min(), Some(1000));
        assert_eq!(h.max(), Some(100_000_000));
        assert!((h.mean().unwrap() - 50_000_500.0).abs() < 1e-6);
    }

    #[test]
    fn bucket_index_is_monotone_and_small_values_exact() {
        let mut last = 0;
        for v in [0u64, 1, 127, 128, 129, 255, 256, 1 << 20, (1 << 20) + 1, u64::MAX] {
            let i = index(v);
            assert!(i >= last);
            last = i;
        }
        assert_eq!(value_of(index(100)), 100.0);
        assert!(h_empty().quantile(0.5).is_none());
    }

    #[test]
    fn holds_only_the_buckets_between_the_extremes_and_answers_as_a_dense_one() {
        // Values arrive out of order, so the window grows at both ends.
        let values = [30_000_000u64, 31_000_000, 20_000_000, 45_000_000, 20_000_001, 5, 33_000_000];
        let mut h = Histogram::default();
        for v in values {
            h.record(v);
        }
        assert_eq!(h.first, index(5));
        assert_eq!(h.counts.len(), index(45_000_000) - index(5) + 1);
        let mut sorted = values;
        sorted.sort();
        for (k, &v) in sorted.iter().enumerate() {
            // The k-th smallest value is the quantile (k+1)/n, up to the bucket's resolution.
            let got = h.quantile((k + 1) as f64 / values.len() as f64).unwrap();
            assert!((got - v as f64).abs() <= v as f64 / 128.0, "rank {k}: {got} vs {v}");
        }
        let mut narrow = Histogram::default();
        for v in 20_000_000..20_100_000u64 {
            narrow.record(v);
        }
        assert!(
            narrow.counts.len() <= 2,
            "a 0.5% spread needs one or two buckets, holds {}",
            narrow.counts.len()
        );
    }

    #[test]
    fn moments_only_keeps_exact_moments_and_no_buckets() {
        let (mut full, mut moments) = (Histogram::default(), Histogram::moments_only());
        for v in [30_000_000u64, 20_000_000, 45_000_000, 5] {
            full.record(v);
            moments.record(v);
        }
        assert_eq!(
            (moments.count(), moments.min(), moments.max(), moments.mean()),
            (full.count(), full.min(), full.max(), full.mean())
        );
        assert_eq!(moments.mean(), Some(95_000_005.0 / 4.0));
        assert!(moments.counts.is_empty() && !full.counts.is_empty());
        assert_eq!(moments.quantile(0.5), None);
        assert!(full.quantile(0.5).is_some());
    }

    /// Nearest rank by a scan of the buckets from the first, one quantile at a time.
    fn scanned(h: &Histogram, q: f64) -> f64 {
        let rank = ((q * h.total as f64).ceil() as u64).clamp(1, h.total);
        let mut seen = 0;
        for (i, &c) in h.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return value_of(h.first + i).clamp(h.min as f64, h.max as f64);
            }
        }
        h.max as f64
    }

    #[test]
    fn quantiles_in_one_pass_equal_a_scan_per_quantile() {
        let mut h = Histogram::default();
        for v in [5u64, 20_000_000, 20_000_001, 30_000_000, 31_000_000, 33_000_000, 45_000_000] {
            h.record(v);
        }
        let qs: Vec<f64> = (0..=200).map(|k| k as f64 / 200.0).collect();
        let all = h.quantiles(&qs).unwrap();
        for (&q, &got) in qs.iter().zip(&all) {
            assert_eq!(got, scanned(&h, q), "q={q}");
            assert_eq!(Some(got), h.quantile(q), "q={q}");
        }
        assert_eq!(all[0], 5.0, "the smallest value is exact (below 128 ns)");
        let top = *all.last().unwrap();
        assert!(top <= 45e6 && 45e6 - top <= 45e6 / 128.0, "q = 1 is the maximum's bucket: {top}");
        assert!(all.windows(2).all(|w| w[0] <= w[1]));
        assert!(h_empty().quantiles(&qs).is_none());
        assert!(Histogram::moments_only().quantiles(&qs).is_none());
    }

    fn h_empty() -> Histogram {
        Histogram::default()
    }
}
