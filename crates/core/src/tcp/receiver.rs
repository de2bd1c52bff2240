//! The TCP receiver: cumulative and selective acknowledgements, delayed ACKs, in-order delivery.
//!
//! ```text
//! ACK.ack  = RCV.NXT, the next segment expected               (RFC 793)
//! SACK     = block holding the segment that triggered this ACK, then the most recently reported
//!            blocks still valid, then any others; at most MAX_SACK_BLOCKS  (RFC 2018 §4)
//! ACK now  : out-of-order or duplicate segment, segment filling (part of) a hole  (RFC 5681 §4.2)
//!            quick-ACK mode: until `quick` ACKs of any kind have gone out (16 at the start, again after a
//!            duplicate arrives, and again when in-order data comes after a silence longer than
//!            the receiver's RTO: Linux tcp_incr_quickack, TCP_MAX_QUICKACKS, tcp_event_data_recv)
//! delayed  : otherwise, after `every` in-order segments or `max_delay`, whichever comes first
//! TSecr    = TS.Recent: the TSval of the latest segment at or below the last ACK sent,
//!            so a delayed ACK echoes the earlier of its two segments     (RFC 7323 §4.3)
//! window   = rcv_buf / 2 − out-of-order bytes held: Linux reserves half the buffer for
//!            overhead (tcp_adv_win_scale = 1); data beyond the window is dropped
//! ```
//!
//! Out-of-order segments are kept as a sorted set of ranges (one per island between holes), each
//! with the payload bytes it holds, so a hole filled delivers the island behind it in O(1).
//!
//! A SYN is answered with a SYN-ACK echoing its timestamp, each time it arrives (a lost SYN-ACK
//! is repaired by the sender's SYN retransmission; the receiver keeps no SYN-ACK timer).
//! Deviations: D-SACK (RFC 2883) is one bit, "this ACK reports a duplicate", not a block;
//! Linux's adaptive delayed-ACK timeout (`ato`) is the fixed `max_delay`.
//!
//! ECN (RFC 3168 §6.1.3, when the connection is ECN-capable): after a CE-marked segment every
//! ACK carries ECE until a segment with CWR arrives; CE on that segment starts a new echo.
//! With DCTCP's feedback (RFC 8257 §3.2, Linux `dctcp_ece_ack_update`) ECE is the CE mark of
//! the latest segment instead: a segment whose mark differs from the one before, while a
//! delayed ACK is pending, first has the data before it acknowledged at once with the old mark,
//! so every ACK's ECE covers segments of one mark. CE then asks for no quick ACKs (Linux: the
//! DCTCP state sets `TCP_ECN_DEMAND_CWR` before `__tcp_ecn_check_ce` looks at it).

use super::config::{DelayedAck, EcnFeedback, TcpConfig};
use super::ranges::{SeqRange, SeqRanges};
use super::rtt::{RtoConfig, RttEstimator};
use crate::net::packet::Packet;
use crate::time::{Deadline, SimDuration, SimTime};
use crate::transport::{Addr, Probe, Transport};
use crate::wire::tcp::{SackBlock, SackBlocks, TcpAck, MAX_SACK_BLOCKS, TCP_SYN_SIZE};
use crate::wire::Header;

/// Segments acknowledged one by one when quick-ACK mode starts (Linux `TCP_MAX_QUICKACKS`).
const MAX_QUICKACKS: u32 = 16;

/// The timestamp clock: milliseconds (Linux `TCP_TS_HZ` = 1000), wrapping as a 32-bit TSval.
pub(super) fn ts_clock(now: SimTime) -> u32 {
    (now.as_nanos() / 1_000_000) as u32
}

/// The RTT an echoed timestamp `tsecr` measures at `now`: on the millisecond clock, at least 1.
pub(super) fn ts_echo_rtt(now: SimTime, tsecr: u32) -> SimDuration {
    SimDuration::from_millis(u64::from(ts_clock(now).wrapping_sub(tsecr).max(1)))
}

