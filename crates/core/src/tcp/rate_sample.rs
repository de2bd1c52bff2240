//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02, Linux
//! `net/ipv4/tcp_rate.c`): on every ACK, how many segments were delivered over what interval,
//! for model-based congestion control (BBR).
//!
//! ```text
//! connection:  C.delivered, C.delivered_time, C.first_sent_time, C.app_limited (0: not limited)
//! send P:      if nothing is outstanding:  C.first_sent_time = C.delivered_time = now
//!              P.delivered = C.delivered,  P.delivered_time = C.delivered_time,
//!              P.first_sent_time = C.first_sent_time,  P.is_app_limited = (C.app_limited ≠ 0),
//!              P.sent_time = now                        (again for each retransmission)
//! ACK:         every newly delivered P (cumulative or SACK, once each): C.delivered += 1
//!              the most recently sent of them (later P.sent_time, then higher sequence) is
//!              sampled: rs.prior_delivered = P.delivered, rs.is_app_limited = P.is_app_limited,
//!              C.first_sent_time = P.sent_time
//!              C.delivered_time = now if anything was delivered
//!              C.app_limited = 0 once C.delivered > C.app_limited
//!              rs.delivered = C.delivered − P.delivered
//!              rs.interval  = max(P.sent_time − P.first_sent_time,  now − P.delivered_time)
//!              valid only if rs.interval ≥ min_rtt (shorter means ACK compression: Linux)
//! app-limited: a send opportunity finds the window open, nothing to retransmit and no new data:
//!              C.app_limited = max(C.delivered + pipe, 1)
//! ```
//!
//! The send-elapsed term keeps ACK compression from inflating the rate; the ACK-elapsed term
//! keeps a burst sent faster than the bottleneck from doing so.
//!
//! Deviations: `losses` counts retransmissions since the previous ACK (a segment is deemed lost
//! when the transport resends it), where Linux counts segments marked lost while processing the
//! ACK (`tp->lost`); the two agree over a round trip. SACK blocks are read only when the
//! transport uses SACK recovery, as its scoreboard does.

use super::ranges::SeqRanges;
use crate::cc::RateSample;
use crate::time::{SimDuration, SimTime};
use crate::wire::tcp::SackBlock;
use std::collections::VecDeque;

/// What the connection knew when a segment (its latest copy) was sent.
#[derive(Clone, Copy, Debug)]
struct TxRecord {
    /// P.sent_time.
    sent_at: SimTime,
    /// P.first_sent_time: the send time of the segment last sampled before this one left.
    first_sent_at: SimTime,
    /// P.delivered.
    delivered: u64,
    /// P.delivered_time.
    delivered_at: SimTime,
    /// P.is_app_limited.
    app_limited: bool,
    /// Already counted as delivered (SACKed before the cumulative ACK covered it).
    counted: bool,
}

/// The per-connection estimator: one record per outstanding segment, SND.UNA..SND.MAX.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// SND.UNA as last acknowledged: `segs[0]` describes this segment.
    una: u64,
    segs: VecDeque<TxRecord>,
    /// SACKed ranges at or above `una`, so repeated blocks are not visited again.
    sacked: SeqRanges,
    /// C.delivered.
    delivered: u64,
    /// C.delivered_time.
    delivered_at: SimTime,
    /// C.first_sent_time.
    first_sent_at: SimTime,
    /// C.app_limited: sending is application-limited until C.delivered exceeds it; 0 if not.
    app_limited_until: u64,
    /// Retransmissions since the last ACK.
    retransmitted: u64,
}

impl RateSampler {
    pub fn new() -> Self {
        RateSampler::default()
    }

