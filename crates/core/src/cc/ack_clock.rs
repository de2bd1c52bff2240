//! Test fixture for congestion-control unit tests: a window-limited sender on a path with a fixed
//! base RTT, an optional bottleneck (one segment per `tx`, unlimited FIFO) and an optional extra
//! delay, driven one ACK at a time. Every ACK acknowledges one segment; the sender refills the
//! window right after it (`on_sent` per segment), so the ACK clock is the one a real bulk sender
//! sees; an algorithm that reads delivery-rate samples gets one per ACK (one segment delivered,
//! no rate). Losses are injected by the test: `loss` runs a SACK-style recovery (cwnd = ssthresh, no
//! growth until everything outstanding at the loss is acknowledged, then `on_recovery_exit`).

use super::{AckSample, CcState, CongestionControl, CongestionEvent, CongestionKind, RateSample};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// An ACK of `n` segments at time zero without an RTT sample (for window-rule unit tests).
pub fn ack(n: u64) -> AckSample {
    AckSample { now: SimTime::ZERO, acked: n, rtt: None }
}

/// A loss detected at time zero (the flight size is left to the algorithm's own state).
pub fn loss() -> CongestionEvent {
    CongestionEvent { now: SimTime::ZERO, kind: CongestionKind::Loss, flight_size: 0 }
}

pub struct AckClock {
    pub st: CcState,
    pub now: SimTime,
    rtt: SimDuration,
    /// Bottleneck serialisation time per segment: ACKs of back-to-back segments return spaced by it.
    tx: SimDuration,
    /// Extra delay for segments sent from now on (a queue building elsewhere).
    pub extra_delay: SimDuration,
    /// Outstanding segments in order: (sent at, acknowledged at).
    out: VecDeque<(SimTime, SimTime)>,
    last_arrival: SimTime,
    /// Recovery lasts until SND.UNA reaches this segment.
    recovery_until: Option<u64>,
}

impl AckClock {
    /// A sender with `cwnd` segments just sent at time zero.
    pub fn new(
        cc: &mut dyn CongestionControl,
        cwnd: f64,
        ssthresh: f64,
        rtt: SimDuration,
        tx: SimDuration,
    ) -> Self {
        let mut c = AckClock {
            st: CcState::new(cwnd, ssthresh, 1460),
            now: SimTime::ZERO,
            rtt,
            tx,
            extra_delay: SimDuration::ZERO,
            out: VecDeque::new(),
            last_arrival: SimTime::ZERO,
            recovery_until: None,
        };
        c.fill(cc);
        c
    }

    /// Sends new segments while the window allows (⌊cwnd⌋, forgiving rounding such as 9.999…96).
    fn fill(&mut self, cc: &mut dyn CongestionControl) {
        while (self.out.len() as f64) < (self.st.cwnd + 1e-9).floor().max(1.0) {
            let ack_at = (self.now + self.rtt + self.extra_delay).max(self.last_arrival + self.tx);
            self.last_arrival = ack_at;
            self.out.push_back((self.now, ack_at));
            self.st.snd_nxt += 1;
            self.st.in_flight = self.out.len() as u64;
            cc.on_sent(&mut self.st, self.now);
        }
    }

    /// When the next ACK arrives.
    pub fn next_ack_at(&self) -> SimTime {
        self.out.front().expect("the window is never empty").1
    }

    /// Delivers the next ACK.
    pub fn step(&mut self, cc: &mut dyn CongestionControl) {
        let (sent, ack_at) = self.out.pop_front().expect("the window is never empty");
        self.now = ack_at;
        let rtt = ack_at - sent;
        let st = &mut self.st;
        st.snd_una += 1;
        st.delivered += 1;
        st.in_flight = self.out.len() as u64;
        st.min_rtt = Some(st.min_rtt.map_or(rtt, |m| m.min(rtt)));
        // RFC 6298 smoothing (alpha = 1/8).
        st.srtt = Some(
            st.srtt
                .map_or(rtt, |s| SimDuration::from_nanos((7 * s.as_nanos() + rtt.as_nanos()) / 8)),
        );
        cc.on_rtt_sample(st, ack_at, rtt);
        if cc.wants_rate_samples() {
            // One segment delivered per ACK; what delivery-rate algorithms read of a sample.
            let rs = RateSample {
                now: ack_at,
                delivered_total: st.delivered,
                acked_sacked: 1,
                ..Default::default()
            };
            cc.on_rate_sample(st, &rs);
        }
        match self.recovery_until {
            Some(end) if st.snd_una >= end => {
                self.recovery_until = None;
                cc.on_recovery_exit(st, ack_at);
            }
            Some(_) => {}
            None => cc.on_ack(st, &AckSample { now: ack_at, acked: 1, rtt: Some(rtt) }),
        }
        self.fill(cc);
    }

    /// Delivers every ACK due by `t` and moves the clock to `t`.
    pub fn run_until(&mut self, cc: &mut dyn CongestionControl, t: SimTime) {
        while self.next_ack_at() <= t {
            self.step(cc);
        }
        self.now = self.now.max(t);
    }

    /// A loss detected now: the algorithm sets ssthresh, cwnd falls to it (SACK recovery), and
    /// the window does not grow until everything now outstanding is acknowledged.
    pub fn loss(&mut self, cc: &mut dyn CongestionControl) {
        let ev = CongestionEvent {
            now: self.now,
            kind: CongestionKind::Loss,
            flight_size: self.out.len() as u64,
        };
        cc.on_congestion(&mut self.st, &ev);
        self.st.cwnd = self.st.ssthresh;
        self.recovery_until = Some(self.st.snd_nxt);
    }

    /// A retransmission timeout now: ssthresh from the algorithm, cwnd = 1, slow start. What was
    /// outstanding is written off (counted as acknowledged) and sending restarts now.
    pub fn timeout(&mut self, cc: &mut dyn CongestionControl) {
        let ev = CongestionEvent {
            now: self.now,
            kind: CongestionKind::Timeout,
            flight_size: self.out.len() as u64,
        };
        cc.on_congestion(&mut self.st, &ev);
        self.st.cwnd = 1.0;
        self.out.clear();
        self.recovery_until = None;
        self.st.snd_una = self.st.snd_nxt;
        self.last_arrival = self.now;
        self.fill(cc);
    }
}
