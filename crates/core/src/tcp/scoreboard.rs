//! The sender's scoreboard: one entry per outstanding segment, `SND.UNA..SND.MAX`, with the
//! counters that make RFC 6675's `pipe` O(1).
//!
//! ```text
//! pipe = packets_out − sacked_out − lost_out + retrans_out         (Linux tcp_packets_in_flight)
//! IsLost(S)  ⇔  at least DupThresh SACKed segments lie above S     (RFC 6675 §4, in segments)
//! NextSeg    = (1) lowest lost, unSACKed, not-yet-retransmitted segment
//!              (2) otherwise new data (the sender decides)          (RFC 6675 §4)
//! ```
//!
//! Every operation is amortised O(1) per ACK, with no scan of the window:
//! * SACK blocks are merged into a `SeqRanges` index first, so only segments never SACKed
//!   before are visited (each ACK repeats blocks it reported before).
//! * IsLost marking walks a pointer that only moves forward: the lost region is the prefix of
//!   unSACKed segments below the DupThresh-th highest SACKed segment, and that segment only rises
//!   because SACK information only accumulates (we never renege).
//! * NextSeg rule 1 walks a hint that only moves forward between timeouts, bounded by the
//!   highest segment ever marked lost; `lost_out − retrans_out` says in O(1) whether it has
//!   anything to find.
//!
//! Only [`Scoreboard::mark_all_lost`] (a retransmission timeout, or Tahoe's fast retransmit)
//! visits the whole window, once per event.
//!
//! Invariant: a segment flagged RETRANSMITTED is also flagged LOST (we only retransmit what is
//! deemed lost), and neither flag survives a SACK. Hence `lost_out − retrans_out` counts the
//! segments NextSeg rule 1 can return.
//!
//! Not implemented: NextSeg rules 3 (retransmit unSACKed data not yet deemed lost) and 4 (rescue
//! retransmission); D-SACK; reneging (a SACKed segment is never forgotten).

use super::ranges::SeqRanges;
use crate::time::SimTime;
use std::collections::VecDeque;

/// Segment flags (Linux `TCPCB_*` names in brackets).
const SACKED: u8 = 1 << 0; // [SACKED_ACKED] the receiver holds it
const LOST: u8 = 1 << 1; // [LOST] deemed lost: not counted in pipe unless retransmitted
const RETRANS: u8 = 1 << 2; // [SACKED_RETRANS] retransmitted and that copy still outstanding
const EVER_RETRANS: u8 = 1 << 3; // [EVER_RETRANS] sent more than once: no RTT sample (Karn)
const QUENCHED: u8 = 1 << 4; // an ICMP Source Quench reported this segment dropped (SQM-Response)

#[derive(Clone, Copy, Debug)]
struct Seg {
    /// When the latest copy was sent.
    sent_at: SimTime,
    /// The latest copy's place in the connection's transmission order (copies sent at the same
    /// instant are still ordered: RACK needs "sent after", RFC 8985 §6.2).
    order: u64,
    flags: u8,
}

/// The most recently sent transmission among those an ACK newly delivered (RACK's input,
/// RFC 8985 §6.2 step 1): the later transmission wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatestSent {
    /// Transmission order: each copy has its own, so it alone says which was sent later.
    pub order: u64,
    pub sent_at: SimTime,
    pub seq: u64,
    /// The segment was sent more than once: its delivery may be the original's (RFC 8985 §6.2
    /// step 2 then asks for an RTT at least `min_rtt`).
    pub retransmitted: bool,
}

impl LatestSent {
    /// The later sent of two transmissions, if any (compared by `order` alone: fewer steps
    /// than every field's, on every segment an ACK delivers).
    #[inline]
    pub fn later(a: Option<LatestSent>, b: Option<LatestSent>) -> Option<LatestSent> {
        match (a, b) {
            (Some(x), Some(y)) => Some(if y.order > x.order { y } else { x }),
            (x, None) => x,
            (None, y) => y,
        }
    }
}

fn latest(a: Option<LatestSent>, b: LatestSent) -> Option<LatestSent> {
    LatestSent::later(a, Some(b))
}