/// Laid out in the order written (`repr(C)`): what every segment reads first, in five cache
/// lines; the RTT estimator, which only the handshake's sample changes, last. Why: see
/// [`TcpSender`](super::sender::TcpSender).
#[repr(C)]
pub struct TcpReceiver {
    /// RCV.NXT: the next segment expected. I.e. every segment below it has been delivered.
    rcv_nxt: u64,
    /// Payload bytes delivered in order (duplicates excluded).
    delivered_bytes: u64,
    /// RCV.NXT as the last ACK carried it (RFC 7323 `Last.ACK.sent`).
    last_ack_sent: u64,
    /// Half the receive buffer, bytes: the most out-of-order data held (see the module table).
    window_bytes: u64,
    /// Payload bytes of a full segment, to express the window in segments.
    mss: u64,
    /// `rtt`'s RTO, read at every in-order segment (the estimator itself changes only with the
    /// handshake's sample).
    rto: SimDuration,
    /// When the delayed ACK must go out, if one is pending.
    delack_at: Deadline,
    /// When the last SYN-ACK left, until the handshake's RTT is taken.
    synack_sent_at: Option<SimTime>,
    /// When the last in-order segment arrived (Linux `lrcvtime`).
    last_in_order_at: Option<SimTime>,
    /// Timestamps are on: TS.Recent (RFC 7323 §4.3).
    ts_recent: Option<u32>,
    /// Segments received above `rcv_nxt`, with their payload bytes.
    out_of_order: SeqRanges,
    /// SACK blocks of the last ACK, most recent first (RFC 2018 §4 repeats them).
    reported: SackBlocks,
    delayed_ack: Option<DelayedAck>,
    /// What `poll_transmit` sends next.
    reply: Reply,
    addr: Addr,
    /// In-order segments received since the last ACK.
    unacked: u32,
    /// ACKs still to send at once in quick-ACK mode.
    quick: u32,
    /// Bytes of IPv4 + TCP headers with the options every packet carries.
    header_bytes: u32,
    /// Quick-ACK mode is configured.
    quickack: bool,
    /// The connection is ECN-capable (RFC 3168).
    ecn: bool,
    /// Set ECE on ACKs: a CE-marked segment arrived after the last CWR (RFC 3168); the latest
    /// segment was CE-marked (DCTCP).
    ece: bool,
    /// What ECE means (RFC 3168 or DCTCP).
    ecn_feedback: EcnFeedback,
    /// The segment that caused the pending ACK was a duplicate (one-bit D-SACK).
    duplicate: bool,
    /// Payload bytes and segments held out of order.
    ooo_bytes: u64,
    ooo_segments: u64,
    /// The receiver's own RTO (Linux `icsk_rto` of the passive side): the initial RTO until the
    /// handshake gives a sample (`tcp_synack_rtt_meas`). A longer silence means the sender is
    /// recovering from a timeout, so its next segments are ACKed at once.
    rtt: RttEstimator,
    /// DCTCP: the cumulative ACK of the data before a segment whose CE mark changed, to send
    /// before `reply`; 0 = none (a delayed ACK was pending, so some data had arrived). Cold:
    /// read only with DCTCP's feedback.
    ce_change_ack: u64,
}

/// The packet a segment or a timeout calls for, until `poll_transmit` takes it. An ACK's fields
/// are read from the receiver's state when it is taken, which nothing changes in between (the
/// engine polls right after each segment and timeout): a few bytes here, where a whole packet
/// held for the moment between them was two more cold lines for every segment of tens of
/// thousands of background receivers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Reply {
    #[default]
    Nothing,
    /// An ACK; `dsack`: the segment that called for it was a duplicate.
    Ack { dsack: bool },
    /// A SYN-ACK with its timestamp and the echo of the SYN's.
    SynAck { ts: Option<u32>, tsecr: Option<u32> },
}

impl TcpReceiver {
    /// Bytes from the start that a segment reads (the hot part, see the layout test).
    pub(crate) const HOT_BYTES: usize = std::mem::offset_of!(TcpReceiver, rtt);
}

impl TcpReceiver {
    pub fn new(addr: Addr, cfg: &TcpConfig) -> Self {
        let window_bytes = cfg.rcv_buf / 2;
        let mss = cfg.mss.max(1) as u64;
        let rtt = RttEstimator::new(RtoConfig::from(cfg));
        TcpReceiver {
            addr,
            rcv_nxt: 0,
            out_of_order: SeqRanges::new(),
            ooo_bytes: 0,
            ooo_segments: 0,
            delivered_bytes: 0,
            delayed_ack: cfg.delayed_ack.clone(),
            unacked: 0,
            delack_at: Deadline::NONE,
            quickack: cfg.quickack,
            // Linux bounds the count by half the initial window in segments.
            quick: if cfg.quickack {
                MAX_QUICKACKS.min((window_bytes / (2 * mss)).min(u32::MAX as u64) as u32)
            } else {
                0
            },
            rto: rtt.rto(),
            rtt,
            synack_sent_at: None,
            last_in_order_at: None,
            ecn: cfg.ecn,
            ece: false,
            ecn_feedback: cfg.ecn_feedback,
            ce_change_ack: 0,
            ts_recent: cfg.timestamps.then_some(0),
            last_ack_sent: 0,
            duplicate: false,
            window_bytes,
            mss,
            reported: SackBlocks::default(),
            header_bytes: cfg.header_bytes(),
            reply: Reply::Nothing,
        }
    }

