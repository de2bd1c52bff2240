//! Whether the congestion window limited sending (Linux `tcp_cwnd_validate`,
//! `tcp_is_cwnd_limited`): the congestion controller grows the window only if it did.

use super::scoreboard::Scoreboard;
use crate::cc::CcState;

/// Whether the window, rather than the application or rwnd, limited sending in the last round
/// trip (Linux `tcp_cwnd_validate`: `is_cwnd_limited`, `max_packets_out`, `cwnd_usage_seq`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CwndUsage {
    /// A burst ended with data waiting and the congestion window full.
    limited: bool,
    /// A segment was sent since the last burst ended (`poll_transmit` returned `None`).
    burst_sent: bool,
    /// Most segments outstanding at the end of a burst in this period.
    max_out: u64,
    /// The period ends when SND.UNA reaches this segment (SND.MAX when it began).
    until: u64,
}

impl CwndUsage {
    /// A segment left in the burst under way.
    #[inline]
    pub(super) fn on_sent(&mut self) {
        self.burst_sent = true;
    }

    /// A burst of transmissions ended; `cwnd_limited` if the congestion window held data back.
    pub(super) fn on_burst_end(&mut self, cwnd_limited: bool, sb: &Scoreboard) {
        if std::mem::take(&mut self.burst_sent) || cwnd_limited {
            let out = sb.packets_out();
            if sb.una() >= self.until || cwnd_limited || out > self.max_out {
                self.limited = cwnd_limited;
                self.max_out = out;
                self.until = sb.high_tx();
            }
        }
    }

    /// Linux `tcp_is_cwnd_limited`: the window held data back in the last round trip, or, in
    /// slow start, cwnd is less than twice the most segments recently outstanding.
    pub(super) fn is_cwnd_limited(&self, st: &CcState) -> bool {
        self.limited || (st.in_slow_start() && st.cwnd < 2.0 * self.max_out as f64)
    }
}
