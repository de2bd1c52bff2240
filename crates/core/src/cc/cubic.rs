//! CUBIC (Ha, Rhee, Xu 2008; RFC 9438) with HyStart (Ha & Rhee 2011; Linux `tcp_cubic.c`).
//!
//! ```text
//! congestion avoidance, t = seconds since the epoch (this congestion-avoidance stage) began:
//!   W_cubic(t) = C·(t − K)³ + W_max                                    RFC 9438 §4.2 Fig. 1
//!   K = ∛((W_max − cwnd_epoch)/C)       = ∛(W_max·(1−β)/C) right after a reduction to β·W_max
//!   target = clamp(W_cubic(t + RTT), cwnd, 1.5·cwnd)                               §4.2
//!   per ACK:  cwnd += (target − cwnd)/cwnd · acked           concave and convex regions §4.4–4.5
//!   Reno-friendly region (§4.3):  W_est = cwnd_epoch at the epoch start, then per ACK
//!             W_est += α·acked/cwnd,  α = 3(1−β)/(1+β), α = 1 once W_est ≥ cwnd_prior
//!             cwnd = max(cwnd, W_est)                       ("chooses the larger of the two", §4.2)
//! loss or ECN (§4.6, §4.7):  W_max = cwnd·(1+β)/2 if cwnd < W_max (fast convergence), else cwnd
//!             cwnd_prior = cwnd;   ssthresh = max(β·cwnd, 2)
//! timeout (§4.8):  as a loss, then W_max is forgotten
//! no W_max (start, after a timeout, after a HyStart exit; §4.8, §4.10): K = 0, W_max = cwnd_epoch
//!
//! HyStart, in slow start once cwnd ≥ low_window (16); a round ends when SND.UNA passes the
//! SND.NXT noted at its start. Either detector sets ssthresh = cwnd, ending slow start:
//!   ACK train: ACKs ≤ 2 ms apart since the round began, and the train spans > RTT_min / 2
//!   delay:     after 8 samples in the round, min RTT of the round > RTT_min + clamp(RTT_min/8, 4 ms, 16 ms)
//! ```
//!
//! References: S. Ha, I. Rhee, L. Xu, "CUBIC: A New TCP-Friendly High-Speed TCP Variant", ACM
//! SIGOPS OSR 42(5), 2008; L. Xu et al., RFC 9438, 2023; S. Ha, I. Rhee, "Taming the elephants:
//! New TCP slow start", Computer Networks 55(9), 2011; Linux `net/ipv4/tcp_cubic.c` (6.x, and
//! 2.6.22 as embedded in ns-2's TCP-Linux, for the presets).
//!
//! Not implemented / deviates:
//! - ssthresh is β·cwnd (Linux) rather than β·flight_size (RFC 9438 Fig. 5); RFC 9438 §4.6
//!   permits cwnd when the window cannot grow while the sender is not cwnd-limited, which the
//!   transport guarantees (Linux `tcp_is_cwnd_limited`).
//! - When the target is not above cwnd the window stays (RFC); Linux adds 1/(100·cwnd) per ACK.
//! - RFC 9438 §4.3 sets cwnd = W_est when W_cubic(t) < W_est; here cwnd = max(cwnd, W_est) on
//!   every ACK (the "larger of the two" of §4.2, as Linux's `tcp_friendliness`). The two differ
//!   only while cwnd lags the curve.
//! - With `arithmetic = "real"` every ACK moves the window in floating point; Linux recomputes
//!   its per-ACK increment at most once per jiffy (`HZ/32` when cwnd is unchanged), in integers
//!   and whole segments, which `arithmetic = "linux"` (`cubic_linux.rs`, preset `linux-6`, the
//!   `linux` stack's CUBIC) does as Linux does.
//! - RTT_min is the transport's minimum RTT; Linux's `delay_min` also ignores samples in the first
//!   second of an epoch and restarts after a timeout (as `arithmetic = "linux"` does).
//! - HyStart's ACK-train threshold omits Linux 6.x's TSO/GRO cushion (`hystart_ack_delay`, at
//!   most 1 ms): the simulator sends no aggregates. It is RTT_min/2 as for an unpaced Linux socket.
//! - Spurious-congestion undo (RFC 9438 §4.9) is not implemented.
//! - Application-limited periods: as Linux (`CA_EVENT_TX_START`), the epoch is shifted by the idle
//!   time when a segment is sent with nothing outstanding; shorter app-limited spells count.

use super::cubic_linux::LinuxCubic;
use super::{
    check_param, slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
    CongestionKind, MAX_SEGMENTS,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Which RTT the target `W_cubic(t + RTT)` looks ahead by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetRtt {
    /// The smoothed RTT (RFC 9438 §4.1.2, §4.2).
    Srtt,
    /// The minimum RTT (Linux `ca->delay_min`).
    MinRtt,
}

/// The numbers the curve is computed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arithmetic {
    /// Real numbers and the exact send time: the curve as RFC 9438 writes it.
    Real,
    /// Linux `tcp_cubic.c`: whole segments, a jiffy clock at `hz`, the increment recomputed at
    /// most once per jiffy (`cubic_linux.rs`).
    Linux,
}