    /// Frees the per-segment storage of past windows (see `tcp::release_spare`).
    pub fn release_spare(&mut self) {
        super::release_spare(&mut self.segs);
    }
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.segs.capacity()
    }

    /// Segment `seq` leaves: the next new one (SND.MAX), or a retransmission of an outstanding one.
    pub fn on_sent(&mut self, seq: u64, now: SimTime, retransmit: bool) {
        if self.segs.is_empty() {
            self.first_sent_at = now;
            self.delivered_at = now;
        }
        let rec = TxRecord {
            sent_at: now,
            first_sent_at: self.first_sent_at,
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            app_limited: self.app_limited_until != 0,
            counted: false,
        };
        if retransmit {
            self.segs[(seq - self.una) as usize] = rec;
            self.retransmitted += 1;
        } else {
            debug_assert_eq!(
                seq,
                self.una + self.segs.len() as u64,
                "new segments are sent in order"
            );
            self.segs.push_back(rec);
        }
    }

    /// A send opportunity found nothing to send with `pipe` segments in flight and the window open.
    pub fn on_app_limited(&mut self, pipe: u64) {
        self.app_limited_until = (self.delivered + pipe).max(1);
    }

    /// Takes an ACK of everything below `una` and the SACK `blocks`; `min_rtt` bounds the interval.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        una: u64,
        blocks: &[SackBlock],
        min_rtt: Option<SimDuration>,
    ) -> RateSample {
        let mut newest: Option<(SimTime, u64, TxRecord)> = None;
        let mut newly = 0;
        let mut take = |seq: u64, rec: &mut TxRecord| {
            if !std::mem::replace(&mut rec.counted, true) {
                newly += 1;
                if newest.is_none_or(|(t, s, _)| (rec.sent_at, seq) > (t, s)) {
                    newest = Some((rec.sent_at, seq, *rec));
                }
            }
        };
        while self.una < una {
            let mut rec = self.segs.pop_front().expect("ACK within the sent window");
            take(self.una, &mut rec);
            self.una += 1;
        }
        self.sacked.remove_below(self.una);
        let high = self.una + self.segs.len() as u64;
        for b in blocks {
            let (start, end) = (b.start.max(self.una), b.end.min(high));
            if start < end {
                let (segs, base) = (&mut self.segs, self.una);
                self.sacked.insert(start, end, 0, |a, z| {
                    (a..z).for_each(|seq| take(seq, &mut segs[(seq - base) as usize]))
                });
            }
        }
        self.delivered += newly;
        if newly > 0 {
            self.delivered_at = now;
        }
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let mut rs = RateSample {
            now,
            delivered_total: self.delivered,
            delivered_time: self.delivered_at,
            acked_sacked: newly,
            losses: std::mem::take(&mut self.retransmitted),
            ..RateSample::default()
        };
        if let Some((_, _, p)) = newest {
            self.first_sent_at = p.sent_at;
            rs.prior_delivered = p.delivered;
            rs.is_app_limited = p.app_limited;
            rs.delivered = self.delivered - p.delivered;
            let interval = (p.sent_at - p.first_sent_at).max(now - p.delivered_at);
            rs.interval = min_rtt
                .filter(|&m| interval >= m && interval > SimDuration::ZERO)
                .map(|_| interval);
        }
        rs
    }
}

/// The estimator of a connection whose algorithm reads rate samples (`wants_rate_samples`),
/// nothing for the others. Boxed: only algorithms that want rate samples (BBR) have one, and it
/// is 144 bytes.
#[derive(Clone, Debug, Default)]
pub(super) struct RateSampling(Option<Box<RateSampler>>);

impl RateSampling {
    pub(super) fn new(wanted: bool) -> Self {
        RateSampling(wanted.then(|| Box::new(RateSampler::new())))
    }
    #[cfg(test)]
    pub(super) fn sampler(&self) -> Option<&RateSampler> {
        self.0.as_deref()
    }

