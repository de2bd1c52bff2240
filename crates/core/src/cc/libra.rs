//! TCP Libra: G. Marfia, C. E. Palazzi, G. Pau, M. Gerla, M. Y. Sanadidi, M. Roccetti,
//! "TCP Libra: Exploring RTT-Fairness for TCP", IFIP Networking 2007, LNCS 4479 (UCLA CSD
//! TR-050037, 2005); the window law as given in seed 003 §2.6 and its Table 2.1.
//!
//! ```text
//! slow start (cwnd < ssthresh):   cwnd += acked                                          (Reno)
//! congestion avoidance, per ACK:  cwnd += acked · α·T² / ((T + T₀) · cwnd)   i.e. +α·T²/(T+T₀) per RTT
//! on loss, ECN or timeout:        ssthresh = cwnd − T₁·cwnd / (2(T + T₀)),  at least 2 segments
//! α = k₁ · C · P,   P = exp(−k₂ · (T − T_min)/(T_max − T_min))
//! ```
//!
//! - `T` is the latest RTT sample (Karn's rule applied by the transport), in seconds: the paper's
//!   "measured RTT", and the per-ACK value its random pacing exists to make accurate. `T_min` and
//!   `T_max` are the smallest and largest samples seen over the connection, so
//!   `(T − T_min)/(T_max − T_min)` is the flow's view of the bottleneck buffer's occupancy (0 when
//!   `T_max = T_min`, clamped to [0, 1]). Before any sample, `T = 0`.
//! - `C` is the bottleneck capacity in segments per second (so `α` is in segments per second and
//!   the increment `α·T²/(T+T₀)` in segments, with `k₁` dimensionless). It is the `capacity`
//!   parameter when given, else measured once at the start by packet pairs (below).
//!
//! Why this is RTT-fair: with a common loss rate `p`, an AIMD flow that adds `a` per RTT and
//! removes the fraction `b` per loss sends `x ∝ sqrt(a/(b·p)) / T`. Here `a/b = 2αT²/T₁`, so
//! `x ∝ sqrt(2α/(T₁·p))`: the RTT cancels (the `T + T₀` factors cancel too; `T₀` sets the size
//! of the steps, not the share). With synchronised losses the same holds: a flow sending `x`
//! segments/s regains `b·w` in `T₁·x/(2α)` seconds whatever its RTT.
//!
//! Capacity by packet pair (the paper's "estimation" component: the bottleneck capacity is
//! estimated at the start of the session). Two segments sent at the same instant leave the
//! bottleneck one transmission time apart, and so do their ACKs. For each ACK that advances
//! SND.UNA over segments sent in the same burst as the last segment of the previous such ACK, and
//! after the last congestion event (earlier segments may have been retransmitted), one pair gives
//! `C = (segments acked) / (time since the previous ACK)`. Among the first `packet_pairs` pairs the
//! one with the smallest sum of its two RTT samples is kept: CapProbe's filter (Kapoor, Chen, Lao,
//! Gerla, Sanadidi, SIGCOMM 2004, from the same UCLA group), since a pair between whose packets no
//! other traffic queued has the least delay. Until a pair exists `C = cwnd/T`. While probing the
//! flow does not pace (pairs need back-to-back segments). The capacity is reported in bits per
//! second counting the 40 header bytes per segment, so it compares with the link rate.
//!
//! Burst control (the paper's random pacing, which spreads each window over the RTT so that
//! drop-tail losses are not synchronised and fall on the flows in proportion to their rates, as
//! the fairness argument above assumes): segments are paced at `ratio · cwnd / srtt` (Linux
//! `tcp_update_pacing_rate`: ratio 2 while cwnd < ssthresh/2, else 1.2). Without it, drop-tail
//! phase effects in a deterministic simulation decide who loses and fairness is lost (measured:
//! 40 ms vs 80 ms on 10 Mbit/s, goodput ratio 4.5 unpaced, 1.1 paced).
//!
//! Constants (docs/algorithms/libra.md gives the reasoning): `T₀ = T₁ = 1 s`, `k₁ = 1`, `k₂ = 2`,
//! 8 packet pairs. The paper's own numerical values were not available to us; these are chosen
//! from the equations' structure. Each is a parameter.
//!
//! Not implemented / deviates:
//! - Pacing is deterministic at Linux's pacing rate, not at random instants within the RTT (that
//!   would need a per-flow random stream in the congestion controller).
//! - Capacity is measured once, at the start; a later path change is not noticed. Two flows whose
//!   first windows interleave at the bottleneck (identical flows started together) each measure
//!   about half the capacity: a packet-pair limitation that halves their α but not their fairness.
//! - The decrease applies to cwnd, as the paper's formula (Reno in this crate halves FlightSize,
//!   RFC 5681 eq. 4); the two agree when the sender is window-limited.

