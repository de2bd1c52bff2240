//! HighSpeed TCP (RFC 3649; Linux `tcp_highspeed.c`; ns-2 `TcpAgent` with `windowOption_ 8`).
//!
//! An AIMD whose increase a(w) and decrease b(w) depend on the window w, chosen so that the
//! average window under a steady loss rate p follows the HighSpeed response function instead of
//! Reno's 1.2/√p:
//!
//! ```text
//! w ≤ Low_Window:        a(w) = 1, b(w) = 1/2                                  (Reno)
//! response function:     w(p) = Low_Window · (p / Low_P)^S,
//!                        S = (ln High_Window − ln Low_Window) / (ln High_P − ln Low_P)
//!                        ≈ 0.12 / p^0.835 with the RFC 3649 values                    (§5)
//! decrease:              b(w) = (High_Decrease − 1/2) · (ln w − ln Low_Window)
//!                                / (ln High_Window − ln Low_Window) + 1/2               (§5)
//! increase:              a(w) = w² · p(w) · 2·b(w) / (2 − b(w)),  p(w) the inverse of w(p)
//! per ACK (congestion avoidance):   cwnd += a(w) · acked / w
//! on loss / ECN / timeout:          ssthresh = max((1 − b(w)) · w, 2)     w = cwnd
//! ```
//!
//! a(w), b(w) come from one of two sources (`response`):
//! - `"table"` (default, the modern reference): Linux's `hstcp_aimd_vals`, RFC 3649 Appendix B's
//!   table with b scaled by 256. Row i holds (W_i, md_i); for W_{i−1} < ⌊cwnd⌋ ≤ W_i the
//!   algorithm uses a = i + 1 and b = md_i / 256. Windows above the last row keep the last row.
//! - `"formula"`: the expressions above evaluated at the current cwnd, as ns-2 does
//!   (`increase_param`, `decrease_param`), extrapolated beyond High_Window.
//!
//! The table is the formula sampled: RFC 3649 computed its W_i as the window where a(w) reaches
//! i + 1 using the rounded inverse p(w) = 0.078 / w^1.2, which drifts from the exact log-log line
//! by up to 4% in a(w) at the top rows (tested below).
//!
//! Presets: `highspeed@ns2` (formula, Low_P = 1.5 / Low_Window², ns-2's `hstcp_.low_p`) and
//! `highspeed@rfc3649` (formula, Low_P = 10⁻³, the value behind the RFC's 0.12/p^0.835).
//!
//! Not implemented / deviates:
//! - Limited slow start (RFC 3742, ns-2 `max_ssthresh_`) is a separate RFC and off by default in
//!   ns-2; slow start here is standard.
//! - A loss detected during slow start halves the window. Both references do this: Linux's table
//!   index only moves in congestion avoidance, so after slow start it still points at row 0
//!   (b = 1/2); ns-2 halves when `cwnd_ < ssthresh_` or on the first decrease.
//! - Linux adds a(w) per ACK whatever the ACK covered; we add a(w)·acked/w (RFC 3649 per
//!   acknowledged segment), identical without stretch ACKs.
//! - ns-2's `cwnd_range_` caching of a(w) is not reproduced (it is disabled by default).

use super::{
    slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent, MAX_SEGMENTS,
};
use serde::{Deserialize, Serialize};

/// Where a(w) and b(w) come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Response {
    /// Linux's 72-row table (RFC 3649 Appendix B).
    Table,
    /// RFC 3649 §5's expressions, as ns-2 evaluates them.
    Formula,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HighSpeedConfig {
    /// Source of a(w), b(w): `"table"` (Linux) or `"formula"` (RFC 3649 §5, ns-2).
    pub response: Response,
    /// Window (segments) below which HighSpeed behaves as Reno (RFC 3649 §5: Low_Window = 38).
    pub low_window: f64,
    /// Window (segments) reached at loss rate `high_p` (RFC 3649 §5: High_Window = 83000).
    pub high_window: f64,
    /// Loss rate at which the window is `high_window` (RFC 3649 §5: High_P = 10⁻⁷).
    pub high_p: f64,
    /// b(w) at `high_window` (RFC 3649 §5: High_Decrease = 0.1).
    pub high_decrease: f64,
    /// Loss rate at which Reno's window is `low_window` (RFC 3649 §5: Low_P = 10⁻³, from
    /// w = 1.2/√p at w = 38). Formula only.
    pub low_p: f64,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        HighSpeedConfig {
            response: Response::Table,
            low_window: 38.0,
            high_window: 83000.0,
            high_p: 1e-7,
            high_decrease: 0.1,
            low_p: 1e-3,
        }
    }
}