    /// See [`RateSampler::on_sent`].
    #[inline]
    pub(super) fn on_sent(&mut self, seq: u64, now: SimTime, retransmit: bool) {
        if let Some(rate) = &mut self.0 {
            rate.on_sent(seq, now, retransmit);
        }
    }
    /// See [`RateSampler::on_app_limited`].
    pub(super) fn on_app_limited(&mut self, pipe: u64) {
        if let Some(rate) = &mut self.0 {
            rate.on_app_limited(pipe);
        }
    }
    /// See [`RateSampler::release_spare`].
    pub(super) fn release_spare(&mut self) {
        if let Some(rate) = &mut self.0 {
            rate.release_spare();
        }
    }
    /// The sample of an ACK (see [`RateSampler::on_ack`]), if rates are estimated.
    #[inline]
    pub(super) fn on_ack(
        &mut self,
        now: SimTime,
        una: u64,
        blocks: &[SackBlock],
        min_rtt: Option<SimDuration>,
    ) -> Option<RateSample> {
        self.0.as_mut().map(|rate| rate.on_ack(now, una, blocks, min_rtt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime::from_nanos(n * 1_000_000)
    }
    const RTT: Option<SimDuration> = Some(SimDuration::from_millis(10));

    /// Sends segments `range` one per `gap_ms` from `t0_ms`.
    fn send(r: &mut RateSampler, range: std::ops::Range<u64>, t0_ms: u64, gap_ms: u64) {
        for (i, seq) in range.enumerate() {
            r.on_sent(seq, ms(t0_ms + gap_ms * i as u64), false);
        }
    }

    #[test]
    fn a_paced_flight_is_measured_at_its_sending_rate() {
        // Ten segments 1 ms apart, each acknowledged 10 ms after it left: 1000 segments/s.
        let mut r = RateSampler::new();
        send(&mut r, 0..10, 0, 1);
        let mut last = RateSample::default();
        for k in 1..=10 {
            last = r.on_ack(ms(10 + k - 1), k, &[], RTT);
            assert_eq!(last.acked_sacked, 1);
        }
        // The last ACK samples segment 9: sent at 9 ms with P.delivered = 0 and
        // P.delivered_time = 0 (nothing was delivered yet), acknowledged at 19 ms.
        assert_eq!((last.delivered, last.prior_delivered, last.delivered_total), (10, 0, 10));
        assert_eq!(last.interval, Some(SimDuration::from_millis(19)));
        // Segments sent after the first ACK are measured over one RTT-long interval.
        send(&mut r, 10..20, 19, 1);
        for k in 11..=20 {
            last = r.on_ack(ms(29 + k - 11), k, &[], RTT);
        }
        // Segment 19 left at 28 ms; its flight began (C.first_sent_time) at 19 ms, when the
        // last ten-segment delivery was also noted: max(9, 38 − 19) = 19 ms for 10 segments.
        assert_eq!((last.delivered, last.prior_delivered), (10, 10));
        assert_eq!(last.interval, Some(SimDuration::from_millis(19)));
        assert!((last.rate_segments_per_s().unwrap() - 10.0 / 0.019).abs() < 1e-6);
    }

    #[test]
    fn ack_compression_cannot_raise_the_rate_above_the_sending_rate() {
        // Segment 0 is acknowledged at 10 ms while 1 is in flight, so the flight continues:
        // segments 2..=20 leave 1 ms apart from 10 ms, and one compressed ACK covers all at 30 ms.
        let mut r = RateSampler::new();
        r.on_sent(0, ms(0), false);
        r.on_sent(1, ms(5), false);
        assert_eq!(r.on_ack(ms(10), 1, &[], RTT).interval, Some(SimDuration::from_millis(10)));
        send(&mut r, 2..21, 10, 1);
        let rs = r.on_ack(ms(30), 21, &[], RTT);
        // Segment 20 (sent at 28 ms) is sampled: the ACK phase is 30 − 10 = 20 ms, but the send
        // phase began with segment 0 at 0 ms, so 20 segments took 28 ms, not 20.
        assert_eq!((rs.delivered, rs.acked_sacked, rs.prior_delivered), (20, 20, 1));
        assert_eq!(rs.interval, Some(SimDuration::from_millis(28)));
    }

    #[test]
    fn an_interval_shorter_than_min_rtt_is_no_sample() {
        let mut r = RateSampler::new();
        send(&mut r, 0..2, 0, 0);
        let rs = r.on_ack(ms(5), 2, &[], RTT);
        assert_eq!((rs.delivered, rs.interval), (2, None));
        // Without any RTT sample yet, Linux's min RTT is "infinite": no sample either.
        let mut r = RateSampler::new();
        send(&mut r, 0..2, 0, 0);
        assert_eq!(r.on_ack(ms(50), 2, &[], None).interval, None);
    }

    #[test]
    fn sacked_segments_count_once_and_the_latest_sent_is_sampled() {
        let mut r = RateSampler::new();
        send(&mut r, 0..6, 0, 1);
        // Segment 0 lost; 1..4 SACKed over two ACKs that repeat the block.
        let a = r.on_ack(ms(20), 0, &[SackBlock { start: 1, end: 3 }], RTT);
        assert_eq!((a.acked_sacked, a.delivered_total), (2, 2));
        let b = r.on_ack(ms(21), 0, &[SackBlock { start: 1, end: 4 }], RTT);
        assert_eq!((b.acked_sacked, b.delivered_total), (1, 3));
        // Segment 0 is resent at 22 ms, after segment 5: it is now the latest sent.
        r.on_sent(0, ms(22), true);
        let c = r.on_ack(ms(32), 4, &[SackBlock { start: 5, end: 6 }], RTT);
        // Newly delivered: 0 (retransmitted) and 5; 1..3 were counted already.
        assert_eq!((c.acked_sacked, c.delivered_total, c.losses), (2, 5, 1));
        // Sampled: segment 0's retransmission, sent when 3 segments had been delivered (at 21 ms).
        assert_eq!((c.prior_delivered, c.delivered), (3, 2));
        // Send phase: from segment 3's send (3 ms, the last sample's) to 22 ms; ACK phase 11 ms.
        assert_eq!(c.interval, Some(SimDuration::from_millis(19)));
        assert_eq!(r.on_ack(ms(33), 6, &[], RTT).acked_sacked, 1);
    }

    #[test]
    fn segments_sent_while_app_limited_are_marked_until_that_data_is_delivered() {
        let mut r = RateSampler::new();
        send(&mut r, 0..2, 0, 1);
        r.on_app_limited(2);
        send(&mut r, 2..3, 2, 1);
        let rs = r.on_ack(ms(20), 2, &[], RTT);
        assert!(!rs.is_app_limited, "sent before the application ran dry");
        // C.app_limited = 0 + 2: cleared once more than 2 segments are delivered.
        let rs = r.on_ack(ms(22), 3, &[], RTT);
        assert!(rs.is_app_limited);
        send(&mut r, 3..4, 23, 1);
        assert!(!r.on_ack(ms(33), 4, &[], RTT).is_app_limited);
    }

    /// Records what the transport hands the congestion controller, growing like Reno.
    struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<(RateSample, u64)>>>);
    impl crate::cc::CongestionControl for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn on_ack(&mut self, st: &mut crate::cc::CcState, ack: &crate::cc::AckSample) {
            st.cwnd += ack.acked as f64 / st.cwnd;
        }
        fn on_congestion(&mut self, st: &mut crate::cc::CcState, _ev: &crate::cc::CongestionEvent) {
            st.ssthresh = st.cwnd / 2.0;
        }
        fn on_rate_sample(&mut self, st: &mut crate::cc::CcState, rs: &RateSample) {
            self.0.lock().unwrap().push((*rs, st.delivered));
        }
        fn wants_rate_samples(&self) -> bool {
            true
        }
    }

