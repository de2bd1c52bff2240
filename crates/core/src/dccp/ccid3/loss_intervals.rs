//! The loss-interval history of a TFRC receiver and the loss event rate it gives
//! (RFC 5348 §5.3–5.4; RFC 4342 §10.2 for where a loss event starts).
//!
//! ```text
//! loss interval  = packets from the first lost packet of one loss event to the first lost
//!                  packet of the next                                          (§5.3)
//! I_0            = open interval: first lost packet of the latest event … newest packet
//! I_1 … I_n      = closed intervals, newest first; n = 8
//! w_i            = 1 for i < n/2, else 1 − (i − (n/2 − 1)) / (n/2 + 1)
//!                  (n = 8: 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2)                      (§5.4)
//! I_tot0 = Σ_{i=0}^{k−1} I_i·w_i    I_tot1 = Σ_{i=1}^{k} I_i·w_{i−1}    W_tot = Σ_{i=0}^{k−1} w_i
//! I_mean = max(I_tot0, I_tot1) / W_tot          k = closed intervals held (≤ n)
//! p      = 1 / I_mean
//! ```
//!
//! Taking the larger of the two sums is the "I_0 rule": the open interval counts only when it
//! makes the mean longer (p smaller), so a long loss-free stretch raises the rate while a fresh
//! loss event cannot lower it before it closes. With fewer than n closed intervals the sums run
//! over the k available (as the Linux implementation does; RFC 5348 §5.4 leaves this open).
//!
//! A lost packet begins a new loss event if the window counter (CCVal) of the packet received
//! just before it is more than 4 quarter-RTTs (one RTT) after the CCVal of the packet before the
//! first loss of the current event (RFC 4342 §10.2; Linux `tfrc_lh_is_new_loss`). Counters are
//! unwrapped by the caller, so the comparison needs no modulo.
//!
//! Not implemented: history discounting (RFC 5348 §5.5, optional).

use std::collections::VecDeque;

/// One RTT in window-counter units: the counter advances every quarter RTT (RFC 4342 §8.1).
pub const QUARTERS_PER_RTT: i64 = 4;

/// The RFC 5348 §5.4 weights for a history of `n` intervals.
pub fn weights(n: usize) -> Vec<f64> {
    let half = n as f64 / 2.0;
    (0..n)
        .map(
            |i| {
                if (i as f64) < half {
                    1.0
                } else {
                    1.0 - (i as f64 - (half - 1.0)) / (half + 1.0)
                }
            },
        )
        .collect()
}

/// The current loss event: where it started and the CCVal of the packet before its first loss.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LossEvent {
    /// Sequence number of its first lost packet.
    start: u64,
    /// Unwrapped CCVal of the last packet received before that loss.
    ccval: i64,
}

#[derive(Clone, Debug)]
pub struct LossIntervals {
    weights: Vec<f64>,
    /// Closed intervals, newest first, at most `weights.len()`; packets (the first one
    /// synthesised from the receive rate, so fractional).
    closed: VecDeque<f64>,
    current: Option<LossEvent>,
    /// Loss events so far.
    events: u64,
}

impl LossIntervals {
    pub fn new(n: usize) -> Self {
        LossIntervals {
            weights: weights(n.max(1)),
            closed: VecDeque::with_capacity(n + 1),
            current: None,
            events: 0,
        }
    }

    /// Packet `seq` was lost; `ccval_before` is the unwrapped CCVal of the packet received just
    /// before it. `first_interval` gives the synthetic interval before the first loss event
    /// (RFC 5348 §6.3.1). Returns true if this loss starts a new loss event.
    pub fn on_loss(
        &mut self,
        seq: u64,
        ccval_before: i64,
        first_interval: impl FnOnce() -> f64,
    ) -> bool {
        match self.current {
            None => {
                self.closed.push_front(first_interval().max(1.0));
            }
            Some(ev) => {
                if seq <= ev.start || ccval_before - ev.ccval <= QUARTERS_PER_RTT {
                    return false; // within one RTT of the event's first loss: same event
                }
                self.closed.push_front((seq - ev.start) as f64);
                self.closed.truncate(self.weights.len());
            }
        }
        self.current = Some(LossEvent { start: seq, ccval: ccval_before });
        self.events += 1;
        true
    }

