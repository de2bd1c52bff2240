//! Explicit Congestion Notification for TCP (RFC 3168 §6.1), sender side.
//!
//! ```text
//! data sender                                     data receiver
//!   new data: ECT(0); retransmissions: not-ECT      CE-marked segment → ECE on every ACK
//!   ACK with ECE, state Open, and the ACK covers      until a segment carrying CWR arrives
//!     data sent after the last reduction:
//!       CC.on_congestion(Ecn): ssthresh; cwnd = min(cwnd, ssthresh); no retransmission
//!       Open → Cwr until SND.UNA reaches SND.MAX of the reduction (one window)
//!   first new segment after any window reduction: CWR (ns2 profile: the first segment, even a
//!     retransmission); ECN-Echo holds cwnd growth per `TcpConfig::ecn_echo_growth`
//! ```
//!
//! "Once per window" (RFC 3168 §6.1.2): an ECN-Echo is ignored while the sender is recovering
//! (Recovery, Loss, Cwr, SourceQuench: that congestion was answered) and when the ACK carrying it
//! acknowledges only data sent before the last reduction of any kind (the receiver keeps setting
//! ECE until our CWR reaches it, so those echoes repeat one signal). A loss detected in the Cwr
//! state enters fast recovery without reducing ssthresh again (§6.1.2: "should not decrease
//! ssthresh if it has been decreased within the last round trip time"; Linux
//! `tcp_enter_recovery` in CA_CWR); a timeout in Cwr keeps ssthresh too (Linux `tcp_enter_loss`).
//!
//! Not implemented / deviates:
//! - No ECN negotiation (SYN/SYN-ACK) and no ECT(1)/ECN nonce: both ends are configured.
//! - The window is cut at once to ssthresh (RFC 3168 "halve cwnd"), not spread over a round
//!   trip by PRR as Linux does; like Linux, cwnd does not grow while in Cwr.
//! - When cwnd is already one segment, RFC 3168 §6.1.2 asks to wait for the retransmit timer
//!   before sending new data; we do not (cwnd never falls below one segment).
//! - The receiver does not enter a quick-ACK mode on CE (Linux does).

use super::config::{EchoGrowth, TcpConfig};
use crate::cc::CcState;

/// The sender's ECN bookkeeping. The window cut and the Cwr state it starts are the sender's
/// and the recovery state machine's; this decides when there is to be one and sets CWR.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ecn {
    /// SND.MAX at the last window reduction of any kind: an ECN-Echo on an ACK that does not
    /// go beyond it echoes congestion already answered.
    reduced_at: Option<u64>,
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
    /// Window reductions made in answer to ECN-Echo.
    reductions: u64,
}

impl Ecn {
    /// Window reductions made in answer to ECN-Echo.
    pub(super) fn reductions(&self) -> u64 {
        self.reductions
    }

    /// Whether the segment about to leave (`retransmit`: a retransmission) carries CWR: the
    /// first new segment after a reduction (ns-2 profile: the first segment); clears the request.
    #[inline]
    pub(super) fn cwr_on(&mut self, cfg: &TcpConfig, retransmit: bool) -> bool {
        // The shared configuration first: without ECN the flag is never set
        // (`note_window_reduction`), and this cold line stays untouched.
        (!retransmit || cfg.cwr_on_retransmit) && cfg.ecn && std::mem::take(&mut self.cwr_pending)
    }

    /// The window was just reduced (ECN, loss, timeout, Source Quench) with SND.MAX at
    /// `snd_max`; `ecn` (the connection is ECN-capable) asks for CWR on the next new segment.
    pub(super) fn note_window_reduction(&mut self, snd_max: u64, ecn: bool) {
        self.reduced_at = Some(snd_max);
        self.cwr_pending = ecn;
    }

    /// An acceptable ACK carried ECN-Echo, `ack` being its cumulative acknowledgement: whether
    /// the window is to be cut for it (counted as a reduction). Only an ECN-capable connection
    /// (`ecn`) in the Open state (`open`) answers, and only an echo beyond the last reduction.
    pub(super) fn on_echo(&mut self, ack: u64, ecn: bool, open: bool) -> bool {
        if !ecn || !open || self.reduced_at.is_some_and(|r| ack <= r) {
            return false;
        }
        self.reductions += 1;
        true
    }

