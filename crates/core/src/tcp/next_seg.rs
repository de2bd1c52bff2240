//! What a transmit opportunity sends (RFC 6675 §5 step C, NextSeg), within the window.
//!
//! ```text
//! window  = min(⌊cwnd⌋, rwnd)                                   segments, at least 1
//! send while pipe < window:                                    (RFC 6675 §5 step C)
//!     0. the fast retransmission, whatever the window            (RFC 5681 §3.2 step 2)
//!     1. a segment deemed lost and not yet retransmitted, lowest first   (NextSeg rule 1)
//!     2. new data, if the application has it and SND.MAX − SND.UNA < rwnd (NextSeg rule 2)
//!        (`window_from_una`, ns-2: outside fast recovery, SND.MAX − SND.UNA < window)
//! ```

use super::scoreboard::Scoreboard;

/// The window a transmit opportunity works within, in segments.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    /// ⌊cwnd⌋, at least one segment.
    cwnd: u64,
    rwnd: u64,
}

impl Window {
    /// From cwnd and the receiver window `rwnd` (at least one segment).
    #[inline]
    pub(super) fn new(cwnd: f64, rwnd: u64) -> Self {
        // `as` truncates, which is the floor for a window (never negative); `f64::floor` is a
        // library call on baseline x86-64. Through `i64`: one conversion instruction, where a
        // conversion to `u64` takes a dozen to handle values from 2^63 on (no window is that large).
        Window { cwnd: (cwnd as i64).max(1) as u64, rwnd }
    }

    /// Segments the window allows in the network.
    #[inline]
    fn segments(self) -> u64 {
        self.cwnd.min(self.rwnd)
    }
}

/// What to do on a transmit opportunity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NextSeg {
    Retransmit(u64),
    New(u64),
    /// Nothing to send; `cwnd_limited` if the congestion window held data back.
    Wait {
        cwnd_limited: bool,
    },
    /// The window has room but nothing is ready: the application (or rwnd) limits the sender.
    NothingReady,
}

/// NextSeg for one transmit opportunity. `forced`: a fast retransmission is due whatever the
/// window; `new_ready`: the application has a new segment and the receiver window room.
/// `from_una` says whether ns-2's window applies (`TcpConfig::window_from_una`, outside fast
/// recovery), with how many limited-transmit segments; asked only when new data is ready.
#[inline]
pub(super) fn choose(
    sb: &mut Scoreboard,
    window: Window,
    forced: bool,
    new_ready: bool,
    from_una: impl FnOnce() -> Option<u64>,
) -> NextSeg {
    if forced {
        if let Some(seq) = sb.next_retransmission() {
            return NextSeg::Retransmit(seq);
        }
    }
    let pipe = sb.pipe();
    if pipe >= window.segments() {
        let waiting = new_ready || sb.lost_out() > sb.retrans_out();
        return NextSeg::Wait { cwnd_limited: waiting && pipe >= window.cwnd };
    }
    if let Some(seq) = sb.next_retransmission() {
        return NextSeg::Retransmit(seq);
    }
    if new_ready {
        // ns-2's window outside fast recovery: new data only below SND.UNA + window, however
        // much of the span above a hole has been SACKed, plus one segment for each of the first
        // dupthresh − 1 duplicate ACKs (limited transmit, RFC 3042; ns-2 `singledup_ 1` and
        // `send_one`).
        if from_una().is_some_and(|limited_transmit| {
            sb.packets_out() >= window.segments() + limited_transmit
        }) {
            return NextSeg::Wait { cwnd_limited: true };
        }
        return NextSeg::New(sb.high_tx());
    }
    NextSeg::NothingReady
}