use super::{
    check_param, cong_avoid_ai, slow_start, AckSample, CcParams, CcState, CongestionControl,
    CongestionEvent,
};
use crate::time::{parse_rate, Dur, Rate, SimDuration, SimTime};
use crate::wire::tcp::TCP_IP_HEADER;
use serde::{Deserialize, Serialize};

/// Segments whose send instant is remembered while probing; probing ends once SND.UNA passes it.
const MAX_PROBED_SEGMENTS: usize = 4096;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawLibraConfig")]
pub struct LibraConfig {
    /// Scalability gain, dimensionless: α = k₁·C·P with C in segments/s. Chosen: 1.
    pub k1: f64,
    /// Stability (queue penalty) exponent: P falls from 1 (empty queue) to e^−k₂ (full). Chosen: 2.
    pub k2: f64,
    /// Fairness time constant T₀ of the increment T²/(T+T₀) and the decrease 1/(T+T₀). Chosen: 1 s.
    pub t0: Dur,
    /// Decrease constant T₁: fraction T₁/(2(T+T₀)) removed per loss. Chosen: T₀ (→ ½ for T ≪ T₀).
    pub t1: Dur,
    /// Bottleneck capacity C: `"measure"` (packet pairs at the start) or a link rate ("1Gbps").
    pub capacity: CapacityParam,
    /// Packet pairs measured at the start before the capacity is fixed. Chosen: 8.
    pub packet_pairs: u32,
    /// Burst control: pace segments at ratio·cwnd/srtt once the capacity is known.
    pub pacing: bool,
    /// Pacing ratio while cwnd < ssthresh/2 (Linux `tcp_pacing_ss_ratio` = 200%).
    pub pacing_ss_ratio: f64,
    /// Pacing ratio otherwise (Linux `tcp_pacing_ca_ratio` = 120%).
    pub pacing_ca_ratio: f64,
}

impl Default for LibraConfig {
    fn default() -> Self {
        LibraConfig {
            k1: 1.0, // our choice: a link-filling flow regains a loss in T₁/(2k₁P) = 0.5 s at P = 1
            k2: 2.0, // our choice: P ∈ [e^−2, 1] = [0.14, 1]
            t0: Dur(SimDuration::from_secs(1)), // our choice: every terrestrial RTT is ≪ T₀
            t1: Dur(SimDuration::from_secs(1)), // = T₀: decrease → ½ (seed 003 Table 2.1, AIMD(α, 0.5))
            capacity: CapacityParam::Measure,   // the paper's estimation component
            packet_pairs: 8, // our choice: < the 9 pairs one 10-segment initial window gives
            pacing: true,    // the paper's burst control (deterministic here)
            pacing_ss_ratio: 2.0, // Linux net.ipv4.tcp_pacing_ss_ratio = 200
            pacing_ca_ratio: 1.2, // Linux net.ipv4.tcp_pacing_ca_ratio = 120
        }
    }
}

impl CcParams for LibraConfig {}

/// The same fields, deserialised before validation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawLibraConfig {
    k1: f64,
    k2: f64,
    t0: Dur,
    t1: Dur,
    capacity: CapacityParam,
    packet_pairs: u32,
    pacing: bool,
    pacing_ss_ratio: f64,
    pacing_ca_ratio: f64,
}

impl Default for RawLibraConfig {
    fn default() -> Self {
        let d = LibraConfig::default();
        RawLibraConfig {
            k1: d.k1,
            k2: d.k2,
            t0: d.t0,
            t1: d.t1,
            capacity: d.capacity,
            packet_pairs: d.packet_pairs,
            pacing: d.pacing,
            pacing_ss_ratio: d.pacing_ss_ratio,
            pacing_ca_ratio: d.pacing_ca_ratio,
        }
    }
}

