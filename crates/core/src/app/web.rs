//! Web browsing: one user fetching pages from one server over a persistent TCP connection,
//! with SURGE's distributions (Barford & Crovella, "Generating Representative Web Workloads for
//! Network and Server Performance Evaluation", ACM SIGMETRICS 1998, Table 2).
//!
//! ```text
//! page:    M = max(1, ⌊Pareto(k = 1, α = 2.43)⌋) objects            SURGE "embedded references"
//! object:  S ~ lognormal(μ = 9.357, σ = 1.318) below k_t = 133 000 B  SURGE "file sizes, body"
//!              Pareto(k_t = 133 000 B, α = 1.1) above k_t           SURGE "file sizes, tail"
//!          P(tail) = 1 − Φ((ln k_t − μ)/σ) ≈ 0.032: the lognormal's own mass above k_t is
//!          moved into the Pareto tail, so the CDF is continuous at k_t and below it is exactly
//!          the lognormal's (override with `tail_fraction`)
//! think:   T ~ Pareto(k = 1 s, α = 1.5), mean 3 s                   SURGE "inactive OFF times"
//! ```
//!
//! Timeline at the server (the data sender): page n's first object (the "main" object) is sent
//! from `start_n`; when it is fully acknowledged the client's request for the M − 1 embedded
//! objects arrives, and they are sent back to back (HTTP/1.1 pipelining); when the last one is
//! fully acknowledged the user thinks for T and the next request arrives: `start_{n+1} =
//! ack_time + T`. The request direction is not simulated as packets: a request is assumed to
//! ride with the ACK that completes the previous response (both cross the reverse path, so the
//! ACK's arrival is the request's arrival); the first request arrives at the flow's start.
//!
//! Not implemented / deviates from SURGE:
//! - No file popularity (Zipf) or temporal locality: every object's size is a fresh draw, so
//!   transfer sizes follow SURGE's *file* size distribution, not its request-size tail
//!   (Pareto k = 1000, α = 1.0), which results from popularity.
//! - No "active OFF" times (Weibull) between embedded objects: they are pipelined.
//! - Request messages cost no bytes and no extra round trip beyond the ACK they ride with.
//! - `max_size` (optional) bounds the tail (Harchol-Balter's bounded Pareto): SURGE's α = 1.1
//!   tail has an infinite variance, so the offered load of a finite run is dominated by rare
//!   objects; a bound makes a configured load observable in practice.

use super::dist::{normal_cdf, Dist};
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

/// SURGE's web model; every field is a scenario parameter (see `docs/traffic.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct WebModel {
    /// Lognormal body of object sizes: mean and deviation of ln(bytes). SURGE: 9.357, 1.318.
    pub body_mu: f64,
    pub body_sigma: f64,
    /// Pareto tail of object sizes: scale (bytes) and index. SURGE: 133 000 B ("133K"), 1.1.
    pub tail_scale: f64,
    pub tail_shape: f64,
    /// Probability that an object comes from the tail.
    pub tail_fraction: f64,
    /// Upper bound on object sizes (bytes), if any.
    pub max_size: Option<f64>,
    /// Objects per page (main + embedded) before flooring. SURGE: Pareto(1, 2.43).
    pub objects: Dist,
    /// Think time between pages, seconds. SURGE: Pareto(1 s, 1.5).
    pub think: Dist,
}

impl Default for WebModel {
    fn default() -> Self {
        let (body_mu, body_sigma, tail_scale) = (9.357, 1.318, 133_000.0);
        WebModel {
            body_mu,
            body_sigma,
            tail_scale,
            tail_shape: 1.1,
            tail_fraction: WebModel::spliced_tail_fraction(body_mu, body_sigma, tail_scale),
            max_size: None,
            objects: Dist::Pareto { scale: 1.0, shape: 2.43, max: None },
            think: Dist::Pareto { scale: 1.0, shape: 1.5, max: None },
        }
    }
}

impl WebModel {
    /// The lognormal's mass above the cutoff: 1 − Φ((ln k − μ)/σ).
    pub fn spliced_tail_fraction(mu: f64, sigma: f64, cutoff: f64) -> f64 {
        1.0 - normal_cdf((cutoff.ln() - mu) / sigma)
    }

