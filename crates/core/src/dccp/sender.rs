//! The DCCP client: handshake, the application's send buffer, the CCID gate, Close.
//!
//! ```text
//! state     Idle ─start─▶ Request ─Response─▶ PartOpen ─any ack─▶ Open ─app done, settled─▶
//!           Closing ─Reset─▶ Closed                                        (RFC 4340 §8)
//! Request   sent at the flow's start; resent after 3 s, doubling to at most 64 s
//!           (Linux DCCP_TIMEOUT_INIT, DCCP_RTO_MAX; RFC 4340 §8.1.1)
//! PartOpen  the Response gives the handshake RTT to the CCID; every packet carries an
//!           acknowledgement (DataAck) until the server answers; with no data to send, a pure
//!           Ack leaves at once and again after 200 ms, doubling (RFC 4340 §8.1.5)
//! data      message n leaves when the CCID says Now; sequence numbers count every packet;
//!           a message is never sent twice; DataAck instead of Data while an acknowledgement
//!           of the server's packets is owed (CCID 2's acks of acks)
//! buffer    with max_queue_delay, messages waiting longer than it are discarded before
//!           sending (the application's "late data choice", seed 000 §3.1)
//! Close     once a finite application has sent its last message and the CCID has settled
//!           the fate of every packet; resent after max(2·RTT, 200 ms), doubling (§8.3)
//! ```
//!
//! The first data packet leaves when the Response arrives: one round trip after the start.

use super::{AnyCcidTx, CcidConfig, Feedback, SendDecision, SentPacket};
use crate::app::AppSource;
use crate::net::packet::Packet;
use crate::time::{SimDuration, SimTime};
use crate::transport::{Addr, Probe, Transport};
use crate::wire::dccp::{DccpHeader, DccpOptions, DccpType};
use crate::wire::Header;

/// First Request retransmission timeout (Linux `DCCP_TIMEOUT_INIT`, RFC 1122's 3 s).
const REQUEST_TIMEOUT: SimDuration = SimDuration::from_secs(3);
/// Cap of the Request, Ack and Close back-off (Linux `DCCP_RTO_MAX`).
const MAX_BACKOFF: SimDuration = SimDuration::from_secs(64);
/// First PARTOPEN Ack and Close retransmission timeout: the RTT assumed when none is known
/// (RFC 4340 §3.4, 0.2 s).
const FALLBACK_TIMEOUT: SimDuration = SimDuration::from_millis(200);

/// Parameters of a DCCP connection.
#[derive(Clone, Debug, PartialEq)]
pub struct DccpConfig {
    pub ccid: CcidConfig,
    /// Discard application messages that waited longer than this in the send buffer.
    pub max_queue_delay: Option<SimDuration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientState {
    /// Before the flow's start.
    Idle,
    Request,
    PartOpen,
    Open,
    Closing,
    Closed,
}

/// A retransmission timer with exponential back-off.
#[derive(Clone, Copy, Debug, Default)]
struct Backoff {
    at: Option<SimTime>,
    next_gap: SimDuration,
    /// The deadline passed: the packet must be sent again.
    due: bool,
}

impl Backoff {
    fn start(&mut self, now: SimTime, gap: SimDuration) {
        self.at = Some(now + gap);
        self.next_gap = gap.saturating_mul(2).min(MAX_BACKOFF);
        self.due = false;
    }
    fn expire(&mut self, now: SimTime) {
        if self.at.is_some_and(|t| t <= now) {
            self.due = true;
            self.at = None;
        }
    }
    fn stop(&mut self) {
        *self = Backoff::default();
    }
}

pub struct DccpSender {
    addr: Addr,
    app: AppSource,
    start: SimTime,
    ccid: AnyCcidTx,
    max_queue_delay: Option<SimDuration>,
    state: ClientState,
    /// Next sequence number (every packet takes one).
    next_seq: u64,
    /// Greatest sequence number received from the server.
    gsr: Option<u64>,
    /// A server packet has not been acknowledged yet.
    ack_owed: bool,
    /// Next application message to send (messages below it were sent or discarded).
    next_msg: u64,
    /// Sequence number and time of the latest Request.
    request: (u64, SimTime),
    request_timer: Backoff,
    partopen_timer: Backoff,
    close_timer: Backoff,
    /// The CCID said NotBefore: poll again then.
    pace_at: Option<SimTime>,
    /// The application's next message appears then.
    app_at: Option<SimTime>,
    /// Ack Ratio last written in a header.
    ack_ratio_sent: u16,
    handshake_rtt: Option<SimDuration>,
    completed_at: Option<SimTime>,
    data_sent: u64,
    app_discarded: u64,
}

impl DccpSender {
    pub fn new(addr: Addr, cfg: &DccpConfig, app: AppSource, start: SimTime) -> Self {
        let (ccid, _) = cfg.ccid.build(app.nominal_size());
        DccpSender {
            addr,
            app,
            start,
            ccid,
            max_queue_delay: cfg.max_queue_delay,
            state: ClientState::Idle,
            next_seq: 0,
            gsr: None,
            ack_owed: false,
            next_msg: 0,
            request: (0, start),
            request_timer: Backoff::default(),
            partopen_timer: Backoff::default(),
            close_timer: Backoff::default(),
            pace_at: None,
            app_at: None,
            ack_ratio_sent: 2,
            handshake_rtt: None,
            completed_at: None,
            data_sent: 0,
            app_discarded: 0,
        }
    }

