//! Links fed by one link alone: every packet that enters them has just crossed that link.
//!
//! A host's access link behind a router is the common case: on a dumbbell or a parking lot,
//! all of a receiving host's traffic reaches its router over the bottleneck. Such a link's
//! arrivals come in the feeder's order, so the engine can hand a packet to it the moment the
//! feeder admits it, with the instant it will reach the router, and skip the event of its
//! arrival there (`engine`, `World::launch`): a third of the events of a dumbbell run.
//!
//! Found from the routes the flows use: each flow's path and its way back (a flow's packets
//! follow nothing else). The first link of a path is fed by the endpoint that sends, never by a
//! link, so it has no sole feeder.

use crate::net::packet::LinkId;

const UNSEEN: u32 = u32::MAX;
/// More than one feeder, or an endpoint among them.
const MANY: u32 = u32::MAX - 1;

/// For each link, the one link every packet entering it comes from, if there is one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SoleFeeders(Vec<u32>);

impl SoleFeeders {
    pub fn new(n_links: usize) -> Self {
        SoleFeeders(vec![UNSEEN; n_links])
    }

    /// No link has a sole feeder: every arrival at a node is an event (e.g. when packet
    /// captures watch each link's far end).
    pub fn none(n_links: usize) -> Self {
        SoleFeeders(vec![MANY; n_links])
    }

    /// Records the links a packet crosses, in order, from the endpoint that sends it.
    pub fn add_path(&mut self, path: &[LinkId]) {
        let mut from = MANY; // the first link is fed by an endpoint
        for l in path {
            let f = &mut self.0[l.0 as usize];
            if *f == UNSEEN {
                *f = from;
            } else if *f != from {
                *f = MANY;
            }
            from = l.0;
        }
    }

    /// The link that alone feeds `l`.
    #[inline]
    pub fn of(&self, l: LinkId) -> Option<LinkId> {
        self.0.get(l.0 as usize).filter(|&&f| f < MANY).map(|&f| LinkId(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_has_a_sole_feeder_only_if_every_path_enters_it_from_that_link() {
        let mut f = SoleFeeders::new(5);
        // 0 → 1 → 2 and 3 → 1 → 2: link 2 is fed by 1 alone; 1 by two links; 0 and 3 by endpoints.
        f.add_path(&[LinkId(0), LinkId(1), LinkId(2)]);
        f.add_path(&[LinkId(3), LinkId(1), LinkId(2)]);
        assert_eq!(f.of(LinkId(2)), Some(LinkId(1)));
        assert_eq!(f.of(LinkId(1)), None);
        assert_eq!(f.of(LinkId(0)), None);
        assert_eq!(f.of(LinkId(4)), None, "a link no path uses");
        // A path that starts on link 2 (an endpoint at its input) takes its sole feeder away.
        f.add_path(&[LinkId(2)]);
        assert_eq!(f.of(LinkId(2)), None);
        assert_eq!(SoleFeeders::none(3).of(LinkId(1)), None);
    }
}