impl TryFrom<RawLibraConfig> for LibraConfig {
    type Error = String;
    fn try_from(r: RawLibraConfig) -> Result<Self, String> {
        check_param("k1", r.k1, r.k1 > 0.0 && r.k1 <= 1000.0, "a factor in (0, 1000]")?;
        // P ∈ [e^−k2, 1]: beyond 50 the lower end is below any representable penalty that matters.
        check_param("k2", r.k2, (0.0..=50.0).contains(&r.k2), "a number in [0, 50]")?;
        if r.t0.0 == SimDuration::ZERO || r.t0.0 > SimDuration::from_secs(60) {
            return Err(format!(
                "t0: {} is out of range: expected a duration in (0s, 60s]",
                r.t0.0
            ));
        }
        // The decrease T₁/(2(T+T₀)) is at most T₁/(2T₀); it must stay below the whole window.
        if r.t1.0 == SimDuration::ZERO || r.t1.0 >= r.t0.0.saturating_mul(2) {
            return Err(format!("t1: {} must be positive and less than 2·t0 = {} (the decrease T₁/(2(T+T₀)) must stay below 1)", r.t1.0, r.t0.0.saturating_mul(2)));
        }
        check_param(
            "packet_pairs",
            f64::from(r.packet_pairs),
            (1..=1000).contains(&r.packet_pairs),
            "a count in 1..1000",
        )?;
        // Linux's sysctls tcp_pacing_ss_ratio / tcp_pacing_ca_ratio accept 0..1000 %.
        for (name, v) in
            [("pacing_ss_ratio", r.pacing_ss_ratio), ("pacing_ca_ratio", r.pacing_ca_ratio)]
        {
            check_param(name, v, v > 0.0 && v <= 10.0, "a factor in (0, 10]")?;
        }
        Ok(LibraConfig {
            k1: r.k1,
            k2: r.k2,
            t0: r.t0,
            t1: r.t1,
            capacity: r.capacity,
            packet_pairs: r.packet_pairs,
            pacing: r.pacing,
            pacing_ss_ratio: r.pacing_ss_ratio,
            pacing_ca_ratio: r.pacing_ca_ratio,
        })
    }
}

/// The `capacity` parameter: measured, or given as a rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CapacityParam {
    Measure,
    Given(Rate),
}

impl Serialize for CapacityParam {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CapacityParam::Measure => s.serialize_str("measure"),
            CapacityParam::Given(r) => s.collect_str(r),
        }
    }
}

impl<'de> Deserialize<'de> for CapacityParam {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == "measure" {
            return Ok(CapacityParam::Measure);
        }
        parse_rate(&text)
            .map(CapacityParam::Given)
            .map_err(|e| serde::de::Error::custom(format!("{e}, or \"measure\"")))
    }
}

/// The capacity measurement in progress (CapProbe-style packet pairs).
#[derive(Debug, Default)]
struct PacketPairProbe {
    /// Send instant of each new segment, by segment number (from 0).
    sent_at: Vec<SimTime>,
    /// The previous ACK that advanced SND.UNA: its arrival, SND.UNA after it, its RTT sample.
    prev: Option<(SimTime, u64, SimDuration)>,
    /// First segment sent after the last congestion event: earlier ones may have been
    /// retransmitted, so their ACKs do not time a pair.
    clean_from: u64,
    /// Valid pairs seen so far.
    pairs: u32,
    /// The pair with the smallest RTT sum so far: (sum, segments per second).
    best: Option<(SimDuration, f64)>,
}

impl PacketPairProbe {
    fn on_sent(&mut self, snd_nxt: u64, now: SimTime) {
        while (self.sent_at.len() as u64) < snd_nxt && self.sent_at.len() < MAX_PROBED_SEGMENTS {
            self.sent_at.push(now);
        }
    }

    /// Loss recovery starts: forget the previous ACK and pair only segments sent from now on.
    fn on_congestion(&mut self, snd_nxt: u64) {
        self.prev = None;
        self.clean_from = snd_nxt;
    }

    /// An ACK moved SND.UNA to `una` at `now` and gave the RTT sample `rtt`.
    fn on_ack(&mut self, una: u64, now: SimTime, rtt: SimDuration) {
        if let Some((t_prev, una_prev, rtt_prev)) = self.prev {
            if una <= una_prev {
                return; // SACK-only or duplicate: not part of a pair
            }
            let burst = |seg: u64| self.sent_at.get(seg as usize).copied();
            // The previous ACK's last segment and all of this ACK's segments left in one burst
            // (same instant), after the last congestion event.
            let first = una_prev.checked_sub(1).filter(|&s| s >= self.clean_from);
            let same_burst =
                first.is_some_and(|f| burst(f).is_some() && burst(f) == burst(una - 1));
            let gap = now - t_prev;
            if same_burst && gap > SimDuration::ZERO {
                let rate = (una - una_prev) as f64 / gap.as_secs_f64();
                let sum = rtt_prev + rtt;
                if self.best.is_none_or(|(s, _)| sum < s) {
                    self.best = Some((sum, rate));
                }
                self.pairs += 1;
            }
        }
        self.prev = Some((now, una, rtt));
    }
}

/// Where the capacity C comes from.
#[derive(Debug)]
enum Capacity {
    /// Given as a parameter, bits per second on the wire.
    Given(f64),
    /// Being measured.
    Probing(PacketPairProbe),
    /// Measured, segments per second.
    Measured(f64),
}

pub struct Libra {
    cfg: LibraConfig,
    /// Latest RTT sample T, seconds.
    rtt: Option<f64>,
    rtt_min: f64,
    rtt_max: f64,
    capacity: Capacity,
}

