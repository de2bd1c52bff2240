//! Quantities as written in scenarios ("100ms", "1Gbps", "1500B", "2500pkt"), with serde
//! support in both directions: parsing with a message that names what is allowed, and writing
//! back in the same human form for the normalised scenario.

use super::limits;
use crate::net::queue::QueueLimit;
use crate::time::{parse_bytes, parse_duration, parse_rate, Dur, Rate, SimDuration};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Implements Deserialize (from a string, through `parse`) and Serialize (through Display)
/// for a quantity newtype.
macro_rules! quantity {
    ($ty:ident, $inner:ty, $what:expr, $parse:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "{}", $what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        let parse: fn(&str) -> Result<$inner, String> = $parse;
                        parse(s).map($ty).map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

// `time::Dur`, within the scenario limits.
quantity!(Dur, SimDuration, "a duration with a unit, e.g. \"100ms\" or \"1.5s\"", |s| {
    parse_duration(s).and_then(|d| limits::check_duration(d, s))
});

/// A rate written with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateQ(pub Rate);
quantity!(RateQ, Rate, "a rate with a unit, e.g. \"10Mbps\" or \"1Gbps\"", |s| parse_rate(s)
    .and_then(|r| limits::check_rate(r, s)));

/// A size in bytes written with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);
quantity!(Bytes, u64, "a size with a unit, e.g. \"1500B\" or \"5MB\"", |s| parse_bytes(s)
    .and_then(|b| limits::check_bytes(b, s)));

/// A queue limit: "100pkt" or a size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit(pub QueueLimit);
quantity!(Limit, QueueLimit, "a queue limit, e.g. \"100pkt\" or \"150KB\"", parse_limit);

fn parse_limit(s: &str) -> Result<QueueLimit, String> {
    let t = s.trim();
    if let Some(n) = t
        .strip_suffix("pkt")
        .or_else(|| t.strip_suffix("pkts"))
        .or_else(|| t.strip_suffix("packets"))
    {
        return match n.trim().parse::<u64>() {
            Ok(n) if (1..=limits::MAX_QUEUE_PKTS).contains(&n) => Ok(QueueLimit::Packets(n)),
            _ => Err(format!("{:?} is not a queue limit: expected a whole number of packets from 1 to {} like \"100pkt\" or a size like \"150KB\"", limits::shorten(s), limits::MAX_QUEUE_PKTS)),
        };
    }
    match parse_bytes(t) {
        Ok(b) if b > 0 => limits::check_bytes(b, s).map(QueueLimit::Bytes),
        Ok(_) => Err(format!("{s:?} must be a positive queue limit")),
        Err(_) => Err(format!(
            "{:?} is not a queue limit: expected packets like \"100pkt\" or a size like \"150KB\"",
            limits::shorten(s)
        )),
    }
}

impl Serialize for Dur {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}
impl Serialize for RateQ {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}B", self.0))
    }
}
impl Serialize for Limit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A per-flow value that is fixed or drawn uniformly per flow: `"10ms"` or
/// `{ uniform = ["10ms", "20ms"] }`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spread {
    Fixed(Dur),
    Uniform(Dur, Dur),
}

impl<'de> Deserialize<'de> for Spread {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Spread;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a duration like \"10ms\" or {{ uniform = [\"10ms\", \"20ms\"] }}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Spread, E> {
                parse_duration(s)
                    .and_then(|d| limits::check_duration(d, s))
                    .map(|d| Spread::Fixed(Dur(d)))
                    .map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Spread, A::Error> {
                let key: Option<String> = map.next_key()?;
                match key.as_deref() {
                    Some("uniform") => {
                        let [lo, hi]: [Dur; 2] = map.next_value()?;
                        if let Some(k) = map.next_key::<String>()? {
                            return Err(de::Error::custom(format!(
                                "unknown key {k:?}: only `uniform` is allowed"
                            )));
                        }
                        if hi < lo {
                            return Err(de::Error::custom(format!(
                                "uniform range [{}, {}] is reversed",
                                lo.0, hi.0
                            )));
                        }
                        Ok(Spread::Uniform(lo, hi))
                    }
                    Some(k) => {
                        Err(de::Error::custom(format!("unknown key {k:?}: expected `uniform`")))
                    }
                    None => Err(de::Error::custom("empty table: expected { uniform = [lo, hi] }")),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Spread {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Spread::Fixed(d) => d.serialize(s),
            Spread::Uniform(lo, hi) => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("uniform", &[lo, hi])?;
                m.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_in_packets_or_bytes() {
        assert_eq!(parse_limit("2500pkt").unwrap(), QueueLimit::Packets(2500));
        assert_eq!(parse_limit("150KB").unwrap(), QueueLimit::Bytes(150_000));
        assert!(parse_limit("0pkt").is_err());
        assert!(parse_limit("lots").is_err());
    }

    #[test]
    fn spread_accepts_string_or_uniform_table() {
        let f: Spread = serde_json::from_str("\"10ms\"").unwrap();
        assert_eq!(f, Spread::Fixed(Dur(SimDuration::from_millis(10))));
        let u: Spread = serde_json::from_str(r#"{"uniform": ["1s", "2s"]}"#).unwrap();
        assert_eq!(
            u,
            Spread::Uniform(Dur(SimDuration::from_secs(1)), Dur(SimDuration::from_secs(2)))
        );
        assert!(serde_json::from_str::<Spread>(r#"{"normal": ["1s", "2s"]}"#).is_err());
        assert!(serde_json::from_str::<Spread>(r#"{"uniform": ["2s", "1s"]}"#).is_err());
        assert_eq!(serde_json::to_string(&u).unwrap(), r#"{"uniform":["1s","2s"]}"#);
    }

    #[test]
    fn numbers_without_units_are_refused_with_a_hint() {
        let e = serde_json::from_str::<Dur>("100").unwrap_err().to_string();
        assert!(e.contains("duration with a unit"), "{e}");
    }
}
