//! Seeded random streams, one per simulated entity.
//!
//! Every entity that draws random numbers (a loss model on a link, a flow's start time, an
//! application's on/off periods) owns its own stream, derived from the scenario seed and a stable
//! identifier of the entity. Adding a flow therefore never changes the numbers another flow draws,
//! and results are bit-identical on every machine: the generators are written here (not taken
//! from a crate whose algorithm might change between versions) and never touch OS entropy.
//!
//! Generator: xoshiro256** (Blackman & Vigna, 2018), seeded through SplitMix64 as its authors
//! recommend.

/// What kind of entity a stream belongs to; part of the stream's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum StreamKind {
    /// Per-flow scenario draws: start time, RTT spread.
    FlowSetup = 1,
    /// A link direction's random loss model.
    LinkLoss = 2,
    /// An application's traffic pattern.
    App = 3,
    /// A queue discipline's own randomness (RED).
    Queue = 4,
    /// Scenario `jitter`: flow start and link delay offsets.
    Jitter = 5,
    /// A link's `schedule` of random loss.
    LinkSchedule = 6,
}

/// SplitMix64 step (Steele, Lea, Flood 2014): used only to expand seeds.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A xoshiro256** generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream of entity `(kind, id)` under the scenario's master `seed`.
    pub fn stream(seed: u64, kind: StreamKind, id: u64) -> Rng {
        let mut sm = seed ^ 0x6363_6172_656E_6100; // "ccarena\0": keeps seed 0 from being special
        let a = splitmix64(&mut sm);
        let mut sm2 = a
            ^ (kind as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
            ^ id.wrapping_mul(0x8CB9_2BA7_2F3D_8DD7);
        let s = [
            splitmix64(&mut sm2),
            splitmix64(&mut sm2),
            splitmix64(&mut sm2),
            splitmix64(&mut sm2),
        ];
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi].
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U lies in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let mut a = Rng::stream(7, StreamKind::LinkLoss, 3);
        let mut b = Rng::stream(7, StreamKind::LinkLoss, 3);
        let mut c = Rng::stream(7, StreamKind::LinkLoss, 4);
        let mut d = Rng::stream(8, StreamKind::LinkLoss, 3);
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        let xd: Vec<u64> = (0..4).map(|_| d.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
        assert_ne!(xa, xd);
    }

    #[test]
    fn known_first_value_pins_the_algorithm() {
        // Guards bit-identical results across versions: changing the generator or the seeding
        // changes every published number, so it must be a deliberate, visible change.
        let mut r = Rng::stream(1, StreamKind::FlowSetup, 0);
        let first = r.next_u64();
        let mut r2 = Rng::stream(1, StreamKind::FlowSetup, 0);
        assert_eq!(first, r2.next_u64());
        assert_eq!(first, KNOWN_FIRST);
    }
    const KNOWN_FIRST: u64 = 11282220514594558542;

    #[test]
    fn uniform_mean_and_exponential_mean() {
        let mut r = Rng::stream(42, StreamKind::App, 0);
        let n = 200_000;
        let mean_u: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.005, "{mean_u}");
        let mean_e: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean_e - 2.0).abs() < 0.03, "{mean_e}");
    }
}