/// What one cumulative acknowledgement removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CumAcked {
    /// Segments newly below SND.UNA.
    pub segments: u64,
    /// Of those, the ones not SACKed before (newly delivered, as far as the sender knows).
    pub delivered: u64,
    /// Send time of the latest newly delivered segment, if none of the newly delivered segments
    /// was ever retransmitted (Karn's algorithm; Linux `FLAG_RETRANS_DATA_ACKED`).
    pub rtt_sent_at: Option<SimTime>,
    /// The most recently sent of the newly delivered segments.
    pub latest: Option<LatestSent>,
}

/// What SACK blocks added to the scoreboard, accumulated over an ACK's blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sacked {
    /// Segments SACKed for the first time.
    pub segments: u64,
    /// Send time of the latest newly SACKed segment that was sent only once (Karn).
    pub rtt_sent_at: Option<SimTime>,
    /// The most recently sent of the newly SACKed segments.
    pub latest: Option<LatestSent>,
}

/// How far past SND.UNA an ACK loads the scoreboard for the ACKs after it: 8 entries of 24
/// bytes, three cache lines ahead (about four delayed ACKs).
const SEGS_PREFETCH_AHEAD: usize = 8;

/// Per-segment state of the outstanding window, with Linux-style incremental counters.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SND.UNA: the oldest unacknowledged segment. I.e. every segment below it is acknowledged.
    una: u64,
    /// State of segments `una..una + segs.len()`; `una + segs.len()` is SND.MAX.
    segs: VecDeque<Seg>,
    sacked_out: u64,
    lost_out: u64,
    retrans_out: u64,
    /// SACKed ranges at or above `una`, to skip segments SACKed before.
    sacked: SeqRanges,
    /// Transmissions so far (each copy's `order`).
    tx_count: u64,
    /// IsLost walk: every unSACKed segment in `una..mark_next` is flagged LOST.
    mark_next: u64,
    /// SACKed segments in `mark_next..SND.MAX`.
    sacked_from_mark: u64,
    /// NextSeg rule 1 hint: no segment below it is LOST and not RETRANS.
    retx_hint: u64,
    /// One past the highest segment flagged LOST: bounds the hint walk.
    lost_end: u64,
}

impl Scoreboard {
    pub fn new() -> Self {
        Scoreboard::default()
    }

