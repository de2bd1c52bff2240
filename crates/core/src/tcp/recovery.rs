//! The loss-recovery state machine: when to enter and leave fast recovery, what the window is
//! meanwhile, and what a retransmission timeout does. One transition function per change; each
//! notifies the congestion controller and sets the state together. [`LossRecovery`] owns the
//! state; a step works on the scoreboard, the window and the algorithm it is handed
//! ([`Connection`]) and returns what the sender has to follow up ([`AckStep`]).
//!
//! ```text
//! Open     → Recovery   dupthresh duplicate ACKs, or (sack) IsLost(SND.UNA)   reno, newreno, sack
//! Open     → Loss       the same, for tahoe (its fast retransmit is a go-back-N restart)
//! Recovery → Open       SND.UNA ≥ high_water (reno: any ACK that advances SND.UNA)
//! Loss     → Open       SND.UNA ≥ high_water
//! any      → Loss       retransmission timeout
//! Open     → Cwr        ECN-Echo (ecn.rs, RFC 3168)      Cwr → Open at SND.UNA ≥ high_water
//! Open/Cwr → SourceQuench   ICMP Source Quench (sqm.rs, seed 004)   → Open when SND.UNA >
//!                       icmp_recover
//! Cwr, SourceQuench → Recovery   loss detected as from Open, without cutting ssthresh again
//!                       (sourcequench: only for a hole no quench reported)
//! ```
//!
//! `high_water` is SND.MAX when the episode began (RFC 6582 `recover` and RFC 6675
//! `RecoveryPoint` are the highest segment sent, one less). On entry the CC sets ssthresh
//! (`on_congestion`, FlightSize = SND.MAX − SND.UNA); then, by variant:
//!
//! | variant  | on entry                          | dupACK in recovery | ACK advancing SND.UNA                     |
//! |----------|-----------------------------------|--------------------|-------------------------------------------|
//! | tahoe    | cwnd = 1, all outstanding lost (go-back-N), Loss state | —  | slow start; Open at high_water     |
//! | reno     | cwnd = ssthresh + dupthresh, retransmit SND.UNA | cwnd += 1 | cwnd = ssthresh, Open (RFC 5681 §3.2) |
//! | newreno  | as reno                           | cwnd += 1          | partial: retransmit SND.UNA, cwnd −= acked − 1; full: cwnd = min(ssthresh, max(FlightSize, 1) + 1), Open (RFC 6582 §3.2) |
//! | sack     | cwnd = ssthresh, retransmit SND.UNA | — (pipe shrinks) | full: cwnd = ssthresh, Open (RFC 6675 §5) |
//!
//! Retransmission timeout (RFC 6298 §5.4–5.6, RFC 5681 §3.1 eq. 4, RFC 6675 §5.1): the CC sets
//! ssthresh — unless the timeout belongs to a congestion event already answered: during fast
//! recovery (as Linux `tcp_enter_loss`), or in the Loss state before SND.UNA moved (RFC 5681
//! §3.1: the segment was already retransmitted) — then cwnd = 1, the RTO backs
//! off, every unSACKed outstanding segment is deemed lost and resent in order as slow start
//! opens the window — go-back-N without SACK, Linux `tcp_enter_loss` with it (SACK information is
//! kept). The Loss state lasts until everything outstanding at the timeout is acknowledged; no
//! fast retransmit meanwhile (RFC 6675 §5.1; RFC 6582 §3.2 step 1 for what follows).
//!
//! Fast-recovery entry is "careful" (RFC 6582 §3.2 step 1, §4.1) for every variant but reno: the
//! duplicate ACKs must acknowledge beyond `recover`, i.e. SND.UNA > high_water of the last
//! episode, so duplicates of go-back-N resends cannot trigger a second reduction. Classic reno
//! has no `recover` (RFC 5681): several losses in one window typically cost it a second halving
//! or a timeout.
//!
//! NewReno is the "impatient" variant (RFC 6582 §4.2): the RTO timer is reset on the first
//! partial ACK only. Partial-ACK deflation is floored at one segment. `on_recovery_exit` is called
//! when fast recovery ends (cwnd set from ssthresh), not when the Loss state ends (cwnd has been
//! slow-starting).

use super::config::{Recovery, TcpConfig};
use super::ecn::Ecn;
use super::prr::Prr;
use super::scoreboard::Scoreboard;
use super::sqm::Sqm;
use crate::cc::{AnyCc, CcState, CongestionEvent, CongestionKind};
use crate::time::SimTime;
use crate::wire::QuenchCode;

/// Loss-recovery state (Linux `tcp_ca_state` without Disorder and CWR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaState {
    /// No loss being repaired; duplicate ACKs are counted.
    Open,
    /// Fast recovery (reno, newreno, sack).
    Recovery {
        /// SND.MAX at entry: the episode ends when SND.UNA reaches it.
        high_water: u64,
        /// A partial ACK has arrived (newreno: only the first resets the RTO timer).
        partial_acked: bool,
    },
    /// After a timeout (or tahoe's fast retransmit): slow start, resending what is deemed lost.
    Loss {
        /// SND.MAX at entry: the state ends when SND.UNA reaches it.
        high_water: u64,
        /// SND.UNA at entry: a timeout before it advances belongs to the same congestion event
        /// and keeps ssthresh (RFC 5681 §3.1).
        entry_una: u64,
    },
    /// The window was cut for an ECN-Echo (RFC 3168; Linux CA_CWR): no growth, no retransmission.
    Cwr {
        /// SND.MAX at the cut: the state ends when SND.UNA reaches it.
        high_water: u64,
    },
    /// SQM-Response to an ICMP Source Quench (seed 004 §3.3): cwnd += 1/cwnd per ACK.
    SourceQuench {
        /// The highest segment reported by a quench in this episode (resent for code 0); the
        /// episode ends when it is acknowledged.
        icmp_recover: u64,
    },
}

