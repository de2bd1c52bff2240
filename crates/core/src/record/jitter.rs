//! Interarrival jitter as RTP receivers estimate it (RFC 3550 §6.4.1): a running mean of the
//! absolute difference between consecutive packets' transit times, with gain 1/16. In the
//! simulator the transit time is the exact one-way delay (sender and receiver share one clock),
//! so the estimate needs no timestamp arithmetic.

/// RFC 3550's jitter estimator, over transit times in nanoseconds.
#[derive(Clone, Debug, Default)]
pub struct Jitter {
    last_transit_ns: Option<u64>,
    jitter_ns: f64,
    samples: u64,
}

impl Jitter {
    /// Account for one packet, in arrival order, with its one-way delay.
    pub fn record(&mut self, transit_ns: u64) {
        if let Some(last) = self.last_transit_ns {
            let d = transit_ns.abs_diff(last) as f64;
            // J(i) = J(i-1) + (|D(i-1,i)| - J(i-1)) / 16   (RFC 3550 §6.4.1)
            self.jitter_ns += (d - self.jitter_ns) / 16.0;
            self.samples += 1;
        }
        self.last_transit_ns = Some(transit_ns);
    }

    /// The estimate in nanoseconds after the last packet; `None` before two packets arrived.
    pub fn nanos(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.jitter_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_rfc_3550_recursion_by_hand() {
        let mut j = Jitter::default();
        assert_eq!(j.nanos(), None);
        j.record(1_000);
        assert_eq!(j.nanos(), None);
        j.record(1_160); // |D| = 160 → J = 160/16 = 10
        assert_eq!(j.nanos(), Some(10.0));
        j.record(1_000); // |D| = 160 → J = 10 + 150/16 = 19.375
        assert_eq!(j.nanos(), Some(19.375));
        j.record(1_000); // |D| = 0 → J = 19.375 · 15/16
        assert_eq!(j.nanos(), Some(19.375 * 15.0 / 16.0));
    }

    #[test]
    fn constant_transit_has_no_jitter_and_a_steady_alternation_converges_to_its_step() {
        let mut j = Jitter::default();
        for _ in 0..100 {
            j.record(5_000_000);
        }
        assert_eq!(j.nanos(), Some(0.0));
        let mut alt = Jitter::default();
        for i in 0..2_000u64 {
            alt.record(if i % 2 == 0 { 1_000 } else { 3_000 });
        }
        assert!((alt.nanos().unwrap() - 2_000.0).abs() < 1e-6);
    }
}