impl CcParams for HighSpeedConfig {
    const PRESETS: &'static [(&'static str, &'static str)] = &[
        ("ns2", "ns-2's built-in HighSpeed TCP (windowOption_ 8): the formula with Low_P = 1.5/Low_Window^2"),
        ("rfc3649", "RFC 3649 section 5 formula with Low_P = 1e-3 (w = 0.12/p^0.835)"),
    ];

    fn preset(name: &str) -> Option<Self> {
        let d = HighSpeedConfig::default();
        match name {
            // ns-2 tcp.cc: "p ranges from 1.5/W^2 at congestion window low_window_".
            "ns2" => Some(HighSpeedConfig {
                response: Response::Formula,
                low_p: 1.5 / (d.low_window * d.low_window),
                ..d
            }),
            "rfc3649" => Some(HighSpeedConfig { response: Response::Formula, ..d }),
            _ => None,
        }
    }

    fn validate(&self) -> Result<(), String> {
        let c = self;
        if !(c.low_window >= 1.0 && c.low_window < MAX_SEGMENTS) {
            return Err(format!(
                "low_window: {} is out of range: expected 1 <= low_window < 1000000 segments",
                c.low_window
            ));
        }
        if !(c.high_window > c.low_window && c.high_window <= MAX_SEGMENTS) {
            return Err(format!("high_window: {} is out of range: expected low_window ({}) < high_window <= 1000000 segments", c.high_window, c.low_window));
        }
        if !(c.low_p > 0.0 && c.low_p < 1.0) {
            return Err(format!("low_p: {} is out of range: expected 0 < low_p < 1", c.low_p));
        }
        if !(c.high_p > 0.0 && c.high_p < c.low_p) {
            return Err(format!(
                "high_p: {} is out of range: expected 0 < high_p < low_p ({})",
                c.high_p, c.low_p
            ));
        }
        if !(c.high_decrease > 0.0 && c.high_decrease <= 0.5) {
            return Err(format!(
                "high_decrease: {} is out of range: expected 0 < high_decrease <= 0.5",
                c.high_decrease
            ));
        }
        if c.response == Response::Table {
            let d = HighSpeedConfig::default();
            for (name, v, dv) in [
                ("low_window", c.low_window, d.low_window),
                ("high_window", c.high_window, d.high_window),
                ("high_p", c.high_p, d.high_p),
                ("high_decrease", c.high_decrease, d.high_decrease),
                ("low_p", c.low_p, d.low_p),
            ] {
                if v != dv {
                    return Err(format!("{name}: {v} applies to response = \"formula\" only: the table is RFC 3649's, sampled at the defaults"));
                }
            }
        }
        Ok(())
    }
}

/// Linux `hstcp_aimd_vals` (RFC 3649 Appendix B): (upper window of the row, b · 256).
/// Row i applies to W_{i−1} < cwnd ≤ W_i with a = i + 1.
const AIMD_TABLE: [(u32, u32); 72] = [
    (38, 128),
    (118, 112),
    (221, 104),
    (347, 98),
    (495, 93),
    (663, 89),
    (851, 86),
    (1058, 83),
    (1284, 81),
    (1529, 78),
    (1793, 76),
    (2076, 74),
    (2378, 72),
    (2699, 71),
    (3039, 69),
    (3399, 68),
    (3778, 66),
    (4177, 65),
    (4596, 64),
    (5036, 62),
    (5497, 61),
    (5979, 60),
    (6483, 59),
    (7009, 58),
    (7558, 57),
    (8130, 56),
    (8726, 55),
    (9346, 54),
    (9991, 53),
    (10661, 52),
    (11358, 52),
    (12082, 51),
    (12834, 50),
    (13614, 49),
    (14424, 48),
    (15265, 48),
    (16137, 47),
    (17042, 46),
    (17981, 45),
    (18955, 45),
    (19965, 44),
    (21013, 43),
    (22101, 43),
    (23230, 42),
    (24402, 41),
    (25618, 41),
    (26881, 40),
    (28193, 39),
    (29557, 39),
    (30975, 38),
    (32450, 38),
    (33986, 37),
    (35586, 36),
    (37253, 36),
    (38992, 35),
    (40808, 35),
    (42707, 34),
    (44694, 33),
    (46776, 33),
    (48961, 32),
    (51258, 32),
    (53677, 31),
    (56230, 30),
    (58932, 30),
    (61799, 29),
    (64851, 28),
    (68113, 28),
    (71617, 27),
    (75401, 26),
    (79517, 26),
    (84035, 25),
    (89053, 24),
];

/// Linux scales the table's b by 2⁸ (`md >> 8`).
const MD_SCALE: f64 = 256.0;

impl HighSpeedConfig {
    /// (a(w), b(w)) for window `w` segments from the configured source.
    pub fn response_at(&self, w: f64) -> (f64, f64) {
        match self.response {
            Response::Table => table_response(w),
            Response::Formula => self.formula_response(w),
        }
    }

