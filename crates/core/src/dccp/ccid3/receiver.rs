//! The TFRC receiver of CCID 3 (RFC 5348 §5–6, RFC 4342 §8 and §10): loss detection, loss
//! events, the loss event rate p and the feedback that carries it.
//!
//! ```text
//! lost packet     missing while NDUPACK = 3 packets with higher numbers have arrived   (§5.1)
//! loss event      losses within one RTT of the event's first loss (window counters,
//!                 RFC 4342 §10.2) form one event                                     (§5.2)
//! first interval  after the first loss event, the interval before it is synthesised as 1/p
//!                 with X_calc(s, R, p) = X_recv, the receive rate just before the loss  (§6.3.1)
//! p               1 / I_mean from loss_intervals.rs                                   (§5.4)
//! feedback        ack = newest packet, Elapsed Time, X_recv, p — sent on the first data
//!                 packet, when a new loss event raises p (expedited), when a data packet's
//!                 window counter is ≥ 4 past the last feedback's (once per RTT,
//!                 RFC 4342 §10.3), and when R_m passes after the last feedback with data
//!                 received since (the feedback timer, §6.2)
//! X_recv          payload bytes received since the last feedback / time since it; an
//!                 expedited (loss) feedback repeats the previous X_recv (Linux)
//! R_m             the receiver's RTT estimate: arrival gap between the first packets whose
//!                 window counters differ by 4 (RFC 4342 §8.1), filtered 9:1 (Linux)
//! ```
//!
//! Deviations: packets arriving out of order are counted as received but do not undo a loss
//! already declared (ccarena's paths are FIFO per flow); a run of consecutive losses (one
//! "hole") counts as one loss event even if it spans more than one RTT.

use super::equation::loss_rate_for;
use super::loss_intervals::{LossIntervals, QUARTERS_PER_RTT};
use super::Ccid3Config;
use crate::dccp::{CcidRx, DccpOptions, RxPacket};
use crate::time::{SimDuration, SimTime};
use crate::wire::dccp::TfrcFeedback;
use std::collections::VecDeque;

/// RTT assumed before the receiver has an estimate: 0.2 s (RFC 4340 §3.4; Linux
/// `DCCP_FALLBACK_RTT`).
const FALLBACK_RTT_S: f64 = 0.2;
/// Weight of the old value in the receiver's RTT and packet-size filters (Linux `tfrc_ewma`, 9/10).
const EWMA_OLD: f64 = 0.9;

/// Packets missing between two arrivals, not yet declared lost.
#[derive(Clone, Copy, Debug)]
struct Hole {
    lo: u64,
    /// Unwrapped window counter of the packet received just before the hole.
    ccval_before: i64,
    /// Packets received after the hole.
    after: u32,
}

pub struct TfrcRx {
    ndupack: u32,
    history: LossIntervals,
    /// Mean payload size s, bytes (or the configured `equation_size`).
    s: f64,
    /// `s` is the configuration's `equation_size`, not measured.
    fixed_s: bool,
    /// Newest packet received, when, and its unwrapped window counter.
    high: Option<u64>,
    high_at: SimTime,
    counter: i64,
    raw_ccval: u8,
    holes: VecDeque<Hole>,
    /// First arrival of each recent unwrapped window counter, indexed by counter mod 16.
    first_seen: [(i64, SimTime); 16],
    r_est: Option<f64>,
    last_fb_at: Option<SimTime>,
    bytes_since_fb: u64,
    fb_counter: i64,
    p_reported: f64,
    x_recv: f64,
    /// The feedback being sent was triggered by a loss event.
    expedited: bool,
    data_seen: bool,
    fb_timer: Option<SimTime>,
    data_received: u64,
    packets_received: u64,
}

