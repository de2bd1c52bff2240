//! The TCP throughput equation of TFRC (RFC 5348 §3.1; Padhye et al. 1998), and its inverse.
//!
//! ```text
//!                                  s
//! X_Bps = ----------------------------------------------------------------
//!         R·sqrt(2·b·p/3) + t_RTO · (3·sqrt(3·b·p/8) · p · (1 + 32·p²))
//!
//! s      segment size, bytes             R      round-trip time, seconds
//! p      loss event rate, 0 < p ≤ 1      b = 1  packets acknowledged per ACK (RFC 5348 §3.1)
//! t_RTO  = 4·R                           (RFC 5348 §3.1: "t_RTO = 4*R")
//! ```
//!
//! This is the only place the equation is written; CCID 3, FAST-TFRC and the receiver's
//! first-loss-interval estimate all call it.

/// b: packets acknowledged by one TCP acknowledgement (RFC 5348 §3.1 recommends 1).
pub const B: f64 = 1.0;
/// t_RTO as a multiple of R (RFC 5348 §3.1).
pub const T_RTO_FACTOR: f64 = 4.0;

/// The allowed rate X_Bps, bytes per second, for segment size `s` (bytes), round-trip time `r`
/// (seconds) and loss event rate `p` (> 0).
pub fn tcp_throughput(s: f64, r: f64, p: f64) -> f64 {
    debug_assert!(p > 0.0 && r > 0.0, "the equation needs p > 0 and R > 0 (p = {p}, R = {r})");
    let t_rto = T_RTO_FACTOR * r;
    let denom = r * (2.0 * B * p / 3.0).sqrt()
        + t_rto * (3.0 * (3.0 * B * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p));
    s / denom
}

/// The loss event rate p at which [`tcp_throughput`] gives `x` bytes per second: the inverse
/// the receiver uses to synthesise its first loss interval (RFC 5348 §6.3.1). Bisection on
/// log p in [1e-12, 1]; `x` above the rate at p = 1e-12 returns 1e-12, below the rate at p = 1
/// returns 1.
pub fn loss_rate_for(s: f64, r: f64, x: f64) -> f64 {
    const P_MIN: f64 = 1e-12;
    if x >= tcp_throughput(s, r, P_MIN) {
        return P_MIN;
    }
    if x <= tcp_throughput(s, r, 1.0) {
        return 1.0;
    }
    let (mut lo, mut hi) = (P_MIN.ln(), 0.0_f64);
    // The equation decreases in p: keep tcp_throughput(lo) > x > tcp_throughput(hi).
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if tcp_throughput(s, r, mid.exp()) > x {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-13 {
            break;
        }
    }
    (0.5 * (lo + hi)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn matches_hand_computed_values() {
        // Each expected value evaluated term by term in 40-digit decimal arithmetic:
        //   s = 1460, R = 0.1, p = 0.01:
        //     R·sqrt(2p/3)                  = 0.00816496580927726032732428
        //     4R·3·sqrt(3p/8)·p·(1 + 32p²)  = 0.00073719843298802528043345
        //     X = 1460 / (sum)              = 164005.062169969770527 B/s
        let cases = [
            // (s, R, p, X by hand)
            (1460.0, 0.1, 0.01, 164_005.062_169_969_78),
            // terms 0.0365148371670110742, 0.0177462108631673821
            (1000.0, 0.2, 0.05, 18_429.426_564_776_786),
            // VoIP packets: terms 0.00129099444873580563, 0.0000116193218450234866
            (160.0, 0.05, 0.001, 122_829.962_045_201_46),
            // p = 1, every packet lost: terms 0.244948974278317810, 72.7498453606603895
            (1500.0, 0.3, 1.0, 20.549_410_593_818_607),
        ];
        for (s, r, p, want) in cases {
            let got = tcp_throughput(s, r, p);
            assert!(rel(got, want) < 1e-9, "s={s} R={r} p={p}: {got} vs {want}");
        }
    }

    #[test]
    fn rate_scales_with_s_over_r_and_falls_with_p() {
        let x = tcp_throughput(1000.0, 0.1, 0.02);
        assert!(rel(tcp_throughput(2000.0, 0.1, 0.02), 2.0 * x) < 1e-12);
        assert!(rel(tcp_throughput(1000.0, 0.2, 0.02), x / 2.0) < 1e-12);
        assert!(tcp_throughput(1000.0, 0.1, 0.03) < x);
    }

    #[test]
    fn small_p_approaches_the_simple_square_root_law() {
        // For small p the timeout term vanishes: X → s / (R·sqrt(2p/3)).
        let (s, r, p): (f64, f64, f64) = (1460.0, 0.1, 1e-7);
        let simple = s / (r * (2.0 * p / 3.0).sqrt());
        assert!(rel(tcp_throughput(s, r, p), simple) < 1e-3);
    }

    #[test]
    fn inverse_recovers_p() {
        for p in [1e-6, 1e-4, 0.003, 0.05, 0.3] {
            let x = tcp_throughput(1460.0, 0.08, p);
            let back = loss_rate_for(1460.0, 0.08, x);
            assert!(rel(back, p) < 1e-9, "{p} → {back}");
        }
        assert_eq!(loss_rate_for(1460.0, 0.1, 1e30), 1e-12);
        assert_eq!(loss_rate_for(1460.0, 0.1, 1.0), 1.0);
    }
}
