//! TCP parameters: segment size, initial window, timer bounds, loss-recovery variant and
//! delayed-ACK policy. Every default names its source.

use crate::time::SimDuration;
use serde::{Deserialize, Serialize};

/// How the sender detects and repairs losses (the classic family compared by Fall & Floyd 1996).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Fast retransmit, then `cwnd = 1` and go-back-N in slow start (4.3BSD-Tahoe, ns-2 `Tahoe`).
    Tahoe,
    /// Fast retransmit and fast recovery with window inflation; leaves recovery on the first ACK
    /// that advances SND.UNA (RFC 5681 §3.2).
    Reno,
    /// Reno plus partial-ACK retransmission until `recover` is acknowledged (RFC 6582).
    NewReno,
    /// SACK scoreboard, `pipe` and NextSeg (RFC 6675, RFC 2018).
    Sack,
}

impl Recovery {
    /// Every variant, in the order of the literature.
    pub const ALL: [Recovery; 4] =
        [Recovery::Tahoe, Recovery::Reno, Recovery::NewReno, Recovery::Sack];

    /// The name used in scenarios and results.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// How the retransmission timeout is computed from SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoRule {
    /// Linux (`tcp_rtt_estimator`, `tcp_set_rto`): the variation term is floored at `min_rto`,
    /// `RTO = SRTT + max(4·RTTVAR, min_rto)`, so the timeout stays at least `min_rto` above the
    /// RTT even when delays never vary (as in a simulator without jitter).
    Linux,
    /// RFC 6298 §2: `RTO = max(SRTT + max(G, 4·RTTVAR), min_rto)`. With a constant-delay path
    /// RTTVAR decays to zero and, once SRTT exceeds `min_rto`, the timeout sits just above SRTT:
    /// a retransmission's ACK then often arrives after it (a spurious timeout).
    Rfc6298,
}

/// Delayed acknowledgements (RFC 5681 §4.2; RFC 1122 §4.2.3.2).
#[derive(Clone, Debug, PartialEq)]
pub struct DelayedAck {
    /// Longest an in-order segment waits for its ACK. Default 40 ms, Linux `TCP_DELACK_MIN`
    /// (RFC 5681 §4.2 allows up to 500 ms).
    pub max_delay: SimDuration,
    /// ACK at least every `every` in-order segments. Default 2 (RFC 5681 §4.2: "an ACK SHOULD be
    /// generated for at least every second full-sized segment").
    pub every: u32,
}

impl Default for DelayedAck {
    fn default() -> Self {
        DelayedAck { max_delay: SimDuration::from_millis(40), every: 2 }
    }
}

