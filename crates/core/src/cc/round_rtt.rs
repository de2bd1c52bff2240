//! Per-round-trip RTT bookkeeping shared by the delay-based algorithms (Vegas, Compound, FAST),
//! after Linux `tcp_vegas.c` (`tcp_vegas_pkts_acked`, the `beg_snd_nxt` test of
//! `tcp_vegas_cong_avoid`):
//!
//! ```text
//! baseRTT   = min over every RTT sample                      (propagation-delay estimate)
//! minRTT    = min over the samples of the current round       (propagation + queueing, with
//!                                                              delayed-ACK noise filtered out)
//! a round   starts with SND.NXT = N noted and ends on the first ACK with SND.UNA > N,
//!           i.e. when the first segment sent in the round is acknowledged (Linux
//!           `after(ack, beg_snd_nxt)`); the next round starts there.
//! ```

use super::CcState;
use crate::time::SimDuration;

/// What one finished round measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Round {
    /// Smallest RTT sample of the round (Linux `minRTT`); `None` if the round had no sample.
    pub min_rtt: Option<SimDuration>,
    /// RTT samples taken during the round (Linux `cntRTT`).
    pub samples: u32,
}

/// Round-trip boundaries and RTT minima.
#[derive(Clone, Debug, Default)]
pub struct RoundRtt {
    /// Smallest RTT ever sampled (Vegas' BaseRTT); never reset, as in Linux.
    base: Option<SimDuration>,
    /// Smallest RTT sampled in the current round.
    round_min: Option<SimDuration>,
    /// Samples in the current round.
    samples: u32,
    /// The current round ends when SND.UNA exceeds this segment number.
    round_end: u64,
}

impl RoundRtt {
    /// Records one RTT sample. A zero sample is raised to 1 ns so no ratio divides by zero (Linux
    /// adds 1 µs for the same reason).
    pub fn on_sample(&mut self, rtt: SimDuration) {
        let rtt = rtt.max(SimDuration::from_nanos(1));
        self.base = Some(self.base.map_or(rtt, |b| b.min(rtt)));
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
    }

    /// Smallest RTT seen so far.
    pub fn base(&self) -> Option<SimDuration> {
        self.base
    }

    /// Starts a new round now, forgetting the current round's samples (Linux `vegas_enable`,
    /// called when the connection returns to the Open state).
    pub fn restart(&mut self, st: &CcState) {
        self.round_min = None;
        self.samples = 0;
        self.round_end = st.snd_nxt;
    }

    /// If the acknowledgement that set `st.snd_una` ended the round: what the round measured,
    /// and the next round begins at the current SND.NXT.
    pub fn end_of_round(&mut self, st: &CcState) -> Option<Round> {
        if st.snd_una <= self.round_end {
            return None;
        }
        let round = Round { min_rtt: self.round_min, samples: self.samples };
        self.restart(st);
        Some(round)
    }
}

/// Drives an algorithm with synthetic per-segment ACKs for unit tests: every ACK covers one
/// segment and carries one RTT sample; after each ACK is processed the sender refills the window
/// (SND.NXT = SND.UNA + ⌊cwnd⌋), as the transport does.
#[cfg(test)]
pub(crate) mod testing {
    use crate::cc::{AckSample, CcState, CongestionControl};
    use crate::time::{SimDuration, SimTime};

    pub fn ms(v: f64) -> SimDuration {
        SimDuration::from_secs_f64(v / 1000.0)
    }

    pub struct Driver {
        pub st: CcState,
        pub now: SimTime,
        /// SND.NXT when the current round began (before that ACK's refill): the round ends on
        /// the first ACK with SND.UNA beyond it.
        round_mark: u64,
    }

    impl Driver {
        /// A sender whose initial window `cwnd` is outstanding.
        pub fn new(cwnd: f64, ssthresh: f64) -> Driver {
            let mut st = CcState::new(cwnd, ssthresh, 1460);
            st.snd_nxt = cwnd.floor() as u64;
            st.in_flight = st.snd_nxt;
            Driver { st, now: SimTime::ZERO, round_mark: 0 }
        }

        /// One ACK of one segment with RTT sample `rtt`; returns SND.NXT before the refill.
        pub fn ack(&mut self, cc: &mut dyn CongestionControl, rtt: SimDuration) -> u64 {
            self.now += SimDuration::from_micros(100);
            let st = &mut self.st;
            st.snd_una += 1;
            cc.on_rtt_sample(st, self.now, rtt);
            cc.on_ack(st, &AckSample { now: self.now, acked: 1, rtt: Some(rtt) });
            let before = st.snd_nxt;
            st.snd_nxt = st.snd_nxt.max(st.snd_una + st.cwnd.floor() as u64);
            st.in_flight = st.snd_nxt - st.snd_una;
            before
        }

        /// ACKs segments, every sample `rtt`, until the current round ends. Returns the ACKs.
        pub fn round(&mut self, cc: &mut dyn CongestionControl, rtt: SimDuration) -> u64 {
            let end = self.round_mark;
            let mut n = 0;
            loop {
                let before = self.ack(cc, rtt);
                n += 1;
                if self.st.snd_una > end {
                    self.round_mark = before;
                    return n;
                }
            }
        }

        /// The SND.NXT that ends the current round once SND.UNA passes it.
        pub fn round_end(&self) -> u64 {
            self.round_mark
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_ends_when_the_first_segment_sent_in_it_is_acknowledged() {
        let mut st = CcState::new(10.0, f64::INFINITY, 1460);
        st.snd_nxt = 10;
        let mut r = RoundRtt::default();
        r.restart(&st);
        r.on_sample(SimDuration::from_millis(120));
        r.on_sample(SimDuration::from_millis(110));
        st.snd_una = 10; // segments 0..9 acknowledged: segment 10 (sent in this round) is not
        assert_eq!(r.end_of_round(&st), None);
        st.snd_nxt = 20;
        st.snd_una = 11;
        let round = r.end_of_round(&st).unwrap();
        assert_eq!(round, Round { min_rtt: Some(SimDuration::from_millis(110)), samples: 2 });
        // The next round starts empty at SND.NXT = 20; the base survives.
        r.on_sample(SimDuration::from_millis(130));
        st.snd_una = 21;
        assert_eq!(
            r.end_of_round(&st),
            Some(Round { min_rtt: Some(SimDuration::from_millis(130)), samples: 1 })
        );
        assert_eq!(r.base(), Some(SimDuration::from_millis(110)));
    }
}
