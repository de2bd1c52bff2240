//! The supported scale of a scenario: every quantity has a physically meaningful range, and the
//! totals that decide memory (flows, nodes, recorded samples) have a ceiling, so that any input
//! either runs or is refused with one line naming the field, the value and the limit — never an
//! out-of-memory abort. docs/scenario.md ("Limits") lists the same numbers.

use super::ScenarioError;
use crate::time::{Rate, SimDuration};

/// Longest duration anywhere in a scenario (run length, delays, timers, means): one day.
pub const MAX_DURATION: SimDuration = SimDuration::from_secs(86_400);
/// Fastest rate anywhere in a scenario: 1 Tbit/s (above today's fastest links, 800 Gbit/s).
pub const MAX_RATE: Rate = Rate(1_000_000_000_000);
/// Largest size anywhere in a scenario (files, buffers, objects): 1 TB.
pub const MAX_BYTES: u64 = 1_000_000_000_000;
/// Largest queue limit in packets (10⁶ full-size packets is 1.5 GB of buffer).
pub const MAX_QUEUE_PKTS: u64 = 1_000_000;
/// Most errors of one scenario reported together (the last line counts the others).
pub const MAX_REPORTED_ERRORS: usize = 6;
/// Most flows of the `[[flows]]` groups together (background sources have their own ceiling).
pub const MAX_FLOWS: u64 = 100_000;
/// Most nodes of a graph topology.
pub const MAX_GRAPH_NODES: usize = 100_000;
/// Most recorded series rows: (sampled flows + link directions) × samples. A flow row holds 13
/// numbers, so the ceiling keeps the recorder under about 500 MB.
pub const MAX_SERIES_ROWS: u64 = 5_000_000;
/// Largest mean number of objects of a web page (Barford & Crovella's SURGE pages hold a few).
pub const MAX_WEB_OBJECTS: f64 = 10_000.0;
/// Most packets per second one paced source (CBR, on/off) may send: 10 Gbit/s of 125-byte
/// packets. Faster sources only overflow their access link, at the cost of an event each.
pub const MAX_PACKET_RATE: f64 = 1e7;
/// Longest excerpt of a user's value echoed in an error message.
pub const MAX_ECHO_CHARS: usize = 80;

/// A duration within [`MAX_DURATION`].
pub fn check_duration(d: SimDuration, s: &str) -> Result<SimDuration, String> {
    if d > MAX_DURATION {
        return Err(format!(
            "{} is out of range: expected at most {MAX_DURATION} (one day)",
            shorten(s)
        ));
    }
    Ok(d)
}

/// A rate within [`MAX_RATE`].
pub fn check_rate(r: Rate, s: &str) -> Result<Rate, String> {
    if r > MAX_RATE {
        return Err(format!("{} is out of range: expected at most {MAX_RATE}", shorten(s)));
    }
    Ok(r)
}

/// A size within [`MAX_BYTES`].
pub fn check_bytes(b: u64, s: &str) -> Result<u64, String> {
    if b > MAX_BYTES {
        // Written in a unit the size parser accepts (it has no TB: "1TB" here sent users to a
        // value they could not write — fuzzing finding).
        return Err(format!("{} is out of range: expected at most 1000GB", shorten(s)));
    }
    Ok(b)
}

/// Refuses a paced application (at `path`) sending more than [`MAX_PACKET_RATE`] packets/s.
pub fn check_packet_rate(rate: Rate, packet_size: u64, path: &str) -> Result<(), ScenarioError> {
    let pps = rate.as_bps_f64() / (8.0 * packet_size.max(1) as f64);
    if pps > MAX_PACKET_RATE {
        return Err(ScenarioError::new(format!("{path}.rate"), format!("{rate} in packets of {packet_size}B is {pps:.3e} packets/s: expected at most {MAX_PACKET_RATE:.0e} (raise packet_size or lower the rate)")));
    }
    Ok(())
}

