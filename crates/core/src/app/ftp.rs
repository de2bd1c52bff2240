//! FTP: repeated file transfers over one persistent TCP connection, with idle gaps.
//!
//! ```text
//! file n:  size S_n ~ `size`, sent from start_n
//! gap:     when file n is fully acknowledged (at a_n) the source is idle for D_n ~ `idle`:
//!          start_{n+1} = a_n + D_n
//! ```
//!
//! Defaults are the FTP model of the 3GPP2 evaluation methodology (3GPP2 C.R1002-0 v1.0,
//! "cdma2000 Evaluation Methodology", 2004, FTP traffic model; also IEEE 802.16m-08/004r5 EMD):
//! file size lognormal with μ = 14.45, σ = 0.35 (mean 2 MB, deviation 0.722 MB) truncated at
//! 5 MB; reading time exponential with mean 180 s.
//!
//! Not implemented / deviates: no control connection, no per-file connection setup (one
//! persistent data connection carries every file, so the congestion window carries over);
//! 3GPP2 "truncates" at 5 MB — here the lognormal is conditioned on ≤ 5 MB (values above are
//! redrawn), which changes the mean by < 0.01%.

use super::dist::Dist;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

/// The FTP source model (sizes in bytes, idle times in seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct FtpModel {
    pub size: Dist,
    pub idle: Dist,
}

impl Default for FtpModel {
    fn default() -> Self {
        FtpModel {
            // 3GPP2 C.R1002-0 FTP model: truncated lognormal, μ = 14.45, σ = 0.35, max 5 MB.
            size: Dist::Lognormal { mu: 14.45, sigma: 0.35, max: Some(5e6) },
            // 3GPP2 C.R1002-0 FTP model: reading time exponential, mean 180 s.
            idle: Dist::Exponential { mean: 180.0 },
        }
    }
}

/// One FTP source's state. Messages are TCP segments. Laid out in the order written
/// (`repr(C)`): what every segment reads first, the model and the random stream (read once a
/// file) after it, as [`super::web::WebApp`].
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct FtpApp {
    /// Segments `file_begin..file_end` carry the current file.
    file_begin: u64,
    file_end: u64,
    /// When the current file becomes available to send.
    start_at: SimTime,
    mss: u32,
    /// Payload bytes of the file's last segment.
    last_len: u32,
    files: u64,
    bytes: u64,
    rng: Rng,
    model: FtpModel,
}

impl FtpApp {
    /// A source whose first file is ready at `start`.
    /// Payload bytes of a full segment.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    pub fn new(model: FtpModel, mss: u32, rng: Rng, start: SimTime) -> FtpApp {
        let mut app = FtpApp {
            model,
            mss,
            rng,
            file_begin: 0,
            file_end: 0,
            last_len: 0,
            start_at: start,
            files: 0,
            bytes: 0,
        };
        app.draw_file(start);
        app
    }

    fn draw_file(&mut self, start: SimTime) {
        let size = (self.model.size.sample(&mut self.rng).ceil() as u64).max(1);
        let segs = size.div_ceil(self.mss as u64);
        self.file_begin = self.file_end;
        self.file_end += segs;
        self.last_len = (size - (segs - 1) * self.mss as u64) as u32;
        self.start_at = start;
        self.files += 1;
        self.bytes += size;
    }

    /// Files started and their total payload bytes so far.
    pub fn totals(&self) -> (u64, u64) {
        (self.files, self.bytes)
    }

    pub fn available(&self, now: SimTime) -> u64 {
        if now < self.start_at {
            self.file_begin
        } else {
            self.file_end
        }
    }

    pub fn ready_at(&self, n: u64) -> Option<SimTime> {
        (n == self.file_begin).then_some(self.start_at)
    }

    pub fn len(&self, n: u64) -> u32 {
        if n + 1 == self.file_end {
            self.last_len
        } else {
            self.mss
        }
    }

    pub fn on_acked(&mut self, now: SimTime, una: u64) {
        if una >= self.file_end {
            let idle = SimDuration::from_secs_f64(self.model.idle.sample(&mut self.rng));
            self.draw_file(now + idle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    #[test]
    fn what_a_segment_reads_lies_in_the_first_40_bytes() {
        use std::mem::offset_of;
        assert!(offset_of!(FtpApp, last_len) + 4 <= 40);
        assert!(offset_of!(FtpApp, rng).min(offset_of!(FtpApp, model)) >= 40);
    }

    #[test]
    fn default_file_sizes_are_3gpp2s() {
        let m = FtpModel::default();
        // Conditioning at 5 MB (2.8 σ above μ) leaves the mean at 2.0 MB.
        let mean = m.size.mean().unwrap();
        assert!((mean / 2.0e6 - 1.0).abs() < 0.005, "{mean}");
        assert_eq!(m.idle.mean(), Some(180.0));
    }

    #[test]
    fn the_next_file_starts_one_idle_gap_after_the_last_ack() {
        let m = FtpModel { size: Dist::Fixed(3000.0), idle: Dist::Fixed(1.5) };
        let mut app = FtpApp::new(m, 1460, Rng::stream(1, StreamKind::App, 0), SimTime::ZERO);
        assert_eq!(app.available(SimTime::ZERO), 3);
        assert_eq!((app.len(0), app.len(1), app.len(2)), (1460, 1460, 80));
        app.on_acked(SimTime::from_millis(100), 2);
        assert_eq!(app.ready_at(3), None);
        app.on_acked(SimTime::from_millis(200), 3);
        assert_eq!(app.ready_at(3), Some(SimTime::from_millis(1700)));
        assert_eq!(app.available(SimTime::from_millis(1699)), 3);
        assert_eq!(app.available(SimTime::from_millis(1700)), 6);
        assert_eq!(app.totals(), (2, 6000));
    }
}
