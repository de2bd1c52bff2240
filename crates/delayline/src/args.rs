//! Command line: `ccarena-delayline IF_A IF_B DELAY_AB_US DELAY_BA_US STATS_PATH`.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    pub if_a: String,
    pub if_b: String,
    /// Delay of frames received on `if_a` and sent on `if_b`.
    pub delay_ab: Duration,
    /// Delay of frames received on `if_b` and sent on `if_a`.
    pub delay_ba: Duration,
    /// Where the lateness statistics are written (JSON) when the line stops.
    pub stats_path: String,
}

pub const USAGE: &str = "usage: ccarena-delayline IF_A IF_B DELAY_AB_US DELAY_BA_US STATS_PATH";

pub fn parse(argv: &[String]) -> Result<Args, String> {
    if argv.len() != 5 {
        return Err(USAGE.to_string());
    }
    let micros = |name: &str, v: &str| -> Result<Duration, String> {
        v.parse::<u64>()
            .map(Duration::from_micros)
            .map_err(|_| format!("{name} must be a whole number of microseconds, not {v:?}"))
    };
    Ok(Args {
        if_a: argv[0].clone(),
        if_b: argv[1].clone(),
        delay_ab: micros("DELAY_AB_US", &argv[2])?,
        delay_ba: micros("DELAY_BA_US", &argv[3])?,
        stats_path: argv[4].clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn parses_microseconds() {
        let a = parse(&s(&["a", "b", "20000", "5", "/tmp/x"])).unwrap();
        assert_eq!(a.delay_ab, Duration::from_millis(20));
        assert_eq!(a.delay_ba, Duration::from_micros(5));
    }

    #[test]
    fn rejects_bad_delay_and_arity() {
        assert!(parse(&s(&["a", "b", "20ms", "5", "/tmp/x"])).unwrap_err().contains("DELAY_AB_US"));
        assert_eq!(parse(&s(&["a"])).unwrap_err(), USAGE);
    }
}