    pub fn state(&self) -> ClientState {
        self.state
    }
    pub fn ccid(&self) -> &AnyCcidTx {
        &self.ccid
    }
    /// Data packets sent (each application message at most once).
    pub fn data_sent(&self) -> u64 {
        self.data_sent
    }
    /// Application messages discarded for waiting longer than `max_queue_delay`.
    pub fn app_discarded(&self) -> u64 {
        self.app_discarded
    }
    /// The Request → Response round trip.
    pub fn handshake_rtt(&self) -> Option<SimDuration> {
        self.handshake_rtt
    }

    fn packet(&mut self, now: SimTime, mut h: DccpHeader) -> Packet {
        if let Some(g) = self.gsr {
            h.ack = g;
        }
        Packet {
            flow: self.addr.flow,
            src: self.addr.local,
            dst: self.addr.remote,
            size: h.wire_size(),
            sent_at: now,
            ce: false,
            header: Header::Dccp(h),
        }
    }

    fn take_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    fn send_request(&mut self, now: SimTime) -> Packet {
        let seq = self.take_seq();
        self.request = (seq, now);
        let gap = if self.request_timer.next_gap == SimDuration::ZERO {
            REQUEST_TIMEOUT
        } else {
            self.request_timer.next_gap
        };
        self.request_timer.start(now, gap);
        self.packet(now, DccpHeader::new(DccpType::Request, true, seq))
    }

    /// A packet without data after the handshake (Ack, Close): the CCID sees its number.
    fn send_control(&mut self, now: SimTime, kind: DccpType) -> Packet {
        let seq = self.take_seq();
        let ccval = self.ccid.inner_mut().on_sent(now, &SentPacket { seq, len: 0, is_data: false });
        self.ack_owed = false;
        let h = DccpHeader {
            ccval,
            ack_ratio: self.ack_ratio_sent,
            ..DccpHeader::new(kind, true, seq)
        };
        self.packet(now, h)
    }

    fn send_data(&mut self, now: SimTime) -> Packet {
        let seq = self.take_seq();
        let len = self.app.len(self.next_msg);
        self.next_msg += 1;
        self.data_sent += 1;
        let kind = if self.state == ClientState::PartOpen || self.ack_owed {
            DccpType::DataAck
        } else {
            DccpType::Data
        };
        self.ack_owed = false;
        let ccval = self.ccid.inner_mut().on_sent(now, &SentPacket { seq, len, is_data: true });
        let ack_ratio = self.ccid.inner().ack_ratio();
        let ack_ratio_changed = ack_ratio != self.ack_ratio_sent;
        self.ack_ratio_sent = ack_ratio;
        let h = DccpHeader {
            len,
            ccval,
            ack_ratio,
            ack_ratio_changed,
            ..DccpHeader::new(kind, true, seq)
        };
        self.packet(now, h)
    }

    /// Discards messages that waited longer than `max_queue_delay`.
    fn discard_late(&mut self, now: SimTime, available: u64) {
        let Some(limit) = self.max_queue_delay else { return };
        while self.next_msg < available {
            match self.app.ready_at(self.next_msg) {
                Some(t) if now.saturating_since(t) > limit => {
                    self.next_msg += 1;
                    self.app_discarded += 1;
                }
                _ => return,
            }
        }
    }

    fn app_finished(&self) -> bool {
        self.app.total().is_some_and(|t| self.next_msg >= t)
    }

    fn close(&mut self, now: SimTime) -> Packet {
        if self.state != ClientState::Closing {
            self.state = ClientState::Closing;
            self.completed_at = Some(now);
            self.pace_at = None;
            self.app_at = None;
        }
        let rtt2 = self
            .handshake_rtt
            .map_or(FALLBACK_TIMEOUT, |r| r.saturating_mul(2))
            .max(FALLBACK_TIMEOUT);
        let gap = if self.close_timer.next_gap == SimDuration::ZERO {
            rtt2
        } else {
            self.close_timer.next_gap
        };
        self.close_timer.start(now, gap);
        self.send_control(now, DccpType::Close)
    }

