//! The TFRC sender of CCID 3 (RFC 5348 §4, RFC 4342 §5 and §8.1), and FAST-TFRC's rate rules.
//!
//! ```text
//! start (handshake RTT R_syn)  X = initial_rate = W_init / R,  W_init = min(4s, max(2s, 4380))
//!                              nofeedback timer = 2 s, X_recv_set = {∞}               (§4.2)
//! send                         packet n+1 leaves s/X after packet n (no credit when idle) (§4.6)
//!                              CCVal += min(⌊Δt / (R/4)⌋, 5) mod 16        (RFC 4342 §8.1)
//! feedback (ack, t_elapsed, X_recv, p)                                                 (§4.3)
//!   R_sample = now − t_sent(ack) − t_elapsed;  R = R_sample first, then q·R + (1−q)·R_sample
//!   recv_limit: data-limited interval ? (new loss ? halve set, X_recv·0.85 : ·1) maximize
//!                                     : update set (last 2 RTTs);  2·max(X_recv_set) except
//!                                       after loss in a data-limited interval (1·max)
//!   p > 0:  X = max(min(X_Bps, recv_limit), s/t_mbi)        X_Bps = equation(s, R, p)
//!   p = 0:  once per R: X = max(min(2X, recv_limit), initial_rate)
//!   nofeedback timer = max(4R, 2s/X)
//! nofeedback expiry                                                                    (§4.4)
//!   idle since armed and X_recv or X already low: keep X
//!   p = 0: X = max(X/2, s/t_mbi);  X_Bps > 2·X_recv: limits(X_recv);  else limits(X_Bps/2)
//!   limits(l): l = max(l, s/t_mbi); X_recv_set = {l/2}; recompute X as on feedback
//! FAST-TFRC replaces the two X updates by seed 002's eqs. (5) and (7) (see fast_tfrc.rs)
//! profile rfc3448 (RFC 3448 §4.3–4.4, as Linux 2.6 and ns-2 of the seed papers):
//!   recv_limit = 2·X_recv of the last feedback;  slow start X = max(min(2X, 2·X_recv), s/R)
//!   nofeedback: no feedback yet: X = max(X/2, s/t_mbi); else X_recv = p = 0 or X_calc > 2·X_recv
//!               ? max(X_recv/2, s/(2·t_mbi)) : X_calc/4, then recompute X
//! ```
//!
//! "Data-limited" (RFC 5348 §8.2.1) is approximated: an interval covered by a feedback packet
//! was data-limited if the gate never held data back since the packet acknowledged by the
//! previous feedback left.
//!
//! Not implemented: oscillation reduction (RFC 5348 §4.5, optional); the segment size is the
//! application's packet size, fixed for the connection (RFC 4342 §5.3 allows measuring it).

use super::equation::tcp_throughput;
use super::{Ccid3Config, TfrcProfile};
use crate::dccp::fast_tfrc::{rate_after_loss, rate_without_loss, FastRules, LossBranch};
use crate::dccp::{CcidTx, DccpOptions, Feedback, SendDecision, SentPacket};
use crate::time::{SimDuration, SimTime};
use crate::transport::Probe;
use crate::wire::dccp::TfrcFeedback;
use std::collections::VecDeque;

/// Which rate-update rules apply.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    /// RFC 5348.
    Standard,
    /// Seed 002's FAST-TFRC.
    Fast(FastRules),
}

/// X_recv values kept: feedback arrives about once per RTT and entries live two RTTs.
const X_RECV_SET_LEN: usize = 4;
/// Window counter increments per packet at most (RFC 4342 §8.1).
const MAX_CCVAL_STEP: u64 = 5;
/// Send history kept for RTT samples, packets (older ones are never acknowledged in time).
const HISTORY_MAX: usize = 1 << 20;

