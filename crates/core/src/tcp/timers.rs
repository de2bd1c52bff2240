//! The sender's timers: one deadline each, the earliest of which `poll_timeout` reports.

use crate::time::{Deadline, SimTime};

/// Whether `deadline` is due at `now`; a due deadline is cleared (its timer fired).
#[inline]
pub(super) fn fire(deadline: &mut Deadline, now: SimTime) -> bool {
    let due = deadline.is_due(now);
    if due {
        deadline.clear();
    }
    due
}

/// The sender's timers; each has at most one pending deadline, `poll_timeout` reports the earliest.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Timers {
    /// Retransmission timeout (RFC 6298 §5).
    pub(super) rto: Deadline,
    /// A rate-based application produces its next message.
    pub(super) app: Deadline,
    /// The pacing gap since the last transmission ends (algorithms with a pacing rate).
    pub(super) pace: Deadline,
    /// SYN retransmission (handshake).
    pub(super) syn: Deadline,
    /// RACK's reorder timer: a copy becomes overdue (RFC 8985 §6.3).
    pub(super) reorder: Deadline,
    /// Tail loss probe (RFC 8985 §7).
    pub(super) probe: Deadline,
}

impl Timers {
    /// The earliest deadline set, if any.
    pub(super) fn earliest(&self) -> Option<SimTime> {
        Deadline::earliest([self.rto, self.app, self.pace, self.syn, self.reorder, self.probe])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::testutil::ms;

    #[test]
    fn timers_report_the_earliest_deadline_set_and_an_unset_one_is_never_due() {
        let mut t = Timers::default();
        assert_eq!(t.earliest(), None);
        assert!(!t.rto.is_due(SimTime::MAX), "unset: not due even at the last instant");
        t.probe.set(ms(30));
        t.rto.set(ms(200));
        t.app = Some(ms(50)).into();
        assert_eq!(t.earliest(), Some(ms(30)));
        assert!(t.probe.is_due(ms(30)) && !t.probe.is_due(ms(29)));
        t.probe.clear();
        assert_eq!(t.earliest(), Some(ms(50)));
        t.app = None.into();
        assert_eq!((t.earliest(), t.app.get(), t.rto.get()), (Some(ms(200)), None, Some(ms(200))));
        assert_eq!(std::mem::size_of::<Timers>(), 48, "one cache line with room to spare");
    }
}