    /// PartOpen or Open: data if the application has some and the CCID allows it.
    fn poll_established(&mut self, now: SimTime) -> Option<Packet> {
        if std::mem::take(&mut self.partopen_timer.due) && self.state == ClientState::PartOpen {
            self.partopen_timer.start(now, self.partopen_timer.next_gap);
            return Some(self.send_control(now, DccpType::Ack));
        }
        let available = self.app.available(now).min(self.app.total().unwrap_or(u64::MAX));
        self.discard_late(now, available);
        if self.next_msg < available {
            self.app_at = None;
            return match self.ccid.inner_mut().send_decision(now) {
                SendDecision::Now => Some(self.send_data(now)),
                SendDecision::NotBefore(t) => {
                    self.ccid.inner_mut().on_blocked(now);
                    self.pace_at = Some(t);
                    None
                }
                SendDecision::AwaitFeedback => {
                    self.ccid.inner_mut().on_blocked(now);
                    None
                }
            };
        }
        if self.app_finished() {
            if self.ccid.inner().settled() {
                return Some(self.close(now));
            }
            return None;
        }
        self.app_at = self.app.ready_at(self.next_msg);
        if self.state == ClientState::PartOpen && self.ack_owed {
            // Nothing to send: acknowledge the Response with a pure Ack, and again if the
            // server stays silent (RFC 4340 §8.1.5).
            self.partopen_timer.start(now, FALLBACK_TIMEOUT);
            return Some(self.send_control(now, DccpType::Ack));
        }
        None
    }
}

impl Transport for DccpSender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let Header::Dccp(h) = pkt.header else { return };
        if h.from_client {
            return;
        }
        self.gsr = Some(self.gsr.map_or(h.seq, |g| g.max(h.seq)));
        match (self.state, h.kind) {
            (ClientState::Request, DccpType::Response) => {
                let rtt = now.saturating_since(self.request.1);
                self.handshake_rtt = Some(rtt);
                self.ccid.inner_mut().on_established(now, rtt);
                self.state = ClientState::PartOpen;
                self.request_timer.stop();
                self.ack_owed = true;
            }
            (
                ClientState::PartOpen | ClientState::Open | ClientState::Closing,
                DccpType::Ack | DccpType::DataAck,
            ) => {
                if self.state == ClientState::PartOpen {
                    self.state = ClientState::Open;
                    self.partopen_timer.stop();
                }
                self.ccid
                    .inner_mut()
                    .on_feedback(now, &Feedback { seq: h.seq, ack: h.ack, options: &h.options });
                self.pace_at = None; // the allowed rate may have changed: ask the CCID again
                if matches!(h.options, DccpOptions::AckVector(_)) {
                    self.ack_owed = true; // acknowledge the Ack Vector so the receiver can trim it
                }
            }
            (ClientState::Closing, DccpType::Reset) => {
                self.state = ClientState::Closed;
                self.close_timer.stop();
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        self.request_timer.expire(now);
        self.partopen_timer.expire(now);
        self.close_timer.expire(now);
        if self.pace_at.is_some_and(|t| t <= now) {
            self.pace_at = None;
        }
        if self.app_at.is_some_and(|t| t <= now) {
            self.app_at = None;
        }
        if matches!(self.state, ClientState::PartOpen | ClientState::Open | ClientState::Closing)
            && self.ccid.inner().poll_timeout().is_some_and(|t| t <= now)
        {
            self.ccid.inner_mut().handle_timeout(now);
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        match self.state {
            ClientState::Idle if now >= self.start => {
                self.state = ClientState::Request;
                Some(self.send_request(now))
            }
            ClientState::Request if std::mem::take(&mut self.request_timer.due) => {
                Some(self.send_request(now))
            }
            ClientState::PartOpen | ClientState::Open => {
                if self.pace_at.is_some() {
                    return None;
                }
                self.poll_established(now)
            }
            ClientState::Closing if std::mem::take(&mut self.close_timer.due) => {
                Some(self.close(now))
            }
            _ => None,
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        match self.state {
            ClientState::Idle => Some(self.start),
            ClientState::Closed => None,
            _ => {
                let ccid = match self.state {
                    ClientState::Request => None,
                    _ => self.ccid.inner().poll_timeout(),
                };
                SimTime::earliest([
                    self.request_timer.at,
                    self.partopen_timer.at,
                    self.close_timer.at,
                    self.pace_at,
                    self.app_at,
                    ccid,
                ])
            }
        }
    }

    fn probe(&self) -> Probe {
        Probe { completed_at: self.completed_at, ..self.ccid.inner().probe() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dccp::ccid2::Ccid2Config;
    use crate::dccp::testutil::{ms, Pair};

    fn ccid2() -> DccpConfig {
        DccpConfig { ccid: CcidConfig::Ccid2(Ccid2Config::default()), max_queue_delay: None }
    }

    #[test]
    fn first_data_leaves_one_rtt_after_the_start() {
        let mut p =
            Pair::new(ccid2(), AppSource::Bulk { mss: 1000 }, ms(7), SimDuration::from_millis(25));
        p.run_until(ms(200));
        let first = p.sent.iter().find(|(_, h)| h.kind.is_data()).unwrap();
        assert_eq!(first.0, ms(57));
        assert_eq!(
            first.1.kind,
            DccpType::DataAck,
            "PARTOPEN: the first data acknowledges the Response"
        );
        assert_eq!(p.sent[0].1.kind, DccpType::Request);
        assert_eq!(p.sender.handshake_rtt(), Some(SimDuration::from_millis(50)));
        assert_eq!(p.sender.state(), ClientState::Open);
    }

    #[test]
    fn lost_request_is_resent_after_three_seconds() {
        let mut p =
            Pair::new(ccid2(), AppSource::Bulk { mss: 1000 }, ms(0), SimDuration::from_millis(25))
                .with_rate(crate::time::Rate::mbps(10))
                .dropping(|h| h.kind == DccpType::Request && h.seq == 0);
        p.run_until(ms(4000));
        let requests: Vec<_> = p
            .sent
            .iter()
            .filter(|(_, h)| h.kind == DccpType::Request)
            .map(|(t, h)| (*t, h.seq))
            .collect();
        assert_eq!(requests, vec![(ms(0), 0), (ms(3000), 1)]);
        let first = p.sent.iter().find(|(_, h)| h.kind.is_data()).unwrap();
        assert_eq!(first.0, ms(3050) + SimDuration::from_micros(32)); // the Request serialised at 10 Mbit/s
    }

    #[test]
    fn a_file_is_sent_once_then_closed_with_a_reset() {
        let app = AppSource::File { bytes: 20_000, mss: 1000 };
        let mut p = Pair::new(ccid2(), app, ms(0), SimDuration::from_millis(10))
            .dropping(|h| h.kind.is_data() && h.seq == 5);
        p.run_until(ms(5000));
        let data: Vec<u64> =
            p.sent.iter().filter(|(_, h)| h.kind.is_data()).map(|(_, h)| h.seq).collect();
        assert_eq!(data.len(), 20, "20 messages, each sent once: {data:?}");
        let mut unique = data.clone();
        unique.dedup();
        assert_eq!(unique.len(), 20);
        assert_eq!(p.receiver.probe().delivered_bytes, 19_000);
        assert_eq!(p.sender.state(), ClientState::Closed);
        let close = p.sent.iter().filter(|(_, h)| h.kind == DccpType::Close).count();
        assert_eq!(close, 1);
        assert!(p.sender.probe().completed_at.is_some());
        assert_eq!(p.sender.poll_timeout(), None);
    }

    #[test]
    fn every_packet_takes_a_new_sequence_number() {
        let app = AppSource::File { bytes: 50_000, mss: 1000 };
        let mut p = Pair::new(ccid2(), app, ms(0), SimDuration::from_millis(10));
        p.run_until(ms(5000));
        let seqs: Vec<u64> = p.sent.iter().map(|(_, h)| h.seq).collect();
        assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
        let server: Vec<u64> = p.received.iter().map(|(_, h)| h.seq).collect();
        assert_eq!(server, (0..server.len() as u64).collect::<Vec<_>>());
    }

    #[test]
    fn late_messages_are_discarded_not_sent() {
        // 2 Mbit/s of 1000-byte messages through a CCID 3 sender that starts at 4 packets per RTT:
        // the buffer backs up and messages older than 50 ms are dropped.
        let cfg = DccpConfig {
            ccid: CcidConfig::Ccid3(Default::default()),
            max_queue_delay: Some(SimDuration::from_millis(50)),
        };
        let app = AppSource::cbr(ms(0), crate::time::Rate::mbps(2), 1000);
        let mut p = Pair::new(cfg, app, ms(0), SimDuration::from_millis(50));
        p.run_until(ms(1000));
        let discarded = p.sender.app_discarded();
        assert!(discarded > 0);
        let produced = p.sender.app.available(ms(1000));
        // Every message is either sent, discarded or still young enough to wait.
        let waiting = produced - p.sender.data_sent() - discarded;
        assert!(waiting <= 50 * 2_000_000 / 8_000 / 1000 + 1, "{waiting} messages waiting");
    }
}
