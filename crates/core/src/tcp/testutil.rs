//! Test fixture: a sender and a receiver joined by a path with a fixed one-way delay, an optional
//! bottleneck rate (an unlimited FIFO at the sender) and a list of segments dropped on their
//! first transmission. Driven by the earliest of the pending arrivals and the two endpoints'
//! timers, one event at a time; ties go to arrivals at the receiver, then at the sender, then to
//! the receiver's timer, then to the sender's.

use super::config::TcpConfig;
use super::receiver::TcpReceiver;
use super::recovery::Phase;
use super::sender::TcpSender;
use crate::app::AppSource;
use crate::cc::reno::{Reno, RenoConfig};
use crate::cc::AnyCc;
use crate::net::packet::{FlowId, NodeId, Packet};
use crate::time::{Rate, SimDuration, SimTime};
use crate::transport::{Addr, Transport};
use crate::wire::tcp::{SackBlock, SackBlocks, TcpAck, TCP_IP_HEADER};
use crate::wire::Header;
use std::collections::{BTreeSet, VecDeque};

/// One data transmission by the sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tx {
    pub at: SimTime,
    pub seq: u64,
    pub retransmit: bool,
    pub dropped: bool,
}

/// The sender's state right after it handled an ACK or a timeout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Snapshot {
    pub at: SimTime,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub phase: Phase,
    pub snd_una: u64,
    pub snd_max: u64,
}

pub struct Pair {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub now: SimTime,
    delay: SimDuration,
    rate: Option<Rate>,
    link_free_at: SimTime,
    /// Packets the bottleneck queue holds (waiting, not being sent); more are dropped.
    queue_limit: Option<usize>,
    /// Departure times of the packets queued or being sent at the bottleneck.
    departures: VecDeque<SimTime>,
    drop_first: BTreeSet<u64>,
    /// Segments whose first retransmission is dropped too.
    drop_first_retransmission: BTreeSet<u64>,
    /// SYNs still to drop.
    syn_drops: u32,
    /// When each SYN left.
    pub syns: Vec<SimTime>,
    to_receiver: VecDeque<(SimTime, Packet)>,
    to_sender: VecDeque<(SimTime, Packet)>,
    pub sent: Vec<Tx>,
    pub trace: Vec<Snapshot>,
}

/// An ACK of flow 0 from the receiver (node 1) to the sender (node 0): cumulative `ack`, SACK
/// `blocks` (start, end exclusive) and the ECN-Echo bit.
pub fn ack_packet(ack: u64, blocks: &[(u64, u64)], ece: bool) -> Packet {
    let mut sack = SackBlocks::default();
    for &(start, end) in blocks {
        sack.push(SackBlock { start, end });
    }
    Packet {
        flow: FlowId(0),
        src: NodeId(1),
        dst: NodeId(0),
        size: TCP_IP_HEADER + sack.option_bytes(),
        sent_at: SimTime::ZERO,
        ce: false,
        header: Header::TcpAck(TcpAck { ack, sack, ece, tsecr: None, dsack: false, wnd: u32::MAX }),
    }
}

/// Drains `poll_transmit` at `now`: (seq, retransmit) of each data segment sent.
pub fn drain(s: &mut TcpSender, now: SimTime) -> Vec<(u64, bool)> {
    let mut out = Vec::new();
    while let Some(p) = s.poll_transmit(now) {
        let Header::TcpData { seq, retransmit, .. } = p.header else { panic!("not data: {p:?}") };
        out.push((seq, retransmit));
    }
    out
}

pub fn reno_cc() -> AnyCc {
    AnyCc::Reno(Reno::new(RenoConfig::default()))
}

pub fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// A file of `segments` full segments.
pub fn file(segments: u64) -> AppSource {
    AppSource::File { bytes: segments * 1460, mss: 1460 }
}

impl Pair {
    /// A Reno-CC sender starting at time zero.
    pub fn new(cfg: TcpConfig, app: AppSource, one_way: SimDuration) -> Pair {
        let flow = FlowId(0);
        let s_addr = Addr { flow, local: NodeId(0), remote: NodeId(1) };
        let r_addr = Addr { flow, local: NodeId(1), remote: NodeId(0) };
        Pair {
            receiver: TcpReceiver::new(r_addr, &cfg),
            sender: TcpSender::new(s_addr, cfg, reno_cc(), app, SimTime::ZERO),
            now: SimTime::ZERO,
            delay: one_way,
            rate: None,
            link_free_at: SimTime::ZERO,
            queue_limit: None,
            departures: VecDeque::new(),
            drop_first: BTreeSet::new(),
            drop_first_retransmission: BTreeSet::new(),
            syn_drops: 0,
            syns: Vec::new(),
            to_receiver: VecDeque::new(),
            to_sender: VecDeque::new(),
            sent: Vec::new(),
            trace: Vec::new(),
        }
    }