pub struct TfrcTx {
    cfg: Ccid3Config,
    variant: Variant,
    /// Segment size s, bytes.
    s: f64,
    /// Allowed rate X, bytes/s.
    x: f64,
    /// X_Bps from the equation (0 while p = 0).
    x_calc: f64,
    /// Loss event rate from the last feedback.
    p: f64,
    /// RTT estimate R, seconds (the handshake's until the first feedback).
    r: f64,
    /// A feedback packet has set R.
    have_feedback: bool,
    /// Time of the last doubling (t_ld).
    tld: SimTime,
    /// (X_recv, when) pairs; `f64::INFINITY` is the initial item.
    x_recv_set: [Option<(f64, SimTime)>; X_RECV_SET_LEN],
    /// X_recv of the latest feedback.
    x_recv: f64,
    /// When the last data packet left.
    last_send: Option<SimTime>,
    nofeedback_at: Option<SimTime>,
    /// No data packet left since the nofeedback timer was armed.
    idle_since_nofeedback: bool,
    /// (sequence number, send time) of packets sent, ascending and contiguous.
    history: VecDeque<(u64, SimTime)>,
    /// Window counter (CCVal) and when it last advanced.
    wc: u8,
    t_last_wc: SimTime,
    /// Last time the gate held data back.
    last_blocked: Option<SimTime>,
    /// Send time of the packet acknowledged by the previous feedback.
    prev_covered: Option<SimTime>,
    last_data_seq: Option<u64>,
    highest_acked: Option<u64>,
    /// The nofeedback timer expired since the last data packet left.
    nofeedback_since_send: bool,
    established: bool,
    feedbacks: u64,
}

impl TfrcTx {
    /// A sender of `s`-byte packets (its TFRC's s is `cfg.equation_size` where that is set).
    pub fn new(cfg: Ccid3Config, variant: Variant, s: u32) -> Self {
        let s = cfg.equation_size.unwrap_or(s);
        TfrcTx {
            cfg,
            variant,
            s: s.max(1) as f64,
            x: s.max(1) as f64, // one packet per second until the handshake gives an RTT
            x_calc: 0.0,
            p: 0.0,
            r: 0.0,
            have_feedback: false,
            tld: SimTime::ZERO,
            x_recv_set: [None; X_RECV_SET_LEN],
            x_recv: 0.0,
            last_send: None,
            nofeedback_at: None,
            idle_since_nofeedback: true,
            history: VecDeque::with_capacity(256),
            wc: 0,
            t_last_wc: SimTime::ZERO,
            last_blocked: None,
            prev_covered: None,
            last_data_seq: None,
            highest_acked: None,
            nofeedback_since_send: false,
            established: false,
            feedbacks: 0,
        }
    }

    /// Allowed sending rate X, payload bytes per second.
    pub fn rate(&self) -> f64 {
        self.x
    }
    /// Loss event rate p of the last feedback.
    pub fn loss_event_rate(&self) -> f64 {
        self.p
    }
    /// RTT estimate R, seconds.
    pub fn rtt(&self) -> f64 {
        self.r
    }
    pub fn feedbacks(&self) -> u64 {
        self.feedbacks
    }

    fn t_mbi_rate(&self) -> f64 {
        self.s / self.cfg.t_mbi_s
    }

    /// W_init / R (RFC 5348 §4.2, RFC 3390).
    fn initial_rate(&self) -> f64 {
        let w_init = (4.0 * self.s).min((2.0 * self.s).max(4380.0));
        w_init / self.r
    }

    fn x_recv_max(&self) -> f64 {
        self.x_recv_set.iter().flatten().map(|(x, _)| *x).fold(0.0, f64::max)
    }

    /// "Maximize X_recv_set": keep one item, the largest of the set and `x_recv`.
    fn maximize_set(&mut self, now: SimTime, x_recv: f64) {
        let m = self
            .x_recv_set
            .iter()
            .flatten()
            .map(|(x, _)| *x)
            .filter(|x| x.is_finite())
            .fold(x_recv, f64::max);
        self.x_recv_set = [None; X_RECV_SET_LEN];
        self.x_recv_set[0] = Some((m, now));
    }