/// Loss-recovery phase, for probes and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Open,
    /// Fast recovery.
    Recovery,
    /// Recovering from a timeout (or tahoe's fast retransmit) in slow start.
    Loss,
    /// One window after an ECN-Echo reduction.
    Cwr,
    /// SQM-Response to an ICMP Source Quench.
    SourceQuench,
}

impl CaState {
    fn phase(self) -> Phase {
        match self {
            CaState::Open => Phase::Open,
            CaState::Recovery { .. } => Phase::Recovery,
            CaState::Loss { .. } => Phase::Loss,
            CaState::Cwr { .. } => Phase::Cwr,
            CaState::SourceQuench { .. } => Phase::SourceQuench,
        }
    }

    /// The congestion controller may grow the window: not in fast recovery or SQM-Response,
    /// where the recovery scheme owns cwnd, nor in Cwr (Linux `tcp_in_cwnd_reduction`).
    fn allows_growth(self) -> bool {
        matches!(self, CaState::Open | CaState::Loss { .. })
    }

    /// Duplicate ACKs may start fast recovery in this state.
    fn detects_loss(self) -> bool {
        matches!(self, CaState::Open | CaState::Cwr { .. } | CaState::SourceQuench { .. })
    }
}

/// What a step of the state machine reads and changes besides its own state.
pub(super) struct Connection<'a> {
    pub(super) cfg: &'a TcpConfig,
    /// RACK marks losses by time (`rack.rs`): no DupThresh, SND.UNA is not marked on entry.
    pub(super) rack: bool,
    pub(super) sb: &'a mut Scoreboard,
    pub(super) st: &'a mut CcState,
    /// Told of each congestion event (it sets ssthresh) and of the end of fast recovery.
    pub(super) cc: &'a mut AnyCc,
    /// Notes each window reduction (`ecn.rs`: its echoes and CWR depend on it).
    pub(super) ecn: &'a mut Ecn,
}

impl Connection<'_> {
    /// Tells the algorithm of a congestion event: it sets ssthresh from FlightSize.
    fn congestion_event(&mut self, now: SimTime, kind: CongestionKind) {
        let ev = CongestionEvent { now, kind, flight_size: self.sb.packets_out() };
        self.cc.inner_mut().on_congestion(self.st, &ev);
    }

    /// The window was just reduced: ECN notes SND.MAX (and CWR is due).
    fn note_window_reduction(&mut self) {
        self.ecn.note_window_reduction(self.sb.high_tx(), self.cfg.ecn);
    }

    /// An ECN-Echo or a Source Quench cuts the window: ssthresh from the algorithm, cwnd down
    /// to it (at least one segment, no retransmission).
    fn reduce_window(&mut self, now: SimTime, kind: CongestionKind) {
        self.congestion_event(now, kind);
        self.st.cwnd = self.st.cwnd.min(self.st.ssthresh).max(1.0);
        self.note_window_reduction();
    }
}

/// What an ACK did to the state machine.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckStep {
    /// The RTO timer may be restarted (NewReno: on its first partial ACK only).
    pub(super) restart_rto: bool,
    /// Fast recovery (tahoe: its go-back-N) began: no tail probe stays scheduled.
    pub(super) entered_recovery: bool,
}

/// The loss-recovery state machine of one sender. Laid out in the order written (`repr(C)`):
/// what an ACK or a transmission reads, up to `prr`, ends the sender's hot part (see
/// `TcpSender`); the PRR line is read only in fast recovery, the counters only by reports.
#[derive(Clone, Debug)]
#[repr(C)]
pub(super) struct LossRecovery {
    state: CaState,
    /// SND.MAX at the last fast retransmit or timeout (RFC 6582 `recover` + 1, RFC 6675
    /// `RecoveryPoint` + 1); `None` before the first.
    recover: Option<u64>,
    /// Duplicate ACKs since SND.UNA last advanced.
    dupacks: u32,
    /// Send the lowest lost segment at the next opportunity even if the window is full (the fast
    /// retransmit of RFC 5681 §3.2 step 2, RFC 6582 partial ACKs, RFC 6675 §5 step 4.3).
    force_retransmit: bool,
    /// Proportional Rate Reduction in progress (`prr.rs`).
    prr: Option<Prr>,
    fast_recoveries: u64,
    /// Retransmission timeouts.
    timeouts: u64,
}

impl LossRecovery {
    /// Bytes from the start that an ACK reads.
    pub(super) const HOT_BYTES: usize = std::mem::offset_of!(LossRecovery, prr);

    pub(super) fn new() -> Self {
        LossRecovery {
            state: CaState::Open,
            recover: None,
            dupacks: 0,
            force_retransmit: false,
            prr: None,
            fast_recoveries: 0,
            timeouts: 0,
        }
    }