    /// RFC 3168 §6.1.2: whether an ACK carrying ECN-Echo may not grow the window, as each
    /// profile reads it (`TcpConfig::ecn_echo_growth`).
    pub(super) fn echo_holds_growth(cfg: &TcpConfig, st: &CcState) -> bool {
        cfg.ecn
            && match cfg.ecn_echo_growth {
                EchoGrowth::Grows => false,
                EchoGrowth::BelowSsthresh => !st.in_slow_start(),
                EchoGrowth::Held => true,
            }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::AppSource;
    use crate::net::packet::{FlowId, NodeId, Packet};
    use crate::tcp::config::TcpConfig;
    use crate::tcp::receiver::TcpReceiver;
    use crate::tcp::sender::TcpSender;
    use crate::tcp::testutil::{ack_packet, ms, reno_cc};
    use crate::tcp::Phase;
    use crate::time::{SimDuration, SimTime};
    use crate::transport::{Addr, Transport};
    use crate::wire::Header;

    fn ecn_sender() -> TcpSender {
        let cfg = TcpConfig { ecn: true, ..TcpConfig::default() };
        let addr = Addr { flow: FlowId(0), local: NodeId(0), remote: NodeId(1) };
        TcpSender::new(addr, cfg, reno_cc(), AppSource::Bulk { mss: 1460 }, SimTime::ZERO)
    }

    fn ack(n: u64, ece: bool) -> Packet {
        ack_packet(n, &[], ece)
    }

    /// (seq, retransmit, ect, cwr) of each segment sent at `now`.
    fn drain(s: &mut TcpSender, now: SimTime) -> Vec<(u64, bool, bool, bool)> {
        std::iter::from_fn(|| s.poll_transmit(now))
            .map(|p| match p.header {
                Header::TcpData { seq, retransmit, ect, cwr, .. } => (seq, retransmit, ect, cwr),
                h => panic!("{h:?}"),
            })
            .collect()
    }

    #[test]
    fn an_ecn_sender_marks_new_data_ect() {
        let mut s = ecn_sender();
        let sent = drain(&mut s, SimTime::ZERO);
        assert_eq!(sent.len(), 10);
        assert!(sent.iter().all(|&(_, rtx, ect, cwr)| !rtx && ect && !cwr));
    }

    #[test]
    fn echoes_in_one_window_reduce_once_without_retransmitting_and_cwr_goes_on_the_next_new_segment(
    ) {
        let mut s = ecn_sender();
        drain(&mut s, SimTime::ZERO);
        // Every ACK of the first window echoes congestion: one reduction, from the FlightSize of
        // 9 that the first ACK leaves.
        s.handle_packet(ms(100), &ack(1, true));
        assert_eq!((s.phase(), s.cc_state().ssthresh, s.cc_state().cwnd), (Phase::Cwr, 4.5, 4.5));
        let after_first = drain(&mut s, ms(100));
        // pipe 9 ≥ cwnd 4: nothing new may leave yet, and nothing is retransmitted.
        assert_eq!(after_first, vec![]);
        for k in 2..=10 {
            s.handle_packet(ms(100 + k), &ack(k, true));
            let sent = drain(&mut s, ms(100 + k));
            assert!(sent.iter().all(|&(_, rtx, ect, _)| !rtx && ect), "{sent:?}");
            if k == 7 {
                // pipe 3 < cwnd 4: the first new segment after the reduction carries CWR.
                assert_eq!(sent, vec![(10, false, true, true)]);
            }
        }
        assert_eq!(
            (s.cc_state().ssthresh, s.cc_state().cwnd),
            (4.5, 4.5),
            "no growth in Cwr, no second cut"
        );
        assert_eq!(s.probe().ecn_reductions, 1);
        assert_eq!(s.phase(), Phase::Open, "everything sent before the reduction is acknowledged");
        // An echo on an ACK of old data (10 is the first segment after the reduction) is the same
        // signal, repeated until the receiver saw CWR.
        s.handle_packet(ms(200), &ack(10, true));
        assert_eq!(s.probe().ecn_reductions, 1);
        // An echo acknowledging data sent after the reduction is new congestion.
        s.handle_packet(ms(201), &ack(11, true));
        assert_eq!((s.probe().ecn_reductions, s.phase()), (2, Phase::Cwr));
        assert_eq!(s.probe().timeouts + s.probe().fast_recoveries, 0);
    }

    #[test]
    fn echoes_are_ignored_when_ecn_is_off_and_during_loss_recovery() {
        let mut plain = TcpSender::new(
            Addr { flow: FlowId(0), local: NodeId(0), remote: NodeId(1) },
            TcpConfig::default(),
            reno_cc(),
            AppSource::Bulk { mss: 1460 },
            SimTime::ZERO,
        );
        assert!(drain(&mut plain, SimTime::ZERO).iter().all(|&(_, _, ect, _)| !ect));
        plain.handle_packet(ms(100), &ack(1, true));
        assert_eq!((plain.phase(), plain.cc_state().ssthresh), (Phase::Open, f64::INFINITY));

        let mut s = ecn_sender();
        drain(&mut s, SimTime::ZERO);
        let rto = s.poll_timeout().unwrap();
        s.handle_timeout(rto);
        assert_eq!(s.phase(), Phase::Loss);
        let sent = drain(&mut s, rto);
        assert_eq!(
            sent,
            vec![(0, true, false, false)],
            "retransmissions are not ECT (RFC 3168 §6.1.5)"
        );
        s.handle_packet(rto + SimDuration::from_millis(1), &ack(1, true));
        assert_eq!(s.probe().ecn_reductions, 0);
        // The first new segment after the timeout's reduction carries CWR.
        let mut now = rto + SimDuration::from_millis(1);
        let mut first_new = None;
        for k in 2..=10 {
            now += SimDuration::from_millis(1);
            s.handle_packet(now, &ack(k, false));
            first_new = first_new.or(drain(&mut s, now).into_iter().find(|&(_, rtx, _, _)| !rtx));
        }
        assert_eq!(first_new, Some((10, false, true, true)));
    }

    fn data(seq: u64, ce: bool, cwr: bool) -> Packet {
        Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1500,
            sent_at: SimTime::ZERO,
            ce,
            header: Header::TcpData { seq, len: 1460, retransmit: false, ect: true, cwr, ts: None },
        }
    }

