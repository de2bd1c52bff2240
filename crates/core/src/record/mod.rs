//! What a run records: raw facts only (counters, samples, histograms). Derived metrics (Jain,
//! utilisation, CIs) are computed in Python from these columns. The [`recorder::Recorder`]
//! keeps them during a run and assembles the result tables at its end.

pub mod histogram;
pub mod identity;
pub mod jitter;
pub mod pcap;
pub mod quantiles;
pub mod recorder;
pub mod result;

use crate::time::SimTime;
use histogram::Histogram;
use jitter::Jitter;

/// Cumulative per-flow counters kept by the engine as packets move.
///
/// Laid out by use, one entry per four cache lines: what every data packet's emission and
/// delivery update fills the first line, the delivery's delay statistics the next one and a
/// half, the rare counters (drops, marks, Source Quench) the rest. A seed-003 run has tens of
/// thousands of flows, so the array runs to megabytes and each line a packet touches is likely
/// a miss; in Rust's own order an emission touched two lines and a delivery four
/// (measured with callgrind). `tests::hot_counters_share_lines` keeps it so.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct FlowCounters {
    // Line 0: every data packet, at emission and at delivery.
    /// Data packets / wire bytes the sender emitted (retransmissions included).
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub retransmitted_pkts: u64,
    /// Data packets / wire bytes that reached the receiver.
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Data packets currently in the network.
    pub in_flight_pkts: u64,
    /// Data packets delivered in the current sample interval (their delays' sum:
    /// `interval_delay_ns`).
    pub interval_delay_count: u64,
    /// Data packets dropped in the network.
    pub dropped_pkts: u64,
    // Line 1 and the first half of line 2: every delivery.
    /// Sum of the delays of the current sample interval's deliveries, nanoseconds.
    pub interval_delay_ns: u128,
    /// RFC 3550 interarrival jitter of the packets `delay` records.
    pub jitter: Jitter,
    /// Reverse-direction (ACK) packets dropped.
    pub ack_dropped_pkts: u64,
    /// Data packets a queue marked Congestion Experienced (RFC 3168).
    pub ce_marked_pkts: u64,
    /// One-way delay of data packets delivered after warm-up, nanoseconds (for background
    /// sources, unless asked otherwise, their moments only: see [`Histogram::moments_only`]).
    pub delay: Histogram,
    // The rest: Source Quench (RFC 792), in SQM-Response's scenarios only.
    /// Sum of the times from a router's decision to its Source Quench reaching the source, ns.
    pub sq_delay_ns: u128,
    /// ICMP Source Quench messages routers sent about this flow's packets, and their bytes.
    pub sq_sent_pkts: u64,
    pub sq_sent_bytes: u64,
    /// Source Quench messages that reached an endpoint of this flow / were lost on the way.
    pub sq_received_pkts: u64,
    pub sq_dropped_pkts: u64,
}

/// The subset of counters snapshotted at warm-up and at each sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowSnapshot {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub retransmitted_pkts: u64,
    pub delivered_pkts: u64,
    pub dropped_pkts: u64,
    pub goodput_bytes: u64,
}

impl FlowCounters {
    /// Bytes from the start that a delivery updates (lines 0 and 1, and the start of line 2).
    pub(crate) const DELIVERY_BYTES: usize =
        std::mem::offset_of!(FlowCounters, delay) + histogram::MOMENTS_END;

    /// Counters at zero; `delay_quantiles`: keep the delays' histogram, not only their moments.
    pub fn new(delay_quantiles: bool) -> Self {
        FlowCounters {
            delay: if delay_quantiles { Histogram::default() } else { Histogram::moments_only() },
            ..Default::default()
        }
    }

    pub fn snapshot(&self, goodput_bytes: u64) -> FlowSnapshot {
        FlowSnapshot {
            sent_pkts: self.sent_pkts,
            sent_bytes: self.sent_bytes,
            retransmitted_pkts: self.retransmitted_pkts,
            delivered_pkts: self.delivered_pkts,
            dropped_pkts: self.dropped_pkts,
            goodput_bytes,
        }
    }
}

/// Per-flow time series, appended to at each sample instant.
#[derive(Default)]
pub struct FlowSeries {
    pub flow: Vec<u32>,
    pub t_s: Vec<f64>,
    pub sent_pkts: Vec<u64>,
    pub sent_bytes: Vec<u64>,
    pub retransmitted_pkts: Vec<u64>,
    pub delivered_pkts: Vec<u64>,
    pub dropped_pkts: Vec<u64>,
    pub goodput_bytes: Vec<u64>,
    pub cwnd_pkts: Vec<f64>,
    pub ssthresh_pkts: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub delay_mean_s: Vec<f64>,
    /// Allowed sending rate of rate-based senders, bits/s (NaN for window-based ones).
    pub rate_bps: Vec<f64>,
}

/// Per-link time series.
#[derive(Default)]
pub struct LinkSeries {
    pub link: Vec<u32>,
    pub t_s: Vec<f64>,
    pub tx_pkts: Vec<u64>,
    pub tx_bytes: Vec<u64>,
    pub dropped_pkts: Vec<u64>,
    pub queue_pkts: Vec<f64>,
    pub queue_bytes: Vec<f64>,
    pub max_queue_pkts: Vec<u64>,
}

/// Seconds as f64 for output columns.
pub fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    fn line(offset: usize) -> usize {
        offset / 64
    }

    /// An emission updates one line of its flow's counters, a delivery two and the first bytes
    /// of a third: moving a field must not spread them again.
    #[test]
    fn hot_counters_share_lines() {
        assert_eq!((size_of::<FlowCounters>(), align_of::<FlowCounters>()), (256, 64));
        let every_packet = [
            offset_of!(FlowCounters, sent_pkts),
            offset_of!(FlowCounters, sent_bytes),
            offset_of!(FlowCounters, retransmitted_pkts),
            offset_of!(FlowCounters, delivered_pkts),
            offset_of!(FlowCounters, delivered_bytes),
            offset_of!(FlowCounters, in_flight_pkts),
            offset_of!(FlowCounters, interval_delay_count),
        ];
        assert!(every_packet.iter().all(|&o| line(o) == 0), "{every_packet:?}");
        assert_eq!(line(offset_of!(FlowCounters, interval_delay_ns)), 1);
        assert_eq!(line(offset_of!(FlowCounters, jitter) + size_of::<Jitter>() - 1), 1);
        let delay = offset_of!(FlowCounters, delay);
        assert_eq!((line(delay), line(delay + histogram::MOMENTS_END - 1)), (2, 2));
        assert_eq!(
            line(FlowCounters::DELIVERY_BYTES - 1),
            2,
            "what the engine loads ahead of a delivery"
        );
    }
}
