//! Stack profiles: named sets of TCP defaults, so that a scenario says which TCP it compares
//! against (the Linux kernel of today, ns-2's one-way agents, or the RFCs as written) and every
//! individual behaviour can still be overridden by its own key.
//!
//! | behaviour                     | `linux`                   | `ns2`                      | `rfc`               |
//! |-------------------------------|---------------------------|----------------------------|---------------------|
//! | handshake                     | SYN, SYN-ACK (RFC 9293)   | none (starts established)  | none                |
//! | timestamps (RFC 7323)         | on                        | off (`timestamps_ false`)  | off                 |
//! | segment payload (mss)         | 1448 B (1500 − 52)        | 1460 B                     | 1460 B              |
//! | initial window                | 10 (RFC 6928)             | 2 (`windowInit_ 2`)        | 10 (RFC 6928)       |
//! | delayed ACK                   | 40 ms / 2 segments        | off; 100 ms when on        | off; 40 ms when on  |
//! | Reno's reduction from         | cwnd                      | cwnd (`window()`)          | FlightSize          |
//! | quick-ACK                     | on (`tcp_incr_quickack`)  | off                        | off                 |
//! | min / initial / max RTO       | 200 ms / 1 s / 120 s      | 1 s / 3 s / 60 s           | 200 ms / 1 s / 60 s |
//! | RTO rule                      | Linux `tcp_set_rto`       | RFC 6298                   | Linux `tcp_set_rto` |
//! | head retransmission re-arms   | yes                       | no (`newreno_changes1_`)   | yes                 |
//! | loss detection                | RACK-TLP (RFC 8985)       | dupthresh                  | dupthresh (RFC 6675)|
//! | window in fast recovery       | PRR (RFC 6937)            | cwnd = ssthresh            | cwnd = ssthresh     |
//! | receive buffer                | 6 MB (`tcp_rmem[2]`)      | unlimited                  | unlimited           |
//! | new data outside recovery     | pipe < window             | below SND.UNA + window     | pipe < window       |
//! | `cc = "cubic"` runs           | `cubic@linux-6` (Linux's) | RFC 9438                   | RFC 9438            |
//!
//! The last row is applied where the scenario is read (`scenario::tcp_options::profile_cc_name`):
//! CUBIC is an algorithm, not a TCP setting, but Linux's is what a Linux host runs.
//!
//! Sources: Linux 6.x `include/net/tcp.h` (`TCP_RTO_MIN`, `TCP_RTO_MAX`, `TCP_TIMEOUT_INIT`,
//! `TCP_DELACK_MIN`), `net/ipv4/tcp_ipv4.c` (`sysctl_tcp_rmem` = 4096 131072 6291456),
//! `sysctl_tcp_recovery` = RACK; ns-2.35 `tcl/lib/ns-default.tcl` (`rtxcur_init_ 3.0`,
//! `maxrto_ 60`, `windowInit_ 2`, `Agent/TCPSink/DelAck interval_ 100ms`) and
//! `tcp/tcp-sack1.cc` (`send_much`); the 1 s minimum RTO is ns-2's value before its 200 ms
//! `minrto_`, the one the seed papers' ns-2 runs used (seed 004's scenario cites it); RFC 6298
//! §2.1, §2.4, §2.5.
//!
//! `rfc` keeps two of Linux's timer constants where the RFC's own would distort every run on a
//! constant-delay simulated path (see `rtt.rs`): the 200 ms minimum RTO (RFC 6298 §2.4 asks for
//! 1 s; every deployed stack uses less) and the RTO rule that keeps the timeout `min_rto` above
//! SRTT. It is ccarena's stack before profiles existed; `min_rto = "1s"` and `rto = "rfc6298"`
//! give the letter of RFC 6298.

use super::config::{DelayedAck, EchoGrowth, Recovery, RtoRule, TcpConfig};
use crate::time::SimDuration;
use serde::{Deserialize, Serialize};

/// A named bundle of TCP defaults (the scenario key `stack`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    /// What users compare against: Linux 6.x with its default sysctls.
    #[default]
    Linux,
    /// ns-2's one-way TCP agents with ns-default.tcl's values, as the seed papers ran them.
    Ns2,
    /// The RFCs (RFC 5681, 6582, 6675, 6298) without the optional extensions, with Linux's
    /// timer constants (see the module header).
    Rfc,
}

impl Stack {
    pub const ALL: [Stack; 3] = [Stack::Linux, Stack::Ns2, Stack::Rfc];

    pub fn name(self) -> &'static str {
        match self {
            Stack::Linux => "linux",
            Stack::Ns2 => "ns2",
            Stack::Rfc => "rfc",
        }
    }

    /// The profile's delayed-ACK policy when delayed ACKs are on.
    pub fn delayed_ack(self) -> DelayedAck {
        match self {
            // ns-default.tcl: `Agent/TCPSink/DelAck set interval_ 100ms`.
            Stack::Ns2 => DelayedAck { max_delay: SimDuration::from_millis(100), every: 2 },
            Stack::Linux | Stack::Rfc => DelayedAck::default(),
        }
    }

    /// The profile's TCP configuration: every field a default a scenario key may override
    /// (`scenario::tcp_options` puts a group's keys on top, once, when the scenario is read).
    pub fn config(self) -> TcpConfig {
        let plain = TcpConfig::default();
        match self {
            Stack::Linux => TcpConfig {
                // 1500-byte packets: 20 B IPv4, 20 B TCP and 12 B of timestamp option.
                mss: 1448,
                max_rto: SimDuration::from_secs(120), // TCP_RTO_MAX
                recovery: Recovery::Sack,
                delayed_ack: Some(self.delayed_ack()),
                handshake: true,
                timestamps: true,
                quickack: true,
                rack_tlp: true,
                prr: true,
                rcv_buf: 6_291_456, // tcp_rmem[2]
                ecn_echo_growth: EchoGrowth::Grows,
                ..plain
            },
            Stack::Ns2 => TcpConfig {
                initial_cwnd: 2.0,
                min_rto: SimDuration::from_secs(1),
                initial_rto: SimDuration::from_secs(3),
                rto_rule: RtoRule::Rfc6298,
                head_retransmit_rearms_rto: false,
                window_from_una: true,
                ecn_echo_growth: EchoGrowth::Held,
                cwr_on_retransmit: true, // ns-default.tcl: SetCWRonRetransmit_ true
                ..plain
            },
            Stack::Rfc => plain,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_packets_are_1500_bytes_with_timestamps() {
        let c = Stack::Linux.config();
        assert_eq!(c.mss + c.header_bytes(), 1500);
        let r = Stack::Rfc.config();
        assert_eq!(r.mss + r.header_bytes(), 1500);
    }

    #[test]
    fn names_round_trip_through_serde() {
        for s in Stack::ALL {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.name()));
            assert_eq!(serde_json::from_str::<Stack>(&json).unwrap(), s);
        }
    }
}