    fn echo_of(r: &mut TcpReceiver) -> bool {
        match r.poll_transmit(SimTime::ZERO).expect("an ACK").header {
            Header::TcpAck(a) => a.ece,
            h => panic!("{h:?}"),
        }
    }

    #[test]
    fn the_receiver_echoes_ce_on_every_ack_until_it_sees_cwr() {
        let cfg = TcpConfig { ecn: true, ..TcpConfig::default() };
        let mut r =
            TcpReceiver::new(Addr { flow: FlowId(0), local: NodeId(1), remote: NodeId(0) }, &cfg);
        r.handle_packet(ms(1), &data(0, false, false));
        assert!(!echo_of(&mut r));
        r.handle_packet(ms(2), &data(1, true, false));
        assert!(echo_of(&mut r));
        for seq in 2..5 {
            r.handle_packet(ms(1 + seq), &data(seq, false, false));
            assert!(echo_of(&mut r), "segment {seq}: still echoing");
        }
        r.handle_packet(ms(6), &data(5, false, true));
        assert!(!echo_of(&mut r), "CWR stops the echo");
        // CE on the CWR segment itself starts a new echo.
        r.handle_packet(ms(7), &data(6, true, true));
        assert!(echo_of(&mut r));
        // A receiver without ECN never echoes.
        let mut plain = TcpReceiver::new(
            Addr { flow: FlowId(0), local: NodeId(1), remote: NodeId(0) },
            &TcpConfig::default(),
        );
        plain.handle_packet(ms(1), &data(0, true, false));
        assert!(!echo_of(&mut plain));
    }
}
