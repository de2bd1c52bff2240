//! Static shortest-path routing: fewest hops, then lowest propagation delay, then lowest link
//! id (so ties never depend on anything but the scenario's order).
//!
//! Routes are computed only towards the nodes that flows actually address (their senders and
//! receivers), one reverse Dijkstra per destination, and stored as a flat next-hop table with one
//! column per destination: forwarding a packet is two array reads, no hashing. A destination
//! with a single incoming link (a host on its access link) shares the column of the node at the
//! other end of that link: every route to it is the route to that node plus the access link, so
//! a dumbbell with thousands of hosts needs two columns, not one per host.

use crate::net::packet::{LinkId, NodeId};
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

/// Most next-hop entries (destination columns × nodes) a scenario may need: 2^25 entries are
/// 128 MiB and about as many Dijkstra steps (seconds). Beyond this a run would spend its time
/// and memory on routing.
pub const MAX_ROUTE_ENTRIES: usize = 1 << 25;

const NONE: u32 = u32::MAX;

/// How packets reach one destination node.
#[derive(Clone, Copy, Debug)]
struct Target {
    /// Column of `next` that leads to `anchor`, or `NONE` if nothing is routed to this node.
    column: u32,
    /// The node whose column is used: the destination itself, or the far end of its only
    /// incoming link.
    anchor: u32,
    /// That incoming link when `anchor` is not the destination itself, else `NONE`.
    last: u32,
}

/// Next hops towards the destinations in use.
pub struct Routes {
    n_nodes: usize,
    targets: Vec<Target>,
    /// `next[column * n_nodes + node]`: the link a packet at `node` leaves on towards the
    /// column's anchor, or `NONE` when the anchor is unreachable from `node`.
    next: Vec<u32>,
}