    pub fn dropping_first_transmission_of(mut self, segs: &[u64]) -> Pair {
        self.drop_first = segs.iter().copied().collect();
        self
    }

    /// Also drops the first retransmission of each of `segs`.
    pub fn dropping_first_retransmission_of(mut self, segs: &[u64]) -> Pair {
        self.drop_first_retransmission = segs.iter().copied().collect();
        self
    }

    /// Drops the first `n` SYNs (with a handshake).
    pub fn dropping_syns(mut self, n: u32) -> Pair {
        self.syn_drops = n;
        self
    }

    pub fn with_bottleneck(mut self, rate: Rate) -> Pair {
        self.rate = Some(rate);
        self
    }

    /// A drop-tail bottleneck queue of `limit` packets (with `with_bottleneck`).
    pub fn with_queue_limit(mut self, limit: usize) -> Pair {
        self.queue_limit = Some(limit);
        self
    }

    fn flush(&mut self) {
        while let Some(p) = self.sender.poll_transmit(self.now) {
            if let Header::TcpSyn { .. } = p.header {
                self.syns.push(self.now);
                if self.syn_drops > 0 {
                    self.syn_drops -= 1;
                } else {
                    self.to_receiver.push_back((self.now + self.delay, p));
                }
                continue;
            }
            let Header::TcpData { seq, retransmit, .. } = p.header else {
                panic!("sender sent {p:?}")
            };
            while self.departures.front().is_some_and(|&t| t <= self.now) {
                self.departures.pop_front();
            }
            // One packet is being serialised; the rest wait in the queue.
            let queue_full = self.queue_limit.is_some_and(|l| self.departures.len() > l);
            let dropped = queue_full
                || (!retransmit && self.drop_first.contains(&seq))
                || (retransmit && self.drop_first_retransmission.remove(&seq));
            self.sent.push(Tx { at: self.now, seq, retransmit, dropped });
            if dropped {
                continue;
            }
            let departs = match self.rate {
                Some(r) => {
                    self.link_free_at = self.now.max(self.link_free_at) + r.tx_time(p.size);
                    self.departures.push_back(self.link_free_at);
                    self.link_free_at
                }
                None => self.now,
            };
            self.to_receiver.push_back((departs + self.delay, p));
        }
        while let Some(p) = self.receiver.poll_transmit(self.now) {
            self.to_sender.push_back((self.now + self.delay, p));
        }
    }

    fn snapshot(&mut self) {
        let st = self.sender.cc_state();
        self.trace.push(Snapshot {
            at: self.now,
            cwnd: st.cwnd,
            ssthresh: st.ssthresh,
            phase: self.sender.phase(),
            snd_una: self.sender.snd_una(),
            snd_max: self.sender.snd_max(),
        });
    }

    /// Handles the earliest event if it is due by `end`; false if none is.
    fn step(&mut self, end: SimTime) -> bool {
        self.flush();
        let due = [
            self.to_receiver.front().map(|&(t, _)| t),
            self.to_sender.front().map(|&(t, _)| t),
            self.receiver.poll_timeout(),
            self.sender.poll_timeout(),
        ];
        let Some((which, t)) = due
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (i, t)))
            .min_by_key(|&(i, t)| (t, i))
        else {
            return false;
        };
        if t > end {
            return false;
        }
        self.now = self.now.max(t);
        match which {
            0 => {
                let (_, p) = self.to_receiver.pop_front().unwrap();
                self.receiver.handle_packet(self.now, &p);
            }
            1 => {
                let (_, p) = self.to_sender.pop_front().unwrap();
                self.sender.handle_packet(self.now, &p);
                self.snapshot();
            }
            2 => self.receiver.handle_timeout(self.now),
            _ => {
                self.sender.handle_timeout(self.now);
                self.snapshot();
            }
        }
        true
    }

    /// Handles every event due by `end`.
    pub fn run_until(&mut self, end: SimTime) {
        let mut steps = 0u64;
        while self.step(end) {
            steps += 1;
            assert!(steps < 10_000_000, "runaway simulation at {}", self.now);
        }
        self.flush();
    }

    /// Runs until the sender's application completes; panics if it has not by `limit`.
    pub fn run_to_completion(&mut self, limit: SimTime) -> SimTime {
        let mut steps = 0u64;
        while self.sender.probe().completed_at.is_none() && self.step(limit) {
            steps += 1;
            assert!(steps < 10_000_000, "runaway simulation at {}", self.now);
        }
        self.sender.probe().completed_at.unwrap_or_else(|| panic!("not complete by {limit}"))
    }

    /// Retransmissions sent so far.
    pub fn retransmissions(&self) -> Vec<u64> {
        self.sent.iter().filter(|t| t.retransmit).map(|t| t.seq).collect()
    }
}
