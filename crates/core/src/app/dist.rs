//! Random variables of traffic models: object and file sizes (bytes), think and idle times
//! (seconds). Every draw takes the caller's own [`Rng`] stream.
//!
//! ```text
//! fixed v              X = v
//! exponential m        X = −m ln(1 − U)                                   mean m
//! pareto k, α [, p]    P(X > x) = (k/x)^α, x ≥ k                           mean αk/(α−1) (α > 1)
//!                      bounded at p (Harchol-Balter's B(k, p, α)):
//!                      X = k (1 − U (1 − (k/p)^α))^(−1/α)
//! lognormal μ, σ [, p] ln X ~ N(μ, σ²), conditioned on X ≤ p if p is given  mean e^(μ+σ²/2)
//! uniform a, b         X = a + (b − a) U
//! ```
//!
//! Residual life (for starting an on/off source in a random phase of its cycle): in a renewal
//! process with gaps X, the time from a random instant to the next renewal is `U · X̃`, where X̃
//! has the length-biased density `x f(x) / E[X]` (Cox, *Renewal Theory*, 1962, §5.2). Every
//! kind here has a closed-form length-biased law: fixed → itself, exponential(m) →
//! Gamma(2, m), uniform(a, b) → density ∝ x, Pareto(k, α) → Pareto(k, α − 1),
//! lognormal(μ, σ) → lognormal(μ + σ², σ), each truncated at the same bound.
//!
//! Normal variates use Box–Muller (Box & Muller 1958); Φ uses the complementary error
//! function of Numerical Recipes §6.2 (`erfcc`, relative error < 1.2e-7).
//!
//! Not implemented: distributions without a closed form for their length-biased law
//! (Weibull, empirical CDFs).

use crate::rng::Rng;

/// A distribution over non-negative reals (the unit — bytes or seconds — is the caller's).
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Fixed(f64),
    Exponential {
        mean: f64,
    },
    /// Pareto with scale (minimum) `scale` and tail index `shape`; bounded above by `max`.
    Pareto {
        scale: f64,
        shape: f64,
        max: Option<f64>,
    },
    /// Lognormal of the natural logarithm's mean `mu` and deviation `sigma`, conditioned on
    /// values at most `max`.
    Lognormal {
        mu: f64,
        sigma: f64,
        max: Option<f64>,
    },
    Uniform {
        lo: f64,
        hi: f64,
    },
}

/// A standard normal variate (Box–Muller; one of the pair is discarded to keep draws simple).
pub fn std_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.uniform(); // (0, 1]
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Φ(z), the standard normal distribution function.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// Complementary error function (Numerical Recipes in C, 2nd ed., §6.2 `erfcc`; |ε| < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// A Pareto variate of scale `k` and index `a` (any real `a ≠ 0`, as a density ∝ x^(−a−1)) on
/// `[k, max]`, by inversion. With `max = None` it needs `a > 0`.
fn power_law(rng: &mut Rng, k: f64, a: f64, max: Option<f64>) -> f64 {
    let u = rng.uniform();
    match max {
        None => k * (1.0 - u).powf(-1.0 / a),
        Some(p) if a.abs() < 1e-12 => k * (p / k).powf(u), // density ∝ 1/x: log-uniform
        Some(p) => {
            // F(x) = (k^−a − x^−a) / (k^−a − p^−a)
            let (ka, pa) = (k.powf(-a), p.powf(-a));
            (ka - u * (ka - pa)).powf(-1.0 / a)
        }
    }
}

/// A lognormal variate conditioned on `≤ max` (by rejection: the callers' bounds keep the
/// acceptance probability high; after 1000 rejections the bound itself is returned).
fn lognormal(rng: &mut Rng, mu: f64, sigma: f64, max: Option<f64>) -> f64 {
    for _ in 0..1000 {
        let x = (mu + sigma * std_normal(rng)).exp();
        if max.is_none_or(|m| x <= m) {
            return x;
        }
    }
    max.expect("only a bounded lognormal rejects")
}