    /// Frees the per-segment storage of past windows (see `tcp::release_spare`).
    pub fn release_spare(&mut self) {
        super::release_spare(&mut self.segs);
    }
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.segs.capacity()
    }

    /// SND.UNA, the oldest unacknowledged segment.
    pub fn una(&self) -> u64 {
        self.una
    }
    /// SND.MAX, one past the highest segment sent.
    pub fn high_tx(&self) -> u64 {
        self.una + self.segs.len() as u64
    }
    /// Outstanding segments (RFC 5681 FlightSize).
    pub fn packets_out(&self) -> u64 {
        self.segs.len() as u64
    }
    pub fn sacked_out(&self) -> u64 {
        self.sacked_out
    }
    pub fn lost_out(&self) -> u64 {
        self.lost_out
    }
    pub fn retrans_out(&self) -> u64 {
        self.retrans_out
    }
    /// Segments estimated to be in the network (RFC 6675 `pipe`).
    pub fn pipe(&self) -> u64 {
        self.packets_out() + self.retrans_out - self.sacked_out - self.lost_out
    }

    fn seg(&self, seq: u64) -> &Seg {
        &self.segs[(seq - self.una) as usize]
    }
    fn seg_mut(&mut self, seq: u64) -> &mut Seg {
        &mut self.segs[(seq - self.una) as usize]
    }

    /// True if `seq` is outstanding and flagged lost.
    pub fn is_lost(&self, seq: u64) -> bool {
        (self.una..self.high_tx()).contains(&seq) && self.seg(seq).flags & LOST != 0
    }
    /// True if `seq` is outstanding and SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        (self.una..self.high_tx()).contains(&seq) && self.seg(seq).flags & SACKED != 0
    }
    /// True if `seq` is outstanding and a Source Quench reported a copy of it dropped.
    pub fn is_quenched(&self, seq: u64) -> bool {
        (self.una..self.high_tx()).contains(&seq) && self.seg(seq).flags & QUENCHED != 0
    }
    /// When the latest copy of outstanding segment `seq` was sent.
    pub fn sent_at(&self, seq: u64) -> SimTime {
        self.seg(seq).sent_at
    }

    /// Segment `high_tx()` was sent for the first time.
    pub fn on_sent_new(&mut self, now: SimTime) {
        self.segs.push_back(Seg { sent_at: now, order: self.tx_count, flags: 0 });
        // The entries a window's next segments take were last written a round trip ago.
        crate::net::prefetch::prefetch_past_back(&self.segs, SEGS_PREFETCH_AHEAD);
        self.tx_count += 1;
    }

    /// The transmission order of the latest copy of outstanding segment `seq`.
    pub fn order_of(&self, seq: u64) -> u64 {
        self.seg(seq).order
    }

    /// Lost segment `seq` was sent again.
    pub fn on_retransmitted(&mut self, seq: u64, now: SimTime) {
        let s = self.seg_mut(seq);
        debug_assert!(
            s.flags & (LOST | RETRANS | SACKED) == LOST,
            "retransmitting segment {seq} not pending"
        );
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        let order = self.tx_count;
        self.seg_mut(seq).order = order;
        self.tx_count += 1;
        self.retrans_out += 1;
    }

    /// Advances SND.UNA to `ack` (≤ SND.MAX), forgetting the acknowledged segments.
    pub fn ack_cumulative(&mut self, ack: u64) -> CumAcked {
        debug_assert!(ack <= self.high_tx(), "ack {ack} beyond SND.MAX {}", self.high_tx());
        let mut out = CumAcked::default();
        let mut retransmitted = false;
        while self.una < ack {
            let s = self.segs.pop_front().expect("ack within the window");
            if s.flags & SACKED != 0 {
                self.sacked_out -= 1;
                if self.una >= self.mark_next {
                    self.sacked_from_mark -= 1;
                }
            } else {
                out.delivered += 1;
                let ever = s.flags & EVER_RETRANS != 0;
                retransmitted |= ever;
                out.rtt_sent_at = Some(s.sent_at);
                out.latest = latest(
                    out.latest,
                    LatestSent {
                        order: s.order,
                        sent_at: s.sent_at,
                        seq: self.una,
                        retransmitted: ever,
                    },
                );
            }
            if s.flags & LOST != 0 {
                self.lost_out -= 1;
            }
            if s.flags & RETRANS != 0 {
                self.retrans_out -= 1;
            }
            out.segments += 1;
            self.una += 1;
        }
        if retransmitted {
            out.rtt_sent_at = None;
        }
        self.sacked.remove_below(self.una);
        self.mark_next = self.mark_next.max(self.una);
        self.retx_hint = self.retx_hint.max(self.una);
        self.lost_end = self.lost_end.max(self.una);
        // The next ACKs read on from here; on a long path these entries were written a whole
        // round trip ago and have left the cache.
        if let Some(ahead) = self.segs.get(SEGS_PREFETCH_AHEAD) {
            crate::net::prefetch::prefetch(ahead);
        }
        out
    }

    /// Records a SACK block `start..end`, adding to `acc`. Parts outside the window are ignored.
    pub fn sack(&mut self, start: u64, end: u64, acc: &mut Sacked) {
        let (start, end) = (start.max(self.una), end.min(self.high_tx()));
        if start >= end {
            return;
        }
        // The index reports the new pieces and the closure marks their segments: it borrows
        // the fields it names, not the whole scoreboard, so the index is borrowed beside it.
        self.sacked.insert(start, end, 0, |a, b| {
            for seq in a..b {
                let s = &mut self.segs[(seq - self.una) as usize];
                debug_assert!(s.flags & SACKED == 0);
                let flags = s.flags;
                s.flags = (flags | SACKED) & !(LOST | RETRANS);
                if flags & LOST != 0 {
                    self.lost_out -= 1;
                }
                if flags & RETRANS != 0 {
                    self.retrans_out -= 1;
                }
                if flags & EVER_RETRANS == 0 {
                    acc.rtt_sent_at = Some(acc.rtt_sent_at.map_or(s.sent_at, |t| t.max(s.sent_at)));
                }
                acc.latest = latest(
                    acc.latest,
                    LatestSent {
                        order: s.order,
                        sent_at: s.sent_at,
                        seq,
                        retransmitted: flags & EVER_RETRANS != 0,
                    },
                );
                if seq >= self.mark_next {
                    self.sacked_from_mark += 1;
                }
                self.sacked_out += 1;
                acc.segments += 1;
            }
        });
    }

    /// Flags every segment RFC 6675 IsLost says is lost: unSACKed with at least `dupthresh`
    /// SACKed segments above it. Returns how many were newly flagged.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32) -> u64 {
        let dupthresh = dupthresh.max(1) as u64;
        if self.sacked_from_mark < dupthresh {
            return 0; // too few SACKed segments above the mark for any below it to be lost
        }
        let mut marked = 0;
        while self.mark_next < self.high_tx() {
            let seq = self.mark_next;
            let here_sacked = self.seg(seq).flags & SACKED != 0;
            let above = self.sacked_from_mark - here_sacked as u64;
            if above < dupthresh {
                break;
            }
            if here_sacked {
                self.sacked_from_mark -= 1;
            } else if self.flag_lost(seq) {
                marked += 1;
            }
            self.mark_next += 1;
        }
        marked
    }

    /// Flags one outstanding segment lost (fast retransmit of SND.UNA without SACK, NewReno
    /// partial ACKs). Returns false if it was SACKed or already lost.
    pub fn mark_lost(&mut self, seq: u64) -> bool {
        (self.una..self.high_tx()).contains(&seq) && self.flag_lost(seq)
    }

    fn flag_lost(&mut self, seq: u64) -> bool {
        let s = self.seg_mut(seq);
        if s.flags & (SACKED | LOST) != 0 {
            return false;
        }
        s.flags |= LOST;
        self.lost_out += 1;
        self.lost_end = self.lost_end.max(seq + 1);
        self.retx_hint = self.retx_hint.min(seq);
        true
    }

    /// An ICMP Source Quench reports that the copy of `seq` sent at `copy_sent_at` was dropped:
    /// flag it lost (if that copy was a retransmission, the retransmission is no longer in
    /// flight) so NextSeg rule 1 resends it. Returns false if there is nothing to resend: the
    /// segment is acknowledged or SACKed, or a later copy is already on its way.
    pub fn quench(&mut self, seq: u64, copy_sent_at: SimTime) -> bool {
        if !(self.una..self.high_tx()).contains(&seq) {
            return false;
        }
        let s = *self.seg(seq);
        if s.flags & SACKED != 0 || s.sent_at != copy_sent_at {
            return false;
        }
        self.mark_copy_lost(seq);
        self.seg_mut(seq).flags |= QUENCHED;
        true
    }

    /// The latest copy of outstanding, unSACKed segment `seq` is lost: if it was a
    /// retransmission, that copy is no longer in flight and NextSeg rule 1 sends another.
    pub fn mark_copy_lost(&mut self, seq: u64) {
        if self.seg(seq).flags & RETRANS != 0 {
            self.seg_mut(seq).flags &= !RETRANS;
            self.retrans_out -= 1;
            self.retx_hint = self.retx_hint.min(seq);
        } else {
            self.flag_lost(seq);
        }
    }

    /// True if the copy of `seq` with transmission order `order` is outstanding and may still
    /// arrive: not acknowledged, not SACKed, not superseded by a later copy, not deemed lost.
    pub fn copy_in_flight(&self, seq: u64, order: u64) -> bool {
        if !(self.una..self.high_tx()).contains(&seq) {
            return false;
        }
        let s = self.seg(seq);
        s.order == order && s.flags & SACKED == 0 && s.flags & (LOST | RETRANS) != LOST
    }

    /// A retransmission timeout (or Tahoe's fast retransmit): every unSACKed outstanding
    /// segment is lost, and no retransmission is still in flight (Linux `tcp_timeout_mark_lost`).
    /// SACK information is kept. O(window), once per event.
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.flags &= !RETRANS;
            if s.flags & (SACKED | LOST) == 0 {
                s.flags |= LOST;
                self.lost_out += 1;
            }
        }
        self.retrans_out = 0;
        self.retx_hint = self.una;
        self.lost_end = self.high_tx();
        self.mark_next = self.high_tx();
        self.sacked_from_mark = 0;
    }

    /// NextSeg rule 1 (RFC 6675 §4): the lowest segment deemed lost, not SACKed and not yet
    /// retransmitted. Amortised O(1).
    pub fn next_retransmission(&mut self) -> Option<u64> {
        if self.lost_out == self.retrans_out {
            return None;
        }
        while self.retx_hint < self.lost_end {
            let seq = self.retx_hint;
            if self.seg(seq).flags & (LOST | RETRANS) == LOST {
                return Some(seq);
            }
            self.retx_hint += 1;
        }
        debug_assert!(
            false,
            "lost_out {} > retrans_out {} but nothing to retransmit",
            self.lost_out, self.retrans_out
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }

    /// A scoreboard with segments 0..n sent at 0, 1, 2, ... ms.
    fn sent(n: u64) -> Scoreboard {
        let mut sb = Scoreboard::new();
        for i in 0..n {
            sb.on_sent_new(t(i));
        }
        sb
    }

    fn sack(sb: &mut Scoreboard, a: u64, b: u64) -> Sacked {
        let mut acc = Sacked::default();
        sb.sack(a, b, &mut acc);
        acc
    }

    #[test]
    fn pipe_counts_outstanding_minus_sacked_and_lost_plus_retransmitted() {
        let mut sb = sent(10);
        assert_eq!(sb.pipe(), 10);
        sack(&mut sb, 3, 6);
        assert_eq!((sb.packets_out(), sb.sacked_out()), (10, 3));
        assert_eq!(sb.pipe(), 7);
        assert!(sb.mark_lost(0));
        assert_eq!(sb.pipe(), 6);
        sb.on_retransmitted(0, t(20));
        assert_eq!(sb.retrans_out(), 1);
        assert_eq!(sb.pipe(), 7);
        // The cumulative ACK of the retransmission removes it and its flags.
        let c = sb.ack_cumulative(3);
        assert_eq!((c.segments, c.delivered), (3, 3));
        assert_eq!((sb.lost_out(), sb.retrans_out(), sb.sacked_out()), (0, 0, 3));
        assert_eq!(sb.pipe(), 4);
        sb.ack_cumulative(6);
        assert_eq!((sb.pipe(), sb.sacked_out()), (4, 0));
    }

    #[test]
    fn repeated_sack_blocks_count_each_segment_once() {
        let mut sb = sent(20);
        assert_eq!(sack(&mut sb, 5, 6).segments, 1);
        assert_eq!(sack(&mut sb, 5, 7).segments, 1);
        assert_eq!(sack(&mut sb, 5, 8).segments, 1);
        assert_eq!(sack(&mut sb, 4, 12).segments, 5);
        assert_eq!(sb.sacked_out(), 8);
        // Parts outside the window are ignored.
        assert_eq!(sack(&mut sb, 18, 40).segments, 2);
        assert_eq!(sb.sacked_out(), 10);
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        let mut sb = sent(10);
        sack(&mut sb, 1, 3);
        assert_eq!(sb.mark_lost_by_sack(3), 0);
        assert!(!sb.is_lost(0));
        sack(&mut sb, 3, 4);
        assert_eq!(sb.mark_lost_by_sack(3), 1);
        assert!(sb.is_lost(0));
        // Segment 4 has nothing SACKed above it yet; 6 and 7 SACKed: two above 4 and 5.
        sack(&mut sb, 6, 8);
        assert_eq!(sb.mark_lost_by_sack(3), 0);
        sack(&mut sb, 9, 10);
        // Now 6, 7, 9 lie above 4 and 5: both lost; 8 has only 9 above it.
        assert_eq!(sb.mark_lost_by_sack(3), 2);
        assert!(sb.is_lost(4) && sb.is_lost(5) && !sb.is_lost(8));
        assert_eq!(sb.lost_out(), 3);
        assert_eq!(sb.pipe(), 10 - 6 - 3);
    }

    #[test]
    fn sacking_a_lost_retransmitted_segment_clears_both_flags() {
        let mut sb = sent(10);
        sack(&mut sb, 1, 4);
        sb.mark_lost_by_sack(3);
        sb.on_retransmitted(0, t(30));
        assert_eq!((sb.lost_out(), sb.retrans_out()), (1, 1));
        sack(&mut sb, 0, 1);
        assert_eq!((sb.lost_out(), sb.retrans_out(), sb.sacked_out()), (0, 0, 4));
    }

    #[test]
    fn next_seg_returns_lost_segments_in_order_once_each() {
        let mut sb = sent(12);
        sack(&mut sb, 1, 2);
        sack(&mut sb, 3, 4);
        sack(&mut sb, 5, 6);
        sack(&mut sb, 7, 12);
        sb.mark_lost_by_sack(3);
        // Lost: 0, 2, 4, 6 (each has ≥ 3 SACKed above).
        let mut order = Vec::new();
        while let Some(seq) = sb.next_retransmission() {
            sb.on_retransmitted(seq, t(50));
            order.push(seq);
        }
        assert_eq!(order, vec![0, 2, 4, 6]);
        assert_eq!(sb.next_retransmission(), None);
    }

    #[test]
    fn next_seg_finds_an_explicit_mark_below_its_hint() {
        let mut sb = sent(5);
        sb.mark_lost(3);
        assert_eq!(sb.next_retransmission(), Some(3));
        sb.on_retransmitted(3, t(10));
        assert_eq!(sb.next_retransmission(), None);
        sb.mark_lost(1);
        assert_eq!(sb.next_retransmission(), Some(1));
    }

    #[test]
    fn timeout_marks_every_unsacked_segment_and_keeps_sack_information() {
        let mut sb = sent(8);
        sack(&mut sb, 2, 4);
        sb.mark_lost(0);
        sb.on_retransmitted(0, t(10));
        sb.mark_all_lost();
        assert_eq!((sb.lost_out(), sb.retrans_out(), sb.sacked_out()), (6, 0, 2));
        assert_eq!(sb.pipe(), 0);
        let mut order = Vec::new();
        while let Some(seq) = sb.next_retransmission() {
            sb.on_retransmitted(seq, t(20));
            order.push(seq);
        }
        assert_eq!(order, vec![0, 1, 4, 5, 6, 7]);
        assert_eq!(sb.pipe(), 6);
    }

    #[test]
    fn rtt_sample_skips_retransmitted_segments_karn() {
        let mut sb = sent(6);
        // A clean cumulative ACK samples its latest newly delivered segment.
        assert_eq!(sb.ack_cumulative(2).rtt_sent_at, Some(t(1)));
        // Segment 2 is retransmitted; the ACK covering it (and 3) gives no sample.
        sb.mark_lost(2);
        sb.on_retransmitted(2, t(40));
        let c = sb.ack_cumulative(4);
        assert_eq!((c.delivered, c.rtt_sent_at), (2, None));
        // Newly SACKed segments sent once do give a sample, previously SACKed ones never again.
        sb.on_sent_new(t(50)); // segment 6
        assert_eq!(sack(&mut sb, 5, 7).rtt_sent_at, Some(t(50)));
        let c = sb.ack_cumulative(7);
        assert_eq!((c.segments, c.delivered, c.rtt_sent_at), (3, 1, Some(t(4))));
    }

    #[test]
    fn marking_is_incremental_across_acks() {
        // SACK one segment per ACK above a single hole, as dupacks do: each call does O(1) work
        // and the hole is marked exactly when the third segment above it is SACKed.
        let mut sb = sent(1000);
        for seq in 1..1000 {
            sack(&mut sb, 1, seq + 1);
            let newly = sb.mark_lost_by_sack(3);
            assert_eq!(newly, u64::from(seq == 3));
        }
        assert_eq!(sb.lost_out(), 1);
        assert_eq!(sb.mark_next, 997);
    }

    #[test]
    fn a_quench_flags_the_dropped_copy_lost_once_and_ignores_stale_reports() {
        let mut sb = sent(10);
        assert!(sb.quench(4, t(4)));
        assert!(sb.is_lost(4) && sb.is_quenched(4));
        assert_eq!((sb.lost_out(), sb.pipe(), sb.next_retransmission()), (1, 9, Some(4)));
        sb.on_retransmitted(4, t(20));
        assert_eq!(sb.pipe(), 10);
        // A report about the first copy, now that a second one is in flight, changes nothing.
        assert!(!sb.quench(4, t(4)));
        assert_eq!(sb.pipe(), 10);
        // The retransmission itself was dropped: it must go again.
        assert!(sb.quench(4, t(20)));
        assert_eq!((sb.retrans_out(), sb.pipe(), sb.next_retransmission()), (0, 9, Some(4)));
        // Acknowledged or SACKed segments are not resent.
        sack(&mut sb, 6, 7);
        assert!(!sb.quench(6, t(6)));
        sb.ack_cumulative(2);
        assert!(!sb.quench(1, t(1)));
        assert!(!sb.is_quenched(5));
    }
}
