//! The TCP sender: transmission, per-ACK bookkeeping, timers and the congestion-control glue,
//! composing the parts that own their state: what to send next (`next_seg.rs`), the
//! loss-recovery state machine (Tahoe, Reno, NewReno, SACK, RTO; `recovery.rs`), RACK-TLP
//! (`rack.rs`), ECN (`ecn.rs`), SQM (`sqm.rs`) and the handshake (`handshake.rs`). They decide;
//! the sender applies what they return.
//!
//! ```text
//! per transmit opportunity: NextSeg within min(⌊cwnd⌋, rwnd)   (RFC 6675 §5 step C)
//! per ACK: SND.UNA advances; SACK blocks update the scoreboard (recovery = sack only);
//!     RTT sample (Karn: only segments sent once, not SACKed before);
//!     recovery state machine; RTO timer (RFC 6298 §5.2–5.3);
//!     cc.on_ack(newly acked + newly SACKed) if the ACK advanced SND.UNA, the connection is not
//!     in fast recovery, and the window limited the sender (Linux tcp_is_cwnd_limited)
//! ```
//!
//! Growth only on ACKs that advance SND.UNA follows RFC 5681 §3.1 ("each ACK received that
//! acknowledges new data") and Linux `tcp_may_raise_cwnd`; SACKed segments reported by earlier
//! duplicate ACKs are not counted again when the cumulative ACK covers them.

use super::config::{EcnFeedback, Recovery, TcpConfig};
use super::cwnd_usage::CwndUsage;
use super::ecn::Ecn;
use super::handshake::{Handshake, SynStep};
use super::idle::IdleRestart;
use super::next_seg::{self, NextSeg, Window};
use super::rack::{ProbeSegment, Rack};
use super::rate_sample::RateSampling;
use super::receiver::{ts_clock, ts_echo_rtt};
use super::recovery::{AckStep, Connection, LossRecovery};
use super::rtt::{RtoConfig, RttEstimator};
use super::scoreboard::{LatestSent, Sacked, Scoreboard};
use super::sqm::Sqm;
use super::timers::{self, Timers};
use crate::app::AppSource;
use crate::cc::{AckFeedback, AckSample, AckTimestamps, AnyCc, CcState, RateSample};
use crate::net::packet::Packet;
use crate::time::{SimDuration, SimTime};
use crate::transport::{Addr, Probe, Transport};
use crate::wire::tcp::TcpAck;
use crate::wire::Header;
use std::sync::Arc;

mod accessors;

/// Laid out in the order written (`repr(C)`): what an ACK or a transmission reads first, in ten
/// cache lines, then what only a recovery, an ECN or Source Quench reaction or a report reads.
/// A background source's state is cold whenever its next packet comes (tens of thousands of
/// sources lie between two of its packets), so every line an ACK touches is a miss; in Rust's
/// own order an ACK read 14 of the 15 lines (measured with callgrind).
#[repr(C)]
pub struct TcpSender {
    /// Shared by the senders built from one configuration: tens of thousands of background
    /// senders read one copy, which stays in the cache, instead of each its own cold lines.
    cfg: Arc<TcpConfig>,
    cc: AnyCc,
    /// Window state shared with the congestion controller (cwnd, ssthresh in segments).
    st: CcState,
    sb: Scoreboard,
    rtt: RttEstimator,
    timers: Timers,
    usage: CwndUsage,
    completed_at: Option<SimTime>,
    /// When data last left (`idle.rs`).
    idle: IdleRestart,
    /// Earliest instant the next segment may leave when the algorithm paces.
    next_send: SimTime,
    /// The receiver's advertised window, segments from SND.UNA.
    snd_wnd: u64,
    /// Delivery-rate estimation for `CongestionControl::on_rate_sample` (`rate_sample.rs`).
    rate: RateSampling,
    /// RACK-TLP state (`rack.rs`), when configured.
    rack: Option<Box<Rack>>,
    /// Nothing is sent before this instant (the connection starts established).
    start: SimTime,
    app: AppSource,
    addr: Addr,
    started: bool,
    /// A loss probe is due: the next transmit opportunity sends it whatever cwnd says.
    probe_due: bool,
    /// New data went out in the burst under way: the loss probe is scheduled once, when the
    /// burst ends (`poll_transmit` returning `None`), as Linux's tcp_write_xmit schedules it
    /// after its loop, not after each segment (RACK only).
    probe_after_burst: bool,
    /// The algorithm reads every ACK's feedback (`CongestionControl::wants_ack_feedback`).
    ack_feedback: bool,
    /// The three-way handshake, when configured (`handshake.rs`).
    handshake: Option<Handshake>,
    /// The loss-recovery state machine (`recovery.rs`): its hot fields end the hot part, its
    /// PRR state and counters begin the cold one.
    recovery: LossRecovery,
    ecn: Ecn,
    sqm: Sqm,
}

impl TcpSender {
    /// Bytes from the start that an ACK reads (the hot part, see the layout test).
    pub(crate) const HOT_BYTES: usize =
        std::mem::offset_of!(TcpSender, recovery) + LossRecovery::HOT_BYTES;

    pub fn new(
        addr: Addr,
        cfg: impl Into<Arc<TcpConfig>>,
        cc: AnyCc,
        app: AppSource,
        start: SimTime,
    ) -> Self {
        let cfg = cfg.into();
        let st = CcState::new(cfg.initial_cwnd, cfg.initial_ssthresh, cfg.mss);
        let rtt = RttEstimator::new(RtoConfig::from(&*cfg));
        let rate = RateSampling::new(cc.inner().wants_rate_samples());
        let ack_feedback = cc.inner().wants_ack_feedback();
        TcpSender {
            ack_feedback,
            addr,
            cc,
            st,
            app,
            start,
            started: false,
            sb: Scoreboard::new(),
            rtt,
            recovery: LossRecovery::new(),
            timers: Timers::default(),
            usage: CwndUsage::default(),
            completed_at: None,
            next_send: SimTime::ZERO,
            ecn: Ecn::default(),
            sqm: Sqm::default(),
            idle: IdleRestart::default(),
            handshake: cfg.handshake.then(Handshake::default),
            rack: (cfg.rack_tlp && cfg.recovery == Recovery::Sack)
                .then(|| Box::new(Rack::new(cfg.dupthresh))),
            probe_due: false,
            probe_after_burst: false,
            snd_wnd: u64::MAX,
            rate,
            cfg,
        }
    }

