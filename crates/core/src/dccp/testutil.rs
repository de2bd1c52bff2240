//! Test fixture: a DCCP client and server joined by a path with a fixed one-way delay, an
//! optional forward bottleneck rate (an unlimited FIFO) and a drop rule for client packets.
//! Driven one event at a time: arrivals at the server, then at the client, then the server's
//! timer, then the client's.

use super::receiver::DccpReceiver;
use super::sender::{DccpConfig, DccpSender};
use crate::app::AppSource;
use crate::net::packet::{FlowId, NodeId, Packet};
use crate::time::{Rate, SimDuration, SimTime};
use crate::transport::{Addr, Transport};
use crate::wire::dccp::DccpHeader;
use crate::wire::Header;
use std::collections::VecDeque;

pub fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

type DropRule = Box<dyn FnMut(&DccpHeader) -> bool>;

pub struct Pair {
    pub sender: DccpSender,
    pub receiver: DccpReceiver,
    pub now: SimTime,
    delay: SimDuration,
    rate: Option<Rate>,
    link_free_at: SimTime,
    drop: DropRule,
    to_server: VecDeque<(SimTime, Packet)>,
    to_client: VecDeque<(SimTime, Packet)>,
    /// Every packet the client sent, with its send time (dropped ones included).
    pub sent: Vec<(SimTime, DccpHeader)>,
    /// Every packet the server sent.
    pub received: Vec<(SimTime, DccpHeader)>,
    /// Client packets dropped by the rule.
    pub dropped: u64,
}

fn dccp(p: &Packet) -> DccpHeader {
    match p.header {
        Header::Dccp(h) => h,
        _ => unreachable!("only DCCP here"),
    }
}

impl Pair {
    pub fn new(cfg: DccpConfig, app: AppSource, start: SimTime, one_way: SimDuration) -> Pair {
        let flow = FlowId(0);
        let s = app.nominal_size();
        Pair {
            sender: DccpSender::new(
                Addr { flow, local: NodeId(0), remote: NodeId(1) },
                &cfg,
                app,
                start,
            ),
            receiver: DccpReceiver::new(
                Addr { flow, local: NodeId(1), remote: NodeId(0) },
                &cfg,
                s,
            ),
            now: SimTime::ZERO,
            delay: one_way,
            rate: None,
            link_free_at: SimTime::ZERO,
            drop: Box::new(|_| false),
            to_server: VecDeque::new(),
            to_client: VecDeque::new(),
            sent: Vec::new(),
            received: Vec::new(),
            dropped: 0,
        }
    }

    /// Drops the client packets for which `rule` holds.
    pub fn dropping(mut self, rule: impl FnMut(&DccpHeader) -> bool + 'static) -> Pair {
        self.drop = Box::new(rule);
        self
    }

    /// Serialises client packets at `rate` before the delay.
    pub fn with_rate(mut self, rate: Rate) -> Pair {
        self.rate = Some(rate);
        self
    }

    fn drain(&mut self) {
        loop {
            let mut any = false;
            while let Some(p) = self.sender.poll_transmit(self.now) {
                any = true;
                let h = dccp(&p);
                self.sent.push((self.now, h));
                if (self.drop)(&h) {
                    self.dropped += 1;
                    continue;
                }
                let leave = match self.rate {
                    Some(r) => {
                        self.link_free_at = self.link_free_at.max(self.now) + r.tx_time(p.size);
                        self.link_free_at
                    }
                    None => self.now,
                };
                self.to_server.push_back((leave + self.delay, p));
            }
            while let Some(p) = self.receiver.poll_transmit(self.now) {
                any = true;
                self.received.push((self.now, dccp(&p)));
                self.to_client.push_back((self.now + self.delay, p));
            }
            if !any {
                return;
            }
        }
    }

    /// Runs until `end` (events at `end` included).
    pub fn run_until(&mut self, end: SimTime) {
        loop {
            self.drain();
            let candidates = [
                self.to_server.front().map(|(t, _)| *t),
                self.to_client.front().map(|(t, _)| *t),
                self.receiver.poll_timeout(),
                self.sender.poll_timeout(),
            ];
            let Some((which, t)) = candidates
                .iter()
                .enumerate()
                .filter_map(|(i, t)| t.map(|t| (i, t)))
                .min_by_key(|&(i, t)| (t, i))
            else {
                break;
            };
            if t > end {
                break;
            }
            self.now = self.now.max(t);
            match which {
                0 => {
                    let (_, p) = self.to_server.pop_front().expect("peeked");
                    self.receiver.handle_packet(self.now, &p);
                }
                1 => {
                    let (_, p) = self.to_client.pop_front().expect("peeked");
                    self.sender.handle_packet(self.now, &p);
                }
                2 => self.receiver.handle_timeout(self.now),
                _ => self.sender.handle_timeout(self.now),
            }
        }
        self.now = end;
    }
}
