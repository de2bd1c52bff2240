//! CCID 2, TCP-like congestion control (RFC 4341): a window of packets driven by Ack Vectors.
//!
//! ```text
//! may send       while pipe < ⌊cwnd⌋                  pipe = data packets neither acked nor lost
//! initial cwnd   min(4, max(2, ⌊4380 / s⌋)) packets    (RFC 4341 §5 via RFC 3390)
//! acked packet   slow start: cwnd += 1; else cwnd += 1/cwnd      (Reno helpers, crate::cc)
//! lost packet    not acked while NUMDUPACK = 3 packets sent after it are     (RFC 4341 §5)
//! congestion     ssthresh = max(cwnd · β, 2), cwnd = ssthresh, β = 1/2; at most once per window
//!                of data: losses of packets sent before the last reduction are ignored
//! RTO            RFC 6298 estimator; on expiry ssthresh = max(cwnd · β, 2), cwnd = 1, every
//!                outstanding packet counts as lost (pipe = 0); nothing is retransmitted
//! Ack Ratio R    receiver acks every R data packets (RFC 4340 §11.3, R = 2 at start);
//!                R ≤ ⌈cwnd/2⌉; lost acks double R (at most once per window); after
//!                cwnd/(R² − R) windows without lost acks R decreases by 1  (RFC 4341 §6.1.2)
//! idle restart   RFC 2861 via Linux ccid2_cwnd_restart: after an idle period longer than RTO,
//!                ssthresh = max(ssthresh, ¾ cwnd), cwnd halves per RTO idle, not below the
//!                initial window
//! ```
//!
//! The window rule is [`crate::cc::reno::Reno`] behind the [`CongestionControl`] trait, with the
//! Reno-family helpers (`slow_start`, `cong_avoid_ai`) that TCP uses: CCID 2 is the transport
//! mechanics (Ack Vectors, loss detection, pipe, timers) around TCP's window logic. As in the
//! TCP sender, the window grows only while it limits the sender (Linux `tcp_is_cwnd_limited`),
//! and not for packets acknowledged from a window that was already reduced (the analogue of
//! TCP's recovery; Linux CCID 2 grows regardless).
//!
//! The receiver ([`Ccid2Rx`], `receiver.rs`) keeps an [`AckVectorRecord`] and acknowledges every R data
//! packets, or `max_ack_delay` after the first unacknowledged one (Linux's delayed-ACK timer,
//! ATO 40 ms). When the sender acknowledges one of its Acks (a DataAck carrying its sequence
//! number), it forgets the state that Ack reported (RFC 4340 §11.4.2).
//!
//! Not implemented / deviates: RFC 2861's application-limited decay (only the idle restart);
//! ECN; the sender's acknowledgements of acknowledgements ride on DataAcks only (an idle sender
//! sends no pure Acks); RFC 4341 §6.2's Ack congestion control on the *receiver* side beyond
//! following the sender's R.

mod receiver;

pub use receiver::Ccid2Rx;

use super::{CcidTx, DccpOptions, Feedback, SendDecision, SentPacket};
use crate::cc::reno::{ReductionBasis, Reno, RenoConfig};
use crate::cc::{AckSample, CcParams, CcState, CongestionControl, CongestionEvent, CongestionKind};
use crate::tcp::rtt::{RtoConfig, RttEstimator};
use crate::time::{SimDuration, SimTime};
use crate::transport::Probe;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ccid2Config {
    /// Later packets acknowledged that make an unacknowledged one lost. RFC 4341 §5 NUMDUPACK = 3.
    pub numdupack: u32,
    /// Ack Ratio at the start of the connection. RFC 4340 §11.3: 2.
    pub ack_ratio: u16,
    /// Adapt the Ack Ratio to lost acknowledgements (RFC 4341 §6.1.2, a SHOULD; Linux keeps it
    /// fixed).
    pub ack_ratio_dynamic: bool,
    /// Initial window, packets; `null` = RFC 3390's min(4, max(2, ⌊4380 / s⌋)) (RFC 4341 §5).
    pub initial_cwnd: Option<f64>,
    /// Multiplicative decrease factor. RFC 4341 §5: the window is halved.
    pub beta: f64,
    /// Lower bound of the retransmission timeout, seconds. Linux `TCP_RTO_MIN` 0.2 (CCID 2
    /// follows TCP's timer, RFC 4341 §5).
    pub min_rto_s: f64,
    /// Receiver: longest an acknowledgement waits for Ack Ratio data packets, seconds. Linux
    /// delayed-ACK minimum ATO 0.04.
    pub max_ack_delay_s: f64,
    /// Restart the window after idle periods (RFC 2861, as Linux `ccid2_cwnd_restart`).
    pub cwnd_validation: bool,
}