    /// "Update X_recv_set": add `x_recv`, drop items older than two RTTs.
    fn update_set(&mut self, now: SimTime, x_recv: f64) {
        let horizon = SimDuration::from_secs_f64(2.0 * self.r);
        for slot in self.x_recv_set.iter_mut() {
            if slot.is_some_and(|(_, t)| now.saturating_since(t) > horizon) {
                *slot = None;
            }
        }
        let i = match self.x_recv_set.iter().position(Option::is_none) {
            Some(i) => i,
            None => (0..X_RECV_SET_LEN)
                .min_by_key(|&i| self.x_recv_set[i].map(|(_, t)| t))
                .expect("non-empty"),
        };
        self.x_recv_set[i] = Some((x_recv, now));
    }

    /// RFC 5348 §4.3 step 4 with the given receive limit.
    fn tfrc_update(&mut self, now: SimTime, recv_limit: f64) {
        if self.p > 0.0 {
            self.x = self.x_calc.min(recv_limit).max(self.t_mbi_rate());
        } else if now.saturating_since(self.tld).as_secs_f64() >= self.r {
            let floor = match self.cfg.profile {
                TfrcProfile::Rfc5348 => self.initial_rate(),
                TfrcProfile::Rfc3448 => self.s / self.r,
            };
            self.x = (2.0 * self.x).min(recv_limit).max(floor);
            self.tld = now;
        }
    }

    fn rearm_nofeedback(&mut self, now: SimTime) {
        let t = (4.0 * self.r).max(2.0 * self.s / self.x);
        self.nofeedback_at = Some(now + SimDuration::from_secs_f64(t));
        self.idle_since_nofeedback = true;
    }

    fn send_time(&self, seq: u64) -> Option<SimTime> {
        let &(first, _) = self.history.front()?;
        let i = seq.checked_sub(first)?;
        self.history.get(i as usize).map(|&(_, t)| t)
    }

    fn on_tfrc_feedback(&mut self, now: SimTime, ack: u64, fb: &TfrcFeedback) {
        let Some(sent_at) = self.send_time(ack) else { return };
        self.feedbacks += 1;
        let r_sample = now.saturating_since(sent_at).as_secs_f64() - fb.elapsed.as_secs_f64();
        let r_sample = r_sample.max(1e-6);
        let r_before = self.r;
        if self.have_feedback {
            let q = self.cfg.rtt_filter_q;
            self.r = q * self.r + (1.0 - q) * r_sample;
        } else {
            self.r = r_sample;
            self.have_feedback = true;
        }
        let new_loss = fb.p > self.p;
        self.p = fb.p;
        self.x_recv = fb.x_recv;
        self.x_calc = if self.p > 0.0 { tcp_throughput(self.s, self.r, self.p) } else { 0.0 };
        let data_limited =
            self.last_blocked.is_none_or(|b| self.prev_covered.is_some_and(|c| b < c));
        let recv_limit = if self.cfg.profile == TfrcProfile::Rfc3448 {
            2.0 * fb.x_recv
        } else if data_limited {
            if new_loss {
                for (x, _) in self.x_recv_set.iter_mut().flatten() {
                    *x /= 2.0;
                }
                self.maximize_set(now, 0.85 * fb.x_recv);
                self.x_recv_max()
            } else {
                self.maximize_set(now, fb.x_recv);
                2.0 * self.x_recv_max()
            }
        } else {
            self.update_set(now, fb.x_recv);
            2.0 * self.x_recv_max()
        };
        self.prev_covered = Some(sent_at);
        match self.variant {
            Variant::Standard => self.tfrc_update(now, recv_limit),
            Variant::Fast(rules) => {
                let after_loss = match rules.loss_branch {
                    LossBranch::PPositive => self.p > 0.0,
                    LossBranch::NewLossEvent => new_loss,
                };
                if after_loss {
                    self.x = rate_after_loss(
                        self.x_calc,
                        fb.x_recv,
                        rules.recv_multiplier,
                        self.s,
                        self.cfg.t_mbi_s,
                    );
                } else if !rules.increase_once_per_rtt
                    || now.saturating_since(self.tld).as_secs_f64() >= self.r
                {
                    let alpha = if r_before > 0.0 { r_before / r_sample } else { 1.0 };
                    self.x = rate_without_loss(
                        self.x,
                        alpha,
                        fb.x_recv,
                        rules.recv_multiplier,
                        self.s,
                        self.r,
                    );
                    self.tld = now;
                }
            }
        }
        self.highest_acked = self.highest_acked.max(Some(ack));
        while self.history.front().is_some_and(|&(seq, _)| seq < ack) {
            self.history.pop_front();
        }
        self.rearm_nofeedback(now);
    }