    /// RCV.NXT, the cumulative acknowledgement.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Segments the sender may have outstanding from RCV.NXT on (`u32::MAX`: unlimited).
    fn window_segments(&self) -> u32 {
        if self.window_bytes >= u64::MAX / 2 {
            return u32::MAX;
        }
        // Segments held out of order lie inside the window they were sent in.
        (self.window_bytes.saturating_sub(self.ooo_bytes) / self.mss + self.ooo_segments)
            .min(u32::MAX as u64 - 1) as u32
    }

    fn enter_quickack(&mut self, acks: u32) {
        if self.quickack {
            self.quick = self.quick.max(acks);
        }
    }

    fn on_segment(&mut self, now: SimTime, seq: u64, len: u32, ts: Option<u32>) {
        if let Some(synack) = self.synack_sent_at.take() {
            // The first data segment (in order or not) completes the handshake: its RTT is the receiver's sample.
            self.rtt.on_sample(now.saturating_since(synack));
            self.rto = self.rtt.rto();
        }
        if let (Some(recent), Some(ts)) = (self.ts_recent, ts) {
            // RFC 7323 §4.3 (2): only a segment at or below the last ACK's left edge updates it.
            if seq <= self.last_ack_sent && ts >= recent {
                self.ts_recent = Some(ts);
            }
        }
        let held = if seq > self.rcv_nxt { self.out_of_order.find(seq) } else { None };
        if seq < self.rcv_nxt || held.is_some() {
            // A duplicate: tell the sender at once where we are (RFC 5681 §4.2); Linux also
            // returns to quick-ACK mode (tcp_data_queue: "A retransmit ... force an immediate ack").
            self.enter_quickack(MAX_QUICKACKS);
            self.duplicate = true;
            self.ack_now(held);
            return;
        }
        if seq > self.rcv_nxt {
            if self.window_bytes < u64::MAX / 2 && self.ooo_bytes + len as u64 > self.window_bytes {
                // Beyond the receive buffer: dropped, and the ACK says where the window is.
                self.ack_now(None);
                return;
            }
            let island = self.out_of_order.insert(seq, seq + 1, len as u64, |_, _| {});
            self.ooo_bytes += len as u64;
            self.ooo_segments += 1;
            self.ack_now(Some(island));
            return;
        }
        if self.last_in_order_at.is_some_and(|last| now.saturating_since(last) > self.rto) {
            // Linux tcp_event_data_recv: "Too long gap. Apparently sender failed to restart
            // window, so that we send ACKs quickly." After a timeout the sender restarts from a
            // window of one; a delayed ACK would hold each of its first segments back.
            self.enter_quickack(MAX_QUICKACKS);
        }
        self.last_in_order_at = Some(now);
        let fills_hole = !self.out_of_order.is_empty();
        self.rcv_nxt += 1;
        self.delivered_bytes += len as u64;
        if let Some(island) = self.out_of_order.pop_first_starting_at(self.rcv_nxt) {
            self.rcv_nxt = island.end;
            self.delivered_bytes += island.bytes;
            self.ooo_bytes -= island.bytes;
            self.ooo_segments -= island.end - island.start;
        }
        match &self.delayed_ack {
            Some(d) if !fills_hole && self.quick == 0 => {
                self.unacked += 1;
                if self.unacked >= d.every {
                    self.ack_now(None);
                } else if !self.delack_at.is_set() {
                    self.delack_at.set(now + d.max_delay);
                }
            }
            _ => self.ack_now(None),
        }
    }

    /// Calls for an ACK now; `trigger` is the island of the out-of-order segment that caused
    /// it, if any.
    fn ack_now(&mut self, trigger: Option<SeqRange>) {
        // Linux tcp_event_ack_sent → tcp_dec_quickack_mode: every ACK sent uses up one quick ACK,
        // whatever made it go out (new data, out-of-order data, a duplicate, the timer).
        self.quick = self.quick.saturating_sub(1);
        if trigger.is_some() || !self.out_of_order.is_empty() {
            self.reported = self.sack_blocks(trigger);
        } else if !self.reported.is_empty() {
            // Without a trigger or an island `sack_blocks` chooses nothing. In order (the
            // common case) the blocks were empty already and are neither rebuilt nor copied in:
            // `sack_blocks` builds them on the stack, and a copy read back at once waits for
            // the stores that built it.
            self.reported = SackBlocks::default();
        }
        self.unacked = 0;
        self.delack_at.clear();
        self.last_ack_sent = self.rcv_nxt;
        let dsack = std::mem::take(&mut self.duplicate);
        self.set_reply(Reply::Ack { dsack });
    }