impl TfrcRx {
    pub fn new(cfg: &Ccid3Config) -> Self {
        TfrcRx {
            ndupack: cfg.ndupack.max(1),
            history: LossIntervals::new(cfg.loss_history),
            s: cfg.equation_size.map_or(0.0, f64::from),
            fixed_s: cfg.equation_size.is_some(),
            high: None,
            high_at: SimTime::ZERO,
            counter: 0,
            raw_ccval: 0,
            holes: VecDeque::new(),
            first_seen: [(i64::MIN, SimTime::ZERO); 16],
            r_est: None,
            last_fb_at: None,
            bytes_since_fb: 0,
            fb_counter: 0,
            p_reported: 0.0,
            x_recv: 0.0,
            expedited: false,
            data_seen: false,
            fb_timer: None,
            data_received: 0,
            packets_received: 0,
        }
    }

    /// Loss events detected so far.
    pub fn loss_events(&self) -> u64 {
        self.history.events()
    }
    /// Data packets received so far.
    pub fn data_received(&self) -> u64 {
        self.data_received
    }
    /// Packets (of any type) received so far, in sequence order.
    pub fn packets_received(&self) -> u64 {
        self.packets_received
    }
    /// The current loss event rate p.
    pub fn loss_event_rate(&self) -> f64 {
        self.high.map_or(0.0, |h| self.history.loss_event_rate(h))
    }
    /// The receiver's RTT estimate R_m, seconds.
    pub fn rtt_estimate(&self) -> Option<f64> {
        self.r_est
    }

    /// Unwraps the 4-bit window counter and samples the RTT from it.
    fn track_window_counter(&mut self, now: SimTime, ccval: u8) {
        if self.high.is_none() {
            self.counter = ccval as i64;
        } else {
            self.counter += ((ccval + 16 - self.raw_ccval) % 16) as i64;
        }
        self.raw_ccval = ccval;
        let c = self.counter;
        let slot = c.rem_euclid(16) as usize;
        if self.first_seen[slot].0 == c {
            return;
        }
        self.first_seen[slot] = (c, now);
        let back = self.first_seen[(c - QUARTERS_PER_RTT).rem_euclid(16) as usize];
        if back.0 == c - QUARTERS_PER_RTT {
            let sample = now.saturating_since(back.1).as_secs_f64();
            if sample > 0.0 {
                self.r_est =
                    Some(self.r_est.map_or(sample, |r| EWMA_OLD * r + (1.0 - EWMA_OLD) * sample));
            }
        }
    }

    /// RFC 5348 §6.3.1: the interval that gives the receive rate seen before the first loss.
    fn first_interval(&self, now: SimTime) -> f64 {
        let r = self.r_est.unwrap_or(FALLBACK_RTT_S);
        let since = self.last_fb_at.map(|t| now.saturating_since(t).as_secs_f64()).unwrap_or(0.0);
        let mut x = if since > 0.0 && self.bytes_since_fb > 0 {
            self.bytes_since_fb as f64 / since
        } else {
            self.x_recv
        };
        if x <= 0.0 {
            x = self.s.max(1.0) / r; // one packet per RTT
        }
        1.0 / loss_rate_for(self.s.max(1.0), r, x)
    }
}