    fn body(&self) -> Dist {
        Dist::Lognormal { mu: self.body_mu, sigma: self.body_sigma, max: Some(self.tail_scale) }
    }
    fn tail(&self) -> Dist {
        Dist::Pareto { scale: self.tail_scale, shape: self.tail_shape, max: self.max_size }
    }

    /// One object's size, bytes (at least 1).
    pub fn object_size(&self, rng: &mut Rng) -> u64 {
        let x = if rng.bernoulli(self.tail_fraction) {
            self.tail().sample(rng)
        } else {
            self.body().sample(rng)
        };
        (x.ceil() as u64).max(1)
    }

    /// Objects on one page (at least 1).
    pub fn page_objects(&self, rng: &mut Rng) -> u64 {
        (self.objects.sample(rng).floor() as u64).max(1)
    }

    /// Mean object size, bytes; `None` if infinite (unbounded tail with α ≤ 1).
    pub fn mean_object_bytes(&self) -> Option<f64> {
        let body = self.body().mean()?;
        let tail = self.tail().mean()?;
        Some((1.0 - self.tail_fraction) * body + self.tail_fraction * tail)
    }

    /// E[max(1, ⌊X⌋)] for the objects-per-page variable X, and P(that count ≥ 2).
    pub fn mean_page_objects(&self) -> Option<(f64, f64)> {
        self.objects.mean()?;
        // E[max(1, ⌊X⌋)] = 1 + Σ_{n≥2} P(X ≥ n); P(X ≥ n) from the survival function.
        let surv = |x: f64| survival(&self.objects, x);
        let mut sum = 1.0;
        const TERMS: u32 = 100_000;
        for n in 2..=TERMS {
            sum += surv(n as f64);
        }
        // Tail of the sum, bounded by the integral (only a Pareto reaches that far).
        if let Dist::Pareto { scale, shape, max: None } = self.objects {
            sum += scale.powf(shape) * (TERMS as f64 + 0.5).powf(1.0 - shape) / (shape - 1.0);
        }
        Some((sum, surv(2.0)))
    }
}

/// P(X ≥ x) for the distribution kinds a page's object count may use.
fn survival(d: &Dist, x: f64) -> f64 {
    match *d {
        Dist::Fixed(v) => f64::from(u8::from(v >= x)),
        Dist::Exponential { mean } => (-x / mean).exp(),
        Dist::Uniform { lo, hi } => ((hi - x) / (hi - lo)).clamp(0.0, 1.0),
        Dist::Pareto { scale, shape, max } => {
            if x <= scale {
                return 1.0;
            }
            match max {
                Some(p) if x > p => 0.0,
                Some(p) => {
                    ((scale / x).powf(shape) - (scale / p).powf(shape))
                        / (1.0 - (scale / p).powf(shape))
                }
                None => (scale / x).powf(shape),
            }
        }
        Dist::Lognormal { mu, sigma, max } => {
            let below = |v: f64| normal_cdf((v.ln() - mu) / sigma);
            match max {
                Some(p) if x > p => 0.0,
                Some(p) => (below(p) - below(x)) / below(p),
                None => 1.0 - below(x),
            }
        }
    }
}

/// Counters of a web source, for tests and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WebStats {
    pub pages_started: u64,
    pub pages_completed: u64,
    pub objects: u64,
    pub bytes: u64,
}

/// The application state of one web user (see the module notes). Messages are TCP segments.
/// Laid out in the order written (`repr(C)`): what every segment's transmission and ACK reads
/// first, in the first 72 bytes; the model, the random stream and the counts, read once a page,
/// after them. The state is cold whenever the user's next segment comes (the sender's note).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct WebApp {
    /// First segment of the current page.
    page_begin: u64,
    /// One past the main object's last segment, and one past the page's last segment.
    main_end: u64,
    page_end: u64,
    /// When the current page's request reaches the server.
    start_at: SimTime,
    mss: u32,
    /// The length of the main object's last segment.
    main_last: u32,
    /// Per embedded object of the current page: one past its last segment, and that segment's
    /// length. Most pages have none (P(M ≥ 2) = 2^−2.43 ≈ 19 %), and the main object's are kept
    /// inline: a segment's length is asked for at every transmission, and a source wakes from
    /// seconds of thinking with its heap blocks out of the cache.
    embedded: Vec<(u64, u32)>,
    /// The embedded objects have been requested (the main object is fully acknowledged).
    embedded_requested: bool,
    stats: WebStats,
    rng: Rng,
    model: WebModel,
}

