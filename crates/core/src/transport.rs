//! The sans-I/O interface every transport endpoint implements.
//!
//! An endpoint never sees the scheduler or a clock: the engine hands it packets and timeouts with
//! the current time, then drains `poll_transmit` and re-arms one timer at `poll_timeout`. This
//! keeps each endpoint testable on its own, by feeding it packets at chosen instants.

use crate::net::packet::{FlowId, NodeId, Packet};
use crate::time::{SimDuration, SimTime};

/// Where an endpoint sits: its flow, its own node and the peer's node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub flow: FlowId,
    pub local: NodeId,
    pub remote: NodeId,
}

/// A snapshot of an endpoint's state, read by the recorder at sample instants.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Probe {
    /// Congestion window, segments (senders with a window).
    pub cwnd: Option<f64>,
    /// Slow-start threshold, segments (None while unlimited).
    pub ssthresh: Option<f64>,
    /// Smoothed RTT.
    pub srtt: Option<SimDuration>,
    /// Allowed sending rate, bits/s (rate-based senders: DCCP CCID 3, FAST-TFRC).
    pub rate_bps: Option<f64>,
    /// Receiver: application payload bytes delivered in order so far.
    pub delivered_bytes: u64,
    /// Sender: when the application's last byte was acknowledged (finite apps only).
    pub completed_at: Option<SimTime>,
    /// Sender: retransmission timeouts so far.
    pub timeouts: u64,
    /// Sender: fast retransmits (entries into loss recovery) so far.
    pub fast_recoveries: u64,
    /// Sender: tail-loss probes sent so far (RFC 8985 §7).
    pub loss_probes: u64,
    /// Sender: window reductions in answer to ECN-Echo (RFC 3168) so far.
    pub ecn_reductions: u64,
    /// Sender: window reductions in answer to ICMP Source Quench (SQM-Response) so far.
    pub sq_reductions: u64,
}

pub trait Transport {
    /// A packet for this endpoint arrived at `now`.
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet);
    /// The deadline last returned by `poll_timeout` has passed (`now` ≥ deadline).
    fn handle_timeout(&mut self, now: SimTime);
    /// The next packet to put on the wire at `now`, if any. Called until it returns `None`,
    /// at once after every `handle_packet` and `handle_timeout` (same `now`), except for a
    /// sender whose flow has stopped (it sends nothing more): a transport may note what they
    /// call for and build the packet here (the TCP receiver's ACK).
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet>;
    /// The earliest instant at which `handle_timeout` must be called, if any. Asked once
    /// `poll_transmit` has returned `None`: a transport may settle its timers when a burst ends
    /// (the TCP sender schedules its loss probe then).
    fn poll_timeout(&self) -> Option<SimTime>;
    fn probe(&self) -> Probe;
}
