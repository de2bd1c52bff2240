//! Command line: `python -m ccarena.testbed.delayline IF_A IF_B DELAY_AB_US DELAY_BA_US STATS_PATH [PS_PER_BYTE_AB PS_PER_BYTE_BA]`.

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
    /// Serialisation time per IP byte from `if_a` to `if_b`, picoseconds (0: none).
    pub ps_per_byte_ab: u64,
    /// Serialisation time per IP byte from `if_b` to `if_a`, picoseconds (0: none).
    pub ps_per_byte_ba: u64,
}

pub const USAGE: &str = "usage: python -m ccarena.testbed.delayline IF_A IF_B DELAY_AB_US DELAY_BA_US STATS_PATH [PS_PER_BYTE_AB PS_PER_BYTE_BA]";

pub fn parse(argv: &[String]) -> Result<Args, String> {
    if argv.len() != 5 && argv.len() != 7 {
        return Err(USAGE.to_string());
    }
    let whole = |name: &str, v: &str, unit: &str| -> Result<u64, String> {
        v.parse::<u64>().map_err(|_| format!("{name} must be a whole number of {unit}, not {v:?}"))
    };
    let (ps_ab, ps_ba) = match argv.get(5..7) {
        Some([ab, ba]) => (
            whole("PS_PER_BYTE_AB", ab, "picoseconds")?,
            whole("PS_PER_BYTE_BA", ba, "picoseconds")?,
        ),
        _ => (0, 0),
    };
    Ok(Args {
        if_a: argv[0].clone(),
        if_b: argv[1].clone(),
        delay_ab: Duration::from_micros(whole("DELAY_AB_US", &argv[2], "microseconds")?),
        delay_ba: Duration::from_micros(whole("DELAY_BA_US", &argv[3], "microseconds")?),
        stats_path: argv[4].clone(),
        ps_per_byte_ab: ps_ab,
        ps_per_byte_ba: ps_ba,
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
        assert_eq!((a.ps_per_byte_ab, a.ps_per_byte_ba), (0, 0));
    }

    #[test]
    fn parses_serialisation_per_byte() {
        let a = parse(&s(&["a", "b", "1000", "1000", "/tmp/x", "800000", "4123711"])).unwrap();
        assert_eq!((a.ps_per_byte_ab, a.ps_per_byte_ba), (800_000, 4_123_711));
    }

    #[test]
    fn rejects_bad_delay_and_arity() {
        assert!(parse(&s(&["a", "b", "20ms", "5", "/tmp/x"])).unwrap_err().contains("DELAY_AB_US"));
        assert!(parse(&s(&["a", "b", "1", "5", "/tmp/x", "1.5", "2"]))
            .unwrap_err()
            .contains("PS_PER_BYTE_AB"));
        assert_eq!(parse(&s(&["a"])).unwrap_err(), USAGE);
        assert_eq!(parse(&s(&["a", "b", "1", "5", "/tmp/x", "3"])).unwrap_err(), USAGE);
    }
}