/// Parameters of one TCP connection (both ends read the parts that concern them).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes of a full segment (SMSS). Default 1460: a 1500-byte Ethernet MTU less 40 bytes
    /// of IPv4 and TCP headers.
    pub mss: u32,
    /// Initial window, segments. Default 10 (RFC 6928).
    pub initial_cwnd: f64,
    /// Initial slow-start threshold, segments. Default unlimited (RFC 5681 §3.1: "arbitrarily high").
    pub initial_ssthresh: f64,
    /// Lower bound of the retransmission timeout. Default 200 ms, Linux `TCP_RTO_MIN` (RFC 6298
    /// §2.4 asks for 1 s; every deployed stack uses less).
    pub min_rto: SimDuration,
    /// How SRTT and RTTVAR make the timeout. Default Linux's rule (see [`RtoRule`]).
    pub rto_rule: RtoRule,
    /// Retransmission timeout before the first RTT sample. Default 1 s (RFC 6298 §2.1).
    pub initial_rto: SimDuration,
    /// Upper bound of the (backed-off) retransmission timeout. Default 60 s (RFC 6298 §2.5: "a
    /// maximum value may be placed on RTO provided it is at least 60 seconds").
    pub max_rto: SimDuration,
    /// Loss-recovery variant. Default SACK, what every current stack negotiates.
    pub recovery: Recovery,
    /// Delayed-ACK policy of the receiver; `None` acknowledges every segment at once.
    pub delayed_ack: Option<DelayedAck>,
    /// Receiver window, segments; `u64::MAX` means unlimited.
    pub rwnd: u64,
    /// Duplicate ACKs (or SACKed segments above a hole) that signal a loss. Default 3
    /// (RFC 5681 §3.2, RFC 6675 `DupThresh`).
    pub dupthresh: u32,
    /// ECN-capable connection (RFC 3168): ECT on new data, ECN-Echo until CWR, one window
    /// reduction per window of data. Default false (the seed papers' TCPs predate it).
    pub ecn: bool,
    /// Whether an ACK carrying ECN-Echo may grow cwnd (see [`EchoGrowth`]).
    pub ecn_echo_growth: EchoGrowth,
    /// What the receiver's ECN-Echo says (see [`EcnFeedback`]); DCTCP's, for a `dctcp` flow.
    pub ecn_feedback: EcnFeedback,
    /// CWR also goes on a retransmission when it is the first segment after a reduction
    /// (ns-2 `SetCWRonRetransmit_`, true in ns-2.35's `ns-default.tcl`); RFC 3168 §6.1.2 and
    /// Linux (`tcp_ecn_send`) set it on new data only.
    pub cwr_on_retransmit: bool,
    /// SQM-Response to ICMP Source Quench (seed 004 §3.3–3.4). Default false.
    pub source_quench: bool,
    /// Re-arm the retransmission timer whenever SND.UNA's segment is retransmitted. Default true,
    /// Linux (`tcp_xmit_retransmit_queue` re-arms it when it resends the head). False is ns-2's
    /// one-way TCP: `TcpAgent::output` only starts the timer when none is pending, so after
    /// NewReno's first partial ACK (which resets it, `partialnewack_helper` with
    /// `newreno_changes1_ = 1`, ns-2's default since 2003-05-05) later partial-ACK
    /// retransmissions leave it running and a window with many drops times out (RFC 6582 §4.2's
    /// Impatient variant taken literally).
    pub head_retransmit_rearms_rto: bool,
    /// Restart the window after an idle period longer than the RTO (see `idle.rs`). Default on,
    /// Linux `net.ipv4.tcp_slow_start_after_idle = 1` (RFC 5681 §4.1, RFC 2861).
    pub slow_start_after_idle: bool,
    /// Open the connection with a three-way handshake (`handshake.rs`): SYN retransmitted on the
    /// initial RTO, the handshake's RTT the first sample. Default off (the connection starts
    /// established, as in ns-2).
    pub handshake: bool,
    /// RFC 7323 timestamps: every segment carries TSval, every ACK TS.Recent; an ACK of
    /// retransmitted data gives an RTT sample from the echo (Linux `tcp_ack_update_rtt`) and so
    /// clears the RTO backoff. Costs 12 bytes per packet. Default off.
    pub timestamps: bool,
    /// The receiver's quick-ACK mode (`receiver.rs`): the first segments of a connection, and
    /// those after a duplicate arrives, are acknowledged one by one (Linux `tcp_incr_quickack`).
    /// Default off.
    pub quickack: bool,
    /// RACK-TLP loss detection (RFC 8985, `rack.rs`), with SACK recovery only. Default off.
    pub rack_tlp: bool,
    /// Proportional Rate Reduction in fast recovery (RFC 6937, `prr.rs`), with SACK recovery
    /// only. Default off (cwnd = ssthresh at once, RFC 6675).
    pub prr: bool,
    /// Receive buffer, payload bytes: out-of-order data above RCV.NXT is bounded by it and the
    /// advertised window is what remains; `u64::MAX` means unlimited (the default).
    pub rcv_buf: u64,
    /// Outside fast recovery, new data goes out only below SND.UNA + window, as in ns-2's SACK
    /// agent (`Sack1TcpAgent::send_much`: `t_seqno_ <= last_ack_ + window()` unless
    /// `fastrecov_`, where it counts `pipe_`). Default false: RFC 6675 counts the pipe in every
    /// state, so after a timeout a flow whose retransmission is lost again keeps sending new
    /// data, clocked by SACKs, until the backed-off timer fires (Linux bounds that span by the
    /// receive buffer instead).
    pub window_from_una: bool,
}