    pub(super) fn phase(&self) -> Phase {
        self.state.phase()
    }
    pub(super) fn fast_recoveries(&self) -> u64 {
        self.fast_recoveries
    }
    pub(super) fn timeouts(&self) -> u64 {
        self.timeouts
    }
    pub(super) fn is_open(&self) -> bool {
        self.state == CaState::Open
    }
    /// The congestion controller may grow the window (see `CaState::allows_growth`).
    pub(super) fn allows_growth(&self) -> bool {
        self.state.allows_growth()
    }
    /// A loss is being repaired: fast recovery or the Loss state.
    pub(super) fn repairing(&self) -> bool {
        matches!(self.state, CaState::Recovery { .. } | CaState::Loss { .. })
    }
    /// RFC 8985 §7.2: a loss probe may be scheduled in the Open state (Linux
    /// tcp_schedule_loss_probe also allows CWR).
    pub(super) fn allows_tail_probe(&self) -> bool {
        matches!(self.state, CaState::Open | CaState::Cwr { .. })
    }
    /// Whether retransmitting SND.UNA re-arms the RTO timer. ns-2 re-arms at the fast
    /// retransmit (`reset_rtx_timer`) but, after a NewReno partial ACK, leaves the timer to the
    /// ACK processing (see `TcpConfig::head_retransmit_rearms_rto`).
    pub(super) fn head_retransmit_rearms_rto(&self, cfg: &TcpConfig) -> bool {
        cfg.head_retransmit_rearms_rto
            || !matches!(self.state, CaState::Recovery { partial_acked: true, .. })
    }

    /// Whether the next transmission is the lowest lost segment whatever the window; clears
    /// the request.
    pub(super) fn take_forced_retransmit(&mut self) -> bool {
        std::mem::take(&mut self.force_retransmit)
    }

    /// Segments beyond the window that limited transmit lets out (RFC 3042; ns-2 `singledup_ 1`):
    /// one for each of the first dupthresh − 1 duplicate ACKs, none after a timeout (ns-2
    /// `timeout_`); `None` in fast recovery, where the pipe alone decides.
    pub(super) fn limited_transmit(&self, dupthresh: u32) -> Option<u64> {
        match self.state {
            CaState::Recovery { .. } => None,
            CaState::Loss { .. } => Some(0),
            CaState::Open | CaState::Cwr { .. } | CaState::SourceQuench { .. } => {
                Some(u64::from(self.dupacks.min(dupthresh.saturating_sub(1))))
            }
        }
    }

    /// A segment left.
    pub(super) fn on_sent(&mut self) {
        // The state first: outside recovery the PRR line stays untouched.
        if let (CaState::Recovery { .. }, Some(prr)) = (self.state, &mut self.prr) {
            prr.on_sent();
        }
    }

    /// Runs the state machine for one acceptable ACK, after the scoreboard took it (SND.UNA
    /// moved from `prev_una`; `new_sack_info`: it SACKed something new).
    pub(super) fn on_ack(
        &mut self,
        now: SimTime,
        prev_una: u64,
        new_sack_info: bool,
        mut cx: Connection<'_>,
    ) -> AckStep {
        let ack = cx.sb.una();
        let mut restart_rto = true;
        if ack > prev_una {
            self.dupacks = 0;
            match self.state {
                CaState::Open => {}
                CaState::Recovery { high_water, partial_acked } => {
                    restart_rto = self.on_ack_in_recovery(
                        now,
                        ack - prev_una,
                        high_water,
                        partial_acked,
                        &mut cx,
                    );
                }
                CaState::Loss { high_water, .. } => {
                    if ack >= high_water {
                        self.leave_loss();
                    }
                }
                // ECN's reduced window (`ecn.rs`) is over once everything sent before the
                // reduction is acknowledged.
                CaState::Cwr { high_water } => {
                    if ack >= high_water {
                        self.state = CaState::Open;
                    }
                }
                CaState::SourceQuench { icmp_recover } => {
                    if Sqm::on_ack_in_episode(cx.st, ack, icmp_recover) {
                        self.state = CaState::Open;
                    }
                }
            }
        } else if self.is_dupack(new_sack_info, &cx) {
            self.dupacks += 1;
            let inflates = matches!(cx.cfg.recovery, Recovery::Reno | Recovery::NewReno);
            if inflates && matches!(self.state, CaState::Recovery { .. }) {
                // RFC 5681 §3.2 step 4: each further duplicate ACK means a segment left.
                cx.st.cwnd += 1.0;
            }
        }
        let entered_recovery = self.maybe_enter_recovery(now, &mut cx);
        AckStep { restart_rto, entered_recovery }
    }

    /// PRR (`prr.rs`) sets the window during fast recovery from what an ACK delivered
    /// (`acked` segments; `una_advanced`, `newly_lost`: it moved SND.UNA, it marked losses).
    pub(super) fn prr_on_ack(
        &mut self,
        acked: u64,
        una_advanced: bool,
        newly_lost: bool,
        sb: &Scoreboard,
        st: &mut CcState,
    ) {
        if let (CaState::Recovery { .. }, Some(prr)) = (self.state, &mut self.prr) {
            if let Some(cwnd) =
                prr.cwnd_after_ack(acked, sb.pipe(), st.ssthresh, una_advanced, newly_lost)
            {
                st.cwnd = cwnd;
            }
        }
    }