    /// RFC 8257 §3.2: a segment with CE mark `ce` arrived. A change of mark while a delayed ACK
    /// is pending acknowledges the data before the segment at once, with the old mark (the
    /// opposite of the new: `poll_transmit`); only a delayed ACK can be pending then, so that
    /// data is in order and the ACK has no SACK. As in Linux, that ACK goes out after the
    /// segment's timestamp was looked at: the segment lies beyond the last ACK sent, so TS.Recent
    /// stays the echo of the data it acknowledges (`tcp_replace_ts_recent` runs first).
    fn dctcp_ce_state(&mut self, ce: bool) {
        if ce != self.ece && self.delack_at.is_set() {
            self.ce_change_ack = self.rcv_nxt;
            self.unacked = 0;
            self.delack_at.clear();
        }
        self.ece = ce;
    }

    /// Inlined into `poll_transmit`, so that the packet is built where the engine stores it
    /// (`Endpoint::transmit_into`), not in a temporary copied out.
    #[inline(always)]
    fn packet(&self, now: SimTime, size: u32, header: Header) -> Packet {
        Packet {
            flow: self.addr.flow,
            src: self.addr.local,
            dst: self.addr.remote,
            size,
            sent_at: now,
            ce: false,
            header,
        }
    }

    fn set_reply(&mut self, reply: Reply) {
        debug_assert_eq!(
            self.reply,
            Reply::Nothing,
            "a reply not taken: poll_transmit takes it after every event"
        );
        self.reply = reply;
    }

    /// SACK blocks per RFC 2018 §4: the block holding the triggering segment first, then the
    /// blocks of the previous ACK that still exist (each as it is now, possibly grown), then
    /// other islands from the highest down ("as many distinct SACK blocks as possible").
    fn sack_blocks(&self, trigger: Option<SeqRange>) -> SackBlocks {
        // Islands are named by their first segment: they are disjoint.
        let mut chosen = [SeqRange { start: 0, end: 0, bytes: 0 }; MAX_SACK_BLOCKS];
        let mut n = 0;
        // Adds `r` unless chosen already; false once every slot is taken.
        let mut choose = |r: SeqRange| {
            if !chosen[..n].iter().any(|c| c.start == r.start) {
                chosen[n] = r;
                n += 1;
            }
            n < MAX_SACK_BLOCKS
        };
        // A block reported before that the trigger's island holds is that island, chosen
        // already: no search for it (a third of the searches in a parking lot, where the
        // segment that triggered the ACK grew a block reported before).
        let in_trigger = |start: u64| trigger.is_some_and(|t| (t.start..t.end).contains(&start));
        let room = trigger.is_none_or(&mut choose)
            && self.reported.as_slice().iter().all(|b| {
                in_trigger(b.start) || self.out_of_order.find(b.start).is_none_or(&mut choose)
            });
        if room {
            // At most MAX_SACK_BLOCKS islands are skipped before the slots are full.
            for r in self.out_of_order.iter().rev().take(2 * MAX_SACK_BLOCKS) {
                if !choose(r) {
                    break;
                }
            }
        }
        let mut blocks = SackBlocks::default();
        for r in &chosen[..n] {
            blocks.push(SackBlock { start: r.start, end: r.end });
        }
        blocks
    }
}