    /// The SYN-ACK arrived: the handshake's RTT is the first sample.
    fn on_syn_ack(&mut self, now: SimTime, tsecr: Option<u32>) {
        let Some(syn_ack) = self.handshake.as_mut().and_then(|h| h.on_syn_ack(now, tsecr)) else {
            return;
        };
        self.timers.syn.clear();
        if let Some(r) = syn_ack.rtt_sample {
            self.on_rtt_sample(now, r);
        }
        if syn_ack.window_of_one {
            self.st.cwnd = 1.0; // Linux tcp_init_transfer, RFC 5681 §3.1
        }
    }

    /// The state machine and, apart, what its steps work on.
    fn recovery_and_connection(&mut self) -> (&mut LossRecovery, Connection<'_>) {
        let cx = Connection {
            cfg: &self.cfg,
            rack: self.rack.is_some(),
            sb: &mut self.sb,
            st: &mut self.st,
            cc: &mut self.cc,
            ecn: &mut self.ecn,
        };
        (&mut self.recovery, cx)
    }

    /// The retransmission timer expired (RFC 6298 §5.4–5.6; the state machine's part in
    /// `recovery.rs`): the RTO backs off and is re-armed, RACK forgets its transmissions.
    fn on_retransmission_timeout(&mut self, now: SimTime) {
        let (recovery, cx) = self.recovery_and_connection();
        recovery.on_timeout(now, cx);
        self.rtt.back_off();
        self.end_tail_probe();
        if let Some(rack) = &mut self.rack {
            rack.on_timeout();
        }
        self.timers.reorder.clear();
        self.timers.rto.set(now + self.rtt.rto());
    }

    /// Takes one valid RTT measurement: estimator, CC state and the algorithm's hook.
    fn on_rtt_sample(&mut self, now: SimTime, r: SimDuration) {
        self.rtt.on_sample(r);
        self.st.srtt = self.rtt.srtt();
        self.st.min_rtt = self.rtt.min_rtt();
        self.cc.on_rtt_sample(&mut self.st, now, r);
    }

    /// The receiver window: the configured limit or the advertised window, whichever is
    /// smaller, at least one segment (we do not model zero-window probing).
    #[inline]
    fn rwnd(&self) -> u64 {
        self.cfg.rwnd.min(self.snd_wnd).max(1)
    }

    /// Starts the connection at `start`; false while nothing may be sent.
    fn begin(&mut self, now: SimTime) -> bool {
        if self.completed_at.is_some() {
            return false;
        }
        if !self.started {
            if now < self.start {
                return false;
            }
            self.started = true;
            if self.app.total() == Some(0) {
                self.complete(now);
                return false;
            }
        }
        true
    }

    fn complete(&mut self, now: SimTime) {
        self.completed_at = Some(now);
        self.timers = Timers::default();
        self.probe_after_burst = false;
        self.st.in_flight = 0;
    }

    /// True if the application has a new segment ready and the receiver window has room.
    #[inline(always)]
    fn new_data_ready(&self, now: SimTime) -> bool {
        let next = self.sb.high_tx();
        next < self.app.available(now)
            && self.app.total().is_none_or(|t| next < t)
            && self.sb.packets_out() < self.rwnd()
    }

    /// What this transmit opportunity sends (`next_seg.rs`).
    fn next_segment(&mut self, now: SimTime) -> NextSeg {
        let forced = self.recovery.take_forced_retransmit();
        let window = Window::new(self.st.cwnd, self.rwnd());
        let new_ready = self.new_data_ready(now);
        let (cfg, recovery) = (&self.cfg, &self.recovery);
        let from_una =
            || cfg.window_from_una.then(|| recovery.limited_transmit(cfg.dupthresh)).flatten();
        next_seg::choose(&mut self.sb, window, forced, new_ready, from_una)
    }

    fn transmit(&mut self, now: SimTime, seq: u64, retransmit: bool) -> Packet {
        if retransmit {
            // The probe new data called for is scheduled as of the state it was sent in.
            self.settle_probe(now);
        }
        let packets_out = self.sb.packets_out();
        self.idle.on_send(now, &self.cfg, packets_out, &mut self.st, self.rtt.rto());
        self.rate.on_sent(seq, now, retransmit);
        if retransmit {
            self.sb.on_retransmitted(seq, now);
        } else {
            self.sb.on_sent_new(now);
        }
        if let Some(rack) = &mut self.rack {
            rack.on_sent(seq, self.sb.order_of(seq), now);
        }
        self.recovery.on_sent();
        self.usage.on_sent();
        let rearm_head = self.recovery.head_retransmit_rearms_rto(&self.cfg);
        if !self.timers.rto.is_set() || (retransmit && seq == self.sb.una() && rearm_head) {
            // RFC 6298 §5.1: start the timer when data is sent and it is not running. Linux
            // (`tcp_xmit_retransmit_queue`) also re-arms it when it retransmits the head segment:
            // otherwise a loss at the start of a burst times out one RTT after the original
            // transmission, before the fast retransmission could possibly be acknowledged.
            self.timers.rto.set(now + self.rtt.rto());
        }
        self.st.in_flight = self.sb.pipe();
        self.st.snd_nxt = self.sb.high_tx();
        self.cc.on_sent(&mut self.st, now);
        if !retransmit && self.rack.is_some() {
            self.probe_after_burst = true; // Linux tcp_write_xmit → tcp_schedule_loss_probe
        }
        let len = self.app.len(seq);
        let size = len + self.cfg.header_bytes();
        if let Some(rate) = self.cc.pacing_rate(&self.st) {
            // Space segments by their serialisation time at the pacing rate.
            self.next_send = now + rate.tx_time(size);
        }
        Packet {
            flow: self.addr.flow,
            src: self.addr.local,
            dst: self.addr.remote,
            size,
            sent_at: now,
            ce: false,
            // RFC 3168 §6.1.5: retransmissions are not ECT (DCTCP's are, as Linux's); CWR goes
            // on the first new segment.
            header: Header::TcpData {
                seq,
                len,
                retransmit,
                ect: self.cfg.ecn && (!retransmit || self.cfg.ecn_feedback == EcnFeedback::Dctcp),
                cwr: self.ecn.cwr_on(&self.cfg, retransmit),
                ts: self.cfg.timestamps.then(|| ts_clock(now)),
            },
        }
    }