    /// RFC 8985 §6.3: the reorder timer marked losses; fast recovery starts with one PRR step as
    /// if one segment had been delivered (Linux tcp_rack_reo_timeout). True if it began.
    pub(super) fn on_reorder_losses(&mut self, now: SimTime, mut cx: Connection<'_>) -> bool {
        let entered = self.maybe_enter_recovery(now, &mut cx);
        if entered && matches!(self.state, CaState::Recovery { .. }) {
            if let Some(cwnd) = self
                .prr
                .as_mut()
                .and_then(|p| p.cwnd_after_ack(1, cx.sb.pipe(), cx.st.ssthresh, false, true))
            {
                cx.st.cwnd = cwnd;
            }
        }
        cx.st.in_flight = cx.sb.pipe();
        entered
    }

    /// An acceptable ACK carried ECN-Echo (`ack`: its cumulative acknowledgement). If `ecn.rs`
    /// answers it, the window is cut: Open → Cwr until SND.UNA reaches SND.MAX.
    pub(super) fn on_ecn_echo(&mut self, now: SimTime, ack: u64, mut cx: Connection<'_>) {
        if cx.ecn.on_echo(ack, cx.cfg.ecn, self.is_open()) {
            cx.reduce_window(now, CongestionKind::Ecn);
            self.state = CaState::Cwr { high_water: cx.sb.high_tx() };
        }
    }

    /// RFC 8985 §7.4: a loss probe repaired a loss (`rack.rs`); in the Open state the window
    /// is reduced as for a loss.
    pub(super) fn on_tail_loss_repaired(&mut self, now: SimTime, mut cx: Connection<'_>) {
        if self.is_open() {
            cx.congestion_event(now, CongestionKind::Loss);
            cx.st.cwnd = cx.st.cwnd.min(cx.st.ssthresh);
            cx.note_window_reduction();
        }
    }

    /// SQM-Response (`sqm.rs`) to a Source Quench about data segment `seq`, the copy sent at
    /// `copy_sent_at`; `cut`: SQM cuts the window for it. Code 0 has the copy resent; the episode
    /// starts, or extends to `seq`.
    pub(super) fn on_source_quench(
        &mut self,
        now: SimTime,
        cut: bool,
        code: QuenchCode,
        seq: u64,
        copy_sent_at: SimTime,
        mut cx: Connection<'_>,
    ) {
        if cut {
            cx.reduce_window(now, CongestionKind::SourceQuench);
        }
        let resent = code == QuenchCode::Dropped && cx.sb.quench(seq, copy_sent_at);
        if resent {
            self.force_retransmit = true;
        }
        self.state = match self.state {
            CaState::Open | CaState::Cwr { .. } if cut || resent => {
                CaState::SourceQuench { icmp_recover: seq }
            }
            CaState::SourceQuench { icmp_recover } if resent => {
                CaState::SourceQuench { icmp_recover: icmp_recover.max(seq) }
            }
            other => other,
        };
        cx.st.in_flight = cx.sb.pipe();
    }

    /// Enters fast recovery if a loss is detected and this state allows it; true if it did.
    fn maybe_enter_recovery(&mut self, now: SimTime, cx: &mut Connection<'_>) -> bool {
        let unreported =
            !matches!(self.state, CaState::SourceQuench { .. }) || Sqm::hole_unreported(cx.sb);
        if self.state.detects_loss()
            && self.loss_detected(cx)
            && self.may_enter_recovery(cx.cfg, cx.sb)
            && unreported
        {
            self.enter_recovery(now, cx);
            return true;
        }
        false
    }

    /// A duplicate ACK (SND.UNA unchanged): RFC 5681 §2 needs outstanding data; RFC 6675 §2 also
    /// needs new SACK information when SACK is in use.
    fn is_dupack(&self, new_sack_info: bool, cx: &Connection<'_>) -> bool {
        cx.sb.packets_out() > 0 && (cx.cfg.recovery != Recovery::Sack || new_sack_info)
    }

    fn loss_detected(&self, cx: &Connection<'_>) -> bool {
        if cx.rack {
            // RACK marks losses by time; any mark is proof (Linux tcp_time_to_recover, trick 1).
            return cx.sb.lost_out() > 0;
        }
        // `lost_out` first: with nothing flagged lost, SND.UNA is not (and its entry is not read).
        self.dupacks >= cx.cfg.dupthresh
            || (cx.cfg.recovery == Recovery::Sack
                && cx.sb.lost_out() > 0
                && cx.sb.is_lost(cx.sb.una()))
    }

    fn may_enter_recovery(&self, cfg: &TcpConfig, sb: &Scoreboard) -> bool {
        match cfg.recovery {
            Recovery::Reno => true,
            Recovery::Tahoe | Recovery::NewReno | Recovery::Sack => {
                self.recover.is_none_or(|high_water| sb.una() > high_water)
            }
        }
    }

