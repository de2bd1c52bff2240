//! TCP: a sans-I/O sender and receiver with Tahoe, Reno, NewReno and SACK loss recovery.
//!
//! Sequence numbers count segments: segment `n` carries application message `n`
//! ([`AppSource::len`](crate::app::AppSource::len) payload bytes, plus 40 bytes of headers on the
//! wire, 52 with timestamps). Windows are in segments. The congestion controller ([`crate::cc`]) only sets ssthresh
//! and grows cwnd; detecting and repairing losses is this module's job.
//!
//! ```text
//! sender                                            receiver
//!   window = min(⌊cwnd⌋, rwnd)                        ACK = RCV.NXT (next segment expected)
//!   send while pipe < window: lost first, then new    SACK: ≤ 3 blocks, triggering block first
//!   pipe = out − sacked − lost + retransmitted        delayed ACK: every 2nd segment or 40 ms,
//!   RTO = SRTT + max(G, 4·RTTVAR) ∈ [min, max RTO]     immediate when out of order or filling,
//!   loss: DupThresh (RFC 6675) or RACK-TLP            and in quick-ACK mode
//!   Open ⇄ Recovery (fast retransmit) ; any → Loss (timeout)
//! ```
//!
//! | file            | job                                                    | source               |
//! |-----------------|--------------------------------------------------------|----------------------|
//! | `config.rs`     | parameters and their defaults                          | RFC 6928, 6298, 5681 |
//! | `rtt.rs`        | SRTT, RTTVAR, RTO and backoff                          | RFC 6298             |
//! | `ranges.rs`     | sorted segment ranges (out-of-order queue, SACK index) |                      |
//! | `scoreboard.rs` | per-segment state, pipe, IsLost, NextSeg               | RFC 6675, Linux      |
//! | `recovery.rs`   | the Open / Recovery / Loss / Cwr / SQM state machine   | RFC 5681, 6582, 6675 |
//! | `next_seg.rs`   | what a transmit opportunity sends, within the window   | RFC 6675 §5          |
//! | `cwnd_usage.rs` | whether the window limited sending (growth allowed)    | Linux                |
//! | `timers.rs`     | the sender's deadlines                                 | RFC 6298, 8985       |
//! | `sender.rs`     | composes the parts: transmission, ACKs, timers, CC     | RFC 5681, 6298       |
//! | `rate_sample.rs`| delivery rate per ACK (delivered, interval, app-limited)| draft-cheng-iccrg-delivery-rate-estimation |
//! | `receiver.rs`   | cumulative and selective ACKs, delayed ACKs, delivery  | RFC 2018, 5681 §4.2  |
//! | `ecn.rs`        | ECT, ECN-Echo response once per window, CWR            | RFC 3168 §6.1        |
//! | `sqm.rs`        | SQM-Response to ICMP Source Quench                     | seed 004 §3.3–3.4    |
//! | `handshake.rs`  | SYN / SYN-ACK, SYN retransmission, first RTT sample    | RFC 9293, 6298       |
//! | `rack.rs`       | RACK-TLP: time-based loss detection, tail loss probes  | RFC 8985             |
//! | `prr.rs`        | Proportional Rate Reduction in fast recovery           | RFC 6937             |
//! | `stack.rs`      | the `linux`, `ns2` and `rfc` profiles of defaults      | Linux 6.x, ns-2.35   |
//!
//! Without a handshake (`ns2`, `rfc`) the connection starts established at the sender's `start`
//! time; a `File` application's completion time is when its last segment is cumulatively
//! acknowledged. Timestamps (RFC 7323, `linux`) add 12 bytes to every packet and give RTT samples
//! for retransmitted data (the backoff then resets, as in Linux); without them Karn's algorithm
//! decides. The receiver's window is `rcv_buf / 2` less out-of-order data (`receiver.rs`).
//!
//! Not implemented / deviates:
//! - No FIN, no Nagle, no window-scale negotiation or receive-buffer autotuning (the buffer is
//!   its ceiling from the start), no zero-window probing.
//! - No undo (Eifel, F-RTO, D-SACK undo); D-SACK is one bit per ACK; RACK never detects
//!   reordering, so its window stays min_RTT / 4 (`rack.rs`).
//! - Without RACK, NextSeg rules 3 and 4 (RFC 6675 §4) are not implemented and a lost
//!   retransmission is only detected by the retransmission timer. Without PRR, RFC 6675's pipe
//!   rule can release two segments per ACK when every other segment was lost. No limited
//!   transmit (RFC 3042; with SACK, pipe-based sending gives a similar effect).
//! - ECN (`ecn = true`) and SQM-Response (`source_quench = true`) are off by default; their
//!   own deviations are listed in `ecn.rs` and `sqm.rs`.
//! - Pacing: when the CC returns a `pacing_rate`, segments are spaced by their wire-size
//!   serialisation time at that rate (no pacing quantum or burst allowance, unlike Linux `fq`).
//! - After an idle period longer than the RTO the window restarts as Linux's does (`idle.rs`);
//!   the congestion controller is not told.
//! - The clock granularity G is 1 ms; the timestamp clock ticks in milliseconds as Linux's.
//! - The receiver never reneges on SACKed data; its delayed-ACK timeout is fixed, not Linux's
//!   adaptive `ato`.
//! - Slow start adds the full count of acknowledged segments per ACK, as Linux does (the CC's
//!   choice); RFC 5681 suggests at most one SMSS per ACK.

pub mod config;
mod cwnd_usage;
mod ecn;
mod handshake;
pub mod idle;
mod next_seg;
mod prr;
mod rack;
mod ranges;
pub mod rate_sample;
pub mod receiver;
mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
mod sqm;
pub mod stack;
mod timers;

#[cfg(test)]
mod testutil;

pub use config::{DelayedAck, EcnFeedback, Recovery, RtoRule, TcpConfig};
pub use receiver::TcpReceiver;
pub use recovery::Phase;
pub use sender::TcpSender;
pub use stack::Stack;

/// Gives back what a per-segment queue kept from its largest window, down to a few dozen
/// entries. Called when a connection has nothing outstanding: seed 003's background holds tens
/// of thousands of web and FTP connections, most of them idle between transfers at any moment,
/// and each kept the queues of its largest window (a third of B2's memory).
fn release_spare<T>(queue: &mut std::collections::VecDeque<T>) {
    const KEEP: usize = 32;
    if queue.capacity() > KEEP {
        queue.shrink_to(KEEP);
    }
}
