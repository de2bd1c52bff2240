//! Applications: what data a sender has to send, and when.
//!
//! An application hands the transport a sequence of messages numbered from 0. For TCP each
//! message becomes one segment (sequence number = message number); for UDP one datagram.
//! `Bulk` always has more, `File` has `ceil(size / mss)` (the last one shorter), `Cbr` produces
//! one message of `packet_size` every `packet_size / rate`, `OnOff` alternates exponential
//! talkspurts at a constant rate with exponential silences (VoIP, [`onoff`]).
//! `Web` and `Ftp` are closed loops: they learn of acknowledgements through
//! [`AppSource::on_acked`] (called by the TCP sender when SND.UNA advances) and produce their
//! next page or file some time after the previous one was fully acknowledged.

pub mod dist;
pub mod ftp;
pub mod onoff;
pub mod web;

use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};
pub use onoff::OnOffSource;

#[derive(Clone, Debug, PartialEq)]
pub enum AppSource {
    /// An unlimited backlog (FTP bulk transfer).
    Bulk { mss: u32 },
    /// A transfer of `bytes` bytes; completion time is recorded.
    File { bytes: u64, mss: u32 },
    /// Constant bit rate: `packet_size` payload bytes every `interval`, starting at `start`.
    Cbr { start: SimTime, interval: SimDuration, packet_size: u32 },
    /// Web browsing (SURGE pages and think times), TCP only.
    Web(Box<web::WebApp>),
    /// Repeated file transfers with idle gaps, TCP only.
    Ftp(Box<ftp::FtpApp>),
    /// Exponential on/off (VoIP): `packet_size` messages at a constant rate during talkspurts.
    /// Boxed: its state is about 100 bytes, the other variants' at most 24, and every TCP sender
    /// holds an `AppSource` among the fields an ACK reads.
    OnOff(Box<OnOffSource>),
}

impl AppSource {
    pub fn cbr(start: SimTime, rate: Rate, packet_size: u32) -> AppSource {
        AppSource::Cbr { start, interval: rate.tx_time(packet_size), packet_size }
    }

    /// Exponential on/off traffic from `start`, drawing from the application's stream `rng`.
    pub fn on_off(
        start: SimTime,
        on_mean: SimDuration,
        off_mean: SimDuration,
        rate: Rate,
        packet_size: u32,
        rng: Rng,
    ) -> AppSource {
        AppSource::OnOff(Box::new(OnOffSource::new(
            start,
            on_mean,
            off_mean,
            rate,
            packet_size,
            rng,
        )))
    }

    /// Payload bytes of a typical (full) message: the segment size `s` of rate-based transports.
    pub fn nominal_size(&self) -> u32 {
        match *self {
            AppSource::Bulk { mss } | AppSource::File { mss, .. } => mss,
            AppSource::Cbr { packet_size, .. } => packet_size,
            AppSource::OnOff(ref o) => o.packet_size,
            AppSource::Web(ref w) => w.mss(),
            AppSource::Ftp(ref f) => f.mss(),
        }
    }

    /// Messages the application has produced by `now` (cumulative); `u64::MAX` for bulk.
    #[inline]
    pub fn available(&self, now: SimTime) -> u64 {
        match *self {
            AppSource::Bulk { .. } => u64::MAX,
            AppSource::File { bytes, mss } => bytes.div_ceil(mss as u64),
            AppSource::Cbr { start, interval, .. } => {
                if now < start {
                    0
                } else {
                    (now - start).as_nanos() / interval.as_nanos().max(1) + 1
                }
            }
            AppSource::Web(ref w) => w.available(now),
            AppSource::Ftp(ref f) => f.available(now),
            AppSource::OnOff(ref o) => o.available(now),
        }
    }

    /// Total messages, if the application is finite.
    #[inline]
    pub fn total(&self) -> Option<u64> {
        match *self {
            AppSource::File { bytes, mss } => Some(bytes.div_ceil(mss as u64)),
            _ => None,
        }
    }

    /// When message `n` becomes available (for sources that produce over time).
    pub fn ready_at(&self, n: u64) -> Option<SimTime> {
        match *self {
            AppSource::Cbr { start, interval, .. } => Some(start + interval.saturating_mul(n)),
            AppSource::Web(ref w) => w.ready_at(n),
            AppSource::Ftp(ref f) => f.ready_at(n),
            AppSource::OnOff(ref o) => Some(o.ready_at(n)),
            _ => None,
        }
    }

    /// Payload bytes of message `n`.
    #[inline]
    pub fn len(&self, n: u64) -> u32 {
        match *self {
            AppSource::Bulk { mss } => mss,
            AppSource::File { bytes, mss } => {
                let full = bytes / mss as u64;
                if n < full {
                    mss
                } else {
                    (bytes - full * mss as u64) as u32
                }
            }
            AppSource::Cbr { packet_size, .. } => packet_size,
            AppSource::Web(ref w) => w.len(n),
            AppSource::Ftp(ref f) => f.len(n),
            AppSource::OnOff(ref o) => o.packet_size,
        }
    }

    /// The transport's cumulative acknowledgement reached message `una` at `now` (closed-loop
    /// applications start their next page or file from it).
    pub fn on_acked(&mut self, now: SimTime, una: u64) {
        match self {
            AppSource::Web(w) => w.on_acked(now, una),
            AppSource::Ftp(f) => f.on_acked(now, una),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_ends_with_a_short_segment() {
        let f = AppSource::File { bytes: 3000, mss: 1460 };
        assert_eq!(f.total(), Some(3));
        assert_eq!((f.len(0), f.len(1), f.len(2)), (1460, 1460, 80));
    }

    #[test]
    fn cbr_produces_one_packet_per_interval() {
        let c = AppSource::cbr(SimTime::from_secs(1), Rate(80_000), 1000);
        assert_eq!(c.available(SimTime::ZERO), 0);
        assert_eq!(c.available(SimTime::from_secs(1)), 1);
        // 1000 B at 80 kbit/s = 100 ms per packet.
        assert_eq!(c.available(SimTime::from_millis(1950)), 10);
        assert_eq!(c.ready_at(10), Some(SimTime::from_secs(2)));
    }
}