    /// Fast retransmit: Open → Recovery (tahoe: → Loss). From Cwr or SourceQuench the window
    /// was already cut in this round trip and ssthresh stays (RFC 3168 §6.1.2).
    fn enter_recovery(&mut self, now: SimTime, cx: &mut Connection<'_>) {
        let prior_cwnd = cx.st.cwnd;
        if self.state == CaState::Open {
            cx.congestion_event(now, CongestionKind::Loss);
        }
        cx.note_window_reduction();
        self.fast_recoveries += 1;
        let high_water = cx.sb.high_tx();
        self.recover = Some(high_water);
        let una = cx.sb.una();
        match cx.cfg.recovery {
            Recovery::Tahoe => self.enter_loss(high_water, cx.sb, cx.st),
            Recovery::Reno | Recovery::NewReno => {
                cx.st.cwnd = cx.st.ssthresh + cx.cfg.dupthresh as f64;
                cx.sb.mark_lost(una);
                self.force_retransmit = true;
                self.state = CaState::Recovery { high_water, partial_acked: false };
            }
            Recovery::Sack => {
                if cx.cfg.prr {
                    // The window comes down with the ACKs (`prr.rs`), starting with this one.
                    self.prr = Some(Prr::start(prior_cwnd));
                } else {
                    cx.st.cwnd = cx.st.ssthresh;
                }
                if !cx.rack {
                    cx.sb.mark_lost(una);
                }
                self.force_retransmit = true;
                self.state = CaState::Recovery { high_water, partial_acked: false };
            }
        }
        cx.st.in_flight = cx.sb.pipe();
    }

    /// An ACK advancing SND.UNA by `acked` segments during fast recovery. Returns false if the
    /// RTO timer must not be restarted.
    fn on_ack_in_recovery(
        &mut self,
        now: SimTime,
        acked: u64,
        high_water: u64,
        partial_acked: bool,
        cx: &mut Connection<'_>,
    ) -> bool {
        let full = cx.sb.una() >= high_water;
        match (cx.cfg.recovery, full) {
            (Recovery::NewReno, false) => {
                self.on_partial_ack(acked, high_water, cx.sb, cx.st);
                // Impatient variant (RFC 6582 §4.2): only the first partial ACK resets the timer.
                return !partial_acked;
            }
            (Recovery::Sack, false) => {}
            (Recovery::NewReno, true) => {
                // RFC 6582 §3.2 step 3, option (1).
                let flight = cx.sb.packets_out().max(1) as f64;
                let cwnd = cx.st.ssthresh.min(flight + 1.0);
                self.exit_recovery(now, cwnd, cx);
            }
            // Reno leaves on the first ACK advancing SND.UNA, partial or not; tahoe never gets
            // here (it recovers in the Loss state).
            (Recovery::Reno | Recovery::Tahoe, _) | (Recovery::Sack, true) => {
                let cwnd = cx.st.ssthresh;
                self.exit_recovery(now, cwnd, cx);
            }
        }
        true
    }

    /// NewReno partial ACK (RFC 6582 §3.2 step 5): retransmit the first unacknowledged segment,
    /// deflate cwnd by the amount acknowledged and add back one segment.
    fn on_partial_ack(
        &mut self,
        acked: u64,
        high_water: u64,
        sb: &mut Scoreboard,
        st: &mut CcState,
    ) {
        st.cwnd = (st.cwnd - acked as f64 + 1.0).max(1.0);
        sb.mark_lost(sb.una());
        self.force_retransmit = true;
        self.state = CaState::Recovery { high_water, partial_acked: true };
    }

    /// Recovery → Open with the given window.
    fn exit_recovery(&mut self, now: SimTime, cwnd: f64, cx: &mut Connection<'_>) {
        self.prr = None;
        cx.st.cwnd = cwnd;
        self.state = CaState::Open;
        cx.cc.on_recovery_exit(cx.st, now);
    }

    /// Loss → Open: everything outstanding at the timeout is acknowledged; slow start simply
    /// continues (no CC hook: cwnd was not pinned to ssthresh).
    fn leave_loss(&mut self) {
        self.state = CaState::Open;
    }

    /// Any state → Loss: cwnd = 1 and every unSACKed outstanding segment is resent.
    fn enter_loss(&mut self, high_water: u64, sb: &mut Scoreboard, st: &mut CcState) {
        st.cwnd = 1.0;
        sb.mark_all_lost();
        self.force_retransmit = false;
        self.dupacks = 0;
        self.state = CaState::Loss { high_water, entry_una: sb.una() };
    }

