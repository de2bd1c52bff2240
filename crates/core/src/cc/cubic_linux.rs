//! CUBIC in Linux's own arithmetic (`net/ipv4/tcp_cubic.c`, 6.x): whole segments, a jiffy clock,
//! and a per-ACK increment that is recomputed only now and then. `cubic.rs` runs it for
//! `arithmetic = "linux"` (preset `cubic@linux-6`, the `linux` stack's CUBIC). The curve and the
//! Reno-friendly region are RFC 9438's; the numbers they give at small windows are not.
//!
//! ```text
//! cwnd, ssthresh, W_max: whole segments. cwnd += 1 each time `cnt` segments have been acked;
//!     credit collected under a larger `cnt` is spent at once when it drops  (tcp_cong_avoid_ai)
//! clock: jiffies, `hz` per second (CONFIG_HZ; 250 on the testbed machine: 4 ms)
//! cnt is recomputed when cwnd changed since the last time, or HZ/32 jiffies later, and at most
//!     once per jiffy (the Reno-friendly part still runs)                       (bictcp_update)
//! epoch start (first ACK after a reduction): ack_cnt = acked, W_tcp = cwnd,
//!     K = ⌊∛(F·(W_max − cwnd))⌋, origin = W_max;  K = 0, origin = cwnd if W_max ≤ cwnd
//! t      = (jiffies since the epoch + ⌈delay_min⌉ in jiffies)·1024 / HZ              1/1024 s
//! target = origin ∓ ⌊S·|t − K|³ / 2^40⌋  (− while t < K)
//! cnt    = ⌊cwnd / (target − cwnd)⌋ if target > cwnd, else 100·cwnd;  at most 20 if W_max = 0
//! Reno-friendly: W_tcp += 1 per ⌊cwnd·B/8⌋ acked;  if W_tcp > cwnd: cnt ≤ ⌊cwnd/(W_tcp − cwnd)⌋
//! cnt ≥ 2
//! loss or ECN: W_max = ⌊cwnd·(1024+β')/2048⌋ if cwnd < W_max (fast convergence), else cwnd;
//!              ssthresh = max(⌊cwnd·β'/1024⌋, 2); epoch ends; credit cleared
//! timeout: the same, then all of the above is forgotten, delay_min too     (cubictcp_state, Loss)
//! delay_min: the smallest RTT sample, ignoring those within one second of an epoch's start
//!
//! with S = 1024·C (cube_rtt_scale = 410 for C = 0.4), F = ⌊2^40/S⌋ (cube_factor),
//!      β' = 1024·β (717), B = ⌊⌊8(1024+β')/3⌋/(1024−β')⌋ (beta_scale = 15)
//! ```
//!
//! The truncations matter at small windows. After a loss at cwnd 3 (W_max 3, cwnd 2) the cubic
//! term is ⌊410·1385³/2^40⌋ = 0 segments, so the target is W_max itself and the first ACK of the
//! epoch puts cwnd back at 3; there the target equals cwnd, `cnt` becomes 300, and nothing grows
//! until HZ/32 later the Reno-friendly estimate, fed by every ACK meanwhile, lowers `cnt` to 2.
//! The real-valued curve (`cubic.rs`) starts from 2.1 and climbs past 3 within a few round trips.
//!
//! Deviations: K from an exact integer cube root (Linux: a table and one Newton step, 0.2 %
//! average error); jiffies count from the start of the run, not from boot.

use super::CcState;
use crate::time::{SimDuration, SimTime};

/// BICTCP_BETA_SCALE: β and the fast-convergence factor are in 1/1024.
const BETA_SCALE: u64 = 1024;
/// BICTCP_HZ: the curve's clock runs in 1/2^10 s.
const CURVE_HZ_SHIFT: u32 = 10;
/// `cnt` per segment of cwnd when the target is not above cwnd: "very small increment".
const FLAT_CNT_PER_SEGMENT: u64 = 100;
/// `cnt` cap while no W_max is known: at least 5 % of cwnd per RTT (Linux ≥ 2.6.25).
const NO_WMAX_MAX_CNT: u64 = 20;
/// At most one segment per two acknowledged: cwnd grows at most 1.5× per RTT.
const MIN_CNT: u64 = 2;
/// cubictcp_acked ignores RTT samples for `HZ` jiffies (one second) after an epoch begins.
const DELAY_MIN_HOLDOFF_S: u64 = 1;
/// ns per second, for the jiffy clock.
const NANOS_PER_S: u128 = 1_000_000_000;

