//! Link loss models: packets lost on a link regardless of its queue.
//!
//! - `Bernoulli`: each packet independently with probability `p`.
//! - `Periodic`: every `every`-th packet entering the link (deterministic; the loss pattern for
//!   which the response functions of Reno, HighSpeed, Scalable and CUBIC are derived).
//! - `DropList`: the first transmission of given data packets of one flow, counted from 1 by
//!   sequence number (packet n is segment n−1): the deterministic drops of recovery studies.

use crate::net::packet::{FlowId, Packet};
use crate::rng::Rng;
use crate::wire::Header;

#[derive(Clone, Debug)]
pub enum LossModel {
    Bernoulli { p: f64, rng: Rng },
    Periodic { every: u64, seen: u64 },
    DropList { flow: FlowId, packets: Vec<u64> },
}

impl LossModel {
    /// True if the packet is lost. `packets` of a drop list must be sorted.
    pub fn drops(&mut self, pkt: &Packet) -> bool {
        match self {
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::Periodic { every, seen } => {
                *seen += 1;
                *seen % *every == 0
            }
            LossModel::DropList { flow, packets } => {
                if pkt.flow != *flow {
                    return false;
                }
                match pkt.header {
                    Header::TcpData { seq, retransmit: false, .. } | Header::Udp { seq, .. } => {
                        packets.binary_search(&(seq + 1)).is_ok()
                    }
                    _ => false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::NodeId;
    use crate::rng::StreamKind;
    use crate::time::SimTime;

    fn data(flow: u32, seq: u64, retransmit: bool) -> Packet {
        Packet {
            flow: FlowId(flow),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1500,
            sent_at: SimTime::ZERO,
            ce: false,
            header: Header::TcpData {
                seq,
                len: 1460,
                retransmit,
                ect: false,
                cwr: false,
                ts: None,
            },
        }
    }

    #[test]
    fn periodic_drops_every_nth() {
        let mut m = LossModel::Periodic { every: 3, seen: 0 };
        let dropped: Vec<bool> = (0..7).map(|i| m.drops(&data(0, i, false))).collect();
        assert_eq!(dropped, [false, false, true, false, false, true, false]);
    }

    #[test]
    fn drop_list_spares_retransmissions_and_other_flows() {
        let mut m = LossModel::DropList { flow: FlowId(1), packets: vec![3, 5] };
        assert!(m.drops(&data(1, 2, false))); // packet 3 = segment 2
        assert!(!m.drops(&data(1, 2, true)));
        assert!(!m.drops(&data(0, 2, false)));
        assert!(!m.drops(&data(1, 3, false)));
    }

    #[test]
    fn bernoulli_rate_matches_p() {
        let mut m = LossModel::Bernoulli { p: 0.02, rng: Rng::stream(3, StreamKind::LinkLoss, 0) };
        let n = 100_000;
        let lost = (0..n).filter(|&i| m.drops(&data(0, i, false))).count();
        let rate = lost as f64 / n as f64;
        assert!((rate - 0.02).abs() < 0.002, "{rate}");
    }
}