    /// I_mean given the newest packet received (`high`), or `None` before the first loss.
    pub fn mean_interval(&self, high: u64) -> Option<f64> {
        let ev = self.current?;
        let open = (high.saturating_sub(ev.start) + 1) as f64;
        let k = self.closed.len();
        let interval = |i: usize| if i == 0 { open } else { self.closed[i - 1] };
        let (mut tot0, mut tot1, mut wtot) = (0.0, 0.0, 0.0);
        for i in 0..k {
            tot0 += interval(i) * self.weights[i];
            wtot += self.weights[i];
        }
        for i in 1..=k {
            tot1 += interval(i) * self.weights[i - 1];
        }
        Some(tot0.max(tot1) / wtot)
    }

    /// The loss event rate p = 1 / I_mean (0 before the first loss).
    pub fn loss_event_rate(&self, high: u64) -> f64 {
        self.mean_interval(high).map_or(0.0, |m| 1.0 / m)
    }

    /// Loss events detected so far.
    pub fn events(&self) -> u64 {
        self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_of_eight_follow_rfc_5348() {
        let w = weights(8);
        let want = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];
        for (a, b) in w.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{w:?}");
        }
    }

    /// A history with closed intervals `closed` (newest first) and the current event at `start`.
    fn history(closed: &[f64], start: u64) -> LossIntervals {
        let mut h = LossIntervals::new(8);
        h.closed = closed.iter().copied().collect();
        h.current = Some(LossEvent { start, ccval: 0 });
        h
    }

    #[test]
    fn mean_weighs_the_eight_newest_closed_intervals() {
        // Closed 100, 200, …, 800; open interval of 1 packet (ignored by the I_0 rule).
        let h = history(&[100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0], 1000);
        // I_tot1 = 100+200+300+400 + 0.8·500 + 0.6·600 + 0.4·700 + 0.2·800 = 2200; W_tot = 6.
        let m = h.mean_interval(1000).unwrap();
        assert!((m - 2200.0 / 6.0).abs() < 1e-9, "{m}");
        assert!((h.loss_event_rate(1000) - 6.0 / 2200.0).abs() < 1e-12);
    }

    #[test]
    fn open_interval_counts_only_when_it_lengthens_the_mean() {
        let h = history(&[100.0; 8], 5000);
        // Short open interval: mean = 100 (all closed intervals equal).
        assert!((h.mean_interval(5009).unwrap() - 100.0).abs() < 1e-9);
        // Open interval of 1000 packets: I_tot0 = 1000 + 3·100 + 0.8·100 + … = 1000 + 500 = 1500.
        let m = h.mean_interval(5999).unwrap();
        assert!((m - 1500.0 / 6.0).abs() < 1e-9, "{m}");
    }

    #[test]
    fn fewer_intervals_use_what_exists() {
        // One closed interval of 50, open of 10: max(10, 50) / 1.
        let h = history(&[50.0], 100);
        assert!((h.mean_interval(109).unwrap() - 50.0).abs() < 1e-12);
        // Two closed (50, 30), open 200: I_tot0 = 200 + 50, I_tot1 = 50 + 30, W_tot = 2.
        let h = history(&[50.0, 30.0], 100);
        assert!((h.mean_interval(299).unwrap() - 125.0).abs() < 1e-12);
    }

    #[test]
    fn losses_within_one_rtt_form_one_event() {
        let mut h = LossIntervals::new(8);
        assert!(h.on_loss(100, 10, || 1000.0));
        assert_eq!(h.mean_interval(100), Some(1000.0));
        // 4 quarter-RTTs later: still the same event.
        assert!(!h.on_loss(105, 14, || unreachable!()));
        // More than one RTT after the event began: a new event, interval 150 − 100.
        assert!(h.on_loss(150, 15, || unreachable!()));
        assert_eq!(h.events(), 2);
        assert_eq!(h.closed.iter().copied().collect::<Vec<_>>(), vec![50.0, 1000.0]);
    }

    #[test]
    fn history_keeps_n_intervals() {
        let mut h = LossIntervals::new(8);
        for k in 0..20u64 {
            h.on_loss(100 * (k + 1), 10 * k as i64, || 7.0);
        }
        assert_eq!(h.closed.len(), 8);
        assert!(h.closed.iter().all(|&i| i == 100.0));
    }
}
