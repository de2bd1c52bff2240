//! Log-linear histogram of durations (HDR-style): exact below 128 ns, then 128 sub-buckets per
//! power of two, so any recorded value is known to within 1/128 (< 0.8%). Buckets are grown on
//! demand, so a flow whose delays span 1 ms..10 s holds about 2 000 counters.

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    min: u64,
    max: u64,
}

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
    pub fn record(&mut self, v: u64) {
        let i = index(v);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        if self.total == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.total += 1;
        self.sum += v as u128;
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
    /// the exact min and max.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(value_of(i).clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
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

    fn h_empty() -> Histogram {
        Histogram::default()
    }
}
