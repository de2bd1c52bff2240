//! What the sender shows of itself to the engine, reports and tests: read-only views of its
//! window, scoreboard and timers.

use super::TcpSender;
use crate::cc::{AnyCc, CcState};
use crate::tcp::recovery::Phase;
use crate::time::SimDuration;

impl TcpSender {
    /// Window and RTT state, as the congestion controller sees it.
    pub fn cc_state(&self) -> &CcState {
        &self.st
    }
    pub fn phase(&self) -> Phase {
        self.recovery.phase()
    }
    /// SND.UNA, the oldest unacknowledged segment.
    pub fn snd_una(&self) -> u64 {
        self.sb.una()
    }
    /// SND.MAX, one past the highest segment sent.
    pub fn snd_max(&self) -> u64 {
        self.sb.high_tx()
    }
    /// Segments estimated in the network (RFC 6675 pipe).
    pub fn pipe(&self) -> u64 {
        self.sb.pipe()
    }
    /// The retransmission timeout that would be armed now (backoff included).
    pub fn rto(&self) -> SimDuration {
        self.rtt.rto()
    }
    pub fn congestion_control(&self) -> &AnyCc {
        &self.cc
    }
}