impl CcidRx for TfrcRx {
    fn on_packet(&mut self, now: SimTime, pkt: &RxPacket) -> bool {
        let is_data = pkt.kind.is_data();
        if is_data {
            self.data_received += 1;
            self.bytes_since_fb += pkt.len as u64;
            if !self.fixed_s {
                self.s = if self.s == 0.0 {
                    pkt.len as f64
                } else {
                    EWMA_OLD * self.s + (1.0 - EWMA_OLD) * pkt.len as f64
                };
            }
        }
        if self.high.is_some_and(|h| pkt.seq <= h) {
            return false; // late or duplicate
        }
        self.packets_received += 1;
        let before = self.counter;
        self.track_window_counter(now, pkt.ccval);
        if let Some(h) = self.high {
            if pkt.seq > h + 1 {
                self.holes.push_back(Hole { lo: h + 1, ccval_before: before, after: 0 });
            }
        }
        for hole in self.holes.iter_mut() {
            hole.after += 1;
        }
        self.high = Some(pkt.seq);
        self.high_at = now;
        let mut new_event = false;
        while let Some(hole) = self.holes.front().copied().filter(|h| h.after >= self.ndupack) {
            self.holes.pop_front();
            let first = (self.history.events() == 0).then(|| self.first_interval(now));
            new_event |= self.history.on_loss(hole.lo, hole.ccval_before, || first.unwrap_or(1.0));
        }
        let p = self.history.loss_event_rate(pkt.seq);
        if new_event || p > self.p_reported {
            self.expedited = true;
            return true;
        }
        if !is_data {
            return false;
        }
        if !self.data_seen {
            self.data_seen = true;
            return true;
        }
        if self.counter - self.fb_counter >= QUARTERS_PER_RTT {
            return true;
        }
        if self.fb_timer.is_none() {
            if let (Some(r), Some(last)) = (self.r_est, self.last_fb_at) {
                self.fb_timer = Some((last + SimDuration::from_secs_f64(r)).max(now));
            }
        }
        false
    }

    fn feedback(&mut self, now: SimTime, _seq: u64) -> DccpOptions {
        let since = self.last_fb_at.map(|t| now.saturating_since(t).as_secs_f64());
        let reuse = self.expedited && self.x_recv > 0.0;
        if !reuse {
            self.x_recv = match since {
                Some(dt) if dt > 0.0 => self.bytes_since_fb as f64 / dt,
                _ => self.x_recv,
            };
        }
        let p = self.loss_event_rate();
        self.last_fb_at = Some(now);
        self.bytes_since_fb = 0;
        self.fb_counter = self.counter;
        self.p_reported = p;
        self.expedited = false;
        self.fb_timer = None;
        DccpOptions::Tfrc(TfrcFeedback {
            elapsed: now.saturating_since(self.high_at),
            x_recv: self.x_recv,
            p,
        })
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.fb_timer
    }