    /// What `poll_transmit` returns, before the burst's end is settled.
    fn next_packet(&mut self, now: SimTime) -> Option<Packet> {
        if !self.begin(now) {
            return None;
        }
        if let Some(hs) = &mut self.handshake {
            match hs.poll(now, self.addr, self.cfg.timestamps) {
                SynStep::Established => {}
                SynStep::Wait => return None,
                SynStep::Send(syn) => {
                    self.timers.syn.set(now + self.rtt.rto());
                    return Some(syn);
                }
            }
        }
        if self.probe_due {
            if let Some(p) = self.send_tail_probe(now) {
                return Some(p);
            }
        }
        if now < self.next_send && self.cc.pacing_rate(&self.st).is_some() {
            // Paced: the sender, not the application, holds data back until `next_send`.
            self.timers.pace.set(self.next_send);
            self.usage.on_burst_end(true, &self.sb);
            return None;
        }
        let cwnd_limited = match self.next_segment(now) {
            NextSeg::Retransmit(seq) => return Some(self.transmit(now, seq, true)),
            NextSeg::New(seq) => return Some(self.transmit(now, seq, false)),
            NextSeg::Wait { cwnd_limited } => cwnd_limited,
            NextSeg::NothingReady => {
                if self.sb.high_tx() >= self.app.available(now) {
                    // Application-limited: a rate-based source says when its next message exists.
                    self.rate.on_app_limited(self.sb.pipe());
                    self.timers.app = self.app.ready_at(self.sb.high_tx()).into();
                }
                false
            }
        };
        self.usage.on_burst_end(cwnd_limited, &self.sb);
        None
    }

    /// Schedules the loss probe that the burst's new data called for (`probe_after_burst`).
    fn settle_probe(&mut self, now: SimTime) {
        if std::mem::take(&mut self.probe_after_burst) {
            self.arm_probe_or_rto(now);
        }
    }

    /// A fast recovery or timeout answers for the tail too: no probe stays scheduled.
    fn end_tail_probe(&mut self) {
        if let Some(rack) = &mut self.rack {
            rack.cancel_probe();
        }
        self.timers.probe.clear();
        self.probe_after_burst = false;
    }

    /// RACK (`rack.rs`) on an ACK (or the reorder timer, `delivered = None`): marks overdue
    /// copies lost and arms the reorder timer. Returns the segments newly marked.
    fn rack_detect_loss(&mut self, now: SimTime, delivered: Option<LatestSent>) -> u64 {
        let Some(rack) = &mut self.rack else {
            return 0; // every ACK asks: without RACK, before the reordering window is worked out
        };
        let repairing = self.recovery.repairing();
        let (marked, deadline) =
            rack.mark_losses(now, delivered, repairing, &self.rtt, &mut self.sb);
        self.timers.reorder = deadline.into();
        marked
    }

    /// RFC 8985 §6.3: the reorder timer fired; what is now overdue is lost.
    fn on_reorder_timeout(&mut self, now: SimTime) {
        if self.rack_detect_loss(now, None) == 0 {
            return;
        }
        let (recovery, cx) = self.recovery_and_connection();
        if recovery.on_reorder_losses(now, cx) {
            self.end_tail_probe();
        }
    }

    /// The segment a loss probe would send now (`rack.rs`), if one may be sent.
    fn tail_probe(&self, now: SimTime) -> Option<ProbeSegment> {
        let state_allows = self.recovery.allows_tail_probe();
        self.rack.as_ref()?.probe_segment(state_allows, &self.sb, || self.new_data_ready(now))
    }

    /// After an ACK or a burst of new data: schedule the loss probe, or leave the RTO alone.
    fn arm_probe_or_rto(&mut self, now: SimTime) {
        let deadline = self.rack.as_ref().and_then(|r| {
            let state_allows = self.recovery.allows_tail_probe();
            r.probe_deadline(now, state_allows, &self.sb, &self.rtt, self.timers.rto.get())
        });
        self.timers.probe = deadline.into();
    }

    /// The probe timer fired: the probe goes out, then the RTO is re-armed.
    fn send_tail_probe(&mut self, now: SimTime) -> Option<Packet> {
        self.probe_due = false;
        let ProbeSegment { seq, retransmission } = self.tail_probe(now)?;
        if retransmission {
            self.sb.mark_lost(seq);
        }
        let pkt = self.transmit(now, seq, retransmission);
        // No other probe stays scheduled (none was in flight: `Rack::probe_segment`).
        self.end_tail_probe();
        if let Some(rack) = &mut self.rack {
            rack.on_probe_sent(self.sb.high_tx(), retransmission);
        }
        self.timers.rto.set(now + self.rtt.rto());
        Some(pkt)
    }