/// How the window grows in congestion avoidance while no W_max is known (before the first loss,
/// after a timeout, after a HyStart exit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoWmaxRule {
    /// The cubic curve from K = 0, W_max = cwnd_epoch (RFC 9438 §4.8, §4.10).
    Curve,
    /// The curve, but at least `no_wmax_growth`·cwnd per RTT (Linux ≥ 2.6.25: `cnt` ≤ 20).
    Floor,
    /// Exactly `no_wmax_growth`·cwnd per RTT, whatever the curve (Linux 2.6.22: `cnt = 50`).
    Fixed,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, segments/s³: aggressiveness of the curve (RFC 9438 §5.1: 0.4).
    pub c: f64,
    /// β_cubic, multiplicative decrease factor (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7: SHOULD; Linux `fast_convergence = 1`).
    pub fast_convergence: bool,
    /// The Reno-friendly region W_est (RFC 9438 §4.3; Linux `tcp_friendliness = 1`).
    pub reno_friendly: bool,
    /// α_cubic becomes 1 once W_est ≥ cwnd_prior (RFC 9438 §4.3 SHOULD; not in Linux).
    pub reno_friendly_alpha_switch: bool,
    /// The RTT in the target W_cubic(t + RTT): `"srtt"` (RFC 9438 §4.2) or `"min_rtt"` (Linux).
    pub target_rtt: TargetRtt,
    /// Convex-region cap, segments per 100 ms of minimum RTT (Linux ≤ 2.6.25 `max_increment`
    /// = 16); 0 = no cap (RFC 9438, Linux ≥ 2.6.26).
    pub max_increment: f64,
    /// Growth while no W_max is known: `"curve"` (RFC 9438), `"floor"` (Linux 6.x), `"fixed"` (Linux 2.6.22).
    pub no_wmax_rule: NoWmaxRule,
    /// Fraction of cwnd per RTT used by `no_wmax_rule` `"floor"`/`"fixed"` (Linux 6.x: 1/20; 2.6.22: 1/50).
    pub no_wmax_growth: f64,
    /// `"real"` (RFC 9438) or `"linux"` (Linux 6.x's integers and jiffies, `cubic_linux.rs`;
    /// it has Linux's own rules for what `reno_friendly_alpha_switch`, `target_rtt`,
    /// `max_increment` and `no_wmax_*` choose, so those must hold the `linux-6` values).
    pub arithmetic: Arithmetic,
    /// Jiffies per second of the `"linux"` arithmetic (CONFIG_HZ: 250 on Debian's and Ubuntu's
    /// kernels and on the testbed machine, 1000 on Fedora's).
    pub hz: u32,
    /// HyStart (Linux `hystart = 1`; RFC 9438 §4.10 allows it as the predecessor of HyStart++).
    pub hystart: bool,
    /// HyStart ACK-train detector (Linux `hystart_detect` bit 1).
    pub hystart_ack_train: bool,
    /// HyStart delay-increase detector (Linux `hystart_detect` bit 2).
    pub hystart_delay: bool,
    /// HyStart acts only when cwnd ≥ this, segments (Linux `hystart_low_window = 16`).
    pub hystart_low_window: f64,
    /// Largest ACK spacing that continues a train, ms (Linux `hystart_ack_delta_us = 2000`).
    pub hystart_ack_delta_ms: f64,
    /// Lower clamp of the delay threshold RTT_min/8, ms (Linux `HYSTART_DELAY_MIN` = 4 ms).
    pub hystart_delay_min_ms: f64,
    /// Upper clamp of the delay threshold, ms (Linux `HYSTART_DELAY_MAX` = 16 ms).
    pub hystart_delay_max_ms: f64,
    /// RTT samples per round before the delay detector may fire (Linux `HYSTART_MIN_SAMPLES` = 8).
    pub hystart_min_samples: u32,
}

impl Default for CubicConfig {
    /// RFC 9438, with HyStart as in Linux 6.x.
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            reno_friendly_alpha_switch: true,
            target_rtt: TargetRtt::Srtt,
            max_increment: 0.0,
            no_wmax_rule: NoWmaxRule::Curve,
            no_wmax_growth: 0.05,
            arithmetic: Arithmetic::Real,
            hz: 250,
            hystart: true,
            hystart_ack_train: true,
            hystart_delay: true,
            hystart_low_window: 16.0,
            hystart_ack_delta_ms: 2.0,
            hystart_delay_min_ms: 4.0,
            hystart_delay_max_ms: 16.0,
            hystart_min_samples: 8,
        }
    }
}