    fn handle_timeout(&mut self, now: SimTime) -> bool {
        if self.fb_timer.is_some_and(|t| t <= now) {
            self.fb_timer = None;
            return self.bytes_since_fb > 0;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dccp::ccid3::equation::tcp_throughput;
    use crate::dccp::DccpType;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn pkt(seq: u64, ccval: u8) -> RxPacket {
        RxPacket { seq, kind: DccpType::Data, len: 1000, ccval, ack_ratio: 2, ack: None }
    }

    /// Feeds packets `seqs` 10 ms apart from `t0`, window counter +1 every 25 ms (R = 100 ms);
    /// returns the instants at which feedback was asked for.
    fn feed(rx: &mut TfrcRx, t0: u64, seqs: impl Iterator<Item = u64>) -> Vec<u64> {
        let mut fbs = Vec::new();
        for seq in seqs {
            let t = t0 + 10 * seq;
            let ccval = ((t / 25) % 16) as u8;
            if rx.on_packet(ms(t), &pkt(seq, ccval)) {
                rx.feedback(ms(t), 0);
                fbs.push(t);
            }
        }
        fbs
    }

    #[test]
    fn a_fixed_equation_size_is_the_receiver_s_s_whatever_arrives() {
        let cfg = <Ccid3Config as crate::cc::CcParams>::preset("ns2").unwrap();
        let mut rx = TfrcRx::new(&cfg);
        assert_eq!(rx.s, 500.0);
        let mut measured = TfrcRx::new(&Ccid3Config::default());
        for seq in 1..50 {
            let packet = RxPacket { len: 160, ..pkt(seq, (seq / 3 % 16) as u8) };
            rx.on_packet(SimTime::from_millis(seq * 10), &packet);
            measured.on_packet(SimTime::from_millis(seq * 10), &packet);
        }
        assert_eq!(rx.s, 500.0);
        assert!((measured.s - 160.0).abs() < 1e-9);
    }

    #[test]
    fn feedback_on_first_packet_then_once_per_rtt() {
        let mut rx = TfrcRx::new(&Ccid3Config::default());
        let fbs = feed(&mut rx, 0, 0..50);
        // First packet, then each time the counter is 4 (100 ms) past the last feedback's.
        assert_eq!(fbs, vec![0, 100, 200, 300, 400]);
        // The receiver's RTT estimate: counters 4 apart arrive 100 ms apart.
        assert!((rx.rtt_estimate().unwrap() - 0.1).abs() < 1e-9);
        assert_eq!(rx.loss_event_rate(), 0.0);
    }

    #[test]
    fn loss_is_declared_after_three_later_packets_and_expedites_feedback() {
        let mut rx = TfrcRx::new(&Ccid3Config::default());
        feed(&mut rx, 0, 0..40);
        // 40 is lost; 41 and 42 arrive: not yet.
        assert!(feed(&mut rx, 0, 41..43).iter().all(|&t| t != 420));
        assert_eq!(rx.loss_events(), 0);
        // 43 is the third packet after it: loss event, immediate feedback.
        let fbs = feed(&mut rx, 0, 43..44);
        assert_eq!(fbs, vec![430]);
        assert_eq!(rx.loss_events(), 1);
        // First interval synthesised from X_recv, 1000 B per 10 ms = 100 000 B/s, at the
        // receiver's R (≈ 101 ms: the loss delayed the first arrival of counter 16 by 10 ms).
        let p = rx.loss_event_rate();
        let x = tcp_throughput(1000.0, rx.rtt_estimate().unwrap(), p);
        assert!((x - 100_000.0).abs() < 1.0, "X_calc(p) = {x}");
    }

    #[test]
    fn losses_within_one_rtt_are_one_event_and_later_ones_start_another() {
        let mut rx = TfrcRx::new(&Ccid3Config::default());
        // Lose 40 and 45 (50 ms apart: one event), then 60 (200 ms after 40: a new event).
        let seqs = (0..100).filter(|s| ![40, 45, 60].contains(s));
        feed(&mut rx, 0, seqs);
        assert_eq!(rx.loss_events(), 2);
    }

    #[test]
    fn open_interval_lowers_p_as_loss_free_packets_arrive() {
        let mut rx = TfrcRx::new(&Ccid3Config::default());
        feed(&mut rx, 0, (0..200).filter(|s| *s != 50 && *s != 120));
        let p1 = rx.loss_event_rate();
        feed(&mut rx, 0, 200..2000);
        let p2 = rx.loss_event_rate();
        assert!(p2 < p1 / 3.0, "{p1} → {p2}");
    }

    #[test]
    fn feedback_reports_the_receive_rate_and_elapsed_time() {
        let mut rx = TfrcRx::new(&Ccid3Config::default());
        feed(&mut rx, 0, 0..11); // feedback at 0 and 100 ms
        let DccpOptions::Tfrc(f) = rx.feedback(ms(100), 0) else { panic!() };
        // Nothing received since the feedback at 100 ms; elapsed since packet 10 arrived: 0.
        assert_eq!(f.elapsed, SimDuration::ZERO);
        feed(&mut rx, 0, 11..15);
        let DccpOptions::Tfrc(f) = rx.feedback(ms(145), 0) else { panic!() };
        // 4 packets of 1000 B in 45 ms; packet 14 arrived 5 ms ago.
        assert!((f.x_recv - 4000.0 / 0.045).abs() < 1e-6);
        assert_eq!(f.elapsed, SimDuration::from_millis(5));
    }

    #[test]
    fn feedback_timer_covers_a_silent_period() {
        let mut rx = TfrcRx::new(&Ccid3Config::default());
        feed(&mut rx, 0, 0..12); // feedback at 100 ms; 110 arrives after it
        assert_eq!(rx.poll_timeout(), Some(ms(200)));
        assert!(rx.handle_timeout(ms(200)));
    }
}