    /// An acceptable ACK `a`, which the receiver sent at `sent_at` (its TSval's instant).
    fn on_ack(&mut self, now: SimTime, a: &TcpAck, sent_at: SimTime) {
        let (ack, ece) = (a.ack, a.ece);
        let prev_una = self.sb.una();
        let prior_in_flight = self.st.in_flight;
        let could_grow = self.recovery.allows_growth();
        let cum = self.sb.ack_cumulative(ack);
        self.snd_wnd = u64::from(a.wnd);
        let mut sacked = Sacked::default();
        if self.cfg.recovery == Recovery::Sack {
            for b in a.sack.as_slice() {
                self.sb.sack(b.start, b.end, &mut sacked);
            }
            if self.rack.is_none() {
                self.sb.mark_lost_by_sack(self.cfg.dupthresh);
            }
        }
        self.st.snd_una = self.sb.una();
        let acked = cum.delivered + sacked.segments;
        self.st.delivered += acked;
        // The latest clean send time gives the RTT of the segment that triggered this ACK;
        // without one (Karn), the timestamp echo of an ACK of new data (Linux tcp_ack_update_rtt).
        let echo_rtt = || a.tsecr.filter(|_| ack > prev_una).map(|ts| ts_echo_rtt(now, ts));
        let rtt = cum.rtt_sent_at.max(sacked.rtt_sent_at).map(|sent| now - sent).or_else(echo_rtt);
        if let Some(r) = rtt {
            self.on_rtt_sample(now, r);
        }
        if self.ack_feedback {
            let ts = a.tsecr.map(|tsecr| AckTimestamps { tsval: ts_clock(sent_at), tsecr });
            self.cc.on_ack_feedback(&mut self.st, &AckFeedback { now, acked, ece, rtt, ts });
        }
        let newly_lost = self.rack_detect_loss(now, LatestSent::later(cum.latest, sacked.latest));
        let (recovery, cx) = self.recovery_and_connection();
        let AckStep { restart_rto, entered_recovery } =
            recovery.on_ack(now, prev_una, sacked.segments > 0, cx);
        if entered_recovery {
            self.end_tail_probe();
        }
        if ece {
            let (recovery, cx) = self.recovery_and_connection();
            recovery.on_ecn_echo(now, ack, cx);
        }
        // RFC 8985 §7.4: a probe that repaired a loss is answered by a window reduction.
        let (una, dsack) = (self.sb.una(), a.dsack);
        if self.rack.as_mut().is_some_and(|r| r.probe_repaired_loss(una, una > prev_una, dsack)) {
            let (recovery, cx) = self.recovery_and_connection();
            recovery.on_tail_loss_repaired(now, cx);
        }
        self.recovery.prr_on_ack(acked, ack > prev_una, newly_lost > 0, &self.sb, &mut self.st);
        if self.sb.packets_out() == 0 {
            self.timers.rto.clear(); // RFC 6298 §5.2
            self.sb.release_spare();
            self.rate.release_spare();
            if let Some(rack) = &mut self.rack {
                rack.release_spare();
            }
        } else if ack > prev_una && restart_rto {
            self.timers.rto.set(now + self.rtt.rto()); // RFC 6298 §5.3
        }
        let echo = ece && Ecn::echo_holds_growth(&self.cfg, &self.st);
        if ack > prev_una
            && could_grow
            && self.recovery.allows_growth()
            && !echo
            && self.usage.is_cwnd_limited(&self.st)
        {
            self.cc.on_ack(&mut self.st, &AckSample { now, acked, rtt });
        }
        self.st.in_flight = self.sb.pipe();
        let blocks = if self.cfg.recovery == Recovery::Sack { a.sack.as_slice() } else { &[] };
        if let Some(rs) = self.rate.on_ack(now, self.sb.una(), blocks, self.st.min_rtt) {
            self.cc.on_rate_sample(&mut self.st, &RateSample { prior_in_flight, rtt, ..rs });
        }
        if self.sb.una() > prev_una {
            // Closed-loop applications (web, ftp) time their next message from this.
            self.app.on_acked(now, self.sb.una());
        }
        if self.app.total().is_some_and(|total| ack >= total) {
            self.complete(now);
        }
    }
}