impl Default for Ccid2Config {
    fn default() -> Self {
        Ccid2Config {
            numdupack: 3,
            ack_ratio: 2,
            ack_ratio_dynamic: true,
            initial_cwnd: None,
            beta: 0.5,
            min_rto_s: 0.2,
            max_ack_delay_s: 0.04,
            cwnd_validation: true,
        }
    }
}

impl CcParams for Ccid2Config {
    const PRESETS: &'static [(&'static str, &'static str)] = &[(
        "ns2",
        "ns-2.35's Agent/DCCP/TCPlike (ns-default.tcl): initial window 3, min RTO 1 s, the receiver's ack delay 0.2 s, no window validation when idle",
    )];

    fn preset(name: &str) -> Option<Self> {
        match name {
            // `initial_cwnd_ 3`, `min_rto_ 1.0`, `dack_delay_ 0.2`; dccp_tcplike.cc has no RFC 2861
            // restart after idle periods.
            "ns2" => Some(Ccid2Config {
                initial_cwnd: Some(3.0),
                min_rto_s: 1.0,
                max_ack_delay_s: 0.2,
                cwnd_validation: false,
                ..Ccid2Config::default()
            }),
            _ => None,
        }
    }
}

impl Ccid2Config {
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=1000).contains(&self.numdupack) {
            return Err(format!(
                "numdupack: {} is out of range: expected 1..1000 packets",
                self.numdupack
            ));
        }
        if self.ack_ratio == 0 {
            return Err("ack_ratio: must be at least 1".into());
        }
        if let Some(w) = self.initial_cwnd {
            if !(1.0..=1e6).contains(&w) {
                return Err(format!(
                    "initial_cwnd: {w} is out of range: expected 1..1000000 packets"
                ));
            }
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("beta: {} is out of range: expected 0 < beta < 1", self.beta));
        }
        for (name, v) in [("min_rto_s", self.min_rto_s), ("max_ack_delay_s", self.max_ack_delay_s)]
        {
            if !(0.0..=60.0).contains(&v) {
                return Err(format!("{name}: {v} is out of range: expected 0..60 seconds"));
            }
        }
        Ok(())
    }

    /// The initial window for packets of `s` payload bytes.
    fn initial_window(&self, s: u32) -> f64 {
        self.initial_cwnd.unwrap_or_else(|| (4380 / s.max(1)).clamp(2, 4) as f64)
    }
}

/// What became of a packet the sender sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Outstanding,
    Acked,
    Lost,
    /// Not subject to congestion control (handshake Ack, Close).
    NotData,
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    sent_at: SimTime,
    fate: Fate,
}

/// Whether the window limited the sender in the current window of data.
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    /// Data waited because the window was full.
    limited: bool,
    /// Most data packets outstanding.
    max_out: u64,
    /// The period ends when a packet beyond this one is acknowledged.
    until: u64,
}

/// Ack Ratio state (RFC 4341 §6.1.2).
#[derive(Clone, Copy, Debug)]
struct AckRatio {
    r: u16,
    /// Highest sequence number seen from the receiver.
    last_peer_seq: Option<u64>,
    /// A lost ack is answered again only once acknowledged data passes this packet.
    loss_recover: u64,
    /// End of the current window of data, for counting windows without lost acks.
    window_end: u64,
    clean_windows: u64,
}

pub struct Ccid2Tx {
    cfg: Ccid2Config,
    cc: Reno,
    st: CcState,
    rtt: RttEstimator,
    initial_window: f64,
    /// Every packet sent from `base` on, by sequence number.
    sent: VecDeque<Sent>,
    base: u64,
    /// One past the highest sequence number sent.
    next_seq: u64,
    /// Data packets neither acknowledged nor lost (RFC 4341 §5 "pipe").
    pipe: u64,
    /// Losses of packets up to this one were sent before the last reduction.
    recover: Option<u64>,
    rto_at: Option<SimTime>,
    last_send: Option<SimTime>,
    usage: Usage,
    ack: AckRatio,
    timeouts: u64,
    reductions: u64,
}