    /// RFC 3448 §4.4 (as Linux 2.6 `ccid3_hc_tx_no_feedback_timer`).
    fn on_nofeedback_rfc3448(&mut self, now: SimTime) {
        if !self.have_feedback {
            self.x = (self.x / 2.0).max(self.t_mbi_rate());
        } else {
            self.x_recv = if self.p == 0.0 || self.x_calc > 2.0 * self.x_recv {
                (self.x_recv / 2.0).max(self.s / (2.0 * self.cfg.t_mbi_s))
            } else {
                self.x_calc / 4.0
            };
            self.tfrc_update(now, 2.0 * self.x_recv);
        }
        self.nofeedback_since_send = true;
        self.rearm_nofeedback(now);
    }

    /// RFC 5348 §4.4.
    fn on_nofeedback(&mut self, now: SimTime) {
        if self.cfg.profile == TfrcProfile::Rfc3448 && self.variant == Variant::Standard {
            return self.on_nofeedback_rfc3448(now);
        }
        let x_recv = self.x_recv_max();
        let recover_rate = self.initial_rate();
        let low = (self.p > 0.0 && x_recv < recover_rate)
            || (self.p == 0.0 && self.x < 2.0 * recover_rate);
        if low && self.idle_since_nofeedback {
            // An idle sender keeps a rate that is already at most about the initial rate.
        } else if self.p == 0.0 {
            self.x = (self.x / 2.0).max(self.t_mbi_rate());
        } else {
            let limit = if self.x_calc > 2.0 * x_recv { x_recv } else { self.x_calc / 2.0 };
            let limit = limit.max(self.t_mbi_rate());
            self.x_recv_set = [None; X_RECV_SET_LEN];
            self.x_recv_set[0] = Some((limit / 2.0, now));
            match self.variant {
                Variant::Standard => self.tfrc_update(now, limit),
                Variant::Fast(_) => self.x = self.x_calc.min(limit).max(self.t_mbi_rate()),
            }
        }
        self.nofeedback_since_send = true;
        self.rearm_nofeedback(now);
    }
}