impl CcParams for CubicConfig {
    fn validate(&self) -> Result<(), String> {
        // RFC 9438 §5.1: C = 0.4; beyond 100 the cubic reaches W_max within a few ms.
        check_param("c", self.c, self.c > 0.0 && self.c <= 100.0, "a number in (0, 100]")?;
        check_param("beta", self.beta, self.beta > 0.0 && self.beta < 1.0, "a number in (0, 1)")?;
        for (name, v) in
            [("max_increment", self.max_increment), ("hystart_low_window", self.hystart_low_window)]
        {
            check_param(name, v, (0.0..=MAX_SEGMENTS).contains(&v), "segments in [0, 1000000]")?;
        }
        // A fraction of cwnd per RTT: 1 doubles the window every round trip, as slow start.
        check_param(
            "no_wmax_growth",
            self.no_wmax_growth,
            (0.0..=1.0).contains(&self.no_wmax_growth),
            "a fraction of cwnd in [0, 1]",
        )?;
        for (name, v) in [
            ("hystart_ack_delta_ms", self.hystart_ack_delta_ms),
            ("hystart_delay_min_ms", self.hystart_delay_min_ms),
            ("hystart_delay_max_ms", self.hystart_delay_max_ms),
        ] {
            check_param(name, v, (0.0..=60_000.0).contains(&v), "milliseconds in [0, 60000]")?;
        }
        // Linux builds with HZ from 100 to 1000; 10000 leaves room and keeps a jiffy ≥ 100 µs.
        check_param(
            "hz",
            f64::from(self.hz),
            (1..=10_000).contains(&self.hz),
            "ticks per second in [1, 10000]",
        )?;
        if self.arithmetic == Arithmetic::Linux {
            let linux = Self::preset("linux-6").expect("the preset exists");
            let fixed = [
                (
                    "reno_friendly_alpha_switch",
                    self.reno_friendly_alpha_switch == linux.reno_friendly_alpha_switch,
                ),
                ("target_rtt", self.target_rtt == linux.target_rtt),
                ("max_increment", self.max_increment == linux.max_increment),
                ("no_wmax_rule", self.no_wmax_rule == linux.no_wmax_rule),
                ("no_wmax_growth", self.no_wmax_growth == linux.no_wmax_growth),
            ];
            if let Some((name, _)) = fixed.iter().find(|(_, same)| !same) {
                return Err(format!("{name}: arithmetic \"linux\" follows Linux's own rule here; leave {name} at the linux-6 value or set arithmetic = \"real\""));
            }
        }
        Ok(())
    }

    const PRESETS: &'static [(&'static str, &'static str)] = &[
        ("rfc9438", "RFC 9438 (2023) with HyStart as in Linux 6.x: beta 0.7, C 0.4; the plain name"),
        ("linux-6", "Linux 6.x tcp_cubic.c in its own arithmetic (whole segments, jiffies at hz): beta 717/1024, C 410/1024, target by min RTT, >= 5%/RTT growth without W_max, no alpha switch; the linux stack's cubic"),
        ("linux-2.6.22", "Linux 2.6.22 CUBIC v2.1 as in ns-2 TCP-Linux and the seed papers: beta 819/1024, C 410/1024, max_increment 16, no HyStart"),
    ];

    fn preset(name: &str) -> Option<Self> {
        // Linux: C = bic_scale·10/1024 with bic_scale = 41 (cube_rtt_scale), β = beta/1024.
        let linux_c = 410.0 / 1024.0;
        match name {
            "rfc9438" => Some(CubicConfig::default()),
            "linux-6" => Some(CubicConfig {
                c: linux_c,
                beta: 717.0 / 1024.0,
                reno_friendly_alpha_switch: false,
                target_rtt: TargetRtt::MinRtt,
                no_wmax_rule: NoWmaxRule::Floor,
                no_wmax_growth: 1.0 / 20.0,
                arithmetic: Arithmetic::Linux,
                ..CubicConfig::default()
            }),
            "linux-2.6.22" => Some(CubicConfig {
                c: linux_c,
                beta: 819.0 / 1024.0,
                reno_friendly_alpha_switch: false,
                target_rtt: TargetRtt::MinRtt,
                max_increment: 16.0,
                no_wmax_rule: NoWmaxRule::Fixed,
                no_wmax_growth: 1.0 / 50.0,
                hystart: false,
                ..CubicConfig::default()
            }),
            _ => None,
        }
    }
}

/// Which HyStart detector ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartExit {
    AckTrain,
    Delay,
}

/// One congestion-avoidance stage.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    /// t_epoch; moved forward by idle periods.
    start: SimTime,
    /// The curve's plateau W_max for this epoch (Linux `bic_origin_point`), segments.
    origin: f64,
    /// Reno-friendly estimate W_est, segments.
    w_est: f64,
    /// K = ∛((origin − cwnd_epoch)/C), seconds, with cwnd_epoch the window when the epoch
    /// began: fixed for the epoch, so computed once.
    k: f64,
}

/// The curve one RTT ahead of now.
struct CurvePoint {
    /// W_cubic(t + RTT).
    ahead: f64,
    /// Most the window may grow this RTT in the convex part (`max_increment`), segments.
    convex_cap: Option<f64>,
}