impl Transport for TcpReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        match pkt.header {
            Header::TcpData { seq, len, cwr, ts, .. } => {
                if self.ecn {
                    match self.ecn_feedback {
                        EcnFeedback::Rfc3168 => {
                            // Linux tcp_ecn_accept_cwr, then __tcp_ecn_check_ce: CE on a CWR
                            // segment re-arms, and CE asks for two quick ACKs (the sender may
                            // have a tiny cwnd).
                            self.ece = (self.ece && !cwr) || pkt.ce;
                            if pkt.ce {
                                self.enter_quickack(2);
                            }
                        }
                        EcnFeedback::Dctcp => self.dctcp_ce_state(pkt.ce),
                    }
                }
                self.on_segment(now, seq, len, ts);
            }
            Header::TcpSyn { reply: false, ts, .. } => {
                self.synack_sent_at = Some(now);
                self.set_reply(Reply::SynAck { ts: ts.map(|_| ts_clock(now)), tsecr: ts });
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if self.delack_at.is_due(now) {
            self.ack_now(None);
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if self.ecn_feedback == EcnFeedback::Dctcp && self.ce_change_ack != 0 {
            let ack = std::mem::take(&mut self.ce_change_ack);
            self.last_ack_sent = self.last_ack_sent.max(ack);
            let ack = TcpAck {
                ack,
                sack: SackBlocks::default(),
                ece: !self.ece,
                tsecr: self.ts_recent,
                dsack: false,
                wnd: self.window_segments(),
            };
            return Some(self.packet(now, self.header_bytes, Header::TcpAck(ack)));
        }
        let (size, header) = match std::mem::take(&mut self.reply) {
            Reply::Nothing => return None,
            Reply::Ack { dsack } => {
                // `reported` is the SACK of this ACK: `ack_now` chose it.
                let ack = TcpAck {
                    ack: self.rcv_nxt,
                    sack: self.reported,
                    ece: self.ece,
                    tsecr: self.ts_recent,
                    dsack,
                    wnd: self.window_segments(),
                };
                (self.header_bytes + self.reported.option_bytes(), Header::TcpAck(ack))
            }
            Reply::SynAck { ts, tsecr } => {
                (TCP_SYN_SIZE, Header::TcpSyn { reply: true, ts, tsecr })
            }
        };
        Some(self.packet(now, size, header))
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_at.get()
    }

    fn probe(&self) -> Probe {
        Probe { delivered_bytes: self.delivered_bytes, ..Probe::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{FlowId, NodeId};
    use crate::time::SimDuration;
    use crate::wire::tcp::TCP_IP_HEADER;

    fn addr() -> Addr {
        Addr { flow: FlowId(7), local: NodeId(2), remote: NodeId(1) }
    }

    fn data(seq: u64, len: u32) -> Packet {
        Packet {
            flow: FlowId(7),
            src: NodeId(1),
            dst: NodeId(2),
            size: len + TCP_IP_HEADER,
            sent_at: SimTime::ZERO,
            ce: false,
            header: Header::TcpData {
                seq,
                len,
                retransmit: false,
                ect: false,
                cwr: false,
                ts: None,
            },
        }
    }

    /// An ACK as (cumulative ack, SACK blocks, ECE).
    type Ack = (u64, Vec<(u64, u64)>, bool);

    /// Delivers `seq` at `now` and returns the ACKs it caused.
    fn recv(r: &mut TcpReceiver, now: SimTime, seq: u64) -> Vec<Ack> {
        r.handle_packet(now, &data(seq, 1000));
        drain(r, now)
    }

    fn drain(r: &mut TcpReceiver, now: SimTime) -> Vec<Ack> {
        let mut out = Vec::new();
        while let Some(p) = r.poll_transmit(now) {
            let Header::TcpAck(TcpAck { ack, sack, ece, .. }) = p.header else {
                panic!("not an ACK")
            };
            assert_eq!(p.size, TCP_IP_HEADER + sack.option_bytes());
            assert_eq!((p.src, p.dst, p.sent_at), (NodeId(2), NodeId(1), now));
            out.push((ack, sack.as_slice().iter().map(|b| (b.start, b.end)).collect(), ece));
        }
        out
    }

    fn immediate() -> TcpReceiver {
        TcpReceiver::new(addr(), &TcpConfig::default())
    }

    fn delayed() -> TcpReceiver {
        let cfg = TcpConfig { delayed_ack: Some(DelayedAck::default()), ..TcpConfig::default() };
        TcpReceiver::new(addr(), &cfg)
    }

    /// Delivers `seq`, CE-marked if `ce`, with TSval `ts`, at `now` to a receiver with DCTCP's
    /// feedback, and returns the ACKs as (ack, ECE, TSecr).
    fn recv_dctcp(
        r: &mut TcpReceiver,
        now: SimTime,
        seq: u64,
        ce: bool,
        ts: u32,
    ) -> Vec<(u64, bool, Option<u32>)> {
        let mut p = data(seq, 1000);
        p.ce = ce;
        if let Header::TcpData { ect, ts: t, .. } = &mut p.header {
            (*ect, *t) = (true, Some(ts));
        }
        r.handle_packet(now, &p);
        std::iter::from_fn(|| r.poll_transmit(now))
            .map(|p| match p.header {
                Header::TcpAck(a) => (a.ack, a.ece, a.tsecr),
                h => panic!("{h:?}"),
            })
            .collect()
    }

    fn dctcp_receiver(delayed_ack: bool) -> TcpReceiver {
        let cfg = TcpConfig {
            ecn: true,
            ecn_feedback: EcnFeedback::Dctcp,
            timestamps: true,
            delayed_ack: delayed_ack.then(DelayedAck::default),
            ..TcpConfig::default()
        };
        TcpReceiver::new(addr(), &cfg)
    }

    #[test]
    fn dctcp_feedback_echoes_each_segment_s_mark_and_acks_at_once_when_it_changes() {
        // RFC 8257 §3.2 with delayed ACKs (every 2nd segment): marks 0 0 | 0 1 | 1 1 | 0 0.
        let mut r = dctcp_receiver(true);
        let t = SimTime::ZERO;
        assert_eq!(recv_dctcp(&mut r, t, 0, false, 100), vec![]);
        assert_eq!(recv_dctcp(&mut r, t, 1, false, 101), vec![(2, false, Some(100))]);
        assert_eq!(recv_dctcp(&mut r, t, 2, false, 102), vec![]);
        // The mark changes with a delayed ACK pending: segment 2 is acknowledged at once, ECE
        // clear, echoing its own TSval; segment 3 waits with the new state.
        assert_eq!(recv_dctcp(&mut r, t, 3, true, 103), vec![(3, false, Some(102))]);
        assert_eq!(recv_dctcp(&mut r, t, 4, true, 104), vec![(5, true, Some(102))]);
        assert_eq!(recv_dctcp(&mut r, t, 5, true, 105), vec![]);
        assert_eq!(recv_dctcp(&mut r, t, 6, true, 106), vec![(7, true, Some(105))]);
        // Back to unmarked with nothing pending: no extra ACK, ECE clears with the next one.
        assert_eq!(recv_dctcp(&mut r, t, 7, false, 107), vec![]);
        assert_eq!(recv_dctcp(&mut r, t, 8, false, 108), vec![(9, false, Some(107))]);
        // No quick ACKs on CE (RFC 3168's receiver would send two), and no CWR needed to clear.
        assert_eq!(recv_dctcp(&mut r, t, 9, false, 109), vec![]);
        assert_eq!(recv_dctcp(&mut r, t, 10, true, 110), vec![(10, false, Some(109))]);
        assert_eq!(r.poll_timeout(), Some(t + DelayedAck::default().max_delay));
    }

    #[test]
    fn dctcp_feedback_without_delayed_acks_mirrors_every_mark() {
        let mut r = dctcp_receiver(false);
        let t = SimTime::ZERO;
        let marks = [false, true, true, false, true, false, false];
        for (seq, &ce) in marks.iter().enumerate() {
            let seq = seq as u64;
            assert_eq!(
                recv_dctcp(&mut r, t, seq, ce, seq as u32),
                vec![(seq + 1, ce, Some(seq as u32))]
            );
        }
    }

    #[test]
    fn what_a_segment_reads_lies_in_the_first_five_lines() {
        use std::mem::size_of;
        let hot_end = TcpReceiver::HOT_BYTES;
        assert!(hot_end <= 5 * 64, "the hot part ends at {hot_end}");
        assert!(
            size_of::<TcpReceiver>() <= 6 * 64,
            "TcpReceiver is {} bytes",
            size_of::<TcpReceiver>()
        );
    }

    #[test]
    fn in_order_segments_advance_the_cumulative_ack() {
        let mut r = immediate();
        let t = SimTime::ZERO;
        assert_eq!(recv(&mut r, t, 0), vec![(1, vec![], false)]);
        assert_eq!(recv(&mut r, t, 1), vec![(2, vec![], false)]);
        assert_eq!(r.rcv_nxt(), 2);
        assert_eq!(r.probe().delivered_bytes, 2000);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn sack_blocks_put_the_triggering_block_first_rfc2018_section4() {
        // Segment 0 is lost; 1, 3, 5, 7 arrive, then 2 fills the hole between 1 and 3, then 0.
        let mut r = immediate();
        let t = SimTime::ZERO;
        assert_eq!(recv(&mut r, t, 1), vec![(0, vec![(1, 2)], false)]);
        assert_eq!(recv(&mut r, t, 3), vec![(0, vec![(3, 4), (1, 2)], false)]);
        assert_eq!(recv(&mut r, t, 5), vec![(0, vec![(5, 6), (3, 4), (1, 2)], false)]);
        assert_eq!(recv(&mut r, t, 7), vec![(0, vec![(7, 8), (5, 6), (3, 4)], false)]);
        assert_eq!(recv(&mut r, t, 2), vec![(0, vec![(1, 4), (7, 8), (5, 6)], false)]);
        assert_eq!(recv(&mut r, t, 0), vec![(4, vec![(7, 8), (5, 6)], false)]);
        assert_eq!(r.probe().delivered_bytes, 4000);
        assert_eq!(recv(&mut r, t, 4), vec![(6, vec![(7, 8)], false)]);
        assert_eq!(recv(&mut r, t, 6), vec![(8, vec![], false)]);
        assert_eq!(r.probe().delivered_bytes, 8000);
    }

    #[test]
    fn sack_fills_every_slot_when_islands_outnumber_recent_blocks() {
        // Five islands arrive highest first, so the last ACK reports the three lowest; once the
        // lowest is delivered, the free slot goes to the highest unreported island.
        let mut r = immediate();
        let t = SimTime::ZERO;
        for seq in [10, 8, 6, 4, 2] {
            recv(&mut r, t, seq);
        }
        assert_eq!(recv(&mut r, t, 0), vec![(1, vec![(2, 3), (4, 5), (6, 7)], false)]);
        assert_eq!(recv(&mut r, t, 1), vec![(3, vec![(4, 5), (6, 7), (10, 11)], false)]);
    }

    #[test]
    fn duplicates_are_acked_at_once_but_not_delivered_twice() {
        let mut r = immediate();
        let t = SimTime::ZERO;
        recv(&mut r, t, 0);
        recv(&mut r, t, 2);
        assert_eq!(recv(&mut r, t, 0), vec![(1, vec![(2, 3)], false)]);
        assert_eq!(recv(&mut r, t, 2), vec![(1, vec![(2, 3)], false)]);
        assert_eq!(r.probe().delivered_bytes, 1000);
        recv(&mut r, t, 1);
        assert_eq!(r.probe().delivered_bytes, 3000);
        recv(&mut r, t, 1);
        assert_eq!(r.probe().delivered_bytes, 3000);
    }

    #[test]
    fn delayed_ack_acknowledges_every_second_segment() {
        let mut r = delayed();
        let t0 = SimTime::from_millis(1);
        assert_eq!(recv(&mut r, t0, 0), vec![]);
        assert_eq!(r.poll_timeout(), Some(SimTime::from_millis(41)));
        assert_eq!(recv(&mut r, t0, 1), vec![(2, vec![], false)]);
        assert_eq!(r.poll_timeout(), None);
        assert_eq!(recv(&mut r, t0, 2), vec![]);
        assert_eq!(recv(&mut r, t0, 3), vec![(4, vec![], false)]);
    }

    #[test]
    fn delayed_ack_timer_sends_a_lone_ack() {
        let mut r = delayed();
        assert_eq!(recv(&mut r, SimTime::ZERO, 0), vec![]);
        let due = r.poll_timeout().unwrap();
        assert_eq!(due, SimTime::ZERO + SimDuration::from_millis(40));
        r.handle_timeout(due);
        assert_eq!(drain(&mut r, due), vec![(1, vec![], false)]);
        assert_eq!(r.poll_timeout(), None);
        // A stale wake-up does nothing.
        r.handle_timeout(due);
        assert_eq!(drain(&mut r, due), vec![]);
    }

    #[test]
    fn out_of_order_and_hole_filling_segments_are_acked_at_once() {
        let mut r = delayed();
        let t = SimTime::ZERO;
        assert_eq!(recv(&mut r, t, 0), vec![]);
        // Out of order: immediate, and it also acknowledges the delayed segment 0.
        assert_eq!(recv(&mut r, t, 2), vec![(1, vec![(2, 3)], false)]);
        assert_eq!(r.poll_timeout(), None);
        // Fills the hole: immediate.
        assert_eq!(recv(&mut r, t, 1), vec![(3, vec![], false)]);
        // Back to delaying.
        assert_eq!(recv(&mut r, t, 3), vec![]);
    }

    #[test]
    fn quick_ack_mode_acknowledges_the_first_16_segments_one_by_one_then_delays() {
        let cfg = TcpConfig {
            delayed_ack: Some(DelayedAck::default()),
            quickack: true,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(addr(), &cfg);
        let t = SimTime::ZERO;
        for seq in 0..16 {
            assert_eq!(recv(&mut r, t, seq), vec![(seq + 1, vec![], false)], "segment {seq}");
        }
        assert_eq!(recv(&mut r, t, 16), vec![]);
        assert_eq!(recv(&mut r, t, 17), vec![(18, vec![], false)]);
        // A duplicate (a retransmission of data already held) restarts quick-ACK mode.
        assert_eq!(recv(&mut r, t, 3), vec![(18, vec![], false)]);
        assert_eq!(recv(&mut r, t, 18), vec![(19, vec![], false)]);
        assert_eq!(recv(&mut r, t, 19), vec![(20, vec![], false)]);
    }

    #[test]
    fn every_ack_sent_uses_up_a_quick_ack_out_of_order_ones_too() {
        // Linux tcp_event_ack_sent → tcp_dec_quickack_mode: of the 16 quick ACKs, the one for an
        // out-of-order segment and the one for the segment filling its hole count like the rest,
        // so only 14 more in-order segments are acknowledged one by one.
        let cfg = TcpConfig {
            delayed_ack: Some(DelayedAck::default()),
            quickack: true,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(addr(), &cfg);
        let t = SimTime::ZERO;
        assert_eq!(recv(&mut r, t, 1), vec![(0, vec![(1, 2)], false)]);
        assert_eq!(recv(&mut r, t, 0), vec![(2, vec![], false)]);
        for seq in 2..16 {
            assert_eq!(recv(&mut r, t, seq), vec![(seq + 1, vec![], false)], "segment {seq}");
        }
        assert_eq!(recv(&mut r, t, 16), vec![], "quick-ACK mode is over: delayed");
    }

    #[test]
    fn after_a_silence_longer_than_its_rto_the_receiver_acks_at_once_again() {
        // Linux tcp_event_data_recv: in-order data after a gap longer than the receiver's RTO
        // (here from the handshake: 10 ms RTT, so 10 ms + the 200 ms minimum) restarts quick-ACK
        // mode; a shorter gap does not.
        let cfg = TcpConfig {
            delayed_ack: Some(DelayedAck::default()),
            quickack: true,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(addr(), &cfg);
        let syn = Packet {
            size: TCP_SYN_SIZE,
            header: Header::TcpSyn { reply: false, ts: None, tsecr: None },
            ..data(0, 0)
        };
        r.handle_packet(SimTime::ZERO, &syn);
        assert!(matches!(
            r.poll_transmit(SimTime::ZERO).map(|p| p.header),
            Some(Header::TcpSyn { reply: true, .. })
        ));
        let ms = |v: u64| SimTime::ZERO + SimDuration::from_millis(v);
        for seq in 0..16 {
            assert_eq!(recv(&mut r, ms(10), seq).len(), 1, "quick-ACK at the start, segment {seq}");
        }
        assert_eq!(recv(&mut r, ms(10), 16), vec![], "then delayed");
        // 150 ms of silence (less than the RTO): the next odd segment still waits.
        assert_eq!(recv(&mut r, ms(160), 17), vec![(18, vec![], false)], "the second of two");
        assert_eq!(recv(&mut r, ms(310), 18), vec![]);
        // 300 ms of silence (more than 210 ms): ACKed one by one again.
        r.handle_timeout(ms(350));
        assert_eq!(drain(&mut r, ms(350)), vec![(19, vec![], false)]);
        for seq in 19..22 {
            assert_eq!(recv(&mut r, ms(650), seq), vec![(seq + 1, vec![], false)], "segment {seq}");
        }
    }

    #[test]
    fn the_receive_buffer_bounds_out_of_order_data_and_the_advertised_window() {
        // 20 000 B of buffer: a window of 10 000 B, 6 segments of 1460 B (tcp_adv_win_scale 1).
        let cfg = TcpConfig { rcv_buf: 20_000, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(addr(), &cfg);
        let t = SimTime::ZERO;
        let wnd = |r: &mut TcpReceiver, seq| {
            r.handle_packet(t, &data(seq, 1000));
            let p = r.poll_transmit(t).unwrap();
            let Header::TcpAck(TcpAck { ack, wnd, .. }) = p.header else { panic!() };
            (ack, wnd)
        };
        assert_eq!(wnd(&mut r, 0), (1, 6));
        // Segment 1 is lost; 2..=11 (10 000 B) fill the buffer out of order, and each one held
        // stays inside the window.
        for seq in 2..=10 {
            wnd(&mut r, seq);
        }
        assert_eq!(wnd(&mut r, 11), (1, 10));
        // The 11th out-of-order segment does not fit: dropped, not SACKed.
        r.handle_packet(t, &data(12, 1000));
        let p = r.poll_transmit(t).unwrap();
        let Header::TcpAck(TcpAck { sack, .. }) = p.header else { panic!() };
        assert_eq!(sack.as_slice()[0].end, 12);
        // The hole filled, everything is delivered and the window is whole again.
        assert_eq!(wnd(&mut r, 1), (12, 6));
        assert_eq!(r.probe().delivered_bytes, 12_000);
    }

    #[test]
    fn congestion_experienced_is_echoed_until_cwr_when_ecn_is_on() {
        let cfg = TcpConfig { delayed_ack: None, ecn: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(addr(), &cfg);
        let t = SimTime::ZERO;
        let mut p = data(0, 1000);
        p.ce = true;
        r.handle_packet(t, &p);
        assert_eq!(drain(&mut r, t), vec![(1, vec![], true)]);
        // RFC 3168 §6.1.3: every later ACK echoes too, until a segment with CWR arrives.
        assert_eq!(recv(&mut r, t, 1), vec![(2, vec![], true)]);
        // Without ECN negotiated, CE is not echoed.
        let mut plain = immediate();
        plain.handle_packet(t, &p);
        assert_eq!(drain(&mut plain, t), vec![(1, vec![], false)]);
    }
}