impl Dist {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match *self {
            Dist::Fixed(v) => v,
            Dist::Exponential { mean } => rng.exponential(mean),
            Dist::Pareto { scale, shape, max } => power_law(rng, scale, shape, max),
            Dist::Lognormal { mu, sigma, max } => lognormal(rng, mu, sigma, max),
            Dist::Uniform { lo, hi } => rng.uniform_range(lo, hi),
        }
    }

    /// The mean, or `None` if it is infinite (an unbounded Pareto with `shape ≤ 1`).
    pub fn mean(&self) -> Option<f64> {
        match *self {
            Dist::Fixed(v) => Some(v),
            Dist::Exponential { mean } => Some(mean),
            Dist::Uniform { lo, hi } => Some((lo + hi) / 2.0),
            Dist::Pareto { scale: k, shape: a, max: None } => (a > 1.0).then(|| a * k / (a - 1.0)),
            Dist::Pareto { scale: k, shape: a, max: Some(p) } => {
                Some(bounded_pareto_moment(k, a, p, 1.0))
            }
            Dist::Lognormal { mu, sigma, max: None } => Some((mu + sigma * sigma / 2.0).exp()),
            Dist::Lognormal { mu, sigma, max: Some(p) } => {
                let z = (p.ln() - mu) / sigma;
                Some((mu + sigma * sigma / 2.0).exp() * normal_cdf(z - sigma) / normal_cdf(z))
            }
        }
    }

    /// The same distribution with every value multiplied by `c > 0` (all kinds are scale
    /// families).
    pub fn scaled(&self, c: f64) -> Dist {
        match *self {
            Dist::Fixed(v) => Dist::Fixed(v * c),
            Dist::Exponential { mean } => Dist::Exponential { mean: mean * c },
            Dist::Pareto { scale, shape, max } => {
                Dist::Pareto { scale: scale * c, shape, max: max.map(|m| m * c) }
            }
            Dist::Lognormal { mu, sigma, max } => {
                Dist::Lognormal { mu: mu + c.ln(), sigma, max: max.map(|m| m * c) }
            }
            Dist::Uniform { lo, hi } => Dist::Uniform { lo: lo * c, hi: hi * c },
        }
    }

    /// A draw of the residual life `U · X̃` (see the module notes): the wait from a random
    /// instant to the next renewal of a process with these gaps. `None` if the mean is infinite.
    pub fn sample_residual(&self, rng: &mut Rng) -> Option<f64> {
        let biased = match *self {
            Dist::Fixed(v) => v,
            Dist::Exponential { mean } => rng.exponential(mean) + rng.exponential(mean),
            Dist::Uniform { lo, hi } => (lo * lo + rng.uniform() * (hi * hi - lo * lo)).sqrt(),
            Dist::Pareto { scale, shape, max } => {
                if max.is_none() && shape <= 1.0 {
                    return None;
                }
                power_law(rng, scale, shape - 1.0, max)
            }
            Dist::Lognormal { mu, sigma, max } => lognormal(rng, mu + sigma * sigma, sigma, max),
        };
        Some(rng.uniform() * biased)
    }
}