impl Ccid2Tx {
    /// A sender of `s`-byte packets.
    pub fn new(cfg: Ccid2Config, s: u32) -> Self {
        let rto = RtoConfig {
            min_rto: SimDuration::from_secs_f64(cfg.min_rto_s),
            ..RtoConfig::default()
        };
        let iw = cfg.initial_window(s);
        let st = CcState::new(iw, f64::INFINITY, s);
        let ack = AckRatio {
            r: cfg.ack_ratio.max(1),
            last_peer_seq: None,
            loss_recover: 0,
            window_end: 0,
            clean_windows: 0,
        };
        Ccid2Tx {
            // Halves the packets in flight; RFC 4341 §5 says the window, which is the same while
            // the sender is window-limited.
            cc: Reno::new(RenoConfig { beta: cfg.beta, basis: ReductionBasis::FlightSize }),
            cfg,
            st,
            rtt: RttEstimator::new(rto),
            initial_window: iw,
            sent: VecDeque::with_capacity(64),
            base: 0,
            next_seq: 0,
            pipe: 0,
            recover: None,
            rto_at: None,
            last_send: None,
            usage: Usage::default(),
            ack,
            timeouts: 0,
            reductions: 0,
        }
    }

    pub fn cwnd(&self) -> f64 {
        self.st.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.st.ssthresh
    }
    pub fn pipe(&self) -> u64 {
        self.pipe
    }
    /// Window reductions for loss so far (timeouts excluded).
    pub fn reductions(&self) -> u64 {
        self.reductions
    }
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }

    fn window(&self) -> u64 {
        (self.st.cwnd.floor() as u64).max(1)
    }

    fn half_window(&self) -> u16 {
        self.window().div_ceil(2).min(u16::MAX as u64) as u16
    }

    fn clamp_ack_ratio(&mut self) {
        let cap = self.half_window();
        if !self.cfg.ack_ratio_dynamic {
            self.ack.r = self.cfg.ack_ratio;
        }
        self.ack.r = self.ack.r.min(cap).max(1);
    }

    fn is_cwnd_limited(&self) -> bool {
        self.usage.limited
            || (self.st.in_slow_start() && self.st.cwnd < 2.0 * self.usage.max_out as f64)
    }

    fn congestion(&mut self, now: SimTime, kind: CongestionKind) {
        let ev = CongestionEvent { now, kind, flight_size: self.window() };
        self.cc.on_congestion(&mut self.st, &ev);
        self.st.cwnd = if kind == CongestionKind::Timeout { 1.0 } else { self.st.ssthresh };
        self.recover = Some(self.next_seq.saturating_sub(1));
        self.clamp_ack_ratio();
    }

    /// Marks packets lost that have `numdupack` acknowledged packets after them; reacts once per
    /// window. Returns true if the window was reduced.
    fn detect_losses(&mut self, now: SimTime) -> bool {
        let mut later_acked = 0u32;
        let mut newest_lost = None;
        for i in (0..self.sent.len()).rev() {
            let s = &mut self.sent[i];
            match s.fate {
                Fate::Acked => later_acked += 1,
                Fate::Outstanding if later_acked >= self.cfg.numdupack => {
                    s.fate = Fate::Lost;
                    self.pipe -= 1;
                    newest_lost = newest_lost.or(Some(self.base + i as u64));
                }
                _ => {}
            }
        }
        match newest_lost {
            Some(seq) if self.recover.is_none_or(|r| seq > r) => {
                self.reductions += 1;
                self.congestion(now, CongestionKind::Loss);
                true
            }
            _ => false,
        }
    }

    /// Forgets resolved packets at the front.
    fn trim(&mut self) {
        while self.sent.front().is_some_and(|s| s.fate != Fate::Outstanding) {
            self.sent.pop_front();
            self.base += 1;
        }
    }

    /// RFC 4341 §6.1.2: react to acknowledgements the receiver sent that never arrived.
    fn track_ack_losses(&mut self, peer_seq: u64, ack: u64) {
        let lost_acks = self.ack.last_peer_seq.is_some_and(|last| peer_seq > last + 1);
        self.ack.last_peer_seq = Some(self.ack.last_peer_seq.map_or(peer_seq, |l| l.max(peer_seq)));
        if lost_acks && self.cfg.ack_ratio_dynamic && ack > self.ack.loss_recover {
            self.ack.r = self.ack.r.saturating_mul(2);
            self.ack.loss_recover = self.next_seq.saturating_sub(1);
            self.ack.clean_windows = 0;
        }
    }

    /// A window of data was acknowledged without lost acks: maybe lower R by one.
    fn count_clean_window(&mut self, newest_acked: u64) {
        if newest_acked < self.ack.window_end {
            return;
        }
        self.ack.window_end = self.next_seq.saturating_sub(1);
        self.ack.clean_windows += 1;
        let r = self.ack.r as f64;
        if self.cfg.ack_ratio_dynamic
            && self.ack.r > 1
            && self.ack.clean_windows as f64 >= self.st.cwnd / (r * r - r)
        {
            self.ack.r -= 1;
            self.ack.clean_windows = 0;
        }
    }
}