/// HyStart's per-round state (Linux `bictcp_hystart_reset`).
#[derive(Clone, Copy, Debug)]
struct Round {
    /// The round ends when SND.UNA passes this segment (SND.NXT at its start).
    end_seq: u64,
    start: SimTime,
    /// Arrival of the last ACK of the current train.
    last_ack: SimTime,
    /// Smallest RTT sample of the round.
    curr_rtt: SimDuration,
    samples: u32,
}

pub struct Cubic {
    cfg: CubicConfig,
    /// W_max, segments; `None` before the first reduction and after a timeout.
    w_max: Option<f64>,
    /// cwnd_prior: cwnd when ssthresh was last set (0 before), segments.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    last_sent: Option<SimTime>,
    round: Option<Round>,
    hystart_exit: Option<HyStartExit>,
    ack_delta: SimDuration,
    delay_clamp: (SimDuration, SimDuration),
    /// The `"linux"` arithmetic's state.
    linux: Option<LinuxCubic>,
}

fn millis(ms: f64) -> SimDuration {
    SimDuration::from_secs_f64(ms / 1e3)
}

fn half(d: SimDuration) -> SimDuration {
    SimDuration::from_nanos(d.as_nanos() / 2)
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        let ack_delta = millis(cfg.hystart_ack_delta_ms);
        let lo = millis(cfg.hystart_delay_min_ms);
        let delay_clamp = (lo, millis(cfg.hystart_delay_max_ms).max(lo));
        let linux = (cfg.arithmetic == Arithmetic::Linux).then(|| {
            LinuxCubic::new(cfg.c, cfg.beta, cfg.fast_convergence, cfg.reno_friendly, cfg.hz)
        });
        Cubic {
            linux,
            cfg,
            w_max: None,
            cwnd_prior: 0.0,
            epoch: None,
            last_sent: None,
            round: None,
            hystart_exit: None,
            ack_delta,
            delay_clamp,
        }
    }

    /// W_max in segments, if a reduction has set one.
    pub fn w_max(&self) -> Option<f64> {
        match &self.linux {
            Some(l) => l.w_max(),
            None => self.w_max,
        }
    }
    /// When the current congestion-avoidance epoch began.
    pub fn epoch_start(&self) -> Option<SimTime> {
        self.epoch.map(|e| e.start)
    }
    /// The Reno-friendly estimate W_est of the current epoch, segments.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }
    /// The HyStart detector that ended slow start, if one did.
    pub fn hystart_exit(&self) -> Option<HyStartExit> {
        self.hystart_exit
    }

    /// The curve one `target_rtt` ahead of `now`: the only place time becomes f64 seconds.
    fn curve(
        &self,
        e: &Epoch,
        now: SimTime,
        target_rtt: SimDuration,
        min_rtt: SimDuration,
    ) -> CurvePoint {
        let c = self.cfg.c;
        let ahead = now.saturating_since(e.start).as_secs_f64() + target_rtt.as_secs_f64();
        let k = e.k;
        let w = |x: f64| c * (x - k).powi(3) + e.origin;
        // Linux ≤ 2.6.25: beyond the plateau, at most max_increment segments per 100 ms of RTT_min.
        let convex_cap = (self.cfg.max_increment > 0.0 && ahead >= k)
            .then(|| self.cfg.max_increment * min_rtt.as_secs_f64() / 0.1);
        CurvePoint { ahead: w(ahead), convex_cap }
    }

    fn congestion_avoidance(&mut self, st: &mut CcState, now: SimTime, acked: f64) {
        let cwnd = st.cwnd;
        let w_max = self.w_max;
        let c = self.cfg.c;
        let mut e = *self.epoch.get_or_insert_with(|| {
            // Linux: if last_max_cwnd <= cwnd, K = 0 and the origin is cwnd.
            let origin = w_max.map_or(cwnd, |w| w.max(cwnd));
            Epoch { start: now, origin, w_est: cwnd, k: ((origin - cwnd) / c).max(0.0).cbrt() }
        });
        let (srtt, min_rtt) = (st.srtt.or(st.min_rtt), st.min_rtt.or(st.srtt));
        let target_rtt = match self.cfg.target_rtt {
            TargetRtt::Srtt => srtt,
            TargetRtt::MinRtt => min_rtt,
        };
        let p = self.curve(&e, now, target_rtt.unwrap_or_default(), min_rtt.unwrap_or_default());
        let mut target = p.ahead.clamp(cwnd, 1.5 * cwnd);
        if let Some(cap) = p.convex_cap {
            target = target.min(cwnd + cap);
        }
        if self.w_max.is_none() {
            let step = cwnd * (1.0 + self.cfg.no_wmax_growth);
            match self.cfg.no_wmax_rule {
                NoWmaxRule::Curve => {}
                NoWmaxRule::Floor => target = target.max(step),
                NoWmaxRule::Fixed => target = step,
            }
        }
        st.cwnd += (target - cwnd) / cwnd * acked;
        if self.cfg.reno_friendly {
            let beta = self.cfg.beta;
            let alpha = if self.cfg.reno_friendly_alpha_switch && e.w_est >= self.cwnd_prior {
                1.0
            } else {
                3.0 * (1.0 - beta) / (1.0 + beta)
            };
            e.w_est += alpha * acked / cwnd;
            st.cwnd = st.cwnd.max(e.w_est);
        }
        self.epoch = Some(e);
    }

    /// HyStart (Linux `hystart_update`) on an RTT sample during slow start.
    fn hystart_update(&mut self, st: &mut CcState, now: SimTime, rtt: SimDuration) {
        if self.round.is_none_or(|r| st.snd_una > r.end_seq) {
            self.round = Some(Round {
                end_seq: st.snd_nxt,
                start: now,
                last_ack: now,
                curr_rtt: SimDuration::MAX,
                samples: 0,
            });
        }
        let Some(round) = self.round.as_mut() else { return };
        if st.cwnd < self.cfg.hystart_low_window {
            return;
        }
        let rtt_min = self.linux.as_ref().map_or(st.min_rtt, |l| l.delay_min()).unwrap_or(rtt);
        let mut exit = None;
        if self.cfg.hystart_ack_train && now.saturating_since(round.last_ack) <= self.ack_delta {
            round.last_ack = now;
            if now.saturating_since(round.start) > half(rtt_min) {
                exit = Some(HyStartExit::AckTrain);
            }
        }
        if self.cfg.hystart_delay {
            round.curr_rtt = round.curr_rtt.min(rtt);
            if round.samples < self.cfg.hystart_min_samples {
                round.samples += 1;
            } else {
                let (lo, hi) = self.delay_clamp;
                let threshold = SimDuration::from_nanos(rtt_min.as_nanos() / 8).clamp(lo, hi);
                if round.curr_rtt > rtt_min + threshold {
                    exit = exit.or(Some(HyStartExit::Delay));
                }
            }
        }
        if exit.is_some() {
            self.hystart_exit = exit;
            st.ssthresh = st.cwnd;
            self.cwnd_prior = st.cwnd; // RFC 9438 §4.10
        }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let acked = slow_start(st, ack.acked);
        if acked == 0 {
            return;
        }
        if let Some(l) = self.linux.as_mut() {
            l.congestion_avoidance(st, ack.now, acked);
            return;
        }
        self.congestion_avoidance(st, ack.now, acked as f64);
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        if let Some(l) = self.linux.as_mut() {
            if ev.kind == CongestionKind::Timeout {
                l.on_timeout(st);
                self.round = None;
                self.hystart_exit = None;
            } else {
                l.on_reduction(st);
            }
            return;
        }
        let cwnd = st.cwnd;
        self.epoch = None;
        self.w_max = Some(match self.w_max {
            Some(w) if self.cfg.fast_convergence && cwnd < w => cwnd * (1.0 + self.cfg.beta) / 2.0,
            _ => cwnd,
        });
        self.cwnd_prior = cwnd;
        st.ssthresh = (self.cfg.beta * cwnd).max(2.0);
        if ev.kind == CongestionKind::Timeout {
            // RFC 9438 §4.8; Linux `bictcp_reset` + `bictcp_hystart_reset` on TCP_CA_Loss.
            self.w_max = None;
            self.round = None;
            self.hystart_exit = None;
        }
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, now: SimTime, rtt: SimDuration) {
        if let Some(l) = self.linux.as_mut() {
            l.on_rtt_sample(now, rtt);
        }
        if self.cfg.hystart && self.hystart_exit.is_none() && st.in_slow_start() {
            self.hystart_update(st, now, rtt);
        }
    }

    fn on_sent(&mut self, st: &mut CcState, now: SimTime) {
        // Linux CA_EVENT_TX_START: the first segment after an idle period (nothing else
        // outstanding) shifts the epoch so the idle time does not advance the curve.
        if let (Some(l), Some(last)) = (self.linux.as_mut(), self.last_sent) {
            if st.snd_nxt == st.snd_una + 1 {
                l.on_restart(now, last);
            }
        }
        if let (Some(e), Some(last)) = (self.epoch.as_mut(), self.last_sent) {
            if st.snd_nxt == st.snd_una + 1 {
                e.start = (e.start + now.saturating_since(last)).min(now);
            }
        }
        self.last_sent = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::AckClock;
    use crate::cc::CcConfig;

    const RTT: SimDuration = SimDuration::from_millis(100);

    fn ms(m: u64) -> SimTime {
        SimTime::from_millis(m)
    }

    fn no_hystart() -> CubicConfig {
        CubicConfig { hystart: false, ..CubicConfig::default() }
    }

    /// cwnd after each of the next `rounds` periods of `rtt`.
    fn per_rtt(cc: &mut Cubic, clock: &mut AckClock, rtt: SimDuration, rounds: u64) -> Vec<f64> {
        let start = clock.now;
        (1..=rounds)
            .map(|k| {
                clock.run_until(cc, start + rtt.saturating_mul(k));
                clock.st.cwnd
            })
            .collect()
    }

    #[test]
    fn after_a_single_loss_the_window_follows_the_cubic_curve() {
        let mut cc = Cubic::new(no_hystart());
        // 0.2 ms per segment at the bottleneck: ACKs spread over a quarter of the RTT, no queue.
        let mut clock = AckClock::new(&mut cc, 100.0, 100.0, RTT, SimDuration::from_micros(200));
        clock.run_until(&mut cc, ms(1000));
        clock.loss(&mut cc);
        let w_max = cc.w_max().unwrap();
        assert!(w_max > 100.0 && clock.st.cwnd == 0.7 * w_max, "{w_max} {}", clock.st.cwnd);
        while cc.epoch_start().is_none() {
            clock.step(&mut cc);
        }
        let t0 = cc.epoch_start().unwrap();
        let k = (w_max * (1.0 - 0.7) / 0.4).cbrt();
        // 8 s: the concave approach to W_max (K ≈ 4.2 s), the plateau and the convex probing.
        for i in 1..=80 {
            let t = t0 + RTT.saturating_mul(i);
            clock.run_until(&mut cc, t);
            let s = (t - t0).as_secs_f64();
            let curve = 0.4 * (s - k).powi(3) + w_max;
            assert!(
                (clock.st.cwnd - curve).abs() <= 1.0,
                "t = {s} s: cwnd {} vs W(t) {curve}",
                clock.st.cwnd
            );
        }
        assert!(clock.st.cwnd > w_max + 10.0, "reached the convex region: {}", clock.st.cwnd);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losing_below_it() {
        for (fc, factor) in [(true, (1.0 + 0.7) / 2.0), (false, 1.0)] {
            let mut cc = Cubic::new(CubicConfig { fast_convergence: fc, ..no_hystart() });
            let mut clock = AckClock::new(&mut cc, 100.0, 100.0, RTT, SimDuration::ZERO);
            clock.loss(&mut cc);
            assert_eq!(cc.w_max(), Some(100.0));
            clock.run_until(&mut cc, ms(2000));
            let cwnd = clock.st.cwnd;
            assert!(cwnd < 100.0, "still below W_max at 2 s: {cwnd}");
            clock.loss(&mut cc);
            assert_eq!(cc.w_max(), Some(cwnd * factor), "fast convergence {fc}");
            assert_eq!(clock.st.ssthresh, 0.7 * cwnd);
        }
    }

    #[test]
    fn in_the_reno_friendly_region_the_window_grows_like_reno_would() {
        // W_max = 20 at RTT 10 ms: K ≈ 2.5 s = 250 RTTs, so W_cubic crawls and W_est leads.
        let rtt = SimDuration::from_millis(10);
        let alpha = 3.0 * (1.0 - 0.7) / (1.0 + 0.7);
        let run = |cfg: CubicConfig| {
            let mut cc = Cubic::new(cfg);
            let mut clock = AckClock::new(&mut cc, 20.0, 20.0, rtt, SimDuration::ZERO);
            clock.loss(&mut cc);
            clock.run_until(&mut cc, SimTime::ZERO + rtt);
            let w = per_rtt(&mut cc, &mut clock, rtt, 30);
            let steps: Vec<f64> = std::iter::once(14.0)
                .chain(w.iter().copied())
                .collect::<Vec<_>>()
                .windows(2)
                .map(|p| p[1] - p[0])
                .collect();
            (w, steps)
        };
        let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
        // α_cubic per RTT until W_est reaches cwnd_prior = 20 (≈ 11 RTTs), then Reno's 1 per RTT.
        // (Each RTT acknowledges ⌊cwnd⌋ segments, so a step is α·⌊cwnd⌋/cwnd.)
        let (w, steps) = run(no_hystart());
        assert!((mean(&steps[1..10]) - alpha).abs() < 0.03, "{steps:?}");
        assert!((mean(&steps[14..]) - 1.0).abs() < 0.05, "{steps:?}");
        // The cubic curve is far below: this is the Reno-friendly region, not the cubic one.
        let k = (20.0f64 * 0.3 / 0.4).cbrt();
        assert!(
            w.iter()
                .enumerate()
                .all(|(i, c)| 0.4 * ((i + 1) as f64 * 0.01 - k).powi(3) + 20.0 < *c),
            "{w:?}"
        );
        // Linux has no α switch: α_cubic throughout.
        let (_, steps) = run(CubicConfig { reno_friendly_alpha_switch: false, ..no_hystart() });
        assert!((mean(&steps[14..]) - alpha).abs() < 0.03, "{steps:?}");
        // Without the region CUBIC would crawl along its curve: W(0.3 s) ≈ 15.9, not 37.
        let (w, _) = run(CubicConfig { reno_friendly: false, ..no_hystart() });
        assert!(w[29] < 16.5, "{w:?}");
    }

    #[test]
    fn hystart_leaves_slow_start_when_the_delay_rises() {
        let mut cc = Cubic::new(CubicConfig { hystart_ack_train: false, ..CubicConfig::default() });
        // No bottleneck: each round's ACKs arrive together. Rounds at 100, 200 ms: 10 → 20 → 40.
        let mut clock = AckClock::new(&mut cc, 10.0, f64::INFINITY, RTT, SimDuration::ZERO);
        clock.run_until(&mut cc, ms(250));
        assert_eq!((clock.st.cwnd, cc.hystart_exit()), (40.0, None));
        // A queue builds: segments sent from now on take 20 ms more (> RTT_min/8 = 12.5 ms).
        clock.extra_delay = SimDuration::from_millis(20);
        clock.run_until(&mut cc, ms(300));
        assert_eq!((clock.st.cwnd, cc.hystart_exit()), (80.0, None));
        // The round at 420 ms: after 8 samples of 120 ms, the ninth ACK ends slow start.
        clock.run_until(&mut cc, ms(420));
        assert_eq!(cc.hystart_exit(), Some(HyStartExit::Delay));
        assert_eq!(clock.st.ssthresh, 88.0);
        // Congestion avoidance from there (W_est = cwnd_prior: Reno's +1 per RTT), no doubling.
        assert!(clock.st.cwnd < 90.0, "{}", clock.st.cwnd);

        // Without the delay, slow start goes on.
        let mut cc = Cubic::new(CubicConfig::default());
        let mut clock = AckClock::new(&mut cc, 10.0, f64::INFINITY, RTT, SimDuration::ZERO);
        clock.run_until(&mut cc, ms(650));
        assert_eq!((clock.st.cwnd, cc.hystart_exit()), (640.0, None));
    }

    #[test]
    fn hystart_ignores_delay_below_its_low_window() {
        let mut cc = Cubic::new(CubicConfig { hystart_ack_train: false, ..CubicConfig::default() });
        let mut clock = AckClock::new(&mut cc, 2.0, f64::INFINITY, RTT, SimDuration::ZERO);
        clock.extra_delay = SimDuration::from_millis(30);
        let mut exit_at = None;
        while exit_at.is_none() && clock.now < ms(2000) {
            clock.step(&mut cc);
            exit_at = cc.hystart_exit().map(|_| clock.st.ssthresh);
        }
        // Every sample after the first round is 30 ms late, but only a window of 16 counts.
        let ssthresh = exit_at.expect("exits once cwnd reaches 16");
        assert!(ssthresh >= 16.0 + 8.0, "{ssthresh}");
    }

    #[test]
    fn hystart_leaves_slow_start_when_the_ack_train_spans_half_the_min_rtt() {
        // A 1 ms-per-segment bottleneck and 100 ms RTT: BDP = 100 segments. A round of 80
        // segments returns as an 80 ms train; the 52nd ACK is 51 ms after the first.
        let mut cc = Cubic::new(CubicConfig { hystart_delay: false, ..CubicConfig::default() });
        let mut clock =
            AckClock::new(&mut cc, 10.0, f64::INFINITY, RTT, SimDuration::from_millis(1));
        while cc.hystart_exit().is_none() && clock.now < ms(2000) {
            clock.step(&mut cc);
        }
        assert_eq!(cc.hystart_exit(), Some(HyStartExit::AckTrain));
        assert_eq!(clock.st.ssthresh, 80.0 + 51.0);
    }

    #[test]
    fn a_timeout_forgets_w_max_and_the_next_epoch_starts_its_curve_at_k_zero() {
        // Without the Reno-friendly region, which would lead this slow start of the curve.
        let mut cc = Cubic::new(CubicConfig { reno_friendly: false, ..no_hystart() });
        let mut clock = AckClock::new(&mut cc, 100.0, 100.0, RTT, SimDuration::ZERO);
        clock.timeout(&mut cc);
        assert_eq!((clock.st.ssthresh, cc.w_max()), (70.0, None));
        // Slow start to 70, then W(t) = 70 + C·t³ (K = 0, W_max = cwnd_epoch).
        while cc.epoch_start().is_none() {
            clock.step(&mut cc);
        }
        let (t0, c0) = (cc.epoch_start().unwrap(), clock.st.cwnd);
        let w = per_rtt(&mut cc, &mut clock, RTT, 30);
        let curve = c0 + 0.4 * (clock.now - t0).as_secs_f64().powi(3);
        assert!((w[29] - curve).abs() < 1.0, "{} vs {curve}: {w:?}", w[29]);
    }

    #[test]
    fn linux_2_6_22_caps_convex_growth_at_max_increment_per_100ms() {
        let growth = |cfg: CubicConfig| {
            let mut cc = Cubic::new(cfg);
            let mut clock = AckClock::new(&mut cc, 100.0, 100.0, RTT, SimDuration::ZERO);
            clock.loss(&mut cc);
            let w = per_rtt(&mut cc, &mut clock, RTT, 250);
            w.windows(2).map(|p| p[1] - p[0]).fold(0.0, f64::max)
        };
        let old = CubicConfig::preset("linux-2.6.22").unwrap();
        let capped = growth(old.clone());
        assert!((capped - 16.0).abs() < 0.5, "{capped}");
        let uncapped = growth(CubicConfig { max_increment: 0.0, ..old });
        assert!(uncapped > 40.0, "{uncapped}");
    }

    #[test]
    fn an_idle_sender_does_not_advance_the_curve() {
        let mut cc = Cubic::new(no_hystart());
        let mut clock = AckClock::new(&mut cc, 50.0, 50.0, RTT, SimDuration::ZERO);
        clock.run_until(&mut cc, ms(150));
        let e0 = cc.epoch_start().unwrap();
        // Everything is acknowledged; the application sends again at 2.15 s (the last send was
        // at 100 ms, with the ACKs): the epoch moves by the 2.05 s of silence.
        let mut st = clock.st.clone();
        st.snd_una = st.snd_nxt;
        st.snd_nxt += 1;
        cc.on_sent(&mut st, ms(2150));
        assert_eq!(cc.epoch_start(), Some(e0 + SimDuration::from_millis(2050)));
    }

    #[test]
    fn linux_arithmetic_holds_a_small_window_at_w_max_where_the_real_curve_climbs() {
        // cwnd 3, RTT 5 ms, one loss, then 40 ms of ACKs. Linux: ssthresh ⌊3·717/1024⌋ = 2, the
        // first ACK of the epoch restores W_max = 3 (its cubic term truncates to 0 segments) and
        // the window holds there until HZ/32 (28 ms at HZ = 250) lets the Reno-friendly estimate
        // lower the increment (cubic_linux.rs works the numbers). The real-valued curve starts
        // from 2.1 and crosses 3 within a few round trips, then keeps climbing.
        let rtt = SimDuration::from_millis(5);
        let run = |cfg: CubicConfig| {
            let mut cc = Cubic::new(cfg);
            // Three segments out at time zero, one of them lost: recovery ends at 5 ms.
            let mut clock = AckClock::new(&mut cc, 3.0, 3.0, rtt, SimDuration::ZERO);
            clock.loss(&mut cc);
            let after = clock.st.cwnd;
            (after, per_rtt(&mut cc, &mut clock, rtt, 8))
        };
        let (after, w) = run(CubicConfig::preset("linux-6").unwrap());
        assert_eq!(after, 2.0);
        // 10 ms: back at 3, held while the cnt computed at jiffy 3 (15 ms) stands, through
        // jiffy 10 (43 ms).
        assert_eq!(w, [2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0], "{w:?}");
        let (after, w) =
            run(CubicConfig { hystart: false, ..CubicConfig::preset("rfc9438").unwrap() });
        assert!((after - 2.1).abs() < 1e-9, "{after}");
        assert!(w[1] < 3.0 && w[7] > 3.5, "{w:?}");
    }

    #[test]
    fn presets_carry_their_sources_constants_and_bad_values_are_rejected() {
        let json = |name: &str| CcConfig::from_name(name, None).unwrap().params_json();
        assert_eq!(json("cubic"), json("cubic@rfc9438"));
        let old = json("cubic@linux-2.6.22");
        assert_eq!(
            (old["beta"].as_f64(), old["hystart"].as_bool()),
            (Some(819.0 / 1024.0), Some(false))
        );
        assert_eq!(old["max_increment"], 16.0);
        assert_eq!(json("cubic@linux-6")["beta"], 717.0 / 1024.0);
        let e = CcConfig::from_name("cubic@linux-2.4", None).unwrap_err();
        assert!(e.contains("rfc9438") && e.contains("linux-2.6.22"), "{e}");
        let e = CcConfig::from_name("cubic", Some(&serde_json::json!({"beta": 1.5}))).unwrap_err();
        assert!(e.starts_with("beta") && e.contains("(0, 1)"), "{e}");
        let e = CcConfig::from_name("cubic", Some(&serde_json::json!({"target_rtt": "max"})))
            .unwrap_err();
        assert!(e.starts_with("target_rtt") && e.contains("min_rtt"), "{e}");
        // linux-6 is Linux's arithmetic, whose rules leave no room for RFC 9438's α switch.
        assert_eq!(
            (json("cubic@linux-6")["arithmetic"].as_str(), json("cubic")["arithmetic"].as_str()),
            (Some("linux"), Some("real"))
        );
        let e = CcConfig::from_name(
            "cubic@linux-6",
            Some(&serde_json::json!({"reno_friendly_alpha_switch": true})),
        )
        .unwrap_err();
        assert!(e.starts_with("reno_friendly_alpha_switch: arithmetic \"linux\""), "{e}");
        assert!(CcConfig::from_name(
            "cubic@linux-6",
            Some(&serde_json::json!({"arithmetic": "real", "hz": 1000}))
        )
        .is_ok());
        let e = CcConfig::from_name("cubic", Some(&serde_json::json!({"hz": 0}))).unwrap_err();
        assert!(e.starts_with("hz"), "{e}");
    }
}