    /// RFC 3649 §5, evaluated at `w` (ns-2 `increase_param`, `decrease_param`).
    pub fn formula_response(&self, w: f64) -> (f64, f64) {
        if w <= self.low_window {
            return (1.0, 0.5);
        }
        // Position of w between Low_Window and High_Window on a log scale (0 at Low, 1 at High).
        let x = (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln());
        let b = (self.high_decrease - 0.5) * x + 0.5;
        let p = (self.low_p.ln() + x * (self.high_p.ln() - self.low_p.ln())).exp();
        let a = w * w * p * 2.0 * b / (2.0 - b);
        (a, b)
    }
}

/// Linux `hstcp_cong_avoid`'s row for integer window ⌊w⌋: the first row whose window is ≥ it.
pub fn table_response(w: f64) -> (f64, f64) {
    let cwnd = w.floor().max(0.0) as u32;
    let i = AIMD_TABLE.partition_point(|&(row_w, _)| row_w < cwnd).min(AIMD_TABLE.len() - 1);
    ((i + 1) as f64, AIMD_TABLE[i].1 as f64 / MD_SCALE)
}

pub struct HighSpeed {
    cfg: HighSpeedConfig,
}

impl HighSpeed {
    pub fn new(cfg: HighSpeedConfig) -> Self {
        HighSpeed { cfg }
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let acked = slow_start(st, ack.acked);
        if acked == 0 {
            return;
        }
        let w = st.cwnd.max(1.0);
        let (a, _) = self.cfg.response_at(w);
        st.cwnd += a * acked as f64 / w;
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        let w = st.cwnd;
        // In slow start both references halve (see the module notes).
        let b = if st.in_slow_start() { 0.5 } else { self.cfg.response_at(w).1 };
        st.ssthresh = ((1.0 - b) * w).max(2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::{ack, loss};
    use crate::cc::CcConfig;

    fn rfc() -> HighSpeedConfig {
        HighSpeedConfig::preset("rfc3649").unwrap()
    }

    #[test]
    fn response_is_reno_up_to_low_window_for_both_sources() {
        for w in [1.0, 10.0, 38.0] {
            assert_eq!(table_response(w), (1.0, 0.5));
            assert_eq!(rfc().formula_response(w), (1.0, 0.5));
        }
        // Just above Low_Window the table moves to row 1 (a = 2). The formula stays near Reno:
        // with ns-2's Low_P = 1.5/38² it continues Reno exactly (a = 1.5·2b/(2−b) → 1); with
        // the RFC's rounded Low_P = 10⁻³ it starts at 38²·10⁻³·(2/3) ≈ 0.96.
        assert_eq!(table_response(39.0), (2.0, 112.0 / 256.0));
        let ns2 = HighSpeedConfig::preset("ns2").unwrap();
        let (a, b) = ns2.formula_response(38.0 + 1e-9);
        assert!((a - 1.0).abs() < 1e-6 && (b - 0.5).abs() < 1e-6, "{a} {b}");
        let (a, b) = rfc().formula_response(38.0 + 1e-9);
        assert!((a - 0.963).abs() < 0.001 && (b - 0.5).abs() < 1e-6, "{a} {b}");
    }

    #[test]
    fn formula_reaches_rfc_values_at_high_window() {
        // RFC 3649 §5: at w = 83000, b = High_Decrease = 0.1 and a(w) ≈ 72.
        let (a, b) = rfc().formula_response(83000.0);
        assert!((b - 0.1).abs() < 1e-12, "{b}");
        assert!((a - 72.5).abs() < 0.5, "{a}");
        // The table row covering 83000 (79517 < w ≤ 84035) has a = 71, b = 25/256 ≈ 0.098.
        assert_eq!(table_response(83000.0), (71.0, 25.0 / 256.0));
    }

    #[test]
    fn formula_response_function_is_0_12_over_p_to_the_0_835() {
        // The AIMD sawtooth with a(w), b(w) has mean window w at loss rate p(w) where
        // a = w² p 2b/(2−b); invert a(w) back to p and compare with RFC 3649's closed form.
        let c = rfc();
        for w in [100.0, 1000.0, 10000.0, 80000.0] {
            let (a, b) = c.formula_response(w);
            let p = a * (2.0 - b) / (w * w * 2.0 * b);
            let closed = 0.12 / p.powf(0.835);
            assert!((closed / w - 1.0).abs() < 0.02, "w {w}: 0.12/p^0.835 = {closed}");
        }
    }

    #[test]
    fn table_and_formula_agree_at_the_table_rows() {
        // At each row's window W_i the table's a = i + 1 and b = md_i/256 are the formula's
        // values at W_i; the RFC computed the rows with the rounded p(w) = 0.078/w^1.2, so a(w)
        // drifts by up to 4% at the top rows, b by at most its 1/256 quantisation plus rounding.
        let c = rfc();
        let mut worst_a: f64 = 0.0;
        for (i, &(w, md)) in AIMD_TABLE.iter().enumerate() {
            let (a, b) = c.formula_response(w as f64);
            let (ta, tb) = table_response(w as f64);
            assert_eq!((ta, tb), ((i + 1) as f64, md as f64 / MD_SCALE));
            worst_a = worst_a.max((a / ta - 1.0).abs());
            assert!((b - tb).abs() < 0.006, "row {i} w {w}: formula b {b}, table b {tb}");
        }
        assert!(worst_a < 0.04, "worst relative a(w) difference {worst_a}");
        // With the RFC's rounded inverse the rows are reproduced to within 0.06 in a.
        for (i, &(w, _)) in AIMD_TABLE.iter().enumerate().skip(1) {
            let w = w as f64;
            let (_, b) = c.formula_response(w);
            let a_rfc = w * w * (0.078 / w.powf(1.2)) * 2.0 * b / (2.0 - b);
            assert!((a_rfc - (i + 1) as f64).abs() < 0.06, "row {i}: {a_rfc}");
        }
    }

    #[test]
    fn same_source_gives_identical_trajectories() {
        let run = |cfg: HighSpeedConfig| {
            let mut st = CcState::new(200.0, 200.0, 1460);
            let mut h = HighSpeed::new(cfg);
            let mut trace = Vec::new();
            for k in 0..20_000u32 {
                h.on_ack(&mut st, &ack(1));
                if k % 4000 == 3999 {
                    h.on_congestion(&mut st, &loss());
                    st.cwnd = st.ssthresh;
                }
                trace.push(st.cwnd.to_bits());
            }
            trace
        };
        assert_eq!(run(HighSpeedConfig::default()), run(HighSpeedConfig::default()));
        assert_eq!(run(rfc()), run(rfc()));
        assert_ne!(run(HighSpeedConfig::default()), run(rfc()));
    }

    #[test]
    fn one_window_of_acks_adds_a_of_w() {
        for (cfg, w) in [(HighSpeedConfig::default(), 1000.0), (rfc(), 1000.0), (rfc(), 20000.0)] {
            let mut st = CcState::new(w, w, 1460);
            let mut h = HighSpeed::new(cfg.clone());
            let (a, _) = cfg.response_at(w);
            for _ in 0..w as u32 {
                h.on_ack(&mut st, &ack(1));
            }
            let grown = st.cwnd - w;
            assert!(
                (grown / a - 1.0).abs() < 0.01,
                "{:?} w {w}: grew {grown}, a(w) {a}",
                cfg.response
            );
        }
        // Linux row for 1000 segments is 851 < w ≤ 1058: a = 8.
        assert_eq!(table_response(1000.0).0, 8.0);
    }

    #[test]
    fn loss_applies_b_of_w_and_halves_in_slow_start() {
        let mut h = HighSpeed::new(HighSpeedConfig::default());
        let mut st = CcState::new(1000.0, 500.0, 1460);
        h.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 1000.0 * (1.0 - 83.0 / 256.0));
        let mut st = CcState::new(1000.0, f64::INFINITY, 1460);
        h.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 500.0);
        let mut st = CcState::new(3.0, 2.0, 1460);
        h.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 2.0);
    }

    #[test]
    fn presets_select_the_source_and_low_p() {
        let ns2 = CcConfig::from_name("highspeed@ns2", None).unwrap().params_json();
        assert_eq!(ns2["response"], "formula");
        assert!((ns2["low_p"].as_f64().unwrap() - 1.5 / 1444.0).abs() < 1e-15);
        assert_eq!(
            CcConfig::from_name("highspeed", None).unwrap().params_json()["response"],
            "table"
        );
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e = CcConfig::from_name("highspeed", Some(&serde_json::json!({"response": "tabel"})))
            .unwrap_err();
        assert!(e.starts_with("response:") && e.contains("formula"), "{e}");
        let e = CcConfig::from_name(
            "highspeed",
            Some(&serde_json::json!({"high_decrease": 0.7, "response": "formula"})),
        )
        .unwrap_err();
        assert!(e.starts_with("high_decrease: 0.7"), "{e}");
        let e = CcConfig::from_name("highspeed", Some(&serde_json::json!({"low_window": 50})))
            .unwrap_err();
        assert!(e.contains("formula"), "{e}");
        assert!(CcConfig::from_name("highspeed@ns2", Some(&serde_json::json!({"low_window": 50})))
            .is_ok());
    }
}