    /// The retransmission timer expired (RFC 6298 §5.4–5.6); the sender backs the RTO off,
    /// drops RACK's state and re-arms the timer.
    pub(super) fn on_timeout(&mut self, now: SimTime, mut cx: Connection<'_>) {
        let same_event = match self.state {
            CaState::Open => false,
            // Fast recovery already reduced ssthresh for this congestion event (Linux
            // `tcp_enter_loss` keeps it; recomputing from a FlightSize inflated by the data sent
            // during recovery would raise it).
            CaState::Recovery { .. } => true,
            // RFC 5681 §3.1: SND.UNA was already retransmitted in this episode: hold ssthresh.
            CaState::Loss { entry_una, .. } => entry_una == cx.sb.una(),
            // ECN or SQM cut ssthresh within this round trip (Linux `tcp_enter_loss` in CA_CWR).
            CaState::Cwr { .. } | CaState::SourceQuench { .. } => true,
        };
        if !same_event {
            cx.congestion_event(now, CongestionKind::Timeout);
        }
        self.timeouts += 1;
        self.prr = None;
        let high_water = cx.sb.high_tx();
        self.recover = Some(high_water);
        self.enter_loss(high_water, cx.sb, cx.st);
        cx.note_window_reduction();
        cx.st.in_flight = cx.sb.pipe();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::AppSource;
    use crate::net::packet::{FlowId, NodeId, Packet};
    use crate::tcp::config::TcpConfig;
    use crate::tcp::testutil::{ack_packet, drain, file, ms, reno_cc, Pair, Snapshot};
    use crate::tcp::TcpSender;
    use crate::time::{Rate, SimDuration};
    use crate::transport::{Addr, Transport};

    /// RTT 40 ms; IW 10 and slow start put segments 30..69 in the third flight (sent at 80 ms),
    /// and grow cwnd to 50 by the time their ACKs return at 120 ms.
    fn run(recovery: Recovery, drops: &[u64]) -> Pair {
        let cfg = TcpConfig { recovery, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, file(200), SimDuration::from_millis(20))
            .dropping_first_transmission_of(drops);
        p.run_to_completion(ms(60_000));
        p
    }

    /// The sender's state right after the first fast retransmit.
    fn at_entry(p: &Pair) -> Snapshot {
        *p.trace.iter().find(|s| s.phase != Phase::Open).expect("entered recovery")
    }

    /// The sender's state right after the first recovery episode ended.
    fn at_exit(p: &Pair) -> Snapshot {
        let entry = p.trace.iter().position(|s| s.phase != Phase::Open).unwrap();
        *p.trace[entry..].iter().find(|s| s.phase == Phase::Open).expect("left recovery")
    }

    #[test]
    fn one_drop_costs_each_fast_variant_one_fast_retransmit_and_half_the_window() {
        for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Sack] {
            let p = run(recovery, &[40]);
            let pr = p.sender.probe();
            assert_eq!((pr.fast_recoveries, pr.timeouts), (1, 0), "{recovery:?}");
            assert_eq!(p.retransmissions(), vec![40], "{recovery:?}");
            let entry = at_entry(&p);
            assert_eq!(
                (entry.at, entry.phase, entry.snd_una),
                (ms(120), Phase::Recovery, 40),
                "{recovery:?}"
            );
            // ssthresh = FlightSize / 2: 50 outstanding (52 with SACK, whose pipe let two new
            // segments out on the first two duplicate ACKs).
            let flight = entry.snd_max - entry.snd_una;
            assert_eq!(flight, if recovery == Recovery::Sack { 52 } else { 50 });
            assert_eq!(entry.ssthresh, flight as f64 / 2.0, "{recovery:?}");
            // The retransmission is acknowledged one RTT later and the window is ssthresh.
            let exit = at_exit(&p);
            assert_eq!(
                (exit.at, exit.cwnd, exit.ssthresh),
                (ms(160), entry.ssthresh, entry.ssthresh),
                "{recovery:?}"
            );
            assert_eq!(pr.completed_at, Some(ms(320)), "{recovery:?}");
        }
    }

    #[test]
    fn reno_inflates_the_window_by_one_per_further_duplicate_ack() {
        let p = run(Recovery::Reno, &[40]);
        let entry = p.trace.iter().position(|s| s.phase == Phase::Recovery).unwrap();
        // cwnd = ssthresh + 3 on the third duplicate ACK, then +1 for each of the other 26 of this
        // round trip (segments 41..69 each caused one).
        assert_eq!(p.trace[entry].cwnd, 25.0 + 3.0);
        assert_eq!(p.trace[entry + 26].cwnd, 25.0 + 3.0 + 26.0);
        assert_eq!(p.trace[entry + 26].at, ms(120));
    }

    #[test]
    fn tahoe_fast_retransmit_drops_cwnd_to_one_and_goes_back_n() {
        let p = run(Recovery::Tahoe, &[40, 43, 46]);
        let entry = at_entry(&p);
        assert_eq!(
            (entry.at, entry.phase, entry.cwnd, entry.ssthresh),
            (ms(120), Phase::Loss, 1.0, 25.0)
        );
        let pr = p.sender.probe();
        assert_eq!((pr.fast_recoveries, pr.timeouts), (1, 0));
        // Slow start from one segment resends everything from the hole up, including 44, 45 and
        // 47.. that the receiver already holds: 40 | 43 44 45 | 46 .. 52.
        assert_eq!(p.retransmissions(), vec![40, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52]);
        assert_eq!(pr.completed_at, Some(ms(400)));
    }

    #[test]
    fn three_drops_in_one_window_separate_the_variants() {
        let drops = [40, 43, 46];
        let newreno = run(Recovery::NewReno, &drops);
        let sack = run(Recovery::Sack, &drops);
        let reno = run(Recovery::Reno, &drops);
        let (nr, sk, rn) = (newreno.sender.probe(), sack.sender.probe(), reno.sender.probe());

        // NewReno: one episode, one retransmission per round trip, driven by partial ACKs.
        assert_eq!((nr.fast_recoveries, nr.timeouts), (1, 0));
        assert_eq!(newreno.retransmissions(), vec![40, 43, 46]);
        assert_eq!(at_exit(&newreno).at, ms(240));
        // SACK: one episode; the scoreboard finds all three holes in the first round trip.
        assert_eq!((sk.fast_recoveries, sk.timeouts), (1, 0));
        assert_eq!(sack.retransmissions(), vec![40, 43, 46]);
        assert_eq!(at_exit(&sack).at, ms(160));
        assert!(sk.completed_at <= nr.completed_at);
        assert_eq!((sk.completed_at, nr.completed_at), (Some(ms(320)), Some(ms(360))));
        // Reno: leaves recovery on the partial ACK for 43, halves again for 43, and has too few
        // duplicate ACKs left for 46: a timeout (the case RFC 6582 was written for).
        assert_eq!((rn.fast_recoveries, rn.timeouts), (2, 1));
        assert_eq!(rn.completed_at, Some(ms(640)));
        assert!(
            rn.completed_at.unwrap() > nr.completed_at.unwrap() + SimDuration::from_millis(200)
        );
    }