impl CcidTx for Ccid2Tx {
    fn name(&self) -> &'static str {
        "ccid2"
    }

    fn on_established(&mut self, now: SimTime, rtt: SimDuration) {
        self.rtt.on_sample(rtt);
        self.st.srtt = self.rtt.srtt();
        self.st.min_rtt = self.rtt.min_rtt();
        self.cc.on_rtt_sample(&mut self.st, now, rtt);
        self.clamp_ack_ratio();
    }

    fn send_decision(&mut self, now: SimTime) -> SendDecision {
        if self.cfg.cwnd_validation && self.pipe == 0 {
            if let Some(last) = self.last_send {
                let rto = self.rtt.rto();
                let mut idle = now.saturating_since(last);
                if idle >= rto {
                    // RFC 2861 §3 / Linux ccid2_cwnd_restart.
                    let cwnd = self.st.cwnd;
                    self.st.ssthresh = self.st.ssthresh.max(0.75 * cwnd.floor());
                    let restart = cwnd.min(self.initial_window);
                    let mut w = cwnd;
                    while idle >= rto && w > restart {
                        w = (w / 2.0).floor();
                        idle = SimDuration::from_nanos(idle.as_nanos() - rto.as_nanos());
                    }
                    self.st.cwnd = w.max(restart);
                    self.last_send = Some(now);
                    self.clamp_ack_ratio();
                }
            }
        }
        if self.pipe < self.window() {
            SendDecision::Now
        } else {
            SendDecision::AwaitFeedback
        }
    }

    fn on_blocked(&mut self, _now: SimTime) {
        // The window held data back: it limits the sender until this window is acknowledged.
        self.usage.limited = true;
        self.usage.until = self.next_seq.saturating_sub(1);
    }

    fn on_sent(&mut self, now: SimTime, pkt: &SentPacket) -> u8 {
        debug_assert_eq!(pkt.seq, self.next_seq.max(pkt.seq), "sequence numbers go up");
        if self.sent.is_empty() {
            self.base = pkt.seq;
        }
        // Sequence numbers the connection used without telling us (none expected) are resolved.
        while self.base + (self.sent.len() as u64) < pkt.seq {
            self.sent.push_back(Sent { sent_at: now, fate: Fate::NotData });
        }
        self.next_seq = pkt.seq + 1;
        if pkt.is_data {
            self.sent.push_back(Sent { sent_at: now, fate: Fate::Outstanding });
            self.pipe += 1;
            self.usage.max_out = self.usage.max_out.max(self.pipe);
            self.last_send = Some(now);
            if self.rto_at.is_none() {
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else {
            self.sent.push_back(Sent { sent_at: now, fate: Fate::NotData });
        }
        self.st.in_flight = self.pipe;
        self.st.snd_nxt = self.next_seq;
        0
    }

    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        self.track_ack_losses(fb.seq, fb.ack);
        let DccpOptions::AckVector(v) = fb.options else { return };
        let top = self.base + self.sent.len() as u64; // exclusive
        let mut newest: Option<u64> = None;
        let mut newly = 0u64;
        let mut growth = 0u64;
        for (received, lo, hi) in v.ranges() {
            if hi < self.base {
                break; // ranges run backwards: the rest is older still
            }
            if !received || lo >= top {
                continue;
            }
            for seq in lo.max(self.base)..=hi.min(top - 1) {
                let s = &mut self.sent[(seq - self.base) as usize];
                if s.fate == Fate::Outstanding {
                    s.fate = Fate::Acked;
                    self.pipe -= 1;
                    newly += 1;
                    newest = newest.max(Some(seq));
                    if self.recover.is_none_or(|r| seq > r) {
                        growth += 1;
                    }
                }
            }
        }
        let mut rtt = None;
        if let Some(seq) = newest {
            let r = now.saturating_since(self.sent[(seq - self.base) as usize].sent_at);
            self.rtt.on_sample(r);
            self.st.srtt = self.rtt.srtt();
            self.st.min_rtt = self.rtt.min_rtt();
            self.cc.on_rtt_sample(&mut self.st, now, r);
            rtt = Some(r);
        }
        let reduced = self.detect_losses(now);
        self.st.delivered += newly;
        if let Some(seq) = newest {
            self.st.snd_una = seq;
            if growth > 0 && !reduced && self.is_cwnd_limited() {
                self.cc.on_ack(&mut self.st, &AckSample { now, acked: growth, rtt });
            }
            if seq > self.usage.until {
                self.usage = Usage {
                    limited: false,
                    max_out: self.pipe,
                    until: self.next_seq.saturating_sub(1),
                };
            }
            self.count_clean_window(seq);
        }
        self.clamp_ack_ratio();
        self.trim();
        self.st.in_flight = self.pipe;
        if self.pipe == 0 {
            self.rto_at = None; // RFC 6298 §5.2
        } else if newly > 0 {
            self.rto_at = Some(now + self.rtt.rto()); // RFC 6298 §5.3
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.rto_at
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if self.rto_at.is_none_or(|t| t > now) {
            return;
        }
        self.rto_at = None;
        self.timeouts += 1;
        self.rtt.back_off();
        self.congestion(now, CongestionKind::Timeout);
        for s in self.sent.iter_mut().filter(|s| s.fate == Fate::Outstanding) {
            s.fate = Fate::Lost;
        }
        self.pipe = 0;
        self.st.in_flight = 0;
        self.trim();
    }

    fn settled(&self) -> bool {
        self.pipe == 0
    }

    fn ack_ratio(&self) -> u16 {
        self.ack.r
    }

    fn probe(&self) -> Probe {
        Probe {
            cwnd: Some(self.st.cwnd),
            ssthresh: self.st.ssthresh.is_finite().then_some(self.st.ssthresh),
            srtt: self.rtt.srtt(),
            timeouts: self.timeouts,
            fast_recoveries: self.reductions,
            ..Probe::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dccp::ack_vector::AckVectorRecord;
    use crate::dccp::{CcidRx, RxPacket};

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// A sender of 1000-byte packets (initial window 4380/1000 → 4), established at 0 with a
    /// 100 ms RTT.
    fn sender(cfg: Ccid2Config) -> Ccid2Tx {
        let mut tx = Ccid2Tx::new(cfg, 1000);
        tx.on_established(SimTime::ZERO, SimDuration::from_millis(100));
        tx
    }

    /// Sends data packets `seqs` at `at`.
    fn send(tx: &mut Ccid2Tx, at: SimTime, seqs: std::ops::Range<u64>) {
        for seq in seqs {
            assert_eq!(tx.send_decision(at), SendDecision::Now, "packet {seq}");
            tx.on_sent(at, &SentPacket { seq, len: 1000, is_data: true });
        }
    }

    /// Feeds an acknowledgement whose vector says `received` arrived (and nothing else).
    fn ack(tx: &mut Ccid2Tx, at: SimTime, peer_seq: u64, received: &[u64]) {
        let mut rec = AckVectorRecord::new();
        for &s in received {
            rec.on_packet(s);
        }
        let opts = DccpOptions::AckVector(rec.snapshot());
        let head = *received.last().unwrap();
        tx.on_feedback(at, &Feedback { seq: peer_seq, ack: head, options: &opts });
    }

    #[test]
    fn initial_window_follows_rfc_3390() {
        assert_eq!(Ccid2Tx::new(Ccid2Config::default(), 1460).cwnd(), 3.0);
        assert_eq!(Ccid2Tx::new(Ccid2Config::default(), 1000).cwnd(), 4.0);
        assert_eq!(Ccid2Tx::new(Ccid2Config::default(), 160).cwnd(), 4.0);
        assert_eq!(Ccid2Tx::new(Ccid2Config::default(), 4000).cwnd(), 2.0);
    }

    #[test]
    fn window_limits_the_pipe_and_slow_start_adds_one_per_acked_packet() {
        let mut tx = sender(Ccid2Config::default());
        send(&mut tx, ms(0), 0..4);
        assert_eq!(tx.send_decision(ms(0)), SendDecision::AwaitFeedback);
        tx.on_blocked(ms(0));
        ack(&mut tx, ms(100), 1, &[0, 1]);
        assert_eq!((tx.cwnd(), tx.pipe()), (6.0, 2));
        ack(&mut tx, ms(101), 2, &[0, 1, 2, 3]);
        assert_eq!((tx.cwnd(), tx.pipe()), (8.0, 0));
        assert!(tx.settled());
    }

    #[test]
    fn a_packet_is_lost_once_three_later_packets_are_acked() {
        let mut tx = sender(Ccid2Config { initial_cwnd: Some(20.0), ..Ccid2Config::default() });
        tx.st.ssthresh = 20.0; // congestion avoidance, to see the halving alone
        send(&mut tx, ms(0), 0..10);
        tx.on_blocked(ms(0));
        ack(&mut tx, ms(100), 1, &[0, 1, 2, 3, 4, 6, 7]);
        // Two packets after 5 acknowledged: not yet lost.
        assert_eq!(tx.reductions(), 0);
        assert_eq!(tx.pipe(), 3);
        ack(&mut tx, ms(101), 2, &[0, 1, 2, 3, 4, 6, 7, 8]);
        assert_eq!(tx.reductions(), 1);
        assert_eq!(tx.cwnd(), 10.0);
        assert_eq!(tx.ssthresh(), 10.0);
        assert_eq!(tx.pipe(), 1); // 9 outstanding; 5 lost, never resent
    }

    #[test]
    fn losses_in_a_reduced_window_do_not_reduce_it_again() {
        let mut tx = sender(Ccid2Config { initial_cwnd: Some(40.0), ..Ccid2Config::default() });
        tx.st.ssthresh = 40.0;
        send(&mut tx, ms(0), 0..30);
        // 3 and 10 lost in the same window: one halving.
        let got: Vec<u64> = (0..30).filter(|s| *s != 3 && *s != 10).collect();
        ack(&mut tx, ms(100), 1, &got);
        assert_eq!((tx.reductions(), tx.cwnd()), (1, 20.0));
        // A packet sent after the reduction is lost: a second halving.
        send(&mut tx, ms(100), 30..35);
        let mut got2 = got.clone();
        got2.extend([31, 32, 33, 34]);
        ack(&mut tx, ms(200), 2, &got2);
        assert_eq!((tx.reductions(), tx.cwnd()), (2, 10.0));
    }

    #[test]
    fn timeout_collapses_the_window_and_forgets_the_outstanding_packets() {
        let mut tx = sender(Ccid2Config::default());
        send(&mut tx, ms(0), 0..4);
        // SRTT 100 ms, RTTVAR 50 ms: RTO = 300 ms.
        assert_eq!(tx.poll_timeout(), Some(ms(300)));
        tx.handle_timeout(ms(300));
        assert_eq!((tx.cwnd(), tx.ssthresh(), tx.pipe(), tx.timeouts()), (1.0, 2.0, 0, 1));
        assert!(tx.settled());
        assert_eq!(tx.poll_timeout(), None);
        // Backed off: the next timer is twice as long.
        send(&mut tx, ms(300), 4..5);
        assert_eq!(tx.poll_timeout(), Some(ms(900)));
        // A late acknowledgement of a forgotten packet changes nothing.
        ack(&mut tx, ms(310), 1, &[0, 1]);
        assert_eq!(tx.pipe(), 1);
    }

    #[test]
    fn app_limited_sender_does_not_grow_its_window() {
        let mut tx = sender(Ccid2Config { initial_cwnd: Some(10.0), ..Ccid2Config::default() });
        tx.st.ssthresh = 10.0;
        for k in 0..20 {
            send(&mut tx, ms(10 * k), k..k + 1);
            ack(&mut tx, ms(10 * k + 5), k + 1, &(0..=k).collect::<Vec<_>>());
        }
        assert_eq!(tx.cwnd(), 10.0);
    }

    #[test]
    fn idle_restart_halves_per_rto_down_to_the_initial_window() {
        let mut tx = sender(Ccid2Config { initial_cwnd: Some(4.0), ..Ccid2Config::default() });
        tx.st.cwnd = 64.0;
        tx.st.ssthresh = 20.0;
        send(&mut tx, ms(0), 0..1);
        ack(&mut tx, ms(100), 1, &[0]);
        // RTO ≈ 200 ms floor … after 10 s idle the window is back to the initial 4.
        assert_eq!(tx.send_decision(ms(10_100)), SendDecision::Now);
        assert_eq!(tx.cwnd(), 4.0);
        assert_eq!(tx.ssthresh(), 48.0);
    }

    #[test]
    fn lost_acks_double_the_ack_ratio_within_half_the_window() {
        let mut tx = sender(Ccid2Config { initial_cwnd: Some(20.0), ..Ccid2Config::default() });
        tx.st.ssthresh = 20.0;
        assert_eq!(tx.ack_ratio(), 2);
        send(&mut tx, ms(0), 0..20);
        ack(&mut tx, ms(100), 1, &[0, 1]);
        // Receiver packets 2 and 3 lost.
        ack(&mut tx, ms(101), 4, &[0, 1, 2, 3, 4, 5]);
        assert_eq!(tx.ack_ratio(), 4);
        // Another loss in the same window is not answered again.
        ack(&mut tx, ms(102), 6, &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(tx.ack_ratio(), 4);
        // The cap ⌈cwnd/2⌉ applies when the window shrinks.
        tx.handle_timeout(SimTime::from_secs(10));
        assert_eq!(tx.ack_ratio(), 1);
        let fixed = sender(Ccid2Config {
            ack_ratio_dynamic: false,
            ack_ratio: 3,
            initial_cwnd: Some(10.0),
            ..Ccid2Config::default()
        });
        assert_eq!(fixed.ack_ratio(), 3);
    }

    #[test]
    fn ack_ratio_decreases_after_clean_windows() {
        // R = 2: decreases after cwnd / (4 − 2) = 2 clean windows at cwnd 4.
        let mut tx = sender(Ccid2Config::default());
        tx.st.ssthresh = 4.0;
        let mut next = 0;
        let mut acked = Vec::new();
        for round in 0..3u64 {
            let start = next;
            send(&mut tx, ms(100 * round), start..start + 4);
            next += 4;
            acked.extend(start..start + 4);
            ack(&mut tx, ms(100 * round + 50), round + 1, &acked);
        }
        assert_eq!(tx.ack_ratio(), 1);
    }

    fn rx_packet(seq: u64, kind: super::super::DccpType, ack: Option<u64>) -> RxPacket {
        RxPacket {
            seq,
            kind,
            len: if kind.is_data() { 1000 } else { 0 },
            ccval: 0,
            ack_ratio: 2,
            ack,
        }
    }

    #[test]
    fn receiver_acks_every_ack_ratio_packets_or_after_the_delay() {
        use super::super::DccpType::{Data, DataAck};
        let mut rx = Ccid2Rx::new(&Ccid2Config::default());
        assert!(!rx.on_packet(ms(0), &rx_packet(2, Data, None)));
        assert_eq!(rx.poll_timeout(), Some(ms(40)));
        assert!(rx.on_packet(ms(1), &rx_packet(3, Data, None)));
        let DccpOptions::AckVector(v) = rx.feedback(ms(1), 10) else { panic!() };
        assert_eq!(v.ranges().collect::<Vec<_>>(), vec![(true, 2, 3)]);
        assert_eq!(rx.poll_timeout(), None);
        // A lone packet is acknowledged by the timer.
        assert!(!rx.on_packet(ms(5), &rx_packet(4, Data, None)));
        assert!(!rx.handle_timeout(ms(44)));
        assert!(rx.handle_timeout(ms(45)));
        rx.feedback(ms(45), 11);
        assert_eq!(rx.vector_bytes(), 1);
        // The sender acknowledges our Ack 10 (which reported up to 3): 2 and 3 are forgotten.
        rx.on_packet(ms(50), &rx_packet(5, DataAck, Some(10)));
        let DccpOptions::AckVector(v) = rx.feedback(ms(50), 12) else { panic!() };
        assert_eq!(v.ranges().collect::<Vec<_>>(), vec![(true, 4, 5)]);
    }
}