impl Transport for TcpSender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        if !self.started || self.completed_at.is_some() {
            return;
        }
        match pkt.header {
            Header::TcpAck(ref a) => {
                // An ACK below SND.UNA is stale; one above SND.MAX acknowledges nothing we sent.
                if a.ack < self.sb.una() || a.ack > self.sb.high_tx() {
                    return;
                }
                self.on_ack(now, a, pkt.sent_at);
                self.arm_probe_or_rto(now);
            }
            Header::TcpSyn { reply: true, tsecr, .. } => self.on_syn_ack(now, tsecr),
            Header::IcmpSourceQuench { code, seq, of_data: true, quoted_sent_at }
                if self.cfg.source_quench =>
            {
                // SQM-Response (`sqm.rs`): at most one cut per round trip, in the Open state.
                let cut = self.sqm.on_quench(now, self.recovery.is_open(), self.rtt.srtt());
                let (recovery, cx) = self.recovery_and_connection();
                recovery.on_source_quench(now, cut, code, seq, quoted_sent_at, cx);
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if !self.begin(now) {
            return;
        }
        // The application's next message, or the end of a pacing gap: `poll_transmit` sends.
        timers::fire(&mut self.timers.app, now);
        timers::fire(&mut self.timers.pace, now);
        if timers::fire(&mut self.timers.syn, now)
            && self.handshake.as_mut().is_some_and(Handshake::on_timeout)
        {
            self.rtt.back_off();
        }
        if timers::fire(&mut self.timers.reorder, now) {
            self.on_reorder_timeout(now);
        }
        let mut probing = false;
        if timers::fire(&mut self.timers.probe, now) {
            self.probe_after_burst = false;
            self.probe_due = true;
            probing = self.tail_probe(now).is_some();
        }
        // Linux runs the loss probe and the RTO on one timer (`icsk_pending`): a probe scheduled
        // for the RTO's deadline (the PTO is capped there) takes its place, and sending it re-arms
        // the RTO (tcp_send_loss_probe → tcp_rearm_rto). Only a probe that cannot be sent leaves
        // the RTO to fire.
        if !probing && timers::fire(&mut self.timers.rto, now) {
            self.on_retransmission_timeout(now);
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        let next = self.next_packet(now);
        if next.is_none() {
            self.settle_probe(now);
        }
        next
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        if self.completed_at.is_some() {
            return None;
        }
        if !self.started {
            return Some(self.start);
        }
        self.timers.earliest()
    }

    fn probe(&self) -> Probe {
        Probe {
            cwnd: Some(self.st.cwnd),
            ssthresh: self.st.ssthresh.is_finite().then_some(self.st.ssthresh),
            srtt: self.rtt.srtt(),
            rate_bps: None,
            delivered_bytes: 0,
            completed_at: self.completed_at,
            // The SYN's timeouts are the handshake's retransmissions.
            timeouts: self.recovery.timeouts()
                + self.handshake.map_or(0, |h| u64::from(h.retransmits())),
            fast_recoveries: self.recovery.fast_recoveries(),
            loss_probes: self.rack.as_ref().map_or(0, |r| r.loss_probes()),
            ecn_reductions: self.ecn.reductions(),
            sq_reductions: self.sqm.reductions(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{FlowId, NodeId};
    use crate::tcp::config::DelayedAck;
    use crate::tcp::recovery::Phase;
    use crate::tcp::testutil::{file, ms, reno_cc, Pair};
    use crate::time::Rate;
    use crate::wire::tcp::{SackBlocks, TCP_IP_HEADER};

    impl TcpSender {
        /// The RTT estimator.
        pub(in crate::tcp) fn rtt_estimator(&self) -> &RttEstimator {
            &self.rtt
        }

        /// Swaps in another congestion controller before the connection starts.
        pub(in crate::tcp) fn replace_cc(&mut self, cc: AnyCc) {
            self.rate = RateSampling::new(cc.inner().wants_rate_samples());
            self.ack_feedback = cc.inner().wants_ack_feedback();
            self.cc = cc;
        }
    }

    fn addr() -> Addr {
        Addr { flow: FlowId(3), local: NodeId(0), remote: NodeId(1) }
    }

    #[test]
    fn what_an_ack_reads_lies_in_the_first_ten_lines_and_the_rest_after_it() {
        use std::mem::{offset_of, size_of};
        // The state machine's PRR state and counters lie past its `HOT_BYTES` (`repr(C)`).
        let cold = [offset_of!(TcpSender, ecn), offset_of!(TcpSender, sqm)];
        let hot_end = TcpSender::HOT_BYTES;
        assert!(hot_end <= 10 * 64, "the hot part is {hot_end} bytes");
        assert!(
            cold.iter().all(|&c| c >= hot_end),
            "a cold field {cold:?} before the hot part's end {hot_end}"
        );
        assert!(size_of::<TcpSender>() <= 12 * 64, "TcpSender is {} bytes", size_of::<TcpSender>());
    }

    fn ack(n: u64) -> Packet {
        Packet {
            flow: FlowId(3),
            src: NodeId(1),
            dst: NodeId(0),
            size: TCP_IP_HEADER,
            sent_at: SimTime::ZERO,
            ce: false,
            header: Header::TcpAck(TcpAck {
                ack: n,
                sack: SackBlocks::default(),
                ece: false,
                tsecr: None,
                dsack: false,
                wnd: u32::MAX,
            }),
        }
    }

    /// Drains `poll_transmit` at `now`: (seq, retransmit) of each data segment.
    fn drain(s: &mut TcpSender, now: SimTime) -> Vec<(u64, bool)> {
        let mut out = Vec::new();
        while let Some(p) = s.poll_transmit(now) {
            let Header::TcpData { seq, len, retransmit, ect, .. } = p.header else {
                panic!("{p:?}")
            };
            assert_eq!(
                (p.size, p.sent_at, p.src, p.dst, ect),
                (len + TCP_IP_HEADER, now, NodeId(0), NodeId(1), false)
            );
            out.push((seq, retransmit));
        }
        out
    }

    #[test]
    fn a_bursts_loss_probe_is_timed_for_the_whole_burst() {
        // RFC 8985 §7.2 as Linux times it (tcp_write_xmit schedules the probe once, after its
        // loop): with several segments outstanding the PTO is 2·SRTT + 2 ms, not the 200 ms of
        // slack for a delayed ACK that a single segment gets, though the burst's first segment
        // was alone in flight when it left.
        let cfg = TcpConfig { rack_tlp: true, recovery: Recovery::Sack, ..TcpConfig::default() };
        let mut s = TcpSender::new(addr(), cfg, reno_cc(), file(100), SimTime::ZERO);
        let first = drain(&mut s, SimTime::ZERO);
        s.handle_packet(ms(40), &ack(first.len() as u64)); // SRTT 40 ms, nothing outstanding
        assert_eq!(s.timers.probe.get(), None);
        let burst = drain(&mut s, ms(40));
        assert!(burst.len() > 1, "{burst:?}");
        assert_eq!(s.timers.probe.get(), Some(ms(40 + 2 * 40 + 2)));
        assert_eq!(s.poll_timeout(), Some(ms(122)), "the probe comes before the RTO");
    }

    fn new_segments(range: std::ops::Range<u64>) -> Vec<(u64, bool)> {
        range.map(|s| (s, false)).collect()
    }

    /// A fixed-window algorithm that paces at 12 Mbit/s: one 1500-byte segment per millisecond.
    struct PacedFixed;
    impl crate::cc::CongestionControl for PacedFixed {
        fn name(&self) -> &'static str {
            "paced-fixed"
        }
        fn on_ack(&mut self, _st: &mut CcState, _ack: &AckSample) {}
        fn on_congestion(&mut self, st: &mut CcState, _ev: &crate::cc::CongestionEvent) {
            st.ssthresh = st.cwnd;
        }
        fn pacing_rate(&self, _st: &CcState) -> Option<Rate> {
            Some(Rate::mbps(12))
        }
    }

    #[test]
    fn a_pacing_algorithm_spaces_segments_by_its_rate() {
        let mut s = TcpSender::new(
            addr(),
            TcpConfig::default(),
            AnyCc::Custom(Box::new(PacedFixed)),
            file(100),
            SimTime::ZERO,
        );
        s.handle_timeout(SimTime::ZERO);
        // The window (10) would allow a burst of 10; pacing lets one out per 1500 B at 12 Mbit/s.
        assert_eq!(drain(&mut s, SimTime::ZERO), new_segments(0..1));
        assert_eq!(s.poll_timeout(), Some(ms(1)));
        assert_eq!(drain(&mut s, SimTime::from_nanos(999_000)), vec![]);
        s.handle_timeout(ms(1));
        assert_eq!(drain(&mut s, ms(1)), new_segments(1..2));
        s.handle_timeout(ms(2));
        assert_eq!(drain(&mut s, ms(2)), new_segments(2..3));
    }

    #[test]
    fn nothing_is_sent_before_start() {
        let start = ms(500);
        let mut s = TcpSender::new(addr(), TcpConfig::default(), reno_cc(), file(3), start);
        assert_eq!(s.poll_timeout(), Some(start));
        assert_eq!(drain(&mut s, ms(499)), vec![]);
        s.handle_timeout(start);
        assert_eq!(drain(&mut s, start), new_segments(0..3));
        // The short last segment of a file keeps its length.
        let mut s = TcpSender::new(
            addr(),
            TcpConfig::default(),
            reno_cc(),
            AppSource::File { bytes: 1500, mss: 1460 },
            SimTime::ZERO,
        );
        let p = s.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!(p.size, 1500);
        assert_eq!(s.poll_transmit(SimTime::ZERO).unwrap().size, 40 + 40);
    }

    #[test]
    fn slow_start_doubles_cwnd_every_round_trip_from_ten() {
        let mut p = Pair::new(
            TcpConfig::default(),
            AppSource::Bulk { mss: 1460 },
            SimDuration::from_millis(50),
        );
        p.run_until(SimTime::ZERO);
        assert_eq!(p.sent.len(), 10);
        for (round, want) in [(1, 20.0), (2, 40.0), (3, 80.0), (4, 160.0)] {
            p.run_until(ms(100 * round));
            assert_eq!(p.sender.cc_state().cwnd, want, "after round trip {round}");
            // Everything sent so far is either acknowledged or a full window in flight.
            assert_eq!(p.sent.len() as f64, p.sender.snd_una() as f64 + want);
        }
        assert_eq!(p.sender.probe().srtt, Some(SimDuration::from_millis(100)));
    }

    #[test]
    fn file_transfer_without_loss_completes_on_the_slow_start_schedule() {
        // RTT 100 ms, IW 10: rounds carry 10, 20, 40, 80 segments (150 in all), the fifth round the
        // last 50; its last ACK returns one RTT after it left, at 5 RTT.
        let mut p = Pair::new(TcpConfig::default(), file(200), SimDuration::from_millis(50));
        assert_eq!(p.run_to_completion(ms(10_000)), ms(500));
        let pr = p.sender.probe();
        assert_eq!((pr.timeouts, pr.fast_recoveries), (0, 0));
        assert_eq!(p.sent.len(), 200);
        assert_eq!(p.receiver.probe().delivered_bytes, 200 * 1460);
        assert_eq!(p.sender.poll_timeout(), None);
    }

    #[test]
    fn a_bottleneck_spreads_the_window_but_completion_matches_the_pipe_model() {
        // 12 Mbit/s: 1500 B take 1 ms. 10 segments, RTT 20 ms + serialisation: the last one is
        // acked at 10 ms (queue) + 20 ms = 30 ms.
        let mut p = Pair::new(TcpConfig::default(), file(10), SimDuration::from_millis(10))
            .with_bottleneck(Rate::mbps(12));
        assert_eq!(p.run_to_completion(ms(1_000)), ms(30));
        assert_eq!(p.sender.probe().srtt.map(|d| d >= SimDuration::from_millis(21)), Some(true));
    }

    #[test]
    fn delayed_acks_hold_a_lone_last_segment_for_the_timer() {
        // Nine segments in the initial window: four ACKs cover two each at 100 ms; the ninth is
        // acknowledged when the receiver's 40 ms timer fires, one way (50 ms) before 140 ms.
        let cfg = TcpConfig { delayed_ack: Some(DelayedAck::default()), ..TcpConfig::default() };
        let mut p = Pair::new(cfg, file(9), SimDuration::from_millis(50));
        assert_eq!(p.run_to_completion(ms(10_000)), ms(140));
        // Each ACK of two segments grew the window by two (slow start counts segments, not ACKs)
        // until cwnd reached twice the most ever outstanding, 9: the application, not the window,
        // limited this sender, so the last ACK does not grow it (Linux tcp_is_cwnd_limited).
        assert_eq!(p.sender.cc_state().cwnd, 2.0 * 9.0);
    }

    #[test]
    fn a_connection_with_nothing_outstanding_gives_back_the_storage_of_its_largest_window() {
        // A 3000-segment file grows the window to hundreds of segments; once everything is
        // acknowledged the per-segment queues (scoreboard, rate samples, RACK) shrink back.
        let cfg = crate::tcp::Stack::Linux.config();
        let mut p = Pair::new(
            cfg,
            AppSource::File { bytes: 3000 * 1448, mss: 1448 },
            SimDuration::from_millis(20),
        );
        let mut largest = 0;
        for t in (5..20_000).step_by(5) {
            p.run_until(ms(t));
            largest = largest.max(p.sender.sb.capacity());
        }
        assert_eq!(p.receiver.probe().delivered_bytes, 3000 * 1448);
        assert!(largest >= 200, "the window never grew: {largest}");
        let rack = p.sender.rack.as_ref().map_or(0, |r| r.capacity());
        let rate = p.sender.rate.sampler().map_or(0, |r| r.capacity());
        assert!(p.sender.sb.capacity() <= 32 && rate <= 32 && rack <= 32);
    }

    #[test]
    fn only_an_algorithm_that_reads_rate_samples_costs_their_per_segment_records() {
        let cfg = crate::tcp::Stack::Linux.config();
        let app = || AppSource::File { bytes: 100 * 1448, mss: 1448 };
        let reno = TcpSender::new(addr(), cfg.clone(), reno_cc(), app(), SimTime::ZERO);
        assert!(reno.rate.sampler().is_none());
        let bbr =
            crate::cc::CcConfig::from_name("bbr", None).and_then(|c| c.build(0)).expect("bbr");
        let bbr = TcpSender::new(addr(), cfg, bbr, app(), SimTime::ZERO);
        assert!(bbr.rate.sampler().is_some());
    }

    #[test]
    fn tail_loss_is_repaired_by_one_timeout_and_karn_keeps_the_backoff() {
        // RTT 40 ms. Segments 10..19 leave at 40 ms; 19 is lost. The ACK of 18 (at 80 ms)
        // restarts the timer: RTO = 40 ms + max(4·RTTVAR, min_rto) = 240 ms (Linux rule), so it
        // fires at 320 ms; the retransmission is acked at 360 ms.
        let mut p = Pair::new(TcpConfig::default(), file(20), SimDuration::from_millis(20))
            .dropping_first_transmission_of(&[19]);
        assert_eq!(p.run_to_completion(ms(5_000)), ms(360));
        let pr = p.sender.probe();
        assert_eq!((pr.timeouts, pr.fast_recoveries), (1, 0));
        assert_eq!(p.retransmissions(), vec![19]);
        let at_rto = p.trace.iter().find(|s| s.phase == Phase::Loss).unwrap();
        // One segment outstanding: ssthresh = max(FlightSize / 2, 2) = 2 (RFC 5681 eq. 4).
        assert_eq!((at_rto.at, at_rto.cwnd, at_rto.ssthresh), (ms(320), 1.0, 2.0));
        // Karn: the ACK of the retransmission gave no sample, so the doubled RTO stands.
        assert_eq!(pr.srtt, Some(SimDuration::from_millis(40)));
        assert_eq!(p.sender.rto(), SimDuration::from_millis(480));
    }

    #[test]
    fn with_timestamps_the_ack_of_a_retransmission_is_a_sample_and_clears_the_backoff() {
        // The case above with RFC 7323 timestamps: the ACK of the retransmitted segment echoes
        // the retransmission's TSval (it sits at the receiver's left edge), so it measures the
        // 40 ms RTT and collapses the backed-off RTO (Linux tcp_ack_update_rtt).
        let cfg = TcpConfig { timestamps: true, ..TcpConfig::default() };
        let mut p = Pair::new(
            cfg,
            AppSource::File { bytes: 20 * 1448, mss: 1448 },
            SimDuration::from_millis(20),
        )
        .dropping_first_transmission_of(&[19]);
        assert_eq!(p.run_to_completion(ms(5_000)), ms(360));
        assert_eq!(p.sender.probe().timeouts, 1);
        assert_eq!(p.sender.rtt.backoff(), 0);
        assert_eq!(p.sender.rto(), SimDuration::from_millis(240));
    }

    #[test]
    fn repeated_timeouts_back_off_and_keep_ssthresh() {
        let mut s = TcpSender::new(
            addr(),
            TcpConfig::default(),
            reno_cc(),
            AppSource::Bulk { mss: 1460 },
            SimTime::ZERO,
        );
        assert_eq!(drain(&mut s, SimTime::ZERO), new_segments(0..10));
        // No sample yet: RTO = 1 s, then 2, 4, 8 s (RFC 6298 §5.5).
        let mut deadline = SimTime::ZERO;
        for (i, gap) in [1, 2, 4, 8].into_iter().enumerate() {
            deadline += SimDuration::from_secs(gap);
            assert_eq!(s.poll_timeout(), Some(deadline));
            s.handle_timeout(deadline);
            assert_eq!(drain(&mut s, deadline), vec![(0, true)], "timeout {i}");
            // RFC 5681 §3.1: ssthresh from FlightSize once, then held.
            assert_eq!((s.cc_state().cwnd, s.cc_state().ssthresh), (1.0, 5.0));
            assert_eq!(s.probe().timeouts, i as u64 + 1);
        }
        // The retransmission is acked: slow start resends the rest (go-back-N).
        let t = ms(15_100);
        s.handle_packet(t, &ack(1));
        assert_eq!(drain(&mut s, t), vec![(1, true), (2, true)]);
        assert_eq!(s.phase(), Phase::Loss);
    }

    /// After a timeout that leaves holes below SACKed data: each transmission as (seq,
    /// retransmit), with SND.UNA and ⌊cwnd⌋ just before it.
    fn loss_state_transmissions(window_from_una: bool) -> Vec<(u64, bool, u64, u64)> {
        use crate::tcp::testutil::ack_packet;
        let cfg = TcpConfig { window_from_una, ..TcpConfig::default() };
        let mut s =
            TcpSender::new(addr(), cfg, reno_cc(), AppSource::Bulk { mss: 1460 }, SimTime::ZERO);
        assert_eq!(drain(&mut s, SimTime::ZERO), new_segments(0..10));
        let mut out = Vec::new();
        let mut record = |s: &mut TcpSender, now: SimTime| {
            while let Some(p) = s.poll_transmit(now) {
                let Header::TcpData { seq, retransmit, .. } = p.header else { panic!("{p:?}") };
                // poll_transmit has already counted this one: the span before it began at SND.UNA.
                out.push((seq, retransmit, s.snd_una(), s.cc_state().cwnd as u64));
            }
        };
        // The timeout at 1 s (no RTT sample yet): Loss, cwnd 1, segment 0 resent.
        s.handle_timeout(ms(1_000));
        record(&mut s, ms(1_000));
        // Segments 1-4 were lost as well, 5-9 arrived: each ACK moves SND.UNA and opens the
        // window by slow start, with a hole at SND.UNA until 5.
        for (t, una) in [(1_100, 1), (1_200, 3), (1_300, 5), (1_400, 10)] {
            s.handle_packet(ms(t), &ack_packet(una, &[(5, 10)], false));
            record(&mut s, ms(t));
        }
        out
    }

    #[test]
    fn ns2_window_keeps_new_data_within_snd_una_plus_cwnd_after_a_timeout() {
        // RFC 6675 counts the pipe: once the holes are resent, new data goes out while SND.UNA
        // is still behind them (segment 10 at 1.1 s, nine above SND.UNA = 1 with cwnd 5: the
        // first ACK acknowledged one segment and SACKed five, and slow start counts both).
        let pipe = loss_state_transmissions(false);
        assert_eq!(pipe.iter().find(|t| !t.1), Some(&(10, false, 1, 5)), "{pipe:?}");
        // ns-2 (`Sack1TcpAgent::send_much`): outside fast recovery no segment leaves at or above
        // SND.UNA + cwnd; the same holes are resent, and new data waits for SND.UNA.
        let ns2 = loss_state_transmissions(true);
        for &(seq, retransmit, una, cwnd) in ns2.iter().filter(|t| !t.1) {
            assert!(
                seq < una + cwnd,
                "segment {seq} (retransmit {retransmit}) above {una} + {cwnd}: {ns2:?}"
            );
        }
        let resent =
            |v: &[(u64, bool, u64, u64)]| v.iter().filter(|t| t.1).map(|t| t.0).collect::<Vec<_>>();
        assert_eq!(resent(&ns2), vec![0, 1, 2, 3, 4]);
        assert_eq!(resent(&pipe), resent(&ns2));
        assert!(
            ns2.iter().any(|t| !t.1),
            "the window reopened once SND.UNA passed the holes: {ns2:?}"
        );
    }

    #[test]
    fn ns2_window_still_sends_one_segment_per_early_duplicate_ack() {
        // Limited transmit (RFC 3042; ns-2 `singledup_ 1`, `send_one`): the first two duplicate
        // ACKs each release one new segment beyond SND.UNA + cwnd; the third is the fast
        // retransmit, and in fast recovery the pipe counts again.
        use crate::tcp::testutil::ack_packet;
        let cfg = TcpConfig { window_from_una: true, ..TcpConfig::default() };
        let mut s =
            TcpSender::new(addr(), cfg, reno_cc(), AppSource::Bulk { mss: 1460 }, SimTime::ZERO);
        assert_eq!(drain(&mut s, SimTime::ZERO), new_segments(0..10));
        s.handle_packet(ms(100), &ack_packet(0, &[(1, 2)], false));
        assert_eq!(drain(&mut s, ms(100)), new_segments(10..11));
        s.handle_packet(ms(101), &ack_packet(0, &[(1, 3)], false));
        assert_eq!(drain(&mut s, ms(101)), new_segments(11..12));
        s.handle_packet(ms(102), &ack_packet(0, &[(1, 4)], false));
        assert_eq!(s.phase(), Phase::Recovery);
        // cwnd = ssthresh = 5; pipe = 12 − 3 SACKed − 1 lost + 1 resent = 9.
        assert_eq!(drain(&mut s, ms(102)), vec![(0, true)]);
    }

    #[test]
    fn cbr_application_sends_each_message_when_it_is_produced() {
        // 1000 B every 10 ms from t = 5 ms.
        let app = AppSource::cbr(ms(5), Rate(800_000), 1000);
        let mut s = TcpSender::new(addr(), TcpConfig::default(), reno_cc(), app, SimTime::ZERO);
        assert_eq!(drain(&mut s, SimTime::ZERO), vec![]);
        assert_eq!(s.poll_timeout(), Some(ms(5)));
        for k in 0..3 {
            let t = ms(5 + 10 * k);
            s.handle_timeout(t);
            assert_eq!(drain(&mut s, t), vec![(k, false)]);
            // The RTO (1 s after the first send) is later than the next message.
            assert_eq!(s.poll_timeout(), Some(ms(15 + 10 * k)));
        }
    }

    #[test]
    fn receiver_window_caps_the_flight() {
        let cfg = TcpConfig { rwnd: 4, ..TcpConfig::default() };
        let mut s =
            TcpSender::new(addr(), cfg, reno_cc(), AppSource::Bulk { mss: 1460 }, SimTime::ZERO);
        assert_eq!(drain(&mut s, SimTime::ZERO), new_segments(0..4));
        s.handle_packet(ms(10), &ack(2));
        assert_eq!(drain(&mut s, ms(10)), new_segments(4..6));
    }

    #[test]
    fn completed_file_sends_nothing_and_arms_no_timer() {
        let mut s = TcpSender::new(addr(), TcpConfig::default(), reno_cc(), file(2), SimTime::ZERO);
        assert_eq!(drain(&mut s, SimTime::ZERO), new_segments(0..2));
        s.handle_packet(ms(30), &ack(1));
        assert_eq!(s.probe().completed_at, None);
        // SRTT 30 ms, RTTVAR 15 ms: RTO = SRTT + max(4·RTTVAR, min_rto) = 30 + 200 ms (Linux
        // rule), restarted by this ACK.
        assert_eq!(s.poll_timeout(), Some(ms(30 + 230)));
        s.handle_packet(ms(31), &ack(2));
        assert_eq!(s.probe().completed_at, Some(ms(31)));
        assert_eq!(s.poll_timeout(), None);
        assert_eq!(drain(&mut s, ms(40)), vec![]);
        // An empty file is complete at its start.
        let mut e = TcpSender::new(addr(), TcpConfig::default(), reno_cc(), file(0), ms(7));
        e.handle_timeout(ms(7));
        assert_eq!(e.probe().completed_at, Some(ms(7)));
        assert_eq!(e.poll_timeout(), None);
    }
}