    #[test]
    fn ns2_timer_is_not_rearmed_by_retransmissions_after_the_first_partial_ack() {
        // Ten drops in the third flight: NewReno repairs one per 40 ms round trip, from the fast
        // retransmit at 120 ms to the partial ACK for 64 at 480 ms.
        let drops: Vec<u64> = (0..10).map(|k| 40 + 3 * k).collect();
        let linux = run(Recovery::NewReno, &drops);
        assert_eq!((linux.sender.probe().fast_recoveries, linux.sender.probe().timeouts), (1, 0));
        let cfg = TcpConfig {
            recovery: Recovery::NewReno,
            head_retransmit_rearms_rto: false,
            ..TcpConfig::default()
        };
        let mut ns2 = Pair::new(cfg, file(200), SimDuration::from_millis(20))
            .dropping_first_transmission_of(&drops);
        ns2.run_to_completion(ms(60_000));
        // The first partial ACK (160 ms) set the timer to 160 + (40 + max(4·RTTVAR, 200)) ms
        // = 400 ms (RTTVAR has decayed below 50 ms on this jitter-free path); the partial-ACK
        // retransmissions after it leave it alone, so it fires then, mid-recovery.
        assert_eq!(ns2.sender.probe().timeouts, 1);
        let rto = ns2.trace.iter().find(|s| s.phase == Phase::Loss).expect("timed out");
        assert_eq!(rto.at, ms(400));
        assert!(rto.snd_una < 67, "recovery was still under way: SND.UNA {}", rto.snd_una);
    }

    #[test]
    fn newreno_partial_ack_retransmits_and_deflates_by_the_amount_acked() {
        let p = run(Recovery::NewReno, &[40, 43, 46]);
        let i = p.trace.iter().position(|s| s.snd_una == 43).unwrap();
        let (before, after) = (p.trace[i - 1], p.trace[i]);
        assert_eq!((after.at, after.phase), (ms(160), Phase::Recovery));
        assert_eq!(after.cwnd, before.cwnd - 3.0 + 1.0);
        let j = p.trace.iter().position(|s| s.snd_una == 46).unwrap();
        assert_eq!((p.trace[j].at, p.trace[j].phase), (ms(200), Phase::Recovery));
        // The full ACK (everything up to recover) ends recovery at min(ssthresh, FlightSize + 1).
        let exit = at_exit(&p);
        assert_eq!(exit.cwnd, exit.ssthresh.min((exit.snd_max - exit.snd_una) as f64 + 1.0));
    }

    #[test]
    fn sack_repairs_a_hundred_holes_in_a_twenty_thousand_segment_window_in_one_episode() {
        // Slow start from 10 puts segments 10230..30709 in one 20480-segment flight; every 97th
        // from 20000 is lost. The scoreboard must find each hole once, without scanning the
        // window per ACK (this test would crawl otherwise) and without a timeout.
        let drops: Vec<u64> = (0..100).map(|k| 20_000 + 97 * k).collect();
        let cfg = TcpConfig { recovery: Recovery::Sack, ..TcpConfig::default() };
        let mut p = Pair::new(cfg, file(40_000), SimDuration::from_millis(50))
            .dropping_first_transmission_of(&drops);
        p.run_to_completion(ms(60_000));
        let pr = p.sender.probe();
        assert_eq!((pr.fast_recoveries, pr.timeouts), (1, 0));
        assert_eq!(p.retransmissions(), drops);
        let (entry, exit) = (at_entry(&p), at_exit(&p));
        assert_eq!(entry.ssthresh, (entry.snd_max - entry.snd_una) as f64 / 2.0);
        // Two round trips: the duplicate ACKs of the lossy flight leave pipe above ssthresh (the
        // flight had grown by two segments per ACK of its first half), so only the first hole is
        // resent at once; the other 99 go out as the next flight's duplicate ACKs drain pipe.
        assert_eq!(exit.at - entry.at, SimDuration::from_millis(200));
        let first = p.sent.iter().position(|t| t.retransmit).unwrap();
        assert_eq!(p.sent[first].at, entry.at);
        assert!(p
            .sent
            .iter()
            .filter(|t| t.retransmit)
            .skip(1)
            .all(|t| t.at == entry.at + SimDuration::from_millis(100)));
        assert_eq!(p.receiver.probe().delivered_bytes, 40_000 * 1460);
    }

    #[test]
    fn every_variant_keeps_a_drop_tail_bottleneck_with_a_bdp_of_buffer_busy() {
        // 10 Mbit/s (1.2 ms per 1500-byte packet), RTT 40 ms: BDP ≈ 33 packets, buffer 60. A
        // window-halving sender with a buffer of at least one BDP never drains the queue, so each
        // variant delivers nearly the 50 000 packets a minute carries (the rest is the first
        // slow-start overshoot).
        let capacity = 50_000.0;
        for recovery in Recovery::ALL {
            let cfg = TcpConfig { recovery, ..TcpConfig::default() };
            let mut p = Pair::new(cfg, AppSource::Bulk { mss: 1460 }, SimDuration::from_millis(20))
                .with_bottleneck(Rate::mbps(10))
                .with_queue_limit(60);
            p.run_until(ms(60_000));
            let delivered = p.receiver.probe().delivered_bytes as f64 / 1460.0;
            assert!(delivered > 0.98 * capacity, "{recovery:?}: {delivered} of {capacity}");
            if recovery == Recovery::Sack {
                assert_eq!(p.sender.probe().timeouts, 0);
            }
        }
    }