impl Routes {
    /// Computes the routes towards `destinations` (repeats are fine). O(D · E log E) time and
    /// O(D · N) memory for D distinct anchors, N nodes and E links; fails with a sentence when
    /// D · N exceeds [`MAX_ROUTE_ENTRIES`].
    pub fn compute(
        n_nodes: usize,
        edges: &[Edge],
        destinations: &[NodeId],
    ) -> Result<Routes, String> {
        let mut incoming: Vec<Vec<Edge>> = vec![Vec::new(); n_nodes];
        for e in edges {
            incoming[e.to.0 as usize].push(*e);
        }
        let mut targets = vec![Target { column: NONE, anchor: NONE, last: NONE }; n_nodes];
        let mut column_of = vec![NONE; n_nodes];
        let mut anchors = Vec::new();
        for &d in destinations {
            let d = d.0 as usize;
            if targets[d].column != NONE {
                continue;
            }
            let (anchor, last) = match incoming[d].as_slice() {
                [only] if only.from.0 as usize != d => (only.from.0 as usize, only.id.0),
                _ => (d, NONE),
            };
            if column_of[anchor] == NONE {
                column_of[anchor] = anchors.len() as u32;
                anchors.push(anchor);
            }
            targets[d] = Target { column: column_of[anchor], anchor: anchor as u32, last };
        }
        let entries = anchors.len().saturating_mul(n_nodes);
        if entries > MAX_ROUTE_ENTRIES {
            return Err(format!(
                "routing {} destinations across {n_nodes} nodes needs {entries} next-hop entries; at most {MAX_ROUTE_ENTRIES} are supported (destinations × nodes)",
                anchors.len()
            ));
        }
        let mut next = vec![NONE; entries];
        let mut best: Vec<Option<(u32, u64, u32)>> = vec![None; n_nodes];
        let mut heap = BinaryHeap::new();
        for (column, &dst) in anchors.iter().enumerate() {
            let next = &mut next[column * n_nodes..(column + 1) * n_nodes];
            best.fill(None);
            // Dijkstra on reversed edges from the destination: cost = (hops, delay, first link id).
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
                        next[u] = e.id.0;
                        heap.push(Reverse((cand.0, cand.1, cand.2, u as u32)));
                    }
                }
            }
        }
        Ok(Routes { n_nodes, targets, next })
    }

    /// The link a packet at `at` bound for `dst` leaves on; `None` if `dst` is unreachable from
    /// `at` or was not among the destinations routes were computed for.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkId> {
        let t = self.targets[dst.0 as usize];
        if t.column == NONE {
            return None;
        }
        if at.0 == t.anchor && t.last != NONE {
            return Some(LinkId(t.last));
        }
        let l = self.next[t.column as usize * self.n_nodes + at.0 as usize];
        (l != NONE).then_some(LinkId(l))
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
        Edge {
            id: LinkId(id),
            from: NodeId(from),
            to: NodeId(to),
            delay: SimDuration::from_millis(ms),
        }
    }

    fn all(n: u32) -> Vec<NodeId> {
        (0..n).map(NodeId).collect()
    }

    #[test]
    fn fewest_hops_wins_over_lower_delay() {
        // 0→1→3 (2 hops, 100 ms) vs 0→2→4→3 (3 hops, 3 ms).
        let edges = [e(0, 0, 1, 50), e(1, 1, 3, 50), e(2, 0, 2, 1), e(3, 2, 4, 1), e(4, 4, 3, 1)];
        let r = Routes::compute(5, &edges, &all(5)).unwrap();
        assert_eq!(r.path(NodeId(0), NodeId(3), &edges), Some(vec![LinkId(0), LinkId(1)]));
    }

    #[test]
    fn equal_hops_prefer_lower_delay() {
        let edges = [e(0, 0, 1, 50), e(1, 1, 3, 50), e(2, 0, 2, 1), e(3, 2, 3, 1)];
        let r = Routes::compute(4, &edges, &all(4)).unwrap();
        assert_eq!(r.path(NodeId(0), NodeId(3), &edges), Some(vec![LinkId(2), LinkId(3)]));
        assert_eq!(r.path(NodeId(3), NodeId(0), &edges), None);
    }

    #[test]
    fn only_requested_destinations_are_routed() {
        let edges = [e(0, 0, 1, 1), e(1, 1, 0, 1), e(2, 1, 2, 1), e(3, 2, 1, 1)];
        let r = Routes::compute(3, &edges, &[NodeId(2)]).unwrap();
        assert_eq!(r.path(NodeId(0), NodeId(2), &edges), Some(vec![LinkId(0), LinkId(2)]));
        assert_eq!(r.next_hop(NodeId(2), NodeId(0)), None);
    }

    /// Hosts on access links share their router's column, and their routes are those that one
    /// Dijkstra per host (every node its own anchor) finds, on a graph with parallel paths.
    #[test]
    fn hosts_share_their_routers_column_with_identical_routes() {
        // Routers 0..3 in a square with unequal delays; hosts 4..11, two per router.
        let mut edges = Vec::new();
        let link = |a: u32, b: u32, ms: u64, edges: &mut Vec<Edge>| {
            let id = edges.len() as u32;
            edges.push(e(id, a, b, ms));
            edges.push(e(id + 1, b, a, ms));
        };
        for (a, b, ms) in [(0, 1, 5), (1, 2, 5), (2, 3, 5), (3, 0, 5), (0, 2, 20)] {
            link(a, b, ms, &mut edges);
        }
        for h in 4..12 {
            link(h, (h - 4) / 2, 1 + h as u64 % 3, &mut edges);
        }
        let hosts: Vec<NodeId> = (4..12).map(NodeId).collect();
        let shared = Routes::compute(12, &edges, &hosts).unwrap();
        assert_eq!(shared.next.len(), 4 * 12, "one column per router");
        for dst in &hosts {
            // The reference: a self-loop gives the host two incoming links, so it gets its own
            // column (the loop itself never lies on a shortest path).
            let mut looped = edges.clone();
            looped.push(e(edges.len() as u32, dst.0, dst.0, 0));
            let own = Routes::compute(12, &looped, &[*dst]).unwrap();
            assert_eq!(own.next.len(), 12);
            for src in (0..12).filter(|&s| s != dst.0) {
                assert_eq!(
                    shared.next_hop(NodeId(src), *dst),
                    own.next_hop(NodeId(src), *dst),
                    "{src} → {}",
                    dst.0
                );
            }
        }
    }

    #[test]
    fn too_many_entries_are_refused_with_the_numbers() {
        let n = 6000u32; // a chain: every node has two incoming links, so no sharing
        let edges: Vec<Edge> =
            (0..n - 1).flat_map(|i| [e(2 * i, i, i + 1, 1), e(2 * i + 1, i + 1, i, 1)]).collect();
        let err = Routes::compute(n as usize, &edges, &all(n)).err().expect("36 M entries");
        assert!(err.contains("5998 destinations across 6000 nodes"), "{err}"); // the two ends share their neighbours' columns
        assert!(Routes::compute(n as usize, &edges, &[NodeId(0), NodeId(n - 1)]).is_ok());
    }
}
