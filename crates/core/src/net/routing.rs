//! Static shortest-path routing: fewest hops, then lowest propagation delay, then lowest link
//! id (so ties never depend on anything but the scenario's order).

use super::packet::{LinkId, NodeId};
use crate::time::SimDuration;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A directed edge as routing sees it.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    pub id: LinkId,
    pub from: NodeId,
    pub to: NodeId,
    pub delay: SimDuration,
}

/// `next_hop[node][dst]`: the link a packet at `node` bound for `dst` leaves on.
pub struct Routes {
    next_hop: Vec<Vec<Option<LinkId>>>,
}

impl Routes {
    /// Computes all routes; O(N · E log E), done once per run.
    pub fn compute(n_nodes: usize, edges: &[Edge]) -> Routes {
        let mut incoming: Vec<Vec<Edge>> = vec![Vec::new(); n_nodes];
        for e in edges {
            incoming[e.to.0 as usize].push(*e);
        }
        let mut next_hop = vec![vec![None; n_nodes]; n_nodes];
        // Dijkstra on reversed edges from each destination: cost = (hops, delay, first link id).
        for dst in 0..n_nodes {
            let mut best: Vec<Option<(u32, u64, u32)>> = vec![None; n_nodes];
            let mut heap = BinaryHeap::new();
            best[dst] = Some((0, 0, 0));
            heap.push(Reverse((0u32, 0u64, 0u32, dst as u32)));
            while let Some(Reverse((hops, delay, link, node))) = heap.pop() {
                if best[node as usize] != Some((hops, delay, link)) {
                    continue;
                }
                for e in &incoming[node as usize] {
                    let cand = (hops + 1, delay + e.delay.as_nanos(), e.id.0);
                    let u = e.from.0 as usize;
                    if best[u].is_none_or(|b| cand < b) {
                        best[u] = Some(cand);
                        next_hop[u][dst] = Some(e.id);
                        heap.push(Reverse((cand.0, cand.1, cand.2, u as u32)));
                    }
                }
            }
        }
        Routes { next_hop }
    }

    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkId> {
        self.next_hop[at.0 as usize][dst.0 as usize]
    }

    /// The links from `src` to `dst`, in order, or `None` if unreachable.
    pub fn path(&self, src: NodeId, dst: NodeId, edges: &[Edge]) -> Option<Vec<LinkId>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let l = self.next_hop(at, dst)?;
            path.push(l);
            at = edges[l.0 as usize].to;
            if path.len() > edges.len() {
                return None;
            }
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: u32, from: u32, to: u32, ms: u64) -> Edge {
        Edge { id: LinkId(id), from: NodeId(from), to: NodeId(to), delay: SimDuration::from_millis(ms) }
    }

    #[test]
    fn fewest_hops_wins_over_lower_delay() {
        // 0→1→3 (2 hops, 100 ms) vs 0→2→4→3 (3 hops, 3 ms).
        let edges = [e(0, 0, 1, 50), e(1, 1, 3, 50), e(2, 0, 2, 1), e(3, 2, 4, 1), e(4, 4, 3, 1)];
        let r = Routes::compute(5, &edges);
        assert_eq!(r.path(NodeId(0), NodeId(3), &edges), Some(vec![LinkId(0), LinkId(1)]));
    }

    #[test]
    fn equal_hops_prefer_lower_delay() {
        let edges = [e(0, 0, 1, 50), e(1, 1, 3, 50), e(2, 0, 2, 1), e(3, 2, 3, 1)];
        let r = Routes::compute(4, &edges);
        assert_eq!(r.path(NodeId(0), NodeId(3), &edges), Some(vec![LinkId(2), LinkId(3)]));
        assert_eq!(r.path(NodeId(3), NodeId(0), &edges), None);
    }
}