impl Libra {
    pub fn new(cfg: LibraConfig) -> Self {
        let capacity = match cfg.capacity {
            CapacityParam::Given(r) => Capacity::Given(r.as_bps_f64()),
            CapacityParam::Measure => Capacity::Probing(PacketPairProbe::default()),
        };
        Libra { cfg, rtt: None, rtt_min: f64::INFINITY, rtt_max: 0.0, capacity }
    }

    fn t0(&self) -> f64 {
        self.cfg.t0.0.as_secs_f64()
    }

    /// Bits on the wire per full segment.
    fn segment_bits(st: &CcState) -> f64 {
        (st.mss + TCP_IP_HEADER) as f64 * 8.0
    }

    /// C in segments per second: given, measured, the best pair so far, or cwnd/T as a last resort.
    fn capacity_segments(&self, st: &CcState) -> f64 {
        match &self.capacity {
            Capacity::Given(bps) => bps / Self::segment_bits(st),
            Capacity::Measured(c) => *c,
            Capacity::Probing(p) => match (p.best, self.rtt) {
                (Some((_, c)), _) => c,
                (None, Some(t)) => st.cwnd.max(1.0) / t.max(1e-6),
                (None, None) => 0.0, // unused: without an RTT sample the window grows as Reno
            },
        }
    }

    /// The capacity in effect, bits per second on the wire, if known (given, measured, or the best
    /// packet pair so far).
    pub fn capacity_bps(&self, st: &CcState) -> Option<f64> {
        match &self.capacity {
            Capacity::Given(bps) => Some(*bps),
            Capacity::Measured(c) => Some(c * Self::segment_bits(st)),
            Capacity::Probing(p) => p.best.map(|(_, c)| c * Self::segment_bits(st)),
        }
    }

    /// Whether the packet-pair measurement is still running.
    pub fn probing(&self) -> bool {
        matches!(self.capacity, Capacity::Probing(_))
    }

    /// Fixes C from the probe (best pair, or the fallback).
    fn finish_probe(&mut self, st: &CcState) {
        if self.probing() {
            self.capacity = Capacity::Measured(self.capacity_segments(st));
        }
    }

    /// The queue-penalty P = exp(−k₂·(T − T_min)/(T_max − T_min)).
    fn penalty(&self, t: f64) -> f64 {
        let span = self.rtt_max - self.rtt_min;
        let q = if span > 0.0 { ((t - self.rtt_min) / span).clamp(0.0, 1.0) } else { 0.0 };
        (-self.cfg.k2 * q).exp()
    }

    /// α = k₁·C·P, segments per second, at RTT `t` seconds.
    pub fn alpha(&self, st: &CcState, t: f64) -> f64 {
        self.cfg.k1 * self.capacity_segments(st) * self.penalty(t)
    }

    /// The congestion-avoidance increment per RTT, α·T²/(T+T₀) segments, at RTT `t` seconds.
    pub fn increment_per_rtt(&self, st: &CcState, t: f64) -> f64 {
        self.alpha(st, t) * t * t / (t + self.t0())
    }

    /// The fraction of the window removed on loss, T₁/(2(T+T₀)), at RTT `t` seconds.
    pub fn decrease_fraction(&self, t: f64) -> f64 {
        self.cfg.t1.0.as_secs_f64() / (2.0 * (t + self.t0()))
    }
}