/// Refuses a run whose series would exceed [`MAX_SERIES_ROWS`].
pub fn check_series(
    series: u64,
    duration: SimDuration,
    interval: SimDuration,
) -> Result<(), ScenarioError> {
    let samples = duration.as_nanos() / interval.as_nanos().max(1) + 1;
    let rows = series.saturating_mul(samples);
    if rows > MAX_SERIES_ROWS {
        return Err(ScenarioError::new(
            "sample_interval",
            format!("{interval} over {duration} records {samples} samples for each of {series} series (sampled flows + link directions), {rows} rows: the limit is {MAX_SERIES_ROWS}; raise sample_interval or shorten duration"),
        ));
    }
    Ok(())
}

/// `s` cut to [`MAX_ECHO_CHARS`] characters with an ellipsis, for echoing user input.
pub fn shorten(s: &str) -> String {
    match s.char_indices().nth(MAX_ECHO_CHARS) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…", &s[..cut]),
    }
}

/// An error message with every long quoted value (between `"` or `` ` ``) shortened, and the
/// whole message kept to a few hundred characters (the end, which says what is allowed, kept).
pub fn shorten_message(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(1024));
    let mut rest = msg;
    while let Some(open) = rest.find(['"', '`']) {
        let q = rest.as_bytes()[open] as char;
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let close = rest.find(q).unwrap_or(rest.len());
        out.push_str(&shorten(&rest[..close]));
        rest = &rest[close..];
        if let Some(c) = rest.chars().next() {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.push_str(rest);
    const HEAD: usize = 300;
    const TAIL: usize = 160;
    if out.chars().count() <= HEAD + TAIL {
        return out;
    }
    let head: String = out.chars().take(HEAD).collect();
    let tail: String = out.chars().rev().take(TAIL).collect::<Vec<_>>().into_iter().rev().collect();
    format!("{head} … {tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_limit_is_named_in_a_unit_sizes_may_be_written_in() {
        let e = check_bytes(MAX_BYTES + 1, "2000GB").unwrap_err();
        assert_eq!(e, "2000GB is out of range: expected at most 1000GB");
        let limit = e.rsplit(' ').next().unwrap();
        assert_eq!(
            crate::time::parse_bytes(limit),
            Ok(MAX_BYTES),
            "the message's limit parses to the limit"
        );
    }

    #[test]
    fn long_quoted_values_are_cut_and_short_ones_kept() {
        let long = "x".repeat(10_000);
        let m = shorten_message(&format!("\"{long}\" has an unknown unit \"Mbs\": expected bps"));
        assert!(m.len() < 200, "{m}");
        assert!(m.starts_with(&format!("\"{}…\"", "x".repeat(MAX_ECHO_CHARS))), "{m}");
        assert!(m.ends_with("has an unknown unit \"Mbs\": expected bps"), "{m}");
        assert_eq!(shorten_message("unknown field `bogus`"), "unknown field `bogus`");
    }

    #[test]
    fn unquoted_huge_values_keep_the_head_and_the_allowed_tail() {
        let m = shorten_message(&format!(
            "expected a string, got [{}] (allowed: x, y)",
            "1,".repeat(100_000)
        ));
        assert!(m.chars().count() < 500, "{}", m.len());
        assert!(
            m.starts_with("expected a string, got [1,1,") && m.ends_with("(allowed: x, y)"),
            "{m}"
        );
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        let m = shorten(&"é".repeat(200));
        assert_eq!(m.chars().count(), MAX_ECHO_CHARS + 1);
    }

    #[test]
    fn series_budget_names_the_fields_and_the_limit() {
        let e = check_series(1000, SimDuration::from_secs(400), SimDuration::from_micros(100))
            .unwrap_err();
        assert_eq!(e.path, "sample_interval");
        assert!(
            e.message.contains("limit is 5000000") && e.message.contains("duration"),
            "{}",
            e.message
        );
        check_series(1000, SimDuration::from_secs(400), SimDuration::from_millis(100)).unwrap();
    }
}