impl WebApp {
    /// A user whose first request reaches the server at `start`.
    /// Payload bytes of a full segment.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    pub fn new(model: WebModel, mss: u32, rng: Rng, start: SimTime) -> WebApp {
        let mut app = WebApp {
            model,
            mss,
            rng,
            page_begin: 0,
            main_end: 0,
            page_end: 0,
            main_last: 0,
            embedded: Vec::new(),
            start_at: start,
            embedded_requested: false,
            stats: WebStats::default(),
        };
        app.draw_page(start);
        app
    }

    pub fn stats(&self) -> WebStats {
        self.stats
    }

    fn draw_page(&mut self, start: SimTime) {
        self.page_begin = self.page_end;
        self.start_at = start;
        self.embedded_requested = false;
        self.embedded.clear();
        let n = self.model.page_objects(&mut self.rng);
        let mut end = self.page_begin;
        for i in 0..n {
            let size = self.model.object_size(&mut self.rng);
            let segs = size.div_ceil(self.mss as u64);
            end += segs;
            let last = (size - (segs - 1) * self.mss as u64) as u32;
            if i == 0 {
                (self.main_end, self.main_last) = (end, last);
            } else {
                self.embedded.push((end, last));
            }
            self.stats.bytes += size;
        }
        self.page_end = end;
        self.stats.objects += n;
        self.stats.pages_started += 1;
    }

    /// Segments produced by `now` (cumulative).
    pub fn available(&self, now: SimTime) -> u64 {
        if now < self.start_at {
            self.page_begin
        } else if self.embedded_requested {
            self.page_end
        } else {
            self.main_end
        }
    }

    /// When segment `n` becomes available, if that is known now (the next page's start).
    pub fn ready_at(&self, n: u64) -> Option<SimTime> {
        (n == self.page_begin).then_some(self.start_at)
    }

    /// Payload bytes of segment `n` of the current page.
    pub fn len(&self, n: u64) -> u32 {
        if n < self.main_end {
            return if n + 1 == self.main_end { self.main_last } else { self.mss };
        }
        let i = self.embedded.partition_point(|&(end, _)| end <= n);
        match self.embedded.get(i) {
            Some(&(end, last)) if n + 1 == end => last,
            _ => self.mss,
        }
    }

    /// The cumulative ACK reached `una` at `now`.
    pub fn on_acked(&mut self, now: SimTime, una: u64) {
        if !self.embedded_requested && una >= self.main_end {
            self.embedded_requested = true;
        }
        if una >= self.page_end {
            self.stats.pages_completed += 1;
            let think = SimDuration::from_secs_f64(self.model.think.sample(&mut self.rng));
            self.draw_page(now + think);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn rng() -> Rng {
        Rng::stream(3, StreamKind::App, 7)
    }

    /// Hill's estimator of the tail index from the `k` largest of `x` (Hill 1975).
    fn hill(x: &mut [f64], k: usize) -> f64 {
        x.sort_by(|a, b| b.total_cmp(a));
        let xk = x[k].ln();
        k as f64 / x[..k].iter().map(|v| v.ln() - xk).sum::<f64>()
    }

    #[test]
    fn what_a_segment_reads_lies_in_the_first_72_bytes() {
        use std::mem::offset_of;
        assert!(offset_of!(WebApp, embedded_requested) < 72);
        assert!(
            offset_of!(WebApp, stats).max(offset_of!(WebApp, rng)).max(offset_of!(WebApp, model))
                >= 72
        );
    }

    #[test]
    fn default_model_is_surges_and_the_splice_keeps_the_lognormal_below_the_cutoff() {
        let m = WebModel::default();
        // 1 − Φ((ln 133000 − 9.357)/1.318) = 1 − Φ(1.852) = 0.032.
        assert!((m.tail_fraction - 0.032).abs() < 0.001, "{}", m.tail_fraction);
        let mut r = rng();
        let mut sizes: Vec<f64> = (0..200_000).map(|_| m.object_size(&mut r) as f64).collect();
        // Below the cutoff the CDF is the lognormal's: the median is e^μ = 11 572 B.
        let mut sorted = sizes.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        assert!((median / 9.357f64.exp() - 1.0).abs() < 0.02, "median {median}");
        let above = sizes.iter().filter(|&&s| s > 133_000.0).count() as f64 / sizes.len() as f64;
        assert!((above - m.tail_fraction).abs() < 0.002, "{above}");
        // Tail index from the 2000 largest (all in the Pareto part): 1.1.
        let a = hill(&mut sizes, 2000);
        assert!((a - 1.1).abs() < 0.08, "Hill estimate {a}");
    }

    #[test]
    fn the_tail_index_follows_the_configuration() {
        let m = WebModel { tail_shape: 1.6, ..WebModel::default() };
        let mut r = rng();
        let mut sizes: Vec<f64> = (0..200_000).map(|_| m.object_size(&mut r) as f64).collect();
        let a = hill(&mut sizes, 2000);
        assert!((a - 1.6).abs() < 0.1, "Hill estimate {a}");
    }

    #[test]
    fn pages_have_surges_object_count() {
        let m = WebModel::default();
        let (mean, p2) = m.mean_page_objects().unwrap();
        // E[⌊X⌋] = ζ(2.43) = 1.370098 for Pareto(1, 2.43); P(X ≥ 2) = 2^−2.43.
        assert!((mean - 1.370_098).abs() < 1e-5, "{mean}");
        assert!((p2 - 2f64.powf(-2.43)).abs() < 1e-12);
        let mut r = rng();
        let n = 200_000;
        let drawn = (0..n).map(|_| m.page_objects(&mut r)).sum::<u64>() as f64 / n as f64;
        assert!((drawn / mean - 1.0).abs() < 0.01, "{drawn}");
    }

    #[test]
    fn segments_of_a_page_carry_each_object_with_a_short_last_segment() {
        let m = WebModel { objects: Dist::Fixed(3.0), ..WebModel::default() };
        let app = WebApp::new(m, 1000, rng(), SimTime::ZERO);
        let mut total = 0u64;
        for n in app.page_begin..app.page_end {
            total += app.len(n) as u64;
        }
        assert_eq!(total, app.stats().bytes);
        assert_eq!(app.embedded.len(), 2);
    }

    #[test]
    fn embedded_objects_follow_the_main_ack_and_the_next_page_the_think_time() {
        let m =
            WebModel { objects: Dist::Fixed(2.0), think: Dist::Fixed(2.0), ..WebModel::default() };
        let t0 = SimTime::from_millis(500);
        let mut app = WebApp::new(m, 1460, rng(), t0);
        assert_eq!(app.available(SimTime::ZERO), 0);
        assert_eq!(app.ready_at(0), Some(t0));
        let (main, end) = (app.main_end, app.page_end);
        assert_eq!(app.available(t0), main);
        app.on_acked(SimTime::from_millis(600), main - 1);
        assert_eq!(
            app.available(SimTime::from_millis(600)),
            main,
            "embedded objects wait for the main object's last ACK"
        );
        app.on_acked(SimTime::from_millis(700), main);
        assert_eq!(app.available(SimTime::from_millis(700)), end);
        assert_eq!(
            app.ready_at(end),
            None,
            "the next page is unknown until this one is acknowledged"
        );
        app.on_acked(SimTime::from_millis(900), end);
        let next = SimTime::from_millis(2900);
        assert_eq!(app.ready_at(end), Some(next));
        assert_eq!(app.available(SimTime::from_millis(2899)), end);
        assert!(app.available(next) > end);
        assert_eq!(app.stats().pages_completed, 1);
    }
}