impl CongestionControl for Libra {
    fn name(&self) -> &'static str {
        "libra"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let acked = slow_start(st, ack.acked);
        if acked == 0 {
            return;
        }
        match self.rtt {
            Some(t) => st.cwnd += acked as f64 * self.increment_per_rtt(st, t) / st.cwnd.max(1.0),
            // No RTT sample yet (only possible with Karn-excluded ACKs): T is unknown, grow as Reno.
            None => {
                let w = st.cwnd;
                cong_avoid_ai(st, w, acked);
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        if let Capacity::Probing(p) = &mut self.capacity {
            p.on_congestion(st.snd_nxt);
        }
        let t = self.rtt.unwrap_or(0.0);
        st.ssthresh = (st.cwnd * (1.0 - self.decrease_fraction(t))).max(2.0);
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, now: SimTime, rtt: SimDuration) {
        let t = rtt.as_secs_f64();
        self.rtt = Some(t);
        self.rtt_min = self.rtt_min.min(t);
        self.rtt_max = self.rtt_max.max(t);
        let done = match &mut self.capacity {
            Capacity::Probing(p) => {
                p.on_ack(st.snd_una, now, rtt);
                p.pairs >= self.cfg.packet_pairs || st.snd_una >= MAX_PROBED_SEGMENTS as u64
            }
            _ => false,
        };
        if done {
            self.finish_probe(st);
        }
    }

    /// Burst control: Linux's `tcp_update_pacing_rate`, ratio · cwnd · segment / srtt. Not while
    /// probing: packet pairs need segments sent back to back.
    fn pacing_rate(&self, st: &CcState) -> Option<Rate> {
        if !self.cfg.pacing || self.probing() {
            return None;
        }
        let srtt = st.srtt?.as_secs_f64().max(1e-6);
        let ratio = if st.cwnd < st.ssthresh / 2.0 {
            self.cfg.pacing_ss_ratio
        } else {
            self.cfg.pacing_ca_ratio
        };
        let bps = ratio * st.cwnd.max(1.0) * Self::segment_bits(st) / srtt;
        Some(Rate(bps.clamp(1.0, u64::MAX as f64) as u64))
    }

    fn on_sent(&mut self, st: &mut CcState, now: SimTime) {
        if let Capacity::Probing(p) = &mut self.capacity {
            p.on_sent(st.snd_nxt, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcConfig, CongestionKind};

    const MSS: u32 = 1460; // 1500 B on the wire: 12 000 bits per segment

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    fn at(d: SimDuration) -> SimTime {
        SimTime::ZERO + d
    }

    fn cfg(params: serde_json::Value) -> LibraConfig {
        match CcConfig::from_name("libra", Some(&params)).unwrap() {
            CcConfig::Libra(c) => c,
            _ => unreachable!(),
        }
    }

    /// A Libra in congestion avoidance at `cwnd`, with C = 1000 segments/s given, that has seen
    /// only RTT samples equal to `rtt` (so T = T_min = T_max and P = 1).
    fn in_avoidance(rtt: SimDuration, cwnd: f64) -> (Libra, CcState) {
        let mut l = Libra::new(cfg(serde_json::json!({"capacity": "12Mbps"})));
        let mut st = CcState::new(cwnd, cwnd / 2.0, MSS);
        l.on_rtt_sample(&mut st, at(rtt), rtt);
        (l, st)
    }

    fn ack(now: SimTime) -> AckSample {
        AckSample { now, acked: 1, rtt: None }
    }

    fn loss(st: &mut CcState, l: &mut Libra, kind: CongestionKind) {
        let ev = CongestionEvent { now: SimTime::ZERO, kind, flight_size: st.cwnd as u64 };
        l.on_congestion(st, &ev);
    }

    /// The per-RTT step measured from one ACK: the ACK adds step/cwnd.
    fn step_from_one_ack(l: &mut Libra, st: &mut CcState) -> f64 {
        let w = st.cwnd;
        l.on_ack(st, &ack(SimTime::ZERO));
        (st.cwnd - w) * w
    }

    /// Growth over one window of ACKs, one segment each.
    fn growth_over_one_window(l: &mut Libra, st: &mut CcState) -> f64 {
        let w0 = st.cwnd;
        for _ in 0..w0 as u64 {
            l.on_ack(st, &ack(SimTime::ZERO));
        }
        st.cwnd - w0
    }

    #[test]
    fn per_rtt_increment_is_alpha_t2_over_t_plus_t0_at_two_rtts() {
        let mut steps = Vec::new();
        for (rtt_ms, t) in [(40, 0.04_f64), (80, 0.08)] {
            let (mut l, mut st) = in_avoidance(ms(rtt_ms), 100.0);
            // α = k₁·C·P = 1 · 1000 segments/s · 1; increment per RTT = α·T²/(T + 1 s).
            let expected = 1000.0 * t * t / (t + 1.0);
            let g = growth_over_one_window(&mut l, &mut st);
            // Each ACK adds expected/cwnd with cwnd between 100 and 100 + expected.
            assert!(
                g <= expected && g >= expected * 100.0 / (100.0 + expected),
                "T = {t}: grew {g}, expected {expected}"
            );
            steps.push(step_from_one_ack(&mut l, &mut st));
        }
        // RTT fairness: the per-RTT step grows as T²/(T+T₀), 3.85× from 40 to 80 ms (Reno: 1×).
        let ratio = steps[1] / steps[0];
        assert!((ratio - (0.0064 / 1.08) / (0.0016 / 1.04)).abs() < 1e-9, "{ratio}");
    }

    #[test]
    fn equal_loss_rates_give_equal_rates_at_any_rtt() {
        // An AIMD flow adding a per RTT and removing the fraction b per loss sends
        // x ∝ sqrt(a/b)/T at a given loss rate: measured a and b must make it RTT-independent.
        let mut x = Vec::new();
        for rtt_ms in [20, 40, 80, 160, 320] {
            let (mut l, mut st) = in_avoidance(ms(rtt_ms), 1000.0);
            let a = step_from_one_ack(&mut l, &mut st);
            let w = st.cwnd;
            loss(&mut st, &mut l, CongestionKind::Loss);
            let b = (w - st.ssthresh) / w;
            x.push((a / b).sqrt() / (rtt_ms as f64 / 1000.0));
        }
        for v in &x {
            assert!((v / x[0] - 1.0).abs() < 1e-9, "{x:?}");
        }
    }

    #[test]
    fn loss_removes_t1_over_two_t_plus_t0_of_the_window() {
        let (mut l, mut st) = in_avoidance(ms(100), 100.0);
        loss(&mut st, &mut l, CongestionKind::Loss);
        assert!((st.ssthresh - 100.0 * (1.0 - 1.0 / (2.0 * 1.1))).abs() < 1e-9, "{}", st.ssthresh);
        // T₁ = 0.5 s: a quarter-size step; timeouts use the same rule (the transport sets cwnd = 1).
        let mut l = Libra::new(cfg(serde_json::json!({"capacity": "12Mbps", "t1": "500ms"})));
        let mut st = CcState::new(100.0, 50.0, MSS);
        l.on_rtt_sample(&mut st, at(ms(300)), ms(300));
        loss(&mut st, &mut l, CongestionKind::Timeout);
        assert!((st.ssthresh - 100.0 * (1.0 - 0.5 / (2.0 * 1.3))).abs() < 1e-9, "{}", st.ssthresh);
        // Before any RTT sample T = 0: the step is T₁/(2T₀) = ½; the floor is 2 segments.
        let mut l = Libra::new(LibraConfig::default());
        let mut st = CcState::new(40.0, f64::INFINITY, MSS);
        loss(&mut st, &mut l, CongestionKind::Loss);
        assert_eq!(st.ssthresh, 20.0);
        st.cwnd = 3.0;
        loss(&mut st, &mut l, CongestionKind::Ecn);
        assert_eq!(st.ssthresh, 2.0);
    }

    #[test]
    fn alpha_falls_exponentially_with_the_queueing_share_of_the_rtt() {
        for k2 in [2.0, 3.0] {
            let mut l =
                Libra::new(cfg(serde_json::json!({"capacity": "12Mbps", "k1": 0.5, "k2": k2})));
            let mut st = CcState::new(100.0, 50.0, MSS);
            // T_min = 40 ms, T_max = 140 ms: T − T_min is the queueing delay, out of 100 ms.
            l.on_rtt_sample(&mut st, at(ms(40)), ms(40));
            l.on_rtt_sample(&mut st, at(ms(200)), ms(140));
            for (t_ms, share) in [(40, 0.0), (65, 0.25), (90, 0.5), (140, 1.0)] {
                l.on_rtt_sample(&mut st, at(ms(300)), ms(t_ms));
                let t = t_ms as f64 / 1000.0;
                // Measured through the window: one ACK adds α·T²/((T+T₀)·cwnd).
                let w = st.cwnd;
                l.on_ack(&mut st, &ack(at(ms(300))));
                let alpha = (st.cwnd - w) * w * (t + 1.0) / (t * t);
                let expected = 0.5 * 1000.0 * f64::exp(-k2 * share);
                assert!(
                    (alpha / expected - 1.0).abs() < 1e-9,
                    "k2 {k2}, T {t_ms} ms: α {alpha}, expected {expected}"
                );
            }
        }
    }

    #[test]
    fn slow_start_is_renos() {
        let mut l = Libra::new(LibraConfig::default());
        let mut st = CcState::new(10.0, f64::INFINITY, MSS);
        l.on_rtt_sample(&mut st, at(ms(50)), ms(50));
        for _ in 0..10 {
            l.on_ack(&mut st, &ack(at(ms(50))));
        }
        assert_eq!(st.cwnd, 20.0);
    }

    /// Sends `n` new segments at `now`, as one burst.
    fn send_burst(l: &mut Libra, st: &mut CcState, n: u64, now: SimTime) {
        for _ in 0..n {
            st.snd_nxt += 1;
            l.on_sent(st, now);
        }
    }

    /// An ACK for everything below `una`, arriving at `now`, for a segment sent at `sent`.
    fn ack_to(l: &mut Libra, st: &mut CcState, una: u64, now: SimTime, sent: SimTime) {
        st.snd_una = una;
        l.on_rtt_sample(st, now, now - sent);
    }

    #[test]
    fn packet_pairs_measure_the_capacity_from_ack_spacing() {
        // 10 segments leave at t = 0; a 10 Mbit/s bottleneck spaces them (and their ACKs) by
        // 1500 B · 8 / 10 Mbit/s = 1.2 ms; the base RTT is 50 ms.
        let mut l = Libra::new(LibraConfig::default());
        let mut st = CcState::new(10.0, f64::INFINITY, MSS);
        send_burst(&mut l, &mut st, 10, SimTime::ZERO);
        for i in 1..=8 {
            ack_to(
                &mut l,
                &mut st,
                i,
                at(ms(50) + SimDuration::from_micros(1200 * i)),
                SimTime::ZERO,
            );
            assert!(l.probing(), "finished after {i} ACKs = {} pairs", i - 1);
        }
        ack_to(&mut l, &mut st, 9, at(ms(50) + SimDuration::from_micros(1200 * 9)), SimTime::ZERO);
        assert!(!l.probing());
        let c = l.capacity_bps(&st).unwrap();
        assert!((c / 10e6 - 1.0).abs() < 1e-9, "{c}");
        // Measured C is what α uses: k₁ · 10 Mbit/s / 12 000 bits = 833.3 segments/s at P = 1.
        assert!((l.alpha(&st, 0.05) - 10e6 / 12_000.0).abs() < 1e-6);
    }

    #[test]
    fn delayed_acks_give_two_segments_per_pair() {
        let mut l = Libra::new(cfg(serde_json::json!({"packet_pairs": 3})));
        let mut st = CcState::new(10.0, f64::INFINITY, MSS);
        send_burst(&mut l, &mut st, 10, SimTime::ZERO);
        for i in 1..=4 {
            ack_to(
                &mut l,
                &mut st,
                2 * i,
                at(ms(50) + SimDuration::from_micros(2400 * i)),
                SimTime::ZERO,
            );
        }
        assert!(!l.probing());
        assert!((l.capacity_bps(&st).unwrap() / 10e6 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn capprobe_keeps_the_pair_with_the_least_delay() {
        // The first pair is clean (ACKs 1.2 ms apart: 10 Mbit/s). Then the ACKs meet a queue on
        // the way back: one waits (5.6 ms gap: 2.1 Mbit/s) and the next leave it compressed,
        // 0.3 ms apart (40 Mbit/s). The clean pair has the least delay and is the estimate.
        let mut l = Libra::new(cfg(serde_json::json!({"packet_pairs": 4})));
        let mut st = CcState::new(10.0, f64::INFINITY, MSS);
        send_burst(&mut l, &mut st, 10, SimTime::ZERO);
        for (una, arrival_us) in [(1, 51_200), (2, 52_400), (3, 58_000), (4, 58_300), (5, 58_600)] {
            ack_to(&mut l, &mut st, una, at(SimDuration::from_micros(arrival_us)), SimTime::ZERO);
        }
        assert!(!l.probing());
        let c = l.capacity_bps(&st).unwrap();
        assert!((c / 10e6 - 1.0).abs() < 1e-9, "{c}");
    }

    #[test]
    fn segments_of_different_bursts_or_before_a_loss_make_no_pair() {
        // Initial window 1: segment 0, then segments 1–2 one RTT later. ACK 0 → ACK 1 spans two
        // bursts (100 ms apart): no pair. ACK 1 → ACK 2 is a pair.
        let mut l = Libra::new(cfg(serde_json::json!({"packet_pairs": 1, "k2": 0.0})));
        let mut st = CcState::new(1.0, f64::INFINITY, MSS);
        send_burst(&mut l, &mut st, 1, SimTime::ZERO);
        ack_to(&mut l, &mut st, 1, at(ms(100)), SimTime::ZERO);
        send_burst(&mut l, &mut st, 2, at(ms(100)));
        ack_to(&mut l, &mut st, 2, at(ms(200)), at(ms(100)));
        assert!(l.probing(), "a pair across bursts was counted");
        // A congestion event: segments sent before it may be retransmitted, so the ACK that
        // follows (covering segment 2, sent in the same burst as 1) is not paired.
        loss(&mut st, &mut l, CongestionKind::Loss);
        ack_to(&mut l, &mut st, 3, at(ms(250)), at(ms(100)));
        assert!(l.probing(), "a pair spanning a congestion event was counted");
        // Without a pair, C is the rate the window achieved: cwnd/T (k₂ = 0 here: P = 1).
        assert!((l.alpha(&st, 0.15) - st.cwnd / 0.15).abs() < 1e-9);
        // New segments after the event pair normally.
        send_burst(&mut l, &mut st, 2, at(ms(250)));
        ack_to(&mut l, &mut st, 4, at(ms(350)), at(ms(250)));
        ack_to(&mut l, &mut st, 5, at(ms(351)), at(ms(250)));
        assert!(!l.probing());
        assert!((l.capacity_bps(&st).unwrap() - 12_000.0 / 0.001).abs() < 1e-3);
    }

    #[test]
    fn a_given_capacity_skips_probing() {
        let l = Libra::new(cfg(serde_json::json!({"capacity": "1Gbps"})));
        let st = CcState::new(10.0, f64::INFINITY, MSS);
        assert!(!l.probing());
        assert_eq!(l.capacity_bps(&st), Some(1e9));
        assert!((l.alpha(&st, 0.1) - 1e9 / 12_000.0).abs() < 1e-6);
        // The default is written "measure", and reads back.
        let default = CcConfig::from_name("libra", None).unwrap().params_json();
        assert_eq!(default["capacity"], "measure");
        assert!(Libra::new(cfg(serde_json::json!({"capacity": "measure"}))).probing());
        let given = CcConfig::from_name("libra", Some(&serde_json::json!({"capacity": "2.5Gbps"})))
            .unwrap();
        assert_eq!(given.params_json()["capacity"], "2.5Gbps");
    }

    #[test]
    fn paces_at_linux_ratios_once_the_capacity_is_known() {
        let mut l = Libra::new(LibraConfig::default());
        let mut st = CcState::new(10.0, f64::INFINITY, MSS);
        st.srtt = Some(ms(100));
        assert_eq!(l.pacing_rate(&st), None, "pacing while probing");
        l.capacity = Capacity::Measured(1000.0);
        // Slow start (cwnd < ssthresh/2): 2 · 10 · 12 000 bits / 0.1 s.
        assert_eq!(l.pacing_rate(&st), Some(Rate(2_400_000)));
        st.ssthresh = 15.0;
        assert_eq!(l.pacing_rate(&st), Some(Rate(1_440_000)));
        let off = Libra::new(cfg(serde_json::json!({"capacity": "10Mbps", "pacing": false})));
        assert_eq!(off.pacing_rate(&st), None);
    }

    #[test]
    fn bad_parameters_are_one_line_errors_naming_the_field() {
        for (params, field) in [
            (serde_json::json!({"t1": "2s"}), "t1"),
            (serde_json::json!({"t0": "0s"}), "t0"),
            (serde_json::json!({"k1": 0.0}), "k1"),
            (serde_json::json!({"k2": -1.0}), "k2"),
            (serde_json::json!({"packet_pairs": 0}), "packet_pairs"),
            (serde_json::json!({"pacing_ca_ratio": 0.0}), "pacing_ca_ratio"),
            (serde_json::json!({"capacity": "fast"}), "capacity"),
            (serde_json::json!({"t2": "1s"}), "t2"),
        ] {
            let e = CcConfig::from_name("libra", Some(&params)).unwrap_err();
            assert!(e.contains(field) && !e.contains('\n'), "{params}: {e}");
        }
    }
}

#[cfg(test)]
mod engine_tests {
    //! The packet-pair estimate inside a full simulation (the estimate is internal state, so
    //! this lives with the crate rather than in tests/cc_libra.rs).
    use crate::cc::AnyCc;
    use crate::engine::{Endpoint, World};
    use crate::net::packet::FlowId;
    use crate::scenario::Scenario;

    /// Runs a scenario; returns, per Libra flow, the capacity in effect (bit/s) and whether it is
    /// still probing.
    fn capacities(toml: &str) -> Vec<(Option<f64>, bool)> {
        let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
        let built = s.build().unwrap_or_else(|e| panic!("{e}"));
        let mut w = World::new(built.parts);
        w.run(&mut |_| true);
        let mut out = Vec::new();
        for f in 0..w.flows.len() as u32 {
            if let Endpoint::TcpSender(tx) = w.endpoint(FlowId(f).sender()) {
                if let AnyCc::Libra(l) = tx.congestion_control() {
                    out.push((l.capacity_bps(tx.cc_state()), l.probing()));
                }
            }
        }
        out
    }

    #[test]
    fn packet_pairs_measure_the_bottleneck_of_a_dumbbell() {
        // Flow 0 starts alone; flow 1 starts 1.5 s later into a queue flow 0 keeps busy, with
        // delayed ACKs. Both must measure the 20 Mbit/s bottleneck (behind 1 Gbit/s access links)
        // within 10%.
        let caps = capacities(
            r#"
            duration = "4s"
            [topology]
            kind = "dumbbell"
            bottleneck_rate = "20Mbps"
            bottleneck_delay = "10ms"
            [[flows]]
            cc = "libra"
            rtt = "40ms"
            [[flows]]
            cc = "libra"
            rtt = "80ms"
            start = "1.5s"
            delayed_ack = true
            "#,
        );
        assert_eq!(caps.len(), 2);
        for (i, (c, probing)) in caps.into_iter().enumerate() {
            let c = c.unwrap_or_else(|| panic!("flow {i} has no estimate"));
            assert!(!probing, "flow {i} still probing");
            assert!((c / 20e6 - 1.0).abs() < 0.10, "flow {i} measured {:.2} Mbit/s", c / 1e6);
        }
    }
}