/// How an ACK carrying ECN-Echo (the receiver repeats it until our CWR reaches it) affects
/// window growth.
///
/// Held always, a sender that sets CWR on new data only never grows again after a timeout whose
/// go-back-N retransmissions fill cwnd = 1: no new segment carries CWR, every ACK echoes, and the
/// flow resends one segment per round trip until the whole window is repaired (seconds at a time
/// on a RED queue with ECN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EchoGrowth {
    /// ECN-Echo does not hold growth (Linux since 4.x: `tcp_may_raise_cwnd` checks only for a
    /// window reduction in progress).
    Grows,
    /// Held at or above ssthresh only: slow start rebuilding a window the echoed congestion
    /// already cut goes on (Linux 2.6 `tcp_may_raise_cwnd`: `!(flag & FLAG_ECE) || cwnd <
    /// ssthresh`), the reading of RFC 3168 §6.1.2's "should not increase" this model takes.
    BelowSsthresh,
    /// Never grows on an ECN-Echo ACK (ns-2 `TcpAgent::recv_newack_helper`, with CWR on
    /// retransmissions to end the echo).
    Held,
}

/// The meaning of ECN-Echo on the receiver's ACKs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnFeedback {
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE-marked segment until a segment carrying CWR;
    /// the sender learns that congestion happened, once per window.
    #[default]
    Rfc3168,
    /// RFC 8257 §3.2 (DCTCP): ECE on an ACK is the CE mark of the latest segment, and a change
    /// of mark first acknowledges the data before it, so the sender can count marked segments.
    /// The sender also keeps ECT on retransmissions (Linux `tcp_ecn_send` for a congestion
    /// control that needs ECN).
    Dctcp,
}

impl TcpConfig {
    /// Bytes of IPv4 and TCP headers on a data segment or pure ACK.
    pub fn header_bytes(&self) -> u32 {
        crate::wire::tcp::TCP_IP_HEADER
            + if self.timestamps { crate::wire::tcp::TCP_TS_OPTION } else { 0 }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_cwnd: 10.0,
            initial_ssthresh: f64::INFINITY,
            min_rto: SimDuration::from_millis(200),
            rto_rule: RtoRule::Linux,
            initial_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            recovery: Recovery::Sack,
            delayed_ack: None,
            rwnd: u64::MAX,
            dupthresh: 3,
            ecn: false,
            ecn_echo_growth: EchoGrowth::BelowSsthresh,
            ecn_feedback: EcnFeedback::Rfc3168,
            cwr_on_retransmit: false,
            source_quench: false,
            slow_start_after_idle: true,
            head_retransmit_rearms_rto: true,
            handshake: false,
            timestamps: false,
            quickack: false,
            rack_tlp: false,
            prr: false,
            rcv_buf: u64::MAX,
            window_from_una: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_cited_sources() {
        let c = TcpConfig::default();
        assert_eq!(c.mss, 1460);
        assert_eq!(c.initial_cwnd, 10.0);
        assert!(c.initial_ssthresh.is_infinite());
        assert_eq!(c.min_rto, SimDuration::from_millis(200));
        assert_eq!(c.initial_rto, SimDuration::from_secs(1));
        assert_eq!(c.max_rto, SimDuration::from_secs(60));
        assert_eq!(c.recovery, Recovery::Sack);
        assert_eq!(c.dupthresh, 3);
        assert!(c.head_retransmit_rearms_rto);
        assert_eq!(
            DelayedAck::default(),
            DelayedAck { max_delay: SimDuration::from_millis(40), every: 2 }
        );
    }

    #[test]
    fn recovery_names_round_trip_through_serde() {
        for r in Recovery::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.name()));
            assert_eq!(serde_json::from_str::<Recovery>(&json).unwrap(), r);
        }
        assert!(serde_json::from_str::<Recovery>("\"vegas\"").is_err());
    }
}
