//! CCID 3: TCP-Friendly Rate Control for DCCP (RFC 4342, with TFRC as updated by RFC 5348).
//!
//! The sender ([`sender::TfrcTx`]) paces packets at the allowed rate X, set from the TCP
//! throughput equation ([`equation`]) with the loss event rate p that the receiver
//! ([`receiver::TfrcRx`]) computes from its loss-interval history ([`loss_intervals`]) and
//! returns at least once per round trip with its receive rate X_recv. FAST-TFRC (seed 002) is the
//! same machinery with other rate-update rules ([`sender::Variant::Fast`]).

pub mod equation;
pub mod loss_intervals;
pub mod receiver;
pub mod sender;

use crate::cc::CcParams;
use serde::{Deserialize, Serialize};

/// Which TFRC specification the sender follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TfrcProfile {
    /// RFC 5348 (2008, updates RFC 4342): X_recv_set, data-limited intervals, an idle sender
    /// keeps about its initial rate.
    Rfc5348,
    /// RFC 3448 (2003), which RFC 4342 and the ns-2 and Linux 2.6 implementations of the seed
    /// papers followed: the limit is 2·X_recv of the last feedback, slow start floors at s/R, and
    /// the nofeedback timer halves X_recv (or sets it to X_calc/4) on every expiry, idle or not.
    Rfc3448,
}

/// Parameters of TFRC (both halves read the parts that concern them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ccid3Config {
    /// Loss intervals averaged into p. RFC 5348 §5.4: n = 8 (weights 1,1,1,1,0.8,0.6,0.4,0.2).
    pub loss_history: usize,
    /// Later packets received that make a missing one lost. RFC 5348 §5.1: NDUPACK = 3.
    pub ndupack: u32,
    /// Longest back-off interval: the rate never drops below s / t_mbi. RFC 5348 §4.3: 64 s.
    pub t_mbi_s: f64,
    /// Weight of the old RTT estimate in R = q·R + (1 − q)·R_sample. RFC 5348 §4.3: q = 0.9.
    pub rtt_filter_q: f64,
    /// Nofeedback timer before the first feedback, seconds. RFC 5348 §4.2: 2 s.
    pub initial_nofeedback_s: f64,
    /// The sender's specification: `"rfc5348"` (current) or `"rfc3448"` (what the seeds ran).
    pub profile: TfrcProfile,
    /// The segment size s of the equation, the rate floors and the spacing (s/X), bytes, at both
    /// ends; `null`: the application's packet size (RFC 4342 §5.3). ns-2's CCID 3 uses a fixed
    /// one (`s_s_` and `r_s_`, 500 B, `ns-default.tcl`; `dccp_tfrc.cc` `s_t_ipi_ = s_s_ /
    /// s_x_inst_`), whatever its packets carry: 160-byte VoIP packets then leave one per 500/X
    /// seconds, and their receive rate, in real bytes, holds X near s/R.
    pub equation_size: Option<u32>,
}

impl Default for Ccid3Config {
    fn default() -> Self {
        Ccid3Config {
            loss_history: 8,
            ndupack: 3,
            t_mbi_s: 64.0,
            rtt_filter_q: 0.9,
            initial_nofeedback_s: 2.0,
            profile: TfrcProfile::Rfc5348,
            equation_size: None,
        }
    }
}

impl CcParams for Ccid3Config {
    const PRESETS: &'static [(&'static str, &'static str)] = &[(
        "ns2",
        "ns-2.35's Agent/DCCP/TFRC (ns-default.tcl): RFC 3448 rules, s = 500 B in the equation and the spacing whatever the packet size (s_s_, r_s_)",
    )];

    fn preset(name: &str) -> Option<Self> {
        match name {
            "ns2" => Some(Ccid3Config {
                profile: TfrcProfile::Rfc3448,
                equation_size: Some(500),
                ..Ccid3Config::default()
            }),
            _ => None,
        }
    }
}

impl Ccid3Config {
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=64).contains(&self.loss_history) {
            return Err(format!(
                "loss_history: {} is out of range: expected 1..64 intervals",
                self.loss_history
            ));
        }
        if !(1..=1000).contains(&self.ndupack) {
            return Err(format!(
                "ndupack: {} is out of range: expected 1..1000 packets",
                self.ndupack
            ));
        }
        // RFC 5348 §4.3: t_mbi = 64 s. The rate never drops below s/t_mbi, so a t_mbi under a
        // second makes that floor a real sending rate (1e-8 s: a terabit per second) and the
        // "back-off" meaningless.
        if !(1.0..=3600.0).contains(&self.t_mbi_s) {
            return Err(format!(
                "t_mbi_s: {} is out of range: expected 1 <= t_mbi_s <= 3600 seconds",
                self.t_mbi_s
            ));
        }
        if !(0.0..1.0).contains(&self.rtt_filter_q) {
            return Err(format!(
                "rtt_filter_q: {} is out of range: expected 0 <= q < 1",
                self.rtt_filter_q
            ));
        }
        if self.equation_size.is_some_and(|s| !(1..=65_535).contains(&s)) {
            return Err(format!("equation_size: {} is out of range: expected 1..65535 bytes (or null: the packet size)", self.equation_size.unwrap_or(0)));
        }
        if !(self.initial_nofeedback_s > 0.0 && self.initial_nofeedback_s <= 60.0) {
            return Err(format!(
                "initial_nofeedback_s: {} is out of range: expected 0 < t <= 60 seconds",
                self.initial_nofeedback_s
            ));
        }
        Ok(())
    }
}
