//! Congestion-window restart after an idle period (RFC 5681 §4.1, RFC 2861; Linux
//! `tcp_cwnd_restart`, enabled by default through `net.ipv4.tcp_slow_start_after_idle = 1`).
//!
//! ```text
//! when data is sent with nothing in flight and the last data left more than one RTO ago:
//!     ssthresh = max(ssthresh, ¾ cwnd)                    Linux tcp_current_ssthresh
//!     restart  = min(IW, cwnd)                            RFC 5681 §4.1: RW = min(IW, cwnd)
//!     cwnd     = cwnd halved once per RTO of idle time beyond the first, not below restart
//! ```
//!
//! Linux decays the window by halving per idle RTO (RFC 2861's "congestion window validation");
//! RFC 5681 §4.1 resets straight to the restart window. Linux's decay is used here.
//! Applications that pause (web pages, FTP files) would otherwise resume with the full window
//! of their previous burst, at line rate, after any silence.
//!
//! Not implemented: the congestion controller is not told (Linux raises `CA_EVENT_CWND_RESTART`,
//! which CUBIC uses to restart its epoch).

use super::config::TcpConfig;
use crate::cc::CcState;
use crate::time::{SimDuration, SimTime};

/// When data last left: what the restart after idle measures the silence from.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdleRestart {
    last_data_sent: Option<SimTime>,
}

impl IdleRestart {
    /// Data leaves at `now` with `packets_out` segments outstanding before it: after a silence,
    /// the window restarts (if `TcpConfig::slow_start_after_idle`).
    #[inline]
    pub fn on_send(
        &mut self,
        now: SimTime,
        cfg: &TcpConfig,
        packets_out: u64,
        st: &mut CcState,
        rto: SimDuration,
    ) {
        if let Some(last) =
            self.last_data_sent.filter(|_| cfg.slow_start_after_idle && packets_out == 0)
        {
            restart_after_idle(st, now - last, rto, cfg.initial_cwnd);
        }
        self.last_data_sent = Some(now);
    }
}

/// Applies the restart to `st` after `idle` of silence with retransmission timeout `rto`.
pub fn restart_after_idle(
    st: &mut CcState,
    idle: SimDuration,
    rto: SimDuration,
    initial_cwnd: f64,
) {
    if rto.as_nanos() == 0 || idle <= rto {
        return;
    }
    st.ssthresh = st.ssthresh.max(0.75 * st.cwnd);
    let restart = initial_cwnd.min(st.cwnd);
    let mut cwnd = st.cwnd;
    // Linux: `while ((delta -= rto) > 0 && cwnd > restart_cwnd) cwnd >>= 1;`
    let mut left = idle.as_nanos() as i128 - rto.as_nanos() as i128;
    while left > 0 && cwnd > restart {
        cwnd = (cwnd / 2.0).floor();
        left -= rto.as_nanos() as i128;
    }
    st.cwnd = cwnd.max(restart);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cwnd: f64, ssthresh: f64) -> CcState {
        let mut st = CcState::new(10.0, ssthresh, 1460);
        st.cwnd = cwnd;
        st
    }

    #[test]
    fn short_pauses_keep_the_window() {
        let mut st = state(200.0, f64::INFINITY);
        restart_after_idle(
            &mut st,
            SimDuration::from_millis(200),
            SimDuration::from_millis(200),
            10.0,
        );
        assert_eq!(st.cwnd, 200.0);
    }

    #[test]
    fn the_window_halves_per_idle_rto_down_to_the_initial_window() {
        let rto = SimDuration::from_millis(200);
        // 2.5 RTOs idle: two halvings (200 → 100 → 50), ssthresh raised to ¾ of the old window.
        let mut st = state(200.0, 40.0);
        restart_after_idle(&mut st, SimDuration::from_millis(500), rto, 10.0);
        assert_eq!((st.cwnd, st.ssthresh), (50.0, 150.0));
        // A long pause ends at IW.
        let mut st = state(200.0, f64::INFINITY);
        restart_after_idle(&mut st, SimDuration::from_secs(10), rto, 10.0);
        assert_eq!((st.cwnd, st.ssthresh), (10.0, f64::INFINITY));
        // A window already below IW stays.
        let mut st = state(4.0, 2.0);
        restart_after_idle(&mut st, SimDuration::from_secs(10), rto, 10.0);
        assert_eq!((st.cwnd, st.ssthresh), (4.0, 3.0));
    }
}
