//! Fed links: links whose every packet has just crossed another link, one of their *feeders*.
//!
//! A link out of a router is fed: nothing but the links into that router brings it packets.
//! The engine hands a packet to the next link when the feeder admits it, with the instant it
//! will reach the router, and the arrival there is no event at all (`net::forward`, `World::launch`).
//! The fed link admits what it was handed in the order of those instants, as soon as no feeder
//! can still bring one earlier: at once when it has a single feeder (a host's access link
//! behind its router), and otherwise up to the shortest of its feeders' propagation delays
//! past the clock, since a packet a feeder admits from now on reaches the far end no sooner.
//! On a dumbbell or a parking lot only the deliveries at hosts remain events.
//!
//! Found from the routes the flows use: each flow's path and its way back (a flow's packets
//! follow nothing else). The first link of a path is fed by the endpoint that sends, whose
//! packets enter it at events of their own, so a link any path starts on is not fed.

use crate::net::packet::LinkId;
use std::collections::HashSet;

/// What feeds a link.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Source {
    /// No path uses the link.
    Unused,
    /// These links, in the order the paths first entered the link from them.
    Links(Vec<LinkId>),
    /// An endpoint at its input sends on it (or every arrival must be an event).
    Endpoint,
}

/// For each link, the links that feed it, if only links do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feeders {
    sources: Vec<Source>,
    /// Every `(fed, feeder)` pair in `sources`, to find repeats without searching a list: a
    /// dumbbell's bottleneck has one feeder per flow, and searching them for every path made
    /// building quadratic in the flow count. Looked up only, so its order never matters.
    pairs: HashSet<(LinkId, LinkId)>,
}

impl Feeders {
    pub fn new(n_links: usize) -> Self {
        Feeders { sources: vec![Source::Unused; n_links], pairs: HashSet::new() }
    }

    /// No link is fed: every arrival at a node is an event (where routers send Source Quench,
    /// whose packets enter links no flow's route names; and in tests, to compare with).
    pub fn none(n_links: usize) -> Self {
        Feeders { sources: vec![Source::Endpoint; n_links], pairs: HashSet::new() }
    }

    /// Records the links a packet crosses, in order, from the endpoint that sends it.
    pub fn add_path(&mut self, path: &[LinkId]) {
        let mut from = None; // the first link is fed by an endpoint
        for &l in path {
            let source = &mut self.sources[l.0 as usize];
            match (from, &mut *source) {
                (_, Source::Endpoint) => {}
                (None, _) => *source = Source::Endpoint,
                (Some(f), Source::Unused) => {
                    *source = Source::Links(vec![f]);
                    self.pairs.insert((l, f));
                }
                (Some(f), Source::Links(feeders)) => {
                    if self.pairs.insert((l, f)) {
                        feeders.push(f);
                    }
                }
            }
            from = Some(l);
        }
    }

    /// The links that feed `l`, if `l` is fed (at least one).
    pub fn of(&self, l: LinkId) -> Option<&[LinkId]> {
        match self.sources.get(l.0 as usize) {
            Some(Source::Links(feeders)) => Some(feeders),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_fed_by_the_links_paths_enter_it_from_unless_a_path_starts_on_it() {
        let mut f = Feeders::new(5);
        // 0 → 1 → 2 and 3 → 1 → 2: link 2 is fed by 1 alone, 1 by 0 and 3; 0 and 3 by endpoints.
        f.add_path(&[LinkId(0), LinkId(1), LinkId(2)]);
        f.add_path(&[LinkId(3), LinkId(1), LinkId(2)]);
        f.add_path(&[LinkId(0), LinkId(1)]);
        assert_eq!(f.of(LinkId(2)), Some(&[LinkId(1)][..]));
        assert_eq!(
            f.of(LinkId(1)),
            Some(&[LinkId(0), LinkId(3)][..]),
            "each feeder once, in order"
        );
        assert_eq!(f.of(LinkId(0)), None);
        assert_eq!(f.of(LinkId(4)), None, "a link no path uses");
        // A path that starts on link 2 (an endpoint at its input) takes its feeders away, for good.
        f.add_path(&[LinkId(2)]);
        f.add_path(&[LinkId(1), LinkId(2)]);
        assert_eq!(f.of(LinkId(2)), None);
        assert_eq!(Feeders::none(3).of(LinkId(1)), None);
    }

    #[test]
    fn a_link_behind_thousands_of_links_lists_each_once_in_first_entry_order() {
        // A dumbbell's bottleneck (link 0) behind 20,000 access links, every path added twice
        // and in a shuffled second order: the repeats add nothing, the order is the first one.
        let n = 20_000u32;
        let mut f = Feeders::new(n as usize + 1);
        for round in 0..2u32 {
            for i in 0..n {
                let access = if round == 0 { i + 1 } else { (i * 7_919) % n + 1 };
                f.add_path(&[LinkId(access), LinkId(0)]);
            }
        }
        let want: Vec<LinkId> = (1..=n).map(LinkId).collect();
        assert_eq!(f.of(LinkId(0)), Some(&want[..]));
    }
}