/// E[X^r] of the bounded Pareto B(k, p, α) (Harchol-Balter, Crovella & Murta 1999, eq. 1).
fn bounded_pareto_moment(k: f64, a: f64, p: f64, r: f64) -> f64 {
    let norm = a * k.powf(a) / (1.0 - (k / p).powf(a));
    let e = r - a;
    if e.abs() < 1e-12 {
        norm * (p / k).ln()
    } else {
        norm * (p.powf(e) - k.powf(e)) / e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn draws(d: &Dist, n: usize, f: impl Fn(&Dist, &mut Rng) -> f64) -> Vec<f64> {
        let mut rng = Rng::stream(11, StreamKind::App, 0);
        (0..n).map(|_| f(d, &mut rng)).collect()
    }

    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len() as f64
    }

    #[test]
    fn normal_cdf_matches_tabulated_values() {
        // Abramowitz & Stegun Table 26.1.
        for (z, phi) in [(0.0, 0.5), (1.0, 0.841_344_75), (1.96, 0.975_002_1), (-2.5, 0.006_209_67)]
        {
            assert!((normal_cdf(z) - phi).abs() < 2e-7, "Φ({z}) = {}", normal_cdf(z));
        }
    }

    #[test]
    fn sample_means_match_the_closed_forms() {
        let cases = [
            Dist::Exponential { mean: 3.0 },
            Dist::Uniform { lo: 1.0, hi: 5.0 },
            Dist::Pareto { scale: 1.0, shape: 2.5, max: None },
            Dist::Pareto { scale: 1.0, shape: 1.1, max: Some(100.0) },
            Dist::Pareto { scale: 1.0, shape: 1.0, max: Some(50.0) },
            Dist::Lognormal { mu: 1.0, sigma: 0.5, max: None },
            // 3GPP2 FTP file: mean 2 MB before truncation, bounded at 5 MB.
            Dist::Lognormal { mu: 14.45, sigma: 0.35, max: Some(5e6) },
            Dist::Lognormal { mu: 0.0, sigma: 1.0, max: Some(1.0) },
        ];
        for d in &cases {
            let v = draws(d, 400_000, |d, r| d.sample(r));
            let m = d.mean().unwrap();
            assert!((mean(&v) / m - 1.0).abs() < 0.01, "{d:?}: sample {} vs {m}", mean(&v));
            if let Dist::Pareto { max: Some(p), .. } | Dist::Lognormal { max: Some(p), .. } = d {
                assert!(v.iter().all(|x| x <= p), "{d:?} exceeded its bound");
            }
        }
        assert_eq!(Dist::Pareto { scale: 1.0, shape: 1.0, max: None }.mean(), None);
    }

    #[test]
    fn residual_life_has_the_renewal_theory_mean() {
        // E[residual] = E[X²] / (2 E[X]).
        let cases = [
            (Dist::Fixed(4.0), 2.0),
            (Dist::Exponential { mean: 3.0 }, 3.0),
            (Dist::Uniform { lo: 0.0, hi: 6.0 }, 2.0),
            // Pareto(1, 3): E[X] = 1.5, E[X²] = 3.
            (Dist::Pareto { scale: 1.0, shape: 3.0, max: None }, 1.0),
            // Lognormal(0, 0.5): E[X²]/(2E[X]) = e^{2σ²}/(2 e^{σ²/2}) = e^{1.5σ²}/2.
            (Dist::Lognormal { mu: 0.0, sigma: 0.5, max: None }, (1.5f64 * 0.25).exp() / 2.0),
        ];
        for (d, want) in &cases {
            let v = draws(d, 400_000, |d, r| d.sample_residual(r).unwrap());
            assert!((mean(&v) / want - 1.0).abs() < 0.015, "{d:?}: {} vs {want}", mean(&v));
        }
        let mut rng = Rng::stream(1, StreamKind::App, 0);
        assert_eq!(
            Dist::Pareto { scale: 1.0, shape: 1.0, max: None }.sample_residual(&mut rng),
            None
        );
    }

    #[test]
    fn scaling_multiplies_every_value() {
        let d = Dist::Lognormal { mu: 1.0, sigma: 0.3, max: Some(10.0) };
        let s = d.scaled(2.5);
        assert!((s.mean().unwrap() / d.mean().unwrap() - 2.5).abs() < 1e-9);
        let p = Dist::Pareto { scale: 1.0, shape: 1.5, max: None }.scaled(3.0);
        assert_eq!(p.mean(), Some(9.0));
    }
}