    fn addr() -> Addr {
        Addr { flow: FlowId(0), local: NodeId(0), remote: NodeId(1) }
    }

    fn sack_ack(ack: u64, blocks: &[(u64, u64)]) -> Packet {
        ack_packet(ack, blocks, false)
    }

    #[test]
    fn sack_detects_loss_from_one_ack_and_a_timeout_resends_only_unsacked_segments() {
        let mut s =
            TcpSender::new(addr(), TcpConfig::default(), reno_cc(), file(10), SimTime::ZERO);
        assert_eq!(drain(&mut s, SimTime::ZERO).len(), 10);
        // One ACK SACKs 2, 3 and 5..9: IsLost(0) holds without three duplicate ACKs (RFC 6675
        // §5 step 2); 1 and 4 are lost too.
        let t = ms(100);
        s.handle_packet(t, &sack_ack(0, &[(5, 10), (2, 4)]));
        assert_eq!(s.phase(), Phase::Recovery);
        assert_eq!(s.cc_state().ssthresh, 5.0);
        assert_eq!(s.pipe(), 0);
        // The forced retransmission, then NextSeg: cwnd = ssthresh = 5 allows the other two.
        assert_eq!(drain(&mut s, t), vec![(0, true), (1, true), (4, true)]);
        assert_eq!(s.pipe(), 3);
        // Nothing comes back: a timeout marks the unSACKed segments lost again, keeps the
        // SACKed ones, and slow start resends from SND.UNA.
        // Retransmitting SND.UNA re-armed the timer (Linux `tcp_xmit_retransmit_queue`): the
        // SACKed segments gave a 100 ms sample, so RTO = 100 + max(4·50, 200) ms from t = 100 ms.
        let rto = s.poll_timeout().unwrap();
        assert_eq!(rto, ms(400));
        s.handle_timeout(rto);
        assert_eq!((s.phase(), s.cc_state().cwnd, s.pipe()), (Phase::Loss, 1.0, 0));
        assert_eq!(drain(&mut s, rto), vec![(0, true)]);
        s.handle_packet(rto + SimDuration::from_millis(100), &sack_ack(1, &[(5, 10), (2, 4)]));
        assert_eq!(drain(&mut s, rto + SimDuration::from_millis(100)), vec![(1, true), (4, true)]);
        s.handle_packet(rto + SimDuration::from_millis(200), &sack_ack(10, &[]));
        assert_eq!(s.probe().completed_at, Some(rto + SimDuration::from_millis(200)));
    }

    #[test]
    fn a_timeout_during_fast_recovery_keeps_the_reduced_ssthresh() {
        // Fast recovery halves for the 10 outstanding (ssthresh 5), then sends new data as SACKs
        // drain pipe. A timeout of the same episode must not recompute ssthresh from the larger
        // FlightSize it finds then (Linux tcp_enter_loss).
        let mut s = TcpSender::new(
            addr(),
            TcpConfig::default(),
            reno_cc(),
            AppSource::Bulk { mss: 1460 },
            SimTime::ZERO,
        );
        assert_eq!(drain(&mut s, SimTime::ZERO).len(), 10);
        let t = ms(100);
        s.handle_packet(t, &sack_ack(0, &[(1, 10)]));
        assert_eq!((s.phase(), s.cc_state().ssthresh), (Phase::Recovery, 5.0));
        let sent = drain(&mut s, t);
        assert_eq!(sent[0], (0, true));
        assert_eq!(s.snd_max(), 14);
        let rto = s.poll_timeout().unwrap();
        s.handle_timeout(rto);
        assert_eq!((s.phase(), s.cc_state().cwnd, s.cc_state().ssthresh), (Phase::Loss, 1.0, 5.0));
    }

    #[test]
    fn careful_entry_ignores_duplicate_acks_below_recover() {
        // After a timeout with go-back-N, duplicates of resent segments produce duplicate ACKs
        // for SND.UNA == recover; NewReno must not halve again for them (RFC 6582 §3.2 step 1).
        let cfg = TcpConfig { recovery: Recovery::NewReno, ..TcpConfig::default() };
        let mut s =
            TcpSender::new(addr(), cfg, reno_cc(), AppSource::Bulk { mss: 1460 }, SimTime::ZERO);
        assert_eq!(drain(&mut s, SimTime::ZERO).len(), 10);
        let rto = s.poll_timeout().unwrap();
        s.handle_timeout(rto);
        assert_eq!(drain(&mut s, rto), vec![(0, true)]);
        // Everything had arrived: the ACK covers all ten; the Loss state ends at recover = 10.
        let t = rto + SimDuration::from_millis(100);
        s.handle_packet(t, &sack_ack(10, &[]));
        assert_eq!(s.phase(), Phase::Open);
        let sent = drain(&mut s, t);
        assert!(sent.len() > 1 && sent.iter().all(|&(seq, retransmit)| seq >= 10 && !retransmit));
        for k in 0..5 {
            s.handle_packet(t + SimDuration::from_millis(k), &sack_ack(10, &[]));
        }
        assert_eq!((s.phase(), s.probe().fast_recoveries), (Phase::Open, 0));
    }
}