    #[test]
    fn through_the_sender_samples_measure_the_bottleneck_rate() {
        use crate::app::AppSource;
        use crate::tcp::testutil::Pair;
        use crate::tcp::TcpConfig;
        // 12 Mbit/s: one 1500-byte segment per millisecond; RTT 20 ms plus queueing.
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut p = Pair::new(
            TcpConfig::default(),
            AppSource::Bulk { mss: 1460 },
            SimDuration::from_millis(10),
        )
        .with_bottleneck(crate::time::Rate::mbps(12));
        p.sender.replace_cc(crate::cc::AnyCc::Custom(Box::new(Recorder(log.clone()))));
        p.run_until(ms(2_000));
        let log = log.lock().unwrap();
        assert!(log.len() > 1000);
        for (rs, delivered) in log.iter() {
            // The estimator and the scoreboard count deliveries alike.
            assert_eq!(rs.delivered_total, *delivered);
            // No sample exceeds the bottleneck rate (send and ACK phases both bound it).
            if let Some(rate) = rs.rate_segments_per_s() {
                assert!(rate <= 1000.0 + 1e-9, "{rate} segments/s at {}", rs.now);
            }
        }
        let late: Vec<f64> = log
            .iter()
            .filter(|(rs, _)| rs.now > ms(1_000))
            .filter_map(|(rs, _)| rs.rate_segments_per_s())
            .collect();
        assert!(
            late.len() > 500 && late.iter().all(|&r| r > 990.0),
            "{:?}",
            &late[..5.min(late.len())]
        );
    }
}
