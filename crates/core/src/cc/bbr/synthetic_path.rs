//! The harness of BBR's unit tests: each part's tests drive a `Bbr` along this path.

use super::{Bbr, BbrConfig, Mode};
use crate::cc::{CcState, CongestionControl, CongestionEvent, CongestionKind, RateSample};
use crate::time::{SimDuration, SimTime};

pub(super) const RTT: SimDuration = SimDuration::from_millis(40);

/// A synthetic path: ACKs of `acked` segments arrive at `delivery_rate` segments/s, each with
/// a rate sample of `sample_rate` over one RTT and an RTT sample of `rtt`.
pub(super) struct Path {
    pub(super) bbr: Bbr,
    pub(super) st: CcState,
    pub(super) now: SimTime,
    pub(super) delivery_rate: f64,
    pub(super) sample_rate: f64,
    pub(super) rtt: SimDuration,
    pub(super) acked: u64,
    pub(super) losses: u64,
    /// Segments in flight; `None`: the sender fills its window.
    pub(super) in_flight: Option<u64>,
}

impl Path {
    pub(super) fn new(cfg: BbrConfig) -> Path {
        let mut p = Path {
            bbr: Bbr::new(cfg),
            st: CcState::new(10.0, f64::INFINITY, 1460),
            now: SimTime::ZERO,
            delivery_rate: 1000.0,
            sample_rate: 1000.0,
            rtt: RTT,
            acked: 2,
            losses: 0,
            in_flight: None,
        };
        p.bbr.on_sent(&mut p.st, SimTime::ZERO);
        p
    }

    pub(super) fn ack(&mut self) {
        self.now += SimDuration::from_secs_f64(self.acked as f64 / self.delivery_rate);
        let in_flight = self.in_flight.unwrap_or(self.st.cwnd as u64);
        let one_rtt = (self.sample_rate * self.rtt.as_secs_f64()).round() as u64;
        let st = &mut self.st;
        st.delivered += self.acked;
        st.in_flight = in_flight;
        st.srtt = Some(self.rtt);
        st.snd_una += self.acked;
        let rs = RateSample {
            now: self.now,
            delivered_total: st.delivered,
            delivered_time: self.now,
            acked_sacked: self.acked,
            losses: self.losses,
            delivered: one_rtt,
            interval: Some(self.rtt),
            prior_delivered: st.delivered.saturating_sub(one_rtt),
            is_app_limited: false,
            prior_in_flight: in_flight,
            rtt: Some(self.rtt),
        };
        self.bbr.on_rate_sample(st, &rs);
    }

    /// ACKs until `pred` holds (or `limit` passes); returns the time it took.
    pub(super) fn until(&mut self, limit: SimDuration, pred: impl Fn(&Bbr) -> bool) -> SimDuration {
        let start = self.now;
        while !pred(&self.bbr) {
            assert!(
                self.now - start < limit,
                "not reached within {limit}: mode {:?}",
                self.bbr.mode
            );
            self.ack();
        }
        self.now - start
    }

    /// Into PROBE_BW at 1000 segments/s, RTT 40 ms (BDP 40 segments).
    pub(super) fn in_probe_bw() -> Path {
        let mut p = Path::new(BbrConfig::default());
        p.until(SimDuration::from_secs(2), |b| b.mode == Mode::Drain);
        p.in_flight = Some(40);
        p.until(SimDuration::from_secs(1), |b| b.mode == Mode::ProbeBw);
        p.in_flight = Some(100);
        p
    }

    /// In a PROBE_BW phase at gain 1, the transport reports `kind` with `outstanding`
    /// segments unacknowledged. Returns cwnd before the event.
    pub(super) fn congestion_while_cruising(
        &mut self,
        kind: CongestionKind,
        outstanding: u64,
    ) -> f64 {
        self.until(SimDuration::from_secs(1), |b| b.cycle_idx == 3);
        let before = self.st.cwnd;
        self.st.snd_nxt = self.st.snd_una + outstanding;
        let ev = CongestionEvent { now: self.now, kind, flight_size: outstanding };
        self.bbr.on_congestion(&mut self.st, &ev);
        before
    }
}