impl CcidTx for TfrcTx {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Standard => "ccid3",
            Variant::Fast(_) => "fast_tfrc",
        }
    }

    fn on_established(&mut self, now: SimTime, rtt: SimDuration) {
        // RFC 5348 §4.2 with the handshake's RTT (the RFC 4342 erratum; Linux does the same).
        self.r = rtt.as_secs_f64().max(1e-6);
        self.x = self.initial_rate();
        self.tld = now;
        self.t_last_wc = now;
        self.x_recv_set[0] = Some((f64::INFINITY, now));
        self.nofeedback_at = Some(now + SimDuration::from_secs_f64(self.cfg.initial_nofeedback_s));
        self.idle_since_nofeedback = true;
        self.established = true;
    }

    fn send_decision(&mut self, now: SimTime) -> SendDecision {
        if !self.established {
            return SendDecision::AwaitFeedback;
        }
        match self.last_send {
            Some(last) => {
                // At least 1 ns apart: however high X climbs, sending advances simulated time,
                // so no handler can emit packets without end at one instant.
                let next = last
                    + SimDuration::from_secs_f64(self.s / self.x).max(SimDuration::from_nanos(1));
                if now >= next {
                    SendDecision::Now
                } else {
                    SendDecision::NotBefore(next)
                }
            }
            None => SendDecision::Now,
        }
    }

    fn on_blocked(&mut self, now: SimTime) {
        self.last_blocked = Some(now);
    }

    fn on_sent(&mut self, now: SimTime, pkt: &SentPacket) -> u8 {
        if self.r > 0.0 {
            let quarter = self.r / 4.0;
            let quarters =
                (now.saturating_since(self.t_last_wc).as_secs_f64() / quarter).floor() as u64;
            if quarters > 0 {
                self.wc = ((self.wc as u64 + quarters.min(MAX_CCVAL_STEP)) % 16) as u8;
                self.t_last_wc = now;
            }
        }
        if self.history.back().is_some_and(|&(seq, _)| seq + 1 != pkt.seq) {
            self.history.clear(); // keep the history contiguous
        }
        self.history.push_back((pkt.seq, now));
        if self.history.len() > HISTORY_MAX {
            self.history.pop_front();
        }
        if pkt.is_data {
            self.last_send = Some(now);
            self.last_data_seq = Some(pkt.seq);
            self.idle_since_nofeedback = false;
            self.nofeedback_since_send = false;
        }
        self.wc
    }

    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        if let DccpOptions::Tfrc(t) = fb.options {
            self.on_tfrc_feedback(now, fb.ack, t);
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.nofeedback_at
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if self.nofeedback_at.is_some_and(|t| t <= now) {
            self.on_nofeedback(now);
        }
    }

    fn settled(&self) -> bool {
        self.nofeedback_since_send
            || self.last_data_seq.is_none_or(|s| self.highest_acked.is_some_and(|a| a >= s))
    }

    fn probe(&self) -> Probe {
        Probe {
            srtt: (self.r > 0.0).then(|| SimDuration::from_secs_f64(self.r)),
            rate_bps: Some(self.x * 8.0),
            ..Probe::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dccp::fast_tfrc::FastTfrcConfig;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// A 1000-byte-packet sender established at 0 with a 100 ms handshake RTT.
    fn sender(variant: Variant) -> TfrcTx {
        let mut tx = TfrcTx::new(Ccid3Config::default(), variant, 1000);
        tx.on_established(SimTime::ZERO, SimDuration::from_millis(100));
        tx
    }

    fn data(tx: &mut TfrcTx, at: SimTime, seq: u64) -> u8 {
        tx.on_sent(at, &SentPacket { seq, len: 1000, is_data: true })
    }

    fn feedback(tx: &mut TfrcTx, at: SimTime, ack: u64, x_recv: f64, p: f64) {
        let opts = DccpOptions::Tfrc(TfrcFeedback { elapsed: SimDuration::ZERO, x_recv, p });
        tx.on_feedback(at, &Feedback { seq: 0, ack, options: &opts });
    }

    #[test]
    fn initial_rate_is_w_init_over_the_handshake_rtt() {
        let tx = sender(Variant::Standard);
        // W_init = min(4000, max(2000, 4380)) = 4000 B per 100 ms.
        assert!((tx.rate() - 40_000.0).abs() < 1e-6);
        assert_eq!(tx.poll_timeout(), Some(ms(2000)));
    }

    #[test]
    fn packets_are_spaced_by_s_over_x() {
        let mut tx = sender(Variant::Standard);
        assert_eq!(tx.send_decision(ms(0)), SendDecision::Now);
        data(&mut tx, ms(0), 2);
        // 1000 B at 40 000 B/s: 25 ms apart.
        assert_eq!(tx.send_decision(ms(10)), SendDecision::NotBefore(ms(25)));
        assert_eq!(tx.send_decision(ms(25)), SendDecision::Now);
    }

    #[test]
    fn a_fixed_equation_size_spaces_small_packets_as_if_they_were_that_size() {
        // ns-2's CCID 3: 160-byte packets, s = 500 B in the equation and the spacing.
        let cfg = <Ccid3Config as crate::cc::CcParams>::preset("ns2").unwrap();
        let mut tx = TfrcTx::new(cfg, Variant::Standard, 160);
        tx.on_established(SimTime::ZERO, SimDuration::from_millis(100));
        let x = tx.rate();
        // W_init from s = 500: min(2000, max(1000, 4380)) = 2000 B per 100 ms.
        assert!((x - 20_000.0).abs() < 1e-6, "{x}");
        assert_eq!(tx.send_decision(ms(0)), SendDecision::Now);
        tx.on_sent(ms(0), &SentPacket { seq: 2, len: 160, is_data: true });
        // 500 / 20 000 B/s = 25 ms, not the 8 ms of 160 B at that rate: 6 400 B/s of real data.
        assert_eq!(tx.send_decision(ms(10)), SendDecision::NotBefore(ms(25)));
    }

    #[test]
    fn window_counter_advances_per_quarter_rtt_by_at_most_five() {
        let mut tx = sender(Variant::Standard);
        assert_eq!(data(&mut tx, ms(0), 2), 0);
        assert_eq!(data(&mut tx, ms(24), 3), 0);
        assert_eq!(data(&mut tx, ms(25), 4), 1);
        assert_eq!(data(&mut tx, ms(75), 5), 3);
        assert_eq!(data(&mut tx, ms(1075), 6), 8);
        assert_eq!(data(&mut tx, ms(2075), 7), 13);
        assert_eq!(data(&mut tx, ms(3075), 8), 2); // mod 16
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_within_twice_the_receive_rate() {
        let mut tx = sender(Variant::Standard);
        data(&mut tx, ms(0), 2);
        tx.on_blocked(ms(1)); // a bulk sender: the rate, not the application, limits it
        data(&mut tx, ms(25), 3);
        tx.on_blocked(ms(26));
        // First feedback at 100 ms for packet 2: R = 100 ms; X_recv_set still holds ∞ → doubles.
        feedback(&mut tx, ms(100), 2, 30_000.0, 0.0);
        assert!((tx.rate() - 80_000.0).abs() < 1e-6);
        // Less than R later: no change.
        feedback(&mut tx, ms(125), 3, 30_000.0, 0.0);
        assert!((tx.rate() - 80_000.0).abs() < 1e-6);
        data(&mut tx, ms(200), 4);
        tx.on_blocked(ms(201));
        // After 2 RTTs the ∞ item is gone: recv_limit = 2·max(X_recv_set) = 2·35 000.
        feedback(&mut tx, ms(300), 4, 35_000.0, 0.0);
        assert!((tx.rate() - 70_000.0).abs() < 1e-6, "{}", tx.rate());
    }

    #[test]
    fn after_loss_the_rate_follows_the_equation() {
        let mut tx = sender(Variant::Standard);
        data(&mut tx, ms(0), 2);
        feedback(&mut tx, ms(100), 2, 1e9, 0.01);
        // R = 0.1 s exactly (first sample), X = X_Bps(1000, 0.1, 0.01) < recv_limit.
        let want = tcp_throughput(1000.0, 0.1, 0.01);
        assert!((tx.rate() - want).abs() < 1e-6 * want);
        // The RTT filter: a 200 ms sample moves R to 0.9·0.1 + 0.1·0.2 = 0.11 s.
        data(&mut tx, ms(300), 3);
        feedback(&mut tx, ms(500), 3, 1e9, 0.01);
        assert!((tx.rtt() - 0.11).abs() < 1e-12);
        let want = tcp_throughput(1000.0, 0.11, 0.01);
        assert!((tx.rate() - want).abs() < 1e-6 * want);
    }

    #[test]
    fn nofeedback_timer_halves_the_rate() {
        let mut tx = sender(Variant::Standard);
        data(&mut tx, ms(0), 2);
        feedback(&mut tx, ms(100), 2, 1e9, 0.0);
        let x = tx.rate();
        // Timer: max(4R, 2s/X) = max(400 ms, 2·1000/80 000 s = 25 ms).
        assert_eq!(tx.poll_timeout(), Some(ms(500)));
        data(&mut tx, ms(110), 3);
        tx.handle_timeout(ms(500));
        assert!((tx.rate() - x / 2.0).abs() < 1e-9);
        assert!(tx.settled(), "the nofeedback timer expired after the last data packet");
    }

    #[test]
    fn an_idle_sender_at_a_low_rate_keeps_it() {
        let mut tx = sender(Variant::Standard);
        data(&mut tx, ms(0), 2);
        feedback(&mut tx, ms(100), 2, 1e9, 0.0);
        // X = 80 000 B/s = 2 · initial rate: the first expiry halves it to 40 000 …
        tx.handle_timeout(ms(500));
        let x = tx.rate();
        assert!((x - 40_000.0).abs() < 1e-6);
        tx.handle_timeout(tx.poll_timeout().unwrap());
        // … then X < 2 · initial rate and no data left since the timer was armed: X is kept.
        assert_eq!(tx.rate(), x);
    }

    #[test]
    fn rfc3448_profile_halves_the_receive_rate_through_silences() {
        let cfg = Ccid3Config { profile: TfrcProfile::Rfc3448, ..Ccid3Config::default() };
        let mut tx = TfrcTx::new(cfg, Variant::Standard, 1000);
        tx.on_established(SimTime::ZERO, SimDuration::from_millis(100));
        data(&mut tx, ms(0), 2);
        // Slow start limited by 2·X_recv of this feedback (no ∞ item): min(80 000, 2·30 000).
        feedback(&mut tx, ms(100), 2, 30_000.0, 0.0);
        assert!((tx.rate() - 60_000.0).abs() < 1e-6, "{}", tx.rate());
        // Silence: each expiry halves X_recv; X follows 2·X_recv down to s/R = 10 000 B/s.
        let mut rates = Vec::new();
        for _ in 0..4 {
            tx.handle_timeout(tx.poll_timeout().unwrap());
            rates.push(tx.rate().round());
        }
        assert_eq!(rates, vec![30_000.0, 15_000.0, 10_000.0, 10_000.0]);
        // The RFC 5348 sender, idle at a low rate, would have kept it (see an_idle_sender_…).
    }

    #[test]
    fn fast_tfrc_increases_by_the_delay_ratio_and_keeps_twice_the_receive_rate_after_loss() {
        let fast = Variant::Fast(FastTfrcConfig::default().fast());
        let mut tx = sender(fast);
        data(&mut tx, ms(0), 2);
        feedback(&mut tx, ms(100), 2, 10_000.0, 0.0);
        // First sample: R_before = 0.1 (handshake), sample 0.1 → α = 1: X = max(2X, …) = 80 000.
        assert!((tx.rate() - 80_000.0).abs() < 1e-6);
        data(&mut tx, ms(150), 3);
        // Sample 0.05 s < R: α = 0.1 / 0.05 = 2 → X_update = 3X.
        feedback(&mut tx, ms(200), 3, 10_000.0, 0.0);
        assert!((tx.rate() - 240_000.0).abs() < 1e-6, "{}", tx.rate());
        // Loss: X = max(X_calc, 2·X_recv, s/t_mbi).
        data(&mut tx, ms(300), 4);
        feedback(&mut tx, ms(400), 4, 500_000.0, 0.05);
        assert!((tx.rate() - 1_000_000.0).abs() < 1e-6, "{}", tx.rate());
    }
}