/// The constants `cubictcp_register` derives once from the module parameters.
#[derive(Clone, Copy, Debug)]
struct Scales {
    hz: u64,
    /// Linux `cube_rtt_scale` = bic_scale·10, i.e. 1024·C.
    cube_rtt_scale: u64,
    /// Linux `cube_factor` = 2^40 / cube_rtt_scale.
    cube_factor: u64,
    /// β·1024.
    beta: u64,
    /// Linux `beta_scale`: W_tcp grows by one per cwnd·beta_scale/8 acked segments.
    beta_scale: u64,
}

/// `struct bictcp` and the credit it drives (`tp->snd_cwnd_cnt`); all zero at a timeout.
#[derive(Clone, Copy, Debug, Default)]
struct State {
    /// Acked segments per one-segment increase.
    cnt: u64,
    /// Acked segments towards the next increase (`snd_cwnd_cnt`).
    credit: u64,
    /// W_max, segments; 0 when unknown.
    last_max: u64,
    last_cwnd: u64,
    /// Jiffy `cnt` was last recomputed.
    last_time: u64,
    origin: u64,
    /// K, 1/1024 s.
    k: u64,
    delay_min: Option<SimDuration>,
    /// Jiffy the epoch began; `None` from a reduction to the next ACK.
    epoch_start: Option<u64>,
    ack_cnt: u64,
    /// The Reno-friendly estimate W_tcp, segments.
    tcp_cwnd: u64,
}

#[derive(Clone, Debug)]
pub(super) struct LinuxCubic {
    scales: Scales,
    fast_convergence: bool,
    friendliness: bool,
    s: State,
}

/// ⌊∛x⌋, exact.
fn cube_root(x: u64) -> u64 {
    let cube = |r: u64| u128::from(r).pow(3);
    let mut r = (x as f64).cbrt() as u64;
    while cube(r + 1) <= u128::from(x) {
        r += 1;
    }
    while r > 0 && cube(r) > u128::from(x) {
        r -= 1;
    }
    r
}

/// cwnd as Linux holds it: whole segments, at least one (`as` truncates: the floor of a window,
/// without `f64::floor`'s library call on every ACK).
fn whole(cwnd: f64) -> u64 {
    (cwnd as u64).max(1)
}

