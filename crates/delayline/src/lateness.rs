//! Lateness of released packets: how long after its due time each packet left.

/// Lateness samples of one direction, in nanoseconds.
#[derive(Debug, Default, Clone)]
pub struct Lateness {
    samples_ns: Vec<u64>,
}

/// Mean, 99th percentile and maximum lateness, in seconds, and the number of packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub packets: usize,
    pub mean_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
}

impl Lateness {
    pub fn record(&mut self, ns: u64) {
        self.samples_ns.push(ns);
    }

    /// The summary; an empty record gives zero packets and zero lateness.
    pub fn summary(&self) -> Summary {
        if self.samples_ns.is_empty() {
            return Summary { packets: 0, mean_s: 0.0, p99_s: 0.0, max_s: 0.0 };
        }
        let mut sorted = self.samples_ns.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        let sum: u128 = sorted.iter().map(|&x| x as u128).sum();
        // Nearest-rank percentile: the smallest sample with at least 99% of samples at or below it.
        let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n);
        Summary {
            packets: n,
            mean_s: sum as f64 / n as f64 / 1e9,
            p99_s: sorted[rank - 1] as f64 / 1e9,
            max_s: sorted[n - 1] as f64 / 1e9,
        }
    }
}

impl Summary {
    /// A JSON object (hand-written: six numbers do not need a serializer). `unstamped`: frames
    /// timed by their read because the kernel's stamp was missing or unusable (`arrival.rs`).
    pub fn to_json(&self, socket_drops: u64, unstamped: u64) -> String {
        format!(
            "{{\"packets\": {}, \"lateness_mean_s\": {:e}, \"lateness_p99_s\": {:e}, \"lateness_max_s\": {:e}, \"socket_drops\": {}, \"unstamped\": {}}}",
            self.packets, self.mean_s, self.p99_s, self.max_s, socket_drops, unstamped
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_record_is_zero() {
        let s = Lateness::default().summary();
        assert_eq!(s.packets, 0);
        assert_eq!(s.max_s, 0.0);
    }

    #[test]
    fn p99_is_nearest_rank_and_max_is_largest() {
        let mut l = Lateness::default();
        // 1..=200 µs: the 99th percentile by nearest rank is the 198th sample.
        for us in (1..=200u64).rev() {
            l.record(us * 1000);
        }
        let s = l.summary();
        assert_eq!(s.packets, 200);
        assert!((s.p99_s - 198e-6).abs() < 1e-12, "{}", s.p99_s);
        assert!((s.max_s - 200e-6).abs() < 1e-12);
        assert!((s.mean_s - 100.5e-6).abs() < 1e-12);
    }

    #[test]
    fn json_is_parseable_numbers() {
        let mut l = Lateness::default();
        l.record(1500);
        let j = l.summary().to_json(3, 2);
        assert!(j.contains("\"packets\": 1"));
        assert!(j.contains("\"lateness_max_s\": 1.5e-6"));
        assert!(j.contains("\"socket_drops\": 3"));
        assert!(j.contains("\"unstamped\": 2"));
    }
}