impl LinuxCubic {
    /// `c` (segments/s³) and `beta` as in `CubicConfig`, `hz` the jiffy rate.
    pub(super) fn new(
        c: f64,
        beta: f64,
        fast_convergence: bool,
        friendliness: bool,
        hz: u32,
    ) -> Self {
        let cube_rtt_scale = ((c * BETA_SCALE as f64).round() as u64).max(1);
        let beta = ((beta * BETA_SCALE as f64).round() as u64).clamp(1, BETA_SCALE - 1);
        let scales = Scales {
            hz: u64::from(hz.max(1)),
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * CURVE_HZ_SHIFT)) / cube_rtt_scale,
            beta,
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
        };
        LinuxCubic { scales, fast_convergence, friendliness, s: State::default() }
    }

    fn jiffies(&self, now: SimTime) -> u64 {
        (u128::from(now.as_nanos()) * u128::from(self.scales.hz) / NANOS_PER_S) as u64
    }

    /// `d` in jiffies, rounded up (usecs_to_jiffies).
    fn jiffies_ceil(&self, d: SimDuration) -> u64 {
        (u128::from(d.as_nanos()) * u128::from(self.scales.hz)).div_ceil(NANOS_PER_S) as u64
    }

    /// W_max, segments, once a reduction set one.
    pub(super) fn w_max(&self) -> Option<f64> {
        (self.s.last_max > 0).then_some(self.s.last_max as f64)
    }
    /// Linux `delay_min`, HyStart's RTT_min.
    pub(super) fn delay_min(&self) -> Option<SimDuration> {
        self.s.delay_min
    }

    /// An RTT sample (cubictcp_acked).
    pub(super) fn on_rtt_sample(&mut self, now: SimTime, rtt: SimDuration) {
        let holdoff = DELAY_MIN_HOLDOFF_S * self.scales.hz;
        if self.s.epoch_start.is_some_and(|e| self.jiffies(now).saturating_sub(e) < holdoff) {
            return;
        }
        let rtt = rtt.max(SimDuration::from_micros(1));
        self.s.delay_min = Some(self.s.delay_min.map_or(rtt, |m| m.min(rtt)));
    }

    /// Congestion avoidance for `acked` segments: bictcp_update, then tcp_cong_avoid_ai.
    pub(super) fn congestion_avoidance(&mut self, st: &mut CcState, now: SimTime, acked: u64) {
        let mut cwnd = whole(st.cwnd);
        self.update_cnt(cwnd, self.jiffies(now), acked);
        let w = self.s.cnt;
        let s = &mut self.s;
        if s.credit >= w {
            s.credit = 0;
            cwnd += 1;
        }
        s.credit += acked;
        if s.credit >= w {
            let steps = s.credit / w;
            s.credit -= steps * w;
            cwnd += steps;
        }
        st.cwnd = cwnd as f64;
    }

    fn update_cnt(&mut self, cwnd: u64, now: u64, acked: u64) {
        let sc = self.scales;
        let delay_min = self.s.delay_min.map_or(0, |d| self.jiffies_ceil(d));
        let s = &mut self.s;
        s.ack_cnt += acked;
        if s.last_cwnd == cwnd && now.saturating_sub(s.last_time) <= sc.hz / 32 {
            return;
        }
        if !(s.epoch_start.is_some() && now == s.last_time) {
            s.last_cwnd = cwnd;
            s.last_time = now;
            let epoch = *s.epoch_start.get_or_insert_with(|| {
                s.ack_cnt = acked;
                s.tcp_cwnd = cwnd;
                (s.k, s.origin) = if s.last_max <= cwnd {
                    (0, cwnd)
                } else {
                    (cube_root(sc.cube_factor * (s.last_max - cwnd)), s.last_max)
                };
                now
            });
            let t = ((now - epoch + delay_min) << CURVE_HZ_SHIFT) / sc.hz;
            let offs = u128::from(t.abs_diff(s.k));
            let delta = ((u128::from(sc.cube_rtt_scale) * offs * offs * offs)
                >> (10 + 3 * CURVE_HZ_SHIFT)) as u64;
            let target = if t < s.k { s.origin.saturating_sub(delta) } else { s.origin + delta };
            s.cnt =
                if target > cwnd { cwnd / (target - cwnd) } else { FLAT_CNT_PER_SEGMENT * cwnd };
            if s.last_max == 0 {
                s.cnt = s.cnt.min(NO_WMAX_MAX_CNT);
            }
        }
        if self.friendliness {
            let per_segment = (cwnd * sc.beta_scale) >> 3;
            if per_segment > 0 && s.ack_cnt > per_segment {
                // Linux subtracts one step at a time while ack_cnt exceeds it.
                let steps = (s.ack_cnt - 1) / per_segment;
                s.ack_cnt -= steps * per_segment;
                s.tcp_cwnd += steps;
            }
            if s.tcp_cwnd > cwnd {
                s.cnt = s.cnt.min(cwnd / (s.tcp_cwnd - cwnd));
            }
        }
        s.cnt = s.cnt.max(MIN_CNT);
    }

    /// A loss or ECN reduction (cubictcp_recalc_ssthresh; tcp_init_cwnd_reduction clears the
    /// credit): sets `st.ssthresh`.
    pub(super) fn on_reduction(&mut self, st: &mut CcState) {
        let cwnd = whole(st.cwnd);
        let s = &mut self.s;
        s.epoch_start = None;
        s.last_max = if self.fast_convergence && cwnd < s.last_max {
            cwnd * (BETA_SCALE + self.scales.beta) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        s.credit = 0;
        st.ssthresh = (cwnd * self.scales.beta / BETA_SCALE).max(2) as f64;
    }

    /// A retransmission timeout: the reduction, then everything forgotten (cubictcp_state resets
    /// `struct bictcp` on entering TCP_CA_Loss).
    pub(super) fn on_timeout(&mut self, st: &mut CcState) {
        self.on_reduction(st);
        self.s = State::default();
    }

    /// The first segment after an idle spell (CA_EVENT_TX_START): the epoch moves by the idle
    /// jiffies, not past now.
    pub(super) fn on_restart(&mut self, now: SimTime, last_sent: SimTime) {
        let (now, last) = (self.jiffies(now), self.jiffies(last_sent));
        if let Some(e) = self.s.epoch_start.as_mut() {
            if now > last {
                *e = (*e + (now - last)).min(now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// Linux's CUBIC with its default module parameters at HZ = 250.
    fn linux() -> LinuxCubic {
        LinuxCubic::new(0.4, 0.7, true, true, 250)
    }

    #[test]
    fn the_scales_are_linux_s_for_its_default_parameters() {
        // cubictcp_register with bic_scale = 41, beta = 717: 410, 2^40/410, 15.
        let s = linux().scales;
        assert_eq!(
            (s.cube_rtt_scale, s.cube_factor, s.beta, s.beta_scale),
            (410, 2_681_735_677, 717, 15)
        );
        assert_eq!(
            (cube_root(2_681_735_677), cube_root(27), cube_root(26), cube_root(0)),
            (1389, 3, 2, 0)
        );
    }

    #[test]
    fn after_a_loss_at_three_segments_the_first_ack_restores_three_and_the_window_then_holds() {
        // A flow at cwnd 3 with a 3 ms minimum RTT (1 jiffy) loses a segment: W_max = 3,
        // ssthresh = ⌊3·717/1024⌋ = 2, and recovery leaves cwnd at 2. By hand, at the epoch's
        // first ACK (2 segments): K = ⌊∛(2681735677·1)⌋ = 1389, t = 1 jiffy = ⌊1024/250⌋ = 4,
        // cubic term ⌊410·1385³/2^40⌋ = 0, target = 3, cnt = 2/(3−2) = 2: credit 2 ≥ 2, cwnd 3.
        let mut cc = linux();
        let mut st = CcState::new(3.0, 2.0, 1448);
        cc.on_rtt_sample(ms(0), SimDuration::from_millis(3));
        cc.on_reduction(&mut st);
        assert_eq!((st.ssthresh, cc.w_max()), (2.0, Some(3.0)));
        st.cwnd = st.ssthresh;
        let t0 = 1000; // ms, on a jiffy boundary
        cc.congestion_avoidance(&mut st, ms(t0), 2);
        assert_eq!((st.cwnd, cc.s.k, cc.s.origin, cc.s.cnt), (3.0, 1389, 3, 2));
        // Next ACK, a jiffy later: cwnd changed, so cnt is recomputed: target 3 = cwnd, cnt 300.
        // Friendliness: ack_cnt 2 + 2 = 4 ≤ ⌊3·15/8⌋ = 5, W_tcp stays 2.
        cc.congestion_avoidance(&mut st, ms(t0 + 5), 2);
        assert_eq!((st.cwnd, cc.s.cnt, cc.s.ack_cnt, cc.s.tcp_cwnd), (3.0, 300, 4, 2));
        // ACKs of 3 segments every 5 ms: cwnd unchanged, so cnt stays 300 until more than
        // HZ/32 = 7 jiffies have passed since it was computed (jiffy 251): through 1035 ms
        // (jiffy 258) the window holds at 3 while ack_cnt and the credit grow.
        for t in (t0 + 10..=t0 + 35).step_by(5) {
            cc.congestion_avoidance(&mut st, ms(t), 3);
            assert_eq!((st.cwnd, cc.s.cnt), (3.0, 300), "at {t} ms");
        }
        assert_eq!((cc.s.ack_cnt, cc.s.credit), (4 + 6 * 3, 2 + 6 * 3));
        // At 1040 ms (jiffy 260) cnt is recomputed: the target is still 3 (the cubic term is 0
        // until |t − K|³·410 reaches 2^40), but ack_cnt 25 gives W_tcp ⌊24/5⌋ = 4 more, 6 > 3,
        // so cnt = ⌊3/3⌋ = 1 → 2. The credit (20 ≥ 2) buys a segment at once and this ACK's 3
        // another: cwnd 5, credit 1.
        cc.congestion_avoidance(&mut st, ms(t0 + 40), 3);
        assert_eq!((cc.s.tcp_cwnd, cc.s.ack_cnt, cc.s.cnt), (6, 5, 2));
        assert_eq!((st.cwnd, cc.s.credit), (5.0, 1));
    }

    #[test]
    fn the_increment_is_recomputed_at_most_once_per_jiffy() {
        // No W_max (start): cnt ≤ 20. cwnd 10 and ACKs of 10 segments at 1 ms intervals inside
        // one jiffy: the first computes cnt, the others in the same jiffy reuse it, even though
        // cwnd changed in between (bictcp_update's "at most once per jiffy").
        let mut cc = linux();
        let mut st = CcState::new(10.0, 10.0, 1448);
        cc.congestion_avoidance(&mut st, ms(1000), 10);
        assert_eq!((cc.s.cnt, st.cwnd), (20, 10.0));
        cc.congestion_avoidance(&mut st, ms(1001), 10);
        assert_eq!(st.cwnd, 11.0);
        let before = cc.s.last_time;
        cc.congestion_avoidance(&mut st, ms(1002), 10);
        assert_eq!((cc.s.last_time, cc.s.last_cwnd), (before, 10), "cwnd 11 not yet looked at");
        cc.congestion_avoidance(&mut st, ms(1004), 1);
        assert_eq!((cc.s.last_time, cc.s.last_cwnd), (251, 11), "the next jiffy does");
    }

    #[test]
    fn a_timeout_forgets_w_max_and_delay_min_and_the_next_growth_is_five_percent_per_rtt() {
        let mut cc = linux();
        let mut st = CcState::new(40.0, 30.0, 1448);
        cc.on_rtt_sample(ms(0), SimDuration::from_millis(100));
        cc.on_timeout(&mut st);
        assert_eq!((st.ssthresh, cc.w_max(), cc.delay_min()), (28.0, None, None));
        // Slow start is the transport's; in congestion avoidance at cwnd 40 with no W_max the
        // curve from K = 0 is flat at first, so cnt is its cap, 20: one segment per 20 acked.
        st.cwnd = 40.0;
        cc.congestion_avoidance(&mut st, ms(2000), 19);
        assert_eq!((cc.s.cnt, st.cwnd), (20, 40.0));
        cc.congestion_avoidance(&mut st, ms(2000), 1);
        assert_eq!(st.cwnd, 41.0);
    }

    #[test]
    fn fast_convergence_and_ssthresh_in_whole_segments() {
        let mut cc = linux();
        let mut st = CcState::new(100.0, f64::INFINITY, 1448);
        cc.on_reduction(&mut st);
        assert_eq!((cc.w_max(), st.ssthresh), (Some(100.0), 70.0)); // ⌊100·717/1024⌋
        st.cwnd = 90.7; // below W_max: W_max = ⌊90·1741/2048⌋ = 76
        cc.on_reduction(&mut st);
        assert_eq!((cc.w_max(), st.ssthresh), (Some(76.0), 63.0));
        st.cwnd = 2.0;
        cc.on_reduction(&mut st);
        assert_eq!(st.ssthresh, 2.0);
    }

    #[test]
    fn delay_min_ignores_the_first_second_of_an_epoch() {
        let mut cc = linux();
        let mut st = CcState::new(10.0, 5.0, 1448);
        cc.on_rtt_sample(ms(0), SimDuration::from_millis(50));
        cc.congestion_avoidance(&mut st, ms(100), 1); // the epoch begins at 100 ms
        cc.on_rtt_sample(ms(600), SimDuration::from_millis(20));
        assert_eq!(cc.delay_min(), Some(SimDuration::from_millis(50)));
        cc.on_rtt_sample(ms(1100), SimDuration::from_millis(20));
        assert_eq!(cc.delay_min(), Some(SimDuration::from_millis(20)));
    }
}
